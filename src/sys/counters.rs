//! Counter files read on every sample, and the open handle that keeps reading them cheap.
//!
//! The monitor ([`crate::monitor::Sampler`]) reads these many times a second while a
//! benchmark runs, so each is opened once ([`CounterFile`]) and re-read with `pread(2)`.
//! The system-wide ones are [`PROC_STAT`], [`PROC_LOADAVG`], [`PROC_VMSTAT`],
//! [`PROC_SOFTIRQS`], [`PROC_INTERRUPTS`] and [`PROC_UPTIME`]; the others are explicit,
//! one per chosen interface, disk or task — never a walk of `/sys`:
//! - `/sys/class/net/<if>/statistics/<counter>` ([`nic_counter_path`]),
//! - `/sys/block/<disk>/stat` ([`block_stat_path`], parsed by [`parse_block_stat`]),
//! - `/proc/<pid>/stat` and `/proc/<pid>/task/<tid>/stat` ([`task_stat_path`], parsed by
//!   [`parse_task_stat`]).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sys::deadline;
use crate::sys::root::{NodeKind, SysRoot};
use crate::sys::{irq, net};

/// `/proc/stat`: CPU time counters.
pub const PROC_STAT: &str = "/proc/stat";
/// `/proc/loadavg`: load averages.
pub const PROC_LOADAVG: &str = "/proc/loadavg";
/// `/proc/vmstat`: swap-in/out page counters.
pub const PROC_VMSTAT: &str = "/proc/vmstat";
/// `/proc/softirqs`: per-CPU softirq counts.
pub const PROC_SOFTIRQS: &str = irq::SOFTIRQS;
/// `/proc/interrupts`: per-CPU counts of every IRQ line.
pub const PROC_INTERRUPTS: &str = irq::INTERRUPTS;
/// `/proc/uptime`: seconds since boot.
pub const PROC_UPTIME: &str = "/proc/uptime";

/// A counter file kept open and re-read from offset 0. procfs and sysfs regenerate their
/// content on every read from the start, so this sees fresh values without `open(2)`.
/// A failed read drops the handle; the next read tries to open the file again (a policy
/// whose CPUs all went offline comes back when one returns).
#[derive(Debug)]
pub struct CounterFile {
    path: PathBuf,
    /// The root and system path it is opened through (resolved inside the root, never
    /// blocking, regular files only); `None` for a file named by its real path.
    through: Option<(SysRoot, PathBuf)>,
    file: Option<File>,
    buf: Vec<u8>,
}

/// Largest counter file we read (`/proc/stat` with the `intr` line of a board with many
/// interrupts is a few tens of KiB; 128-core servers reach ~100 KiB).
const MAX_COUNTER_FILE: usize = 4 * 1024 * 1024;

/// Buffer for [`CounterFile::read_small`]: a page, the most a sysfs attribute holds.
const SMALL_FILE: usize = 4096;

impl CounterFile {
    /// The file standing for system path `abs` under `root`; opened on the first read.
    pub fn new(root: &SysRoot, abs: impl AsRef<Path>) -> Self {
        let abs = abs.as_ref();
        Self {
            path: root.path(abs),
            through: Some((root.clone(), abs.to_path_buf())),
            file: None,
            buf: Vec::with_capacity(4096),
        }
    }

    /// A file by its real path (already mapped through a [`SysRoot`]).
    pub fn at(path: PathBuf) -> Self {
        Self {
            path,
            through: None,
            file: None,
            buf: Vec::with_capacity(4096),
        }
    }

    fn open(&self) -> Option<File> {
        match &self.through {
            Some((root, abs)) => {
                if deadline::is_blocked(abs) {
                    return None;
                }
                root.open(abs, NodeKind::File).ok()
            }
            None => {
                use crate::files::read::{Accept, Links, open_read};
                if self.path.as_os_str().is_empty() || deadline::is_blocked(&self.path) {
                    return None;
                }
                open_read(&self.path, Accept::File, Links::Follow).ok()
            }
        }
    }

    /// A read that never answered: the path is remembered as blocked and never opened
    /// again.
    fn give_up(&mut self) {
        let abs = self.through.as_ref().map_or(&self.path, |(_, a)| a);
        deadline::block(abs);
        self.through = None;
        self.path = PathBuf::new();
        self.file = None;
        self.buf.clear();
    }

