//! The device states review mode compares before and after the reviewer's own tests
//! (sbc-bench's `CheckPCIe` and `CheckStorage` run twice, diffed in `FinalReporting`): the
//! link of every PCI function, the speed of every USB device and the link state of every
//! network interface. Storage comes from [`crate::sys::storage::discover`].
//!
//! Only three known directories are listed (`/sys/bus/pci/devices`, `/sys/bus/usb/devices`,
//! `/sys/class/net`), never a walk below `/sys`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::sys::pci::{self, PciDevice};
use crate::sys::root::SysRoot;
use crate::sys::usb::{self, UsbDevice};

/// The PCI functions, one symlink each.
pub const PCI_DEVICES: &str = "/sys/bus/pci/devices";
/// USB devices and interfaces, one symlink each.
pub const USB_DEVICES: &str = "/sys/bus/usb/devices";
/// Network interfaces.
pub const CLASS_NET: &str = "/sys/class/net";
/// The common clock framework's table (debugfs, root only).
pub const CLK_SUMMARY: &str = "/sys/kernel/debug/clk/clk_summary";

/// One network interface's link.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NicLink {
    /// Interface name (`eth0`, `enP4p65s0`).
    pub name: String,
    /// `operstate`: `up`, `down`, `dormant`, `unknown`.
    pub operstate: Option<String>,
    /// Negotiated speed in Mbit/s (`speed`; `-1` or unreadable while down is `None`).
    pub speed_mbps: Option<u32>,
    /// `duplex`: `full`, `half`.
    pub duplex: Option<String>,
}

/// What review mode compares.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceStates {
    /// Every PCI function with a link (bridges and endpoints).
    #[serde(default)]
    pub pcie: Vec<PciDevice>,
    /// Every USB device that is not a root hub.
    #[serde(default)]
    pub usb: Vec<UsbDevice>,
    /// Every network interface but loopback.
    #[serde(default)]
    pub nics: Vec<NicLink>,
}

/// Read the PCIe, USB and NIC states.
pub fn read(root: &SysRoot) -> DeviceStates {
    let pcie = root
        .list(PCI_DEVICES)
        .into_iter()
        .filter(|n| pci::is_pci_address(n))
        .map(|n| pci::read_device(root, &Path::new(PCI_DEVICES).join(n)))
        .filter(|d| d.link.is_some())
        .collect();
    let usb = root
        .list(USB_DEVICES)
        .into_iter()
        .filter(|n| usb::is_device_name(n))
        .map(|n| usb::read_device(root, &Path::new(USB_DEVICES).join(n)))
        .filter(|d| !d.is_root_hub())
        .collect();
    let nics = root
        .list(CLASS_NET)
        .into_iter()
        .filter(|n| crate::sys::net::valid_name(n) && n != "lo")
        .map(|name| read_nic(root, name))
        .collect();
    DeviceStates { pcie, usb, nics }
}

fn read_nic(root: &SysRoot, name: String) -> NicLink {
    let a = |f: &str| format!("{CLASS_NET}/{name}/{f}");
    NicLink {
        operstate: root.value(a("operstate")),
        // A link that is down answers EINVAL or -1.
        speed_mbps: root
            .value(a("speed"))
            .and_then(|s| s.parse::<i64>().ok())
            .and_then(|s| u32::try_from(s).ok())
            .filter(|&s| s > 0),
        duplex: root.value(a("duplex")),
        name,
    }
}

/// The CPU vulnerability files (one per issue, `Mitigation; …`, `Not affected`).
pub const VULNERABILITIES: &str = "/sys/devices/system/cpu/vulnerabilities";

/// Every vulnerability file as lscpu names it (`spectre_v1` → `Spectre v1`) with its
/// text, in lscpu's (alphabetical) order.
pub fn vulnerabilities(root: &SysRoot) -> Vec<(String, String)> {
    let mut names = root.list(VULNERABILITIES);
    names.sort();
    names
        .into_iter()
        .filter_map(|n| {
            let v = root.value(format!("{VULNERABILITIES}/{n}"))?;
            let mut words = n.replace('_', " ");
            if let Some(first) = words.get(..1) {
                words = first.to_ascii_uppercase() + &words[1..];
            }
            Some((words, v))
        })
        .collect()
}

/// A mounted filesystem that is slow or fragile on Linux: NTFS (kernel `ntfs`/`ntfs3`,
/// or ntfs-3g through FUSE as `fuseblk`) and exFAT.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengingMount {
    /// The partition (`sda1`).
    pub partition: String,
    /// Where it is mounted.
    pub mount_point: String,
    /// The type as mounted.
    pub fstype: String,
}

/// The NTFS and exFAT mounts of `/proc/self/mountinfo`.
pub fn challenging_mounts(root: &SysRoot) -> Vec<ChallengingMount> {
    let Some(text) = root.read_opt("/proc/self/mountinfo") else {
        return Vec::new();
    };
    crate::sys::storage::parse_mountinfo(&text)
        .into_iter()
        .filter(|m| {
            matches!(m.fstype.as_str(), "ntfs" | "ntfs3" | "fuseblk" | "exfat")
                || m.fstype == "fuse.exfat"
        })
        .map(|m| ChallengingMount {
            partition: m.source.rsplit('/').next().unwrap_or(&m.source).to_string(),
            mount_point: m.mount_point,
            fstype: m.fstype,
        })
        .collect()
}

/// `/sys/kernel/debug/clk/clk_summary` when readable (root, debugfs mounted).
pub fn clk_summary(root: &SysRoot) -> Option<String> {
    root.read_opt(CLK_SUMMARY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn reads_links_of_known_directories_only() {
        let d = tempfile::tempdir().unwrap();
        let pci = d.path().join("sys/bus/pci/devices/0000:01:00.0");
        fs::create_dir_all(&pci).unwrap();
        for (f, v) in [
            ("current_link_speed", "5.0 GT/s PCIe"),
            ("max_link_speed", "5.0 GT/s PCIe"),
            ("current_link_width", "1"),
            ("max_link_width", "1"),
            ("vendor", "0x10ec"),
            ("device", "0x8125"),
            ("class", "0x020000"),
        ] {
            fs::write(pci.join(f), format!("{v}\n")).unwrap();
        }
        // A host bridge without a link is left out.
        fs::create_dir_all(d.path().join("sys/bus/pci/devices/0000:00:00.0")).unwrap();
        let net = d.path().join("sys/class/net/eth0");
        fs::create_dir_all(&net).unwrap();
        fs::write(net.join("operstate"), "up\n").unwrap();
        fs::write(net.join("speed"), "2500\n").unwrap();
        fs::write(net.join("duplex"), "full\n").unwrap();
        let lo = d.path().join("sys/class/net/lo");
        fs::create_dir_all(&lo).unwrap();
        let wl = d.path().join("sys/class/net/wlan0");
        fs::create_dir_all(&wl).unwrap();
        fs::write(wl.join("operstate"), "down\n").unwrap();
        fs::write(wl.join("speed"), "-1\n").unwrap();
        let s = read(&SysRoot::new(d.path()));
        assert_eq!(s.pcie.len(), 1);
        assert_eq!(s.pcie[0].vendor_id.as_deref(), Some("10ec"));
        assert_eq!(s.pcie[0].link.as_ref().and_then(|l| l.width), Some(1));
        assert_eq!(s.nics.len(), 2);
        assert_eq!(s.nics[0].speed_mbps, Some(2500));
        assert_eq!(s.nics[1].operstate.as_deref(), Some("down"));
        assert_eq!(s.nics[1].speed_mbps, None);
        assert!(s.usb.is_empty());
    }
}
