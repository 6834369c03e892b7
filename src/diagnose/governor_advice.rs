//! Governor advice for I/O work (NAS, router): a finding when the cpufreq governor or the
//! DRAM controller's devfreq governor keeps clocks low while the CPU mostly waits for
//! disks and NICs, naming the sysfs node to change.
//!
//! The ROCK 5 ITX review (`seeds/rock-5-itx-preview.txt`) measured SMB multichannel over
//! 2 × 2.5GbE under five settings: with `schedutil` (Armbian's default) the big cores sat
//! at 408 MHz throughout ("keeps the clockspeeds low all the time"); `ondemand` with
//! `io_is_busy=1` (and the review's other tweaks) ramped to 1800/2352 MHz and doubled
//! almost every score; switching the DMC from `dmc_ondemand` (528–2736 MHz) to
//! `performance` changed little on its own. Hence: schedutil and ondemand without
//! io_is_busy are warnings, a dynamic DMC governor is information. Pure: the governors
//! come from discovery (`run::tuning::read_governors` fills [`Governor`]).

use crate::record::finding::{Finding, FindingCode, Severity};
use crate::record::tuning::Governor;

/// Where the global ondemand tunable lives (per policy on kernels whose driver keeps
/// governor tunables per policy: `policyN/ondemand/io_is_busy`).
pub use crate::sys::cpufreq::IO_IS_BUSY;

/// Is this governor entry the DRAM controller (`dmc`, `dmc-ddr`, `*.dram`)?
pub fn is_memory(g: &Governor) -> bool {
    let n = g.name.to_ascii_lowercase();
    n.contains("dmc") || n.contains("ddr") || n.contains("dram") || n.contains("memory")
}

/// A devfreq governor that scales the clock with load (`dmc_ondemand`,
/// `simple_ondemand`, `rknpu_ondemand`, `ondemand`, `powersave` pins it low).
pub fn is_dynamic_devfreq(gov: &str) -> bool {
    gov.ends_with("ondemand") || gov == "powersave" || gov == "userspace_lowest"
}

fn cpufreq_entries(gs: &[Governor]) -> impl Iterator<Item = &Governor> {
    gs.iter().filter(|g| g.name.starts_with("cpufreq-"))
}

