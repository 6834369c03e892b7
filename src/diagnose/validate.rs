//! sbc-bench's "Results validation": clock lies, swapping, background activity, kernel
//! trouble, offlined cores, the 7-Zip version. Pure functions over what the run recorded.

use crate::record::finding::FindingCode;
use serde::{Deserialize, Serialize};

use crate::diagnose::{Finding, Severity};
use crate::sys::kmsg::KmsgRecord;
use crate::sys::procs::ProcessShare;

/// Advertised vs measured maximum clock of one cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockVerdict {
    /// `cpu4-cpu5 (Cortex-A76)`.
    pub label: String,
    /// Highest OPP the kernel advertises, MHz.
    pub advertised_mhz: f64,
    /// Measured at the highest OPP before the benchmarks (idle, cold).
    pub before_mhz: Option<f64>,
    /// Measured again at the end (hot, under load).
    pub after_mhz: Option<f64>,
}

fn pct(measured: f64, advertised: f64) -> f64 {
    (measured - advertised) / advertised * 100.0
}

/// Is a measured clock below its OPP by what sbc-bench calls a mismatch? Its clock check
/// prints the ratio to three decimals and flags it under 0.990 (sbc-bench.sh at 53f7951,
/// line 3867: `if [ ${MeasuredDiff} -lt 990 ]; then # measured clockspeed lower than 1%
/// than cpufreq OPP`).
fn below_opp(measured: f64, advertised: f64) -> bool {
    (measured / advertised * 1000.0).round() < 990.0
}

/// From how far below its OPP a clock is worth a warning: sbc-bench prints the mismatch
/// line in red and bold only when it has two digits, 10 % or more (sbc-bench.sh at
/// 53f7951, line 4910: `if [ ${OneOrTwoDigitsBefore:-6} -gt 6 ] || …` under `# mismatch
/// greater than 9%, print warning in red and bold`). Less is the rounding of cpufreq-dt's
/// OPP tables and PLLs (an RK3588's Cortex-A76 at 2352 of 2400 MHz): a note.
pub const CLOCK_WARNING_PCT: f64 = 10.0;

/// sbc-bench's clock lines: `Measured clockspeed not lower than advertised max CPU
/// clockspeed`, or `Advertised vs. measured max CPU clockspeed: -2.4% before, -4.5% after`
/// for the worst cluster (more than 1 % below). A cluster measured more than 3 % slower at
/// the end than at the start was throttled.
pub fn clock_findings(checks: &[ClockVerdict]) -> Vec<Finding> {
    let mut out = Vec::new();
    let measured: Vec<&ClockVerdict> = checks
        .iter()
        .filter(|c| c.before_mhz.is_some() && c.advertised_mhz > 0.0)
        .collect();
    if measured.is_empty() {
        return out;
    }
    // As sbc-bench: the worst deviation before and the worst after, each on its own (they
    // may come from different clusters).
    let worst = measured.iter().copied().min_by(|a, b| {
        let da = pct(a.before_mhz.unwrap_or(0.0), a.advertised_mhz);
        let db = pct(b.before_mhz.unwrap_or(0.0), b.advertised_mhz);
        da.total_cmp(&db)
    });
    let worst_after = measured
        .iter()
        .copied()
        .filter_map(|c| c.after_mhz.map(|a| (c, pct(a, c.advertised_mhz))))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some(w) = worst {
        let before = pct(w.before_mhz.unwrap_or(0.0), w.advertised_mhz);
        if below_opp(w.before_mhz.unwrap_or(0.0), w.advertised_mhz) {
            let worst_pct = worst_after.map_or(before, |(_, p)| before.min(p));
            let severity = if worst_pct <= -CLOCK_WARNING_PCT {
                Severity::Warning
            } else {
                Severity::Info
            };
            let (after, label) = match worst_after {
                Some((a, p)) if a.label != w.label => (
                    format!(", {p:.1}% after"),
                    format!("{} before, {} after", w.label, a.label),
                ),
                Some((_, p)) => (format!(", {p:.1}% after"), w.label.clone()),
                None => (String::new(), w.label.clone()),
            };
            out.push(Finding::new(
                FindingCode::ClockBelowAdvertised,
                severity,
                format!(
                    "Advertised vs. measured max CPU clockspeed: {before:.1}% before{after} ({label})"
                ),
            ));
        } else {
            out.push(Finding::ok(
                FindingCode::ClockAsAdvertised,
                "Measured clockspeed not lower than advertised max CPU clockspeed",
            ));
        }
    }
    for c in measured {
        if let (Some(b), Some(a)) = (c.before_mhz, c.after_mhz) {
            out.extend(clock_drop_finding(&c.label, b, a));
        }
    }
    out
}

