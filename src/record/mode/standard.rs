//! The standard run's kinds of step, in sbc-bench's order (review mode runs them too, and
//! the thermal test its clock checks), with their progress lines and monitor phases.

use serde::{Deserialize, Serialize};

/// One step of the standard run (and of review mode, and the thermal test's clock
/// checks), in sbc-bench's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StandardStep {
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
}

impl StandardStep {
    /// Progress line: `Executing memory bandwidth benchmark`.
    pub fn progress(self) -> &'static str {
        match self {
            Self::ClockCold => "Checking cpufreq OPP",
            Self::MemBandwidth => "Executing memory bandwidth benchmark",
            Self::MemLatency => "Executing memory latency benchmark",
            Self::Aes => "Executing AES benchmark",
            Self::SevenZip => "Executing 7-zip benchmark",
            Self::Lzma => "Executing native LZMA benchmark",
            Self::Scrypt => "Executing scrypt stress test",
            Self::ClockHot => "Checking cpufreq OPP again",
        }
    }

    /// Monitor phase label (`System health while running <label>:`).
    pub fn phase(self) -> &'static str {
        match self {
            Self::ClockCold => "clock check",
            Self::MemBandwidth => "memory bandwidth benchmark",
            Self::MemLatency => "memory latency benchmark",
            Self::Aes => "AES benchmark",
            Self::SevenZip => "7-zip benchmark",
            Self::Lzma => "native LZMA benchmark",
            Self::Scrypt => "scrypt stress test",
            Self::ClockHot => "clock check under load",
        }
    }

    /// Is this step skipped with `NotReadyYet=yes`? sbc-bench still runs tinymembench
    /// and ramlat then, and skips OpenSSL, 7-Zip and cpuminer (our native LZMA goes with
    /// 7-Zip).
    pub fn skipped_when_not_ready(self) -> bool {
        matches!(self, Self::Aes | Self::SevenZip | Self::Lzma | Self::Scrypt)
    }
}
