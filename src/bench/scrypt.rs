//! scrypt hashing on every core: sbc-bench's cpuminer stress test (`sbc-bench -c`), native.
//!
//! cpuminer's default algorithm is scrypt with N = 1024, r = 1, p = 1 over an 80-byte block
//! header (the header is also the salt) with a 32-byte result. One pinned thread per CPU
//! hashes consecutive nonces; the main thread reads the hash counters every interval
//! (5 s, as cpuminer reports) and records the total kH/s, so falling numbers show
//! throttling. It is a load generator as much as a score, so it uses the widest SIMD
//! kernel the CPU has (see [`kernel`]).

pub mod kernel;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bench::{BenchError, Benchmark, Progress, pin};
use crate::shutdown::CancellationToken;

pub use kernel::ScryptKernel;

/// sbc-bench runs cpuminer for five minutes.
pub const DEFAULT_DURATION: Duration = Duration::from_secs(300);

/// cpuminer prints its totals every five seconds.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);

/// How long and how often.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScryptOptions {
    /// Total run time.
    pub duration: Duration,
    /// Length of one reported interval.
    pub interval: Duration,
    /// Hashing kernel ([`ScryptKernel::detect`] by default).
    pub kernel: ScryptKernel,
}

impl Default for ScryptOptions {
    fn default() -> Self {
        Self {
            duration: DEFAULT_DURATION,
            interval: DEFAULT_INTERVAL,
            kernel: ScryptKernel::detect(),
        }
    }
}

impl ScryptOptions {
    /// `--quick`: 10 seconds in 5-second intervals.
    pub fn quick() -> Self {
        Self {
            duration: Duration::from_secs(10),
            ..Self::default()
        }
    }
}

/// The hash rate of all threads together over one interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScryptInterval {
    /// Seconds from the start of the run to the end of this interval.
    pub end_s: f64,
    /// Length of the interval in seconds (the last one may be shorter).
    pub seconds: f64,
    /// Hashes finished by all threads in the interval.
    pub hashes: u64,
    /// Total rate in thousands of hashes per second.
    pub khash_per_s: f64,
}

/// A CPU that took part, or could not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadResult {
    /// The CPU the thread was pinned to.
    pub cpu: u32,
    /// Hashes it finished.
    pub hashes: u64,
    /// Why it did not run, if it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A finished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScryptRun {
    /// scrypt's N.
    pub n: u32,
    /// The hashing kernel (`avx2-8way`, `sse2-4way`, `neon-4way`, `scalar`).
    pub kernel: String,
    /// One entry per requested CPU.
    #[serde(default)]
    pub threads: Vec<ThreadResult>,
    /// Totals per interval, in time order (not sorted, unlike sbc-bench's summary).
    #[serde(default)]
    pub intervals: Vec<ScryptInterval>,
    /// Mean rate over the whole run in kH/s.
    pub mean_khash_per_s: f64,
    /// Wall-clock duration in seconds.
    pub elapsed_s: f64,
}

/// The stress test on every CPU of `cpus`, one pinned thread each (see [`run_partial`]).
#[derive(Debug, Clone, Copy)]
pub struct Scrypt<'a> {
    /// The CPUs to hash on.
    pub cpus: &'a [u32],
}

/// What [`Scrypt`] measured, also when a signal cut it short.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stress {
    /// The intervals and threads.
    pub run: ScryptRun,
    /// Stopped by a signal: the intervals are those finished before it.
    pub cancelled: bool,
}

