//! Everything a standard run produced, as one versioned serde document: the JSON report
//! (`--json FILE`, rewritten after every step) and the input of every text renderer.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::bench::aes::suite::AesResults;
use crate::bench::clock::ClockCheck;
use crate::bench::lzma::suite::CompressResults;
use crate::bench::membw::MembwRun;
use crate::bench::memlat::MemlatRun;
use crate::bench::pin::Skipped;
use crate::bench::scrypt::ScryptRun;
use crate::monitor::Recording;
use crate::record::config::RunConfig;
use crate::record::finding::Finding;
use crate::record::graph::GraphResults;
use crate::record::plan::{Plan, StandardStep, StepKind};
use crate::record::power::PowerRecord;
use crate::record::results_row::ResultsRow;
use crate::record::review::ReviewRecord;
use crate::record::thermal::ThermalResults;
use crate::record::throttle::OppResidency;
use crate::record::tuning::{Governor, Tuned};
use crate::record::wrap::WrapResults;
use crate::sys::discover::SystemInfo;
use crate::sys::kmsg::KmsgRecord;

/// Name of the JSON document.
pub const SCHEMA: &str = crate::output::schema::RUN.name;
/// Version of its layout; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = crate::output::schema::RUN.version;

/// Where the run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Still going (the document is a snapshot).
    Running,
    /// Every step ran.
    Complete,
    /// Stopped by Ctrl-C/SIGTERM; what is here was measured before.
    Interrupted,
}

/// How a step ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status", content = "detail")]
pub enum StepStatus {
    /// Ran and produced results.
    Ok,
    /// Ran into an error; the run went on.
    Failed(String),
    /// Stopped by a signal.
    Cancelled,
}

/// One executed step with its wall-clock times (users line them up with power meters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Which step.
    pub kind: StepKind,
    /// Local start time, RFC 3339.
    pub started: String,
    /// Local end time, RFC 3339.
    pub ended: String,
    /// Duration in seconds (monotonic clock).
    pub duration_s: f64,
    /// Outcome.
    pub status: StepStatus,
}

/// Row interval of a "System health while running …" table: about ten rows per phase,
/// never denser than the sampling (sbc-bench scales its interval with the phase length).
/// The log's tables and the validation that reads their rows share this rule.
pub fn table_every_s(phase_s: f64, sample_s: f64) -> f64 {
    (phase_s / 10.0).clamp(sample_s, 60.0)
}

/// What preflight found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Preflight {
    /// Effective uid 0.
    pub root: bool,
    /// The kernel log still holds the boot messages (`None`: log not readable).
    pub early_boot_in_dmesg: Option<bool>,
    /// Seconds spent waiting for the machine to become idle.
    pub idle_wait_s: f64,
    /// `uptime`-like line when benchmarks began.
    pub uptime: Option<String>,
}

/// Benchmark results, per step. Empty vectors / `None` for steps that did not run. In the
/// run JSON as `results`, with the thermal test's and the efficiency graph's own results
/// beside them (see [`ModeResults`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    /// Clock at every OPP, idle and cold, per cluster.
    pub clock_cold: Vec<ClockCheck>,
    /// Memory bandwidth per cluster.
    pub membw: Vec<MembwRun>,
    /// Memory latency per cluster.
    pub memlat: Vec<MemlatRun>,
    /// AES per cluster (native and `openssl speed`).
    pub aes: Option<AesResults>,
    /// 7-Zip's benchmark: single-threaded per cluster, three runs on all cores.
    pub sevenzip: Option<CompressResults>,
    /// Extensive mode: 7-Zip and native LZMA multi-threaded on each group of cores of one
    /// type alone (sbc-bench's "7-zip cluster benchmarks").
    pub compress_per_cluster: Vec<ClusterCompress>,
    /// Native LZMA: single-threaded per cluster, multi-threaded on all cores.
    pub lzma: Option<CompressResults>,
    /// scrypt stress (`-c`).
    pub scrypt: Option<ScryptRun>,
    /// Clock at the highest OPP at the end, per cluster (every CPU in extensive mode).
    pub clock_hot: Vec<ClockCheck>,
    /// CPUs that could not be used.
    pub skipped_cpus: Vec<Skipped>,
}

/// One multi-threaded compression run confined to a group of cores of one type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterCompress {
    /// 7-Zip's benchmark (`seven_zip`) or the native one (`native`).
    pub tool: StandardStep,
    /// The CPUs it ran on (`0-3`).
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// Their core type (`Cortex-A55`).
    pub core_type: Option<String>,
    /// What it measured.
    pub result: CompressResults,
}

