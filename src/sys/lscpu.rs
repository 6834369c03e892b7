//! The facts of the `lscpu` summary sbc-bench puts after its CPU topology table, read
//! without util-linux: per CPU the identity `/proc/cpuinfo` gives (vendor, model name,
//! family, model, stepping, BogoMIPS, flags), the cpufreq limits the topology already has,
//! the vulnerability states (`sys::kernel::read_vulnerabilities`) and the caches of every
//! CPU (`sys::cache::read_caches`: `cpuN/cache/index0..7`, known paths only) for both the
//! `L1d cache:` lines and sbc-bench's per-CPU cache list.

use serde::Serialize;

use crate::sys::cache::{MAX_INDEX, parse_cache_size};
use crate::sys::cpu::Topology;
use crate::sys::cpu::cpuinfo::CpuInfo;
use crate::sys::kernel::{Vulnerability, read_vulnerabilities};
use crate::sys::root::SysRoot;

/// One CPU's identity as lscpu groups it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LscpuCpu {
    /// CPU number.
    pub cpu: u32,
    /// `Vendor ID:` (`GenuineIntel`, `ARM`).
    pub vendor: Option<String>,
    /// `Model name:` (x86 `model name`, Arm core type).
    pub model_name: Option<String>,
    /// `CPU family:` (x86).
    pub family: Option<String>,
    /// `Model:` (x86 `model`, Arm `CPU revision`).
    pub model: Option<String>,
    /// `Stepping:` (x86 `stepping`, Arm `rXpY`).
    pub stepping: Option<String>,
    /// `BogoMIPS:`.
    pub bogomips: Option<String>,
    /// `Flags:` (x86 `flags`, Arm `Features`, RISC-V `isa`).
    pub flags: Option<String>,
    /// `CPU max MHz:` (cpufreq).
    pub max_mhz: Option<u64>,
    /// `CPU min MHz:`.
    pub min_mhz: Option<u64>,
    /// The CPU's caches, in index order.
    pub caches: Vec<CacheIndex>,
    /// `address sizes` (x86: `48 bits physical, 48 bits virtual`).
    pub address_sizes: Option<String>,
    /// `topology/thread_siblings_list` (or `core_cpus_list`): the CPUs of its core.
    pub thread_siblings: Option<String>,
    /// `topology/core_siblings_list` (or `package_cpus_list`): the CPUs of its socket.
    pub package_cpus: Option<String>,
}

/// One NUMA node: `node/nodeN/cpulist`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NumaNode {
    /// N.
    pub node: u32,
    /// Its CPUs, as the kernel lists them (`0-3`).
    pub cpus: String,
}

/// One `cpuN/cache/indexM` directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CacheIndex {
    /// M.
    pub index: u32,
    /// `level`.
    pub level: u32,
    /// `type` (`Data`, `Instruction`, `Unified`).
    pub kind: String,
    /// `size` as the kernel prints it (`64K`).
    pub size: String,
    /// The same in bytes.
    pub size_bytes: u64,
    /// `shared_cpu_list` (`0-7`): CPUs with the same list share one cache.
    pub shared: Option<String>,
}

/// The cache directories of `cpu` (`index0` … `index7`, probed by name; a gap ends
/// nothing: the kernel numbers densely, but a missing size is skipped).
pub fn read_cache_indexes(root: &SysRoot, cpu: u32) -> Vec<CacheIndex> {
    (0..MAX_INDEX)
        .filter_map(|index| {
            let dir = format!("/sys/devices/system/cpu/cpu{cpu}/cache/index{index}");
            let size = root.value(format!("{dir}/size"))?;
            let size_bytes = parse_cache_size(&size)?;
            Some(CacheIndex {
                index,
                level: root.parse(format!("{dir}/level"))?,
                kind: root
                    .value(format!("{dir}/type"))
                    .unwrap_or_else(|| "Unified".to_string()),
                size,
                size_bytes,
                shared: root.value(format!("{dir}/shared_cpu_list")),
            })
        })
        .collect()
}

/// Everything the lscpu-style summary and the per-CPU cache list show.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Lscpu {
    /// `Architecture:` (`uname -m`).
    pub arch: Option<String>,
    /// Per CPU, in CPU order.
    pub cpus: Vec<LscpuCpu>,
    /// Online CPUs.
    pub online: Vec<u32>,
    /// `Vulnerability …:` lines.
    pub vulnerabilities: Vec<Vulnerability>,
    /// NUMA nodes (`/sys/devices/system/node/online`, then each node's `cpulist`); empty
    /// on kernels without NUMA, where lscpu prints no NUMA lines.
    pub numa_nodes: Vec<NumaNode>,
}

/// lscpu's vendor names for Arm implementer codes (it prints `ARM`, not `Arm`).
fn arm_vendor(code: &str) -> Option<String> {
    let n = u32::from_str_radix(code.trim().trim_start_matches("0x"), 16).ok()?;
    Some(match n {
        0x41 => "ARM".to_string(),
        _ => crate::sys::cpu::midr::implementer_name(n)?.to_string(),
    })
}

