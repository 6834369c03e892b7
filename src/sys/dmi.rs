//! DMI/SMBIOS facts sbc-bench logs with `dmidecode` and `lshw`, read without either: the
//! `Device Info:` block (`dmidecode -t system`: Manufacturer, Product Name, Version, SKU
//! Number, Family), the `BIOS/UEFI:` block (`dmidecode -t bios`: Vendor, Version, Release
//! Date, BIOS Revision, Firmware Revision) from the kernel's `/sys/class/dmi/id/*`
//! attributes, and the memory devices of `RAM configuration:` (`lshw -C memory`, which
//! reads SMBIOS type 17) from the raw tables `/sys/firmware/dmi/entries/17-N/raw`, and
//! the processors (type 4, `4-N`) behind lscpu's `BIOS Vendor ID:`, `BIOS Model name:`,
//! `BIOS CPU family:` lines and its socket count on Arm.
//!
//! Only known attribute names are read, and of the entries directory only the `17-N`
//! entries (N < [`MAX_TYPE17`]) and the `4-N` ones (N < [`MAX_TYPE4`]), each `raw` file
//! capped at [`MAX_RAW`] bytes.

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// The kernel's DMI attribute directory.
pub const DMI_ID: &str = "/sys/class/dmi/id";
/// The kernel's raw SMBIOS structures, one directory per structure (`17-0`, `17-1`…).
pub const DMI_ENTRIES: &str = "/sys/firmware/dmi/entries";
/// Memory device structures probed (`17-0` … `17-63`): servers have 48 slots at most.
pub const MAX_TYPE17: u32 = 64;
/// Processor structures probed (`4-0` … `4-15`).
pub const MAX_TYPE4: u32 = 16;
/// A type 17 structure is under 100 bytes plus its strings; a page is plenty.
pub const MAX_RAW: u64 = 4096;

/// `dmidecode -t system` labels sbc-bench keeps, with the sysfs attribute of each, in
/// dmidecode's order.
const SYSTEM: &[(&str, &str)] = &[
    ("Manufacturer", "sys_vendor"),
    ("Product Name", "product_name"),
    ("Version", "product_version"),
    ("SKU Number", "product_sku"),
    ("Family", "product_family"),
];

/// `dmidecode -t bios` labels sbc-bench keeps (`Vendor:|Version:|Release Date:|Revision:`),
/// with the sysfs attribute of each.
const BIOS: &[(&str, &str)] = &[
    ("Vendor", "bios_vendor"),
    ("Version", "bios_version"),
    ("Release Date", "bios_date"),
    ("BIOS Revision", "bios_release"),
    ("Firmware Revision", "ec_firmware_release"),
];

/// The DMI facts of the log's head.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DmiInfo {
    /// `Device Info:` lines (label, value), placeholders dropped as sbc-bench drops them;
    /// empty when there is no DMI or the firmware is a Raspberry Pi's emulation.
    #[serde(default)]
    pub system: Vec<(String, String)>,
    /// `BIOS/UEFI:` lines (label, value).
    #[serde(default)]
    pub bios: Vec<(String, String)>,
}

/// Values sbc-bench's `grep -E -v` drops from `Device Info:` (vendors' placeholders).
pub fn is_system_placeholder(v: &str) -> bool {
    const DROP: &[&str] = &[
        "O.E.M.",
        "123456789",
        "0000000000000000",
        "Default",
        "default",
        "System Product Name",
        "System manufacturer",
        "System Version",
        "BAD INDEX",
    ];
    v.trim().is_empty() || v.starts_with("Not ") || DROP.iter().any(|d| v.contains(d))
}

