//! The export sink during a run: a run stopped after step k keeps a log (and JSON) of the
//! k finished steps, since every target is rewritten after every step, and the default
//! log keeps the earlier runs whenever it is killed; the run's exit status; what the
//! console and the log say about a missing 7-Zip or one other than 16.02.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::output::Outcome;
use crate::record::config::RunConfig;
use crate::record::finding::{FindingCode, Severity};
use crate::record::run::{RunReport, RunStatus};
use crate::report::export::{ExportSink, Format};
use crate::run::exec::Fake;
use crate::run::host::{CannedHost, Host, Tools};
use crate::run::runner::{NotStarted, RunContext, Ui, outcome};
use crate::run::standard::execute;
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
        outcome(&Err(NotStarted::Stopped), Some(15)),
        Outcome::Interrupted(15),
        "stopped by TERM before benchmarking: 143"
    );
    assert_eq!(
        outcome(&Err(NotStarted::Stopped), None),
        Outcome::Interrupted(2),
        "a prompt answered no: 130, as sbc-bench"
    );
    let busy = NotStarted::TooBusy {
        waited_s: 1.0,
        load1: 2.0,
        cpu_pct: 50.0,
        busiest: None,
    };
    assert_eq!(outcome(&Err(busy), None), Outcome::Failed);
}

/// Says nothing, asks nothing.
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

/// [`CannedHost`] on a machine without 7-Zip.
struct WithoutSevenZip;

impl Host for WithoutSevenZip {
    fn wait_for_idle(
        &self,
        root: &SysRoot,
        cfg: &RunConfig,
        cancel: &CancellationToken,
        say: &mut dyn FnMut(&str),
    ) -> (crate::run::preflight::IdleOutcome, f64) {
        CannedHost.wait_for_idle(root, cfg, cancel, say)
    }
    fn allowed_cpus(&self, root: &SysRoot) -> Vec<u32> {
        CannedHost.allowed_cpus(root)
    }
    fn tools(&self, _cancel: &CancellationToken) -> Tools {
        Tools {
            sevenzip: false,
            openssl: false,
        }
    }
}

fn fake_cfg() -> RunConfig {
    RunConfig {
        fake_benchmarks: true,
        unattended: true,
        ..Default::default()
    }
}

/// A whole fake run over the x86 VM's tree into `sink`.
fn fake_run(host: &dyn Host, cfg: &RunConfig, sink: &ExportSink, ui: &mut dyn Ui) -> RunReport {
    let token = CancellationToken::new();
    let root = x86_vm();
    let ctx = RunContext {
        root: &root,
        cfg,
        cancel: &token,
        sink,
        host,
        monitor_interval: Duration::from_millis(50),
    };
    execute(&ctx, &mut Fake, ui).unwrap()
}

#[test]
fn missing_7zip_says_so_with_install_hint() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("sbc-bench.log");
    let mut sink = ExportSink::new();
    sink.add(Format::Log, &log).unwrap();
    let r = fake_run(&WithoutSevenZip, &fake_cfg(), &sink, &mut Quiet);
    let console = crate::report::log::run::console_summary(&r, None, false);
    let text = std::fs::read_to_string(&log).unwrap();
    for out in [&console, &text] {
        assert_eq!(
            out.matches("7-Zip is not installed, so").count(),
            1,
            "{out}"
        );
        assert_eq!(out.matches("apt install p7zip-full").count(), 1);
        assert!(out.contains("Only 7-Zip 16.02 compares with the published table"));
    }
    let f = r
        .findings
        .iter()
        .find(|f| f.code == FindingCode::SevenZipVersion)
        .unwrap();
    assert_eq!(f.severity, Severity::Warning);
    // The row's 7-zip columns are the dashes the note explains.
    let row = r.results_row.as_ref().unwrap().render();
    let cols: Vec<&str> = row.split(" | ").collect();
    assert_eq!((cols[4], cols[5]), ("-", "-"), "{row}");

    // With 7-Zip there is nothing to say, and NotReadyYet=yes skips it anyway.
    let r = fake_run(&CannedHost, &fake_cfg(), &sink, &mut Quiet);
    assert!(
        !r.findings
            .iter()
            .any(|f| f.code == FindingCode::SevenZipVersion)
    );
    let not_ready = RunConfig {
        not_ready_yet: true,
        ..fake_cfg()
    };
    let r = fake_run(&WithoutSevenZip, &not_ready, &sink, &mut Quiet);
    assert!(
        !r.findings
            .iter()
            .any(|f| f.code == FindingCode::SevenZipVersion)
    );
}

#[test]
fn native_lzma_never_fills_the_7zip_columns() {
    // Without 7-Zip the native LZMA score stands in for the run (all cores too), yet the
    // row's 7-zip columns stay `-` and the log gives its ratings as native ones.
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("sbc-bench.log");
    let mut sink = ExportSink::new();
    sink.add(Format::Log, &log).unwrap();
    let r = fake_run(&WithoutSevenZip, &fake_cfg(), &sink, &mut Quiet);
    let native = r.results.lzma.as_ref().expect("native LZMA ran");
    let single = &native
        .native_single
        .first()
        .expect("single-threaded")
        .result;
    assert!(single.compress_rating_mips > 0.0 && single.decompress_rating_mips > 0.0);
    assert!(r.results.sevenzip.is_none());
    let row = r.results_row.as_ref().unwrap();
    assert_eq!((row.sevenzip_multi, row.sevenzip_single), (None, None));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("Native LZMA benchmark (") && text.contains("our own score, not 7-Zip's"),
        "{text}"
    );
    assert!(!text.contains("7-zip total score"), "{text}");
    assert!(text.contains("native LZMA total score"), "{text}");
}

