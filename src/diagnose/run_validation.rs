//! From a finished run to sbc-bench's "Results validation" list and the Results.md row: the
//! judgement of a whole run report (the per-check rules it applies are in `validate`).

use crate::diagnose::throttle::{self, PiThrottled};
use crate::diagnose::validate::{self, ClockVerdict, SwapState};
use crate::diagnose::{Finding, Severity};
use crate::monitor::Recording;
use crate::record::finding::FindingCode;
use crate::record::plan::StandardStep;
use crate::record::results_row::ResultsRow;
use crate::record::run::RunReport;
use crate::record::run::table_every_s;
use crate::sys::procs::ProcessShare;

/// Seconds below the highest OPP that still count as "no throttling" (OPP switches at
/// the start of a benchmark, the kernel's 10 ms granularity).
const THROTTLE_TOLERANCE_S: f64 = 1.0;

/// Highest measured clock of a cluster at its highest walked OPP, MHz.
fn max_measured(c: &crate::bench::clock::ClockCheck) -> Option<(f64, Option<f64>)> {
    if let Some(w) = &c.walk {
        let top = w.opps.iter().max_by_key(|o| o.opp_khz)?;
        return Some((
            top.opp_khz as f64 / 1000.0,
            top.measured.as_ref().map(|m| m.mhz),
        ));
    }
    None
}

/// %sys during the memory benchmarks, judged as sbc-bench does unless they ran too briefly
/// for the health rows to show anything but their own buffers being set up.
fn sys_check(mem_sys_pct: &[f64], mem_s: f64, in_vm: bool) -> Vec<Finding> {
    if mem_sys_pct.is_empty() || mem_s >= MIN_MEMORY_SECONDS_FOR_SYS_CHECK {
        return validate::sys_activity_findings(mem_sys_pct, in_vm);
    }
    // A few hundred milliseconds of memory benchmarks (--quick) are mostly the kernel
    // handing out our own buffers' pages: that %sys is ours, not background.
    vec![Finding::new(
        FindingCode::BackgroundSysNotJudged,
        Severity::Info,
        format!(
            "Background activity (%system) not judged: the memory benchmarks ran only \
             {mem_s:.1} s, mostly setting up their own buffers"
        ),
    )]
}

/// A health-table row of a step's phase: what the background checks read, as sbc-bench
/// reads its own tables.
struct ActivityRow {
    row: validate::ActivityRow,
    sys_pct: f64,
}

/// The health-table rows (one every [`table_every_s`]) of the phases of `kinds`.
fn health_rows(r: &RunReport, rec: &Recording, kinds: &[StandardStep]) -> Vec<ActivityRow> {
    let mut v = Vec::new();
    for k in kinds {
        let (Some(p), Some(st)) = (rec.phase(k.phase()), r.steps.iter().find(|s| s.kind == *k))
        else {
            continue;
        };
        let idx = rec.rows_every(p, table_every_s(st.duration_s, rec.interval_s));
        for w in idx.windows(2) {
            let Some(iv) = rec.between(w[0], w[1]) else {
                continue;
            };
            if let Some(u) = iv.usage {
                v.push(ActivityRow {
                    row: validate::ActivityRow {
                        phase: p.label.clone(),
                        start_unix_ms: iv.start_unix_ms,
                        end_unix_ms: iv.end_unix_ms,
                        cpu_pct: u.cpu_pct,
                    },
                    sys_pct: u.sys_pct,
                });
            }
        }
    }
    v
}

/// How many processes a background finding names.
const BUSIEST_PROCESSES: usize = 3;

/// The busiest other processes of a phase, from the process snapshots the monitor took
/// at its first and last sample (none without them).
fn phase_processes(rec: &Recording, p: &crate::monitor::Phase) -> Vec<ProcessShare> {
    let (Some(a), Some(b)) = (
        rec.samples.get(p.start),
        p.end.and_then(|e| rec.samples.get(e)),
    ) else {
        return Vec::new();
    };
    match (&a.processes, &b.processes) {
        (Some(before), Some(after)) => crate::sys::procs::busiest(
            before,
            after,
            b.mono_s - a.mono_s,
            crate::monitor::stat::USER_HZ,
            BUSIEST_PROCESSES,
        ),
        _ => Vec::new(),
    }
}