    /// The real path read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's current content as text; `None` when unreadable or empty.
    pub fn read(&mut self) -> Option<&str> {
        if self.file.is_none() {
            self.file = self.open();
        }
        let file = self.file.as_ref()?;
        self.buf.clear();
        // A driver that never answers must not stall the monitor: given up after the
        // deadline, and the file is not opened again.
        let watch = deadline::Watch::start(deadline::READ_DEADLINE);
        let mut chunk = [0u8; 4096];
        loop {
            match file.read_at(&mut chunk, self.buf.len() as u64) {
                Ok(0) => break,
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    if self.buf.len() >= MAX_COUNTER_FILE {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    if watch.expired() {
                        self.give_up();
                        return None;
                    }
                }
                Err(_) => {
                    self.file = None;
                    return None;
                }
            }
        }
        if self.buf.is_empty() {
            return None;
        }
        if std::str::from_utf8(&self.buf).is_err() {
            // Counter files are ASCII; keep what parses, drop the rest.
            let text = String::from_utf8_lossy(&self.buf).into_owned();
            self.buf = text.into_bytes();
        }
        std::str::from_utf8(&self.buf).ok()
    }

    /// The content of a small file that the kernel hands over in one read: a sysfs
    /// attribute (at most a page, generated whole) or a one-record procfs file
    /// (`/proc/<pid>/stat`). One `pread(2)` instead of two: a read shorter than the buffer
    /// is the whole file; one that fills it falls back to [`read`](Self::read).
    pub fn read_small(&mut self) -> Option<&str> {
        // The same open as every other read: inside the root, never blocking, regular
        // files only (a FIFO at `thermal_zone0/temp` hung `monitor` in `open(2)`).
        if self.file.is_none() {
            self.file = self.open();
        }
        let file = self.file.as_ref()?;
        self.buf.resize(SMALL_FILE, 0);
        let watch = deadline::Watch::start(deadline::READ_DEADLINE);
        let n = loop {
            match file.read_at(&mut self.buf, 0) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    if watch.expired() {
                        self.give_up();
                        return None;
                    }
                }
                Err(_) => {
                    self.buf.clear();
                    self.file = None;
                    return None;
                }
            }
        };
        drop(watch);
        if n == SMALL_FILE {
            return self.read();
        }
        self.buf.truncate(n);
        if n == 0 {
            return None;
        }
        if std::str::from_utf8(&self.buf).is_err() {
            let text = String::from_utf8_lossy(&self.buf).into_owned();
            self.buf = text.into_bytes();
        }
        std::str::from_utf8(&self.buf).ok()
    }

    /// A one-number attribute.
    pub fn read_u64(&mut self) -> Option<u64> {
        self.read_small()?
            .trim_matches(|c: char| c.is_whitespace() || c == '\0')
            .parse()
            .ok()
    }
}

/// `/sys/class/net/<iface>/statistics/<counter>`; `None` for a name that is not a valid
/// interface name (it could otherwise climb out of the directory).
pub fn nic_counter_path(iface: &str, counter: &str) -> Option<String> {
    (net::valid_name(iface) && !counter.contains('/'))
        .then(|| format!("{}/{iface}/statistics/{counter}", net::CLASS_NET))
}

/// Is `dev` a plain kernel block device name (`mmcblk0`, `nvme0n1`, `sda`)?
pub fn valid_block_name(dev: &str) -> bool {
    !dev.is_empty() && dev != "." && dev != ".." && !dev.contains('/') && dev.len() <= 64
}

/// `/sys/block/<dev>/stat`; `None` for an invalid name.
pub fn block_stat_path(dev: &str) -> Option<String> {
    valid_block_name(dev).then(|| format!("/sys/block/{dev}/stat"))
}

/// Every block device of `/sys/block` (a listed directory, see `docs/SOURCES.md`),
/// loop and zram devices included, naturally sorted.
pub fn list_block_devices(root: &SysRoot) -> Vec<String> {
    let mut v: Vec<String> = root
        .list("/sys/block")
        .into_iter()
        .filter(|n| valid_block_name(n))
        .collect();
    v.sort_by(|a, b| crate::sys::root::natural_cmp(a, b));
    v
}

