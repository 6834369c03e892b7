//! `sbc-bench wrap`'s settings and runs, as data: what to run and how (per cluster or core
//! type, repeated, other CPUs offline), and per run the exact command, its exit, times,
//! output tails, clocks before and after, and the score its tool's extractor found.

use serde::{Deserialize, Serialize};

use crate::bench::external::extract::{Score, Tool};

/// The one step of `sbc-bench wrap`: a run of the wrapped command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WrapStep {
    /// One run (on a cluster, a core type, all cores).
    #[serde(rename = "wrap")]
    Run,
}

impl WrapStep {
    /// Progress line (wrap's console says `Executing <run's label>` itself).
    pub fn progress(self) -> &'static str {
        match self {
            Self::Run => "Executing command",
        }
    }

    /// Monitor phase label (the monitor's phase of each run is named after the run).
    pub fn phase(self) -> &'static str {
        match self {
            Self::Run => "command",
        }
    }
}

/// How the runs are split over the CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Once on all cores.
    #[default]
    AllCores,
    /// Once per cluster (cpufreq/topology cluster), then on all cores.
    PerCluster,
    /// Once per group of cores of one type (sbc-bench's `ClusterConfigByCoreType`), then
    /// on all cores.
    PerCoreType,
}

/// What `wrap` runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct WrapSpec {
    /// The command and its arguments, `{cpus}` and `{cluster}` not yet replaced.
    #[serde(default)]
    pub command: Vec<String>,
    /// Extra environment (`PTS_SILENT_MODE=1`).
    #[serde(default)]
    pub env: Vec<(String, String)>,
    /// Fed to the command's stdin (Stockfish's `bench` line), else stdin is empty.
    pub stdin: Option<String>,
    /// Per cluster, per core type, or all cores only.
    pub split: Split,
    /// Runs of each kind (`--repeat`).
    pub repeat: u32,
    /// Runs on all cores (Geekbench: two, as sbc-bench).
    pub all_core_runs: u32,
    /// Take the other CPUs offline for a pinned run (`--offline-others`, sbc-bench's way).
    pub offline_others: bool,
    /// Which parser reads the output.
    pub tool: Tool,
    /// Name used in labels (`geekbench6`, `stress-ng`).
    pub name: String,
}

/// How a run was confined to its CPUs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Confinement {
    /// CPUs the child's affinity was set to (empty: not set).
    #[serde(default)]
    pub affinity: Vec<u32>,
    /// CPUs taken offline for the run (and brought back after it).
    #[serde(default)]
    pub offlined: Vec<u32>,
    /// What could not be done, in words.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// How the command ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum Exit {
    /// Exited with this status.
    Code(i32),
    /// Killed by this signal.
    Signal(i32),
    /// Could not be started (not found, not executable).
    NotStarted(String),
    /// Not run: its CPUs are not available here, or the run was stopped before.
    Skipped(String),
}

impl Exit {
    /// Exit status 0.
    pub fn success(&self) -> bool {
        *self == Exit::Code(0)
    }

    /// `exit 0`, `killed by signal 9`, …
    pub fn describe(&self) -> String {
        match self {
            Exit::Code(c) => format!("exit {c}"),
            Exit::Signal(s) => format!("killed by signal {s}"),
            Exit::NotStarted(e) => format!("not started: {e}"),
            Exit::Skipped(e) => format!("skipped: {e}"),
        }
    }
}

/// One run of the command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrapRun {
    /// `stress-ng on cores 4-5 (Cortex-A76)`: the monitor phase and table heading.
    pub label: String,
    /// The cluster's name as `{cluster}` (`cluster1`, `Cortex-A76`, `all`).
    pub cluster: String,
    /// Its CPUs (every online CPU for an all-core run).
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// The exact command run, placeholders replaced.
    #[serde(default)]
    pub command: Vec<String>,
    /// Affinity, offlined CPUs, notes.
    pub confinement: Confinement,
    /// Local start time, RFC 3339 (empty when skipped).
    pub started: String,
    /// Local end time, RFC 3339.
    pub ended: String,
    /// Seconds (monotonic clock).
    pub duration_s: f64,
    /// How it ended.
    pub exit: Exit,
    /// Stopped by Ctrl-C/SIGTERM (SIGTERM to its process group, SIGKILL after a grace).
    pub interrupted: bool,
    /// The last bytes of its stdout.
    pub stdout_tail: String,
    /// The last bytes of its stderr.
    pub stderr_tail: String,
    /// Current clock of each cpufreq policy before the run, MHz (`(policy, MHz)`).
    #[serde(default)]
    pub clocks_before_mhz: Vec<(u32, u64)>,
    /// The same after it.
    #[serde(default)]
    pub clocks_after_mhz: Vec<(u32, u64)>,
    /// What the tool's extractor found.
    pub score: Option<Score>,
}

/// Everything `wrap` adds to the run report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct WrapResults {
    /// What was asked for.
    pub spec: WrapSpec,
    /// The runs, in order.
    #[serde(default)]
    pub runs: Vec<WrapRun>,
    /// Geekbench: the compare URL between the two all-core runs.
    pub compare_url: Option<String>,
}
