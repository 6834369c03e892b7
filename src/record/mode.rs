//! The modes, as data, in one place: which mode a run is ([`RunKind`], with the settings
//! only that mode has), what it recorded of its own ([`ModeResults`]), its kinds of step
//! ([`StepKind`]), and where the run JSON keeps each (docs/RUN-JSON.md): the settings as
//! `config.thermal`, `config.graph`, `config.wrap`; the results as `results.thermal`,
//! `results.graph`, and the top-level `review` and `wrap`. Each mode's own types are its
//! submodule here (the standard run's kinds of step too). A new mode is a submodule and a
//! variant of each enum in this file.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

pub mod graph;
pub mod review;
pub mod standard;
pub mod thermal;
pub mod wrap;

use self::graph::{GraphConfig, GraphResults, GraphStep};
use self::review::ReviewRecord;
use self::standard::StandardStep;
use self::thermal::{ThermalConfig, ThermalResults, ThermalStep};
use self::wrap::{WrapResults, WrapSpec, WrapStep};

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

/// A document that names two modes at once (`thermal` and `wrap`…): not a run of ours.
#[derive(Debug, thiserror::Error)]
#[error("the run's config names more than one mode ({0})")]
pub struct TwoModes(String);

/// Each mode's settings, when the run is that mode.
impl RunKind {
    /// The thermal test's settings, when the run is one.
    pub fn thermal(&self) -> Option<&ThermalConfig> {
        match self {
            RunKind::Thermal(t) => Some(t),
            _ => None,
        }
    }

    /// The efficiency graph's settings, when the run draws one.
    pub fn graph(&self) -> Option<&GraphConfig> {
        match self {
            RunKind::Graph(g) => Some(g),
            _ => None,
        }
    }

    /// The wrapped command, when the run wraps one.
    pub fn wrap(&self) -> Option<&WrapSpec> {
        match self {
            RunKind::Wrap(w) => Some(w),
            _ => None,
        }
    }
}

/// One mode's part of the run JSON (its settings or its results), written borrowed from
/// the record and read owned. Read through `serde_json::Value`: the parts are flattened
/// into the document's wire forms, and serde reads a flattened field from its own
/// buffered content, which cannot read a map's integer keys (`BTreeMap<u32, _>` of the
/// per-CPU counters in review mode's samples: serde-rs/serde#1183); a `Value` can.
pub(crate) struct Part<'a, T: Clone>(Cow<'a, T>);

impl<'a, T: Clone> Part<'a, T> {
    fn borrowed(t: &'a T) -> Self {
        Self(Cow::Borrowed(t))
    }

    fn owned(t: T) -> Self {
        Self(Cow::Owned(t))
    }

    fn into_owned(self) -> T {
        self.0.into_owned()
    }
}

impl<T: Clone + Serialize> Serialize for Part<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, T: Clone + serde::de::DeserializeOwned> Deserialize<'de> for Part<'_, T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        serde_json::from_value(v)
            .map(Self::owned)
            .map_err(serde::de::Error::custom)
    }
}

/// [`RunKind`] as the run's config lays it out: each mode's settings under its own key,
/// flattened into the config (`RunConfig`'s wire form). Review mode has none here: a
/// review run's document says so by its top-level `review` ([`kind_of_results`]).
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct KindWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thermal: Option<Part<'static, ThermalConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    graph: Option<Part<'static, GraphConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wrap: Option<Part<'static, WrapSpec>>,
}

impl From<RunKind> for KindWire {
    fn from(k: RunKind) -> Self {
        match k {
            RunKind::Standard | RunKind::Review => Self::default(),
            RunKind::Thermal(t) => Self {
                thermal: Some(Part::owned(t)),
                ..Self::default()
            },
            RunKind::Graph(g) => Self {
                graph: Some(Part::owned(g)),
                ..Self::default()
            },
            RunKind::Wrap(w) => Self {
                wrap: Some(Part::owned(w)),
                ..Self::default()
            },
        }
    }
}

impl TryFrom<KindWire> for RunKind {
    type Error = TwoModes;

    fn try_from(w: KindWire) -> Result<Self, TwoModes> {
        let named: Vec<RunKind> = [
            w.thermal.map(|t| RunKind::Thermal(t.into_owned())),
            w.graph.map(|g| RunKind::Graph(g.into_owned())),
            w.wrap.map(|s| RunKind::Wrap(s.into_owned())),
        ]
        .into_iter()
        .flatten()
        .collect();
        if named.len() > 1 {
            let keys: Vec<&str> = named.iter().filter_map(RunKind::command).collect();
            return Err(TwoModes(keys.join(", ")));
        }
        Ok(named.into_iter().next().unwrap_or_default())
    }
}

/// The mode a document's results say it is, where its config cannot: review mode has no
/// settings in the config, so a document with a top-level `review` is a review run.
pub(crate) fn kind_of_results(kind: &mut RunKind, mode: &ModeResults) {
    if matches!(mode, ModeResults::Review(_)) && *kind == RunKind::Standard {
        *kind = RunKind::Review;
    }
}

