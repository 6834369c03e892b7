//! `sbc-bench bench …`: one file per benchmark.

pub mod aes;
pub mod compress;
pub mod scrypt;

use crate::app::Ctx;
use crate::cli::bench::{BenchArgs, BenchCommand, CommonArgs};

/// Run the chosen benchmark.
pub fn run(ctx: &Ctx, args: &BenchArgs) -> anyhow::Result<i32> {
    match &args.which {
        BenchCommand::Clock(a) => not_yet(ctx, a, "clock"),
        BenchCommand::Membw(a) => not_yet(ctx, a, "membw"),
        BenchCommand::Memlat(a) => not_yet(ctx, a, "memlat"),
        BenchCommand::Aes(a) => aes::run(ctx, a),
        BenchCommand::Compress(a) => compress::run(ctx, a),
        BenchCommand::Scrypt(a) => scrypt::run(ctx, a),
    }
}

fn not_yet(_ctx: &Ctx, _a: &CommonArgs, name: &str) -> anyhow::Result<i32> {
    anyhow::bail!("`bench {name}` is not available in this build yet")
}