/// Build the DMI facts from attribute values (`attr` answers a sysfs attribute name).
pub fn build(attr: impl Fn(&str) -> Option<String>) -> DmiInfo {
    let system: Vec<(String, String)> = SYSTEM
        .iter()
        .filter_map(|(label, a)| Some((label.to_string(), attr(a)?)))
        .filter(|(_, v)| !is_system_placeholder(v))
        .collect();
    // sbc-bench skips the "worthless SMBIOS/DMI emulation" of Raspberry Pi firmware.
    let system = if system
        .iter()
        .any(|(_, v)| v.to_ascii_lowercase().contains("raspberrypi"))
    {
        Vec::new()
    } else {
        system
    };
    let bios = BIOS
        .iter()
        .filter_map(|(label, a)| Some((label.to_string(), attr(a)?)))
        .collect();
    DmiInfo { system, bios }
}

/// Read `/sys/class/dmi/id/*`; empty on boards without DMI.
pub fn read(root: &SysRoot) -> DmiInfo {
    build(|a| root.value(format!("{DMI_ID}/{a}")))
}

/// One memory device (SMBIOS type 17), the fields `lshw -C memory` shows of a bank.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryDevice {
    /// Form factor code (offset 0x0E: 9 DIMM, 11 Row of chips, 13 SODIMM…).
    pub form_factor: u8,
    /// Memory type code (offset 0x12: 0x1A DDR4, 0x23 LPDDR5…).
    pub memory_type: u8,
    /// Type detail bits (offset 0x13).
    pub type_detail: u16,
    /// Size in bytes; 0 for an empty slot, `None` when unknown.
    pub size_bytes: Option<u64>,
    /// Data width in bits (offset 0x0A); `None` when unknown (0xFFFF).
    pub data_width_bits: Option<u16>,
    /// Maximum speed in MT/s (offset 0x15, extended at 0x54).
    pub speed_mts: Option<u32>,
    /// Configured speed in MT/s (offset 0x20, extended at 0x58).
    pub configured_mts: Option<u32>,
    /// Device locator (`DIMM 0`, `Top - on board`).
    pub locator: Option<String>,
    /// Manufacturer.
    pub manufacturer: Option<String>,
    /// Part number.
    pub part_number: Option<String>,
}

fn le16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The strings after a structure's formatted area (1-based references; 0 means none),
/// as stored: lscpu prints them untrimmed.
fn smbios_strings_raw(raw: &[u8], len: usize) -> Vec<String> {
    let Some(tail) = raw.get(len..) else {
        return Vec::new();
    };
    tail.split(|&b| b == 0)
        .take_while(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect()
}

/// The same, trimmed.
fn smbios_strings(raw: &[u8], len: usize) -> Vec<String> {
    smbios_strings_raw(raw, len)
        .into_iter()
        .map(|s| s.trim().to_string())
        .collect()
}

/// One SMBIOS structure: its formatted area and its strings.
struct Structure<'a> {
    f: &'a [u8],
    strings: Vec<String>,
}

impl<'a> Structure<'a> {
    /// `raw` as a structure of type `kind` whose formatted area has at least `min_len`
    /// bytes; strings trimmed unless `raw_strings`. `None` for another type or too short.
    fn parse(raw: &'a [u8], kind: u8, min_len: usize, raw_strings: bool) -> Option<Self> {
        if *raw.first()? != kind {
            return None;
        }
        let len = usize::from(*raw.get(1)?);
        if len < min_len || raw.len() < len {
            return None;
        }
        let strings = if raw_strings {
            smbios_strings_raw(raw, len)
        } else {
            smbios_strings(raw, len)
        };
        Some(Self {
            f: &raw[..len],
            strings,
        })
    }

    /// The string the byte at `at` refers to (1-based; 0, a missing or an empty one: none).
    fn string(&self, at: usize) -> Option<String> {
        let n = usize::from(*self.f.get(at)?);
        let s = self.strings.get(n.checked_sub(1)?)?.clone();
        (!s.is_empty()).then_some(s)
    }
}

