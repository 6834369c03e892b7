//! Native benchmarks, one module each. A benchmark returns typed results and never prints.

pub mod aes;
pub mod clock;
pub mod external;
pub mod kernels;
pub mod lzma;
pub mod membw;
pub mod memlat;
pub mod net;
pub mod pin;
pub mod scrypt;
pub mod seam;
pub mod start;
pub mod storage;

pub use seam::{Benchmark, Progress, Steps};

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
