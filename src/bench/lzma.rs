//! Native LZMA compression benchmark on 7-Zip's `b` methodology, rated in 7-Zip's MIPS.
//!
//! For each dictionary size (2^22…2^25 by default) a buffer of the dictionary size plus
//! 64 KiB (as 7-Zip's benchmark sizes it) is filled with pseudo-random compressible data,
//! compressed with LZMA (lc=3 lp=0 pb=2, binary-tree BT4 match finder, optimal parsing,
//! nice length 32: 7-Zip's defaults for its benchmark) until at least `min_compress` has
//! passed, then decompressed until at least `min_decompress` has passed. The first
//! decompression is compared with the input byte for byte.
//!
//! Ratings use the formulas of 7-Zip 16.02's `Bench.cpp` (the version published sbc-bench
//! results come from), in instructions per second:
//! - compression: `input bytes × (870 + ((t² × 5) >> 16))`, where `t` is the dictionary
//!   size's log2 in 1/256 steps minus 18 × 256 — larger dictionaries count as more work;
//! - decompression: `packed bytes × 200 + unpacked bytes × 4`;
//! - the total is the mean of the average compression and decompression ratings.
//!
//! The encoder is the pure-Rust `lzma-rust2` (a port of XZ for Java's LZMA encoder, with
//! a real BT4 match finder), not 7-Zip's: the ratings are in the same units, and the
//! fidelity script reports the ratio to an installed 7-Zip on the same core, but they
//! are our own score, not 7-Zip's.
//!
//! # Test data
//! Our own generator with about the compressibility of 7-Zip's benchmark data (7-Zip's
//! own printed speeds and ratings imply it packs to 0.40 of its size at 2^22 and 0.415 at
//! 2^25; ours packs to 0.41–0.42): a SplitMix64 stream decides, step by step, between a
//! random literal byte (5/8 of the steps) and a copy of earlier data. A copy reuses the
//! previous distance for 1–8 bytes (1/8 of copies, LZMA's "rep match"), or draws a new
//! distance, log-uniformly either near (up to 32 KiB) or far (1 KiB up to 64 MiB, capped by
//! what has been written), and copies 2–33 bytes. Far copies make a larger dictionary
//! find more matches, as in 7-Zip's data.

pub mod suite;

use std::io::{Read, Write};
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lzma_rust2::{LzmaOptions as CodecOptions, LzmaReader, LzmaWriter, MfType};
use serde::{Deserialize, Serialize};

use crate::bench::{BenchError, Tick, pin};
use crate::shutdown::CancellationToken;

/// Dictionary sizes (log2) of 7-Zip's `b` benchmark.
pub const DICT_LOG2: [u32; 4] = [22, 23, 24, 25];

/// 7-Zip's benchmark buffer is the dictionary plus this much.
pub const EXTRA_BYTES: usize = 1 << 16;

/// Smallest dictionary 7-Zip's rating formula distinguishes (2^18).
const MIN_RATED_DICT_LOG2: u32 = 18;

/// Bytes fed to the encoder (and read from the decoder) between cancellation checks.
const CHUNK: usize = 1 << 20;

/// How to run.
#[derive(Debug, Clone, PartialEq)]
pub struct LzmaOptions {
    /// Dictionary sizes as log2, in order.
    pub dict_log2: Vec<u32>,
    /// Keep compressing each buffer (whole passes) until this much time has passed.
    pub min_compress: Duration,
    /// Keep decompressing until this much time has passed.
    pub min_decompress: Duration,
}

impl Default for LzmaOptions {
    fn default() -> Self {
        Self {
            dict_log2: DICT_LOG2.to_vec(),
            min_compress: Duration::from_secs(2),
            min_decompress: Duration::from_secs(2),
        }
    }
}

impl LzmaOptions {
    /// `--quick`: the 4 MiB dictionary only, one pass each way.
    pub fn quick() -> Self {
        Self {
            dict_log2: vec![22],
            min_compress: Duration::ZERO,
            min_decompress: Duration::from_millis(200),
        }
    }

