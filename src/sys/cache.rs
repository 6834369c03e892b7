//! CPU caches per CPU, read from the kernel's cacheinfo
//! (`/sys/devices/system/cpu/cpuN/cache/indexM/{level,type,size}`). Only fixed, known paths
//! are read: `index0` … `index7` are probed by name (the kernel numbers them densely from
//! 0), never listed.
//!
//! Two users. The memory benchmarks size their buffers well beyond the last-level cache of
//! the CPU they run on ([`read_caches`], [`last_level_cache_bytes`]). The monitor layout
//! uses the sizes where nothing else tells CPU classes apart ([`signature`]): Intel hybrid processors give every
//! logical CPU its own `intel_pstate` policy and Linux names no core type, yet P-cores,
//! E-cores and the low-power E-cores of Meteor Lake have different caches (Core Ultra 9
//! 185H, corpus log `XRRi`: 48K/64K/2048K/24576K, 32K/64K/2048K/24576K and 32K/64K/2048K
//! without L3). sbc-bench splits unknown hybrid CPUs where this list of sizes changes.

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// Cache `indexN` directories read per CPU. Real CPUs have 3–5 (L1d, L1i, L2, L3,
/// sometimes a system cache); 8 leaves room without walking the directory.
pub const MAX_INDEX: u32 = 8;

/// One cache as sysfs describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheLevel {
    /// 1, 2, 3 …
    pub level: u32,
    /// `Data`, `Instruction` or `Unified`.
    pub kind: String,
    /// Size in bytes.
    pub size_bytes: u64,
}

/// The sizes of a CPU's caches in index order (`48K/64K/2048K/24576K`), as the kernel
/// prints them; `None` when the CPU has no cacheinfo (many Arm kernels, offline CPUs).
pub fn signature(root: &SysRoot, cpu: u32) -> Option<String> {
    let sizes: Vec<String> = (0..MAX_INDEX)
        .map_while(|i| root.value(size_path(cpu, i)))
        .map(|s| parse_size(&s))
        .collect::<Option<_>>()?;
    (!sizes.is_empty()).then(|| sizes.join("/"))
}

/// The sysfs directory of one cache of one CPU.
fn index_dir(cpu: u32, index: u32) -> String {
    format!("/sys/devices/system/cpu/cpu{cpu}/cache/index{index}")
}

/// The sysfs path of one cache's size.
pub fn size_path(cpu: u32, index: u32) -> String {
    format!("{}/size", index_dir(cpu, index))
}

/// A cacheinfo size in bytes. The kernel prints a number with an optional unit letter
/// (`48K`, `2048K`, `24576K`, some kernels `3M`, plain bytes); `None` for anything else
/// or a size that does not fit in 64 bits.
pub fn parse_cache_size(s: &str) -> Option<u64> {
    let t = s.trim();
    let (digits, mult) = match t.as_bytes().last()? {
        b'K' => (&t[..t.len() - 1], 1u64 << 10),
        b'M' => (&t[..t.len() - 1], 1 << 20),
        b'G' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

/// A cacheinfo size kept as written (`48K`), when [`parse_cache_size`] accepts it.
pub fn parse_size(s: &str) -> Option<String> {
    let t = s.trim();
    parse_cache_size(t).map(|_| t.to_string())
}

/// The caches of `cpu` (`cpuN/cache/indexM/{level,type,size}`), ordered by level. Empty
/// when the kernel exposes none (common on Arm boards whose device tree lacks cache nodes);
/// an index with a missing or garbled size or level is left out.
pub fn read_caches(root: &SysRoot, cpu: u32) -> Vec<CacheLevel> {
    let mut out = Vec::new();
    for i in 0..MAX_INDEX {
        let Some(size) = root
            .value(size_path(cpu, i))
            .and_then(|s| parse_cache_size(&s))
        else {
            continue;
        };
        let dir = index_dir(cpu, i);
        let Some(level) = root.parse::<u32>(format!("{dir}/level")) else {
            continue;
        };
        let kind = root
            .value(format!("{dir}/type"))
            .unwrap_or_else(|| "Unified".to_string());
        out.push(CacheLevel {
            level,
            kind,
            size_bytes: size,
        });
    }
    out.sort_by_key(|c| c.level);
    out
}

/// Size of the last-level data/unified cache in bytes, if any is known.
pub fn last_level_cache_bytes(caches: &[CacheLevel]) -> Option<u64> {
    caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .max_by_key(|c| (c.level, c.size_bytes))
        .map(|c| c.size_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_the_kernel_prints_them() {
        assert_eq!(parse_size("48K\n").as_deref(), Some("48K"));
        assert_eq!(parse_size("24576K").as_deref(), Some("24576K"));
        assert_eq!(parse_size("3M").as_deref(), Some("3M"));
        for bad in ["", "K", "garbage", "12KK", "-1K", "1.5M"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn signature_of_meteor_lake_cpus() {
        let d = tempfile::tempdir().unwrap();
        let w = |cpu: u32, sizes: &[&str]| {
            for (i, s) in sizes.iter().enumerate() {
                let p = d
                    .path()
                    .join(size_path(cpu, i as u32).trim_start_matches('/'));
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, format!("{s}\n")).unwrap();
            }
        };
        w(0, &["48K", "64K", "2048K", "24576K"]);
        w(20, &["32K", "64K", "2048K"]);
        w(3, &["32K", "rubbish"]);
        let r = SysRoot::new(d.path());
        assert_eq!(signature(&r, 0).as_deref(), Some("48K/64K/2048K/24576K"));
        assert_eq!(signature(&r, 20).as_deref(), Some("32K/64K/2048K"));
        assert_eq!(signature(&r, 3), None);
        assert_eq!(signature(&r, 7), None);
    }

    #[test]
    fn cache_sizes() {
        assert_eq!(parse_cache_size("32K\n"), Some(32 * 1024));
        assert_eq!(parse_cache_size("32768K"), Some(32 * 1024 * 1024));
        assert_eq!(parse_cache_size("8M"), Some(8 * 1024 * 1024));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size(""), None);
        assert_eq!(parse_cache_size("lots"), None);
        assert_eq!(parse_cache_size("99999999999999999999G"), None);
    }

    #[test]
    fn caches_from_a_fixture_tree() {
        let d = tempfile::tempdir().unwrap();
        // The 2-core EPYC VM: L1d 32K, L1i 32K, L2 1024K, L3 32768K; index5 is absent and
        // index2 of cpu1 holds garbage.
        let entries = [
            (0, "1", "Data", "32K"),
            (1, "1", "Instruction", "32K"),
            (2, "2", "Unified", "1024K"),
            (3, "3", "Unified", "32768K"),
        ];
        for (i, level, kind, size) in entries {
            let p = d
                .path()
                .join(format!("sys/devices/system/cpu/cpu0/cache/index{i}"));
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("level"), format!("{level}\n")).unwrap();
            std::fs::write(p.join("type"), format!("{kind}\n")).unwrap();
            std::fs::write(p.join("size"), format!("{size}\n")).unwrap();
        }
        let p = d.path().join("sys/devices/system/cpu/cpu1/cache/index2");
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("size"), "garbage\n").unwrap();
        std::fs::write(p.join("level"), "2\n").unwrap();
        let r = SysRoot::new(d.path());
        let c = read_caches(&r, 0);
        assert_eq!(c.len(), 4);
        assert_eq!(last_level_cache_bytes(&c), Some(32 * 1024 * 1024));
        assert!(read_caches(&r, 1).is_empty());
        assert!(read_caches(&r, 7).is_empty());
        assert_eq!(last_level_cache_bytes(&[]), None);
    }
}
