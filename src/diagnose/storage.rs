//! Why storage is as fast as it is: the link below the drive (USB 2.0 carries ~40 MB/s,
//! 5 Gbps USB ~420 MB/s, SATA and PCIe by generation and width), a CPU core saturated
//! in the I/O path, a cpufreq governor that keeps clocks low while I/O waits, FUSE
//! filesystems; and what the inventory alone shows: downgraded links, `usb-storage`
//! instead of `uas`, hubs shared by several disks, counterfeit cards, worn drives.
//!
//! Pure functions of the inventory and the observation ([`crate::record::storage`], read
//! by the monitor's sampler around each pass), one function per rule; the tables
//! `DEVICE_RULES` and `RUN_RULES` give the order findings are listed in. Nothing here
//! renders: the sentences are the findings' own, the lines around them are `report/`'s.

use crate::bench::storage::{StoragePhase, size_words};
use crate::record::finding::{Finding, FindingCode, Severity};
use crate::record::storage::{PhaseObservation, StorageObservation};
use crate::sys::mmc::BusMode;
use crate::sys::storage::{Bus, Device};

/// The most a link carries in practice.
#[derive(Debug, Clone, PartialEq)]
pub struct StorageLinkLimit {
    /// The link in words: `USB 5Gbps`, `SATA 6.0 Gbps`, `PCIe 5GT/s x1`, `SD UHS SDR104`.
    pub link: String,
    /// Practical ceiling in MB/s (10^6 bytes).
    pub mb_per_s: f64,
}

/// Practical USB ceilings: bulk transfers on USB 2.0 top out at 13 × 512 bytes per
/// microframe (53 MB/s) and reach ~40–42 MB/s in practice; 5 Gbps USB after 8b/10b
/// coding carries 500 MB/s and UAS reaches ~420; 10 Gbps after 128b/132b ~1000 MB/s.
pub fn usb_limit_mb_per_s(speed_mbps: f64) -> f64 {
    match speed_mbps {
        s if s <= 1.5 => 0.15,
        s if s <= 12.0 => 1.0,
        s if s <= 480.0 => 42.0,
        s if s <= 5000.0 => 420.0,
        s if s <= 10000.0 => 1000.0,
        _ => 2000.0,
    }
}

/// SATA: 8b/10b coding leaves 150/300/600 MB/s; FIS overhead leaves ~93 % of that.
pub fn sata_limit_mb_per_s(gbps: f64) -> f64 {
    gbps * 100.0 * 0.93
}

/// PCIe payload efficiency with MaxPayload 128 bytes, as the ROCK 5 ITX 10 GbE NAS
/// article computes it (81.8 %; 89.4 % with 256 bytes).
pub const PCIE_EFFICIENCY: f64 = 0.818;

/// Parse `6.0 Gbps` / `6.0 Gb/s` / `3.0`.
fn parse_gbps(s: &str) -> Option<f64> {
    s.split_whitespace().next()?.parse().ok()
}

/// Every link between CPU and flash with its practical ceiling, nearest to the drive
/// first.
pub fn link_limits(dev: &Device) -> Vec<StorageLinkLimit> {
    let mut out = Vec::new();
    // SATA link: the negotiated speed (libata), else what smartctl says.
    let sata = dev
        .ata
        .as_ref()
        .and_then(|a| a.link_speed.as_deref())
        .or_else(|| {
            dev.health
                .as_ref()
                .and_then(|h| h.sata_speed_current.as_deref())
        })
        .and_then(parse_gbps);
    if let Some(g) = sata {
        out.push(StorageLinkLimit {
            link: format!("SATA {g:.1} Gb/s"),
            mb_per_s: sata_limit_mb_per_s(g),
        });
    }
    if let Some(m) = &dev.mmc {
        if let Some(mode) = m.bus_mode {
            let width =
                m.ios
                    .as_ref()
                    .and_then(|i| i.bus_width)
                    .unwrap_or(match m.card_type.as_deref() {
                        Some("MMC") => 8,
                        _ => 4,
                    });
            let kind = if m.card_type.as_deref() == Some("MMC") {
                "eMMC"
            } else {
                "SD"
            };
            out.push(StorageLinkLimit {
                link: format!("{kind} {}", mode.words().trim()).trim().to_string(),
                mb_per_s: mode.max_mb_per_s(width) * 0.9,
            });
        }
    }
    if let Some(u) = &dev.usb {
        if let Some(s) = u.device.speed_mbps {
            out.push(StorageLinkLimit {
                link: format!("USB {}", crate::sys::usb::format_speed(s)),
                mb_per_s: usb_limit_mb_per_s(s),
            });
        }
        // A hub's uplink is shared by everything behind it; its speed caps all of them.
        for h in u.external_hubs() {
            if let Some(s) = h.speed_mbps {
                out.push(StorageLinkLimit {
                    link: format!("USB hub uplink {}", crate::sys::usb::format_speed(s)),
                    mb_per_s: usb_limit_mb_per_s(s),
                });
            }
        }
    }
    if let Some(p) = &dev.pci {
        if let Some(l) = &p.link {
            if let (Some(raw), Some(s), Some(w)) = (l.raw_mb_per_s(), l.speed_gts, l.width) {
                out.push(StorageLinkLimit {
                    link: format!("PCIe {} x{w}", crate::sys::pci::format_speed(s)),
                    mb_per_s: raw * PCIE_EFFICIENCY,
                });
            }
        }
    }
    out
}

