//! Storage throughput, measured like `iozone -e -I -a -s SIZE -r 4k -r 16384k -i 0 -i 1
//! -i 2`: for every record size, sequential write, rewrite, read, reread, then random
//! read and random write over one file, with `O_DIRECT` (`-I`) and `fsync` inside the
//! write timings (`-e`).
//!
//! Safety first, since users run this as root on the only disk of a board: we only
//! ever write to a new file we create ourselves (`O_CREAT|O_EXCL`, mode 0600) in the
//! directory given, after checking there is room for it plus a margin; the file is
//! removed at the end, on any error (`ENOSPC`, `EIO` mid-run) and — through a
//! [`crate::shutdown`] cleanup — on Ctrl-C/SIGTERM. Block devices and existing files are
//! never opened for writing.
//!
//! Where `O_DIRECT` is refused (`EINVAL`: tmpfs on old kernels, some FUSE filesystems),
//! the run continues buffered and says that the page cache was measured.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::shutdown::CancellationToken;

/// iozone's `-s 100M`.
pub const DEFAULT_SIZE: u64 = 100 << 20;
/// iozone's `-r 4k -r 16384k`.
pub const DEFAULT_RECORDS: [u64; 2] = [4 << 10, 16 << 20];
/// Free space we leave on the filesystem on top of the test file.
pub const MARGIN: u64 = 32 << 20;
/// Alignment of buffers, offsets and sizes for `O_DIRECT` (covers 4Kn drives).
pub const ALIGN: u64 = 4096;

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Config {
    /// Directory the test file is created in.
    pub dir: PathBuf,
    /// Size of the test file in bytes.
    pub size_bytes: u64,
    /// Record (block) sizes in bytes, each a multiple of 4 KiB.
    pub records: Vec<u64>,
    /// Check free space before starting. Only tests turn this off, to provoke ENOSPC
    /// in the middle of a run.
    pub check_space: bool,
    /// The instant pass start times are counted from (the sampler's start, so both
    /// clocks agree); the benchmark's own start when `None`.
    #[serde(skip)]
    pub epoch: Option<Instant>,
    /// RAM available (`/proc/meminfo`), checked instead of free space on filesystems
    /// that report no size at all (ramfs), whose files live in RAM without a limit.
    pub mem_available_bytes: Option<u64>,
}

impl Config {
    /// iozone's defaults for `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            size_bytes: DEFAULT_SIZE,
            records: DEFAULT_RECORDS.to_vec(),
            check_space: true,
            epoch: None,
            mem_available_bytes: None,
        }
    }

    /// Bytes moved by a whole run (six passes over the file per record size).
    pub fn total_bytes(&self) -> u64 {
        self.records
            .iter()
            .map(|&r| 6 * (self.size_bytes / r.max(1)) * r)
            .sum()
    }
}

/// One pass over the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Sequential write into an empty file (allocation included), then fsync.
    Write,
    /// Sequential overwrite of the existing file, then fsync.
    Rewrite,
    /// Sequential read.
    Read,
    /// Sequential read again.
    Reread,
    /// Every record once, in random order.
    RandomRead,
    /// Every record once, in random order, then fsync.
    RandomWrite,
}

impl Phase {
    /// In iozone's column order.
    pub const ALL: [Phase; 6] = [
        Phase::Write,
        Phase::Rewrite,
        Phase::Read,
        Phase::Reread,
        Phase::RandomRead,
        Phase::RandomWrite,
    ];

    /// Human words.
    pub fn label(self) -> &'static str {
        match self {
            Phase::Write => "write",
            Phase::Rewrite => "rewrite",
            Phase::Read => "read",
            Phase::Reread => "reread",
            Phase::RandomRead => "random read",
            Phase::RandomWrite => "random write",
        }
    }

    /// Does this phase write?
    pub fn writes(self) -> bool {
        matches!(self, Phase::Write | Phase::Rewrite | Phase::RandomWrite)
    }
}

/// The result of one pass.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseResult {
    /// Which pass.
    pub phase: Phase,
    /// When it started, seconds since the benchmark began.
    pub started_s: f64,
    /// How long it took, fsync included for writes.
    pub seconds: f64,
    /// Bytes transferred.
    pub bytes: u64,
    /// Read or write calls.
    pub ops: u64,
    /// iozone's unit: KiB per second (iozone calls it kB/s).
    pub kib_per_s: f64,
    /// Decimal megabytes (10^6 bytes) per second.
    pub mb_per_s: f64,
    /// Operations per second.
    pub iops: f64,
}

impl PhaseResult {
    fn new(phase: Phase, started_s: f64, seconds: f64, bytes: u64, ops: u64) -> Self {
        let s = seconds.max(1e-9);
        Self {
            phase,
            started_s,
            seconds,
            bytes,
            ops,
            kib_per_s: bytes as f64 / 1024.0 / s,
            mb_per_s: bytes as f64 / 1e6 / s,
            iops: ops as f64 / s,
        }
    }
}

/// All passes with one record size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordResult {
    /// Record size in bytes.
    pub record_bytes: u64,
    /// The six passes in iozone's order.
    pub phases: Vec<PhaseResult>,
}

impl RecordResult {
    /// The result of `phase`.
    pub fn get(&self, phase: Phase) -> Option<&PhaseResult> {
        self.phases.iter().find(|p| p.phase == phase)
    }
}

/// A finished benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchResult {
    /// Directory the file was in.
    pub dir: String,
    /// File size in bytes.
    pub file_size_bytes: u64,
    /// Whether O_DIRECT was in effect (false: the page cache was measured).
    pub direct_io: bool,
    /// fsync is part of every write timing (iozone `-e`).
    pub fsync_in_write_timing: bool,
    /// Per record size.
    pub records: Vec<RecordResult>,
    /// Things the user must know about the numbers.
    pub warnings: Vec<String>,
}

