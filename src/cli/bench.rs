//! `sbc-bench bench <benchmark>`: one native benchmark.

use clap::{Args, Subcommand};

use crate::bench::aes::suite::AesSuiteOptions;
use crate::bench::aes::{self, Algorithm};
use crate::cli::{UsageError, invalid_value};
use crate::run::bench::BenchCommon;
use crate::run::bench::aes::AesRequest;
use crate::run::bench::clock::ClockRequest;
use crate::run::bench::compress::CompressRequest;
use crate::run::bench::memlat::MemlatRequest;
use crate::run::bench::scrypt::ScryptRequest;

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
    Membw(BenchCommonArgs),
    /// Memory latency (tinymembench and ramlat tables).
    Memlat(MemlatArgs),
    /// AES throughput as `openssl speed` prints it.
    Aes(AesArgs),
    /// LZMA compression score (native; 7-Zip's own when installed).
    Compress(CompressArgs),
    /// scrypt hashing on all cores (cpuminer -c stress).
    Scrypt(ScryptArgs),
}

/// Options every benchmark takes.
#[derive(Debug, Clone, Args, Default)]
pub struct BenchCommonArgs {
    /// Pin to these CPUs (`1`, `0,4`, `0-3`); default: the first CPU of each cluster.
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub cpus: Option<String>,

