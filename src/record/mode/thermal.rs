//! The thermal test's settings and what it measured, as data (`sbc-bench thermal`, sbc-bench's
//! `-t`/`-T`; `-M`, the memory-controller throttling test). Planned by `run::thermal`, judged
//! by `diagnose::thermal`, rendered by `report::log::thermal`.

use serde::{Deserialize, Serialize};

/// One step of the thermal test's own (its clock checks are the standard run's
/// [`StandardStep`](crate::record::plan::StandardStep)s).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThermalStep {
    /// `-t`: wait for the SoC to cool down to the target.
    CoolDown,
    /// `-T`: heat the SoC to the target with scrypt.
    HeatUp,
    /// Minutes of scrypt on all cores (sbc-bench's cpuminer).
    ThermalLoad,
    /// `-M`: AES-256 per cluster before the load.
    Aes256Before,
    /// `-M`: AES-256 per cluster again, after the load.
    Aes256After,
}

impl ThermalStep {
    /// Progress line: `Waiting for the SoC to cool down`.
    pub fn progress(self) -> &'static str {
        match self {
            Self::CoolDown => "Waiting for the SoC to cool down",
            Self::HeatUp => "Heating up the SoC",
            Self::ThermalLoad => "Executing scrypt (cpuminer's algorithm) on all cores",
            Self::Aes256Before => "Executing AES-256 benchmark",
            Self::Aes256After => "Executing AES-256 benchmark again",
        }
    }

    /// Monitor phase label (`System health while running <label>:`).
    pub fn phase(self) -> &'static str {
        match self {
            Self::CoolDown => "SoC cool-down wait",
            Self::HeatUp => "SoC heat-up",
            Self::ThermalLoad => "thermal load",
            Self::Aes256Before => "AES-256 benchmark before the load",
            Self::Aes256After => "AES-256 benchmark after the load",
        }
    }
}

use crate::bench::aes::suite::AesResults;

/// sbc-bench's default target temperature of `-t`/`-T`.
pub const DEFAULT_TARGET_C: f64 = 50.0;
/// sbc-bench polls the temperature every two seconds while it waits.
pub const DEFAULT_POLL_S: f64 = 2.0;
/// sbc-bench runs cpuminer for five minutes.
pub const DEFAULT_DURATION_S: f64 = 300.0;

/// Which thermal test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThermalMode {
    /// `-t`: wait for the SoC to cool down to the target, then load it.
    CoolTo,
    /// `-T`: heat the SoC to the target with scrypt, then load it.
    HeatTo,
    /// `-M`: AES-256 per cluster, minutes of scrypt, AES-256 again (sbc-bench v0.9.72).
    MemoryController,
}

/// What the user asked of the thermal test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThermalConfig {
    /// Which test.
    pub mode: ThermalMode,
    /// Temperature to cool down or heat up to, °C (unused by `-M`).
    pub target_c: f64,
    /// Length of the scrypt load, seconds.
    pub duration_s: f64,
    /// Interval between temperature readings while waiting, seconds (2 s as sbc-bench;
    /// tests make it milliseconds).
    pub poll_s: f64,
}

impl Default for ThermalConfig {
    fn default() -> Self {
        Self {
            mode: ThermalMode::CoolTo,
            target_c: DEFAULT_TARGET_C,
            duration_s: DEFAULT_DURATION_S,
            poll_s: DEFAULT_POLL_S,
        }
    }
}

/// How the wait for the target temperature went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThermalWait {
    /// Cooling down or heating up.
    pub mode: ThermalMode,
    /// The target, °C.
    pub target_c: f64,
    /// Temperature when the wait began, °C.
    pub start_c: Option<f64>,
    /// Temperature when it ended, °C.
    pub end_c: Option<f64>,
    /// Nothing to wait for: the SoC was already there.
    pub already_there: bool,
    /// Seconds waited.
    pub waited_s: f64,
    /// Every reading: seconds since the wait began, °C.
    #[serde(default)]
    pub readings: Vec<(f64, f64)>,
}

/// Everything the thermal test adds to a run's results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThermalResults {
    /// The temperature source (`/sys/devices/virtual/thermal/thermal_zone0/ (soc-thermal)`).
    pub source: Option<String>,
    /// The cool-down or heat-up wait (`-t`/`-T`).
    pub wait: Option<ThermalWait>,
    /// The scrypt load (kH/s per interval).
    pub load: Option<crate::bench::scrypt::ScryptRun>,
    /// `-M`: AES-256 again after the load (the first run is the run's `results.aes`).
    pub aes_after: Option<AesResults>,
}
