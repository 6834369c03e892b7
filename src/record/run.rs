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
pub use crate::record::mode::{ModeResults, TwoModeResults};
use crate::record::mode::{ResultsModeWire, TopModeWire, one_mode};
use crate::record::plan::{Plan, StandardStep, StepKind};
use crate::record::power::PowerRecord;
use crate::record::results_row::ResultsRow;
use crate::record::throttle::OppResidency;
use crate::record::tuning::{Governor, Tuned};
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
    /// The results of the modes that keep them at the top (`review`, `wrap`).
    #[serde(flatten)]
    mode: TopModeWire<'a>,
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
    /// The results of the modes that keep them in `results` (`thermal`, `graph`).
    #[serde(flatten)]
    mode: ResultsModeWire<'a>,
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
            mode: TopModeWire::new(m),
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
            mode: ResultsModeWire::new(m),
        }
    }

    /// The benchmarks' results, and the mode's results this part of the document holds.
    fn split(self) -> (Results, ResultsModeWire<'a>) {
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
        (results, self.mode)
    }
}

impl TryFrom<RunReportWire<'_>> for RunReport {
    type Error = TwoModeResults;

    fn try_from(w: RunReportWire<'_>) -> Result<Self, TwoModeResults> {
        let (results, in_results) = w.results.split();
        Ok(Self {
            mode: one_mode(in_results, w.mode)?,
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
