//! Who runs the benchmarks of a standard run: the real native benchmarks, or canned
//! results for tests of orchestration and reports (`--fake-benchmarks`). Both stand behind
//! one narrow seam: the runner hands an [`Executor`] a [`Call`] (a [`Benchmark`] with its
//! options), and the executor either measures it ([`Native`]) or takes the benchmark's
//! [`Canned`] result ([`Fake`]). Benchmark code never asks which.

use crate::bench::Remark;
use crate::bench::aes::suite::{Aes, AesSuiteOptions};
use crate::bench::aes::{self, Algorithm};
use crate::bench::clock::{self, CheckInput, ClockCheck, ClockMeasurement, WalkOptions};
use crate::bench::external::openssl::Openssl;
use crate::bench::external::sevenzip::{self, SevenZip};
use crate::bench::lzma::suite::{Compress, LzmaSuiteOptions};
use crate::bench::lzma::{self, suite as lzma_suite};
use crate::bench::membw::{self, Membw, MembwRun};
use crate::bench::memlat::{self, Memlat, MemlatRun};
use crate::bench::pin::Target;
use crate::bench::scrypt::{self, Scrypt, ScryptRun, Stress};
use crate::bench::{BenchError, Benchmark, Progress};
use crate::record::config::RunConfig;
use crate::shutdown::CancellationToken;
use crate::sys::cpu::Topology;
use crate::sys::cpufreq::Policy;
use crate::sys::membench;
use crate::sys::root::SysRoot;

pub use crate::bench::aes::suite::AesResults;
pub use crate::bench::lzma::suite::CompressResults;

/// What every benchmark call gets.
pub struct Env<'a> {
    /// Where to read the system.
    pub root: &'a SysRoot,
    /// Settings.
    pub cfg: &'a RunConfig,
    /// cpufreq policies.
    pub policies: &'a [Policy],
    /// CPUs and clusters.
    pub topo: &'a Topology,
    /// Stop early when set.
    pub cancel: &'a CancellationToken,
    /// Progress of the current step, 0..=1 (drives the bar).
    pub progress: &'a (dyn Fn(f64) + Sync),
    /// Every usable CPU (multi-threaded benchmarks).
    pub all_cpus: &'a [u32],
}

impl Env<'_> {
    fn cluster_cpus(&self, t: &Target) -> Vec<u32> {
        self.topo
            .cluster_of(t.cpu)
            .map(|c| c.cpus.clone())
            .unwrap_or_else(|| vec![t.cpu])
    }
}

/// What the compression step should run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompressKind {
    /// 7-Zip's own benchmark (single per cluster, multi on all cores).
    SevenZip,
    /// Our native LZMA benchmark.
    Native,
}

/// One benchmark call of the standard run, its benchmark's type erased so that the
/// executor seam is one object-safe method.
pub trait Call {
    /// [`Benchmark::NAME`] of the benchmark called.
    fn name(&self) -> &'static str;
    /// Measure for real.
    fn measure(
        &mut self,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<(), BenchError>;
    /// Take the canned result instead, instantly.
    fn canned(&mut self) -> Result<(), BenchError>;
}

/// Who runs the benchmarks of a standard run.
pub trait Executor {
    /// Run one call (see [`call`]).
    fn run(&mut self, env: &Env<'_>, call: &mut dyn Call) -> Result<(), BenchError>;
}

/// A benchmark of the standard run, with the result `--fake-benchmarks` shows for it.
pub trait Canned: Benchmark {
    /// Canned results, derived from the benchmark's inputs (the machine's own OPPs, its
    /// targets) so reports over a fixture look like that board's.
    fn canned(&self, opts: &Self::Options) -> Result<Self::Output, BenchError>;
}

/// A [`Call`]: the benchmark, its options and, once run, its output.
struct Slot<B: Canned> {
    bench: B,
    opts: B::Options,
    out: Option<B::Output>,
}

impl<B: Canned> Call for Slot<B> {
    fn name(&self) -> &'static str {
        B::NAME
    }

