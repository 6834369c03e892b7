//! Throttling: time spent on each cpufreq OPP during the run (from two readings of
//! `stats/time_in_state`), and the Raspberry Pi firmware's throttling bits.

use crate::record::finding::FindingCode;
use serde::{Deserialize, Serialize};

use crate::diagnose::{Finding, Severity};
use crate::record::throttle::OppResidency;

/// Difference of two `time_in_state` readings (kHz, 10 ms ticks), highest OPP first.
/// OPPs missing in `before` count from zero; counters going backwards (a reset) give 0.
pub fn residency_delta(before: &[(u64, u64)], after: &[(u64, u64)]) -> Vec<(u64, f64)> {
    let mut v: Vec<(u64, f64)> = after
        .iter()
        .map(|&(f, t)| {
            let b = before
                .iter()
                .find(|(bf, _)| *bf == f)
                .map_or(0, |(_, t)| *t);
            (f, t.saturating_sub(b) as f64 / 100.0)
        })
        .collect();
    v.sort_by_key(|e| std::cmp::Reverse(e.0));
    v
}

/// Findings from OPP residency: time spent below the highest OPP while tuned to
/// `performance` means the kernel throttled (thermal or power limits).
pub fn findings(res: &[OppResidency], tolerance_s: f64) -> Vec<Finding> {
    let mut bad = Vec::new();
    for r in res {
        let Some(max) = r.seconds_at_khz.iter().map(|(f, _)| *f).max() else {
            continue;
        };
        let below = r.seconds_below_max(max);
        if below > tolerance_s {
            bad.push(format!(
                "cpu{} {:.0} s below {} MHz",
                r.cpus.first().copied().unwrap_or(r.policy),
                below,
                max / 1000
            ));
        }
    }
    if res.is_empty() {
        return Vec::new();
    }
    if bad.is_empty() {
        vec![Finding::ok(FindingCode::NoThrottling, "No throttling")]
    } else {
        vec![Finding::new(
            FindingCode::Throttling,
            Severity::Invalid,
            format!("Throttling occured: {}", bad.join(", ")),
        )]
    }
}

/// Findings that each say, from one source, that the run was throttled (or the board
/// under-volted): cpufreq time below the top OPP, the Raspberry Pi firmware's bits now
/// and during the run, the clock measured lower at the end than at the start. Highest
/// priority first: the merged verdict takes the first one's code.
const THROTTLED: [FindingCode; 4] = [
    FindingCode::Throttling,
    FindingCode::PiThrottledNow,
    FindingCode::PiThrottledDuringRun,
    FindingCode::ClockDroppedUnderLoad,
];

/// The lowest clock the monitor sampled on one policy during the benchmarks (not the
/// clock checks, which lower it on purpose), against the policy's maximum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampledClock {
    /// First CPU of the policy (the finding names it as the residency one does).
    pub cpu: u32,
    /// The policy's maximum, kHz (`scaling_max_freq`, else `cpuinfo_max_freq`).
    pub max_khz: u64,
    /// Lowest `scaling_cur_freq` sampled, kHz.
    pub lowest_khz: u64,
    /// The phase it was sampled in.
    pub phase: String,
}

/// Findings from the monitor's clock samples where cpufreq keeps no statistics: with the
/// `performance` governor a clock sampled more than 3 % below the maximum (sbc-bench's
/// margin for the clock measured at the end) was throttled.
pub fn sampled_findings(clocks: &[SampledClock]) -> Vec<Finding> {
    if clocks.is_empty() {
        return Vec::new();
    }
    let bad: Vec<String> = clocks
        .iter()
        .filter(|c| c.lowest_khz.saturating_mul(100) < c.max_khz.saturating_mul(97))
        .map(|c| {
            format!(
                "cpu{} sampled at {} MHz below {} MHz during {}",
                c.cpu,
                c.lowest_khz / 1000,
                c.max_khz / 1000,
                c.phase
            )
        })
        .collect();
    if bad.is_empty() {
        vec![Finding::ok(FindingCode::NoThrottling, "No throttling")]
    } else {
        vec![Finding::new(
            FindingCode::Throttling,
            Severity::Invalid,
            format!("Throttling occured: {}", bad.join(", ")),
        )]
    }
}

