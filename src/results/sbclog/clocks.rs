//! Clocks in a log: the `Checking cpufreq OPP …` tables (cold at the start, hot after
//! `Testing maximum cpufreq again`) and the throttling statistics.

use crate::record::log_record::{LogClockPhase, LogOpp, LogOppTable, LogThrottling};

/// The heading's CPUs and core type: `for cpu0-cpu3 (Cortex-A55):`, `(Cortex-A72):`,
/// `for cpu4-cpu5:`, nothing.
fn heading(rest: &str) -> (Option<String>, Option<String>) {
    let rest = rest.trim().trim_end_matches(':').trim();
    let (cpus, rest) = match rest.strip_prefix("for ") {
        Some(r) => match r.split_once(' ') {
            Some((c, t)) => (Some(c.to_string()), t),
            None => (Some(r.to_string()), ""),
        },
        None => (None, rest),
    };
    let core = rest
        .trim()
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .map(str::to_string)
        .filter(|t| !t.is_empty());
    (cpus, core)
}

/// The first number of a text (`1814`, ` 631.031/…`).
fn number(s: &str) -> Option<f64> {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    s[..end].parse().ok()
}

/// What follows `Measured:` / `Measured on cpu1:`: `1814 (1814.832/1814.832/1814.742)
/// (+1.9%)`, old logs' `631.031/593.783/593.950` (the figure is their median then),
/// `1499 @ 0.8600V`, `1050 MHz (…)`.
fn measured(m: &str, row: &mut LogOpp) {
    let m = m.trim();
    let (head, samples) = match m.split_once('(') {
        Some((h, s)) => (h, s.split(')').next().unwrap_or("")),
        None => ("", ""),
    };
    let list = |s: &str| -> Vec<f64> {
        s.split('/')
            .map_while(|x| x.trim().parse::<f64>().ok())
            .collect()
    };
    if let Some((h, v)) = m.split_once(" @ ") {
        row.measured_mhz = number(h);
        row.vcore_v = number(v);
        return;
    }
    if !head.trim().is_empty() || !samples.is_empty() {
        row.measured_mhz = number(head);
        row.samples_mhz = list(samples);
        return;
    }
    let first = m.split_whitespace().next().unwrap_or("");
    if first.contains('/') {
        row.samples_mhz = list(first);
        let mut s = row.samples_mhz.clone();
        s.sort_by(f64::total_cmp);
        row.measured_mhz = s.get(s.len() / 2).copied();
    } else {
        row.measured_mhz = number(first);
    }
}

/// One row of an OPP table.
fn opp_row(l: &str) -> Option<LogOpp> {
    let t = l.trim();
    let mut row = LogOpp::default();
    if let Some(rest) = t.strip_prefix("Cpufreq OPP:") {
        let (before, m) = rest.split_once("Measured:")?;
        let (opp, threadx) = match before.split_once("ThreadX:") {
            Some((o, x)) => (o, number(x).map(|v| v as u32)),
            None => (before, None),
        };
        row.opp_mhz = Some(number(opp)? as u32);
        row.threadx_mhz = threadx;
        measured(m, &mut row);
        return Some(row);
    }
    if t.starts_with("No cpufreq support") {
        let (_, m) = t.split_once("Measured")?;
        let m = m.split_once(':').map_or(m, |x| x.1);
        measured(m, &mut row);
        return row.measured_mhz.is_some().then_some(row);
    }
    // The oldest layout: cpufreq OPP, measured, voltage.
    let f: Vec<u32> = t
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<Vec<u32>>>()?;
    if (2..=3).contains(&f.len()) {
        row.opp_mhz = Some(f[0]);
        row.measured_mhz = Some(f64::from(f[1]));
        return Some(row);
    }
    None
}

/// Every `Checking cpufreq OPP …` table, cold ones first as the log has them.
pub fn opp_tables(lines: &[String]) -> Vec<LogOppTable> {
    let mut out: Vec<LogOppTable> = Vec::new();
    let mut hot = false;
    let mut open = false;
    for l in lines {
        if l.starts_with("Testing maximum cpufreq again")
            || l.starts_with("Testing clockspeeds again")
        {
            hot = true;
            open = false;
            continue;
        }
        if let Some(rest) = l.strip_prefix("Checking cpufreq OPP") {
            let again = rest.trim_start().starts_with("again");
            let (cpus, core_type) = if again { (None, None) } else { heading(rest) };
            out.push(LogOppTable {
                phase: if hot || again {
                    LogClockPhase::Hot
                } else {
                    LogClockPhase::Cold
                },
                cpus,
                core_type,
                rows: Vec::new(),
            });
            open = true;
            continue;
        }
        if !open || l.trim().is_empty() {
            continue;
        }
        match (opp_row(l), out.last_mut()) {
            (Some(r), Some(t)) => t.rows.push(r),
            _ => open = false,
        }
    }
    out.retain(|t| !t.rows.is_empty());
    out
}