    fn measure(
        &mut self,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<(), BenchError> {
        self.out = Some(self.bench.run(&self.opts, progress, cancel)?);
        Ok(())
    }

    fn canned(&mut self) -> Result<(), BenchError> {
        self.out = Some(self.bench.canned(&self.opts)?);
        Ok(())
    }
}

/// Run `bench` with `opts` through `exec`.
pub fn call<B: Canned>(
    exec: &mut dyn Executor,
    env: &Env<'_>,
    bench: B,
    opts: B::Options,
) -> Result<B::Output, BenchError> {
    let mut slot = Slot {
        bench,
        opts,
        out: None,
    };
    exec.run(env, &mut slot)?;
    slot.out
        .ok_or_else(|| BenchError::Failed(format!("{} returned no result", B::NAME)))
}

/// The real, native benchmarks.
#[derive(Debug, Default)]
pub struct Native;

impl Executor for Native {
    fn run(&mut self, env: &Env<'_>, call: &mut dyn Call) -> Result<(), BenchError> {
        let sink = |f: f64, _: Option<&str>| (env.progress)(f);
        call.measure(&Progress::new(&sink), env.cancel)
    }
}

/// Canned results, instantly (see [`Canned`]).
#[derive(Debug, Default)]
pub struct Fake;

impl Executor for Fake {
    fn run(&mut self, _env: &Env<'_>, call: &mut dyn Call) -> Result<(), BenchError> {
        call.canned()
    }
}

// ---- What the standard run measures, from its configuration ----

/// The clock check of `target` (`only_max`: the hot check at the end).
pub fn clock<'a>(
    env: &'a Env<'_>,
    target: &'a Target,
    only_max: bool,
) -> (CheckInput<'a>, clock::ClockOptions) {
    let opts = if env.cfg.quick {
        clock::ClockOptions::quick()
    } else {
        clock::ClockOptions::standard()
    };
    let input = CheckInput {
        root: env.root,
        policies: env.policies,
        target,
        cluster_cpus: env.cluster_cpus(target),
        only_cluster: env.topo.clusters.len() <= 1,
        permission: clock::walk_permission(env.root),
        walk: WalkOptions {
            max_khz: env.cfg.max_khz,
            min_khz: env.cfg.min_khz,
            only_max,
        },
    };
    (input, opts)
}

/// Memory bandwidth on `target`.
pub fn membw<'a>(env: &'a Env<'_>, target: &'a Target) -> (Membw<'a>, membw::MembwOptions) {
    let opts = if env.cfg.quick {
        membw::MembwOptions::quick()
    } else if env.cfg.extensive {
        // sbc-bench's extensive mode runs tinymembench with its default repeats
        // (3 to 10) instead of `-b 2 -B 3`.
        membw::MembwOptions {
            min_reps: 3,
            max_reps: 10,
            ..membw::MembwOptions::standard()
        }
    } else {
        // Our kernels are in no published column or log line of sbc-bench's: left out (the
        // extensive run and `bench membw` measure them). The DRAM rows, beyond the
        // last-level cache, are ours too: one repetition each.
        membw::MembwOptions {
            kernels: false,
            extra_reps: Some(1),
            ..membw::MembwOptions::standard()
        }
    };
    let bench = Membw {
        root: env.root,
        target,
    };
    (bench, opts)
}

/// Memory latency on `target`.
pub fn memlat<'a>(env: &'a Env<'_>, target: &'a Target) -> (Memlat<'a>, memlat::MemlatOptions) {
    let opts = if env.cfg.quick {
        memlat::MemlatOptions::quick()
    } else if env.cfg.extensive {
        memlat::MemlatOptions::extensive()
    } else {
        memlat::MemlatOptions::standard()
    };
    let plan = memlat::plan(
        opts.max_bytes,
        crate::sys::memory::available_bytes(env.root),
        membench::thp_mode(env.root),
    );
    let bench = Memlat {
        root: env.root,
        target,
        plan,
    };
    (bench, opts)
}

/// Re-measurements of a native AES row with an outlier before it is reported as is.
const AES_RETRIES: usize = 2;

