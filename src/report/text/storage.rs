//! Storage as users know it from sbc-bench `-S` (one line per device) and iozone (its
//! result table), plus what we add: the path from CPU to each device, findings, MB/s and
//! IOPS. Pure functions of the inventory and results.

use crate::bench::storage::{self as engine, BenchResult, StoragePhase, size_words};
use crate::record::finding::Finding;
use crate::record::storage::{BenchReport, MIN_WINDOW_TICKS, PhaseObservation};
use crate::sys::pci;
use crate::sys::storage::{Bus, Device, Health, Inventory, Landing, MmcInfo, MtdFlash};
use crate::sys::usb;

/// A size as `lsblk` prints it: binary units, one decimal rounded half up, a trailing
/// `.0` dropped (`238.8G`, `58G`, `7.3T`, `512M`).
pub fn lsblk_size(bytes: u64) -> String {
    const LETTERS: [char; 7] = ['B', 'K', 'M', 'G', 'T', 'P', 'E'];
    let mut exp = 0u32;
    while exp < 60 && bytes >= 1u64 << (exp + 10) {
        exp += 10;
    }
    let letter = LETTERS[(exp / 10) as usize];
    if exp == 0 {
        return format!("{bytes}{letter}");
    }
    let mut whole = bytes >> exp;
    let rem = bytes & ((1u64 << exp) - 1);
    // Three digits after the point, truncated, then rounded to one.
    let thousandths = ((u128::from(rem) * 1000) >> exp) as u64;
    let mut tenth = (thousandths + 50) / 100;
    if tenth == 10 {
        whole += 1;
        tenth = 0;
    }
    if tenth == 0 {
        format!("{whole}{letter}")
    } else {
        format!("{whole}.{tenth}{letter}")
    }
}

fn size_prefix(dev: &Device) -> String {
    match dev.size_bytes {
        Some(b) if b > 0 => format!("{}B ", lsblk_size(b)),
        _ => String::new(),
    }
}

/// Drive model with its maker when the model alone does not say (smartctl's family
/// `Seagate Barracuda…` + `ST3000DM001` → `Seagate ST3000DM001`), and the makers whose
/// model numbers are bare codes (Crucial `CT…`, Transcend `TS…`).
fn model_with_vendor(h: &Health) -> Option<String> {
    let model = h.model.clone()?;
    let controller_vendors = [
        "Silicon Motion",
        "Phison",
        "SandForce",
        "SK hynix",
        "Marvell",
        "JMicron",
        "Apacer SSDs",
        "Indilinx",
    ];
    let vendor = h
        .model_family
        .as_deref()
        .filter(|f| !controller_vendors.iter().any(|c| f.contains(c)))
        .and_then(|f| f.split_whitespace().next());
    let with = match vendor {
        Some(v) if !model.to_lowercase().contains(&v.to_lowercase()) => format!("{v} {model}"),
        _ => model,
    };
    Some(if with.starts_with("CT") {
        format!("Crucial {with}")
    } else if with.starts_with("TS") {
        format!("Transcend {with}")
    } else {
        with
    })
}

fn drive_type(dev: &Device) -> Option<&'static str> {
    let rpm = dev
        .health
        .as_ref()
        .and_then(|h| h.rotation_rpm)
        .or_else(|| {
            dev.ata
                .as_ref()
                .and_then(|a| a.identify.as_ref())
                .and_then(|i| i.rotation_rpm)
        });
    match (dev.bus, rpm) {
        (Bus::Nvme, _) => Some("SSD"),
        (_, Some(0)) => Some("SSD"),
        (_, Some(_)) => Some("HDD"),
        _ => None,
    }
}

/// `SATA 3.1, 6.0 Gb/s (current: 6.0 Gb/s)` as smartctl prints "SATA Version is".
fn sata_words(version: Option<&str>, max: Option<&str>, cur: Option<&str>) -> String {
    let mut s = version.unwrap_or("SATA").to_string();
    if let Some(m) = max {
        s.push_str(&format!(", {m}"));
        if let Some(c) = cur {
            s.push_str(&format!(" (current: {c})"));
        }
    }
    s
}

fn sata_info(dev: &Device) -> String {
    if let Some(h) = dev.health.as_ref().filter(|h| h.sata_version.is_some()) {
        return sata_words(
            h.sata_version.as_deref(),
            h.sata_speed_max.as_deref(),
            h.sata_speed_current.as_deref(),
        );
    }
    match dev.ata.as_ref().and_then(|a| a.identify.as_ref()) {
        Some(i) => sata_words(
            i.sata_version.as_deref(),
            i.max_speed.as_deref(),
            i.current_speed.as_deref(),
        ),
        None => "SATA".to_string(),
    }
}

