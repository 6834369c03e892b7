//! `sbc-bench` / `sbc-bench run`: the standard run, on the one driver
//! (`app::engine`); the run stored.

use std::path::Path;
use std::time::Duration;

use crate::app::Ctx;
use crate::app::engine::{self, ModeCommand};
use crate::cli::run::RunArgs;
use crate::output::{self, Outcome};
use crate::record::config::RunConfig;
use crate::record::run::RunReport;
use crate::report::export::{ConsoleSummary, ExportSink, Exporter, Format};
use crate::run::exec::{Executor, Fake, Native};
use crate::run::host::{CannedHost, Host, RealHost};
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
        if let Some(log) = sink.path(Format::Log).filter(|l| *l != Path::new("-")) {
            crate::app::report::write_beside_log(report, log, db);
        }
    }
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &RunArgs) -> anyhow::Result<Outcome> {
    let cfg =
        crate::cli::run_config(args, &|k| std::env::var(k).ok()).map_err(crate::cli::UsageError)?;
    // Fail in the first second, not after 30 minutes: output files first.
    let sink = crate::app::sink::export_sink(&cfg, args.shared.log.is_some())?;
    engine::drive(
        ctx,
        &cfg,
        &sink,
        &args.shared.store,
        &mut StandardRun(Standard),
    )
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

/// Store the finished run; a database that cannot be written costs the run nothing but
/// a warning (its log and JSON are written already).
pub(crate) fn store_run(db: &Path, report: &RunReport, log: Option<&Path>) {
    use crate::results::store::{Inserted, NewRun, Source, Store};
    let json = String::from_utf8_lossy(&crate::report::export::Json.render(report)).into_owned();
    let parsed = match crate::results::document::from_run_json(&json) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("warning: the run was not stored in {}: {e}", db.display());
            return;
        }
    };
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
