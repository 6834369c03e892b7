//! SD cards and eMMC: who made the card (and whether that claim is believable), its
//! date and revisions, and the bus mode the host negotiated (`HS400 Enhanced strobe`,
//! `UHS SDR104`…), which caps throughput long before the flash does.
//!
//! Sources: the card's sysfs directory (`/sys/block/mmcblkN/device/`: `type`, `name`,
//! `manfid`, `oemid`, `date`, `hwrev`, `fwrev`, `serial`, `csd`, `rev`, `life_time`,
//! `pre_eol_info`) and, when debugfs is mounted and readable (root),
//! `/sys/kernel/debug/<host>/ios` for clock, bus width and timing.

use serde::{Deserialize, Serialize};

/// What the host controller negotiated with the card (`/sys/kernel/debug/mmcN/ios`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MmcIos {
    /// Bus clock actually set, in Hz (`actual clock`, else `clock`).
    pub clock_hz: Option<u64>,
    /// Data lines: 1, 4 or 8.
    pub bus_width: Option<u32>,
    /// Kernel timing number (`timing spec`), see [`BusMode::from_timing`].
    pub timing: Option<u32>,
    /// The kernel's words for it, e.g. `mmc HS400 enhanced strobe`.
    pub timing_name: Option<String>,
    /// Signalling voltage, e.g. `1.80 V`.
    pub signal_voltage: Option<String>,
}

/// Parse `ios` (`clock:\t\t200000000 Hz`, `bus width:\t3 (8 bits)`, `timing spec:\t10
/// (mmc HS400 enhanced strobe)`, `signal voltage:\t1 (1.80 V)`).
pub fn parse_ios(text: &str) -> MmcIos {
    let mut out = MmcIos::default();
    let mut clock = None;
    for line in text.lines() {
        let Some((key, val)) = line.split_once(':') else {
            continue;
        };
        let val = val.trim();
        let num = val
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok());
        let paren = val
            .split_once('(')
            .and_then(|(_, r)| r.rsplit_once(')'))
            .map(|(p, _)| p.trim().to_string());
        match key.trim() {
            "clock" => clock = num,
            "actual clock" => out.clock_hz = num.filter(|&n| n > 0),
            "bus width" => {
                out.bus_width = paren
                    .as_deref()
                    .and_then(|p| p.split_whitespace().next())
                    .and_then(|n| n.parse().ok())
            }
            "timing spec" => {
                out.timing = num.and_then(|n| u32::try_from(n).ok());
                out.timing_name = paren;
            }
            "signal voltage" => out.signal_voltage = paren,
            _ => {}
        }
    }
    if out.clock_hz.is_none() {
        out.clock_hz = clock.filter(|&n| n > 0);
    }
    out
}

/// Bus timing modes (`MMC_TIMING_*` in the kernel's `include/linux/mmc/host.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BusMode {
    /// Default speed (SD 25 MHz / MMC 26 MHz).
    Legacy,
    /// MMC high speed (52 MHz).
    MmcHs,
    /// SD high speed (50 MHz).
    SdHs,
    /// UHS-I SDR12.
    Sdr12,
    /// UHS-I SDR25.
    Sdr25,
    /// UHS-I SDR50.
    Sdr50,
    /// UHS-I SDR104.
    Sdr104,
    /// UHS-I DDR50.
    Ddr50,
    /// eMMC DDR52.
    Ddr52,
    /// eMMC HS200.
    Hs200,
    /// eMMC HS400.
    Hs400,
    /// eMMC HS400 with enhanced strobe.
    Hs400Es,
    /// SD Express (PCIe).
    SdExpress,
}

impl BusMode {
    /// From `timing spec` number and words.
    pub fn from_timing(n: u32, words: Option<&str>) -> Option<Self> {
        Some(match n {
            0 => Self::Legacy,
            1 => Self::MmcHs,
            2 => Self::SdHs,
            3 => Self::Sdr12,
            4 => Self::Sdr25,
            5 => Self::Sdr50,
            6 => Self::Sdr104,
            7 => Self::Ddr50,
            8 => Self::Ddr52,
            9 => Self::Hs200,
            10 if words.is_some_and(|w| w.to_ascii_lowercase().contains("enhanced strobe")) => {
                Self::Hs400Es
            }
            10 => Self::Hs400,
            11 | 12 => Self::SdExpress,
            _ => return None,
        })
    }

