//! `sbc-bench` / `sbc-bench run`: the standard run.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::Context;

use crate::app::Ctx;
use crate::cli::run::RunArgs;
use crate::output::{self, Outcome};
use crate::record::config::{DEFAULT_LOG, RunConfig};
use crate::record::plan::{Plan, format_estimate};
use crate::report::export::{ConsoleSummary, ExportSink, Exporter, Format};
use crate::run::exec::{Executor, Fake, Native};
use crate::run::host::{CannedHost, Host, RealHost};
use crate::run::runner::{self, RunContext, RunError, Ui};
use crate::shutdown;

/// The terminal: sbc-bench's progress lines on stdout, a bar on stderr when it is a
/// terminal, prompts only when interactive.
pub(crate) struct Console {
    pub(crate) interactive: bool,
    pub(crate) bar: Option<indicatif::ProgressBar>,
    /// The run's steps (for `step 2/7` and the time left), once planned.
    pub(crate) plan: Option<Plan>,
    /// Steps started so far.
    pub(crate) started: usize,
}

impl Console {
    /// The console of a run; prompts only when `interactive`.
    pub(crate) fn new(interactive: bool) -> Self {
        Self {
            interactive,
            bar: None,
            plan: None,
            started: 0,
        }
    }
}

impl Ui for Console {
    fn line(&mut self, s: &str) {
        println!("{s}");
    }

    fn planned(&mut self, plan: &Plan) {
        self.plan = Some(plan.clone());
    }

