//! What sbc-bench's `free -h` and `swapon -s` show at the start and end of its log, read
//! without procps or util-linux: the `/proc/meminfo` fields `free` adds up, and the text
//! of `/proc/swaps` (which `swapon -s` prints).

use serde::{Deserialize, Serialize};

use crate::sys::memory::parse_kib;
use crate::sys::root::SysRoot;

/// The `/proc/meminfo` fields behind `free`'s table, in KiB (missing ones are 0, as
/// procps counts them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreeTable {
    /// MemTotal.
    pub total_kib: u64,
    /// MemFree.
    pub free_kib: u64,
    /// MemAvailable (MemFree on kernels before 3.14, as procps falls back).
    pub available_kib: u64,
    /// Shmem.
    pub shared_kib: u64,
    /// Buffers + Cached + SReclaimable (procps' buff/cache).
    pub buff_cache_kib: u64,
    /// SwapTotal.
    pub swap_total_kib: u64,
    /// SwapFree.
    pub swap_free_kib: u64,
}

impl FreeTable {
    /// procps 4's `used`: total − available.
    pub fn used_kib(&self) -> u64 {
        self.total_kib.saturating_sub(self.available_kib)
    }

    /// Swap in use.
    pub fn swap_used_kib(&self) -> u64 {
        self.swap_total_kib.saturating_sub(self.swap_free_kib)
    }
}

/// Parse a `/proc/meminfo` text; `None` without `MemTotal`.
pub fn parse_free(text: &str) -> Option<FreeTable> {
    let k = |key: &str| parse_kib(text, key).unwrap_or(0);
    let total_kib = parse_kib(text, "MemTotal")?;
    let free_kib = k("MemFree");
    Some(FreeTable {
        total_kib,
        free_kib,
        available_kib: parse_kib(text, "MemAvailable").unwrap_or(free_kib),
        shared_kib: k("Shmem"),
        buff_cache_kib: k("Buffers") + k("Cached") + k("SReclaimable"),
        swap_total_kib: k("SwapTotal"),
        swap_free_kib: k("SwapFree"),
    })
}

/// `/proc/swaps` as `swapon -s` prints it: the whole text when it lists a swap area,
/// `None` when only its header is there (swapon prints nothing then).
pub fn swapon_summary(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let header = lines.next()?;
    if !header.starts_with("Filename") {
        return None;
    }
    let rest: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
    if rest.is_empty() {
        return None;
    }
    let mut s = String::from(header);
    for l in rest {
        s.push('\n');
        s.push_str(l);
    }
    Some(s)
}

/// Memory and swap as `free -h` and `swapon -s` show them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreeAndSwaps {
    /// `free`'s numbers.
    pub free: Option<FreeTable>,
    /// `swapon -s`'s text.
    pub swaps: Option<String>,
}

/// Read `/proc/meminfo` and `/proc/swaps`.
pub fn read(root: &SysRoot) -> FreeAndSwaps {
    FreeAndSwaps {
        free: root.read_opt("/proc/meminfo").and_then(|t| parse_free(&t)),
        swaps: root
            .read_opt("/proc/swaps")
            .and_then(|t| swapon_summary(&t)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rock_5b_fixture_meminfo() {
        let t = include_str!("../../tests/fixtures/sysroots/rock-5b/proc/meminfo");
        let f = parse_free(t).unwrap();
        assert_eq!(f.total_kib, 16100352);
        assert_eq!(f.used_kib(), 16100352 - 15864832);
        assert_eq!(f.buff_cache_kib, 0);
        assert_eq!(f.swap_used_kib(), 0);
    }

    #[test]
    fn buff_cache_adds_buffers_cached_and_sreclaimable() {
        let t = "MemTotal: 1000 kB\nMemFree: 500 kB\nBuffers: 10 kB\nCached: 100 kB\n\
                 SReclaimable: 5 kB\nShmem: 3 kB\nSwapTotal: 200 kB\nSwapFree: 150 kB\n";
        let f = parse_free(t).unwrap();
        assert_eq!(f.buff_cache_kib, 115);
        assert_eq!(f.available_kib, 500);
        assert_eq!(f.swap_used_kib(), 50);
        assert_eq!(parse_free("garbage"), None);
    }

    #[test]
    fn swapon_prints_nothing_without_swap() {
        let none = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        assert_eq!(swapon_summary(none), None);
        assert_eq!(swapon_summary(""), None);
        // Corpus log 8hUb (Framework Desktop): zram swap as swapon -s showed it.
        let z = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                 /dev/zram0                              partition\t8388604\t\t0\t\t100\n";
        assert_eq!(swapon_summary(z).unwrap(), z.trim_end());
    }
}