/// Why a run did not finish.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Bad size or record size.
    #[error("{0}")]
    BadConfig(String),
    /// The target is not a directory.
    #[error("{0} is not a directory (give a directory on the filesystem to test)")]
    NotADirectory(PathBuf),
    /// Not enough free space.
    #[error(
        "not enough free space in {dir}: the test needs {need} MiB (file plus {margin} MiB margin), {avail} MiB are available"
    )]
    NoSpace {
        /// Directory.
        dir: PathBuf,
        /// MiB needed.
        need: u64,
        /// MiB margin included in `need`.
        margin: u64,
        /// MiB available.
        avail: u64,
    },
    /// A filesystem without any size limit (ramfs) and too little RAM for the file.
    #[error(
        "{dir} is on a filesystem without a size limit (ramfs): the test file would take {need} MiB \
         of RAM (file plus {margin} MiB margin), only {avail} MiB are available"
    )]
    NoRam {
        /// Directory.
        dir: PathBuf,
        /// MiB needed.
        need: u64,
        /// MiB margin included in `need`.
        margin: u64,
        /// MiB of RAM available.
        avail: u64,
    },
    /// The test file could not be created. The OS error is part of the message and
    /// deliberately not an error `source`, so a `{:#}` chain does not print it twice.
    #[error("cannot create a test file in {dir}: {cause}")]
    Create {
        /// Directory.
        dir: PathBuf,
        /// Cause.
        cause: io::Error,
    },
    /// An I/O error during a pass (ENOSPC, EIO…). The test file has been removed.
    #[error(
        "{phase} with {record} KiB records failed at offset {offset}: {cause} (test file removed)"
    )]
    Io {
        /// Pass.
        phase: &'static str,
        /// Record size in KiB.
        record: u64,
        /// Byte offset.
        offset: u64,
        /// Cause.
        cause: io::Error,
    },
    /// Ctrl-C or SIGTERM.
    #[error("interrupted (test file removed)")]
    Interrupted,
}

/// The file a run writes to, as the engine sees it. [`FileTarget`] is the real one;
/// tests wrap it to inject faults.
pub trait Target {
    /// Write all of `buf` at `offset`.
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Fill all of `buf` from `offset`.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// fsync.
    fn sync(&mut self) -> io::Result<()>;
    /// Cut the file to zero length (the next write pass allocates afresh).
    fn truncate(&mut self) -> io::Result<()>;
    /// Close and open again, as iozone does between tests.
    fn reopen(&mut self) -> io::Result<()>;
    /// Is O_DIRECT in effect?
    fn direct(&self) -> bool;
}

/// The test file opened with O_DIRECT when the filesystem allows it.
#[derive(Debug)]
pub struct FileTarget {
    path: PathBuf,
    file: File,
    direct: bool,
}

impl FileTarget {
    /// Open our (already created) test file; falls back to buffered I/O when the
    /// filesystem refuses O_DIRECT.
    pub fn open(path: &Path) -> io::Result<Self> {
        match open_rw(path, true) {
            Ok(file) => Ok(Self {
                path: path.to_path_buf(),
                file,
                direct: true,
            }),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(Self {
                path: path.to_path_buf(),
                file: open_rw(path, false)?,
                direct: false,
            }),
            Err(e) => Err(e),
        }
    }
}

fn open_rw(path: &Path, direct: bool) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(true);
    // Never follow a symlink someone swapped in for our file.
    let mut flags = libc::O_NOFOLLOW;
    if direct {
        flags |= libc::O_DIRECT;
    }
    o.custom_flags(flags);
    o.open(path)
}

