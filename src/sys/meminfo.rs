//! Available memory from `/proc/meminfo`, so benchmarks can size their buffers (the LZMA
//! benchmark needs ~400 MiB per thread at its largest dictionary; small boards have 1 GiB).

use crate::sys::root::SysRoot;

/// The file read.
pub const MEMINFO: &str = "/proc/meminfo";

/// The value of `key` (`MemAvailable`) in kB (KiB, as the kernel means it).
pub fn parse_kib(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        if k.trim() != key {
            return None;
        }
        v.split_whitespace().next()?.parse().ok()
    })
}

/// Memory available for new allocations without swapping, in bytes: `MemAvailable`, or
/// on kernels older than 3.14 (which lack it) `MemFree + Buffers + Cached`.
pub fn available_bytes_from(text: &str) -> Option<u64> {
    let kib = parse_kib(text, "MemAvailable").or_else(|| {
        Some(
            parse_kib(text, "MemFree")?
                + parse_kib(text, "Buffers").unwrap_or(0)
                + parse_kib(text, "Cached").unwrap_or(0),
        )
    })?;
    Some(kib.saturating_mul(1024))
}

/// [`available_bytes_from`] of this system; `None` when `/proc/meminfo` is unreadable.
pub fn available_bytes(root: &SysRoot) -> Option<u64> {
    available_bytes_from(&root.read_opt(MEMINFO)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Head of /proc/meminfo on this project's x86 VM (Linux 6.18). The corpus holds no
    // board's meminfo; the format is the same everywhere.
    const SAMPLE: &str = "\
MemTotal:       24684096 kB
MemFree:        12315208 kB
MemAvailable:   22867812 kB
Buffers:           64688 kB
Cached:         10439384 kB
";

    // The same without MemAvailable, as kernels before 3.14 print it (constructed).
    const OLD: &str = "\
MemTotal:       24684096 kB
MemFree:        12315208 kB
Buffers:           64688 kB
Cached:         10439384 kB
";

    #[test]
    fn available_memory() {
        assert_eq!(available_bytes_from(SAMPLE), Some(22_867_812 * 1024));
        assert_eq!(
            available_bytes_from(OLD),
            Some((12_315_208 + 64_688 + 10_439_384) * 1024)
        );
        assert_eq!(available_bytes_from("garbage"), None);
        assert_eq!(parse_kib("MemFree: x kB", "MemFree"), None);
    }

    #[test]
    fn missing_file_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(available_bytes(&SysRoot::new(dir.path())), None);
    }
}
