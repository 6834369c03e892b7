//! Wiring: turn parsed arguments into work and pick the exit code. One file per command.

pub mod bench;
pub mod info;
pub mod monitor;
pub mod net;
pub mod run;
pub mod storage;

use crate::cli::{Cli, Command};
use crate::output;
use crate::sys::root::SysRoot;

/// What every command gets.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// Where system files are read from.
    pub root: SysRoot,
}

/// Entry point of the binary: returns the process exit status.
pub fn main() -> i32 {
    let cli = Cli::parse_env();
    output::init_color(cli.no_color);
    if let Err(e) = crate::shutdown::install() {
        output::warn(format!("cannot install signal handlers: {e:#}"));
    }
    let ctx = Ctx {
        root: cli.sysroot(),
    };
    if !ctx.root.is_host() && !ctx.root.root().is_dir() {
        eprintln!(
            "Error: sysroot {} is not a directory",
            ctx.root.root().display()
        );
        return output::EXIT_USAGE;
    }
    let result = dispatch(&ctx, cli);
    crate::shutdown::run_cleanups();
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("Error: {e:#}");
            output::EXIT_ERROR
        }
    }
}

fn dispatch(ctx: &Ctx, cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Some(Command::Info(a)) => info::run(ctx, &a),
        Some(Command::Run(a)) => run::run(ctx, &a),
        None => run::run(ctx, &cli.run),
        Some(Command::Monitor(a)) => monitor::run(ctx, &a),
        Some(Command::Bench(a)) => bench::run(ctx, &a),
        Some(Command::Net(a)) => net::run(ctx, &a),
        Some(Command::Storage(a)) => storage::run(ctx, &a),
    }
}
