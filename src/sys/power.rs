//! Supply voltage (DC-in) where a board exposes it: RK3588 SARADC channel, AXP PMICs. The
//! Raspberry Pi 5 PMIC's ADC is only readable through the firmware (`vcgencmd
//! pmic_read_adc EXT5V_V`), not sysfs; what sysfs has there is the firmware's under-voltage
//! flag (`rpi_volt`), reported by [`rpi_undervoltage`].
//!
//! This is the interface the monitor uses for its `DC(V)` column.
//!
//! Sources:
//! - ROCK 5B / ROCK 5 ITX (RK3588, Rockchip BSP kernel): SARADC channel 6 through a resistor
//!   divider, volts = raw / 173.5. The factor is the one sbc-bench uses and the ROCK 5 ITX
//!   review in `shared/seeds` checks against a SmartPower 3 (12.37 V both) and shows 12.03 V
//!   in its `-m` tables.
//! - NanoPi R6S/R6C (RK3588S): channel 2, volts = raw / 206.2 (sbc-bench).
//! - AXP PMICs (Allwinner boards): `voltage_now` of the AC (DC-in jack) supply in µV; when
//!   that reads below 1 V the board runs from USB/battery and the USB (VBUS) supply is used,
//!   as sbc-bench does. Mainline names the supplies `axp20x-ac`/`axp20x-usb`; Armbian's
//!   patched kernels use `/sys/power/axp_pmu/{ac,vbus}/voltage`; the Allwinner 3.4 kernel an
//!   `axp20-supplyer.28` path.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::sys::board::read_compatible;
use crate::sys::root::SysRoot;

/// A DC-in voltage sensor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DcIn {
    /// File with the raw reading.
    pub path: PathBuf,
    /// What it is (`rk3588 saradc ch6`, `axp20x-ac`).
    pub label: String,
    /// Volts per raw unit (the raw value times this is the supply voltage).
    pub volts_per_unit: f64,
}

/// A board whose DC-in is wired to a SARADC channel.
struct SaradcBoard {
    /// A device-tree `compatible` entry of the board.
    compatible: &'static str,
    /// ADC channel.
    channel: u32,
    /// Raw counts per volt at DC-in.
    counts_per_volt: f64,
}

const SARADC_BOARDS: &[SaradcBoard] = &[
    SaradcBoard {
        compatible: "radxa,rock-5b",
        channel: 6,
        counts_per_volt: 173.5,
    },
    SaradcBoard {
        compatible: "radxa,rock-5-itx",
        channel: 6,
        counts_per_volt: 173.5,
    },
    SaradcBoard {
        compatible: "friendlyelec,nanopi-r6s",
        channel: 2,
        counts_per_volt: 206.2,
    },
    SaradcBoard {
        compatible: "friendlyelec,nanopi-r6c",
        channel: 2,
        counts_per_volt: 206.2,
    },
];

/// IIO devices we look at for the SARADC (`iio:device0`…`iio:device7`), by their `name`.
const IIO_MAX: u32 = 8;

/// AXP supplies: (AC/DC-in file, USB/VBUS file, label); both files are in µV.
const AXP_SUPPLIES: &[(&str, &str, &str)] = &[
    (
        "/sys/class/power_supply/axp20x-ac/voltage_now",
        "/sys/class/power_supply/axp20x-usb/voltage_now",
        "axp20x",
    ),
    (
        "/sys/power/axp_pmu/ac/voltage",
        "/sys/power/axp_pmu/vbus/voltage",
        "axp_pmu",
    ),
    (
        "/sys/devices/platform/sunxi-i2c.0/i2c-0/0-0034/axp20-supplyer.28/power_supply/ac/voltage_now",
        "/sys/devices/platform/sunxi-i2c.0/i2c-0/0-0034/axp20-supplyer.28/power_supply/usb/voltage_now",
        "axp20 (3.4 kernel)",
    ),
];

/// Find the board's DC-in sensor; `None` where the board has none we know of.
pub fn find_dc_in(root: &SysRoot) -> Option<DcIn> {
    let compat = read_compatible(root);
    if let Some(b) = SARADC_BOARDS
        .iter()
        .find(|b| compat.iter().any(|c| c == b.compatible))
    {
        for n in 0..IIO_MAX {
            let dev = format!("/sys/bus/iio/devices/iio:device{n}");
            let is_saradc = root
                .value(format!("{dev}/name"))
                .is_some_and(|name| name.contains("saradc"));
            let raw = format!("{dev}/in_voltage{}_raw", b.channel);
            if is_saradc && root.exists(&raw) {
                return Some(DcIn {
                    path: PathBuf::from(raw),
                    label: format!("saradc ch{} / {}", b.channel, b.counts_per_volt),
                    volts_per_unit: 1.0 / b.counts_per_volt,
                });
            }
        }
    }
    for (ac, usb, label) in AXP_SUPPLIES {
        if root.exists(ac) {
            let ac_dc = DcIn {
                path: PathBuf::from(ac),
                label: format!("{label} ac"),
                volts_per_unit: 1e-6,
            };
            // Below 1 V on the DC-in jack: powered through USB or battery, report VBUS.
            let on_ac = read_volts(root, &ac_dc).is_some_and(|v| v >= 1.0);
            if !on_ac && root.exists(usb) {
                return Some(DcIn {
                    path: PathBuf::from(usb),
                    label: format!("{label} usb"),
                    volts_per_unit: 1e-6,
                });
            }
            return Some(ac_dc);
        }
        if root.exists(usb) {
            return Some(DcIn {
                path: PathBuf::from(usb),
                label: format!("{label} usb"),
                volts_per_unit: 1e-6,
            });
        }
    }
    None
}

