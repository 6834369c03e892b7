//! Memory bandwidth with tinymembench's method (0.4.9-nuumio, the build sbc-bench runs): MB/s
//! with 1 MB = 10^6 bytes, a copy counts the bytes copied once, two 32 MiB buffers placed as
//! tinymembench places them, repetitions of ≥ 0.5 s in doubling batches, each result the best
//! of two or three repetitions with the sample standard deviation kept (shown when ≥ 0.1 %).
//! docs/FIDELITY.md states the method's facts.
//!
//! Measured: the C library's `memcpy`, `memchr` and `memset` (what sbc-bench summarises as
//! `memcpy`/`memset`, and Results.md's columns), then (not in the standard run) our own SIMD
//! copy and fill kernels, so the best achievable bandwidth is visible where the libc is slow
//! (an old or generic one).
//! Where the last-level cache is so large that 32 MiB buffers stay partly in it, libc
//! `memcpy` and `memset` are measured once more on buffers well beyond it: the DRAM rows,
//! labelled apart.
//!
//! Runs on the calling thread: pin it first ([`crate::bench::pin::run_on`]), so the buffers
//! are also first touched, and placed, from that core.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bench::kernels::buffer::{Advice, Buffer};
use crate::bench::kernels::copy::{self, GRANULE, Op};
use crate::bench::pin::Target;
use crate::bench::{BenchError, Benchmark, Progress};
use crate::shutdown::CancellationToken;

const MIB: usize = 1024 * 1024;
/// tinymembench's buffer size, the minimum we use for the DRAM buffers.
pub const MIN_BUFFER: usize = 32 * MIB;
/// tinymembench's buffer size (`SIZE`): the libc and kernel rows use two of these.
pub const TMB_BUFFER: usize = 32 * MIB;
/// tinymembench aligns each buffer's region to 1 MiB …
const TMB_ALIGN: usize = MIB;
/// … and offsets the source and destination inside it by these anti-aliasing patterns
/// (multiples of its 128-byte cache-line unit, so they never share cache sets in step).
const TMB_SRC_OFFSET: usize = 0xAAA80;
const TMB_DST_OFFSET: usize = 0x55500;
/// Never more than this per buffer, however large the cache.
pub const MAX_BUFFER: usize = 512 * MIB;
/// Share of `MemAvailable` all our buffers together may take.
pub const MEM_SHARE_DIVISOR: u64 = 4;

/// Byte everything is filled with, and `memset` writes (tinymembench's `FILL_8`); `memchr`
/// looks for [`SEARCH_BYTE`] (its `SEARCH_8`), found only in the last byte, so it scans the
/// whole buffer.
const FILL_BYTE: u8 = 0xcc;
const SEARCH_BYTE: u8 = 0x55;

/// How long and how often to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct MembwOptions {
    /// Time of one repetition (tinymembench: 0.5 s).
    pub rep_time: Duration,
    /// At least this many repetitions (sbc-bench passes `-b 2`).
    pub min_reps: u32,
    /// At most this many (sbc-bench passes `-B 3`); stops earlier once the standard
    /// deviation is below 0.1 % of the best.
    pub max_reps: u32,
    /// Shortened run (smaller buffers allowed).
    pub quick: bool,
    /// Measure our SIMD kernels (`AVX2 copy` …) after the libc rows: `bench membw` and the
    /// extensive run do; the standard run leaves them out (no published column or log line
    /// of sbc-bench's is theirs, and they cost ~3 s per cluster).
    pub kernels: bool,
    /// Repetitions of the rows no published column uses, our kernels (`AVX2 copy` …) and the
    /// DRAM rows: `None` as many as the libc rows (`bench membw`); the standard run measures
    /// them once.
    pub extra_reps: Option<u32>,
}

impl MembwOptions {
    /// tinymembench as sbc-bench runs it: ≤ 30 s per cluster.
    pub fn standard() -> Self {
        Self {
            rep_time: Duration::from_millis(500),
            min_reps: 2,
            max_reps: 3,
            quick: false,
            kernels: true,
            extra_reps: None,
        }
    }

