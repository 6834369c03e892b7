//! Temperatures: the one thermal source sbc-bench would pick for its `Temp` column, and
//! (in full discovery) every thermal zone and hwmon sensor.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sys::board::HostFacts;
use crate::sys::root::SysRoot;

/// Directory of the thermal zones (entries are symlinks into `/sys/devices/virtual/thermal`).
pub const THERMAL_DIR: &str = "/sys/class/thermal";
/// Directory of the hwmon devices.
pub const HWMON_DIR: &str = "/sys/class/hwmon";

/// Where a temperature comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A thermal zone (`thermal_zoneN/temp`).
    Zone,
    /// A hwmon device (`hwmonN/tempM_input`).
    Hwmon,
}

/// The sensor the monitor's `Temp` column shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// Is the machine x86? From `uname -m` (host facts), else from cpuinfo's `vendor_id`.
fn is_x86(root: &SysRoot) -> bool {
    match HostFacts::read(root).machine {
        Some(m) => m.starts_with("x86") || m.starts_with("i686") || m.starts_with("i386"),
        None => root.read_opt("/proc/cpuinfo").is_some_and(|c| {
            c.lines().any(|l| {
                l.starts_with("vendor_id")
                    && (l.contains("GenuineIntel")
                        || l.contains("AuthenticAMD")
                        || l.contains("HygonGenuine"))
            })
        }),
    }
}

