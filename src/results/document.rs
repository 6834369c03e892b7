//! A result document read back: a log of the bash sbc-bench or ours (one run, or the
//! last of an appended log), or our run JSON. Pure: text in, record out. Also the few
//! figures the results store indexes beyond the Results.md row (ramlat at 16 and 128 MiB,
//! measured clocks, the validation verdict).

use serde::{Deserialize, Serialize};

use crate::record::finding::{Finding, Severity};
use crate::record::run::{ModeResults, Results, RunReport};
use crate::report::page::{ReportData, Verdict};
use crate::results::sbclog::{self, ParsedLog};
use crate::sys::discover::SystemInfo;

/// What kind of document it was.
pub const FORMAT_LOG: &str = "sbc-bench log";
/// Our `run --json` file.
pub const FORMAT_RUN_JSON: &str = "sbc-bench-run JSON";

/// What a result document gave.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Parsed {
    /// [`FORMAT_LOG`] or [`FORMAT_RUN_JSON`].
    pub format: String,
    #[serde(flatten)]
    pub log: ParsedLog,
    /// Figures beyond the row.
    #[serde(default)]
    pub extra: Extra,
}

/// Figures the results store indexes beyond the Results.md row.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Extra {
    /// ramlat's first column (`1x32`) at 16 MiB, ns: the lowest of the cores measured.
    pub ramlat_16m_ns: Option<f64>,
    /// The same at 128 MiB.
    pub ramlat_128m_ns: Option<f64>,
    /// Measured clock at the highest OPP, MHz, per cluster in the order they were checked.
    pub clocks_mhz: Vec<u32>,
    /// `ok`, `warnings` or `invalid`: our findings' worst severity, or for a bash
    /// sbc-bench log whether its "Results validation" lines are all of the good kind.
    pub verdict: Option<String>,
    /// The kernel's machine (`aarch64`), where the document says.
    pub machine: Option<String>,
}

/// The runs of a log, in order: a log appended run after run (ours by default) has one
/// `sbc-bench v…` header line per run. Text before the first header (the v0.4 uploads
/// without one) belongs to the first run.
pub fn split_runs(text: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = text
        .match_indices("\nsbc-bench v")
        .map(|(i, _)| i + 1)
        .collect();
    if !starts.is_empty() && text[..starts[0]].trim().is_empty() {
        starts.remove(0);
    }
    let mut out = Vec::new();
    let mut from = 0;
    for s in starts {
        if !text[from..s].trim().is_empty() {
            out.push(&text[from..s]);
        }
        from = s;
    }
    if !text[from..].trim().is_empty() {
        out.push(&text[from..]);
    }
    out
}

/// Whether `text` is a JSON document (our run JSON) rather than a log: the one test every
/// reader of result files uses.
pub fn is_run_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// Read one document: our run JSON, or the last run of a log.
pub fn parse(text: &str) -> Result<Parsed, String> {
    if is_run_json(text) {
        return from_run_json(text);
    }
    let last = split_runs(text).pop().unwrap_or(text);
    parse_log_run(last)
}

/// Read one run of a log.
pub fn parse_log_run(text: &str) -> Result<Parsed, String> {
    let log = sbclog::parse(text);
    let row = &log.results_row;
    let holds_nothing = log.version.is_none()
        && log.stated_row.is_none()
        && log.core_types.is_empty()
        && row.memcpy_mb_s.is_none()
        && row.sevenzip_multi.is_none()
        && row.aes256_16k.is_none();
    // The oldest sbc-bench logs (v0.4 uploads) begin with lsb_release's `Distributor ID:`,
    // without a header line: they are read for what they hold.
    if holds_nothing {
        return Err(
            "neither an sbc-bench log (no header, no benchmark output) nor a run JSON".into(),
        );
    }
    let lines = sbclog::normalise(text);
    let (ramlat_16m_ns, ramlat_128m_ns) = log_ramlat(&lines);
    let extra = Extra {
        ramlat_16m_ns,
        ramlat_128m_ns,
        clocks_mhz: log_clocks(&lines),
        verdict: log_verdict(&lines),
        machine: None,
    };
    Ok(Parsed {
        format: FORMAT_LOG.into(),
        log,
        extra,
    })
}