/// What a run's mode recorded of its own, beside the benchmarks' [`Results`](crate::record::run::Results): one value,
/// so no report holds two modes' results. In the run JSON's layout (docs/RUN-JSON.md) the
/// thermal test's and the graph's are `results.thermal` and `results.graph`, review mode's
/// and wrap's the top-level `review` and `wrap`; the report's wire form writes them there
/// and refuses a document that names two.
#[derive(Debug, Clone, Default, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "one per run report; boxing the review record buys nothing"
)]
pub enum ModeResults {
    /// Nothing of a mode's own: a standard run's, or a mode's that has recorded nothing
    /// yet (a thermal test stopped during its clock walk, a review stopped during its
    /// benchmarks). Which mode ran is the config's
    /// [`RunKind`].
    #[default]
    Standard,
    /// The thermal test's wait, load and second AES run (`sbc-bench thermal`).
    Thermal(ThermalResults),
    /// The efficiency graph (`sbc-bench graph`).
    Graph(GraphResults),
    /// Review mode's inventory, Markdown review and waiting phase (`sbc-bench review`).
    Review(ReviewRecord),
    /// `sbc-bench wrap`: the command's runs.
    Wrap(WrapResults),
}

impl ModeResults {
    /// The thermal test's results, when the run recorded them.
    pub fn thermal(&self) -> Option<&ThermalResults> {
        match self {
            Self::Thermal(t) => Some(t),
            _ => None,
        }
    }

    /// The thermal test's results to add to, opened at its first step of its own.
    pub fn thermal_or_open(&mut self) -> &mut ThermalResults {
        if !matches!(self, Self::Thermal(_)) {
            *self = Self::Thermal(ThermalResults::default());
        }
        match self {
            Self::Thermal(t) => t,
            _ => unreachable!("the thermal results were opened above"),
        }
    }

    /// The efficiency graph's results, when the run drew one.
    pub fn graph(&self) -> Option<&GraphResults> {
        match self {
            Self::Graph(g) => Some(g),
            _ => None,
        }
    }

    /// The efficiency graph's results to add to, when the run draws one.
    pub fn graph_mut(&mut self) -> Option<&mut GraphResults> {
        match self {
            Self::Graph(g) => Some(g),
            _ => None,
        }
    }

    /// Review mode's record, when the run wrote one.
    pub fn review(&self) -> Option<&ReviewRecord> {
        match self {
            Self::Review(r) => Some(r),
            _ => None,
        }
    }

    /// Review mode's record to add to (its waiting phase).
    pub fn review_mut(&mut self) -> Option<&mut ReviewRecord> {
        match self {
            Self::Review(r) => Some(r),
            _ => None,
        }
    }

    /// The wrapped command's runs, when the run wraps one.
    pub fn wrap(&self) -> Option<&WrapResults> {
        match self {
            Self::Wrap(w) => Some(w),
            _ => None,
        }
    }

    /// The wrapped command's runs to add to.
    pub fn wrap_mut(&mut self) -> Option<&mut WrapResults> {
        match self {
            Self::Wrap(w) => Some(w),
            _ => None,
        }
    }

    /// The names of the run JSON's keys of these results (`thermal`), for messages.
    fn key(&self) -> Option<&'static str> {
        match self {
            Self::Standard => None,
            Self::Thermal(_) => Some("thermal"),
            Self::Graph(_) => Some("graph"),
            Self::Review(_) => Some("review"),
            Self::Wrap(_) => Some("wrap"),
        }
    }
}

/// A run JSON that holds two modes' results (`results.thermal` and `wrap`…): not a run
/// of ours.
#[derive(Debug, thiserror::Error)]
#[error("the run holds the results of more than one mode ({0})")]
pub struct TwoModeResults(String);

/// The [`ModeResults`] the run JSON keeps in `results` (`results.thermal`,
/// `results.graph`), flattened into it.
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct ResultsModeWire<'a> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    thermal: Option<Part<'a, ThermalResults>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    graph: Option<Part<'a, GraphResults>>,
}

impl<'a> ResultsModeWire<'a> {
    /// The part of `m` the document keeps in `results`.
    pub(crate) fn new(m: &'a ModeResults) -> Self {
        Self {
            thermal: m.thermal().map(Part::borrowed),
            graph: m.graph().map(Part::borrowed),
        }
    }

    fn into_named(self) -> [ModeResults; 2] {
        [
            self.thermal.map_or(ModeResults::Standard, |t| {
                ModeResults::Thermal(t.into_owned())
            }),
            self.graph.map_or(ModeResults::Standard, |g| {
                ModeResults::Graph(g.into_owned())
            }),
        ]
    }
}

/// The [`ModeResults`] the run JSON keeps at its top level (`review`, `wrap`), flattened
/// into it.
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct TopModeWire<'a> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    review: Option<Part<'a, ReviewRecord>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wrap: Option<Part<'a, WrapResults>>,
}

impl<'a> TopModeWire<'a> {
    /// The part of `m` the document keeps at its top level.
    pub(crate) fn new(m: &'a ModeResults) -> Self {
        Self {
            review: m.review().map(Part::borrowed),
            wrap: m.wrap().map(Part::borrowed),
        }
    }