/// Health remarks in sbc-bench's order and words: wear, CRC errors, sector counters,
/// NVMe media errors and error log, failed self-assessment.
fn smart_info(dev: &Device) -> String {
    let Some(h) = &dev.health else {
        return String::new();
    };
    let mut s = String::new();
    let ssd = drive_type(dev) == Some("SSD");
    if let Some(p) = h.percentage_used {
        if ssd {
            s.push_str(&format!(", {p}% worn out"));
        }
    } else if dev.bus == Bus::Nvme {
        s.push_str(", 0% worn out");
    }
    if let Some(n) = h.crc_errors.filter(|&n| n > 0) {
        s.push_str(&format!(", {n} CRC errors"));
    }
    if !ssd {
        for (v, what) in [
            (h.reallocated_sectors, "Reallocated Sector Count"),
            (h.reallocated_events, "Reallocated Event Count"),
            (h.pending_sectors, "Current Pending Sector"),
            (h.offline_uncorrectable, "Offline Uncorrectable"),
        ] {
            if let Some(n) = v.filter(|&n| n > 0) {
                s.push_str(&format!(", {n} {what}"));
            }
        }
    }
    if let Some(n) = h.end_to_end_errors.filter(|&n| n > 0) {
        s.push_str(&format!(", {n} End-to-End errors"));
    }
    if let Some(n) = h.media_errors.filter(|&n| n > 0) {
        s.push_str(&format!(", {n} media errors"));
    }
    if let Some(n) = h.error_log_entries.filter(|&n| n > 0) {
        s.push_str(&format!(", {n} error log entries"));
    }
    if h.passed == Some(false) {
        s.push_str(", SMART health: **FAILED**");
    }
    s
}

/// `, drive temp: 26°C`, or `unhealthy` above 60 °C for SSDs and 45 °C for disks.
fn temp_info(dev: &Device) -> String {
    let Some(t) = dev.health.as_ref().and_then(|h| h.temp_c) else {
        return String::new();
    };
    let limit = if drive_type(dev) == Some("HDD") {
        45
    } else {
        60
    };
    if t > limit {
        format!(", unhealthy drive temp: {t}°C")
    } else {
        format!(", drive temp: {t}°C")
    }
}

fn usb_speed_info(dev: &Device) -> String {
    let Some(u) = &dev.usb else {
        return String::new();
    };
    let mut s = format!(
        ", Driver={}",
        u.interface_driver.as_deref().unwrap_or("unknown")
    );
    if let Some(sp) = u.device.speed_mbps {
        s.push_str(&format!(", {}", usb::format_speed(sp)));
    }
    if !u.device.capable.is_empty() {
        s.push_str(&format!(" (capable of {})", u.device.capable.join(", ")));
    }
    s
}

/// The line sbc-bench `-S` prints for a disk, without the leading `  * `.
pub fn device_line(dev: &Device) -> String {
    let size = size_prefix(dev);
    let node = &dev.node;
    match dev.bus {
        Bus::Sata => {
            let model = dev
                .health
                .as_ref()
                .and_then(model_with_vendor)
                .or_else(|| {
                    dev.ata
                        .as_ref()
                        .and_then(|a| a.identify.as_ref())
                        .and_then(|i| i.model.clone())
                })
                .or_else(|| dev.scsi_model.clone())
                .unwrap_or_else(|| "unknown drive".to_string());
            let kind = drive_type(dev).map(|t| format!(" {t}")).unwrap_or_default();
            format!(
                "{size}\"{model}\"{kind} as {node}: {}{}{}",
                sata_info(dev),
                smart_info(dev),
                temp_info(dev)
            )
        }
        Bus::Nvme => {
            let model = dev
                .health
                .as_ref()
                .and_then(|h| h.model.clone())
                .or_else(|| dev.nvme.as_ref().and_then(|n| n.model.clone()))
                .unwrap_or_else(|| "NVMe SSD".to_string());
            let link = dev
                .pci
                .as_ref()
                .and_then(|p| p.link.as_ref())
                .and_then(pci::format_link_status)
                .unwrap_or_default();
            let aspm = dev
                .pci
                .as_ref()
                .and_then(|p| p.aspm.as_ref())
                .map(|a| format!(", {}", a.describe()))
                .unwrap_or_default();
            let rest = format!("{link}{}{}{aspm}", smart_info(dev), temp_info(dev));
            let rest = rest.strip_prefix(", ").unwrap_or(&rest).to_string();
            if rest.is_empty() {
                // Nothing known beyond the name (a sparse sysfs): no dangling `: `.
                format!("{size}\"{model}\" SSD as {node}")
            } else {
                format!("{size}\"{model}\" SSD as {node}: {rest}")
            }
        }
        Bus::Usb => usb_line(dev, &size),
        Bus::Mmc => mmc_line(dev, &size),
        Bus::Virtio => format!(
            "{size}Virtual disk: {node}, Driver={}",
            dev.driver.as_deref().unwrap_or("virtio")
        ),
        Bus::Ufs => format!(
            "{size}{} UFS module: {node}, Driver={}",
            scsi_name(dev).unwrap_or_else(|| "unknown".into()),
            dev.driver.as_deref().unwrap_or("ufshcd")
        ),
        Bus::Scsi => format!(
            "{size}{}: {node}, Driver={}",
            scsi_name(dev).unwrap_or_else(|| "SCSI disk".into()),
            dev.driver.as_deref().unwrap_or("unknown")
        ),
    }
}