/// The structures of type `kind` (`KIND-0` … `KIND-{max-1}`, probed by name until the first
/// missing one), parsed by `parse`; empty without DMI or when not root.
fn read_structures<T>(root: &SysRoot, kind: u8, max: u32, parse: fn(&[u8]) -> Option<T>) -> Vec<T> {
    (0..max)
        .map_while(|n| {
            root.read_bytes_max(format!("{DMI_ENTRIES}/{kind}-{n}/raw"), MAX_RAW)
                .ok()
        })
        .filter_map(|raw| parse(&raw))
        .collect()
}

/// One processor (SMBIOS type 4), the fields lscpu shows of the first one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Processor {
    /// Processor family (offset 0x06; 0xFE defers to the word at 0x28: 0x102 ARMv8).
    pub family: u16,
    /// Manufacturer string (0x07), untrimmed.
    pub manufacturer: Option<String>,
    /// Version string (0x10), untrimmed.
    pub version: Option<String>,
    /// Current speed in MHz (0x16).
    pub current_mhz: u16,
    /// Part number string (0x22, SMBIOS 2.3+), untrimmed.
    pub part_number: Option<String>,
}

impl Processor {
    /// lscpu's `BIOS Model name:`: version, part number and current speed, as util-linux
    /// 2.38 joins them (`Intel(R) N100 To Be Filled By O.E.M. CPU @ 2.8GHz`).
    pub fn bios_model_name(&self) -> String {
        format!(
            "{} {} CPU @ {}.{}GHz",
            self.version.as_deref().unwrap_or(""),
            self.part_number.as_deref().unwrap_or(""),
            self.current_mhz / 1000,
            (self.current_mhz % 1000) / 100
        )
    }
}

/// Parse one raw SMBIOS type 4 structure (`/sys/firmware/dmi/entries/4-N/raw`). `None`
/// for another type or a structure too short for the SMBIOS 2.0 fields (through the
/// current speed at 0x16); fields past the formatted area are absent, not read.
pub fn parse_type4(raw: &[u8]) -> Option<Processor> {
    let st = Structure::parse(raw, 4, 0x18, true)?;
    let (f, string) = (st.f, |at| st.string(at));
    let family = match f[0x06] {
        0xFE => le16(f, 0x28).unwrap_or(0xFE),
        b => u16::from(b),
    };
    Some(Processor {
        family,
        manufacturer: string(0x07),
        version: string(0x10),
        current_mhz: le16(f, 0x16)?,
        part_number: string(0x22),
    })
}

/// The processors of the raw SMBIOS tables, in structure order; empty without them.
pub fn read_processors(root: &SysRoot) -> Vec<Processor> {
    read_structures(root, 4, MAX_TYPE4, parse_type4)
}

/// Parse one raw SMBIOS type 17 structure (`/sys/firmware/dmi/entries/17-N/raw`). `None`
/// for another type or a structure too short for the SMBIOS 2.1 fields.
pub fn parse_type17(raw: &[u8]) -> Option<MemoryDevice> {
    let st = Structure::parse(raw, 17, 0x15, false)?;
    let (f, string) = (st.f, |at| st.string(at));
    let size_bytes = match le16(f, 0x0C)? {
        0xFFFF => None,
        0x7FFF => le32(f, 0x1C).map(|mb| u64::from(mb & 0x7FFF_FFFF) << 20),
        s if s & 0x8000 != 0 => Some(u64::from(s & 0x7FFF) << 10),
        s => Some(u64::from(s) << 20),
    };
    let speed = |at: usize, ext: usize| match le16(f, at) {
        Some(0xFFFF) => le32(f, ext).filter(|&v| v != 0),
        Some(0) | None => None,
        Some(v) => Some(u32::from(v)),
    };
    Some(MemoryDevice {
        form_factor: *f.get(0x0E)?,
        memory_type: *f.get(0x12)?,
        type_detail: le16(f, 0x13)?,
        size_bytes,
        data_width_bits: le16(f, 0x0A).filter(|&w| w != 0xFFFF && w != 0),
        speed_mts: speed(0x15, 0x54),
        configured_mts: speed(0x20, 0x58),
        locator: string(0x10),
        manufacturer: string(0x17),
        part_number: string(0x1A),
    })
}

