//! Native benchmarks, one module each. A benchmark returns typed results and never prints.

pub mod aes;
pub mod clock;
pub mod external;
pub mod jobs;
pub mod kernels;
pub mod lzma;
pub mod membw;
pub mod memlat;
pub mod net;
pub mod pin;
pub mod placement;
pub mod scrypt;
pub mod seam;
pub mod storage;

pub use seam::{Benchmark, Progress, Steps};

/// What a suite says besides its numbers: a failure (that part measured nothing, and the
/// run's step fails) or a note (worth knowing, nothing failed). In JSON and text a note
/// reads `note: …`, as it always has; in code the two are different variants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Remark {
    /// A part of the suite failed.
    Failed(String),
    /// Worth knowing; not a failure.
    Note(String),
}

impl Remark {
    /// Is this a failure?
    pub fn is_failure(&self) -> bool {
        matches!(self, Remark::Failed(_))
    }
}

impl std::fmt::Display for Remark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Remark::Failed(s) => f.write_str(s),
            Remark::Note(s) => write!(f, "note: {s}"),
        }
    }
}

impl serde::Serialize for Remark {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Remark {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(match s.strip_prefix("note: ") {
            Some(n) => Remark::Note(n.to_string()),
            None => Remark::Failed(s),
        })
    }
}

/// Why a benchmark produced no result.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The user (or a signal) stopped the run.
    #[error("cancelled")]
    Cancelled,
    /// The benchmark cannot run here at all (a missing tool, an instruction set this CPU
    /// lacks), as opposed to one that ran and failed.
    #[error("{0}")]
    Unsupported(String),
    /// The benchmark could not run where it was asked to.
    #[error(transparent)]
    Pin(#[from] pin::PinError),
    /// The benchmark ran but failed (wrong round trip, failed allocation, …).
    #[error("{0}")]
    Failed(String),
}

/// Called inside a suite after each finished step (one buffer size, one dictionary size…),
/// from any thread; [`Steps`] turns the ticks into a [`Progress`] fraction.
pub type Tick<'a> = &'a (dyn Fn() + Sync);