/// sbc-bench's throttling rule on one cluster's clock measured at the start and at the
/// end (`clock_dropped`: more than 3 %, in whole MHz as its log prints them), as the
/// finding every throttling verdict reads — the validation, and the Results.md row's
/// `(throttled)`.
pub fn clock_drop_finding(label: &str, before_mhz: f64, after_mhz: f64) -> Option<Finding> {
    let whole = |m: f64| (m.is_finite() && m > 0.0).then(|| m.round() as u64);
    let (b, a) = (whole(before_mhz)?, whole(after_mhz)?);
    crate::record::results_row::clock_dropped(b, a).then(|| {
        Finding::new(
            FindingCode::ClockDroppedUnderLoad,
            Severity::Invalid,
            format!(
                "{label}: measured {a} MHz at the end vs {b} MHz at the start ({:+.1}%): throttled",
                (a as f64 - b as f64) / b as f64 * 100.0
            ),
        )
    })
}

/// Swap state at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SwapState {
    /// Swap in use, KiB (`/proc/swaps`).
    pub used_kib: u64,
    /// Pages swapped in since boot (`/proc/vmstat` pswpin).
    pub pswpin: Option<u64>,
    /// Pages swapped out since boot (`/proc/vmstat` pswpout).
    pub pswpout: Option<u64>,
    /// All active swap devices are zram.
    pub zram_only: bool,
    /// Some swap device lives on an SD card (`mmcblk` with type SD).
    pub on_sd_card: bool,
    /// zswap is enabled.
    pub zswap_enabled: bool,
    /// A zram device is used as swap.
    pub has_zram: bool,
    /// Any swap device is configured (`/proc/swaps` has entries).
    pub configured: bool,
}

/// How much was swapped during the run, after sbc-bench's words: ` (1234 pages out, 56
/// in; swap used 120 → 350 MiB)`, from what was read (empty when nothing was).
fn swap_numbers(before: &SwapState, after: &SwapState) -> String {
    let mut parts = Vec::new();
    let delta = |b: Option<u64>, a: Option<u64>| Some(a?.saturating_sub(b?));
    if let (Some(o), Some(i)) = (
        delta(before.pswpout, after.pswpout),
        delta(before.pswpin, after.pswpin),
    ) {
        parts.push(format!("{o} pages swapped out, {i} in"));
    }
    let mib = |k: u64| format!("{:.0}", k as f64 / 1024.0);
    parts.push(format!(
        "swap used {} → {} MiB",
        mib(before.used_kib),
        mib(after.used_kib)
    ));
    format!(" ({})", parts.join("; "))
}

/// Swapping during the run makes results invalid (zram less so).
pub fn swap_findings(before: &SwapState, after: &SwapState) -> Vec<Finding> {
    let mut out = Vec::new();
    let paged = match (before.pswpout, after.pswpout, before.pswpin, after.pswpin) {
        (Some(bo), Some(ao), Some(bi), Some(ai)) => ao > bo || ai > bi,
        _ => after.used_kib > before.used_kib,
    };
    if paged {
        let how_much = swap_numbers(before, after);
        if after.zram_only {
            out.push(Finding::new(
                FindingCode::SwappingZram,
                Severity::Warning,
                format!("Swapping (ZRAM) occured{how_much}"),
            ));
        } else {
            out.push(Finding::new(
                FindingCode::Swapping,
                Severity::Invalid,
                format!("Swapping occured{how_much}"),
            ));
        }
    } else if before.configured || after.configured {
        // sbc-bench says "No swapping" only where swap exists.
        out.push(Finding::ok(FindingCode::NoSwapping, "No swapping"));
    }
    if after.zswap_enabled && after.has_zram {
        out.push(Finding::new(
            FindingCode::ZswapOnZram,
            Severity::Warning,
            "Zswap combined with ZRAM. Swapping performance severely harmed",
        ));
    }
    if after.on_sd_card {
        out.push(Finding::new(
            FindingCode::SwapOnSdCard,
            Severity::Warning,
            "Swap configured on ultra slow SD card storage",
        ));
    }
    out
}