/// Read our run JSON ([`crate::record::read::run_report`]: schema and version checked
/// there).
pub fn from_run_json(text: &str) -> Result<Parsed, String> {
    crate::record::read::run_report(text)
        .map(|r| from_run(&r))
        .map_err(|e| e.to_string())
}

/// What the results store indexes of a run: the live report of a run that just finished,
/// or a run JSON read back.
pub fn from_run(r: &RunReport) -> Parsed {
    let info = &r.system_before;
    let mut log = ParsedLog {
        version: Some(r.sbc_bench_version.clone()),
        date: Some(r.started.clone()),
        soc_guess: info.soc.guess.clone(),
        core_types: run_core_types(info),
        mode: run_mode(r).map(str::to_string),
        ..ParsedLog::default()
    };
    match &r.results_row {
        Some(row) => {
            log.kernel_release = Some(row.kernel.clone()).filter(|k| !k.is_empty());
            log.results_row = row.clone();
        }
        None => log
            .unread
            .push("no results_row (the run did not finish)".to_string()),
    }
    if let Some(rel) = &info.kernel.release {
        log.kernel_release = Some(rel.clone());
    }
    let (ramlat_16m_ns, ramlat_128m_ns) = run_ramlat(&r.results);
    let extra = Extra {
        ramlat_16m_ns,
        ramlat_128m_ns,
        clocks_mhz: run_clocks(&r.results),
        verdict: Some(run_verdict(&r.findings).to_string()),
        machine: info.kernel.machine.clone(),
    };
    Parsed {
        format: FORMAT_RUN_JSON.into(),
        log,
        extra,
    }
}

/// Why the charts of an imported sbc-bench log are empty.
const LOG_MISSING: &str = "the document is a text log, which is read for its Results.md \
figures only (make the report from the run JSON or the stored run for charts)";

/// The report of a log of the bash sbc-bench (or an appended one of ours): what the
/// row and the header say.
pub fn log_report(p: &Parsed) -> ReportData {
    let l = &p.log;
    let row = &l.results_row;
    let mut summary = Vec::new();
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            summary.push((k.to_string(), v));
        }
    };
    push("Device", Some(row.device.clone()));
    push("SoC guess", l.soc_guess.clone());
    push(
        "Core types",
        (!l.core_types.is_empty()).then(|| l.core_types.join(", ")),
    );
    push("Kernel", l.kernel_release.clone());
    push("Distro", Some(row.distro_arch.clone()));
    push("Date", l.date.clone());
    push("Mode", l.mode.clone());
    push(
        "Measured clocks",
        (!p.extra.clocks_mhz.is_empty()).then(|| {
            p.extra
                .clocks_mhz
                .iter()
                .map(|c| format!("{c} MHz"))
                .collect::<Vec<_>>()
                .join(", ")
        }),
    );
    push(
        "ramlat 16 MiB / 128 MiB",
        p.extra.ramlat_16m_ns.map(|a| match p.extra.ramlat_128m_ns {
            Some(b) => format!("{a:.1} ns / {b:.1} ns"),
            None => format!("{a:.1} ns"),
        }),
    );
    push(
        "Not in the file",
        (!l.unread.is_empty()).then(|| l.unread.join("; ")),
    );
    ReportData {
        title: if row.device.is_empty() {
            "n/a".into()
        } else {
            row.device.clone()
        },
        source: format!(
            "{}, sbc-bench {}",
            p.format,
            l.version.as_deref().unwrap_or("(version not stated)")
        ),
        summary,
        verdict: Verdict::from_word(p.extra.verdict.as_deref()),
        results_row: Some(row.clone()),
        missing: LOG_MISSING.into(),
        ..ReportData::default()
    }
}

