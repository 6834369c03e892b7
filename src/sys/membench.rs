//! What the memory benchmarks need to know about the machine, read through [`SysRoot`]:
//! the cache sizes of the CPU a benchmark runs on (to size buffers well beyond the last-level
//! cache), `MemAvailable` (so a 512 MiB board is never pushed into swap or the OOM killer),
//! the transparent huge page mode, and whether a buffer really got huge pages.
//!
//! Only fixed, known paths are read: `cpuN/cache/index0` … `index7` are probed by name (the
//! kernel numbers them densely from 0), never listed.

use serde::Serialize;

use crate::sys::root::SysRoot;

/// How many `cache/indexN` directories we probe. Real CPUs have 3–5 (L1d, L1i, L2, L3,
/// sometimes a system cache); 8 leaves room without walking the directory.
const MAX_CACHE_INDEX: u32 = 8;

/// One cache as sysfs describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CacheLevel {
    /// 1, 2, 3 …
    pub level: u32,
    /// `Data`, `Instruction` or `Unified`.
    pub kind: String,
    /// Size in bytes.
    pub size_bytes: u64,
}

/// Parse a sysfs cache size (`32K`, `1024K`, `8M`, plain bytes). `None` for garbage.
pub fn parse_cache_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.chars().last()? {
        'K' | 'k' => (&s[..s.len() - 1], 1024),
        'M' | 'm' => (&s[..s.len() - 1], 1024 * 1024),
        'G' | 'g' => (&s[..s.len() - 1], 1024 * 1024 * 1024),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mult)
}

/// The caches of `cpu` (`/sys/devices/system/cpu/cpuN/cache/indexM/{level,type,size}`),
/// ordered by level. Empty when the kernel exposes none (common on Arm boards whose
/// device tree lacks cache nodes).
pub fn read_caches(root: &SysRoot, cpu: u32) -> Vec<CacheLevel> {
    let mut out = Vec::new();
    for i in 0..MAX_CACHE_INDEX {
        let dir = format!("/sys/devices/system/cpu/cpu{cpu}/cache/index{i}");
        let Some(size) = root
            .value(format!("{dir}/size"))
            .and_then(|s| parse_cache_size(&s))
        else {
            continue;
        };
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

/// `MemAvailable` from a `/proc/meminfo` text, in bytes. Kernels before 3.14 lack the line;
/// then `MemFree + Cached` is the usual estimate.
pub fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let field = |name: &str| -> Option<u64> {
        meminfo.lines().find_map(|l| {
            let rest = l.strip_prefix(name)?.strip_prefix(':')?;
            let kb: u64 = rest.split_whitespace().next()?.parse().ok()?;
            kb.checked_mul(1024)
        })
    };
    field("MemAvailable").or_else(|| Some(field("MemFree")? + field("Cached").unwrap_or(0)))
}

/// Memory available for new allocations without swapping, in bytes.
pub fn mem_available(root: &SysRoot) -> Option<u64> {
    parse_mem_available(&root.read_opt("/proc/meminfo")?)
}

/// Transparent huge page mode: the bracketed word of
/// `/sys/kernel/mm/transparent_hugepage/enabled` (`always [madvise] never` → `madvise`).
pub fn parse_thp_mode(s: &str) -> Option<String> {
    let start = s.find('[')?;
    let end = s[start..].find(']')? + start;
    let mode = s[start + 1..end].trim();
    (!mode.is_empty()).then(|| mode.to_string())
}

/// The THP mode, `None` when the kernel has no THP support.
pub fn thp_mode(root: &SysRoot) -> Option<String> {
    parse_thp_mode(&root.read_opt("/sys/kernel/mm/transparent_hugepage/enabled")?)
}

/// Whether `madvise(MADV_HUGEPAGE)` can give huge pages under this THP mode.
pub fn thp_usable(mode: Option<&str>) -> bool {
    matches!(mode, Some("always") | Some("madvise"))
}

/// Bytes of the mapping that contains `addr` that are backed by transparent huge pages,
/// from a `/proc/self/smaps` text (`AnonHugePages:` of the block whose range holds `addr`).
pub fn parse_smaps_anon_huge(smaps: &str, addr: u64) -> Option<u64> {
    let mut inside = false;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((a, b)) = first.split_once('-') {
            if let (Ok(a), Ok(b)) = (u64::from_str_radix(a, 16), u64::from_str_radix(b, 16)) {
                inside = a <= addr && addr < b;
                continue;
            }
        }
        if inside {
            if let Some(rest) = line.strip_prefix("AnonHugePages:") {
                let kb: u64 = rest.split_whitespace().next()?.parse().ok()?;
                return kb.checked_mul(1024);
            }
        }
    }
    None
}