fn scsi_name(dev: &Device) -> Option<String> {
    let s = format!(
        "{} {}",
        dev.scsi_vendor.as_deref().unwrap_or_default(),
        dev.scsi_model.as_deref().unwrap_or_default()
    );
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    (!s.is_empty()).then_some(s)
}

fn usb_line(dev: &Device, size: &str) -> String {
    let node = &dev.node;
    let Some(u) = &dev.usb else {
        return format!("{size}[unknown device] as {node}: USB");
    };
    let d = &u.device;
    let vid = d.vendor_id.as_deref().unwrap_or_default();
    let pid = d.product_id.as_deref().unwrap_or_default();
    let bridge = usb::bridge_name(vid, pid, d.product.as_deref());
    let lsusb_name = usb::display_name(d);
    let health = dev.health.as_ref().filter(|h| h.model.is_some());
    match health {
        Some(h) => {
            let model = model_with_vendor(h).unwrap_or_default();
            let kind = drive_type(dev).map(|t| format!(" {t}")).unwrap_or_default();
            let behind = if h.protocol.as_deref() == Some("NVMe") {
                " [NVMe]".to_string()
            } else {
                format!(
                    " [{}]",
                    sata_words(
                        h.sata_version.as_deref(),
                        h.sata_speed_max.as_deref(),
                        h.sata_speed_current.as_deref()
                    )
                )
            };
            let id = d.id().unwrap_or_default();
            let info = if vid.is_empty() {
                "behind USB".to_string()
            } else if usb::is_bridge_vendor(vid, pid) {
                match &bridge {
                    Some(b) => format!("behind {b} ({id})"),
                    None => format!("behind \"{}\" ({id})", lsusb_name.unwrap_or_default()),
                }
            } else if usb::is_drive_vendor(vid) {
                format!("in \"{}\" ({id})", lsusb_name.unwrap_or_default())
            } else {
                format!("behind \"{}\" ({id})", lsusb_name.unwrap_or_default())
            };
            format!(
                "{size}\"{model}\"{kind} as {node}{behind}: {info}{}{}{}",
                smart_info(dev),
                usb_speed_info(dev),
                temp_info(dev)
            )
        }
        None => {
            let name = bridge
                .or(lsusb_name)
                .or_else(|| scsi_name(dev))
                .map(|n| format!("\"{n}\""))
                .unwrap_or_else(|| "[unknown device]".to_string());
            format!("{size}{name} as {node}: USB{}", usb_speed_info(dev))
        }
    }
}

fn mmc_line(dev: &Device, size: &str) -> String {
    let node = &dev.node;
    let Some(m) = &dev.mmc else {
        return format!("{size}MMC device as {node}");
    };
    let mode = m.bus_mode.map(|b| b.words()).unwrap_or_default();
    let kind = match m.card_type.as_deref() {
        Some("MMC") => match &m.emmc_version {
            Some(v) => format!("eMMC {v}"),
            None => "eMMC".to_string(),
        },
        // The kernel's SDHC is shown as SD, as sbc-bench does.
        Some("SD") => match m.capacity_class.as_deref() {
            Some("SDXC") => "SDXC".to_string(),
            _ => "SD".to_string(),
        },
        Some(other) => other.to_string(),
        None => "MMC".to_string(),
    };
    let name = if m.maker.hide_name {
        String::new()
    } else {
        m.name.clone().unwrap_or_default()
    };
    // Fields sysfs did not give are left out rather than printed as `""` or `?/?`; a
    // pair with one half known keeps `?` for the other.
    let label = format!("{}{name}", m.maker.prefix());
    let label = label.trim();
    let quoted = if label.is_empty() {
        String::new()
    } else {
        format!("\"{label}\" ")
    };
    let q = |o: &Option<String>| o.clone().unwrap_or_else(|| "?".to_string());
    let mut fields = Vec::new();
    if let Some(d) = &m.date {
        fields.push(format!("date {d}"));
    }
    if m.manfid.is_some() || m.oemid.is_some() {
        fields.push(format!("manfid/oemid: {}/{}", q(&m.manfid), q(&m.oemid)));
    }
    if m.hwrev.is_some() || m.fwrev.is_some() {
        fields.push(format!("hw/fw rev: {}/{}", q(&m.hwrev), q(&m.fwrev)));
    }
    let head = format!("{size}{quoted}{mode}{kind} card as {node}");
    if fields.is_empty() {
        head
    } else {
        format!("{head}: {}", fields.join(", "))
    }
}