    /// For tests and smoke runs: well under a second per row.
    pub fn quick() -> Self {
        Self {
            rep_time: Duration::from_millis(20),
            min_reps: 2,
            max_reps: 2,
            quick: true,
            kernels: true,
            extra_reps: None,
        }
    }
}

/// How large the buffers are, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferPlan {
    /// Bytes per buffer (a copy uses two).
    pub bytes: usize,
    /// What we wanted before memory limits.
    pub wanted_bytes: usize,
    /// Last-level cache size the plan is based on, in bytes.
    pub llc_bytes: Option<u64>,
    /// `MemAvailable` when planning, in bytes.
    pub mem_available_bytes: Option<u64>,
    /// A sentence when the buffers are smaller than they should be.
    pub note: Option<String>,
}

fn mib(b: u64) -> u64 {
    b / MIB as u64
}

/// Size the buffers: at least 32 MiB and four times the last-level cache, at most 512 MiB,
/// and both buffers together at most a quarter of `MemAvailable` (boards with 512 MiB exist).
/// `quick` caps them at 16 MiB.
pub fn plan_buffer(llc: Option<u64>, mem_available: Option<u64>, quick: bool) -> BufferPlan {
    let from_cache = llc
        .map(|c| usize::try_from(c.saturating_mul(4)).unwrap_or(MAX_BUFFER))
        .unwrap_or(0);
    let mut wanted = from_cache.max(MIN_BUFFER).div_ceil(MIB) * MIB;
    wanted = wanted.min(MAX_BUFFER);
    if quick {
        wanted = wanted.min(16 * MIB);
    }
    let mut bytes = wanted;
    let mut notes = Vec::new();
    if let Some(avail) = mem_available {
        let per_buffer = avail / MEM_SHARE_DIVISOR / 2;
        let per_buffer = usize::try_from(per_buffer).unwrap_or(usize::MAX);
        if per_buffer < bytes {
            bytes = (per_buffer / MIB * MIB).max(MIB);
            notes.push(format!(
                "only {} MiB memory available: 2 x {} MiB buffers instead of 2 x {} MiB",
                mib(avail),
                bytes / MIB,
                wanted / MIB
            ));
        }
    }
    if let Some(c) = llc {
        if (bytes as u64) < c.saturating_mul(2) {
            notes.push(format!(
                "buffers not well beyond the {} MiB last-level cache: results include cache hits",
                mib(c).max(1)
            ));
        }
    }
    bytes = (bytes / GRANULE).max(1) * GRANULE;
    BufferPlan {
        bytes,
        wanted_bytes: wanted,
        llc_bytes: llc,
        mem_available_bytes: mem_available,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

/// The C library this binary uses, as `glibc 2.36` or `musl`.
pub fn libc_name() -> String {
    #[cfg(target_env = "gnu")]
    {
        // SAFETY: gnu_get_libc_version returns a static NUL-terminated string.
        let v = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
        format!("glibc {}", v.to_string_lossy())
    }
    #[cfg(target_env = "musl")]
    {
        "musl".to_string()
    }
    #[cfg(not(any(target_env = "gnu", target_env = "musl")))]
    {
        "unknown libc".to_string()
    }
}

/// What a row measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Copy (bytes copied once).
    Copy,
    /// Fill (bytes written).
    Fill,
    /// Scan (bytes read).
    Scan,
}

/// One measured routine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Label in tinymembench 0.4.9-nuumio's style (`libc memcpy copy`, `NEON LDP/STP copy`).
    pub name: String,
    /// Who implemented it: `libc` or the instruction set of our kernel (`neon`, `avx2`).
    pub implementation: String,
    /// Copy, fill or scan.
    pub kind: Kind,
    /// Best repetition in MB/s (10^6 bytes per second).
    pub mb_per_s: f64,
    /// Sample standard deviation of the repetitions, in percent of the best.
    pub stddev_pct: f64,
    /// Every repetition in MB/s.
    #[serde(default)]
    pub samples_mb_per_s: Vec<f64>,
}