    /// Memory one benchmark thread needs for the largest dictionary, in bytes: encoder
    /// (match finder and window), input, packed output, decoder window and output.
    pub fn bytes_per_thread(&self) -> u64 {
        self.dict_log2
            .iter()
            .map(|&d| bytes_per_thread(d))
            .max()
            .unwrap_or(0)
    }

    /// Drop the dictionary sizes that would not fit `threads` threads into `budget`
    /// bytes. Returns the dropped sizes (for a note); if nothing fits, the smallest sizes
    /// down to 2^18 are tried instead.
    pub fn fit_memory(&mut self, threads: u32, budget: u64) -> Vec<u32> {
        let fits = |d: u32| bytes_per_thread(d).saturating_mul(u64::from(threads)) <= budget;
        let dropped: Vec<u32> = self
            .dict_log2
            .iter()
            .copied()
            .filter(|&d| !fits(d))
            .collect();
        self.dict_log2.retain(|&d| fits(d));
        if self.dict_log2.is_empty()
            && let Some(d) = (MIN_RATED_DICT_LOG2..=21).rev().find(|&d| fits(d))
        {
            self.dict_log2.push(d);
        }
        dropped
    }
}

fn encoder_options(dict_log2: u32) -> CodecOptions {
    let mut o = CodecOptions::with_preset(5);
    o.dict_size = 1 << dict_log2;
    o.lc = 3;
    o.lp = 0;
    o.pb = 2;
    o.nice_len = 32;
    o.mf = MfType::Bt4;
    o.depth_limit = 0;
    o
}

fn bytes_per_thread(dict_log2: u32) -> u64 {
    let dict = 1u64 << dict_log2;
    let encoder = u64::from(encoder_options(dict_log2).get_memory_usage()) * 1024;
    // Input + decoded output + decoder window + packed (~0.45 of input).
    encoder + 3 * (dict + EXTRA_BYTES as u64) + dict / 2
}

/// 7-Zip's `GetLogSize`: log2 of `size` in 1/256 steps.
pub fn log_size(size: u64) -> u64 {
    for i in 8u64..32 {
        for j in 0u64..256 {
            if size <= (1u64 << i) + (j << (i - 8)) {
                return (i << 8) + j;
            }
        }
    }
    32 << 8
}

/// Instructions 7-Zip counts per input byte when compressing with dictionary `dict`.
pub fn compress_commands_per_byte(dict: u64) -> u64 {
    let dict = dict.max(1 << MIN_RATED_DICT_LOG2);
    let t = log_size(dict) - (u64::from(MIN_RATED_DICT_LOG2) << 8);
    870 + ((t * t * 5) >> 16)
}

/// Compression rating in instructions per second (divide by 10^6 for 7-Zip's MIPS).
pub fn compress_rating(dict: u64, input_bytes: u64, secs: f64) -> f64 {
    (input_bytes as f64) * compress_commands_per_byte(dict) as f64 / secs.max(1e-9)
}

/// Decompression rating in instructions per second (7-Zip 16.02: 200 per packed byte,
/// 4 per unpacked byte).
pub fn decompress_rating(packed_bytes: u64, unpacked_bytes: u64, secs: f64) -> f64 {
    (packed_bytes as f64 * 200.0 + unpacked_bytes as f64 * 4.0) / secs.max(1e-9)
}

/// SplitMix64: small, fast, and good enough to make incompressible literals.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `n` random bits (0 ≤ n ≤ 63).
    fn bits(&mut self, n: u32) -> u64 {
        if n == 0 { 0 } else { self.next() >> (64 - n) }
    }
}

