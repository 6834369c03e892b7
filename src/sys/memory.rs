//! Memory and swap: `/proc/meminfo`, the swap devices of `/proc/swaps` with their kind (zram
//! and its compression algorithm, partition, file — and on which storage), and zswap.
//!
//! Why it matters: swapping during a benchmark ruins it, and where swap lives decides how
//! much (zram costs CPU, an SD card costs seconds; zswap on top of zram is the worst of both).

use serde::{Deserialize, Serialize};

use crate::sys::board;
use crate::sys::root::SysRoot;
use crate::sys::storage::{Mount, mount_of, parse_mountinfo, unescape_octal};

/// The numbers of `/proc/meminfo` we use, in KiB (the kernel's "kB").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meminfo {
    /// `MemTotal`.
    pub mem_total_kib: Option<u64>,
    /// `MemAvailable` (kernel's estimate of memory available without swapping).
    pub mem_available_kib: Option<u64>,
    /// `MemFree`.
    pub mem_free_kib: Option<u64>,
    /// `SwapTotal`.
    pub swap_total_kib: Option<u64>,
    /// `SwapFree`.
    pub swap_free_kib: Option<u64>,
}

/// The file the memory numbers come from.
pub const MEMINFO: &str = "/proc/meminfo";
/// The page cache knob (`echo 3 >…`, written by review mode through `tune::oneshot`).
pub const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// The value of `key` (`MemAvailable`) of a `/proc/meminfo` text, in kB (KiB, as the kernel
/// means it); `None` when the line is missing or garbled.
pub fn parse_kib(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        if k.trim() != key {
            return None;
        }
        v.split_whitespace().next()?.parse().ok()
    })
}

/// Parse `/proc/meminfo`. Missing or garbled lines leave their field `None`.
pub fn parse_meminfo(text: &str) -> Meminfo {
    Meminfo {
        mem_total_kib: parse_kib(text, "MemTotal"),
        mem_available_kib: parse_kib(text, "MemAvailable"),
        mem_free_kib: parse_kib(text, "MemFree"),
        swap_total_kib: parse_kib(text, "SwapTotal"),
        swap_free_kib: parse_kib(text, "SwapFree"),
    }
}

/// Memory available for new allocations without swapping, in bytes, from a `/proc/meminfo`
/// text: `MemAvailable`, or on kernels older than 3.14 (which lack it) the usual estimate
/// `MemFree + Buffers + Cached`. `None` when neither is there or the sum overflows.
pub fn available_bytes_from(text: &str) -> Option<u64> {
    let kib = match parse_kib(text, "MemAvailable") {
        Some(k) => k,
        None => parse_kib(text, "MemFree")?
            .checked_add(parse_kib(text, "Buffers").unwrap_or(0))?
            .checked_add(parse_kib(text, "Cached").unwrap_or(0))?,
    };
    kib.checked_mul(1024)
}

/// [`available_bytes_from`] of this system, what benchmarks size their buffers by (so a
/// 512 MiB board is never pushed into swap or the OOM killer); `None` when `/proc/meminfo`
/// is unreadable.
pub fn available_bytes(root: &SysRoot) -> Option<u64> {
    available_bytes_from(&root.read_opt(MEMINFO)?)
}

/// One line of `/proc/swaps`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapEntry {
    /// `Filename` (`/dev/zram0`, `/var/swap`), octal escapes (`\040`) decoded.
    pub path: String,
    /// `Type` as the kernel says (`partition`, `file`).
    pub kind: String,
    /// `Size` in KiB.
    pub size_kib: u64,
    /// `Used` in KiB.
    pub used_kib: u64,
    /// `Priority`.
    pub priority: i64,
}

/// Parse `/proc/swaps` (header line skipped; garbage lines dropped).
pub fn parse_swaps(text: &str) -> Vec<SwapEntry> {
    text.lines()
        .filter(|l| !l.starts_with("Filename"))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let path = unescape_octal(it.next()?);
            let kind = it.next()?.to_string();
            let size_kib = it.next()?.parse().ok()?;
            let used_kib = it.next()?.parse().ok()?;
            let priority = it.next()?.parse().ok()?;
            Some(SwapEntry {
                path,
                kind,
                size_kib,
                used_kib,
                priority,
            })
        })
        .collect()
}