impl Benchmark for Scrypt<'_> {
    const NAME: &'static str = "scrypt";
    type Options = ScryptOptions;
    type Output = Stress;

    /// [`run_partial`]. Progress follows the clock, not the 5-second intervals, so a bar's
    /// ETA shrinks steadily; each finished interval labels the step with its kH/s.
    fn run(
        &self,
        opts: &ScryptOptions,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<Stress, BenchError> {
        let total_s = opts.duration.as_secs_f64().max(1e-9);
        let done = AtomicBool::new(false);
        let (run, cancelled) = std::thread::scope(|s| {
            let start = Instant::now();
            let done = &done;
            s.spawn(move || {
                while !done.load(Ordering::Relaxed) && !cancel.is_cancelled() {
                    progress.fraction(start.elapsed().as_secs_f64() / total_s);
                    cancel.sleep(Duration::from_millis(250));
                }
            });
            let r = run_partial(self.cpus, opts, cancel, &|iv| {
                progress.step(iv.end_s / total_s, &format!("{:.2} kH/s", iv.khash_per_s));
            });
            done.store(true, Ordering::Relaxed);
            r
        })?;
        Ok(Stress { run, cancelled })
    }
}

/// Hash on one pinned thread per CPU in `cpus` for `opts.duration`. `on_interval` is
/// called with every finished interval (for progress output). Stops within one batch of
/// hashes (milliseconds) when `cancel` fires, and then returns [`BenchError::Cancelled`].
pub fn run(
    cpus: &[u32],
    opts: &ScryptOptions,
    cancel: &CancellationToken,
    on_interval: &(dyn Fn(&ScryptInterval) + Sync),
) -> Result<ScryptRun, BenchError> {
    match run_partial(cpus, opts, cancel, on_interval)? {
        (_, true) => Err(BenchError::Cancelled),
        (r, false) => Ok(r),
    }
}

/// The main thread's part of [`run_partial`] while the hashing threads run: one
/// [`ScryptInterval`] every `interval` from the threads' counters until `opts.duration`
/// has passed since `start` or the run is cancelled.
fn sample_intervals(
    start: Instant,
    opts: &ScryptOptions,
    interval: Duration,
    counters: &[AtomicU64],
    cancel: &CancellationToken,
    on_interval: &(dyn Fn(&ScryptInterval) + Sync),
) -> Vec<ScryptInterval> {
    let total = |c: &[AtomicU64]| c.iter().map(|a| a.load(Ordering::Relaxed)).sum::<u64>();
    let mut intervals = Vec::new();
    let mut last = (0.0f64, 0u64);
    loop {
        let now = start.elapsed();
        if now >= opts.duration {
            break;
        }
        let next = (now + interval).min(opts.duration);
        if !cancel.sleep(next - now) {
            break;
        }
        let t = start.elapsed().as_secs_f64();
        let h = total(counters);
        let iv = ScryptInterval {
            end_s: t,
            seconds: t - last.0,
            hashes: h - last.1,
            khash_per_s: (h - last.1) as f64 / (t - last.0).max(1e-9) / 1000.0,
        };
        // A sliver at the end (a timer rounding) is no interval.
        if iv.seconds >= interval.as_secs_f64() * 0.2 {
            on_interval(&iv);
            intervals.push(iv);
        }
        last = (t, h);
    }
    intervals
}