/// The memory devices of the raw SMBIOS tables, in structure order; empty without them
/// (no DMI, not root: the files are root-only).
pub fn read_memory_devices(root: &SysRoot) -> Vec<MemoryDevice> {
    read_structures(root, 17, MAX_TYPE17, parse_type17)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A type 17 structure of the Radxa Orion O6 / Minisforum MS-R1 (CIX P1, corpus logs
    /// `88LE` and `1ET4`: `Row of chips 5500 MHz`, `Top - on board`, 16GiB, 32 bits),
    /// rebuilt from those logs' `lshw` lines: LPDDR5 (0x23), type detail Other, 16384 MB.
    pub(crate) fn ms_r1_bank() -> Vec<u8> {
        let mut f = vec![0u8; 0x5C];
        f[0] = 17;
        f[1] = 0x5C;
        f[0x08..0x0A].copy_from_slice(&32u16.to_le_bytes());
        f[0x0A..0x0C].copy_from_slice(&32u16.to_le_bytes());
        f[0x0C..0x0E].copy_from_slice(&0x7FFFu16.to_le_bytes());
        f[0x0E] = 11;
        f[0x10] = 1;
        f[0x12] = 0x23;
        f[0x13..0x15].copy_from_slice(&0x0002u16.to_le_bytes());
        f[0x15..0x17].copy_from_slice(&5500u16.to_le_bytes());
        f[0x17] = 0;
        f[0x1A] = 0;
        f[0x1C..0x20].copy_from_slice(&16384u32.to_le_bytes());
        f[0x20..0x22].copy_from_slice(&5500u16.to_le_bytes());
        f.extend_from_slice(b"Top - on board\0\0");
        f
    }

    #[test]
    fn type17_of_the_ms_r1_parses_size_speed_and_locator() {
        let d = parse_type17(&ms_r1_bank()).unwrap();
        assert_eq!(d.size_bytes, Some(16 << 30));
        assert_eq!(d.speed_mts, Some(5500));
        assert_eq!(d.configured_mts, Some(5500));
        assert_eq!(d.data_width_bits, Some(32));
        assert_eq!(d.form_factor, 11);
        assert_eq!(d.locator.as_deref(), Some("Top - on board"));
        assert_eq!(d.manufacturer, None);
    }

    /// A type 4 structure as the CIX P1 logs (`1ET4`) show it through lscpu: Cix's
    /// manufacturer string, version `CIX P1 CP8180 ` (lscpu's three spaces before `CPU`
    /// mean a trailing blank, as stored), no part number, 1900 MHz, family 0xFE → 258.
    pub(crate) fn cix_p1_processor() -> Vec<u8> {
        let mut f = vec![0u8; 0x30];
        f[0] = 4;
        f[1] = 0x30;
        f[0x06] = 0xFE;
        f[0x07] = 1;
        f[0x10] = 2;
        f[0x16..0x18].copy_from_slice(&1900u16.to_le_bytes());
        f[0x22] = 0;
        f[0x28..0x2A].copy_from_slice(&258u16.to_le_bytes());
        f.extend_from_slice(b"Cix Technology Group Co., Ltd.\0CIX P1 CP8180 \0\0");
        f
    }

    #[test]
    fn type4_of_the_cix_p1_reads_as_lscpu_prints_it() {
        let p = parse_type4(&cix_p1_processor()).unwrap();
        assert_eq!(p.family, 258);
        assert_eq!(
            p.manufacturer.as_deref(),
            Some("Cix Technology Group Co., Ltd.")
        );
        assert_eq!(p.bios_model_name(), "CIX P1 CP8180   CPU @ 1.9GHz");
        // The Celeron N2830 log (`4HYd`): version and part number joined, 2167 MHz.
        let mut f = vec![0u8; 0x28];
        f[0] = 4;
        f[1] = 0x28;
        f[0x06] = 15;
        f[0x07] = 1;
        f[0x10] = 2;
        f[0x16..0x18].copy_from_slice(&2167u16.to_le_bytes());
        f[0x22] = 3;
        f.extend_from_slice(b"Intel\0Intel(R) Celeron(R) CPU N2830 @ 2.16GHz\0Fill By OEM\0\0");
        let p = parse_type4(&f).unwrap();
        assert_eq!(p.family, 15);
        assert_eq!(
            p.bios_model_name(),
            "Intel(R) Celeron(R) CPU N2830 @ 2.16GHz Fill By OEM CPU @ 2.1GHz"
        );
    }

    #[test]
    fn type4_garbage_short_and_other_structures_are_none() {
        assert_eq!(parse_type4(&[]), None);
        assert_eq!(parse_type4(&[4, 0x10, 0, 0]), None);
        assert_eq!(parse_type4(&ms_r1_bank()), None);
        let mut short = cix_p1_processor();
        short[1] = 0xFF;
        assert_eq!(parse_type4(&short[..0x30]), None);
        // An SMBIOS 2.0 structure (0x1A bytes) has no part number: none is read past it.
        let mut old = cix_p1_processor();
        old[1] = 0x1A;
        old[0x22] = 2;
        let p = parse_type4(&old).unwrap();
        assert_eq!(p.part_number, None);
        assert_eq!(p.family, 0xFE);
    }

    #[test]
    fn type17_garbage_and_short_structures_are_none() {
        assert_eq!(parse_type17(&[]), None);
        assert_eq!(parse_type17(&[17, 4, 0, 0]), None);
        assert_eq!(parse_type17(&[4, 0x30, 0, 0]), None);
        let mut short = ms_r1_bank();
        short.truncate(0x10);
        assert_eq!(parse_type17(&short), None);
    }

    #[test]
    fn type17_kib_granularity_and_empty_slot() {
        let mut b = ms_r1_bank();
        b[0x0C..0x0E].copy_from_slice(&(0x8000u16 | 512).to_le_bytes());
        assert_eq!(parse_type17(&b).unwrap().size_bytes, Some(512 << 10));
        b[0x0C..0x0E].copy_from_slice(&0u16.to_le_bytes());
        assert_eq!(parse_type17(&b).unwrap().size_bytes, Some(0));
    }

    #[test]
    fn framework_desktop_device_info_and_bios() {
        // Corpus log 8hUb (Framework Desktop): the values dmidecode showed.
        let attrs = [
            ("sys_vendor", "Framework"),
            ("product_name", "Desktop (AMD Ryzen AI Max 300 Series)"),
            ("product_version", "A6"),
            ("product_sku", "FRANMFCP06"),
            ("product_family", "Desktop"),
            ("bios_vendor", "INSYDE Corp."),
            ("bios_version", "03.00"),
            ("bios_date", "06/13/2025"),
            ("bios_release", "3.0"),
        ];
        let d = build(|a| {
            attrs
                .iter()
                .find(|(k, _)| *k == a)
                .map(|(_, v)| v.to_string())
        });
        assert_eq!(d.system.len(), 5);
        assert_eq!(d.system[3], ("SKU Number".into(), "FRANMFCP06".into()));
        assert_eq!(d.bios.len(), 4);
        assert_eq!(d.bios[3], ("BIOS Revision".into(), "3.0".into()));
    }

    #[test]
    fn placeholders_and_raspberry_pi_emulation_are_dropped() {
        let d = build(|a| match a {
            "sys_vendor" => Some("System manufacturer".into()),
            "product_name" => Some("ZBOX".into()),
            "product_version" => Some("To Be Filled By O.E.M.".into()),
            _ => None,
        });
        assert_eq!(d.system, vec![("Product Name".into(), "ZBOX".into())]);
        let pi = build(|a| (a == "sys_vendor").then(|| "raspberrypi".to_string()));
        assert!(pi.system.is_empty());
    }
}