/// Whether the document's kernel is a vendor (BSP) kernel, by sbc-bench's rules (see
/// [`crate::diagnose::kernel::is_vendor_kernel`]); a rule that asks the kernel log cannot be
/// checked here (neither a log nor a run JSON holds the boot messages), so it gives `None`.
pub fn kernel_bsp(p: &Parsed) -> Option<bool> {
    use crate::diagnose::kernel::{KernelFacts, built_in_table, is_vendor_kernel};
    let release = p
        .log
        .kernel_release
        .as_deref()
        .filter(|r| !r.is_empty())
        .or(Some(p.log.results_row.kernel.as_str()).filter(|k| !k.is_empty()))?;
    let table = built_in_table().ok()?;
    let machine = p.extra.machine.as_deref().or_else(|| {
        // sbc-bench logs name the architecture with the distro (`… arm64`, `… x86_64/amd64`).
        let d = &p.log.results_row.distro_arch;
        if d.contains("x86_64") || d.ends_with("amd64") {
            Some("x86_64")
        } else if d.ends_with("arm64") || d.ends_with("aarch64") {
            Some("aarch64")
        } else {
            None
        }
    });
    let facts = KernelFacts {
        release,
        machine,
        virt: None,
        soc: p.log.soc_guess.as_deref(),
        kernel_log: None,
    };
    is_vendor_kernel(&facts, &table)
}

/// The mode a run records, named as the command that ran it (`thermal`, `graph`,
/// `wrap`, `review`, `extensive`, `quick`); `None` for a standard run.
fn run_mode(r: &RunReport) -> Option<&'static str> {
    use crate::record::config::RunKind;
    let c = &r.config;
    Some(match c.kind {
        RunKind::Thermal(_) => "thermal",
        RunKind::Graph(_) => "graph",
        RunKind::Wrap(_) => "wrap",
        RunKind::Review => "review",
        // A document read before review mode had its kind: its top-level `review` says.
        RunKind::Standard if matches!(r.mode, ModeResults::Review(_)) => "review",
        RunKind::Standard if c.extensive => "extensive",
        RunKind::Standard if c.quick => "quick",
        RunKind::Standard => return None,
    })
}

/// The core types of a run's clusters, in order, once each.
fn run_core_types(info: &SystemInfo) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in info
        .topology
        .clusters
        .iter()
        .filter_map(|c| c.core_type.as_ref())
    {
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    out
}

const MIB16: u64 = 16 << 20;
const MIB128: u64 = 128 << 20;

fn min_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn run_ramlat(results: &Results) -> (Option<f64>, Option<f64>) {
    let mut out = (None, None);
    let tables = results
        .memlat
        .iter()
        .filter_map(|m| m.result.as_ref()?.ramlat.as_ref());
    for row in tables.flat_map(|t| &t.rows) {
        let ns = row
            .ns
            .first()
            .copied()
            .filter(|n| n.is_finite() && *n > 0.0);
        match row.size_bytes {
            MIB16 => out.0 = min_opt(out.0, ns),
            MIB128 => out.1 = min_opt(out.1, ns),
            _ => {}
        }
    }
    out
}

/// ramlat's `16384k:` and `131072k:` rows (sbc-bench v0.9.6 on), first column.
fn log_ramlat(lines: &[String]) -> (Option<f64>, Option<f64>) {
    let mut out = (None, None);
    let mut in_ramlat = false;
    for l in lines {
        if l.starts_with("Executing ramlat") {
            in_ramlat = true;
            continue;
        }
        if !in_ramlat {
            continue;
        }
        let t = l.trim();
        if t.is_empty() || t.starts_with("size:") {
            continue;
        }
        let Some((size, rest)) = t.split_once(':') else {
            in_ramlat = false;
            continue;
        };
        let ns = rest
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<f64>().ok())
            .filter(|n| n.is_finite() && *n > 0.0);
        match size {
            "16384k" => out.0 = min_opt(out.0, ns),
            "131072k" => out.1 = min_opt(out.1, ns),
            s if s.ends_with('k') => {}
            _ => in_ramlat = false,
        }
    }
    out
}

