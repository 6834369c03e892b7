//! `sbc-bench review` (sbc-bench's `-r`, `-j`, `-R`): wiring of review mode.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::app::Ctx;
use crate::app::run::{Console, export_sink, seam};
use crate::cli::review::ReviewArgs;
use crate::output::Outcome;
use crate::report::export::Format;
use crate::run::review::{self, ReviewOptions};
use crate::run::runner::{self, RunContext, RunError};
use crate::shutdown;

/// Why review mode refuses to start without root.
pub const NEEDS_ROOT: &str = "review mode needs root (sudo sbc-bench -r): it switches governors \
and the PCIe ASPM policy, drops caches, marks the kernel log and reads debugfs";

/// The review file beside the log: `/var/log/sbc-bench-review.md`.
fn default_review_file(log: &Path) -> PathBuf {
    log.parent()
        .unwrap_or_else(|| Path::new("."))
        .join("sbc-bench-review.md")
}

/// The timings: sbc-bench's, or fast ones with canned benchmarks (the whole review over
/// a fixture tree in well under a second).
fn options(args: &ReviewArgs, fake: bool, command: Option<Vec<String>>) -> ReviewOptions {
    let mut o = ReviewOptions::sbc_bench(!args.no_benchmarks, command);
    if fake {
        o.monitor_every = Duration::from_millis(250);
        o.cool_poll = Duration::from_millis(20);
        o.cool_max = Duration::ZERO;
        o.cool_settle = 0;
    }
    o
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &ReviewArgs) -> anyhow::Result<Outcome> {
    if !crate::run::preflight::is_root() {
        eprintln!("error: {NEEDS_ROOT}");
        return Ok(Outcome::Failed);
    }
    let cfg = match crate::cli::run_config(&args.run_args(), &|k| std::env::var(k).ok()) {
        Ok(cfg) => cfg,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(Outcome::Usage);
        }
    };
    let execute_command = std::env::var("ExecuteCommand").ok();
    let command = args.command(execute_command.as_deref());
    if args.command.is_empty() {
        if let Some(c) = &command {
            // sbc-bench then waits for Enter; unattended here.
            println!("WARNING: ExecuteCommand is set to \"{}\"\n", c.join(" "));
        }
    }
    let sink = export_sink(&cfg, args.log.is_some())?;
    let mut opts = options(args, cfg.fake_benchmarks, command);
    let log = sink.path(Format::Log).unwrap_or(&cfg.log).to_path_buf();
    opts.review_file = Some(
        args.review
            .clone()
            .unwrap_or_else(|| default_review_file(&log)),
    );
    let Ok(power) = crate::app::run::open_power(ctx, &cfg) else {
        return Ok(Outcome::Usage);
    };
    println!("sbc-bench {} (Rust) review mode", env!("CARGO_PKG_VERSION"));
    let (mut exec, host, monitor_interval) = seam(&cfg);
    let mut ui = Console::new(!cfg.unattended && std::io::stdin().is_terminal());
    let rctx = RunContext {
        root: &ctx.root,
        cfg: &cfg,
        cancel: shutdown::token(),
        sink: &sink,
        host: host.as_ref(),
        monitor_interval,
    };
    let result = review::execute(&rctx, exec.as_mut(), &mut ui, &opts);
    let outcome = runner::outcome(&result, shutdown::signal());
    let mut report = match result {
        Ok(report) => report,
        Err(RunError::Stopped) => {
            eprintln!("Stopped before the review began; nothing was changed.");
            return Ok(outcome);
        }
        Err(e) => return Err(e.into()),
    };
    crate::app::run::attach_power(&mut report, power, &sink);
    if let Some(f) = &opts.review_file {
        println!("Review in {}", f.display());
    }
    println!("Full log in {}", log.display());
    if let Some(j) = sink
        .path(Format::Json)
        .filter(|j| !crate::output::stdout::is_stdout(j))
    {
        println!("JSON report in {}", j.display());
    }
    crate::app::run::store_mode_run(ctx, &args.store, cfg.fake_benchmarks, &report, &sink);
    Ok(outcome)
}