/// Fill `size` bytes of benchmark data (see the module documentation).
pub fn generate(size: usize, seed: u64) -> Vec<u8> {
    let mut r = SplitMix64(seed);
    let mut v: Vec<u8> = Vec::with_capacity(size);
    let mut dist = 1usize;
    while v.len() < size {
        let pos = v.len();
        if pos == 0 || r.bits(8) < 160 {
            v.push(r.bits(8) as u8);
            continue;
        }
        let len = if r.bits(3) == 0 {
            1 + r.bits(3) as usize
        } else {
            loop {
                let b = if r.bits(1) == 0 {
                    r.bits(4) as u32
                } else {
                    10 + r.bits(4) as u32 + r.bits(1) as u32
                };
                let d = ((1u64 << b) | r.bits(b)) as usize;
                if d <= pos {
                    dist = d;
                    break;
                }
            }
            let len_bits = 2 + r.bits(2) as u32;
            2 + r.bits(len_bits) as usize
        };
        let dist = dist.min(pos);
        for _ in 0..len.min(size - pos) {
            let c = v[v.len() - dist];
            v.push(c);
        }
    }
    v
}

/// One dictionary size measured (summed over threads for a multi-threaded run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DictResult {
    /// log2 of the dictionary size.
    pub dict_log2: u32,
    /// Bytes in one buffer (dictionary + 64 KiB).
    pub input_bytes: u64,
    /// Bytes of one buffer compressed.
    pub packed_bytes: u64,
    /// Compression passes made (all threads).
    pub compress_passes: u64,
    /// Compression speed in KiB/s of input (all threads).
    pub compress_kib_per_s: f64,
    /// Compression rating in 7-Zip MIPS (all threads).
    pub compress_rating_mips: f64,
    /// Decompression passes made (all threads).
    pub decompress_passes: u64,
    /// Decompression speed in KiB/s of output (all threads).
    pub decompress_kib_per_s: f64,
    /// Decompression rating in 7-Zip MIPS (all threads).
    pub decompress_rating_mips: f64,
}

/// A finished native LZMA run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LzmaRun {
    /// The CPUs the benchmark threads were pinned to (one thread each).
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// One entry per dictionary size.
    #[serde(default)]
    pub dicts: Vec<DictResult>,
    /// Mean compression rating in MIPS (7-Zip's `Avr:` compression column).
    pub compress_rating_mips: f64,
    /// Mean decompression rating in MIPS.
    pub decompress_rating_mips: f64,
    /// Mean of the two (7-Zip's `Tot:`): the score.
    pub total_rating_mips: f64,
    /// Wall-clock duration of the whole run, in seconds.
    pub elapsed_s: f64,
}

/// What one thread measured for one dictionary size.
#[derive(Debug, Clone, Copy, Default)]
struct ThreadDict {
    input_bytes: u64,
    packed_bytes: u64,
    compress_passes: u64,
    compress_s: f64,
    decompress_passes: u64,
    decompress_s: f64,
}

fn compress_once(
    data: &[u8],
    opts: &CodecOptions,
    cancel: &CancellationToken,
) -> Result<Vec<u8>, BenchError> {
    let fail = |e: std::io::Error| BenchError::Failed(format!("LZMA compression failed: {e}"));
    let mut w =
        LzmaWriter::new_no_header(Vec::with_capacity(data.len() / 2), opts, false).map_err(fail)?;
    for chunk in data.chunks(CHUNK) {
        if cancel.is_cancelled() {
            return Err(BenchError::Cancelled);
        }
        w.write_all(chunk).map_err(fail)?;
    }
    w.finish().map_err(fail)
}

fn decompress_once(
    packed: &[u8],
    out: &mut [u8],
    dict_log2: u32,
    cancel: &CancellationToken,
) -> Result<(), BenchError> {
    let fail = |e: std::io::Error| BenchError::Failed(format!("LZMA decompression failed: {e}"));
    let mut r =
        LzmaReader::new(packed, out.len() as u64, 3, 0, 2, 1 << dict_log2, None).map_err(fail)?;
    for chunk in out.chunks_mut(CHUNK) {
        if cancel.is_cancelled() {
            return Err(BenchError::Cancelled);
        }
        r.read_exact(chunk).map_err(fail)?;
    }
    Ok(())
}

/// Wait at the barrier (if any) so every thread starts a phase together.
fn sync(barrier: Option<&Barrier>) {
    if let Some(b) = barrier {
        b.wait();
    }
}

