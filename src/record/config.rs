//! The standard run's settings, as data: what the user asked for with flags and sbc-bench's
//! environment variables (`MODE=unattended|extensive`, `NotReadyYet=yes`, `NOTUNING=yes`,
//! `MaxKHz`, `MinKHz`), and which mode the run is ([`RunKind`]). Built from the command
//! line by `cli::run_config` and each mode's config in `cli/`.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

/// Default log file, as sbc-bench.
pub const DEFAULT_LOG: &str = "/var/log/sbc-bench.log";
/// How long an unattended run waits for the machine to become idle before giving up.
pub const UNATTENDED_MAX_WAIT: Duration = Duration::from_secs(600);

use crate::record::graph::GraphConfig;
use crate::record::thermal::ThermalConfig;
use crate::record::wrap::WrapSpec;

/// Which mode the run is, with the settings only that mode has. One value: two modes at
/// once cannot be said.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum RunKind {
    /// sbc-bench's standard run.
    #[default]
    Standard,
    /// The thermal test (`sbc-bench thermal`, `-t`/`-T`/`-M`).
    Thermal(ThermalConfig),
    /// The efficiency graph (`sbc-bench graph`, `-g`).
    Graph(GraphConfig),
    /// Review mode (`sbc-bench review`, `-r`/`-R`/`-j`); its settings are the command's.
    Review,
    /// `sbc-bench wrap`: the command to run under the run's controls.
    Wrap(WrapSpec),
}

/// Everything a run needs to know about what the user asked for. Serialised in the
/// run JSON's layout: the mode's settings as `thermal`, `graph` or `wrap` beside the
/// others (docs/RUN-JSON.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(into = "RunConfigWire")]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power: Option<String>,
    /// Which mode, with its own settings.
    pub kind: RunKind,
}

impl RunConfig {
    /// The thermal test's settings, when the run is one.
    pub fn thermal(&self) -> Option<&ThermalConfig> {
        match &self.kind {
            RunKind::Thermal(t) => Some(t),
            _ => None,
        }
    }

    /// The efficiency graph's settings, when the run draws one.
    pub fn graph(&self) -> Option<&GraphConfig> {
        match &self.kind {
            RunKind::Graph(g) => Some(g),
            _ => None,
        }
    }

    /// The wrapped command, when the run wraps one.
    pub fn wrap(&self) -> Option<&WrapSpec> {
        match &self.kind {
            RunKind::Wrap(w) => Some(w),
            _ => None,
        }
    }
}

/// [`RunConfig`] as the run JSON lays it out (the layout before [`RunKind`]): the mode's
/// settings as optional fields. Serialising only.
// Deserialize: the "record" change adds it to the mode configs; `TryFrom<RunConfigWire>`
// then refuses two modes at once.
#[derive(Serialize)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    power: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thermal: Option<ThermalConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    graph: Option<GraphConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wrap: Option<WrapSpec>,
}

impl From<RunConfig> for RunConfigWire {
    fn from(c: RunConfig) -> Self {
        let (thermal, graph, wrap) = match c.kind {
            RunKind::Standard | RunKind::Review => (None, None, None),
            RunKind::Thermal(t) => (Some(t), None, None),
            RunKind::Graph(g) => (None, Some(g), None),
            RunKind::Wrap(w) => (None, None, Some(w)),
        };
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
            thermal,
            graph,
            wrap,
        }
    }
}