/// %sys during the memory benchmarks (one value per health-table row, as sbc-bench reads
/// its table): the kernel working while we measure memory means swapping or a driver
/// competing for the bus. sbc-bench's thresholds: average (truncated) above 0 % or a peak
/// above 15 %. "OK" is only claimed on bare metal: in a VM the host's work is invisible.
pub fn sys_activity_findings(sys_pct: &[f64], in_vm: bool) -> Vec<Finding> {
    let rows: Vec<u64> = sys_pct.iter().map(|v| v.max(0.0) as u64).collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let peak = rows.iter().copied().max().unwrap_or(0);
    let avg = rows.iter().sum::<u64>() / rows.len() as u64;
    if peak > 15 || avg > 0 {
        vec![Finding::new(
            FindingCode::BackgroundSys,
            Severity::Invalid,
            format!("Too much background activity (%system): {avg}% avg, {peak}% max"),
        )]
    } else if in_vm {
        Vec::new()
    } else {
        vec![Finding::ok(
            FindingCode::BackgroundSysOk,
            "Background activity (%system) OK",
        )]
    }
}

/// One row of a phase's health table (the interval it covers), as the background checks
/// read them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityRow {
    /// The phase (benchmark step) the row belongs to (`memory latency benchmark`).
    pub phase: String,
    /// Wall-clock start of the row's interval, milliseconds since the Unix epoch.
    pub start_unix_ms: i64,
    /// Wall-clock end.
    pub end_unix_ms: i64,
    /// Utilisation of all CPUs together over the row, percent.
    pub cpu_pct: f64,
}

/// Total %cpu during the single-threaded benchmarks should be one core's share (100/N %);
/// rows above it tell of other processes. sbc-bench's tolerances by core count (peak and
/// average excess over the ideal share, in whole percent): 2 cores 8/2, 4 cores 5/1,
/// 5–6 cores 3/1, 8 cores 2/0, otherwise average 0. Not judged on one core.
///
/// The finding names where to look: the phase and time of the worst row with its
/// utilisation, and the busiest other processes of that phase (`busiest`: per phase,
/// from `/proc/<pid>/stat` at its start and end; percent of one core). `time` formats a
/// Unix time in ms as the health tables do (`HH:MM:SS`).
pub fn other_activity_findings(
    rows: &[ActivityRow],
    ncpus: usize,
    busiest: &[(String, Vec<ProcessShare>)],
    time: &dyn Fn(i64) -> String,
) -> Vec<Finding> {
    if ncpus < 2 {
        return Vec::new();
    }
    let ideal = 100 / ncpus as u64;
    let over: Vec<(&ActivityRow, u64)> = rows
        .iter()
        .map(|r| (r, r.cpu_pct.max(0.0) as u64))
        .filter(|&(_, v)| v >= ideal)
        .collect();
    let Some(&(worst, top)) = over.iter().max_by_key(|(_, v)| *v) else {
        return Vec::new();
    };
    let peak = top - ideal;
    let avg = over.iter().map(|(_, v)| v).sum::<u64>() / over.len() as u64 - ideal;
    let too_much = match ncpus {
        2 => peak > 8 || avg > 2,
        4 => peak > 5 || avg > 1,
        5 | 6 => peak > 3 || avg > 1,
        8 => peak > 2 || avg > 0,
        _ => avg > 0,
    };
    if !too_much {
        return Vec::new();
    }
    let procs = busiest
        .iter()
        .find(|(phase, _)| *phase == worst.phase)
        .map(|(_, p)| p.as_slice())
        .unwrap_or_default();
    let procs = if procs.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = procs
            .iter()
            .map(|p| format!("{} ({}) {:.0}%", p.comm, p.pid, p.cpu_pct))
            .collect();
        format!(
            "; busiest other processes of the phase (% of one core): {}",
            list.join(", ")
        )
    };
    vec![Finding::new(
        FindingCode::BackgroundOther,
        Severity::Invalid,
        format!(
            "Too much other background activity: {avg}% avg, {peak}% max (worst during {}, \
             {}-{}: {:.0}% cpu{procs})",
            worst.phase,
            time(worst.start_unix_ms),
            time(worst.end_unix_ms),
            worst.cpu_pct
        ),
    )]
}

