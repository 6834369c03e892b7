//! Storage inventory: every disk, what it is (SATA SSD or HDD, NVMe, USB stick or
//! USB-attached SATA, SD card, eMMC, UFS, virtio) and the chain between it and the CPU —
//! bridge chip, hubs, PCIe link, SATA link, MMC bus mode — from sysfs alone.
//!
//! Reads, all through [`SysRoot`] (see `docs/SOURCES.md`): `/sys/block` *(listed)* and
//! per disk its resolved device path, whose ancestors are recognised by name (`ataN`,
//! PCI addresses, USB devices and interfaces, `mmcN:RRRR`, `virtioN`, `nvmeN`) and
//! read for known attributes only; `/sys/class/ata_link/linkN/*`,
//! `/sys/class/ata_device/devN.M/id` (the drive's IDENTIFY DEVICE words),
//! `/sys/class/nvme/nvmeN/*`, `/sys/class/nvme-subsystem/<subsys>/` *(listed)*,
//! `/proc/mtd`, `/sys/class/mtd/mtdN/*`, `/sys/kernel/debug/mmcN/ios`,
//! `/proc/self/mountinfo` and `/sys/dev/block/M:m`. No udev, lsblk, lsusb or lspci.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sys::mmc::{self, BusMode, CardMaker, MmcIos};
use crate::sys::pci::{self, PciDevice};
use crate::sys::root::SysRoot;
use crate::sys::usb::{self, UsbDevice};

/// How a disk is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bus {
    /// SATA/PATA through libata (AHCI and friends).
    Sata,
    /// NVMe over PCIe.
    Nvme,
    /// USB mass storage (`uas` or `usb-storage`), maybe with SATA/NVMe behind a bridge.
    Usb,
    /// SD card or eMMC.
    Mmc,
    /// UFS (phones, some Arm boards).
    Ufs,
    /// A virtual machine's virtio disk.
    Virtio,
    /// Any other SCSI disk (SAS HBAs, emulated SCSI).
    Scsi,
}

/// What the drive reports about itself in IDENTIFY DEVICE (ATA/ACS), readable from
/// `/sys/class/ata_device/devN.M/id` without smartctl.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtaIdentify {
    /// Model string (words 27–46).
    pub model: Option<String>,
    /// Firmware revision (words 23–26).
    pub firmware: Option<String>,
    /// Nominal media rotation rate (word 217): `Some(0)` for a solid state device,
    /// RPM for a disk, `None` when not reported.
    pub rotation_rpm: Option<u32>,
    /// SATA version as smartctl words it (word 222), e.g. `SATA 3.1`.
    pub sata_version: Option<String>,
    /// Fastest signalling the drive supports (word 76), e.g. `6.0 Gb/s`.
    pub max_speed: Option<String>,
    /// Signalling speed negotiated now, when the drive reports it (word 77).
    pub current_speed: Option<String>,
}

/// A disk on libata.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtaInfo {
    /// Port number N of `ataN`.
    pub port: u32,
    /// Negotiated link speed from `ata_link/linkN/sata_spd`, e.g. `6.0 Gbps`.
    pub link_speed: Option<String>,
    /// What host and drive can both do (`hw_sata_spd_limit`).
    pub link_limit: Option<String>,
    /// The drive's IDENTIFY data.
    pub identify: Option<AtaIdentify>,
}

/// An NVMe controller.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NvmeInfo {
    /// Controller name (`nvme0`).
    pub controller: String,
    /// Model number.
    pub model: Option<String>,
    /// Firmware revision.
    pub firmware: Option<String>,
    /// Transport (`pcie`, `tcp`, `rdma`).
    pub transport: Option<String>,
}

/// The USB chain of a disk: the storage device itself, then every hub up to the root.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsbPath {
    /// The device the disk is (a stick) or sits behind (a bridge).
    pub device: UsbDevice,
    /// Driver of its mass storage interface: `uas` or `usb-storage`.
    pub interface_driver: Option<String>,
    /// Hubs between device and host, nearest first; the root hub last.
    #[serde(default)]
    pub hubs: Vec<UsbDevice>,
    /// Driver of the host controller (`xhci-hcd`, `ehci-platform`…).
    pub host_driver: Option<String>,
}

impl UsbPath {
    /// External hubs (not the root hub), nearest first.
    pub fn external_hubs(&self) -> impl Iterator<Item = &UsbDevice> {
        self.hubs.iter().filter(|h| !h.is_root_hub())
    }
}

/// An SD card or eMMC.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MmcInfo {
    /// Host name (`mmc0`), the key to `/sys/kernel/debug/mmc0/ios`.
    pub host: String,
    /// `SD` or `MMC` (sysfs `type`).
    pub card_type: Option<String>,
    /// Product name from the CID (`BJTD4R`).
    pub name: Option<String>,
    /// Manufacturer ID (`0x000015`).
    pub manfid: Option<String>,
    /// OEM/application ID (`0x0100`).
    pub oemid: Option<String>,
    /// Manufacturing date `MM/YYYY`.
    pub date: Option<String>,
    /// Hardware revision.
    pub hwrev: Option<String>,
    /// Firmware revision.
    pub fwrev: Option<String>,
    /// Serial number.
    pub serial: Option<String>,
    /// SD capacity class from the CSD: `SD`, `SDHC` or `SDXC`.
    pub capacity_class: Option<String>,
    /// eMMC version from EXT_CSD_REV (`5.1`).
    pub emmc_version: Option<String>,
    /// What the host negotiated, when debugfs is readable.
    pub ios: Option<MmcIos>,
    /// Bus mode derived from `ios`.
    pub bus_mode: Option<BusMode>,
    /// Who made it and whether that is believable.
    pub maker: CardMaker,
    /// eMMC wear estimate (type A, type B) in tenths of rated life.
    pub life_time: Option<(u8, u8)>,
    /// eMMC pre-EOL info: 1 normal, 2 warning (80 % of reserved blocks used), 3 urgent.
    pub pre_eol: Option<u8>,
}

