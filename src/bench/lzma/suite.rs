//! The whole `bench compress` run, as sbc-bench runs 7-Zip: single-threaded pinned to each
//! cluster, then multi-threaded on all cores (three consecutive runs for 7-Zip); the native
//! LZMA score the same way. Used by `sbc-bench bench compress` and the standard run.

use serde::{Deserialize, Serialize};

use crate::bench::external::sevenzip::{BenchRun, SevenZip, Version};
use crate::bench::lzma::{self, LzmaOptions, LzmaRun};
use crate::bench::pin::Target;
use crate::bench::{BenchError, Benchmark, Progress, Remark, Steps, Tick};
use crate::shutdown::CancellationToken;

/// sbc-bench limits 7-Zip's dictionary to 2 MiB below this much available memory.
pub const SEVENZIP_LOW_MEMORY: u64 = 350_000 * 1024;
/// Share of available memory the native benchmark may use.
pub const NATIVE_MEMORY_SHARE: f64 = 0.8;

/// Options that fit the machine's memory, and what had to give.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPlan {
    /// Native single-threaded options (None: not enough memory).
    pub native_single: Option<LzmaOptions>,
    /// Native multi-threaded options (None: one CPU, or not enough memory).
    pub native_multi: Option<LzmaOptions>,
    /// `-md=` for 7-Zip.
    pub sevenzip_dict: Option<String>,
    /// Sentences for the user about what was limited.
    pub notes: Vec<String>,
}

fn dicts(v: &[u32]) -> String {
    v.iter()
        .map(|d| format!("2^{d}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Choose dictionary sizes that fit `available` bytes for `threads` CPUs (used by
/// `bench compress` and the standard run alike).
pub fn plan_memory(
    quick: bool,
    available: Option<u64>,
    threads: usize,
    has_sevenzip: bool,
) -> MemoryPlan {
    let mut notes = Vec::new();
    let mut sevenzip_dict = quick.then(|| "22".to_string());
    if available.is_some_and(|a| a < SEVENZIP_LOW_MEMORY) && has_sevenzip {
        sevenzip_dict = Some("2m".into());
        notes.push(
            "less than 350 MB available: 7-Zip limited to a 2 MiB dictionary, as sbc-bench does"
                .into(),
        );
    }
    let base = if quick {
        LzmaOptions::quick()
    } else {
        LzmaOptions::default()
    };
    let budget = available.map(|a| (a as f64 * NATIVE_MEMORY_SHARE) as u64);
    let mut fit = |threads: usize, what: &str| -> Option<LzmaOptions> {
        let mut o = base.clone();
        let Some(budget) = budget else {
            return Some(o);
        };
        let dropped = o.fit_memory(u32::try_from(threads).unwrap_or(u32::MAX), budget);
        if o.dict_log2.is_empty() {
            notes.push(format!(
                "not enough memory for the native {what} run ({} MiB available): skipped",
                available.unwrap_or(0) >> 20
            ));
            return None;
        }
        if !dropped.is_empty() {
            notes.push(format!(
                "native {what} run limited to dictionaries {} to fit in {} MiB of available memory (skipped {})",
                dicts(&o.dict_log2),
                available.unwrap_or(0) >> 20,
                dicts(&dropped)
            ));
        }
        Some(o)
    };
    let native_single = fit(1, "single-threaded");
    let native_multi = if threads > 1 {
        fit(threads, "multi-threaded")
    } else {
        None
    };
    MemoryPlan {
        native_single,
        native_multi,
        sevenzip_dict,
        notes,
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct LzmaSuiteConfig<'a> {
    /// One CPU per cluster (or the CPUs asked for), each benchmarked single-threaded.
    pub targets: &'a [Target],
    /// Every CPU, for the multi-threaded runs.
    pub all_cpus: &'a [u32],
    /// Native single-threaded options (None: skip the native benchmark).
    pub native_single: Option<LzmaOptions>,
    /// Native multi-threaded options (None: skip; also skipped with one CPU).
    pub native_multi: Option<LzmaOptions>,
    /// The 7-Zip to run, if any.
    pub sevenzip: Option<&'a SevenZip>,
    /// `-md=` for 7-Zip (sbc-bench passes `2m` when less than 350 MB are available).
    pub sevenzip_dict: Option<String>,
    /// Consecutive multi-threaded 7-Zip runs (sbc-bench: 3).
    pub sevenzip_runs: u32,
}

impl LzmaSuiteConfig<'_> {
    /// Progress steps [`run`] reports: one per 7-Zip run, one per native dictionary size.
    pub fn steps(&self) -> u64 {
        let multi = self.all_cpus.len() > 1;
        let mut n = 0u64;
        if self.sevenzip.is_some() {
            n += self.targets.len() as u64;
            if multi {
                n += u64::from(self.sevenzip_runs);
            }
        }
        if let Some(o) = &self.native_single {
            n += (o.dict_log2.len() * self.targets.len()) as u64;
        }
        if let (Some(o), true) = (&self.native_multi, multi) {
            n += o.dict_log2.len() as u64;
        }
        n
    }
}

/// A single-threaded result and where it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnTarget<T> {
    /// The CPU, with its core type.
    pub target: Target,
    /// The result.
    pub result: T,
}

/// 7-Zip's half.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SevenZipResults {
    /// The binary that ran.
    pub path: String,
    /// Its versions.
    pub version: Version,
    /// Why its scores may not compare with published ones, if they do not.
    pub warning: Option<String>,
    /// The 7-Zip sbc-bench ships (next to our binary or in `/usr/lib/sbc-bench`), not
    /// the distro's; only said (`"bundled": true`) when it is.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bundled: bool,
    /// `7-Zip 16.02 (bundled)`: how the log names the bundled one (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// `-md=` passed, if any.
    pub dict: Option<String>,
    /// Single-threaded runs, one per target.
    #[serde(default)]
    pub single: Vec<OnTarget<BenchRun>>,
    /// Consecutive multi-threaded runs on all CPUs.
    #[serde(default)]
    pub multi: Vec<BenchRun>,
}

impl SevenZipResults {
    /// sbc-bench's single-threaded score: the best `Tot:` of the per-cluster runs.
    pub fn single_threaded_score(&self) -> Option<u64> {
        self.single
            .iter()
            .map(|s| s.result.table.total_rating_mips)
            .max()
    }
}

/// Everything `bench compress` measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompressResults {
    /// 7-Zip's benchmark, when installed and asked for.
    pub sevenzip: Option<SevenZipResults>,
    /// Native single-threaded runs, one per target.
    #[serde(default)]
    pub native_single: Vec<OnTarget<LzmaRun>>,
    /// Native multi-threaded run on all CPUs.
    pub native_multi: Option<LzmaRun>,
    /// Failures (a run killed by the OOM killer, a CPU that cannot be pinned…), and notes.
    #[serde(default)]
    pub errors: Vec<Remark>,
}