/// What kind of storage a swap partition or file lives on, as far as sysfs tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StorageKind {
    /// SD card (`device/type` = `SD`): slow random I/O, wears out.
    Sd,
    /// eMMC (`device/type` = `MMC`).
    Mmc,
    /// NVMe SSD.
    Nvme,
    /// Spinning disk (`queue/rotational` = 1).
    Hdd,
    /// Other non-rotational storage (SATA/USB SSD, virtio disk).
    Flash,
}

/// Where a swap device lives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapBacking {
    /// Partition or block device (`/dev/mmcblk0p2`), `None` when not found.
    pub device: Option<String>,
    /// Whole disk holding it (`mmcblk0`).
    pub disk: Option<String>,
    /// Kind of storage of that disk.
    pub storage: Option<StorageKind>,
}

/// State of a zram device (compressed RAM block device).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zram {
    /// Selected compression algorithm (the bracketed entry of `comp_algorithm`).
    pub algorithm: Option<String>,
    /// All algorithms the kernel offers.
    #[serde(default)]
    pub algorithms: Vec<String>,
    /// `disksize` in bytes.
    pub disksize_bytes: Option<u64>,
    /// `max_comp_streams`.
    pub streams: Option<u64>,
    /// `mm_stat` field 1: uncompressed data stored, bytes.
    pub orig_data_bytes: Option<u64>,
    /// `mm_stat` field 2: compressed size, bytes.
    pub compr_data_bytes: Option<u64>,
    /// `mm_stat` field 3: memory used including overhead, bytes.
    pub mem_used_bytes: Option<u64>,
}

/// A swap device with its kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Swap {
    /// The `/proc/swaps` line.
    #[serde(flatten)]
    pub entry: SwapEntry,
    /// `zram`, `partition`, `file` or `other`.
    pub swap_kind: SwapKind,
    /// zram details when [`Swap::swap_kind`] is zram.
    pub zram: Option<Zram>,
    /// Storage behind a partition or file.
    pub backing: Option<SwapBacking>,
}

/// Kind of swap device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SwapKind {
    /// Compressed RAM (`/dev/zramN`).
    Zram,
    /// A block device partition.
    Partition,
    /// A swap file on a filesystem.
    File,
    /// Anything else.
    Other,
}

/// zswap (compressed cache in front of swap) module parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zswap {
    /// `enabled` (`Y`/`N`/`1`/`0`).
    pub enabled: Option<bool>,
    /// `compressor` (`lzo`, `zstd`).
    pub compressor: Option<String>,
    /// `zpool` (`zsmalloc`, `z3fold`); gone on kernels where zsmalloc is the only one.
    pub zpool: Option<String>,
    /// `max_pool_percent`.
    pub max_pool_percent: Option<u32>,
}

/// Memory, swap and zswap.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// `/proc/meminfo`.
    pub meminfo: Meminfo,
    /// Swap devices in `/proc/swaps` order.
    #[serde(default)]
    pub swaps: Vec<Swap>,
    /// zswap parameters, `None` when the kernel has no zswap.
    pub zswap: Option<Zswap>,
}

impl Memory {
    /// True when zswap is enabled on top of zram swap, which sbc-bench warns about: once
    /// swapping starts, pages get compressed twice.
    pub fn zswap_on_zram(&self) -> bool {
        self.zswap.as_ref().and_then(|z| z.enabled) == Some(true)
            && self.swaps.iter().any(|s| s.swap_kind == SwapKind::Zram)
    }
}

/// Parse a `comp_algorithm` line (`lzo lzo-rle [lz4] zstd`): (selected, all).
pub fn parse_comp_algorithm(text: &str) -> (Option<String>, Vec<String>) {
    let mut selected = None;
    let mut all = Vec::new();
    for t in text.split_whitespace() {
        if let Some(s) = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            selected = Some(s.to_string());
            all.push(s.to_string());
        } else {
            all.push(t.to_string());
        }
    }
    // A kernel with a single algorithm may print it without brackets.
    if selected.is_none() && all.len() == 1 {
        selected = all.first().cloned();
    }
    (selected, all)
}