/// Drive health as read by smartctl (filled in by `bench::external::smartctl`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Health {
    /// `smartctl 7.3` or `recorded` for fixtures.
    pub source: String,
    /// `ATA`, `NVMe` or `SCSI`.
    pub protocol: Option<String>,
    /// Model (ATA Device Model / NVMe Model Number).
    pub model: Option<String>,
    /// smartctl's drive database family, e.g. `Samsung based SSDs`.
    pub model_family: Option<String>,
    /// Firmware version.
    pub firmware: Option<String>,
    /// `SATA 3.1`.
    pub sata_version: Option<String>,
    /// Fastest SATA speed of the drive, `6.0 Gb/s`.
    pub sata_speed_max: Option<String>,
    /// SATA speed negotiated now.
    pub sata_speed_current: Option<String>,
    /// 0 for SSDs, RPM for disks.
    pub rotation_rpm: Option<u32>,
    /// Overall self-assessment passed.
    pub passed: Option<bool>,
    /// Wear in percent of rated endurance.
    pub percentage_used: Option<u32>,
    /// Drive temperature.
    pub temp_c: Option<i64>,
    /// Attribute 199: interface CRC errors (cables, contacts).
    pub crc_errors: Option<u64>,
    /// Attribute 5: reallocated sectors.
    pub reallocated_sectors: Option<u64>,
    /// Attribute 195: hardware ECC recovered (a rate on Seagate drives, not an error).
    pub ecc_recovered: Option<u64>,
    /// Attribute 196: reallocation events.
    pub reallocated_events: Option<u64>,
    /// Attribute 197: sectors pending reallocation.
    pub pending_sectors: Option<u64>,
    /// Attribute 198: offline uncorrectable sectors.
    pub offline_uncorrectable: Option<u64>,
    /// Attribute 184: end-to-end errors.
    pub end_to_end_errors: Option<u64>,
    /// NVMe media and data integrity errors.
    pub media_errors: Option<u64>,
    /// NVMe error information log entries.
    pub error_log_entries: Option<u64>,
    /// smartctl's own error and warning messages.
    #[serde(default)]
    pub messages: Vec<String>,
}

impl Health {
    /// Is this a rotating disk? `None` when unknown.
    pub fn is_hdd(&self) -> Option<bool> {
        self.rotation_rpm.map(|r| r > 0)
    }
}

/// One disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// Kernel name (`sda`, `nvme0n1`, `mmcblk0`, `vda`).
    pub name: String,
    /// Device node to show and query: `/dev/sda`, the controller `/dev/nvme0` for NVMe.
    pub node: String,
    /// How it is attached.
    pub bus: Bus,
    /// Capacity in bytes.
    pub size_bytes: Option<u64>,
    /// Rotational according to the block layer (bridges often claim 1 for SSDs).
    pub rotational: Option<bool>,
    /// Removable media.
    pub removable: Option<bool>,
    /// SCSI vendor string (INQUIRY), `ATA` for libata disks.
    pub scsi_vendor: Option<String>,
    /// SCSI model string (INQUIRY; libata truncates to 16 characters).
    pub scsi_model: Option<String>,
    /// The driver that matters for speed: `ahci`, `nvme`, `uas`, `usb-storage`,
    /// `virtio-pci`, the MMC host or UFS controller driver.
    pub driver: Option<String>,
    /// Resolved sysfs path.
    pub sysfs_path: String,
    /// SATA details.
    pub ata: Option<AtaInfo>,
    /// NVMe details.
    pub nvme: Option<NvmeInfo>,
    /// The nearest PCI function above the disk (the NVMe SSD itself, the AHCI or USB
    /// host controller, the virtio device).
    pub pci: Option<PciDevice>,
    /// USB chain.
    pub usb: Option<UsbPath>,
    /// MMC details.
    pub mmc: Option<MmcInfo>,
    /// smartctl's view, when available.
    pub health: Option<Health>,
    /// Why there is no health data for a disk that could have it (smartctl missing,
    /// timed out, bridge without SAT).
    pub health_note: Option<String>,
}

/// One MTD flash chip (SPI NOR, SPI NAND, raw NAND), with its partitions.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MtdFlash {
    /// The device the MTD nodes hang off (`spi4.0`).
    pub device: String,
    /// MTD nodes (`mtd0`, …).
    #[serde(default)]
    pub nodes: Vec<String>,
    /// `nor`, `nand`, `mlc-nand`… (sysfs `type`).
    pub kind: Option<String>,
    /// Total size in bytes.
    pub size_bytes: Option<u64>,
    /// SPI NOR manufacturer (kernel ≥ 5.12), e.g. `winbond`.
    pub manufacturer: Option<String>,
    /// SPI NOR part name, e.g. `w25q128`.
    pub partname: Option<String>,
    /// JEDEC ID.
    pub jedec_id: Option<String>,
    /// Drivers from the flash up: `spi-nor`, `rockchip-sfc`.
    #[serde(default)]
    pub drivers: Vec<String>,
    /// Partitions (label, bytes) when there is more than one node.
    #[serde(default)]
    pub partitions: Vec<(String, u64)>,
}

/// Everything found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Inventory {
    /// Disks, in kernel name order (sd*, nvme*, vd*, then mmcblk*).
    #[serde(default)]
    pub devices: Vec<Device>,
    /// MTD flash.
    #[serde(default)]
    pub flash: Vec<MtdFlash>,
}

/// Kernel names of whole disks we list; partitions never appear in `/sys/block`, but
/// loop, ram, zram, device-mapper, md, optical drives and eMMC boot/RPMB areas do.
pub fn is_listed_disk(name: &str) -> bool {
    let after = |p: &str| name.strip_prefix(p);
    let letters = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase());
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if let Some(r) = after("sd").or_else(|| after("vd")).or_else(|| after("xvd")) {
        return letters(r);
    }
    if let Some(r) = after("mmcblk") {
        return digits(r);
    }
    if let Some(r) = after("nvme") {
        // nvme0n1 (not the hidden multipath paths nvme0c0n1)
        return match r.split_once('n') {
            Some((c, n)) => digits(c) && digits(n),
            None => false,
        };
    }
    false
}

