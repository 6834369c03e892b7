//! What a run will do, as data: the kinds of step (each mode's own: the standard run's
//! here in sbc-bench's order, the thermal test's, the graph's and wrap's beside their
//! results), the planned steps with their time estimates, and the wording of those
//! estimates (`21-32 minutes`). The standard run's planning is `run::plan::plan`.

use serde::{Deserialize, Serialize};

pub use crate::record::mode::StepKind;
pub use crate::record::mode::standard::StandardStep;

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
    pub fn has(&self, k: impl Into<StepKind>) -> bool {
        let k = k.into();
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
        (
            "lzma",
            "Executing native LZMA benchmark",
            "native LZMA benchmark",
        ),
        (
            "scrypt",
            "Executing scrypt stress test",
            "scrypt stress test",
        ),
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

    /// Every kind of every mode, in the order of [`STEPS`].
    fn every_kind() -> Vec<StepKind> {
        use crate::record::mode::graph::GraphStep as G;
        use crate::record::mode::thermal::ThermalStep as T;
        use crate::record::mode::wrap::WrapStep as W;
        use StandardStep as S;
        let standard = [
            S::ClockCold,
            S::MemBandwidth,
            S::MemLatency,
            S::Aes,
            S::SevenZip,
            S::Lzma,
            S::Scrypt,
            S::ClockHot,
        ];
        let thermal = [
            T::CoolDown,
            T::HeatUp,
            T::ThermalLoad,
            T::Aes256Before,
            T::Aes256After,
        ];
        let mut all: Vec<StepKind> = standard.into_iter().map(StepKind::from).collect();
        all.extend(thermal.map(StepKind::from));
        all.extend([StepKind::from(G::Idle), G::Walk.into(), W::Run.into()]);
        all
    }

    /// Each kind is written as its name and that name reads back as that kind: no two
    /// modes' enums share a name (the untagged read would take the first).
    #[test]
    fn every_kind_of_every_mode_reads_back_as_itself() {
        let all = every_kind();
        assert_eq!(all.len(), STEPS.len());
        for (kind, (name, _, _)) in all.into_iter().zip(STEPS) {
            assert_eq!(serde_json::to_value(kind).unwrap(), name);
            let back: StepKind = serde_json::from_value(serde_json::json!(name)).unwrap();
            assert_eq!(back, kind, "{name}");
        }
    }

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
            kind: StandardStep::Aes.into(),
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
