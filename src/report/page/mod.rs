//! What `sbc-bench report` shows of one run, from the typed run record ([`RunReport`]: the
//! live report after a run, or a run JSON read back by `record::read::run_report`) into
//! plain data whose tables (`report::page::table`) and charts the HTML and Markdown
//! renderers (`report::page::html`, `report::page::markdown`) draw. An imported sbc-bench log is no run
//! of ours: the results layer builds its `ReportData` from the parsed log, leaving the
//! sections it lacks empty and saying why in [`ReportData::missing`], so each chart can say
//! so instead of vanishing. Pure.

#[cfg(test)]
mod forms_tests;
pub mod graph;
pub mod html;
pub mod markdown;
pub mod svg;
pub mod table;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::bench::clock::ClockCheck;
use crate::bench::external::sevenzip::BenchRun;
use crate::bench::lzma::LzmaRun;
use crate::bench::pin::Target;
use crate::monitor::Recording;
use crate::record::finding::{Finding, Severity};
use crate::record::results_row::ResultsRow;
use crate::record::run::{Results, RunReport, RunStatus};
use crate::report::redact::{self, Known};
use crate::sys::discover::SystemInfo;

/// The report of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportData {
    /// The device (or `n/a`).
    pub title: String,
    /// What the report was made from (`sbc-bench-run JSON, sbc-bench 0.1.0 (Rust)`).
    pub source: String,
    /// Summary rows: (label, value).
    pub summary: Vec<(String, String)>,
    /// The validation verdict.
    pub verdict: Verdict,
    /// The Results.md row, where the run has one.
    pub results_row: Option<ResultsRow>,
    /// Findings, worst first.
    pub findings: Vec<FindingView>,
    /// One row per cluster.
    pub topology: Vec<ClusterView>,
    /// Measured against advertised clock, per cluster.
    pub clocks: Vec<ClockCurve>,
    /// ramlat's table, per cluster.
    pub latency: Vec<LatencyCurve>,
    /// Memory bandwidth, per cluster and test.
    pub bandwidth: Vec<Bandwidth>,
    /// AES throughput per algorithm and cluster.
    pub aes: Vec<AesRow>,
    /// 7-Zip (or the native LZMA) ratings per cluster, and all cores.
    pub sevenzip: Vec<ZipRow>,
    /// The monitor's recording as time series.
    pub monitor: Option<MonitorView>,
    /// This run beside known boards.
    pub comparison: Option<ComparisonView>,
    /// Why a section may be empty (`an imported sbc-bench log holds no monitor
    /// recording`); empty for a run JSON of ours.
    pub missing: String,
}

/// The verdict of the run's validation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Nothing worse than information.
    Valid,
    /// Valid with warnings.
    Warnings,
    /// The numbers cannot be trusted.
    Invalid,
    /// The run did not finish.
    Incomplete,
    /// The document does not say.
    #[default]
    Unknown,
}

impl Verdict {
    /// The sentence shown.
    pub fn sentence(self) -> &'static str {
        match self {
            Verdict::Valid => "results valid",
            Verdict::Warnings => "results valid, with warnings",
            Verdict::Invalid => "the results cannot be trusted (see the findings)",
            Verdict::Incomplete => "the run did not finish: results are incomplete",
            Verdict::Unknown => "not stated in the document",
        }
    }

    /// The CSS class / word.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Valid => "ok",
            Verdict::Warnings => "warning",
            Verdict::Invalid => "invalid",
            Verdict::Incomplete => "incomplete",
            Verdict::Unknown => "unknown",
        }
    }

    /// From the results store's verdict word (`ok`, `warnings`, `invalid`).
    pub fn from_word(w: Option<&str>) -> Self {
        match w {
            Some("ok") => Verdict::Valid,
            Some("warnings") => Verdict::Warnings,
            Some("invalid") => Verdict::Invalid,
            _ => Verdict::Unknown,
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingView {
    /// `warning`, `ok`…
    pub severity: Severity,
    /// The stable code.
    pub code: String,
    /// The finding's sentence.
    pub message: String,
    /// What the code means in general.
    pub explanation: String,
}

/// One cluster of the topology.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterView {
    /// `cpu0-3 (Cortex-A55)`.
    pub name: String,
    /// Its CPUs (`0-3`).
    pub cpus: String,
    /// The same, as numbers.
    pub cpu_ids: Vec<u32>,
    /// Core type.
    pub core_type: String,
    /// cpufreq policy.
    pub policy: Option<u32>,
    /// Lowest and highest advertised OPP, MHz.
    pub min_mhz: Option<u32>,
    /// Highest advertised OPP, MHz.
    pub max_mhz: Option<u32>,
    /// Number of OPPs.
    pub opps: usize,
}

/// One OPP's advertised and measured clocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OppPoint {
    /// Advertised, MHz.
    pub opp_mhz: f64,
    /// Measured at the start, MHz.
    pub measured_mhz: Option<f64>,
    /// Measured again at the end, MHz.
    pub hot_mhz: Option<f64>,
}

