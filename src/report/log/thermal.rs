//! The thermal test's text: sbc-bench's `Total Scores:` line, the wait, the one-line
//! verdict, and `-M`'s AES-256 after the load with its ratio per cluster.

use std::fmt::Write as _;

use crate::diagnose::thermal::{self, AesRatio, ThermalVerdict};
use crate::record::mode::thermal::{ThermalMode, ThermalWait};
use crate::record::run::{ModeResults, RunReport};
use crate::report::log::crypto;

/// sbc-bench's `Total Scores:` of cpuminer: every interval's total except the first (the
/// first two when there are ten or more, as they may be low and look like throttling),
/// highest first, each value once, comma-separated.
pub fn total_scores(khs: &[f64]) -> String {
    let skip = if khs.len() >= 10 { 2 } else { 1 };
    let mut v: Vec<f64> = khs.iter().skip(skip).copied().collect();
    v.sort_by(|a, b| b.total_cmp(a));
    let mut out: Vec<String> = v.iter().map(|k| format!("{k:.2}")).collect();
    out.dedup();
    out.join(",")
}

/// What the wait did, as sbc-bench writes it to its monitor log, and how long it took.
pub fn wait_line(w: &ThermalWait) -> String {
    let target = w.target_c.trunc() as i64;
    let c = |t: Option<f64>| {
        t.map(|t| format!("{}°C", t.trunc() as i64))
            .unwrap_or_else(|| "n/a".into())
    };
    match (w.mode, w.already_there) {
        (ThermalMode::HeatTo, true) => {
            format!(
                "Skipping heating up the SoC since already at {}",
                c(w.start_c)
            )
        }
        (_, true) => format!(
            "No need to wait for the SoC chilling since already at {}",
            c(w.start_c)
        ),
        (ThermalMode::HeatTo, false) => format!(
            "Heated the SoC from {} to {} in {:.0} s (target {target}°C)",
            c(w.start_c),
            c(w.end_c),
            w.waited_s
        ),
        (_, false) => format!(
            "Waited {:.0} s for the SoC to cool down from {} to {} (target {target}°C)",
            w.waited_s,
            c(w.start_c),
            c(w.end_c)
        ),
    }
}

fn mhz(khz: u64) -> String {
    format!("{:.0} MHz", khz as f64 / 1000.0)
}

/// The window the verdict compares: `minute` (a load of 3 minutes or more, and verdicts
/// recorded before the window was kept), else its seconds (`7 s` of a 20-s load).
fn window_words(window_s: Option<f64>) -> String {
    match window_s {
        Some(w) if w < 1.0 => format!("{w:.1} s"),
        Some(w) if w < 59.5 => format!("{w:.0} s"),
        _ => "minute".to_string(),
    }
}

/// The verdict in one line: `Verdict: sustained 94% of the first minute (25.32 → 23.80
/// kH/s), first throttled after 48 s, peak 85.2°C, settled 83.9°C, settled at 1800 MHz
/// (cpu0-3, Cortex-A55), 2016 MHz of 2256 MHz (cpu4-5, Cortex-A76)`.
pub fn verdict_line(v: &ThermalVerdict) -> String {
    let mut parts = Vec::new();
    match (v.sustained_pct, v.first_khs, v.sustained_khs) {
        (Some(p), Some(f), Some(l)) => parts.push(format!(
            "sustained {p:.0}% of the first {} ({f:.2} → {l:.2} kH/s)",
            window_words(v.window_s)
        )),
        _ => parts.push("no scrypt score".to_string()),
    }
    parts.push(match (v.first_throttle_s, v.clocks_seen) {
        (Some(s), _) if s <= 0.0 => "below the highest clock from the start".to_string(),
        (Some(s), _) => format!("first throttled after {s:.0} s"),
        (None, true) => "no throttling seen".to_string(),
        (None, false) => "throttling not judged (no clocks sampled)".to_string(),
    });
    let c = |t: Option<f64>| {
        t.map(|t| format!("{t:.1}°C"))
            .unwrap_or_else(|| "n/a".into())
    };
    parts.push(format!("peak {}, settled {}", c(v.peak_c), c(v.settled_c)));
    if !v.settled.is_empty() {
        let clocks: Vec<String> = v
            .settled
            .iter()
            .map(|s| {
                let at = match s.max_khz {
                    Some(m) if m > s.khz => format!("{} of {}", mhz(s.khz), mhz(m)),
                    _ => mhz(s.khz),
                };
                let who = crate::sys::cpu_list::format_list(&s.cpus);
                match &s.core_type {
                    Some(t) => format!("{at} (cpu{who}, {t})"),
                    None => format!("{at} (cpu{who})"),
                }
            })
            .collect();
        parts.push(format!("settled at {}", clocks.join(", ")));
    }
    format!("Verdict: {}", parts.join(", "))
}

