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
    if let Err(msg) = check_root(&ctx.root) {
        eprintln!("Error: {msg}");
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

/// Refuse roots that cannot describe a machine, before any command prints half a picture:
/// a `--sysroot` that is not a directory or holds neither `proc/` nor `sys/` (a mistyped or
/// unmounted capture), a `CPUINFOFILE` that cannot be read (sbc-bench's simulation of
/// another board would silently show this machine with no CPUs).
pub fn check_root(root: &SysRoot) -> Result<(), String> {
    if !root.is_host() {
        let dir = root.root();
        if !dir.is_dir() {
            return Err(format!("sysroot {} is not a directory", dir.display()));
        }
        if !dir.join("proc").is_dir() && !dir.join("sys").is_dir() {
            return Err(format!(
                "sysroot {} holds neither proc/ nor sys/: not a captured system tree",
                dir.display()
            ));
        }
    }
    if root.cpuinfo_overridden() {
        let file = root.path("/proc/cpuinfo");
        if let Err(e) = std::fs::File::open(&file).and_then(|f| f.metadata()) {
            return Err(format!("CPUINFOFILE={}: {e}", file.display()));
        }
        if file.is_dir() {
            return Err(format!(
                "CPUINFOFILE={}: is a directory, not a cpuinfo file",
                file.display()
            ));
        }
    }
    Ok(())
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