/// Sector unit of `/sys/block/<dev>/stat`: always 512 bytes, whatever the device's
/// logical block size (`Documentation/block/stat.rst`).
pub const SECTOR_BYTES: u64 = 512;

/// The I/O counters of one block device (`/sys/block/<dev>/stat`), since boot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockStat {
    /// Read requests completed.
    pub reads: u64,
    /// Read requests merged into others.
    pub read_merges: u64,
    /// Sectors read ([`SECTOR_BYTES`] each).
    pub read_sectors: u64,
    /// Milliseconds spent on reads (summed over requests).
    pub read_ms: u64,
    /// Write requests completed.
    pub writes: u64,
    /// Write requests merged into others.
    pub write_merges: u64,
    /// Sectors written.
    pub write_sectors: u64,
    /// Milliseconds spent on writes.
    pub write_ms: u64,
    /// Requests in flight now (a gauge, not a counter).
    pub in_flight: u64,
    /// Milliseconds the device had requests in flight (busy time).
    pub io_ms: u64,
    /// Weighted milliseconds in the queue.
    pub queue_ms: u64,
}

/// Parse `/sys/block/<dev>/stat`: 11 fields (kernels before 4.18), 15 with discards,
/// 17 with flushes; only the first 11 are kept. `None` with fewer than 11 numbers.
pub fn parse_block_stat(text: &str) -> Option<BlockStat> {
    let mut it = text.split_whitespace().map(|t| t.parse::<u64>().ok());
    let mut f = [0u64; 11];
    for v in &mut f {
        *v = it.next()??;
    }
    Some(BlockStat {
        reads: f[0],
        read_merges: f[1],
        read_sectors: f[2],
        read_ms: f[3],
        writes: f[4],
        write_merges: f[5],
        write_sectors: f[6],
        write_ms: f[7],
        in_flight: f[8],
        io_ms: f[9],
        queue_ms: f[10],
    })
}

/// `/proc/<pid>/stat` (the whole process, all its threads) or
/// `/proc/<pid>/task/<tid>/stat` (one thread).
pub fn task_stat_path(pid: u32, tid: Option<u32>) -> String {
    match tid {
        Some(t) => format!("/proc/{pid}/task/{t}/stat"),
        None => format!("/proc/{pid}/stat"),
    }
}

/// Thread ids of process `pid` (`/proc/<pid>/task`, listed), ascending.
pub fn list_threads(root: &SysRoot, pid: u32) -> Vec<u32> {
    let mut v: Vec<u32> = root
        .list(format!("/proc/{pid}/task"))
        .iter()
        .filter_map(|t| t.parse().ok())
        .collect();
    v.sort_unstable();
    v
}

/// CPU time and placement of one task.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskStat {
    /// User plus system time (fields 14 and 15), clock ticks (`USER_HZ`).
    pub ticks: u64,
    /// The CPU it last ran on (field 39).
    pub cpu: u32,
}

