//! Wiring: turn parsed arguments into work and pick the exit code. One file per command.

pub mod bench;
pub mod compare;
pub mod docs;
pub mod info;
pub mod kernel;
pub mod modes;
pub mod monitor;
pub mod net;
pub mod report;
pub mod restore;
pub mod results;
pub mod share;
pub mod storage;

use crate::cli::{Cli, Command};
use crate::output::{self, Outcome};
use crate::sys::root::SysRoot;

/// What every command gets.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// Where system files are read from.
    pub root: SysRoot,
    /// `-z/--redact`: identifiers hidden in every output (docs/PRIVACY.md).
    pub redact: bool,
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
        redact: cli.redact,
    };
    quiet_broken_pipe_panics();
    // `println!` panics when stdout is a closed pipe (`sbc-bench info | head`). Unwinding
    // runs every guard's `Drop` (governors restored, temp files removed); then we leave
    // quietly with the status a shell reports for SIGPIPE, as C tools do.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| dispatch(&ctx, cli)));
    crate::shutdown::run_cleanups();
    if let Some(note) = crate::sys::deadline::note() {
        eprintln!("Note: {note}");
    }
    match result {
        Ok(Ok(outcome)) => outcome.code(),
        Ok(Err(e)) if is_broken_pipe(&e) => Outcome::BrokenPipe.code(),
        Ok(Err(e)) if e.downcast_ref::<crate::cli::UsageError>().is_some() => {
            // The one place a usage error is said (`error:` as clap prints its own).
            eprintln!("error: {e}");
            Outcome::Usage.code()
        }
        Ok(Err(e)) => {
            eprintln!("Error: {e:#}");
            Outcome::Failed.code()
        }
        Err(payload) if panic_is_broken_pipe(payload.as_ref()) => Outcome::BrokenPipe.code(),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// 128 + SIGPIPE.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
}

fn panic_is_broken_pipe(payload: &(dyn std::any::Any + Send)) -> bool {
    panic_message(payload).is_some_and(|m| m.contains("Broken pipe"))
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(output::is_closed_pipe)
    })
}

/// Keep the default panic report, except for "failed printing to stdout: Broken pipe".
fn quiet_broken_pipe_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if panic_is_broken_pipe(info.payload()) {
            return;
        }
        default(info);
    }));
}

/// Run the chosen command; each says how it ended as an `Outcome`.
fn dispatch(ctx: &Ctx, cli: Cli) -> anyhow::Result<Outcome> {
    crate::cli::root::check_root(&ctx.root)?;
    match cli.command {
        Some(Command::Info(a)) => info::run(ctx, &a),
        Some(Command::Run(a)) => modes::run(ctx, &a),
        None => modes::run(ctx, &cli.run),
        Some(Command::Monitor(a)) => monitor::run(ctx, &a),
        Some(Command::Bench(a)) => bench::run(ctx, &a),
        Some(Command::Net(a)) => net::run(ctx, &a),
        Some(Command::Storage(a)) => storage::run(ctx, &a),
        Some(Command::Restore(a)) => Ok(restore::run(ctx, &a)),
        Some(Command::Results(a)) => results::run(&a),
        Some(Command::Compare(a)) => compare::compare(&a),
        Some(Command::Share(a)) => share::share(&a),
        Some(Command::Kernel(a)) => kernel::run(ctx, &a),
        Some(Command::Mode(m)) => m.visit(modes::Launch(ctx)),
        Some(Command::Completions(a)) => docs::completions(&a),
        Some(Command::Manpage(a)) => docs::manpage(&a),
        Some(Command::Report(a)) => report::run(&a),
    }
}
