//! Power meters: one interface for every source of watts — Netio network sockets, hwmon
//! power/current sensors on the board (INA219/INA226/INA3221…), RAPL on x86, the Raspberry
//! Pi 5 PMIC, USB power testers over hidraw (FNIRSI FNB48/C1/FNB58).
//!
//! A meter is sampled on its own schedule (a Netio answers over HTTP in tens of
//! milliseconds, a USB tester streams reports), never inside the monitor's tight loop:
//! [`sampler::PowerSampler`] reads it on its own thread and keeps the latest reading, a
//! rolling average and a timestamped history.
//! Modes that report power (the monitor's `mW` column, idle and loaded mW per phase, the
//! efficiency graph's mW per OPP) take a `Box<dyn PowerMeter>` opened from the user's
//! `--power SPEC` by [`open`]. The syntax is in docs/POWER.md and [`MeterSpec::parse`].

pub mod fnirsi;
pub mod hwmon;
pub mod netio;
pub mod pmic;
pub mod rapl;
pub mod sampler;

use crate::sys::root::SysRoot;

/// One reading of a meter.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PowerReading {
    /// Power drawn, milliwatts.
    pub mw: f64,
    /// Energy counted by the meter since it started counting, milliwatt-hours, where the
    /// meter keeps one (Netio `<Energy>`, RAPL `energy_uj`).
    pub energy_mwh: Option<f64>,
    /// Supply voltage, volts, where the meter measures it.
    pub volts: Option<f64>,
    /// Current, amperes, where the meter measures it.
    pub amps: Option<f64>,
}

impl PowerReading {
    /// A reading of `mw` milliwatts and nothing else.
    pub fn mw(mw: f64) -> Self {
        PowerReading {
            mw,
            energy_mwh: None,
            volts: None,
            amps: None,
        }
    }
}

/// Why a meter gave no reading.
#[derive(Debug, thiserror::Error)]
pub enum MeterError {
    /// The meter is not there or does not answer (a clear sentence for the user).
    #[error("{0}")]
    Unavailable(String),
    /// It answered with something we cannot read.
    #[error("unreadable answer from the power meter: {0}")]
    Garbage(String),
}

/// A source of power readings.
pub trait PowerMeter: Send {
    /// What it is, as the log names it: `Netio PowerCable 101x, socket 1`, `INA226
    /// (hwmon2)`, `RAPL package-0`, `FNIRSI FNB58`.
    fn describe(&self) -> String;
    /// One reading now. Must return within a second or two (bounded I/O).
    fn read(&mut self) -> Result<PowerReading, MeterError>;
    /// The line the log opens the power section with, where the meter has one to say
    /// (sbc-bench's `Power monitoring on socket 2 of …` for a Netio).
    fn banner(&self) -> Option<String> {
        None
    }
}

/// What `--power SPEC` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeterSpec {
    /// `netio:HOST[:PORT]/SOCKET` (sbc-bench's `Netio=HOST/SOCKET`).
    Netio {
        /// Host name or address, with `:PORT` when not 80.
        host: String,
        /// Output number, from 1.
        socket: u32,
    },
    /// `hwmon:NAME[/CHANNEL]`: the hwmon device whose `name` is NAME (`ina226`), or the
    /// node itself (`hwmon2`); CHANNEL picks `power<N>`/`in<N>`/`curr<N>` (default 1).
    Hwmon {
        /// `ina226`, `hwmon2`.
        name: String,
        /// Channel number, from 1.
        channel: u32,
    },
    /// `rapl[:ZONE]`: every RAPL package zone (`intel-rapl:0`, `intel-rapl:1`…) summed, or
    /// the one named (`intel-rapl:0`, `package-0`).
    Rapl {
        /// A zone directory or its `name`.
        zone: Option<String>,
    },
    /// `pi5-pmic`: `vcgencmd pmic_read_adc` on a Raspberry Pi 5.
    Pi5Pmic,
    /// `fnirsi[:/dev/hidrawN]` (also `fnb58`, `fnb48`, `c1`): a FNIRSI USB tester, found by
    /// its USB ID when no node is given.
    Fnirsi {
        /// The hidraw node, when given.
        node: Option<String>,
    },
    /// `auto`: the first meter found (a USB tester, the Pi 5 PMIC, an INA sensor, RAPL).
    Auto,
}

