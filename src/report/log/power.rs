//! Power in text: the run log's power section (only with a meter) and the monitor's `mW`
//! column (only with a meter; without one every line stays as it was).

use std::fmt::Write as _;

use crate::record::power::PowerRecord;
use crate::record::run::RunReport;

/// sbc-bench rounds a Netio's draw to 10 mW (`$(( … / 10 ) * 10 ))`).
pub fn round10(mw: f64) -> i64 {
    ((mw / 10.0).round() * 10.0) as i64
}

/// The run log's power section; empty without a meter.
pub fn log_section(r: &RunReport) -> String {
    let Some(p) = &r.power else {
        return String::new();
    };
    section(p)
}

fn section(p: &PowerRecord) -> String {
    let mut s = format!("Power consumption ({}):\n\n", p.meter);
    if let Some(b) = &p.banner {
        let _ = writeln!(s, "{b}\n");
    }
    match p.idle_mw {
        Some(mw) => {
            let _ = writeln!(
                s,
                "Idle consumption: {} mW (mean of {} reading{} before the first benchmark)\n",
                round10(mw),
                p.idle_readings,
                if p.idle_readings == 1 { "" } else { "s" }
            );
        }
        None => s.push_str("Idle consumption: n/a (no reading before the first benchmark)\n\n"),
    }
    let _ = writeln!(
        s,
        "  {:<28} {:>8} {:>8} {:>11} {:>8} {:>7}",
        "Phase", "mean mW", "peak mW", "energy mWh", "MIPS", "MIPS/W"
    );
    let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map(f).unwrap_or_else(|| "-".into());
    for ph in &p.phases {
        let _ = writeln!(
            s,
            "  {:<28} {:>8} {:>8} {:>11} {:>8} {:>7}",
            ph.phase,
            opt(ph.mean_mw, &|v| round10(v).to_string()),
            opt(ph.peak_mw, &|v| round10(v).to_string()),
            opt(ph.energy_mwh, &|v| format!("{v:.2}")),
            opt(ph.mips, &|v| format!("{v:.0}")),
            opt(ph.mips_per_watt, &|v| format!("{v:.0}")),
        );
    }
    if p.phases.iter().any(|ph| ph.readings == 0) {
        s.push_str(
            "\nA phase shorter than the meter's sampling interval shows the last reading \
             before its end.\n",
        );
    }
    if p.failed_readings > 0 {
        let _ = writeln!(
            s,
            "\n{} of {} readings of the meter failed.",
            p.failed_readings,
            p.failed_readings + p.readings as u64
        );
    }
    s
}

/// sbc-bench's monitor header for the column (`      mW`).
pub const MW_HEADER: &str = "      mW";

/// Add the `mW` column to monitor output: `      mW` after every header line (they start
/// with `Time`), the draw rounded to 10 mW after every sample line.
pub fn add_mw_column(text: &str, mw: Option<f64>) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        out.push_str(body);
        if body.starts_with("Time") {
            out.push_str(MW_HEADER);
        } else if !body.trim().is_empty() {
            let v = mw
                .map(|m| round10(m).to_string())
                .unwrap_or_else(|| "-".into());
            let _ = write!(out, "  {v:>5}");
        }
        out.push_str(nl);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::power::PhasePower;

    #[test]
    fn mw_column_after_headers_and_rows_only() {
        let t = "\nTime        CPU    load %cpu\n16:01:02:  1800 MHz  0.10   1%\n";
        assert_eq!(
            add_mw_column(t, Some(4374.0)),
            "\nTime        CPU    load %cpu      mW\n16:01:02:  1800 MHz  0.10   1%   4370\n"
        );
        assert_eq!(add_mw_column("x\n", None), "x      -\n");
    }

    #[test]
    fn section_lists_idle_and_phases() {
        let p = PowerRecord {
            meter: "INA226 (hwmon2, channel 1, power)".into(),
            banner: None,
            idle_mw: Some(2386.0),
            idle_readings: 3,
            phases: vec![PhasePower {
                phase: "7-zip benchmark".into(),
                duration_s: 60.0,
                mean_mw: Some(6004.0),
                peak_mw: Some(7512.0),
                readings: 60,
                energy_mwh: Some(100.07),
                mips: Some(12000.0),
                loaded_mw: Some(7500.0),
                mips_per_watt: Some(1600.0),
            }],
            readings: 70,
            failed_readings: 0,
        };
        let s = section(&p);
        assert!(s.starts_with("Power consumption (INA226 (hwmon2, channel 1, power)):\n\n"));
        assert!(
            s.contains("Idle consumption: 2390 mW (mean of 3 readings before the first benchmark)")
        );
        assert!(
            s.contains(
                "  7-zip benchmark                  6000     7510      100.07    12000    1600\n"
            ),
            "{s}"
        );
    }
}