    /// The prefix of the kernel's "new … card" message after sbc-bench's rewording
    /// (`ultra high speed` → `UHS`, `high speed` → `HS`), e.g. `UHS SDR104 `.
    pub fn words(self) -> &'static str {
        match self {
            Self::Legacy | Self::SdExpress => "",
            Self::MmcHs | Self::SdHs => "HS ",
            Self::Sdr12 => "UHS SDR12 ",
            Self::Sdr25 => "UHS SDR25 ",
            Self::Sdr50 => "UHS SDR50 ",
            Self::Sdr104 => "UHS SDR104 ",
            Self::Ddr50 => "UHS DDR50 ",
            Self::Ddr52 => "DDR ",
            Self::Hs200 => "HS200 ",
            Self::Hs400 => "HS400 ",
            Self::Hs400Es => "HS400 Enhanced strobe ",
        }
    }

    /// Highest transfer rate of the bus in MB/s: clock × data lines × (2 for DDR) / 8,
    /// at the mode's maximum clock (SD 3.01 / JEDEC eMMC 5.1).
    pub fn max_mb_per_s(self, bus_width: u32) -> f64 {
        let w = f64::from(bus_width.max(1));
        let (mhz, ddr) = match self {
            Self::Legacy => (25.0, 1.0),
            Self::MmcHs => (52.0, 1.0),
            Self::SdHs => (50.0, 1.0),
            Self::Sdr12 => (25.0, 1.0),
            Self::Sdr25 => (50.0, 1.0),
            Self::Sdr50 => (100.0, 1.0),
            Self::Sdr104 => (208.0, 1.0),
            Self::Ddr50 => (50.0, 2.0),
            Self::Ddr52 => (52.0, 2.0),
            Self::Hs200 => (200.0, 1.0),
            Self::Hs400 | Self::Hs400Es => (200.0, 2.0),
            // PCIe Gen3 x1 after 128b/130b coding.
            Self::SdExpress => return 985.0,
        };
        mhz * w * ddr / 8.0
    }
}

/// eMMC version from the `rev` attribute (EXT_CSD_REV), as `mmc extcsd read` names it.
pub fn emmc_version(ext_csd_rev: u32) -> Option<&'static str> {
    Some(match ext_csd_rev {
        0 => "4.0",
        1 => "4.1",
        2 => "4.2",
        3 => "4.3",
        5 => "4.41",
        6 => "4.5",
        7 => "5.0",
        8 => "5.1",
        _ => return None,
    })
}

/// SD capacity class from the CSD register (sysfs `csd`, 32 hex digits): CSD version 1
/// is byte-addressed SDSC; version 2 with C_SIZE ≥ 0xFFFF (≥ 32 GiB) is SDXC, below
/// SDHC — the same rule the kernel uses for its "new … SDXC card" message.
pub fn sd_capacity_class(csd_hex: &str) -> Option<&'static str> {
    let h = csd_hex.trim();
    if h.len() != 32 || !h.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let v = u128::from_str_radix(h, 16).ok()?;
    match (v >> 126) & 0x3 {
        0 => Some("SD"),
        1 => {
            let c_size = (v >> 48) & 0x3f_ffff;
            Some(if c_size >= 0xffff { "SDXC" } else { "SDHC" })
        }
        _ => None,
    }
}

/// Verdict on a card's identity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardMaker {
    /// Manufacturer when manfid/oemid are unambiguous.
    pub manufacturer: Option<String>,
    /// `None`, `Some("probable")` (serial number suspiciously low) or `Some("definite")`
    /// (IDs or name only fakes use).
    pub counterfeit: Option<String>,
    /// A SD card name of `00000` (what Samsung SD cards report) is dropped from display.
    pub hide_name: bool,
}

impl CardMaker {
    /// The prefix sbc-bench puts before the card name, e.g. `Samsung `,
    /// `Probable counterfeit Texas Instruments `, `Definite counterfeit `.
    pub fn prefix(&self) -> String {
        let fake = match self.counterfeit.as_deref() {
            Some("definite") => return "Definite counterfeit ".to_string(),
            Some(_) => "Probable counterfeit ",
            None => "",
        };
        match &self.manufacturer {
            Some(m) if self.hide_name => format!("{fake}{m}"),
            Some(m) => format!("{fake}{m} "),
            None => fake.to_string(),
        }
    }
}

