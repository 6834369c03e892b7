//! CPUs: which exist, which are online, what core type each is, which cpufreq policy and
//! package it belongs to, and the clusters derived from that.

pub mod cpuinfo;
pub mod ident;
pub mod midr;
pub mod riscv;
pub mod x86;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::sys::cache;
use crate::sys::cpufreq::{self, Policy};
use crate::sys::root::SysRoot;

/// sysfs directory of the CPU devices.
pub const CPU_DIR: &str = "/sys/devices/system/cpu";
/// `/proc/cpuinfo` (`CPUINFOFILE` stands in for it: `SysRoot::with_cpuinfo`).
pub const CPUINFO: &str = "/proc/cpuinfo";

/// `/sys/devices/system/cpu/cpuN/online`: a CPU taken offline and back (`wrap --per-core`).
pub fn online_path(cpu: u32) -> String {
    format!("{CPU_DIR}/cpu{cpu}/online")
}

/// One logical CPU.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cluster {
    /// Index as in [`Cpu::cluster`].
    pub id: u32,
    /// Member CPUs, ascending.
    #[serde(default)]
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
        let range = crate::sys::cpu_list::format_cpu_range(&self.cpus);
        match &self.core_type {
            Some(t) => format!("{range} ({t})"),
            None => range,
        }
    }
}

/// All CPUs and the clusters they form.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Topology {
    /// Every CPU the kernel knows of (`possible`/`present`), ascending.
    #[serde(default)]
    pub cpus: Vec<Cpu>,
    /// Clusters of the CPUs, in order of their first CPU.
    #[serde(default)]
    pub clusters: Vec<Cluster>,
    /// cpuinfo printed one identity block for all CPUs (old and vendor kernels): it
    /// describes whichever CPU read the file, so on big.LITTLE SoCs the other cluster's
    /// core type is wrong or missing. Worth a note next to the table.
    pub shared_identity: bool,
    /// What the CPU list could not take at face value (an absurd `present` range capped
    /// to the CPUs with sysfs directories), one sentence each; empty when nothing.
    #[serde(default)]
    pub topology_notes: Vec<String>,
}

