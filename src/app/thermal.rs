//! `sbc-bench thermal` (sbc-bench -t, -T, -M): the thermal test on the run engine.

use std::io::IsTerminal;

use crate::app::Ctx;
use crate::app::console::ThermalConsole;
use crate::app::engine::{self, ModeCommand};
use crate::cli::thermal::ThermalArgs;
use crate::output::{self, Outcome};
use crate::record::config::RunConfig;
use crate::record::run::RunReport;
use crate::record::thermal::ThermalMode;
use crate::report::export::{ConsoleSummary, ExportSink, Exporter, Format};
use crate::run::runner::{Mode, Ui};
use crate::run::thermal::Thermal;

/// The thermal test's part of the lifecycle: the sensor line and its summary.
struct ThermalRun {
    mode: Thermal,
    /// `Thermal efficiency test using …` (`-t`/`-T` with a sensor).
    sensor_line: Option<String>,
}

impl ModeCommand for ThermalRun {
    fn mode(&mut self) -> &mut dyn Mode {
        &mut self.mode
    }

    fn banner(&self) -> String {
        let banner = format!("sbc-bench {} (Rust)", env!("CARGO_PKG_VERSION"));
        match &self.sensor_line {
            Some(l) => format!("{banner}\n\n{l}\n"),
            None => banner,
        }
    }

    fn ui(&self, cfg: &RunConfig) -> Box<dyn Ui> {
        Box::new(ThermalConsole::new(
            !cfg.unattended && std::io::stdin().is_terminal(),
            std::io::stdout().is_terminal(),
        ))
    }

    fn summary(&self, report: &RunReport, sink: &ExportSink) {
        let log = sink.path(Format::Log).map(|l| l.display().to_string());
        if self.mode.cfg.mode == ThermalMode::MemoryController {
            let summary = ConsoleSummary {
                log,
                color: output::color(),
            };
            print!("{}", String::from_utf8_lossy(&summary.render(report)));
            println!(
                "\n{}",
                crate::report::log::thermal::section(report).trim_end()
            );
            return;
        }
        // As sbc-bench's TempTest: the whole log, then (ours) the verdict last.
        let text = Format::Log.exporter().render(report);
        print!("\n{}", String::from_utf8_lossy(&text));
        if let Some(v) = crate::diagnose::thermal::verdict(report) {
            println!("\n{}", crate::report::log::thermal::verdict_line(&v));
        }
        if let Some(l) = log {
            println!("\nFull results in {l}");
        }
    }
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &ThermalArgs) -> anyhow::Result<Outcome> {
    let cfg = crate::cli::thermal::config(args, &|k| std::env::var(k).ok())
        .map_err(crate::cli::UsageError)?;
    let Some(t) = cfg.thermal().copied() else {
        anyhow::bail!("the thermal test's settings are missing");
    };
    // sbc-bench's TempTest refuses without a sensor; -M runs in its main flow, which does
    // not need one.
    let source = crate::run::thermal::refusal(&ctx.root);
    let waits = matches!(t.mode, ThermalMode::CoolTo | ThermalMode::HeatTo);
    let sensor_line = match &source {
        Err(msg) if waits => {
            eprintln!("{msg}");
            return Ok(Outcome::Failed);
        }
        Err(_) => None,
        Ok((src, c)) => {
            if let Some(w) = crate::run::thermal::ominously_low(*c) {
                eprintln!("{w}\n");
            }
            let file = src.temp_file.file_name();
            let file = file.map(|f| f.to_string_lossy().to_string());
            waits.then(|| {
                let file = file.unwrap_or_default();
                format!("Thermal efficiency test using {}{file}", src.dir)
            })
        }
    };
    let sink = crate::app::sink::export_sink(&cfg, args.shared.log.is_some(), ctx.redact)?;
    let mut cmd = ThermalRun {
        mode: Thermal { cfg: t },
        sensor_line,
    };
    engine::drive(ctx, &cfg, &sink, &args.shared.store, &mut cmd)
}