fn full_write(f: &File, mut buf: &[u8], mut off: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match f.write_at(buf, off) {
            Ok(0) => return Err(io::Error::from_raw_os_error(libc::ENOSPC)),
            Ok(n) => {
                buf = &buf[n..];
                off += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn full_read(f: &File, mut buf: &mut [u8], mut off: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match f.read_at(buf, off) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
            Ok(n) => {
                buf = &mut buf[n..];
                off += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl Target for FileTarget {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        full_write(&self.file, buf, offset)
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        full_read(&self.file, buf, offset)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_all()
    }
    fn truncate(&mut self) -> io::Result<()> {
        self.file.set_len(0)
    }
    fn reopen(&mut self) -> io::Result<()> {
        self.file = open_rw(&self.path, self.direct)?;
        Ok(())
    }
    fn direct(&self) -> bool {
        self.direct
    }
}

/// Our test file: created exclusively, removed when dropped and — through a registered
/// shutdown cleanup — when the process is stopped by a signal.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    _cleanup: crate::shutdown::CleanupHandle,
}

impl TempFile {
    /// Create a new file in `dir` that did not exist before.
    pub fn create(dir: &Path) -> io::Result<Self> {
        let pid = std::process::id();
        for attempt in 0..16u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = dir.join(format!(".sbc-bench-iotest.{pid}.{nanos:09}{attempt}"));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&path)
            {
                Ok(_) => {
                    let p = path.clone();
                    let cleanup = crate::shutdown::register(move || {
                        let _ = std::fs::remove_file(&p);
                    });
                    return Ok(Self {
                        path,
                        _cleanup: cleanup,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::from(io::ErrorKind::AlreadyExists))
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// `4 KiB`, `16 MiB`: whole MiB when exact, KiB otherwise.
pub fn size_words(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

/// Size and free space of the filesystem holding a directory (statvfs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsSpace {
    /// Bytes available to unprivileged users.
    pub avail_bytes: u64,
    /// Size of the filesystem; 0 for filesystems that report none (ramfs).
    pub total_bytes: u64,
}

/// [`FsSpace`] of the filesystem holding `dir`.
pub fn fs_space(dir: &Path) -> io::Result<FsSpace> {
    let s = nix::sys::statvfs::statvfs(dir).map_err(io::Error::from)?;
    let frag = s.fragment_size() as u64;
    Ok(FsSpace {
        avail_bytes: (s.blocks_available() as u64).saturating_mul(frag),
        total_bytes: (s.blocks() as u64).saturating_mul(frag),
    })
}

/// Bytes available to us on the filesystem holding `dir`.
pub fn available_bytes(dir: &Path) -> io::Result<u64> {
    fs_space(dir).map(|s| s.avail_bytes)
}

/// Is there room for the test file? Pure: the decision from the filesystem's figures and
/// (for ramfs, which reports no size and has no limit) the RAM available. Returns notes
/// the user must see.
pub fn check_space(cfg: &Config, space: FsSpace) -> Result<Vec<String>, BenchError> {
    let need = cfg.size_bytes.saturating_add(MARGIN);
    if space.total_bytes == 0 {
        // ramfs: statvfs says 0 of 0 blocks, yet writes succeed until RAM runs out.
        return match cfg.mem_available_bytes {
            Some(m) if m < need => Err(BenchError::NoRam {
                dir: cfg.dir.clone(),
                need: need.div_ceil(1 << 20),
                margin: MARGIN >> 20,
                avail: m >> 20,
            }),
            Some(m) => Ok(vec![format!(
                "the filesystem reports no size (ramfs has no limit): free space was not \
                 checked; the {} file lives in RAM while the test runs ({} MiB of RAM available)",
                size_words(cfg.size_bytes),
                m >> 20
            )]),
            None => Ok(vec![
                "the filesystem reports no size (ramfs has no limit): free space was not \
                 checked, and the test file lives in RAM while the test runs"
                    .to_string(),
            ]),
        };
    }
    if space.avail_bytes < need {
        return Err(BenchError::NoSpace {
            dir: cfg.dir.clone(),
            need: need.div_ceil(1 << 20),
            margin: MARGIN >> 20,
            avail: space.avail_bytes >> 20,
        });
    }
    Ok(Vec::new())
}

/// Record sizes that do not divide the file size: like iozone, only whole records are
/// moved, so those passes cover less than the file. One note per such record size.
pub fn coverage_notes(cfg: &Config) -> Vec<String> {
    cfg.records
        .iter()
        .filter(|&&r| r > 0 && cfg.size_bytes % r != 0)
        .map(|&r| {
            format!(
                "{} records cover {} of the {} file (whole records only, as iozone does; \
                 MB/s count the bytes moved)",
                size_words(r),
                size_words(cfg.size_bytes / r * r),
                size_words(cfg.size_bytes)
            )
        })
        .collect()
}

/// Check the configuration and the directory. Returns notes for the user (a filesystem
/// without a size limit); refuses what cannot or must not run.
pub fn preflight(cfg: &Config) -> Result<Vec<String>, BenchError> {
    if cfg.records.is_empty() {
        return Err(BenchError::BadConfig("no record size given".into()));
    }
    for &r in &cfg.records {
        if r == 0 || r % ALIGN != 0 {
            return Err(BenchError::BadConfig(format!(
                "record size {} KiB is not a multiple of 4 KiB (needed for O_DIRECT)",
                r / 1024
            )));
        }
        if r > 1 << 30 {
            return Err(BenchError::BadConfig(format!(
                "record size {} KiB is larger than 1 GiB",
                r / 1024
            )));
        }
        if r > cfg.size_bytes {
            return Err(BenchError::BadConfig(format!(
                "record size {} KiB is larger than the file size {} KiB",
                r / 1024,
                cfg.size_bytes / 1024
            )));
        }
    }
    if !cfg.dir.is_dir() {
        return Err(BenchError::NotADirectory(cfg.dir.clone()));
    }
    // A read-only mount or a directory we may not write to fails here, before the free
    // space check can give a misleading reason.
    nix::unistd::access(&cfg.dir, nix::unistd::AccessFlags::W_OK).map_err(|e| {
        BenchError::Create {
            dir: cfg.dir.clone(),
            cause: io::Error::from(e),
        }
    })?;
    if !cfg.check_space {
        return Ok(Vec::new());
    }
    let space = fs_space(&cfg.dir).map_err(|cause| BenchError::Create {
        dir: cfg.dir.clone(),
        cause,
    })?;
    check_space(cfg, space)
}

/// The name prefix of our test files; the full name is
/// `.sbc-bench-iotest.<pid>.<9 digits of nanoseconds><attempt 0-15>`.
pub const TEMP_PREFIX: &str = ".sbc-bench-iotest.";

/// The PID in a name that is exactly one of our test files' names, `None` for anything
/// else.
pub fn test_file_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let (pid, tail) = rest.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || pid.len() > 10 || !digits(tail) || !(10..=11).contains(&tail.len()) {
        return None;
    }
    pid.parse().ok()
}

/// A test file an earlier run left behind (killed with SIGKILL, a power cut).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StaleFile {
    /// Where it is.
    pub path: PathBuf,
    /// The run that created it.
    pub pid: u32,
    /// Its size.
    pub size_bytes: u64,
    /// Removed now.
    pub removed: bool,
    /// Why it was left alone.
    pub kept_because: Option<String>,
}

impl StaleFile {
    /// One line for the user.
    pub fn words(&self) -> String {
        let what = format!(
            "a test file left by an earlier run (pid {}, {} MiB): {}",
            self.pid,
            self.size_bytes >> 20,
            self.path.display()
        );
        match &self.kept_because {
            None if self.removed => format!("removed {what}"),
            Some(why) => format!("found {what}; not removed: {why}"),
            None => format!("found {what}"),
        }
    }
}

/// Find our test files in `dir` that an earlier run could not remove, and remove each
/// one only when it is certainly ours and abandoned: exactly our name pattern, a regular
/// file with one link owned by us, its process gone, and no process holding it open
/// (a write lease is granted only when no one else has the file open).
pub fn clean_stale(dir: &Path) -> Vec<StaleFile> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let me = std::process::id();
    let mut out = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(test_file_pid) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let path = e.path();
        let Ok(md) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let mut f = StaleFile {
            path: path.clone(),
            pid,
            size_bytes: md.len(),
            removed: false,
            kept_because: None,
        };
        match abandoned(&path, &md, pid) {
            // Removed while our lease is held; closing `leased` afterwards releases it.
            Ok(leased) => {
                match std::fs::remove_file(&path) {
                    Ok(()) => f.removed = true,
                    Err(e) => f.kept_because = Some(format!("cannot remove it: {e}")),
                }
                drop(leased);
            }
            Err(why) => f.kept_because = Some(why),
        }
        out.push(f);
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The file, opened with a write lease (no one else has it open), when it may be
/// removed; the reason to keep it otherwise.
fn abandoned(path: &Path, md: &std::fs::Metadata, pid: u32) -> Result<File, String> {
    use std::os::unix::fs::MetadataExt;
    if !md.file_type().is_file() {
        return Err("not a regular file".into());
    }
    if md.nlink() != 1 {
        return Err("it has other hard links".into());
    }
    let euid = nix::unistd::geteuid().as_raw();
    if md.uid() != euid {
        return Err(format!("owned by uid {}, not by us", md.uid()));
    }
    let alive = i32::try_from(pid).is_ok_and(|p| {
        !matches!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), None),
            Err(nix::errno::Errno::ESRCH)
        )
    });
    if alive {
        return Err(format!(
            "process {pid} still exists (another benchmark running here?)"
        ));
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot open it: {e}"))?;
    if file
        .metadata()
        .map_or(true, |m| m.ino() != md.ino() || m.dev() != md.dev())
    {
        return Err("it changed while we looked at it".into());
    }
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is a valid descriptor owned by `file` for the duration of the calls;
    // F_SETLEASE takes an int argument and touches no memory.
    let rc = unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_WRLCK) };
    if rc != 0 {
        let e = io::Error::last_os_error();
        return Err(if e.raw_os_error() == Some(libc::EAGAIN) {
            "another process has it open".to_string()
        } else {
            format!("cannot tell whether another process has it open ({e})")
        });
    }
    // The lease lasts until `file` is closed.
    Ok(file)
}

/// A buffer aligned for O_DIRECT.
struct AlignedBuf {
    raw: Vec<u8>,
    off: usize,
    len: usize,
}

impl AlignedBuf {
    fn new(len: usize) -> Self {
        let raw = vec![0u8; len + ALIGN as usize];
        let off = raw.as_ptr().align_offset(ALIGN as usize);
        let mut b = Self { raw, off, len };
        // Incompressible content: SSD controllers that compress or deduplicate would
        // otherwise report fantasy write speeds.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for c in b.as_mut().chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bytes = x.to_le_bytes();
            c.copy_from_slice(&bytes[..c.len()]);
        }
        b
    }
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.off..self.off + self.len]
    }
    fn as_ref(&self) -> &[u8] {
        &self.raw[self.off..self.off + self.len]
    }
    /// Make every 4 KiB block of the next write unique (defeats deduplication).
    fn stamp(&mut self, seq: u64) {
        for (i, c) in self.as_mut().chunks_mut(ALIGN as usize).enumerate() {
            c[..8].copy_from_slice(&(seq.wrapping_mul(0x1_0000) + i as u64).to_le_bytes());
        }
    }
}