/// The narrowest link.
pub fn narrowest(dev: &Device) -> Option<StorageLinkLimit> {
    link_limits(dev)
        .into_iter()
        .min_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s))
}

/// A rule over one device of the inventory: at most one finding.
type DeviceRule = fn(&Device) -> Option<Finding>;

/// The inventory rules, in the order their findings are listed.
const DEVICE_RULES: &[DeviceRule] = &[
    pcie_downgraded,
    usb_downgraded,
    usb_no_uas,
    sata_downgraded,
    counterfeit_card,
    emmc_life_used,
    emmc_pre_eol,
    sd_without_uhs,
    drive_health,
];

/// Findings from the inventory alone, for one device.
pub fn diagnose_device(dev: &Device) -> Vec<Finding> {
    DEVICE_RULES.iter().filter_map(|rule| rule(dev)).collect()
}

/// A PCIe link (the SSD's, or its controller's) trained below what the device supports:
/// a warning when it is below what both ends support, a note when the port above offers
/// no more (the slot's wiring), as the review's PCIe check judges the same link
/// ([`crate::diagnose::pcie`]).
fn pcie_downgraded(dev: &Device) -> Option<Finding> {
    let p = dev.pci.as_ref()?;
    let l = p.link.as_ref()?;
    if l.speed_downgraded() != Some(true) && l.width_downgraded() != Some(true) {
        return None;
    }
    let speed = |s: Option<f64>| s.map(crate::sys::pci::format_speed).unwrap_or_default();
    let port = match (l.port_max_speed_gts, l.port_max_width) {
        (Some(s), Some(w)) => Some(format!("{} x{w}", speed(Some(s)))),
        _ => None,
    };
    let what = if dev.bus == Bus::Nvme {
        "the SSD".to_string()
    } else {
        format!(
            "its {} controller at {}",
            p.driver.as_deref().unwrap_or("PCIe"),
            p.address
        )
    };
    let (severity, why) = match (l.at_port_limit(), &port) {
        (Some(true), Some(port)) => (
            Severity::Info,
            format!("the port above offers only {port}: the slot's wiring, nothing to tune"),
        ),
        (Some(false), Some(port)) => (
            Severity::Warning,
            format!(
                "its port supports {port}, so the link trained below what both ends can do \
                 (riser, cable or signal quality; a retrain or reboot may restore it)"
            ),
        ),
        _ => (
            Severity::Warning,
            "(slot wiring, riser or signal quality)".to_string(),
        ),
    };
    let sep = if why.starts_with('(') { " " } else { "; " };
    Some(Finding::new(
        FindingCode::StoragePcieDowngraded,
        severity,
        format!(
            "{}: PCIe link of {what} trained at {} x{} while it supports {} x{}{sep}{why}",
            dev.node,
            speed(l.speed_gts),
            l.width.unwrap_or_default(),
            speed(l.max_speed_gts),
            l.max_width.unwrap_or_default()
        ),
    ))
}

/// The fastest speed in a USB device's capability list, Mbps (0 when none is known).
fn usb_capable_max_mbps(capable: &[String]) -> f64 {
    capable
        .iter()
        .filter_map(|c| {
            if let Some(g) = c.strip_suffix("Gbps") {
                g.parse::<f64>().ok().map(|g| g * 1000.0)
            } else if let Some(m) = c.strip_suffix("Mbps") {
                m.parse::<f64>().ok()
            } else {
                c.split("Gb/s")
                    .next()
                    .and_then(|g| g.parse::<f64>().ok())
                    .map(|g| g * 1000.0)
            }
        })
        .fold(0.0_f64, f64::max)
}

/// A USB 3 device running at USB 2.0 speed or below.
fn usb_downgraded(dev: &Device) -> Option<Finding> {
    let d = &dev.usb.as_ref()?.device;
    let s = d.speed_mbps?;
    let cap_max = usb_capable_max_mbps(&d.capable);
    if !(cap_max > 0.0 && s < cap_max && s <= 480.0) {
        return None;
    }
    Some(Finding::new(
        FindingCode::StorageUsbDowngraded,
        Severity::Warning,
        format!(
            "{}: USB device runs at {} but can do {}: a USB 2.0 port, hub or \
             cable is in the way (expect at most ~{:.0} MB/s)",
            dev.node,
            crate::sys::usb::format_speed(s),
            crate::sys::usb::format_speed(cap_max),
            usb_limit_mb_per_s(s)
        ),
    ))
}

