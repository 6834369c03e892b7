//! The facts of the `lscpu` summary sbc-bench puts after its CPU topology table, read
//! without util-linux: per CPU the identity `/proc/cpuinfo` gives (vendor, model name,
//! family, model, stepping, BogoMIPS, flags), each policy's limits and current clock in
//! kHz, `cpufreq/boost`, whether ACPI has a PPTT, the SMBIOS processors (`sys::dmi`), on a
//! live aarch64 system whether the kernel runs AArch32 programs, the vulnerability states
//! (`sys::kernel::read_vulnerabilities`) and the caches of every CPU
//! (`sys::cache::read_caches`: `cpuN/cache/index0..7`, known paths only) for both the
//! `L1d cache:` lines and sbc-bench's per-CPU cache list.

use serde::{Deserialize, Serialize};

use crate::sys::cache::{MAX_INDEX, parse_cache_size};
use crate::sys::cpu::Topology;
use crate::sys::cpu::cpuinfo::CpuInfo;
use crate::sys::cpufreq::policy_attr;
use crate::sys::kernel::{Vulnerability, read_vulnerabilities};
use crate::sys::root::SysRoot;

/// One CPU's identity as lscpu groups it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// `CPU max MHz:` in kHz (`cpuinfo_max_freq`, else `scaling_max_freq`).
    pub max_khz: Option<u64>,
    /// `CPU min MHz:` in kHz.
    pub min_khz: Option<u64>,
    /// `scaling_cur_freq` in kHz, for `CPU(s) scaling MHz:`; `None` offline.
    pub cur_khz: Option<u64>,
    /// The CPU's caches, in index order.
    #[serde(default)]
    pub caches: Vec<CacheIndex>,
    /// `address sizes` (x86: `48 bits physical, 48 bits virtual`).
    pub address_sizes: Option<String>,
    /// `topology/thread_siblings_list` (or `core_cpus_list`): the CPUs of its core.
    pub thread_siblings: Option<String>,
    /// `topology/core_siblings_list` (or `package_cpus_list`): the CPUs of its socket.
    pub package_cpus: Option<String>,
}

/// One NUMA node: `node/nodeN/cpulist`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumaNode {
    /// N.
    pub node: u32,
    /// Its CPUs, as the kernel lists them (`0-3`).
    pub cpus: String,
}

/// One `cpuN/cache/indexM` directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lscpu {
    /// `Architecture:` (`uname -m`).
    pub arch: Option<String>,
    /// Per CPU, in CPU order.
    #[serde(default)]
    pub cpus: Vec<LscpuCpu>,
    /// Online CPUs.
    #[serde(default)]
    pub online: Vec<u32>,
    /// `Vulnerability …:` lines.
    #[serde(default)]
    pub vulnerabilities: Vec<Vulnerability>,
    /// NUMA nodes (`/sys/devices/system/node/online`, then each node's `cpulist`); empty
    /// on kernels without NUMA, where lscpu prints no NUMA lines.
    #[serde(default)]
    pub numa_nodes: Vec<NumaNode>,
    /// `cpufreq/boost` (`Frequency boost:`), `None` without the file or with garbage in it.
    pub freq_boost: Option<bool>,
    /// `/sys/firmware/acpi/tables/PPTT` exists: ACPI describes the sockets, so lscpu keeps
    /// the socket form on aarch64.
    pub acpi_pptt: bool,
    /// aarch64 only, live system only: the kernel runs 32-bit programs (`CPU op-mode(s):
    /// 32-bit, 64-bit` rather than `64-bit`); `None` where that cannot be asked.
    pub aarch32: Option<bool>,
    /// SMBIOS processors (type 4): the first one's `BIOS …` lines, the count as `Socket(s):`
    /// of lscpu's cluster form. Empty without DMI or when not root.
    #[serde(default)]
    pub dmi_processors: Vec<crate::sys::dmi::Processor>,
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
                max_khz: None,
                min_khz: None,
                cur_khz: None,
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
        .and_then(|v| crate::sys::cpu_list::parse_list(&v))
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
        let t = topo.cpus.iter().find(|t| t.cpu == c.cpu);
        if let Some(p) = t.and_then(|t| t.policy) {
            let khz = |a: &str, b: &str| {
                root.parse::<u64>(policy_attr(p, a))
                    .or_else(|| root.parse::<u64>(policy_attr(p, b)))
                    .filter(|&k| k > 0)
            };
            c.max_khz = khz("cpuinfo_max_freq", "scaling_max_freq");
            c.min_khz = khz("cpuinfo_min_freq", "scaling_min_freq");
            // lscpu reads `cpuN/cpufreq`, which an offline CPU does not have.
            if t.is_some_and(|t| t.online) {
                c.cur_khz = root
                    .parse::<u64>(policy_attr(p, "scaling_cur_freq"))
                    .filter(|&k| k > 0);
            }
        }
    }
    Lscpu {
        cpus,
        online: topo.online(),
        vulnerabilities: read_vulnerabilities(root),
        numa_nodes: read_numa_nodes(root),
        freq_boost: root
            .parse::<i64>("/sys/devices/system/cpu/cpufreq/boost")
            .map(|b| b != 0),
        aarch32: if arch.as_deref() == Some("aarch64") && root.is_host() {
            aarch32_supported()
        } else {
            None
        },
        acpi_pptt: root.exists("/sys/firmware/acpi/tables/PPTT"),
        dmi_processors: crate::sys::dmi::read_processors(root),
        arch,
    }
}