/// Discover every disk and MTD flash.
pub fn discover(root: &SysRoot) -> Inventory {
    let mut devices: Vec<Device> = root
        .list("/sys/block")
        .into_iter()
        .filter(|n| is_listed_disk(n))
        .filter_map(|n| read_disk(root, &n))
        .collect();
    // sbc-bench lists /dev/sd?, /dev/nvme?, /dev/vd? first, then MMC.
    devices.sort_by(|a, b| {
        let rank = |d: &Device| u8::from(d.bus == Bus::Mmc);
        rank(a)
            .cmp(&rank(b))
            .then_with(|| crate::sys::root::natural_cmp(&a.node, &b.node))
    });
    let flash = read_mtd(root);
    Inventory { devices, flash }
}

/// The ancestors of a sysfs device path below `/sys/devices`, nearest first.
fn ancestors(path: &Path) -> Vec<PathBuf> {
    path.ancestors()
        .skip(1)
        .take_while(|p| p.starts_with("/sys/devices") && *p != Path::new("/sys/devices"))
        .map(Path::to_path_buf)
        .collect()
}

fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or_default()
}

fn is_ata_port(name: &str) -> Option<u32> {
    name.strip_prefix("ata")?.parse().ok()
}

fn is_mmc_card(name: &str) -> bool {
    match name.split_once(':') {
        Some((host, rca)) => {
            host.strip_prefix("mmc")
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
                && rca.len() == 4
                && rca.chars().all(|c| c.is_ascii_hexdigit())
        }
        None => false,
    }
}