/// AES as the standard run measures it: CBC with 128/192/256-bit keys per cluster (plus
/// GCM and the fully parallel rows in extensive mode), natively and with `openssl speed`
/// when installed, one second per buffer size (the plan's estimate).
pub fn aes<'a>(env: &'a Env<'_>, targets: &'a [Target]) -> (StandardAes<'a>, AesSuiteOptions) {
    let mut algorithms = Algorithm::CBC.to_vec();
    let mut parallel = Vec::new();
    if env.cfg.extensive {
        algorithms.push(Algorithm::Aes256Gcm);
        parallel = vec![Algorithm::Aes256Cbc, Algorithm::Aes256Gcm];
    }
    let mut opts = if env.cfg.quick {
        aes::AesOptions::quick()
    } else {
        aes::AesOptions::default()
    };
    opts.per_size =
        std::time::Duration::from_secs_f64(crate::run::plan::aes_seconds_per_size(env.cfg));
    let bench = StandardAes {
        targets,
        all_cpus: env.all_cpus,
    };
    let opts = AesSuiteOptions {
        algorithms,
        parallel,
        opts,
        openssl_seconds: Some(1),
        outlier_retries: AES_RETRIES,
        openssl_twice: true,
        // `openssl speed` is what the AES column is; the native rows stand in without it.
        native_beside_openssl: env.cfg.extensive,
    };
    (bench, opts)
}

/// The AES suite with the `openssl` found on the host, if any.
#[derive(Debug, Clone, Copy)]
pub struct StandardAes<'a> {
    /// One CPU per cluster.
    pub targets: &'a [Target],
    /// Every usable CPU (the fully parallel rows).
    pub all_cpus: &'a [u32],
}

impl Benchmark for StandardAes<'_> {
    const NAME: &'static str = "aes";
    type Options = AesSuiteOptions;
    type Output = AesResults;

    fn run(
        &self,
        opts: &AesSuiteOptions,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<AesResults, BenchError> {
        let openssl = Openssl::find(cancel);
        let bench = Aes {
            targets: self.targets,
            all_cpus: self.all_cpus,
            openssl: openssl.as_ref(),
        };
        bench.run(opts, progress, cancel)
    }
}

/// Compression as the standard run measures it: 7-Zip's benchmark or the native one
/// (never both in one call), single-threaded per target, multi-threaded on `multi_cpus`.
pub fn compress<'a>(
    env: &Env<'_>,
    kind: CompressKind,
    targets: &'a [Target],
    multi_cpus: &'a [u32],
) -> (StandardCompress<'a>, LzmaSuiteOptions) {
    let native = kind == CompressKind::Native;
    let mem = lzma_suite::plan_memory(
        env.cfg.quick,
        crate::sys::memory::available_bytes(env.root),
        multi_cpus.len(),
        !native,
    );
    // The standard run keeps each dictionary size for one second of compression and one
    // of decompression (bench compress: two). The large dictionaries need whole passes
    // of several seconds anyway; the small ones are stable after one.
    let shorter = |o: Option<lzma::LzmaOptions>| {
        o.filter(|_| native).map(|mut o| {
            if !env.cfg.quick {
                o.min_compress = std::time::Duration::from_secs(1);
                o.min_decompress = std::time::Duration::from_secs(1);
            }
            o
        })
    };
    let opts = LzmaSuiteOptions {
        native_single: shorter(mem.native_single),
        native_multi: shorter(mem.native_multi),
        sevenzip_dict: mem.sevenzip_dict,
        sevenzip_runs: if env.cfg.quick { 1 } else { 3 },
    };
    let bench = StandardCompress {
        kind,
        targets,
        multi_cpus,
        notes: mem.notes,
    };
    (bench, opts)
}

