//! Temperatures: the one thermal source sbc-bench would pick for its `Temp` column, and
//! (in full discovery) every thermal zone and hwmon sensor.

use std::path::PathBuf;

use serde::Serialize;

use crate::sys::root::SysRoot;

/// Directory of the thermal zones (entries are symlinks into `/sys/devices/virtual/thermal`).
pub const THERMAL_DIR: &str = "/sys/class/thermal";
/// Directory of the hwmon devices.
pub const HWMON_DIR: &str = "/sys/class/hwmon";

/// Where a temperature comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A thermal zone (`thermal_zoneN/temp`).
    Zone,
    /// A hwmon device (`hwmonN/tempM_input`).
    Hwmon,
}

/// The sensor the monitor's `Temp` column shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThermalSource {
    /// Zone or hwmon.
    pub kind: SourceKind,
    /// Directory as sbc-bench prints it, with a trailing slash
    /// (`/sys/devices/virtual/thermal/thermal_zone0/`).
    pub dir: String,
    /// Zone `type` or hwmon `name` (`soc-thermal`, `x86_pkg_temp`, `k10temp`).
    pub name: String,
    /// File holding the temperature (millidegrees Celsius on every modern kernel).
    pub temp_file: PathBuf,
}

impl ThermalSource {
    /// `/sys/devices/virtual/thermal/thermal_zone0/ (soc-thermal)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.dir, self.name)
    }
}

/// Zone types that describe the SoC or CPU, best first. Matched case-insensitively.
const ZONE_PREFERENCE: &[&str] = &[
    "x86_pkg_temp",
    "soc-thermal",
    "soc_thermal",
    "soc",
    "cpu-thermal",
    "cpu_thermal",
    "cpu0-thermal",
    "cpu_thermal_zone",
    "cpu-thermal-zone",
    "cpu",
];

/// hwmon names that describe the SoC or CPU, best first.
const HWMON_PREFERENCE: &[&str] = &[
    "k10temp",
    "zenpower",
    "coretemp",
    "cpu_thermal",
    "soc_thermal",
    "cpu",
    "soc",
    "acpitz",
];

/// Pick the thermal source as sbc-bench would: a zone named after the SoC/CPU, else a
/// hwmon device named after it, else the first zone; `None` on machines without sensors
/// (VMs, many containers).
pub fn pick_source(root: &SysRoot) -> Option<ThermalSource> {
    let zones: Vec<(String, String)> = root
        .list(THERMAL_DIR)
        .into_iter()
        .filter(|n| n.starts_with("thermal_zone"))
        .filter_map(|n| {
            let t = root.value(format!("{THERMAL_DIR}/{n}/type"))?;
            root.exists(format!("{THERMAL_DIR}/{n}/temp"))
                .then_some((n, t))
        })
        .collect();
    for want in ZONE_PREFERENCE {
        if let Some((n, t)) = zones.iter().find(|(_, t)| t.eq_ignore_ascii_case(want)) {
            return Some(zone_source(root, n, t));
        }
    }
    let hwmons: Vec<(String, String)> = root
        .list(HWMON_DIR)
        .into_iter()
        .filter_map(|n| {
            let name = root.value(format!("{HWMON_DIR}/{n}/name"))?;
            Some((n, name))
        })
        .collect();
    for want in HWMON_PREFERENCE {
        if let Some((n, name)) = hwmons.iter().find(|(_, nm)| nm == want) {
            if let Some(file) = hwmon_temp_file(root, n) {
                return Some(ThermalSource {
                    kind: SourceKind::Hwmon,
                    dir: format!("{HWMON_DIR}/{n}/"),
                    name: name.clone(),
                    temp_file: file,
                });
            }
        }
    }
    // Any CPU/SoC-looking zone (`cpu6-thermal`, `bigcore0-thermal`, `SOC2-therm`), else zone 0.
    let cpuish = |t: &str| {
        let t = t.to_ascii_lowercase();
        t.contains("cpu") || t.contains("soc") || t.contains("core")
    };
    zones
        .iter()
        .find(|(_, t)| cpuish(t))
        .or_else(|| zones.first())
        .map(|(n, t)| zone_source(root, n, t))
}

fn zone_source(root: &SysRoot, zone: &str, ty: &str) -> ThermalSource {
    let class = format!("{THERMAL_DIR}/{zone}");
    let dir = root
        .resolve(&class)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| format!("/sys/devices/virtual/thermal/{zone}"));
    ThermalSource {
        kind: SourceKind::Zone,
        dir: format!("{dir}/"),
        name: ty.to_string(),
        temp_file: PathBuf::from(format!("{class}/temp")),
    }
}

/// The temperature input of a hwmon device: `Tctl`/`Package id 0` when labelled, else
/// `temp1_input`.
fn hwmon_temp_file(root: &SysRoot, hwmon: &str) -> Option<PathBuf> {
    let base = format!("{HWMON_DIR}/{hwmon}");
    for i in 1..=16 {
        let label = root.value(format!("{base}/temp{i}_label"));
        if matches!(label.as_deref(), Some("Tctl" | "Tdie" | "Package id 0")) {
            return Some(PathBuf::from(format!("{base}/temp{i}_input")));
        }
    }
    let f = format!("{base}/temp1_input");
    root.exists(&f).then(|| PathBuf::from(f))
}

/// Convert a sysfs temperature reading to °C. Kernels report millidegrees; a few old
/// vendor kernels (Allwinner 3.4, some Amlogic) report whole degrees, which we recognise
/// by their size. Implausible values are `None`.
pub fn parse_temp_c(raw: &str) -> Option<f64> {
    let v: f64 = raw.trim().parse().ok()?;
    let c = if v.abs() >= 1000.0 { v / 1000.0 } else { v };
    (-60.0..=200.0).contains(&c).then_some(c)
}

/// Read a source's current temperature in °C.
pub fn read_temp_c(root: &SysRoot, src: &ThermalSource) -> Option<f64> {
    parse_temp_c(&root.read_opt(&src.temp_file)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn temps() {
        assert_eq!(parse_temp_c("36100\n"), Some(36.1));
        assert_eq!(parse_temp_c("45"), Some(45.0));
        assert_eq!(parse_temp_c("-273000"), None);
        assert_eq!(parse_temp_c("garbage"), None);
    }

    #[test]
    fn prefers_soc_zone_over_zone0() {
        let d = tempfile::tempdir().unwrap();
        for (z, t) in [
            ("thermal_zone0", "gpu-thermal"),
            ("thermal_zone1", "soc-thermal"),
        ] {
            let p = d.path().join("sys/class/thermal").join(z);
            fs::create_dir_all(&p).unwrap();
            fs::write(p.join("type"), format!("{t}\n")).unwrap();
            fs::write(p.join("temp"), "41000\n").unwrap();
        }
        let r = SysRoot::new(d.path());
        let s = pick_source(&r).unwrap();
        assert_eq!(s.name, "soc-thermal");
        assert_eq!(read_temp_c(&r, &s), Some(41.0));
    }

    #[test]
    fn none_without_sensors() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(pick_source(&SysRoot::new(d.path())), None);
    }
}
