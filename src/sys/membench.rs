//! What the memory benchmarks need to know about the machine, read through [`SysRoot`],
//! beyond cache sizes ([`crate::sys::cache`]) and `MemAvailable`
//! ([`crate::sys::memory::available_bytes`]): the transparent huge page mode, and whether a
//! buffer really got huge pages.

use crate::sys::root::SysRoot;

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

/// Huge-page-backed bytes of our own mapping at `addr`. `/proc/self` is this process, so
/// only the live system answers; a fixture tree gives `None`.
pub fn anon_huge_bytes(root: &SysRoot, addr: usize) -> Option<u64> {
    if !root.is_host() {
        return None;
    }
    parse_smaps_anon_huge(&root.read_opt("/proc/self/smaps")?, addr as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

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