/// Identify the maker of an SD card or eMMC from `manfid`/`oemid` (the CID register).
/// The assignments are public: SD Association and JEDEC manufacturer IDs as collected by
/// card reviewers; the counterfeit combinations are IDs found only on fake cards
/// (bunnie's "On Hacking MicroSD Cards", the sbc-bench low-serial list). `serial` values
/// starting `0x0000` are suspicious: real makers number their cards densely.
pub fn identify_maker(
    manfid: &str,
    oemid: &str,
    name: &str,
    serial: &str,
    date: &str,
) -> CardMaker {
    let m = manfid.trim().to_ascii_lowercase();
    let o = oemid.trim().to_ascii_lowercase();
    let mut out = CardMaker::default();
    let probable = serial.trim().to_ascii_lowercase().starts_with("0x0000");
    if probable {
        out.counterfeit = Some("probable".to_string());
    }
    let definite = |out: &mut CardMaker| {
        out.counterfeit = Some("definite".to_string());
        out.manufacturer = None;
    };
    let maker = |out: &mut CardMaker, name: &str| out.manufacturer = Some(name.to_string());
    match (m.as_str(), o.as_str()) {
        // A legit soldered 128 GB eMMC (GoWin R86S, MeLE Quieter3C) despite the odd ID.
        ("0x0000df", "0x0118") => {}
        ("0x000000", _)
        | ("0x0000ff", "0x0000")
        | ("0x00006f", "0x0013")
        | ("0x000025", "0x1708")
        | ("0x0000df", _)
        | ("0x0000fe", "0x3456") => definite(&mut out),
        ("0x000001", _) => maker(&mut out, "Panasonic"),
        ("0x000002", "0x544d") => maker(&mut out, "Toshiba"),
        ("0x000003", "0x5344") | ("0x000003", "0x5744") => maker(&mut out, "SanDisk"),
        ("0x000008", _) => maker(&mut out, "Silicon Power"),
        // 0x12 (with "4V", "Vx" or anything else) is only seen on fakes, e.g. counterfeit
        // Samsung PRO Endurance and Kingston cards.
        ("0x000012", _) => definite(&mut out),
        ("0x000018", _) => maker(&mut out, "Infineon"),
        ("0x000015", "0x0100") | ("0x00001b", "0x534d") | ("0x0000ce", _) => {
            maker(&mut out, "Samsung");
            out.hide_name = name.trim() == "00000";
        }
        ("0x00001d", "0x4144") => {
            out.counterfeit = None;
            maker(&mut out, "AData");
        }
        ("0x00001d", _) => maker(&mut out, "Corsair"),
        // "PH": Phison, sold as AgfaPhoto, Delkin, Intenso, Lexar, PNY, Sony, Verbatim…;
        // they number cards low, so no "probable".
        ("0x000027", "0x5048") => {
            out.counterfeit = None;
            maker(&mut out, "Phison");
        }
        ("0x000028", "0x4245") => maker(&mut out, "Lexar"),
        ("0x000041", "0x3432") | ("0x000070", "0x0100") => maker(&mut out, "Kingston"),
        // "42" is Kingston's OEM ID; with another manufacturer ID it is a fake.
        (_, "0x3432") => definite(&mut out),
        ("0x000045", _) => maker(&mut out, "SanDisk/Toshiba"),
        ("0x000074", "0x4a45") => {
            // Transcend cards from before 2013 legitimately have low serials.
            if date.contains("/200")
                || date.ends_with("2010")
                || date.ends_with("2011")
                || date.ends_with("2012")
            {
                out.counterfeit = None;
            }
            maker(&mut out, "Transcend");
        }
        ("0x000074", "0x4a60") => maker(&mut out, "Transcend"),
        ("0x000082", "0x4a54") => maker(&mut out, "Sony"),
        ("0x000088", "0x0103") | ("0x0000d6", "0x0103") | ("0x0000d6", "0x2903") => {
            maker(&mut out, "Foresee")
        }
        ("0x00009b", "0x0100") => maker(&mut out, "YMTC"),
        ("0x00009f", "0x5449") => maker(&mut out, "Texas Instruments"),
        ("0x0000ad", "0x4c53") => maker(&mut out, "Longsys"),
        ("0x000090", "0x014a") => maker(&mut out, "SK Hynix"),
        ("0x0000ea", "0x010e") => maker(&mut out, "SiliconGo"),
        ("0x0000fe", _) => maker(&mut out, "Micron-Numonyx"),
        _ => {}
    }
    // Names and serials only counterfeiters use.
    let n = name.trim();
    if serial.trim().eq_ignore_ascii_case("0x00000000")
        || (n == "00000" && !out.hide_name)
        || matches!(n, "SMI" | "ASTC" | "AS")
    {
        definite(&mut out);
        out.hide_name = false;
    }
    out
}

