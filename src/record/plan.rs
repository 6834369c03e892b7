//! What a standard run will do, as data: the kinds of step in sbc-bench's order, the
//! planned steps with their time estimates, and the wording of those estimates
//! (`21-32 minutes`). The planning itself is `run::plan::plan`.

use serde::{Deserialize, Serialize};

/// One kind of step, in sbc-bench's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// Clock measured at every OPP while idle and cold.
    ClockCold,
    /// Memory bandwidth per cluster.
    MemBandwidth,
    /// Memory latency per cluster.
    MemLatency,
    /// AES per cluster (native, and `openssl speed` when installed).
    Aes,
    /// 7-Zip's own benchmark (when installed).
    SevenZip,
    /// Native LZMA benchmark.
    Lzma,
    /// scrypt on all cores for minutes (`-c`).
    Scrypt,
    /// Clock measured again at the highest OPP while still hot.
    ClockHot,
    /// Thermal test `-t`: wait for the SoC to cool down to the target.
    CoolDown,
    /// Thermal test `-T`: heat the SoC to the target with scrypt.
    HeatUp,
    /// Thermal test: minutes of scrypt on all cores (sbc-bench's cpuminer).
    ThermalLoad,
    /// `-M`: AES-256 per cluster before the load.
    Aes256Before,
    /// `-M`: AES-256 per cluster again, after the load.
    Aes256After,
    /// Efficiency graph: idle consumption before the graph (with a power meter).
    GraphIdle,
    /// Efficiency graph: one group of CPUs walked through its OPPs.
    Graph,
    /// `sbc-bench wrap`: one run of the wrapped command.
    Wrap,
}

impl StepKind {
    /// Progress line: `Executing memory bandwidth benchmark`.
    pub fn progress(self) -> &'static str {
        match self {
            StepKind::ClockCold => "Checking cpufreq OPP",
            StepKind::MemBandwidth => "Executing memory bandwidth benchmark",
            StepKind::MemLatency => "Executing memory latency benchmark",
            StepKind::Aes => "Executing AES benchmark",
            StepKind::SevenZip => "Executing 7-zip benchmark",
            StepKind::Lzma => "Executing native LZMA benchmark",
            StepKind::Scrypt => "Executing scrypt stress test",
            StepKind::ClockHot => "Checking cpufreq OPP again",
            StepKind::CoolDown => "Waiting for the SoC to cool down",
            StepKind::HeatUp => "Heating up the SoC",
            StepKind::ThermalLoad => "Executing scrypt (cpuminer's algorithm) on all cores",
            StepKind::Aes256Before => "Executing AES-256 benchmark",
            StepKind::Aes256After => "Executing AES-256 benchmark again",
            StepKind::GraphIdle => "Trying to determine idle consumption",
            StepKind::Graph => "Walking through cpufreq OPPs",
            StepKind::Wrap => "Executing command",
        }
    }

    /// Monitor phase label (`System health while running <label>:`).
    pub fn phase(self) -> &'static str {
        match self {
            StepKind::ClockCold => "clock check",
            StepKind::MemBandwidth => "memory bandwidth benchmark",
            StepKind::MemLatency => "memory latency benchmark",
            StepKind::Aes => "AES benchmark",
            StepKind::SevenZip => "7-zip benchmark",
            StepKind::Lzma => "native LZMA benchmark",
            StepKind::Scrypt => "scrypt stress test",
            StepKind::ClockHot => "clock check under load",
            StepKind::CoolDown => "SoC cool-down wait",
            StepKind::HeatUp => "SoC heat-up",
            StepKind::ThermalLoad => "thermal load",
            StepKind::Aes256Before => "AES-256 benchmark before the load",
            StepKind::Aes256After => "AES-256 benchmark after the load",
            StepKind::GraphIdle => "idle consumption",
            StepKind::Graph => "efficiency graph",
            StepKind::Wrap => "command",
        }
    }

    /// Is this step skipped with `NotReadyYet=yes`? sbc-bench still runs tinymembench
    /// and ramlat then, and skips OpenSSL, 7-Zip and cpuminer (our native LZMA goes with
    /// 7-Zip).
    pub fn skipped_when_not_ready(self) -> bool {
        matches!(
            self,
            StepKind::Aes | StepKind::SevenZip | StepKind::Lzma | StepKind::Scrypt
        )
    }
}

/// A planned step with its time estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// What it is.
    pub kind: StepKind,
    /// Lowest expected duration, seconds.
    pub min_s: f64,
    /// Highest expected duration, seconds.
    pub max_s: f64,
}

/// The ordered steps of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Steps in execution order.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// Steps left out, and why.
    #[serde(default)]
    pub skipped: Vec<(StepKind, String)>,
}

