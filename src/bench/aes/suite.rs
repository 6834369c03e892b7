//! The whole `bench aes` run: every algorithm on every target CPU natively, the same with
//! `openssl speed` when it is installed, and (extensive mode) the "fully parallel" rows
//! with one thread or process per CPU. Used by `sbc-bench bench aes` and the standard run.

use serde::{Deserialize, Serialize};

use crate::bench::aes::{self, AesOptions, Algorithm, Backend};
use crate::bench::external::openssl::{Openssl, SpeedRun, Throughput};
use crate::bench::pin::Target;
use crate::bench::{BenchError, Benchmark, Progress, Remark, Steps, Tick};
use crate::shutdown::CancellationToken;

/// What to run.
#[derive(Debug, Clone)]
pub struct AesSuiteConfig<'a> {
    /// One CPU per cluster (or the CPUs asked for), each measured alone.
    pub targets: &'a [Target],
    /// Every CPU, for the fully parallel rows.
    pub all_cpus: &'a [u32],
    /// Algorithms for the per-target rows, in order.
    pub algorithms: Vec<Algorithm>,
    /// Algorithms for the fully parallel rows (empty: none).
    pub parallel: Vec<Algorithm>,
    /// Native timing.
    pub opts: AesOptions,
    /// The OpenSSL to compare with, if any.
    pub openssl: Option<&'a Openssl>,
    /// `openssl speed -seconds` (None: OpenSSL's default of 3 s).
    pub openssl_seconds: Option<u32>,
    /// Run `openssl speed` twice per CBC key length when there is a single target (one
    /// cluster), as sbc-bench does; its AES column averages the two rows.
    pub openssl_twice: bool,
    /// Measure natively also when OpenSSL runs. The standard run measures only with
    /// `openssl speed` (what sbc-bench's AES column is) outside extensive mode; the
    /// native rows stand in when OpenSSL is missing or none of its rows succeeded.
    pub native_beside_openssl: bool,
}

impl AesSuiteConfig<'_> {
    /// The native rows are measured before OpenSSL's (not only as a stand-in after them).
    fn native_first(&self) -> bool {
        self.openssl.is_none() || self.native_beside_openssl
    }

    /// Progress steps [`run`] reports (one per buffer size per row).
    pub fn steps(&self) -> u64 {
        let rows = self.algorithms.len() * self.targets.len() + self.parallel.len();
        let per = if self.native_first() {
            self.opts.buffer_sizes.len() as u64
        } else {
            0
        };
        let openssl = if self.openssl.is_some() {
            let again: usize = plan(self)
                .iter()
                .map(|(alg, _)| self.openssl_runs(*alg) - 1)
                .sum();
            (rows + again) as u64 * 6
        } else {
            0
        };
        rows as u64 * per + openssl
    }

    /// How often `openssl speed` runs `alg` per target: twice for a CBC row on a single
    /// target when [`AesSuiteConfig::openssl_twice`], else once (GCM once, as sbc-bench).
    pub fn openssl_runs(&self, alg: Algorithm) -> usize {
        if self.openssl_twice && self.targets.len() == 1 && alg != Algorithm::Aes256Gcm {
            2
        } else {
            1
        }
    }
}

/// One table row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AesSuiteRow {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The CPU it ran on.
    pub cpu: u32,
    /// The tag sbc-bench appends: the core type (`Cortex-A76`) or `fully parallel`.
    pub tag: String,
    /// Throughput per buffer size.
    #[serde(default)]
    pub sizes: Vec<Throughput>,
    /// How long the row took, in seconds.
    pub elapsed_s: f64,
}

/// OpenSSL's half of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpensslResults {
    /// `openssl version` as printed.
    pub version_raw: String,
    /// The line sbc-bench writes above the table.
    pub version_line: String,
    /// Per-target rows, as the native ones; a CBC row twice in a row when it ran twice.
    #[serde(default)]
    pub rows: Vec<AesSuiteRow>,
    /// Ran twice on the single cluster (sbc-bench's `Executing benchmark twice on cluster
    /// 0`): the AES column averages the two aes-256-cbc rows.
    pub twice: bool,
}