/// `Throttling statistics (time spent on each cpufreq OPP) for CPUs 4-7 (Cortex-A76):`
/// and its `2091 MHz:  970.03 sec` rows.
pub fn throttling(lines: &[String]) -> Vec<LogThrottling> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some((_, tail)) = l.split_once("time spent on each cpufreq OPP)") else {
            continue;
        };
        let (cpus, core_type) = match tail.trim().trim_end_matches(':').strip_prefix("for CPUs ") {
            Some(r) => match r.split_once(" (") {
                Some((c, t)) => (
                    Some(c.to_string()),
                    Some(t.trim_end_matches(')').to_string()),
                ),
                None => (Some(r.to_string()), None),
            },
            None => (None, None),
        };
        let rows: Vec<(u32, f64)> = lines[i + 1..]
            .iter()
            .skip_while(|x| x.trim().is_empty())
            .map_while(|x| {
                let (mhz, secs) = x.split_once("MHz:")?;
                Some((
                    mhz.trim().parse().ok()?,
                    secs.trim().strip_suffix("sec")?.trim().parse().ok()?,
                ))
            })
            .collect();
        if !rows.is_empty() {
            out.push(LogThrottling {
                cpus,
                core_type,
                seconds_at_mhz: rows,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::sbclog::normalise;

    #[test]
    fn every_row_layout_of_the_opp_tables() {
        // v0.9.72 (corpus 1ET4), the hot check after `Testing maximum cpufreq again`.
        let text = "Checking cpufreq OPP for cpu0-cpu1 (Cortex-A720):\n\nCpufreq OPP: 2600    Measured: 2598 (2598.747/2598.642/2598.642)\nCpufreq OPP:  800    Measured:  798    (798.991/798.971/798.941)     (-0.1%)\n\n\
Checking cpufreq OPP (Cortex-A72):\n\nCpufreq OPP: 1500    ThreadX: 1500    Measured: 1499 @ 0.8600V\n\n\
Checking cpufreq OPP:\n\nCpufreq OPP:  600    ThreadX:  600    Measured: 631.031/593.783/593.950\n\n\
Checking cpufreq OPP:\n\nNo cpufreq support available. Measured on cpu1: 1050 MHz (1050.11/1049.88/1049.88)\n\n\
Testing maximum cpufreq again, still under full load. System health now:\n\nTime ...\n\nChecking cpufreq OPP for cpu0-cpu1 (Cortex-A720):\n\nCpufreq OPP: 2600    Measured: 2500 (2500.1/2500.0/2499.9)\n\nsomething else\n";
        let t = opp_tables(&normalise(text));
        assert_eq!(t.len(), 5);
        assert_eq!(t[0].cpus.as_deref(), Some("cpu0-cpu1"));
        assert_eq!(t[0].core_type.as_deref(), Some("Cortex-A720"));
        assert_eq!(t[0].rows[1].opp_mhz, Some(800));
        assert_eq!(t[0].rows[1].measured_mhz, Some(798.0));
        assert_eq!(t[0].rows[1].samples_mhz, [798.991, 798.971, 798.941]);
        assert_eq!(t[1].core_type.as_deref(), Some("Cortex-A72"));
        assert_eq!(t[1].rows[0].threadx_mhz, Some(1500));
        assert_eq!(t[1].rows[0].vcore_v, Some(0.86));
        assert_eq!(t[2].rows[0].measured_mhz, Some(593.95));
        assert_eq!(t[3].rows[0].opp_mhz, None);
        assert_eq!(t[3].rows[0].measured_mhz, Some(1050.0));
        assert_eq!(t[4].phase, LogClockPhase::Hot);
        assert_eq!(t[4].rows[0].measured_mhz, Some(2500.0));
        assert!(t[..4].iter().all(|x| x.phase == LogClockPhase::Cold));
    }

    #[test]
    fn throttling_statistics_per_cluster() {
        let text = "Throttling statistics (time spent on each cpufreq OPP) for CPUs 4-7 (Cortex-A76):\n\n2091 MHz:       0 sec\n1785 MHz:  970.03 sec\n\n####\n";
        let t = throttling(&normalise(text));
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].cpus.as_deref(), Some("4-7"));
        assert_eq!(t[0].core_type.as_deref(), Some("Cortex-A76"));
        assert_eq!(t[0].seconds_at_mhz, [(2091, 0.0), (1785, 970.03)]);
    }
}
