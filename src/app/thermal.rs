//! `sbc-bench thermal` (sbc-bench -t, -T, -M): the thermal test on the run engine.

use std::io::{IsTerminal, Write};
use std::path::Path;

use crate::app::Ctx;
use crate::app::run::{Console, export_sink, seam};
use crate::cli::thermal::ThermalArgs;
use crate::output::{self, Outcome};
use crate::record::plan::Plan;
use crate::record::thermal::ThermalMode;
use crate::report::export::{ConsoleSummary, Exporter, Format};
use crate::run::runner::{self, RunContext, RunError, Ui};
use crate::shutdown;

/// The run's console, with the current temperature rewritten in place on a terminal
/// (sbc-bench moves the cursor up a line after each reading).
struct ThermalConsole {
    inner: Console,
    tty: bool,
    /// A status line stands where the next line goes.
    status_shown: bool,
}

impl ThermalConsole {
    fn clear_status(&mut self) {
        if self.status_shown {
            print!("\x1b[2K");
            self.status_shown = false;
        }
    }
}

impl Ui for ThermalConsole {
    fn line(&mut self, s: &str) {
        self.clear_status();
        self.inner.line(s);
    }

    fn planned(&mut self, plan: &Plan) {
        self.inner.planned(plan);
    }

    fn step_started(&mut self, what: &str) -> Box<dyn Fn(f64) + Sync> {
        self.inner.step_started(what)
    }

    fn step_done(&mut self, what: &str, note: &str) {
        self.clear_status();
        self.inner.step_done(what, note);
    }

    fn confirm(&mut self, warning: &str) -> bool {
        self.clear_status();
        self.inner.confirm(warning)
    }

    fn status(&mut self, s: &str) {
        if self.tty {
            print!("\x1b[2K{s}\n\x1b[1A");
            self.status_shown = true;
        } else {
            println!("{s}");
        }
        let _ = std::io::stdout().flush();
    }
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &ThermalArgs) -> anyhow::Result<Outcome> {
    let cfg = match crate::cli::thermal::config(args, &|k| std::env::var(k).ok()) {
        Ok(cfg) => cfg,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(Outcome::Usage);
        }
    };
    let mode = cfg.thermal.map(|t| t.mode);
    // sbc-bench's TempTest refuses without a sensor; -M runs in its main flow, which does
    // not need one.
    let source = crate::run::thermal::refusal(&ctx.root);
    match (&source, mode) {
        (Err(msg), Some(ThermalMode::CoolTo | ThermalMode::HeatTo)) => {
            eprintln!("{msg}");
            return Ok(Outcome::Failed);
        }
        (Ok((_, c)), _) => {
            if let Some(w) = crate::run::thermal::ominously_low(*c) {
                eprintln!("{w}\n");
            }
        }
        _ => {}
    }
    let sink = export_sink(&cfg, args.log.is_some())?;
    let Ok(power) = crate::app::run::open_power(ctx, &cfg) else {
        return Ok(Outcome::Usage);
    };
    println!("sbc-bench {} (Rust)", env!("CARGO_PKG_VERSION"));
    if let (Ok((src, _)), Some(ThermalMode::CoolTo | ThermalMode::HeatTo)) = (&source, mode) {
        let file = src
            .temp_file
            .file_name()
            .map(|f| f.to_string_lossy().to_string())
            .unwrap_or_default();
        println!("\nThermal efficiency test using {}{file}\n", src.dir);
    }
    let (mut exec, host, monitor_interval) = seam(&cfg);
    let mut ui = ThermalConsole {
        inner: Console::new(!cfg.unattended && std::io::stdin().is_terminal()),
        tty: std::io::stdout().is_terminal(),
        status_shown: false,
    };
    let rctx = RunContext {
        root: &ctx.root,
        cfg: &cfg,
        cancel: shutdown::token(),
        sink: &sink,
        host: host.as_ref(),
        monitor_interval,
    };
    let result = runner::execute(&rctx, exec.as_mut(), &mut ui);
    let outcome = runner::outcome(&result, shutdown::signal());
    let mut report = match result {
        Ok(r) => r,
        Err(RunError::Stopped) => {
            eprintln!("Stopped before benchmarking; nothing was changed.");
            return Ok(outcome);
        }
        Err(e) => return Err(e.into()),
    };
    crate::app::run::attach_power(&mut report, power, &sink);
    let log = sink.path(Format::Log).map(Path::display);
    if mode == Some(ThermalMode::MemoryController) {
        let summary = ConsoleSummary {
            log: log.map(|l| l.to_string()),
            color: output::color(),
        };
        print!("{}", String::from_utf8_lossy(&summary.render(&report)));
        println!("\n{}", crate::report::thermal::section(&report).trim_end());
    } else {
        // As sbc-bench's TempTest: the whole log, then (ours) the verdict last.
        let text = Format::Log.exporter().render(&report);
        print!("\n{}", String::from_utf8_lossy(&text));
        if let Some(v) = crate::diagnose::thermal::verdict(&report) {
            println!("\n{}", crate::report::thermal::verdict_line(&v));
        }
        if let Some(l) = log {
            println!("\nFull results in {l}");
        }
    }
    if let Some(j) = sink
        .path(Format::Json)
        .filter(|j| !crate::output::stdout::is_stdout(j))
    {
        println!("JSON report in {}", j.display());
    }
    crate::app::run::store_mode_run(ctx, &args.store, cfg.fake_benchmarks, &report, &sink);
    Ok(outcome)
}
