//! Judging a thermal test (pure): the verdict of `-t`/`-T` — how much of its first
//! minute's score the board sustains, when it first throttled, how hot it got and where
//! its clocks settled — and `-M`'s AES-256 before/after ratio per cluster.

use serde::Serialize;

use crate::bench::aes::Algorithm;
use crate::bench::aes::suite::{AesResults, AesSuiteRow};
use crate::bench::scrypt::ScryptRun;
use crate::diagnose::{Finding, FindingCode, Severity};
use crate::monitor::Recording;
use crate::record::mode::thermal::ThermalStep;
use crate::record::run::RunReport;
use crate::sys::cpu::Topology;
use crate::sys::cpufreq::Policy;

/// The window at the start and at the end of the load the verdict compares: a minute, or
/// a third of a shorter load.
pub fn window_s(load_s: f64) -> f64 {
    60.0_f64.min(load_s / 3.0)
}

/// Where one cluster's clock settled under the load.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettledClock {
    /// N of `policyN`.
    pub policy: u32,
    /// Its CPUs.
    pub cpus: Vec<u32>,
    /// Their core type (`Cortex-A76`).
    pub core_type: Option<String>,
    /// Median clock over the load's last window, kHz.
    pub khz: u64,
    /// The highest clock it may run at (`scaling_max_freq`), kHz.
    pub max_khz: Option<u64>,
}

/// The thermal test in one line's worth of numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ThermalVerdict {
    /// Mean kH/s over the first window of the load.
    pub first_khs: Option<f64>,
    /// Mean kH/s over its last window.
    pub sustained_khs: Option<f64>,
    /// `sustained_khs` as a percentage of `first_khs`.
    pub sustained_pct: Option<f64>,
    /// The length of those windows, seconds ([`window_s`]: a minute, or a third of a
    /// shorter load).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_s: Option<f64>,
    /// Seconds into the load when a cluster's clock first fell below its maximum (`None`:
    /// never, as far as the monitor saw; 0: below it from the first sample on).
    pub first_throttle_s: Option<f64>,
    /// The monitor sampled clocks during the load (else `first_throttle_s` says nothing).
    pub clocks_seen: bool,
    /// Highest temperature during the load, °C.
    pub peak_c: Option<f64>,
    /// Mean temperature over the load's last window, °C.
    pub settled_c: Option<f64>,
    /// Where each cluster's clock settled.
    pub settled: Vec<SettledClock>,
}

fn mean(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (n, sum) = v.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    (n > 0).then(|| sum / n as f64)
}

/// How long the load ran, seconds.
fn load_s(run: &ScryptRun) -> f64 {
    run.intervals
        .last()
        .map(|i| i.end_s)
        .unwrap_or(run.elapsed_s)
}

/// First and last window of the scrypt intervals (kH/s).
pub fn scores(run: &ScryptRun) -> (Option<f64>, Option<f64>) {
    let total = load_s(run);
    let w = window_s(total);
    let start_of = |i: &crate::bench::scrypt::ScryptInterval| i.end_s - i.seconds;
    let first = mean(
        run.intervals
            .iter()
            .filter(|i| start_of(i) < w - 1e-9)
            .map(|i| i.khash_per_s),
    );
    let last = mean(
        run.intervals
            .iter()
            .filter(|i| i.end_s > total - w + 1e-9)
            .map(|i| i.khash_per_s),
    );
    (first, last)
}

/// The verdict of a run's thermal load, from its scrypt intervals and the monitor's
/// recording of the load phase. `None` when the load did not run.
pub fn verdict(r: &RunReport) -> Option<ThermalVerdict> {
    let run = r.results.scrypt.as_ref()?;
    let (first, last) = scores(run);
    let mut v = ThermalVerdict {
        first_khs: first,
        sustained_khs: last,
        sustained_pct: match (first, last) {
            (Some(f), Some(l)) if f > 0.0 => Some(l / f * 100.0),
            _ => None,
        },
        window_s: Some(window_s(load_s(run))).filter(|w| w.is_finite() && *w > 0.0),
        ..Default::default()
    };
    if let Some(rec) = &r.monitor {
        from_recording(
            &mut v,
            rec,
            &r.system_before.cpufreq,
            &r.system_before.topology,
        );
    }
    Some(v)
}

