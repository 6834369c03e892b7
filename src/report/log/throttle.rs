//! Throttling in the log: sbc-bench's time-in-state table and the Raspberry Pi firmware's
//! bit picture (the diagnosis itself is `diagnose::throttle`).

use crate::diagnose::throttle::PiThrottled;
use crate::record::throttle::OppResidency;

/// sbc-bench's table, one block per policy:
/// `Throttling statistics (time spent on each cpufreq OPP) for CPUs 4-5 (Cortex-A76):`.
pub fn residency_table(res: &[OppResidency]) -> String {
    let mut s = String::new();
    for (i, r) in res.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let mut head = String::from("Throttling statistics (time spent on each cpufreq OPP)");
        if res.len() > 1 {
            head.push_str(&format!(
                " for CPUs {}",
                crate::sys::cpu_list::format_list(&r.cpus)
            ));
            if let Some(t) = &r.core_type {
                head.push_str(&format!(" ({t})"));
            }
        }
        s.push_str(&head);
        s.push_str(":\n\n");
        for (khz, sec) in &r.seconds_at_khz {
            let secs = if *sec == 0.0 {
                "0".to_string()
            } else {
                format!("{sec:.2}")
            };
            s.push_str(&format!("{:>4} MHz: {secs:>7} sec\n", khz / 1000));
        }
    }
    s
}

/// sbc-bench's bit picture (`0100000000000000000` with the legend).
pub fn pi_bits(t: PiThrottled) -> String {
    format!(
        "{:019b}\n|||             |||_ under-voltage\n|||             ||_ currently throttled\n|||             |_ arm frequency capped\n|||_ under-voltage has occurred since last reboot\n||_ throttling has occurred since last reboot\n|_ arm frequency capped has occurred since last reboot\n",
        t.0 & 0x7_ffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::throttle::residency_delta;

    #[test]
    fn table_like_sbc_bench() {
        let before = [(408000, 100), (1800000, 1000)];
        let after = [(408000, 100), (1416000, 2326), (1800000, 118551)];
        let r = OppResidency {
            policy: 0,
            cpus: vec![0, 1, 2, 3],
            core_type: Some("Cortex-A55".into()),
            seconds_at_khz: residency_delta(&before, &after),
        };
        let t = residency_table(std::slice::from_ref(&r));
        assert_eq!(
            t,
            "Throttling statistics (time spent on each cpufreq OPP):\n\n1800 MHz: 1175.51 sec\n1416 MHz:   23.26 sec\n 408 MHz:       0 sec\n"
        );
        let two = residency_table(&[r.clone(), r]);
        assert!(two.contains("for CPUs 0-3 (Cortex-A55):"));
    }

    #[test]
    fn pi_bit_picture() {
        let t = PiThrottled::parse("throttled=0x50005").unwrap();
        assert!(pi_bits(t).starts_with("1010000000000000101\n"));
    }
}
