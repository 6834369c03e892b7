//! The whole `bench aes` run: every algorithm on every target CPU natively, the same with
//! `openssl speed` when it is installed, and (extensive mode) the "fully parallel" rows
//! with one thread or process per CPU. Used by `sbc-bench bench aes` and the standard run.

use serde::Serialize;

use crate::bench::aes::{self, Algorithm, Backend, Options};
use crate::bench::external::openssl::{Openssl, SpeedRun, Throughput};
use crate::bench::pin::Target;
use crate::bench::{BenchError, Progress};
use crate::shutdown::CancellationToken;

/// What to run.
#[derive(Debug, Clone)]
pub struct Config<'a> {
    /// One CPU per cluster (or the CPUs asked for), each measured alone.
    pub targets: &'a [Target],
    /// Every CPU, for the fully parallel rows.
    pub all_cpus: &'a [u32],
    /// Algorithms for the per-target rows, in order.
    pub algorithms: Vec<Algorithm>,
    /// Algorithms for the fully parallel rows (empty: none).
    pub parallel: Vec<Algorithm>,
    /// Native timing.
    pub opts: Options,
    /// The OpenSSL to compare with, if any.
    pub openssl: Option<&'a Openssl>,
    /// `openssl speed -seconds` (None: OpenSSL's default of 3 s).
    pub openssl_seconds: Option<u32>,
}

impl Config<'_> {
    /// Progress steps [`run`] reports (one per buffer size per row).
    pub fn steps(&self) -> u64 {
        let rows = self.algorithms.len() * self.targets.len() + self.parallel.len();
        let per = self.opts.buffer_sizes.len() as u64;
        let sides = if self.openssl.is_some() { 2 } else { 1 };
        rows as u64 * per * sides
    }
}

/// One table row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The CPU it ran on.
    pub cpu: u32,
    /// The tag sbc-bench appends: the core type (`Cortex-A76`) or `fully parallel`.
    pub tag: String,
    /// Throughput per buffer size.
    pub sizes: Vec<Throughput>,
    /// How long the row took, in seconds.
    pub elapsed_s: f64,
}

/// OpenSSL's half of the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpensslResults {
    /// `openssl version` as printed.
    pub version_raw: String,
    /// The line sbc-bench writes above the table.
    pub version_line: String,
    /// Per-target rows, as the native ones.
    pub rows: Vec<Row>,
}

/// Everything `bench aes` measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AesResults {
    /// The AES implementation the native rows used.
    pub backend: Backend,
    /// The GHASH implementation of native GCM rows (`pclmulqdq`, `pmull`, `soft`).
    pub ghash_backend: &'static str,
    /// Native rows (per target, then fully parallel).
    pub native: Vec<Row>,
    /// OpenSSL rows, when it is installed and was asked for.
    pub openssl: Option<OpensslResults>,
    /// Rows that failed (a CPU that cannot be pinned, OpenSSL without a cipher…).
    pub errors: Vec<String>,
}

/// The row tag of a target: its core type (`Cortex-A76`, as sbc-bench tags one row per
/// cluster), with the CPU added when another target is in the same cluster (`EPYC, cpu1`:
/// `--cpus 0,1`), else the CPU (`cpu1`).
fn tag_among(t: &Target, targets: &[Target]) -> String {
    let Some(core) = &t.core_type else {
        return format!("cpu{}", t.cpu);
    };
    let shared = targets
        .iter()
        .any(|o| o.cpu != t.cpu && o.cluster.is_some() && o.cluster == t.cluster);
    if shared {
        format!("{core}, cpu{}", t.cpu)
    } else {
        core.clone()
    }
}

const PARALLEL: &str = "fully parallel";

fn from_native(r: &aes::AesRun, cpu: u32, tag: String) -> Row {
    Row {
        algorithm: r.algorithm,
        cpu,
        tag,
        sizes: r
            .sizes
            .iter()
            .map(|s| Throughput {
                buffer_bytes: s.buffer_bytes,
                bytes_per_s: s.bytes_per_s,
            })
            .collect(),
        elapsed_s: r.sizes.iter().map(|s| s.elapsed_s).sum(),
    }
}