/// What could judge throttling when cpufreq statistics are missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judge {
    /// `stats/time_in_state` was read, or the monitor sampled the clocks of policies
    /// without it (their findings are already in the list).
    TimeInState,
    /// Only the Raspberry Pi firmware's bits (a board without cpufreq statistics).
    PiFirmware,
    /// cpufreq policies without `stats/time_in_state` (intel_pstate, many ACPI drivers).
    NoStatistics,
    /// No cpufreq at all (most VMs, some boards' vendor kernels).
    NoCpufreq,
}

/// The finding for a run nothing could judge, or that only the firmware judged and found
/// clean; `None` when `time_in_state` judged (its own finding says so).
pub fn unjudged(judge: Judge) -> Option<Finding> {
    match judge {
        Judge::TimeInState => None,
        Judge::PiFirmware => Some(Finding::ok(FindingCode::NoThrottling, "No throttling")),
        Judge::NoStatistics => Some(Finding::new(
            FindingCode::ThrottlingNotJudged,
            Severity::Info,
            "Throttling could not be judged (no cpufreq statistics)",
        )),
        Judge::NoCpufreq => Some(Finding::new(
            FindingCode::ThrottlingNotJudged,
            Severity::Info,
            "Throttling could not be judged (no cpufreq)",
        )),
    }
}

/// One throttling verdict from every source. A run with any source saying throttled (or
/// under-voltage) never also says "No throttling" or "could not be judged"; several
/// sources become one line, `Throttling occured: <source>; <source>` (sbc-bench's
/// wording), at the place of the most telling one, with its code. A single source, or
/// none, is left exactly as it was. `pi_throttling`: the firmware's bits name throttling,
/// capping or the soft temperature limit (not only under-voltage) now or during the run.
pub fn one_verdict(findings: Vec<Finding>, pi_throttling: bool) -> Vec<Finding> {
    let said = |f: &Finding| THROTTLED.contains(&f.code);
    if !findings.iter().any(said) {
        return findings;
    }
    let quiet = |f: &Finding| {
        matches!(
            f.code,
            FindingCode::NoThrottling | FindingCode::ThrottlingNotJudged
        )
    };
    let mut findings: Vec<Finding> = findings.into_iter().filter(|f| !quiet(f)).collect();
    let parts: Vec<(usize, FindingCode)> = THROTTLED
        .iter()
        .flat_map(|c| {
            findings
                .iter()
                .enumerate()
                .filter(move |(_, f)| f.code == *c)
                .map(|(i, f)| (i, f.code))
        })
        .collect();
    if parts.len() < 2 {
        return findings;
    }
    let throttled = pi_throttling
        || parts.iter().any(|(_, c)| {
            matches!(
                c,
                FindingCode::Throttling | FindingCode::ClockDroppedUnderLoad
            )
        });
    let headline = if throttled {
        "Throttling occured"
    } else {
        "Under-voltage occured"
    };
    let text: Vec<String> = parts
        .iter()
        .map(|(i, _)| {
            let m = &findings[*i].message;
            m.strip_prefix("Throttling occured: ")
                .unwrap_or(m)
                .to_string()
        })
        .collect();
    let (at, code) = parts[0];
    let merged = Finding::new(
        code,
        Severity::Invalid,
        format!("{headline}: {}", text.join("; ")),
    );
    let drop: Vec<usize> = parts[1..].iter().map(|(i, _)| *i).collect();
    findings[at] = merged;
    findings
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, f)| f)
        .collect()
}

