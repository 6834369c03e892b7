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

/// Exit status for a run cancelled by a signal: 128 + its number, as a shell reports it.
fn cancelled_code() -> i32 {
    128 + crate::shutdown::signal().unwrap_or(libc::SIGINT)
}

/// Run a benchmark suite behind a progress bar of `steps` steps (quiet in pipes);
/// `Ok(None)` when a signal stopped it.
fn with_bar<T>(
    steps: u64,
    label: &'static str,
    run: impl FnOnce(&(dyn Fn() + Sync)) -> Result<T, crate::bench::BenchError>,
) -> Result<Option<T>, crate::bench::BenchError> {
    let pb = crate::output::progress_bar(steps, label);
    let result = run(&|| pb.inc(1));
    pb.finish_and_clear();
    match result {
        Ok(r) => Ok(Some(r)),
        Err(crate::bench::BenchError::Cancelled) => Ok(None),
        Err(e) => Err(e),
    }
}