/// Kernel messages logged during the run: the oom-killer invalidates results; warnings
/// and errors are listed for the user to judge.
pub fn kernel_findings(records: &[KmsgRecord]) -> Vec<Finding> {
    let mut out = Vec::new();
    let oom = records
        .iter()
        .filter(|r| r.message.contains("invoked oom-killer") || r.message.contains("Out of memory"))
        .count();
    if oom > 0 {
        out.push(Finding::new(
            FindingCode::OomKiller,
            Severity::Invalid,
            format!("The oom-killer was invoked {oom} time(s) during the run"),
        ));
    }
    let serious: Vec<&KmsgRecord> = records.iter().filter(|r| r.priority <= 3).collect();
    if !serious.is_empty() {
        out.push(Finding::new(
            FindingCode::KernelErrors,
            Severity::Warning,
            format!(
                "{} kernel error message(s) during the run, first: {}",
                serious.len(),
                serious[0].message
            ),
        ));
    }
    out
}

/// CPUs that went offline during the run (killed by the kernel, thermal hot-unplug).
pub fn offline_findings(online_before: &[u32], online_after: &[u32]) -> Vec<Finding> {
    let gone: Vec<u32> = online_before
        .iter()
        .copied()
        .filter(|c| !online_after.contains(c))
        .collect();
    if gone.is_empty() {
        return Vec::new();
    }
    vec![Finding::new(
        FindingCode::CpusOfflined,
        Severity::Invalid,
        format!(
            "CPU(s) {} went offline during the run",
            crate::sys::cpu_list::format_list(&gone)
        ),
    )]
}

/// The CPU a kernel message says was taken down: `CPU3: shutdown` (arm and arm64, also
/// behind a vendor prefix such as Samsung's `c0 1098 (kworker/u8:2) CPU2: shutdown`),
/// `psci: CPU3 killed (polled 0 ms)` (arm64 PSCI) or `smpboot: CPU 3 is now offline`
/// (x86).
pub fn cpu_taken_down(message: &str) -> Option<u32> {
    taken_down(message).map(|(cpu, _)| cpu)
}

/// [`cpu_taken_down`] with the wording's index: arm64 logs both `CPU3: shutdown` and
/// `psci: CPU3 killed` for one hot-unplug, so kills are counted per wording.
fn taken_down(message: &str) -> Option<(u32, usize)> {
    const WORDINGS: [&str; 3] = [": shutdown", " killed", " is now offline"];
    for (at, _) in message.match_indices("CPU") {
        let rest = &message[at + 3..];
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Some(cpu) = rest.get(..digits).and_then(|d| d.parse().ok()) else {
            continue;
        };
        let tail = &rest[digits..];
        if let Some(w) = WORDINGS.iter().position(|w| tail.starts_with(w)) {
            return Some((cpu, w));
        }
    }
    None
}

