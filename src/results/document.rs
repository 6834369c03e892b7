//! A result document read back: a log of the bash sbc-bench or ours (one run, or the
//! last of an appended log), or our run JSON. Pure: text in, record out. Also the few
//! figures the results store indexes beyond the Results.md row (ramlat at 16 and 128 MiB,
//! measured clocks, the validation verdict).

use serde::{Deserialize, Serialize};

use crate::record::finding::{Finding, Severity};
use crate::record::log_record::{LogRecord, LogWriter};
use crate::record::read::ReadError;
use crate::record::results_row::ResultsRow;
use crate::record::run::{ModeResults, RunReport};
use crate::report::page::{ReportData, Verdict};
use crate::results::sbclog::{self, LogError, ParsedLog};
use crate::sys::discover::SystemInfo;

/// What kind of document it was.
pub const FORMAT_LOG: &str = "sbc-bench log";
/// Our `run --json` file.
pub const FORMAT_RUN_JSON: &str = "sbc-bench-run JSON";

/// What a result document gave: its typed record, and the summary the results store
/// indexes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Parsed {
    /// [`FORMAT_LOG`] or [`FORMAT_RUN_JSON`].
    pub format: String,
    /// The summary: header, row, what could not be read.
    #[serde(flatten)]
    pub log: ParsedLog,
    /// Figures beyond the row.
    #[serde(default)]
    pub extra: Extra,
    /// Everything the document holds, typed (a run JSON: what its log holds).
    #[serde(default)]
    pub record: LogRecord,
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