/// Thermal zones as `(entry name, type)`, in the order bash's `thermal_zone*` glob lists
/// them (plain byte order: `thermal_zone10` before `thermal_zone2`).
fn zones_glob_order(root: &SysRoot) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = root
        .list(THERMAL_DIR)
        .into_iter()
        .filter(|n| n.starts_with("thermal_zone"))
        .filter_map(|n| {
            let t = root.value(format!("{THERMAL_DIR}/{n}/type"))?;
            Some((n, t))
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Single-digit entries (`thermal_zone?`, `hwmon?`): the only ones sbc-bench considers when
/// guessing.
fn single_digit(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|d| d.len() == 1 && d.as_bytes()[0].is_ascii_digit())
}

/// Zone-type patterns sbc-bench accepts on Arm/RISC-V, matched case-insensitively.
const ARM_ZONE_PATTERNS: &[&str] = &["aml_thermal", "cpu", "soc", "thermal-zone4"];
/// hwmon-name patterns sbc-bench accepts on Arm/RISC-V when no zone matched (JH7110
/// `120e0000.tmon`, Loongson `pvt`, ACPI Arm servers `acpitz`).
const ARM_HWMON_PATTERNS: &[&str] = &["120e0000", "pvt", "acpitz", "cpu-hwmon"];
/// Sensor names of Armbian's `soctemp` link that sbc-bench trusts.
const ARMBIAN_TRUSTED: &[&str] = &[
    "aml_thermal",
    "cpu",
    "cpu_thermal",
    "cpu-thermal",
    "cpu0-thermal",
    "cpu0_thermal",
    "soc_thermal",
    "soc-thermal",
    "CPU-therm",
    "x86_pkg_temp",
];
/// Zone types sbc-bench prefers over a distrusted Armbian choice (matched case-sensitively).
const ARMBIAN_OVERRIDE_PATTERNS: &[&str] = &[
    "cpu",
    "soc",
    "CPU-therm",
    "x86_pkg_temp",
    "thermal-fan-est",
    "cluster0",
    "bigcore_thermal",
];
/// Armbian's choice of SoC temperature sensor (a symlink to a `temp` or `tempN_input` file).
pub const ARMBIAN_SOCTEMP: &str = "/etc/armbianmonitor/datasources/soctemp";
/// hwmon names sbc-bench looks for on x86 when there is no `x86_pkg_temp` zone.
const X86_HWMON: &[&str] = &["k10temp", "k8temp", "coretemp"];

fn armbian_trusted(name: &str) -> bool {
    ARMBIAN_TRUSTED.iter().any(|t| {
        if matches!(*t, "aml_thermal" | "cpu" | "CPU-therm" | "x86_pkg_temp") {
            name == *t
        } else {
            name.starts_with(t)
        }
    })
}

/// First zone (in glob order) whose type contains `needle`, as sbc-bench's GetThermalZone.
fn zone_containing(zones: &[(String, String)], needle: &str) -> Option<ThermalSource> {
    zones
        .iter()
        .find(|(_, t)| t.contains(needle))
        .map(|(n, t)| zone_source(n, t))
}

/// Pick the thermal source as sbc-bench picks it, so our `Temp` column shows the same
/// sensor as logs users compare against:
///
/// - Arm/RISC-V with Armbian's `soctemp` link: use it when it points at a CPU/SoC sensor,
///   else a CPU/SoC zone, else Armbian's choice anyway.
/// - x86: the `x86_pkg_temp` zone, else a `k10temp`/`k8temp`/`coretemp` hwmon, else a zone
///   named after the CPU.
/// - Arm/RISC-V: among `thermal_zone0`…`9` the *last* type matching
///   `aml_thermal|cpu|soc|thermal-zone4` (case-insensitive), then the first zone whose type
///   contains it; else the last of `hwmon0`…`9` named like `120e0000|pvt|acpitz|cpu-hwmon`.
///
/// `None` on machines without sensors (VMs, containers).
pub fn pick_source(root: &SysRoot) -> Option<ThermalSource> {
    let zones = zones_glob_order(root);
    if is_x86(root) {
        if let Some(s) = zone_containing(&zones, "x86_pkg_temp") {
            return Some(s);
        }
        for (n, name) in hwmons(root) {
            if X86_HWMON.contains(&name.as_str()) {
                if let Some(file) = hwmon_temp_file(root, &n) {
                    let class = format!("{HWMON_DIR}/{n}");
                    let dir = root
                        .resolve(&class)
                        .map(|p| p.display().to_string())
                        .unwrap_or(class);
                    return Some(ThermalSource {
                        kind: SourceKind::Hwmon,
                        dir: format!("{dir}/"),
                        name,
                        temp_file: file,
                    });
                }
            }
        }
        return zones
            .iter()
            .find(|(_, t)| t.to_ascii_lowercase().contains("cpu"))
            .and_then(|(_, t)| zone_containing(&zones, t));
    }
    if let Some(s) = armbian_source(root, &zones) {
        return Some(s);
    }
    let guess = zones
        .iter()
        .filter(|(n, _)| single_digit(n, "thermal_zone"))
        .rfind(|(_, t)| {
            let l = t.to_ascii_lowercase();
            ARM_ZONE_PATTERNS.iter().any(|p| l.contains(p))
        })
        .map(|(_, t)| t.clone());
    if let Some(g) = guess {
        return zone_containing(&zones, &g);
    }
    let mut hw: Vec<(String, String)> = hwmons(root);
    hw.sort_by(|a, b| a.0.cmp(&b.0));
    let hguess = hw
        .iter()
        .filter(|(n, _)| single_digit(n, "hwmon"))
        .rfind(|(_, name)| {
            let l = name.to_ascii_lowercase();
            ARM_HWMON_PATTERNS.iter().any(|p| l.contains(p))
        })
        .map(|(_, name)| name.clone())?;
    let (n, name) = hw.iter().find(|(n, name)| {
        name.contains(&hguess)
            && (hguess != "pvt"
                || root.value(format!("{HWMON_DIR}/{n}/label")).as_deref() == Some("pvt0"))
    })?;
    let file = format!("{HWMON_DIR}/{n}/temp1_input");
    root.exists(&file).then(|| ThermalSource {
        kind: SourceKind::Hwmon,
        dir: format!("{HWMON_DIR}/{n}/"),
        name: name.clone(),
        temp_file: PathBuf::from(file),
    })
}

/// hwmon devices as `(entry name, name attribute)`, natural order.
fn hwmons(root: &SysRoot) -> Vec<(String, String)> {
    root.list(HWMON_DIR)
        .into_iter()
        .filter(|n| n.starts_with("hwmon"))
        .filter_map(|n| {
            let name = root.value(format!("{HWMON_DIR}/{n}/name"))?;
            Some((n, name))
        })
        .collect()
}

/// Armbian's `soctemp` link, vetted as sbc-bench does.
fn armbian_source(root: &SysRoot, zones: &[(String, String)]) -> Option<ThermalSource> {
    let target = root.link_target(ARMBIAN_SOCTEMP)?;
    let target = if target.is_absolute() {
        target
    } else {
        Path::new(ARMBIAN_SOCTEMP).parent()?.join(target)
    };
    let node = target.parent()?.to_path_buf();
    let node_s = node.display().to_string();
    let name = root
        .value(format!("{node_s}/name"))
        .or_else(|| root.value(format!("{node_s}/type")))?;
    let armbian = |name: String| ThermalSource {
        kind: if node_s.contains("/hwmon") {
            SourceKind::Hwmon
        } else {
            SourceKind::Zone
        },
        dir: format!("{node_s}/"),
        name,
        temp_file: target.clone(),
    };
    if armbian_trusted(&name) {
        return Some(armbian(name));
    }
    let mut types: Vec<&String> = zones
        .iter()
        .filter(|(n, _)| single_digit(n, "thermal_zone"))
        .map(|(_, t)| t)
        .collect();
    types.sort();
    match types
        .into_iter()
        .find(|t| ARMBIAN_OVERRIDE_PATTERNS.iter().any(|p| t.contains(p)))
    {
        Some(t) => zone_containing(zones, t),
        None => Some(armbian(name)),
    }
}

/// A zone as source. Thermal zones are always virtual devices, and sbc-bench names them by
/// their `/sys/devices/virtual/thermal` path, so that is what we print.
fn zone_source(zone: &str, ty: &str) -> ThermalSource {
    let class = format!("{THERMAL_DIR}/{zone}");
    ThermalSource {
        kind: SourceKind::Zone,
        dir: format!("/sys/devices/virtual/thermal/{zone}/"),
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

/// A trip point of a thermal zone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trip {
    /// N of `trip_point_N_*`.
    pub index: u32,
    /// `trip_point_N_type` (`passive`, `active`, `hot`, `critical`).
    #[serde(rename = "type")]
    pub trip_type: Option<String>,
    /// `trip_point_N_temp` in °C.
    pub temp_c: Option<f64>,
}

/// A thermal zone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThermalZone {
    /// Entry name (`thermal_zone0`).
    pub zone: String,
    /// `type` (`soc-thermal`, `cpu-thermal`, `x86_pkg_temp`, `acpitz`).
    #[serde(rename = "type")]
    pub zone_type: Option<String>,
    /// Current temperature in °C.
    pub temp_c: Option<f64>,
    /// Trip points in index order.
    #[serde(default)]
    pub trips: Vec<Trip>,
}

impl ThermalZone {
    /// The critical trip temperature, if any.
    pub fn crit_c(&self) -> Option<f64> {
        self.trips
            .iter()
            .find(|t| t.trip_type.as_deref() == Some("critical"))
            .and_then(|t| t.temp_c)
    }
}

/// Most trip points we look for per zone (real zones have up to ~12).
const MAX_TRIPS: u32 = 32;

/// Read every thermal zone, in natural order.
pub fn read_zones(root: &SysRoot) -> Vec<ThermalZone> {
    root.list(THERMAL_DIR)
        .into_iter()
        .filter(|n| n.starts_with("thermal_zone"))
        .map(|n| {
            let base = format!("{THERMAL_DIR}/{n}");
            let mut trips = Vec::new();
            for i in 0..MAX_TRIPS {
                let t = root.value(format!("{base}/trip_point_{i}_type"));
                let c = root
                    .read_opt(format!("{base}/trip_point_{i}_temp"))
                    .and_then(|v| parse_temp_c(&v));
                if t.is_none() && c.is_none() {
                    break;
                }
                trips.push(Trip {
                    index: i,
                    trip_type: t,
                    temp_c: c,
                });
            }
            ThermalZone {
                zone_type: root.value(format!("{base}/type")),
                temp_c: root
                    .read_opt(format!("{base}/temp"))
                    .and_then(|v| parse_temp_c(&v)),
                trips,
                zone: n,
            }
        })
        .collect()
}

/// One sensor reading of a hwmon device, in SI units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reading {
    /// `tempN_*` (millidegrees in sysfs).
    Temp {
        /// Current temperature, °C.
        temp_c: Option<f64>,
        /// `tempN_min`, °C.
        min_c: Option<f64>,
        /// `tempN_max`, °C.
        max_c: Option<f64>,
        /// `tempN_crit`, °C.
        crit_c: Option<f64>,
    },
    /// `inN_*` (millivolts in sysfs).
    Voltage {
        /// Current voltage, V.
        volts: Option<f64>,
        /// `inN_min`, V.
        min_volts: Option<f64>,
        /// `inN_max`, V.
        max_volts: Option<f64>,
    },
    /// `currN_*` (milliamperes in sysfs).
    Current {
        /// Current, A.
        amps: Option<f64>,
        /// `currN_min`, A.
        min_amps: Option<f64>,
        /// `currN_max`, A.
        max_amps: Option<f64>,
    },
    /// `powerN_*` (microwatts in sysfs).
    Power {
        /// Power, W.
        watts: Option<f64>,
        /// `powerN_max`, W.
        max_watts: Option<f64>,
    },
    /// `fanN_*` (RPM).
    Fan {
        /// Speed, RPM.
        rpm: Option<f64>,
        /// `fanN_min`, RPM.
        min_rpm: Option<f64>,
        /// `fanN_max`, RPM.
        max_rpm: Option<f64>,
    },
    /// `inN_lcrit_alarm` without a voltage (Raspberry Pi `rpi_volt`: firmware under-voltage
    /// flag).
    UndervoltageAlarm {
        /// True while the supply is below the limit.
        active: Option<bool>,
    },
}