/// The line for an MTD flash chip, without the leading `  * `.
pub fn flash_line(f: &MtdFlash) -> String {
    let mut name = String::new();
    if let (Some(m), Some(p)) = (&f.manufacturer, &f.partname) {
        let mut c = m.chars();
        let cap: String = c
            .next()
            .map(|x| x.to_uppercase().chain(c).collect())
            .unwrap_or_default();
        name = format!("{cap} {} ", p.to_uppercase());
    }
    let drivers = f.drivers.join("/");
    let is_spi = f.drivers.iter().any(|d| d.contains("spi"));
    let kind = match f.kind.as_deref() {
        Some("nor") if is_spi => "SPI NOR flash",
        Some("nor") => "NOR flash",
        Some(k) if k.contains("nand") && is_spi => "SPI NAND flash",
        Some(k) if k.contains("nand") => "NAND flash",
        _ => "MTD device",
    };
    if f.partitions.is_empty() {
        let size = f
            .size_bytes
            .map(|b| format!("{}MB ", b >> 20))
            .unwrap_or_default();
        format!("{name}{size}{kind}, drivers in use: {drivers}")
    } else {
        let parts: Vec<String> = f
            .partitions
            .iter()
            .map(|(l, b)| format!("{l}: {}KB", b >> 10))
            .collect();
        format!(
            "{name}{kind} ({} partitions: {}), drivers in use: {drivers}",
            f.partitions.len(),
            parts.join(", ")
        )
    }
}

/// Should the device be listed? UFS exposes tiny pseudo disks (boot LUNs, RPMB) that
/// sbc-bench hides.
pub fn listed(dev: &Device) -> bool {
    !(dev.bus == Bus::Ufs && dev.size_bytes.is_none_or(|b| b < 10 << 20))
}

/// A PCI function in a path: address, driver and IDs, link state, ASPM.
fn pci_words(p: &pci::PciDevice) -> String {
    let mut s = p.address.clone();
    let mut extra = Vec::new();
    if let Some(d) = &p.driver {
        extra.push(d.clone());
    }
    if let (Some(v), Some(d)) = (&p.vendor_id, &p.device_id) {
        extra.push(format!("{v}:{d}"));
    }
    if !extra.is_empty() {
        s.push_str(&format!(" ({})", extra.join(", ")));
    }
    if let Some(l) = p.link.as_ref().and_then(pci::format_link_status) {
        s.push_str(&format!(", {l}"));
    }
    if let Some(a) = &p.aspm {
        s.push_str(&format!(", {}", a.describe()));
    }
    s
}

/// The PCI(e) function behind a device, when there is one.
fn pci_part(dev: &Device, bus: &str) -> Option<String> {
    dev.pci.as_ref().map(|p| format!("{bus} {}", pci_words(p)))
}

/// What sits between CPU and the device, one line.
pub fn path_line(dev: &Device, all: &[Device]) -> String {
    let parts: Vec<String> = match dev.bus {
        Bus::Nvme => pci_part(dev, "PCIe").into_iter().collect(),
        Bus::Sata => sata_path(dev),
        Bus::Usb => usb_path(dev, all),
        Bus::Mmc => dev
            .mmc
            .as_ref()
            .map(|m| mmc_path(dev, m))
            .into_iter()
            .collect(),
        Bus::Virtio => {
            let mut parts = vec![format!(
                "virtio ({})",
                dev.driver.as_deref().unwrap_or("unknown transport")
            )];
            parts.extend(pci_part(dev, "PCI"));
            parts
        }
        Bus::Ufs | Bus::Scsi => {
            let mut parts = vec![format!(
                "{} ({})",
                if dev.bus == Bus::Ufs { "UFS" } else { "SCSI" },
                dev.driver.as_deref().unwrap_or("unknown driver")
            )];
            parts.extend(pci_part(dev, "PCIe"));
            parts
        }
    };
    format!("{}: {}", dev.node, parts.join(" → "))
}

fn sata_path(dev: &Device) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(a) = &dev.ata {
        parts.push(format!(
            "SATA port {} at {}",
            a.port,
            a.link_speed.as_deref().unwrap_or("unknown speed")
        ));
    }
    parts.push(pci_part(dev, "AHCI").unwrap_or_else(|| {
        format!(
            "SoC SATA controller ({})",
            dev.driver.as_deref().unwrap_or("unknown driver")
        )
    }));
    parts
}