#[test]
fn sevenzip_not_16_02_warns_once_about_comparability() {
    let d = tempfile::tempdir().unwrap();
    let mut sink = ExportSink::new();
    sink.add(Format::Log, &d.path().join("sbc-bench.log"))
        .unwrap();
    let mut r = fake_run(&CannedHost, &fake_cfg(), &sink, &mut Quiet);
    // Debian 12's p7zip-full: p7zip 16.02 around a 26.02 engine (docs/FIDELITY.md).
    let z = r
        .results
        .sevenzip
        .as_mut()
        .and_then(|c| c.sevenzip.as_mut())
        .unwrap();
    z.version.engine = Some("26.02".into());
    z.warning = z.version.warning();
    assert!(z.warning.is_some());
    // Validation judges the changed results as it judges a run's.
    let online = r.system_before.topology.online();
    let found = crate::diagnose::run_validation::findings(
        &r,
        r.monitor.as_ref(),
        &Default::default(),
        &Default::default(),
        &online,
        &online,
    );
    r.findings.extend(
        found
            .into_iter()
            .filter(|f| f.code == FindingCode::SevenZipVersion),
    );
    let console = crate::report::log::run::console_summary(&r, None, false);
    let text = crate::report::log::run::log(&r);
    for out in [&console, &text] {
        assert_eq!(out.matches("not comparable").count(), 1, "{out}");
        assert_eq!(
            out.matches("7-Zip 26.02 used, not 16.02: the Results.md row's 7-zip columns are not comparable with the published table").count(),
            1
        );
    }
    // The 7-Zip section still names the binary that ran.
    assert!(text.contains("7-Zip: 7-Zip"), "banner line kept");
}

#[test]
fn default_log_appends_with_separator() {
    use crate::report::export::RUN_SEPARATOR;
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("sbc-bench.log");
    // The first run into a log that does not exist yet: no separator before it.
    let mut sink = ExportSink::new();
    sink.add_appending(Format::Log, &log).unwrap();
    let first_report = fake_run(&CannedHost, &fake_cfg(), &sink, &mut Quiet);
    let first = std::fs::read_to_string(&log).unwrap();
    assert!(first.starts_with("sbc-bench v"), "{first}");
    assert_eq!(first, crate::report::log::run::log(&first_report));

    // A second run, killed after three steps: what a kill leaves at any moment holds
    // the first run byte for byte, sbc-bench's separator, then what the second did.
    let mut sink = ExportSink::new();
    sink.add_appending(Format::Log, &log).unwrap();
    let token = CancellationToken::new();
    let root = x86_vm();
    let cfg = fake_cfg();
    let ctx = RunContext {
        root: &root,
        cfg: &cfg,
        cancel: &token,
        sink: &sink,
        host: &CannedHost,
        monitor_interval: Duration::from_millis(50),
    };
    let mut ui = StopAfter {
        at: 3,
        started: 0,
        log: log.clone(),
        token: &token,
        seen: None,
    };
    let second_report = execute(&ctx, &mut Fake, &mut ui).unwrap();
    let mid = ui.seen.expect("the log exists mid-run");
    let head = format!("{first}{RUN_SEPARATOR}");
    assert!(
        head.ends_with("|\n\n\n\n\n"),
        "four empty lines after the row"
    );
    assert!(mid.starts_with(&head), "earlier run kept mid-run");
    assert!(mid[head.len()..].starts_with("sbc-bench v"));
    assert!(mid[head.len()..].contains("Executing ramlat on cpu0"));
    let end = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        end,
        format!("{head}{}", crate::report::log::run::log(&second_report))
    );
    let runs = end.lines().filter(|l| l.starts_with("sbc-bench v")).count();
    assert_eq!(runs, 2);
}

#[test]
fn explicit_log_file_holds_one_run() {
    let d = tempfile::tempdir().unwrap();
    let log = d.path().join("mine.log");
    std::fs::write(
        &log,
        "sbc-bench v0.9.72 earlier (Mon, 1 Jan 2024)\n| earlier |\n",
    )
    .unwrap();
    let mut sink = ExportSink::new();
    sink.add(Format::Log, &log).unwrap();
    let r = fake_run(&CannedHost, &fake_cfg(), &sink, &mut Quiet);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        crate::report::log::run::log(&r)
    );
}

/// Only the default log keeps the earlier runs (`--log FILE` holds this run alone).
mod default_log {
    use crate::record::config::RunConfig;
    use crate::record::run::RunReport;
    use crate::report::export::RUN_SEPARATOR;
    use crate::report::export::{ExportSink, run_sink};
    use crate::run::exec::Fake;
    use crate::run::host::CannedHost;
    use crate::run::runner::{RunContext, Ui};
    use crate::shutdown;
    use crate::sys::root::SysRoot;
    use std::path::Path;
    use std::time::Duration;

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
        let r = fake_run(&cfg, &run_sink(&cfg, false, false).unwrap());
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            format!(
                "{earlier}{RUN_SEPARATOR}{}",
                crate::report::log::run::log(&r)
            )
        );
        // --log FILE: this run alone.
        let r = fake_run(&cfg, &run_sink(&cfg, true, false).unwrap());
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            crate::report::log::run::log(&r)
        );
    }
}
