//! Power, current and voltage sensors on the board through hwmon (INA219/INA226/INA3221
//! and kin): `power<N>_input` in µW where the driver has it, else bus voltage × current,
//! `in<N>_input` mV × `curr<N>_input` mA (the INA3221 has no power file; its `in1..3` are
//! the bus voltages of its three channels, the INA2xx's `in1` is its bus voltage).
//!
//! The sensor is named in the spec (`hwmon:ina226`, `hwmon:hwmon2`); the only listing is
//! `/sys/class/hwmon/*/name`, never a walk of the devices behind it.

use super::{MeterError, PowerMeter, PowerReading};
use crate::sys::root::SysRoot;

/// Where hwmon devices are listed.
pub const HWMON: &str = "/sys/class/hwmon";

/// Driver names of power monitors `auto` tries.
const POWER_MONITORS: [&str; 4] = ["ina2", "ina3", "ina7", "pac19"];

/// The hwmon nodes (`hwmon2`) with their `name`.
fn nodes(root: &SysRoot) -> Vec<(String, Option<String>)> {
    root.list(HWMON)
        .into_iter()
        .filter(|n| n.starts_with("hwmon"))
        .map(|n| {
            let name = root.value(format!("{HWMON}/{n}/name"));
            (n, name)
        })
        .collect()
}

/// Names of the power monitors present (`ina226`, `ina3221`), for `auto`.
pub fn power_sensors(root: &SysRoot) -> Vec<String> {
    nodes(root)
        .into_iter()
        .filter_map(|(_, name)| name)
        .filter(|n| POWER_MONITORS.iter().any(|p| n.starts_with(p)))
        .collect()
}

/// How one channel is measured.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    /// `power<N>_input`, µW.
    Power(String),
    /// `in<N>_input` mV × `curr<N>_input` mA.
    VoltsTimesAmps { volts: String, amps: String },
}

/// One reading from the channel's files (pure: the file contents in, a reading out).
/// `power_uw`: the power file's text, if any; `mv`, `ma`: the voltage and current files'.
pub fn reading(
    power_uw: Option<&str>,
    mv: Option<&str>,
    ma: Option<&str>,
) -> Result<PowerReading, MeterError> {
    let num = |s: Option<&str>| s.and_then(|s| s.trim().parse::<f64>().ok());
    let (v, i) = (num(mv).map(|mv| mv / 1000.0), num(ma).map(|ma| ma / 1000.0));
    if let Some(uw) = power_uw {
        let uw = num(Some(uw))
            .ok_or_else(|| MeterError::Garbage(format!("power reads '{}'", uw.trim())))?;
        return Ok(PowerReading {
            mw: uw / 1000.0,
            energy_mwh: None,
            volts: v,
            amps: i,
        });
    }
    match (v, i) {
        (Some(v), Some(i)) => Ok(PowerReading {
            // A shunt wired the other way round reads negative; the draw is the same.
            mw: (v * i).abs() * 1000.0,
            energy_mwh: None,
            volts: Some(v),
            amps: Some(i),
        }),
        _ => Err(MeterError::Garbage(format!(
            "voltage '{}' and current '{}' are not numbers",
            mv.unwrap_or("-").trim(),
            ma.unwrap_or("-").trim()
        ))),
    }
}

/// An hwmon power sensor as a meter.
#[derive(Debug)]
pub struct HwmonMeter {
    root: SysRoot,
    node: String,
    name: String,
    channel: u32,
    source: Source,
    volts: String,
    amps: String,
}

impl HwmonMeter {
    /// The sensor whose node (`hwmon2`) or `name` (`ina226`) is `name`, channel `channel`.
    pub fn open(root: &SysRoot, name: &str, channel: u32) -> Result<Self, MeterError> {
        let all = nodes(root);
        let found = all
            .iter()
            .find(|(n, _)| n == name)
            .or_else(|| all.iter().find(|(_, nm)| nm.as_deref() == Some(name)));
        let Some((node, node_name)) = found else {
            let seen: Vec<String> = all
                .iter()
                .map(|(n, nm)| format!("{n} ({})", nm.as_deref().unwrap_or("?")))
                .collect();
            return Err(MeterError::Unavailable(format!(
                "no hwmon sensor named '{name}' in {HWMON} (there: {})",
                if seen.is_empty() {
                    "none".to_string()
                } else {
                    seen.join(", ")
                }
            )));
        };
        let dir = format!("{HWMON}/{node}");
        let power = format!("{dir}/power{channel}_input");
        let volts = format!("{dir}/in{channel}_input");
        let amps = format!("{dir}/curr{channel}_input");
        let source = if root.exists(&power) {
            Source::Power(power)
        } else if root.exists(&volts) && root.exists(&amps) {
            Source::VoltsTimesAmps {
                volts: volts.clone(),
                amps: amps.clone(),
            }
        } else {
            return Err(MeterError::Unavailable(format!(
                "{dir} ({}) has no power{channel}_input nor in{channel}_input and \
                 curr{channel}_input: not a power sensor, or not that channel",
                node_name.as_deref().unwrap_or("?")
            )));
        };
        Ok(HwmonMeter {
            root: root.clone(),
            node: node.clone(),
            name: node_name.clone().unwrap_or_else(|| node.clone()),
            channel,
            source,
            volts,
            amps,
        })
    }
}

