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
pub mod start;
pub mod storage;

/// Why a benchmark produced no result.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The user (or a signal) stopped the run.
    #[error("cancelled")]
    Cancelled,
    /// The benchmark could not run where it was asked to.
    #[error(transparent)]
    Pin(#[from] pin::PinError),
    /// The benchmark ran but failed (wrong round trip, failed allocation, …).
    #[error("{0}")]
    Failed(String),
}

/// Called by long benchmarks after each finished step (one buffer size, one dictionary
/// size…), from any thread, so a caller can drive a progress bar.
pub type Progress<'a> = &'a (dyn Fn() + Sync);