fn is_numbered(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// The PCI function of an NVMe controller (`/sys/class/nvme/nvme0` → its device).
fn nvme_pci(root: &SysRoot, controller: &str) -> Option<PciDevice> {
    root.resolve(format!("/sys/class/nvme/{controller}"))
        .and_then(|p| {
            ancestors(&p)
                .into_iter()
                .find(|a| pci::is_pci_address(file_name(a)))
        })
        .map(|a| pci::read_device(root, &a))
}

/// Read one disk from `/sys/block/<name>`.
pub fn read_disk(root: &SysRoot, name: &str) -> Option<Device> {
    let block = format!("/sys/block/{name}");
    let path = root.resolve(&block)?;
    let anc = ancestors(&path);
    let size_bytes = root
        .parse::<u64>(format!("{block}/size"))
        .map(|s| s.saturating_mul(512));
    let mut dev = Device {
        name: name.to_string(),
        node: format!("/dev/{name}"),
        bus: Bus::Scsi,
        size_bytes,
        rotational: root
            .parse::<u8>(format!("{block}/queue/rotational"))
            .map(|v| v == 1),
        removable: root
            .parse::<u8>(format!("{block}/removable"))
            .map(|v| v == 1),
        scsi_vendor: root.value(format!("{block}/device/vendor")),
        scsi_model: root.value(format!("{block}/device/model")),
        driver: None,
        sysfs_path: path.display().to_string(),
        ata: None,
        nvme: None,
        pci: None,
        usb: None,
        mmc: None,
        health: None,
        health_note: None,
    };
    // INQUIRY strings exist only on SCSI disks (virtio's `device/vendor` is a PCI ID).
    if !path
        .iter()
        .any(|c| c.to_str().is_some_and(|c| is_numbered(c, "host")))
    {
        dev.scsi_vendor = None;
        dev.scsi_model = None;
    }
    // The nearest PCI function is interesting for every kind of disk.
    dev.pci = anc
        .iter()
        .find(|a| pci::is_pci_address(file_name(a)))
        .map(|a| pci::read_device(root, a));

    if let Some(i) = anc
        .iter()
        .position(|a| usb::is_interface_name(file_name(a)))
    {
        dev.bus = Bus::Usb;
        let usbp = read_usb_path(root, &anc[i..]);
        dev.driver = usbp.interface_driver.clone();
        dev.usb = Some(usbp);
    } else if name.starts_with("nvme") {
        dev.bus = Bus::Nvme;
        dev.nvme = read_nvme(root, &path, &anc);
        if let Some(n) = &dev.nvme {
            dev.node = format!("/dev/{}", n.controller);
            if dev.pci.is_none() {
                dev.pci = nvme_pci(root, &n.controller);
            }
        }
        dev.driver = Some("nvme".to_string());
    } else if let Some(card) = anc.iter().find(|a| is_mmc_card(file_name(a))) {
        dev.bus = Bus::Mmc;
        dev.mmc = Some(read_mmc(root, card, size_bytes));
        // host mmcN → "mmc_host" → the controller
        dev.driver = card
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .and_then(|c| root.link_name(c.join("driver")));
    } else if let Some(v) = anc.iter().find(|a| is_numbered(file_name(a), "virtio")) {
        dev.bus = Bus::Virtio;
        // The transport (virtio-pci, virtio-mmio) is what sbc-bench reports.
        dev.driver = v
            .parent()
            .and_then(|p| root.link_name(p.join("driver")))
            .or_else(|| root.link_name(v.join("driver")));
    } else if let Some(port_dir) = anc.iter().find(|a| is_ata_port(file_name(a)).is_some()) {
        dev.bus = Bus::Sata;
        let port = is_ata_port(file_name(port_dir)).unwrap_or_default();
        dev.ata = Some(read_ata(root, port, &path));
        dev.driver = port_dir
            .ancestors()
            .skip(1)
            .take_while(|p| p.starts_with("/sys/devices"))
            .find_map(|p| root.link_name(p.join("driver")));
    } else {
        // UFS host controllers have drivers named ufshcd-<soc>.
        let ufs = anc
            .iter()
            .filter_map(|a| root.link_name(a.join("driver")))
            .find(|d| d.starts_with("ufshcd") || d.contains("ufs"));
        if let Some(d) = ufs {
            dev.bus = Bus::Ufs;
            dev.driver = Some(d);
        } else {
            dev.driver = anc
                .iter()
                .skip_while(|a| !is_numbered(file_name(a), "host"))
                .find_map(|a| root.link_name(a.join("driver")));
        }
    }
    Some(dev)
}

fn read_usb_path(root: &SysRoot, from_interface: &[PathBuf]) -> UsbPath {
    let mut out = UsbPath {
        interface_driver: from_interface
            .first()
            .and_then(|i| root.link_name(i.join("driver"))),
        ..Default::default()
    };
    let mut devs = from_interface
        .iter()
        .skip(1)
        .filter(|a| usb::is_device_name(file_name(a)));
    if let Some(d) = devs.next() {
        out.device = usb::read_device(root, d);
    }
    let mut last = None;
    for h in devs {
        out.hubs.push(usb::read_device(root, h));
        last = Some(h);
    }
    out.host_driver = last
        .and_then(|rh| rh.parent())
        .and_then(|hc| root.link_name(hc.join("driver")));
    out
}

fn read_nvme(root: &SysRoot, path: &Path, anc: &[PathBuf]) -> Option<NvmeInfo> {
    // Usual layout: …/<pci>/nvme/nvme0/nvme0n1.
    let ctrl = anc
        .iter()
        .find(|a| {
            is_numbered(file_name(a), "nvme") && a.parent().is_some_and(|p| file_name(p) == "nvme")
        })
        .map(|a| file_name(a).to_string())
        .or_else(|| {
            // Native multipath: …/nvme-subsystem/nvme-subsys0/nvme0n1; the controllers
            // are listed in the subsystem's class directory.
            let comps: Vec<&str> = path.iter().filter_map(|c| c.to_str()).collect();
            let i = comps.iter().position(|c| *c == "nvme-subsystem")?;
            let subsys = comps.get(i + 1)?;
            root.list(format!("/sys/class/nvme-subsystem/{subsys}"))
                .into_iter()
                .find(|n| is_numbered(n, "nvme"))
        })?;
    let c = format!("/sys/class/nvme/{ctrl}");
    Some(NvmeInfo {
        model: root.value(format!("{c}/model")),
        firmware: root.value(format!("{c}/firmware_rev")),
        transport: root.value(format!("{c}/transport")),
        controller: ctrl,
    })
}

fn read_ata(root: &SysRoot, port: u32, disk_path: &Path) -> AtaInfo {
    // The SCSI device directory H:C:I:L holds the ATA device number I (0 on SATA).
    let devno = disk_path
        .ancestors()
        .map(file_name)
        .find(|n| n.matches(':').count() == 3)
        .and_then(|n| n.split(':').nth(2))
        .and_then(|i| i.parse::<u32>().ok())
        .unwrap_or(0);
    let link = format!("/sys/class/ata_link/link{port}");
    let spd = |n: &str| {
        root.value(format!("{link}/{n}"))
            .filter(|v| !v.contains("unknown"))
    };
    AtaInfo {
        port,
        link_speed: spd("sata_spd"),
        link_limit: spd("hw_sata_spd_limit"),
        identify: root
            .read_opt(format!("/sys/class/ata_device/dev{port}.{devno}/id"))
            .and_then(|t| parse_identify(&t)),
    }
}

fn read_mmc(root: &SysRoot, card: &Path, size_bytes: Option<u64>) -> MmcInfo {
    let a = |n: &str| root.value(card.join(n));
    let host = card
        .parent()
        .map(|h| file_name(h).to_string())
        .unwrap_or_default();
    let ios = root
        .read_opt(format!("/sys/kernel/debug/{host}/ios"))
        .map(|t| mmc::parse_ios(&t))
        .filter(|i| i.timing.is_some());
    let bus_mode = ios
        .as_ref()
        .and_then(|i| BusMode::from_timing(i.timing?, i.timing_name.as_deref()));
    let card_type = a("type");
    let capacity_class = if card_type.as_deref() == Some("SD") {
        a("csd")
            .and_then(|c| mmc::sd_capacity_class(&c))
            .or_else(|| {
                // Without a readable CSD: > 2 GiB needs block addressing, ≥ 32 GiB is SDXC.
                size_bytes.map(|b| match b {
                    b if b >= 32 << 30 => "SDXC",
                    b if b > 2 << 30 => "SDHC",
                    _ => "SD",
                })
            })
            .map(str::to_string)
    } else {
        None
    };
    let emmc_version = if card_type.as_deref() == Some("MMC") {
        a("rev")
            .and_then(|r| u32::from_str_radix(r.trim_start_matches("0x"), 16).ok())
            .and_then(mmc::emmc_version)
            .map(str::to_string)
    } else {
        None
    };
    let name = a("name");
    let manfid = a("manfid");
    let oemid = a("oemid");
    let serial = a("serial");
    let date = a("date");
    let maker = mmc::identify_maker(
        manfid.as_deref().unwrap_or_default(),
        oemid.as_deref().unwrap_or_default(),
        name.as_deref().unwrap_or_default(),
        serial.as_deref().unwrap_or_default(),
        date.as_deref().unwrap_or_default(),
    );
    MmcInfo {
        host,
        card_type,
        name,
        manfid,
        oemid,
        date,
        hwrev: a("hwrev"),
        fwrev: a("fwrev"),
        serial,
        capacity_class,
        emmc_version,
        ios,
        bus_mode,
        maker,
        life_time: a("life_time").and_then(|t| mmc::parse_life_time(&t)),
        pre_eol: a("pre_eol_info")
            .and_then(|v| u8::from_str_radix(v.trim_start_matches("0x"), 16).ok()),
    }
}

/// Decode the IDENTIFY DEVICE words sysfs prints in `ata_device/devN.M/id` (256 words
/// as 4-digit hex, 8 per line). `None` when it is not 256 hex words.
pub fn parse_identify(text: &str) -> Option<AtaIdentify> {
    let words: Vec<u16> = text
        .split_whitespace()
        .map(|w| u16::from_str_radix(w, 16).ok())
        .collect::<Option<Vec<u16>>>()?;
    if words.len() != 256 {
        return None;
    }
    let string = |from: usize, to: usize| {
        let bytes: Vec<u8> = words[from..=to]
            .iter()
            .flat_map(|w| [(w >> 8) as u8, (w & 0xff) as u8])
            .collect();
        let s: String = bytes
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    ' '
                }
            })
            .collect();
        let s = s.trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    let valid = |w: u16| w != 0 && w != 0xffff;
    let rotation_rpm = match words[217] {
        1 => Some(0),
        r @ 0x0401..=0xfffe => Some(u32::from(r)),
        _ => None,
    };
    let speed_name = |n: u16| match n {
        1 => Some("1.5 Gb/s"),
        2 => Some("3.0 Gb/s"),
        3 => Some("6.0 Gb/s"),
        _ => None,
    };
    let w76 = words[76];
    let max_speed = if valid(w76) {
        (1..=3u16)
            .rev()
            .find(|b| w76 & (1 << b) != 0)
            .and_then(speed_name)
    } else {
        None
    };
    let w77 = words[77];
    let current_speed = if valid(w76) && valid(w77) {
        speed_name((w77 >> 1) & 0x7)
    } else {
        None
    };
    let w222 = words[222];
    let sata_version = if w222 & 0xf000 == 0x1000 {
        let bits = w222 & 0x0fff;
        let names = [
            "ATA8-AST",
            "SATA 1.0a",
            "SATA II Ext",
            "SATA 2.5",
            "SATA 2.6",
            "SATA 3.0",
            "SATA 3.1",
            "SATA 3.2",
            "SATA 3.3",
            "SATA 3.4",
            "SATA 3.5",
        ];
        (0..names.len())
            .rev()
            .find(|&b| bits & (1 << b) != 0)
            .map(|b| names[b].to_string())
    } else {
        None
    };
    Some(AtaIdentify {
        model: string(27, 46),
        firmware: string(23, 26),
        rotation_rpm,
        sata_version,
        max_speed: max_speed.map(str::to_string),
        current_speed: current_speed.map(str::to_string),
    })
}

