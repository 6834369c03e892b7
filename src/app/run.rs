//! `sbc-bench` / `sbc-bench run`: the standard run, on the one driver
//! (`app::engine`); the run stored.

use std::path::Path;

use crate::app::Ctx;
use crate::app::engine::{self, ModeCommand};
use crate::cli::run::RunArgs;
use crate::output::{self, Outcome};
use crate::record::run::RunReport;
use crate::report::export::{ConsoleSummary, ExportSink, Exporter, Format};
use crate::run::runner::Mode;
use crate::run::standard::Standard;

/// The standard run's part of the lifecycle: its summary and its report page.
struct StandardRun(Standard);

impl ModeCommand for StandardRun {
    fn mode(&mut self) -> &mut dyn Mode {
        &mut self.0
    }

    fn banner(&self) -> String {
        format!("sbc-bench {} (Rust)", env!("CARGO_PKG_VERSION"))
    }

    fn power_banner_first(&self) -> bool {
        false
    }

    fn summary(&self, report: &RunReport, sink: &ExportSink) {
        let summary = ConsoleSummary {
            log: sink.path(Format::Log).map(|l| l.display().to_string()),
            color: output::color(),
        };
        print!("{}", String::from_utf8_lossy(&summary.render(report)));
    }

    fn before_store(&self, report: &RunReport, sink: &ExportSink, db: Option<&Path>) {
        // Beside a regular log file only: never `/dev/null.html` in /dev.
        if let Some(log) = sink.regular_file(Format::Log) {
            crate::app::report::write_beside_log(report, log, db);
        }
    }
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &RunArgs) -> anyhow::Result<Outcome> {
    let cfg =
        crate::cli::run_config(args, &|k| std::env::var(k).ok()).map_err(crate::cli::UsageError)?;
    // Fail in the first second, not after 30 minutes: output files first.
    let sink = crate::app::sink::export_sink(&cfg, args.shared.log.is_some(), ctx.redact)?;
    engine::drive(
        ctx,
        &cfg,
        &sink,
        &args.shared.store,
        &mut StandardRun(Standard),
    )
}
