//! PCI(e) devices as storage sees them: the NVMe SSD or the AHCI controller a disk sits
//! behind, its link speed and width as trained versus what both ends can do, and ASPM.
//!
//! Everything comes from the device's sysfs directory (`/sys/bus/pci/devices/<addr>/`):
//! `current_link_speed`, `current_link_width`, `max_link_speed`, `max_link_width`
//! (kernel ≥ 4.13), `vendor`, `device`, `class`, the `driver` link, the ASPM switches in
//! `link/` (kernel ≥ 5.5 with `CONFIG_PCIEASPM`) and, as fallback for ASPM, the PCI
//! Express capability in `config` (root only reads past the first 64 bytes).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// Link speed and width of one PCIe device, as `lspci -vv` shows in `LnkSta`/`LnkCap`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PciLink {
    /// Negotiated speed in GT/s (2.5, 5, 8, 16, 32, 64).
    pub speed_gts: Option<f64>,
    /// Negotiated number of lanes.
    pub width: Option<u32>,
    /// Highest speed this device supports, in GT/s.
    pub max_speed_gts: Option<f64>,
    /// Widest link this device supports.
    pub max_width: Option<u32>,
    /// Highest speed the port above supports (its `max_link_speed`), GT/s; `None` where
    /// the port is not read (a function seen through `/sys/bus/pci/devices`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_max_speed_gts: Option<f64>,
    /// Widest link the port above supports (its `max_link_width`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_max_width: Option<u32>,
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

    /// Is the link as fast and as wide as the port above it allows, in each way it is
    /// downgraded (the board's wiring: an M.2 slot with two lanes for a x4 SSD)? `None`
    /// when the port's capability is not known.
    pub fn at_port_limit(&self) -> Option<bool> {
        let speed_ok = match self.speed_downgraded() {
            Some(true) => self.speed_gts? + 0.01 >= self.port_max_speed_gts?,
            _ => true,
        };
        let width_ok = match self.width_downgraded() {
            Some(true) => self.width? >= self.port_max_width?,
            _ => true,
        };
        Some(speed_ok && width_ok)
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
        ..PciLink::default()
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
    let at = find_capability(config, 0x10)?;
    let ctl = *config.get(at + 0x10)?;
    Some(Aspm {
        l0s: ctl & 0x1 != 0,
        l1: ctl & 0x2 != 0,
        l1_1: false,
        l1_2: false,
        source: "config".to_string(),
    })
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
        link: read_link(root, dir).map(|mut l| {
            // The port above, where `dir` is the device's own path under /sys/devices
            // (its parent a PCI function): what the link could train at on this board.
            let port = dir
                .parent()
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(is_pci_address)
                })
                .and_then(|p| read_link(root, p));
            if let Some(p) = port {
                l.port_max_speed_gts = p.max_speed_gts;
                l.port_max_width = p.max_width;
            }
            l
        }),
        aspm,
    }
}

/// `/sys/bus/pci/devices`: one link per PCI function, named by its address.
pub const BUS_DEVICES: &str = "/sys/bus/pci/devices";

/// Search path for the PCI ID database (`pci.ids`, as lspci uses it): Debian's
/// `pciutils`/`pci.ids` package, Fedora's `hwdata`, and the pciutils default.
pub const PCI_IDS: &[&str] = &[
    "/usr/share/misc/pci.ids",
    "/usr/share/hwdata/pci.ids",
    "/usr/share/pci.ids",
];

/// What a PCI Express function is (bits 7:4 of the PCI Express Capabilities register).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PciePortType {
    /// A device (NVMe SSD, NIC, SATA controller).
    Endpoint,
    /// A legacy endpoint.
    LegacyEndpoint,
    /// The SoC's or chipset's port a link starts at.
    RootPort,
    /// The upstream port of a PCIe switch.
    SwitchUpstream,
    /// A downstream port of a PCIe switch.
    SwitchDownstream,
    /// A PCIe-to-PCI bridge.
    PcieToPciBridge,
    /// A PCI-to-PCIe bridge.
    PciToPcieBridge,
    /// A device built into the root complex (no link).
    RootComplexIntegrated,
    /// A root complex event collector (no link).
    RootComplexEventCollector,
    /// A value the base specification does not define.
    Other(u8),
}

