//! Lines for the review's `### PCIe and storage devices:` section: sbc-bench's line per
//! PCIe controller (`  * ASMedia ASM1164 Serial ATA AHCI: Speed 8GT/s (ok), Width x2
//! (ok), driver in use: ahci, ASPM Disabled`, as in the corpus reviews), then what
//! reviewers looked up by hand: payload sizes with their efficiency, and where each
//! NIC/storage/USB interrupt is served. Pure.

use crate::diagnose::irq_placement::{IrqDeviceKind, IrqPlacement, cpu_words};
use crate::diagnose::pcie::{
    LinkVerdict, PayloadVerdict, PcieCheck, TLP_OVERHEAD_BYTES, label, percent,
};
use crate::sys::cpu_list as list;
use crate::sys::pci::{self, PcieFunction, format_speed};

/// lspci's class name for the classes sbc-bench lists (`lspci -mm | grep controller`,
/// minus encryption, serial bus, communication, signal processing and memory
/// controllers, which it skips as mainboard internals). `None` for the others.
pub fn listed_class(class: &str) -> Option<&'static str> {
    let sub = class.get(..4)?;
    Some(match sub {
        "0100" => "SCSI storage controller",
        "0104" => "RAID bus controller",
        "0106" => "SATA controller",
        "0107" => "Serial Attached SCSI controller",
        "0108" => "Non-Volatile memory controller",
        "0180" => "Mass storage controller",
        "0200" => "Ethernet controller",
        "0280" => "Network controller",
        "0300" => "VGA compatible controller",
        "0302" => "3D controller",
        "0380" => "Display controller",
        "0400" => "Multimedia video controller",
        "0401" => "Multimedia audio controller",
        "0480" => "Multimedia controller",
        "0805" => "SD Host controller",
        "0c03" => "USB controller",
        "0d80" => "Wireless controller",
        _ => return None,
    })
}

/// sbc-bench's line for each PCIe controller with a link state, in address order.
/// NVMe SSDs are left out: the storage lines show them with their SMART data.
pub fn controller_lines(funcs: &[PcieFunction]) -> Vec<String> {
    funcs
        .iter()
        .filter(|f| {
            f.device
                .class
                .as_deref()
                .and_then(listed_class)
                .is_some_and(|c| c != "Non-Volatile memory controller")
        })
        .filter_map(|f| {
            let link = f
                .pcie
                .as_ref()
                .map(|c| c.link())
                .or_else(|| f.device.link.clone())?;
            let status = pci::format_link_status(&link)?;
            let driver = f.device.driver.as_deref().unwrap_or("none");
            let aspm = f
                .device
                .aspm
                .as_ref()
                .or(f.pcie.as_ref().map(|c| &c.aspm))
                .map(|a| format!(", {}", a.describe()))
                .unwrap_or_default();
            Some(format!(
                "  * {}: {status}, driver in use: {driver}{aspm}",
                label(f)
            ))
        })
        .collect()
}

fn link_words(l: &LinkVerdict) -> String {
    let status = pci::format_link_status(&pci::PciLink {
        speed_gts: Some(l.speed_gts),
        width: Some(l.width),
        max_speed_gts: l.cap_speed_gts,
        max_width: l.cap_width,
        ..pci::PciLink::default()
    })
    .unwrap_or_default();
    match (l.port_speed_gts, l.port_width) {
        (Some(s), Some(w)) => format!("{status} (port: {} x{w})", format_speed(s)),
        _ => status,
    }
}

fn payload_words(p: &PayloadVerdict) -> String {
    let path = match p.port_supported_bytes {
        Some(b) => format!("device {}, port {b}", p.supported_bytes),
        None => format!("device {}", p.supported_bytes),
    };
    let eff = match (p.efficiency, p.possible_efficiency) {
        (Some(now), Some(best)) if p.payload_below() => format!(
            ": {} payload efficiency, {} at {} bytes",
            percent(now),
            percent(best),
            p.possible_bytes
        ),
        (Some(now), _) => format!(": {} payload efficiency", percent(now)),
        _ => String::new(),
    };
    format!(
        "MaxPayload {} bytes ({path}){eff}, MaxReadReq {} bytes",
        p.max_payload_bytes, p.max_read_request_bytes
    )
}

/// One line per endpoint with its link against device and port, payload sizes with
/// their efficiency, and ASPM: `  * 0001:11:00.0 ASMedia ASM1164 Serial ATA AHCI: Speed
/// 8GT/s (ok), Width x2 (ok) (port: 8GT/s x2), MaxPayload 128 bytes (device 256, port
/// 256): 81.8 % payload efficiency, 89.4 % at 256 bytes, MaxReadReq 256 bytes, ASPM
/// Disabled (supported: L1)`. A function whose config space could not be read says
/// `PCIe capability n/a`.
pub fn check_lines(checks: &[PcieCheck]) -> Vec<String> {
    checks
        .iter()
        .map(|c| {
            let mut parts = Vec::new();
            if let Some(l) = &c.link {
                parts.push(link_words(l));
            }
            if let Some(p) = &c.payload {
                parts.push(payload_words(p));
            } else {
                parts.push("PCIe capability n/a".to_string());
            }
            if let Some(a) = &c.aspm {
                parts.push(a.clone());
            }
            format!("  * {} {}: {}", c.address, c.label, parts.join(", "))
        })
        .collect()
}

/// The formula behind the percentages, once, when any line shows one.
pub fn efficiency_note(checks: &[PcieCheck]) -> Option<String> {
    checks
        .iter()
        .any(|c| c.payload.as_ref().is_some_and(|p| p.efficiency.is_some()))
        .then(|| {
            format!(
                "  * Payload efficiency = MaxPayload / (MaxPayload + {TLP_OVERHEAD_BYTES} bytes TLP overhead) \
                 × line coding (8b/10b below 8GT/s, 128b/130b from 8GT/s)"
            )
        })
}

