//! Supply voltages sbc-bench lists above the device-tree OPP tables (`   vdd_cpu: 1125 mV
//! (1388 mV max)`): the regulators behind an I2C bus (PMICs and discrete DC-DC converters)
//! whose name says they feed a CPU, GPU, NPU, DRAM or the SoC's center domain. Read from
//! the entries of `/sys/class/regulator` (one known directory, listed): each entry's link
//! target (must name an I2C device), `name`, `microvolts` and `max_microvolts`.

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// The regulator class directory.
pub const REGULATOR_CLASS: &str = "/sys/class/regulator";

/// One supply voltage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Regulator {
    /// Regulator name (`vdd_cpu_big0_s0`, `vcc_ddr`).
    pub name: String,
    /// Present output voltage in µV.
    pub microvolts: u64,
    /// Highest voltage its constraints allow, in µV.
    pub max_microvolts: Option<u64>,
}

/// Does sbc-bench report a regulator of this name (`*cpu*|*gpu*|*center*|*npu*|*ddr*|*dmc*`)?
pub fn is_performance_relevant(name: &str) -> bool {
    ["cpu", "gpu", "center", "npu", "ddr", "dmc"]
        .iter()
        .any(|k| name.contains(k))
}

/// The log line: `   vdd_cpu: 1125 mV (1388 mV max)` (mV rounded as sbc-bench's awk does).
pub fn line(r: &Regulator) -> String {
    let mv = |uv: u64| (uv as f64 / 1000.0).round() as u64;
    match r.max_microvolts {
        Some(max) => format!(
            "   {}: {} mV ({} mV max)",
            r.name,
            mv(r.microvolts),
            mv(max)
        ),
        None => format!("   {}: {} mV", r.name, mv(r.microvolts)),
    }
}

/// The I2C regulators sbc-bench reports, sorted by name as its `sort` leaves them.
pub fn read(root: &SysRoot) -> Vec<Regulator> {
    let mut out: Vec<Regulator> = root
        .list(REGULATOR_CLASS)
        .into_iter()
        .filter(|e| e.starts_with("regulator."))
        .filter_map(|e| {
            let dir = format!("{REGULATOR_CLASS}/{e}");
            let target = root.link_target(&dir)?;
            if !target
                .to_string_lossy()
                .to_ascii_lowercase()
                .contains("i2c")
            {
                return None;
            }
            let name = root.value(format!("{dir}/name"))?;
            if !is_performance_relevant(&name) {
                return None;
            }
            Some(Regulator {
                microvolts: root.parse(format!("{dir}/microvolts"))?,
                max_microvolts: root.parse(format!("{dir}/max_microvolts")),
                name,
            })
        })
        .collect();
    out.sort_by_key(line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn nanopi_r5s_lines() {
        // Corpus log 4L4u (NanoPi R5S): `   vdd_cpu: 1125 mV (1388 mV max)`.
        let r = Regulator {
            name: "vdd_cpu".into(),
            microvolts: 1_125_000,
            max_microvolts: Some(1_387_500),
        };
        assert_eq!(line(&r), "   vdd_cpu: 1125 mV (1388 mV max)");
        assert!(is_performance_relevant("vcc_ddr"));
        assert!(!is_performance_relevant("vcc3v3_sys"));
    }

    #[test]
    fn only_i2c_regulators_with_relevant_names_are_read() {
        let d = tempfile::tempdir().unwrap();
        let dev = d
            .path()
            .join("sys/devices/platform/fdd40000.i2c/i2c-0/0-001c/regulator");
        let fixed = d.path().join("sys/devices/platform/vcc3v3/regulator");
        let class = d.path().join("sys/class/regulator");
        fs::create_dir_all(&class).unwrap();
        for (dir, n, name, uv) in [
            (&dev, 5, "vdd_cpu", "1125000"),
            (&dev, 6, "vcc3v3_pmu", "3300000"),
            (&fixed, 1, "vdd_gpu_fixed", "900000"),
        ] {
            let r = dir.join(format!("regulator.{n}"));
            fs::create_dir_all(&r).unwrap();
            fs::write(r.join("name"), format!("{name}\n")).unwrap();
            fs::write(r.join("microvolts"), format!("{uv}\n")).unwrap();
            let rel = pathdiff(&r, &class);
            std::os::unix::fs::symlink(rel, class.join(format!("regulator.{n}"))).unwrap();
        }
        let got = read(&SysRoot::new(d.path()));
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].name, "vdd_cpu");
        assert_eq!(got[0].max_microvolts, None);
    }

    /// `../../devices/…` from the class directory, as sysfs links are.
    fn pathdiff(target: &std::path::Path, from: &std::path::Path) -> std::path::PathBuf {
        let root = from.parent().unwrap().parent().unwrap();
        std::path::Path::new("../..").join(target.strip_prefix(root).unwrap())
    }
}