/// Below this many seconds of memory benchmarks (the quick run's are under one), the
/// health rows are dominated by the benchmarks' own page faults; %sys is not judged.
const MIN_MEMORY_SECONDS_FOR_SYS_CHECK: f64 = 5.0;

/// All validation findings of a run.
pub fn findings(
    r: &RunReport,
    rec: Option<&Recording>,
    swap_before: &SwapState,
    swap_after: &SwapState,
    online_before: &[u32],
    online_after: &[u32],
) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(validate::clock_findings(&advertised_checks(r)));
    out.extend(unwalked_drops(r));
    out.extend(validate::swap_findings(swap_before, swap_after));
    if let Some(rec) = rec {
        out.extend(background_findings(r, rec, online_before.len()));
    }
    let pi_after = r.pi_throttled_after.as_deref().and_then(PiThrottled::parse);
    let pi_before = r
        .pi_throttled_before
        .as_deref()
        .and_then(PiThrottled::parse);
    out.extend(throttle::findings(&r.throttling, THROTTLE_TOLERANCE_S));
    let sampled = if r.throttling.is_empty() {
        rec.map(|rec| sampled_clocks(r, rec)).unwrap_or_default()
    } else {
        Vec::new()
    };
    out.extend(throttle::sampled_findings(&sampled));
    out.extend(throttle::unjudged(throttle_judge(
        r,
        !sampled.is_empty(),
        pi_after.is_some(),
    )));
    out.extend(validate::offline_findings(online_before, online_after));
    let monitor_gone: Vec<u32> = rec.map(Recording::cpus_seen_gone).unwrap_or_default();
    out.extend(validate::killed_findings(
        &r.kernel_log,
        &monitor_gone,
        online_after,
    ));
    out.extend(validate::kernel_findings(&r.kernel_log));
    out.extend(crate::diagnose::sched_dt::findings(&r.system_before));
    if let Some(after) = pi_after {
        out.extend(PiThrottled::findings(pi_before, after));
    }
    if let Some(z) = r
        .results
        .sevenzip
        .as_ref()
        .and_then(|c| c.sevenzip.as_ref())
    {
        out.extend(validate::sevenzip_findings(z.version.engine.as_deref()));
    }
    for s in &r.steps {
        if let crate::record::run::StepStatus::Failed(e) = &s.status {
            out.push(Finding::new(
                FindingCode::BenchmarkFailed,
                Severity::Invalid,
                format!("{} failed: {e}", s.kind.phase()),
            ));
        }
    }
    let pi_throttling = pi_after.is_some_and(|a| PiThrottled::throttling(pi_before, a));
    throttle::one_verdict(out, pi_throttling)
}

/// Advertised vs measured, before (cold) and after (hot), per clock-checked CPU.
fn advertised_checks(r: &RunReport) -> Vec<ClockVerdict> {
    r.results
        .clock_cold
        .iter()
        .filter_map(|c| {
            let (adv, before) = max_measured(c)?;
            let after = r
                .results
                .clock_hot
                .iter()
                .find(|h| h.target.cpu == c.target.cpu)
                .and_then(max_measured)
                .and_then(|(_, m)| m);
            Some(ClockVerdict {
                label: match &c.target.core_type {
                    Some(t) => format!("cpu{}, {t}", c.target.cpu),
                    None => format!("cpu{}", c.target.cpu),
                },
                advertised_mhz: adv,
                before_mhz: before,
                after_mhz: after,
            })
        })
        .collect()
}

/// The clusters measured without an OPP walk (no cpufreq, not root, a `--sysroot`
/// tree): their clock at the start against the end, by the same rule as the walked ones,
/// so the validation sees every drop the Results.md row's `(throttled)` is made of.
fn unwalked_drops(r: &RunReport) -> Vec<Finding> {
    r.results
        .clock_cold
        .iter()
        .filter(|c| c.walk.is_none())
        .filter_map(|c| {
            let before = c.measured.as_ref()?.mhz;
            let after = r
                .results
                .clock_hot
                .iter()
                .find(|h| h.target.cpu == c.target.cpu && h.walk.is_none())?
                .measured
                .as_ref()?
                .mhz;
            let label = match &c.target.core_type {
                Some(t) => format!("cpu{}, {t}", c.target.cpu),
                None => format!("cpu{}", c.target.cpu),
            };
            validate::clock_drop_finding(&label, before, after)
        })
        .collect()
}

