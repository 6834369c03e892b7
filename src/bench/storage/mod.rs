//! Storage throughput, measured like `iozone -e -I -a -s SIZE -r 4k -r 16384k -i 0 -i 1
//! -i 2`: for every record size, sequential write, rewrite, read, reread, then random
//! read and random write over one file, with `O_DIRECT` (`-I`) and `fsync` inside the
//! write timings (`-e`).
//!
//! Safety first, since users run this as root on the only disk of a board: we only
//! ever write to a new file we create ourselves (`O_CREAT|O_EXCL`, mode 0600) in the
//! directory given, after checking there is room for it plus a margin; the file is
//! removed at the end, on any error (`ENOSPC`, `EIO`, the file size limit mid-run) and —
//! through a [`crate::shutdown`] cleanup — on Ctrl-C/SIGTERM. Block devices and existing
//! files are never opened for writing: every reopen checks the device and inode of the
//! file created, so a hard link swapped in for it is refused and the run stops.
//! Directories on the kernel's virtual filesystems (proc, sysfs, devtmpfs, cgroup…) are
//! refused up front.
//!
//! Where `O_DIRECT` is refused (`EINVAL`: tmpfs on old kernels, some FUSE filesystems),
//! the run continues buffered and says that the page cache was measured.

mod error;
mod file;
pub mod prepare;
mod space;
mod stale;

use std::io;
use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::shutdown::CancellationToken;

pub use error::StorageError;
pub use file::{BenchFile, FileId, FileTarget, Replaced, TempFile, replaced};
pub use space::{
    FsSpace, available_bytes, check_space, coverage_notes, fs_space, margin_bytes, preflight,
    pseudo_filesystem,
};
pub use stale::{StaleFile, TEMP_PREFIX, clean_stale, test_file_pid};

use file::AlignedBuf;

/// iozone's `-s 100M`.
pub const DEFAULT_SIZE: u64 = 100 << 20;
/// iozone's `-r 4k -r 16384k`.
pub const DEFAULT_RECORDS: [u64; 2] = [4 << 10, 16 << 20];
/// The most free space we leave on the filesystem on top of the test file (filesystems of
/// 1 GiB and more; smaller ones keep 1/32 of their size, see [`margin_bytes`]), and the
/// RAM left free on filesystems without a size (ramfs).
pub const MARGIN: u64 = 32 << 20;
/// The least free space left on top of the test file.
pub const MIN_MARGIN: u64 = 1 << 20;
/// Alignment of buffers, offsets and sizes for `O_DIRECT` (covers 4Kn drives).
pub const ALIGN: u64 = 4096;

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageConfig {
    /// Directory the test file is created in.
    pub dir: PathBuf,
    /// Size of the test file in bytes.
    pub size_bytes: u64,
    /// Record (block) sizes in bytes, each a multiple of 4 KiB.
    #[serde(default)]
    pub records: Vec<u64>,
    /// Check free space before starting. Only tests turn this off, to provoke ENOSPC
    /// in the middle of a run.
    pub check_space: bool,
    /// The instant pass start times are counted from (when the caller began to watch
    /// the run); the benchmark's own start when `None`.
    #[serde(skip)]
    pub epoch: Option<Instant>,
    /// RAM available (`/proc/meminfo`), checked instead of free space on filesystems
    /// that report no size at all (ramfs), whose files live in RAM without a limit.
    pub mem_available_bytes: Option<u64>,
    /// The directory's filesystem type as the mount table names it (`devtmpfs`, which
    /// `statfs` cannot tell from tmpfs), when known.
    #[serde(skip)]
    pub fstype: Option<String>,
}