/// A SuperSpeed bridge to a SATA/NVMe drive driven by usb-storage instead of uas.
fn usb_no_uas(dev: &Device) -> Option<Finding> {
    let u = dev.usb.as_ref()?;
    let s = u.device.speed_mbps?;
    let bridged = dev
        .health
        .as_ref()
        .is_some_and(|h| h.protocol.as_deref().is_some_and(|p| p != "SCSI"));
    if !(s >= 5000.0 && u.interface_driver.as_deref() == Some("usb-storage") && bridged) {
        return None;
    }
    Some(Finding::new(
        FindingCode::StorageUsbNoUas,
        Severity::Info,
        format!(
            "{}: the bridge runs the usb-storage (BOT) driver, not uas: one \
             command at a time, so random I/O and CPU load suffer (firmware \
             without UAS, or disabled by a kernel quirk)",
            dev.node
        ),
    ))
}

/// A SATA link slower than drive and host can both do.
fn sata_downgraded(dev: &Device) -> Option<Finding> {
    let a = dev.ata.as_ref()?;
    let d = a
        .identify
        .as_ref()
        .and_then(|i| i.max_speed.as_deref())
        .and_then(parse_gbps)?;
    let l = a.link_speed.as_deref().and_then(parse_gbps)?;
    let host = a.link_limit.as_deref().and_then(parse_gbps);
    let possible = host.map_or(d, |h| h.min(d));
    if l + 0.01 >= possible {
        return None;
    }
    Some(Finding::new(
        FindingCode::StorageSataDowngraded,
        Severity::Warning,
        format!(
            "{}: SATA link at {l:.1} Gb/s although drive and host can do \
             {possible:.1} Gb/s (cable or contacts; check CRC errors)",
            dev.node
        ),
    ))
}

/// Card IDs only counterfeit cards carry, or a suspiciously low serial number.
fn counterfeit_card(dev: &Device) -> Option<Finding> {
    let m = dev.mmc.as_ref()?;
    let node = &dev.node;
    Some(match m.maker.counterfeit.as_deref()? {
        "definite" => Finding::new(
            FindingCode::StorageCounterfeitCard,
            Severity::Invalid,
            format!(
                "{node}: card IDs (manfid {}, oemid {}) are only found on counterfeit \
                 cards: expect less capacity than claimed and data loss",
                m.manfid.as_deref().unwrap_or("?"),
                m.oemid.as_deref().unwrap_or("?")
            ),
        ),
        _ => Finding::new(
            FindingCode::StorageCounterfeitCard,
            Severity::Warning,
            format!(
                "{node}: suspiciously low serial number {}: probably a counterfeit card",
                m.serial.as_deref().unwrap_or("?")
            ),
        ),
    })
}

/// An eMMC whose life time estimate says 80 % or more is used.
fn emmc_life_used(dev: &Device) -> Option<Finding> {
    let (a, b) = dev.mmc.as_ref()?.life_time?;
    let worst = a.max(b);
    if worst < 9 {
        return None;
    }
    Some(Finding::new(
        FindingCode::StorageEmmcWorn,
        Severity::Warning,
        format!(
            "{}: eMMC reports {} of its rated life used",
            dev.node,
            if worst >= 11 {
                "more than 100 %".to_string()
            } else {
                format!("{}–{} %", (worst - 1) * 10, worst * 10)
            }
        ),
    ))
}

/// An eMMC's pre-EOL warning: reserved blocks running out.
fn emmc_pre_eol(dev: &Device) -> Option<Finding> {
    dev.mmc.as_ref()?.pre_eol.filter(|&p| p >= 2)?;
    Some(Finding::new(
        FindingCode::StorageEmmcWorn,
        Severity::Warning,
        format!(
            "{}: eMMC pre-EOL warning: its reserved blocks are running out",
            dev.node
        ),
    ))
}

/// An SDHC/SDXC card stuck in default or high speed mode (no UHS-I).
fn sd_without_uhs(dev: &Device) -> Option<Finding> {
    let m = dev.mmc.as_ref()?;
    if !(m.card_type.as_deref() == Some("SD")
        && matches!(m.bus_mode, Some(BusMode::Legacy | BusMode::SdHs))
        && m.capacity_class.as_deref() != Some("SD"))
    {
        return None;
    }
    Some(Finding::new(
        FindingCode::StorageSdNoUhs,
        Severity::Info,
        format!(
            "{}: SD card runs in {} mode (≤ 25 MB/s); UHS-I needs 1.8 V signalling \
             support on the board and in the device tree",
            dev.node,
            if m.bus_mode == Some(BusMode::SdHs) {
                "high speed"
            } else {
                "default speed"
            }
        ),
    ))
}

