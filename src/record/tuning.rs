//! Governors as found and what tuning did to them, as data (the switching itself is
//! `run::tuning`, through the restoring guard of `tune/`).

use serde::{Deserialize, Serialize};

/// A governor we may switch, and its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Governor {
    /// `cpufreq-policy0`, or the devfreq device name (`dmc`, `fb000000.gpu`).
    pub name: String,
    /// File holding the governor.
    pub path: String,
    /// Governor now.
    pub governor: Option<String>,
    /// Governors offered.
    pub available: Vec<String>,
    /// Current clock in MHz.
    pub cur_mhz: Option<u64>,
    /// Frequencies offered, MHz.
    pub frequencies_mhz: Vec<u64>,
    /// For `ondemand`: does it count I/O wait as busy? (sbc-bench's NAS advice).
    pub io_is_busy: Option<bool>,
}

impl Governor {
    /// Is this one we tune (cpufreq, or a dmc/gpu/npu devfreq device)?
    pub fn is_tuned_kind(&self) -> bool {
        if self.name.starts_with("cpufreq-") {
            return true;
        }
        let n = self.name.to_ascii_lowercase();
        n.contains("dmc") || n.contains("gpu") || n.contains("npu") || n.contains("dram")
    }
}

/// Result of tuning one governor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tuned {
    /// Which governor.
    pub name: String,
    /// Governor before.
    pub from: Option<String>,
    /// Governor set, or why not.
    pub outcome: Result<String, String>,
}