fn kind_word(k: IrqDeviceKind) -> &'static str {
    match k {
        IrqDeviceKind::Nic => "NIC",
        IrqDeviceKind::Storage => "storage",
        IrqDeviceKind::Usb => "USB",
    }
}

fn steering(label: &str, cpus: &Option<Vec<u32>>) -> String {
    match cpus {
        Some(c) if c.is_empty() => format!("{label} off"),
        Some(c) => format!("{label} cpu{}", list::format_list(c)),
        None => format!("{label} n/a"),
    }
}

/// Where each NIC/storage/USB interrupt is served: `  * IRQs of enP4p65s0 (NIC, 2500
/// Mb/s): 224 on cpu6 (85905), 240 on cpu6 (51853), 242 on cpu0 (112560); RPS off, XPS
/// off`. Counts are since boot.
pub fn irq_lines(placements: &[IrqPlacement]) -> Vec<String> {
    placements
        .iter()
        .map(|p| {
            let speed = p
                .speed_mbps
                .map(|s| format!(", {s} Mb/s"))
                .unwrap_or_default();
            let lines: Vec<String> = p
                .irqs
                .iter()
                .map(|i| {
                    let n = i.total();
                    let count = if n > 0 {
                        format!(" ({n})")
                    } else {
                        String::new()
                    };
                    format!("{} on {}{count}", i.irq, cpu_words(&i.serving()))
                })
                .collect();
            let mut s = format!(
                "  * IRQs of {} ({}{speed}): {}",
                p.device,
                kind_word(p.kind),
                lines.join(", ")
            );
            if p.kind == IrqDeviceKind::Nic {
                s.push_str(&format!(
                    "; {}, {}",
                    steering("RPS", &p.rps_cpus),
                    steering("XPS", &p.xps_cpus)
                ));
            }
            s
        })
        .collect()
}

/// Everything this module adds to the review's `### PCIe and storage devices:` section,
/// in order: sbc-bench's controller lines, the per-link details, the formula (once) and
/// the IRQ placement. The storage lines (NVMe, SATA, MMC…) are the storage report's.
pub fn section_lines(
    funcs: &[PcieFunction],
    checks: &[PcieCheck],
    placements: &[IrqPlacement],
) -> Vec<String> {
    let mut out = controller_lines(funcs);
    out.extend(check_lines(checks));
    out.extend(efficiency_note(checks));
    out.extend(irq_lines(placements));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::pcie;
    use crate::sys::pci::{Aspm, PciDevice, PcieCap, PciePortType};

    fn func(addr: &str, class: &str, vendor: &str, device: &str, cap: PcieCap) -> PcieFunction {
        PcieFunction {
            device: PciDevice {
                address: addr.into(),
                vendor_id: Some("1b21".into()),
                device_id: Some("1164".into()),
                class: Some(class.into()),
                driver: Some("ahci".into()),
                ..Default::default()
            },
            vendor_name: Some(vendor.into()),
            device_name: Some(device.into()),
            upstream: Some("0001:10:00.0".into()),
            pcie: Some(cap),
        }
    }

    fn cap(t: PciePortType) -> PcieCap {
        PcieCap {
            offset: 0x80,
            version: 2,
            port_type: t,
            max_payload_supported_bytes: 256,
            max_payload_bytes: 128,
            max_read_request_bytes: 256,
            link_cap_speed_gts: Some(8.0),
            link_cap_width: Some(2),
            aspm_l0s_supported: false,
            aspm_l1_supported: true,
            aspm: Aspm {
                source: "config".into(),
                ..Default::default()
            },
            link_speed_gts: Some(8.0),
            link_width: Some(2),
        }
    }

    #[test]
    fn rock5_itx_corpus_line_and_details() {
        let mut rp = func(
            "0001:10:00.0",
            "060400",
            "Fuzhou Rockchip Electronics Co., Ltd",
            "RK3588",
            cap(PciePortType::RootPort),
        );
        rp.upstream = None;
        rp.device.driver = Some("pcieport".into());
        let sata = func(
            "0001:11:00.0",
            "010601",
            "ASMedia Technology Inc.",
            "ASM1164 Serial ATA AHCI Controller",
            cap(PciePortType::Endpoint),
        );
        let all = vec![rp, sata];
        // Radxa-Rock-5-ITX.md line 94, byte for byte.
        assert_eq!(
            controller_lines(&all),
            vec![
                "  * ASMedia ASM1164 Serial ATA AHCI: Speed 8GT/s (ok), Width x2 (ok), driver in use: ahci, ASPM Disabled"
            ]
        );
        let checks = pcie::check(&all);
        assert_eq!(
            check_lines(&checks),
            vec![
                "  * 0001:11:00.0 ASMedia ASM1164 Serial ATA AHCI: Speed 8GT/s (ok), Width x2 (ok) (port: 8GT/s x2), \
                  MaxPayload 128 bytes (device 256, port 256): 81.8 % payload efficiency, 89.4 % at 256 bytes, \
                  MaxReadReq 256 bytes, ASPM Disabled (supported: L1)"
            ]
        );
        assert!(
            efficiency_note(&checks)
                .unwrap()
                .contains("(MaxPayload + 26 bytes TLP overhead)")
        );
        assert_eq!(efficiency_note(&[]), None);
    }

    #[test]
    fn classes() {
        assert_eq!(listed_class("020000"), Some("Ethernet controller"));
        assert_eq!(listed_class("060400"), None);
        assert_eq!(listed_class("0780"), None);
        assert_eq!(listed_class("0"), None);
    }
}
