//! `sbc-bench bench …`: one file per benchmark, each a `driver::Command` on the one
//! skeleton of `driver`. What the user typed reaches here as a request that
//! `cli::bench` checked (`--cpus` parsed, `MaxKHz`/`MinKHz` read); `app::bench` only
//! passes it on.

pub mod aes;
pub mod clock;
pub mod compress;
mod driver;
pub mod membw;
pub mod memlat;
mod pinning;
pub mod scrypt;

use crate::output::Outcome;

/// What every `bench …` command was asked, once `cli::bench` checked it.
#[derive(Debug, Clone, Default)]
pub struct BenchCommon {
    /// `--cpus`, parsed; `None`: the first CPU of each cluster.
    pub cpus: Option<Vec<u32>>,
    /// `--quick`: shorter runs.
    pub quick: bool,
    /// `--json`: a JSON document instead of text.
    pub json: bool,
}

/// How a run cancelled by a signal ends: 128 + its number, as a shell reports it.
fn cancelled_code() -> Outcome {
    Outcome::Interrupted(crate::shutdown::signal().unwrap_or(libc::SIGINT))
}