/// Every index below `n` once, in a fixed pseudo-random order (Fisher–Yates with a
/// xorshift generator): random I/O that touches each record exactly once, as fio's
/// random map does.
pub fn shuffled(n: u64, seed: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (0..n).collect();
    let mut x = seed | 1;
    for i in (1..v.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = (x % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

/// What a run reports while it goes, so callers can show rows as passes finish (as
/// iozone does) and take their own readings exactly at each pass's start and end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Event<'a> {
    /// The test file is open; whether O_DIRECT was accepted is known now.
    Opened {
        /// O_DIRECT in effect.
        direct: bool,
    },
    /// Bytes moved so far over the whole run.
    Progress(u64),
    /// A pass is about to start (called before its clock starts).
    PassStarting {
        /// Record size in bytes.
        record_bytes: u64,
        /// Which pass.
        phase: Phase,
    },
    /// A pass finished (called after its clock stopped, fsync included).
    PassDone {
        /// Record size in bytes.
        record_bytes: u64,
        /// Its result.
        result: &'a PhaseResult,
    },
}

/// Run the benchmark on the real filesystem: creates the test file, runs, removes it.
pub fn run(
    cfg: &Config,
    cancel: &CancellationToken,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<BenchResult, BenchError> {
    let mut warnings = preflight(cfg)?;
    let tmp = TempFile::create(&cfg.dir).map_err(|cause| BenchError::Create {
        dir: cfg.dir.clone(),
        cause,
    })?;
    let mut target = FileTarget::open(tmp.path()).map_err(|cause| BenchError::Create {
        dir: cfg.dir.clone(),
        cause,
    })?;
    let r = run_on(cfg, &mut target, cancel, events);
    drop(target);
    drop(tmp);
    r.map(|mut r| {
        warnings.append(&mut r.warnings);
        r.warnings = warnings;
        r
    })
}

/// The measurement loop over any [`Target`].
pub fn run_on(
    cfg: &Config,
    target: &mut dyn Target,
    cancel: &CancellationToken,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<BenchResult, BenchError> {
    let t0 = cfg.epoch.unwrap_or_else(Instant::now);
    events(Event::Opened {
        direct: target.direct(),
    });
    let mut done = 0u64;
    let mut records = Vec::new();
    for &rec in &cfg.records {
        let n = cfg.size_bytes / rec;
        let mut buf = AlignedBuf::new(rec as usize);
        let mut phases = Vec::new();
        for phase in Phase::ALL {
            let io_err = |offset: u64, cause: io::Error| BenchError::Io {
                phase: phase.label(),
                record: rec / 1024,
                offset,
                cause,
            };
            if phase == Phase::Write {
                target.truncate().map_err(|e| io_err(0, e))?;
            }
            target.reopen().map_err(|e| io_err(0, e))?;
            let order: Vec<u64> = match phase {
                Phase::RandomRead => shuffled(n, 0x5eed ^ rec),
                Phase::RandomWrite => shuffled(n, 0xbeef ^ rec),
                _ => (0..n).collect(),
            };
            events(Event::PassStarting {
                record_bytes: rec,
                phase,
            });
            let start = Instant::now();
            for (k, &i) in order.iter().enumerate() {
                if cancel.is_cancelled() {
                    return Err(BenchError::Interrupted);
                }
                let off = i * rec;
                if phase.writes() {
                    buf.stamp(done / rec + k as u64);
                    target
                        .write_at(buf.as_ref(), off)
                        .map_err(|e| io_err(off, e))?;
                } else {
                    target
                        .read_at(buf.as_mut(), off)
                        .map_err(|e| io_err(off, e))?;
                }
                events(Event::Progress(done + (k as u64 + 1) * rec));
            }
            if phase.writes() {
                target.sync().map_err(|e| io_err(n * rec, e))?;
            }
            let secs = start.elapsed().as_secs_f64();
            done += n * rec;
            let result = PhaseResult::new(
                phase,
                start.duration_since(t0).as_secs_f64(),
                secs,
                n * rec,
                n,
            );
            events(Event::PassDone {
                record_bytes: rec,
                result: &result,
            });
            phases.push(result);
        }
        records.push(RecordResult {
            record_bytes: rec,
            phases,
        });
    }
    let mut warnings = Vec::new();
    if !target.direct() {
        warnings.push(
            "O_DIRECT is not supported on this filesystem: buffered I/O was used, so the page \
             cache (RAM) was measured for reads, not the device"
                .to_string(),
        );
    }
    Ok(BenchResult {
        dir: cfg.dir.display().to_string(),
        file_size_bytes: cfg.size_bytes,
        direct_io: target.direct(),
        fsync_in_write_timing: true,
        records,
        warnings,
    })
}

/// One reading of the counters that explain storage throughput.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IoSample {
    /// Seconds since the sampler started.
    pub t_s: f64,
    /// `/proc/stat` per CPU (empty in the clock-only samples taken during a pass).
    pub cpus: std::collections::BTreeMap<u32, crate::monitor::stat::CpuTimes>,
    /// Current clock per cpufreq policy, kHz.
    pub khz: Vec<(u32, u64)>,
    /// This process's user + system time (`/proc/self/stat`), clock ticks.
    pub self_ticks: Option<u64>,
    /// The storage device's interrupts (`/proc/interrupts`, the lines of
    /// [`crate::sys::storage::irq_lines`]) per CPU; `None` when none were found.
    pub irqs: Option<std::collections::BTreeMap<u32, u64>>,
}

/// Passes shorter than this many clock ticks per CPU (USER_HZ is 100: 50 ms) get no
/// CPU percentages: `/proc/stat` counts in 10 ms ticks, too coarse to say more.
pub const MIN_WINDOW_TICKS: u64 = 5;

/// Read every counter at one instant: `/proc/stat`, `/proc/self/stat`, the interrupt
/// lines `irq_ids` of `/proc/interrupts`, and the clocks of `policies`. Taken exactly at
/// each pass's start and end, so every pass gets its own figures however short it is.
pub fn snapshot(
    root: &crate::sys::root::SysRoot,
    policies: &[u32],
    irq_ids: &[String],
    t0: Instant,
) -> IoSample {
    let mut s = clock_sample(root, policies, t0);
    s.cpus = root
        .read_opt("/proc/stat")
        .map(|t| crate::monitor::stat::parse_proc_stat(&t).per_cpu)
        .unwrap_or_default();
    // Our own process's CPU time: `/proc/self` is this process, which is fine because
    // snapshots are only taken on the live system (`storage bench` does so only there).
    s.self_ticks = root
        .read_opt("/proc/self/stat")
        .and_then(|t| parse_self_ticks(&t));
    if !irq_ids.is_empty() {
        s.irqs = crate::sys::irq::read_interrupts(root).map(|ints| irq_counts(&ints, irq_ids));
    }
    s
}

/// Sum of the lines `ids` per CPU.
pub fn irq_counts(
    ints: &crate::sys::irq::Interrupts,
    ids: &[String],
) -> std::collections::BTreeMap<u32, u64> {
    let mut out = std::collections::BTreeMap::new();
    for l in ints.lines.iter().filter(|l| ids.contains(&l.id)) {
        for &cpu in &ints.cpus {
            let n = ints.count(l, cpu);
            let e = out.entry(cpu).or_insert(0u64);
            *e = e.saturating_add(n);
        }
    }
    out
}

fn clock_sample(root: &crate::sys::root::SysRoot, policies: &[u32], t0: Instant) -> IoSample {
    let khz = policies
        .iter()
        .filter_map(|&id| {
            root.parse::<u64>(crate::sys::cpufreq::policy_attr(id, "scaling_cur_freq"))
                .map(|k| (id, k))
        })
        .collect();
    IoSample {
        t_s: t0.elapsed().as_secs_f64(),
        khz,
        ..Default::default()
    }
}

/// A thread reading the cpufreq policies' `scaling_cur_freq` at a fixed interval while
/// the benchmark runs, for average clocks during long passes.
#[derive(Debug)]
pub struct Sampler {
    stop: std::sync::Arc<CancellationToken>,
    handle: Option<std::thread::JoinHandle<Vec<IoSample>>>,
    t0: Instant,
}

impl Sampler {
    /// Start sampling the clocks of `policies` every `interval` (the first at once).
    pub fn start(root: crate::sys::root::SysRoot, policies: Vec<u32>, interval: Duration) -> Self {
        let stop = std::sync::Arc::new(CancellationToken::new());
        let s2 = std::sync::Arc::clone(&stop);
        let t0 = Instant::now();
        let handle = std::thread::Builder::new()
            .name("storage-sampler".into())
            .spawn(move || {
                let mut out = Vec::new();
                loop {
                    out.push(clock_sample(&root, &policies, t0));
                    if !s2.sleep(interval) {
                        return out;
                    }
                }
            })
            .ok();
        Self { stop, handle, t0 }
    }

    /// When sampling started: the time base of every sample and snapshot.
    pub fn started(&self) -> Instant {
        self.t0
    }

    /// Stop and hand over the samples.
    pub fn finish(mut self) -> Vec<IoSample> {
        self.stop.cancel();
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}

/// utime + stime (fields 14 and 15) of a `/proc/<pid>/stat` line; the command name in
/// parentheses may contain spaces, so fields are counted after the last `)`.
pub fn parse_self_ticks(stat: &str) -> Option<u64> {
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// What the system did during one pass.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PhaseObservation {
    /// Record size in bytes.
    pub record_bytes: u64,
    /// Which pass.
    pub phase: Option<Phase>,
    /// Its throughput, MB/s.
    pub mb_per_s: f64,
    /// Its duration.
    pub seconds: f64,
    /// Clock ticks per CPU between the pass's two `/proc/stat` readings; below
    /// [`MIN_WINDOW_TICKS`] the CPU percentages are left out (too coarse).
    pub window_ticks: Option<u64>,
    /// The busiest CPU (user + system + interrupts, iowait not counted as busy).
    pub busiest_cpu: Option<u32>,
    /// How busy that CPU was, percent.
    pub busiest_cpu_pct: Option<f64>,
    /// Share of that CPU's time in hard and soft interrupts.
    pub busiest_cpu_irq_pct: Option<f64>,
    /// Share of that CPU's time in the kernel.
    pub busiest_cpu_sys_pct: Option<f64>,
    /// iowait over all CPUs, percent.
    pub io_pct: Option<f64>,
    /// Interrupts over all CPUs, percent.
    pub irq_pct: Option<f64>,
    /// CPU time of the benchmark process itself, percent of one core (tells our I/O
    /// path from other processes' load).
    pub self_cpu_pct: Option<f64>,
    /// The storage device's interrupts during the pass (exact counts, however short).
    pub storage_irqs: Option<u64>,
    /// The same per second.
    pub storage_irqs_per_s: Option<f64>,
    /// The CPU that handled most of them.
    pub storage_irq_cpu: Option<u32>,
    /// Average clock per cpufreq policy, kHz.
    pub avg_khz: Vec<(u32, f64)>,
}

/// cpufreq facts for the diagnosis.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PolicyFacts {
    /// Policy id.
    pub id: u32,
    /// CPUs in it.
    pub cpus: Vec<u32>,
    /// Governor during the run.
    pub governor: Option<String>,
    /// Highest clock, kHz.
    pub max_khz: Option<u64>,
}

/// Everything the storage diagnosis looks at.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StorageObservation {
    /// Filesystem type the file was on.
    pub fstype: Option<String>,
    /// O_DIRECT was in effect.
    pub direct_io: bool,
    /// cpufreq policies.
    pub policies: Vec<PolicyFacts>,
    /// One per pass.
    pub phases: Vec<PhaseObservation>,
}

/// The readings taken exactly at one pass's start and end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassWindow {
    /// Record size in bytes.
    pub record_bytes: u64,
    /// Which pass.
    pub phase: Phase,
    /// Reading at its start.
    pub start: IoSample,
    /// Reading at its end.
    pub end: IoSample,
}

/// One observation per pass of `result`, from the readings at its start and end
/// (`windows`) and the clock samples taken meanwhile (`clocks`). A pass without a
/// window (monitoring off) keeps only its throughput.
pub fn observe(
    result: &BenchResult,
    windows: &[PassWindow],
    clocks: &[IoSample],
) -> Vec<PhaseObservation> {
    let mut out = Vec::new();
    for rec in &result.records {
        for p in &rec.phases {
            let mut o = PhaseObservation {
                record_bytes: rec.record_bytes,
                phase: Some(p.phase),
                mb_per_s: p.mb_per_s,
                seconds: p.seconds,
                ..Default::default()
            };
            if let Some(w) = windows
                .iter()
                .find(|w| w.record_bytes == rec.record_bytes && w.phase == p.phase)
            {
                fill_usage(&mut o, &w.start, &w.end, clocks);
            }
            out.push(o);
        }
    }
    out
}

fn fill_usage(o: &mut PhaseObservation, a: &IoSample, b: &IoSample, clocks: &[IoSample]) {
    use crate::monitor::stat::{CpuTimes, usage};
    let mut tot_a = CpuTimes::default();
    let mut tot_b = CpuTimes::default();
    let add = |t: &mut CpuTimes, x: &CpuTimes| {
        t.user += x.user;
        t.nice += x.nice;
        t.system += x.system;
        t.idle += x.idle;
        t.iowait += x.iowait;
        t.irq += x.irq;
        t.softirq += x.softirq;
        t.steal += x.steal;
    };
    let mut ncpu = 0u64;
    for (cpu, ta) in &a.cpus {
        let Some(tb) = b.cpus.get(cpu) else { continue };
        add(&mut tot_a, ta);
        add(&mut tot_b, tb);
        ncpu += 1;
    }
    // Ticks per CPU elapsed between the readings = the window in clock ticks.
    let window = (ncpu > 0).then(|| tot_b.total().saturating_sub(tot_a.total()) / ncpu);
    o.window_ticks = window;
    if window.is_some_and(|w| w >= MIN_WINDOW_TICKS) {
        let mut best: Option<(u32, f64, f64, f64)> = None;
        for (cpu, ta) in &a.cpus {
            let Some(tb) = b.cpus.get(cpu) else { continue };
            if let Some(u) = usage(ta, tb) {
                let busy = u.cpu_pct - u.io_pct;
                if best.is_none_or(|(_, bb, _, _)| busy > bb) {
                    best = Some((*cpu, busy, u.irq_pct, u.sys_pct));
                }
            }
        }
        if let Some((cpu, busy, irq, sys)) = best {
            o.busiest_cpu = Some(cpu);
            o.busiest_cpu_pct = Some(busy);
            o.busiest_cpu_irq_pct = Some(irq);
            o.busiest_cpu_sys_pct = Some(sys);
        }
        if let Some(u) = usage(&tot_a, &tot_b) {
            o.io_pct = Some(u.io_pct);
            o.irq_pct = Some(u.irq_pct);
        }
        if let (Some(w), Some(sa), Some(sb)) = (window, a.self_ticks, b.self_ticks) {
            if w > 0 && sb >= sa {
                o.self_cpu_pct = Some((sb - sa) as f64 * 100.0 / w as f64);
            }
        }
    }
    // Interrupt counts are exact, whatever the pass's length.
    if let (Some(ia), Some(ib)) = (&a.irqs, &b.irqs) {
        let per_cpu: Vec<(u32, u64)> = ia
            .iter()
            .filter_map(|(cpu, &n)| {
                ib.get(cpu)
                    .and_then(|&m| m.checked_sub(n))
                    .map(|d| (*cpu, d))
            })
            .collect();
        let total: u64 = per_cpu.iter().map(|x| x.1).sum();
        o.storage_irqs = Some(total);
        let secs = b.t_s - a.t_s;
        if secs > 0.0 {
            o.storage_irqs_per_s = Some(total as f64 / secs);
        }
        o.storage_irq_cpu = per_cpu
            .iter()
            .filter(|x| x.1 > 0)
            .max_by_key(|x| x.1)
            .map(|x| x.0);
    }
    // Average clock: the readings at both ends and the samples in between.
    let mut points: Vec<&IoSample> = vec![a];
    points.extend(clocks.iter().filter(|s| s.t_s > a.t_s && s.t_s < b.t_s));
    points.push(b);
    let mut ids: Vec<u32> = points
        .iter()
        .flat_map(|s| s.khz.iter().map(|k| k.0))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let v: Vec<u64> = points
            .iter()
            .filter_map(|s| s.khz.iter().find(|k| k.0 == id).map(|k| k.1))
            .collect();
        if !v.is_empty() {
            o.avg_khz
                .push((id, v.iter().sum::<u64>() as f64 / v.len() as f64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_is_a_permutation() {
        let v = shuffled(1000, 42);
        let mut s = v.clone();
        s.sort_unstable();
        assert_eq!(s, (0..1000).collect::<Vec<_>>());
        assert_ne!(v, s, "actually shuffled");
        assert_eq!(shuffled(0, 1), Vec::<u64>::new());
        assert_eq!(shuffled(1, 1), vec![0]);
    }

    #[test]
    fn bad_configs_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let mut c = Config::new(d.path());
        c.records = vec![1000];
        assert!(matches!(preflight(&c), Err(BenchError::BadConfig(m)) if m.contains("4 KiB")));
        c.records = vec![];
        assert!(preflight(&c).is_err());
        c.records = vec![8 << 20];
        c.size_bytes = 4 << 20;
        assert!(matches!(preflight(&c), Err(BenchError::BadConfig(m)) if m.contains("larger")));
        let f = d.path().join("file");
        std::fs::write(&f, b"x").unwrap();
        let c = Config::new(&f);
        assert!(matches!(preflight(&c), Err(BenchError::NotADirectory(_))));
    }

    #[test]
    fn units() {
        let p = PhaseResult::new(Phase::Read, 0.0, 2.0, 100 << 20, 25600);
        assert_eq!(p.kib_per_s, 51200.0);
        assert!((p.mb_per_s - 52.4288).abs() < 1e-9);
        assert_eq!(p.iops, 12800.0);
        // 100 MiB is 6.25 records of 16 MiB: whole records only, as iozone does.
        assert_eq!(
            Config::new("/x").total_bytes(),
            6 * (100 << 20) + 6 * (6 * (16 << 20))
        );
    }

    #[test]
    fn a_small_real_run_leaves_nothing_behind() {
        let d = tempfile::tempdir().unwrap();
        let mut c = Config::new(d.path());
        c.size_bytes = 1 << 20;
        c.records = vec![4 << 10, 256 << 10];
        let mut last = 0;
        let mut passes = Vec::new();
        let mut opened = None;
        let r = run(&c, &CancellationToken::new(), &mut |e| match e {
            Event::Progress(b) => last = b,
            Event::Opened { direct } => opened = Some(direct),
            Event::PassStarting {
                record_bytes,
                phase,
            } => passes.push((record_bytes, phase, None)),
            Event::PassDone {
                record_bytes,
                result,
            } => {
                let p = passes.last_mut().unwrap();
                assert_eq!((p.0, p.1), (record_bytes, result.phase));
                p.2 = Some(result.clone());
            }
        })
        .unwrap();
        assert_eq!(last, c.total_bytes());
        assert_eq!(opened, Some(r.direct_io));
        // Every pass announced before it starts and reported as it finishes, in order.
        assert_eq!(passes.len(), 12);
        for (rec, (rb, phase, done)) in passes.iter().enumerate().map(|(i, p)| (i / 6, p)) {
            assert_eq!(*rb, c.records[rec]);
            assert_eq!(done.as_ref(), r.records[rec].get(*phase));
        }
        assert_eq!(r.records.len(), 2);
        for rec in &r.records {
            assert_eq!(rec.phases.len(), 6);
            for p in &rec.phases {
                assert_eq!(p.bytes, 1 << 20);
                assert!(p.kib_per_s > 0.0 && p.seconds > 0.0);
            }
        }
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    /// Fails with the given errno after `ok_writes` writes.
    struct Faulty {
        inner: FileTarget,
        ok_writes: u32,
        errno: i32,
    }

    impl Target for Faulty {
        fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
            if self.ok_writes == 0 {
                return Err(io::Error::from_raw_os_error(self.errno));
            }
            self.ok_writes -= 1;
            self.inner.write_at(buf, offset)
        }
        fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
            self.inner.read_at(buf, offset)
        }
        fn sync(&mut self) -> io::Result<()> {
            self.inner.sync()
        }
        fn truncate(&mut self) -> io::Result<()> {
            self.inner.truncate()
        }
        fn reopen(&mut self) -> io::Result<()> {
            self.inner.reopen()
        }
        fn direct(&self) -> bool {
            self.inner.direct()
        }
    }

    #[test]
    fn eio_mid_run_is_reported_and_the_file_removed() {
        let d = tempfile::tempdir().unwrap();
        let mut c = Config::new(d.path());
        c.size_bytes = 1 << 20;
        c.records = vec![64 << 10];
        let err = {
            let tmp = TempFile::create(d.path()).unwrap();
            let mut t = Faulty {
                inner: FileTarget::open(tmp.path()).unwrap(),
                ok_writes: 20,
                errno: libc::EIO,
            };
            run_on(&c, &mut t, &CancellationToken::new(), &mut |_| {}).unwrap_err()
        };
        // The OS error is in the message once and is not also the error's source (anyhow's
        // `{:#}` would print it twice).
        assert!(std::error::Error::source(&err).is_none());
        let msg = err.to_string();
        // 16 writes of the first pass succeed, the 5th of the rewrite fails.
        assert!(
            msg.contains("rewrite with 64 KiB records failed at offset 262144"),
            "{msg}"
        );
        // (glibc words EIO "Input/output error", musl "I/O error")
        assert!(
            matches!(&err, BenchError::Io { cause, .. } if cause.raw_os_error() == Some(libc::EIO)),
            "{msg}"
        );
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn buffered_fallback_is_flagged() {
        // What FileTarget::open does when a filesystem answers O_DIRECT with EINVAL.
        let d = tempfile::tempdir().unwrap();
        let tmp = TempFile::create(d.path()).unwrap();
        let mut t = FileTarget {
            path: tmp.path().to_path_buf(),
            file: open_rw(tmp.path(), false).unwrap(),
            direct: false,
        };
        let mut c = Config::new(d.path());
        c.size_bytes = 64 << 10;
        c.records = vec![4 << 10];
        let r = run_on(&c, &mut t, &CancellationToken::new(), &mut |_| {}).unwrap();
        assert!(!r.direct_io);
        assert!(r.warnings[0].contains("page cache"), "{:?}", r.warnings);
    }

    #[test]
    fn cancellation_stops_between_records() {
        let d = tempfile::tempdir().unwrap();
        let mut c = Config::new(d.path());
        c.size_bytes = 1 << 20;
        c.records = vec![4 << 10];
        let t = CancellationToken::new();
        let mut n = 0;
        let e = run(&c, &t, &mut |e| {
            if matches!(e, Event::Progress(_)) {
                n += 1;
            }
            if n == 10 {
                t.cancel();
            }
        })
        .unwrap_err();
        assert!(matches!(e, BenchError::Interrupted));
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    fn window_sample(
        t: f64,
        busy: [u64; 2],
        self_ticks: u64,
        irqs: [u64; 2],
        khz: u64,
    ) -> IoSample {
        use crate::monitor::stat::CpuTimes;
        // 100 ticks per second per CPU; `busy` of them in the kernel.
        let total = (t * 100.0).round() as u64;
        let cpu = |b: u64| CpuTimes {
            system: b,
            idle: total - b,
            ..Default::default()
        };
        IoSample {
            t_s: t,
            cpus: [(0, cpu(busy[0])), (1, cpu(busy[1]))].into(),
            khz: vec![(0, khz)],
            self_ticks: Some(self_ticks),
            irqs: Some([(0, irqs[0]), (1, irqs[1])].into()),
        }
    }

    fn one_pass(phase: Phase, started: f64, secs: f64) -> BenchResult {
        BenchResult {
            dir: "/x".into(),
            file_size_bytes: 1,
            direct_io: true,
            fsync_in_write_timing: true,
            records: vec![RecordResult {
                record_bytes: 4096,
                phases: vec![PhaseResult::new(phase, started, secs, 1, 1)],
            }],
            warnings: vec![],
        }
    }

    #[test]
    fn observation_windows() {
        let start = window_sample(0.0, [0, 0], 0, [1000, 50], 408_000);
        let end = window_sample(2.0, [190, 20], 180, [21_000, 60], 1_800_000);
        let clocks = vec![
            IoSample {
                t_s: 1.0,
                khz: vec![(0, 1_800_000)],
                ..Default::default()
            },
            // Outside the window: ignored.
            IoSample {
                t_s: 3.0,
                khz: vec![(0, 100)],
                ..Default::default()
            },
        ];
        let r = one_pass(Phase::RandomRead, 0.0, 2.0);
        let w = PassWindow {
            record_bytes: 4096,
            phase: Phase::RandomRead,
            start,
            end,
        };
        let o = observe(&r, std::slice::from_ref(&w), &clocks);
        assert_eq!(o[0].window_ticks, Some(200));
        assert_eq!(o[0].busiest_cpu, Some(0));
        assert!((o[0].busiest_cpu_pct.unwrap() - 95.0).abs() < 1e-9);
        assert!((o[0].busiest_cpu_sys_pct.unwrap() - 95.0).abs() < 1e-9);
        assert_eq!(o[0].avg_khz, vec![(0, 1_336_000.0)]);
        assert!((o[0].self_cpu_pct.unwrap() - 90.0).abs() < 1e-9);
        assert_eq!(o[0].storage_irqs, Some(20_010));
        assert_eq!(o[0].storage_irqs_per_s, Some(10_005.0));
        assert_eq!(o[0].storage_irq_cpu, Some(0));
        assert_eq!(
            parse_self_ticks(
                "4242 (sbc bench) R 1 4242 4242 0 -1 4194304 300 0 0 0 1234 567 0 0 20 0"
            ),
            Some(1801)
        );
        assert_eq!(parse_self_ticks("garbage"), None);
        // Without readings (monitoring off) a pass keeps only its throughput.
        let o = observe(&r, &[], &clocks);
        assert_eq!(o[0].busiest_cpu, None);
        assert_eq!(o[0].window_ticks, None);
    }

    #[test]
    fn a_pass_shorter_than_the_sampler_still_gets_its_own_figures() {
        // A 16 MiB pass of 12 ms on a fast drive: 1 tick passed, so no CPU percentages,
        // but its own interrupt count and clocks, from readings at its own start and end.
        let start = window_sample(5.0, [300, 100], 400, [7000, 0], 1_800_000);
        let end = window_sample(5.01, [301, 100], 401, [7003, 1], 1_800_000);
        let r = one_pass(Phase::Reread, 5.0, 0.01);
        let w = PassWindow {
            record_bytes: 4096,
            phase: Phase::Reread,
            start,
            end,
        };
        let o = observe(&r, &[w], &[]);
        assert_eq!(o[0].window_ticks, Some(1));
        assert_eq!(o[0].busiest_cpu_pct, None);
        assert_eq!(o[0].self_cpu_pct, None);
        assert_eq!(o[0].storage_irqs, Some(4));
        assert!((o[0].storage_irqs_per_s.unwrap() - 400.0).abs() < 1e-6);
        assert_eq!(o[0].storage_irq_cpu, Some(0));
        assert_eq!(o[0].avg_khz, vec![(0, 1_800_000.0)]);
    }

    #[test]
    fn test_file_names_and_stale_files() {
        assert_eq!(
            test_file_pid(".sbc-bench-iotest.23534.1234567890"),
            Some(23534)
        );
        assert_eq!(test_file_pid(".sbc-bench-iotest.1.12345678901"), Some(1));
        for bad in [
            ".sbc-bench-iotest.23534.123",
            ".sbc-bench-iotest.x.1234567890",
            ".sbc-bench-iotest.23534.1234567890.bak",
            "sbc-bench-iotest.23534.1234567890",
            ".sbc-bench-iotest..1234567890",
            ".sbc-bench-iotest.23534.123456789012",
        ] {
            assert_eq!(test_file_pid(bad), None, "{bad}");
        }
        // The name our own TempFile uses matches the pattern.
        let d = tempfile::tempdir().unwrap();
        let t = TempFile::create(d.path()).unwrap();
        let name = t.path().file_name().unwrap().to_str().unwrap().to_string();
        assert_eq!(test_file_pid(&name), Some(std::process::id()));
        // Our own live file is never touched.
        assert!(clean_stale(d.path()).is_empty());
        drop(t);

        // A dead process's file goes; one of a live process, one held open and one
        // with a name that merely looks similar stay.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let gone = d
            .path()
            .join(format!(".sbc-bench-iotest.{dead}.1234567890"));
        std::fs::write(&gone, vec![0u8; 8192]).unwrap();
        let live = d.path().join(".sbc-bench-iotest.1.1234567890");
        std::fs::write(&live, b"x").unwrap();
        let held = d
            .path()
            .join(format!(".sbc-bench-iotest.{dead}.9876543210"));
        std::fs::write(&held, b"x").unwrap();
        let _open = File::open(&held).unwrap();
        let similar = d.path().join(".sbc-bench-iotest.notes");
        std::fs::write(&similar, b"x").unwrap();
        let found = clean_stale(d.path());
        assert_eq!(found.len(), 3, "{found:?}");
        let by = |p: &Path| found.iter().find(|f| f.path == p).unwrap();
        assert!(by(&gone).removed);
        assert!(
            by(&gone)
                .words()
                .starts_with("removed a test file left by an earlier run")
        );
        assert!(!gone.exists());
        // PID 1 always exists (as root we could signal it; as a user we get EPERM).
        assert!(
            by(&live)
                .kept_because
                .as_deref()
                .unwrap()
                .contains("still exists")
        );
        assert!(live.exists());
        let h = by(&held);
        assert!(!h.removed && held.exists(), "{h:?}");
        assert!(h.kept_because.as_deref().unwrap().contains("open"), "{h:?}");
        assert!(similar.exists());
    }

    #[test]
    fn space_checks() {
        let mut c = Config::new("/x");
        c.size_bytes = 16 << 20;
        let full = FsSpace {
            avail_bytes: 8 << 20,
            total_bytes: 8 << 20,
        };
        let e = check_space(&c, full).unwrap_err().to_string();
        assert!(
            e.contains("needs 48 MiB") && e.contains("8 MiB are available"),
            "{e}"
        );
        let roomy = FsSpace {
            avail_bytes: 1 << 30,
            total_bytes: 2 << 30,
        };
        assert_eq!(check_space(&c, roomy).unwrap(), Vec::<String>::new());
        // ramfs reports 0 of 0 blocks and has no limit: not refused, said so, and RAM
        // is what must have room.
        let ramfs = FsSpace {
            avail_bytes: 0,
            total_bytes: 0,
        };
        let n = check_space(&c, ramfs).unwrap();
        assert!(n[0].contains("no size (ramfs has no limit)"), "{n:?}");
        c.mem_available_bytes = Some(1 << 30);
        assert!(check_space(&c, ramfs).unwrap()[0].contains("1024 MiB of RAM available"));
        c.mem_available_bytes = Some(20 << 20);
        let e = check_space(&c, ramfs).unwrap_err().to_string();
        assert!(
            e.contains("without a size limit") && e.contains("20 MiB"),
            "{e}"
        );
    }

    #[test]
    fn whole_records_only_is_said() {
        let mut c = Config::new("/x");
        assert_eq!(
            coverage_notes(&c),
            [
                "16 MiB records cover 96 MiB of the 100 MiB file (whole records only, as iozone does; MB/s count the bytes moved)"
            ]
        );
        c.size_bytes = 6 << 10;
        c.records = vec![4 << 10];
        assert!(coverage_notes(&c)[0].starts_with("4 KiB records cover 4 KiB of the 6 KiB file"));
        c.size_bytes = 64 << 20;
        c.records = vec![4 << 10, 16 << 20];
        assert!(coverage_notes(&c).is_empty());
    }
}