/// CPUs taken down during the run that were online again at its end (those still
/// offline are [`offline_findings`]'): from the kernel log's records of the run and the
/// CPUs the monitor saw missing from `/proc/stat` (the online mask, sampled for free) in
/// some sample. A killed core skews every multi-core result of its step.
pub fn killed_findings(
    kernel_log: &[KmsgRecord],
    monitor_gone: &[u32],
    online_after: &[u32],
) -> Vec<Finding> {
    let mut per_wording: std::collections::BTreeMap<(u32, usize), usize> =
        std::collections::BTreeMap::new();
    for key in kernel_log.iter().filter_map(|r| taken_down(&r.message)) {
        *per_wording.entry(key).or_default() += 1;
    }
    let mut times: std::collections::BTreeMap<u32, usize> = std::collections::BTreeMap::new();
    for ((cpu, _), n) in per_wording {
        let t = times.entry(cpu).or_default();
        *t = (*t).max(n);
    }
    let mut cpus: Vec<u32> = times
        .keys()
        .copied()
        .chain(monitor_gone.iter().copied())
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    cpus.retain(|c| online_after.contains(c));
    if cpus.is_empty() {
        return Vec::new();
    }
    let mut seen = Vec::new();
    let logged: Vec<String> = cpus
        .iter()
        .filter_map(|c| {
            let n = *times.get(c)?;
            Some(match n {
                1 => format!("cpu{c} shut down once"),
                n => format!("cpu{c} shut down {n} times"),
            })
        })
        .collect();
    if !logged.is_empty() {
        seen.push(format!("kernel log: {}", logged.join(", ")));
    }
    let watched: Vec<u32> = cpus
        .iter()
        .copied()
        .filter(|c| monitor_gone.contains(c))
        .collect();
    if !watched.is_empty() {
        seen.push(format!(
            "monitor: CPU(s) {} seen offline",
            crate::sys::cpu_list::format_list(&watched)
        ));
    }
    vec![Finding::new(
        FindingCode::CpusKilledMidRun,
        Severity::Invalid,
        format!(
            "CPU(s) {} were killed during the run and came back ({})",
            crate::sys::cpu_list::format_list(&cpus),
            seen.join("; ")
        ),
    )]
}

