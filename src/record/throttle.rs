//! Throttling as measured: time spent on each cpufreq OPP during the run.

use serde::{Deserialize, Serialize};

/// Time spent at each OPP of one policy during the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OppResidency {
    /// Policy number.
    pub policy: u32,
    /// CPUs of the policy.
    pub cpus: Vec<u32>,
    /// Core type, for the heading.
    pub core_type: Option<String>,
    /// (kHz, seconds) from the highest OPP down.
    pub seconds_at_khz: Vec<(u64, f64)>,
}

impl OppResidency {
    /// Seconds spent below the highest OPP that was used at all; a policy that ran only at
    /// its maximum (the point of the `performance` governor) has 0.
    pub fn seconds_below_max(&self, max_khz: u64) -> f64 {
        self.seconds_at_khz
            .iter()
            .filter(|(f, _)| *f < max_khz)
            .map(|(_, s)| s)
            .sum()
    }
}
