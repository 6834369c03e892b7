//! The export sink during a run: a run stopped after step k keeps a log (and JSON) of the
//! k finished steps, since every target is rewritten after every step; and the run's
//! exit status.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::output::Outcome;
use crate::record::config::RunConfig;
use crate::record::run::RunStatus;
use crate::report::export::{ExportSink, Format};
use crate::run::exec::Fake;
use crate::run::host::CannedHost;
use crate::run::runner::{RunContext, RunError, Ui, execute, outcome};
use crate::shutdown::CancellationToken;
use crate::sys::root::SysRoot;

/// Reads the log when step `at + 1` starts (what a kill at that moment would leave),
/// then cancels the run.
struct StopAfter<'a> {
    at: usize,
    started: usize,
    log: PathBuf,
    token: &'a CancellationToken,
    seen: Option<String>,
}

impl Ui for StopAfter<'_> {
    fn line(&mut self, _s: &str) {}
    fn step_started(&mut self, _what: &str) -> Box<dyn Fn(f64) + Sync> {
        self.started += 1;
        if self.started == self.at + 1 {
            self.seen = std::fs::read_to_string(&self.log).ok();
            self.token.cancel();
        }
        Box::new(|_| {})
    }
    fn step_done(&mut self, _what: &str, _note: &str) {}
    fn confirm(&mut self, _warning: &str) -> bool {
        true
    }
}

fn x86_vm() -> SysRoot {
    SysRoot::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysroots/x86-vm"))
}

#[test]
fn a_run_stopped_after_step_k_keeps_the_log_of_the_finished_steps() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("sbc-bench.log");
    let json = d.path().join("run.json");
    let mut sink = ExportSink::new();
    sink.add(Format::Log, &log).unwrap();
    sink.add(Format::Json, &json).unwrap();
    let cfg = RunConfig {
        fake_benchmarks: true,
        unattended: true,
        ..Default::default()
    };
    let token = CancellationToken::new();
    let root = x86_vm();
    let ctx = RunContext {
        root: &root,
        cfg: &cfg,
        cancel: &token,
        sink: &sink,
        host: &CannedHost,
        monitor_interval: Duration::from_millis(50),
    };
    // Clock, memory bandwidth and memory latency finished; AES is about to start.
    let mut ui = StopAfter {
        at: 3,
        started: 0,
        log: log.clone(),
        token: &token,
        seen: None,
    };
    let report = execute(&ctx, &mut Fake, &mut ui).unwrap();
    let mid = ui.seen.expect("the log exists after three steps");
    assert!(mid.starts_with("sbc-bench v"), "{mid}");
    assert!(mid.contains("Checking cpufreq OPP"), "clock section");
    assert!(
        mid.contains("Executing ramlat on cpu0"),
        "memory latency section"
    );
    assert!(
        !mid.contains("Executing benchmark on each cluster individually"),
        "no AES yet"
    );
    assert!(
        !mid.trim_end()
            .lines()
            .last()
            .unwrap_or_default()
            .starts_with("| "),
        "no Results.md row while running"
    );

    // Cancelled while AES started: the final log says so and has no Results.md row.
    assert_eq!(report.status, RunStatus::Interrupted);
    let end = std::fs::read_to_string(&log).unwrap();
    assert!(end.contains("Executing ramlat on cpu0"));
    assert!(
        end.trim_end()
            .ends_with("The run was interrupted: no Results.md row for incomplete results.")
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["status"], "interrupted");

    // Its exit status comes from the signal that stopped it.
    let result = Ok(report);
    assert_eq!(outcome(&result, Some(15)), Outcome::Interrupted(15));
    assert_eq!(outcome(&result, None), Outcome::Interrupted(2));
}

#[test]
fn the_run_s_exit_status_is_decided_in_one_place() {
    assert_eq!(
        outcome(&Err(RunError::Stopped), Some(15)),
        Outcome::Interrupted(15),
        "stopped by TERM before benchmarking: 143"
    );
    assert_eq!(
        outcome(&Err(RunError::Stopped), None),
        Outcome::Interrupted(2),
        "a prompt answered no: 130, as sbc-bench"
    );
    let busy = RunError::TooBusy {
        waited_s: 1.0,
        load1: 2.0,
        cpu_pct: 50.0,
    };
    assert_eq!(outcome(&Err(busy), None), Outcome::Failed);
}