/// Why a document is no result we can read.
#[derive(Debug, thiserror::Error)]
pub enum DocError {
    /// A text that is no result log (or a binary file).
    #[error(transparent)]
    Log(#[from] LogError),
    /// JSON that is no run JSON of ours, or one this build cannot read.
    #[error(transparent)]
    Run(#[from] ReadError),
}

impl DocError {
    /// Not a result at all (a Geekbench page, a binary, someone else's JSON), as opposed
    /// to a result of ours this build cannot read (newer, damaged).
    pub fn is_not_a_result(&self) -> bool {
        match self {
            DocError::Log(_) => true,
            DocError::Run(e) => matches!(e, ReadError::NotJson(_) | ReadError::OtherSchema { .. }),
        }
    }
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
pub fn parse(text: &str) -> Result<Parsed, DocError> {
    if is_run_json(text) {
        return from_run_json(text);
    }
    let last = split_runs(text).pop().unwrap_or(text);
    parse_log_run(last)
}

/// Read one run of a log.
pub fn parse_log_run(text: &str) -> Result<Parsed, DocError> {
    Ok(from_record(FORMAT_LOG, sbclog::read_log(text)?))
}

/// The summary and index figures of a record.
pub fn from_record(format: &str, record: LogRecord) -> Parsed {
    let extra = Extra {
        ramlat_16m_ns: record.ramlat_at(MIB16),
        ramlat_128m_ns: record.ramlat_at(MIB128),
        clocks_mhz: record.measured_clocks_mhz(),
        verdict: record.verdict.clone(),
        machine: record.host.machine.clone(),
    };
    Parsed {
        format: format.into(),
        log: sbclog::summary(&record),
        extra,
        record,
    }
}

/// Read our run JSON ([`crate::record::read::run_report`]: schema and version checked
/// there).
pub fn from_run_json(text: &str) -> Result<Parsed, DocError> {
    Ok(from_run(&crate::record::read::run_report(text)?))
}

/// The record of a run of ours: what its log holds. The log is rendered by the exporter
/// that writes our logs (`report::log::run::log`) and read back by the one log reader, so
/// a run imported as its log and as its JSON is one record; what the JSON states exactly
/// replaces the printed forms: the instant it started, the Results.md row the run
/// computed, its verdict and machine.
pub fn record_of_run(r: &RunReport) -> LogRecord {
    let text = crate::report::log::run::log(r);
    let mut rec = sbclog::read(&text);
    rec.writer = LogWriter::Ours;
    rec.header.version = Some(r.sbc_bench_version.clone());
    rec.header.date_utc = sbclog::to_utc(&r.started);
    match &r.results_row {
        Some(row) => rec.results_row = row.clone(),
        // A run that states no row (a thermal test, a review without benchmarks, an
        // interrupted run) has no Results.md figures, whatever its log's tables hold.
        None => {
            rec.results_row = ResultsRow {
                device: std::mem::take(&mut rec.results_row.device),
                kernel: std::mem::take(&mut rec.results_row.kernel),
                ..ResultsRow::default()
            };
            rec.aes128_16b = None;
            rec.unread
                .push("no results_row (the run did not finish)".to_string());
        }
    }
    rec.verdict = Some(run_verdict(&r.findings).to_string());
    if let Some(m) = &r.system_before.kernel.machine {
        rec.host.machine = Some(m.clone());
    }
    if let Some(rel) = &r.system_before.kernel.release {
        rec.host.kernel_release = Some(rel.clone());
    }
    rec
}

/// What the results store indexes of a run: the live report of a run that just finished,
/// or a run JSON read back.
pub fn from_run(r: &RunReport) -> Parsed {
    let mut p = from_record(FORMAT_RUN_JSON, record_of_run(r));
    let info = &r.system_before;
    p.log.date = Some(r.started.clone());
    p.log.mode = run_mode(r).map(str::to_string);
    p.log.soc_guess = info.soc.guess.clone().or(p.log.soc_guess);
    let types = run_core_types(info);
    if !types.is_empty() {
        p.log.core_types = types;
    }
    p
}

/// Why the charts of an imported sbc-bench log are empty.
const LOG_MISSING: &str = "the log holds no such table";

/// The report of a log of the bash sbc-bench (or an appended one of ours): what the
/// row and the header say, and the charts of every table the log holds.
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
    let mut d = ReportData {
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
    };
    crate::results::record_report::charts(&p.record, &mut d);
    d
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
    let c = &r.config;
    if let Some(command) = c.kind.command() {
        return Some(command);
    }
    if matches!(r.mode, ModeResults::Review(_)) {
        // A document read before review mode had its kind: its top-level `review` says.
        Some("review")
    } else if c.extensive {
        Some("extensive")
    } else if c.quick {
        Some("quick")
    } else {
        None
    }
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

/// The findings' worst severity, as the store words it: `ok`, `warnings` or `invalid`.
fn run_verdict(findings: &[Finding]) -> &'static str {
    match findings.iter().map(|f| f.severity).max() {
        Some(Severity::Invalid) => "invalid",
        Some(Severity::Warning) => "warnings",
        _ => "ok",
    }
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
        let p = parse_log_run(text).unwrap();
        assert_eq!(
            (p.extra.ramlat_16m_ns, p.extra.ramlat_128m_ns),
            (Some(100.5), Some(140.2))
        );
        assert_eq!(p.extra.clocks_mhz, [1794, 2350]);
        assert_eq!(p.extra.verdict.as_deref(), Some("ok"));
        let bad = text.replace("No swapping", "Swapping occured");
        let p = parse_log_run(&bad).unwrap();
        assert_eq!(p.extra.verdict.as_deref(), Some("warnings"));
        assert!(matches!(parse_log_run("x\n"), Err(e) if e.is_not_a_result()));
    }

    #[test]
    fn clocks_from_an_opp_table() {
        // v0.9.72 (corpus log 1ET4): highest OPP first; the hot check is not counted.
        let new = "sbc-bench v0.9.72 X\nChecking cpufreq OPP for cpu0-cpu1 (Cortex-A720):\n\nCpufreq OPP: 2600    Measured: 2598 (2598.747/2598.642/2598.642)\nCpufreq OPP:  800    Measured:  798    (798.991/798.971/798.941)\n\nChecking cpufreq OPP for cpu2-cpu5 (Cortex-A520):\n\nCpufreq OPP: 1800    Measured: 1795 (1795.151/1795.111/1794.990)\n\nTesting maximum cpufreq again, still under full load. System health now:\n\nChecking cpufreq OPP for cpu0-cpu1 (Cortex-A720):\n\nCpufreq OPP: 2600    Measured: 2500\n";
        assert_eq!(parse_log_run(new).unwrap().extra.clocks_mhz, [2598, 1795]);
        // Lowest first.
        let old = "sbc-bench v0.6.9 X\nChecking cpufreq OPP for cpu0-cpu3 (Cortex-A55):\n\nCpufreq OPP:  408    Measured: 406 (406.1/406.0/405.9)\nCpufreq OPP: 1800    Measured: 1794 (1794.0/1794.0/1793.9)\n\n";
        assert_eq!(parse_log_run(old).unwrap().extra.clocks_mhz, [1794]);
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
        // The other two ways sbc-bench's versions print it, and one without a figure.
        let one = |line: &str| {
            let log = format!(
                "sbc-bench v0.9.6 Board (Thu, 12 May 2022 08:32:25 +0000)\n\n\
Checking cpufreq OPP for cpu0-cpu3 (Cortex-A55):\n\n{line}\n"
            );
            parse_log_run(&log).unwrap().extra.clocks_mhz
        };
        assert_eq!(
            one("No cpufreq support.  Measured: 2108 (2108.2/2107.9/2107.5)"),
            [2108]
        );
        // Three samples and no summary: their median.
        assert_eq!(
            one("No cpufreq support available. Measured on cpu7: 1512/1511/1511"),
            [1511]
        );
        assert!(one("No cpufreq support available. Measured on cpu7: ").is_empty());
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
        assert_eq!(from_run_json(text).unwrap(), p);
    }
}