/// All dictionary sizes on the calling thread. With a barrier, the phases of all threads
/// start together; every thread must then run every phase (errors are reported after).
fn run_thread(
    opts: &LzmaOptions,
    barrier: Option<&Barrier>,
    cancel: &CancellationToken,
    progress: Tick<'_>,
) -> Result<Vec<ThreadDict>, BenchError> {
    let mut out = Vec::with_capacity(opts.dict_log2.len());
    let mut error: Option<BenchError> = None;
    for &d in &opts.dict_log2 {
        let size = (1usize << d) + EXTRA_BYTES;
        let enc = encoder_options(d);
        let data = generate(size, 0x5bc_be4c);
        let mut r = ThreadDict {
            input_bytes: size as u64,
            ..ThreadDict::default()
        };
        let mut packed = Vec::new();

        sync(barrier);
        if error.is_none() {
            let start = Instant::now();
            loop {
                match compress_once(&data, &enc, cancel) {
                    Ok(p) => packed = p,
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
                r.compress_passes += 1;
                if start.elapsed() >= opts.min_compress {
                    break;
                }
            }
            r.compress_s = start.elapsed().as_secs_f64();
            r.packed_bytes = packed.len() as u64;
        }

        sync(barrier);
        if error.is_none() {
            let mut buf = vec![0u8; size];
            let start = Instant::now();
            loop {
                if let Err(e) = decompress_once(&packed, &mut buf, d, cancel) {
                    error = Some(e);
                    break;
                }
                r.decompress_passes += 1;
                if r.decompress_passes == 1 && buf != data {
                    // Off the clock would be cleaner, but a comparison of a few MiB is
                    // noise next to LZMA decoding, and it runs once.
                    error = Some(BenchError::Failed(format!(
                        "LZMA round trip changed the data (dictionary 2^{d})"
                    )));
                    break;
                }
                if start.elapsed() >= opts.min_decompress {
                    break;
                }
            }
            r.decompress_s = start.elapsed().as_secs_f64();
        }
        progress();
        out.push(r);
    }
    match error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

fn summarise(
    cpus: Vec<u32>,
    opts: &LzmaOptions,
    per_thread: &[Vec<ThreadDict>],
    elapsed: f64,
) -> LzmaRun {
    let mut dicts = Vec::new();
    for (i, &d) in opts.dict_log2.iter().enumerate() {
        let mut r = DictResult {
            dict_log2: d,
            input_bytes: 0,
            packed_bytes: 0,
            compress_passes: 0,
            compress_kib_per_s: 0.0,
            compress_rating_mips: 0.0,
            decompress_passes: 0,
            decompress_kib_per_s: 0.0,
            decompress_rating_mips: 0.0,
        };
        for t in per_thread.iter().filter_map(|t| t.get(i)) {
            let dict = 1u64 << d;
            let cin = t.input_bytes * t.compress_passes;
            let dout = t.input_bytes * t.decompress_passes;
            r.input_bytes = t.input_bytes;
            r.packed_bytes = t.packed_bytes;
            r.compress_passes += t.compress_passes;
            r.decompress_passes += t.decompress_passes;
            r.compress_kib_per_s += cin as f64 / 1024.0 / t.compress_s.max(1e-9);
            r.compress_rating_mips += compress_rating(dict, cin, t.compress_s) / 1e6;
            r.decompress_kib_per_s += dout as f64 / 1024.0 / t.decompress_s.max(1e-9);
            r.decompress_rating_mips +=
                decompress_rating(t.packed_bytes * t.decompress_passes, dout, t.decompress_s) / 1e6;
        }
        dicts.push(r);
    }
    let n = dicts.len().max(1) as f64;
    let c = dicts.iter().map(|d| d.compress_rating_mips).sum::<f64>() / n;
    let d = dicts.iter().map(|d| d.decompress_rating_mips).sum::<f64>() / n;
    LzmaRun {
        cpus,
        dicts,
        compress_rating_mips: c,
        decompress_rating_mips: d,
        total_rating_mips: (c + d) / 2.0,
        elapsed_s: elapsed,
    }
}

/// Run single-threaded on a thread pinned to `cpu`. `progress` is called after each
/// dictionary size.
pub fn run_on(
    cpu: u32,
    opts: &LzmaOptions,
    cancel: &CancellationToken,
    progress: Tick<'_>,
) -> Result<LzmaRun, BenchError> {
    let start = Instant::now();
    let r = pin::run_on(cpu, || run_thread(opts, None, cancel, progress))??;
    Ok(summarise(
        vec![cpu],
        opts,
        &[r],
        start.elapsed().as_secs_f64(),
    ))
}

/// Run one pinned thread per CPU in `cpus`, all at once, phase by phase; ratings are
/// summed over threads. Any thread's failure (a CPU that cannot be pinned, a failed round
/// trip, cancellation) fails the run: a partial multi-threaded score would mislead.
pub fn run_parallel(
    cpus: &[u32],
    opts: &LzmaOptions,
    cancel: &CancellationToken,
    progress: Tick<'_>,
) -> Result<LzmaRun, BenchError> {
    if cpus.is_empty() {
        return Err(BenchError::Failed("no CPU to run on".into()));
    }
    let start = Instant::now();
    let barrier = Barrier::new(cpus.len());
    let unpinned = AtomicBool::new(false);
    // Only the first thread reports progress, so each dictionary size counts once.
    let quiet = || {};
    let results: Vec<Result<Vec<ThreadDict>, BenchError>> = std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .enumerate()
            .map(|(i, &cpu)| {
                let (barrier, unpinned) = (&barrier, &unpinned);
                let progress: Tick<'_> = if i == 0 { progress } else { &quiet };
                s.spawn(move || {
                    let pinned = pin::pin_current_thread(cpu);
                    if pinned.is_err() {
                        unpinned.store(true, Ordering::SeqCst);
                    }
                    // Everyone pins first; if anyone failed, nobody runs.
                    barrier.wait();
                    pinned?;
                    if unpinned.load(Ordering::SeqCst) {
                        return Err(BenchError::Failed(
                            "another benchmark thread could not be pinned".into(),
                        ));
                    }
                    run_thread(opts, Some(barrier), cancel, progress)
                })
            })
            .collect();
        handles
            .into_iter()
            .zip(cpus)
            .map(|(h, &cpu)| {
                h.join()
                    .unwrap_or(Err(BenchError::Pin(pin::PinError::Panicked(cpu))))
            })
            .collect()
    });
    // Report the pin error, not its echo in the other threads.
    if let Some(i) = results
        .iter()
        .position(|r| matches!(r, Err(BenchError::Pin(_))))
    {
        return Err(results
            .into_iter()
            .nth(i)
            .and_then(Result::err)
            .unwrap_or(BenchError::Failed("a thread could not be pinned".into())));
    }
    let mut per_thread = Vec::with_capacity(results.len());
    for r in results {
        per_thread.push(r?);
    }
    Ok(summarise(
        cpus.to_vec(),
        opts,
        &per_thread,
        start.elapsed().as_secs_f64(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> LzmaOptions {
        LzmaOptions {
            dict_log2: vec![16],
            min_compress: Duration::ZERO,
            min_decompress: Duration::ZERO,
        }
    }

    fn no_progress() {}

    #[test]
    fn log_size_is_7zips() {
        assert_eq!(log_size(1 << 22), 22 << 8);
        assert_eq!(log_size(1 << 18), 18 << 8);
        assert_eq!(log_size((1 << 22) + 1), (22 << 8) + 1);
        assert_eq!(log_size(3 << 21), (22 << 8) + 128);
    }

    #[test]
    fn ratings_reproduce_7zips_printed_numbers() {
        // 7-Zip 26.02 here, `22: 4220 KiB/s … 4106 MIPS`; p7zip 16.02 on a Cortex-A76,
        // `25: 2891 KiB/s … 3301`; dictionary 2^18 counts 870 per byte (`18: 9870 … 8793`).
        let c = |dict: u64, kib: f64| compress_rating(dict, (kib * 1024.0) as u64, 1.0) / 1e6;
        assert!((c(1 << 22, 4220.0) - 4106.0).abs() < 2.0);
        assert!((c(1 << 25, 2891.0) - 3301.0).abs() < 2.0);
        assert!((c(1 << 18, 9870.0) - 8793.0).abs() < 2.0);
        assert_eq!(compress_commands_per_byte(1 << 10), 870, "clamped to 2^18");
        assert_eq!(compress_commands_per_byte(1 << 22), 950);
        assert_eq!(compress_commands_per_byte(1 << 25), 1115);
        assert_eq!(
            decompress_rating(10, 100, 2.0),
            (10.0 * 200.0 + 400.0) / 2.0
        );
    }

    #[test]
    fn generated_data_is_deterministic_and_about_as_compressible_as_7zips() {
        let a = generate(1 << 20, 1);
        assert_eq!(a, generate(1 << 20, 1));
        assert_ne!(a, generate(1 << 20, 2));
        let t = CancellationToken::new();
        let packed = compress_once(&a, &encoder_options(20), &t).unwrap();
        let ratio = packed.len() as f64 / a.len() as f64;
        assert!((0.35..0.47).contains(&ratio), "ratio {ratio}");
    }

    #[test]
    fn round_trip_and_ratings_of_a_tiny_run() {
        let t = CancellationToken::new();
        let cpu = pin::allowed_cpus().first().copied().unwrap_or(0);
        let r = run_on(cpu, &tiny(), &t, &no_progress).unwrap();
        assert_eq!(r.cpus, vec![cpu]);
        let d = &r.dicts[0];
        assert_eq!(d.input_bytes, (1 << 16) + 65536);
        assert!(d.packed_bytes > 0 && d.packed_bytes < d.input_bytes);
        assert_eq!((d.compress_passes, d.decompress_passes), (1, 1));
        assert!(d.compress_rating_mips > 0.0 && d.decompress_rating_mips > 0.0);
        assert_eq!(
            r.total_rating_mips,
            (r.compress_rating_mips + r.decompress_rating_mips) / 2.0
        );
    }

    #[test]
    fn parallel_run_sums_threads_and_fails_on_an_unpinnable_cpu() {
        let t = CancellationToken::new();
        let cpu = pin::allowed_cpus().first().copied().unwrap_or(0);
        let r = run_parallel(&[cpu, cpu], &tiny(), &t, &no_progress).unwrap();
        assert_eq!(r.dicts[0].compress_passes, 2);
        assert!(matches!(
            run_parallel(&[cpu, 4000], &tiny(), &t, &no_progress),
            Err(BenchError::Pin(_))
        ));
        assert!(run_parallel(&[], &tiny(), &t, &no_progress).is_err());
    }

    #[test]
    fn cancelled_run_stops() {
        let t = CancellationToken::new();
        t.cancel();
        let cpu = pin::allowed_cpus().first().copied().unwrap_or(0);
        assert!(matches!(
            run_on(cpu, &tiny(), &t, &no_progress),
            Err(BenchError::Cancelled)
        ));
    }

    #[test]
    fn memory_fit_drops_large_dictionaries() {
        let mut o = LzmaOptions::default();
        let per = bytes_per_thread(25);
        assert!(per > 32 << 20, "at least the window: {per}");
        assert!(o.fit_memory(4, u64::MAX).is_empty());
        let dropped = o.fit_memory(4, 4 * bytes_per_thread(23));
        assert_eq!(dropped, vec![24, 25]);
        assert_eq!(o.dict_log2, vec![22, 23]);
        let mut o = LzmaOptions::default();
        o.fit_memory(8, 8 * bytes_per_thread(20));
        assert_eq!(o.dict_log2, vec![20], "falls back to smaller dictionaries");
        let mut o = LzmaOptions::default();
        o.fit_memory(8, 1000);
        assert!(o.dict_log2.is_empty());
    }
}