/// [`run`], but a cancelled run still returns what it measured: the intervals finished
/// before the signal, with `true` (a user who stops a stress test after watching it
/// throttle keeps the numbers).
pub fn run_partial(
    cpus: &[u32],
    opts: &ScryptOptions,
    cancel: &CancellationToken,
    on_interval: &(dyn Fn(&ScryptInterval) + Sync),
) -> Result<(ScryptRun, bool), BenchError> {
    if cpus.is_empty() {
        return Err(BenchError::Failed("no CPU to run on".into()));
    }
    if !opts.kernel.runs_here() {
        // Refused before any thread starts (each thread's `Miner::new` checks again).
        return Err(BenchError::Unsupported(
            kernel::KernelUnavailable(opts.kernel).to_string(),
        ));
    }
    let interval = opts.interval.max(Duration::from_millis(100));
    let stop = AtomicBool::new(false);
    let counters: Vec<AtomicU64> = cpus.iter().map(|_| AtomicU64::new(0)).collect();
    let kernel = opts.kernel;
    let (errors, intervals, elapsed) = std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .zip(&counters)
            .enumerate()
            .map(|(i, (&cpu, counter))| {
                let stop = &stop;
                s.spawn(move || -> Result<(), BenchError> {
                    pin::pin_current_thread(cpu)?;
                    let mut miner = kernel::Miner::new(kernel, (i as u32) << 24)
                        .map_err(|e| BenchError::Unsupported(e.to_string()))?;
                    let mut done = 0u64;
                    while !stop.load(Ordering::Relaxed) && !cancel.is_cancelled() {
                        done += miner.step() as u64;
                        counter.store(done, Ordering::Relaxed);
                    }
                    std::hint::black_box(miner.digest_xor);
                    Ok(())
                })
            })
            .collect();

        let start = Instant::now();
        let intervals = sample_intervals(start, opts, interval, &counters, cancel, on_interval);
        stop.store(true, Ordering::Relaxed);
        let elapsed = start.elapsed().as_secs_f64();
        let errors: Vec<Option<String>> = handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e.to_string()),
                Err(_) => Some("hashing thread panicked".to_string()),
            })
            .collect();
        (errors, intervals, elapsed)
    });
    let cancelled = cancel.is_cancelled();
    let threads: Vec<ThreadResult> = cpus
        .iter()
        .zip(&counters)
        .zip(errors)
        .map(|((&cpu, c), error)| ThreadResult {
            cpu,
            hashes: c.load(Ordering::Relaxed),
            error,
        })
        .collect();
    if threads.iter().all(|t| t.error.is_some()) {
        return Err(BenchError::Failed(format!(
            "no hashing thread could run: {}",
            threads[0].error.clone().unwrap_or_default()
        )));
    }
    let all: u64 = threads.iter().map(|t| t.hashes).sum();
    Ok((
        ScryptRun {
            n: kernel::N as u32,
            kernel: kernel.label().to_string(),
            threads,
            intervals,
            mean_khash_per_s: all as f64 / elapsed.max(1e-9) / 1000.0,
            elapsed_s: elapsed,
        },
        cancelled,
    ))
}

