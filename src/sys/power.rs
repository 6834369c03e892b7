//! Supply voltage (DC-in) where a board exposes it: RK3588 SARADC channel, AXP PMICs,
//! the Raspberry Pi 5 PMIC.
//!
//! This is the interface the monitor uses for its `DC(V)` column; the board-specific
//! sources are filled in by discovery.

use std::path::PathBuf;

use serde::Serialize;

use crate::sys::root::SysRoot;

/// A DC-in voltage sensor.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DcIn {
    /// File with the raw reading.
    pub path: PathBuf,
    /// What it is (`rk3588 saradc ch6`, `axp20x-ac`).
    pub label: String,
    /// Volts per raw unit (the raw value times this is the supply voltage).
    pub volts_per_unit: f64,
}

/// Find the board's DC-in sensor; `None` where the board has none we know of.
pub fn find_dc_in(_root: &SysRoot) -> Option<DcIn> {
    None
}

/// Current supply voltage in volts.
pub fn read_volts(root: &SysRoot, s: &DcIn) -> Option<f64> {
    let raw: f64 = root.value(&s.path)?.parse().ok()?;
    let v = raw * s.volts_per_unit;
    (v.is_finite() && v > 0.0).then_some(v)
}