/// A cluster's clocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockCurve {
    /// The cluster's name.
    pub name: String,
    /// Highest OPP first, as measured.
    pub points: Vec<OppPoint>,
}

/// One row of ramlat's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyCell {
    /// Block size, bytes.
    pub size_bytes: u64,
    /// Latency per column, ns.
    pub ns: Vec<f64>,
}

/// A cluster's ramlat table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencyCurve {
    /// The cluster's name.
    pub name: String,
    /// ramlat's columns (`1x32`, `2x32`…).
    pub columns: Vec<String>,
    /// Rows by size.
    pub rows: Vec<LatencyCell>,
}

/// One bandwidth figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bandwidth {
    /// The cluster's name.
    pub cluster: String,
    /// The test (`libc memcpy copy`).
    pub test: String,
    /// MB/s.
    pub mb_s: f64,
}

/// AES throughput of one algorithm on one cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AesRow {
    /// `aes-256-cbc`.
    pub algorithm: String,
    /// The cluster (core type) it ran on.
    pub cluster: String,
    /// (buffer bytes, 1000s of bytes per second), as openssl prints.
    pub sizes: Vec<(u64, f64)>,
}

/// 7-Zip ratings of one cluster (or of all cores).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZipRow {
    /// The cluster, or `all cores`.
    pub label: String,
    /// `7-Zip 16.02` or `native LZMA`.
    pub tool: String,
    /// Compression rating, MIPS.
    pub compress_mips: Option<f64>,
    /// Decompression rating, MIPS.
    pub decompress_mips: Option<f64>,
    /// Total rating, MIPS.
    pub total_mips: f64,
}

/// A phase of the recording on the time axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseSpan {
    /// What ran.
    pub label: String,
    /// Seconds from the recording's start.
    pub start_s: f64,
    /// Seconds from the recording's start.
    pub end_s: f64,
    /// Highest temperature, °C.
    pub temp_max_c: Option<f64>,
    /// Highest %cpu of an interval.
    pub peak_cpu_pct: Option<f64>,
}

/// One named time series: (seconds, value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeSeries {
    /// Legend text.
    pub name: String,
    /// Points, time ascending, finite values only.
    pub points: Vec<(f64, f64)>,
}

/// The monitor's recording.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MonitorView {
    /// The phases.
    pub phases: Vec<PhaseSpan>,
    /// Clock per cluster, MHz.
    pub clocks: Vec<TimeSeries>,
    /// SoC temperature, °C.
    pub temp: Vec<TimeSeries>,
    /// %cpu, %sys, %irq of all CPUs.
    pub usage: Vec<TimeSeries>,
    /// The busiest core's %cpu.
    pub busiest: Vec<TimeSeries>,
    /// The thermal source's label.
    pub thermal_source: Option<String>,
}

/// A bar of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bar {
    /// The device.
    pub label: String,
    /// The value of the metric.
    pub value: f64,
    /// The run of this report.
    pub this_run: bool,
}

/// The run beside known boards (`sbc-bench compare`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ComparisonView {
    /// The metric's name (`7zip-multi`).
    pub metric: String,
    /// Which rows were chosen (`SoC RK3588`).
    pub selection: String,
    /// Sorted by the metric, the best first.
    pub bars: Vec<Bar>,
    /// Why the numbers differ.
    pub why: Vec<String>,
}

fn cpu_range(cpus: &[u32]) -> String {
    crate::sys::cpu_list::format_list(cpus)
}

