//! What `sbc-bench report` shows of one run, read from the run JSON (`run --json`, the
//! document the results database keeps) into plain data that the HTML and Markdown
//! renderers (`report::html`, `report::page_md`) draw. A run of ours gives every section; a
//! document that lacks one (an imported sbc-bench log) leaves it empty and says why in
//! [`ReportData::missing`], so each chart can say so instead of vanishing. Pure.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::record::finding::{FindingCode, Severity};
use crate::record::results_row::ResultsRow;
use crate::record::run::RunReport;
use crate::report::redact::{self, Known};

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
pub struct LatencyRow {
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
    pub rows: Vec<LatencyRow>,
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

fn s(v: &Value) -> Option<String> {
    v.as_str().map(str::to_string)
}

fn cpu_list(v: &Value) -> Vec<u32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|c| c.as_u64().and_then(|c| u32::try_from(c).ok()))
                .collect()
        })
        .unwrap_or_default()
}

fn cpu_range(cpus: &[u32]) -> String {
    crate::sys::cpu::list::format_list(cpus)
}

/// `cpu0-3 (Cortex-A55)` of a benchmark's `target` (its cluster looked up in the
/// topology), else `cpu4`.
fn target_name(target: &Value, clusters: &[ClusterView], by_id: &[(u64, usize)]) -> String {
    if let Some(c) = target["cluster"].as_u64() {
        if let Some((_, i)) = by_id.iter().find(|(id, _)| *id == c) {
            return clusters[*i].name.clone();
        }
    }
    let cpu = target["cpu"].as_u64().unwrap_or_default();
    match target["core_type"].as_str() {
        Some(t) => format!("cpu{cpu} ({t})"),
        None => format!("cpu{cpu}"),
    }
}

impl ReportData {
    /// The report of a live run.
    pub fn from_run(r: &RunReport) -> Self {
        // Serialising plain data cannot fail; an empty report would still be noticed.
        let v = serde_json::to_value(r).unwrap_or(Value::Null);
        Self::from_run_json(&v)
    }