fn usb_path(dev: &Device, all: &[Device]) -> Vec<String> {
    let Some(u) = &dev.usb else {
        return Vec::new();
    };
    let d = &u.device;
    let mut parts = vec![format!(
        "USB {} {} at {} ({})",
        d.sysname,
        d.id().unwrap_or_default(),
        d.speed_mbps.map(usb::format_speed).unwrap_or_default(),
        u.interface_driver.as_deref().unwrap_or("no driver")
    )];
    parts.extend(u.external_hubs().map(|h| hub_part(dev, h, all)));
    if let Some(rh) = u.hubs.iter().find(|h| h.is_root_hub()) {
        let mut s = format!(
            "bus {} ({}",
            rh.busnum.map(|b| b.to_string()).unwrap_or_default(),
            u.host_driver.as_deref().unwrap_or("host controller")
        );
        if let Some(sp) = rh.speed_mbps {
            s.push_str(&format!(", {}", usb::format_speed(sp)));
        }
        s.push(')');
        parts.push(s);
    }
    parts.extend(pci_part(dev, "PCIe"));
    parts
}

/// An external hub in front of `dev`, and the other disks behind it.
fn hub_part(dev: &Device, h: &usb::UsbDevice, all: &[Device]) -> String {
    let shared: Vec<&str> = all
        .iter()
        .filter(|o| o.node != dev.node)
        .filter(|o| {
            o.usb
                .as_ref()
                .is_some_and(|ou| ou.external_hubs().any(|x| x.sysname == h.sysname))
        })
        .map(|o| o.node.as_str())
        .collect();
    let mut s = format!(
        "hub {} {} \"{}\" at {}",
        h.sysname,
        h.id().unwrap_or_default(),
        h.product.as_deref().unwrap_or("hub"),
        h.speed_mbps.map(usb::format_speed).unwrap_or_default()
    );
    if let Some(n) = h.ports {
        s.push_str(&format!(", {n} ports"));
    }
    if !shared.is_empty() {
        s.push_str(&format!(", shared with {}", shared.join(", ")));
    }
    s
}

fn mmc_path(dev: &Device, m: &MmcInfo) -> String {
    let mut s = format!(
        "{} ({})",
        m.host,
        dev.driver.as_deref().unwrap_or("unknown driver")
    );
    match &m.ios {
        Some(i) => {
            if let Some(b) = m.bus_mode {
                let w = b.words().trim();
                s.push_str(&format!(
                    ", {}",
                    if w.is_empty() { "default speed" } else { w }
                ));
            }
            if let Some(w) = i.bus_width {
                s.push_str(&format!(", {w} bit"));
            }
            if let Some(c) = i.clock_hz {
                s.push_str(&format!(", {} MHz", c / 1_000_000));
            }
            if let Some(v) = &i.signal_voltage {
                s.push_str(&format!(", {v}"));
            }
        }
        None => s.push_str(", bus mode n/a (needs root and debugfs)"),
    }
    if let Some((a, b)) = m.life_time {
        s.push_str(&format!(
            ", wear estimate {}–{} %",
            a.max(b).saturating_sub(1) * 10,
            a.max(b) * 10
        ));
    }
    s
}

/// The whole inventory report: sbc-bench's lines, then paths, findings and notes.
pub fn inventory_text(inv: &Inventory, findings: &[Finding], notes: &[String]) -> String {
    let mut s = String::new();
    let shown: Vec<&Device> = inv.devices.iter().filter(|d| listed(d)).collect();
    if shown.is_empty() && inv.flash.is_empty() {
        s.push_str("No storage devices found.\n");
    }
    for d in &shown {
        s.push_str(&format!("  * {}\n", device_line(d)));
    }
    for f in &inv.flash {
        s.push_str(&format!("  * {}\n", flash_line(f)));
    }
    if !shown.is_empty() {
        s.push_str("\nBetween CPU and storage:\n");
        for d in &shown {
            s.push_str(&format!("  {}\n", path_line(d, &inv.devices)));
        }
    }
    if !findings.is_empty() {
        s.push_str("\nFindings:\n");
        for f in findings {
            let sev = f.severity.word();
            s.push_str(&format!("  [{sev}] {}\n", f.message));
        }
    }
    if !notes.is_empty() {
        s.push('\n');
        for n in notes {
            s.push_str(&format!("{n}\n"));
        }
    }
    s
}

/// iozone's two header lines, as it prints them.
pub const IOZONE_HEADER: &str = "                                                              random    random     bkwd    record    stride                                    \n              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n";