/// Background activity, judged on the rows the health tables show (as sbc-bench reads
/// its own tables): %sys during the memory benchmarks, total %cpu during the
/// single-threaded ones (not in extensive mode, where AES runs on all cores).
fn background_findings(r: &RunReport, rec: &Recording, cpus: usize) -> Vec<Finding> {
    let mut out = Vec::new();
    let rows = |kinds: &[StandardStep]| -> Vec<ActivityRow> { health_rows(r, rec, kinds) };
    let mem = rows(&[StandardStep::MemBandwidth, StandardStep::MemLatency]);
    let in_vm = r.system_before.virtualization.vm.is_some()
        || r.system_before.virtualization.container.is_some();
    let mem_s: f64 = r
        .steps
        .iter()
        .filter(|s| s.kind == StandardStep::MemBandwidth || s.kind == StandardStep::MemLatency)
        .map(|s| s.duration_s)
        .sum();
    out.extend(sys_check(
        &mem.iter().map(|u| u.sys_pct).collect::<Vec<_>>(),
        mem_s,
        in_vm,
    ));
    if !r.config.extensive {
        let kinds = [
            StandardStep::MemBandwidth,
            StandardStep::MemLatency,
            StandardStep::Aes,
        ];
        let single: Vec<validate::ActivityRow> = rows(&kinds).into_iter().map(|a| a.row).collect();
        let busiest: Vec<(String, Vec<ProcessShare>)> = kinds
            .iter()
            .filter_map(|k| {
                let p = rec.phase(k.phase())?;
                Some((p.label.clone(), phase_processes(rec, p)))
            })
            .collect();
        out.extend(validate::other_activity_findings(
            &single,
            cpus,
            &busiest,
            &crate::monitor::render::local_hms,
        ));
    }
    out
}

/// What can judge the run's throttling: cpufreq statistics when read, else the Raspberry
/// Pi firmware, else nothing (said so, not left out).
fn throttle_judge(r: &RunReport, sampled: bool, pi_read: bool) -> throttle::Judge {
    if !r.throttling.is_empty() || sampled {
        throttle::Judge::TimeInState
    } else if pi_read {
        throttle::Judge::PiFirmware
    } else if r.system_before.cpufreq.is_empty() {
        throttle::Judge::NoCpufreq
    } else {
        throttle::Judge::NoStatistics
    }
}

/// Drivers whose reported clock is not the clock the governor chose (hardware-managed
/// turbo: intel_pstate, amd-pstate; ACPI and CPPC report feedback counters): a clock below
/// the maximum there says nothing about throttling.
fn hardware_managed(driver: Option<&str>) -> bool {
    driver.is_none_or(|d| {
        ["intel", "amd", "acpi", "cppc"]
            .iter()
            .any(|p| d.starts_with(p))
    })
}

/// The monitor's lowest clock of each policy without `stats/time_in_state` that ran the
/// `performance` governor, over the benchmark phases (the clock checks lower clocks on
/// purpose and are left out).
fn sampled_clocks(r: &RunReport, rec: &Recording) -> Vec<throttle::SampledClock> {
    let performance = |id: u32| {
        let name = format!("cpufreq-policy{id}");
        r.tuning
            .iter()
            .any(|t| t.name == name && t.outcome.as_deref() == Ok("performance"))
    };
    let phases: Vec<&crate::monitor::Phase> = r
        .steps
        .iter()
        .filter(|s| s.kind != StandardStep::ClockCold && s.kind != StandardStep::ClockHot)
        .filter_map(|s| rec.phase(s.kind.phase()))
        .collect();
    r.system_before
        .cpufreq
        .iter()
        .filter(|p| !p.has_time_in_state && !hardware_managed(p.driver.as_deref()))
        .filter(|p| performance(p.id))
        .filter_map(|p| {
            let max_khz = p.scaling_max_khz.or(p.cpuinfo_max_khz)?;
            let (lowest_khz, phase) = phases
                .iter()
                .flat_map(|ph| {
                    // From the second sample: the first is taken as the step before
                    // (a clock check) ends, its lowered clock maybe not yet raised.
                    let end = ph.end.unwrap_or(rec.samples.len().saturating_sub(1));
                    rec.samples
                        .get(ph.start + 1..=end)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|s| s.policy_khz(p.id))
                        .map(move |k| (k, ph.label.clone()))
                })
                .min_by_key(|(k, _)| *k)?;
            Some(throttle::SampledClock {
                cpu: p.cpus.first().copied().unwrap_or(p.id),
                max_khz,
                lowest_khz,
                phase,
            })
        })
        .collect()
}