    /// The report of a run JSON (`run --json`).
    pub fn from_run_json(v: &Value) -> Self {
        let info = &v["system_before"];
        let (topology, by_id) = topology(info);
        let results = &v["results"];
        let mut d = ReportData {
            title: s(&info["device"]["name"])
                .or_else(|| s(&v["results_row"]["device"]))
                .unwrap_or_else(|| "n/a".into()),
            source: format!(
                "sbc-bench-run JSON, sbc-bench {} (Rust)",
                v["sbc_bench_version"].as_str().unwrap_or("n/a")
            ),
            summary: summary(v),
            verdict: verdict(v),
            results_row: serde_json::from_value(v["results_row"].clone()).ok(),
            findings: findings(&v["findings"]),
            clocks: clocks(results, &topology, &by_id),
            latency: latency(results, &topology, &by_id),
            bandwidth: bandwidth(results, &topology, &by_id),
            aes: aes(results, &topology),
            sevenzip: sevenzip(results, &topology, &by_id),
            monitor: monitor(&v["monitor"], &topology),
            topology,
            comparison: None,
            missing: String::new(),
        };
        if v["config"]["fake_benchmarks"].as_bool() == Some(true) {
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

fn redact_strings(v: &mut Value, known: &Known) {
    match v {
        Value::String(t) => *t = redact::redact(t, known),
        Value::Array(a) => a.iter_mut().for_each(|x| redact_strings(x, known)),
        Value::Object(o) => o.values_mut().for_each(|x| redact_strings(x, known)),
        _ => {}
    }
}

/// What a run JSON knows it contains, for redaction: its hostname and the hardware's names.
pub fn known_of_run_json(v: &Value) -> Known {
    let i = &v["system_before"];
    let mut hardware: Vec<String> = i["dt_compatible"]
        .as_array()
        .map(|a| a.iter().filter_map(s).collect())
        .unwrap_or_default();
    hardware.extend(s(&i["device"]["name"]));
    hardware.extend(s(&v["results_row"]["device"]));
    Known {
        hostname: s(&i["hostname"]),
        hardware,
    }
}

fn summary(v: &Value) -> Vec<(String, String)> {
    let i = &v["system_before"];
    let mut out = Vec::new();
    let mut push = |k: &str, val: Option<String>| {
        if let Some(val) = val.filter(|x| !x.is_empty()) {
            out.push((k.to_string(), val));
        }
    };
    push("Device", s(&i["device"]["name"]));
    push("Hostname", s(&i["hostname"]));
    let soc = match (s(&i["soc"]["guess"]), s(&i["soc"]["detail"])) {
        (Some(g), Some(d)) => Some(format!("{g} / {}", d.trim())),
        (g, _) => g,
    };
    push("SoC", soc);
    push("Kernel", s(&i["kernel"]["release"]));
    push(
        "Kernel cmdline",
        s(&i["kernel"]["cmdline"]).map(|c| c.trim().to_string()),
    );
    let distro = s(&i["distro"]["pretty_name"]).map(|d| match i["userland"]["arch"].as_str() {
        Some(a) => format!("{d} {a}"),
        None => d,
    });
    push("Distro", distro);
    push(
        "Memory",
        i["memory"]["meminfo"]["mem_total_kib"]
            .as_u64()
            .map(|k| format!("{} MiB", k / 1024)),
    );
    push("Started", s(&v["started"]));
    push("Finished", s(&v["finished"]));
    push("Status", s(&v["status"]));
    let mut mode = Vec::new();
    if v["config"]["quick"].as_bool() == Some(true) {
        mode.push("--quick: not comparable with full runs");
    }
    if v["config"]["extensive"].as_bool() == Some(true) {
        mode.push("extensive");
    }
    push("Mode", (!mode.is_empty()).then(|| mode.join(", ")));
    out
}

fn severity_of(f: &Value) -> Option<Severity> {
    serde_json::from_value(f["severity"].clone()).ok()
}

fn verdict(v: &Value) -> Verdict {
    if v["status"].as_str().is_some_and(|st| st != "complete") {
        return Verdict::Incomplete;
    }
    let worst = v["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(severity_of)
        .max();
    match worst {
        Some(Severity::Invalid) => Verdict::Invalid,
        Some(Severity::Warning) => Verdict::Warnings,
        _ => Verdict::Valid,
    }
}

fn findings(v: &Value) -> Vec<FindingView> {
    let mut out: Vec<FindingView> = v
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| {
            let code = s(&f["code"])?;
            let explanation = serde_json::from_value::<FindingCode>(f["code"].clone())
                .map(|c| c.meaning().to_string())
                .unwrap_or_default();
            Some(FindingView {
                severity: severity_of(f)?,
                code,
                message: s(&f["message"]).unwrap_or_default(),
                explanation,
            })
        })
        .collect();
    // Worst first; the order of the run within one severity.
    out.sort_by_key(|f| std::cmp::Reverse(f.severity));
    out
}

/// The clusters, and (cluster id, index) to look benchmark targets up.
fn topology(info: &Value) -> (Vec<ClusterView>, Vec<(u64, usize)>) {
    let policies = info["cpufreq"].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    let mut ids = Vec::new();
    for c in info["clusters"].as_array().into_iter().flatten() {
        let cpus = cpu_list(&c["cpus"]);
        let core_type = s(&c["core_type"]).unwrap_or_else(|| "n/a".into());
        let policy = c["policy"].as_u64().and_then(|p| u32::try_from(p).ok());
        let opps: Vec<u32> = policies
            .iter()
            .find(|p| p["id"].as_u64() == policy.map(u64::from))
            .map(|p| {
                p["opps_khz"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|k| k.as_u64().and_then(|k| u32::try_from(k / 1000).ok()))
                    .collect()
            })
            .unwrap_or_default();
        ids.push((c["id"].as_u64().unwrap_or_default(), out.len()));
        out.push(ClusterView {
            name: format!("cpu{} ({core_type})", cpu_range(&cpus)),
            cpus: cpu_range(&cpus),
            cpu_ids: cpus.clone(),
            core_type,
            policy,
            min_mhz: opps.iter().min().copied(),
            max_mhz: opps.iter().max().copied(),
            opps: opps.len(),
        });
    }
    (out, ids)
}

fn opp_walk(check: &Value) -> Vec<(f64, Option<f64>)> {
    check["walk"]["opps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| {
            let opp = o["opp_khz"].as_f64()? / 1000.0;
            Some((opp, o["measured"]["mhz"].as_f64()))
        })
        .collect()
}

fn clocks(results: &Value, topo: &[ClusterView], ids: &[(u64, usize)]) -> Vec<ClockCurve> {
    let hot = results["clock_hot"].as_array().cloned().unwrap_or_default();
    results["clock_cold"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let name = target_name(&c["target"], topo, ids);
            let hot_walk = hot
                .iter()
                .find(|h| h["target"] == c["target"])
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
                let m = c["measured"]["mhz"].as_f64()?;
                points.push(OppPoint {
                    opp_mhz: 0.0,
                    measured_mhz: Some(m),
                    hot_mhz: None,
                });
            }
            Some(ClockCurve { name, points })
        })
        .collect()
}