/// SMART: failed self-assessment, wear, temperature, error and sector counters.
fn drive_health(dev: &Device) -> Option<Finding> {
    let h = dev.health.as_ref()?;
    let mut bad = Vec::new();
    if h.passed == Some(false) {
        bad.push("SMART overall health FAILED".to_string());
    }
    if let Some(p) = h.percentage_used.filter(|&p| p > 75) {
        bad.push(format!("{p} % worn out"));
    }
    let limit = if h.is_hdd() == Some(true) { 45 } else { 60 };
    if let Some(t) = h.temp_c.filter(|&t| t > limit) {
        bad.push(format!("{t} °C (above {limit} °C)"));
    }
    for (v, what) in [
        (h.crc_errors, "interface CRC errors (cable or contacts)"),
        (h.reallocated_sectors, "reallocated sectors"),
        (h.reallocated_events, "reallocation events"),
        (h.pending_sectors, "sectors pending reallocation"),
        (h.offline_uncorrectable, "uncorrectable sectors"),
        (h.media_errors, "media errors"),
    ] {
        if let Some(n) = v.filter(|&n| n > 0) {
            bad.push(format!("{n} {what}"));
        }
    }
    (!bad.is_empty()).then(|| {
        Finding::new(
            FindingCode::StorageDriveHealth,
            Severity::Warning,
            format!("{}: {}", dev.node, bad.join(", ")),
        )
    })
}

/// Disks that share an external USB hub: one finding per hub with two or more, or only
/// the hubs in front of `only` (a device node) when given.
pub fn shared_hub_findings(all: &[Device], only: Option<&str>) -> Vec<Finding> {
    let mut hubs: Vec<(&crate::sys::usb::UsbDevice, Vec<&str>)> = Vec::new();
    for d in all {
        let Some(u) = &d.usb else { continue };
        for h in u.external_hubs() {
            match hubs
                .iter_mut()
                .find(|(x, _)| x.sysname == h.sysname && x.busnum == h.busnum)
            {
                Some((_, nodes)) => nodes.push(&d.node),
                None => hubs.push((h, vec![&d.node])),
            }
        }
    }
    hubs.into_iter()
        .filter(|(_, nodes)| nodes.len() > 1)
        .filter(|(_, nodes)| only.is_none_or(|o| nodes.contains(&o)))
        .map(|(h, nodes)| {
            let speed = h
                .speed_mbps
                .map(crate::sys::usb::format_speed)
                .unwrap_or_default();
            Finding::new(
                FindingCode::StorageUsbSharedHub,
                Severity::Info,
                format!(
                    "{} share USB hub {} {} (\"{}\", {speed} uplink): together they cannot \
                     exceed one {speed} link (~{:.0} MB/s)",
                    nodes.join(", "),
                    h.sysname,
                    h.id().unwrap_or_default(),
                    h.product.as_deref().unwrap_or("hub"),
                    h.speed_mbps.map(usb_limit_mb_per_s).unwrap_or_default()
                ),
            )
        })
        .collect()
}

/// Findings for a whole inventory: per device, then shared hubs.
pub fn diagnose_inventory(all: &[Device]) -> Vec<Finding> {
    let mut f: Vec<Finding> = all.iter().flat_map(diagnose_device).collect();
    f.extend(shared_hub_findings(all, None));
    f
}

fn phase_words(o: &PhaseObservation) -> String {
    format!(
        "{} {}",
        size_words(o.record_bytes),
        o.phase.map(StoragePhase::label).unwrap_or("pass")
    )
}

/// A core this busy (user + system + interrupts, percent) is saturated.
pub const SATURATED_PCT: f64 = 90.0;
/// Share of a saturated core (percentage points: the benchmark's own CPU time plus that
/// core's interrupt time) above which the I/O path, not other processes, keeps it busy.
pub const IO_PATH_PCT: f64 = 75.0;

/// What the run rules look at: the observation, the narrowest link to the device, and
/// the two conclusions several rules share.
struct RunFacts<'a> {
    obs: &'a StorageObservation,
    /// The narrowest link, when the device is known.
    limit: Option<StorageLinkLimit>,
    /// The fastest pass reached 85 % of that link with O_DIRECT: (pass, share of it).
    link_bound: Option<(&'a PhaseObservation, f64)>,
    /// A saturated core that other processes, not our I/O path, kept busy.
    competed: Option<&'a PhaseObservation>,
}

/// A rule over a benchmark run: at most one finding.
type RunRule = fn(&RunFacts<'_>) -> Option<Finding>;

/// The run rules, in the order their findings are listed.
const RUN_RULES: &[RunRule] = &[
    fuse_filesystem,
    ram_filesystem,
    page_cache,
    link_bound,
    background_load,
    cpu_bound,
    governor_low_clock,
];

/// Findings from a benchmark run on `dev` (when the device is known).
pub fn diagnose(obs: &StorageObservation, dev: Option<&Device>) -> Vec<Finding> {
    let limit = dev.and_then(narrowest);
    let link_bound = limit.as_ref().and_then(|l| link_bound_pass(obs, l));
    let facts = RunFacts {
        obs,
        limit,
        link_bound,
        competed: competing_pass(obs),
    };
    RUN_RULES.iter().filter_map(|rule| rule(&facts)).collect()
}

fn fstype<'a>(x: &RunFacts<'a>) -> &'a str {
    x.obs.fstype.as_deref().unwrap_or_default()
}

