//! cpufreq policies (`/sys/devices/system/cpu/cpufreq/policyN`), read-only.

use serde::{Deserialize, Serialize};

use crate::sys::cpu_list as list;
use crate::sys::root::SysRoot;

/// Directory holding the policies.
pub const CPUFREQ_DIR: &str = "/sys/devices/system/cpu/cpufreq";
/// Where the global ondemand tunable lives (per policy on kernels whose driver keeps
/// governor tunables per policy: `policyN/ondemand/io_is_busy`).
pub const IO_IS_BUSY: &str = "/sys/devices/system/cpu/cpufreq/ondemand/io_is_busy";

/// One cpufreq policy: a set of CPUs that share a clock.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// N of `policyN` (by convention the first CPU of the policy).
    pub id: u32,
    /// CPUs sharing this clock (`related_cpus`, including offline ones).
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// Scaling driver (`cpufreq-dt`, `scmi`, `intel_pstate`, `acpi-cpufreq`…).
    pub driver: Option<String>,
    /// Current governor.
    pub governor: Option<String>,
    /// Governors the kernel offers.
    #[serde(default)]
    pub available_governors: Vec<String>,
    /// Operating points in kHz, ascending (`scaling_available_frequencies`, falling back
    /// to `stats/time_in_state`). Empty with intel_pstate/amd-pstate and many ACPI drivers.
    #[serde(default)]
    pub opps_khz: Vec<u64>,
    /// Hardware limits (`cpuinfo_min_freq`/`cpuinfo_max_freq`) in kHz.
    pub cpuinfo_min_khz: Option<u64>,
    /// See [`Policy::cpuinfo_min_khz`].
    pub cpuinfo_max_khz: Option<u64>,
    /// Software limits currently set (`scaling_min_freq`/`scaling_max_freq`) in kHz.
    pub scaling_min_khz: Option<u64>,
    /// See [`Policy::scaling_min_khz`].
    pub scaling_max_khz: Option<u64>,
    /// Current clock in kHz as the kernel reports it (`scaling_cur_freq`).
    pub cur_khz: Option<u64>,
    /// Whether `stats/time_in_state` exists (needed for throttling statistics).
    pub has_time_in_state: bool,
    /// `energy_performance_preference` (intel_pstate/amd-pstate with HWP/CPPC).
    pub energy_performance_preference: Option<String>,
    /// `energy_performance_available_preferences`.
    #[serde(default)]
    pub energy_performance_available_preferences: Vec<String>,
    /// `base_frequency` in kHz (intel_pstate: the guaranteed, non-turbo clock).
    pub base_khz: Option<u64>,
}

impl Policy {
    /// Path of an attribute of this policy.
    pub fn attr(&self, name: &str) -> String {
        policy_attr(self.id, name)
    }

    /// Lowest clock in MHz as sbc-bench prints it (hardware minimum, else scaling minimum).
    pub fn min_mhz(&self) -> Option<u64> {
        self.cpuinfo_min_khz
            .or(self.scaling_min_khz)
            .map(|k| k / 1000)
    }

    /// Highest clock in MHz (hardware maximum, else scaling maximum).
    pub fn max_mhz(&self) -> Option<u64> {
        self.cpuinfo_max_khz
            .or(self.scaling_max_khz)
            .map(|k| k / 1000)
    }
}

/// Path of attribute `name` of `policyN`.
pub fn policy_attr(id: u32, name: &str) -> String {
    format!("{CPUFREQ_DIR}/policy{id}/{name}")
}

/// The `ondemand` governor's `io_is_busy` for `policyN`: per policy on kernels whose
/// governor tunables are per policy, else the global
/// `/sys/devices/system/cpu/cpufreq/ondemand/io_is_busy`. `None` when neither exists (the
/// policy runs another governor).
pub fn ondemand_io_is_busy(root: &SysRoot, policy: u32) -> Option<bool> {
    root.parse::<u8>(policy_attr(policy, "ondemand/io_is_busy"))
        .or_else(|| root.parse::<u8>(format!("{CPUFREQ_DIR}/ondemand/io_is_busy")))
        .map(|v| v != 0)
}

/// Parse `stats/time_in_state` (`<kHz> <10ms units>` per line) into (kHz, ticks) pairs.
/// Lines that are not two numbers are skipped.
pub fn parse_time_in_state(text: &str) -> Vec<(u64, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let f = it.next()?.parse().ok()?;
            let t = it.next()?.parse().ok()?;
            Some((f, t))
        })
        .collect()
}