/// 7-Zip scores are only comparable with published sbc-bench results from 7-Zip 16.02.
pub fn sevenzip_findings(version: Option<&str>) -> Vec<Finding> {
    match version {
        Some(v) if v != "16.02" => vec![Finding::new(
            FindingCode::SevenZipVersion,
            Severity::Warning,
            format!(
                "7-Zip {v} used, not 16.02: the Results.md row's 7-zip columns are not comparable with the published table"
            ),
        )],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(adv: f64, b: f64, a: Option<f64>) -> ClockVerdict {
        ClockVerdict {
            label: "cpu0-cpu3 (Cortex-A55)".into(),
            advertised_mhz: adv,
            before_mhz: Some(b),
            after_mhz: a,
        }
    }

    #[test]
    fn nanopi_r5s_1992_is_really_1845() {
        let f = clock_findings(&[cc(1992.0, 1845.0, Some(1845.0))]);
        assert_eq!(f[0].code, "clock-below-advertised");
        assert!(
            f[0].message.contains("-7.4% before, -7.4% after"),
            "{}",
            f[0].message
        );
    }

    /// Issue 28: the usual RK3588 (its Cortex-A76 measured at 2352 of 2400 MHz,
    /// cpufreq-dt's rounding) made a normal board "valid, with warnings", its page saying
    /// "well below advertised". sbc-bench prints that line in red from 10 % on only.
    #[test]
    fn rk3588_at_2352_of_2400_mhz_is_a_note_not_a_warning() {
        let mut a76 = cc(2400.0, 2352.0, Some(2352.0));
        a76.label = "cpu4, Cortex-A76".into();
        let f = clock_findings(&[a76]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, FindingCode::ClockBelowAdvertised);
        assert_eq!(f[0].severity, Severity::Info);
        // The line sbc-bench prints is kept as it was.
        assert_eq!(
            f[0].message,
            "Advertised vs. measured max CPU clockspeed: -2.0% before, -2.0% after (cpu4, Cortex-A76)"
        );
        // 10 % and more, before or after: a warning.
        for (b, a) in [(2160.0, 2352.0), (2352.0, 2160.0), (1800.0, 1800.0)] {
            let f = clock_findings(&[cc(2400.0, b, Some(a))]);
            assert_eq!(f[0].severity, Severity::Warning, "{b} {a}");
        }
        // Within 1 % (sbc-bench's 0.990 on the ratio to three decimals): nothing to say.
        let f = clock_findings(&[cc(2400.0, 2376.5, Some(2376.5))]);
        assert_eq!(f[0].code, FindingCode::ClockAsAdvertised);
        let f = clock_findings(&[cc(2400.0, 2370.0, Some(2370.0))]);
        assert_eq!(f[0].code, FindingCode::ClockBelowAdvertised);
        assert!(
            !FindingCode::ClockBelowAdvertised
                .meaning()
                .contains("well below")
        );
    }

    #[test]
    fn worst_before_and_worst_after_are_taken_independently() {
        let a55 = cc(1800.0, 1780.0, Some(1700.0)); // -1.1% before, -5.6% after
        let mut a76 = cc(2400.0, 2300.0, Some(2290.0)); // -4.2% before, -4.6% after
        a76.label = "cpu4-cpu5 (Cortex-A76)".into();
        let f = clock_findings(&[a55, a76]);
        assert!(
            f[0].message.contains("-4.2% before, -5.6% after"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn honest_clock_and_throttled_end() {
        let f = clock_findings(&[cc(1800.0, 1820.0, Some(1700.0))]);
        assert_eq!(f[0].code, "clock-as-advertised");
        assert_eq!(f[1].code, "clock-dropped-under-load");
        assert!(clock_findings(&[]).is_empty());
    }

    #[test]
    fn swap() {
        // No swap configured: sbc-bench says nothing about swapping.
        let none = SwapState {
            pswpout: Some(0),
            pswpin: Some(0),
            ..Default::default()
        };
        assert!(swap_findings(&none, &none).is_empty());
        let b = SwapState {
            pswpout: Some(10),
            pswpin: Some(0),
            configured: true,
            ..Default::default()
        };
        let mut a = b.clone();
        assert_eq!(swap_findings(&b, &a)[0].code, "no-swapping");
        a.pswpout = Some(20);
        assert_eq!(swap_findings(&b, &a)[0].code, "swapping");
        a.zram_only = true;
        a.has_zram = true;
        a.zswap_enabled = true;
        let f = swap_findings(&b, &a);
        assert_eq!(f[0].code, "swapping-zram");
        assert_eq!(f[1].code, "zswap-on-zram");
    }

    /// Issue 28: "Swapping occured" said nothing of how much.
    #[test]
    fn swapping_occured_says_how_much() {
        let b = SwapState {
            used_kib: 120 * 1024,
            pswpout: Some(1000),
            pswpin: Some(50),
            configured: true,
            ..Default::default()
        };
        let a = SwapState {
            used_kib: 350 * 1024,
            pswpout: Some(2234),
            pswpin: Some(106),
            ..b.clone()
        };
        let f = swap_findings(&b, &a);
        assert_eq!(
            f[0].message,
            "Swapping occured (1234 pages swapped out, 56 in; swap used 120 → 350 MiB)"
        );
        // Without /proc/vmstat's counters: the swap in use.
        let (b, a) = (
            SwapState {
                pswpout: None,
                pswpin: None,
                ..b
            },
            SwapState {
                pswpout: None,
                pswpin: None,
                ..a
            },
        );
        assert_eq!(
            swap_findings(&b, &a)[0].message,
            "Swapping occured (swap used 120 → 350 MiB)"
        );
    }

    #[test]
    fn background_with_sbc_bench_thresholds() {
        // 0,1,0: average truncates to 0, peak 1 → OK on bare metal, nothing said in a VM.
        let ok = sys_activity_findings(&[0.0, 1.9, 0.0], false);
        assert_eq!(ok[0].code, "background-sys-ok");
        assert!(sys_activity_findings(&[0.0, 1.9, 0.0], true).is_empty());
        let f = sys_activity_findings(&[2.0, 9.0], false);
        assert_eq!(
            f[0].message,
            "Too much background activity (%system): 5% avg, 9% max"
        );
        let spike = sys_activity_findings(&[0.0, 0.0, 16.0, 0.0, 0.0, 0.0], false);
        assert_eq!(spike[0].code, "background-sys");
        assert!(sys_activity_findings(&[], false).is_empty());
        let rows = |v: &[f64]| -> Vec<ActivityRow> {
            v.iter()
                .enumerate()
                .map(|(i, &cpu_pct)| ActivityRow {
                    phase: "memory latency benchmark".into(),
                    start_unix_ms: i as i64 * 10_000,
                    end_unix_ms: (i as i64 + 1) * 10_000,
                    cpu_pct,
                })
                .collect()
        };
        let secs = |ms: i64| format!("{}s", ms / 1000);
        let other = |v: &[f64], n: usize| other_activity_findings(&rows(v), n, &[], &secs);
        // 8 cores: ideal 12 %; 12-14 % rows are within 2 % peak / 0 % average.
        assert!(other(&[12.5, 12.9, 14.9], 8).is_empty());
        let f = other(&[30.0, 40.0], 8);
        assert_eq!(
            f[0].message,
            "Too much other background activity: 23% avg, 28% max (worst during memory \
             latency benchmark, 10s-20s: 40% cpu)"
        );
        // 2 cores: ideal 50 %, 8/2 tolerated.
        assert!(other(&[50.0, 50.5, 50.0, 58.0], 2).is_empty());
        assert_eq!(other(&[50.0, 59.0], 2)[0].code, "background-other");
        assert!(other(&[100.0], 1).is_empty());
    }

    #[test]
    fn cpus_taken_down_as_kernels_word_it() {
        for (m, cpu) in [
            ("CPU3: shutdown", Some(3)),
            ("psci: CPU3 killed (polled 0 ms)", Some(3)),
            ("c0 1098 (kworker/u8:2) CPU2: shutdown", Some(2)),
            ("smpboot: CPU 11 is now offline", Some(11)),
            ("CPU2: Booted secondary processor", None),
            ("CPU features: detected: 32-bit EL0 Support", None),
            ("CPU: shutdown", None),
            ("", None),
        ] {
            assert_eq!(cpu_taken_down(m), cpu, "{m}");
        }
    }

    #[test]
    fn killed_cores_that_came_back_are_named() {
        let r = |m: &str| KmsgRecord {
            priority: 6,
            seq: 1,
            timestamp_us: 0,
            message: m.into(),
        };
        let log = [
            r("CPU2: shutdown"),
            r("psci: CPU2 killed (polled 0 ms)"),
            r("CPU2: Booted secondary processor 0x0000000002 [0x410fd034]"),
            r("CPU3: shutdown"),
            r("CPU3: shutdown"),
        ];
        // cpu3 is still offline at the end: offline_findings' business, not ours.
        let f = killed_findings(&log, &[1], &[0, 1, 2]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, "cpus-killed-mid-run");
        assert_eq!(
            f[0].message,
            "CPU(s) 1-2 were killed during the run and came back (kernel log: cpu2 shut down once; monitor: CPU(s) 1 seen offline)"
        );
        assert!(killed_findings(&[], &[], &[0, 1]).is_empty());
        assert!(killed_findings(&[r("CPU3: shutdown")], &[], &[0, 1, 2]).is_empty());
    }

    #[test]
    fn kernel_offline_7zip() {
        let r = |p: u8, m: &str| KmsgRecord {
            priority: p,
            seq: 1,
            timestamp_us: 0,
            message: m.into(),
        };
        let f = kernel_findings(&[
            r(4, "stress invoked oom-killer: gfp_mask=0x100cca"),
            r(3, "mmc0: error -110"),
        ]);
        assert_eq!(f[0].code, "oom-killer");
        assert_eq!(f[1].code, "kernel-errors");
        assert_eq!(
            offline_findings(&[0, 1, 2, 3], &[0, 1, 2])[0].code,
            "cpus-offlined"
        );
        assert!(offline_findings(&[0, 1], &[0, 1]).is_empty());
        assert_eq!(sevenzip_findings(Some("26.02"))[0].code, "7zip-version");
        assert!(sevenzip_findings(Some("16.02")).is_empty());
    }
}