impl PciePortType {
    fn from_bits(v: u8) -> Self {
        match v {
            0 => Self::Endpoint,
            1 => Self::LegacyEndpoint,
            4 => Self::RootPort,
            5 => Self::SwitchUpstream,
            6 => Self::SwitchDownstream,
            7 => Self::PcieToPciBridge,
            8 => Self::PciToPcieBridge,
            9 => Self::RootComplexIntegrated,
            10 => Self::RootComplexEventCollector,
            o => Self::Other(o),
        }
    }

    /// lspci's words (`Express (v2) Root Port`, `Endpoint`).
    pub fn words(self) -> &'static str {
        match self {
            Self::Endpoint => "Endpoint",
            Self::LegacyEndpoint => "Legacy Endpoint",
            Self::RootPort => "Root Port",
            Self::SwitchUpstream => "Upstream Port",
            Self::SwitchDownstream => "Downstream Port",
            Self::PcieToPciBridge => "PCI-Express to PCI/PCI-X Bridge",
            Self::PciToPcieBridge => "PCI/PCI-X to PCI-Express Bridge",
            Self::RootComplexIntegrated => "Root Complex Integrated Endpoint",
            Self::RootComplexEventCollector => "Root Complex Event Collector",
            Self::Other(_) => "Unknown type",
        }
    }
}

/// The PCI Express capability (capability ID 0x10) of one function, decoded from its
/// configuration space: what `lspci -vv` prints as `DevCap`, `DevCtl`, `LnkCap`,
/// `LnkCtl` and `LnkSta`. Offsets and bit fields are those of the PCI Express Base
/// Specification (section "PCI Express Capability Structure").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PcieCap {
    /// Offset of the capability in config space (`Capabilities: [70] Express`).
    pub offset: u16,
    /// Capability version (`Express (v2)`).
    pub version: u8,
    /// Endpoint, root port, switch port…
    pub port_type: PciePortType,
    /// `DevCap: MaxPayload N bytes`: the largest TLP payload the function supports.
    pub max_payload_supported_bytes: u32,
    /// `DevCtl: MaxPayload N bytes`: the payload size it is set to use.
    pub max_payload_bytes: u32,
    /// `DevCtl: MaxReadReq N bytes`: the largest read it may request at once.
    pub max_read_request_bytes: u32,
    /// `LnkCap: Speed`, GT/s; `None` when the field holds no defined speed.
    pub link_cap_speed_gts: Option<f64>,
    /// `LnkCap: Width xN`; `None` when 0.
    pub link_cap_width: Option<u32>,
    /// `LnkCap: ASPM L0s` supported.
    pub aspm_l0s_supported: bool,
    /// `LnkCap: ASPM L1` supported.
    pub aspm_l1_supported: bool,
    /// `LnkCtl: ASPM` as configured (L0s, L1 bits of Link Control).
    pub aspm: Aspm,
    /// `LnkSta: Speed`, GT/s; `None` without a trained link.
    pub link_speed_gts: Option<f64>,
    /// `LnkSta: Width xN`; `None` without a trained link.
    pub link_width: Option<u32>,
}

impl PcieCap {
    /// The link as trained versus this function's own capability (lspci's comparison).
    pub fn link(&self) -> PciLink {
        PciLink {
            speed_gts: self.link_speed_gts,
            width: self.link_width,
            max_speed_gts: self.link_cap_speed_gts,
            max_width: self.link_cap_width,
            ..PciLink::default()
        }
    }

    /// Does this function have a link at all? (Root-complex integrated endpoints and
    /// event collectors do not; their link registers are reserved.)
    pub fn has_link(&self) -> bool {
        !matches!(
            self.port_type,
            PciePortType::RootComplexIntegrated | PciePortType::RootComplexEventCollector
        )
    }
}

/// A speed code of the Link Capabilities/Status registers in GT/s (1 = 2.5 GT/s … 6 =
/// 64 GT/s; since PCIe 3.0 formally an index into the Supported Link Speeds vector, which
/// every device fills from the bottom).
pub fn link_speed_code_gts(code: u8) -> Option<f64> {
    match code {
        1 => Some(2.5),
        2 => Some(5.0),
        3 => Some(8.0),
        4 => Some(16.0),
        5 => Some(32.0),
        6 => Some(64.0),
        _ => None,
    }
}

