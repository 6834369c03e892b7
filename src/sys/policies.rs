//! Performance related policies below `/sys` that are not governors, as sbc-bench reports
//! them ("Status of performance related policies found below /sys"): PCIe ASPM, which can
//! halve NVMe or NIC throughput on a board, and the Mali GPU power policy.
//!
//! Only known files are read: sbc-bench finds them with `find /sys -name "*policy"`, which
//! is exactly the blind walk we avoid.

use serde::{Deserialize, Serialize};

use crate::sys::devfreq::DEVFREQ_DIR;
use crate::sys::root::SysRoot;

/// The PCIe ASPM policy module parameter.
pub const PCIE_ASPM_POLICY: &str = "/sys/module/pcie_aspm/parameters/policy";
/// Present where the machine has PCI Express (ASPM is tuned only then).
pub const PCI_EXPRESS_BUS: &str = "/sys/bus/pci_express";

/// One policy file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyFile {
    /// System path as sbc-bench prints it.
    pub path: String,
    /// Content, e.g. `default [performance] powersave powersupersave`.
    pub value: String,
    /// The selected entry (the bracketed one), if the file uses that notation.
    pub selected: Option<String>,
}

/// The bracketed entry of a sysfs choice list (`default [performance] powersave`).
pub fn selected(value: &str) -> Option<String> {
    value
        .split_whitespace()
        .find_map(|t| t.strip_prefix('[').and_then(|t| t.strip_suffix(']')))
        .map(str::to_string)
}

fn file(root: &SysRoot, path: String) -> Option<PolicyFile> {
    let value = root.value(&path)?;
    Some(PolicyFile {
        selected: selected(&value),
        path,
        value,
    })
}

/// Read the policies: the Mali `power_policy` of GPU devfreq devices (only when it offers
/// a choice, as sbc-bench) and PCIe ASPM (only on machines with PCIe, as sbc-bench).
pub fn read(root: &SysRoot, devfreq_names: &[String]) -> Vec<PolicyFile> {
    let mut out = Vec::new();
    for name in devfreq_names.iter().filter(|n| n.ends_with(".gpu")) {
        let Some(dev) = root.resolve(format!("{DEVFREQ_DIR}/{name}/device")) else {
            continue;
        };
        if let Some(p) = file(root, format!("{}/power_policy", dev.display())) {
            if p.value.contains(' ') {
                out.push(p);
            }
        }
    }
    if root.exists("/sys/bus/pci_express") {
        if let Some(p) = file(root, PCIE_ASPM_POLICY.to_string()) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracketed() {
        assert_eq!(
            selected("default [performance] powersave powersupersave").as_deref(),
            Some("performance")
        );
        assert_eq!(
            selected("[coarse_demand] always_on").as_deref(),
            Some("coarse_demand")
        );
        assert_eq!(selected("garbage"), None);
        assert_eq!(selected(""), None);
    }
}
