//! The Raspberry Pi 5's PMIC (Renesas DA9091) ADCs through `vcgencmd pmic_read_adc`:
//! `VDD_CORE_A current(7)=1.42880000A` and `VDD_CORE_V volt(15)=0.90659250V` per rail.
//! The board's draw is Σ A × V over the rails that report both, as sbc-bench's
//! `Parse_ADC_Readouts` sums them; `EXT5V_V` is the input voltage (it has no current, so
//! the 5 V input's own draw — USB ports, fan, HATs — is not in the sum).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::{MeterError, PowerMeter, PowerReading};
use crate::sys::root::SysRoot;

/// Where Raspberry Pi OS and older images install `vcgencmd`.
pub const VCGENCMD: [&str; 2] = ["/usr/bin/vcgencmd", "/opt/vc/bin/vcgencmd"];

/// Bound on one query: the firmware mailbox has hung on broken boards.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// One rail's ADC readings.
#[derive(Debug, Clone, PartialEq)]
pub struct Rail {
    /// `VDD_CORE`.
    pub name: String,
    /// Amperes, when the rail reports a current.
    pub amps: Option<f64>,
    /// Volts, when it reports a voltage.
    pub volts: Option<f64>,
}

/// `pmic_read_adc`'s output, rail by rail in order of first appearance.
pub fn parse(text: &str) -> Vec<Rail> {
    let mut rails: Vec<Rail> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some((label, value)) = line.split_once('=') else {
            continue;
        };
        let Some(id) = label.split_whitespace().next() else {
            continue;
        };
        let (name, is_amps) = if let Some(n) = id.strip_suffix("_A") {
            (n, true)
        } else if let Some(n) = id.strip_suffix("_V") {
            (n, false)
        } else {
            continue;
        };
        let Ok(v) = value.trim().trim_end_matches(['A', 'V']).parse::<f64>() else {
            continue;
        };
        if !v.is_finite() {
            continue;
        }
        let i = match rails.iter().position(|r| r.name == name) {
            Some(i) => i,
            None => {
                rails.push(Rail {
                    name: name.to_string(),
                    amps: None,
                    volts: None,
                });
                rails.len() - 1
            }
        };
        if is_amps {
            rails[i].amps = Some(v);
        } else {
            rails[i].volts = Some(v);
        }
    }
    rails
}

/// The board's draw from the rails: Σ A × V over those with both, in mW, and `EXT5V_V`.
/// Garbage when no rail has both (not a Pi 5, or a firmware that answers differently).
pub fn reading(rails: &[Rail]) -> Result<PowerReading, MeterError> {
    let both: Vec<f64> = rails
        .iter()
        .filter_map(|r| Some(r.amps? * r.volts?))
        .collect();
    if both.is_empty() {
        return Err(MeterError::Garbage(
            "pmic_read_adc listed no rail with both current and voltage".into(),
        ));
    }
    Ok(PowerReading {
        mw: both.iter().sum::<f64>() * 1000.0,
        energy_mwh: None,
        volts: rails
            .iter()
            .find(|r| r.name == "EXT5V")
            .and_then(|r| r.volts),
        amps: None,
    })
}

/// Run `exe pmic_read_adc`, bounded by [`TIMEOUT`]: its standard output.
pub fn query(exe: &Path) -> Result<String, MeterError> {
    let mut child = Command::new(exe)
        .arg("pmic_read_adc")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| MeterError::Unavailable(format!("cannot start {}: {e}", exe.display())))?;
    let mut out = child.stdout.take();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(o) = out.as_mut() {
            // The output is ~1.5 KiB; a child that never stops writing is cut here.
            let _ = o.take(256 * 1024).read_to_end(&mut buf);
        }
        let _ = tx.send(buf);
    });
    let got = rx.recv_timeout(TIMEOUT);
    let status = match got {
        Ok(_) => child.wait().ok(),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(MeterError::Unavailable(format!(
                "{} pmic_read_adc did not answer within {} s",
                exe.display(),
                TIMEOUT.as_secs()
            )));
        }
    };
    let text = String::from_utf8_lossy(&got.unwrap_or_default()).into_owned();
    match status {
        Some(s) if s.success() => Ok(text),
        _ => Err(MeterError::Unavailable(format!(
            "{} pmic_read_adc failed (not a Raspberry Pi 5, or firmware too old): {}",
            exe.display(),
            text.trim()
        ))),
    }
}

/// The Pi 5 PMIC as a meter.
#[derive(Debug)]
pub struct Pi5Pmic {
    exe: PathBuf,
}

impl Pi5Pmic {
    /// Find `vcgencmd` on the live system (a fixture tree never runs this machine's).
    pub fn open(root: &SysRoot) -> Result<Self, MeterError> {
        if !root.is_host() {
            return Err(MeterError::Unavailable(
                "pi5-pmic reads the live system's vcgencmd, not a --sysroot tree".into(),
            ));
        }
        let exe = VCGENCMD
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file())
            .ok_or_else(|| {
                MeterError::Unavailable(
                    "pi5-pmic: vcgencmd not found (/usr/bin, /opt/vc/bin)".into(),
                )
            })?;
        Ok(Pi5Pmic { exe })
    }
}

impl PowerMeter for Pi5Pmic {
    fn describe(&self) -> String {
        "Raspberry Pi 5 PMIC (Σ rails)".to_string()
    }

    fn read(&mut self) -> Result<PowerReading, MeterError> {
        reading(&parse(&query(&self.exe)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `vcgencmd pmic_read_adc` on a Raspberry Pi 5 (firmware 2024), as printed.
    const PI5: &str = include_str!("../../../tests/fixtures/power/pi5-pmic_read_adc.txt");

    #[test]
    fn pi5_sum_of_rails_with_both_and_ext5v_as_input() {
        let rails = parse(PI5);
        assert_eq!(rails.len(), 14);
        let core = rails.iter().find(|r| r.name == "VDD_CORE").unwrap();
        assert_eq!((core.amps, core.volts), (Some(1.4288), Some(0.9065925)));
        let r = reading(&rails).unwrap();
        let want: f64 = rails
            .iter()
            .filter_map(|r| Some(r.amps? * r.volts?))
            .sum::<f64>()
            * 1000.0;
        assert!((r.mw - want).abs() < 1e-9);
        // 12 rails with both; EXT5V and BATT have no current and are not summed.
        assert_eq!(
            rails
                .iter()
                .filter(|r| r.amps.is_some() && r.volts.is_some())
                .count(),
            12
        );
        assert!((r.mw - 2947.98).abs() < 0.01, "{}", r.mw);
        assert_eq!(r.volts, Some(5.05716));
    }

    #[test]
    fn not_a_pi5_is_garbage_and_a_tree_never_runs_vcgencmd() {
        assert!(reading(&parse("error=1 error_msg=\"Command not registered\"\n")).is_err());
        let d = tempfile::tempdir().unwrap();
        assert!(Pi5Pmic::open(&SysRoot::new(d.path())).is_err());
    }

    #[test]
    fn a_hanging_or_failing_vcgencmd_is_an_error_not_a_hang() {
        let e = query(Path::new("/bin/false")).unwrap_err().to_string();
        assert!(e.contains("failed"), "{e}");
        let e = query(Path::new("/nonexistent/vcgencmd"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("cannot start"), "{e}");
    }
}