/// Parse a `/proc/<pid>[/task/<tid>]/stat` line. The command name (field 2) may hold
/// spaces and parentheses, so fields are counted after its last `)`.
pub fn parse_task_stat(stat: &str) -> Option<TaskStat> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| f.get(n - 3).copied();
    let cpu = field(39)?.parse().ok()?;
    let utime: u64 = field(14)?.parse().ok()?;
    let stime: u64 = field(15)?.parse().ok()?;
    Some(TaskStat {
        ticks: utime.checked_add(stime)?,
        cpu,
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn counter_file_rereads_and_recovers() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c");
        let mut f = CounterFile::at(p.clone());
        assert_eq!(f.read_u64(), None, "missing file");
        std::fs::write(&p, "1416000\n").unwrap();
        assert_eq!(f.read_u64(), Some(1_416_000));
        // Rewritten in place (same inode): the open handle sees the new content.
        std::fs::write(&p, "408000\n").unwrap();
        assert_eq!(f.read_u64(), Some(408_000));
        std::fs::write(&p, "garbage\n").unwrap();
        assert_eq!(f.read_u64(), None);
        std::fs::write(&p, [0xff, 0xfe, b'\n']).unwrap();
        assert_eq!(f.read_u64(), None);
    }

    #[test]
    fn read_small_is_whole_for_small_and_large_files() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c");
        let mut f = CounterFile::at(p.clone());
        assert_eq!(f.read_small(), None, "missing file");
        std::fs::write(&p, "").unwrap();
        assert_eq!(f.read_small(), None, "empty");
        std::fs::write(&p, "1 2 3\n").unwrap();
        assert_eq!(f.read_small(), Some("1 2 3\n"));
        // Larger than one read: the whole file all the same.
        let big = "x".repeat(3 * SMALL_FILE + 5);
        std::fs::write(&p, &big).unwrap();
        assert_eq!(f.read_small().map(str::len), Some(big.len()));
        let page = "y".repeat(SMALL_FILE);
        std::fs::write(&p, &page).unwrap();
        assert_eq!(f.read_small().map(str::len), Some(SMALL_FILE));
        std::fs::write(&p, "7\n").unwrap();
        assert_eq!(f.read_u64(), Some(7));
    }

    #[test]
    fn reads_the_live_proc_stat() {
        let root = SysRoot::host();
        let mut f = CounterFile::new(&root, PROC_STAT);
        assert!(f.read().unwrap().starts_with("cpu"));
        assert_eq!(f.path(), Path::new("/proc/stat"));
    }

    /// `cat /sys/block/vda/stat` on this VM (kernel 6.18: 17 fields).
    const VDA_STAT: &str = "   19902     5797  6554426    36589     6054    34482 12336824    23494        0    13544    60774     4320       41   352656      687       45        2\n";

    #[test]
    fn block_stat_fields() {
        let s = parse_block_stat(VDA_STAT).unwrap();
        assert_eq!(s.reads, 19902);
        assert_eq!(s.read_sectors, 6_554_426);
        assert_eq!(s.writes, 6054);
        assert_eq!(s.write_sectors, 12_336_824);
        assert_eq!(s.in_flight, 0);
        assert_eq!(s.io_ms, 13544);
        // An old kernel's 11 fields, and garbage.
        assert!(parse_block_stat("1 2 3 4 5 6 7 8 9 10 11\n").is_some());
        assert_eq!(parse_block_stat("1 2 3 4 5 6 7 8 9 10\n"), None);
        assert_eq!(parse_block_stat("x 2 3 4 5 6 7 8 9 10 11"), None);
        assert_eq!(parse_block_stat(""), None);
    }

    #[test]
    fn task_stat_fields() {
        // A thread named with spaces and a parenthesis, running on CPU 6, 3 + 95 ticks.
        let st = "4242 (net rx) 1) S 1 4242 4242 0 -1 4194368 120 0 0 0 3 95 0 0 20 0 9 0 1000 100000000 500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 -1 6 0 0 0 0 0\n";
        assert_eq!(parse_task_stat(st), Some(TaskStat { ticks: 98, cpu: 6 }));
        assert_eq!(parse_task_stat("1 (x) S 1"), None);
        assert_eq!(parse_task_stat("garbage"), None);
        let me = std::fs::read_to_string(format!("/proc/{}/stat", std::process::id())).unwrap();
        assert!(parse_task_stat(&me).is_some());
    }

    #[test]
    fn paths_refuse_names_that_climb_out() {
        assert_eq!(
            nic_counter_path("eth0", "rx_bytes").as_deref(),
            Some("/sys/class/net/eth0/statistics/rx_bytes")
        );
        assert_eq!(nic_counter_path("../x", "rx_bytes"), None);
        assert_eq!(nic_counter_path("eth0", "../../x"), None);
        assert_eq!(
            block_stat_path("mmcblk0").as_deref(),
            Some("/sys/block/mmcblk0/stat")
        );
        assert_eq!(block_stat_path(".."), None);
        assert_eq!(block_stat_path("a/b"), None);
        assert_eq!(task_stat_path(7, None), "/proc/7/stat");
        assert_eq!(task_stat_path(7, Some(9)), "/proc/7/task/9/stat");
    }

    proptest::proptest! {
        #[test]
        fn parsers_never_panic(text in "\\PC{0,300}") {
            let _ = parse_block_stat(&text);
            let _ = parse_task_stat(&text);
        }
    }
}