/// FUSE: a user-space daemon in every request.
fn fuse_filesystem(x: &RunFacts<'_>) -> Option<Finding> {
    let fs = fstype(x);
    (fs == "fuseblk" || fs.starts_with("fuse")).then(|| {
        Finding::new(
            FindingCode::StorageFuseFilesystem,
            Severity::Warning,
            format!(
                "the test file is on a FUSE filesystem ({fs}, e.g. NTFS via ntfs-3g or \
                 exFAT via exfat-fuse): every request goes through a user-space daemon, so \
                 the CPU, not the drive, sets the limit; use ext4/btrfs/f2fs or the \
                 kernel's ntfs3/exfat drivers"
            ),
        )
    })
}

/// tmpfs, ramfs, devtmpfs: RAM was measured.
fn ram_filesystem(x: &RunFacts<'_>) -> Option<Finding> {
    let fs = fstype(x);
    matches!(fs, "tmpfs" | "ramfs" | "devtmpfs").then(|| {
        Finding::new(
            FindingCode::StorageRamFilesystem,
            Severity::Warning,
            format!("the test file is on {fs}: this measures RAM, not storage"),
        )
    })
}

/// O_DIRECT refused: the page cache was measured.
fn page_cache(x: &RunFacts<'_>) -> Option<Finding> {
    (!x.obs.direct_io).then(|| {
        Finding::new(
            FindingCode::StoragePageCache,
            Severity::Warning,
            "O_DIRECT was refused by the filesystem: buffered I/O was measured and reads \
             came from the page cache",
        )
    })
}

/// The fastest pass and its share of `l`, when it reached 85 % of it with O_DIRECT.
fn link_bound_pass<'a>(
    obs: &'a StorageObservation,
    l: &StorageLinkLimit,
) -> Option<(&'a PhaseObservation, f64)> {
    let best = obs
        .phases
        .iter()
        .max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s))?;
    let share = best.mb_per_s / l.mb_per_s;
    (share >= 0.85 && obs.direct_io).then_some((best, share))
}

/// The link, not the drive, limits throughput.
fn link_bound(x: &RunFacts<'_>) -> Option<Finding> {
    let ((best, share), l) = (x.link_bound?, x.limit.as_ref()?);
    Some(Finding::new(
        FindingCode::StorageLinkBound,
        Severity::Info,
        format!(
            "{} reached {:.0} MB/s, {:.0} % of what the {} link carries in \
             practice (~{:.0} MB/s): the link, not the drive, is the limit",
            phase_words(best),
            best.mb_per_s,
            share * 100.0,
            l.link,
            l.mb_per_s
        ),
    ))
}

/// Passes long enough to measure (≥ 1 s) with a core saturated (≥ 90 % busy,
/// interrupts included).
fn saturated(obs: &StorageObservation) -> impl Iterator<Item = &PhaseObservation> {
    obs.phases
        .iter()
        .filter(|o| o.seconds >= 1.0)
        .filter(|o| o.busiest_cpu_pct.is_some_and(|p| p >= SATURATED_PCT))
}

/// Is a saturated core the I/O path: the benchmark's own CPU time plus the interrupt
/// handling on that core make up most of it? `None` without our own CPU time: then we
/// cannot tell, and say neither.
fn io_path_keeps_busy(o: &PhaseObservation) -> Option<bool> {
    o.self_cpu_pct
        .map(|s| s + o.busiest_cpu_irq_pct.unwrap_or(0.0) >= IO_PATH_PCT)
}

/// The first saturated pass that someone else's load kept busy.
fn competing_pass(obs: &StorageObservation) -> Option<&PhaseObservation> {
    saturated(obs).find(|o| io_path_keeps_busy(o) == Some(false))
}

/// Other processes competed for a saturated core.
fn background_load(x: &RunFacts<'_>) -> Option<Finding> {
    let o = x.competed?;
    Some(Finding::new(
        FindingCode::StorageBackgroundLoad,
        Severity::Warning,
        format!(
            "cpu{} was {:.0} % busy during {} while this benchmark used {:.0} % of a core \
             and interrupts {:.0} % of it: other processes competed for the CPU, results \
             may be low",
            o.busiest_cpu.unwrap_or_default(),
            o.busiest_cpu_pct.unwrap_or_default(),
            phase_words(o),
            o.self_cpu_pct.unwrap_or_default(),
            o.busiest_cpu_irq_pct.unwrap_or_default()
        ),
    ))
}

/// One core in the I/O path limits throughput (unless the link already explains it).
fn cpu_bound(x: &RunFacts<'_>) -> Option<Finding> {
    let o = saturated(x.obs)
        .filter(|o| io_path_keeps_busy(o) == Some(true))
        // Competing load on the same core is the likelier cause: one finding, not two.
        .filter(|o| x.competed.is_none_or(|c| c.busiest_cpu != o.busiest_cpu))
        .max_by(|a, b| {
            a.busiest_cpu_pct
                .unwrap_or(0.0)
                .total_cmp(&b.busiest_cpu_pct.unwrap_or(0.0))
        })?;
    let below_link = x
        .limit
        .as_ref()
        .is_some_and(|l| o.mb_per_s < 0.85 * l.mb_per_s);
    if x.link_bound.is_some() && !below_link {
        return None;
    }
    Some(Finding::new(
        FindingCode::StorageCpuBound,
        Severity::Warning,
        format!(
            "cpu{} was {:.0} % busy ({:.0} % kernel, {:.0} % interrupts; this \
             benchmark used {:.0} % of a core) during {} at {:.1} MB/s: one core in \
             the I/O path (driver, interrupt handling or filesystem) limits \
             throughput, not the drive",
            o.busiest_cpu.unwrap_or_default(),
            o.busiest_cpu_pct.unwrap_or_default(),
            o.busiest_cpu_sys_pct.unwrap_or_default(),
            o.busiest_cpu_irq_pct.unwrap_or_default(),
            o.self_cpu_pct.unwrap_or_default(),
            phase_words(o),
            o.mb_per_s
        ),
    ))
}