/// The compression suite with the host's 7-Zip (required for [`CompressKind::SevenZip`]).
#[derive(Debug, Clone)]
pub struct StandardCompress<'a> {
    /// 7-Zip or native.
    pub kind: CompressKind,
    /// Single-threaded runs, one per target.
    pub targets: &'a [Target],
    /// The multi-threaded run's CPUs (fewer than two: none).
    pub multi_cpus: &'a [u32],
    /// What had to give for memory: part of the result, as "note:" lines.
    pub notes: Vec<String>,
}

impl Benchmark for StandardCompress<'_> {
    const NAME: &'static str = "compress";
    type Options = LzmaSuiteOptions;
    type Output = CompressResults;

    fn run(
        &self,
        opts: &LzmaSuiteOptions,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<CompressResults, BenchError> {
        let z = match self.kind {
            CompressKind::SevenZip => Some(SevenZip::find(cancel).ok_or_else(|| {
                BenchError::Unsupported("7-Zip is not installed (7z, 7za or 7zz)".into())
            })?),
            CompressKind::Native => None,
        };
        let bench = Compress {
            targets: self.targets,
            all_cpus: self.multi_cpus,
            sevenzip: z.as_ref(),
        };
        let mut r = bench.run(opts, progress, cancel)?;
        r.errors
            .extend(self.notes.iter().cloned().map(Remark::Note));
        Ok(r)
    }
}

/// scrypt on every CPU for the configured time.
pub fn scrypt<'a>(env: &'a Env<'_>) -> (Scrypt<'a>, scrypt::ScryptOptions) {
    let opts = scrypt::ScryptOptions {
        duration: std::time::Duration::from_secs_f64(crate::run::plan::scrypt_seconds(env.cfg)),
        ..Default::default()
    };
    (Scrypt { cpus: env.all_cpus }, opts)
}

// ---- Canned results ----

fn fake_measurement(mhz: f64) -> ClockMeasurement {
    ClockMeasurement::from_samples(vec![mhz + 0.4, mhz, mhz - 0.3], 1_000_000, 0.5)
}

impl Canned for CheckInput<'_> {
    fn canned(&self, _opts: &clock::ClockOptions) -> Result<ClockCheck, BenchError> {
        let policy = self
            .policies
            .iter()
            .find(|p| p.cpus.contains(&self.target.cpu));
        let mut c = ClockCheck {
            target: self.target.clone(),
            cluster_cpus: self.cluster_cpus.clone(),
            only_cluster: self.only_cluster,
            policy: policy.map(|p| p.id),
            walk: None,
            measured: None,
            kernel_cur_khz: None,
            not_walked: None,
            error: None,
        };
        match policy {
            Some(p) => c.walk = Some(fake_walk(p, &self.walk)),
            None => c.measured = Some(fake_measurement(2000.0)),
        }
        Ok(c)
    }
}

/// Every OPP the walk would check, measured as a board that runs 2 % below its highest
/// OPP, as many do.
fn fake_walk(p: &Policy, w: &WalkOptions) -> clock::PolicyWalk {
    let opps = clock::opps_to_check(p, w)
        .into_iter()
        .map(|khz| {
            let mhz = khz as f64 / 1000.0
                * if khz == p.cpuinfo_max_khz.unwrap_or(0) {
                    0.98
                } else {
                    1.0
                };
            let m = fake_measurement(mhz);
            clock::OppCheck {
                opp_khz: khz,
                deviation_pct: Some((m.mhz * 1000.0 / khz as f64 - 1.0) * 100.0),
                measured: Some(m),
                kernel_cur_khz: Some(khz),
                error: None,
            }
        })
        .collect();
    clock::PolicyWalk {
        policy: p.id,
        opps,
        restore_errors: Vec::new(),
        cancelled: false,
    }
}

impl Canned for Membw<'_> {
    fn canned(&self, _opts: &membw::MembwOptions) -> Result<MembwRun, BenchError> {
        Ok(MembwRun {
            target: self.target.clone(),
            result: Some(fake_membw()),
            error: None,
        })
    }
}

impl Canned for Memlat<'_> {
    fn canned(&self, _opts: &memlat::MemlatOptions) -> Result<MemlatRun, BenchError> {
        Ok(MemlatRun {
            target: self.target.clone(),
            result: Some(fake_memlat()),
            error: None,
        })
    }
}

