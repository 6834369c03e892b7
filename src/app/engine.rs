//! The one driver of every mode's run (run, thermal, graph, review, wrap): the output
//! files, the power meter, the banner, the seams, the console, the engine, the outcome,
//! the stop before benchmarking, the power section, the summary, the JSON line and the
//! store. A command file only builds its [`ModeCommand`] from its config.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use crate::app::Ctx;
use crate::app::console::RunConsole;
use crate::cli::UsageError;
use crate::output::{self, Outcome};
use crate::record::config::{DEFAULT_LOG, RunConfig};
use crate::record::run::RunReport;
use crate::report::export::{ExportSink, Format};
use crate::run::exec::{Executor, Fake, Native};
use crate::run::host::{CannedHost, Host, RealHost};
use crate::run::runner::{self, Mode, NotStarted, RunContext, Ui};
use crate::shutdown;
use crate::sys::meter::sampler::PowerSampler;

/// What one mode's command adds to the lifecycle.
pub(crate) trait ModeCommand {
    /// The engine's mode.
    fn mode(&mut self) -> &mut dyn Mode;

    /// The first lines (`sbc-bench 0.x (Rust) review mode`).
    fn banner(&self) -> String;

    /// Is the power meter's line said before the banner (the modes) or after (the run)?
    fn power_banner_first(&self) -> bool {
        true
    }

    /// How the run talks to the user: sbc-bench's console.
    fn ui(&self, cfg: &RunConfig) -> Box<dyn Ui> {
        Box::new(RunConsole::new(
            !cfg.unattended && std::io::stdin().is_terminal(),
        ))
    }

    /// Said when the run stopped before anything was changed.
    fn stopped(&self) -> &'static str {
        "Stopped before benchmarking; nothing was changed."
    }

    /// What the console says at the end, before the JSON file's line.
    fn summary(&self, report: &RunReport, sink: &ExportSink);

    /// After the JSON file's line, before the run is stored (the run's report page).
    fn before_store(&self, _report: &RunReport, _sink: &ExportSink, _db: Option<&Path>) {}

    /// The last lines, once the run is stored (the graph's page).
    fn after_store(&self, _sink: &ExportSink) {}
}

/// Where a finished run is stored: the command's `--db` / `--no-store`.
pub(crate) struct StoreChoice<'a> {
    /// `--db PATH` (or `SBC_BENCH_DB`).
    pub db: Option<&'a Path>,
    /// `--no-store`.
    pub no_store: bool,
}

/// Run a mode from its config to its exit status; `sink` was checked already.
pub(crate) fn drive(
    ctx: &Ctx,
    cfg: &RunConfig,
    sink: &ExportSink,
    store: StoreChoice<'_>,
    cmd: &mut dyn ModeCommand,
) -> anyhow::Result<Outcome> {
    // A meter that does not answer is said now, before any benchmark (status 2).
    let power = power_sampler(ctx, cfg).map_err(UsageError)?;
    let meter_banner = power.as_ref().and_then(|p| p.banner());
    if cmd.power_banner_first() {
        meter_banner.iter().for_each(|b| println!("{b}"));
    }
    println!("{}", cmd.banner());
    if !cmd.power_banner_first() {
        meter_banner.iter().for_each(|b| println!("{b}"));
    }
    let (mut exec, host, monitor_interval) = seam(cfg);
    let mut ui = cmd.ui(cfg);
    let rctx = RunContext {
        root: &ctx.root,
        cfg,
        cancel: shutdown::token(),
        sink,
        host: host.as_ref(),
        monitor_interval,
    };
    let result = runner::execute(&rctx, cmd.mode(), exec.as_mut(), ui.as_mut());
    let outcome = runner::outcome(&result, shutdown::signal());
    let mut report = match result {
        Ok(r) => r,
        Err(NotStarted::Stopped) => {
            eprintln!("{}", cmd.stopped());
            return Ok(outcome);
        }
        Err(e) => return Err(e.into()),
    };
    // The files once more, now with the power section.
    attach_power(&mut report, power, sink);
    cmd.summary(&report, sink);
    if let Some(j) = sink
        .path(Format::Json)
        .filter(|j| !output::stdout::is_stdout(j))
    {
        println!("JSON report in {}", j.display());
    }
    let db = crate::app::run::store_target(ctx, store.db, store.no_store, cfg.fake_benchmarks);
    cmd.before_store(&report, sink, db.as_deref());
    if let Some(db) = db {
        crate::app::run::store_run(&db, &report, sink.path(Format::Log));
    }
    cmd.after_store(sink);
    Ok(outcome)
}