/// Everything `bench aes` measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AesResults {
    /// The AES implementation the native rows used.
    pub backend: Backend,
    /// The GHASH implementation of native GCM rows (`pclmulqdq`, `pmull`, `soft`).
    pub ghash_backend: String,
    /// Native rows (per target, then fully parallel).
    #[serde(default)]
    pub native: Vec<AesSuiteRow>,
    /// OpenSSL rows, when it is installed and was asked for.
    pub openssl: Option<OpensslResults>,
    /// Rows that failed (a CPU that cannot be pinned, OpenSSL without a cipher…), and notes.
    #[serde(default)]
    pub errors: Vec<Remark>,
    /// The native rows were not measured because OpenSSL's were (the standard run outside
    /// extensive mode, [`AesSuiteConfig::native_beside_openssl`]).
    pub native_skipped: bool,
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

fn from_native(r: &aes::AesRun, cpu: u32, tag: String) -> AesSuiteRow {
    AesSuiteRow {
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

fn from_openssl(r: SpeedRun, cpu: u32, tag: String) -> AesSuiteRow {
    AesSuiteRow {
        algorithm: r.algorithm,
        cpu,
        tag,
        sizes: r.sizes,
        elapsed_s: r.elapsed_s,
    }
}

/// Per-target rows in sbc-bench's order: by algorithm, then by target, except that each
/// target's GCM row follows its 256-bit CBC row (sbc-bench runs GCM inside that pass).
fn plan(cfg: &AesSuiteConfig<'_>) -> Vec<(Algorithm, Target)> {
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

/// OpenSSL's `speed` of `alg` on every CPU at once, one thread per CPU.
fn openssl_on_every_cpu(
    o: &Openssl,
    alg: Algorithm,
    cfg: &AesSuiteConfig<'_>,
    cancel: &CancellationToken,
) -> Vec<(u32, Result<SpeedRun, BenchError>)> {
    std::thread::scope(|s| {
        let hs: Vec<_> = cfg
            .all_cpus
            .iter()
            .map(|&cpu| {
                (
                    cpu,
                    s.spawn(move || o.speed(alg, Some(cpu), cfg.openssl_seconds, cancel)),
                )
            })
            .collect();
        hs.into_iter()
            .map(|(cpu, h)| {
                let r = h
                    .join()
                    .unwrap_or_else(|_| Err(BenchError::Failed("openssl runner panicked".into())));
                (cpu, r)
            })
            .collect()
    })
}

/// Run everything. Cancellation stops at once with [`BenchError::Cancelled`]; any other
/// failure is recorded in [`AesResults::errors`] and the run goes on.
pub fn run(
    cfg: &AesSuiteConfig<'_>,
    cancel: &CancellationToken,
    progress: Tick<'_>,
) -> Result<AesResults, BenchError> {
    let mut errors = Vec::new();
    let mut native = Vec::new();
    let keep = |r: Result<AesSuiteRow, BenchError>,
                out: &mut Vec<AesSuiteRow>,
                errors: &mut Vec<Remark>| match r {
        Ok(row) => {
            out.push(row);
            Ok(())
        }
        Err(BenchError::Cancelled) => Err(BenchError::Cancelled),
        Err(e) => {
            errors.push(Remark::Failed(e.to_string()));
            Ok(())
        }
    };
    let rows = plan(cfg);
    let measure_native = |native: &mut Vec<AesSuiteRow>, errors: &mut Vec<Remark>| {
        for (alg, t) in &rows {
            let r = aes::measure_on(t.cpu, *alg, &cfg.opts, cancel, progress)
                .map(|r| from_native(&r, t.cpu, tag_among(t, cfg.targets)));
            keep(r, native, errors)?;
        }
        for &alg in &cfg.parallel {
            for (cpu, r) in aes::measure_parallel(cfg.all_cpus, alg, &cfg.opts, cancel, &|| {}) {
                let r = r.map(|r| from_native(&r, cpu, PARALLEL.into()));
                keep(r, native, errors)?;
            }
            for _ in &cfg.opts.buffer_sizes {
                progress();
            }
        }
        Ok::<(), BenchError>(())
    };
    if cfg.native_first() {
        measure_native(&mut native, &mut errors)?;
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
            let mut twice = false;
            for (alg, t) in &rows {
                for _ in 0..cfg.openssl_runs(*alg) {
                    let r = o
                        .speed(*alg, Some(t.cpu), cfg.openssl_seconds, cancel)
                        .map(|r| from_openssl(r, t.cpu, tag_among(t, cfg.targets)));
                    keep(r, &mut out, &mut errors)?;
                    steps();
                }
                twice |= cfg.openssl_runs(*alg) == 2;
            }
            for &alg in &cfg.parallel {
                for (cpu, r) in openssl_on_every_cpu(o, alg, cfg, cancel) {
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
                twice,
            })
        }
    };
    // OpenSSL was to stand for both but measured nothing: the native rows stand in.
    let mut native_skipped = !cfg.native_first();
    if native_skipped && openssl.as_ref().is_none_or(|o| o.rows.is_empty()) {
        measure_native(&mut native, &mut errors)?;
        native_skipped = false;
    }
    Ok(AesResults {
        backend: Backend::detect(),
        ghash_backend: aes::ghash_backend().to_string(),
        native,
        openssl,
        errors,
        native_skipped,
    })
}

/// The AES suite as a [`Benchmark`]: where it runs. [`AesSuiteOptions`] say what it measures.
#[derive(Debug, Clone, Copy)]
pub struct Aes<'a> {
    /// One CPU per cluster (or the CPUs asked for), each measured alone.
    pub targets: &'a [Target],
    /// Every CPU, for the fully parallel rows.
    pub all_cpus: &'a [u32],
    /// The OpenSSL to compare with, if any.
    pub openssl: Option<&'a Openssl>,
}

/// What the AES suite measures.
#[derive(Debug, Clone, PartialEq)]
pub struct AesSuiteOptions {
    /// Algorithms for the per-target rows, in order.
    pub algorithms: Vec<Algorithm>,
    /// Algorithms for the fully parallel rows (empty: none).
    pub parallel: Vec<Algorithm>,
    /// Native timing.
    pub opts: AesOptions,
    /// `openssl speed -seconds` (None: OpenSSL's default of 3 s).
    pub openssl_seconds: Option<u32>,
    /// Re-measurements of a native single-core row with an outlier (see [`outliers`])
    /// before it is reported as is, with a note (0: none).
    pub outlier_retries: usize,
    /// [`AesSuiteConfig::openssl_twice`]: the standard run's sbc-bench rule.
    pub openssl_twice: bool,
    /// [`AesSuiteConfig::native_beside_openssl`].
    pub native_beside_openssl: bool,
}

impl<'a> Aes<'a> {
    fn config(&self, o: &AesSuiteOptions) -> AesSuiteConfig<'a> {
        AesSuiteConfig {
            targets: self.targets,
            all_cpus: self.all_cpus,
            algorithms: o.algorithms.clone(),
            parallel: o.parallel.clone(),
            opts: o.opts.clone(),
            openssl: self.openssl,
            openssl_seconds: o.openssl_seconds,
            openssl_twice: o.openssl_twice,
            native_beside_openssl: o.native_beside_openssl,
        }
    }
}

