//! USB devices between a disk and the host: the bridge chip, the hubs it shares, the
//! negotiated speed versus what the device can do, and the driver (`uas` or the slower
//! `usb-storage`).
//!
//! Sources, all under `/sys/bus/usb/devices/<dev>/` (the same directories the block
//! device's sysfs path passes through): `idVendor`, `idProduct`, `manufacturer`,
//! `product`, `speed` (Mbit/s), `version` (bcdUSB), `busnum`, `devnum`, `bDeviceClass`,
//! `maxchild` (hub ports), `quirks`, `bos_descriptors` (kernel ≥ 6.9: the cached Binary
//! Object Store, read without USB I/O), and the interface's `driver` link. No `lsusb`.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// One USB device (not interface) as sysfs describes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsbDevice {
    /// Kernel name: `6-1.4` (bus 6, port 1 of the root hub, port 4 of the hub behind it),
    /// `usb6` for a root hub.
    pub sysname: String,
    /// Bus number (`lsusb`'s `Bus 006`).
    pub busnum: Option<u32>,
    /// Device number on the bus (`lsusb`'s `Device 003`).
    pub devnum: Option<u32>,
    /// Vendor ID, lower-case hex (`174c`).
    pub vendor_id: Option<String>,
    /// Product ID, lower-case hex (`55aa`).
    pub product_id: Option<String>,
    /// The device's manufacturer string descriptor.
    pub manufacturer: Option<String>,
    /// The device's product string descriptor.
    pub product: Option<String>,
    /// Negotiated speed in Mbit/s (1.5, 12, 480, 5000, 10000, 20000).
    pub speed_mbps: Option<f64>,
    /// bcdUSB as sysfs prints it (`3.20`, `2.10`).
    pub usb_version: Option<String>,
    /// USB class of the device (`09` is a hub).
    pub device_class: Option<String>,
    /// Number of downstream ports when this is a hub.
    pub ports: Option<u32>,
    /// Speeds the device says it supports (`12Mbps`, `480Mbps`, `5Gbps`, then
    /// SuperSpeedPlus sublinks as lsusb words them).
    #[serde(default)]
    pub capable: Vec<String>,
    /// Where [`UsbDevice::capable`] came from: `"bos"` (the device's own BOS descriptor)
    /// or `"bcdUSB"` (inferred: a USB 3 device supports 12 Mbps, 480 Mbps and 5 Gbps).
    pub capable_source: Option<String>,
}

impl UsbDevice {
    /// Is this a hub (class 09)?
    pub fn is_hub(&self) -> bool {
        self.device_class.as_deref() == Some("09")
    }

    /// Is this a root hub (`usbN`)?
    pub fn is_root_hub(&self) -> bool {
        self.sysname.starts_with("usb")
    }

    /// `vid:pid`.
    pub fn id(&self) -> Option<String> {
        Some(format!(
            "{}:{}",
            self.vendor_id.as_deref()?,
            self.product_id.as_deref()?
        ))
    }
}

/// Is `name` a USB device directory name (`usb3`, `3-1`, `3-1.4.2`), not an interface
/// (`3-1:1.0`) or a port?
pub fn is_device_name(name: &str) -> bool {
    if let Some(n) = name.strip_prefix("usb") {
        return !n.is_empty() && n.chars().all(|c| c.is_ascii_digit());
    }
    let Some((bus, ports)) = name.split_once('-') else {
        return false;
    };
    !bus.is_empty()
        && bus.chars().all(|c| c.is_ascii_digit())
        && !ports.is_empty()
        && ports
            .split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// Is `name` a USB interface directory (`3-1.4:1.0`)?
pub fn is_interface_name(name: &str) -> bool {
    match name.split_once(':') {
        Some((dev, cfg)) => {
            is_device_name(dev)
                && cfg
                    .split_once('.')
                    .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok())
        }
        None => false,
    }
}