    fn step_started(&mut self, what: &str) -> Box<dyn Fn(f64) + Sync> {
        self.started += 1;
        let label = match &self.plan {
            Some(p) => {
                let (lo, hi) = p.remaining_from_s(self.started - 1);
                format!(
                    "{} (run: {} left)",
                    output::step_label(self.started, p.steps.len(), what),
                    format_estimate(lo, hi)
                )
            }
            None => what.to_string(),
        };
        let bar = output::step_bar(label);
        self.bar = Some(bar.clone());
        let len = output::STEP_BAR_LEN as f64;
        Box::new(move |f| bar.set_position((f.clamp(0.0, 1.0) * len) as u64))
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
        let alt = std::env::temp_dir().join("sbc-bench.log");
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
fn power_sampler(
    ctx: &Ctx,
    cfg: &RunConfig,
) -> Result<Option<crate::sys::meter::sampler::PowerSampler>, String> {
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

/// The `--power` meter of a mode, started now; a meter that does not answer is said here,
/// before anything runs (the caller then exits with status 2), and its banner printed.
pub(crate) fn open_power(
    ctx: &Ctx,
    cfg: &RunConfig,
) -> Result<Option<crate::sys::meter::sampler::PowerSampler>, ()> {
    match power_sampler(ctx, cfg) {
        Ok(p) => {
            if let Some(b) = p.as_ref().and_then(|p| p.banner()) {
                println!("{b}");
            }
            Ok(p)
        }
        Err(msg) => {
            eprintln!("error: {msg}");
            Err(())
        }
    }
}

/// The meter's readings laid over the run's phases (idle mW, mW and energy per phase,
/// MIPS per watt), and the files written once more with them.
pub(crate) fn attach_power(
    report: &mut crate::record::run::RunReport,
    power: Option<crate::sys::meter::sampler::PowerSampler>,
    sink: &ExportSink,
) {
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

/// Run the command.
pub fn run(ctx: &Ctx, args: &RunArgs) -> anyhow::Result<Outcome> {
    let cfg = match crate::cli::run_config(args, &|k| std::env::var(k).ok()) {
        Ok(cfg) => cfg,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(Outcome::Usage);
        }
    };
    // Fail in the first second, not after 30 minutes: output files first.
    let sink = export_sink(&cfg, args.log.is_some())?;
    // A meter that does not answer is said now, before any benchmark (status 2).
    let power = match power_sampler(ctx, &cfg) {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(Outcome::Usage);
        }
    };
    println!("sbc-bench {} (Rust)", env!("CARGO_PKG_VERSION"));
    if let Some(b) = power.as_ref().and_then(|p| p.banner()) {
        println!("{b}");
    }
    let (mut exec, host, monitor_interval) = seam(&cfg);
    let mut ui = Console {
        interactive: !cfg.unattended && std::io::stdin().is_terminal(),
        bar: None,
        plan: None,
        started: 0,
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
    // The files once more, now with the power section.
    attach_power(&mut report, power, &sink);
    let log = sink.path(Format::Log).map(Path::display);
    let summary = ConsoleSummary {
        log: log.map(|l| l.to_string()),
        color: output::color(),
    };
    print!("{}", String::from_utf8_lossy(&summary.render(&report)));
    if let Some(j) = sink
        .path(Format::Json)
        .filter(|j| !crate::output::stdout::is_stdout(j))
    {
        println!("JSON report in {}", j.display());
    }
    let store = store_target(ctx, args.db.as_deref(), args.no_store, args.fake_benchmarks);
    if let Some(log) = sink.path(Format::Log).filter(|l| *l != Path::new("-")) {
        crate::app::report::write_beside_log(&report, log, store.as_deref());
    }
    if let Some(db) = store {
        store_run(&db, &report, sink.path(Format::Log));
    }
    Ok(outcome)
}

/// Where the run is stored: the database `--db` (or `SBC_BENCH_DB`) names; else the
/// default one, for a real run on this machine only (a run over a `--sysroot` tree or
/// with canned results describes no real board). `--no-store`: nowhere.
/// Every mode that runs on the engine (run, review, thermal, graph, wrap) stores this way.
pub(crate) fn store_target(
    ctx: &Ctx,
    db: Option<&Path>,
    no_store: bool,
    fake_benchmarks: bool,
) -> Option<std::path::PathBuf> {
    if no_store {
        return None;
    }
    if let Some(db) = db {
        return Some(db.to_path_buf());
    }
    if fake_benchmarks || !ctx.root.is_host() {
        return None;
    }
    crate::results::store::default_path(nix::unistd::geteuid().is_root(), &|k| {
        std::env::var(k).ok()
    })
}

/// Store a finished mode run (review, thermal, graph, wrap) where its `--db`/`--no-store`
/// and the run's kind say, as `run` does.
pub(crate) fn store_mode_run(
    ctx: &Ctx,
    store: &crate::cli::results::StoreArgs,
    fake_benchmarks: bool,
    report: &crate::record::run::RunReport,
    sink: &ExportSink,
) {
    if let Some(db) = store_target(ctx, store.db.as_deref(), store.no_store, fake_benchmarks) {
        store_run(&db, report, sink.path(Format::Log));
    }
}

/// Store the finished run; a database that cannot be written costs the run nothing but
/// a warning (its log and JSON are written already).
pub(crate) fn store_run(db: &Path, report: &crate::record::run::RunReport, log: Option<&Path>) {
    use crate::results::store::{Inserted, NewRun, Source, Store};
    let json = String::from_utf8_lossy(&crate::report::export::Json.render(report)).into_owned();
    // What the store indexes comes from the report itself, not from its JSON read back.
    let parsed = crate::results::document::from_run(report);
    let log = log.map(|l| l.display().to_string());
    let log_text = crate::report::run::log(report);
    let stored = Store::open(db).and_then(|s| {
        s.insert(&NewRun {
            source: Source::Run,
            source_path: log.as_deref(),
            document: &json,
            parsed: &parsed,
            log_text: Some(&log_text),
            kernel_bsp: None,
        })
    });
    match stored {
        Ok(Inserted::New(id) | Inserted::Duplicate(id)) => {
            println!("Stored as run #{id} in {}", db.display());
        }
        Err(e) => eprintln!("warning: the run was not stored: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::export::RUN_SEPARATOR;
    use crate::sys::root::SysRoot;

    /// A fake run over the x86 VM's tree into `sink`.
    fn fake_run(cfg: &RunConfig, sink: &ExportSink) -> crate::record::run::RunReport {
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
        runner::execute(&ctx, &mut Fake, &mut Quiet).unwrap()
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
