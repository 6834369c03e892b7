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