/// Parse a whitespace-separated list of kHz values, sorted ascending and de-duplicated.
pub fn parse_freq_list(text: &str) -> Vec<u64> {
    let mut v: Vec<u64> = text
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .filter(|&f| f > 0)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Read every policy directory. Missing cpufreq support (VMs, many x86 servers) is an
/// empty list.
pub fn read_policies(root: &SysRoot) -> Vec<Policy> {
    let mut out = Vec::new();
    for name in root.list(CPUFREQ_DIR) {
        let Some(id) = name
            .strip_prefix("policy")
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        out.push(read_policy(root, id));
    }
    out.sort_by_key(|p| p.id);
    out
}

/// Read one policy.
pub fn read_policy(root: &SysRoot, id: u32) -> Policy {
    let a = |n: &str| policy_attr(id, n);
    let cpus = root
        .value(a("related_cpus"))
        .and_then(|s| list::parse_spaced(&s))
        .or_else(|| {
            root.value(a("affected_cpus"))
                .and_then(|s| list::parse_spaced(&s))
        })
        .unwrap_or_else(|| vec![id]);
    let time_in_state = root.read_opt(a("stats/time_in_state"));
    let mut opps = root
        .read_opt(a("scaling_available_frequencies"))
        .map(|s| parse_freq_list(&s))
        .unwrap_or_default();
    if opps.is_empty() {
        if let Some(t) = &time_in_state {
            opps = parse_freq_list(
                &parse_time_in_state(t)
                    .iter()
                    .map(|(f, _)| f.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
    }
    // Boost frequencies (intel/amd/some Arm SCMI) are OPPs as well.
    if let Some(b) = root.read_opt(a("scaling_boost_frequencies")) {
        opps.extend(parse_freq_list(&b));
        opps.sort_unstable();
        opps.dedup();
    }
    Policy {
        id,
        cpus,
        driver: root.value(a("scaling_driver")),
        governor: root.value(a("scaling_governor")),
        available_governors: root
            .value(a("scaling_available_governors"))
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default(),
        opps_khz: opps,
        cpuinfo_min_khz: root.parse(a("cpuinfo_min_freq")),
        cpuinfo_max_khz: root.parse(a("cpuinfo_max_freq")),
        scaling_min_khz: root.parse(a("scaling_min_freq")),
        scaling_max_khz: root.parse(a("scaling_max_freq")),
        cur_khz: root
            .parse(a("scaling_cur_freq"))
            .or_else(|| root.parse(a("cpuinfo_cur_freq"))),
        has_time_in_state: time_in_state.is_some(),
        energy_performance_preference: root.value(a("energy_performance_preference")),
        energy_performance_available_preferences: root
            .value(a("energy_performance_available_preferences"))
            .map(|s| s.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default(),
        base_khz: root.parse(a("base_frequency")),
    }
}

/// State of the x86 P-state drivers and the global boost switch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PState {
    /// `intel_pstate/status` (`active`, `passive`, `off`).
    pub intel_pstate_status: Option<String>,
    /// `intel_pstate/no_turbo` (true = turbo disabled).
    pub intel_no_turbo: Option<bool>,
    /// `intel_pstate/max_perf_pct`.
    pub intel_max_perf_pct: Option<u32>,
    /// `intel_pstate/min_perf_pct`.
    pub intel_min_perf_pct: Option<u32>,
    /// `intel_pstate/hwp_dynamic_boost`.
    pub intel_hwp_dynamic_boost: Option<bool>,
    /// `amd_pstate/status` (`active`, `passive`, `guided`, `disable`).
    pub amd_pstate_status: Option<String>,
    /// `cpufreq/boost` (acpi-cpufreq, amd-pstate passive; true = boost allowed).
    pub boost: Option<bool>,
}

impl PState {
    /// True when none of the files exist (Arm and RISC-V boards, VMs).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Parse a sysfs 0/1 flag.
pub fn parse_flag(s: &str) -> Option<bool> {
    match s.trim() {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// Read the x86 P-state status files.
pub fn read_pstate(root: &SysRoot) -> PState {
    let ip = |n: &str| format!("/sys/devices/system/cpu/intel_pstate/{n}");
    let flag = |p: String| root.value(p).as_deref().and_then(parse_flag);
    PState {
        intel_pstate_status: root.value(ip("status")),
        intel_no_turbo: flag(ip("no_turbo")),
        intel_max_perf_pct: root.parse(ip("max_perf_pct")),
        intel_min_perf_pct: root.parse(ip("min_perf_pct")),
        intel_hwp_dynamic_boost: flag(ip("hwp_dynamic_boost")),
        amd_pstate_status: root.value("/sys/devices/system/cpu/amd_pstate/status"),
        boost: flag(format!("{CPUFREQ_DIR}/boost")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_is_busy_per_policy_else_global() {
        let d = tempfile::tempdir().unwrap();
        let r = SysRoot::new(d.path());
        assert_eq!(ondemand_io_is_busy(&r, 0), None);
        let cpufreq = d.path().join("sys/devices/system/cpu/cpufreq");
        std::fs::create_dir_all(cpufreq.join("ondemand")).unwrap();
        std::fs::write(cpufreq.join("ondemand/io_is_busy"), "0\n").unwrap();
        assert_eq!(ondemand_io_is_busy(&r, 4), Some(false));
        std::fs::create_dir_all(cpufreq.join("policy4/ondemand")).unwrap();
        std::fs::write(cpufreq.join("policy4/ondemand/io_is_busy"), "1\n").unwrap();
        assert_eq!(ondemand_io_is_busy(&r, 4), Some(true));
        assert_eq!(ondemand_io_is_busy(&r, 0), Some(false));
    }

    #[test]
    fn time_in_state_rk3588() {
        let t = "408000 1023\n600000 12\n1800000 99345\nbogus line\n";
        assert_eq!(
            parse_time_in_state(t),
            vec![(408000, 1023), (600000, 12), (1800000, 99345)]
        );
    }

    #[test]
    fn flags() {
        assert_eq!(parse_flag("1\n"), Some(true));
        assert_eq!(parse_flag("0"), Some(false));
        assert_eq!(parse_flag("on"), None);
    }

    #[test]
    fn freq_list_sorted() {
        assert_eq!(
            parse_freq_list("1800000 408000 600000 \n"),
            vec![408000, 600000, 1800000]
        );
    }
}