/// The clusters of the run, to name benchmark targets by.
struct Topo<'a> {
    /// One row per cluster, in the order of `SystemInfo::topology`.
    views: Vec<ClusterView>,
    /// The system's clusters, index for index with `views`.
    clusters: &'a [crate::sys::cpu::Cluster],
}

impl Topo<'_> {
    /// `cpu0-3 (Cortex-A55)` of a benchmark's target (its cluster looked up in the
    /// topology), else `cpu4 (Cortex-A76)` or `cpu4`.
    fn name(&self, target: &Target) -> String {
        let known = target
            .cluster
            .and_then(|c| self.clusters.iter().position(|k| k.id == c));
        if let Some(i) = known {
            return self.views[i].name.clone();
        }
        match &target.core_type {
            Some(t) => format!("cpu{} ({t})", target.cpu),
            None => format!("cpu{}", target.cpu),
        }
    }

    /// `cpu0 (Cortex-A55)`: the one CPU a benchmark ran on (memory latency, the
    /// single-threaded 7-Zip and LZMA runs), as sbc-bench's log names it (`Executing
    /// ramlat on cpu0 (Cortex-A55)`), not its cluster's range: a run on cpu0 of a
    /// two-CPU VM is not `cpu0-1`. The core type is the cluster's where the target has
    /// none.
    fn cpu_name(&self, target: &Target) -> String {
        let core_type = target.core_type.clone().or_else(|| {
            self.views
                .iter()
                .find(|v| v.cpu_ids.contains(&target.cpu))
                .map(|v| v.core_type.clone())
                .filter(|t| !t.is_empty())
        });
        match core_type {
            Some(t) => format!("cpu{} ({t})", target.cpu),
            None => format!("cpu{}", target.cpu),
        }
    }

    /// The cluster holding `cpu`, else the row's tag.
    fn of_cpu(&self, cpu: u32, tag: &str) -> String {
        self.views
            .iter()
            .find(|t| t.cpu_ids.contains(&cpu))
            .map(|t| t.name.clone())
            .unwrap_or_else(|| tag.to_string())
    }
}

impl ReportData {
    /// The report of a run: the live one after it finished, or a run JSON read back
    /// ([`crate::record::read::run_report`]).
    pub fn from_run(r: &RunReport) -> Self {
        let info = &r.system_before;
        let topo = topology(info);
        let results = &r.results;
        let mut d = ReportData {
            title: info
                .device
                .name
                .clone()
                .or_else(|| r.results_row.as_ref().map(|row| row.device.clone()))
                .unwrap_or_else(|| "n/a".into()),
            source: format!(
                "sbc-bench-run JSON, sbc-bench {} (Rust)",
                r.sbc_bench_version
            ),
            summary: summary(r),
            verdict: verdict(r),
            results_row: r.results_row.clone(),
            findings: findings(&r.findings),
            clocks: clocks(results, &topo),
            latency: latency(results, &topo),
            bandwidth: bandwidth(results, &topo),
            aes: aes(results, &topo),
            sevenzip: sevenzip(results, &topo),
            monitor: r.monitor.as_ref().and_then(|m| monitor(m, &topo.views)),
            topology: topo.views,
            comparison: None,
            missing: String::new(),
        };
        if r.config.fake_benchmarks {
            d.summary.push((
                "Benchmarks".into(),
                "canned (--fake-benchmarks): not measured on this board".into(),
            ));
        }
        d
    }

    /// The report with every text redacted (docs/PRIVACY.md): the same rules as the
    /// Markdown review, applied to each text before it is rendered (never to the markup).
    pub fn redacted(&self, known: &Known) -> Self {
        let Ok(mut v) = serde_json::to_value(self) else {
            return self.clone();
        };
        redact_strings(&mut v, known);
        serde_json::from_value(v).unwrap_or_else(|_| self.clone())
    }
}

/// Every string of the report's own data (not of a document read): the generic walk
/// keeps a text added to [`ReportData`] later from escaping redaction.
fn redact_strings(v: &mut Value, known: &Known) {
    match v {
        Value::String(t) => *t = redact::redact(t, known),
        Value::Array(a) => a.iter_mut().for_each(|x| redact_strings(x, known)),
        Value::Object(o) => o.values_mut().for_each(|x| redact_strings(x, known)),
        _ => {}
    }
}

