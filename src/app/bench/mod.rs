//! `sbc-bench bench …`: one file per benchmark.

pub mod aes;
mod clock;
pub mod compress;
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