/// One input of a hwmon device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HwmonInput {
    /// Attribute stem (`temp1`, `in0`, `curr1`).
    pub attr: String,
    /// `<attr>_label` (`Package id 0`, `Tctl`), if the driver provides one.
    pub label: Option<String>,
    /// The values.
    #[serde(flatten)]
    pub reading: Reading,
}

/// A hwmon device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hwmon {
    /// Entry name (`hwmon0`).
    pub hwmon: String,
    /// `name` attribute (`soc_thermal`, `coretemp`, `rp1_adc`).
    pub name: Option<String>,
    /// Chip name as lm-sensors prints it (`soc_thermal-virtual-0`, `coretemp-isa-0000`,
    /// `tcpm_source_psy_4_0022-i2c-4-22`).
    pub chip: String,
    /// Inputs, by kind then index.
    #[serde(default)]
    pub inputs: Vec<HwmonInput>,
}

/// Attribute kinds we read, in lm-sensors display order.
const HWMON_KINDS: &[&str] = &["in", "fan", "temp", "power", "curr"];

/// Split `temp12_input` into (`temp`, 12, `input`); `None` for other names.
pub fn parse_hwmon_attr(name: &str) -> Option<(&str, u32, &str)> {
    let kind = HWMON_KINDS.iter().find(|k| name.starts_with(*k))?;
    let rest = &name[kind.len()..];
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    let idx = rest[..digits].parse().ok()?;
    let suffix = rest[digits..].strip_prefix('_')?;
    Some((kind, idx, suffix))
}

