//! The efficiency graph as data (`sbc-bench graph`, sbc-bench's `-g`): what was asked for,
//! and per group of CPUs tested, 7-Zip MIPS, SoC temperature and (with a power meter) mW at
//! every cpufreq OPP, with the clock measured there. Filled in by `run::graph`, rendered by
//! `report::page::graph` (sbc-bench's table, SVG charts, the HTML page).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One step of the efficiency graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum GraphStep {
    /// Idle consumption before the graph (with a power meter).
    #[serde(rename = "graph_idle")]
    Idle,
    /// One group of CPUs walked through its OPPs.
    #[serde(rename = "graph")]
    Walk,
}

impl GraphStep {
    /// Progress line: `Walking through cpufreq OPPs`.
    pub fn progress(self) -> &'static str {
        match self {
            Self::Idle => "Trying to determine idle consumption",
            Self::Walk => "Walking through cpufreq OPPs",
        }
    }

    /// Monitor phase label (`System health while running <label>:`).
    pub fn phase(self) -> &'static str {
        match self {
            Self::Idle => "idle consumption",
            Self::Walk => "efficiency graph",
        }
    }
}

/// sbc-bench's default `MinKHz` for the graph: OPPs below 600 MHz are not measured.
pub const DEFAULT_MIN_KHZ: u64 = 600_000;
/// sbc-bench repeats every measurement at least this many times.
pub const MIN_REPETITIONS: u32 = 3;
/// Seconds of idle before the graph when a power meter is used (sbc-bench: 4 minutes).
pub const DEFAULT_IDLE_S: u64 = 240;

/// Which CPUs are tested, as sbc-bench's `-g [cores|clusters|coreclusters|all|CPULIST]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "variant", content = "cpus")]
pub enum GraphVariant {
    /// `-g` alone: every CPU at once.
    #[default]
    AllCores,
    /// The first core of every cluster alone.
    Cores,
    /// Every cluster alone.
    Clusters,
    /// Every group of cores of one type (RK3588: 0-3 and 4-7 although 4-5 and 6-7 are
    /// two clusters).
    CoreClusters,
    /// Cores, then clusters, then core-type groups where they differ, then all cores.
    All,
    /// The CPUs listed (`-g 4-7`).
    CpuList(Vec<u32>),
}

/// Settings of the efficiency graph.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphConfig {
    /// Which CPUs are tested.
    pub variant: GraphVariant,
    /// Measurements per OPP (at least [`MIN_REPETITIONS`]).
    pub repetitions: u32,
    /// The HTML page with the charts and the table.
    pub html: Option<PathBuf>,
    /// The power meter asked for (`--power SPEC`), if any.
    pub power: Option<String>,
    /// Idle seconds before the graph when a meter is used ([`DEFAULT_IDLE_S`]).
    pub idle_s: u64,
}

/// How the OPPs were held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoldMethod {
    /// The `userspace` governor and `scaling_setspeed` (as sbc-bench).
    Userspace,
    /// `scaling_min_freq` = `scaling_max_freq` = the OPP (no `userspace` governor).
    MinMax,
}

/// Which benchmark gave the MIPS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MipsTool {
    /// `7z b`'s total rating (as sbc-bench).
    SevenZip,
    /// Our native LZMA benchmark's total rating (7-Zip is not installed).
    NativeLzma,
}

/// What the board drew and how warm it was while idle, before the graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleBaseline {
    /// Seconds idled.
    pub seconds: f64,
    /// SoC temperature at the end, °C.
    pub temp_c: Option<f64>,
    /// Mean of the meter's readings while idle, mW.
    pub mw: Option<f64>,
    /// Readings taken.
    pub readings: usize,
}

/// One OPP measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphPoint {
    /// The OPP set through sysfs, kHz.
    pub sysfs_khz: u64,
    /// The clock measured there, MHz.
    pub measured_mhz: Option<f64>,
    /// MIPS of each repetition.
    #[serde(default)]
    pub mips: Vec<f64>,
    /// SoC temperature after each repetition, °C.
    #[serde(default)]
    pub temps_c: Vec<f64>,
    /// Mean power while each repetition ran, mW (with a meter).
    #[serde(default)]
    pub mw: Vec<f64>,
    /// Why the OPP could not be set or measured.
    pub error: Option<String>,
}

impl GraphPoint {
    fn mean(v: &[f64]) -> Option<f64> {
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    /// Mean MIPS over the repetitions.
    pub fn mean_mips(&self) -> Option<f64> {
        Self::mean(&self.mips)
    }

    /// Mean temperature over the repetitions, °C.
    pub fn mean_temp_c(&self) -> Option<f64> {
        Self::mean(&self.temps_c)
    }

    /// Mean power over the repetitions, mW.
    pub fn mean_mw(&self) -> Option<f64> {
        Self::mean(&self.mw)
    }

    /// MIPS per watt, where both are known.
    pub fn mips_per_watt(&self) -> Option<f64> {
        let w = self.mean_mw()? / 1000.0;
        (w > 0.0).then(|| self.mean_mips().unwrap_or(0.0) / w)
    }
}

/// One group of CPUs walked through its OPPs (one `CheckPerformance` of sbc-bench).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphRun {
    /// sbc-bench's focus: `all CPU cores`, `CPU 4`, `CPU 4-5`, `CPU core(s) 0,4`.
    pub label: String,
    /// The CPUs the benchmark ran on.
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// Their core type, when they share one.
    pub core_type: Option<String>,
    /// Policies held at each OPP.
    #[serde(default)]
    pub policies: Vec<u32>,
    /// The policy whose OPPs were walked (sbc-bench: the highest-numbered).
    pub walked_policy: u32,
    /// The CPU the clock was measured on.
    pub measure_cpu: u32,
    /// MIPS from 7-Zip or the native benchmark.
    pub tool: MipsTool,
    /// One entry per OPP, lowest first.
    #[serde(default)]
    pub points: Vec<GraphPoint>,
    /// Limits that could not be put back after this run.
    #[serde(default)]
    pub restore_errors: Vec<String>,
    /// Stopped by a signal before every OPP was measured.
    pub cancelled: bool,
}

/// Everything the efficiency graph measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GraphResults {
    /// How OPPs were held.
    pub method: HoldMethod,
    /// Measurements per OPP.
    pub repetitions: u32,
    /// Lowest OPP measured, kHz (`MinKHz`).
    pub min_khz: u64,
    /// The meter, as it describes itself.
    pub meter: Option<String>,
    /// Idle figures (with a meter).
    pub idle: Option<IdleBaseline>,
    /// Groups of CPUs tested, in order.
    #[serde(default)]
    pub runs: Vec<GraphRun>,
}
