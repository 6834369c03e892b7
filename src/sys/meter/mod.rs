//! Power meters: one interface for every source of watts — Netio network sockets, hwmon
//! power/current sensors on the board (INA219/INA226/INA3221…), RAPL on x86, the Raspberry
//! Pi 5 PMIC, USB power testers over hidraw (FNIRSI FNB48/C1/FNB58).
//!
//! A meter is sampled on its own schedule (a Netio answers over HTTP in tens of
//! milliseconds, a USB tester streams reports), never inside the monitor's tight loop.
//! Modes that report power (the monitor's `mW` column, idle and loaded mW per phase, the
//! efficiency graph's mW per OPP) take a `Box<dyn PowerMeter>` opened from the user's
//! `--power SPEC` by [`open`].

use crate::sys::root::SysRoot;

/// One reading of a meter.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PowerReading {
    /// Power drawn, milliwatts.
    pub mw: f64,
    /// Energy counted by the meter since it started counting, milliwatt-hours, where the
    /// meter keeps one (Netio `<Energy>`, RAPL `energy_uj`).
    pub energy_mwh: Option<f64>,
    /// Supply voltage, volts, where the meter measures it.
    pub volts: Option<f64>,
    /// Current, amperes, where the meter measures it.
    pub amps: Option<f64>,
}

/// Why a meter gave no reading.
#[derive(Debug, thiserror::Error)]
pub enum MeterError {
    /// The meter is not there or does not answer (a clear sentence for the user).
    #[error("{0}")]
    Unavailable(String),
    /// It answered with something we cannot read.
    #[error("unreadable answer from the power meter: {0}")]
    Garbage(String),
}

/// A source of power readings.
pub trait PowerMeter: Send {
    /// What it is, as the log names it: `Netio PowerCable 101x, socket 1`, `INA226
    /// (hwmon2)`, `RAPL package-0`, `FNIRSI FNB58`.
    fn describe(&self) -> String;
    /// One reading now. Must return within a second or two (bounded I/O).
    fn read(&mut self) -> Result<PowerReading, MeterError>;
}

/// Open the meter that `spec` names (the `--power SPEC` syntax is documented with the
/// implementations; sbc-bench's `Netio=host/socket` maps onto it).
pub fn open(spec: &str, root: &SysRoot) -> Result<Box<dyn PowerMeter>, MeterError> {
    let _ = root;
    Err(MeterError::Unavailable(format!(
        "power meter '{spec}': no meter of this kind is supported yet"
    )))
}
