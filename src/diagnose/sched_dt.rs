//! Validation lines sbc-bench adds from the device tree and powercap: on big.LITTLE Arm
//! designs whether the CPU nodes carry `capacity-dmips-mhz` (without it the scheduler
//! treats little and big cores alike) and, with the `schedutil` governor, an energy model
//! (`dynamic-power-coefficient` or `sched-energy-costs`); on Intel whether RAPL power
//! limits (`/sys/devices/virtual/powercap/intel-rapl`) may cap the clocks.

use crate::record::finding::{Finding, FindingCode, Severity};
use crate::sys::discover::SystemInfo;

/// What the scheduler-related device-tree check looks at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedDt {
    /// `/proc/device-tree/cpus` exists.
    pub dt_cpus: bool,
    /// Clusters.
    pub clusters: usize,
    /// CPUs.
    pub cpus: usize,
    /// CPU nodes with `capacity-dmips-mhz`.
    pub capacity_dmips_mhz: usize,
    /// CPU nodes with `dynamic-power-coefficient`.
    pub dynamic_power_coefficient: usize,
    /// CPU nodes with `sched-energy-costs`.
    pub sched_energy_costs: usize,
    /// The cpufreq governor found before tuning (first policy).
    pub governor: Option<String>,
}

/// The device-tree findings (none on single-cluster systems or without a device tree).
pub fn sched_findings(f: &SchedDt) -> Vec<Finding> {
    let mut out = Vec::new();
    if !f.dt_cpus || f.clusters <= 1 {
        return out;
    }
    let n = f.clusters;
    if f.capacity_dmips_mhz == 0 {
        out.push(Finding::new(
            FindingCode::CapacityDmipsMhzMissing,
            Severity::Warning,
            format!("{n} different clusters but capacity-dmips-mhz property not set"),
        ));
    } else if f.capacity_dmips_mhz != f.cpus {
        out.push(Finding::new(
            FindingCode::CapacityDmipsMhzMissing,
            Severity::Warning,
            format!(
                "{n} different clusters and {} cores but capacity-dmips-mhz property only set on {}",
                f.cpus, f.capacity_dmips_mhz
            ),
        ));
    }
    if f.governor.as_deref() == Some("schedutil") {
        let (dpc, sec) = (f.dynamic_power_coefficient, f.sched_energy_costs);
        if dpc == 0 && sec == 0 {
            out.push(Finding::new(
                FindingCode::EnergyModelMissing,
                Severity::Warning,
                "schedutil cpufreq governor configured but neither dynamic-power-coefficient nor sched-energy-costs defined",
            ));
        } else if dpc != f.cpus {
            out.push(Finding::new(
                FindingCode::EnergyModelMissing,
                Severity::Info,
                format!(
                    "schedutil cpufreq governor configured: {} cores available vs. only {dpc} dynamic-power-coefficient DT nodes",
                    f.cpus
                ),
            ));
        } else if sec != f.cpus {
            out.push(Finding::new(
                FindingCode::EnergyModelMissing,
                Severity::Info,
                format!(
                    "schedutil cpufreq governor configured: {} cores available vs. only {sec} sched-energy-costs DT nodes",
                    f.cpus
                ),
            ));
        }
    }
    out
}

/// `Powercap detected.` on Intel CPUs with RAPL power capping.
pub fn powercap_findings(intel_rapl: bool, vendor: Option<&str>) -> Vec<Finding> {
    if intel_rapl && vendor.is_some_and(|v| v.eq_ignore_ascii_case("GenuineIntel")) {
        vec![Finding::new(
            FindingCode::PowercapPresent,
            Severity::Info,
            "Powercap detected. Details: \"sudo powercap-info -p intel-rapl\"",
        )]
    } else {
        Vec::new()
    }
}

/// Both checks on the system as found before tuning.
pub fn findings(i: &SystemInfo) -> Vec<Finding> {
    let inv = &i.log_inventory;
    let f = SchedDt {
        dt_cpus: inv.dt_cpus,
        clusters: i.topology.clusters.len(),
        cpus: i.topology.cpus.len(),
        capacity_dmips_mhz: inv.capacity_dmips_mhz,
        dynamic_power_coefficient: inv.dynamic_power_coefficient,
        sched_energy_costs: inv.sched_energy_costs,
        governor: i.cpufreq.first().and_then(|p| p.governor.clone()),
    };
    let mut out = sched_findings(&f);
    let vendor = inv.lscpu.cpus.first().and_then(|c| c.vendor.as_deref());
    out.extend(powercap_findings(inv.intel_rapl, vendor));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rk3588(caps: usize, dpc: usize, sec: usize, gov: &str) -> SchedDt {
        SchedDt {
            dt_cpus: true,
            clusters: 3,
            cpus: 8,
            capacity_dmips_mhz: caps,
            dynamic_power_coefficient: dpc,
            sched_energy_costs: sec,
            governor: Some(gov.into()),
        }
    }

    #[test]
    fn three_clusters_without_capacity_dmips_mhz() {
        // Wording of corpus logs with "3 different clusters but capacity-dmips-mhz …".
        let f = sched_findings(&rk3588(0, 8, 8, "ondemand"));
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].message,
            "3 different clusters but capacity-dmips-mhz property not set"
        );
        let partial = sched_findings(&rk3588(4, 8, 8, "ondemand"));
        assert!(partial[0].message.ends_with("property only set on 4"));
    }

    #[test]
    fn schedutil_without_energy_model() {
        let f = sched_findings(&rk3588(8, 0, 0, "schedutil"));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, FindingCode::EnergyModelMissing);
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(sched_findings(&rk3588(8, 8, 8, "schedutil")).is_empty());
        let some = sched_findings(&rk3588(8, 4, 0, "schedutil"));
        assert!(some[0].message.contains("only 4 dynamic-power-coefficient"));
    }

    #[test]
    fn single_cluster_or_no_device_tree_is_silent() {
        let mut f = rk3588(0, 0, 0, "schedutil");
        f.clusters = 1;
        assert!(sched_findings(&f).is_empty());
        let mut g = rk3588(0, 0, 0, "schedutil");
        g.dt_cpus = false;
        assert!(sched_findings(&g).is_empty());
    }

    #[test]
    fn powercap_only_on_intel() {
        assert_eq!(powercap_findings(true, Some("GenuineIntel")).len(), 1);
        assert!(powercap_findings(true, Some("AuthenticAMD")).is_empty());
        assert!(powercap_findings(false, Some("GenuineIntel")).is_empty());
    }
}
