//! PCI(e) devices as storage sees them: the NVMe SSD or the AHCI controller a disk sits
//! behind, its link speed and width as trained versus what both ends can do, and ASPM.
//!
//! Everything comes from the device's sysfs directory (`/sys/bus/pci/devices/<addr>/`):
//! `current_link_speed`, `current_link_width`, `max_link_speed`, `max_link_width`
//! (kernel ≥ 4.13), `vendor`, `device`, `class`, the `driver` link, the ASPM switches in
//! `link/` (kernel ≥ 5.5 with `CONFIG_PCIEASPM`) and, as fallback for ASPM, the PCI
//! Express capability in `config` (root only reads past the first 64 bytes).

use std::path::Path;

use serde::Serialize;

use crate::sys::root::SysRoot;

/// Link speed and width of one PCIe device, as `lspci -vv` shows in `LnkSta`/`LnkCap`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PciLink {
    /// Negotiated speed in GT/s (2.5, 5, 8, 16, 32, 64).
    pub speed_gts: Option<f64>,
    /// Negotiated number of lanes.
    pub width: Option<u32>,
    /// Highest speed this device supports, in GT/s.
    pub max_speed_gts: Option<f64>,
    /// Widest link this device supports.
    pub max_width: Option<u32>,
}

impl PciLink {
    /// Did the link train at a lower speed than the device can do?
    pub fn speed_downgraded(&self) -> Option<bool> {
        Some(self.speed_gts? + 0.01 < self.max_speed_gts?)
    }

    /// Did the link train with fewer lanes than the device has?
    pub fn width_downgraded(&self) -> Option<bool> {
        Some(self.width? < self.max_width?)
    }

    /// Usable payload bandwidth in MB/s (10^6 bytes) after line coding, before protocol
    /// overhead: 8b/10b up to 5 GT/s, 128b/130b from 8 GT/s (PCIe 3.0 base spec).
    pub fn raw_mb_per_s(&self) -> Option<f64> {
        let gts = self.speed_gts?;
        let lanes = f64::from(self.width?);
        let coding = if gts < 8.0 { 8.0 / 10.0 } else { 128.0 / 130.0 };
        Some(gts * 1000.0 / 8.0 * coding * lanes)
    }
}

/// ASPM (Active State Power Management) as configured on a link.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Aspm {
    /// L0s enabled.
    pub l0s: bool,
    /// L1 enabled.
    pub l1: bool,
    /// L1.1 substate enabled (ASPM or PCI-PM).
    pub l1_1: bool,
    /// L1.2 substate enabled (ASPM or PCI-PM).
    pub l1_2: bool,
    /// Where this came from: `"sysfs"` (the `link/` switches) or `"config"` (LnkCtl).
    pub source: String,
}

impl Aspm {
    /// `ASPM Disabled`, `ASPM L1 Enabled`, `ASPM L0s L1 Enabled` (lspci's LnkCtl wording),
    /// with enabled L1 substates appended.
    pub fn describe(&self) -> String {
        let mut s = match (self.l0s, self.l1) {
            (false, false) => return "ASPM Disabled".to_string(),
            (true, false) => "ASPM L0s Enabled".to_string(),
            (false, true) => "ASPM L1 Enabled".to_string(),
            (true, true) => "ASPM L0s L1 Enabled".to_string(),
        };
        let subs: Vec<&str> = [(self.l1_1, "L1.1"), (self.l1_2, "L1.2")]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
        if !subs.is_empty() {
            s.push_str(&format!(" ({})", subs.join(" ")));
        }
        s
    }
}

/// One PCI function.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PciDevice {
    /// Address `domain:bus:device.function`, e.g. `0001:11:00.0`.
    pub address: String,
    /// Vendor ID (`1b21` is ASMedia).
    pub vendor_id: Option<String>,
    /// Device ID (`1164` is the ASM1164 SATA controller).
    pub device_id: Option<String>,
    /// Class code, e.g. `010601` (AHCI), `010802` (NVMe).
    pub class: Option<String>,
    /// Kernel driver bound to it.
    pub driver: Option<String>,
    /// Link state; `None` for conventional PCI (VMs) and when the kernel is too old.
    pub link: Option<PciLink>,
    /// ASPM state when it can be read.
    pub aspm: Option<Aspm>,
}

/// Is `name` a PCI address (`0000:01:00.0`)?
pub fn is_pci_address(name: &str) -> bool {
    let parts: Vec<&str> = name.split(':').collect();
    if parts.len() != 3 {
        return false;
    }
    let hex = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_hexdigit());
    let Some((dev, func)) = parts[2].split_once('.') else {
        return false;
    };
    parts[0].len() >= 4
        && parts[0].chars().all(|c| c.is_ascii_hexdigit())
        && hex(parts[1], 2)
        && hex(dev, 2)
        && func.len() == 1
        && func.chars().all(|c| ('0'..='7').contains(&c))
}