impl Canned for StandardAes<'_> {
    fn canned(&self, _opts: &AesSuiteOptions) -> Result<AesResults, BenchError> {
        // AES-128/192/256-CBC of a Cortex-A76 with crypto extensions (corpus log 3XYo.txt).
        let rows = |k: f64| -> Vec<crate::bench::external::openssl::Throughput> {
            [16usize, 64, 256, 1024, 8192, 16384]
                .iter()
                .zip([0.50, 0.80, 0.93, 0.97, 0.99, 1.0])
                .map(|(&b, f)| crate::bench::external::openssl::Throughput {
                    buffer_bytes: b,
                    bytes_per_s: 1_000.0 * k * f,
                })
                .collect()
        };
        let mut native = Vec::new();
        for (alg, k) in [
            (Algorithm::Aes128Cbc, 1_812_000.0),
            (Algorithm::Aes192Cbc, 1_548_000.0),
            (Algorithm::Aes256Cbc, 1_325_370.0),
        ] {
            for t in self.targets {
                native.push(aes::suite::AesSuiteRow {
                    algorithm: alg,
                    cpu: t.cpu,
                    tag: t
                        .core_type
                        .clone()
                        .unwrap_or_else(|| format!("cpu{}", t.cpu)),
                    sizes: rows(k),
                    elapsed_s: 0.0,
                });
            }
        }
        Ok(AesResults {
            backend: aes::Backend::Armv8Ce,
            ghash_backend: "pmull".into(),
            native,
            openssl: None,
            errors: Vec::new(),
            native_skipped: false,
        })
    }
}

impl Canned for StandardCompress<'_> {
    fn canned(&self, _opts: &LzmaSuiteOptions) -> Result<CompressResults, BenchError> {
        Ok(match self.kind {
            CompressKind::SevenZip => fake_sevenzip(self.targets, self.multi_cpus)?,
            CompressKind::Native => fake_native_lzma(self.targets, self.multi_cpus),
        })
    }
}

/// 7-Zip's single-threaded table per target and three multi-threaded runs.
fn fake_sevenzip(targets: &[Target], multi_cpus: &[u32]) -> Result<CompressResults, BenchError> {
    let table = sevenzip::parse_bench(FAKE_7Z_SINGLE)
        .ok_or_else(|| BenchError::Failed("canned 7-Zip output".into()))?;
    let run = |cpu: Option<u32>, threads: u32, scale: u64| sevenzip::BenchRun {
        cpu,
        threads,
        table: sevenzip::BenchTable {
            total_rating_mips: table.total_rating_mips * scale,
            ..table.clone()
        },
        elapsed_s: 0.0,
        output: FAKE_7Z_SINGLE.to_string(),
    };
    let n = multi_cpus.len() as u64;
    Ok(CompressResults {
        sevenzip: Some(lzma_suite::SevenZipResults {
            path: "/usr/bin/7za".to_string(),
            version: sevenzip::parse_version(FAKE_7Z_SINGLE),
            warning: None,
            bundled: false,
            label: None,
            dict: None,
            single: targets
                .iter()
                .map(|t| lzma_suite::OnTarget {
                    target: t.clone(),
                    result: run(Some(t.cpu), 1, 1),
                })
                .collect(),
            multi: (0..3).map(|_| run(None, n as u32, n)).collect(),
        }),
        native_single: Vec::new(),
        native_multi: None,
        errors: Vec::new(),
    })
}

/// Native LZMA: 3600 MIPS per core.
fn fake_native_lzma(targets: &[Target], multi_cpus: &[u32]) -> CompressResults {
    let lz = |cpus: Vec<u32>, total: f64| lzma::LzmaRun {
        cpus,
        dicts: Vec::new(),
        compress_rating_mips: total * 0.95,
        decompress_rating_mips: total * 1.05,
        total_rating_mips: total,
        elapsed_s: 0.0,
    };
    CompressResults {
        sevenzip: None,
        native_single: targets
            .iter()
            .map(|t| lzma_suite::OnTarget {
                target: t.clone(),
                result: lz(vec![t.cpu], 3600.0),
            })
            .collect(),
        native_multi: (multi_cpus.len() > 1)
            .then(|| lz(multi_cpus.to_vec(), 3600.0 * multi_cpus.len() as f64 * 0.9)),
        errors: Vec::new(),
    }
}

