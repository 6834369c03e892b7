//! RAPL on x86 (Intel, and AMD Zen through the same powercap driver): the package energy
//! counters `/sys/class/powercap/intel-rapl:N/energy_uj`, µJ since some start, wrapping at
//! `max_energy_range_uj`. Power is the counted energy over the time between two reads.
//! Since Linux 5.10 (Platypus, CVE-2020-8694) only root may read `energy_uj`.

use std::time::{Duration, Instant};

use super::{MeterError, PowerMeter, PowerReading};
use crate::sys::root::SysRoot;

/// Where powercap zones are listed.
pub const POWERCAP: &str = "/sys/class/powercap";

/// The shortest window a reading averages over: the counters tick every ~1 ms and are
/// noisy below a few tens of milliseconds.
pub const MIN_WINDOW: Duration = Duration::from_millis(100);

/// Energy counted between two reads of a counter that wraps at `max_range_uj`: after a
/// wrap the counter restarts at zero, so what was counted is the rest of the range plus
/// the new value.
pub fn delta_uj(prev: u64, cur: u64, max_range_uj: u64) -> u64 {
    if cur >= prev {
        cur - prev
    } else {
        max_range_uj.saturating_sub(prev) + cur
    }
}

/// One zone's counter.
#[derive(Debug, Clone)]
struct Zone {
    dir: String,
    max_range_uj: u64,
    last_uj: u64,
}

/// RAPL package zones as a meter.
#[derive(Debug)]
pub struct Rapl {
    root: SysRoot,
    zones: Vec<Zone>,
    label: String,
    last_at: Instant,
    total_uj: u128,
    last_mw: Option<f64>,
}

/// Top-level package zones (`intel-rapl:0`, not its `intel-rapl:0:0` subzones).
fn package_zones(root: &SysRoot) -> Vec<String> {
    root.list(POWERCAP)
        .into_iter()
        .filter(|n| {
            n.strip_prefix("intel-rapl:")
                .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect()
}

impl Rapl {
    /// Every package zone, or the one whose directory or `name` is `zone`.
    pub fn open(root: &SysRoot, zone: Option<&str>) -> Result<Self, MeterError> {
        let mut dirs = package_zones(root);
        if let Some(z) = zone {
            let all = root.list(POWERCAP);
            dirs = all
                .into_iter()
                .filter(|n| n.starts_with("intel-rapl"))
                .filter(|n| {
                    n == z || root.value(format!("{POWERCAP}/{n}/name")).as_deref() == Some(z)
                })
                .take(1)
                .collect();
        }
        if dirs.is_empty() {
            return Err(MeterError::Unavailable(format!(
                "no RAPL zone{} in {POWERCAP} (not x86, or the intel_rapl driver is not loaded)",
                zone.map(|z| format!(" '{z}'")).unwrap_or_default()
            )));
        }
        let mut zones = Vec::new();
        for n in &dirs {
            let dir = format!("{POWERCAP}/{n}");
            let last_uj = read_uj(root, &format!("{dir}/energy_uj"))?;
            let max_range_uj = read_uj(root, &format!("{dir}/max_energy_range_uj"))?;
            zones.push(Zone {
                dir,
                max_range_uj,
                last_uj,
            });
        }
        let names: Vec<String> = dirs
            .iter()
            .map(|n| {
                root.value(format!("{POWERCAP}/{n}/name"))
                    .unwrap_or_else(|| n.clone())
            })
            .collect();
        Ok(Rapl {
            root: root.clone(),
            zones,
            label: format!("RAPL {}", names.join(" + ")),
            last_at: Instant::now(),
            total_uj: 0,
            last_mw: None,
        })
    }

    /// Take the counters now: the energy since the last call in µJ.
    fn take(&mut self) -> Result<u64, MeterError> {
        let mut sum = 0u64;
        for z in &mut self.zones {
            let cur = read_uj(&self.root, &format!("{}/energy_uj", z.dir))?;
            sum = sum.saturating_add(delta_uj(z.last_uj, cur, z.max_range_uj));
            z.last_uj = cur;
        }
        Ok(sum)
    }
}

fn read_uj(root: &SysRoot, path: &str) -> Result<u64, MeterError> {
    match root.read(path) {
        Ok(s) => s
            .trim()
            .parse()
            .map_err(|_| MeterError::Garbage(format!("{path} reads '{}'", s.trim()))),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(MeterError::Unavailable(
            format!("{path}: only root may read RAPL energy counters (Linux 5.10 and later)"),
        )),
        Err(e) => Err(MeterError::Unavailable(format!("{path}: {e}"))),
    }
}

impl PowerMeter for Rapl {
    fn describe(&self) -> String {
        self.label.clone()
    }

    fn read(&mut self) -> Result<PowerReading, MeterError> {
        let waited = self.last_at.elapsed();
        if waited < MIN_WINDOW {
            std::thread::sleep(MIN_WINDOW - waited);
        }
        let now = Instant::now();
        let dt = now.duration_since(self.last_at).as_secs_f64();
        let uj = self.take()?;
        self.last_at = now;
        self.total_uj += u128::from(uj);
        let mw = uj as f64 / dt / 1000.0;
        self.last_mw = Some(mw);
        Ok(PowerReading {
            mw,
            // µJ → mWh: 1 mWh = 3.6 J.
            energy_mwh: Some(self.total_uj as f64 / 3.6e6),
            volts: None,
            amps: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rapl_counter_wrap_at_max_energy_range() {
        let max = 262_143_328_850;
        assert_eq!(delta_uj(1_000, 3_500, max), 2_500);
        // Wrapped between two reads: the rest of the range plus the new count.
        assert_eq!(delta_uj(max - 1_000, 4_000, max), 5_000);
        // A counter read higher than its range (a driver quirk) never underflows.
        assert_eq!(delta_uj(max + 5, 10, max), 10);
    }

    #[test]
    fn package_zones_only_and_energy_counts_across_a_wrap() {
        let d = tempfile::tempdir().unwrap();
        let z = d.path().join("sys/class/powercap/intel-rapl:0");
        let sub = d.path().join("sys/class/powercap/intel-rapl:0:0");
        std::fs::create_dir_all(&z).unwrap();
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(z.join("name"), "package-0\n").unwrap();
        std::fs::write(z.join("max_energy_range_uj"), "1000000\n").unwrap();
        std::fs::write(z.join("energy_uj"), "900000\n").unwrap();
        std::fs::write(sub.join("name"), "core\n").unwrap();
        let root = SysRoot::new(d.path());
        let mut m = Rapl::open(&root, None).unwrap();
        assert_eq!(m.describe(), "RAPL package-0");
        std::fs::write(z.join("energy_uj"), "150000\n").unwrap();
        let r = m.read().unwrap();
        // 250 000 µJ counted across the wrap.
        assert!((r.energy_mwh.unwrap() - 250_000.0 / 3.6e6).abs() < 1e-12);
        assert!(r.mw > 0.0);
        assert!(Rapl::open(&root, Some("package-0")).is_ok());
        assert!(Rapl::open(&root, Some("dram")).is_err());
    }
}