fn from_openssl(r: SpeedRun, cpu: u32, tag: String) -> Row {
    Row {
        algorithm: r.algorithm,
        cpu,
        tag,
        sizes: r.sizes,
        elapsed_s: r.elapsed_s,
    }
}

/// Per-target rows in sbc-bench's order: by algorithm, then by target, except that each
/// target's GCM row follows its 256-bit CBC row (sbc-bench runs GCM inside that pass).
fn plan(cfg: &Config<'_>) -> Vec<(Algorithm, Target)> {
    let gcm = cfg.algorithms.contains(&Algorithm::Aes256Gcm);
    let cbc256 = cfg.algorithms.contains(&Algorithm::Aes256Cbc);
    let mut v = Vec::new();
    for &alg in &cfg.algorithms {
        if alg == Algorithm::Aes256Gcm && cbc256 {
            continue;
        }
        for t in cfg.targets {
            v.push((alg, t.clone()));
            if alg == Algorithm::Aes256Cbc && gcm {
                v.push((Algorithm::Aes256Gcm, t.clone()));
            }
        }
    }
    v
}

/// Run everything. Cancellation stops at once with [`BenchError::Cancelled`]; any other
/// failure is recorded in [`AesResults::errors`] and the run goes on.
pub fn run(
    cfg: &Config<'_>,
    cancel: &CancellationToken,
    progress: Progress<'_>,
) -> Result<AesResults, BenchError> {
    let mut errors = Vec::new();
    let mut native = Vec::new();
    let keep = |r: Result<Row, BenchError>, out: &mut Vec<Row>, errors: &mut Vec<String>| match r {
        Ok(row) => {
            out.push(row);
            Ok(())
        }
        Err(BenchError::Cancelled) => Err(BenchError::Cancelled),
        Err(e) => {
            errors.push(e.to_string());
            Ok(())
        }
    };
    let rows = plan(cfg);
    for (alg, t) in &rows {
        let r = aes::measure_on(t.cpu, *alg, &cfg.opts, cancel, progress)
            .map(|r| from_native(&r, t.cpu, tag_among(t, cfg.targets)));
        keep(r, &mut native, &mut errors)?;
    }
    for &alg in &cfg.parallel {
        for (cpu, r) in aes::measure_parallel(cfg.all_cpus, alg, &cfg.opts, cancel, &|| {}) {
            let r = r.map(|r| from_native(&r, cpu, PARALLEL.into()));
            keep(r, &mut native, &mut errors)?;
        }
        for _ in &cfg.opts.buffer_sizes {
            progress();
        }
    }
    let openssl = match cfg.openssl {
        None => None,
        Some(o) => {
            let mut out = Vec::new();
            let steps = || {
                for _ in 0..6 {
                    progress();
                }
            };
            for (alg, t) in &rows {
                let r = o
                    .speed(*alg, Some(t.cpu), cfg.openssl_seconds, cancel)
                    .map(|r| from_openssl(r, t.cpu, tag_among(t, cfg.targets)));
                keep(r, &mut out, &mut errors)?;
                steps();
            }
            for &alg in &cfg.parallel {
                let results: Vec<(u32, Result<SpeedRun, BenchError>)> = std::thread::scope(|s| {
                    let hs: Vec<_> = cfg
                        .all_cpus
                        .iter()
                        .map(|&cpu| {
                            (
                                cpu,
                                s.spawn(move || {
                                    o.speed(alg, Some(cpu), cfg.openssl_seconds, cancel)
                                }),
                            )
                        })
                        .collect();
                    hs.into_iter()
                        .map(|(cpu, h)| {
                            let r = h.join().unwrap_or_else(|_| {
                                Err(BenchError::Failed("openssl runner panicked".into()))
                            });
                            (cpu, r)
                        })
                        .collect()
                });
                for (cpu, r) in results {
                    keep(
                        r.map(|r| from_openssl(r, cpu, PARALLEL.into())),
                        &mut out,
                        &mut errors,
                    )?;
                }
                steps();
            }
            Some(OpensslResults {
                version_raw: o.version_raw.clone(),
                version_line: o.version_line(),
                rows: out,
            })
        }
    };
    Ok(AesResults {
        backend: Backend::detect(),
        ghash_backend: aes::ghash_backend(),
        native,
        openssl,
        errors,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_cpus_of_one_cluster_are_told_apart_by_their_tags() {
        let t = |cpu, cluster, core: &str| Target {
            cpu,
            core_type: Some(core.into()),
            cluster: Some(cluster),
        };
        // RK3588's default targets: two A76 clusters keep sbc-bench's plain tag.
        let rk = [
            t(0, 0, "Cortex-A55"),
            t(4, 1, "Cortex-A76"),
            t(6, 2, "Cortex-A76"),
        ];
        assert_eq!(tag_among(&rk[1], &rk), "Cortex-A76");
        assert_eq!(tag_among(&rk[2], &rk), "Cortex-A76");
        // `--cpus 0,1` on one cluster.
        let two = [t(0, 0, "EPYC"), t(1, 0, "EPYC")];
        assert_eq!(tag_among(&two[0], &two), "EPYC, cpu0");
        assert_eq!(tag_among(&two[1], &two), "EPYC, cpu1");
        let unknown = Target {
            cpu: 3,
            core_type: None,
            cluster: None,
        };
        assert_eq!(tag_among(&unknown, &[]), "cpu3");
    }

    use super::*;

    fn target(cpu: u32, core: &str) -> Target {
        Target {
            cpu,
            core_type: Some(core.into()),
            cluster: None,
        }
    }

    #[test]
    fn rows_come_in_sbc_bench_order() {
        let targets = [target(0, "Cortex-A55"), target(4, "Cortex-A76")];
        let cfg = Config {
            targets: &targets,
            all_cpus: &[0, 4],
            algorithms: vec![
                Algorithm::Aes128Cbc,
                Algorithm::Aes256Cbc,
                Algorithm::Aes256Gcm,
            ],
            parallel: vec![Algorithm::Aes256Cbc],
            opts: Options::default(),
            openssl: None,
            openssl_seconds: None,
        };
        let order: Vec<(&str, u32)> = plan(&cfg).iter().map(|(a, t)| (a.name(), t.cpu)).collect();
        assert_eq!(
            order,
            vec![
                ("aes-128-cbc", 0),
                ("aes-128-cbc", 4),
                ("aes-256-cbc", 0),
                ("aes-256-gcm", 0),
                ("aes-256-cbc", 4),
                ("aes-256-gcm", 4),
            ]
        );
        assert_eq!(cfg.steps(), (6 + 1) * 6);
    }

    #[test]
    fn a_quick_native_run_tags_rows_with_core_types() {
        let cpu = crate::bench::pin::allowed_cpus()
            .first()
            .copied()
            .unwrap_or(0);
        let targets = [target(cpu, "Cortex-A76")];
        let cfg = Config {
            targets: &targets,
            all_cpus: &[cpu],
            algorithms: vec![Algorithm::Aes128Cbc],
            parallel: vec![Algorithm::Aes256Gcm],
            opts: Options {
                per_size: std::time::Duration::from_millis(5),
                buffer_sizes: vec![16, 1024],
            },
            openssl: None,
            openssl_seconds: None,
        };
        let steps = std::sync::atomic::AtomicU64::new(0);
        let r = run(&cfg, &CancellationToken::new(), &|| {
            steps.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        })
        .unwrap();
        assert_eq!(r.native.len(), 2);
        assert_eq!(r.native[0].tag, "Cortex-A76");
        assert_eq!(r.native[1].tag, "fully parallel");
        assert_eq!(r.native[1].algorithm, Algorithm::Aes256Gcm);
        assert!(r.errors.is_empty() && r.openssl.is_none());
        assert_eq!(steps.into_inner(), cfg.steps());
    }
}