/// Parse sysfs `speed`: `480`, `5000`, `1.5`.
pub fn parse_speed(text: &str) -> Option<f64> {
    let v: f64 = text.trim().parse().ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// sbc-bench's way to print a negotiated speed: `12Mbps`, `480Mbps`, `5Gbps`, `10Gbps`.
pub fn format_speed(mbps: f64) -> String {
    if mbps >= 1000.0 && (mbps / 1000.0).fract() == 0.0 {
        format!("{}Gbps", mbps / 1000.0)
    } else if mbps.fract() == 0.0 {
        format!("{mbps}Mbps")
    } else {
        format!("{mbps:.1}Mbps")
    }
}

/// Read the device at system path `dir`.
pub fn read_device(root: &SysRoot, dir: &Path) -> UsbDevice {
    let a = |n: &str| dir.join(n);
    let lower = |n: &str| root.value(a(n)).map(|v| v.to_ascii_lowercase());
    let usb_version = root.value(a("version"));
    let speed_mbps = root.value(a("speed")).and_then(|s| parse_speed(&s));
    let bos = root.read_bytes(a("bos_descriptors")).ok();
    let (capable, capable_source) = match bos.as_deref().and_then(parse_bos) {
        Some(c) if !c.is_empty() => (c, Some("bos".to_string())),
        _ => match infer_capable(usb_version.as_deref()) {
            Some(c) => (c, Some("bcdUSB".to_string())),
            None => (Vec::new(), None),
        },
    };
    UsbDevice {
        sysname: dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string(),
        busnum: root.parse(a("busnum")),
        devnum: root.parse(a("devnum")),
        vendor_id: lower("idVendor"),
        product_id: lower("idProduct"),
        manufacturer: root.value(a("manufacturer")),
        product: root.value(a("product")),
        speed_mbps,
        usb_version,
        device_class: lower("bDeviceClass"),
        ports: root.parse(a("maxchild")).filter(|&n: &u32| n > 0),
        capable,
        capable_source,
    }
}

/// Speeds of a device without a readable BOS, from bcdUSB: USB 3.x devices must support
/// Full, High and SuperSpeed (USB 3.2 spec, 11.3); anything faster needs the BOS.
pub fn infer_capable(usb_version: Option<&str>) -> Option<Vec<String>> {
    let major: u32 = usb_version?.trim().split('.').next()?.trim().parse().ok()?;
    (major >= 3).then(|| vec!["12Mbps".into(), "480Mbps".into(), "5Gbps".into()])
}

/// Parse a Binary Object Store (USB 3.2 spec, 9.6.2): the SuperSpeed USB Device
/// Capability (type 0x03) gives `wSpeedsSupported`, the SuperSpeedPlus capability (type
/// 0x0A) lists sublink speed attributes. Returns the speeds in the words `lsusb -v`
/// prints and sbc-bench quotes: `12Mbps`, `480Mbps`, `5Gbps`, then the distinct
/// `10Gb/s Symmetric RX SuperSpeedPlus`-style sublinks of 10 Gb/s and more, sorted.
/// `None` when this is not a BOS.
pub fn parse_bos(bos: &[u8]) -> Option<Vec<String>> {
    if bos.len() < 5 || bos[1] != 0x0f {
        return None;
    }
    let total = usize::from(u16::from_le_bytes([bos[2], bos[3]])).min(bos.len());
    let mut speeds = Vec::new();
    let mut sublinks: Vec<String> = Vec::new();
    let mut off = usize::from(bos[0]).max(5);
    while off + 3 <= total {
        let len = usize::from(bos[off]);
        if len < 3 || off + len > total {
            break;
        }
        let d = &bos[off..off + len];
        if d[1] == 0x10 {
            match d[2] {
                0x03 if len >= 6 => {
                    let w = u16::from_le_bytes([d[4], d[5]]);
                    for (bit, name) in [(0, "1Mbps"), (1, "12Mbps"), (2, "480Mbps"), (3, "5Gbps")] {
                        if w & (1 << bit) != 0 {
                            speeds.push(name.to_string());
                        }
                    }
                }
                0x0a if len >= 12 => {
                    let attrs = u32::from_le_bytes([d[4], d[5], d[6], d[7]]);
                    let count = (attrs & 0x1f) as usize + 1;
                    for i in 0..count {
                        let o = 12 + 4 * i;
                        let Some(b) = d.get(o..o + 4) else { break };
                        let a = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                        if let Some(s) = sublink_words(a) {
                            sublinks.push(s);
                        }
                    }
                }
                _ => {}
            }
        }
        off += len;
    }
    sublinks.sort();
    sublinks.dedup();
    // sbc-bench lists only sublinks of 10 Gb/s and more (5 Gb/s is in the list already).
    sublinks.retain(|s| s.starts_with("10G") || s.starts_with("20G") || s.starts_with("40G"));
    speeds.extend(sublinks);
    Some(speeds)
}

/// One sublink speed attribute (bits: 3:0 SSID, 5:4 exponent, 7:6 type, 15:14
/// protocol, 31:16 mantissa) in lsusb's words, e.g. `10Gb/s Symmetric RX SuperSpeedPlus`.
fn sublink_words(a: u32) -> Option<String> {
    let lse = (a >> 4) & 0x3;
    let st = (a >> 6) & 0x3;
    let lp = (a >> 14) & 0x3;
    let lsm = a >> 16;
    let unit = ["b/s", "Kb/s", "Mb/s", "Gb/s"][lse as usize];
    let sym = if st & 1 != 0 {
        "Asymmetric"
    } else {
        "Symmetric"
    };
    let dir = if st & 2 != 0 { "TX" } else { "RX" };
    let proto = match lp {
        0 => "SuperSpeed",
        1 => "SuperSpeedPlus",
        _ => "reserved",
    };
    Some(format!("{lsm}{unit} {sym} {dir} {proto}"))
}

/// Vendor names as the usb.ids database (and so `lsusb` and sbc-bench) spell them, for
/// the vendors whose products turn up as or in front of storage on boards.
pub fn vendor_name(vid: &str) -> Option<&'static str> {
    Some(match vid {
        "0411" => "BUFFALO INC. (formerly MelCo., Inc.)",
        "04e8" => "Samsung Electronics Co., Ltd",
        "058f" => "Alcor Micro Corp.",
        "05ac" => "Apple, Inc.",
        "05e3" => "Genesys Logic, Inc.",
        "067b" => "Prolific Technology, Inc.",
        "0781" => "SanDisk Corp.",
        "0930" => "Toshiba Corp.",
        "0951" => "Kingston Technology",
        "0bc2" => "Seagate RSS LLC",
        "0bda" => "Realtek Semiconductor Corp.",
        "1058" => "Western Digital Technologies, Inc.",
        "13fe" => "Kingston Technology Company Inc.",
        "152d" => "JMicron Technology Corp. / JMicron USA Technology Corp.",
        "154b" => "PNY",
        "174c" => "ASMedia Technology Inc.",
        "18a5" => "Verbatim, Ltd",
        "1a40" => "Terminus Technology Inc.",
        "1d6b" => "Linux Foundation",
        "2109" => "VIA Labs, Inc.",
        "8564" => "Transcend Information, Inc.",
        _ => return None,
    })
}