impl Topology {
    /// Read the topology from sysfs and cpuinfo, with the cpufreq policies already read.
    ///
    /// - CPU numbers come from `present` (else the `cpuN` directories, `possible`), joined
    ///   with the CPUs cpuinfo lists; offline and hot-plugged CPUs are kept, marked offline.
    /// - arm64 kernels leave offline CPUs out of cpuinfo: such a CPU takes the core type of
    ///   an online CPU of the same cpufreq policy (a policy never mixes core types), else
    ///   stays unknown rather than borrowing a neighbour's identity.
    /// - Hybrid x86 CPUs are labelled P-core/E-core from `/sys/devices/cpu_core/cpus` and
    ///   `/sys/devices/cpu_atom/cpus`.
    /// - `CPUINFOFILE` (sbc-bench's simulation of another board) overrides only
    ///   `/proc/cpuinfo`: the CPU numbers, cpufreq policies and package ids still come from
    ///   this root's sysfs, as sbc-bench takes its CPU count from the live `lscpu`; the
    ///   file only names the core types (an empty or garbage file gives `n/a` rows).
    pub fn read(root: &SysRoot, policies: &[Policy]) -> Self {
        let text = root.read_opt("/proc/cpuinfo").unwrap_or_default();
        let info = cpuinfo::CpuInfo::parse(&text);
        let identity = ident::decode(&info);
        let listed: Vec<u32> = identity.cpus.keys().copied().collect();
        let (numbers, notes) = cpu_numbers(root, &listed, root.cpuinfo_overridden());
        let online = root
            .value(format!("{CPU_DIR}/online"))
            .and_then(|s| crate::sys::cpu_list::parse_list(&s));
        let hybrid = if identity.arch == Some(ident::CpuArch::X86) {
            Hybrid::read(root)
        } else {
            Hybrid::default()
        };
        let cpus = numbers
            .into_iter()
            .map(|n| {
                let policy = policies.iter().find(|p| p.cpus.contains(&n));
                let mut id = identity
                    .cpus
                    .get(&n)
                    .cloned()
                    .or_else(|| {
                        // Offline CPU missing from cpuinfo: same policy, same core type.
                        let p = policy?;
                        p.cpus.iter().find_map(|m| identity.cpus.get(m).cloned())
                    })
                    .unwrap_or_default();
                if let Some(kind) = hybrid.kind(n) {
                    id.core_type = Some(x86::hybrid_core_type(
                        id.x86.as_ref(),
                        id.core_type.as_deref(),
                        kind,
                    ));
                }
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
            .collect::<Vec<Cpu>>();
        let caches = if has_per_cpu_policies(&cpus) {
            cpus.iter()
                .filter_map(|c| Some((c.cpu, cache::signature(root, c.cpu)?)))
                .collect()
        } else {
            BTreeMap::new()
        };
        let mut t = Self::from_cpus_and_caches(cpus, &caches);
        t.shared_identity = info.shared_identity;
        t.topology_notes = notes;
        t
    }

    /// Derive clusters from CPUs: a CPU joins an existing cluster when core type, policy
    /// and package all match. When every policy holds a single CPU (intel_pstate,
    /// amd-pstate, acpi-cpufreq, Krait-era Qualcomm kernels) the policy says nothing about
    /// shared clocks and is left out, so such machines get one cluster per core type.
    pub fn from_cpus(cpus: Vec<Cpu>) -> Self {
        Self::from_cpus_and_caches(cpus, &BTreeMap::new())
    }

    /// [`Topology::from_cpus`], where every CPU has its own policy also split by the
    /// CPUs' cache sizes ([`cache::signature`], CPU number → signature): Linux names one
    /// core type for the E-cores and the low-power E-cores of Meteor Lake, but the LP
    /// E-cores (Core Ultra 9 185H cpu20-21, corpus log `XRRi`) have no L3 and a lower
    /// clock, and sbc-bench and our monitor treat them as a cluster of their own.
    pub fn from_cpus_and_caches(mut cpus: Vec<Cpu>, caches: &BTreeMap<u32, String>) -> Self {
        cpus.sort_by_key(|c| c.cpu);
        let per_cpu_policies = has_per_cpu_policies(&cpus);
        let mut clusters: Vec<Cluster> = Vec::new();
        type Key = (Option<String>, Option<u32>, Option<i64>, Option<String>);
        let mut keys: Vec<Key> = Vec::new();
        for c in &mut cpus {
            let (policy, caches) = if per_cpu_policies {
                (None, caches.get(&c.cpu).cloned())
            } else {
                (c.policy, None)
            };
            let key = (c.core_type.clone(), policy, c.package_id, caches);
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
        Self {
            cpus,
            clusters,
            shared_identity: false,
            topology_notes: Vec::new(),
        }
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

/// Every policy holds a single CPU (intel_pstate, amd-pstate, acpi-cpufreq): the policy
/// says nothing about which CPUs share a clock.
fn has_per_cpu_policies(cpus: &[Cpu]) -> bool {
    cpus.len() > 1
        && cpus.iter().all(|c| {
            c.policy
                .is_none_or(|p| cpus.iter().filter(|o| o.policy == Some(p)).count() == 1)
        })
}

/// A CPU list longer than this without `cpuN` directories to check it against is not
/// believed (no kernel has more CPUs than `NR_CPUS`, at most 8192, and machines with
/// thousands of CPUs have their sysfs directories).
const MAX_UNCHECKED_CPUS: usize = 1024;

/// CPU numbers from `present` (falling back to the `cpuN` directories, then `possible`),
/// joined with the CPUs cpuinfo lists — unless cpuinfo is the user's `CPUINFOFILE`, whose
/// CPUs need not be this machine's: then sysfs alone decides, and the file's list is used
/// only when sysfs lists nothing. `possible` comes last because it often overstates (VMs
/// and some boards report 0-63 or more).
///
/// The kernel registers a `cpuN` directory for every present CPU, so a list naming CPUs
/// without one is capped to those that have one (with a note); without any directory to
/// check against, a list of more than [`MAX_UNCHECKED_CPUS`] is dropped (with a note).
fn cpu_numbers(
    root: &SysRoot,
    from_cpuinfo: &[u32],
    cpuinfo_overridden: bool,
) -> (Vec<u32>, Vec<String>) {
    let mut notes = Vec::new();
    let dirs: Vec<u32> = root
        .list(CPU_DIR)
        .iter()
        .filter_map(|n| n.strip_prefix("cpu")?.parse().ok())
        .collect();
    let mut list_file = |f: &str| -> Option<Vec<u32>> {
        let v = root
            .value(format!("{CPU_DIR}/{f}"))
            .and_then(|s| crate::sys::cpu_list::parse_list(&s))
            .filter(|v| !v.is_empty())?;
        if !dirs.is_empty() && v.iter().any(|n| !dirs.contains(n)) {
            let kept: Vec<u32> = v.iter().copied().filter(|n| dirs.contains(n)).collect();
            notes.push(format!(
                "{CPU_DIR}/{f} lists {} CPUs but only {} have a cpuN directory: showing those",
                v.len(),
                kept.len()
            ));
            return (!kept.is_empty()).then_some(kept);
        }
        if dirs.is_empty() && v.len() > MAX_UNCHECKED_CPUS {
            notes.push(format!(
                "{CPU_DIR}/{f} lists {} CPUs and no cpuN directory confirms them: ignored",
                v.len()
            ));
            return None;
        }
        Some(v)
    };
    let sysfs = list_file("present")
        .or_else(|| (!dirs.is_empty()).then(|| dirs.clone()))
        .or_else(|| list_file("possible"))
        .unwrap_or_default();
    let mut v = sysfs;
    if !cpuinfo_overridden || v.is_empty() {
        v.extend_from_slice(from_cpuinfo);
    }
    v.sort_unstable();
    v.dedup();
    if v.is_empty() {
        v.push(0);
    }
    (v, notes)
}

/// The P-core and E-core CPUs of a hybrid x86 CPU, from the kernel's hybrid PMUs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Hybrid {
    performance: Vec<u32>,
    efficiency: Vec<u32>,
}

impl Hybrid {
    fn read(root: &SysRoot) -> Self {
        let read = |p: &str| {
            root.value(p)
                .and_then(|s| crate::sys::cpu_list::parse_list(&s))
                .unwrap_or_default()
        };
        Self {
            performance: read(HYBRID_P_CPUS),
            efficiency: read(HYBRID_E_CPUS),
        }
    }

    fn kind(&self, cpu: u32) -> Option<x86::HybridKind> {
        if self.performance.contains(&cpu) {
            Some(x86::HybridKind::Performance)
        } else if self.efficiency.contains(&cpu) {
            Some(x86::HybridKind::Efficiency)
        } else {
            None
        }
    }
}

/// CPUs of the P-core PMU of a hybrid Intel CPU (kernel 5.16+).
pub const HYBRID_P_CPUS: &str = "/sys/devices/cpu_core/cpus";
/// CPUs of the E-core PMU of a hybrid Intel CPU.
pub const HYBRID_E_CPUS: &str = "/sys/devices/cpu_atom/cpus";

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

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (p, content) in files {
            let path = d.path().join(p.trim_start_matches('/'));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        d
    }

    fn policy(id: u32, cpus: &[u32], max_khz: u64) -> Policy {
        Policy {
            id,
            cpus: cpus.to_vec(),
            cpuinfo_min_khz: Some(408_000),
            cpuinfo_max_khz: Some(max_khz),
            ..Default::default()
        }
    }

    const A55: &str =
        "CPU implementer\t: 0x41\nCPU variant\t: 0x2\nCPU part\t: 0xd05\nCPU revision\t: 0\n\n";
    const A76: &str =
        "CPU implementer\t: 0x41\nCPU variant\t: 0x4\nCPU part\t: 0xd0b\nCPU revision\t: 0\n\n";

    /// RK3588 with cpu5-cpu7 offline: arm64 leaves them out of cpuinfo. cpu5 shares
    /// policy4 with online cpu4 and so is a Cortex-A76 too; cpu6/cpu7 have no online CPU in
    /// their policy and stay unknown instead of borrowing a neighbour's identity.
    #[test]
    fn offline_cpus_missing_from_cpuinfo() {
        let mut ci = String::new();
        for n in 0..4 {
            ci.push_str(&format!("processor\t: {n}\n{A55}"));
        }
        ci.push_str(&format!("processor\t: 4\n{A76}"));
        let d = tree(&[
            ("/proc/cpuinfo", &ci),
            ("/sys/devices/system/cpu/present", "0-7\n"),
            ("/sys/devices/system/cpu/online", "0-4\n"),
        ]);
        let root = SysRoot::new(d.path());
        let pols = [
            policy(0, &[0, 1, 2, 3], 1_800_000),
            policy(4, &[4, 5], 2_400_000),
            policy(6, &[6, 7], 2_400_000),
        ];
        let t = Topology::read(&root, &pols);
        assert_eq!(t.cpus.len(), 8);
        assert_eq!(t.online(), vec![0, 1, 2, 3, 4]);
        assert_eq!(t.cpus[5].core_type.as_deref(), Some("Cortex-A76"));
        assert!(!t.cpus[5].online);
        assert_eq!(t.cpus[6].core_type, None);
        assert_eq!(t.clusters.len(), 3);
        assert_eq!(t.clusters[1].cpus, vec![4, 5]);
    }

    /// Alder Lake i7-1260P: 4 P-cores with SMT (CPUs 0-7) and 8 E-cores (8-15), one
    /// intel_pstate policy per CPU.
    #[test]
    fn hybrid_x86_splits_p_and_e() {
        let mut ci = String::new();
        for n in 0..16 {
            ci.push_str(&format!("processor\t: {n}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 154\nmodel name\t: 12th Gen Intel(R) Core(TM) i7-1260P\nstepping\t: 3\nflags\t\t: fpu\n\n"));
        }
        let d = tree(&[
            ("/proc/cpuinfo", &ci),
            ("/sys/devices/system/cpu/present", "0-15\n"),
            ("/sys/devices/system/cpu/online", "0-15\n"),
            ("/sys/devices/cpu_core/cpus", "0-7\n"),
            ("/sys/devices/cpu_atom/cpus", "8-15\n"),
        ]);
        let pols: Vec<Policy> = (0..16)
            .map(|n| policy(n, &[n], if n < 8 { 4_700_000 } else { 3_400_000 }))
            .collect();
        let t = Topology::read(&SysRoot::new(d.path()), &pols);
        assert_eq!(t.cpus[0].core_type.as_deref(), Some("Golden Cove (P-core)"));
        assert_eq!(t.cpus[15].core_type.as_deref(), Some("Gracemont (E-core)"));
        assert_eq!(t.clusters.len(), 2);
        assert_eq!(t.clusters[1].cpus, (8..16).collect::<Vec<_>>());
    }

    /// Core Ultra 9 185H (corpus log `XRRi`): Linux calls cpu12-21 all Crestmont E-cores
    /// with one policy each, but cpu20-21 are the low-power E-cores without L3. They were
    /// folded into the E-core cluster and never benchmarked; sbc-bench and our monitor
    /// see three clusters.
    #[test]
    fn meteor_lake_lp_e_cores_are_a_cluster_of_their_own() {
        let root = SysRoot::new(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/sysroots/x86-hybrid-meteorlake"),
        );
        let (_, t) = read(&root);
        let cpus: Vec<Vec<u32>> = t.clusters.iter().map(|c| c.cpus.clone()).collect();
        assert_eq!(
            cpus,
            [
                (0..12).collect::<Vec<_>>(),
                (12..20).collect(),
                vec![20, 21]
            ]
        );
        assert_eq!(t.cpus[21].cluster, 2);
        // Same sizes on every CPU with per-CPU policies: still one cluster per core type.
        let v: Vec<Cpu> = (0..4).map(|n| cpu(n, "Zen 4", n)).collect();
        let same: BTreeMap<u32, String> = (0..4).map(|n| (n, "32K/32K/1024K".into())).collect();
        assert_eq!(Topology::from_cpus_and_caches(v, &same).clusters.len(), 1);
    }

    /// `CPUINFOFILE` of another board overrides only `/proc/cpuinfo`: the CPUs, policies
    /// and package ids are this root's (2 CPUs, as on this VM), the core types the file's.
    #[test]
    fn cpuinfofile_overrides_only_cpuinfo() {
        let d = tree(&[
            (
                "board.cpuinfo",
                &format!("processor\t: 0\n{A55}processor\t: 1\n{A55}processor\t: 2\n{A76}"),
            ),
            ("/sys/devices/system/cpu/present", "0-1\n"),
            (
                "/sys/devices/system/cpu/cpu0/topology/physical_package_id",
                "0\n",
            ),
            (
                "/sys/devices/system/cpu/cpu1/topology/physical_package_id",
                "0\n",
            ),
        ]);
        let root = SysRoot::new(d.path()).with_cpuinfo_file(d.path().join("board.cpuinfo"));
        let t = Topology::read(&root, &[policy(0, &[0, 1], 1_800_000)]);
        assert_eq!(t.cpus.len(), 2);
        assert_eq!(t.cpus[1].core_type.as_deref(), Some("Cortex-A55"));
        assert_eq!(t.cpus[1].policy, Some(0));
        assert_eq!(t.cpus[1].package_id, Some(0));
        assert_eq!(t.cpus[1].max_mhz, Some(1800));
        // Empty or garbage file: this root's CPUs, core type unknown (`n/a` rows).
        for garbage in ["", "\u{1}\u{2}garbage\r\n:::\n"] {
            std::fs::write(d.path().join("board.cpuinfo"), garbage).unwrap();
            let t = Topology::read(&root, &[]);
            assert_eq!(t.online(), vec![0, 1], "{garbage:?}");
            assert!(t.cpus.iter().all(|c| c.core_type.is_none()), "{garbage:?}");
        }
    }

    /// An absurd `present` (0-65535 on an 8-CPU board) is capped to the CPUs that have a
    /// `cpuN` directory, with a note; without directories a huge list is not believed.
    #[test]
    fn absurd_present_is_capped() {
        let mut files: Vec<(String, String)> = (0..8)
            .map(|n| {
                (
                    format!("/sys/devices/system/cpu/cpu{n}/online"),
                    "1\n".to_string(),
                )
            })
            .collect();
        files.push(("/sys/devices/system/cpu/present".into(), "0-65535\n".into()));
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let d = tree(&refs);
        let t = Topology::read(&SysRoot::new(d.path()), &[]);
        assert_eq!(t.cpus.len(), 8);
        assert_eq!(t.topology_notes.len(), 1);
        assert!(
            t.topology_notes[0].contains("lists 8192 CPUs but only 8"),
            "{:?}",
            t.topology_notes
        );

        let d = tree(&[("/sys/devices/system/cpu/possible", "0-4095\n")]);
        let t = Topology::read(&SysRoot::new(d.path()), &[]);
        assert_eq!(t.cpus.len(), 1);
        assert!(
            t.topology_notes[0].contains("no cpuN directory"),
            "{:?}",
            t.topology_notes
        );
    }

    /// No cpuinfo, no sysfs: one CPU of unknown type, no panic.
    #[test]
    fn empty_root_degrades() {
        let d = tempfile::tempdir().unwrap();
        let t = Topology::read(&SysRoot::new(d.path()), &[]);
        assert_eq!(t.cpus.len(), 1);
        assert_eq!(t.cpus[0].core_type, None);
        assert_eq!(t.clusters.len(), 1);
    }
}
