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
    /// The test file could not be created.
    #[error("cannot create a test file in {dir}: {source}")]
    Create {
        /// Directory.
        dir: PathBuf,
        /// Cause.
        source: io::Error,
    },
    /// An I/O error during a pass (ENOSPC, EIO…). The test file has been removed.
    #[error(
        "{phase} with {record} KiB records failed at offset {offset}: {source} (test file removed)"
    )]
    Io {
        /// Pass.
        phase: &'static str,
        /// Record size in KiB.
        record: u64,
        /// Byte offset.
        offset: u64,
        /// Cause.
        source: io::Error,
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

/// Bytes available to us on the filesystem holding `dir`.
pub fn available_bytes(dir: &Path) -> io::Result<u64> {
    let s = nix::sys::statvfs::statvfs(dir).map_err(io::Error::from)?;
    Ok((s.blocks_available() as u64).saturating_mul(s.fragment_size() as u64))
}

/// Check the configuration and the directory; returns what would be needed.
pub fn preflight(cfg: &Config) -> Result<(), BenchError> {
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
            source: io::Error::from(e),
        }
    })?;
    if cfg.check_space {
        let avail = available_bytes(&cfg.dir).map_err(|source| BenchError::Create {
            dir: cfg.dir.clone(),
            source,
        })?;
        let need = cfg.size_bytes.saturating_add(MARGIN);
        if avail < need {
            return Err(BenchError::NoSpace {
                dir: cfg.dir.clone(),
                need: need.div_ceil(1 << 20),
                margin: MARGIN >> 20,
                avail: avail >> 20,
            });
        }
    }
    Ok(())
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

/// Run the benchmark on the real filesystem: creates the test file, runs, removes it.
pub fn run(
    cfg: &Config,
    cancel: &CancellationToken,
    progress: &mut dyn FnMut(u64),
) -> Result<BenchResult, BenchError> {
    preflight(cfg)?;
    let tmp = TempFile::create(&cfg.dir).map_err(|source| BenchError::Create {
        dir: cfg.dir.clone(),
        source,
    })?;
    let mut target = FileTarget::open(tmp.path()).map_err(|source| BenchError::Create {
        dir: cfg.dir.clone(),
        source,
    })?;
    let r = run_on(cfg, &mut target, cancel, progress);
    drop(target);
    drop(tmp);
    r
}