/// A hwmon value in its sysfs unit, scaled to SI (`scale` = 1000 for milli-units).
fn scaled(root: &SysRoot, path: String, scale: f64) -> Option<f64> {
    let v: f64 = root.value(path)?.parse().ok()?;
    let v = v / scale;
    v.is_finite().then_some(v)
}

/// lm-sensors' chip name for a hwmon device: `<name>-<bus>-<address>` from the bus of the
/// parent device (`virtual` when there is none).
pub fn chip_name(root: &SysRoot, hwmon: &str, name: &str) -> String {
    let base = format!("{HWMON_DIR}/{hwmon}");
    let dev = format!("{base}/device");
    let resolved = root.resolve(&dev);
    let virtual_dev = || format!("{name}-virtual-0");
    let Some(real) = resolved else {
        return virtual_dev();
    };
    if real.starts_with("/sys/devices/virtual") {
        return virtual_dev();
    }
    let devname = real
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match root.link_name(format!("{dev}/subsystem")).as_deref() {
        Some("i2c") => match devname.split_once('-') {
            Some((bus, addr)) => {
                let a = u32::from_str_radix(addr, 16).unwrap_or(0);
                format!("{name}-i2c-{bus}-{a:x}")
            }
            None => format!("{name}-i2c-0-0"),
        },
        Some("pci") => {
            // domain:bus:slot.function → (domain << 16) | (bus << 8) | (slot << 3) | function
            let mut addr = 0u32;
            let parts: Vec<&str> = devname.split([':', '.']).collect();
            if let [d, b, s, f] = parts[..] {
                let h = |x: &str| u32::from_str_radix(x, 16).unwrap_or(0);
                addr = (h(d) << 16) | (h(b) << 8) | (h(s) << 3) | h(f);
            }
            format!("{name}-pci-{addr:04x}")
        }
        Some("platform") | Some("of_platform") => {
            let id = devname
                .rsplit_once('.')
                .and_then(|(_, n)| n.parse::<u32>().ok())
                .unwrap_or(0);
            format!("{name}-isa-{id:04x}")
        }
        Some("acpi") => format!("{name}-acpi-0"),
        Some(other) => format!("{name}-{other}-0"),
        None => virtual_dev(),
    }
}