/// Parse zram `mm_stat`: (orig_data_size, compr_data_size, mem_used_total) in bytes.
pub fn parse_mm_stat(text: &str) -> (Option<u64>, Option<u64>, Option<u64>) {
    let mut it = text.split_whitespace().map(|t| t.parse::<u64>().ok());
    let a = it.next().flatten();
    let b = it.next().flatten();
    let c = it.next().flatten();
    (a, b, c)
}

/// Parse a boolean module parameter (`Y`, `N`, `1`, `0`).
pub fn parse_bool_param(s: &str) -> Option<bool> {
    match s.trim() {
        "Y" | "y" | "1" => Some(true),
        "N" | "n" | "0" => Some(false),
        _ => None,
    }
}

/// The whole disk of a partition name by kernel naming rules (`mmcblk0p2` → `mmcblk0`,
/// `nvme0n1p3` → `nvme0n1`, `sda2` → `sda`); names without a partition suffix stay.
pub fn disk_of_partition_name(part: &str) -> String {
    let digits = part.len() - part.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return part.to_string();
    }
    let stem = &part[..part.len() - digits];
    if let Some(s) = stem.strip_suffix('p') {
        // mmcblk0p2, nvme0n1p3, loop0p1: the part before `p` ends in a digit.
        if s.ends_with(|c: char| c.is_ascii_digit()) {
            return s.to_string();
        }
    }
    if stem.starts_with("mmcblk")
        || stem.starts_with("nvme")
        || stem.starts_with("loop")
        || stem.starts_with("zram")
    {
        // A whole device such as mmcblk0 or nvme0n1.
        return part.to_string();
    }
    stem.to_string()
}

/// Kind of storage of a whole disk, from `/sys/block/<disk>/queue/rotational` and
/// `/sys/block/<disk>/device/type`.
pub fn storage_kind(root: &SysRoot, disk: &str) -> Option<StorageKind> {
    if disk.starts_with("nvme") {
        return Some(StorageKind::Nvme);
    }
    match root
        .value(format!("/sys/block/{disk}/device/type"))
        .as_deref()
    {
        Some("SD") => return Some(StorageKind::Sd),
        Some("MMC") => return Some(StorageKind::Mmc),
        _ => {}
    }
    match root
        .value(format!("/sys/block/{disk}/queue/rotational"))
        .as_deref()
    {
        Some("1") => Some(StorageKind::Hdd),
        Some("0") => Some(StorageKind::Flash),
        _ => None,
    }
}

/// Map a block device path (`/dev/mmcblk0p2`, `/dev/root`, `PARTUUID=…`) to its kernel name,
/// using the kernel command line for `/dev/root` and `/dev/disk/by-*` links for UUIDs.
fn block_name(root: &SysRoot, dev: &str, cmdline_root: Option<&str>) -> Option<String> {
    let dev = if dev == "/dev/root" {
        cmdline_root?
    } else {
        dev
    };
    let link = if let Some(u) = dev.strip_prefix("PARTUUID=") {
        format!("/dev/disk/by-partuuid/{}", u.to_ascii_lowercase())
    } else if let Some(u) = dev.strip_prefix("UUID=") {
        format!("/dev/disk/by-uuid/{}", u.to_ascii_lowercase())
    } else if let Some(n) = dev.strip_prefix("/dev/") {
        return Some(n.to_string()).filter(|n| !n.is_empty() && !n.contains('/'));
    } else {
        return None;
    };
    root.link_name(link)
}

