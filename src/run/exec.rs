//! Who runs the benchmarks of a standard run: the real native benchmarks, or canned
//! results for tests of orchestration and reports (`--fake-benchmarks`).

use crate::bench::aes::{self, Algorithm};
use crate::bench::clock::{self, CheckInput, ClockCheck, ClockMeasurement, WalkOptions};
use crate::bench::external::openssl::Openssl;
use crate::bench::external::sevenzip::{self, SevenZip};
use crate::bench::lzma::{self, suite as lzma_suite};
use crate::bench::membw::{self, MembwRun};
use crate::bench::memlat::{self, MemlatRun};
use crate::bench::pin::Target;
use crate::bench::scrypt::{self, ScryptRun};
use crate::run::config::RunConfig;
use crate::shutdown::CancellationToken;
use crate::sys::cpu::Topology;
use crate::sys::cpufreq::Policy;
use crate::sys::membench;
use crate::sys::root::SysRoot;

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

/// What the compression step should run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompressKind {
    /// 7-Zip's own benchmark (single per cluster, multi on all cores).
    SevenZip,
    /// Our native LZMA benchmark.
    Native,
}

impl Env<'_> {
    fn cluster_cpus(&self, t: &Target) -> Vec<u32> {
        self.topo
            .cluster_of(t.cpu)
            .map(|c| c.cpus.clone())
            .unwrap_or_else(|| vec![t.cpu])
    }
}