/// Offset of capability `id` in a config-space dump: walk the list from the pointer at
/// 0x34 while the status register (bit 4) says there is one. `None` for a conventional
/// header without capabilities, a truncated dump (what non-root reads: 64 bytes), a
/// pointer into the header, or a list that loops.
pub fn find_capability(config: &[u8], id: u8) -> Option<usize> {
    let byte = |o: usize| config.get(o).copied();
    if byte(0x06)? & 0x10 == 0 {
        return None;
    }
    let mut ptr = usize::from(byte(0x34)? & 0xfc);
    // 48 hops: a 256-byte space holds at most (256 - 64) / 4 capabilities.
    for _ in 0..48 {
        if ptr < 0x40 {
            return None;
        }
        if byte(ptr)? == id {
            return Some(ptr);
        }
        ptr = usize::from(byte(ptr + 1)? & 0xfc);
    }
    None
}

/// Decode the PCI Express capability from a config-space dump. `None` when the
/// function has none (conventional PCI, a VM's virtio device without it), when the dump
/// is cut short before Link Status, or when a field holds a value the specification
/// reserves (a garbage file).
pub fn parse_pcie_cap(config: &[u8]) -> Option<PcieCap> {
    let at = find_capability(config, 0x10)?;
    let u16_at = |o: usize| -> Option<u16> {
        Some(u16::from_le_bytes([
            *config.get(at + o)?,
            *config.get(at + o + 1)?,
        ]))
    };
    let u32_at = |o: usize| -> Option<u32> {
        Some(u32::from_le_bytes([
            *config.get(at + o)?,
            *config.get(at + o + 1)?,
            *config.get(at + o + 2)?,
            *config.get(at + o + 3)?,
        ]))
    };
    let caps = u16_at(0x02)?;
    let devcap = u32_at(0x04)?;
    let devctl = u16_at(0x08)?;
    let lnkcap = u32_at(0x0c)?;
    let lnkctl = u16_at(0x10)?;
    let lnksta = u16_at(0x12)?;
    // 128 << n for n = 0..=5 (128 … 4096 bytes); 6 and 7 are reserved.
    let size = |code: u32| (code <= 5).then(|| 128u32 << code);
    let width = |w: u32| (w > 0).then_some(w);
    Some(PcieCap {
        offset: at as u16,
        version: (caps & 0x0f) as u8,
        port_type: PciePortType::from_bits(((caps >> 4) & 0x0f) as u8),
        max_payload_supported_bytes: size(devcap & 0x7)?,
        max_payload_bytes: size(u32::from(devctl >> 5) & 0x7)?,
        max_read_request_bytes: size(u32::from(devctl >> 12) & 0x7)?,
        link_cap_speed_gts: link_speed_code_gts((lnkcap & 0x0f) as u8),
        link_cap_width: width((lnkcap >> 4) & 0x3f),
        aspm_l0s_supported: lnkcap & (1 << 10) != 0,
        aspm_l1_supported: lnkcap & (1 << 11) != 0,
        aspm: Aspm {
            l0s: lnkctl & 0x1 != 0,
            l1: lnkctl & 0x2 != 0,
            l1_1: false,
            l1_2: false,
            source: "config".to_string(),
        },
        link_speed_gts: link_speed_code_gts((lnksta & 0x0f) as u8),
        link_width: width(u32::from(lnksta >> 4) & 0x3f),
    })
}

/// One PCI function as the PCIe review sees it: what [`read_device`] reads, where it
/// sits (its upstream port), and its PCI Express capability from `config`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PcieFunction {
    /// IDs, class, driver, sysfs link state and ASPM (as storage reads them).
    pub device: PciDevice,
    /// `vendor device` names from `pci.ids` when it is installed (`ASMedia Technology
    /// Inc.`, `ASM1164 Serial ATA AHCI Controller`).
    pub vendor_name: Option<String>,
    /// See [`PcieFunction::vendor_name`].
    pub device_name: Option<String>,
    /// Address of the port above it (the parent directory in the sysfs device path),
    /// `None` for a function directly on a root bus.
    pub upstream: Option<String>,
    /// The PCI Express capability; `None` for conventional PCI and when `config` could
    /// only be read in part (non-root users get 64 bytes).
    pub pcie: Option<PcieCap>,
}

/// The PCI function addresses under [`BUS_DEVICES`], naturally sorted (lspci's order).
pub fn list_functions(root: &SysRoot) -> Vec<String> {
    root.list(BUS_DEVICES)
        .into_iter()
        .filter(|n| is_pci_address(n))
        .collect()
}