/// What a run's mode recorded of its own, beside the benchmarks' [`Results`]: one value,
/// so no report holds two modes' results. In the run JSON's layout (docs/RUN-JSON.md) the
/// thermal test's and the graph's are `results.thermal` and `results.graph`, review mode's
/// and wrap's the top-level `review` and `wrap`; the report's wire form writes them there
/// and refuses a document that names two.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "one per run report; boxing the review record buys nothing"
)]
pub enum ModeResults {
    /// Nothing of a mode's own: a standard run's, or a mode's that has recorded nothing
    /// yet (a thermal test stopped during its clock walk, a review stopped during its
    /// benchmarks). Which mode ran is the config's
    /// [`RunKind`](crate::record::config::RunKind).
    #[default]
    Standard,
    /// The thermal test's wait, load and second AES run (`sbc-bench thermal`).
    Thermal(ThermalResults),
    /// The efficiency graph (`sbc-bench graph`).
    Graph(GraphResults),
    /// Review mode's inventory, Markdown review and waiting phase (`sbc-bench review`).
    Review(ReviewRecord),
    /// `sbc-bench wrap`: the command's runs.
    Wrap(WrapResults),
}

impl ModeResults {
    /// The thermal test's results, when the run recorded them.
    pub fn thermal(&self) -> Option<&ThermalResults> {
        match self {
            Self::Thermal(t) => Some(t),
            _ => None,
        }
    }

    /// The thermal test's results to add to, opened at its first step of its own.
    pub fn thermal_or_open(&mut self) -> &mut ThermalResults {
        if !matches!(self, Self::Thermal(_)) {
            *self = Self::Thermal(ThermalResults::default());
        }
        match self {
            Self::Thermal(t) => t,
            _ => unreachable!("the thermal results were opened above"),
        }
    }

    /// The efficiency graph's results, when the run drew one.
    pub fn graph(&self) -> Option<&GraphResults> {
        match self {
            Self::Graph(g) => Some(g),
            _ => None,
        }
    }

    /// The efficiency graph's results to add to, when the run draws one.
    pub fn graph_mut(&mut self) -> Option<&mut GraphResults> {
        match self {
            Self::Graph(g) => Some(g),
            _ => None,
        }
    }

    /// Review mode's record, when the run wrote one.
    pub fn review(&self) -> Option<&ReviewRecord> {
        match self {
            Self::Review(r) => Some(r),
            _ => None,
        }
    }

    /// Review mode's record to add to (its waiting phase).
    pub fn review_mut(&mut self) -> Option<&mut ReviewRecord> {
        match self {
            Self::Review(r) => Some(r),
            _ => None,
        }
    }

    /// The wrapped command's runs, when the run wraps one.
    pub fn wrap(&self) -> Option<&WrapResults> {
        match self {
            Self::Wrap(w) => Some(w),
            _ => None,
        }
    }

    /// The wrapped command's runs to add to.
    pub fn wrap_mut(&mut self) -> Option<&mut WrapResults> {
        match self {
            Self::Wrap(w) => Some(w),
            _ => None,
        }
    }

    /// The names of the run JSON's keys of these results (`thermal`), for messages.
    fn key(&self) -> Option<&'static str> {
        match self {
            Self::Standard => None,
            Self::Thermal(_) => Some("thermal"),
            Self::Graph(_) => Some("graph"),
            Self::Review(_) => Some("review"),
            Self::Wrap(_) => Some("wrap"),
        }
    }
}

/// Everything about one run. Written and read in the run JSON's layout through its wire
/// form ([`ModeResults`] as the optional keys of the modes).
#[derive(Debug, Clone)]
pub struct RunReport {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// This program's version.
    pub sbc_bench_version: String,
    /// Where the run stands.
    pub status: RunStatus,
    /// Local start time, RFC 3339.
    pub started: String,
    /// Local end time, RFC 3339.
    pub finished: Option<String>,
    /// What was asked for.
    pub config: RunConfig,
    /// What was planned.
    pub plan: Plan,
    /// The machine before the run.
    pub system_before: SystemInfo,
    /// The machine after the run (clocks, swap, temperatures changed).
    pub system_after: Option<SystemInfo>,
    /// Root, kernel log, idle wait.
    pub preflight: Preflight,
    /// Governors as found.
    pub governors_before: Vec<Governor>,
    /// What tuning changed.
    pub tuning: Vec<Tuned>,
    /// Steps as executed.
    pub steps: Vec<StepRecord>,
    /// Benchmark results.
    pub results: Results,
    /// Monitor recording (phases = steps).
    pub monitor: Option<Recording>,
    /// Time spent on each OPP during the run, per policy.
    pub throttling: Vec<OppResidency>,
    /// Raspberry Pi firmware throttling bits before the run (`vcgencmd get_throttled`).
    pub pi_throttled_before: Option<String>,
    /// The same after the run.
    pub pi_throttled_after: Option<String>,
    /// Kernel messages logged during the run.
    pub kernel_log: Vec<KmsgRecord>,
    /// Validation and diagnoses.
    pub findings: Vec<Finding>,
    /// Values of the Results.md row.
    pub results_row: Option<ResultsRow>,
    /// Power drawn, with a `--power` meter (absent without one).
    pub power: Option<PowerRecord>,
    /// What the mode recorded of its own (the thermal test's, the graph's, the review,
    /// the wrapped command's runs).
    pub mode: ModeResults,
}