/// The identity of every CPU of a parsed cpuinfo, completed with the topology's core
/// type, stepping and cpufreq limits.
pub fn from_cpuinfo(info: &CpuInfo, topo: &Topology) -> Vec<LscpuCpu> {
    topo.cpus
        .iter()
        .map(|c| {
            let block = info
                .blocks
                .iter()
                .enumerate()
                .find(|(i, b)| b.processor.unwrap_or(*i as u32) == c.cpu)
                .map(|(_, b)| b);
            let get = |key: &str| -> Option<String> {
                let v = match block {
                    Some(b) => info.value_for(b, key),
                    None => info.global(key),
                }?;
                let v = v.trim();
                (!v.is_empty()).then(|| v.to_string())
            };
            let x86 = get("vendor_id").is_some();
            LscpuCpu {
                cpu: c.cpu,
                vendor: get("vendor_id")
                    .or_else(|| get("CPU implementer").and_then(|v| arm_vendor(&v))),
                model_name: if x86 {
                    get("model name")
                } else {
                    c.core_type.clone().or_else(|| get("model name"))
                },
                family: if x86 { get("cpu family") } else { None },
                model: if x86 {
                    get("model")
                } else {
                    get("CPU revision")
                },
                stepping: if x86 {
                    get("stepping")
                } else {
                    c.stepping.clone()
                },
                bogomips: get("bogomips").or_else(|| get("BogoMIPS")),
                flags: get("flags")
                    .or_else(|| get("Features"))
                    .or_else(|| get("isa")),
                max_mhz: c.max_mhz,
                min_mhz: c.min_mhz,
                caches: Vec::new(),
                address_sizes: get("address sizes"),
                thread_siblings: None,
                package_cpus: None,
            }
        })
        .collect()
}

/// The NUMA nodes the kernel lists online, each with its CPU list (nodes are read by the
/// numbers `node/online` names, never by walking the directory).
pub fn read_numa_nodes(root: &SysRoot) -> Vec<NumaNode> {
    let Some(online) = root
        .value("/sys/devices/system/node/online")
        .and_then(|v| crate::sys::cpu::list::parse_list(&v))
    else {
        return Vec::new();
    };
    online
        .into_iter()
        .take(1024)
        .filter_map(|node| {
            let cpus = root.value(format!("/sys/devices/system/node/node{node}/cpulist"))?;
            Some(NumaNode { node, cpus })
        })
        .collect()
}

/// Read the lscpu facts through `root` for the CPUs of `topo`.
pub fn read(root: &SysRoot, topo: &Topology, arch: Option<String>) -> Lscpu {
    let info = CpuInfo::parse(&root.read_opt("/proc/cpuinfo").unwrap_or_default());
    let mut cpus = from_cpuinfo(&info, topo);
    for c in &mut cpus {
        c.caches = read_cache_indexes(root, c.cpu);
        let topo_file = |a: &str, b: &str| {
            let dir = format!("/sys/devices/system/cpu/cpu{}/topology", c.cpu);
            root.value(format!("{dir}/{a}"))
                .or_else(|| root.value(format!("{dir}/{b}")))
        };
        c.thread_siblings = topo_file("thread_siblings_list", "core_cpus_list");
        c.package_cpus = topo_file("core_siblings_list", "package_cpus_list");
    }
    Lscpu {
        arch,
        cpus,
        online: topo.online(),
        vulnerabilities: read_vulnerabilities(root),
        numa_nodes: read_numa_nodes(root),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rock_5b_cpuinfo_gives_arm_identity() {
        let t = include_str!("../../tests/fixtures/sysroots/rock-5b/proc/cpuinfo");
        let info = CpuInfo::parse(t);
        let root = SysRoot::new("tests/fixtures/sysroots/rock-5b");
        let (_, topo) = crate::sys::cpu::read(&root);
        let cpus = from_cpuinfo(&info, &topo);
        assert_eq!(cpus.len(), 8);
        assert_eq!(cpus[0].vendor.as_deref(), Some("ARM"));
        assert_eq!(cpus[0].model_name.as_deref(), Some("Cortex-A55"));
        assert_eq!(cpus[0].stepping.as_deref(), Some("r2p0"));
        assert_eq!(cpus[0].model.as_deref(), Some("0"));
        assert_eq!(cpus[0].bogomips.as_deref(), Some("48.00"));
        assert!(cpus[0].flags.as_deref().unwrap().starts_with("fp asimd"));
        assert_eq!(cpus[4].model_name.as_deref(), Some("Cortex-A76"));
    }

    #[test]
    fn meteor_lake_cpuinfo_gives_x86_identity() {
        let root = SysRoot::new("tests/fixtures/sysroots/x86-hybrid-meteorlake");
        let (_, topo) = crate::sys::cpu::read(&root);
        let l = read(&root, &topo, Some("x86_64".into()));
        let c = &l.cpus[0];
        assert_eq!(c.vendor.as_deref(), Some("GenuineIntel"));
        assert!(c.model_name.as_deref().unwrap().contains("Ultra"));
        assert!(c.family.is_some());
        assert!(c.flags.as_deref().unwrap().contains("fpu"));
        assert!(!c.caches.is_empty());
    }

    #[test]
    fn empty_cpuinfo_gives_empty_identity_not_a_panic() {
        let info = CpuInfo::parse("");
        let topo = Topology::from_cpus(Vec::new());
        assert!(from_cpuinfo(&info, &topo).is_empty());
    }
}