impl StorageConfig {
    /// iozone's defaults for `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            size_bytes: DEFAULT_SIZE,
            records: DEFAULT_RECORDS.to_vec(),
            check_space: true,
            epoch: None,
            mem_available_bytes: None,
            fstype: None,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StoragePhase {
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

impl StoragePhase {
    /// In iozone's column order.
    pub const ALL: [StoragePhase; 6] = [
        StoragePhase::Write,
        StoragePhase::Rewrite,
        StoragePhase::Read,
        StoragePhase::Reread,
        StoragePhase::RandomRead,
        StoragePhase::RandomWrite,
    ];

    /// Human words.
    pub fn label(self) -> &'static str {
        match self {
            StoragePhase::Write => "write",
            StoragePhase::Rewrite => "rewrite",
            StoragePhase::Read => "read",
            StoragePhase::Reread => "reread",
            StoragePhase::RandomRead => "random read",
            StoragePhase::RandomWrite => "random write",
        }
    }

    /// Does this phase write?
    pub fn writes(self) -> bool {
        matches!(
            self,
            StoragePhase::Write | StoragePhase::Rewrite | StoragePhase::RandomWrite
        )
    }
}

/// The result of one pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    /// Which pass.
    pub phase: StoragePhase,
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
    /// A pass of `bytes` in `ops` calls over `seconds`, with its rates.
    pub fn new(phase: StoragePhase, started_s: f64, seconds: f64, bytes: u64, ops: u64) -> Self {
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordResult {
    /// Record size in bytes.
    pub record_bytes: u64,
    /// The six passes in iozone's order.
    #[serde(default)]
    pub phases: Vec<PhaseResult>,
}

impl RecordResult {
    /// The result of `phase`.
    pub fn get(&self, phase: StoragePhase) -> Option<&PhaseResult> {
        self.phases.iter().find(|p| p.phase == phase)
    }
}

/// A finished benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    #[serde(default)]
    pub records: Vec<RecordResult>,
    /// Things the user must know about the numbers.
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// `4 KiB`, `16 MiB`: whole MiB when exact, KiB otherwise.
pub fn size_words(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
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
        phase: StoragePhase,
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
    cfg: &StorageConfig,
    cancel: &CancellationToken,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<BenchResult, StorageError> {
    let mut warnings = preflight(cfg)?;
    let tmp = TempFile::create(&cfg.dir).map_err(|cause| StorageError::Create {
        dir: cfg.dir.clone(),
        cause,
    })?;
    let mut target = FileTarget::open(&tmp).map_err(|cause| match replaced(&cause) {
        Some(r) => StorageError::Replaced {
            path: r.path.clone(),
        },
        None => StorageError::Create {
            dir: cfg.dir.clone(),
            cause,
        },
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

/// The measurement loop over any [`BenchFile`].
pub fn run_on(
    cfg: &StorageConfig,
    target: &mut dyn BenchFile,
    cancel: &CancellationToken,
    events: &mut dyn FnMut(Event<'_>),
) -> Result<BenchResult, StorageError> {
    let mut pass = Pass {
        t0: cfg.epoch.unwrap_or_else(Instant::now),
        done: 0,
        file_bytes: cfg.size_bytes,
        target,
        cancel,
        events,
    };
    (pass.events)(Event::Opened {
        direct: pass.target.direct(),
    });
    let mut records = Vec::new();
    for &rec in &cfg.records {
        let n = cfg.size_bytes / rec;
        let mut buf = AlignedBuf::new(rec as usize);
        let mut phases = Vec::new();
        for phase in StoragePhase::ALL {
            phases.push(pass.run(phase, rec, n, &mut buf)?);
        }
        records.push(RecordResult {
            record_bytes: rec,
            phases,
        });
    }
    let direct = pass.target.direct();
    let mut warnings = Vec::new();
    if !direct {
        warnings.push(
            "O_DIRECT is not supported on this filesystem: buffered I/O was used, so the page \
             cache (RAM) was measured for reads, not the device"
                .to_string(),
        );
    }
    Ok(BenchResult {
        dir: cfg.dir.display().to_string(),
        file_size_bytes: cfg.size_bytes,
        direct_io: direct,
        fsync_in_write_timing: true,
        records,
        warnings,
    })
}

/// What every pass of a run shares.
struct Pass<'a> {
    /// Pass start times count from here.
    t0: Instant,
    /// Bytes moved by the passes before.
    done: u64,
    /// Size of the test file.
    file_bytes: u64,
    target: &'a mut dyn BenchFile,
    cancel: &'a CancellationToken,
    events: &'a mut dyn FnMut(Event<'_>),
}

impl Pass<'_> {
    /// One pass over `n` records of `rec` bytes, timed with its fsync.
    fn run(
        &mut self,
        phase: StoragePhase,
        rec: u64,
        n: u64,
        buf: &mut AlignedBuf,
    ) -> Result<PhaseResult, StorageError> {
        let file_bytes = self.file_bytes;
        let io_err = |offset: u64, cause: io::Error| {
            let at = if cause.raw_os_error() == Some(libc::EFBIG) {
                // The limit itself, when it lies in the record that failed (a short
                // write filled the record up to it); the record's offset otherwise.
                file_size_limit()
                    .filter(|l| (offset..=offset + rec).contains(l))
                    .unwrap_or(offset)
            } else {
                offset
            };
            io_error(phase, rec, file_bytes, at, cause)
        };
        if phase == StoragePhase::Write {
            self.target.truncate().map_err(|e| io_err(0, e))?;
        }
        self.target.reopen().map_err(|e| io_err(0, e))?;
        let order: Vec<u64> = match phase {
            StoragePhase::RandomRead => shuffled(n, 0x5eed ^ rec),
            StoragePhase::RandomWrite => shuffled(n, 0xbeef ^ rec),
            _ => (0..n).collect(),
        };
        (self.events)(Event::PassStarting {
            record_bytes: rec,
            phase,
        });
        let start = Instant::now();
        for (k, &i) in order.iter().enumerate() {
            if self.cancel.is_cancelled() {
                return Err(StorageError::Interrupted);
            }
            let off = i * rec;
            if phase.writes() {
                buf.stamp(self.done / rec + k as u64);
                self.target
                    .write_at(buf.as_ref(), off)
                    .map_err(|e| io_err(off, e))?;
            } else {
                self.target
                    .read_at(buf.as_mut(), off)
                    .map_err(|e| io_err(off, e))?;
            }
            (self.events)(Event::Progress(self.done + (k as u64 + 1) * rec));
        }
        if phase.writes() {
            self.target.sync().map_err(|e| io_err(n * rec, e))?;
        }
        let secs = start.elapsed().as_secs_f64();
        self.done += n * rec;
        let result = PhaseResult::new(
            phase,
            start.duration_since(self.t0).as_secs_f64(),
            secs,
            n * rec,
            n,
        );
        (self.events)(Event::PassDone {
            record_bytes: rec,
            result: &result,
        });
        Ok(result)
    }
}

/// The soft file size limit (`ulimit -f`, RLIMIT_FSIZE) in bytes; `None` when unlimited.
// `rlim_t` is 32 bits on some 32-bit targets: the cast is needed there.
#[allow(clippy::unnecessary_cast)]
fn file_size_limit() -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given, which lives on our stack.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut r) } == 0;
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur as u64)
}

