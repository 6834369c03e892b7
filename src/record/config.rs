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

impl RunKind {
    /// The command that runs the mode (`thermal`, `graph`, `review`, `wrap`), as the
    /// results database names a run's mode; `None` for the standard run.
    pub fn command(&self) -> Option<&'static str> {
        match self {
            Self::Standard => None,
            Self::Thermal(_) => Some("thermal"),
            Self::Graph(_) => Some("graph"),
            Self::Review => Some("review"),
            Self::Wrap(_) => Some("wrap"),
        }
    }
}

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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thermal: Option<ThermalConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    graph: Option<GraphConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wrap: Option<WrapSpec>,
}

/// A document that names two modes at once (`thermal` and `wrap`…): not a run of ours.
#[derive(Debug, thiserror::Error)]
#[error("the run's config names more than one mode ({0})")]
pub struct TwoModes(String);

impl TryFrom<RunConfigWire> for RunConfig {
    type Error = TwoModes;

    fn try_from(w: RunConfigWire) -> Result<Self, TwoModes> {
        let kind = match (w.thermal, w.graph, w.wrap) {
            (None, None, None) => RunKind::Standard,
            (Some(t), None, None) => RunKind::Thermal(t),
            (None, Some(g), None) => RunKind::Graph(g),
            (None, None, Some(s)) => RunKind::Wrap(s),
            (t, g, s) => {
                let named: Vec<&str> = [
                    t.is_some().then_some("thermal"),
                    g.is_some().then_some("graph"),
                    s.is_some().then_some("wrap"),
                ]
                .into_iter()
                .flatten()
                .collect();
                return Err(TwoModes(named.join(", ")));
            }
        };
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
