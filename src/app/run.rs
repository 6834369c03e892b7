//! `sbc-bench` / `sbc-bench run`: the standard run.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::app::Ctx;
use crate::cli::run::RunArgs;
use crate::diagnose;
use crate::output;
use crate::report::json::JsonFile;
use crate::run::config::{DEFAULT_LOG, RunConfig};
use crate::run::exec::{Executor, Fake, Native};
use crate::run::record::RunStatus;
use crate::run::runner::{self, RunContext, RunError, Ui};
use crate::shutdown;

/// The terminal: sbc-bench's progress lines on stdout, a bar on stderr when it is a
/// terminal, prompts only when interactive.
struct Console {
    interactive: bool,
    bar: Option<indicatif::ProgressBar>,
}

impl Ui for Console {
    fn line(&mut self, s: &str) {
        println!("{s}");
    }

    fn step_started(&mut self, what: &str) -> Box<dyn Fn(f64) + Sync> {
        let bar = output::progress_bar(1000, what);
        self.bar = Some(bar.clone());
        Box::new(move |f| bar.set_position((f.clamp(0.0, 1.0) * 1000.0) as u64))
    }

    fn step_done(&mut self, what: &str, note: &str) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        println!("{what}. Done{note}.");
        let _ = std::io::stdout().flush();
    }

    fn confirm(&mut self, warning: &str) -> bool {
        println!("{warning}");
        if !self.interactive {
            return true;
        }
        println!("Press [ctrl]-[c] to stop or [enter] to continue.");
        let mut l = String::new();
        std::io::stdin().lock().read_line(&mut l).is_ok()
    }
}

/// Where the log goes: `--log FILE` must be writable (checked before the run); the default
/// `/var/log/sbc-bench.log` falls back to the temp directory when we may not write there.
fn log_path(cfg: &RunConfig, explicit: bool) -> anyhow::Result<PathBuf> {
    // Checked without creating or truncating anything: a run that stops before
    // benchmarking (too busy, Ctrl-C) leaves no empty log behind and an old one intact.
    let try_open = |p: &PathBuf| -> std::io::Result<()> {
        if p.is_dir() {
            return Err(std::io::Error::other("is a directory"));
        }
        if p.exists() {
            return std::fs::OpenOptions::new().append(true).open(p).map(|_| ());
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let probe = dir.join(format!(".sbc-bench-log-probe.{}", std::process::id()));
        std::fs::File::create(&probe)?;
        std::fs::remove_file(&probe)
    };
    match try_open(&cfg.log) {
        Ok(()) => Ok(cfg.log.clone()),
        Err(e) if explicit => {
            Err(e).with_context(|| format!("cannot write the log file {}", cfg.log.display()))
        }
        Err(e) => {
            let alt = std::env::temp_dir().join("sbc-bench.log");
            output::warn(format!(
                "cannot write {DEFAULT_LOG} ({e}); the log goes to {}",
                alt.display()
            ));
            try_open(&alt)
                .with_context(|| format!("cannot write the log file {}", alt.display()))?;
            Ok(alt)
        }
    }
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &RunArgs) -> anyhow::Result<i32> {
    let cfg = crate::cli::run_config(args, &|k| std::env::var(k).ok());
    // Fail in the first second, not after 30 minutes: output files first.
    let json = cfg.json.as_ref().map(JsonFile::create).transpose()?;
    let log = log_path(&cfg, args.log.is_some())?;
    println!("sbc-bench {} (Rust)", env!("CARGO_PKG_VERSION"));
    // Canned results include a 7-Zip run and no OpenSSL, whatever this host has, so
    // reports of fake runs are the same everywhere.
    let tools = if cfg.fake_benchmarks {
        (true, false)
    } else {
        (
            crate::bench::external::sevenzip::SevenZip::find(shutdown::token()).is_some(),
            crate::bench::external::openssl::Openssl::find(shutdown::token()).is_some(),
        )
    };
    let mut exec: Box<dyn Executor> = if cfg.fake_benchmarks {
        Box::new(Fake)
    } else {
        Box::new(Native)
    };
    let mut ui = Console {
        interactive: !cfg.unattended && std::io::stdin().is_terminal(),
        bar: None,
    };
    let rctx = RunContext {
        root: &ctx.root,
        cfg: &cfg,
        cancel: shutdown::token(),
        json: json.as_ref(),
        tools,
        monitor_interval: if cfg.quick || cfg.fake_benchmarks {
            Duration::from_millis(250)
        } else {
            Duration::from_secs(1)
        },
    };
    let report = match runner::execute(&rctx, exec.as_mut(), &mut ui) {
        Ok(r) => r,
        Err(RunError::Stopped) => {
            eprintln!("Stopped before benchmarking; nothing was changed.");
            return Ok(130);
        }
        Err(e) => return Err(e.into()),
    };
    let text = crate::report::run::log(&report);
    if let Err(e) = std::fs::write(&log, &text) {
        output::warn(format!("cannot write {}: {e}", log.display()));
    }
    print!(
        "{}",
        crate::report::run::console_summary(
            &report,
            Some(&log.display().to_string()),
            output::color()
        )
    );
    if let Some(j) = &json {
        println!("JSON report in {}", j.path().display());
    }
    Ok(match report.status {
        RunStatus::Interrupted => 128 + shutdown::signal().unwrap_or(2),
        _ if diagnose::any_invalid(&report.findings) => output::EXIT_INVALID,
        _ => output::EXIT_OK,
    })
}