/// Vendor and device names for `vendor:device` from a `pci.ids` text (tab-indented
/// device lines under unindented vendor lines; `#` comments). Pure.
pub fn lookup_pci_ids(text: &str, vendor: &str, device: &str) -> (Option<String>, Option<String>) {
    let mut vname = None;
    let mut in_vendor = false;
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !line.starts_with('\t') {
            if in_vendor || line.starts_with("C ") {
                // The next vendor (or the class section) ends ours.
                if in_vendor {
                    break;
                }
                continue;
            }
            if let Some((id, name)) = line.split_once(char::is_whitespace)
                && id.eq_ignore_ascii_case(vendor)
            {
                vname = Some(name.trim().to_string());
                in_vendor = true;
            }
        } else if in_vendor
            && !line.starts_with("\t\t")
            && let Some((id, name)) = line.trim_start().split_once(char::is_whitespace)
            && id.eq_ignore_ascii_case(device)
        {
            return (vname, Some(name.trim().to_string()));
        }
    }
    (vname, None)
}

/// The first `pci.ids` of [`PCI_IDS`] that can be read.
pub fn read_pci_ids(root: &SysRoot) -> Option<String> {
    PCI_IDS.iter().find_map(|p| root.read_opt(p))
}

/// Read one function by address: `/sys/bus/pci/devices/<addr>` resolved to its device
/// directory, its attributes, and the PCI Express capability from `config` (up to 4 KiB:
/// the whole extended space). `ids` is a `pci.ids` text for names.
pub fn read_function(root: &SysRoot, address: &str, ids: Option<&str>) -> Option<PcieFunction> {
    if !is_pci_address(address) {
        return None;
    }
    let link = Path::new(BUS_DEVICES).join(address);
    let dir = root.resolve(&link).unwrap_or(link);
    let mut device = read_device(root, &dir);
    device.address = address.to_string();
    let upstream = dir
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .filter(|n| is_pci_address(n))
        .map(str::to_string);
    let pcie = root
        .read_bytes_max(dir.join("config"), 4096)
        .ok()
        .and_then(|b| parse_pcie_cap(&b));
    let (vendor_name, device_name) = match (ids, &device.vendor_id, &device.device_id) {
        (Some(t), Some(v), Some(d)) => lookup_pci_ids(t, v, d),
        _ => (None, None),
    };
    Some(PcieFunction {
        device,
        vendor_name,
        device_name,
        upstream,
        pcie,
    })
}