impl Canned for Scrypt<'_> {
    fn canned(&self, _opts: &scrypt::ScryptOptions) -> Result<Stress, BenchError> {
        let per_cpu = 3.98;
        let total = per_cpu * self.cpus.len() as f64;
        let run = ScryptRun {
            n: 1024,
            kernel: "neon-4way".into(),
            threads: self
                .cpus
                .iter()
                .map(|&cpu| scrypt::ThreadResult {
                    cpu,
                    hashes: 0,
                    error: None,
                })
                .collect(),
            intervals: (1..=3)
                .map(|i| scrypt::ScryptInterval {
                    end_s: 5.0 * i as f64,
                    seconds: 5.0,
                    hashes: (total * 5000.0) as u64,
                    khash_per_s: total - 0.01 * i as f64,
                })
                .collect(),
            mean_khash_per_s: total,
            elapsed_s: 15.0,
        };
        Ok(Stress {
            run,
            cancelled: false,
        })
    }
}

/// A real single-threaded `7za b` output (7-Zip 16.02 on a Cortex-A720, corpus log 1ET4.txt).
const FAKE_7Z_SINGLE: &str =
    "7-Zip (a) [64] 16.02 : Copyright (c) 1999-2016 Igor Pavlov : 2016-05-21
p7zip Version 16.02 (locale=C,Utf16=off,HugeFiles=on,64 bits,12 CPUs LE)

LE
CPU Freq: - - - - - - - - -

RAM size:   63833 MB,  # CPU hardware threads:  12
RAM usage:    435 MB,  # Benchmark threads:      1

                       Compressing  |                  Decompressing
Dict     Speed Usage    R/U Rating  |      Speed Usage    R/U Rating
         KiB/s     %   MIPS   MIPS  |      KiB/s     %   MIPS   MIPS

22:       4381   100   4270   4262  |      48754   100   4168   4163
23:       3599   100   3674   3668  |      48141   100   4172   4167
24:       3113   100   3353   3348  |      47420   100   4169   4163
25:       2875   100   3289   3283  |      46512   100   4145   4140
----------------------------------  | ------------------------------
Avr:             100   3646   3640  |              100   4163   4158
Tot:             100   3905   3899
";

/// Bandwidth figures of a Cortex-A76 on an RK3588 (corpus log 3XYo.txt).
fn fake_membw() -> membw::MembwResult {
    let row = |name: &str, imp: &str, kind: membw::Kind, v: f64| membw::Row {
        name: name.to_string(),
        implementation: imp.to_string(),
        kind,
        mb_per_s: v,
        stddev_pct: 0.0,
        samples_mb_per_s: vec![v, v * 0.999],
    };
    membw::MembwResult {
        libc: "glibc (fake)".to_string(),
        buffers: membw::BufferPlan {
            bytes: 32 << 20,
            wanted_bytes: 32 << 20,
            llc_bytes: Some(3 << 20),
            mem_available_bytes: Some(3 << 30),
            note: None,
        },
        rows: vec![
            row(membw::ROW_MEMCPY, "libc", membw::Kind::Copy, 10743.6),
            row(membw::ROW_MEMCHR, "libc", membw::Kind::Scan, 21000.0),
            row(membw::ROW_MEMSET, "libc", membw::Kind::Fill, 28154.1),
            row("NEON LDP/STP copy", "neon", membw::Kind::Copy, 10761.5),
        ],
        rows_buffer_bytes: 32 << 20,
        dram_rows: Vec::new(),
        duration_s: 0.0,
        cancelled: false,
    }
}