impl MeterSpec {
    /// Parse `--power SPEC`; the error says what is accepted.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let spec = spec.trim();
        let (kind, arg) = match spec.split_once(':') {
            Some((k, a)) => (k.to_ascii_lowercase(), Some(a.trim())),
            None => (spec.to_ascii_lowercase(), None),
        };
        let bad = |why: &str| Err(format!("'{spec}': {why}"));
        match (kind.as_str(), arg) {
            ("netio", Some(a)) => {
                let Some((host, socket)) = a.rsplit_once('/') else {
                    return bad("a Netio is netio:HOST/SOCKET (e.g. netio:powerbox-1.local/2)");
                };
                match socket.trim().parse::<u32>() {
                    Ok(n) if n >= 1 && !host.trim().is_empty() => Ok(MeterSpec::Netio {
                        host: host.trim().to_string(),
                        socket: n,
                    }),
                    _ => bad("a Netio is netio:HOST/SOCKET with SOCKET a number from 1"),
                }
            }
            ("netio", None) => bad("a Netio is netio:HOST/SOCKET (e.g. netio:powerbox-1.local/2)"),
            ("hwmon", Some(a)) if !a.is_empty() => {
                let (name, channel) = match a.split_once('/') {
                    Some((n, c)) => match c.trim().parse::<u32>() {
                        Ok(c) if c >= 1 => (n, c),
                        _ => return bad("the hwmon channel is a number from 1"),
                    },
                    None => (a, 1),
                };
                if name.is_empty() || name.contains("..") || name.contains('/') {
                    return bad("hwmon:NAME takes a sensor name (ina226) or node (hwmon2)");
                }
                Ok(MeterSpec::Hwmon {
                    name: name.to_string(),
                    channel,
                })
            }
            ("hwmon", _) => bad("hwmon:NAME takes a sensor name (ina226) or node (hwmon2)"),
            ("rapl", None) => Ok(MeterSpec::Rapl { zone: None }),
            ("rapl", Some(z)) if !z.is_empty() && !z.contains('/') && !z.contains("..") => {
                Ok(MeterSpec::Rapl {
                    zone: Some(z.to_string()),
                })
            }
            ("rapl", _) => bad("rapl:ZONE takes a zone (intel-rapl:0) or its name (package-0)"),
            ("pi5-pmic" | "pmic", None) => Ok(MeterSpec::Pi5Pmic),
            ("fnirsi" | "fnb58" | "fnb48" | "c1", None) => Ok(MeterSpec::Fnirsi { node: None }),
            ("fnirsi" | "fnb58" | "fnb48" | "c1", Some(n)) if n.starts_with("/dev/hidraw") => {
                Ok(MeterSpec::Fnirsi {
                    node: Some(n.to_string()),
                })
            }
            ("fnirsi" | "fnb58" | "fnb48" | "c1", Some(_)) => {
                bad("a USB tester is fnirsi or fnirsi:/dev/hidrawN")
            }
            ("auto", None) => Ok(MeterSpec::Auto),
            _ => bad(
                "not a power meter (netio:HOST/SOCKET, hwmon:NAME[/CHANNEL], rapl[:ZONE], \
                 pi5-pmic, fnirsi[:/dev/hidrawN] or auto)",
            ),
        }
    }

    /// sbc-bench's `Netio=HOST/SOCKET` as a spec (`netio:HOST/SOCKET`); empty is unset.
    pub fn from_netio_env(value: &str) -> Option<String> {
        let v = value.trim();
        (!v.is_empty()).then(|| format!("netio:{v}"))
    }
}

/// Open the meter that `spec` names (the `--power SPEC` syntax: [`MeterSpec::parse`] and
/// docs/POWER.md; sbc-bench's `Netio=host/socket` maps onto it). The meter answers once
/// before this returns, so a dead host or a missing sensor is said here, before a run.
pub fn open(spec: &str, root: &SysRoot) -> Result<Box<dyn PowerMeter>, MeterError> {
    let parsed = MeterSpec::parse(spec)
        .map_err(|why| MeterError::Unavailable(format!("power meter {why}")))?;
    open_spec(&parsed, root)
}