impl Plan {
    /// Total estimate in seconds (low, high).
    pub fn estimate_s(&self) -> (f64, f64) {
        self.steps
            .iter()
            .fold((0.0, 0.0), |(a, b), s| (a + s.min_s, b + s.max_s))
    }

    /// Estimate of everything after the first step (printed once the cold clock check is
    /// done, as sbc-bench does).
    pub fn remaining_after_first_s(&self) -> (f64, f64) {
        self.steps
            .iter()
            .skip(1)
            .fold((0.0, 0.0), |(a, b), s| (a + s.min_s, b + s.max_s))
    }

    /// Estimate of step `i` and everything after it (a progress bar's time left).
    pub fn remaining_from_s(&self, i: usize) -> (f64, f64) {
        self.steps
            .iter()
            .skip(i)
            .fold((0.0, 0.0), |(a, b), s| (a + s.min_s, b + s.max_s))
    }

    /// Does the plan contain this step?
    pub fn has(&self, k: StepKind) -> bool {
        self.steps.iter().any(|s| s.kind == k)
    }
}

/// `21-32 minutes`, `40-55 seconds`.
pub fn format_estimate(lo_s: f64, hi_s: f64) -> String {
    if hi_s < 120.0 {
        format!(
            "{:.0}-{:.0} seconds",
            lo_s.floor(),
            hi_s.ceil().max(lo_s.floor() + 1.0)
        )
    } else {
        let lo = (lo_s / 60.0).floor().max(1.0);
        let hi = (hi_s / 60.0).ceil().max(lo + 1.0);
        format!("{lo:.0}-{hi:.0} minutes")
    }
}

/// `23 minutes`, `45 seconds`.
pub fn format_duration(secs: f64) -> String {
    if secs < 120.0 {
        format!("{secs:.0} seconds")
    } else {
        format!("{:.0} minutes", secs / 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step kind of every mode: its JSON name, its progress line and its phase
    /// label (the log's `System health while running …`), as users and tools read them.
    const STEPS: [(&str, &str, &str); 16] = [
        ("clock_cold", "Checking cpufreq OPP", "clock check"),
        (
            "mem_bandwidth",
            "Executing memory bandwidth benchmark",
            "memory bandwidth benchmark",
        ),
        (
            "mem_latency",
            "Executing memory latency benchmark",
            "memory latency benchmark",
        ),
        ("aes", "Executing AES benchmark", "AES benchmark"),
        ("seven_zip", "Executing 7-zip benchmark", "7-zip benchmark"),
        ("lzma", "Executing native LZMA benchmark", "native LZMA benchmark"),
        ("scrypt", "Executing scrypt stress test", "scrypt stress test"),
        (
            "clock_hot",
            "Checking cpufreq OPP again",
            "clock check under load",
        ),
        (
            "cool_down",
            "Waiting for the SoC to cool down",
            "SoC cool-down wait",
        ),
        ("heat_up", "Heating up the SoC", "SoC heat-up"),
        (
            "thermal_load",
            "Executing scrypt (cpuminer's algorithm) on all cores",
            "thermal load",
        ),
        (
            "aes256_before",
            "Executing AES-256 benchmark",
            "AES-256 benchmark before the load",
        ),
        (
            "aes256_after",
            "Executing AES-256 benchmark again",
            "AES-256 benchmark after the load",
        ),
        (
            "graph_idle",
            "Trying to determine idle consumption",
            "idle consumption",
        ),
        ("graph", "Walking through cpufreq OPPs", "efficiency graph"),
        ("wrap", "Executing command", "command"),
    ];

    #[test]
    fn every_step_keeps_its_json_name_progress_line_and_phase_label() {
        for (name, progress, phase) in STEPS {
            let kind: StepKind = serde_json::from_value(serde_json::json!(name))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(serde_json::to_value(kind).unwrap(), name);
            assert_eq!(kind.progress(), progress, "{name}");
            assert_eq!(kind.phase(), phase, "{name}");
        }
        assert!(serde_json::from_str::<StepKind>("\"warp\"").is_err());
    }

    #[test]
    fn estimates_read_like_sbc_bench() {
        assert_eq!(format_estimate(1260.0, 1900.0), "21-32 minutes");
        assert_eq!(format_estimate(40.0, 55.2), "40-56 seconds");
    }

    #[test]
    fn time_left_from_a_step() {
        let step = |min_s, max_s| Step {
            kind: StepKind::Aes,
            min_s,
            max_s,
        };
        let p = Plan {
            steps: vec![step(1.0, 2.0), step(10.0, 20.0), step(100.0, 200.0)],
            skipped: vec![],
        };
        assert_eq!(p.remaining_from_s(0), p.estimate_s());
        assert_eq!(p.remaining_from_s(1), p.remaining_after_first_s());
        assert_eq!(p.remaining_from_s(2), (100.0, 200.0));
        assert_eq!(p.remaining_from_s(3), (0.0, 0.0));
    }
}
