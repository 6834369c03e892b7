//! The choices every mode's command makes once, in one place: the seams (real benchmarks
//! and host, or canned ones with `--fake-benchmarks`) and where a finished run is stored.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::record::config::RunConfig;
use crate::record::run::RunReport;
use crate::report::export::Exporter;
use crate::run::exec::{Executor, Fake, Native};
use crate::run::host::{CannedHost, Host, RealHost};
use crate::sys::root::SysRoot;

/// Where the user asked a finished run to go (`cli::results::StoreArgs`, checked).
#[derive(Debug, Clone, Default)]
pub struct StoreChoice {
    /// `--db PATH` (or `SBC_BENCH_DB`): this results database.
    pub db: Option<PathBuf>,
    /// `--no-store`: nowhere (wins over `db`).
    pub no_store: bool,
}

/// The benchmarks, the host they run on and the monitor's sampling interval: canned
/// (and sampled often, to see phases of milliseconds) with `--fake-benchmarks`, real
/// otherwise. The one place that asks.
pub(crate) fn seam(cfg: &RunConfig) -> (Box<dyn Executor>, Box<dyn Host>, Duration) {
    let fast = Duration::from_millis(250);
    if cfg.fake_benchmarks {
        (Box::new(Fake), Box::new(CannedHost), fast)
    } else {
        let every = monitor_interval_override(std::env::var("SBC_BENCH_MONITOR_INTERVAL").ok())
            .unwrap_or(if cfg.quick {
                fast
            } else {
                Duration::from_secs(1)
            });
        (Box::new(Native), Box::new(RealHost), every)
    }
}

/// `SBC_BENCH_MONITOR_INTERVAL=SECONDS`: the monitor's interval during a run, for
/// measuring what the monitor costs the benchmarks beside it (scripts/disturbance.sh,
/// docs/FIDELITY.md). Not an option users need: sbc-bench's comparability assumes the
/// default. Anything but a number from 0.01 to 60 is ignored.
fn monitor_interval_override(v: Option<String>) -> Option<Duration> {
    let s: f64 = v?.trim().parse().ok()?;
    (0.01..=60.0)
        .contains(&s)
        .then(|| Duration::from_secs_f64(s))
}

/// Where the run is stored: the database `--db` (or `SBC_BENCH_DB`) names; else the
/// default one, for a real run on this machine only (a run over a `--sysroot` tree or
/// with canned results describes no real board). `--no-store`: nowhere.
/// Every mode that runs on the engine (run, review, thermal, graph, wrap) stores this way
/// ([`crate::run::drive::drive`]).
pub(crate) fn store_target(
    root: &SysRoot,
    store: &StoreChoice,
    fake_benchmarks: bool,
) -> Option<PathBuf> {
    if store.no_store {
        return None;
    }
    if let Some(db) = &store.db {
        return Some(db.clone());
    }
    if fake_benchmarks || !root.is_host() {
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
    // What the store indexes comes from the report itself, not from its JSON read back.
    let parsed = crate::results::document::from_run(report);
    let log = log.map(|l| l.display().to_string());
    let log_text = crate::report::log::run::log(report);
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
        Ok(
            Inserted::New(id)
            | Inserted::Duplicate(id)
            | Inserted::SameRun(id)
            | Inserted::Upgraded(id),
        ) => {
            println!("Stored as run #{id} in {}", db.display());
        }
        Err(e) => eprintln!("warning: the run was not stored: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_monitor_interval_from_the_environment_is_taken_only_when_sane() {
        let o = |v: &str| monitor_interval_override(Some(v.to_string()));
        assert_eq!(o("0.1"), Some(Duration::from_millis(100)));
        assert_eq!(o(" 2 "), Some(Duration::from_secs(2)));
        assert_eq!(o("0"), None);
        assert_eq!(o("-1"), None);
        assert_eq!(o("NaN"), None);
        assert_eq!(o("1e9"), None);
        assert_eq!(o("fast"), None);
        assert_eq!(monitor_interval_override(None), None);
    }
}