/// Vendors of USB-to-SATA/NVMe bridge chips: a disk behind one of these is "behind" a
/// bridge; JMicron, ASMedia, VIA Labs, Realtek, plus WD's dual-bay JMicron firmware.
pub fn is_bridge_vendor(vid: &str, pid: &str) -> bool {
    matches!(vid, "152d" | "174c" | "2109" | "0bda") || (vid == "1058" && pid == "0a10")
}

/// Vendors of drives sold in their own enclosure with branded bridge firmware (Seagate,
/// WD, Samsung, SanDisk, Toshiba, Sony, Buffalo, Lenovo, Freecom, Imation, iStorage,
/// Verbatim…): the disk is "in" their product.
pub fn is_drive_vendor(vid: &str) -> bool {
    matches!(
        vid,
        "0bc2"
            | "1058"
            | "04e8"
            | "0781"
            | "0930"
            | "0fce"
            | "054c"
            | "0411"
            | "17ef"
            | "07ab"
            | "0718"
            | "2009"
            | "18a5"
    )
}

/// The bridge chip behind a VID:PID, from the vendors' datasheets and product pages.
/// `product` is the device's product string, which tells apart ASMedia chips that share
/// `174c:55aa`. `None` when the chip is not known.
pub fn bridge_name(vid: &str, pid: &str, product: Option<&str>) -> Option<String> {
    let s = match (vid, pid) {
        ("1058", "0a10") => "JMicron JMS56x dual SATA 6Gb/s bridge",
        ("152d", "0561") => "JMicron JMS561 dual SATA 6Gb/s bridge",
        ("152d", "0567") | ("152d", "3562") => "JMicron JMS567 SATA 6Gb/s bridge",
        ("152d", "0576") => "JMicron JMS576 SATA 6Gb/s bridge",
        ("152d", "0578") => "JMicron JMS578 SATA 6Gb/s bridge",
        ("152d", "0580") => "JMicron JMS580 SATA bridge (SuperSpeed Plus / 6Gb/s)",
        ("152d", "0583") => "JMicron JMS583 NVMe bridge (SuperSpeed Plus / Gen3 x2)",
        ("152d", "0586") => "JMicron JMS586 NVMe bridge (SuperSpeed Plus 20Gbps / Gen3 x2)",
        ("152d", "0901") => "JMicron JMS901 UFS 2.1/UHS-I bridge",
        ("152d", "2329") => "JMicron JM20329 SATA bridge",
        ("152d", "2339") => "JMicron JM20339 SATA bridge",
        ("174c", "1352") | ("174c", "1356") => {
            "ASMedia ASM1352R SATA bridge (SuperSpeed Plus / 6Gb/s)"
        }
        ("174c", "225c") => "ASMedia ASM225CM SATA 6Gb/s bridge",
        ("174c", "2362") => "ASMedia ASM2362 NVMe bridge (SuperSpeed Plus / Gen3 x2)",
        ("174c", "2364") => "ASMedia ASM2364 NVMe bridge (SuperSpeed Plus 20Gbps / Gen3 x4)",
        ("174c", "5106") => "ASMedia ASM1051 SATA 3Gb/s bridge",
        ("174c", "55aa") => {
            // One ID for ASM1051E, ASM1053E, ASM1153(E), ASM1156 and ASM235CM: only the
            // product string (when the firmware sets it) tells which.
            let p = product.map(str::trim).unwrap_or_default();
            return Some(if p.starts_with("ASM235") {
                format!("ASMedia {p} SATA bridge (SuperSpeed Plus / 6Gb/s)")
            } else if p.starts_with("ASM105") || p.starts_with("ASM115") {
                format!("ASMedia {p} SATA 6Gb/s bridge")
            } else {
                "ASMedia SATA 6Gb/s bridge".to_string()
            });
        }
        ("2109", "0700") => "VIA Labs VL700 SATA 3Gb/s bridge",
        ("2109", "0701") => "VIA Labs VL701 SATA 3Gb/s bridge",
        ("2109", "0711") => "VIA Labs VL711 SATA bridge (SuperSpeed Plus / 6Gb/s)",
        ("2109", "0715") => "VIA Labs VL715/VL716 SATA 6Gb/s bridge",
        ("0bda", "9210") => "Realtek RTL9210 NVMe/SATA bridge (SuperSpeed Plus / Gen3 x2 / 6Gb/s)",
        ("05e3", "0731") => "Genesys Logic GL3310 SATA 3Gb/s bridge",
        ("067b", "2773") => "Prolific PL2773 SATA 3Gb/s bridge",
        _ => return None,
    };
    Some(s.to_string())
}