fn backing_of_block(root: &SysRoot, name: &str) -> SwapBacking {
    // Partitions have `/sys/class/block/<name>/partition`; their parent directory is the
    // disk. Without sysfs, fall back to naming rules.
    let disk = if root.exists(format!("/sys/class/block/{name}/partition")) {
        root.resolve(format!("/sys/class/block/{name}"))
            .and_then(|p| {
                p.parent()
                    .and_then(|d| d.file_name())
                    .map(|d| d.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| disk_of_partition_name(name))
    } else {
        disk_of_partition_name(name)
    };
    SwapBacking {
        device: Some(format!("/dev/{name}")),
        storage: storage_kind(root, &disk),
        disk: Some(disk),
    }
}

/// Read zram details of `/dev/zramN`.
pub fn read_zram(root: &SysRoot, name: &str) -> Zram {
    let base = format!("/sys/block/{name}");
    let (algorithm, algorithms) = root
        .read_opt(format!("{base}/comp_algorithm"))
        .map(|t| parse_comp_algorithm(&t))
        .unwrap_or_default();
    let (orig, compr, used) = root
        .read_opt(format!("{base}/mm_stat"))
        .map(|t| parse_mm_stat(&t))
        .unwrap_or_default();
    Zram {
        algorithm,
        algorithms,
        disksize_bytes: root.parse(format!("{base}/disksize")),
        streams: root.parse(format!("{base}/max_comp_streams")),
        orig_data_bytes: orig,
        compr_data_bytes: compr,
        mem_used_bytes: used,
    }
}

/// Classify a swap entry and find its storage.
pub fn classify_swap(
    root: &SysRoot,
    e: SwapEntry,
    mounts: &[Mount],
    cmdline_root: Option<&str>,
) -> Swap {
    let dev_name = e.path.strip_prefix("/dev/").map(str::to_string);
    let (swap_kind, zram, backing) = match (e.kind.as_str(), dev_name) {
        (_, Some(n)) if n.starts_with("zram") => (SwapKind::Zram, Some(read_zram(root, &n)), None),
        ("partition", Some(n)) => (SwapKind::Partition, None, Some(backing_of_block(root, &n))),
        ("file", _) => {
            let backing = mount_of(mounts, std::path::Path::new(&e.path)).map(|m| {
                // Overlay roots (FriendlyELEC images) sit on the root= partition.
                let src = if m.fstype == "overlay" {
                    cmdline_root.unwrap_or("")
                } else {
                    m.source.as_str()
                };
                match block_name(root, src, cmdline_root) {
                    Some(n) => backing_of_block(root, &n),
                    None => SwapBacking::default(),
                }
            });
            (SwapKind::File, None, backing)
        }
        _ => (SwapKind::Other, None, None),
    };
    Swap {
        entry: e,
        swap_kind,
        zram,
        backing,
    }
}

/// Read zswap parameters; `None` when the kernel has no zswap.
pub fn read_zswap(root: &SysRoot) -> Option<Zswap> {
    let p = |n: &str| format!("/sys/module/zswap/parameters/{n}");
    let enabled = root.value(p("enabled"));
    let z = Zswap {
        enabled: enabled.as_deref().and_then(parse_bool_param),
        compressor: root.value(p("compressor")),
        zpool: root.value(p("zpool")),
        max_pool_percent: root.parse(p("max_pool_percent")),
    };
    (z != Zswap::default()).then_some(z)
}

/// Read memory, swap and zswap.
pub fn read(root: &SysRoot, cmdline: Option<&str>) -> Memory {
    let meminfo = root
        .read_opt(MEMINFO)
        .map(|t| parse_meminfo(&t))
        .unwrap_or_default();
    let entries = root
        .read_opt("/proc/swaps")
        .map(|t| parse_swaps(&t))
        .unwrap_or_default();
    let cmdline_root = cmdline.and_then(|c| board::cmdline_param(c, "root"));
    let mounts = if entries.iter().any(|e| e.kind == "file") {
        root.read_opt("/proc/self/mountinfo")
            .map(|t| parse_mountinfo(&t))
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let swaps = entries
        .into_iter()
        .map(|e| classify_swap(root, e, &mounts, cmdline_root.as_deref()))
        .collect();
    Memory {
        meminfo,
        swaps,
        zswap: read_zswap(root),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This VM's `/proc/meminfo` head.
    const MEMINFO: &str = "MemTotal:       24684096 kB\nMemFree:        12262904 kB\nMemAvailable:   23959736 kB\nBuffers:           48324 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n";

    /// Raspberry Pi 4 with a swap file and zram (corpus log 4pzj), note the tabs.
    const SWAPS_RPI4: &str = "Filename\t\t\t\tType\t\tSize\tUsed\tPriority\n/var/swap                              \tfile    \t102396\t0\t-2\n/dev/zram0                             \tpartition\t767996\t111692\t75\n";

    /// Head of `/proc/meminfo` on this project's x86 VM (Linux 6.18). The corpus holds no
    /// board's meminfo; the format is the same everywhere.
    const SAMPLE: &str = "\
MemTotal:       24684096 kB
MemFree:        12315208 kB
MemAvailable:   22867812 kB
Buffers:           64688 kB
Cached:         10439384 kB
";

    /// The same without MemAvailable, as kernels before 3.14 print it (constructed).
    const OLD: &str = "\
MemTotal:       24684096 kB
MemFree:        12315208 kB
Buffers:           64688 kB
Cached:         10439384 kB
";

    /// An old (3.10) kernel without MemAvailable.
    const MEMINFO_OLD: &str = "MemTotal:        1025220 kB\nMemFree:          712032 kB\nBuffers:           11044 kB\nCached:           150248 kB\n";

    #[test]
    fn available_memory() {
        assert_eq!(available_bytes_from(SAMPLE), Some(22_867_812 * 1024));
        assert_eq!(available_bytes_from(MEMINFO), Some(23_959_736 * 1024));
        assert_eq!(
            available_bytes_from(OLD),
            Some((12_315_208 + 64_688 + 10_439_384) * 1024)
        );
        assert_eq!(
            available_bytes_from(MEMINFO_OLD),
            Some((712_032 + 11_044 + 150_248) * 1024)
        );
        assert_eq!(available_bytes_from("garbage"), None);
        assert_eq!(available_bytes_from("garbage\n"), None);
        assert_eq!(available_bytes_from(""), None);
        assert_eq!(parse_kib("MemFree: x kB", "MemFree"), None);
        assert_eq!(
            available_bytes_from("MemAvailable: 99999999999999999999 kB\n"),
            None
        );
    }

    #[test]
    fn missing_meminfo_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(available_bytes(&SysRoot::new(dir.path())), None);
    }

    #[test]
    fn meminfo() {
        let m = parse_meminfo(MEMINFO);
        assert_eq!(m.mem_total_kib, Some(24_684_096));
        assert_eq!(m.mem_available_kib, Some(23_959_736));
        assert_eq!(m.swap_total_kib, Some(0));
        assert_eq!(parse_meminfo("MemTotal: lots\n\r\n"), Meminfo::default());
    }

    #[test]
    fn swaps() {
        let s = parse_swaps(SWAPS_RPI4);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].path, "/var/swap");
        assert_eq!(s[0].kind, "file");
        assert_eq!(s[0].priority, -2);
        assert_eq!(s[1].used_kib, 111_692);
        assert!(parse_swaps("Filename Type\ngarbage\n").is_empty());
        assert_eq!(
            parse_swaps("/my\\040swap file 10 0 -2\n")[0].path,
            "/my swap"
        );
    }

    #[test]
    fn comp_algorithm() {
        assert_eq!(
            parse_comp_algorithm("lzo lzo-rle [lz4] zstd\n"),
            (
                Some("lz4".into()),
                vec!["lzo".into(), "lzo-rle".into(), "lz4".into(), "zstd".into()]
            )
        );
        assert_eq!(parse_comp_algorithm("zstd").0.as_deref(), Some("zstd"));
        assert_eq!(parse_comp_algorithm("").0, None);
        assert_eq!(
            parse_mm_stat("4096 74 12288 0 12288 0 0 0 0\n"),
            (Some(4096), Some(74), Some(12288))
        );
        assert_eq!(parse_mm_stat("x"), (None, None, None));
    }

    #[test]
    fn bools() {
        assert_eq!(parse_bool_param("Y\n"), Some(true));
        assert_eq!(parse_bool_param("N"), Some(false));
        assert_eq!(parse_bool_param("maybe"), None);
    }

    #[test]
    fn partitions() {
        assert_eq!(disk_of_partition_name("mmcblk0p2"), "mmcblk0");
        assert_eq!(disk_of_partition_name("nvme0n1p5"), "nvme0n1");
        assert_eq!(disk_of_partition_name("sda2"), "sda");
        assert_eq!(disk_of_partition_name("sda"), "sda");
        assert_eq!(disk_of_partition_name("mmcblk1"), "mmcblk1");
        assert_eq!(disk_of_partition_name("nvme0n1"), "nvme0n1");
    }
}
