//! Power drawn during a run, from a `--power` meter: idle before the benchmarks, the mean
//! per phase, the energy each benchmark took, and 7-Zip's / native LZMA's MIPS per watt.
//! Filled in by `run::power` from the meter's timestamped readings and the monitor's
//! phases; rendered by `report::log::power`.

use serde::{Deserialize, Serialize};

/// What the meter saw during one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PowerRecord {
    /// The meter, as the log names it (`Netio NETIO 4All, socket 2`).
    pub meter: String,
    /// The meter's own line (a Netio's `Power monitoring on socket 2 of …`).
    pub banner: Option<String>,
    /// Mean draw before the first benchmark (the idle wait), milliwatts.
    pub idle_mw: Option<f64>,
    /// Readings the idle figure is the mean of.
    pub idle_readings: usize,
    /// One entry per benchmark phase, in run order.
    #[serde(default)]
    pub phases: Vec<PhasePower>,
    /// Readings taken in all.
    pub readings: usize,
    /// Readings that failed (a Netio that did not answer once).
    pub failed_readings: u64,
}

/// Power during one benchmark phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhasePower {
    /// The phase, as the monitor names it (`7-zip benchmark`).
    pub phase: String,
    /// How long it ran, seconds.
    pub duration_s: f64,
    /// Mean draw, milliwatts. A phase shorter than the sampling interval takes the last
    /// reading before its end (`readings` is then 0).
    pub mean_mw: Option<f64>,
    /// Highest reading in the phase, milliwatts.
    pub peak_mw: Option<f64>,
    /// Readings inside the phase.
    pub readings: usize,
    /// Energy the phase took: mean draw × duration, milliwatt-hours.
    pub energy_mwh: Option<f64>,
    /// The multi-threaded score of the phase (7-Zip's mean `Tot:` of its runs on all
    /// cores, native LZMA's rating), MIPS.
    pub mips: Option<f64>,
    /// Mean draw during those multi-threaded runs (the end of the phase), milliwatts.
    pub loaded_mw: Option<f64>,
    /// `mips` per watt of `loaded_mw`.
    pub mips_per_watt: Option<f64>,
}
