//! `sbc-bench wrap`, `-G`, `-P ARGS`, `-s`: the command (or the tool found on the PATH)
//! turned into a `WrapSpec`, run by `run::wrap` on the standard run's seams.

use crate::app::Ctx;
use crate::app::engine::{self, ModeCommand};
use crate::cli::UsageError;
use crate::cli::run::RunArgs;
use crate::cli::wrap::WrapArgs;
use crate::output::{self, Outcome};
use crate::record::config::RunConfig;
use crate::record::run::RunReport;
use crate::report::export::{ExportSink, Format};
use crate::run::runner::Ui;
use crate::run::wrap::Wrap;

/// The wrapped command's part of the lifecycle: its console and its summary.
struct WrapRun(Wrap);

impl ModeCommand for WrapRun {
    type Mode = Wrap;

    fn mode(&mut self) -> &mut Wrap {
        &mut self.0
    }

    fn banner(&self) -> String {
        format!("sbc-bench {} (Rust) wrap", env!("CARGO_PKG_VERSION"))
    }

    fn ui(&self, _cfg: &RunConfig) -> Box<dyn Ui> {
        Box::new(crate::run::console::WrapConsole)
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
    let sink = crate::report::export::run_sink(&cfg, args.shared.log.is_some(), ctx.redact)?;
    engine::drive(
        ctx,
        &cfg,
        &sink,
        &args.shared.store,
        &mut WrapRun(Wrap::new(spec)),
    )
}