/// The bandwidth results of one core.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MembwResult {
    /// The C library measured (`glibc 2.36`, `musl`).
    pub libc: String,
    /// Buffer sizing.
    pub buffers: BufferPlan,
    /// One row per routine, tinymembench's way (2 x [`TMB_BUFFER`]): libc first, then our
    /// kernels.
    #[serde(default)]
    pub rows: Vec<Row>,
    /// Bytes per buffer of `rows` (32 MiB unless memory is short or the run is quick).
    pub rows_buffer_bytes: usize,
    /// libc `memcpy` and `memset` on `buffers` (beyond the last-level cache): only when those
    /// are larger than `rows_buffer_bytes`, else `rows` are already the DRAM figures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dram_rows: Vec<Row>,
    /// Wall time in seconds.
    pub duration_s: f64,
    /// Stopped early by a signal.
    pub cancelled: bool,
}

impl MembwResult {
    fn row(&self, name: &str) -> Option<f64> {
        self.libc_row(name).map(|r| r.mb_per_s)
    }

    /// The libc row by its label ([`ROW_MEMCPY`] …), also under the old tinymembench label
    /// (`standard memcpy`) that earlier results carry.
    pub fn libc_row(&self, name: &str) -> Option<&Row> {
        let old = match name {
            ROW_MEMCPY => "standard memcpy",
            ROW_MEMSET => "standard memset",
            ROW_MEMCHR => "standard memchr",
            other => other,
        };
        self.rows.iter().find(|r| r.name == name || r.name == old)
    }

    /// libc `memcpy` in MB/s (sbc-bench's summary value).
    pub fn memcpy_mb_per_s(&self) -> Option<f64> {
        self.row(ROW_MEMCPY)
    }

    /// libc `memset` in MB/s (sbc-bench's summary value).
    pub fn memset_mb_per_s(&self) -> Option<f64> {
        self.row(ROW_MEMSET)
    }

    /// libc `memchr` in MB/s.
    pub fn memchr_mb_per_s(&self) -> Option<f64> {
        self.row(ROW_MEMCHR)
    }

    /// The DRAM row of `name` ([`ROW_DRAM_MEMCPY`], [`ROW_DRAM_MEMSET`]); `None` when no
    /// separate DRAM measurement was needed (or it was cancelled).
    pub fn dram_row(&self, name: &str) -> Option<&Row> {
        self.dram_rows.iter().find(|r| r.name == name)
    }
}

/// Row label of libc `memcpy` on buffers beyond the last-level cache (never starts like
/// [`ROW_MEMCPY`], so sbc-bench's `/^ libc memcpy copy/` never picks it).
pub const ROW_DRAM_MEMCPY: &str = "DRAM libc memcpy copy";
/// Row label of libc `memset` on buffers beyond the last-level cache.
pub const ROW_DRAM_MEMSET: &str = "DRAM libc memset fill";

/// Row label of libc `memcpy` (tinymembench 0.4.9-nuumio, current sbc-bench).
pub const ROW_MEMCPY: &str = "libc memcpy copy";
/// Row label of libc `memset`.
pub const ROW_MEMSET: &str = "libc memset fill";
/// Row label of libc `memchr`.
pub const ROW_MEMCHR: &str = "libc memchr scan";

/// The bandwidth run of one target CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MembwRun {
    /// Where it ran.
    pub target: Target,
    /// The results, `None` when it could not run.
    pub result: Option<MembwResult>,
    /// Why it could not run.
    pub error: Option<String>,
}

/// Sample standard deviation (n − 1); 0 for fewer than two values.
pub fn sample_stddev(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let ss: f64 = v.iter().map(|x| (x - mean) * (x - mean)).sum();
    (ss / (n - 1.0)).sqrt()
}