/// The start of an iozone row: file size and record size in KiB. A row is printed piece
/// by piece as its passes finish, as iozone does: [`iozone_row_start`], one
/// [`iozone_cell`] per pass, then [`IOZONE_ROW_END`].
pub fn iozone_row_start(file_bytes: u64, record_bytes: u64) -> String {
    format!("{:16}{:8}", file_bytes / 1024, record_bytes / 1024)
}

/// One pass's figure in an iozone row: kB/s, truncated as iozone does.
pub fn iozone_cell(kib_per_s: f64) -> String {
    format!("{:9}", kib_per_s as u64)
}

/// The blank columns of the tests not run, and the end of the row.
pub const IOZONE_ROW_END: &str =
    "                                                                \n";

/// iozone's result table (`-i 0 -i 1 -i 2`): kB and reclen, then write, rewrite, read,
/// reread, random read and random write in kB/s, blank columns for the tests not run.
pub fn iozone_table(r: &BenchResult) -> String {
    let mut s = String::from(IOZONE_HEADER);
    for rec in &r.records {
        s.push_str(&iozone_row_start(r.file_size_bytes, rec.record_bytes));
        for ph in StoragePhase::ALL {
            s.push_str(&iozone_cell(
                rec.get(ph).map(|p| p.kib_per_s).unwrap_or(0.0),
            ));
        }
        s.push_str(IOZONE_ROW_END);
    }
    s
}

/// MB/s and IOPS per record size and pass.
pub fn summary_table(r: &BenchResult) -> String {
    let mut s = format!(
        "{:<16}{:>11}{:>11}{:>11}{:>11}{:>11}{:>11}\n",
        "", "write", "rewrite", "read", "reread", "rnd read", "rnd write"
    );
    for rec in &r.records {
        let label = size_words(rec.record_bytes);
        let mut mb = format!("{:<16}", format!("{label} MB/s"));
        let mut io = format!("{:<16}", format!("{label} IOPS"));
        for ph in StoragePhase::ALL {
            let p = rec.get(ph);
            mb.push_str(&format!("{:>11.2}", p.map(|p| p.mb_per_s).unwrap_or(0.0)));
            io.push_str(&format!("{:>11.0}", p.map(|p| p.iops).unwrap_or(0.0)));
        }
        s.push_str(&mb);
        s.push('\n');
        s.push_str(&io);
        s.push('\n');
    }
    s
}

/// The lines `storage bench` prints before the table: what is tested and how, where the
/// file lands, notes. `direct`: O_DIRECT was accepted.
pub fn bench_header(
    cfg: &engine::StorageConfig,
    direct: bool,
    land: &Landing,
    devices: &[Device],
    notes: &[String],
) -> String {
    let recs: Vec<String> = cfg.records.iter().map(|&r| size_words(r)).collect();
    let mut s = format!(
        "Testing {} with a {} file, records {}, {}, fsync in write timings",
        cfg.dir.display(),
        size_words(cfg.size_bytes),
        recs.join(" and "),
        if direct {
            "O_DIRECT"
        } else {
            "buffered I/O (O_DIRECT refused by the filesystem: reads come from the page cache)"
        }
    );
    if let Some(fs) = &land.fstype {
        s.push_str(&format!(
            "\nFilesystem: {fs} on {} (mounted at {})",
            land.source.as_deref().unwrap_or("?"),
            land.mount_point.as_deref().unwrap_or("?")
        ));
    }
    for d in devices {
        s.push_str(&format!("\nDevice: {}", device_line(d)));
    }
    for n in notes {
        s.push_str(&format!("\nNote: {n}"));
    }
    s
}

/// What `storage bench` prints after the table once the run is over: MB/s and IOPS, the
/// system during each pass, findings.
pub fn bench_tail(rep: &BenchReport) -> String {
    let mut s = String::from("\n");
    s.push_str(&summary_table(&rep.result));
    s.push_str(&system_table(&rep.observation.phases));
    if !rep.findings.is_empty() {
        s.push_str("\nFindings:\n");
        for f in &rep.findings {
            s.push_str(&format!("  [{}] {}\n", f.severity.word(), f.message));
        }
    }
    s
}

/// "System while running": one row per pass that has readings, and a footnote when
/// some were too short for CPU percentages. Empty when monitoring was off.
fn system_table(phases: &[PhaseObservation]) -> String {
    let obs: Vec<&PhaseObservation> = phases.iter().filter(|o| o.window_ticks.is_some()).collect();
    if obs.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "\nSystem while running:\n{:<24}{:>10}{:>14}{:>7}{:>7}{:>7}{:>12}{:>8}  {}\n",
        "pass", "MB/s", "busiest core", "%io", "%irq", "%self", "dev irq/s", "on", "avg clock"
    );
    let mut short = false;
    for o in obs {
        short |= o.busiest_cpu.is_none() || o.busiest_cpu_pct.is_none();
        s.push_str(&system_row(o));
    }
    if short {
        s.push_str(&format!(
            "* pass shorter than {} ms: /proc/stat counts CPU time in 10 ms ticks, too \
             coarse for percentages; interrupt counts are exact\n",
            MIN_WINDOW_TICKS * 10
        ));
    }
    s
}

