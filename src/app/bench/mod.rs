//! `sbc-bench bench …`: one file per benchmark.

mod clock;
mod membw;
mod memlat;
mod pinning;

use crate::app::Ctx;
use crate::cli::bench::{BenchArgs, BenchCommand, CommonArgs};

/// Run the chosen benchmark.
pub fn run(ctx: &Ctx, args: &BenchArgs) -> anyhow::Result<i32> {
    match &args.which {
        BenchCommand::Clock(a) => clock::run(ctx, a),
        BenchCommand::Membw(a) => membw::run(ctx, a),
        BenchCommand::Memlat(a) => memlat::run(ctx, a),
        BenchCommand::Aes(a) => not_yet(ctx, a, "aes"),
        BenchCommand::Compress(a) => not_yet(ctx, a, "compress"),
        BenchCommand::Scrypt(a) => not_yet(ctx, a, "scrypt"),
    }
}

fn not_yet(_ctx: &Ctx, _a: &CommonArgs, name: &str) -> anyhow::Result<i32> {
    anyhow::bail!("`bench {name}` is not available in this build yet")
}
