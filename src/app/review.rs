//! `sbc-bench review` (sbc-bench's `-r`, `-j`, `-R`): wiring of review mode.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::app::Ctx;
use crate::app::engine::{self, ModeCommand};
use crate::cli::review::ReviewArgs;
use crate::output::Outcome;
use crate::record::run::RunReport;
use crate::report::export::ExportSink;
use crate::run::review::{Review, ReviewOptions};
use crate::run::runner::Mode;

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

/// Review mode's part of the lifecycle: where its review and log went.
struct ReviewRun {
    mode: Review,
    /// The log, as the sink has it.
    log: PathBuf,
}

impl ModeCommand for ReviewRun {
    fn mode(&mut self) -> &mut dyn Mode {
        &mut self.mode
    }

    fn banner(&self) -> String {
        format!("sbc-bench {} (Rust) review mode", env!("CARGO_PKG_VERSION"))
    }

    fn stopped(&self) -> &'static str {
        "Stopped before the review began; nothing was changed."
    }

    fn summary(&self, _report: &RunReport, _sink: &ExportSink) {
        if let Some(f) = &self.mode.opts.review_file {
            println!("Review in {}", f.display());
        }
        println!("Full log in {}", self.log.display());
    }
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &ReviewArgs) -> anyhow::Result<Outcome> {
    if !crate::run::preflight::is_root() {
        eprintln!("error: {NEEDS_ROOT}");
        return Ok(Outcome::Failed);
    }
    let mut cfg = crate::cli::run_config(&args.run_args(), &|k| std::env::var(k).ok())
        .map_err(crate::cli::UsageError)?;
    cfg.kind = crate::record::config::RunKind::Review;
    let execute_command = std::env::var("ExecuteCommand").ok();
    let command = args.command(execute_command.as_deref());
    if args.command.is_empty() {
        if let Some(c) = &command {
            // sbc-bench then waits for Enter; unattended here.
            println!("WARNING: ExecuteCommand is set to \"{}\"\n", c.join(" "));
        }
    }
    let sink = crate::app::sink::export_sink(&cfg, args.shared.log.is_some(), ctx.redact)?;
    let mut opts = options(args, cfg.fake_benchmarks, command);
    let log = sink
        .path(crate::report::export::Format::Log)
        .unwrap_or(&cfg.log)
        .to_path_buf();
    opts.review_file = Some(
        args.review
            .clone()
            .unwrap_or_else(|| default_review_file(&log)),
    );
    let mut cmd = ReviewRun {
        mode: Review::new(opts),
        log,
    };
    engine::drive(ctx, &cfg, &sink, &args.shared.store, &mut cmd)
}