fn system_row(o: &PhaseObservation) -> String {
    let pass = format!(
        "{} {}",
        size_words(o.record_bytes),
        o.phase.map(|p| p.label()).unwrap_or_default()
    );
    let na = || "n/a".to_string();
    let pct = |v: Option<f64>| v.map(|p| format!("{p:.1}")).unwrap_or_else(na);
    let core = match (o.busiest_cpu, o.busiest_cpu_pct) {
        (Some(c), Some(p)) => format!("cpu{c} {p:.0}%"),
        _ => "n/a*".to_string(),
    };
    let me = o.self_cpu_pct.map(|p| format!("{p:.0}")).unwrap_or_else(na);
    let irqs = o
        .storage_irqs_per_s
        .map(|r| format!("{r:.0}"))
        .unwrap_or_else(na);
    let irq_cpu = o
        .storage_irq_cpu
        .map(|c| format!("cpu{c}"))
        .unwrap_or_else(|| {
            if o.storage_irqs.is_some() {
                "-".into()
            } else {
                na()
            }
        });
    let clocks: Vec<String> = o
        .avg_khz
        .iter()
        .map(|(id, k)| format!("policy{id} {:.0} MHz", k / 1000.0))
        .collect();
    format!(
        "{pass:<24}{:>10.2}{core:>14}{:>7}{:>7}{me:>7}{irqs:>12}{irq_cpu:>8}  {}\n",
        o.mb_per_s,
        pct(o.io_pct),
        pct(o.irq_pct),
        if clocks.is_empty() {
            "n/a".to_string()
        } else {
            clocks.join(", ")
        }
    )
}