/// Parse sysfs `current_link_speed`/`max_link_speed`: `8.0 GT/s PCIe`, `5 GT/s`,
/// `2.5 GT/s`; `Unknown` (no link) is `None`.
pub fn parse_link_speed(text: &str) -> Option<f64> {
    let t = text.trim();
    let num = t.split_whitespace().next()?;
    let num = num.strip_suffix("GT/s").unwrap_or(num);
    let v: f64 = num.parse().ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// lspci's way to print a speed: `2.5GT/s`, `5GT/s`, `8GT/s`, `16GT/s`.
pub fn format_speed(gts: f64) -> String {
    if (gts - gts.round()).abs() < 0.01 {
        format!("{}GT/s", gts.round() as u64)
    } else {
        format!("{gts:.1}GT/s")
    }
}

/// `Speed 8GT/s (ok), Width x2 (downgraded)` as current lspci prints `LnkSta`.
/// Parts we cannot compare are printed without the remark.
pub fn format_link_status(link: &PciLink) -> Option<String> {
    let remark = |d: Option<bool>| match d {
        Some(true) => " (downgraded)",
        Some(false) => " (ok)",
        None => "",
    };
    let speed = link.speed_gts.map(|s| {
        format!(
            "Speed {}{}",
            format_speed(s),
            remark(link.speed_downgraded())
        )
    });
    let width = link
        .width
        .map(|w| format!("Width x{w}{}", remark(link.width_downgraded())));
    match (speed, width) {
        (Some(s), Some(w)) => Some(format!("{s}, {w}")),
        (Some(s), None) => Some(s),
        (None, Some(w)) => Some(w),
        (None, None) => None,
    }
}

/// Read the link attributes of the PCI function at system path `dir`.
pub fn read_link(root: &SysRoot, dir: &Path) -> Option<PciLink> {
    let a = |n: &str| dir.join(n);
    let link = PciLink {
        speed_gts: root
            .value(a("current_link_speed"))
            .and_then(|s| parse_link_speed(&s)),
        width: root
            .parse::<u32>(a("current_link_width"))
            .filter(|&w| w > 0),
        max_speed_gts: root
            .value(a("max_link_speed"))
            .and_then(|s| parse_link_speed(&s)),
        max_width: root.parse::<u32>(a("max_link_width")).filter(|&w| w > 0),
    };
    (link != PciLink::default()).then_some(link)
}

/// ASPM from the `link/` switches (`l0s_aspm`, `l1_aspm`, `l1_1_aspm`, `l1_2_aspm`,
/// `l1_1_pcipm`, `l1_2_pcipm`), each `0` or `1`. `None` when the kernel has none.
pub fn read_aspm_sysfs(root: &SysRoot, dir: &Path) -> Option<Aspm> {
    let flag = |n: &str| root.value(dir.join("link").join(n)).map(|v| v == "1");
    let l0s = flag("l0s_aspm");
    let l1 = flag("l1_aspm");
    if l0s.is_none() && l1.is_none() {
        return None;
    }
    Some(Aspm {
        l0s: l0s.unwrap_or(false),
        l1: l1.unwrap_or(false),
        l1_1: flag("l1_1_aspm").unwrap_or(false) || flag("l1_1_pcipm").unwrap_or(false),
        l1_2: flag("l1_2_aspm").unwrap_or(false) || flag("l1_2_pcipm").unwrap_or(false),
        source: "sysfs".to_string(),
    })
}

/// ASPM Control (bits 1:0 of Link Control) from a PCI configuration space dump: walk
/// the capability list from offset 0x34 to the PCI Express capability (ID 0x10); Link
/// Control sits at +0x10. `None` for conventional PCI or a truncated (non-root) read.
pub fn parse_aspm_from_config(config: &[u8]) -> Option<Aspm> {
    let byte = |o: usize| config.get(o).copied();
    // Status register bit 4: capability list present.
    if byte(0x06)? & 0x10 == 0 {
        return None;
    }
    let mut ptr = usize::from(byte(0x34)? & 0xfc);
    for _ in 0..48 {
        if ptr < 0x40 {
            return None;
        }
        let id = byte(ptr)?;
        if id == 0x10 {
            let ctl = byte(ptr + 0x10)?;
            return Some(Aspm {
                l0s: ctl & 0x1 != 0,
                l1: ctl & 0x2 != 0,
                l1_1: false,
                l1_2: false,
                source: "config".to_string(),
            });
        }
        ptr = usize::from(byte(ptr + 1)? & 0xfc);
    }
    None
}

/// Read one PCI function from its sysfs directory `dir` (a system path such as
/// `/sys/devices/platform/fe150000.pcie/pci0000:00/0000:00:00.0/0000:01:00.0`).
pub fn read_device(root: &SysRoot, dir: &Path) -> PciDevice {
    let a = |n: &str| dir.join(n);
    let hex = |n: &str| {
        root.value(a(n))
            .map(|v| v.trim_start_matches("0x").to_ascii_lowercase())
    };
    let aspm = read_aspm_sysfs(root, dir).or_else(|| {
        root.read_bytes(a("config"))
            .ok()
            .and_then(|b| parse_aspm_from_config(&b))
    });
    PciDevice {
        address: dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string(),
        vendor_id: hex("vendor"),
        device_id: hex("device"),
        class: hex("class"),
        driver: root.link_name(a("driver")),
        link: read_link(root, dir),
        aspm,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert!(is_pci_address("0000:01:00.0"));
        assert!(is_pci_address("0001:11:00.0"));
        assert!(is_pci_address("10000:e1:1f.7"));
        assert!(!is_pci_address("pci0000:00"));
        assert!(!is_pci_address("0000:01:00"));
        assert!(!is_pci_address("0000:01:00.8"));
        assert!(!is_pci_address("virtio1"));
    }

    #[test]
    fn speeds_from_sysfs() {
        assert_eq!(parse_link_speed("8.0 GT/s PCIe\n"), Some(8.0));
        assert_eq!(parse_link_speed("5 GT/s"), Some(5.0));
        assert_eq!(parse_link_speed("2.5 GT/s PCIe"), Some(2.5));
        assert_eq!(parse_link_speed("Unknown"), None);
        assert_eq!(parse_link_speed(""), None);
        assert_eq!(format_speed(2.5), "2.5GT/s");
        assert_eq!(format_speed(16.0), "16GT/s");
    }

    #[test]
    fn rock5itx_nvme_trained_at_x2() {
        // ROCK 5 ITX review: the x4 Toshiba KXG50 sits in an M.2 slot wired with two
        // Gen3 lanes, sbc-bench says "Speed 8GT/s (ok), Width x2 (downgraded)".
        let l = PciLink {
            speed_gts: Some(8.0),
            width: Some(2),
            max_speed_gts: Some(8.0),
            max_width: Some(4),
        };
        assert_eq!(
            format_link_status(&l).unwrap(),
            "Speed 8GT/s (ok), Width x2 (downgraded)"
        );
        let raw = l.raw_mb_per_s().unwrap();
        assert!((raw - 1969.2).abs() < 0.1, "{raw}");
        // NanoPi R5S: Gen2 x1 carries 500 MB/s after 8b/10b.
        let r5s = PciLink {
            speed_gts: Some(5.0),
            width: Some(1),
            ..Default::default()
        };
        assert_eq!(r5s.raw_mb_per_s(), Some(500.0));
        assert_eq!(format_link_status(&r5s).unwrap(), "Speed 5GT/s, Width x1");
    }

    #[test]
    fn aspm_words() {
        let mut a = Aspm::default();
        assert_eq!(a.describe(), "ASPM Disabled");
        a.l1 = true;
        a.l1_2 = true;
        assert_eq!(a.describe(), "ASPM L1 Enabled (L1.2)");
    }

    #[test]
    fn aspm_from_config_space() {
        // A minimal type-0 header: status has the capability bit, cap pointer 0x40 →
        // MSI (0x05) → PCIe (0x10) at 0x70 with LnkCtl = 0x0042 (L1 on, CommClk).
        let mut c = vec![0u8; 256];
        c[0x06] = 0x10;
        c[0x34] = 0x40;
        c[0x40] = 0x05;
        c[0x41] = 0x70;
        c[0x70] = 0x10;
        c[0x71] = 0x00;
        c[0x80] = 0x42;
        let a = parse_aspm_from_config(&c).unwrap();
        assert!(a.l1 && !a.l0s);
        // The first 64 bytes only (what non-root gets): unknown, not "disabled".
        assert_eq!(parse_aspm_from_config(&c[..64]), None);
        // A capability loop must not hang.
        c[0x71] = 0x40;
        c[0x70] = 0x05;
        c[0x41] = 0x70;
        assert_eq!(parse_aspm_from_config(&c), None);
        assert_eq!(parse_aspm_from_config(&[]), None);
    }
}