/// What a run knows it contains, for redaction: its hostname and the names the hardware
/// states (device-tree compatibles and model, DMI's names). Not the Results.md row's
/// device: on a machine without DMI that is the hostname, which then proved nothing.
pub fn known_of_run(r: &RunReport) -> Known {
    let i = &r.system_before;
    let mut hardware = i.dt_compatible.clone();
    hardware.extend(i.device.dt_model.clone());
    if i.device.source.is_some() {
        hardware.extend(i.device.name.clone());
    }
    if let Some(d) = &i.device.dmi {
        hardware.extend(d.device_name());
    }
    Known {
        hostname: i.hostname.clone(),
        hardware,
    }
}

/// The status as the run JSON words it.
fn status_word(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Running => "running",
        RunStatus::Complete => "complete",
        RunStatus::Interrupted => "interrupted",
    }
}

fn summary(r: &RunReport) -> Vec<(String, String)> {
    let i = &r.system_before;
    let mut out = Vec::new();
    let mut push = |k: &str, val: Option<String>| {
        if let Some(val) = val.filter(|x| !x.is_empty()) {
            out.push((k.to_string(), val));
        }
    };
    push("Device", i.device.name.clone());
    push("Hostname", i.hostname.clone());
    let soc = match (&i.soc.guess, &i.soc.detail) {
        (Some(g), Some(d)) => Some(format!("{g} / {}", d.trim())),
        (g, _) => g.clone(),
    };
    push("SoC", soc);
    push("Kernel", i.kernel.release.clone());
    push(
        "Kernel cmdline",
        i.kernel.cmdline.as_ref().map(|c| c.trim().to_string()),
    );
    let distro = i.distro.as_ref().and_then(|d| d.pretty_name.clone());
    let distro = distro.map(|d| match &i.userland {
        Some(u) => format!("{d} {}", u.arch),
        None => d,
    });
    push("Distro", distro);
    push(
        "Memory",
        i.memory
            .meminfo
            .mem_total_kib
            .map(|k| format!("{} MiB", k / 1024)),
    );
    push("Started", Some(r.started.clone()));
    push("Finished", r.finished.clone());
    push("Status", Some(status_word(r.status).to_string()));
    let mut mode = Vec::new();
    if r.config.quick {
        mode.push("--quick: not comparable with full runs");
    }
    if r.config.extensive {
        mode.push("extensive");
    }
    push("Mode", (!mode.is_empty()).then(|| mode.join(", ")));
    out
}

fn verdict(r: &RunReport) -> Verdict {
    if r.status != RunStatus::Complete {
        return Verdict::Incomplete;
    }
    match r.findings.iter().map(|f| f.severity).max() {
        Some(Severity::Invalid) => Verdict::Invalid,
        Some(Severity::Warning) => Verdict::Warnings,
        _ => Verdict::Valid,
    }
}

fn findings(f: &[Finding]) -> Vec<FindingView> {
    let mut out: Vec<FindingView> = f
        .iter()
        .map(|f| FindingView {
            severity: f.severity,
            code: f.code.as_str().to_string(),
            message: f.message.clone(),
            explanation: f.code.meaning().to_string(),
        })
        .collect();
    // Worst first; the order of the run within one severity.
    out.sort_by_key(|f| std::cmp::Reverse(f.severity));
    out
}

/// The clusters, with their advertised OPPs.
fn topology(info: &SystemInfo) -> Topo<'_> {
    let clusters = &info.topology.clusters;
    let views = clusters
        .iter()
        .map(|c| {
            let core_type = c.core_type.clone().unwrap_or_else(|| "n/a".into());
            let opps: Vec<u32> = info
                .cpufreq
                .iter()
                .find(|p| Some(p.id) == c.policy)
                .map(|p| {
                    p.opps_khz
                        .iter()
                        .filter_map(|k| u32::try_from(k / 1000).ok())
                        .collect()
                })
                .unwrap_or_default();
            ClusterView {
                name: format!("cpu{} ({core_type})", cpu_range(&c.cpus)),
                cpus: cpu_range(&c.cpus),
                cpu_ids: c.cpus.clone(),
                core_type,
                policy: c.policy,
                min_mhz: opps.iter().min().copied(),
                max_mhz: opps.iter().max().copied(),
                opps: opps.len(),
            }
        })
        .collect();
    Topo { views, clusters }
}