/// eMMC 5.0+ wear estimation (`life_time`: two hex values, type A and type B cells, each
/// in steps of 10 % of the rated life; 0x0B means exceeded).
pub fn parse_life_time(text: &str) -> Option<(u8, u8)> {
    let mut it = text.split_whitespace().map(|t| {
        let t = t.trim_start_matches("0x");
        u8::from_str_radix(t, 16).ok()
    });
    Some((it.next()??, it.next()??))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/sys/kernel/debug/mmc0/ios` of an eMMC in HS400 Enhanced strobe mode on RK3588.
    const IOS_HS400ES: &str = "clock:\t\t200000000 Hz\n\
actual clock:\t200000000 Hz\n\
vdd:\t\t18 (3.0 ~ 3.1 V)\n\
bus mode:\t2 (push-pull)\n\
chip select:\t0 (don't care)\n\
power mode:\t2 (on)\n\
bus width:\t3 (8 bits)\n\
timing spec:\t10 (mmc HS400 enhanced strobe)\n\
signal voltage:\t1 (1.80 V)\n\
driver type:\t0 (driver type B)\n";

    #[test]
    fn ios_of_an_hs400es_emmc() {
        let i = parse_ios(IOS_HS400ES);
        assert_eq!(i.clock_hz, Some(200_000_000));
        assert_eq!(i.bus_width, Some(8));
        assert_eq!(i.timing, Some(10));
        assert_eq!(i.signal_voltage.as_deref(), Some("1.80 V"));
        let m = BusMode::from_timing(10, i.timing_name.as_deref()).unwrap();
        assert_eq!(m, BusMode::Hs400Es);
        assert_eq!(m.words(), "HS400 Enhanced strobe ");
        assert_eq!(m.max_mb_per_s(8), 400.0);
    }

    #[test]
    fn sdr104_card_carries_104_mb_per_s() {
        let i = parse_ios(
            "clock:\t\t200000000 Hz\nbus width:\t2 (4 bits)\ntiming spec:\t6 (sd uhs SDR104)\n",
        );
        assert_eq!(i.bus_width, Some(4));
        let m = BusMode::from_timing(i.timing.unwrap(), None).unwrap();
        assert_eq!(m.words(), "UHS SDR104 ");
        assert_eq!(m.max_mb_per_s(4), 104.0);
        assert_eq!(parse_ios("garbage\n::\n"), MmcIos::default());
        assert_eq!(BusMode::from_timing(99, None), None);
    }

    #[test]
    fn csd_capacity_class() {
        // CSD v2 with C_SIZE 0x7764f (238.8 GiB, the ROCK 5 ITX's EVO Plus): SDXC.
        assert_eq!(
            sd_capacity_class("400e00325b590007764f7f800a400043"),
            Some("SDXC")
        );
        // CSD v2 with C_SIZE 0xed1f (29.6 GiB, a "32 GB" card): SDHC.
        assert_eq!(
            sd_capacity_class("400e00325b590000ed1f7f800a400043"),
            Some("SDHC")
        );
        // CSD v1: byte-addressed SDSC.
        assert_eq!(
            sd_capacity_class("002e00325b5a83a9ffffff800a80003b"),
            Some("SD")
        );
        assert_eq!(sd_capacity_class("nothex"), None);
    }

    #[test]
    fn makers_from_the_corpus() {
        // ROCK 5 ITX: Samsung EVO Plus and Samsung eMMC.
        let s = identify_maker("0x00001b", "0x534d", "EE4S5", "0x8b1c2f70", "05/2023");
        assert_eq!(s.prefix(), "Samsung ");
        let e = identify_maker("0x000015", "0x0100", "BJTD4R", "0x3e7a9c11", "09/2023");
        assert_eq!(e.prefix(), "Samsung ");
        // A Samsung SD card reporting the name 00000: name hidden, not a fake.
        let z = identify_maker("0x00001b", "0x534d", "00000", "0x8b1c2f70", "05/2023");
        assert!(z.hide_name);
        assert_eq!(z.prefix(), "Samsung");
        // "29GB "Probable counterfeit Texas Instruments SPCC" UHS SDR104 SD card"
        let ti = identify_maker("0x00009f", "0x5449", "SPCC", "0x00001234", "08/2023");
        assert_eq!(ti.prefix(), "Probable counterfeit Texas Instruments ");
        // Low serial on a Phison card is normal.
        let ph = identify_maker("0x000027", "0x5048", "SD128", "0x00004567", "03/2021");
        assert_eq!(ph.prefix(), "Phison ");
        // IDs only fakes use.
        let f = identify_maker("0x000012", "0x3456", "SD", "0x12345678", "01/2020");
        assert_eq!(f.prefix(), "Definite counterfeit ");
        let k = identify_maker("0x000099", "0x3432", "SD32G", "0x12345678", "01/2020");
        assert_eq!(k.counterfeit.as_deref(), Some("definite"));
        let a = identify_maker("0x000003", "0x5344", "ASTC", "0x12345678", "01/2020");
        assert_eq!(a.prefix(), "Definite counterfeit ");
        // Unknown IDs: no claim either way.
        let u = identify_maker("0x000077", "0x1111", "X", "0x12345678", "");
        assert_eq!(u.prefix(), "");
    }

    #[test]
    fn emmc_versions_and_life() {
        assert_eq!(emmc_version(8), Some("5.1"));
        assert_eq!(emmc_version(7), Some("5.0"));
        assert_eq!(emmc_version(42), None);
        assert_eq!(parse_life_time("0x01 0x02\n"), Some((1, 2)));
        assert_eq!(parse_life_time("0x0B 0x01"), Some((11, 1)));
        assert_eq!(parse_life_time("garbage"), None);
    }
}