/// Read one hwmon device. Its directory is listed, and only attributes named
/// `(in|fan|temp|power|curr)N_(input|label|min|max|crit|lcrit_alarm)` are read.
pub fn read_hwmon(root: &SysRoot, hwmon: &str) -> Hwmon {
    let base = format!("{HWMON_DIR}/{hwmon}");
    let name = root.value(format!("{base}/name"));
    let mut stems: Vec<(usize, u32, String)> = Vec::new();
    for entry in root.list(&base) {
        let Some((kind, idx, suffix)) = parse_hwmon_attr(&entry) else {
            continue;
        };
        let wanted = suffix == "input" || (kind == "in" && suffix == "lcrit_alarm");
        if !wanted {
            continue;
        }
        let order = HWMON_KINDS.iter().position(|k| *k == kind).unwrap_or(0);
        let stem = format!("{kind}{idx}");
        if !stems.iter().any(|(_, _, s)| *s == stem) {
            stems.push((order, idx, stem));
        }
    }
    stems.sort();
    let inputs = stems
        .into_iter()
        .map(|(order, _, stem)| {
            let a = |suffix: &str| format!("{base}/{stem}_{suffix}");
            let reading = match HWMON_KINDS[order] {
                "temp" => Reading::Temp {
                    temp_c: scaled(root, a("input"), 1000.0),
                    min_c: scaled(root, a("min"), 1000.0),
                    max_c: scaled(root, a("max"), 1000.0),
                    crit_c: scaled(root, a("crit"), 1000.0),
                },
                "in" if !root.exists(a("input")) => Reading::UndervoltageAlarm {
                    active: root
                        .value(a("lcrit_alarm"))
                        .as_deref()
                        .and_then(crate::sys::cpufreq::parse_flag),
                },
                "in" => Reading::Voltage {
                    volts: scaled(root, a("input"), 1000.0),
                    min_volts: scaled(root, a("min"), 1000.0),
                    max_volts: scaled(root, a("max"), 1000.0),
                },
                "curr" => Reading::Current {
                    amps: scaled(root, a("input"), 1000.0),
                    min_amps: scaled(root, a("min"), 1000.0),
                    max_amps: scaled(root, a("max"), 1000.0),
                },
                "power" => Reading::Power {
                    watts: scaled(root, a("input"), 1_000_000.0),
                    max_watts: scaled(root, a("max"), 1_000_000.0),
                },
                _ => Reading::Fan {
                    rpm: scaled(root, a("input"), 1.0),
                    min_rpm: scaled(root, a("min"), 1.0),
                    max_rpm: scaled(root, a("max"), 1.0),
                },
            };
            HwmonInput {
                label: root.value(a("label")),
                attr: stem,
                reading,
            }
        })
        .collect();
    Hwmon {
        chip: chip_name(root, hwmon, name.as_deref().unwrap_or(hwmon)),
        name,
        hwmon: hwmon.to_string(),
        inputs,
    }
}