/// (advertised MHz, measured MHz) of each OPP walked.
fn opp_walk(check: &ClockCheck) -> Vec<(f64, Option<f64>)> {
    check
        .walk
        .iter()
        .flat_map(|w| &w.opps)
        .map(|o| {
            (
                o.opp_khz as f64 / 1000.0,
                o.measured.as_ref().map(|m| m.mhz),
            )
        })
        .collect()
}

fn clocks(results: &Results, topo: &Topo) -> Vec<ClockCurve> {
    results
        .clock_cold
        .iter()
        .filter_map(|c| {
            let hot_walk = results
                .clock_hot
                .iter()
                .find(|h| h.target == c.target)
                .map(opp_walk)
                .unwrap_or_default();
            let mut points: Vec<OppPoint> = opp_walk(c)
                .into_iter()
                .map(|(opp, m)| OppPoint {
                    opp_mhz: opp,
                    measured_mhz: m,
                    hot_mhz: hot_walk
                        .iter()
                        .find(|(o, _)| (*o - opp).abs() < 0.5)
                        .and_then(|(_, m)| *m),
                })
                .collect();
            if points.is_empty() {
                // No cpufreq OPPs (an x86 VM): the one measured clock.
                points.push(OppPoint {
                    opp_mhz: 0.0,
                    measured_mhz: Some(c.measured.as_ref()?.mhz),
                    hot_mhz: None,
                });
            }
            Some(ClockCurve {
                name: topo.name(&c.target),
                points,
            })
        })
        .collect()
}

fn latency(results: &Results, topo: &Topo) -> Vec<LatencyCurve> {
    results
        .memlat
        .iter()
        .filter_map(|m| {
            let r = m.result.as_ref()?.ramlat.as_ref()?;
            let rows: Vec<LatencyCell> = r
                .rows
                .iter()
                .map(|row| LatencyCell {
                    size_bytes: row.size_bytes,
                    ns: row.ns.clone(),
                })
                .collect();
            (!rows.is_empty()).then(|| LatencyCurve {
                name: topo.cpu_name(&m.target),
                columns: r.columns.clone(),
                rows,
            })
        })
        .collect()
}

fn bandwidth(results: &Results, topo: &Topo) -> Vec<Bandwidth> {
    let mut out = Vec::new();
    for m in &results.membw {
        let cluster = topo.name(&m.target);
        for row in m.result.iter().flat_map(|r| &r.rows) {
            out.push(Bandwidth {
                cluster: cluster.clone(),
                test: row.name.clone(),
                mb_s: row.mb_per_s,
            });
        }
    }
    out
}

/// The native rows, then OpenSSL's (marked), each on its cluster.
fn aes(results: &Results, topo: &Topo) -> Vec<AesRow> {
    let Some(a) = &results.aes else {
        return Vec::new();
    };
    let openssl = a.openssl.iter().flat_map(|o| &o.rows);
    let rows = a
        .native
        .iter()
        .map(|r| (r, ""))
        .chain(openssl.map(|r| (r, " (OpenSSL)")));
    rows.map(|(r, tool)| AesRow {
        algorithm: format!("{}{tool}", r.algorithm.name()),
        cluster: topo.of_cpu(r.cpu, &r.tag),
        sizes: r
            .sizes
            .iter()
            .map(|z| (z.buffer_bytes as u64, z.bytes_per_s / 1000.0))
            .collect(),
    })
    .collect()
}

/// A 7-Zip row: its table's ratings.
fn sevenzip_row(label: String, tool: &str, r: &BenchRun) -> ZipRow {
    ZipRow {
        label,
        tool: tool.to_string(),
        compress_mips: r.table.compress_rating_mips.map(|x| x as f64),
        decompress_mips: r.table.decompress_rating_mips.map(|x| x as f64),
        total_mips: r.table.total_rating_mips as f64,
    }
}

/// A native LZMA row.
fn lzma_row(label: String, r: &LzmaRun) -> ZipRow {
    ZipRow {
        label,
        tool: "native LZMA".to_string(),
        compress_mips: Some(r.compress_rating_mips),
        decompress_mips: Some(r.decompress_rating_mips),
        total_mips: r.total_rating_mips,
    }
}