/// `-M`'s ratio table and what it measures.
pub fn ratio_block(ratios: &[AesRatio]) -> String {
    let mut s = String::from(
        "AES-256-CBC at 16 KiB after the load / before it, per cluster (the buffer stays in \
         L1 cache: the ratio measures how fast each cluster still computes once heat-soaked, \
         i.e. its sustained clock, not DRAM bandwidth):\n\n",
    );
    for r in ratios {
        let _ = writeln!(
            s,
            "  cpu{} ({}): {:.0} KB/s -> {:.0} KB/s = {:.3} ({})",
            r.cpu,
            r.tag,
            r.before_bps / 1000.0,
            r.after_bps / 1000.0,
            r.ratio,
            r.source
        );
    }
    s
}

/// The log's thermal section: the wait, `Total Scores:`, `-M`'s second AES run and
/// ratios, and the verdict.
pub fn section(r: &RunReport) -> String {
    let ModeResults::Thermal(th) = &r.mode else {
        return String::new();
    };
    let mut s = String::new();
    if let Some(src) = &th.source {
        let _ = writeln!(s, "Thermal test using {src}\n");
    }
    if let Some(w) = &th.wait {
        let _ = writeln!(s, "{}\n", wait_line(w));
    }
    if let Some(after) = &th.aes_after {
        s.push_str(&crypto::aes_section(
            "Executing AES-256 benchmark again on each cluster, after the load",
            after,
        ));
        s.push('\n');
        if let Some(before) = &r.results.aes {
            s.push_str(&ratio_block(&thermal::aes_ratios(before, after)));
            s.push('\n');
        }
    }
    if let Some(run) = &r.results.scrypt {
        let khs: Vec<f64> = run.intervals.iter().map(|i| i.khash_per_s).collect();
        let _ = writeln!(s, "Total Scores: {}\n", total_scores(&khs));
    }
    if let Some(v) = thermal::verdict(r) {
        let _ = writeln!(s, "{}", verdict_line(&v));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::thermal::SettledClock;

    #[test]
    fn total_scores_as_sbc_bench_sums_them_up() {
        // Fewer than ten: the first is left out; sorted, highest first, once each.
        assert_eq!(total_scores(&[20.0, 25.32, 25.31, 25.32]), "25.32,25.31");
        // Ten or more: the first two are left out.
        let k = [
            1.0, 2.0, 25.1, 25.3, 25.3, 24.9, 24.8, 24.8, 24.7, 24.6, 24.6,
        ];
        assert_eq!(total_scores(&k), "25.30,25.10,24.90,24.80,24.70,24.60");
        assert_eq!(total_scores(&[]), "");
    }

    #[test]
    fn verdict_in_one_line() {
        let v = ThermalVerdict {
            first_khs: Some(25.32),
            sustained_khs: Some(23.8),
            sustained_pct: Some(23.8 / 25.32 * 100.0),
            window_s: None,
            first_throttle_s: Some(48.2),
            clocks_seen: true,
            peak_c: Some(85.2),
            settled_c: Some(83.94),
            settled: vec![
                SettledClock {
                    policy: 0,
                    cpus: vec![0, 1, 2, 3],
                    core_type: Some("Cortex-A55".into()),
                    khz: 1_800_000,
                    max_khz: Some(1_800_000),
                },
                SettledClock {
                    policy: 4,
                    cpus: vec![4, 5],
                    core_type: Some("Cortex-A76".into()),
                    khz: 2_016_000,
                    max_khz: Some(2_256_000),
                },
            ],
        };
        assert_eq!(
            verdict_line(&v),
            "Verdict: sustained 94% of the first minute (25.32 → 23.80 kH/s), first \
             throttled after 48 s, peak 85.2°C, settled 83.9°C, settled at 1800 MHz \
             (cpu0-3, Cortex-A55), 2016 MHz of 2256 MHz (cpu4-5, Cortex-A76)"
        );
        // A 5-minute load's window is a minute.
        let five = ThermalVerdict {
            window_s: Some(60.0),
            ..v.clone()
        };
        assert_eq!(verdict_line(&five), verdict_line(&v));
        let none = ThermalVerdict {
            clocks_seen: true,
            ..Default::default()
        };
        assert_eq!(
            verdict_line(&none),
            "Verdict: no scrypt score, no throttling seen, peak n/a, settled n/a"
        );
    }

    /// Issue 28: a 20-s thermal test (`thermal --seconds 20`) compared its first and last
    /// 7 s, and the verdict called that "the first minute".
    #[test]
    fn a_20_s_thermal_test_does_not_speak_of_its_first_minute() {
        let v = ThermalVerdict {
            first_khs: Some(25.0),
            sustained_khs: Some(24.0),
            sustained_pct: Some(96.0),
            window_s: Some(crate::diagnose::thermal::window_s(20.0)),
            clocks_seen: true,
            ..Default::default()
        };
        let line = verdict_line(&v);
        assert!(
            line.starts_with("Verdict: sustained 96% of the first 7 s (25.00 → 24.00 kH/s)"),
            "{line}"
        );
        assert!(!line.contains("minute"), "{line}");
    }
}
