//! The one driver of every mode's run (run, thermal, graph, review, wrap): the power
//! meter, the banner, the seams, the console, the engine, the outcome, the stop before
//! benchmarking, the power section, the summary, the JSON line and the store. Each mode
//! adds what is its own as a [`ModeCommand`], beside its `Mode` (`run::standard`,
//! `run::thermal` …); `app::modes` builds it from the mode's config and calls [`drive`].

use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use crate::output::usage::UsageError;
use crate::output::{self, Outcome};
use crate::record::config::RunConfig;
use crate::record::run::RunReport;
use crate::report::export::{ExportSink, Format};
use crate::run::console::RunConsole;
use crate::run::runner::{self, Mode, NotStarted, RunContext, Ui};
use crate::run::seam::StoreChoice;
use crate::shutdown;
use crate::sys::meter::sampler::PowerSampler;
use crate::sys::root::SysRoot;

/// What one mode's command adds to the lifecycle.
pub trait ModeCommand: Sized {
    /// The engine's mode.
    type Mode: Mode;
    /// The mode's own options that its `RunConfig` does not carry (review's command).
    type Options;

    /// May the mode start at all (before its arguments are read)? `Err` after saying why
    /// (review mode without root).
    fn may_start() -> Result<(), Outcome> {
        Ok(())
    }

    /// The command, once the config is read and before the output files are checked;
    /// `Ok(Err(status))` after saying why it cannot run here (no sensor, no cpufreq).
    fn prepare(
        root: &SysRoot,
        cfg: &RunConfig,
        opts: Self::Options,
    ) -> anyhow::Result<Result<Self, Outcome>>;

    /// The mode's own files beside the run's (the graph's page), and what it takes from
    /// them (where review mode's log went).
    fn files(&mut self, _cfg: &RunConfig, _sink: &mut ExportSink) -> anyhow::Result<()> {
        Ok(())
    }

    /// The mode to run.
    fn mode(&mut self) -> &mut Self::Mode;

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

/// Run a mode from its config to its exit status; `sink` was checked already.
pub fn drive<C: ModeCommand>(
    root: &SysRoot,
    cfg: &RunConfig,
    sink: &ExportSink,
    store: &StoreChoice,
    cmd: &mut C,
) -> anyhow::Result<Outcome> {
    // A meter that does not answer is said now, before any benchmark (status 2).
    let power = power_sampler(root, cfg).map_err(UsageError)?;
    let meter = power.as_ref().and_then(|p| p.banner());
    if cmd.power_banner_first() {
        meter.iter().for_each(|b| println!("{b}"));
    }
    println!("{}", cmd.banner());
    if !cmd.power_banner_first() {
        meter.iter().for_each(|b| println!("{b}"));
    }
    let (mut exec, host, monitor_interval) = crate::run::seam::seam(cfg);
    let mut ui = cmd.ui(cfg);
    let rctx = RunContext {
        root,
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
    crate::run::power::attach(&mut report, power, sink);
    cmd.summary(&report, sink);
    if let Some(j) = sink
        .path(Format::Json)
        .filter(|j| !output::stdout::is_stdout(j))
    {
        println!("JSON report in {}", j.display());
    }
    let db = crate::run::seam::store_target(root, store, cfg.fake_benchmarks);
    cmd.before_store(&report, sink, db.as_deref());
    if let Some(db) = db {
        crate::run::seam::store_run(&db, &report, sink.path(Format::Log));
    }
    cmd.after_store(sink);
    // A document that could not be written (`--json /dev/full`) fails the run.
    let failures = sink.failures();
    for f in &failures {
        eprintln!("error: {f}");
    }
    Ok(match outcome {
        Outcome::Ok | Outcome::Untrusted | Outcome::Ended if !failures.is_empty() => {
            Outcome::Failed
        }
        o => o,
    })
}

/// The `--power` meter, sampled on its own thread from now on (often with
/// `--fake-benchmarks`, whose phases last milliseconds); `None` without one. The error is
/// the sentence for the user.
fn power_sampler(root: &SysRoot, cfg: &RunConfig) -> Result<Option<PowerSampler>, String> {
    let Some(spec) = &cfg.power else {
        return Ok(None);
    };
    let every = if cfg.fake_benchmarks {
        Duration::from_millis(20)
    } else {
        crate::sys::meter::sampler::DEFAULT_EVERY
    };
    crate::run::power::start(spec, root, every)
        .map(Some)
        .map_err(|e| e.to_string())
}