/// One line of `/proc/mtd` (`mtd0: 01000000 00001000 "loader"`): node, size in bytes,
/// label.
pub fn parse_proc_mtd(text: &str) -> Vec<(String, u64, String)> {
    text.lines()
        .filter_map(|l| {
            let (node, rest) = l.split_once(':')?;
            if !is_numbered(node.trim(), "mtd") {
                return None;
            }
            let mut it = rest.split_whitespace();
            let size = u64::from_str_radix(it.next()?, 16).ok()?;
            let _erase = it.next()?;
            let label = rest
                .split_once('"')
                .and_then(|(_, r)| r.rsplit_once('"'))
                .map(|(l, _)| l.to_string())
                .unwrap_or_default();
            Some((node.trim().to_string(), size, label))
        })
        .collect()
}

fn read_mtd(root: &SysRoot) -> Vec<MtdFlash> {
    let Some(text) = root.read_opt("/proc/mtd") else {
        return Vec::new();
    };
    let mut out: Vec<MtdFlash> = Vec::new();
    for (node, size, label) in parse_proc_mtd(&text) {
        let Some(path) = root.resolve(format!("/sys/class/mtd/{node}")) else {
            continue;
        };
        // Partitions hang off the master (…/mtd/mtd0/mtd1) or off the same device as
        // the master (…/mtd/mtd1) depending on the kernel: the flash is the first
        // ancestor that is neither.
        let Some(flash_dir) = path
            .ancestors()
            .skip(1)
            .find(|a| {
                let n = file_name(a);
                n != "mtd" && !is_numbered(n, "mtd")
            })
            .map(Path::to_path_buf)
        else {
            continue;
        };
        let device = file_name(&flash_dir).to_string();
        let size = root.parse::<u64>(path.join("size")).unwrap_or(size);
        let idx = match out.iter().position(|f| f.device == device) {
            Some(i) => i,
            None => {
                let nor = |n: &str| root.value(flash_dir.join("spi-nor").join(n));
                let drivers: Vec<String> = flash_dir
                    .ancestors()
                    .take_while(|p| p.starts_with("/sys/devices"))
                    .take(8)
                    .filter_map(|p| root.link_name(p.join("driver")))
                    .collect();
                out.push(MtdFlash {
                    device: device.clone(),
                    kind: root.value(path.join("type")),
                    manufacturer: nor("manufacturer"),
                    partname: nor("partname"),
                    jedec_id: nor("jedec_id"),
                    drivers,
                    ..Default::default()
                });
                out.len() - 1
            }
        };
        let f = &mut out[idx];
        f.nodes.push(node);
        f.partitions.push((label, size));
    }
    for f in &mut out {
        f.size_bytes = Some(f.partitions.iter().map(|(_, s)| *s).sum());
        if f.partitions.len() == 1 {
            f.partitions.clear();
        }
    }
    out
}

/// One mount from `/proc/self/mountinfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mount {
    /// Device number major.
    pub major: u32,
    /// Device number minor.
    pub minor: u32,
    /// Where it is mounted.
    pub mount_point: String,
    /// Filesystem type (`ext4`, `btrfs`, `fuseblk`, `tmpfs`).
    pub fstype: String,
    /// Mount source (`/dev/mmcblk0p2`).
    pub source: String,
    /// Super block options.
    pub options: String,
}

/// Undo the octal escapes (`\040` for a space, `\011` for a tab) the kernel writes in
/// paths of `/proc/self/mountinfo` and `/proc/swaps`.
pub fn unescape_octal(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = u16::from(b[i + 1] - b'0') * 64
                + u16::from(b[i + 2] - b'0') * 8
                + u16::from(b[i + 3] - b'0');
            match u8::try_from(v) {
                Ok(c) => {
                    out.push(c);
                    i += 4;
                }
                Err(_) => {
                    out.push(b[i]);
                    i += 1;
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parse `/proc/self/mountinfo`. Malformed lines are skipped.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let f: Vec<&str> = left.split(' ').collect();
            let (maj, min) = f.get(2)?.split_once(':')?;
            let r: Vec<&str> = right.split(' ').collect();
            Some(Mount {
                major: maj.parse().ok()?,
                minor: min.parse().ok()?,
                mount_point: unescape_octal(f.get(4)?),
                fstype: r.first()?.to_string(),
                source: unescape_octal(r.get(1).copied().unwrap_or_default()),
                options: r.get(2).copied().unwrap_or_default().to_string(),
            })
        })
        .collect()
}

/// The mount holding `path` (an absolute, canonical path): the longest mount point that
/// is a prefix of it, the last one mounted when several are stacked.
pub fn mount_of<'a>(mounts: &'a [Mount], path: &Path) -> Option<&'a Mount> {
    mounts
        .iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .fold(None, |best: Option<&Mount>, m| match best {
            Some(b)
                if Path::new(&b.mount_point).components().count()
                    > Path::new(&m.mount_point).components().count() =>
            {
                Some(b)
            }
            _ => Some(m),
        })
}