/// Current supply voltage in volts.
pub fn read_volts(root: &SysRoot, s: &DcIn) -> Option<f64> {
    let raw: f64 = root.value(&s.path)?.parse().ok()?;
    let v = raw * s.volts_per_unit;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// hwmon devices we probe for the Raspberry Pi firmware's under-voltage flag.
const HWMON_MAX: u32 = 16;

/// The Raspberry Pi firmware's under-voltage flag (`rpi_volt` hwmon, `in0_lcrit_alarm`):
/// `Some(true)` while the supply is too low, `None` on other boards.
pub fn rpi_undervoltage(root: &SysRoot) -> Option<bool> {
    (0..HWMON_MAX).find_map(|n| {
        let base = format!("/sys/class/hwmon/hwmon{n}");
        if root.value(format!("{base}/name")).as_deref() != Some("rpi_volt") {
            return None;
        }
        root.value(format!("{base}/in0_lcrit_alarm"))
            .as_deref()
            .and_then(crate::sys::cpufreq::parse_flag)
    })
}

/// What discovery reports about the supply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PowerInfo {
    /// The DC-in sensor, if the board has one we know.
    pub dc_in: Option<DcIn>,
    /// Its reading now, V.
    pub dc_in_volts: Option<f64>,
    /// Raspberry Pi under-voltage flag.
    pub rpi_undervoltage: Option<bool>,
}

/// Read the supply facts.
pub fn read(root: &SysRoot) -> PowerInfo {
    let dc_in = find_dc_in(root);
    PowerInfo {
        dc_in_volts: dc_in.as_ref().and_then(|d| read_volts(root, d)),
        dc_in,
        rpi_undervoltage: rpi_undervoltage(root),
    }
}

/// Sysfs node of the Raspberry Pi firmware driver that mirrors `vcgencmd get_throttled`.
pub const PI_GET_THROTTLED: &str = "/sys/devices/platform/soc/soc:firmware/get_throttled";

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (p, c) in files {
            let f = d.path().join(p.trim_start_matches('/'));
            fs::create_dir_all(f.parent().unwrap()).unwrap();
            fs::write(f, c).unwrap();
        }
        d
    }

    #[test]
    fn rock5_saradc() {
        // 2087 counts = 12.03 V, the value of the ROCK 5 ITX review's -m table.
        let d = tree(&[
            (
                "/proc/device-tree/compatible",
                "radxa,rock-5b\0rockchip,rk3588\0",
            ),
            ("/sys/bus/iio/devices/iio:device0/name", "fec10000.saradc\n"),
            ("/sys/bus/iio/devices/iio:device0/in_voltage6_raw", "2087\n"),
        ]);
        let r = SysRoot::new(d.path());
        let s = find_dc_in(&r).unwrap();
        let v = read_volts(&r, &s).unwrap();
        assert!((v - 12.03).abs() < 0.005, "{v}");
    }

    #[test]
    fn saradc_needs_the_board() {
        // Same ADC on a board we do not know the divider of: no guess.
        let d = tree(&[
            (
                "/proc/device-tree/compatible",
                "rockchip,rk3588-evb1\0rockchip,rk3588\0",
            ),
            ("/sys/bus/iio/devices/iio:device0/name", "fec10000.saradc\n"),
            ("/sys/bus/iio/devices/iio:device0/in_voltage6_raw", "2087\n"),
        ]);
        assert_eq!(find_dc_in(&SysRoot::new(d.path())), None);
    }

    #[test]
    fn axp_falls_back_to_usb() {
        let d = tree(&[
            ("/sys/class/power_supply/axp20x-ac/voltage_now", "0\n"),
            (
                "/sys/class/power_supply/axp20x-usb/voltage_now",
                "5080000\n",
            ),
        ]);
        let r = SysRoot::new(d.path());
        let s = find_dc_in(&r).unwrap();
        assert_eq!(s.label, "axp20x usb");
        assert_eq!(read_volts(&r, &s), Some(5.08));
        let d = tree(&[("/sys/power/axp_pmu/ac/voltage", "5120000\n")]);
        let r = SysRoot::new(d.path());
        assert_eq!(find_dc_in(&r).and_then(|s| read_volts(&r, &s)), Some(5.12));
    }

    #[test]
    fn garbage_reads_none() {
        let d = tree(&[("/sys/power/axp_pmu/ac/voltage", "garbage\r\n")]);
        let r = SysRoot::new(d.path());
        let s = find_dc_in(&r).unwrap();
        assert_eq!(read_volts(&r, &s), None);
    }

    #[test]
    fn rpi_flag() {
        let d = tree(&[
            ("/sys/class/hwmon/hwmon3/name", "rpi_volt\n"),
            ("/sys/class/hwmon/hwmon3/in0_lcrit_alarm", "0\n"),
        ]);
        assert_eq!(rpi_undervoltage(&SysRoot::new(d.path())), Some(false));
        assert_eq!(rpi_undervoltage(&SysRoot::new("/nonexistent")), None);
    }
}