/// Repeat `f` (which processes `bytes` bytes per call) as tinymembench does: per repetition
/// one untimed call, then batches of 1, 2, 4 … calls until `rep_time` has passed (the clock
/// is read after each batch); at least `min_reps` repetitions, at most `max_reps`, stopping
/// once the sample standard deviation is below 0.1 % of the best. Returns (best, stddev %,
/// samples).
pub fn repeat(
    opts: &MembwOptions,
    bytes: usize,
    cancel: &CancellationToken,
    f: &mut dyn FnMut(),
) -> (f64, f64, Vec<f64>) {
    let mut samples = Vec::new();
    let mut best = 0.0f64;
    for n in 0..opts.max_reps.max(1) {
        f();
        let t0 = Instant::now();
        let mut calls = 0u64;
        let mut batch = 1u64;
        let elapsed = loop {
            for _ in 0..batch {
                f();
            }
            calls += batch;
            batch = batch.saturating_mul(2);
            let e = t0.elapsed();
            if e >= opts.rep_time || cancel.is_cancelled() {
                break e.as_secs_f64();
            }
        };
        let speed = bytes as f64 * calls as f64 / elapsed.max(1e-9) / 1e6;
        best = best.max(speed);
        samples.push(speed);
        if n + 1 >= opts.min_reps && sample_stddev(&samples) < best / 1000.0 {
            break;
        }
        if cancel.is_cancelled() {
            break;
        }
    }
    let pct = if best > 0.0 {
        sample_stddev(&samples) / best * 100.0
    } else {
        0.0
    };
    (best, pct, samples)
}

/// tinymembench's two buffers in one mapping: the region is 1 MiB-aligned, the source starts
/// [`TMB_SRC_OFFSET`] into it, the destination [`TMB_DST_OFFSET`] after the next 1 MiB
/// boundary past the source's end; everything is filled with [`FILL_BYTE`] (faulting every
/// page in), and the source's last byte is [`SEARCH_BYTE`].
struct TmbPool {
    buf: Buffer,
    bytes: usize,
    dst_at: usize,
}

impl TmbPool {
    fn new(bytes: usize) -> Result<Self, String> {
        let dst_at = (TMB_SRC_OFFSET + bytes).div_ceil(TMB_ALIGN) * TMB_ALIGN + TMB_DST_OFFSET;
        let mut buf = Buffer::new(dst_at + bytes, Advice::Default).map_err(|e| {
            format!(
                "cannot allocate the 2 x {} MiB buffers: {e}",
                bytes.div_ceil(MIB)
            )
        })?;
        buf.fill(FILL_BYTE);
        if let Some(last) = buf.as_mut_slice().get_mut(TMB_SRC_OFFSET + bytes - 1) {
            *last = SEARCH_BYTE;
        }
        Ok(Self { buf, bytes, dst_at })
    }

    /// (destination, source).
    fn split(&mut self) -> (&mut [u8], &[u8]) {
        let (head, tail) = self.buf.as_mut_slice().split_at_mut(self.dst_at);
        (
            &mut tail[..self.bytes],
            &head[TMB_SRC_OFFSET..TMB_SRC_OFFSET + self.bytes],
        )
    }
}

/// libc `memcpy` from `s` to `d`, `bytes` long.
fn libc_copy(
    opts: &MembwOptions,
    d: *mut u8,
    s: *const u8,
    bytes: usize,
    cancel: &CancellationToken,
) -> (f64, f64, Vec<f64>) {
    // SAFETY: the callers pass distinct live buffers of at least `bytes` bytes.
    repeat(opts, bytes, cancel, &mut || unsafe {
        libc::memcpy(d as *mut libc::c_void, s as *const libc::c_void, bytes);
    })
}

/// libc `memset` of `d`, `bytes` long, with [`FILL_BYTE`].
fn libc_fill(
    opts: &MembwOptions,
    d: *mut u8,
    bytes: usize,
    cancel: &CancellationToken,
) -> (f64, f64, Vec<f64>) {
    // SAFETY: the callers pass a live buffer of at least `bytes` bytes.
    repeat(opts, bytes, cancel, &mut || unsafe {
        libc::memset(d as *mut libc::c_void, i32::from(FILL_BYTE), bytes);
    })
}