/// Read every hwmon device, in natural order.
pub fn read_hwmons(root: &SysRoot) -> Vec<Hwmon> {
    root.list(HWMON_DIR)
        .into_iter()
        .filter(|n| n.starts_with("hwmon"))
        .map(|n| read_hwmon(root, &n))
        .collect()
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

    fn tree(zones: &[&str], hwmons: &[&str], machine: &str) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        fs::write(
            d.path().join("host.json"),
            format!("{{\"machine\":\"{machine}\"}}"),
        )
        .unwrap();
        for (i, t) in zones.iter().enumerate() {
            let p = d.path().join(format!("sys/class/thermal/thermal_zone{i}"));
            fs::create_dir_all(&p).unwrap();
            fs::write(p.join("type"), format!("{t}\n")).unwrap();
            fs::write(p.join("temp"), "40000\n").unwrap();
        }
        for (i, n) in hwmons.iter().enumerate() {
            let p = d.path().join(format!("sys/class/hwmon/hwmon{i}"));
            fs::create_dir_all(&p).unwrap();
            fs::write(p.join("name"), format!("{n}\n")).unwrap();
            fs::write(p.join("temp1_input"), "40000\n").unwrap();
        }
        d
    }

    fn pick(zones: &[&str], hwmons: &[&str], machine: &str) -> Option<String> {
        let d = tree(zones, hwmons, machine);
        pick_source(&SysRoot::new(d.path())).map(|s| {
            let dir = s.dir.replace(&d.path().display().to_string(), "");
            format!("{dir} ({})", s.name)
        })
    }

    /// Zone layouts implied by corpus logs, with the "Thermal source:" line sbc-bench
    /// printed for them.
    #[test]
    fn picks_like_sbc_bench_on_corpus_boards() {
        // RK3588 (41BH): soc-thermal is zone 0, "bigcore" does not match cpu|soc.
        let rk3588 = [
            "soc-thermal",
            "bigcore0-thermal",
            "bigcore1-thermal",
            "littlecore-thermal",
            "center-thermal",
            "gpu-thermal",
            "npu-thermal",
        ];
        assert_eq!(
            pick(&rk3588, &[], "aarch64").unwrap(),
            "/sys/devices/virtual/thermal/thermal_zone0/ (soc-thermal)"
        );
        // Snapdragon laptop (4xwT): the *last* cpu zone among thermal_zone0..9 wins.
        let qcom = [
            "cpu0-thermal",
            "cpu1-thermal",
            "cpu2-thermal",
            "cpu3-thermal",
            "cpu4-thermal",
            "cpu5-thermal",
            "cpu6-thermal",
            "cpu7-thermal",
            "cluster0-thermal",
            "mem-thermal",
            "cpu0-top-thermal",
        ];
        assert_eq!(
            pick(&qcom, &[], "aarch64").unwrap(),
            "/sys/devices/virtual/thermal/thermal_zone7/ (cpu7-thermal)"
        );
        // Jetson Orin Nano (4Ebd): case-insensitive, SOC2-therm is the last match.
        let orin = [
            "CPU-therm",
            "GPU-therm",
            "CV0-therm",
            "CV1-therm",
            "CV2-therm",
            "SOC0-therm",
            "SOC1-therm",
            "SOC2-therm",
            "Tj-therm",
        ];
        assert_eq!(
            pick(&orin, &[], "aarch64").unwrap(),
            "/sys/devices/virtual/thermal/thermal_zone7/ (SOC2-therm)"
        );
        // JH7110 (4pBf): no zones, the 120e0000.tmon hwmon.
        assert_eq!(
            pick(&[], &["120e0000.tmon"], "riscv64").unwrap(),
            "/sys/class/hwmon/hwmon0/ (120e0000.tmon)"
        );
        // Meteor Lake (XRRi): x86 takes x86_pkg_temp even though acpitz comes first.
        assert_eq!(
            pick(
                &["acpitz", "iwlwifi_1", "x86_pkg_temp"],
                &["acpitz"],
                "x86_64"
            )
            .unwrap(),
            "/sys/devices/virtual/thermal/thermal_zone2/ (x86_pkg_temp)"
        );
        // x86 without x86_pkg_temp: coretemp hwmon.
        assert_eq!(
            pick(&["acpitz"], &["acpitz", "coretemp"], "x86_64").unwrap(),
            "/sys/class/hwmon/hwmon1/ (coretemp)"
        );
        // Arm without any CPU/SoC sensor: nothing rather than a wrong one.
        assert_eq!(pick(&["gpu-thermal"], &["iwlwifi_1"], "aarch64"), None);
    }

    #[test]
    fn hwmon_attribute_names() {
        assert_eq!(
            parse_hwmon_attr("temp12_input"),
            Some(("temp", 12, "input"))
        );
        assert_eq!(
            parse_hwmon_attr("in0_lcrit_alarm"),
            Some(("in", 0, "lcrit_alarm"))
        );
        assert_eq!(parse_hwmon_attr("curr1_max"), Some(("curr", 1, "max")));
        assert_eq!(parse_hwmon_attr("power"), None);
        assert_eq!(parse_hwmon_attr("name"), None);
        assert_eq!(parse_hwmon_attr("intrusion0_alarm"), None);
        assert_eq!(parse_hwmon_attr("temp1"), None);
    }

    #[test]
    fn lm_sensors_chip_names() {
        // hwmon parents as on the ROCK 5B (i2c tcpm), Meteor Lake (pci nvme, platform
        // coretemp.0) and any thermal-zone hwmon (virtual).
        let d = tempfile::tempdir().unwrap();
        let mk = |dev: &str, subsys: &str, n: u32| {
            let devp = d.path().join(dev.trim_start_matches('/'));
            let h = devp.join(format!("hwmon/hwmon{n}"));
            fs::create_dir_all(&h).unwrap();
            fs::create_dir_all(d.path().join(format!("sys/bus/{subsys}"))).unwrap();
            // Absolute targets are system paths: they resolve inside the root.
            std::os::unix::fs::symlink(format!("/sys/bus/{subsys}"), devp.join("subsystem"))
                .unwrap();
            std::os::unix::fs::symlink(dev, h.join("device")).unwrap();
            fs::create_dir_all(d.path().join("sys/class/hwmon")).unwrap();
            std::os::unix::fs::symlink(
                format!("{dev}/hwmon/hwmon{n}"),
                d.path().join(format!("sys/class/hwmon/hwmon{n}")),
            )
            .unwrap();
        };
        mk("/sys/devices/platform/feac0000.i2c/i2c-4/4-0022", "i2c", 0);
        mk(
            "/sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0",
            "pci",
            1,
        );
        mk("/sys/devices/platform/coretemp.0", "platform", 2);
        mk("/sys/devices/virtual/thermal/thermal_zone0", "thermal", 3);
        let r = SysRoot::new(d.path());
        assert_eq!(
            chip_name(&r, "hwmon0", "tcpm_source_psy_4_0022"),
            "tcpm_source_psy_4_0022-i2c-4-22"
        );
        assert_eq!(chip_name(&r, "hwmon1", "nvme"), "nvme-pci-0100");
        assert_eq!(chip_name(&r, "hwmon2", "coretemp"), "coretemp-isa-0000");
        assert_eq!(
            chip_name(&r, "hwmon3", "soc_thermal"),
            "soc_thermal-virtual-0"
        );
        assert_eq!(chip_name(&r, "hwmon9", "x"), "x-virtual-0");
    }

    #[test]
    fn none_without_sensors() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(pick_source(&SysRoot::new(d.path())), None);
    }
}