impl Serialize for RunReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RunReportWire::from(self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for RunReport {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RunReport::try_from(RunReportWire::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// A run JSON that holds two modes' results (`results.thermal` and `wrap`…): not a run
/// of ours.
#[derive(Debug, thiserror::Error)]
#[error("the run holds the results of more than one mode ({0})")]
pub struct TwoModeResults(String);

/// [`RunReport`] in the run JSON's layout: every field as the document has it, the
/// [`ModeResults`] as `results.thermal`, `results.graph`, `review` and `wrap`. Written
/// borrowed from a report (no copy of it per write), read owned (`Cow::Owned`);
/// `#[serde(default)]` on what earlier documents of schema version 1 lack.
#[derive(Serialize, Deserialize)]
struct RunReportWire<'a> {
    schema: Cow<'a, str>,
    schema_version: u32,
    sbc_bench_version: Cow<'a, str>,
    status: RunStatus,
    started: Cow<'a, str>,
    finished: Option<Cow<'a, str>>,
    config: Cow<'a, RunConfig>,
    plan: Cow<'a, Plan>,
    system_before: Cow<'a, SystemInfo>,
    system_after: Option<Cow<'a, SystemInfo>>,
    preflight: Cow<'a, Preflight>,
    #[serde(default)]
    governors_before: Cow<'a, [Governor]>,
    #[serde(default)]
    tuning: Cow<'a, [Tuned]>,
    #[serde(default)]
    steps: Cow<'a, [StepRecord]>,
    results: ResultsWire<'a>,
    monitor: Option<Cow<'a, Recording>>,
    #[serde(default)]
    throttling: Cow<'a, [OppResidency]>,
    pi_throttled_before: Option<Cow<'a, str>>,
    pi_throttled_after: Option<Cow<'a, str>>,
    #[serde(default)]
    kernel_log: Cow<'a, [KmsgRecord]>,
    #[serde(default)]
    findings: Cow<'a, [Finding]>,
    results_row: Option<Cow<'a, ResultsRow>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    power: Option<Cow<'a, PowerRecord>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    review: Option<Cow<'a, ReviewRecord>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wrap: Option<Cow<'a, WrapResults>>,
}

/// [`Results`] as the run JSON's `results`, with the thermal test's and the graph's.
#[derive(Serialize, Deserialize)]
struct ResultsWire<'a> {
    #[serde(default)]
    clock_cold: Cow<'a, [ClockCheck]>,
    #[serde(default)]
    membw: Cow<'a, [MembwRun]>,
    #[serde(default)]
    memlat: Cow<'a, [MemlatRun]>,
    aes: Option<Cow<'a, AesResults>>,
    sevenzip: Option<Cow<'a, CompressResults>>,
    #[serde(default)]
    compress_per_cluster: Cow<'a, [ClusterCompress]>,
    lzma: Option<Cow<'a, CompressResults>>,
    scrypt: Option<Cow<'a, ScryptRun>>,
    #[serde(default)]
    clock_hot: Cow<'a, [ClockCheck]>,
    #[serde(default)]
    skipped_cpus: Cow<'a, [Skipped]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thermal: Option<Cow<'a, ThermalResults>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    graph: Option<Cow<'a, GraphResults>>,
}

impl<'a> From<&'a RunReport> for RunReportWire<'a> {
    fn from(r: &'a RunReport) -> Self {
        let m = &r.mode;
        Self {
            schema: Cow::Borrowed(&r.schema),
            schema_version: r.schema_version,
            sbc_bench_version: Cow::Borrowed(&r.sbc_bench_version),
            status: r.status,
            started: Cow::Borrowed(&r.started),
            finished: r.finished.as_deref().map(Cow::Borrowed),
            config: Cow::Borrowed(&r.config),
            plan: Cow::Borrowed(&r.plan),
            system_before: Cow::Borrowed(&r.system_before),
            system_after: r.system_after.as_ref().map(Cow::Borrowed),
            preflight: Cow::Borrowed(&r.preflight),
            governors_before: Cow::Borrowed(&r.governors_before),
            tuning: Cow::Borrowed(&r.tuning),
            steps: Cow::Borrowed(&r.steps),
            results: ResultsWire::new(&r.results, m),
            monitor: r.monitor.as_ref().map(Cow::Borrowed),
            throttling: Cow::Borrowed(&r.throttling),
            pi_throttled_before: r.pi_throttled_before.as_deref().map(Cow::Borrowed),
            pi_throttled_after: r.pi_throttled_after.as_deref().map(Cow::Borrowed),
            kernel_log: Cow::Borrowed(&r.kernel_log),
            findings: Cow::Borrowed(&r.findings),
            results_row: r.results_row.as_ref().map(Cow::Borrowed),
            power: r.power.as_ref().map(Cow::Borrowed),
            review: m.review().map(Cow::Borrowed),
            wrap: m.wrap().map(Cow::Borrowed),
        }
    }
}