/// Raspberry Pi firmware throttling state (`vcgencmd get_throttled`, also
/// `/sys/devices/platform/soc/soc:firmware/get_throttled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PiThrottled(pub u32);

impl PiThrottled {
    /// Parse `vcgencmd get_throttled` output (`throttled=0x50005`) or the firmware
    /// driver's sysfs node, which prints the same value as bare hex (`%x`: `50005`).
    /// Both are hexadecimal; a bare `50000` is 0x50000, never decimal.
    pub fn parse(s: &str) -> Option<Self> {
        let v = s.trim();
        let v = v.strip_prefix("throttled=").unwrap_or(v).trim();
        let h = v
            .strip_prefix("0x")
            .or_else(|| v.strip_prefix("0X"))
            .unwrap_or(v);
        if h.is_empty() || h.len() > 8 {
            return None;
        }
        u32::from_str_radix(h, 16).ok().map(Self)
    }

    fn bit(&self, n: u32) -> bool {
        self.0 & (1 << n) != 0
    }

    /// Conditions active now and since boot, as sentences.
    pub fn describe(&self) -> (Vec<&'static str>, Vec<&'static str>) {
        let now = [
            (0, "under-voltage"),
            (1, "arm frequency capped"),
            (2, "currently throttled"),
            (3, "soft temperature limit active"),
        ];
        let past = [
            (16, "under-voltage has occurred since last reboot"),
            (17, "arm frequency capped has occurred since last reboot"),
            (18, "throttling has occurred since last reboot"),
            (19, "soft temperature limit has occurred since last reboot"),
        ];
        (
            now.iter()
                .filter(|(b, _)| self.bit(*b))
                .map(|(_, s)| *s)
                .collect(),
            past.iter()
                .filter(|(b, _)| self.bit(*b))
                .map(|(_, s)| *s)
                .collect(),
        )
    }

    /// Do the bits active now, or new since `before`, name throttling, frequency capping or
    /// the soft temperature limit (anything but under-voltage)?
    pub fn throttling(before: Option<Self>, after: Self) -> bool {
        let new_since = before.map_or(after.0, |b| after.0 & !b.0);
        after.0 & 0b1110 != 0 || new_since & 0xe_0000 != 0
    }