fn sevenzip(results: &Results, topo: &Topo) -> Vec<ZipRow> {
    let mut out = Vec::new();
    for c in [&results.sevenzip, &results.lzma].into_iter().flatten() {
        if let Some(z) = &c.sevenzip {
            let tool = format!("7-Zip {}", z.version.engine.as_deref().unwrap_or("n/a"));
            for r in &z.single {
                out.push(sevenzip_row(topo.cpu_name(&r.target), &tool, &r.result));
            }
            for r in &z.multi {
                out.push(sevenzip_row("all cores".into(), &tool, r));
            }
        }
        for r in &c.native_single {
            out.push(lzma_row(topo.cpu_name(&r.target), &r.result));
        }
        out.extend(
            c.native_multi
                .as_ref()
                .map(|r| lzma_row("all cores".into(), r)),
        );
    }
    out.dedup();
    out
}

fn monitor(rec: &Recording, topo: &[ClusterView]) -> Option<MonitorView> {
    let t0 = rec
        .intervals
        .first()
        .map(|i| i.start_unix_ms)
        .or_else(|| rec.phases.first().map(|p| p.start_unix_ms))?;
    let t = |ms: i64| (ms - t0) as f64 / 1000.0;
    let ivs: Vec<_> = rec.intervals.iter().filter(|i| !i.since_boot).collect();
    let series =
        |name: &str, f: &dyn Fn(&crate::monitor::interval::Interval) -> Option<f64>| TimeSeries {
            name: name.to_string(),
            points: ivs
                .iter()
                .filter_map(|i| {
                    f(i).filter(|x| x.is_finite())
                        .map(|y| (t(i.end_unix_ms), y))
                })
                .collect(),
        };
    let mut policies: Vec<u32> = ivs
        .iter()
        .flat_map(|i| i.clocks.iter().map(|c| c.policy))
        .collect();
    policies.sort_unstable();
    policies.dedup();
    let clocks = policies
        .iter()
        .map(|&p| {
            let name = topo
                .iter()
                .find(|c| c.policy == Some(p))
                .map(|c| c.name.clone())
                .unwrap_or_else(|| format!("policy{p}"));
            series(&name, &|i| i.policy_khz(p).map(|k| k as f64 / 1000.0))
        })
        .collect();
    let usage = vec![
        series("%cpu", &|i| i.usage.map(|u| u.cpu_pct)),
        series("%sys", &|i| i.usage.map(|u| u.sys_pct)),
        series("%irq", &|i| i.usage.map(|u| u.irq_pct)),
    ];
    let phases = rec
        .phases
        .iter()
        .map(|p| {
            let sum = rec.summary(p);
            PhaseSpan {
                label: p.label.clone(),
                start_s: t(p.start_unix_ms),
                end_s: t(p.end_unix_ms.unwrap_or(p.start_unix_ms)),
                temp_max_c: sum.as_ref().and_then(|x| x.temp_max_c),
                peak_cpu_pct: sum.as_ref().and_then(|x| x.peak_cpu_pct),
            }
        })
        .collect();
    Some(MonitorView {
        phases,
        clocks,
        temp: vec![series("SoC temperature", &|i| i.temp_c)],
        usage,
        busiest: vec![series("busiest core %cpu", &|i| {
            i.busiest.map(|b| b.cpu_pct)
        })],
        thermal_source: rec.thermal_source.clone(),
    })
}