/// The compression suite as a [`Benchmark`]: where it runs and with which 7-Zip.
/// [`LzmaSuiteOptions`] say what it measures.
#[derive(Debug, Clone, Copy)]
pub struct Compress<'a> {
    /// One CPU per cluster (or the CPUs asked for), each benchmarked single-threaded.
    pub targets: &'a [Target],
    /// Every CPU, for the multi-threaded runs.
    pub all_cpus: &'a [u32],
    /// The 7-Zip to run, if any.
    pub sevenzip: Option<&'a SevenZip>,
}

/// What the compression suite measures.
#[derive(Debug, Clone, PartialEq)]
pub struct LzmaSuiteOptions {
    /// Native single-threaded options (None: skip the native benchmark).
    pub native_single: Option<LzmaOptions>,
    /// Native multi-threaded options (None: skip; also skipped with one CPU).
    pub native_multi: Option<LzmaOptions>,
    /// `-md=` for 7-Zip (sbc-bench passes `2m` when less than 350 MB are available).
    pub sevenzip_dict: Option<String>,
    /// Consecutive multi-threaded 7-Zip runs (sbc-bench: 3).
    pub sevenzip_runs: u32,
}

impl Benchmark for Compress<'_> {
    const NAME: &'static str = "compress";
    type Options = LzmaSuiteOptions;
    type Output = CompressResults;

    fn run(
        &self,
        o: &LzmaSuiteOptions,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<CompressResults, BenchError> {
        let cfg = LzmaSuiteConfig {
            targets: self.targets,
            all_cpus: self.all_cpus,
            native_single: o.native_single.clone(),
            native_multi: o.native_multi.clone(),
            sevenzip: self.sevenzip,
            sevenzip_dict: o.sevenzip_dict.clone(),
            sevenzip_runs: o.sevenzip_runs,
        };
        let steps = Steps::new(*progress, cfg.steps());
        run(&cfg, cancel, &|| steps.tick())
    }
}

/// Run everything. Cancellation stops at once; other failures are recorded and the run
/// goes on.
pub fn run(
    cfg: &LzmaSuiteConfig<'_>,
    cancel: &CancellationToken,
    progress: Tick<'_>,
) -> Result<CompressResults, BenchError> {
    let mut errors = Vec::new();
    let mut note = |e: BenchError| -> Result<(), BenchError> {
        match e {
            BenchError::Cancelled => Err(BenchError::Cancelled),
            e => {
                errors.push(Remark::Failed(e.to_string()));
                Ok(())
            }
        }
    };
    let multi = cfg.all_cpus.len() > 1;
    let threads = u32::try_from(cfg.all_cpus.len()).unwrap_or(u32::MAX);

    let mut sevenzip = None;
    if let Some(z) = cfg.sevenzip {
        let dict = cfg.sevenzip_dict.as_deref();
        let mut single = Vec::new();
        for t in cfg.targets {
            match z.bench(1, &[t.cpu], dict, cancel) {
                Ok(r) => single.push(OnTarget {
                    target: t.clone(),
                    result: r,
                }),
                Err(e) => note(e)?,
            }
            progress();
        }
        let mut runs = Vec::new();
        if multi {
            for _ in 0..cfg.sevenzip_runs {
                match z.bench(threads, cfg.all_cpus, dict, cancel) {
                    Ok(r) => runs.push(r),
                    Err(e) => note(e)?,
                }
                progress();
            }
        }
        sevenzip = Some(SevenZipResults {
            path: z.path.display().to_string(),
            warning: z.version.warning(),
            bundled: z.origin.bundled(),
            label: z.origin.bundled().then(|| z.version.label(true)),
            version: z.version.clone(),
            dict: cfg.sevenzip_dict.clone(),
            single,
            multi: runs,
        });
    }

    let mut native_single = Vec::new();
    if let Some(o) = &cfg.native_single {
        for t in cfg.targets {
            match lzma::run_on(t.cpu, o, cancel, progress) {
                Ok(r) => native_single.push(OnTarget {
                    target: t.clone(),
                    result: r,
                }),
                Err(e) => note(e)?,
            }
        }
    }
    let mut native_multi = None;
    if let (Some(o), true) = (&cfg.native_multi, multi) {
        match lzma::run_parallel(cfg.all_cpus, o, cancel, progress) {
            Ok(r) => native_multi = Some(r),
            Err(e) => note(e)?,
        }
    }
    Ok(CompressResults {
        sevenzip,
        native_single,
        native_multi,
        errors,
    })
}