/// The measured clock at each cluster's highest OPP, from the run's first clock check.
fn run_clocks(results: &Results) -> Vec<u32> {
    let mut out = Vec::new();
    for c in &results.clock_cold {
        // The walk's highest OPP that measured.
        let walked = c
            .walk
            .iter()
            .flat_map(|w| &w.opps)
            .filter_map(|o| Some((o.opp_khz, o.measured.as_ref()?.mhz)))
            .max_by_key(|o| o.0)
            .map(|o| o.1);
        let single = c.measured.as_ref().map(|m| m.mhz);
        if let Some(mhz) = walked.or(single).filter(|m| m.is_finite() && *m > 0.0) {
            out.push(mhz.round() as u32);
        }
    }
    out
}

/// Each `Checking cpufreq OPP…` table's row with the highest OPP (newer logs list them
/// highest first, older ones lowest first): its measured column. Rows read
/// `Cpufreq OPP: 2400    Measured: 2350 (…)` or, in older logs, `  2400    2350     1000`
/// (sysfs, measured, voltage).
fn log_clocks(lines: &[String]) -> Vec<u32> {
    fn row(l: &str) -> Option<(u32, u32)> {
        let t = l.trim();
        if let Some(rest) = t.strip_prefix("Cpufreq OPP:") {
            let (opp, m) = rest.split_once("Measured:")?;
            let m = m.split_whitespace().next()?;
            return Some((opp.trim().parse().ok()?, m.parse().ok()?));
        }
        let mut c = t.split_whitespace();
        Some((c.next()?.parse().ok()?, c.next()?.parse().ok()?))
    }
    let mut out = Vec::new();
    let mut best: Option<(u32, u32)> = None;
    let mut in_table = false;
    for l in lines {
        // The checks at the end measure the same clusters again, hot: not more clusters.
        if l.starts_with("Testing maximum cpufreq again")
            || l.starts_with("Testing clockspeeds again")
        {
            break;
        }
        if l.starts_with("Checking cpufreq OPP") {
            out.extend(best.take().map(|b| b.1));
            in_table = !l.contains("again");
            continue;
        }
        if !in_table || l.trim().is_empty() {
            continue;
        }
        if let Some(m) = no_cpufreq_measured(l) {
            best = Some((0, m));
            continue;
        }
        match row(l) {
            Some(r) => {
                if best.is_none_or(|b| r.0 > b.0) {
                    best = Some(r);
                }
            }
            None => {
                out.extend(best.take().map(|b| b.1));
                in_table = false;
            }
        }
    }
    out.extend(best.map(|b| b.1));
    out
}

/// The clock of a cluster without cpufreq, as sbc-bench's versions print it: `No cpufreq
/// support available. Measured on cpu1: 915 Mhz (913.539/…)`, `… Measured on cpu7:
/// 1512/1511/1511`, `No cpufreq support.  Measured: 2108 (2108.2/…)`.
fn no_cpufreq_measured(line: &str) -> Option<u32> {
    let t = line.trim();
    if !t.starts_with("No cpufreq support") {
        return None;
    }
    let after = t.split_once("Measured")?.1;
    let value = after.split_once(':')?.1.split_whitespace().next()?;
    let first = value.split('/').next()?;
    let mhz: f64 = first.parse().ok()?;
    (mhz.is_finite() && mhz > 0.0).then(|| mhz.round() as u32)
}

/// The findings' worst severity, as the store words it: `ok`, `warnings` or `invalid`.
fn run_verdict(findings: &[Finding]) -> &'static str {
    match findings.iter().map(|f| f.severity).max() {
        Some(Severity::Invalid) => "invalid",
        Some(Severity::Warning) => "warnings",
        _ => "ok",
    }
}

