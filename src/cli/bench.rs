//! `sbc-bench bench <benchmark>`: one native benchmark.

use clap::{Args, Subcommand};

/// `sbc-bench bench`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Which benchmark.
    #[command(subcommand)]
    pub which: BenchCommand,
}

/// The native benchmarks.
#[derive(Debug, Clone, Subcommand)]
pub enum BenchCommand {
    /// Measure real clock speeds (and walk every cpufreq OPP with root).
    Clock(ClockArgs),
    /// Memory bandwidth (tinymembench semantics).
    Membw(CommonArgs),
    /// Memory latency (tinymembench and ramlat tables).
    Memlat(MemlatArgs),
    /// AES throughput as `openssl speed` prints it.
    Aes(CommonArgs),
    /// LZMA compression score (native; 7-Zip's own when installed).
    Compress(CommonArgs),
    /// scrypt hashing on all cores (cpuminer -c stress).
    Scrypt(CommonArgs),
}

/// Options every benchmark takes.
#[derive(Debug, Clone, Args, Default)]
pub struct CommonArgs {
    /// Pin to these CPUs (`1`, `0,4`, `0-3`); default: the first CPU of each cluster.
    #[arg(long, value_name = "LIST")]
    pub cpus: Option<String>,

    /// Shorten the benchmark (tests and smoke runs).
    #[arg(long)]
    pub quick: bool,

    /// Also run what sbc-bench's extensive mode adds.
    #[arg(long)]
    pub extensive: bool,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `bench clock`.
#[derive(Debug, Clone, Args, Default)]
pub struct ClockArgs {
    /// Options every benchmark takes.
    #[command(flatten)]
    pub common: CommonArgs,

    /// Skip cpufreq OPPs above this many kHz (sbc-bench's `MaxKHz`).
    #[arg(long, value_name = "KHZ", env = "MaxKHz")]
    pub max_khz: Option<u64>,

    /// Skip cpufreq OPPs below this many kHz (sbc-bench's `MinKHz`).
    #[arg(long, value_name = "KHZ", env = "MinKHz")]
    pub min_khz: Option<u64>,

    /// Check only the highest OPP of each policy.
    #[arg(long)]
    pub only_max: bool,
}

/// Options of `bench memlat`.
#[derive(Debug, Clone, Args, Default)]
pub struct MemlatArgs {
    /// Options every benchmark takes.
    #[command(flatten)]
    pub common: CommonArgs,

    /// Do not ask for huge pages: the kernel's THP policy decides, as for the original
    /// ramlat and tinymembench's bandwidth tests (comparable with published sbc-bench logs).
    #[arg(long)]
    pub no_madvise: bool,
}