fn latency(results: &Value, topo: &[ClusterView], ids: &[(u64, usize)]) -> Vec<LatencyCurve> {
    results["memlat"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let r = &m["result"]["ramlat"];
            let columns: Vec<String> = r["columns"].as_array()?.iter().filter_map(s).collect();
            let rows = r["rows"]
                .as_array()?
                .iter()
                .filter_map(|row| {
                    Some(LatencyRow {
                        size_bytes: row["size_bytes"].as_u64()?,
                        ns: row["ns"]
                            .as_array()?
                            .iter()
                            .filter_map(Value::as_f64)
                            .collect(),
                    })
                })
                .collect::<Vec<_>>();
            (!rows.is_empty()).then(|| LatencyCurve {
                name: target_name(&m["target"], topo, ids),
                columns,
                rows,
            })
        })
        .collect()
}

fn bandwidth(results: &Value, topo: &[ClusterView], ids: &[(u64, usize)]) -> Vec<Bandwidth> {
    let mut out = Vec::new();
    for m in results["membw"].as_array().into_iter().flatten() {
        let cluster = target_name(&m["target"], topo, ids);
        for row in m["result"]["rows"].as_array().into_iter().flatten() {
            if let (Some(test), Some(mb_s)) = (s(&row["name"]), row["mb_per_s"].as_f64()) {
                out.push(Bandwidth {
                    cluster: cluster.clone(),
                    test,
                    mb_s,
                });
            }
        }
    }
    out
}

fn aes(results: &Value, topo: &[ClusterView]) -> Vec<AesRow> {
    let cluster_of = |cpu: Option<u64>, tag: Option<String>| {
        cpu.and_then(|c| {
            topo.iter()
                .find(|t| t.cpu_ids.iter().any(|&i| u64::from(i) == c))
        })
        .map(|t| t.name.clone())
        .or(tag)
        .unwrap_or_else(|| "n/a".into())
    };
    let mut out = Vec::new();
    let a = &results["aes"];
    for key in ["native", "openssl"] {
        for r in a[key].as_array().into_iter().flatten() {
            let Some(algorithm) = s(&r["algorithm"]) else {
                continue;
            };
            let sizes = r["sizes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|z| {
                    Some((
                        z["buffer_bytes"].as_u64()?,
                        z["bytes_per_s"].as_f64()? / 1000.0,
                    ))
                })
                .collect();
            let tool = if key == "openssl" { " (OpenSSL)" } else { "" };
            out.push(AesRow {
                algorithm: format!("{algorithm}{tool}"),
                cluster: cluster_of(r["cpu"].as_u64(), s(&r["tag"])),
                sizes,
            });
        }
    }
    out
}

fn zip_row(label: String, tool: &str, r: &Value) -> Option<ZipRow> {
    // 7-Zip's table nests the ratings; the native LZMA has them at the top.
    let t = if r["table"].is_object() {
        &r["table"]
    } else {
        r
    };
    Some(ZipRow {
        label,
        tool: tool.to_string(),
        compress_mips: t["compress_rating_mips"].as_f64(),
        decompress_mips: t["decompress_rating_mips"].as_f64(),
        total_mips: t["total_rating_mips"].as_f64()?,
    })
}

fn sevenzip(results: &Value, topo: &[ClusterView], ids: &[(u64, usize)]) -> Vec<ZipRow> {
    let mut out = Vec::new();
    for key in ["sevenzip", "lzma"] {
        let c = &results[key];
        let z = &c["sevenzip"];
        if z.is_object() {
            let tool = format!("7-Zip {}", z["version"]["engine"].as_str().unwrap_or("n/a"));
            for r in z["single"].as_array().into_iter().flatten() {
                out.extend(zip_row(
                    target_name(&r["target"], topo, ids),
                    &tool,
                    &r["result"],
                ));
            }
            for r in z["multi"].as_array().into_iter().flatten() {
                out.extend(zip_row("all cores".into(), &tool, r));
            }
        }
        for r in c["native_single"].as_array().into_iter().flatten() {
            out.extend(zip_row(
                target_name(&r["target"], topo, ids),
                "native LZMA",
                &r["result"],
            ));
        }
        for r in c["native_multi"].as_array().into_iter().flatten() {
            let r = if r["result"].is_object() {
                &r["result"]
            } else {
                r
            };
            out.extend(zip_row("all cores".into(), "native LZMA", r));
        }
    }
    out.dedup();
    out
}