/// True when no series of the group has a point.
pub fn empty(series: &[TimeSeries]) -> bool {
    series.iter().all(|s| s.points.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::read::{fixture_rock5b, fixture_rock5b_openssl as with_openssl};

    #[test]
    fn a_run_gives_every_section() {
        let d = ReportData::from_run(&fixture_rock5b());
        assert_eq!(d.title, "Radxa ROCK 5B");
        assert_eq!(d.topology.len(), 3);
        assert_eq!(d.topology[1].name, "cpu4-5 (Cortex-A76)");
        assert_eq!(d.topology[1].max_mhz, Some(2400));
        assert_eq!(d.clocks.len(), 3);
        assert_eq!(d.clocks[1].name, "cpu4-5 (Cortex-A76)");
        assert!(d.clocks[1].points.iter().any(|p| p.hot_mhz.is_some()));
        assert_eq!(d.latency[0].name, "cpu0 (Cortex-A55)");
        assert!(!d.bandwidth.is_empty());
        assert_eq!(d.aes[0].algorithm, "aes-128-cbc");
        assert_eq!(d.aes[0].cluster, "cpu0-3 (Cortex-A55)");
        assert_eq!(d.aes[0].sizes[0], (16, 906_000.0));
        assert!(!d.sevenzip.is_empty());
        assert!(d.monitor.is_some());
        let worst = d.findings.first().map(|f| f.severity);
        assert_eq!(worst, d.findings.iter().map(|f| f.severity).max());
        assert!(d.findings.iter().all(|f| !f.explanation.is_empty()));
    }

    #[test]
    fn redaction_reaches_every_text_and_keeps_the_hardware() {
        let mut r = fixture_rock5b();
        r.system_before.hostname = Some("bench-host-7".into());
        r.system_before.soc.detail = Some("35 88 12 fe 21 41  32 38 4b 44".into());
        let d = ReportData::from_run(&r).redacted(&known_of_run(&r));
        let all = serde_json::to_string(&d).unwrap_or_default();
        assert!(!all.contains("bench-host-7"), "{all}");
        assert!(!all.contains("12 fe 21 41"), "{all}");
        assert!(all.contains("35 88 …"), "{all}");
        assert!(all.contains("Radxa ROCK 5B"));
    }

    #[test]
    fn an_unfinished_run_is_incomplete() {
        let mut r = fixture_rock5b();
        r.status = RunStatus::Interrupted;
        assert_eq!(ReportData::from_run(&r).verdict, Verdict::Incomplete);
    }

    /// Issue 28: a two-CPU x86 VM's page said `Latency, cpu0-1 (EPYC)` and `cpu0-1` for
    /// the single-threaded 7-Zip run, both measured on cpu0 alone: a single-CPU run is
    /// named by its CPU, as sbc-bench's log names it.
    #[test]
    fn single_cpu_runs_are_labelled_by_their_cpu_not_the_cluster() {
        let d = ReportData::from_run(&fixture_rock5b());
        let names: Vec<&str> = d.latency.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cpu0 (Cortex-A55)",
                "cpu4 (Cortex-A76)",
                "cpu6 (Cortex-A76)"
            ]
        );
        assert!(
            d.sevenzip.iter().all(|z| z.label == "all cores"
                || !z.label.contains("-3 (") && z.label.starts_with("cpu")),
            "{:?}",
            d.sevenzip
        );
        assert_eq!(d.sevenzip[1].label, "cpu4 (Cortex-A76)");
        assert_eq!(
            d.topology[0].name, "cpu0-3 (Cortex-A55)",
            "clusters keep their range"
        );
    }

    /// Issue 28: the page read `results.aes.openssl` as an array of rows, but it is an
    /// object holding `rows`, so a run that used OpenSSL had "no AES results".
    #[test]
    fn openssl_aes_rows_reach_the_page() {
        let d = ReportData::from_run(&with_openssl(false));
        assert_eq!(d.aes.len(), 9);
        assert!(d.aes.iter().all(|a| a.algorithm.ends_with(" (OpenSSL)")));
        assert_eq!(d.aes[0].cluster, "cpu0-3 (Cortex-A55)");
        let both = ReportData::from_run(&with_openssl(true));
        assert_eq!(both.aes.len(), 18);
        assert_eq!(both.aes[0].algorithm, "aes-128-cbc");
        assert_eq!(both.aes[9].algorithm, "aes-128-cbc (OpenSSL)");
    }

    /// Issue 28: `native_multi` is one run, not an array, so the all-cores native LZMA
    /// rating never reached the page.
    #[test]
    fn the_native_multi_threaded_lzma_rating_reaches_the_page() {
        let mut r = fixture_rock5b();
        let lzma = crate::bench::lzma::LzmaRun {
            cpus: (0..8).collect(),
            dicts: Vec::new(),
            compress_rating_mips: 14_000.0,
            decompress_rating_mips: 20_000.0,
            total_rating_mips: 17_000.0,
            elapsed_s: 1.0,
        };
        r.results.sevenzip.as_mut().expect("7-Zip ran").native_multi = Some(lzma);
        let d = ReportData::from_run(&r);
        let row = d.sevenzip.iter().find(|z| z.tool == "native LZMA");
        assert_eq!(
            row.map(|z| (z.label.as_str(), z.total_mips)),
            Some(("all cores", 17_000.0))
        );
    }
}