fn paths(gs: &[&Governor]) -> String {
    gs.iter()
        .map(|g| g.path.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn schedutil(gs: &[Governor]) -> Option<Finding> {
    let v: Vec<&Governor> = cpufreq_entries(gs)
        .filter(|g| g.governor.as_deref() == Some("schedutil"))
        .collect();
    if v.is_empty() {
        return None;
    }
    let offers_ondemand = v
        .iter()
        .all(|g| g.available.is_empty() || g.available.iter().any(|a| a == "ondemand"));
    let fix = if offers_ondemand {
        format!(
            "write ondemand to {} and 1 to {IO_IS_BUSY}, or performance",
            paths(&v)
        )
    } else {
        format!("write performance to {}", paths(&v))
    };
    Some(Finding::new(
        FindingCode::GovernorCpufreqIo,
        Severity::Warning,
        format!(
            "cpufreq governor schedutil keeps clocks low while the CPU waits for disks and network \
             (ROCK 5 ITX: big cores at 408 MHz during SMB transfers, half the throughput of ondemand \
             with io_is_busy=1); for NAS or router use {fix}"
        ),
    ))
}

fn ondemand_without_io(gs: &[Governor]) -> Option<Finding> {
    let v: Vec<&Governor> = cpufreq_entries(gs)
        .filter(|g| g.governor.as_deref() == Some("ondemand") && g.io_is_busy == Some(false))
        .collect();
    if v.is_empty() {
        return None;
    }
    let names: Vec<&str> = v
        .iter()
        .map(|g| g.name.trim_start_matches("cpufreq-"))
        .collect();
    Some(Finding::new(
        FindingCode::GovernorCpufreqIo,
        Severity::Warning,
        format!(
            "cpufreq governor ondemand on {} does not count I/O wait as busy (io_is_busy=0), so \
             clocks stay low while the CPU waits for disks and network; write 1 to {IO_IS_BUSY} \
             (policyN/ondemand/io_is_busy where the tunables are per policy)",
            names.join(", ")
        ),
    ))
}

fn dmc(gs: &[Governor]) -> Vec<Finding> {
    gs.iter()
        .filter(|g| !g.name.starts_with("cpufreq-") && is_memory(g))
        .filter_map(|g| {
            let gov = g.governor.as_deref()?;
            if !is_dynamic_devfreq(gov) {
                return None;
            }
            let range = match (g.frequencies_mhz.first(), g.frequencies_mhz.last()) {
                (Some(lo), Some(hi)) if lo != hi => format!(" between {lo} and {hi} MHz"),
                _ => String::new(),
            };
            let now = g
                .cur_mhz
                .map(|m| format!(" (now {m} MHz)"))
                .unwrap_or_default();
            let fix = if g.available.is_empty() || g.available.iter().any(|a| a == "performance") {
                format!("write performance to {} (costs idle power)", g.path)
            } else {
                format!("{} offers no performance governor", g.path)
            };
            Some(Finding::new(
                FindingCode::GovernorDmcIo,
                Severity::Info,
                format!(
                    "memory controller {} runs governor {gov}{range}{now}: DRAM clocks down when \
                     the CPU is idle waiting for I/O, which raises memory latency for the next \
                     burst; for NAS or router use {fix}",
                    g.name
                ),
            ))
        })
        .collect()
}

/// The advice for these governors: schedutil, ondemand without io_is_busy, a dynamic
/// DMC governor. Nothing for `performance`, ondemand with io_is_busy=1, or x86
/// `intel_pstate`/`amd-pstate` policies (their `powersave` is the hardware's own
/// scaling, not a low clock).
pub fn advise(governors: &[Governor]) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(schedutil(governors));
    out.extend(ondemand_without_io(governors));
    out.extend(dmc(governors));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(id: u32, gov: &str, io: Option<bool>) -> Governor {
        Governor {
            name: format!("cpufreq-policy{id}"),
            path: format!("/sys/devices/system/cpu/cpufreq/policy{id}/scaling_governor"),
            governor: Some(gov.into()),
            available: [
                "conservative",
                "ondemand",
                "userspace",
                "powersave",
                "performance",
                "schedutil",
            ]
            .map(String::from)
            .to_vec(),
            cur_mhz: Some(408),
            frequencies_mhz: vec![408, 1800],
            io_is_busy: io,
        }
    }

    fn dmc_gov(gov: &str) -> Governor {
        Governor {
            name: "dmc".into(),
            path: "/sys/class/devfreq/dmc/governor".into(),
            governor: Some(gov.into()),
            available: [
                "dmc_ondemand",
                "userspace",
                "powersave",
                "performance",
                "simple_ondemand",
            ]
            .map(String::from)
            .to_vec(),
            cur_mhz: Some(528),
            frequencies_mhz: vec![528, 1068, 1560, 2112, 2736],
            io_is_busy: None,
        }
    }

    fn gpu(gov: &str) -> Governor {
        Governor {
            name: "fb000000.gpu".into(),
            path: "/sys/class/devfreq/fb000000.gpu/governor".into(),
            governor: Some(gov.into()),
            available: vec![],
            cur_mhz: None,
            frequencies_mhz: vec![],
            io_is_busy: None,
        }
    }

    fn setup(cpufreq: &str, io: Option<bool>, dmc: &str) -> Vec<Governor> {
        vec![
            cpu(0, cpufreq, io),
            cpu(4, cpufreq, io),
            cpu(6, cpufreq, io),
            dmc_gov(dmc),
            gpu("simple_ondemand"),
        ]
    }

    fn codes(f: &[Finding]) -> Vec<FindingCode> {
        f.iter().map(|f| f.code).collect()
    }

    #[test]
    fn rock5_itx_five_governor_tables() {
        use FindingCode::{GovernorCpufreqIo as Cpu, GovernorDmcIo as Dmc};
        // 1. schedutil + dmc_ondemand (Armbian defaults): both.
        let f = advise(&setup("schedutil", None, "dmc_ondemand"));
        assert_eq!(codes(&f), vec![Cpu, Dmc]);
        assert!(
            f[0].message.contains("policy0/scaling_governor"),
            "{}",
            f[0].message
        );
        assert!(f[0].message.contains(IO_IS_BUSY));
        assert!(f[1].message.contains("/sys/class/devfreq/dmc/governor"));
        assert!(
            f[1].message
                .contains("between 528 and 2736 MHz (now 528 MHz)"),
            "{}",
            f[1].message
        );
        // 2. schedutil + dmc performance: the cpufreq advice only.
        assert_eq!(
            codes(&advise(&setup("schedutil", None, "performance"))),
            vec![Cpu]
        );
        // 3. ondemand with tweaks (io_is_busy=1) + dmc_ondemand: the dmc only.
        assert_eq!(
            codes(&advise(&setup("ondemand", Some(true), "dmc_ondemand"))),
            vec![Dmc]
        );
        // 4. ondemand with tweaks + dmc performance: nothing to say.
        assert!(advise(&setup("ondemand", Some(true), "performance")).is_empty());
        // 5. performance everywhere: nothing to say.
        assert!(advise(&setup("performance", None, "performance")).is_empty());
    }

    #[test]
    fn ondemand_without_io_is_busy() {
        let f = advise(&setup("ondemand", Some(false), "performance"));
        assert_eq!(codes(&f), vec![FindingCode::GovernorCpufreqIo]);
        assert!(
            f[0].message.contains("policy0, policy4, policy6"),
            "{}",
            f[0].message
        );
        assert!(f[0].message.contains("io_is_busy=0"));
        // io_is_busy unknown: no claim either way.
        assert!(advise(&setup("ondemand", None, "performance")).is_empty());
    }

    #[test]
    fn gpu_and_x86_are_left_alone() {
        let mut x86 = cpu(0, "powersave", None);
        x86.available = vec!["performance".into(), "powersave".into()];
        assert!(advise(&[x86, gpu("simple_ondemand")]).is_empty());
        assert!(advise(&[]).is_empty());
    }
}