/// The whole `storage bench` text, as the streamed pieces add up to.
pub fn bench_text(cfg: &engine::StorageConfig, rep: &BenchReport) -> String {
    let mut s = bench_header(
        cfg,
        rep.result.direct_io,
        &rep.landing,
        &rep.devices,
        &rep.notes,
    );
    s.push_str("\n\n");
    s.push_str(&iozone_table(&rep.result));
    s.push_str(&bench_tail(rep));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::storage::{PhaseResult, RecordResult};
    use crate::diagnose;
    use crate::record::storage::StorageObservation;

    fn bench_report(direct: bool) -> (engine::StorageConfig, BenchReport) {
        let mut cfg = engine::StorageConfig::new("/mnt/ramfs");
        cfg.size_bytes = 16 << 20;
        cfg.records = vec![4 << 10, 16 << 20];
        let records: Vec<RecordResult> = cfg
            .records
            .iter()
            .map(|&r| RecordResult {
                record_bytes: r,
                phases: StoragePhase::ALL
                    .iter()
                    .map(|&p| PhaseResult {
                        phase: p,
                        started_s: 0.0,
                        seconds: 0.5,
                        bytes: 16 << 20,
                        ops: (16 << 20) / r,
                        kib_per_s: 32768.0,
                        mb_per_s: 33.55,
                        iops: 100.0,
                    })
                    .collect(),
            })
            .collect();
        let phases = records
            .iter()
            .flat_map(|r| {
                r.phases.iter().map(|p| PhaseObservation {
                    record_bytes: r.record_bytes,
                    phase: Some(p.phase),
                    mb_per_s: p.mb_per_s,
                    seconds: p.seconds,
                    window_ticks: Some(if r.record_bytes == 4096 { 50 } else { 1 }),
                    busiest_cpu: (r.record_bytes == 4096).then_some(1),
                    busiest_cpu_pct: (r.record_bytes == 4096).then_some(42.0),
                    storage_irqs: Some(10),
                    storage_irqs_per_s: Some(20.0),
                    storage_irq_cpu: Some(0),
                    ..Default::default()
                })
            })
            .collect();
        let rep = BenchReport {
            landing: Landing {
                fstype: Some("ramfs".into()),
                mount_point: Some("/mnt/ramfs".into()),
                source: Some("ramfs".into()),
                disks: vec![],
            },
            devices: vec![],
            notes: vec!["the filesystem reports no size (ramfs has no limit)".into()],
            result: BenchResult {
                dir: "/mnt/ramfs".into(),
                file_size_bytes: 16 << 20,
                direct_io: direct,
                fsync_in_write_timing: true,
                records,
                warnings: vec!["O_DIRECT is not supported on this filesystem".into()],
            },
            observation: StorageObservation {
                fstype: Some("ramfs".into()),
                direct_io: direct,
                policies: vec![],
                phases,
            },
            findings: diagnose::storage::diagnose(
                &StorageObservation {
                    fstype: Some("ramfs".into()),
                    direct_io: direct,
                    ..Default::default()
                },
                None,
            ),
        };
        (cfg, rep)
    }

    #[test]
    fn the_header_says_what_io_was_used_and_warnings_are_said_once() {
        let (cfg, rep) = bench_report(false);
        let text = bench_text(&cfg, &rep);
        let first = text.lines().next().unwrap();
        assert_eq!(
            first,
            "Testing /mnt/ramfs with a 16 MiB file, records 4 KiB and 16 MiB, buffered I/O \
             (O_DIRECT refused by the filesystem: reads come from the page cache), fsync in \
             write timings"
        );
        assert!(!first.contains(", O_DIRECT,"));
        assert!(text.contains("\nNote: the filesystem reports no size (ramfs has no limit)\n"));
        // The fallback is explained once, by the finding; no extra Warning: line.
        assert_eq!(text.matches("O_DIRECT was refused").count(), 1, "{text}");
        assert!(!text.contains("Warning:"), "{text}");
        assert!(text.contains("this measures RAM"), "{text}");
        let (cfg, rep) = bench_report(true);
        assert!(
            bench_text(&cfg, &rep)
                .lines()
                .next()
                .unwrap()
                .ends_with("records 4 KiB and 16 MiB, O_DIRECT, fsync in write timings")
        );
    }

    #[test]
    fn every_pass_has_a_row_and_short_ones_say_why_they_lack_percentages() {
        let (cfg, rep) = bench_report(true);
        let text = bench_text(&cfg, &rep);
        let start = text.find("System while running:").unwrap();
        let rows: Vec<&str> = text[start..]
            .lines()
            .skip(2)
            .take_while(|l| !l.is_empty() && !l.starts_with('*'))
            .collect();
        assert_eq!(rows.len(), 12, "{text}");
        assert!(rows[0].starts_with("4 KiB write"), "{}", rows[0]);
        assert!(rows[0].contains("cpu1 42%"), "{}", rows[0]);
        assert!(rows[11].starts_with("16 MiB random write"), "{}", rows[11]);
        assert!(rows[11].contains("n/a*"), "{}", rows[11]);
        // Interrupt figures are there for the short passes too.
        assert!(rows[11].contains("      20    cpu0"), "{}", rows[11]);
        assert!(text.contains("* pass shorter than 50 ms"), "{text}");
    }

    #[test]
    fn sizes_like_lsblk() {
        // Capacities behind sizes in the ROCK 5 ITX review.
        assert_eq!(lsblk_size(120_034_123_776), "111.8G");
        assert_eq!(lsblk_size(256_060_514_304), "238.5G");
        assert_eq!(lsblk_size(128_035_676_160), "119.2G");
        assert_eq!(lsblk_size(500_776_960 * 512), "238.8G");
        assert_eq!(lsblk_size(8_001_563_222_016), "7.3T");
        assert_eq!(lsblk_size(62_277_025_792), "58G");
        assert_eq!(lsblk_size(274_877_906_944), "256G");
        assert_eq!(lsblk_size(512), "512B");
        assert_eq!(lsblk_size(0), "0B");
        // Rounding up into the next whole number.
        assert_eq!(lsblk_size((1 << 30) * 2 - (1 << 20)), "2G");
        assert_eq!(lsblk_size(u64::MAX), "16E");
    }

    #[test]
    fn iozone_table_is_byte_for_byte() {
        // ROCK 5 ITX review, 16 MiB records over 500 MB on the SATA RAID, as iozone
        // printed it (trailing blanks included).
        let kib = [
            655228.0, 658457.0, 1141072.0, 1282401.0, 1247449.0, 661628.0,
        ];
        let phases = StoragePhase::ALL
            .iter()
            .zip(kib)
            .map(|(&ph, k)| {
                let mut p = PhaseResult {
                    phase: ph,
                    started_s: 0.0,
                    seconds: 1.0,
                    bytes: 0,
                    ops: 0,
                    kib_per_s: k,
                    mb_per_s: 0.0,
                    iops: 0.0,
                };
                p.kib_per_s += 0.7; // iozone truncates
                p
            })
            .collect();
        let r = BenchResult {
            dir: "/srv".into(),
            file_size_bytes: 500 << 20,
            direct_io: true,
            fsync_in_write_timing: true,
            records: vec![RecordResult {
                record_bytes: 16 << 20,
                phases,
            }],
            warnings: vec![],
        };
        let expected = concat!(
            "                                                              random    random     bkwd    record    stride                                    \n",
            "              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n",
            "          512000   16384   655228   658457  1141072  1282401  1247449   661628                                                                \n"
        );
        assert_eq!(iozone_table(&r), expected);
    }
}