/// [`open`] for a parsed spec.
pub fn open_spec(spec: &MeterSpec, root: &SysRoot) -> Result<Box<dyn PowerMeter>, MeterError> {
    let mut meter: Box<dyn PowerMeter> = match spec {
        MeterSpec::Netio { host, socket } => Box::new(netio::Netio::open(host, *socket)?),
        MeterSpec::Hwmon { name, channel } => {
            Box::new(hwmon::HwmonMeter::open(root, name, *channel)?)
        }
        MeterSpec::Rapl { zone } => Box::new(rapl::Rapl::open(root, zone.as_deref())?),
        MeterSpec::Pi5Pmic => Box::new(pmic::Pi5Pmic::open(root)?),
        MeterSpec::Fnirsi { node } => Box::new(fnirsi::Fnirsi::open(root, node.as_deref())?),
        MeterSpec::Auto => return auto(root),
    };
    meter.read()?;
    Ok(meter)
}

/// `auto`: the first meter that answers, the one closest to the whole board first.
fn auto(root: &SysRoot) -> Result<Box<dyn PowerMeter>, MeterError> {
    let mut candidates = vec![MeterSpec::Fnirsi { node: None }, MeterSpec::Pi5Pmic];
    candidates.extend(
        hwmon::power_sensors(root)
            .into_iter()
            .map(|name| MeterSpec::Hwmon { name, channel: 1 }),
    );
    candidates.push(MeterSpec::Rapl { zone: None });
    for c in &candidates {
        if let Ok(m) = open_spec(c, root) {
            return Ok(m);
        }
    }
    Err(MeterError::Unavailable(
        "power meter 'auto': no USB tester, Pi 5 PMIC, INA sensor or RAPL found; name one \
         with --power (docs/POWER.md)"
            .to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_say_what_is_accepted() {
        assert_eq!(
            MeterSpec::parse("netio:powerbox-1.local/2"),
            Ok(MeterSpec::Netio {
                host: "powerbox-1.local".into(),
                socket: 2
            })
        );
        assert_eq!(
            MeterSpec::parse("netio:127.0.0.1:8080/1"),
            Ok(MeterSpec::Netio {
                host: "127.0.0.1:8080".into(),
                socket: 1
            })
        );
        assert_eq!(
            MeterSpec::parse("hwmon:ina3221/2"),
            Ok(MeterSpec::Hwmon {
                name: "ina3221".into(),
                channel: 2
            })
        );
        assert_eq!(MeterSpec::parse("rapl"), Ok(MeterSpec::Rapl { zone: None }));
        assert_eq!(MeterSpec::parse("pi5-pmic"), Ok(MeterSpec::Pi5Pmic));
        assert_eq!(
            MeterSpec::parse("fnb58:/dev/hidraw3"),
            Ok(MeterSpec::Fnirsi {
                node: Some("/dev/hidraw3".into())
            })
        );
        assert_eq!(MeterSpec::parse("auto"), Ok(MeterSpec::Auto));
        assert!(MeterSpec::parse("netio:host/0").is_err());
        assert!(MeterSpec::parse("netio:host").is_err());
        assert!(MeterSpec::parse("hwmon:../../etc").is_err());
        assert!(MeterSpec::parse("fnirsi:/etc/passwd").is_err());
        let e = MeterSpec::parse("kill-a-watt").unwrap_err();
        assert!(e.contains("netio:HOST/SOCKET") && e.contains("auto"), "{e}");
        assert_eq!(
            MeterSpec::from_netio_env("powerbox-1.local/2").as_deref(),
            Some("netio:powerbox-1.local/2")
        );
        assert_eq!(MeterSpec::from_netio_env(" "), None);
    }

    #[test]
    fn a_bad_spec_is_refused_by_open_without_touching_anything() {
        let d = tempfile::tempdir().unwrap();
        let e = open("watts", &SysRoot::new(d.path())).err().unwrap();
        assert!(e.to_string().starts_with("power meter 'watts': "), "{e}");
    }
}