/// Latency figures of a Cortex-A76 on an RK3588 (corpus log 3XYo.txt).
fn fake_memlat() -> memlat::MemlatResult {
    let sizes: Vec<u64> = (12..=27).map(|b| 1u64 << b).collect();
    let ns = |bytes: u64| -> f64 {
        match bytes {
            b if b <= 64 << 10 => 1.7,
            b if b <= 512 << 10 => 4.0,
            b if b <= 2 << 20 => 13.0,
            b if b <= 16 << 20 => 38.0,
            _ => 110.0,
        }
    };
    memlat::MemlatResult {
        plan: memlat::MemPlan {
            bytes: 128 << 20,
            wanted_bytes: 128 << 20,
            mem_available_bytes: Some(3 << 30),
            thp_mode: Some("madvise".to_string()),
            advice: crate::bench::kernels::buffer::Advice::HugePage,
            note: None,
        },
        tinymembench: vec![memlat::LatencyTable {
            advice: crate::bench::kernels::buffer::Advice::HugePage,
            advised: true,
            huge_page_bytes: None,
            rows: sizes
                .iter()
                .filter(|&&b| b <= 64 << 20)
                .map(|&b| memlat::LatencyRow {
                    block_bytes: b,
                    single_ns: ns(b) * 0.9,
                    dual_ns: ns(b) * 1.2,
                })
                .collect(),
        }],
        ramlat: Some(memlat::RamlatTable {
            columns: memlat::RAMLAT_COLUMNS
                .iter()
                .map(|c| c.to_string())
                .collect(),
            advised: true,
            huge_page_bytes: None,
            cell_ms: 25.0,
            rows: sizes
                .iter()
                .map(|&b| memlat::RamlatRow {
                    size_bytes: b,
                    ns: (0..memlat::RAMLAT_COLUMNS.len())
                        .map(|i| ns(b) * (1.0 + i as f64 * 0.1))
                        .collect(),
                })
                .collect(),
        }),
        duration_s: 0.0,
        cancelled: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An executor that only records which benchmarks it was asked to run.
    struct Names(Vec<&'static str>);

    impl Executor for Names {
        fn run(&mut self, _env: &Env<'_>, call: &mut dyn Call) -> Result<(), BenchError> {
            self.0.push(call.name());
            Err(BenchError::Unsupported("not here".into()))
        }
    }

    #[test]
    fn the_fake_stands_in_behind_the_same_seam_as_the_native_benchmarks() {
        let root = SysRoot::new("/nonexistent-fixture");
        let cfg = RunConfig::default();
        let topo = Topology::default();
        let cancel = CancellationToken::new();
        let env = Env {
            root: &root,
            cfg: &cfg,
            policies: &[],
            topo: &topo,
            cancel: &cancel,
            progress: &|_| {},
            all_cpus: &[0, 1],
        };
        let t = Target {
            cpu: 0,
            core_type: Some("Cortex-A76".into()),
            cluster: Some(0),
        };
        let (b, o) = membw(&env, &t);
        assert!(call(&mut Fake, &env, b, o).unwrap().result.is_some());
        let (b, o) = scrypt(&env);
        let s = call(&mut Fake, &env, b, o).unwrap();
        assert_eq!((s.run.threads.len(), s.cancelled), (2, false));
        // No cpufreq policy: one measurement, no walk.
        let (b, o) = clock(&env, &t, false);
        let c = call(&mut Fake, &env, b, o).unwrap();
        assert!(c.measured.is_some() && c.walk.is_none());
        let (b, o) = compress(
            &env,
            CompressKind::Native,
            std::slice::from_ref(&t),
            &[0, 1],
        );
        let r = call(&mut Fake, &env, b, o).unwrap();
        assert_eq!(r.native_single.len(), 1);
        assert!(r.native_multi.is_some());
        // An executor sees only the call's name, and its error is the call's.
        let mut names = Names(Vec::new());
        let (b, o) = aes(&env, std::slice::from_ref(&t));
        let e = call(&mut names, &env, b, o);
        assert!(matches!(e, Err(BenchError::Unsupported(_))));
        assert_eq!(names.0, ["aes"]);
    }
}