    /// Findings: anything active now, or new since `before`, makes results invalid;
    /// conditions from before the run are reported as information.
    pub fn findings(before: Option<Self>, after: Self) -> Vec<Finding> {
        let (now, past) = after.describe();
        let mut out = Vec::new();
        let new_since = before.map_or(after.0, |b| after.0 & !b.0);
        if !now.is_empty() {
            out.push(Finding::new(
                FindingCode::PiThrottledNow,
                Severity::Invalid,
                format!("Raspberry Pi firmware reports: {}", now.join(", ")),
            ));
        }
        if new_since & 0xf_0000 != 0 {
            out.push(Finding::new(
                FindingCode::PiThrottledDuringRun,
                Severity::Invalid,
                format!(
                    "Raspberry Pi firmware: {} (during the run)",
                    PiThrottled(new_since).describe().1.join(", ")
                ),
            ));
        } else if !past.is_empty() {
            out.push(Finding::new(
                FindingCode::PiThrottledSinceBoot,
                Severity::Warning,
                format!("Raspberry Pi firmware: {}", past.join(", ")),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_like_sbc_bench() {
        let before = [(408000, 100), (1800000, 1000)];
        let after = [(408000, 100), (1416000, 2326), (1800000, 118551)];
        let d = residency_delta(&before, &after);
        assert_eq!(d[0], (1800000, 1175.51));
        let r = OppResidency {
            policy: 0,
            cpus: vec![0, 1, 2, 3],
            core_type: Some("Cortex-A55".into()),
            seconds_at_khz: d,
        };
        let f = findings(&[r], 1.0);
        assert_eq!(f[0].code, "throttling");
    }

    #[test]
    fn no_throttling() {
        let r = OppResidency {
            policy: 0,
            cpus: vec![0],
            core_type: None,
            seconds_at_khz: vec![(1800000, 900.0), (408000, 0.0)],
        };
        assert_eq!(findings(&[r], 1.0)[0].code, "no-throttling");
    }

    #[test]
    fn pi_bits() {
        let t = PiThrottled::parse("throttled=0x50005").unwrap();
        let (now, past) = t.describe();
        assert_eq!(now, vec!["under-voltage", "currently throttled"]);
        assert_eq!(past.len(), 2);
        let f = PiThrottled::findings(Some(PiThrottled(0)), t);
        assert!(f.iter().any(|f| f.code == "pi-throttled-during-run"));
        assert!(PiThrottled::parse("nonsense").is_none());
        assert!(PiThrottled::parse("").is_none());
        assert!(PiThrottled::parse("throttled=").is_none());
        let old = PiThrottled(0x50000);
        let f = PiThrottled::findings(Some(old), old);
        assert_eq!(f[0].severity, Severity::Warning);
    }

    fn clean_residency() -> Finding {
        findings(
            &[OppResidency {
                policy: 0,
                cpus: vec![0],
                core_type: None,
                seconds_at_khz: vec![(1800000, 900.0), (408000, 0.0)],
            }],
            1.0,
        )
        .remove(0)
    }

    /// Raspberry Pi 4 with `get_throttled` 0x50005 at both ends and clean cpufreq
    /// statistics: the firmware's "currently throttled" is the verdict, never "No
    /// throttling" beside it; the sticky bits from before the run stay a warning.
    #[test]
    fn pi_0x50005_with_clean_time_in_state_is_one_throttled_verdict() {
        let t = PiThrottled(0x50005);
        let mut all = vec![clean_residency()];
        all.extend(PiThrottled::findings(Some(t), t));
        let v = one_verdict(all, PiThrottled::throttling(Some(t), t));
        let codes: Vec<&str> = v.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["pi-throttled-now", "pi-throttled-since-boot"]);
        assert_eq!(
            v[0].message,
            "Raspberry Pi firmware reports: under-voltage, currently throttled"
        );
    }

    /// 0x50005 appearing during the run (0 before): the firmware's now and during-run
    /// bits and the cpufreq residency are one line, the cpufreq code first.
    #[test]
    fn several_sources_merge_into_one_line_with_the_first_sources_code() {
        let throttled = findings(
            &[OppResidency {
                policy: 0,
                cpus: vec![0],
                core_type: None,
                seconds_at_khz: vec![(1800000, 900.0), (1500000, 12.0)],
            }],
            1.0,
        );
        let t = PiThrottled(0x50005);
        let mut all = vec![Finding::ok(FindingCode::NoSwapping, "No swapping")];
        all.extend(throttled);
        all.extend(PiThrottled::findings(Some(PiThrottled(0)), t));
        let v = one_verdict(all, PiThrottled::throttling(Some(PiThrottled(0)), t));
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[1].code, "throttling");
        assert_eq!(
            v[1].message,
            "Throttling occured: cpu0 12 s below 1800 MHz; Raspberry Pi firmware reports: \
             under-voltage, currently throttled; Raspberry Pi firmware: under-voltage has \
             occurred since last reboot, throttling has occurred since last reboot (during \
             the run)"
        );
    }

    #[test]
    fn under_voltage_alone_is_not_called_throttling() {
        let t = PiThrottled(0x10001);
        let mut all = vec![clean_residency()];
        all.extend(PiThrottled::findings(Some(PiThrottled(0)), t));
        assert!(!PiThrottled::throttling(Some(PiThrottled(0)), t));
        let v = one_verdict(all, false);
        assert_eq!(v.len(), 1);
        assert!(
            v[0].message.starts_with("Under-voltage occured: "),
            "{}",
            v[0].message
        );
        assert!(PiThrottled::throttling(None, PiThrottled(0x40000)));
        assert!(!PiThrottled::throttling(
            Some(PiThrottled(0x40000)),
            PiThrottled(0x40000)
        ));
    }

    #[test]
    fn one_source_or_none_is_left_as_it_was() {
        let clean = vec![clean_residency()];
        assert_eq!(one_verdict(clean.clone(), false), clean);
        let not_judged = vec![unjudged(Judge::NoCpufreq).unwrap()];
        assert_eq!(one_verdict(not_judged.clone(), false), not_judged);
        assert_eq!(
            not_judged[0].message,
            "Throttling could not be judged (no cpufreq)"
        );
        assert!(unjudged(Judge::TimeInState).is_none());
        // A clock that dropped under load replaces "could not be judged".
        let drop = Finding::new(
            FindingCode::ClockDroppedUnderLoad,
            Severity::Invalid,
            "cpu0: measured 1700 MHz at the end vs 1820 MHz at the start (-6.6%): throttled",
        );
        let v = one_verdict(vec![drop.clone(), not_judged[0].clone()], false);
        assert_eq!(v, vec![drop]);
    }

    #[test]
    fn sampled_clocks_judge_where_cpufreq_keeps_no_statistics() {
        let c = |lowest_khz| SampledClock {
            cpu: 4,
            max_khz: 1_800_000,
            lowest_khz,
            phase: "7-zip benchmark".into(),
        };
        assert!(sampled_findings(&[]).is_empty());
        assert_eq!(sampled_findings(&[c(1_800_000)])[0].code, "no-throttling");
        // 1750 MHz is within 3 % of 1800 (a reported clock that rounds differently).
        assert_eq!(sampled_findings(&[c(1_750_000)])[0].code, "no-throttling");
        let f = sampled_findings(&[c(1_416_000)]);
        assert_eq!(
            f[0].message,
            "Throttling occured: cpu4 sampled at 1416 MHz below 1800 MHz during 7-zip benchmark"
        );
        assert_eq!(f[0].severity, Severity::Invalid);
    }

    /// vcgencmd prints `throttled=0x…`; the kernel's `get_throttled` sysfs node
    /// (drivers/firmware/raspberrypi.c) prints the same value with `%x`, no prefix.
    #[test]
    fn pi_sysfs_and_vcgencmd_formats_are_both_hex() {
        for (vc, sysfs, v) in [
            ("throttled=0x50000", "50000\n", 0x50000),
            ("throttled=0x80000", "80000\n", 0x80000),
            ("throttled=0x50005", "50005\n", 0x50005),
            ("throttled=0x0", "0\n", 0),
        ] {
            assert_eq!(PiThrottled::parse(vc), Some(PiThrottled(v)), "{vc}");
            assert_eq!(PiThrottled::parse(sysfs), Some(PiThrottled(v)), "{sysfs}");
        }
        // 0x80000: soft temperature limit since boot, nothing else.
        let (now, past) = PiThrottled::parse("80000").unwrap().describe();
        assert!(now.is_empty());
        assert_eq!(
            past,
            vec!["soft temperature limit has occurred since last reboot"]
        );
        // 0x50000: under-voltage and throttling since boot.
        let (now, past) = PiThrottled::parse("50000").unwrap().describe();
        assert!(now.is_empty());
        assert_eq!(
            past,
            vec![
                "under-voltage has occurred since last reboot",
                "throttling has occurred since last reboot"
            ]
        );
        // 0x50005: the same plus under-voltage and throttling now.
        let t = PiThrottled::parse("50005").unwrap();
        let (now, past) = t.describe();
        assert_eq!(now, vec!["under-voltage", "currently throttled"]);
        assert_eq!(past.len(), 2);
        let f = PiThrottled::findings(Some(PiThrottled(0)), t);
        assert_eq!(f[0].code, "pi-throttled-now");
        assert!(f[1].message.contains("under-voltage has occurred"));
    }
}
