//! devfreq devices (`/sys/class/devfreq/*`): DRAM controller (`dmc`), GPU, NPU, video
//! codecs. Their governors decide memory bandwidth and latency as much as cpufreq decides
//! CPU speed: an RK3588 with `dmc_ondemand` measures much worse memory latency than with
//! `performance`.

use serde::{Deserialize, Serialize};

use crate::sys::cpufreq::parse_freq_list;
use crate::sys::root::SysRoot;

/// The class directory whose entries we list.
pub const DEVFREQ_DIR: &str = "/sys/class/devfreq";

/// One devfreq device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Devfreq {
    /// Entry name (`dmc`, `fb000000.gpu`, `fdab0000.npu`).
    pub name: String,
    /// Current governor.
    pub governor: Option<String>,
    /// Governors the kernel offers.
    #[serde(default)]
    pub available_governors: Vec<String>,
    /// Operating points in Hz, ascending (the devfreq ABI unit).
    #[serde(default)]
    pub available_frequencies_hz: Vec<u64>,
    /// `cur_freq` in Hz.
    pub cur_hz: Option<u64>,
    /// `min_freq` in Hz.
    pub min_hz: Option<u64>,
    /// `max_freq` in Hz.
    pub max_hz: Option<u64>,
    /// `upthreshold` of the ondemand-style governors (Rockchip BSP `dmc`), percent.
    pub upthreshold: Option<u32>,
    /// `downdifferential`, percent.
    pub downdifferential: Option<u32>,
    /// Whether `trans_stat` exists (transition statistics).
    pub has_trans_stat: bool,
}

impl Devfreq {
    /// Is this the DRAM controller?
    pub fn is_memory(&self) -> bool {
        let n = self.name.to_ascii_lowercase();
        n == "dmc" || n.contains("dmc") || n.contains("ddr") || n.contains("memory")
    }
}

/// Hz to whole MHz as sbc-bench prints them (rounded).
pub fn hz_to_mhz(hz: u64) -> u64 {
    (hz + 500_000) / 1_000_000
}

/// Read one devfreq device by entry name.
pub fn read_device(root: &SysRoot, name: &str) -> Devfreq {
    let a = |n: &str| format!("{DEVFREQ_DIR}/{name}/{n}");
    Devfreq {
        name: name.to_string(),
        governor: root.value(a("governor")),
        available_governors: root
            .value(a("available_governors"))
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default(),
        available_frequencies_hz: root
            .read_opt(a("available_frequencies"))
            .map(|s| parse_freq_list(&s))
            .unwrap_or_default(),
        cur_hz: root.parse(a("cur_freq")),
        min_hz: root.parse(a("min_freq")),
        max_hz: root.parse(a("max_freq")),
        upthreshold: root.parse(a("upthreshold")),
        downdifferential: root.parse(a("downdifferential")),
        has_trans_stat: root.exists(a("trans_stat")),
    }
}

/// Read every devfreq device, in natural name order.
pub fn read(root: &SysRoot) -> Vec<Devfreq> {
    root.list(DEVFREQ_DIR)
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .map(|n| read_device(root, &n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn reads_rk3588_dmc() {
        // Values as the RK3588 BSP kernel shows them (sbc-bench's HandleGovernors example).
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sys/class/devfreq/dmc");
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join("governor"), "dmc_ondemand\n").unwrap();
        fs::write(
            p.join("available_governors"),
            "rknpu_ondemand dmc_ondemand userspace powersave performance simple_ondemand\n",
        )
        .unwrap();
        fs::write(
            p.join("available_frequencies"),
            "528000000 1068000000 1560000000 2112000000\n",
        )
        .unwrap();
        fs::write(p.join("cur_freq"), "528000000\n").unwrap();
        fs::write(p.join("upthreshold"), "garbage\n").unwrap();
        let v = read(&SysRoot::new(d.path()));
        assert_eq!(v.len(), 1);
        assert!(v[0].is_memory());
        assert_eq!(v[0].available_frequencies_hz.len(), 4);
        assert_eq!(v[0].cur_hz.map(hz_to_mhz), Some(528));
        assert_eq!(v[0].upthreshold, None);
        assert!(!v[0].has_trans_stat);
    }

    #[test]
    fn mhz_rounding() {
        assert_eq!(hz_to_mhz(2_112_000_000), 2112);
        assert_eq!(hz_to_mhz(296_999_999), 297);
        assert_eq!(hz_to_mhz(0), 0);
    }
}