/// Split a `dev_t` as glibc encodes it (`gnu_dev_major`/`gnu_dev_minor`).
pub fn split_dev(dev: u64) -> (u32, u32) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major as u32, minor as u32)
}

/// The whole disks behind a mount source such as `/dev/sda1` or `/dev/md0` (for
/// filesystems like btrfs whose device number is anonymous).
pub fn disks_of_source(root: &SysRoot, source: &str) -> Vec<String> {
    let Some(name) = source.strip_prefix("/dev/") else {
        return Vec::new();
    };
    let name = name.rsplit('/').next().unwrap_or(name);
    let Some(p) = root.resolve(format!("/sys/class/block/{name}")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    disks_below(root, &p, 0, &mut out);
    out.sort();
    out.dedup();
    out
}

/// The whole disks under block device `major:minor`: the disk itself, the disk a
/// partition belongs to, or the members of an md/dm device (through `slaves/`).
pub fn disks_of_devnum(root: &SysRoot, major: u32, minor: u32) -> Vec<String> {
    let Some(p) = root.resolve(format!("/sys/dev/block/{major}:{minor}")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    disks_below(root, &p, 0, &mut out);
    out.sort();
    out.dedup();
    out
}

fn disks_below(root: &SysRoot, dev: &Path, depth: u32, out: &mut Vec<String>) {
    if depth > 4 {
        return;
    }
    let name = file_name(dev).to_string();
    // A partition has a `partition` attribute; its parent directory is the disk.
    let disk = if root.exists(dev.join("partition")) {
        dev.parent().map(Path::to_path_buf)
    } else {
        Some(dev.to_path_buf())
    };
    let Some(disk) = disk else { return };
    let slaves = root.list(disk.join("slaves"));
    if slaves.is_empty() {
        let d = file_name(&disk).to_string();
        out.push(if d.is_empty() { name } else { d });
        return;
    }
    for s in slaves {
        if let Some(sp) = root.resolve(format!("/sys/class/block/{s}")) {
            disks_below(root, &sp, depth + 1, out);
        }
    }
}

/// Where a test file lands: the filesystem holding a directory and the disks under it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Landing {
    /// Filesystem type.
    pub fstype: Option<String>,
    /// Mount point.
    pub mount_point: Option<String>,
    /// Mount source (`/dev/mmcblk0p2`).
    pub source: Option<String>,
    /// Whole disks underneath (several for RAID).
    #[serde(default)]
    pub disks: Vec<String>,
}

/// The filesystem and disks `dir` is on. A test file lands on this machine's
/// filesystems: only the live system's mount table (our own process's view,
/// `/proc/self/mountinfo`) and devices describe where, so under `--sysroot` nothing is
/// known.
pub fn landing(root: &SysRoot, dir: &Path) -> Landing {
    use std::os::unix::fs::MetadataExt;
    if !root.is_host() {
        return Landing::default();
    }
    let mounts = root
        .read_opt("/proc/self/mountinfo")
        .map(|t| parse_mountinfo(&t))
        .unwrap_or_default();
    let m = mount_of(&mounts, dir);
    let mut disks = std::fs::metadata(dir)
        .map(|md| {
            let (ma, mi) = split_dev(md.dev());
            disks_of_devnum(root, ma, mi)
        })
        .unwrap_or_default();
    if disks.is_empty() {
        if let Some(m) = m {
            disks = disks_of_source(root, &m.source);
        }
    }
    Landing {
        fstype: m.map(|m| m.fstype.clone()),
        mount_point: m.map(|m| m.mount_point.clone()),
        source: m.map(|m| m.source.clone()),
        disks,
    }
}

/// The `/proc/interrupts` lines serving any of `devices`, sorted, each once; empty when
/// the file cannot be read.
pub fn irq_ids(root: &SysRoot, devices: &[Device]) -> Vec<String> {
    crate::sys::irq::read_interrupts(root)
        .map(|ints| {
            let mut ids: Vec<String> = devices.iter().flat_map(|d| irq_lines(d, &ints)).collect();
            ids.sort();
            ids.dedup();
            ids
        })
        .unwrap_or_default()
}

/// The `/proc/interrupts` lines (their labels) that serve `dev`: NVMe queues
/// (`nvme0q1`), virtio request queues (`virtio1-req.0`), the MMC host (`mmc0`, or the
/// controller's platform name for dw_mmc), the USB host controller (`xhci-hcd:usb1`;
/// xhci names its vector after the USB 2.0 bus, one below the 5 Gbps bus), AHCI
/// (`ahci[0000:01:00.0]`), any handler named after a device on the disk's sysfs path
/// (`fe210000.sata`), and on x86 the MSI lines of its PCI function (`PCI-MSIX-0000:00:02.0`).
pub fn irq_lines(dev: &Device, ints: &crate::sys::irq::Interrupts) -> Vec<String> {
    // Device-like components of the sysfs path: platform (`fe2e0000.mmc`) and PCI
    // (`0000:01:00.0`) names, and `virtioN`.
    let comps: Vec<&str> = dev
        .sysfs_path
        .split('/')
        .filter(|c| c.contains('.') || c.contains(':') || c.starts_with("virtio"))
        .filter(|c| !c.is_empty())
        .collect();
    let nvme_ctrl =
        (dev.bus == Bus::Nvme).then(|| dev.node.rsplit('/').next().unwrap_or_default().to_string());
    let mmc_host = dev.mmc.as_ref().map(|m| m.host.as_str());
    let usb_bus = dev
        .usb
        .as_ref()
        .and_then(|u| u.hubs.iter().find(|h| h.is_root_hub()))
        .and_then(|h| h.busnum);
    let pci_addr = dev.pci.as_ref().map(|p| p.address.as_str());
    let action_matches = |a: &str| {
        if let Some(c) = &nvme_ctrl {
            if let Some(q) = a.strip_prefix(c.as_str()).and_then(|r| r.strip_prefix('q')) {
                if !q.is_empty() && q.bytes().all(|b| b.is_ascii_digit()) {
                    return true;
                }
            }
        }
        if mmc_host.is_some_and(|h| !h.is_empty() && a == h) {
            return true;
        }
        if let Some(b) = usb_bus {
            if let Some((hcd, bus)) = a.rsplit_once(":usb") {
                let n: Option<u32> = bus.parse().ok();
                let xhci = hcd.contains("xhci");
                if n == Some(b) || (xhci && n.is_some() && n == b.checked_sub(1)) {
                    return true;
                }
            }
        }
        comps.iter().any(|c| {
            a == *c
                || a.contains(&format!("[{c}]"))
                || (c.starts_with("virtio")
                    && a.len() > c.len()
                    && a.starts_with(c)
                    && a.as_bytes()[c.len()] == b'-')
        })
    };
    ints.lines
        .iter()
        .filter(|l| l.irq.is_some())
        .filter(|l| {
            l.actions.iter().any(|a| action_matches(a))
                || pci_addr.is_some_and(|p| {
                    !p.is_empty()
                        && l.desc.split_whitespace().any(|w| {
                            w.strip_prefix("PCI-MSIX-")
                                .or_else(|| w.strip_prefix("PCI-MSI-"))
                                == Some(p)
                        })
                })
        })
        // Configuration-change vectors carry no I/O.
        .filter(|l| !l.actions.iter().all(|a| a.ends_with("-config")))
        .map(|l| l.id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This VM's `/proc/interrupts` (2 CPUs, virtio disk `virtio1`), plus lines named
    /// as the kernel's drivers name them: AHCI on RK3588 as quoted in the ROCK 5 ITX
    /// review (`ITS-MSI 143130624 Edge ahci[0001:11:00.0]`), NVMe queues `nvme%dq%d`,
    /// sdhci `mmc%d`, dw_mmc by its platform device, xhci `xhci-hcd:usb%d`.
    const INTERRUPTS: &str = "           CPU0       CPU1       
 26:          0         16  IO-APIC   4-edge      ttyS0
 35:          0          1 PCI-MSIX-0000:00:02.0   0-edge      virtio1-config
 36:          0    6873156 PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0
 38:          0      13353 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0
 80:        100          0 ITS-MSI 143130624 Edge      ahci[0001:11:00.0]
 81:         10          5 ITS-MSI 524288 Edge      nvme0q0
 82:       5000          0 ITS-MSI 524289 Edge      nvme0q1
 83:          0          7 ITS-MSI 524290 Edge      nvme1q1
 90:        300          0 GICv3 232 Level     mmc0
 91:        200          0 GICv3 235 Level     fe2c0000.mmc
 92:         40          0 GICv3 252 Level     xhci-hcd:usb7
LOC:    8538690   10302554   Local timer interrupts
";

    #[test]
    fn irq_lines_of_each_kind_of_disk() {
        let ints = crate::sys::irq::parse_interrupts(INTERRUPTS);
        let root = SysRoot::new(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/storage/vm-virtio"),
        );
        let vda = read_disk(&root, "vda").expect("fixture disk");
        // The request queue, not the config vector, not the NIC (virtio2).
        assert_eq!(irq_lines(&vda, &ints), ["36"]);

        let mut nvme = vda.clone();
        nvme.bus = Bus::Nvme;
        nvme.node = "/dev/nvme0".into();
        nvme.sysfs_path = "/sys/devices/platform/a40000000.pcie/pci0000:00/0000:00:00.0/0000:01:00.0/nvme/nvme0/nvme0n1".into();
        nvme.pci = None;
        assert_eq!(irq_lines(&nvme, &ints), ["81", "82"]);

        let mut sata = nvme.clone();
        sata.bus = Bus::Sata;
        sata.node = "/dev/sda".into();
        sata.sysfs_path = "/sys/devices/platform/a41000000.pcie/pci0001:10/0001:10:00.0/0001:11:00.0/ata1/host0/target0:0:0/0:0:0:0/block/sda".into();
        assert_eq!(irq_lines(&sata, &ints), ["80"]);

        let mut sd = nvme.clone();
        sd.bus = Bus::Mmc;
        sd.node = "/dev/mmcblk1".into();
        sd.sysfs_path =
            "/sys/devices/platform/fe2c0000.mmc/mmc_host/mmc1/mmc1:aaaa/block/mmcblk1".into();
        sd.mmc = Some(MmcInfo {
            host: "mmc1".into(),
            ..Default::default()
        });
        assert_eq!(irq_lines(&sd, &ints), ["91"]);
        sd.mmc = Some(MmcInfo {
            host: "mmc0".into(),
            ..Default::default()
        });
        sd.sysfs_path =
            "/sys/devices/platform/fe2e0000.mmc/mmc_host/mmc0/mmc0:0001/block/mmcblk0".into();
        assert_eq!(irq_lines(&sd, &ints), ["90"]);

        // A disk on the 5 Gbps bus 8 of a controller whose vector is named after bus 7.
        let mut usb = nvme.clone();
        usb.bus = Bus::Usb;
        usb.node = "/dev/sdb".into();
        usb.sysfs_path = "/sys/devices/platform/usbdrd3_0/fc000000.usb/xhci-hcd.0.auto/usb8/8-1/8-1:1.0/host1/target1:0:0/1:0:0:0/block/sdb".into();
        usb.usb = Some(UsbPath {
            hubs: vec![UsbDevice {
                sysname: "usb8".into(),
                busnum: Some(8),
                ..Default::default()
            }],
            ..Default::default()
        });
        assert_eq!(irq_lines(&usb, &ints), ["92"]);
        // Nothing known: nothing matched (the table says n/a).
        assert!(irq_lines(&usb, &crate::sys::irq::Interrupts::default()).is_empty());
    }

    #[test]
    fn which_block_devices_are_disks() {
        for d in [
            "sda", "sdab", "nvme0n1", "nvme10n2", "mmcblk0", "vda", "xvda",
        ] {
            assert!(is_listed_disk(d), "{d}");
        }
        for d in [
            "loop0",
            "zram0",
            "dm-0",
            "md127",
            "sr0",
            "mmcblk0boot0",
            "mmcblk0rpmb",
            "nvme0c0n1",
            "ram0",
            "sda1",
            "nvme0",
            "mtdblock0",
        ] {
            assert!(!is_listed_disk(d), "{d}");
        }
    }

    /// IDENTIFY words of a SATA 3.1 SSD at 6 Gb/s, built field by field as ACS-3 lays
    /// them out (words 23–26 firmware, 27–46 model, 76/77 SATA speeds, 217 rotation
    /// rate 1 = non-rotating, 222 transport: serial, SATA 3.1).
    pub(crate) fn identify_text(model: &str, fw: &str, rpm: u16, w222: u16) -> String {
        let mut w = [0u16; 256];
        let put = |w: &mut [u16; 256], from: usize, len: usize, s: &str| {
            let mut b = s.as_bytes().to_vec();
            b.resize(len * 2, b' ');
            for i in 0..len {
                w[from + i] = (u16::from(b[2 * i]) << 8) | u16::from(b[2 * i + 1]);
            }
        };
        put(&mut w, 23, 4, fw);
        put(&mut w, 27, 20, model);
        w[76] = 0b1110;
        w[77] = 3 << 1;
        w[217] = rpm;
        w[222] = w222;
        w.chunks(8)
            .map(|c| {
                c.iter()
                    .map(|x| format!("{x:04x}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }

    #[test]
    fn identify_of_a_samsung_750_evo() {
        let t = identify_text("Samsung SSD 750 EVO 120GB", "MAT01B6Q", 1, 0x107f);
        let id = parse_identify(&t).unwrap();
        assert_eq!(id.model.as_deref(), Some("Samsung SSD 750 EVO 120GB"));
        assert_eq!(id.firmware.as_deref(), Some("MAT01B6Q"));
        assert_eq!(id.rotation_rpm, Some(0));
        assert_eq!(id.sata_version.as_deref(), Some("SATA 3.1"));
        assert_eq!(id.max_speed.as_deref(), Some("6.0 Gb/s"));
        assert_eq!(id.current_speed.as_deref(), Some("6.0 Gb/s"));
        let hdd = parse_identify(&identify_text("TOSHIBA HDWF180", "GX2M", 7200, 0x11ff)).unwrap();
        assert_eq!(hdd.rotation_rpm, Some(7200));
        assert_eq!(hdd.sata_version.as_deref(), Some("SATA 3.3"));
        assert_eq!(parse_identify("0000 ffff"), None);
        assert_eq!(parse_identify("zz"), None);
    }

    #[test]
    fn proc_mtd() {
        let t = "dev:    size   erasesize  name\nmtd0: 01000000 00001000 \"sfc_nor\"\nmtd1: 00020000 00001000 \"spl\"\ngarbage\n";
        assert_eq!(
            parse_proc_mtd(t),
            vec![
                ("mtd0".to_string(), 16 << 20, "sfc_nor".to_string()),
                ("mtd1".to_string(), 128 << 10, "spl".to_string())
            ]
        );
    }

    const MOUNTINFO: &str = "22 27 0:21 / /proc rw,relatime - proc proc rw\n\
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n\
31 27 179:2 / /mnt/my\\040card rw - vfat /dev/mmcblk0p2 rw\n\
40 27 0:45 / /media/ntfs rw - fuseblk /dev/sda1 rw,user_id=0\n\
bad line\n";

    #[test]
    fn mountinfo_and_longest_prefix() {
        let m = parse_mountinfo(MOUNTINFO);
        assert_eq!(m.len(), 4);
        assert_eq!(m[2].mount_point, "/mnt/my card");
        let f = mount_of(&m, Path::new("/mnt/my card/x")).unwrap();
        assert_eq!((f.major, f.minor, f.fstype.as_str()), (179, 2, "vfat"));
        let r = mount_of(&m, Path::new("/tmp")).unwrap();
        assert_eq!(r.source, "/dev/vda");
        assert_eq!(
            mount_of(&m, Path::new("/media/ntfs")).unwrap().fstype,
            "fuseblk"
        );
        assert_eq!(unescape_octal("a\\134b\\"), "a\\b\\");
        assert_eq!(unescape_octal("\\777x"), "\\777x");
        assert_eq!(unescape_octal("a\\040b\\011c"), "a b\tc");
        assert_eq!(unescape_octal("trailing\\04"), "trailing\\04");
        assert_eq!(unescape_octal("\\777"), "\\777");
    }

    #[test]
    fn mounts_of_a_pi_with_a_swap_file() {
        let mi = "22 1 179:2 / / rw,noatime shared:1 - ext4 /dev/root rw\n23 22 0:5 / /boot/firmware rw - vfat /dev/mmcblk0p1 rw\n24 22 0:6 / /var/my\\040dir rw - tmpfs tmpfs rw\nbroken line\n";
        let m = parse_mountinfo(mi);
        assert_eq!(m.len(), 3);
        let at = |p: &str| mount_of(&m, Path::new(p));
        assert_eq!(
            at("/var/swap").map(|m| m.source.as_str()),
            Some("/dev/root")
        );
        assert_eq!(
            at("/boot/firmware/x").map(|m| m.source.as_str()),
            Some("/dev/mmcblk0p1")
        );
        assert_eq!(
            at("/var/my dir/f").map(|m| m.fstype.as_str()),
            Some("tmpfs")
        );
        assert_eq!(
            at("/boot/firmwarex").map(|m| m.mount_point.as_str()),
            Some("/")
        );
        assert_eq!(mount_of(&[], Path::new("/x")), None);
    }

    #[test]
    fn dev_t_split() {
        assert_eq!(split_dev(0xfe00), (254, 0));
        assert_eq!(split_dev(0xb302), (179, 2));
        assert_eq!(split_dev((259 << 8) | 1), (259, 1));
        // Large numbers use the high bits (makedev: major 0x1234, minor 0x5678).
        let (ma, mi) = (0x1234u64, 0x5678u64);
        let dev = ((ma & 0xfff) << 8) | ((ma & !0xfff) << 32) | (mi & 0xff) | ((mi & !0xff) << 12);
        assert_eq!(split_dev(dev), (0x1234, 0x5678));
    }
}