/// The measurement loop over any [`Target`].
pub fn run_on(
    cfg: &Config,
    target: &mut dyn Target,
    cancel: &CancellationToken,
    progress: &mut dyn FnMut(u64),
) -> Result<BenchResult, BenchError> {
    let t0 = cfg.epoch.unwrap_or_else(Instant::now);
    let mut done = 0u64;
    let mut records = Vec::new();
    for &rec in &cfg.records {
        let n = cfg.size_bytes / rec;
        let mut buf = AlignedBuf::new(rec as usize);
        let mut phases = Vec::new();
        for phase in Phase::ALL {
            let io_err = |offset: u64, source: io::Error| BenchError::Io {
                phase: phase.label(),
                record: rec / 1024,
                offset,
                source,
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
                progress(done + (k as u64 + 1) * rec);
            }
            if phase.writes() {
                target.sync().map_err(|e| io_err(n * rec, e))?;
            }
            let secs = start.elapsed().as_secs_f64();
            done += n * rec;
            phases.push(PhaseResult::new(
                phase,
                start.duration_since(t0).as_secs_f64(),
                secs,
                n * rec,
                n,
            ));
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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IoSample {
    /// Seconds since the sampler started.
    pub t_s: f64,
    /// `/proc/stat` per CPU.
    pub cpus: std::collections::BTreeMap<u32, crate::monitor::stat::CpuTimes>,
    /// Current clock per cpufreq policy, kHz.
    pub khz: Vec<(u32, u64)>,
    /// This process's user + system time (`/proc/self/stat`), clock ticks.
    pub self_ticks: Option<u64>,
}

/// A thread reading `/proc/stat` and the cpufreq policies' `scaling_cur_freq` at a
/// fixed interval while the benchmark runs.
#[derive(Debug)]
pub struct Sampler {
    stop: std::sync::Arc<CancellationToken>,
    handle: Option<std::thread::JoinHandle<Vec<IoSample>>>,
    t0: Instant,
}

impl Sampler {
    /// Start sampling `root` every `interval` (the first sample is taken at once).
    pub fn start(root: crate::sys::root::SysRoot, interval: Duration) -> Self {
        let stop = std::sync::Arc::new(CancellationToken::new());
        let s2 = std::sync::Arc::clone(&stop);
        let t0 = Instant::now();
        let policies: Vec<u32> = crate::sys::cpufreq::read_policies(&root)
            .iter()
            .map(|p| p.id)
            .collect();
        let handle = std::thread::Builder::new()
            .name("storage-sampler".into())
            .spawn(move || {
                let mut out = Vec::new();
                loop {
                    out.push(sample(&root, &policies, t0));
                    if !s2.sleep(interval) {
                        out.push(sample(&root, &policies, t0));
                        return out;
                    }
                }
            })
            .ok();
        Self { stop, handle, t0 }
    }

    /// When sampling started (phase times are measured from the benchmark's own start,
    /// which is a few microseconds later).
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

fn sample(root: &crate::sys::root::SysRoot, policies: &[u32], t0: Instant) -> IoSample {
    let cpus = root
        .read_opt("/proc/stat")
        .map(|t| crate::monitor::stat::parse_proc_stat(&t).per_cpu)
        .unwrap_or_default();
    let khz = policies
        .iter()
        .filter_map(|&id| {
            root.parse::<u64>(crate::sys::cpufreq::policy_attr(id, "scaling_cur_freq"))
                .map(|k| (id, k))
        })
        .collect();
    IoSample {
        t_s: t0.elapsed().as_secs_f64(),
        cpus,
        khz,
        // Our own process's CPU time: `/proc/self` is this process, which is fine because
        // the sampler only runs on the live system (`storage bench` starts it only there).
        self_ticks: root
            .read_opt("/proc/self/stat")
            .and_then(|t| parse_self_ticks(&t)),
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

/// Combine results and samples into per-pass observations. `offset_s` is how much
/// later than the sampler the benchmark's clock started.
pub fn observe(result: &BenchResult, samples: &[IoSample], offset_s: f64) -> Vec<PhaseObservation> {
    let mut out = Vec::new();
    for rec in &result.records {
        for p in &rec.phases {
            let start = p.started_s + offset_s;
            let end = start + p.seconds;
            let mut o = PhaseObservation {
                record_bytes: rec.record_bytes,
                phase: Some(p.phase),
                mb_per_s: p.mb_per_s,
                seconds: p.seconds,
                ..Default::default()
            };
            let a = samples.iter().rev().find(|s| s.t_s <= start + 0.02);
            let b = samples.iter().find(|s| s.t_s >= end - 0.02);
            if let (Some(a), Some(b)) = (a, b) {
                if b.t_s > a.t_s {
                    fill_usage(&mut o, a, b, samples);
                }
            }
            out.push(o);
        }
    }
    out
}

fn fill_usage(o: &mut PhaseObservation, a: &IoSample, b: &IoSample, all: &[IoSample]) {
    use crate::monitor::stat::{CpuTimes, usage};
    let mut best: Option<(u32, f64, f64, f64)> = None;
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
    for (cpu, ta) in &a.cpus {
        let Some(tb) = b.cpus.get(cpu) else { continue };
        add(&mut tot_a, ta);
        add(&mut tot_b, tb);
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
    // Ticks per CPU elapsed between the samples = the window in clock ticks.
    let ncpu = a.cpus.len().max(1) as u64;
    let window = tot_b.total().saturating_sub(tot_a.total()) / ncpu;
    if let (Some(sa), Some(sb)) = (a.self_ticks, b.self_ticks) {
        if window > 0 && sb >= sa {
            o.self_cpu_pct = Some((sb - sa) as f64 * 100.0 / window as f64);
        }
    }
    // Average clock over the samples inside the window.
    let inside: Vec<&IoSample> = all
        .iter()
        .filter(|s| s.t_s >= a.t_s && s.t_s <= b.t_s)
        .collect();
    let mut ids: Vec<u32> = inside
        .iter()
        .flat_map(|s| s.khz.iter().map(|k| k.0))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        let v: Vec<u64> = inside
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
        let r = run(&c, &CancellationToken::new(), &mut |b| last = b).unwrap();
        assert_eq!(last, c.total_bytes());
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
        let msg = err.to_string();
        // 16 writes of the first pass succeed, the 5th of the rewrite fails.
        assert!(
            msg.contains("rewrite with 64 KiB records failed at offset 262144"),
            "{msg}"
        );
        // (glibc words EIO "Input/output error", musl "I/O error")
        assert!(
            matches!(&err, BenchError::Io { source, .. } if source.raw_os_error() == Some(libc::EIO)),
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
        let e = run(&c, &t, &mut |_| {
            n += 1;
            if n == 10 {
                t.cancel();
            }
        })
        .unwrap_err();
        assert!(matches!(e, BenchError::Interrupted));
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn observation_windows() {
        use crate::monitor::stat::CpuTimes;
        // 100 ticks per second per CPU; `b0`/`b1` ticks of them busy in the kernel.
        let cpu = |busy: u64, total: u64| CpuTimes {
            system: busy,
            idle: total - busy,
            ..Default::default()
        };
        let s = |t: f64, b0: u64, b1: u64, khz: u64| IoSample {
            t_s: t,
            cpus: [(0, cpu(b0, t as u64 * 100)), (1, cpu(b1, t as u64 * 100))].into(),
            khz: vec![(0, khz)],
            self_ticks: Some((t * 90.0) as u64),
        };
        let samples = vec![
            s(0.0, 0, 0, 408_000),
            s(1.0, 95, 10, 1_800_000),
            s(2.0, 190, 20, 1_800_000),
        ];
        let r = BenchResult {
            dir: "/x".into(),
            file_size_bytes: 1,
            direct_io: true,
            fsync_in_write_timing: true,
            records: vec![RecordResult {
                record_bytes: 4096,
                phases: vec![PhaseResult::new(Phase::RandomRead, 0.0, 2.0, 1, 1)],
            }],
            warnings: vec![],
        };
        let o = observe(&r, &samples, 0.0);
        assert_eq!(o[0].busiest_cpu, Some(0));
        assert!((o[0].busiest_cpu_pct.unwrap() - 95.0).abs() < 1e-9);
        assert!((o[0].busiest_cpu_sys_pct.unwrap() - 95.0).abs() < 1e-9);
        assert_eq!(o[0].avg_khz, vec![(0, 1_336_000.0)]);
        assert!((o[0].self_cpu_pct.unwrap() - 90.0).abs() < 1e-9);
        assert_eq!(
            parse_self_ticks(
                "4242 (sbc bench) R 1 4242 4242 0 -1 4194304 300 0 0 0 1234 567 0 0 20 0"
            ),
            Some(1801)
        );
        assert_eq!(parse_self_ticks("garbage"), None);
        // A pass shorter than the sampling interval has no observation.
        let o = observe(&r, &samples[..1], 0.0);
        assert_eq!(o[0].busiest_cpu, None);
    }
}