/// What an I/O error during a pass means: the file size limit (EFBIG: `ulimit -f`, with
/// SIGXFSZ ignored), the test file swapped for another, or a plain I/O error.
fn io_error(
    phase: StoragePhase,
    rec: u64,
    file_bytes: u64,
    offset: u64,
    cause: io::Error,
) -> StorageError {
    if let Some(r) = replaced(&cause) {
        return StorageError::Replaced {
            path: r.path.clone(),
        };
    }
    if cause.raw_os_error() == Some(libc::EFBIG) {
        return StorageError::FileSizeLimit {
            at_bytes: offset,
            file_bytes,
        };
    }
    StorageError::Io {
        phase: phase.label(),
        record: rec / 1024,
        offset,
        cause,
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
    fn size_names() {
        assert_eq!(size_words(4096), "4 KiB");
        assert_eq!(size_words(16 << 20), "16 MiB");
        assert_eq!(size_words(512 << 10), "512 KiB");
    }

    #[test]
    fn units() {
        let p = PhaseResult::new(StoragePhase::Read, 0.0, 2.0, 100 << 20, 25600);
        assert_eq!(p.kib_per_s, 51200.0);
        assert!((p.mb_per_s - 52.4288).abs() < 1e-9);
        assert_eq!(p.iops, 12800.0);
        // 100 MiB is 6.25 records of 16 MiB: whole records only, as iozone does.
        assert_eq!(
            StorageConfig::new("/x").total_bytes(),
            6 * (100 << 20) + 6 * (6 * (16 << 20))
        );
    }

    #[test]
    fn a_small_real_run_leaves_nothing_behind() {
        let d = tempfile::tempdir().unwrap();
        let mut c = StorageConfig::new(d.path());
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

    impl BenchFile for Faulty {
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
        let mut c = StorageConfig::new(d.path());
        c.size_bytes = 1 << 20;
        c.records = vec![64 << 10];
        let err = {
            let tmp = TempFile::create(d.path()).unwrap();
            let mut t = Faulty {
                inner: FileTarget::open(&tmp).unwrap(),
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
            matches!(&err, StorageError::Io { cause, .. } if cause.raw_os_error() == Some(libc::EIO)),
            "{msg}"
        );
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    /// EFBIG (a write past `ulimit -f`, SIGXFSZ ignored) says which limit stopped the run
    /// and where, not "File too large" at an offset.
    #[test]
    fn efbig_is_the_file_size_limit() {
        let d = tempfile::tempdir().unwrap();
        let mut c = StorageConfig::new(d.path());
        c.size_bytes = 1 << 20;
        c.records = vec![64 << 10];
        let err = {
            let tmp = TempFile::create(d.path()).unwrap();
            let mut t = Faulty {
                inner: FileTarget::open(&tmp).unwrap(),
                ok_writes: 8,
                errno: libc::EFBIG,
            };
            run_on(&c, &mut t, &CancellationToken::new(), &mut |_| {}).unwrap_err()
        };
        assert!(
            matches!(
                err,
                StorageError::FileSizeLimit {
                    at_bytes: 524_288,
                    file_bytes: 1_048_576
                }
            ),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "file size limit (ulimit -f) reached at 512 KiB: the test needs a 1 MiB file; raise \
             the limit (ulimit -f unlimited) or give a smaller --size (test file removed)"
        );
        assert!(!err.is_usage());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn cancellation_stops_between_records() {
        let d = tempfile::tempdir().unwrap();
        let mut c = StorageConfig::new(d.path());
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
        assert!(matches!(e, StorageError::Interrupted));
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
