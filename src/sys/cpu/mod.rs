//! CPUs: which exist, which are online, what core type each is, which cpufreq policy and
//! package it belongs to, and the clusters derived from that.

pub mod ident;
pub mod list;

use serde::Serialize;

use crate::sys::cpufreq::{self, Policy};
use crate::sys::root::SysRoot;

/// sysfs directory of the CPU devices.
pub const CPU_DIR: &str = "/sys/devices/system/cpu";

/// One logical CPU.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Cpu {
    /// Logical CPU number (`cpuN`).
    pub cpu: u32,
    /// Online right now (offline and hot-plugged CPUs are listed, not dropped).
    pub online: bool,
    /// Core name (`Cortex-A76`), `None` when cpuinfo does not tell.
    pub core_type: Option<String>,
    /// Revision (`r4p0`).
    pub stepping: Option<String>,
    /// Derived cluster index: CPUs with the same core type, cpufreq policy and package.
    pub cluster: u32,
    /// cpufreq policy number, `None` without cpufreq.
    pub policy: Option<u32>,
    /// `topology/physical_package_id` (on older Arm kernels this is the cluster id).
    pub package_id: Option<i64>,
    /// Lowest clock in MHz (policy hardware minimum).
    pub min_mhz: Option<u64>,
    /// Highest clock in MHz (policy hardware maximum).
    pub max_mhz: Option<u64>,
}

/// A group of CPUs benchmarked as one: same core type, same clock, same package.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Cluster {
    /// Index as in [`Cpu::cluster`].
    pub id: u32,
    /// Member CPUs, ascending.
    pub cpus: Vec<u32>,
    /// Shared core type.
    pub core_type: Option<String>,
    /// Shared cpufreq policy.
    pub policy: Option<u32>,
}

impl Cluster {
    /// The CPU sbc-bench pins a cluster's single-threaded benchmarks to: its first member.
    pub fn first_cpu(&self) -> u32 {
        self.cpus.first().copied().unwrap_or(0)
    }

    /// `cpu4-cpu5 (Cortex-A76)` style label.
    pub fn label(&self) -> String {
        let range = list::format_cpu_range(&self.cpus);
        match &self.core_type {
            Some(t) => format!("{range} ({t})"),
            None => range,
        }
    }
}

/// All CPUs and the clusters they form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Topology {
    /// Every CPU the kernel knows of (`possible`/`present`), ascending.
    pub cpus: Vec<Cpu>,
    /// Clusters of the CPUs, in order of their first CPU.
    pub clusters: Vec<Cluster>,
}

impl Topology {
    /// Read the topology from sysfs and cpuinfo, with the cpufreq policies already read.
    pub fn read(root: &SysRoot, policies: &[Policy]) -> Self {
        let cpuinfo = root.read_opt("/proc/cpuinfo").unwrap_or_default();
        let idents = ident::identify(&cpuinfo);
        let numbers = cpu_numbers(root, idents.keys().copied().collect());
        let online = root
            .value(format!("{CPU_DIR}/online"))
            .and_then(|s| list::parse_list(&s));
        // Old kernels print one cpuinfo block for all CPUs: reuse the last known identity.
        let fallback = idents.values().last().cloned().unwrap_or_default();
        let cpus = numbers
            .into_iter()
            .map(|n| {
                let id = idents.get(&n).cloned().unwrap_or_else(|| fallback.clone());
                let policy = policies.iter().find(|p| p.cpus.contains(&n));
                let is_online = match &online {
                    Some(list) => list.contains(&n),
                    None => root
                        .value(format!("{CPU_DIR}/cpu{n}/online"))
                        .is_none_or(|v| v == "1"),
                };
                Cpu {
                    cpu: n,
                    online: is_online,
                    core_type: id.core_type,
                    stepping: id.stepping,
                    cluster: 0,
                    policy: policy.map(|p| p.id),
                    package_id: root
                        .parse(format!("{CPU_DIR}/cpu{n}/topology/physical_package_id")),
                    min_mhz: policy.and_then(Policy::min_mhz),
                    max_mhz: policy.and_then(Policy::max_mhz),
                }
            })
            .collect();
        Self::from_cpus(cpus)
    }