/// A display name as lsusb would give it: vendor (from the table, else the
/// manufacturer string) and product string. Bridge vendors get their short names, as
/// sbc-bench shortens them.
pub fn display_name(dev: &UsbDevice) -> Option<String> {
    let vid = dev.vendor_id.as_deref().unwrap_or_default();
    let vendor = match vid {
        "152d" => Some("JMicron".to_string()),
        "174c" => Some("ASMedia".to_string()),
        "0bda" => Some("Realtek".to_string()),
        _ => vendor_name(vid)
            .map(str::to_string)
            .or_else(|| dev.manufacturer.clone()),
    };
    let product = dev
        .product
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty());
    match (vendor, product) {
        (Some(v), Some(p)) => Some(format!("{v} {p}")),
        (Some(v), None) => Some(v),
        (None, Some(p)) => Some(p.to_string()),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_device_name("usb6"));
        assert!(is_device_name("6-1"));
        assert!(is_device_name("6-1.4"));
        assert!(!is_device_name("6-1.4:1.0"));
        assert!(!is_device_name("usb"));
        assert!(!is_device_name("host0"));
        assert!(!is_device_name("6-"));
        assert!(is_interface_name("6-1.4:1.0"));
        assert!(!is_interface_name("6-1.4"));
    }

    #[test]
    fn speeds_as_sbc_bench_prints_them() {
        assert_eq!(format_speed(5000.0), "5Gbps");
        assert_eq!(format_speed(10000.0), "10Gbps");
        assert_eq!(format_speed(480.0), "480Mbps");
        assert_eq!(format_speed(12.0), "12Mbps");
        assert_eq!(format_speed(1.5), "1.5Mbps");
        assert_eq!(parse_speed("5000\n"), Some(5000.0));
        assert_eq!(parse_speed("unknown"), None);
    }

    /// The BOS of a VIA Labs VL715 (USB 3.2 Gen 2): USB 2.0 extension, SuperSpeed
    /// capability (FS, HS, 5 Gbps) and SuperSpeedPlus with 10 Gb/s RX and TX sublinks.
    pub(crate) const VL715_BOS: &[u8] = &[
        0x05, 0x0f, 0x2a, 0x00, 0x03, // BOS, 42 bytes, 3 capabilities
        0x07, 0x10, 0x02, 0x02, 0x00, 0x00, 0x00, // USB 2.0 extension (LPM)
        0x0a, 0x10, 0x03, 0x00, 0x0e, 0x00, 0x01, 0x0a, 0xff, 0x07, // SuperSpeed
        0x14, 0x10, 0x0a, 0x00, 0x01, 0x00, 0x00, 0x00, // SuperSpeedPlus, SSAC=1
        0x00, 0x11, 0x00, 0x00, // wFunctionalitySupport, reserved
        0x30, 0x40, 0x0a, 0x00, // SSID 0, Gb/s, symmetric RX, SSP, 10
        0xb0, 0x40, 0x0a, 0x00, // SSID 0, Gb/s, symmetric TX, SSP, 10
    ];

    #[test]
    fn bos_of_a_vl715_reads_like_lsusb() {
        assert_eq!(
            parse_bos(VL715_BOS).unwrap(),
            [
                "12Mbps",
                "480Mbps",
                "5Gbps",
                "10Gb/s Symmetric RX SuperSpeedPlus",
                "10Gb/s Symmetric TX SuperSpeedPlus"
            ]
        );
    }

    #[test]
    fn bos_garbage_does_not_panic() {
        assert_eq!(parse_bos(&[]), None);
        assert_eq!(parse_bos(&[0x05, 0x02, 0, 0, 0]), None);
        // Lengths that lie.
        assert_eq!(
            parse_bos(&[0x05, 0x0f, 0xff, 0x00, 0x01, 0x40, 0x10, 0x03]),
            Some(vec![])
        );
        assert_eq!(
            parse_bos(&[0x05, 0x0f, 0x09, 0x00, 0x01, 0x00, 0x10, 0x03, 0x00]),
            Some(vec![])
        );
        let mut t = VL715_BOS.to_vec();
        t.truncate(30);
        assert!(parse_bos(&t).is_some());
    }

    #[test]
    fn bcd_usb_inference() {
        assert_eq!(
            infer_capable(Some(" 3.20")).unwrap(),
            ["12Mbps", "480Mbps", "5Gbps"]
        );
        assert_eq!(infer_capable(Some(" 2.00")), None);
        assert_eq!(infer_capable(Some("garbage")), None);
        assert_eq!(infer_capable(None), None);
    }

    #[test]
    fn bridges_from_the_rock5itx_review() {
        assert_eq!(
            bridge_name("174c", "55aa", Some("")).unwrap(),
            "ASMedia SATA 6Gb/s bridge"
        );
        assert_eq!(
            bridge_name("174c", "55aa", Some("ASM1153E")).unwrap(),
            "ASMedia ASM1153E SATA 6Gb/s bridge"
        );
        assert_eq!(
            bridge_name("152d", "3562", None).unwrap(),
            "JMicron JMS567 SATA 6Gb/s bridge"
        );
        assert_eq!(
            bridge_name("2109", "0715", None).unwrap(),
            "VIA Labs VL715/VL716 SATA 6Gb/s bridge"
        );
        assert_eq!(
            bridge_name("152d", "0578", None).unwrap(),
            "JMicron JMS578 SATA 6Gb/s bridge"
        );
        assert_eq!(bridge_name("dead", "beef", None), None);
        assert!(is_bridge_vendor("174c", "55aa"));
        assert!(!is_bridge_vendor("0781", "5583"));
        assert!(is_drive_vendor("0781"));
    }

    #[test]
    fn display_names() {
        let d = UsbDevice {
            vendor_id: Some("0781".into()),
            product: Some(" Ultra Fit".into()),
            ..Default::default()
        };
        assert_eq!(display_name(&d).unwrap(), "SanDisk Corp. Ultra Fit");
        let u = UsbDevice {
            vendor_id: Some("abcd".into()),
            manufacturer: Some("Acme".into()),
            ..Default::default()
        };
        assert_eq!(display_name(&u).unwrap(), "Acme");
        assert_eq!(display_name(&UsbDevice::default()), None);
    }
}