/// Temperatures and clocks of the load phase (`thermal load`) into `v`.
fn from_recording(v: &mut ThermalVerdict, rec: &Recording, policies: &[Policy], topo: &Topology) {
    let Some(phase) = rec.phase(ThermalStep::ThermalLoad.phase()) else {
        return;
    };
    let ivs: Vec<_> = rec
        .phase_intervals(phase)
        .iter()
        .filter(|i| !i.since_boot)
        .collect();
    let Some(end_ms) = ivs.last().map(|i| i.end_unix_ms) else {
        return;
    };
    let secs = |ms: i64| (ms - phase.start_unix_ms) as f64 / 1000.0;
    let w = window_s(secs(end_ms));
    let settled: Vec<_> = ivs
        .iter()
        .filter(|i| secs(i.end_unix_ms) >= secs(end_ms) - w - 1e-9)
        .collect();
    v.peak_c = ivs.iter().filter_map(|i| i.temp_c).reduce(f64::max);
    v.settled_c = mean(settled.iter().filter_map(|i| i.temp_c));
    let max_of = |id: u32| {
        policies
            .iter()
            .find(|p| p.id == id)
            .and_then(|p| p.scaling_max_khz.or(p.cpuinfo_max_khz))
    };
    v.clocks_seen = ivs.iter().any(|i| i.clocks.iter().any(|c| c.khz.is_some()));
    v.first_throttle_s = ivs
        .iter()
        .position(|i| {
            i.clocks.iter().any(|c| match (c.khz, max_of(c.policy)) {
                (Some(k), Some(m)) => k < m,
                _ => false,
            })
        })
        .map(|n| match n {
            0 => 0.0,
            n => secs(ivs[n].end_unix_ms).max(0.0),
        });
    for p in policies {
        let mut khz: Vec<u64> = settled
            .iter()
            .filter_map(|i| i.clocks.iter().find(|c| c.policy == p.id)?.khz)
            .collect();
        if khz.is_empty() {
            continue;
        }
        khz.sort_unstable();
        v.settled.push(SettledClock {
            policy: p.id,
            cpus: p.cpus.clone(),
            core_type: p
                .cpus
                .first()
                .and_then(|c| topo.cpu(*c))
                .and_then(|c| c.core_type.clone()),
            khz: khz[khz.len() / 2],
            max_khz: max_of(p.id),
        });
    }
}

/// The buffer size the `-M` ratio compares: the largest, where per-call overhead is
/// smallest and the 16 KiB still fit every L1 data cache.
pub const RATIO_BUFFER_BYTES: usize = 16384;

/// Below this ratio AES-256 is called slower after the load. AES-CBC from L1 repeats
/// within a fraction of a percent on a steady clock; 5 % is a clock step of most OPP
/// tables, not noise.
pub const RATIO_DROP: f64 = 0.95;

/// One cluster's AES-256 throughput before and after the load.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AesRatio {
    /// The CPU the rows ran on.
    pub cpu: u32,
    /// Its tag (`Cortex-A76`).
    pub tag: String,
    /// `openssl` or `native`.
    pub source: &'static str,
    /// Bytes per second at [`RATIO_BUFFER_BYTES`] before the load.
    pub before_bps: f64,
    /// The same after it.
    pub after_bps: f64,
    /// `after_bps / before_bps`.
    pub ratio: f64,
}

fn at_size(row: &AesSuiteRow) -> Option<f64> {
    row.sizes
        .iter()
        .find(|t| t.buffer_bytes == RATIO_BUFFER_BYTES)
        .map(|t| t.bytes_per_s)
}

/// Each CPU's AES-256-CBC rows at [`RATIO_BUFFER_BYTES`], averaged, in the order of their
/// first row: on a single-cluster board `openssl speed` ran twice on cpu0, and sbc-bench
/// averages the two runs ("add both scores and divide by two to get an average",
/// sbc-bench.sh at 53f7951, line 4177).
fn per_cpu(rows: &[AesSuiteRow]) -> Vec<(u32, String, f64)> {
    let mut out: Vec<(u32, String, f64, u32)> = Vec::new();
    for r in rows.iter().filter(|r| r.algorithm == Algorithm::Aes256Cbc) {
        let Some(bps) = at_size(r) else { continue };
        match out.iter_mut().find(|e| e.0 == r.cpu) {
            Some(e) => {
                e.2 += bps;
                e.3 += 1;
            }
            None => out.push((r.cpu, r.tag.clone(), bps, 1)),
        }
    }
    out.into_iter()
        .map(|(cpu, tag, sum, n)| (cpu, tag, sum / f64::from(n)))
        .collect()
}

