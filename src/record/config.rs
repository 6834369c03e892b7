//! The standard run's settings, as data: what the user asked for with flags and sbc-bench's
//! environment variables (`MODE=unattended|extensive`, `NotReadyYet=yes`, `NOTUNING=yes`,
//! `MaxKHz`, `MinKHz`), and which mode the run is ([`RunKind`]). Built from the command
//! line by `cli::run_config` and each mode's config in `cli/`.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Default log file, as sbc-bench.
pub const DEFAULT_LOG: &str = "/var/log/sbc-bench.log";
/// How long an unattended run waits for the machine to become idle before giving up.
pub const UNATTENDED_MAX_WAIT: Duration = Duration::from_secs(600);

use crate::record::mode::KindWire;
pub use crate::record::mode::{RunKind, TwoModes};

/// Everything a run needs to know about what the user asked for. Serialised in the
/// run JSON's layout: the mode's settings as `thermal`, `graph` or `wrap` beside the
/// others (docs/RUN-JSON.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "RunConfigWire", try_from = "RunConfigWire")]
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
    /// Which mode, with its own settings.
    pub kind: RunKind,
}

/// [`RunConfig`] as the run JSON lays it out (the layout before [`RunKind`]): the mode's
/// settings as optional fields. Read back through [`TryFrom`], which refuses two modes at
/// once. Review mode has no settings here: a review run's document says so by its
/// top-level `review` (`record::read` sets [`RunKind::Review`] from it).
#[derive(Serialize, Deserialize)]
struct RunConfigWire {
    stress: bool,
    quick: bool,
    extensive: bool,
    unattended: bool,
    max_wait_s: Option<u64>,
    log: PathBuf,
    json: Option<PathBuf>,
    markdown: Option<PathBuf>,
    no_redact: bool,
    fake_benchmarks: bool,
    not_ready_yet: bool,
    no_tuning: bool,
    max_khz: Option<u64>,
    min_khz: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    power: Option<String>,
    /// The mode's settings, under its own key (`thermal`, `graph`, `wrap`).
    #[serde(flatten)]
    kind: KindWire,
}

impl TryFrom<RunConfigWire> for RunConfig {
    type Error = TwoModes;

    fn try_from(w: RunConfigWire) -> Result<Self, TwoModes> {
        let kind = RunKind::try_from(w.kind)?;
        Ok(Self {
            stress: w.stress,
            quick: w.quick,
            extensive: w.extensive,
            unattended: w.unattended,
            max_wait_s: w.max_wait_s,
            log: w.log,
            json: w.json,
            markdown: w.markdown,
            no_redact: w.no_redact,
            fake_benchmarks: w.fake_benchmarks,
            not_ready_yet: w.not_ready_yet,
            no_tuning: w.no_tuning,
            max_khz: w.max_khz,
            min_khz: w.min_khz,
            power: w.power,
            kind,
        })
    }
}

impl From<RunConfig> for RunConfigWire {
    fn from(c: RunConfig) -> Self {
        Self {
            stress: c.stress,
            quick: c.quick,
            extensive: c.extensive,
            unattended: c.unattended,
            max_wait_s: c.max_wait_s,
            log: c.log,
            json: c.json,
            markdown: c.markdown,
            no_redact: c.no_redact,
            fake_benchmarks: c.fake_benchmarks,
            not_ready_yet: c.not_ready_yet,
            no_tuning: c.no_tuning,
            max_khz: c.max_khz,
            min_khz: c.min_khz,
            power: c.power,
            kind: c.kind.into(),
        }
    }
}