/// Whether this aarch64 kernel runs AArch32 programs, asked as util-linux asks it: by
/// switching this thread's execution domain to `PER_LINUX32` (0x0008) and back, which
/// fails on cores without AArch32 (Cortex-A520, A720…).
#[cfg(target_arch = "aarch64")]
fn aarch32_supported() -> Option<bool> {
    const PER_LINUX32: libc::c_ulong = 0x0008;
    // SAFETY: personality() only sets the calling thread's execution domain, which is
    // restored right away; no memory is involved.
    let previous = unsafe { libc::personality(PER_LINUX32) };
    if previous == -1 {
        return Some(false);
    }
    // SAFETY: as above, back to the domain it had.
    unsafe { libc::personality(previous as libc::c_ulong) };
    Some(true)
}

/// A 32-bit Arm build reading an aarch64 kernel is itself the proof.
#[cfg(target_arch = "arm")]
fn aarch32_supported() -> Option<bool> {
    Some(true)
}

/// Other builds cannot ask an aarch64 kernel.
#[cfg(not(any(target_arch = "aarch64", target_arch = "arm")))]
fn aarch32_supported() -> Option<bool> {
    None
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

    /// The lscpu facts beyond cpuinfo, read through a sysroot: kHz limits and the
    /// current clock of each online CPU's policy, `cpufreq/boost`, ACPI's PPTT and the
    /// SMBIOS processors; garbage in the boost file is no boost line, not a guess.
    #[test]
    fn cpufreq_boost_pptt_and_dmi_processors_are_read_through_the_root() {
        let d = tempfile::tempdir().unwrap();
        let w = |p: &str, v: &[u8]| {
            let f = d.path().join(p.trim_start_matches('/'));
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, v).unwrap();
        };
        w("/proc/cpuinfo", b"processor\t: 0\nBogoMIPS\t: 48.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\nCPU variant\t: 0x2\nCPU revision\t: 0\n\nprocessor\t: 1\nBogoMIPS\t: 48.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\nCPU variant\t: 0x2\nCPU revision\t: 0\n");
        w("/sys/devices/system/cpu/present", b"0-1\n");
        w("/sys/devices/system/cpu/online", b"0\n");
        for cpu in 0..2 {
            w(
                &format!("/sys/devices/system/cpu/cpu{cpu}/topology/core_siblings_list"),
                b"0-1\n",
            );
        }
        let p = "/sys/devices/system/cpu/cpufreq/policy0";
        w(&format!("{p}/related_cpus"), b"0 1\n");
        w(&format!("{p}/affected_cpus"), b"0\n");
        w(&format!("{p}/cpuinfo_max_freq"), b"1992000\n");
        w(&format!("{p}/cpuinfo_min_freq"), b"408000\n");
        w(&format!("{p}/scaling_cur_freq"), b"1416000\n");
        w("/sys/devices/system/cpu/cpufreq/boost", b"0\n");
        w("/sys/firmware/acpi/tables/PPTT", b"PPTT");
        w(
            "/sys/firmware/dmi/entries/4-0/raw",
            &crate::sys::dmi::tests::cix_p1_processor(),
        );
        let root = SysRoot::new(d.path());
        let (_, topo) = crate::sys::cpu::read(&root);
        let l = read(&root, &topo, Some("aarch64".into()));
        assert_eq!(l.cpus.len(), 2);
        assert_eq!(l.cpus[0].max_khz, Some(1_992_000));
        assert_eq!(l.cpus[0].min_khz, Some(408_000));
        assert_eq!(l.cpus[0].cur_khz, Some(1_416_000));
        // CPU 1 is offline: lscpu finds no `cpu1/cpufreq` to read a current clock from.
        assert_eq!(l.cpus[1].cur_khz, None);
        assert_eq!(l.freq_boost, Some(false));
        assert!(l.acpi_pptt);
        assert_eq!(l.dmi_processors.len(), 1);
        // A sysroot is not this process's kernel: AArch32 is not asked.
        assert_eq!(l.aarch32, None);
        w("/sys/devices/system/cpu/cpufreq/boost", b"\xff garbage");
        std::fs::remove_file(d.path().join("sys/firmware/acpi/tables/PPTT")).unwrap();
        let l = read(&root, &topo, Some("aarch64".into()));
        assert_eq!(l.freq_boost, None);
        assert!(!l.acpi_pptt);
    }

    #[test]
    fn empty_cpuinfo_gives_empty_identity_not_a_panic() {
        let info = CpuInfo::parse("");
        let topo = Topology::from_cpus(Vec::new());
        assert!(from_cpuinfo(&info, &topo).is_empty());
    }
}