impl PowerMeter for HwmonMeter {
    fn describe(&self) -> String {
        let how = match self.source {
            Source::Power(_) => "power",
            Source::VoltsTimesAmps { .. } => "V × I",
        };
        format!(
            "{} ({}, channel {}, {how})",
            self.name.to_uppercase(),
            self.node,
            self.channel
        )
    }

    fn read(&mut self) -> Result<PowerReading, MeterError> {
        let read = |p: &str| self.root.read(p).ok();
        let missing = |p: &str| MeterError::Unavailable(format!("cannot read {p}"));
        match &self.source {
            Source::Power(p) => {
                let uw = read(p).ok_or_else(|| missing(p))?;
                reading(
                    Some(&uw),
                    read(&self.volts).as_deref(),
                    read(&self.amps).as_deref(),
                )
            }
            Source::VoltsTimesAmps { volts, amps } => {
                let v = read(volts).ok_or_else(|| missing(volts))?;
                let a = read(amps).ok_or_else(|| missing(amps))?;
                reading(None, Some(&v), Some(&a))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (p, v) in files {
            let f = d.path().join(p.trim_start_matches('/'));
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, v).unwrap();
        }
        d
    }

    #[test]
    fn ina226_power_file_is_microwatts() {
        let d = tree(&[
            ("sys/class/hwmon/hwmon0/name", "cpu_thermal\n"),
            ("sys/class/hwmon/hwmon2/name", "ina226\n"),
            ("sys/class/hwmon/hwmon2/power1_input", "4675000\n"),
            ("sys/class/hwmon/hwmon2/in1_input", "5087\n"),
            ("sys/class/hwmon/hwmon2/curr1_input", "919\n"),
        ]);
        let root = SysRoot::new(d.path());
        assert_eq!(power_sensors(&root), vec!["ina226".to_string()]);
        let mut m = HwmonMeter::open(&root, "ina226", 1).unwrap();
        let r = m.read().unwrap();
        assert_eq!(r.mw, 4675.0);
        assert_eq!(r.volts, Some(5.087));
        assert_eq!(m.describe(), "INA226 (hwmon2, channel 1, power)");
        // The node name works too.
        assert!(HwmonMeter::open(&root, "hwmon2", 1).is_ok());
    }

    /// The INA3221 has three channels and no power file: bus mV × mA of the channel.
    #[test]
    fn ina3221_without_power_file_is_volts_times_amps() {
        let d = tree(&[
            ("sys/class/hwmon/hwmon1/name", "ina3221\n"),
            ("sys/class/hwmon/hwmon1/in1_input", "5104\n"),
            ("sys/class/hwmon/hwmon1/curr1_input", "612\n"),
            ("sys/class/hwmon/hwmon1/in2_input", "1800\n"),
            ("sys/class/hwmon/hwmon1/curr2_input", "-150\n"),
        ]);
        let root = SysRoot::new(d.path());
        let mut m = HwmonMeter::open(&root, "ina3221", 1).unwrap();
        assert!((m.read().unwrap().mw - 5.104 * 612.0).abs() < 1e-6);
        let mut m2 = HwmonMeter::open(&root, "ina3221", 2).unwrap();
        assert!((m2.read().unwrap().mw - 270.0).abs() < 1e-6);
        assert_eq!(m2.describe(), "INA3221 (hwmon1, channel 2, V × I)");
        let e = HwmonMeter::open(&root, "ina3221", 3)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no power3_input"), "{e}");
    }

    #[test]
    fn a_missing_sensor_names_what_is_there() {
        let d = tree(&[("sys/class/hwmon/hwmon0/name", "cpu_thermal\n")]);
        let e = HwmonMeter::open(&SysRoot::new(d.path()), "ina219", 1)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "no hwmon sensor named 'ina219' in /sys/class/hwmon (there: hwmon0 (cpu_thermal))"
        );
        assert!(reading(Some("n/a"), None, None).is_err());
    }
}
