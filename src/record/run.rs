//! Everything a standard run produced, as one versioned serde document: the JSON report
//! (`--json FILE`, rewritten after every step) and the input of every text renderer.

use serde::{Deserialize, Serialize};

use crate::bench::clock::ClockCheck;
use crate::bench::membw::MembwRun;
use crate::bench::memlat::MemlatRun;
use crate::bench::pin::Skipped;
use crate::monitor::Recording;
use crate::record::config::RunConfig;
use crate::record::finding::Finding;
use crate::record::plan::{Plan, StepKind};
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

/// Benchmark results, per step. Empty vectors / `None` for steps that did not run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// Clock at every OPP, idle and cold, per cluster.
    #[serde(default)]
    pub clock_cold: Vec<ClockCheck>,
    /// Memory bandwidth per cluster.
    #[serde(default)]
    pub membw: Vec<MembwRun>,
    /// Memory latency per cluster.
    #[serde(default)]
    pub memlat: Vec<MemlatRun>,
    /// AES per cluster (native and `openssl speed`).
    pub aes: Option<crate::bench::aes::suite::AesResults>,
    /// 7-Zip's benchmark: single-threaded per cluster, three runs on all cores.
    pub sevenzip: Option<crate::bench::lzma::suite::CompressResults>,
    /// Extensive mode: 7-Zip and native LZMA multi-threaded on each group of cores of one
    /// type alone (sbc-bench's "7-zip cluster benchmarks").
    #[serde(default)]
    pub compress_per_cluster: Vec<ClusterCompress>,
    /// Native LZMA: single-threaded per cluster, multi-threaded on all cores.
    pub lzma: Option<crate::bench::lzma::suite::CompressResults>,
    /// scrypt stress (`-c`).
    pub scrypt: Option<crate::bench::scrypt::ScryptRun>,
    /// Clock at the highest OPP at the end, per cluster (every CPU in extensive mode).
    #[serde(default)]
    pub clock_hot: Vec<ClockCheck>,
    /// CPUs that could not be used.
    #[serde(default)]
    pub skipped_cpus: Vec<Skipped>,
    /// The thermal test's wait, load and second AES run (`sbc-bench thermal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thermal: Option<crate::record::thermal::ThermalResults>,
    /// The efficiency graph (`sbc-bench graph`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<crate::record::graph::GraphResults>,
}

/// One multi-threaded compression run confined to a group of cores of one type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClusterCompress {
    /// 7-Zip's benchmark (`seven_zip`) or the native one (`native`).
    pub tool: StepKind,
    /// The CPUs it ran on (`0-3`).
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// Their core type (`Cortex-A55`).
    pub core_type: Option<String>,
    /// What it measured.
    pub result: crate::bench::lzma::suite::CompressResults,
}

/// Everything about one run.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    #[serde(default)]
    pub governors_before: Vec<Governor>,
    /// What tuning changed.
    #[serde(default)]
    pub tuning: Vec<Tuned>,
    /// Steps as executed.
    #[serde(default)]
    pub steps: Vec<StepRecord>,
    /// Benchmark results.
    pub results: Results,
    /// Monitor recording (phases = steps).
    pub monitor: Option<Recording>,
    /// Time spent on each OPP during the run, per policy.
    #[serde(default)]
    pub throttling: Vec<OppResidency>,
    /// Raspberry Pi firmware throttling bits before the run (`vcgencmd get_throttled`).
    pub pi_throttled_before: Option<String>,
    /// The same after the run.
    pub pi_throttled_after: Option<String>,
    /// Kernel messages logged during the run.
    #[serde(default)]
    pub kernel_log: Vec<KmsgRecord>,
    /// Validation and diagnoses.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// Values of the Results.md row.
    pub results_row: Option<ResultsRow>,
    /// Power drawn, with a `--power` meter (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<crate::record::power::PowerRecord>,
    /// Review mode's inventory, Markdown review and waiting phase (`sbc-bench review`);
    /// absent from a standard run's JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<crate::record::review::ReviewRecord>,
    /// `sbc-bench wrap`: the command's runs (absent from other runs' JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrap: Option<crate::record::wrap::WrapResults>,
}