/// The lines of a "Results validation:" block that say all is well.
const GOOD_VALIDATION: &[&str] = &[
    "Measured clockspeed not lower than advertised",
    "No swapping",
    "No throttling",
    "Background activity (%system) OK",
];

fn log_verdict(lines: &[String]) -> Option<String> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("Results validation"))?;
    let items: Vec<&str> = lines[start + 1..]
        .iter()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with("  * "))
        .map(|l| l.trim_start_matches("  * "))
        .collect();
    if items.is_empty() {
        return None;
    }
    let all_good = items
        .iter()
        .all(|i| GOOD_VALIDATION.iter().any(|g| i.starts_with(g)));
    Some(if all_good { "ok" } else { "warnings" }.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_runs_are_split_at_their_headers() {
        let text = "sbc-bench v0.9.72 A\nx\n\n\n\n\nsbc-bench v0.9.72 B\ny\n";
        let runs = split_runs(text);
        assert_eq!(runs.len(), 2);
        assert!(runs[0].starts_with("sbc-bench v0.9.72 A"));
        assert!(runs[1].starts_with("sbc-bench v0.9.72 B"));
        // Text before a first header (a v0.4 upload) stays with the first run.
        let runs = split_runs("Distributor ID: Debian\nsbc-bench v0.4 x\n");
        assert_eq!(runs.len(), 2);
        assert_eq!(split_runs("\n\nsbc-bench v1 a\n").len(), 1);
        assert!(split_runs("").is_empty());
    }

    #[test]
    fn ramlat_clocks_and_verdict_from_a_log() {
        let text = "sbc-bench v0.9.72\n\nChecking cpufreq OPP for cpu0-cpu3 (Cortex-A55):\n\nCpufreq OPP: 1800    Measured: 1794 (1794.520/1794.406/1794.253)\n\n\
Checking cpufreq OPP for cpu4-cpu5 (Cortex-A76):\n\nCpufreq OPP: 2400    Measured: 2350 (2350.1/2350.0/2349.8)\n\n\
Executing ramlat on cpu0 (Cortex-A55), results in ns:\n\n       size:  1x32  2x32\n     16384k: 120.5 130.1\n    131072k: 140.2 150.3\n\n\
Executing ramlat on cpu4 (Cortex-A76), results in ns:\n\n       size:  1x32  2x32\n     16384k: 100.5 130.1\n    131072k: 145.2 150.3\n\n\
Results validation:\n\n  * Measured clockspeed not lower than advertised max CPU clockspeed\n  * No swapping\n\n";
        let lines = sbclog::normalise(text);
        assert_eq!(log_ramlat(&lines), (Some(100.5), Some(140.2)));
        assert_eq!(log_verdict(&lines).as_deref(), Some("ok"));
        let bad = text.replace("No swapping", "Swapping occured");
        assert_eq!(
            log_verdict(&sbclog::normalise(&bad)).as_deref(),
            Some("warnings")
        );
        assert_eq!(log_verdict(&sbclog::normalise("x\n")), None);
    }

    #[test]
    fn clocks_from_an_opp_table() {
        // v0.9.72 (corpus log 1ET4): highest OPP first.
        let new = "Checking cpufreq OPP for cpu0-cpu1 (Cortex-A720):\n\nCpufreq OPP: 2600    Measured: 2598 (2598.747/2598.642/2598.642)\nCpufreq OPP:  800    Measured:  798    (798.991/798.971/798.941)\n\nChecking cpufreq OPP for cpu2-cpu5 (Cortex-A520):\n\nCpufreq OPP: 1800    Measured: 1795 (1795.151/1795.111/1794.990)\n\nChecking cpufreq OPP again\n\nCpufreq OPP: 2600    Measured: 2500\n";
        assert_eq!(log_clocks(&sbclog::normalise(new)), vec![2598, 1795]);
        // Older logs: sysfs, measured, voltage; lowest first.
        let old = "Checking cpufreq OPP for cpu0-cpu3 (Cortex-A55):\n\n  408     406     675\n  1800    1794     950\n\nChecking cpufreq OPP for cpu4-cpu5 (Cortex-A76):\n\n  408     407     675\n  2400    2350    1000\n\nsomething\n";
        assert_eq!(log_clocks(&sbclog::normalise(old)), vec![1794, 2350]);
    }

    /// Corpus log 3XzI.txt (Firefly ITX-3588J, sbc-bench v0.9.6, a kernel without
    /// cpufreq): each cluster measured once before the benchmarks and once after; the
    /// clocks are the three of the start (the log's `No cpufreq support available.
    /// Measured on cpu1: 915 Mhz (…)` lines).
    #[test]
    fn itx_3588j_clocks_without_cpufreq_are_read_once_per_cluster() {
        let log = "sbc-bench v0.9.6 Firefly ITX-3588J HDMI(Linux) (Thu, 12 May 2022 08:32:25 +0000)\n\n\
Checking cpufreq OPP for cpu0-cpu3 (Cortex-A55):\n\n\
No cpufreq support available. Measured on cpu1: 915 Mhz (913.539/913.509/913.448)\n\n\
Checking cpufreq OPP for cpu4-cpu5 (Cortex-A76):\n\n\
No cpufreq support available. Measured on cpu5: 980 Mhz (977.693/977.623/977.589)\n\n\
Checking cpufreq OPP for cpu6-cpu7 (Cortex-A76):\n\n\
No cpufreq support available. Measured on cpu7: 985 Mhz (982.738/982.668/982.622)\n\n\
Testing clockspeeds again. System health now:\n\n\
Checking cpufreq OPP for cpu0-cpu3 (Cortex-A55):\n\n\
No cpufreq support available. Measured on cpu1: 915 Mhz (911.102/910.931/910.801)\n";
        let p = parse_log_run(log).unwrap();
        assert_eq!(p.extra.clocks_mhz, [915, 980, 985]);
        assert_eq!(
            no_cpufreq_measured("No cpufreq support.  Measured: 2108 (2108.2/2107.9/2107.5)"),
            Some(2108)
        );
        assert_eq!(
            no_cpufreq_measured("No cpufreq support available. Measured on cpu7: 1512/1511/1511"),
            Some(1512)
        );
        assert_eq!(
            no_cpufreq_measured("No cpufreq support available. Measured on cpu7: "),
            None
        );
    }

    #[test]
    fn verdict_from_findings() {
        use crate::record::finding::FindingCode;
        let v = |sev: &[Severity]| {
            let f: Vec<Finding> = sev
                .iter()
                .map(|&s| Finding::new(FindingCode::NoThrottling, s, "x"))
                .collect();
            run_verdict(&f)
        };
        assert_eq!(v(&[Severity::Ok, Severity::Info]), "ok");
        assert_eq!(v(&[Severity::Ok, Severity::Warning]), "warnings");
        assert_eq!(v(&[Severity::Invalid, Severity::Warning]), "invalid");
        assert_eq!(v(&[]), "ok");
    }

    #[test]
    fn the_figures_the_store_indexes_from_a_run() {
        let r = crate::record::read::fixture_rock5b();
        let p = from_run(&r);
        assert_eq!(p.format, FORMAT_RUN_JSON);
        assert_eq!(p.log.core_types, ["Cortex-A55", "Cortex-A76"]);
        assert_eq!(p.log.results_row, r.results_row.clone().unwrap_or_default());
        assert_eq!(p.extra.clocks_mhz.len(), 3);
        assert!(p.extra.ramlat_16m_ns.is_some() && p.extra.ramlat_128m_ns.is_some());
        assert_eq!(p.log.mode, None);
        // The same as reading its JSON back.
        let text = crate::record::read::FIXTURE_ROCK5B;
        assert_eq!(from_run_json(text), Ok(p));
    }
}
