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

/// Run the chosen benchmark.
pub fn run(ctx: &Ctx, args: &BenchArgs) -> anyhow::Result<i32> {
    match &args.which {
        BenchCommand::Clock(a) => clock::run(ctx, a),
        BenchCommand::Membw(a) => membw::run(ctx, a),
        BenchCommand::Memlat(a) => memlat::run(ctx, a),
        BenchCommand::Aes(a) => aes::run(ctx, a),
        BenchCommand::Compress(a) => compress::run(ctx, a),
        BenchCommand::Scrypt(a) => scrypt::run(ctx, a),
    }
}

/// Exit status for a run cancelled by a signal: 128 + its number, as a shell reports it.
fn cancelled_code() -> i32 {
    128 + crate::shutdown::signal().unwrap_or(libc::SIGINT)
}