    /// Shorten the benchmark (tests and smoke runs: about 10 s or less per command).
    #[arg(long)]
    pub quick: bool,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

impl AesArgs {
    /// The AES suite's options: CBC at every key size (and GCM with `--extensive`), or
    /// the algorithms asked for, each once; shorter with `--quick`.
    pub fn suite_options(&self) -> AesSuiteOptions {
        let mut algorithms = Algorithm::CBC.to_vec();
        let mut parallel = Vec::new();
        if self.extensive {
            algorithms.push(Algorithm::Aes256Gcm);
            parallel = vec![Algorithm::Aes256Cbc, Algorithm::Aes256Gcm];
        }
        if let Some(a) = &self.algorithms {
            algorithms = a.clone();
            algorithms.dedup();
        }
        let quick = self.common.quick;
        AesSuiteOptions {
            algorithms,
            parallel,
            opts: if quick {
                aes::AesOptions::quick()
            } else {
                aes::AesOptions::default()
            },
            openssl_seconds: quick.then_some(1),
            outlier_retries: 0,
            openssl_twice: false,
            native_beside_openssl: true,
        }
    }
}

impl BenchCommonArgs {
    /// `--cpus`, parsed; a bad list is a usage error in clap's words.
    pub fn requested_cpus(&self) -> Result<Option<Vec<u32>>, UsageError> {
        let Some(s) = self.cpus.as_deref() else {
            return Ok(None);
        };
        crate::bench::pin::parse_cpus(s)
            .map(Some)
            .map_err(|e| invalid_value(s, "--cpus <LIST>", &e).into())
    }
}

/// The requests of `run::bench`: each command's arguments checked (ripgrep's low-args →
/// high-args step); what cannot become one is a [`UsageError`].
impl BenchCommonArgs {
    /// What every benchmark is asked: `--cpus` parsed, `--quick`, `--json`.
    pub fn request(&self) -> Result<BenchCommon, UsageError> {
        Ok(BenchCommon {
            cpus: self.requested_cpus()?,
            quick: self.quick,
            json: self.json,
        })
    }
}

impl ClockArgs {
    /// `bench clock`'s request; `env` reads `MaxKHz`/`MinKHz` where no flag is given.
    pub fn request(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ClockRequest, UsageError> {
        Ok(ClockRequest {
            common: self.common.request()?,
            limits: self.limits(env),
            only_max: self.only_max,
        })
    }

    /// `--max-khz`/`--min-khz`, else `MaxKHz`/`MinKHz`; a bad value or range names
    /// what the user set (a flag or a variable).
    fn limits(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(Option<u64>, Option<u64>), String> {
        let limit = |flag: Option<u64>, name: &str| match flag {
            Some(v) => Ok(Some(v)),
            None => super::khz_from_env(name, env(name).as_deref()),
        };
        let (max, min) = (
            limit(self.max_khz, "MaxKHz")?,
            limit(self.min_khz, "MinKHz")?,
        );
        let names = match (self.max_khz, self.min_khz) {
            (Some(_), Some(_)) => ("--max-khz", "--min-khz"),
            (Some(_), None) => ("--max-khz", "MinKHz"),
            (None, Some(_)) => ("MaxKHz", "--min-khz"),
            (None, None) => ("MaxKHz", "MinKHz"),
        };
        super::check_khz_range(max, min, names)?;
        Ok((max, min))
    }
}

impl MemlatArgs {
    /// `bench memlat`'s request.
    pub fn request(&self) -> Result<MemlatRequest, UsageError> {
        Ok(MemlatRequest {
            common: self.common.request()?,
            no_madvise: self.no_madvise,
            extensive: self.extensive,
            ramlat_ms: self.ramlat_ms,
        })
    }
}

impl AesArgs {
    /// `bench aes`'s request.
    pub fn request(&self) -> Result<AesRequest, UsageError> {
        Ok(AesRequest {
            common: self.common.request()?,
            native_only: self.native_only,
            suite: self.suite_options(),
        })
    }
}

impl CompressArgs {
    /// `bench compress`'s request.
    pub fn request(&self) -> Result<CompressRequest, UsageError> {
        Ok(CompressRequest {
            common: self.common.request()?,
            native_only: self.native_only,
        })
    }
}

impl ScryptArgs {
    /// `bench scrypt`'s request.
    pub fn request(&self) -> Result<ScryptRequest, UsageError> {
        Ok(ScryptRequest {
            common: self.common().request()?,
            duration: self.duration,
            kernel: self.kernel,
        })
    }
}

/// Options of `bench clock`.
#[derive(Debug, Clone, Args, Default)]
pub struct ClockArgs {
    /// Options every benchmark takes.
    #[command(flatten)]
    pub common: BenchCommonArgs,

    /// Skip cpufreq OPPs above this many kHz; default: the `MaxKHz` environment variable
    /// as in sbc-bench (empty = unset).
    #[arg(long, value_name = "KHZ", value_parser = super::parse_khz)]
    pub max_khz: Option<u64>,

    /// Skip cpufreq OPPs below this many kHz; default: the `MinKHz` environment variable
    /// as in sbc-bench (empty = unset).
    #[arg(long, value_name = "KHZ", value_parser = super::parse_khz)]
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
    pub common: BenchCommonArgs,

    /// Do not ask for huge pages at all: one tinymembench table, in memory the kernel's THP
    /// policy backs (ramlat always runs that way, as in sbc-bench).
    #[arg(long)]
    pub no_madvise: bool,

    /// sbc-bench's extensive mode: ramlat with 200 ms per cell (slower, steadier).
    #[arg(long)]
    pub extensive: bool,

    /// Time per ramlat cell in milliseconds (1–10000; default 25 as the standard run, 3
    /// with --quick, 200 with --extensive, which is what sbc-bench passes to ramlat).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub ramlat_ms: Option<u64>,
}

/// `bench aes`.
#[derive(Debug, Clone, Args, Default)]
pub struct AesArgs {
    /// Options every benchmark takes.
    #[command(flatten)]
    pub common: BenchCommonArgs,

    /// sbc-bench's extensive mode: also AES-256-GCM, and "fully parallel" rows (one thread
    /// per core).
    #[arg(long)]
    pub extensive: bool,

    /// Native measurement only: do not run `openssl speed` even when it is installed.
    #[arg(long)]
    pub native_only: bool,

    /// Only these algorithms per cluster, e.g. `aes-256-cbc` (sbc-bench's standard run);
    /// default: aes-128-cbc, aes-192-cbc, aes-256-cbc (and aes-256-gcm with --extensive).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_aes_algorithm)]
    pub algorithms: Option<Vec<crate::bench::aes::Algorithm>>,
}

/// One of `aes-128-cbc`, `aes-192-cbc`, `aes-256-cbc`, `aes-256-gcm` (any case).
pub fn parse_aes_algorithm(s: &str) -> Result<crate::bench::aes::Algorithm, String> {
    crate::bench::aes::Algorithm::from_name(s)
        .ok_or_else(|| "not one of aes-128-cbc, aes-192-cbc, aes-256-cbc, aes-256-gcm".to_string())
}

/// `bench compress`.
#[derive(Debug, Clone, Args, Default)]
pub struct CompressArgs {
    /// Options every benchmark takes.
    #[command(flatten)]
    pub common: BenchCommonArgs,

    /// Native LZMA only: do not run 7-Zip's benchmark even when it is installed.
    #[arg(long)]
    pub native_only: bool,
}

/// `bench scrypt`.
#[derive(Debug, Clone, Args, Default)]
pub struct ScryptArgs {
    /// Hash on these CPUs (`1`, `0,4`, `0-3`); default: every usable CPU.
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub cpus: Option<String>,

    /// Hash for 10 seconds (unless --duration says otherwise).
    #[arg(long)]
    pub quick: bool,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,

    /// How long to hash: seconds, or with a unit (`90s`, `5m`). Default 5 minutes, or
    /// 10 seconds with `--quick`.
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub duration: Option<std::time::Duration>,

    /// Hashing kernel: `scalar`, `simd` (4 hashes at once: SSE2/NEON) or `avx2` (8 at
    /// once); default: the widest this CPU runs.
    #[arg(long, value_name = "KERNEL", value_parser = parse_scrypt_kernel)]
    pub kernel: Option<crate::bench::scrypt::ScryptKernel>,
}

impl ScryptArgs {
    /// The options every benchmark takes, for choosing CPUs.
    pub fn common(&self) -> BenchCommonArgs {
        BenchCommonArgs {
            cpus: self.cpus.clone(),
            quick: self.quick,
            json: self.json,
        }
    }
}

/// A `--kernel` value for `bench scrypt`.
pub fn parse_scrypt_kernel(s: &str) -> Result<crate::bench::scrypt::ScryptKernel, String> {
    crate::bench::scrypt::ScryptKernel::from_name(s)
        .ok_or_else(|| "not one of scalar, simd, avx2".to_string())
}

/// `--duration`: [`super::units`]'s grammar (`300`, `90s`, `1.5m`, `500ms`), 1 ms to
/// a day.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    super::units::parse_duration_in(s, std::time::Duration::from_millis(1), super::units::DAY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("300"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        // Refused before issue 29 (item 8), as `thermal --duration` took them.
        assert_eq!(parse_duration("1.5m"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        for bad in [
            "",
            "m",
            "0",
            "-5",
            "5x",
            "2d",
            "99999999999999999999",
            "25h",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn empty_khz_variables_are_unset_and_bad_ones_name_the_variable() {
        use crate::cli::khz_from_env;
        assert_eq!(khz_from_env("MaxKHz", None), Ok(None));
        assert_eq!(khz_from_env("MaxKHz", Some("")), Ok(None));
        assert_eq!(khz_from_env("MaxKHz", Some(" ")), Ok(None));
        assert_eq!(khz_from_env("MinKHz", Some("408000")), Ok(Some(408_000)));
        let e = khz_from_env("MaxKHz", Some("abc")).unwrap_err();
        assert!(
            e.contains("'abc' for 'MaxKHz'") && !e.contains("--max-khz"),
            "{e}"
        );
    }
}