/// Every function under [`BUS_DEVICES`], in address order.
pub fn read_functions(root: &SysRoot) -> Vec<PcieFunction> {
    let ids = read_pci_ids(root);
    list_functions(root)
        .iter()
        .filter_map(|a| read_function(root, a, ids.as_deref()))
        .collect()
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
            ..PciLink::default()
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

    /// Config space of the ROCK 5 ITX's ASM1164 (`0001:11:00.0`) and its RK3588 root
    /// port, written by `tests/fixtures/pcie/make_fixtures.py` from the review's
    /// `lspci -vv` (`seeds/rock-5-itx-preview.txt`).
    const ITX_ASM1164: &[u8] = include_bytes!(
        "../../tests/fixtures/pcie/rock-5-itx/sys/devices/platform/fe160000.pcie/pci0001:10/0001:10:00.0/0001:11:00.0/config"
    );
    const ITX_ROOT_PORT: &[u8] = include_bytes!(
        "../../tests/fixtures/pcie/rock-5-itx/sys/devices/platform/fe160000.pcie/pci0001:10/0001:10:00.0/config"
    );
    const ITX_RTL8125: &[u8] = include_bytes!(
        "../../tests/fixtures/pcie/rock-5-itx/sys/devices/platform/fe190000.pcie/pci0004:40/0004:40:00.0/0004:41:00.0/config"
    );

    #[test]
    fn rock5_itx_asm1164_capability() {
        // lspci: "Capabilities: [80] Express (v2) Endpoint", "DevCap: MaxPayload 256
        // bytes", "MaxPayload 128 bytes, MaxReadReq 256 bytes", "LnkCap: Port #0, Speed
        // 8GT/s, Width x2, ASPM L1", "LnkCtl: ASPM Disabled", "LnkSta: Speed 8GT/s (ok),
        // Width x2 (ok)".
        assert_eq!(find_capability(ITX_ASM1164, 0x10), Some(0x80));
        assert_eq!(find_capability(ITX_ASM1164, 0x05), Some(0x50));
        let c = parse_pcie_cap(ITX_ASM1164).unwrap();
        assert_eq!(c.offset, 0x80);
        assert_eq!(c.version, 2);
        assert_eq!(c.port_type, PciePortType::Endpoint);
        assert_eq!(c.max_payload_supported_bytes, 256);
        assert_eq!(c.max_payload_bytes, 128);
        assert_eq!(c.max_read_request_bytes, 256);
        assert_eq!(
            (c.link_cap_speed_gts, c.link_cap_width),
            (Some(8.0), Some(2))
        );
        assert!(c.aspm_l1_supported && !c.aspm_l0s_supported);
        assert_eq!(c.aspm.describe(), "ASPM Disabled");
        assert_eq!(
            format_link_status(&c.link()).unwrap(),
            "Speed 8GT/s (ok), Width x2 (ok)"
        );
        assert_eq!(
            parse_aspm_from_config(ITX_ASM1164).unwrap().describe(),
            "ASPM Disabled"
        );
    }

    #[test]
    fn rock5_itx_root_port_and_rtl8125() {
        let rp = parse_pcie_cap(ITX_ROOT_PORT).unwrap();
        assert_eq!(rp.offset, 0x70);
        assert_eq!(rp.port_type, PciePortType::RootPort);
        assert_eq!(rp.port_type.words(), "Root Port");
        assert_eq!(
            (rp.max_payload_supported_bytes, rp.max_payload_bytes),
            (256, 128)
        );
        assert_eq!(rp.max_read_request_bytes, 512);
        // "[70] Express (v2) Endpoint … MaxReadReq 4096 bytes … ASPM L0s L1 … 5GT/s x1".
        let nic = parse_pcie_cap(ITX_RTL8125).unwrap();
        assert_eq!(nic.max_read_request_bytes, 4096);
        assert!(nic.aspm_l0s_supported && nic.aspm_l1_supported);
        assert_eq!(
            format_link_status(&nic.link()).unwrap(),
            "Speed 5GT/s (ok), Width x1 (ok)"
        );
    }

    #[test]
    fn garbage_and_short_config_is_none_not_a_panic() {
        // What a non-root read returns (64 bytes), nothing, 0xff (a device gone), and
        // every truncation of a real dump.
        assert_eq!(parse_pcie_cap(&ITX_ASM1164[..64]), None);
        assert_eq!(parse_pcie_cap(&[]), None);
        assert_eq!(parse_pcie_cap(&[0xff; 4096]), None);
        for n in 0..0x94 {
            assert_eq!(parse_pcie_cap(&ITX_ASM1164[..n]), None, "cut at {n}");
        }
        assert!(parse_pcie_cap(&ITX_ASM1164[..0x94]).is_some());
        // Reserved payload codes (6, 7) are garbage, not 8 KiB.
        let mut bad = ITX_ASM1164.to_vec();
        bad[0x84] |= 0x7;
        assert_eq!(parse_pcie_cap(&bad), None);
        // Pseudo-random bytes never panic.
        let mut x: u32 = 12345;
        for _ in 0..200 {
            let v: Vec<u8> = (0..256)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (x >> 16) as u8
                })
                .collect();
            let _ = parse_pcie_cap(&v);
        }
    }

    #[test]
    fn pci_ids_lookup() {
        let ids = "# comment\n10ec  Realtek Semiconductor Co., Ltd.\n\t8125  RTL8125 2.5GbE Controller\n\
1b21  ASMedia Technology Inc.\n\t0612  ASM1062 Serial ATA Controller\n\t1164  ASM1164 Serial ATA AHCI Controller\n\
\t\t1b21 2116  ASM1164 Serial ATA AHCI Controller\n1d87  Fuzhou Rockchip Electronics Co., Ltd\nC 01  Mass storage controller\n\t06  SATA controller\n";
        assert_eq!(
            lookup_pci_ids(ids, "1b21", "1164"),
            (
                Some("ASMedia Technology Inc.".into()),
                Some("ASM1164 Serial ATA AHCI Controller".into())
            )
        );
        assert_eq!(
            lookup_pci_ids(ids, "10EC", "8125").1.as_deref(),
            Some("RTL8125 2.5GbE Controller")
        );
        assert_eq!(
            lookup_pci_ids(ids, "1d87", "3588"),
            (Some("Fuzhou Rockchip Electronics Co., Ltd".into()), None)
        );
        assert_eq!(lookup_pci_ids(ids, "ffff", "0001"), (None, None));
        assert_eq!(lookup_pci_ids("", "1b21", "1164"), (None, None));
    }
}