/// AES-256 after ÷ before per cluster, from OpenSSL's rows when both runs have them
/// (what sbc-bench compares), else from the native rows. The rows of one CPU are averaged
/// on each side first, as sbc-bench pairs its runs: one ratio per cluster.
pub fn aes_ratios(before: &AesResults, after: &AesResults) -> Vec<AesRatio> {
    let (b, a, source) = match (&before.openssl, &after.openssl) {
        (Some(b), Some(a)) if !b.rows.is_empty() && !a.rows.is_empty() => {
            (&b.rows, &a.rows, "openssl")
        }
        _ => (&before.native, &after.native, "native"),
    };
    let after = per_cpu(a);
    per_cpu(b)
        .into_iter()
        .filter_map(|(cpu, tag, before_bps)| {
            let after_bps = after.iter().find(|e| e.0 == cpu)?.2;
            (before_bps > 0.0).then(|| AesRatio {
                cpu,
                tag,
                source,
                before_bps,
                after_bps,
                ratio: after_bps / before_bps,
            })
        })
        .collect()
}

/// A finding for every cluster whose AES-256 dropped below [`RATIO_DROP`] of its speed
/// before the load.
pub fn aes_findings(before: &AesResults, after: &AesResults) -> Vec<Finding> {
    aes_ratios(before, after)
        .iter()
        .filter(|r| r.ratio < RATIO_DROP)
        .map(|r| {
            Finding::new(
                FindingCode::AesSlowerAfterLoad,
                Severity::Warning,
                format!(
                    "AES-256 on cpu{} ({}) ran at {:.0}% of its speed before the load \
                     ({:.0} → {:.0} KB/s at 16 KiB): the 16 KiB buffer stays in L1 cache, \
                     so the cores themselves got slower once heat-soaked (a lower clock, \
                     or firmware throttling the kernel does not show)",
                    r.cpu,
                    r.tag,
                    r.ratio * 100.0,
                    r.before_bps / 1000.0,
                    r.after_bps / 1000.0
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::aes::Backend;
    use crate::bench::external::openssl::Throughput;
    use crate::bench::scrypt::ScryptInterval;

    fn aes(rows: &[(u32, &str, f64)]) -> AesResults {
        AesResults {
            backend: Backend::Armv8Ce,
            ghash_backend: "pmull".into(),
            native: rows
                .iter()
                .map(|&(cpu, tag, bps)| AesSuiteRow {
                    algorithm: Algorithm::Aes256Cbc,
                    cpu,
                    tag: tag.to_string(),
                    sizes: [16usize, 16384]
                        .iter()
                        .map(|&b| Throughput {
                            buffer_bytes: b,
                            bytes_per_s: bps * if b == 16 { 0.5 } else { 1.0 },
                        })
                        .collect(),
                    elapsed_s: 0.0,
                })
                .collect(),
            openssl: None,
            errors: Vec::new(),
            native_skipped: false,
        }
    }

    /// RK3588 published log 41BH.txt: AES-256-CBC at 16 KiB on its three clusters, and
    /// the A76 clusters 12 % slower after the load (the drop the finding is for).
    #[test]
    fn aes_ratio_per_cluster_and_a_finding_only_for_the_one_that_dropped() {
        let before = aes(&[
            (0, "Cortex-A55", 540_000_000.0),
            (4, "Cortex-A76", 1_325_370_000.0),
            (6, "Cortex-A76", 1_325_000_000.0),
        ]);
        let after = aes(&[
            (0, "Cortex-A55", 539_000_000.0),
            (4, "Cortex-A76", 1_166_000_000.0),
            (6, "Cortex-A76", 1_320_000_000.0),
        ]);
        let r = aes_ratios(&before, &after);
        assert_eq!(r.len(), 3);
        assert!((r[1].ratio - 1_166_000_000.0 / 1_325_370_000.0).abs() < 1e-12);
        assert_eq!(r[1].source, "native");
        let f = aes_findings(&before, &after);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, FindingCode::AesSlowerAfterLoad);
        assert!(
            f[0].message.contains("cpu4 (Cortex-A76) ran at 88%"),
            "{}",
            f[0].message
        );
        // Same speed after: no finding.
        assert!(aes_findings(&before, &before).is_empty());
    }

    /// Issue 28: on a single-cluster board (every Raspberry Pi) `openssl speed` runs twice
    /// on cpu0 before the load and twice after; both "before" runs were paired with the
    /// first "after" run, giving two ratios for one core (0.995 and 1.109). As sbc-bench,
    /// each side's two runs are averaged: one ratio.
    #[test]
    fn raspberry_pi_runs_twice_on_one_cluster_are_averaged_into_one_ratio() {
        let before = aes(&[(0, "Cortex-A76", 1_000_000.0), (0, "Cortex-A76", 897_000.0)]);
        let after = aes(&[(0, "Cortex-A76", 995_000.0), (0, "Cortex-A76", 1_001_000.0)]);
        let r = aes_ratios(&before, &after);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].cpu, 0);
        assert!((r[0].before_bps - 948_500.0).abs() < 1e-6);
        assert!((r[0].after_bps - 998_000.0).abs() < 1e-6);
        assert!((r[0].ratio - 998_000.0 / 948_500.0).abs() < 1e-12);
        assert!(aes_findings(&before, &after).is_empty());
    }

    fn run(khs: &[f64], every_s: f64) -> ScryptRun {
        ScryptRun {
            n: 1024,
            kernel: "scalar".into(),
            threads: Vec::new(),
            intervals: khs
                .iter()
                .enumerate()
                .map(|(i, &k)| ScryptInterval {
                    end_s: every_s * (i + 1) as f64,
                    seconds: every_s,
                    hashes: 0,
                    khash_per_s: k,
                })
                .collect(),
            mean_khash_per_s: 0.0,
            elapsed_s: every_s * khs.len() as f64,
        }
    }

    /// Sampled every 10 s for 5 minutes: policy 4 (max 2400 MHz) drops to 2016 MHz 50 s
    /// in, the temperature rises to 85.2 °C and settles at 83 °C.
    #[test]
    fn throttle_time_peak_settled_temperature_and_clock_from_the_monitor() {
        use crate::monitor::layout::{ClockColumn, ClockColumns, Layout};
        use crate::monitor::sample::PolicyClock;
        use crate::monitor::{Sample, SampleSpec};
        let layout = Layout {
            clocks: ClockColumns::Single {
                column: ClockColumn {
                    first_cpu: 4,
                    policy: 4,
                },
            },
            cpu_policy: std::collections::BTreeMap::from([(4, 4)]),
            all_policies: false,
        };
        let mut rec = Recording::new(10.0, layout, SampleSpec::default());
        for i in 0..=30 {
            let t = 10.0 * i as f64;
            let khz = if t < 50.0 { 2_400_000 } else { 2_016_000 };
            let temp = match i {
                0..=6 => 60.0 + 3.0 * i as f64,
                7 => 85.2,
                _ => 83.0,
            };
            rec.push(Sample {
                mono_s: t,
                unix_ms: 1_700_000_000_000 + (t * 1000.0) as i64,
                clocks: vec![PolicyClock {
                    policy: 4,
                    khz: Some(khz),
                }],
                temp_c: Some(temp),
                ..Default::default()
            });
            if i == 0 {
                rec.begin_phase(ThermalStep::ThermalLoad.phase());
            }
        }
        rec.end_phase();
        let policies = [Policy {
            id: 4,
            cpus: vec![4, 5],
            scaling_max_khz: Some(2_400_000),
            ..Default::default()
        }];
        let mut v = ThermalVerdict::default();
        from_recording(&mut v, &rec, &policies, &Topology::default());
        assert_eq!(v.first_throttle_s, Some(50.0));
        assert!(v.clocks_seen);
        assert_eq!(v.peak_c, Some(85.2));
        assert_eq!(v.settled_c, Some(83.0));
        assert_eq!(v.settled.len(), 1);
        assert_eq!(
            (v.settled[0].khz, v.settled[0].max_khz),
            (2_016_000, Some(2_400_000))
        );
    }

    #[test]
    fn first_minute_against_the_last() {
        // 5 minutes in 5-s intervals: 25.3 kH/s in the first minute, 22.0 in the last.
        let mut k = vec![25.3; 12];
        k.extend(vec![23.5; 36]);
        k.extend(vec![22.0; 12]);
        let (f, l) = scores(&run(&k, 5.0));
        assert!((f.unwrap() - 25.3).abs() < 1e-9);
        assert!((l.unwrap() - 22.0).abs() < 1e-9);
        // A load of 30 s compares its first and last 10 s.
        let (f, l) = scores(&run(&[10.0, 10.0, 9.0, 9.0, 8.0, 8.0], 5.0));
        assert_eq!((f, l), (Some(10.0), Some(8.0)));
        assert_eq!(scores(&run(&[], 5.0)), (None, None));
    }
}