/// The output files, checked before the run: `--json FILE` and `--log FILE` must be
/// writable; the default log `/var/log/sbc-bench.log` falls back to the temp directory
/// when we may not write there. `--log FILE` holds this run alone; the default log keeps
/// the earlier runs, this one appended after sbc-bench's separator, as sbc-bench's does.
/// Nothing is created or truncated yet: a run that stops before benchmarking (too busy,
/// Ctrl-C) leaves no empty file behind and old ones intact.
pub(crate) fn export_sink(cfg: &RunConfig, explicit_log: bool) -> anyhow::Result<ExportSink> {
    // `--json -` (or `--markdown -`, `--log -`): stdout carries that document alone, the
    // text goes to stderr (docs/RUN-JSON.md).
    let dashes = [cfg.json.as_deref(), cfg.markdown.as_deref()]
        .into_iter()
        .flatten()
        .chain(explicit_log.then_some(cfg.log.as_path()))
        .filter(|p| output::stdout::is_stdout(p))
        .count();
    if dashes > 1 {
        anyhow::bail!("only one of --json, --markdown and --log can be - (standard output)");
    }
    if dashes == 1 {
        output::stdout::reserve().context("cannot keep standard output for the document")?;
    }
    let mut sink = ExportSink::new();
    if let Some(j) = &cfg.json {
        sink.add(Format::Json, j)?;
    }
    if let Some(m) = &cfg.markdown {
        let f = if cfg.no_redact {
            Format::MarkdownUnredacted
        } else {
            Format::Markdown
        };
        sink.add(f, m)?;
    }
    if explicit_log {
        sink.add(Format::Log, &cfg.log)?;
        return Ok(sink);
    }
    if let Err(e) = sink.add_appending(Format::Log, &cfg.log) {
        let alt: PathBuf = std::env::temp_dir().join("sbc-bench.log");
        output::warn(format!(
            "cannot write {DEFAULT_LOG} ({}); the log goes to {}",
            e.root_cause(),
            alt.display()
        ));
        sink.add_appending(Format::Log, &alt)?;
    }
    Ok(sink)
}

/// The benchmarks, the host they run on and the monitor's sampling interval: canned
/// (and sampled often, to see phases of milliseconds) with `--fake-benchmarks`, real
/// otherwise. The one place that asks.
pub(crate) fn seam(cfg: &RunConfig) -> (Box<dyn Executor>, Box<dyn Host>, Duration) {
    let fast = Duration::from_millis(250);
    if cfg.fake_benchmarks {
        (Box::new(Fake), Box::new(CannedHost), fast)
    } else {
        let every = if cfg.quick {
            fast
        } else {
            Duration::from_secs(1)
        };
        (Box::new(Native), Box::new(RealHost), every)
    }
}

/// The `--power` meter, sampled on its own thread from now on (often with
/// `--fake-benchmarks`, whose phases last milliseconds); `None` without one. The error is
/// the sentence for the user.
fn power_sampler(ctx: &Ctx, cfg: &RunConfig) -> Result<Option<PowerSampler>, String> {
    let Some(spec) = &cfg.power else {
        return Ok(None);
    };
    let every = if cfg.fake_benchmarks {
        Duration::from_millis(20)
    } else {
        crate::sys::meter::sampler::DEFAULT_EVERY
    };
    crate::run::power::start(spec, &ctx.root, every)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// The meter's readings laid over the run's phases (idle mW, mW and energy per phase,
/// MIPS per watt), and the files written once more with them.
fn attach_power(report: &mut RunReport, power: Option<PowerSampler>, sink: &ExportSink) {
    let Some(p) = power else {
        return;
    };
    let (failed, _) = p.failures();
    let history = p.history();
    report.power = Some(crate::run::power::record(
        report,
        p.describe(),
        p.banner(),
        &history,
        failed,
    ));
    drop(p.stop());
    sink.finish(report);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::export::RUN_SEPARATOR;
    use crate::sys::root::SysRoot;

    /// A fake run over the x86 VM's tree into `sink`.
    fn fake_run(cfg: &RunConfig, sink: &ExportSink) -> RunReport {
        struct Quiet;
        impl Ui for Quiet {
            fn line(&mut self, _s: &str) {}
            fn step_started(&mut self, _what: &str) -> Box<dyn Fn(f64) + Sync> {
                Box::new(|_| {})
            }
            fn step_done(&mut self, _what: &str, _note: &str) {}
            fn confirm(&mut self, _warning: &str) -> bool {
                true
            }
        }
        let root = SysRoot::new(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysroots/x86-vm"),
        );
        let token = shutdown::CancellationToken::new();
        let ctx = RunContext {
            root: &root,
            cfg,
            cancel: &token,
            sink,
            host: &CannedHost,
            monitor_interval: Duration::from_millis(50),
        };
        crate::run::standard::execute(&ctx, &mut Fake, &mut Quiet).unwrap()
    }

    #[test]
    fn only_the_default_log_is_appended() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("sbc-bench.log");
        let earlier = "sbc-bench v0.9.72 earlier (Mon, 1 Jan 2024)\n| earlier |\n";
        std::fs::write(&log, earlier).unwrap();
        let cfg = RunConfig {
            fake_benchmarks: true,
            unattended: true,
            log: log.clone(),
            ..Default::default()
        };
        // No --log: the log keeps what it held.
        let r = fake_run(&cfg, &export_sink(&cfg, false).unwrap());
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            format!("{earlier}{RUN_SEPARATOR}{}", crate::report::run::log(&r))
        );
        // --log FILE: this run alone.
        let r = fake_run(&cfg, &export_sink(&cfg, true).unwrap());
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            crate::report::run::log(&r)
        );
    }
}
