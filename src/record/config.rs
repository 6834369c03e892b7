//! The standard run's settings, as data: what the user asked for with flags and sbc-bench's
//! environment variables (`MODE=unattended|extensive`, `NotReadyYet=yes`, `NOTUNING=yes`,
//! `MaxKHz`, `MinKHz`). Built from the command line by `cli::run_config`.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Default log file, as sbc-bench.
pub const DEFAULT_LOG: &str = "/var/log/sbc-bench.log";
/// How long an unattended run waits for the machine to become idle before giving up.
pub const UNATTENDED_MAX_WAIT: Duration = Duration::from_secs(600);

/// Everything a run needs to know about what the user asked for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// Add the scrypt stress test (`-c`).
    pub stress: bool,
    /// Shortened benchmarks.
    pub quick: bool,
    /// sbc-bench's extensive mode.
    pub extensive: bool,
    /// Never prompt; bounded wait for idle.
    pub unattended: bool,
    /// Longest wait for idle (None: wait as long as it takes).
    pub max_wait_s: Option<u64>,
    /// Full log path.
    pub log: PathBuf,
    /// JSON report path.
    pub json: Option<PathBuf>,
    /// Markdown review path (`--markdown`).
    pub markdown: Option<PathBuf>,
    /// Keep identifiers in shareable outputs (`--no-redact`).
    pub no_redact: bool,
    /// Canned results (tests).
    pub fake_benchmarks: bool,
    /// `NotReadyYet=yes`: skip score-producing benchmarks (only clocks and monitoring).
    pub not_ready_yet: bool,
    /// `NOTUNING=yes`: leave governors as they are.
    pub no_tuning: bool,
    /// `MaxKHz`: highest OPP the clock walk checks.
    pub max_khz: Option<u64>,
    /// `MinKHz`: lowest OPP the clock walk checks.
    pub min_khz: Option<u64>,
    /// `--power SPEC` (or sbc-bench's `Netio=HOST/SOCKET`): the power meter to read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power: Option<String>,
    /// The thermal test (`sbc-bench thermal`, `-t`/`-T`/`-M`); `None` for every other run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thermal: Option<crate::record::thermal::ThermalConfig>,
    /// The efficiency graph (`sbc-bench graph`, `-g`) instead of the standard run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<crate::record::graph::GraphConfig>,
    /// `sbc-bench wrap`: the command to run under the run's controls (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrap: Option<crate::record::wrap::WrapSpec>,
}