impl<'a> ResultsWire<'a> {
    fn new(r: &'a Results, m: &'a ModeResults) -> Self {
        Self {
            clock_cold: Cow::Borrowed(&r.clock_cold),
            membw: Cow::Borrowed(&r.membw),
            memlat: Cow::Borrowed(&r.memlat),
            aes: r.aes.as_ref().map(Cow::Borrowed),
            sevenzip: r.sevenzip.as_ref().map(Cow::Borrowed),
            compress_per_cluster: Cow::Borrowed(&r.compress_per_cluster),
            lzma: r.lzma.as_ref().map(Cow::Borrowed),
            scrypt: r.scrypt.as_ref().map(Cow::Borrowed),
            clock_hot: Cow::Borrowed(&r.clock_hot),
            skipped_cpus: Cow::Borrowed(&r.skipped_cpus),
            thermal: m.thermal().map(Cow::Borrowed),
            graph: m.graph().map(Cow::Borrowed),
        }
    }

    /// The benchmarks' results, and the mode's results this part of the document holds.
    fn split(self) -> (Results, [ModeResults; 2]) {
        let results = Results {
            clock_cold: self.clock_cold.into_owned(),
            membw: self.membw.into_owned(),
            memlat: self.memlat.into_owned(),
            aes: self.aes.map(Cow::into_owned),
            sevenzip: self.sevenzip.map(Cow::into_owned),
            compress_per_cluster: self.compress_per_cluster.into_owned(),
            lzma: self.lzma.map(Cow::into_owned),
            scrypt: self.scrypt.map(Cow::into_owned),
            clock_hot: self.clock_hot.into_owned(),
            skipped_cpus: self.skipped_cpus.into_owned(),
        };
        let thermal = self.thermal.map_or(ModeResults::Standard, |t| {
            ModeResults::Thermal(t.into_owned())
        });
        let graph = self.graph.map_or(ModeResults::Standard, |g| {
            ModeResults::Graph(g.into_owned())
        });
        (results, [thermal, graph])
    }
}

/// The one of `named` that is not [`ModeResults::Standard`]; two or more are refused.
fn one_mode(named: impl IntoIterator<Item = ModeResults>) -> Result<ModeResults, TwoModeResults> {
    let named: Vec<ModeResults> = named
        .into_iter()
        .filter(|m| *m != ModeResults::Standard)
        .collect();
    if named.len() > 1 {
        let keys: Vec<&str> = named.iter().filter_map(ModeResults::key).collect();
        return Err(TwoModeResults(keys.join(", ")));
    }
    Ok(named.into_iter().next().unwrap_or_default())
}

impl TryFrom<RunReportWire<'_>> for RunReport {
    type Error = TwoModeResults;

    fn try_from(w: RunReportWire<'_>) -> Result<Self, TwoModeResults> {
        let (results, [thermal, graph]) = w.results.split();
        let review = w.review.map_or(ModeResults::Standard, |r| {
            ModeResults::Review(r.into_owned())
        });
        let wrap = w
            .wrap
            .map_or(ModeResults::Standard, |r| ModeResults::Wrap(r.into_owned()));
        Ok(Self {
            mode: one_mode([thermal, graph, review, wrap])?,
            schema: w.schema.into_owned(),
            schema_version: w.schema_version,
            sbc_bench_version: w.sbc_bench_version.into_owned(),
            status: w.status,
            started: w.started.into_owned(),
            finished: w.finished.map(Cow::into_owned),
            config: w.config.into_owned(),
            plan: w.plan.into_owned(),
            system_before: w.system_before.into_owned(),
            system_after: w.system_after.map(Cow::into_owned),
            preflight: w.preflight.into_owned(),
            governors_before: w.governors_before.into_owned(),
            tuning: w.tuning.into_owned(),
            steps: w.steps.into_owned(),
            results,
            monitor: w.monitor.map(Cow::into_owned),
            throttling: w.throttling.into_owned(),
            pi_throttled_before: w.pi_throttled_before.map(Cow::into_owned),
            pi_throttled_after: w.pi_throttled_after.map(Cow::into_owned),
            kernel_log: w.kernel_log.into_owned(),
            findings: w.findings.into_owned(),
            results_row: w.results_row.map(Cow::into_owned),
            power: w.power.map(Cow::into_owned),
        })
    }
}