impl Benchmark for Aes<'_> {
    const NAME: &'static str = "aes";
    type Options = AesSuiteOptions;
    type Output = AesResults;

    fn run(
        &self,
        o: &AesSuiteOptions,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<AesResults, BenchError> {
        let cfg = self.config(o);
        let steps = Steps::new(*progress, cfg.steps());
        let mut r = run(&cfg, cancel, &|| steps.tick())?;
        if o.outlier_retries > 0 {
            remeasure_outliers(&cfg, &mut r, o.outlier_retries, cancel);
        }
        Ok(r)
    }
}

/// Buffer sizes of an AES row whose throughput is far below its smaller neighbour's.
/// Throughput of a cipher loop only grows with the buffer (less per-call overhead), so a
/// cell under half of the one before it was cut short by something else running (seen:
/// 1850k at 256 bytes between 400,000k neighbours on a loaded machine). The first cell
/// is judged against the second with more room (small buffers are legitimately slow).
pub fn outliers(row: &AesSuiteRow) -> Vec<usize> {
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

/// Re-measure single-core native rows with a cell far below its neighbour (natively, one
/// target, that algorithm); if it stays, say so in a "note:" (which does not fail a run).
fn remeasure_outliers(
    cfg: &AesSuiteConfig<'_>,
    r: &mut AesResults,
    retries: usize,
    cancel: &CancellationToken,
) {
    for row in r.native.iter_mut() {
        let Some(t) = cfg.targets.iter().find(|t| t.cpu == row.cpu) else {
            continue;
        };
        if outliers(row).is_empty() || row.tag == PARALLEL {
            continue;
        }
        let again = AesSuiteConfig {
            targets: std::slice::from_ref(t),
            algorithms: vec![row.algorithm],
            parallel: Vec::new(),
            openssl: None,
            ..cfg.clone()
        };
        for _ in 0..retries {
            if cancel.is_cancelled() {
                break;
            }
            let Ok(x) = run(&again, cancel, &|| {}) else {
                break;
            };
            if let Some(new) = x.native.into_iter().find(|n| n.algorithm == row.algorithm) {
                let fixed = outliers(&new).is_empty();
                *row = new;
                if fixed {
                    break;
                }
            }
        }
        let left = outliers(row);
        if !left.is_empty() {
            r.errors.push(Remark::Note(format!(
                "{} on cpu{}: {} byte result far below its neighbour after {retries} re-measurements (background activity?)",
                row.algorithm.name(),
                row.cpu,
                left.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join("/"),
            )));
        }
    }
}

#[cfg(test)]
mod outlier_tests {
    use super::*;

    fn row(k: &[f64]) -> AesSuiteRow {
        AesSuiteRow {
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
        assert_eq!(outliers(&bad), vec![256]);
        // Real rows (corpus 41BH.txt): small buffers slower, never an outlier.
        let a55 = row(&[
            160137.95, 406946.60, 671079.68, 797220.52, 844931.07, 848265.22,
        ]);
        assert!(outliers(&a55).is_empty());
        let a76 = row(&[
            589825.25, 1009897.58, 1234305.54, 1299169.96, 1325410.99, 1328813.40,
        ]);
        assert!(outliers(&a76).is_empty());
        let first = row(&[100.0, 406946.60, 671079.68, 797220.52, 844931.07, 848265.22]);
        assert_eq!(outliers(&first), vec![16]);
    }
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
        let cfg = AesSuiteConfig {
            targets: &targets,
            all_cpus: &[0, 4],
            algorithms: vec![
                Algorithm::Aes128Cbc,
                Algorithm::Aes256Cbc,
                Algorithm::Aes256Gcm,
            ],
            parallel: vec![Algorithm::Aes256Cbc],
            opts: AesOptions::default(),
            openssl: None,
            openssl_seconds: None,
            openssl_twice: true,
            native_beside_openssl: true,
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
        let cfg = AesSuiteConfig {
            targets: &targets,
            all_cpus: &[cpu],
            algorithms: vec![Algorithm::Aes128Cbc],
            parallel: vec![Algorithm::Aes256Gcm],
            opts: AesOptions {
                per_size: std::time::Duration::from_millis(5),
                buffer_sizes: vec![16, 1024],
            },
            openssl: None,
            openssl_seconds: None,
            openssl_twice: true,
            native_beside_openssl: true,
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

    /// A stand-in `openssl` that prints `openssl speed`'s table for the algorithm it is asked.
    fn fake_openssl(dir: &std::path::Path) -> Openssl {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("openssl");
        std::fs::write(
            &path,
            "#!/bin/sh\nfor a; do alg=$a; done\n\
             echo 'type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes'\n\
             echo \"$alg     101125.50k   283286.23k   503031.38k   643702.78k   700467.88k   704064.17k\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Openssl {
            path,
            version_raw: "OpenSSL 3.0.11 19 Sep 2023".into(),
            version: Some("3.0.11".into()),
        }
    }

    #[test]
    fn openssl_runs_twice_on_a_single_cluster_only() {
        let dir = tempfile::tempdir().unwrap();
        let o = fake_openssl(dir.path());
        let cpu = crate::bench::pin::allowed_cpus()
            .first()
            .copied()
            .unwrap_or(0);
        let one = [target(cpu, "Cortex-A53")];
        let mut cfg = AesSuiteConfig {
            targets: &one,
            all_cpus: &[cpu],
            algorithms: vec![
                Algorithm::Aes128Cbc,
                Algorithm::Aes256Cbc,
                Algorithm::Aes256Gcm,
            ],
            parallel: Vec::new(),
            opts: AesOptions {
                per_size: std::time::Duration::from_millis(2),
                buffer_sizes: vec![16],
            },
            openssl: Some(&o),
            openssl_seconds: Some(1),
            openssl_twice: true,
            native_beside_openssl: true,
        };
        let steps = std::sync::atomic::AtomicU64::new(0);
        let tick = || {
            steps.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        };
        let r = run(&cfg, &CancellationToken::new(), &tick).unwrap();
        let ssl = r.openssl.unwrap();
        let names: Vec<&str> = ssl.rows.iter().map(|x| x.algorithm.name()).collect();
        // sbc-bench: each CBC key length twice, GCM (extensive) once.
        assert_eq!(
            names,
            [
                "aes-128-cbc",
                "aes-128-cbc",
                "aes-256-cbc",
                "aes-256-cbc",
                "aes-256-gcm"
            ]
        );
        assert!(ssl.twice);
        assert_eq!(steps.into_inner(), cfg.steps());
        assert_eq!(r.native.len(), 3, "native rows stay once");
        // Several clusters (or the rule off): once each.
        cfg.openssl_twice = false;
        let r = run(&cfg, &CancellationToken::new(), &|| {}).unwrap();
        let ssl = r.openssl.unwrap();
        assert_eq!(ssl.rows.len(), 3);
        assert!(!ssl.twice);
        let two = [target(cpu, "Cortex-A55"), target(cpu, "Cortex-A76")];
        cfg.targets = &two;
        cfg.openssl_twice = true;
        assert_eq!(cfg.openssl_runs(Algorithm::Aes256Cbc), 1);
    }

    #[test]
    fn native_rows_are_skipped_beside_openssl_unless_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let o = fake_openssl(dir.path());
        let cpu = crate::bench::pin::allowed_cpus()
            .first()
            .copied()
            .unwrap_or(0);
        let one = [target(cpu, "Cortex-A53")];
        let cfg = AesSuiteConfig {
            targets: &one,
            all_cpus: &[cpu],
            algorithms: Algorithm::CBC.to_vec(),
            parallel: Vec::new(),
            opts: AesOptions {
                per_size: std::time::Duration::from_millis(2),
                buffer_sizes: vec![16],
            },
            openssl: Some(&o),
            openssl_seconds: Some(1),
            openssl_twice: false,
            native_beside_openssl: false,
        };
        let steps = std::sync::atomic::AtomicU64::new(0);
        let tick = || {
            steps.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        };
        let r = run(&cfg, &CancellationToken::new(), &tick).unwrap();
        assert!(r.native.is_empty());
        assert!(r.native_skipped);
        assert_eq!(r.openssl.unwrap().rows.len(), 3);
        assert_eq!(
            steps.into_inner(),
            cfg.steps(),
            "progress counts no native rows"
        );
    }

    #[test]
    fn native_rows_stand_in_when_openssl_measured_nothing() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("openssl");
        std::fs::write(
            &path,
            "#!/bin/sh\necho 'speed: unknown cipher' >&2\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let o = Openssl {
            path,
            version_raw: "OpenSSL 3.0.11 19 Sep 2023".into(),
            version: Some("3.0.11".into()),
        };
        let cpu = crate::bench::pin::allowed_cpus()
            .first()
            .copied()
            .unwrap_or(0);
        let one = [target(cpu, "Cortex-A53")];
        let cfg = AesSuiteConfig {
            targets: &one,
            all_cpus: &[cpu],
            algorithms: vec![Algorithm::Aes256Cbc],
            parallel: Vec::new(),
            opts: AesOptions {
                per_size: std::time::Duration::from_millis(2),
                buffer_sizes: vec![16],
            },
            openssl: Some(&o),
            openssl_seconds: Some(1),
            openssl_twice: false,
            native_beside_openssl: false,
        };
        let r = run(&cfg, &CancellationToken::new(), &|| {}).unwrap();
        assert!(r.openssl.as_ref().unwrap().rows.is_empty());
        assert!(!r.errors.is_empty());
        assert_eq!(r.native.len(), 1, "the native row stands in");
        assert!(!r.native_skipped);
    }
}