    /// Derive clusters from CPUs: a CPU joins an existing cluster when core type, policy
    /// and package all match.
    pub fn from_cpus(mut cpus: Vec<Cpu>) -> Self {
        cpus.sort_by_key(|c| c.cpu);
        let mut clusters: Vec<Cluster> = Vec::new();
        let mut keys: Vec<(Option<String>, Option<u32>, Option<i64>)> = Vec::new();
        for c in &mut cpus {
            let key = (c.core_type.clone(), c.policy, c.package_id);
            let idx = match keys.iter().position(|k| *k == key) {
                Some(i) => i,
                None => {
                    keys.push(key);
                    clusters.push(Cluster {
                        id: clusters.len() as u32,
                        cpus: Vec::new(),
                        core_type: c.core_type.clone(),
                        policy: c.policy,
                    });
                    clusters.len() - 1
                }
            };
            c.cluster = idx as u32;
            clusters[idx].cpus.push(c.cpu);
        }
        Self { cpus, clusters }
    }

    /// Online CPU numbers.
    pub fn online(&self) -> Vec<u32> {
        self.cpus
            .iter()
            .filter(|c| c.online)
            .map(|c| c.cpu)
            .collect()
    }

    /// The CPU entry for `n`.
    pub fn cpu(&self, n: u32) -> Option<&Cpu> {
        self.cpus.iter().find(|c| c.cpu == n)
    }

    /// The cluster a CPU belongs to.
    pub fn cluster_of(&self, n: u32) -> Option<&Cluster> {
        let c = self.cpu(n)?;
        self.clusters.get(c.cluster as usize)
    }
}

/// CPU numbers from `present` (falling back to `possible`, the `cpuN` directories, then
/// cpuinfo's processor numbers).
fn cpu_numbers(root: &SysRoot, from_cpuinfo: Vec<u32>) -> Vec<u32> {
    for f in ["present", "possible"] {
        if let Some(v) = root
            .value(format!("{CPU_DIR}/{f}"))
            .and_then(|s| list::parse_list(&s))
            .filter(|v| !v.is_empty())
        {
            return v;
        }
    }
    let dirs: Vec<u32> = root
        .list(CPU_DIR)
        .iter()
        .filter_map(|n| n.strip_prefix("cpu")?.parse().ok())
        .collect();
    if !dirs.is_empty() {
        return dirs;
    }
    if from_cpuinfo.is_empty() {
        vec![0]
    } else {
        from_cpuinfo
    }
}

/// Read policies and topology in one go.
pub fn read(root: &SysRoot) -> (Vec<Policy>, Topology) {
    let policies = cpufreq::read_policies(root);
    let topo = Topology::read(root, &policies);
    (policies, topo)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(n: u32, t: &str, policy: u32) -> Cpu {
        Cpu {
            cpu: n,
            online: true,
            core_type: Some(t.into()),
            policy: Some(policy),
            package_id: Some(0),
            ..Default::default()
        }
    }

    #[test]
    fn rk3588_three_clusters() {
        let mut v: Vec<Cpu> = (0..4).map(|n| cpu(n, "Cortex-A55", 0)).collect();
        v.extend((4..6).map(|n| cpu(n, "Cortex-A76", 4)));
        v.extend((6..8).map(|n| cpu(n, "Cortex-A76", 6)));
        let t = Topology::from_cpus(v);
        assert_eq!(t.clusters.len(), 3);
        assert_eq!(t.clusters[1].cpus, vec![4, 5]);
        assert_eq!(t.clusters[2].label(), "cpu6-cpu7 (Cortex-A76)");
        assert_eq!(t.cpus[7].cluster, 2);
        assert_eq!(t.cluster_of(5).map(|c| c.first_cpu()), Some(4));
    }
}