/// A governor keeping clocks low while the CPU mostly waits for I/O: the pass and
/// policy with the lowest average clock relative to its maximum, below 70 %.
fn governor_low_clock(x: &RunFacts<'_>) -> Option<Finding> {
    let mut worst: Option<(f64, String)> = None;
    for o in x.obs.phases.iter().filter(|o| o.seconds >= 1.0) {
        for (id, avg) in &o.avg_khz {
            let Some(p) = x.obs.policies.iter().find(|p| p.id == *id) else {
                continue;
            };
            let (Some(max), Some(gov)) = (p.max_khz, p.governor.as_deref()) else {
                continue;
            };
            if gov == "performance" || max == 0 {
                continue;
            }
            let ratio = avg / max as f64;
            if ratio < 0.7 && worst.as_ref().is_none_or(|(r, _)| ratio < *r) {
                let cpus = crate::sys::cpu_list::format_cpu_range(&p.cpus);
                worst = Some((
                    ratio,
                    format!(
                        "cpufreq governor '{gov}' kept {cpus} at {:.0} MHz on average \
                         (max {} MHz) during {}: storage latency suffers when the CPU clocks \
                         down while waiting for I/O; sbc-bench uses 'performance' \
                         (or ondemand with io_is_busy=1)",
                        avg / 1000.0,
                        max / 1000,
                        phase_words(o)
                    ),
                ));
            }
        }
    }
    let (_, msg) = worst?;
    Some(Finding::new(
        FindingCode::StorageGovernorLowClock,
        Severity::Warning,
        msg,
    ))
}

