//! `sbc-bench wrap`, `-G`, `-P ARGS`, `-s`: the command (or the tool found on the PATH)
//! turned into a `WrapSpec`, run by `run::wrap` on the standard run's seams.

use std::io::Write;

use crate::app::Ctx;
use crate::app::engine::{self, ModeCommand};
use crate::cli::UsageError;
use crate::cli::run::RunArgs;
use crate::cli::wrap::WrapArgs;
use crate::output::{self, Outcome};
use crate::record::config::RunConfig;
use crate::record::plan::Plan;
use crate::record::run::RunReport;
use crate::report::export::{ExportSink, Format};
use crate::run::runner::{Mode, Ui};
use crate::run::wrap::Wrap;

/// Lines on stdout; no prompts (a wrapped benchmark is started on purpose).
struct WrapConsole;

impl Ui for WrapConsole {
    fn line(&mut self, s: &str) {
        println!("{s}");
    }

    fn planned(&mut self, _plan: &Plan) {}

    fn step_started(&mut self, what: &str) -> Box<dyn Fn(f64) + Sync> {
        println!("{what}...");
        let _ = std::io::stdout().flush();
        Box::new(|_| {})
    }

    fn step_done(&mut self, what: &str, note: &str) {
        println!("{what}. Done{note}.");
        let _ = std::io::stdout().flush();
    }

    fn confirm(&mut self, warning: &str) -> bool {
        println!("{warning}");
        true
    }
}

/// The wrapped command's part of the lifecycle: its console and its summary.
struct WrapRun(Wrap);

impl ModeCommand for WrapRun {
    fn mode(&mut self) -> &mut dyn Mode {
        &mut self.0
    }

    fn banner(&self) -> String {
        format!("sbc-bench {} (Rust) wrap", env!("CARGO_PKG_VERSION"))
    }

    fn ui(&self, _cfg: &RunConfig) -> Box<dyn Ui> {
        Box::new(WrapConsole)
    }

    fn stopped(&self) -> &'static str {
        "Stopped before running the command; nothing was changed."
    }

    fn summary(&self, report: &RunReport, sink: &ExportSink) {
        let log = sink.path(Format::Log).map(|p| p.display().to_string());
        print!(
            "{}",
            crate::report::log::wrap::console(report, log.as_deref(), output::color())
        );
    }
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &WrapArgs) -> anyhow::Result<Outcome> {
    let run_args = RunArgs {
        shared: args.shared.clone(),
        ..Default::default()
    };
    let mut cfg =
        crate::cli::run_config(&run_args, &|k| std::env::var(k).ok()).map_err(UsageError)?;
    let online = crate::sys::cpu::read(&ctx.root).1.online().len();
    let spec =
        crate::cli::wrap::spec(args, online, &crate::bench::external::find).map_err(UsageError)?;
    cfg.kind = crate::record::config::RunKind::Wrap(spec.clone());
    let sink = crate::app::sink::export_sink(&cfg, args.shared.log.is_some(), ctx.redact)?;
    engine::drive(
        ctx,
        &cfg,
        &sink,
        &args.shared.store,
        &mut WrapRun(Wrap::new(spec)),
    )
}