/// Measure every routine on the calling thread's core: the libc and kernel rows on
/// tinymembench's buffers (2 x 32 MiB, or `plan.bytes` when smaller), then, when `plan`'s
/// buffers are larger, the DRAM rows on those. `progress(done, total)` after each row.
pub fn run(
    opts: &MembwOptions,
    plan: &BufferPlan,
    cancel: &CancellationToken,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<MembwResult, String> {
    let start = Instant::now();
    let bytes = TMB_BUFFER.min(plan.bytes);
    let dram = plan.bytes > bytes;
    let kernels = if opts.kernels {
        copy::kernels()
    } else {
        Vec::new()
    };
    let total = 3 + kernels.len() + if dram { 2 } else { 0 };
    let mut done = 0;
    let mut row = |name: &str, imp: &str, kind: Kind, r: (f64, f64, Vec<f64>)| {
        done += 1;
        progress(done, total);
        Row {
            name: name.to_string(),
            implementation: imp.to_string(),
            kind,
            mb_per_s: r.0,
            stddev_pct: r.1,
            samples_mb_per_s: r.2,
        }
    };

    // Our kernels and the DRAM rows take their own repetitions (the libc rows keep
    // tinymembench's).
    let extra_opts = match opts.extra_reps {
        Some(n) => MembwOptions {
            min_reps: n,
            max_reps: n,
            ..opts.clone()
        },
        None => opts.clone(),
    };
    let mut rows = Vec::new();
    {
        let mut pool = TmbPool::new(bytes)?;
        let (dst, src) = pool.split();
        let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
        rows.push(row(
            ROW_MEMCPY,
            "libc",
            Kind::Copy,
            libc_copy(opts, d, s, bytes, cancel),
        ));
        if !cancel.is_cancelled() {
            let mut found = std::ptr::null_mut();
            // SAFETY: s points to `bytes` live bytes.
            let r = repeat(opts, bytes, cancel, &mut || unsafe {
                found = std::hint::black_box(libc::memchr(
                    s as *const libc::c_void,
                    i32::from(SEARCH_BYTE),
                    bytes,
                ));
            });
            // The scan must have found the marker in the last byte, or it measured nothing.
            if found as usize != s as usize + bytes - 1 {
                return Err("memchr did not find the marker byte: measurement invalid".to_string());
            }
            rows.push(row(ROW_MEMCHR, "libc", Kind::Scan, r));
        }
        if !cancel.is_cancelled() {
            rows.push(row(
                ROW_MEMSET,
                "libc",
                Kind::Fill,
                libc_fill(opts, d, bytes, cancel),
            ));
        }
        for k in &kernels {
            if cancel.is_cancelled() {
                break;
            }
            let mut ok = true;
            let r = repeat(&extra_opts, bytes, cancel, &mut || {
                ok &= k.run(&mut *dst, src);
            });
            if !ok {
                return Err(format!("kernel {} refused the buffers", k.name));
            }
            let kind = match k.op {
                Op::Copy => Kind::Copy,
                Op::Fill => Kind::Fill,
            };
            rows.push(row(k.name, k.isa, kind, r));
        }
    }

    let mut dram_rows = Vec::new();
    if dram && !cancel.is_cancelled() {
        measure_dram(&extra_opts, plan.bytes, cancel, &mut |name, kind, r| {
            dram_rows.push(row(name, "libc", kind, r));
        })?;
    }
    Ok(MembwResult {
        libc: libc_name(),
        buffers: plan.clone(),
        rows,
        rows_buffer_bytes: bytes,
        dram_rows,
        duration_s: start.elapsed().as_secs_f64(),
        cancelled: cancel.is_cancelled(),
    })
}

/// One row's measurement: the best MB/s, the standard deviation in % and every repetition.
type Measured = (f64, f64, Vec<f64>);

/// The DRAM rows: libc `memcpy` and `memset` on two buffers of `bytes` each, beyond the
/// last-level cache; `each` gets every row as it is measured.
fn measure_dram(
    opts: &MembwOptions,
    bytes: usize,
    cancel: &CancellationToken,
    each: &mut dyn FnMut(&str, Kind, Measured),
) -> Result<(), String> {
    let alloc = |what: &str| {
        Buffer::new(bytes, Advice::Default).map_err(|e| {
            format!(
                "cannot allocate the {what} buffer ({} MiB): {e}",
                bytes / MIB
            )
        })
    };
    let mut src = alloc("source")?;
    let mut dst = alloc("destination")?;
    src.fill(FILL_BYTE);
    dst.fill(0);
    let (s, d) = (src.as_mut_ptr() as *const u8, dst.as_mut_ptr());
    each(
        ROW_DRAM_MEMCPY,
        Kind::Copy,
        libc_copy(opts, d, s, bytes, cancel),
    );
    if !cancel.is_cancelled() {
        each(
            ROW_DRAM_MEMSET,
            Kind::Fill,
            libc_fill(opts, d, bytes, cancel),
        );
    }
    Ok(())
}

/// Memory bandwidth on one target (see [`run_target`]).
#[derive(Debug, Clone, Copy)]
pub struct Membw<'a> {
    /// Where caches and `MemAvailable` are read.
    pub root: &'a crate::sys::root::SysRoot,
    /// The CPU to run on.
    pub target: &'a Target,
}