fn monitor(v: &Value, topo: &[ClusterView]) -> Option<MonitorView> {
    let rec: crate::monitor::recording::Recording = serde_json::from_value(v.clone()).ok()?;
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

    fn run_json() -> Value {
        serde_json::json!({
            "schema": "sbc-bench-run", "sbc_bench_version": "0.1.0", "status": "complete",
            "started": "2026-01-01T10:00:00+00:00",
            "config": {"quick": false, "fake_benchmarks": false},
            "system_before": {
                "device": {"name": "Radxa ROCK 5B"}, "hostname": "bench-host-7",
                "dt_compatible": ["radxa,rock-5b"],
                "soc": {"guess": "Rockchip RK3588", "detail": "35 88 12 fe 21 41  32 38 4b 44"},
                "kernel": {"release": "6.1.0"},
                "clusters": [
                    {"id": 0, "cpus": [0,1,2,3], "core_type": "Cortex-A55", "policy": 0},
                    {"id": 1, "cpus": [4,5], "core_type": "Cortex-A76", "policy": 4}],
                "cpufreq": [{"id": 0, "opps_khz": [408000, 1800000]},
                            {"id": 4, "opps_khz": [408000, 2400000]}]
            },
            "results": {
                "clock_cold": [{"target": {"cpu": 4, "core_type": "Cortex-A76", "cluster": 1},
                    "walk": {"opps": [{"opp_khz": 2400000, "measured": {"mhz": 2304.0}},
                                      {"opp_khz": 408000, "measured": {"mhz": 407.0}}]}}],
                "clock_hot": [{"target": {"cpu": 4, "core_type": "Cortex-A76", "cluster": 1},
                    "walk": {"opps": [{"opp_khz": 2400000, "measured": {"mhz": 2200.0}}]}}],
                "memlat": [{"target": {"cpu": 0, "cluster": 0},
                    "result": {"ramlat": {"columns": ["1x32", "2x32"],
                        "rows": [{"size_bytes": 4096, "ns": [1.7, 1.8]}]}}}],
                "membw": [{"target": {"cpu": 0, "cluster": 0},
                    "result": {"rows": [{"name": "libc memcpy copy", "mb_per_s": 10743.6}]}}],
                "aes": {"native": [{"algorithm": "aes-256-cbc", "cpu": 5, "tag": "Cortex-A76",
                    "sizes": [{"buffer_bytes": 16384, "bytes_per_s": 1325370000.0}]}]}
            },
            "findings": [
                {"code": "no-throttling", "severity": "ok", "message": "No throttling"},
                {"code": "clock-below-advertised", "severity": "warning", "message": "-4%"}],
        })
    }

    #[test]
    fn a_run_json_gives_every_section() {
        let d = ReportData::from_run_json(&run_json());
        assert_eq!(d.title, "Radxa ROCK 5B");
        assert_eq!(d.verdict, Verdict::Warnings);
        assert_eq!(d.findings[0].code, "clock-below-advertised", "worst first");
        assert!(!d.findings[0].explanation.is_empty());
        assert_eq!(d.topology[1].name, "cpu4-5 (Cortex-A76)");
        assert_eq!(d.topology[1].max_mhz, Some(2400));
        let c = &d.clocks[0];
        assert_eq!(c.name, "cpu4-5 (Cortex-A76)");
        assert_eq!(c.points[0].measured_mhz, Some(2304.0));
        assert_eq!(c.points[0].hot_mhz, Some(2200.0));
        assert_eq!(c.points[1].hot_mhz, None);
        assert_eq!(d.latency[0].name, "cpu0-3 (Cortex-A55)");
        assert_eq!(d.bandwidth[0].mb_s, 10743.6);
        assert_eq!(d.aes[0].cluster, "cpu4-5 (Cortex-A76)");
        assert_eq!(d.aes[0].sizes, vec![(16384, 1325370.0)]);
        assert!(d.monitor.is_none(), "no recording in the document");
    }

    #[test]
    fn redaction_reaches_every_text_and_keeps_the_hardware() {
        let v = run_json();
        let d = ReportData::from_run_json(&v).redacted(&known_of_run_json(&v));
        let all = serde_json::to_string(&d).unwrap_or_default();
        assert!(!all.contains("bench-host-7"), "{all}");
        assert!(!all.contains("12 fe 21 41"), "{all}");
        assert!(all.contains("Rockchip RK3588 / 35 88 …"), "{all}");
        assert!(all.contains("Radxa ROCK 5B"));
    }

    #[test]
    fn an_unfinished_run_is_incomplete_and_garbage_gives_an_empty_report() {
        let mut v = run_json();
        v["status"] = "interrupted".into();
        assert_eq!(ReportData::from_run_json(&v).verdict, Verdict::Incomplete);
        let d = ReportData::from_run_json(&Value::String("nonsense".into()));
        assert_eq!(d.title, "n/a");
        assert!(d.clocks.is_empty() && d.topology.is_empty());
    }
}
