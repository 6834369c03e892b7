//! SoC identification from device-tree `compatible`, cpuinfo `Hardware`/`model name`,
//! the composition of core types and clocks, and vendor ID registers (Rockchip/Allwinner
//! nvmem). A wrong confident guess is worse than "unknown".
//!
//! This is the interface; the guessing rules are filled in by the SoC work.

use serde::Serialize;

use crate::sys::cpu::Topology;
use crate::sys::root::SysRoot;

/// Everything the guess is made from (pure data, so fixtures test the rules).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SocInputs {
    /// Device-tree `compatible` strings, most specific first (`radxa,rock-5b`, `rockchip,rk3588`).
    pub compatible: Vec<String>,
    /// cpuinfo `Hardware` line (32-bit and vendor kernels).
    pub cpuinfo_hardware: Option<String>,
    /// cpuinfo `model name` of the first CPU (x86, RISC-V).
    pub model_name: Option<String>,
    /// Core types with their counts, in CPU order (`[("Cortex-A55", 4), ("Cortex-A76", 4)]`).
    pub core_types: Vec<(String, usize)>,
    /// Highest clock of each cluster in MHz.
    pub max_mhz: Vec<u64>,
    /// Chip ID read from a vendor nvmem/efuse (`35880000` on an RK3588).
    pub chip_id: Option<String>,
}

/// The guess, with the evidence it rests on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SocGuess {
    /// `Rockchip RK3588`, or `None` when we cannot tell.
    pub guess: Option<String>,
    /// Extra identification such as the chip ID (`35880000`).
    pub detail: Option<String>,
    /// What the guess is based on, one phrase each.
    pub basis: Vec<String>,
}

/// Collect the inputs from the system.
pub fn read_inputs(root: &SysRoot, topo: &Topology) -> SocInputs {
    let compatible = root
        .read_opt("/proc/device-tree/compatible")
        .map(|s| {
            s.split('\0')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut core_types: Vec<(String, usize)> = Vec::new();
    for c in &topo.cpus {
        let t = c.core_type.clone().unwrap_or_else(|| "unknown".into());
        match core_types.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => core_types.push((t, 1)),
        }
    }
    SocInputs {
        compatible,
        core_types,
        ..Default::default()
    }
}

/// Make the guess. Until the rules exist this says "unknown", which is honest.
pub fn guess(_inputs: &SocInputs) -> SocGuess {
    SocGuess::default()
}