    fn into_named(self) -> [ModeResults; 2] {
        [
            self.review.map_or(ModeResults::Standard, |r| {
                ModeResults::Review(r.into_owned())
            }),
            self.wrap
                .map_or(ModeResults::Standard, |w| ModeResults::Wrap(w.into_owned())),
        ]
    }
}

/// The mode's results a document holds, in `results` and at its top level; a document
/// that holds two modes' results is refused.
pub(crate) fn one_mode(
    in_results: ResultsModeWire<'_>,
    at_top: TopModeWire<'_>,
) -> Result<ModeResults, TwoModeResults> {
    let named: Vec<ModeResults> = in_results
        .into_named()
        .into_iter()
        .chain(at_top.into_named())
        .filter(|m| *m != ModeResults::Standard)
        .collect();
    if named.len() > 1 {
        let keys: Vec<&str> = named.iter().filter_map(ModeResults::key).collect();
        return Err(TwoModeResults(keys.join(", ")));
    }
    Ok(named.into_iter().next().unwrap_or_default())
}

/// One kind of step of any mode: each mode's own kinds, one enum each. In the run JSON as
/// the step's snake_case name alone (`clock_cold`, `cool_down`, `graph`, `wrap`), as
/// before the kinds were split: the names are unique across the modes' enums, which is
/// how a name is read back into its mode's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StepKind {
    /// The standard run's benchmarks and clock checks.
    Standard(StandardStep),
    /// The thermal test's wait, load and AES-256 runs.
    Thermal(ThermalStep),
    /// The efficiency graph's idle measurement and OPP walks.
    Graph(GraphStep),
    /// A run of the wrapped command.
    Wrap(WrapStep),
}

impl StepKind {
    /// Progress line: `Executing memory bandwidth benchmark`.
    pub fn progress(self) -> &'static str {
        match self {
            Self::Standard(k) => k.progress(),
            Self::Thermal(k) => k.progress(),
            Self::Graph(k) => k.progress(),
            Self::Wrap(k) => k.progress(),
        }
    }

    /// Monitor phase label (`System health while running <label>:`).
    pub fn phase(self) -> &'static str {
        match self {
            Self::Standard(k) => k.phase(),
            Self::Thermal(k) => k.phase(),
            Self::Graph(k) => k.phase(),
            Self::Wrap(k) => k.phase(),
        }
    }
}

/// A mode's step kind as a [`StepKind`], compared with one, and taken back out of one
/// (the engine hands each mode only its own kinds: `run::runner::Mode::Step`).
macro_rules! mode_steps {
    ($($variant:ident($kind:ty)),* $(,)?) => {$(
        impl From<$kind> for StepKind {
            fn from(k: $kind) -> Self {
                Self::$variant(k)
            }
        }

        impl PartialEq<$kind> for StepKind {
            fn eq(&self, other: &$kind) -> bool {
                *self == Self::$variant(*other)
            }
        }

        impl TryFrom<StepKind> for $kind {
            /// A kind of another mode.
            type Error = StepKind;

            fn try_from(k: StepKind) -> Result<Self, StepKind> {
                match k {
                    StepKind::$variant(k) => Ok(k),
                    other => Err(other),
                }
            }
        }
    )*};
}

mode_steps!(
    Standard(StandardStep),
    Thermal(ThermalStep),
    Graph(GraphStep),
    Wrap(WrapStep),
);

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Review mode's samples hold per-CPU maps keyed by number; flattened into the run
    /// report's wire form, serde read them from its buffered content and refused every
    /// review run JSON (`invalid type: string "0", expected u32`). A part is read through
    /// a `Value`, which reads such keys.
    #[test]
    fn a_flattened_part_with_integer_map_keys_reads_back() {
        #[derive(Serialize, Deserialize)]
        struct Doc {
            before: u32,
            #[serde(flatten)]
            part: Parts,
        }
        #[derive(Serialize, Deserialize)]
        struct Parts {
            per_cpu: Option<Part<'static, BTreeMap<u32, u64>>>,
        }
        let map: BTreeMap<u32, u64> = [(0, 7), (3, 9)].into();
        let doc = Doc {
            before: 1,
            part: Parts {
                per_cpu: Some(Part::owned(map.clone())),
            },
        };
        let text = serde_json::to_string(&doc).unwrap();
        assert_eq!(text, r#"{"before":1,"per_cpu":{"0":7,"3":9}}"#);
        let back: Doc = serde_json::from_str(&text).unwrap();
        assert_eq!(back.part.per_cpu.map(Part::into_owned), Some(map));
    }

    /// Two modes' settings in one config are refused, naming both.
    #[test]
    fn two_modes_settings_are_refused_naming_both() {
        let v = serde_json::json!({
            "thermal": thermal::ThermalConfig::default(),
            "wrap": wrap::WrapSpec::default(),
        });
        let w: KindWire = serde_json::from_value(v).unwrap();
        let e = RunKind::try_from(w);
        assert!(
            matches!(&e, Err(TwoModes(k)) if k == "thermal, wrap"),
            "{e:?}"
        );
    }
}