/// The clock a check measured at its highest OPP (or without walking), whole MHz as the
/// log prints it.
fn top_measured_mhz(c: &crate::bench::clock::ClockCheck) -> Option<u64> {
    match max_measured(c) {
        Some((_, m)) => m,
        None => c.measured.as_ref().map(|m| m.mhz),
    }
    .filter(|m| m.is_finite() && *m > 0.0)
    .map(|m| m.round() as u64)
}

/// The one throttling verdict, read from the validation's findings (the Results.md row's
/// `(throttled)`, the page, the Markdown and the JSON all say what it says): time below
/// the top OPP or a clock sampled below it, a cluster's clock measured lower at the end
/// (sbc-bench's 3 % rule), cores killed by overheating, or the Raspberry Pi firmware's
/// throttling bits (not under-voltage alone: sbc-bench's row leaves that out too).
pub fn throttled(r: &RunReport, findings: &[Finding]) -> bool {
    let pi_after = r.pi_throttled_after.as_deref().and_then(PiThrottled::parse);
    let pi_before = r
        .pi_throttled_before
        .as_deref()
        .and_then(PiThrottled::parse);
    let pi = pi_after.is_some_and(|a| PiThrottled::throttling(pi_before, a));
    pi || findings.iter().any(|f| {
        matches!(
            f.code,
            FindingCode::Throttling
                | FindingCode::ClockDroppedUnderLoad
                | FindingCode::CpusKilledMidRun
        )
    })
}

/// The Results.md row: best cluster's figures, the clock column by sbc-bench's rules.
/// The runner makes one only for a completed run: a partial row must not look paste-ready.
pub fn results_row(r: &RunReport, findings: &[Finding]) -> ResultsRow {
    use crate::record::results_row as row;
    let info = &r.system_before;
    let best = |v: Vec<f64>| {
        v.into_iter()
            .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
    };
    let membw = |f: &dyn Fn(&crate::bench::membw::MembwResult) -> Option<f64>| {
        best(
            r.results
                .membw
                .iter()
                .filter_map(|m| m.result.as_ref())
                .filter_map(f)
                .collect(),
        )
    };
    let distro = info
        .distro
        .as_ref()
        .and_then(|d| d.pretty_name.clone())
        .unwrap_or_else(|| "n/a".to_string());
    let arch = info
        .userland
        .as_ref()
        .map(|u| u.arch.clone())
        .unwrap_or_else(|| "n/a".to_string());
    // Clock column: sbc-bench compares the last cluster's first measurement (its highest
    // OPP, cold) with the largest cpuinfo_max_freq, and that cluster's measurement at the
    // end with it for throttling. Without cpufreq: first and last measurement.
    let max_khz: Vec<u64> = info
        .cpufreq
        .iter()
        .filter_map(|p| p.cpuinfo_max_khz)
        .collect();
    // Its `(throttled)` is the validation's verdict ([`throttled`]), which compares each
    // cluster's start with its own end (sbc-bench without cpufreq compared the first
    // cluster's start with the last cluster's end: two core types, not throttling).
    let start = if max_khz.is_empty() {
        r.results.clock_cold.iter().find_map(top_measured_mhz)
    } else {
        r.results.clock_cold.last().and_then(top_measured_mhz)
    };
    ResultsRow {
        device: info
            .device
            .name
            .clone()
            .or_else(|| info.hostname.clone())
            .unwrap_or_else(|| "n/a".to_string()),
        clock: row::clock_column(
            max_khz.iter().copied().max(),
            max_khz.iter().copied().min(),
            start,
        ),
        throttled: throttled(r, findings),
        kernel: info.kernel.release.clone().unwrap_or_default(),
        distro_arch: row::distro_arch(&distro, info.kernel.machine.as_deref(), &arch),
        memcpy_mb_s: membw(&|m| m.memcpy_mb_per_s()),
        memset_mb_s: membw(&|m| m.memset_mb_per_s()),
        sevenzip_multi: r
            .results
            .sevenzip
            .as_ref()
            .and_then(|c| c.sevenzip.as_ref())
            .filter(|z| !z.multi.is_empty())
            .map(|z| {
                z.multi
                    .iter()
                    .map(|m| m.table.total_rating_mips)
                    .sum::<u64>()
                    / z.multi.len() as u64
            }),
        sevenzip_single: r
            .results
            .sevenzip
            .as_ref()
            .and_then(|c| c.sevenzip.as_ref())
            .and_then(|z| z.single_threaded_score()),
        aes256_16k: aes256_16k(r),
        scrypt_khs: r.results.scrypt.as_ref().and_then(|s| {
            row::cpuminer_score(
                &s.intervals
                    .iter()
                    .map(|i| i.khash_per_s)
                    .collect::<Vec<_>>(),
            )
        }),
        quick: r.config.quick,
    }
}

