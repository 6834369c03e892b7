//! `sbc-bench bench …`: each benchmark's arguments checked into its request
//! (`cli::bench`), run by its command in `run::bench`.

use crate::app::Ctx;
use crate::cli::bench::{BenchArgs, BenchCommand};
use crate::output::Outcome;
use crate::run::bench;

/// Run the chosen benchmark.
pub fn run(ctx: &Ctx, args: &BenchArgs) -> anyhow::Result<Outcome> {
    let root = &ctx.root;
    match &args.which {
        BenchCommand::Clock(a) => bench::clock::run(root, a.request(&env)?),
        BenchCommand::Membw(a) => bench::membw::run(root, a.request()?),
        BenchCommand::Memlat(a) => bench::memlat::run(root, a.request()?),
        BenchCommand::Aes(a) => bench::aes::run(root, a.request()?),
        BenchCommand::Compress(a) => bench::compress::run(root, a.request()?),
        BenchCommand::Scrypt(a) => bench::scrypt::run(root, a.request()?),
    }
}

/// An environment variable (`MaxKHz`, `MinKHz`), lossily as text.
fn env(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}