#[cfg(test)]
mod tests {
    use super::kernel::*;
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn rfc7914_vector_1() {
        // RFC 7914 section 12: scrypt(P="", S="", N=16, r=1, p=1, dkLen=64).
        let out: [u8; 64] = scrypt_r1p1(b"", b"", 16);
        assert_eq!(
            out.to_vec(),
            hex("77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97
                 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
                 fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17
                 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06")
        );
    }

    #[test]
    fn matches_rustcrypto_scrypt_at_cpuminer_parameters() {
        let p = scrypt::Params::new(10, 1, 1).unwrap();
        for seed in 0..3u8 {
            let header: Vec<u8> = (0..80u8).map(|i| i.wrapping_mul(31) ^ seed).collect();
            let mut theirs = [0u8; 32];
            scrypt::scrypt(&header, &header, &p, &mut theirs).unwrap();
            let ours: [u8; 32] = scrypt_r1p1(&header, &header, N);
            assert_eq!(ours, theirs);
        }
    }

    /// Regression: `Miner::new(Kernel::Avx2x8, …)` was safe and public and ran AVX2 code on
    /// CPUs without AVX2 (the check lived only in `run_partial`).
    #[test]
    fn miner_new_refuses_the_avx2_kernel_on_a_cpu_without_avx2() {
        #[cfg(target_arch = "x86_64")]
        let has_avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let has_avx2 = false;
        let m = Miner::new(ScryptKernel::Avx2x8, 0);
        assert_eq!(m.is_ok(), has_avx2);
        if let Err(e) = m {
            assert_eq!(e, KernelUnavailable(ScryptKernel::Avx2x8));
            assert!(
                e.to_string()
                    .starts_with("the avx2-8way kernel does not run")
            );
        }
        for k in [
            ScryptKernel::Scalar,
            ScryptKernel::Simd4,
            ScryptKernel::Avx2x8,
        ] {
            assert_eq!(
                Miner::new(k, 0).is_ok(),
                ScryptKernel::available().contains(&k)
            );
        }
    }

    /// Every kernel available here hashes each nonce like the reference.
    #[test]
    fn every_kernel_agrees_with_the_reference() {
        for k in ScryptKernel::available() {
            let mut m = Miner::new(k, 1000).unwrap();
            let lanes = m.step();
            assert_eq!(lanes, k.lanes());
            let mut expect = [0u8; 32];
            for l in 0..lanes as u32 {
                let h = m.header_for(1000 + l);
                let one: [u8; 32] = scrypt_r1p1(&h, &h, N);
                for (e, b) in expect.iter_mut().zip(one) {
                    *e ^= b;
                }
            }
            assert_eq!(m.digest_xor, expect, "{}", k.label());
        }
    }

    #[test]
    fn short_run_reports_intervals_and_threads() {
        let cpu = pin::allowed_cpus().first().copied().unwrap_or(0);
        let opts = ScryptOptions {
            duration: Duration::from_millis(600),
            interval: Duration::from_millis(200),
            kernel: ScryptKernel::detect(),
        };
        let t = CancellationToken::new();
        let seen = std::sync::atomic::AtomicUsize::new(0);
        let r = run(&[cpu, 4000], &opts, &t, &|_| {
            seen.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        assert!((2..=3).contains(&r.intervals.len()), "{:?}", r.intervals);
        assert_eq!(seen.load(Ordering::SeqCst), r.intervals.len());
        assert!(r.threads[0].error.is_none() && r.threads[0].hashes > 0);
        assert!(r.threads[1].error.is_some(), "cpu4000 cannot be pinned");
        assert!(r.mean_khash_per_s > 0.0);
        assert_eq!(r.n, 1024);
    }

    #[test]
    fn cancel_stops_promptly() {
        let cpu = pin::allowed_cpus().first().copied().unwrap_or(0);
        let t = std::sync::Arc::new(CancellationToken::new());
        let t2 = std::sync::Arc::clone(&t);
        let start = Instant::now();
        let h = std::thread::spawn(move || run(&[cpu], &ScryptOptions::default(), &t2, &|_| {}));
        std::thread::sleep(Duration::from_millis(100));
        t.cancel();
        assert!(matches!(h.join().unwrap(), Err(BenchError::Cancelled)));
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_cancelled_run_keeps_the_intervals_it_finished() {
        let cpu = pin::allowed_cpus().first().copied().unwrap_or(0);
        let opts = ScryptOptions {
            duration: Duration::from_secs(60),
            interval: Duration::from_millis(100),
            kernel: ScryptKernel::detect(),
        };
        let t = CancellationToken::new();
        let seen = std::sync::atomic::AtomicUsize::new(0);
        let (r, cancelled) = run_partial(&[cpu], &opts, &t, &|_| {
            // Stop after the second interval, like Ctrl-C while watching the numbers.
            if seen.fetch_add(1, Ordering::SeqCst) == 1 {
                t.cancel();
            }
        })
        .unwrap();
        assert!(cancelled);
        assert_eq!(r.intervals.len(), 2, "{:?}", r.intervals);
        assert!(r.elapsed_s < 30.0);
    }

    #[test]
    fn kernel_names_and_availability() {
        assert_eq!(ScryptKernel::from_name("AVX2"), Some(ScryptKernel::Avx2x8));
        assert_eq!(ScryptKernel::from_name("simd"), Some(ScryptKernel::Simd4));
        assert_eq!(ScryptKernel::from_name("neon"), None);
        assert!(ScryptKernel::available().contains(&ScryptKernel::detect()));
        assert_eq!(ScryptKernel::available()[0], ScryptKernel::Scalar);
    }

    #[test]
    fn no_usable_cpu_is_an_error() {
        let t = CancellationToken::new();
        let opts = ScryptOptions {
            duration: Duration::from_millis(100),
            ..ScryptOptions::default()
        };
        assert!(run(&[4000], &opts, &t, &|_| {}).is_err());
        assert!(run(&[], &opts, &t, &|_| {}).is_err());
    }
}