/// AES-256-CBC at 16 KiB in openssl's 1000s of bytes per second, best cluster: from
/// `openssl speed` when it ran (comparable with published rows), else our native figure.
/// Rows of the same CPU (openssl run twice on a single cluster, as sbc-bench does) are
/// averaged first, as sbc-bench's column averages them.
fn aes256_16k(r: &RunReport) -> Option<f64> {
    let a = r.results.aes.as_ref()?;
    let rows = a.openssl.as_ref().map_or(&a.native, |o| &o.rows);
    aes256_16k_of(rows)
}

/// [`aes256_16k`] of one table.
pub(crate) fn aes256_16k_of(rows: &[crate::bench::aes::suite::AesSuiteRow]) -> Option<f64> {
    use crate::bench::aes::Algorithm;
    let mut per_cpu: Vec<(u32, f64, u32)> = Vec::new();
    for row in rows
        .iter()
        .filter(|row| row.algorithm == Algorithm::Aes256Cbc && row.tag != "fully parallel")
    {
        let Some(t) = row.sizes.iter().find(|t| t.buffer_bytes == 16384) else {
            continue;
        };
        let v = t.bytes_per_s / 1000.0;
        match per_cpu.iter_mut().find(|(cpu, _, _)| *cpu == row.cpu) {
            Some(e) => {
                e.1 += v;
                e.2 += 1;
            }
            None => per_cpu.push((row.cpu, v, 1)),
        }
    }
    per_cpu
        .iter()
        .map(|(_, sum, n)| sum / f64::from(*n))
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aes_row(cpu: u32, tag: &str, k16: f64) -> crate::bench::aes::suite::AesSuiteRow {
        crate::bench::aes::suite::AesSuiteRow {
            algorithm: crate::bench::aes::Algorithm::Aes256Cbc,
            cpu,
            tag: tag.into(),
            sizes: [8192usize, 16384]
                .iter()
                .map(|&b| crate::bench::external::openssl::Throughput {
                    buffer_bytes: b,
                    bytes_per_s: k16 * 1000.0,
                })
                .collect(),
            elapsed_s: 0.0,
        }
    }

    #[test]
    fn openssl_twice_on_one_cluster_is_averaged() {
        // Corpus log 1Ga0KBn.txt (Cortex-A53, "Executing benchmark twice on cluster 0"):
        // 704064.17k and 704615.77k; sbc-bench's column: their mean.
        let twice = [
            aes_row(0, "Cortex-A53", 704064.17),
            aes_row(0, "Cortex-A53", 704615.77),
        ];
        let v = aes256_16k_of(&twice).unwrap();
        assert!((v - 704339.97).abs() < 0.01, "{v}");
        // Several clusters: the best one; fully parallel rows never count.
        let each = [
            aes_row(0, "Cortex-A55", 848265.22),
            aes_row(4, "Cortex-A76", 1328813.40),
            aes_row(1, "fully parallel", 9_000_000.0),
        ];
        assert_eq!(aes256_16k_of(&each), Some(1328813.40));
        assert_eq!(aes256_16k_of(&[]), None);
    }

    /// The rock-5b fixture run measured without an OPP walk (not root, or a `--sysroot`
    /// tree): each cluster at 2350 MHz at the start, the last one at `hot_mhz` at the
    /// end; cpufreq's statistics clean (time only at the top OPP).
    fn unwalked(hot_mhz: f64) -> RunReport {
        use crate::bench::clock::ClockMeasurement;
        let mut r = crate::record::read::fixture_rock5b();
        let last = r.results.clock_cold.last().map(|c| c.target.cpu);
        for (checks, hot) in [
            (&mut r.results.clock_cold, false),
            (&mut r.results.clock_hot, true),
        ] {
            for c in checks.iter_mut() {
                let mhz = if hot && Some(c.target.cpu) == last {
                    hot_mhz
                } else {
                    2350.0
                };
                c.walk = None;
                c.measured = Some(ClockMeasurement::from_samples(vec![mhz; 3], 1, 0.1));
                c.not_walked = Some("not root".into());
            }
        }
        for t in &mut r.throttling {
            let top = t.seconds_at_khz.iter().map(|(f, _)| *f).max().unwrap_or(0);
            for (f, s) in &mut t.seconds_at_khz {
                *s = if *f == top { 100.0 } else { 0.0 };
            }
        }
        r.pi_throttled_before = None;
        r.pi_throttled_after = None;
        r
    }

    fn validated(r: &RunReport) -> (Vec<Finding>, ResultsRow) {
        let online: Vec<u32> = (0..8).collect();
        let swap = SwapState::default();
        let f = findings(r, None, &swap, &swap, &online, &online);
        let row = results_row(r, &f);
        (f, row)
    }

    /// Issue 28: without an OPP walk the Results.md row said `(throttled)` (the clock
    /// measured at the end 4 % below the start) while the validation said "No
    /// throttling" (only cpufreq's statistics, which were clean): two rules. Now the
    /// drop is a finding, and the row's `(throttled)` is the validation's verdict.
    #[test]
    fn without_an_opp_walk_the_row_and_the_validation_give_one_throttling_verdict() {
        let (f, row) = validated(&unwalked(2250.0));
        assert!(row.throttled, "{row:?}");
        assert!(row.render().contains(" (throttled) |"), "{}", row.render());
        let codes: Vec<FindingCode> = f.iter().map(|f| f.code).collect();
        assert!(!codes.contains(&FindingCode::NoThrottling), "{f:#?}");
        let drop = f
            .iter()
            .find(|f| f.code == FindingCode::ClockDroppedUnderLoad)
            .expect("the drop is a finding");
        assert_eq!(drop.severity, Severity::Invalid);
        assert_eq!(
            drop.message,
            "cpu6, Cortex-A76: measured 2250 MHz at the end vs 2350 MHz at the start (-4.3%): throttled"
        );
        // 3 % or less (sbc-bench's `100 * start / end > 103`): neither says throttled.
        let (f, row) = validated(&unwalked(2290.0));
        assert!(!row.throttled, "{row:?}");
        assert!(
            f.iter().any(|f| f.code == FindingCode::NoThrottling),
            "{f:#?}"
        );
        assert!(
            !f.iter()
                .any(|f| f.code == FindingCode::ClockDroppedUnderLoad)
        );
    }

    #[test]
    fn sys_activity_is_judged_only_on_long_enough_memory_phases() {
        // The quick run's rows (8 %, 7 %, 0 % over 0.4 s of page faults of our own buffers).
        let quick = sys_check(&[8.0, 7.0, 0.0, 3.0, 2.0, 0.0], 0.9, true);
        assert_eq!(quick.len(), 1);
        assert_eq!(quick[0].code, "background-sys-not-judged");
        assert_eq!(quick[0].severity, Severity::Info);
        // The same rows over a standard run's 38 s are sbc-bench's "too much".
        let full = sys_check(&[8.0, 7.0, 0.0, 3.0, 2.0, 0.0], 38.0, true);
        assert_eq!(full[0].code, "background-sys");
        assert_eq!(full[0].severity, Severity::Invalid);
        assert!(sys_check(&[0.0, 0.0], 38.0, true).is_empty());
    }
}
