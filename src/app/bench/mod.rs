//! `sbc-bench bench …`: one file per benchmark.

pub mod aes;
mod clock;
pub mod compress;
mod driver;
mod membw;
mod memlat;
mod pinning;
pub mod scrypt;

use crate::app::Ctx;
use crate::cli::bench::{BenchArgs, BenchCommand};
use crate::output::Outcome;

/// Run the chosen benchmark.
pub fn run(ctx: &Ctx, args: &BenchArgs) -> anyhow::Result<Outcome> {
    match &args.which {
        BenchCommand::Clock(a) => clock::run(ctx, a),
        BenchCommand::Membw(a) => membw::run(ctx, a),
        BenchCommand::Memlat(a) => memlat::run(ctx, a),
        BenchCommand::Aes(a) => aes::run(ctx, a),
        BenchCommand::Compress(a) => compress::run(ctx, a),
        BenchCommand::Scrypt(a) => scrypt::run(ctx, a),
    }
}

/// How a run cancelled by a signal ends: 128 + its number, as a shell reports it.
fn cancelled_code() -> Outcome {
    Outcome::Interrupted(crate::shutdown::signal().unwrap_or(libc::SIGINT))
}