/// The benchmarks of a standard run, one method per step.
pub trait Executor {
    /// Clock check of one cluster (`only_max`: the hot check at the end).
    fn clock(&mut self, env: &Env<'_>, target: &Target, only_max: bool) -> ClockCheck;
    /// Memory bandwidth on one cluster.
    fn membw(&mut self, env: &Env<'_>, target: &Target) -> MembwRun;
    /// Memory latency on one cluster.
    fn memlat(&mut self, env: &Env<'_>, target: &Target) -> MemlatRun;
    /// AES on every cluster (and fully parallel in extensive mode).
    fn aes(&mut self, env: &Env<'_>, targets: &[Target]) -> Result<AesResults, String>;
    /// Compression: single-threaded per target, multi-threaded on `multi_cpus`.
    fn compress(
        &mut self,
        env: &Env<'_>,
        kind: CompressKind,
        targets: &[Target],
        multi_cpus: &[u32],
    ) -> Result<CompressResults, String>;
    /// scrypt on every CPU for the configured time.
    fn scrypt(&mut self, env: &Env<'_>) -> Result<ScryptRun, String>;
}

pub use crate::bench::aes::suite::AesResults;
pub use crate::bench::lzma::suite::CompressResults;

fn bench_err(e: crate::bench::BenchError) -> String {
    e.to_string()
}

/// AES as the standard run measures it: CBC with 128/192/256-bit keys per cluster (plus
/// GCM and the fully parallel rows in extensive mode), natively and with `openssl speed`
/// when installed, one second per buffer size (the plan's estimate).
fn aes_config<'a>(
    env: &'a Env<'_>,
    targets: &'a [Target],
    openssl: Option<&'a Openssl>,
) -> aes::suite::Config<'a> {
    let mut algorithms = Algorithm::CBC.to_vec();
    let mut parallel = Vec::new();
    if env.cfg.extensive {
        algorithms.push(Algorithm::Aes256Gcm);
        parallel = vec![Algorithm::Aes256Cbc, Algorithm::Aes256Gcm];
    }
    let mut opts = if env.cfg.quick {
        aes::Options::quick()
    } else {
        aes::Options::default()
    };
    opts.per_size =
        std::time::Duration::from_secs_f64(crate::run::plan::aes_seconds_per_size(env.cfg));
    aes::suite::Config {
        targets,
        all_cpus: env.all_cpus,
        algorithms,
        parallel,
        opts,
        openssl,
        openssl_seconds: Some(1),
    }
}

/// The real, native benchmarks.
#[derive(Debug, Default)]
pub struct Native;

impl Executor for Native {
    fn clock(&mut self, env: &Env<'_>, target: &Target, only_max: bool) -> ClockCheck {
        let opts = if env.cfg.quick {
            clock::Options::quick()
        } else {
            clock::Options::standard()
        };
        let cancel = env.cancel;
        clock::check(
            CheckInput {
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
            },
            cancel,
            &mut |cpu| clock::measure_on(cpu, &opts, cancel),
            &mut |done, total| (env.progress)(done as f64 / total.max(1) as f64),
        )
    }

    fn membw(&mut self, env: &Env<'_>, target: &Target) -> MembwRun {
        let opts = if env.cfg.quick {
            membw::Options::quick()
        } else if env.cfg.extensive {
            // sbc-bench's extensive mode runs tinymembench with its default repeats
            // (3 to 10) instead of `-b 2 -B 3`.
            membw::Options {
                min_reps: 3,
                max_reps: 10,
                ..membw::Options::standard()
            }
        } else {
            membw::Options::standard()
        };
        let progress = env.progress;
        membw::run_target(env.root, target, &opts, env.cancel, &mut |d, t| {
            progress(d as f64 / t.max(1) as f64)
        })
    }

    fn memlat(&mut self, env: &Env<'_>, target: &Target) -> MemlatRun {
        let opts = if env.cfg.quick {
            memlat::Options::quick()
        } else if env.cfg.extensive {
            memlat::Options::extensive()
        } else {
            memlat::Options::standard()
        };
        let plan = memlat::plan(
            opts.max_bytes,
            crate::sys::memory::available_bytes(env.root),
            membench::thp_mode(env.root),
        );
        let progress = env.progress;
        memlat::run_target(env.root, target, &opts, &plan, env.cancel, &mut |d, t| {
            progress(d as f64 / t.max(1) as f64)
        })
    }

    fn aes(&mut self, env: &Env<'_>, targets: &[Target]) -> Result<AesResults, String> {
        Self::run_aes(env, targets)
    }

    fn compress(
        &mut self,
        env: &Env<'_>,
        kind: CompressKind,
        targets: &[Target],
        multi_cpus: &[u32],
    ) -> Result<CompressResults, String> {
        let z = match kind {
            CompressKind::SevenZip => {
                Some(SevenZip::find(env.cancel).ok_or("7-Zip is not installed (7z, 7za or 7zz)")?)
            }
            CompressKind::Native => None,
        };
        let mem = lzma_suite::plan_memory(
            env.cfg.quick,
            crate::sys::memory::available_bytes(env.root),
            multi_cpus.len(),
            z.is_some(),
        );
        let native = kind == CompressKind::Native;
        // The standard run keeps each dictionary size for one second of compression and one
        // of decompression (bench compress: two). The large dictionaries need whole passes
        // of several seconds anyway; the small ones are stable after one.
        let shorter = |o: Option<lzma::Options>| {
            o.map(|mut o| {
                if !env.cfg.quick {
                    o.min_compress = std::time::Duration::from_secs(1);
                    o.min_decompress = std::time::Duration::from_secs(1);
                }
                o
            })
        };
        let cfg = lzma_suite::Config {
            targets,
            all_cpus: multi_cpus,
            native_single: if native {
                shorter(mem.native_single)
            } else {
                None
            },
            native_multi: if native {
                shorter(mem.native_multi)
            } else {
                None
            },
            sevenzip: z.as_ref(),
            sevenzip_dict: mem.sevenzip_dict,
            sevenzip_runs: if env.cfg.quick { 1 } else { 3 },
        };
        let steps = cfg.steps().max(1) as f64;
        let done = std::sync::atomic::AtomicU64::new(0);
        let progress = env.progress;
        let mut r = lzma_suite::run(&cfg, env.cancel, &|| {
            let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(d as f64 / steps);
        })
        .map_err(bench_err)?;
        // What had to give for memory is part of the result.
        r.errors
            .extend(mem.notes.into_iter().map(|n| format!("note: {n}")));
        Ok(r)
    }

    fn scrypt(&mut self, env: &Env<'_>) -> Result<ScryptRun, String> {
        let opts = scrypt::Options {
            duration: std::time::Duration::from_secs_f64(crate::run::plan::scrypt_seconds(env.cfg)),
            ..Default::default()
        };
        let total = opts.duration.as_secs_f64().max(1.0);
        let progress = env.progress;
        scrypt::run(env.all_cpus, &opts, env.cancel, &|iv| {
            progress(iv.end_s / total)
        })
        .map_err(bench_err)
    }
}

/// Buffer sizes of an AES row whose throughput is far below its smaller neighbour's.
/// Throughput of a cipher loop only grows with the buffer (less per-call overhead), so a
/// cell under half of the one before it was cut short by something else running (seen:
/// 1850k at 256 bytes between 400,000k neighbours on a loaded machine). The first cell
/// is judged against the second with more room (small buffers are legitimately slow).
pub fn aes_outliers(row: &aes::suite::Row) -> Vec<usize> {
    let v: Vec<f64> = row.sizes.iter().map(|t| t.bytes_per_s).collect();
    let mut out = Vec::new();
    for i in 0..v.len() {
        let bad = if i == 0 {
            v.len() > 1 && v[0] < 0.1 * v[1]
        } else {
            v[i] < 0.5 * v[i - 1]
        };
        if bad {
            out.push(row.sizes[i].buffer_bytes);
        }
    }
    out
}

/// Re-measurements of a native AES row with an outlier before it is reported as is.
const AES_RETRIES: usize = 2;

impl Native {
    fn run_aes(env: &Env<'_>, targets: &[Target]) -> Result<AesResults, String> {
        let openssl = Openssl::find(env.cancel);
        let cfg = aes_config(env, targets, openssl.as_ref());
        let steps = cfg.steps().max(1) as f64;
        let done = std::sync::atomic::AtomicU64::new(0);
        let progress = env.progress;
        let mut r = aes::suite::run(&cfg, env.cancel, &|| {
            let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(d as f64 / steps);
        })
        .map_err(bench_err)?;
        // Re-measure single-core native rows with a cell far below its neighbour; if it
        // stays, say so (a "note:" does not fail the step).
        for row in r.native.iter_mut() {
            let Some(t) = targets.iter().find(|t| t.cpu == row.cpu) else {
                continue;
            };
            if aes_outliers(row).is_empty() || row.tag == "fully parallel" {
                continue;
            }
            let one = std::slice::from_ref(t);
            let mut again = aes_config(env, one, None);
            again.algorithms = vec![row.algorithm];
            again.parallel = Vec::new();
            for _ in 0..AES_RETRIES {
                if env.cancel.is_cancelled() {
                    break;
                }
                let Ok(x) = aes::suite::run(&again, env.cancel, &|| {}) else {
                    break;
                };
                if let Some(new) = x.native.into_iter().find(|n| n.algorithm == row.algorithm) {
                    let fixed = aes_outliers(&new).is_empty();
                    *row = new;
                    if fixed {
                        break;
                    }
                }
            }
            let left = aes_outliers(row);
            if !left.is_empty() {
                r.errors.push(format!(
                    "note: {} on cpu{}: {} byte result far below its neighbour after {AES_RETRIES} re-measurements (background activity?)",
                    row.algorithm.name(),
                    row.cpu,
                    left.iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join("/"),
                ));
            }
        }
        Ok(r)
    }
}

/// Canned results, instantly: derived from the machine's own OPPs so reports over a
/// fixture look like that board's.
#[derive(Debug, Default)]
pub struct Fake;

impl Fake {
    fn measurement(mhz: f64) -> ClockMeasurement {
        ClockMeasurement::from_samples(vec![mhz + 0.4, mhz, mhz - 0.3], 1_000_000, 0.5)
    }
}

impl Executor for Fake {
    fn clock(&mut self, env: &Env<'_>, target: &Target, only_max: bool) -> ClockCheck {
        let policy = env.policies.iter().find(|p| p.cpus.contains(&target.cpu));
        let mut c = ClockCheck {
            target: target.clone(),
            cluster_cpus: env.cluster_cpus(target),
            only_cluster: env.topo.clusters.len() <= 1,
            policy: policy.map(|p| p.id),
            walk: None,
            measured: None,
            kernel_cur_khz: None,
            not_walked: None,
            error: None,
        };
        match policy {
            Some(p) => {
                let w = WalkOptions {
                    max_khz: env.cfg.max_khz,
                    min_khz: env.cfg.min_khz,
                    only_max,
                };
                let opps = clock::opps_to_check(p, &w)
                    .into_iter()
                    .map(|khz| {
                        // A board that runs 2 % below its highest OPP, as many do.
                        let mhz = khz as f64 / 1000.0
                            * if khz == p.cpuinfo_max_khz.unwrap_or(0) {
                                0.98
                            } else {
                                1.0
                            };
                        let m = Self::measurement(mhz);
                        clock::OppCheck {
                            opp_khz: khz,
                            deviation_pct: Some((m.mhz * 1000.0 / khz as f64 - 1.0) * 100.0),
                            measured: Some(m),
                            kernel_cur_khz: Some(khz),
                            error: None,
                        }
                    })
                    .collect();
                c.walk = Some(clock::PolicyWalk {
                    policy: p.id,
                    opps,
                    restore_errors: Vec::new(),
                    cancelled: false,
                });
            }
            None => c.measured = Some(Self::measurement(2000.0)),
        }
        c
    }

    fn membw(&mut self, _env: &Env<'_>, target: &Target) -> MembwRun {
        MembwRun {
            target: target.clone(),
            result: Some(fake_membw()),
            error: None,
        }
    }

    fn memlat(&mut self, _env: &Env<'_>, target: &Target) -> MemlatRun {
        MemlatRun {
            target: target.clone(),
            result: Some(fake_memlat()),
            error: None,
        }
    }

    fn aes(&mut self, _env: &Env<'_>, targets: &[Target]) -> Result<AesResults, String> {
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
            for t in targets {
                native.push(aes::suite::Row {
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
            ghash_backend: "pmull",
            native,
            openssl: None,
            errors: Vec::new(),
        })
    }

    fn compress(
        &mut self,
        _env: &Env<'_>,
        kind: CompressKind,
        targets: &[Target],
        multi_cpus: &[u32],
    ) -> Result<CompressResults, String> {
        let lz = |cpus: Vec<u32>, total: f64| lzma::LzmaRun {
            cpus,
            dicts: Vec::new(),
            compress_rating_mips: total * 0.95,
            decompress_rating_mips: total * 1.05,
            total_rating_mips: total,
            elapsed_s: 0.0,
        };
        Ok(match kind {
            CompressKind::SevenZip => {
                let table = sevenzip::parse_bench(FAKE_7Z_SINGLE).ok_or("canned 7-Zip output")?;
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
                CompressResults {
                    sevenzip: Some(lzma_suite::SevenZipResults {
                        path: "/usr/bin/7za".to_string(),
                        version: sevenzip::parse_version(FAKE_7Z_SINGLE),
                        warning: None,
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
                }
            }
            CompressKind::Native => CompressResults {
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
            },
        })
    }

    fn scrypt(&mut self, env: &Env<'_>) -> Result<ScryptRun, String> {
        let per_cpu = 3.98;
        let total = per_cpu * env.all_cpus.len() as f64;
        Ok(ScryptRun {
            n: 1024,
            kernel: "neon-4way",
            threads: env
                .all_cpus
                .iter()
                .map(|&cpu| scrypt::ThreadResult {
                    cpu,
                    hashes: 0,
                    error: None,
                })
                .collect(),
            intervals: (1..=3)
                .map(|i| scrypt::Interval {
                    end_s: 5.0 * i as f64,
                    seconds: 5.0,
                    hashes: (total * 5000.0) as u64,
                    khash_per_s: total - 0.01 * i as f64,
                })
                .collect(),
            mean_khash_per_s: total,
            elapsed_s: 15.0,
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
mod outlier_tests {
    use super::*;
    use crate::bench::external::openssl::Throughput;

    fn row(k: &[f64]) -> aes::suite::Row {
        aes::suite::Row {
            algorithm: Algorithm::Aes256Cbc,
            cpu: 0,
            tag: "Cortex-A55".into(),
            sizes: [16usize, 64, 256, 1024, 8192, 16384]
                .iter()
                .zip(k)
                .map(|(&b, &k)| Throughput {
                    buffer_bytes: b,
                    bytes_per_s: k * 1000.0,
                })
                .collect(),
            elapsed_s: 0.0,
        }
    }

    #[test]
    fn a_cell_far_below_its_neighbour_is_an_outlier() {
        // The audit's loaded-machine row: 1850.69k at 256 bytes.
        let bad = row(&[
            160137.95, 406946.60, 1850.69, 797220.52, 844931.07, 848265.22,
        ]);
        assert_eq!(aes_outliers(&bad), vec![256]);
        // Real rows (corpus 41BH.txt): small buffers slower, never an outlier.
        let a55 = row(&[
            160137.95, 406946.60, 671079.68, 797220.52, 844931.07, 848265.22,
        ]);
        assert!(aes_outliers(&a55).is_empty());
        let a76 = row(&[
            589825.25, 1009897.58, 1234305.54, 1299169.96, 1325410.99, 1328813.40,
        ]);
        assert!(aes_outliers(&a76).is_empty());
        let first = row(&[100.0, 406946.60, 671079.68, 797220.52, 844931.07, 848265.22]);
        assert_eq!(aes_outliers(&first), vec![16]);
    }
}