/// Huge-page-backed bytes of our own mapping at `addr` (only meaningful on the live system).
pub fn anon_huge_bytes(root: &SysRoot, addr: usize) -> Option<u64> {
    parse_smaps_anon_huge(&root.read_opt("/proc/self/smaps")?, addr as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// First lines of `/proc/meminfo` on the 2-core x86 VM this project is built on.
    const MEMINFO: &str = "MemTotal:       24684096 kB\nMemFree:        16427100 kB\nMemAvailable:   24119616 kB\nBuffers:           49976 kB\nCached:          7656920 kB\n";

    /// An old (3.10) kernel without MemAvailable.
    const MEMINFO_OLD: &str = "MemTotal:        1025220 kB\nMemFree:          712032 kB\nBuffers:           11044 kB\nCached:           150248 kB\n";

    #[test]
    fn mem_available_and_old_kernel_fallback() {
        assert_eq!(parse_mem_available(MEMINFO), Some(24_119_616 * 1024));
        assert_eq!(
            parse_mem_available(MEMINFO_OLD),
            Some((712_032 + 150_248) * 1024)
        );
        assert_eq!(parse_mem_available("garbage\n"), None);
        assert_eq!(parse_mem_available(""), None);
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

    #[test]
    fn thp_modes() {
        assert_eq!(
            parse_thp_mode("always [madvise] never\n").as_deref(),
            Some("madvise")
        );
        assert_eq!(
            parse_thp_mode("[always] madvise never").as_deref(),
            Some("always")
        );
        assert_eq!(parse_thp_mode("always madvise never"), None);
        assert_eq!(parse_thp_mode("[]"), None);
        assert!(thp_usable(Some("madvise")));
        assert!(!thp_usable(Some("never")));
        assert!(!thp_usable(None));
    }

    /// Two blocks of `/proc/self/smaps` captured on the x86 VM (THP `madvise`) from a test
    /// process holding a 128 MiB buffer after `madvise(MADV_HUGEPAGE)` (the advised range
    /// became its own mapping); some lines left out.
    const SMAPS: &str = "\
55ce7f57b000-55ce7f59c000 rw-p 00000000 00:00 0                          [heap]
Size:                132 kB
Rss:                  64 kB
Anonymous:            64 kB
AnonHugePages:         0 kB
THPeligible:           0
VmFlags: rd wr mr mw me ac 
7fd763e00000-7fd76be00000 rw-p 00000000 00:00 0 
Size:             131072 kB
KernelPageSize:        4 kB
MMUPageSize:           4 kB
Rss:              131072 kB
Anonymous:        131072 kB
AnonHugePages:    131072 kB
ShmemPmdMapped:        0 kB
THPeligible:           1
VmFlags: rd wr mr mw me ac hg 
";

    #[test]
    fn smaps_huge_pages_of_a_mapping() {
        assert_eq!(
            parse_smaps_anon_huge(SMAPS, 0x7fd7_63e0_0000),
            Some(128 * 1024 * 1024)
        );
        assert_eq!(
            parse_smaps_anon_huge(SMAPS, 0x7fd7_6be0_0000),
            None,
            "end is exclusive"
        );
        assert_eq!(parse_smaps_anon_huge(SMAPS, 0x55ce_7f57_b010), Some(0));
        assert_eq!(parse_smaps_anon_huge(SMAPS, 0x1000), None);
        assert_eq!(parse_smaps_anon_huge("", 0x1000), None);
    }
}