/// The report of a finished run, with the findings of the run and of its devices.
pub fn bench_report(
    around: crate::record::storage::Surroundings,
    notes: Vec<String>,
    phases: Vec<PhaseObservation>,
    result: crate::bench::storage::BenchResult,
) -> crate::record::storage::BenchReport {
    let observation = StorageObservation {
        fstype: around.land.fstype.clone(),
        direct_io: result.direct_io,
        policies: around.policies,
        phases,
    };
    let mut findings = diagnose(&observation, around.devices.first());
    for d in &around.devices {
        findings.extend(diagnose_device(d));
        findings.extend(shared_hub_findings(&around.inv.devices, Some(&d.node)));
    }
    crate::record::storage::BenchReport {
        landing: around.land,
        devices: around.devices,
        notes,
        result,
        observation,
        findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::storage::PolicyFacts;
    use crate::sys::pci::{PciDevice, PciLink};
    use crate::sys::storage::{Health, UsbPath};
    use crate::sys::usb::UsbDevice;

    fn device(bus: Bus) -> Device {
        Device {
            name: "sda".into(),
            node: "/dev/sda".into(),
            bus,
            size_bytes: None,
            rotational: None,
            removable: None,
            scsi_vendor: None,
            scsi_model: None,
            driver: None,
            sysfs_path: String::new(),
            ata: None,
            nvme: None,
            pci: None,
            usb: None,
            mmc: None,
            health: None,
            health_note: None,
        }
    }

    fn usb_disk(speed: f64) -> Device {
        let mut d = device(Bus::Usb);
        d.usb = Some(UsbPath {
            device: UsbDevice {
                sysname: "8-1".into(),
                speed_mbps: Some(speed),
                capable: vec!["12Mbps".into(), "480Mbps".into(), "5Gbps".into()],
                ..Default::default()
            },
            interface_driver: Some("uas".into()),
            hubs: vec![],
            host_driver: Some("xhci-hcd".into()),
        });
        d
    }

    fn obs(mb: f64, phase: StoragePhase) -> StorageObservation {
        StorageObservation {
            fstype: Some("ext4".into()),
            direct_io: true,
            policies: vec![],
            phases: vec![PhaseObservation {
                record_bytes: 16 << 20,
                phase: Some(phase),
                mb_per_s: mb,
                seconds: 2.0,
                ..Default::default()
            }],
        }
    }

    #[test]
    fn rock5itx_usb_c_ssd_is_link_bound() {
        // ROCK 5 ITX review: EVO 840 in a USB3 enclosure on the USB-C port, iozone 16M
        // read 386597 kB/s = 396 MB/s.
        let d = usb_disk(5000.0);
        let f = diagnose(&obs(395.9, StoragePhase::Read), Some(&d));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].code, "storage-link-bound");
        assert!(f[0].message.contains("USB 5Gbps"), "{}", f[0].message);
        assert!(f[0].message.contains("94 %"), "{}", f[0].message);
        // The same disk at 200 MB/s is not.
        assert!(diagnose(&obs(200.0, StoragePhase::Read), Some(&d)).is_empty());
    }

    #[test]
    fn nanopi_r5s_nvme_on_gen2_x1_is_link_bound() {
        // NanoPi R5S review: 1 GB file, 16M reads at 382642 kB/s = 392 MB/s on PCIe 2.0 x1.
        let mut d = device(Bus::Nvme);
        d.pci = Some(PciDevice {
            link: Some(PciLink {
                speed_gts: Some(5.0),
                width: Some(1),
                max_speed_gts: Some(8.0),
                max_width: Some(4),
                ..Default::default()
            }),
            ..Default::default()
        });
        let l = narrowest(&d).unwrap();
        assert_eq!(l.link, "PCIe 5GT/s x1");
        assert!((l.mb_per_s - 409.0).abs() < 0.1);
        let f = diagnose(&obs(391.8, StoragePhase::Read), Some(&d));
        assert_eq!(f[0].code, "storage-link-bound");
        let inv = diagnose_device(&d);
        assert_eq!(inv[0].code, "storage-pcie-downgraded");
        assert!(
            inv[0]
                .message
                .contains("5GT/s x1 while it supports 8GT/s x4")
        );
    }

    /// Issue 28: the storage check warned of a downgraded link where the port above
    /// offers no more (the ROCK 5 ITX's M.2 slot: two lanes for a x4 SSD), while the
    /// review's PCIe check of the same link called it the slot's wiring.
    #[test]
    fn rock5itx_nvme_at_its_ports_width_is_a_note_as_in_the_review() {
        let mut d = device(Bus::Nvme);
        let link = |port_width| PciLink {
            speed_gts: Some(8.0),
            width: Some(2),
            max_speed_gts: Some(8.0),
            max_width: Some(4),
            port_max_speed_gts: Some(8.0),
            port_max_width: Some(port_width),
        };
        d.pci = Some(PciDevice {
            link: Some(link(2)),
            ..Default::default()
        });
        let f = diagnose_device(&d);
        assert_eq!(f[0].code, "storage-pcie-downgraded");
        assert_eq!(f[0].severity, Severity::Info);
        assert!(
            f[0].message.ends_with(
                "trained at 8GT/s x2 while it supports 8GT/s x4; the port above offers only \
                 8GT/s x2: the slot's wiring, nothing to tune"
            ),
            "{}",
            f[0].message
        );
        // A x4 port: below what both ends can do, a warning.
        d.pci = Some(PciDevice {
            link: Some(link(4)),
            ..Default::default()
        });
        let f = diagnose_device(&d);
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(
            f[0].message.contains("its port supports 8GT/s x4"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn usb2_port_caps_a_usb3_stick() {
        let d = usb_disk(480.0);
        let l = narrowest(&d).unwrap();
        assert_eq!(l.mb_per_s, 42.0);
        let f = diagnose_device(&d);
        assert_eq!(f[0].code, "storage-usb-downgraded");
        assert!(f[0].message.contains("runs at 480Mbps but can do 5Gbps"));
        let b = diagnose(&obs(38.0, StoragePhase::Read), Some(&d));
        assert_eq!(b[0].code, "storage-link-bound");
    }

    #[test]
    fn saturated_core_and_low_clocks() {
        let mut o = obs(23.0, StoragePhase::RandomWrite);
        o.phases[0].record_bytes = 4096;
        o.phases[0].busiest_cpu = Some(3);
        o.phases[0].busiest_cpu_pct = Some(97.0);
        o.phases[0].busiest_cpu_sys_pct = Some(62.0);
        o.phases[0].busiest_cpu_irq_pct = Some(30.0);
        o.phases[0].self_cpu_pct = Some(60.0);
        o.phases[0].avg_khz = vec![(0, 816_000.0)];
        o.policies = vec![PolicyFacts {
            id: 0,
            cpus: vec![0, 1, 2, 3],
            governor: Some("schedutil".into()),
            max_khz: Some(1_800_000),
        }];
        let f = diagnose(&o, Some(&usb_disk(5000.0)));
        let codes: Vec<&str> = f.iter().map(|x| x.code.as_str()).collect();
        assert_eq!(codes, ["storage-cpu-bound", "storage-governor-low-clock"]);
        assert!(
            f[0].message.contains("cpu3 was 97 % busy"),
            "{}",
            f[0].message
        );
        assert!(
            f[1].message
                .contains("'schedutil' kept cpu0-cpu3 at 816 MHz"),
            "{}",
            f[1].message
        );
        // With the performance governor there is nothing to say about clocks.
        o.policies[0].governor = Some("performance".into());
        assert_eq!(diagnose(&o, None).len(), 1);
    }

    #[test]
    fn someone_elses_load_is_not_our_io_path() {
        let mut o = obs(40.0, StoragePhase::Read);
        o.phases[0].busiest_cpu = Some(0);
        o.phases[0].busiest_cpu_pct = Some(100.0);
        o.phases[0].busiest_cpu_irq_pct = Some(4.0);
        o.phases[0].self_cpu_pct = Some(12.0);
        let f = diagnose(&o, None);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].code, "storage-background-load");
        o.phases[0].self_cpu_pct = Some(85.0);
        assert_eq!(diagnose(&o, None)[0].code, "storage-cpu-bound");
        // Without our own CPU time nothing can be attributed: neither finding.
        o.phases[0].self_cpu_pct = None;
        assert!(diagnose(&o, None).is_empty());
    }

    fn pass(phase: StoragePhase, cpu: u32, busy: f64, irq: f64, me: f64) -> PhaseObservation {
        PhaseObservation {
            record_bytes: 4096,
            phase: Some(phase),
            mb_per_s: 40.0,
            seconds: 3.0,
            window_ticks: Some(300),
            busiest_cpu: Some(cpu),
            busiest_cpu_pct: Some(busy),
            busiest_cpu_irq_pct: Some(irq),
            busiest_cpu_sys_pct: Some(busy - irq),
            self_cpu_pct: Some(me),
            ..Default::default()
        }
    }

    #[test]
    fn interrupt_share_alone_is_not_cpu_bound() {
        // The audit's loaded machine: cpu0 saturated by a compiler during the 4 KiB write
        // (we used 30 %), and during the reread 100 % busy with 31 % interrupts while we
        // used 22 %: 53 % of the core is the I/O path, the rest is someone else.
        let mut o = obs(40.0, StoragePhase::Write);
        o.phases = vec![
            pass(StoragePhase::Write, 0, 100.0, 2.0, 30.0),
            pass(StoragePhase::Reread, 0, 100.0, 31.0, 22.0),
        ];
        let f = diagnose(&o, None);
        let codes: Vec<&str> = f.iter().map(|x| x.code.as_str()).collect();
        assert_eq!(codes, ["storage-background-load"], "{f:?}");
        // A core that is not saturated is not CPU-bound, whatever its interrupt share.
        o.phases = vec![pass(StoragePhase::Read, 1, 70.0, 60.0, 10.0)];
        assert!(diagnose(&o, None).is_empty());
        // A core saturated by interrupts and our process is.
        o.phases = vec![pass(StoragePhase::Read, 1, 98.0, 60.0, 30.0)];
        assert_eq!(diagnose(&o, None)[0].code, "storage-cpu-bound");
    }

    #[test]
    fn competing_load_and_cpu_bound_are_not_both_said_for_one_core() {
        let mut o = obs(40.0, StoragePhase::Write);
        o.phases = vec![
            pass(StoragePhase::Write, 0, 100.0, 2.0, 20.0),
            pass(StoragePhase::RandomWrite, 0, 99.0, 40.0, 60.0),
        ];
        let codes: Vec<&str> = diagnose(&o, None).iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["storage-background-load"]);
        // On another core the I/O path's own saturation is still reported.
        o.phases[1].busiest_cpu = Some(2);
        let codes: Vec<&str> = diagnose(&o, None).iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["storage-background-load", "storage-cpu-bound"]);
    }

    #[test]
    fn ram_backed_filesystems_are_named() {
        for fs in ["tmpfs", "ramfs", "devtmpfs"] {
            let mut o = obs(4000.0, StoragePhase::Read);
            o.fstype = Some(fs.into());
            let f = diagnose(&o, None);
            assert_eq!(f[0].code, "storage-ram-filesystem", "{fs}");
            assert!(f[0].message.contains("this measures RAM"), "{fs}");
        }
    }

    #[test]
    fn fuse_and_page_cache() {
        let mut o = obs(80.0, StoragePhase::Write);
        o.fstype = Some("fuseblk".into());
        o.direct_io = false;
        let codes: Vec<&str> = diagnose(&o, None).iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, ["storage-fuse-filesystem", "storage-page-cache"]);
    }

    #[test]
    fn health_findings() {
        let mut d = device(Bus::Sata);
        d.health = Some(Health {
            rotation_rpm: Some(7200),
            temp_c: Some(50),
            crc_errors: Some(12),
            pending_sectors: Some(0),
            ..Default::default()
        });
        let f = diagnose_device(&d);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message
                .contains("50 °C (above 45 °C), 12 interface CRC errors"),
            "{}",
            f[0].message
        );
        // Attributes 5, 196, 197 and 198 each named (196 was left out before).
        if let Some(h) = d.health.as_mut() {
            h.crc_errors = None;
            h.reallocated_sectors = Some(5);
            h.reallocated_events = Some(196);
            h.pending_sectors = Some(197);
            h.offline_uncorrectable = Some(198);
        }
        let f = diagnose_device(&d);
        assert!(
            f[0].message.contains(
                "5 reallocated sectors, 196 reallocation events, 197 sectors pending \
                 reallocation, 198 uncorrectable sectors"
            ),
            "{}",
            f[0].message
        );
    }
}