impl Benchmark for Membw<'_> {
    const NAME: &'static str = "membw";
    type Options = MembwOptions;
    type Output = MembwRun;

    /// [`run_target`]; problems and cancellation are recorded in the run.
    fn run(
        &self,
        opts: &MembwOptions,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<MembwRun, BenchError> {
        Ok(run_target(
            self.root,
            self.target,
            opts,
            cancel,
            &mut |d, t| progress.count(d, t),
        ))
    }
}

/// Plan the buffers for `target` (its last-level cache, `MemAvailable`), pin a thread there
/// and measure: what the CLI and the standard run call per cluster.
pub fn run_target(
    root: &crate::sys::root::SysRoot,
    target: &Target,
    opts: &MembwOptions,
    cancel: &CancellationToken,
    progress: &mut (dyn FnMut(usize, usize) + Send),
) -> MembwRun {
    use crate::sys::cache;
    let caches = cache::read_caches(root, target.cpu);
    let plan = plan_buffer(
        cache::last_level_cache_bytes(&caches),
        crate::sys::memory::available_bytes(root),
        opts.quick,
    );
    let res = crate::bench::pin::run_on(target.cpu, || run(opts, &plan, cancel, progress));
    let (result, error) = match res {
        Ok(Ok(m)) => (Some(m), None),
        Ok(Err(e)) => (None, Some(e)),
        Err(e) => (None, Some(e.to_string())),
    };
    MembwRun {
        target: target.clone(),
        result,
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1024 * 1024 * 1024;

    #[test]
    fn buffers_scale_with_the_cache_and_shrink_with_memory() {
        // Unknown cache (many Arm boards): tinymembench's 32 MiB.
        let p = plan_buffer(None, Some(4 * GIB), false);
        assert_eq!(p.bytes, 32 * MIB);
        assert!(p.note.is_none());
        // This VM: 32 MiB L3 → 128 MiB buffers.
        let p = plan_buffer(Some(32 * MIB as u64), Some(24 * GIB), false);
        assert_eq!(p.bytes, 128 * MIB);
        // A 1.5 GiB L3 server is capped.
        let p = plan_buffer(Some(1536 * MIB as u64), Some(256 * GIB), false);
        assert_eq!(p.bytes, MAX_BUFFER);
        // A 512 MiB board with 200 MiB available: 25 MiB buffers and a note.
        let p = plan_buffer(Some(512 * 1024), Some(200 * MIB as u64), false);
        assert_eq!(p.bytes, 25 * MIB);
        assert_eq!(p.wanted_bytes, 32 * MIB);
        let note = p.note.unwrap();
        assert!(note.contains("only 200 MiB memory available"), "{note}");
        // Almost nothing available: still at least 1 MiB, never zero.
        let p = plan_buffer(None, Some(1000), false);
        assert_eq!(p.bytes, MIB);
        // Quick runs cap at 16 MiB and say when that is within the cache.
        let p = plan_buffer(Some(32 * MIB as u64), None, true);
        assert_eq!(p.bytes, 16 * MIB);
        assert!(p.note.unwrap().contains("last-level cache"));
    }

    #[test]
    fn stddev() {
        assert_eq!(sample_stddev(&[]), 0.0);
        assert_eq!(sample_stddev(&[5.0]), 0.0);
        let s = sample_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert!((s - 2.138).abs() < 0.001, "{s}");
    }

    #[test]
    fn repeat_counts_bytes_per_second_and_stops_at_max() {
        let opts = MembwOptions {
            rep_time: Duration::from_millis(5),
            min_reps: 2,
            max_reps: 3,
            quick: true,
            kernels: true,
            extra_reps: None,
        };
        let mut calls = 0;
        let (best, pct, samples) = repeat(&opts, 1_000_000, &CancellationToken::new(), &mut || {
            calls += 1;
            std::thread::sleep(Duration::from_millis(1));
        });
        // ~1 ms per MB → ~1000 MB/s (sleep overshoots: a loose bound, not a timing test).
        assert!(best > 50.0 && best < 1100.0, "{best}");
        assert!((2..=3).contains(&samples.len()));
        assert!(pct >= 0.0);
        assert!(calls >= 2 * 2);
    }

    #[test]
    fn libc_is_named() {
        let l = libc_name();
        assert!(
            l.starts_with("glibc ") || l == "musl" || l == "unknown libc",
            "{l}"
        );
    }

    #[test]
    fn quick_run_measures_every_routine() {
        let plan = plan_buffer(None, None, true);
        let plan = BufferPlan {
            bytes: 2 * MIB,
            ..plan
        };
        let opts = MembwOptions {
            rep_time: Duration::from_millis(3),
            min_reps: 2,
            max_reps: 2,
            extra_reps: Some(1),
            ..MembwOptions::quick()
        };
        let mut last = (0, 0);
        let r = run(&opts, &plan, &CancellationToken::new(), &mut |d, t| {
            last = (d, t)
        })
        .unwrap();
        assert_eq!(r.rows.len(), 3 + copy::kernels().len());
        assert_eq!(last.0, last.1);
        assert!(
            r.rows
                .iter()
                .all(|row| row.mb_per_s > 0.0 && row.mb_per_s.is_finite())
        );
        assert!(r.memcpy_mb_per_s().is_some());
        assert!(r.memset_mb_per_s().is_some());
        assert!(r.memchr_mb_per_s().is_some());
        assert!(!r.cancelled);
    }

    #[test]
    fn tinymembench_buffers_sit_at_its_offsets() {
        let mut pool = TmbPool::new(TMB_BUFFER).unwrap();
        let (dst, src) = pool.split();
        assert_eq!(src.len(), TMB_BUFFER);
        assert_eq!(dst.len(), TMB_BUFFER);
        assert_eq!(src.as_ptr() as usize % TMB_ALIGN, 0xAAA80);
        assert_eq!(dst.as_ptr() as usize % TMB_ALIGN, 0x55500);
        assert!(dst.as_ptr() as usize >= src.as_ptr() as usize + TMB_BUFFER);
        assert_eq!(src[0], FILL_BYTE);
        assert_eq!(src[TMB_BUFFER - 1], SEARCH_BYTE);
        assert_eq!(dst[TMB_BUFFER - 1], FILL_BYTE);
    }

    #[test]
    fn big_cache_adds_dram_rows_measured_as_often_as_our_kernels_and_keeps_tinymembench_rows() {
        // A 300 MiB L3 (this VM) plans 512 MiB DRAM buffers; here 34 MiB keep the test light.
        let plan = BufferPlan {
            bytes: 34 * MIB,
            ..plan_buffer(Some(300 * MIB as u64), None, false)
        };
        let opts = MembwOptions {
            rep_time: Duration::from_millis(3),
            min_reps: 2,
            max_reps: 2,
            extra_reps: Some(1),
            ..MembwOptions::quick()
        };
        let mut last = (0, 0);
        let r = run(&opts, &plan, &CancellationToken::new(), &mut |d, t| {
            last = (d, t)
        })
        .unwrap();
        assert_eq!(r.rows_buffer_bytes, TMB_BUFFER);
        assert_eq!(r.rows.len(), 3 + copy::kernels().len());
        assert_eq!(
            r.dram_rows
                .iter()
                .map(|x| x.name.as_str())
                .collect::<Vec<_>>(),
            [ROW_DRAM_MEMCPY, ROW_DRAM_MEMSET]
        );
        assert_eq!(last, (r.rows.len() + 2, r.rows.len() + 2));
        assert!(r.dram_row(ROW_DRAM_MEMCPY).unwrap().mb_per_s > 0.0);
        // The DRAM rows are in no published column: the extra rows' repetitions, as our
        // kernels; the libc rows keep theirs (two here).
        for d in &r.dram_rows {
            assert_eq!(d.samples_mb_per_s.len(), 1, "{}", d.name);
        }
        assert_eq!(r.rows[0].samples_mb_per_s.len(), 2);
        // The summary values stay tinymembench's rows.
        assert_eq!(r.memcpy_mb_per_s(), Some(r.rows[0].mb_per_s));
        // Small-cache boards: 32 MiB are already beyond the cache, no second measurement.
        let small = BufferPlan {
            bytes: 2 * MIB,
            ..plan
        };
        let r = run(&opts, &small, &CancellationToken::new(), &mut |_, _| {}).unwrap();
        assert!(r.dram_rows.is_empty());
        assert_eq!(r.rows_buffer_bytes, 2 * MIB);
    }

    #[test]
    fn repeat_doubles_the_batch_until_the_repetition_time() {
        // 1 untimed call + batches 1, 2, 4 … per repetition: with a zero repetition time one
        // batch of one call each; the call count shows the batches.
        let opts = MembwOptions {
            rep_time: Duration::ZERO,
            min_reps: 3,
            max_reps: 3,
            quick: true,
            kernels: true,
            extra_reps: None,
        };
        let mut calls = 0;
        let (_, _, samples) = repeat(&opts, 1000, &CancellationToken::new(), &mut || calls += 1);
        assert!(samples.len() <= 3 && !samples.is_empty());
        assert_eq!(calls, 2 * samples.len());
    }

    #[test]
    fn without_kernels_only_the_libc_rows_are_measured() {
        let plan = BufferPlan {
            bytes: MIB,
            ..plan_buffer(None, None, true)
        };
        let opts = MembwOptions {
            rep_time: Duration::ZERO,
            kernels: false,
            ..MembwOptions::quick()
        };
        let mut last = (0, 0);
        let r = run(&opts, &plan, &CancellationToken::new(), &mut |d, t| {
            last = (d, t)
        })
        .unwrap();
        let names: Vec<&str> = r.rows.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names, [ROW_MEMCPY, ROW_MEMCHR, ROW_MEMSET]);
        // Progress counts only the rows measured.
        assert_eq!(last, (3, 3));
    }

    #[test]
    fn kernel_rows_take_their_own_repetitions_and_libc_rows_keep_theirs() {
        let plan = BufferPlan {
            bytes: MIB,
            ..plan_buffer(None, None, true)
        };
        let opts = MembwOptions {
            rep_time: Duration::ZERO,
            min_reps: 3,
            max_reps: 3,
            extra_reps: Some(1),
            ..MembwOptions::quick()
        };
        let r = run(&opts, &plan, &CancellationToken::new(), &mut |_, _| {}).unwrap();
        assert_eq!(r.rows.len(), 3 + copy::kernels().len());
        for row in &r.rows {
            let want = if row.implementation == "libc" { 3 } else { 1 };
            // The 0.1 % early stop may end the libc rows sooner, never the kernels later.
            assert!(
                (1..=want).contains(&row.samples_mb_per_s.len()),
                "{}: {:?}",
                row.name,
                row.samples_mb_per_s
            );
            if row.implementation != "libc" {
                assert_eq!(row.samples_mb_per_s.len(), 1, "{}", row.name);
            }
        }
    }

    #[test]
    fn cancelled_run_stops_after_the_first_row() {
        let plan = BufferPlan {
            bytes: MIB,
            ..plan_buffer(None, None, true)
        };
        let t = CancellationToken::new();
        t.cancel();
        let r = run(&MembwOptions::quick(), &plan, &t, &mut |_, _| {}).unwrap();
        assert_eq!(r.rows.len(), 1);
        assert!(r.cancelled);
    }
}
