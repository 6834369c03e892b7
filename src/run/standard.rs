//! The standard run as a mode of the engine: sbc-bench's benchmarks in its order (clock
//! walk, memory bandwidth and latency, AES, 7-Zip, native LZMA, scrypt, the hot clock
//! check), each over the cluster targets, and the only mode with a Results.md row.

use crate::bench::clock::ClockCheck;
use crate::bench::membw::MembwRun;
use crate::bench::memlat::MemlatRun;
use crate::bench::pin::Target;
use crate::bench::{BenchError, Remark};
use crate::output::Outcome;
use crate::record::config::RunConfig;
use crate::record::plan::{Plan, StandardStep};
use crate::record::run::{ClusterCompress, Results, RunReport, StepRecord, StepStatus};
use crate::report::export::{ConsoleSummary, ExportSink, Exporter, Format};
use crate::run::drive::ModeCommand;
use crate::run::exec::{self, CompressKind, Env, Executor};
use crate::run::plan::{PlanInput, groups_by_core_type};
use crate::run::runner::{self, Mode, NotStarted, RunContext, StepScope, Ui};
use crate::sys::root::SysRoot;
use std::path::Path;

/// sbc-bench's standard run.
#[derive(Debug, Default)]
pub struct Standard;

impl Mode for Standard {
    type Step = StandardStep;

    fn plan(&self, cfg: &RunConfig, input: &PlanInput) -> Plan {
        crate::run::plan::plan(cfg, input)
    }

    fn run_step(&mut self, i: usize, kind: StandardStep, s: &mut StepScope<'_, '_>) -> StepRecord {
        let plan = s.run.report.plan.clone();
        let run_start = s.run_start;
        let note =
            |st: &StepStatus| runner::step_note(&plan, i, st, run_start.elapsed().as_secs_f64());
        runner::timed_step(kind.into(), s, &note, &mut |w, report| {
            run_step(kind, w.exec, w.env, w.targets, &mut report.results)
        })
    }

    fn has_results_row(&self) -> bool {
        true
    }
}

/// Run the standard benchmark (see [`runner::execute`]).
pub fn execute(
    ctx: &RunContext<'_>,
    exec: &mut dyn Executor,
    ui: &mut dyn Ui,
) -> Result<RunReport, NotStarted> {
    runner::execute(ctx, &mut Standard, exec, ui)
}

/// Run one step over its targets and store the results.
pub fn run_step(
    kind: StandardStep,
    exec: &mut dyn Executor,
    env: &Env<'_>,
    targets: &[Target],
    results: &mut Results,
) -> StepStatus {
    let mut errors: Vec<String> = Vec::new();
    let e = &mut errors;
    match kind {
        StandardStep::ClockCold => {
            let runs = per_target(exec, env, targets, e, |t| exec::clock(env, t, false));
            results.clock_cold.extend(runs);
        }
        StandardStep::ClockHot => clock_hot(exec, env, targets, e, results),
        StandardStep::MemBandwidth => {
            results
                .membw
                .extend(per_target(exec, env, targets, e, |t| exec::membw(env, t)));
        }
        StandardStep::MemLatency => {
            results
                .memlat
                .extend(per_target(exec, env, targets, e, |t| exec::memlat(env, t)));
        }
        StandardStep::Aes => {
            let (bench, opts) = exec::aes(env, targets);
            match exec::call(exec, env, bench, opts) {
                Ok(r) => {
                    e.extend(failures(&r.errors));
                    results.aes = Some(r);
                }
                Err(err) => e.push(err.to_string()),
            }
        }
        StandardStep::SevenZip | StandardStep::Lzma => {
            compress(kind, exec, env, targets, e, results)
        }
        StandardStep::Scrypt => {
            let (bench, opts) = exec::scrypt(env);
            match exec::call(exec, env, bench, opts) {
                // A stopped stress test is no result in a standard run.
                Ok(s) if s.cancelled => e.push(BenchError::Cancelled.to_string()),
                Ok(s) => {
                    e.extend(s.run.threads.iter().filter_map(|t| {
                        t.error.as_ref().map(|err| format!("cpu{}: {err}", t.cpu))
                    }));
                    results.scrypt = Some(s.run);
                }
                Err(err) => e.push(err.to_string()),
            }
        }
    }
    if errors.is_empty() {
        StepStatus::Ok
    } else {
        StepStatus::Failed(errors.join("; "))
    }
}

/// The remarks of a suite that fail its step (notes do not).
fn failures(errors: &[Remark]) -> impl Iterator<Item = String> + '_ {
    errors
        .iter()
        .filter(|e| e.is_failure())
        .map(Remark::to_string)
}

/// A per-target benchmark's own record of what went wrong.
trait TargetError {
    fn error(&self) -> Option<&String>;
}

impl TargetError for ClockCheck {
    fn error(&self) -> Option<&String> {
        self.error.as_ref()
    }
}

impl TargetError for MembwRun {
    fn error(&self) -> Option<&String> {
        self.error.as_ref()
    }
}

impl TargetError for MemlatRun {
    fn error(&self) -> Option<&String> {
        self.error.as_ref()
    }
}

/// Run one benchmark per target, in order, until cancelled; failures go to `errors`
/// labelled with the target.
fn per_target<'t, B>(
    exec: &mut dyn Executor,
    env: &Env<'_>,
    targets: &'t [Target],
    errors: &mut Vec<String>,
    make: impl Fn(&'t Target) -> (B, B::Options),
) -> Vec<B::Output>
where
    B: exec::Canned,
    B::Output: TargetError,
{
    let mut out = Vec::new();
    for t in targets {
        if env.cancel.is_cancelled() {
            break;
        }
        let (bench, opts) = make(t);
        match exec::call(exec, env, bench, opts) {
            Ok(r) => {
                if let Some(e) = r.error() {
                    errors.push(format!("{}: {e}", t.label()));
                }
                out.push(r);
            }
            Err(e) => errors.push(format!("{}: {e}", t.label())),
        }
    }
    out
}

/// The hot clock check; extensive mode measures every core, not one per cluster.
fn clock_hot(
    exec: &mut dyn Executor,
    env: &Env<'_>,
    targets: &[Target],
    errors: &mut Vec<String>,
    results: &mut Results,
) {
    let all: Vec<Target>;
    let hot_targets = if env.cfg.extensive {
        all = env
            .all_cpus
            .iter()
            .map(|&cpu| Target {
                cpu,
                core_type: env.topo.cpu(cpu).and_then(|c| c.core_type.clone()),
                cluster: env.topo.cpu(cpu).map(|c| c.cluster),
            })
            .collect();
        &all[..]
    } else {
        targets
    };
    let checks = per_target(exec, env, hot_targets, errors, |t| {
        exec::clock(env, t, true)
    });
    for mut c in checks {
        if env.cfg.extensive {
            // One core at a time: the heading names the core, not its cluster.
            c.cluster_cpus = vec![c.target.cpu];
            c.only_cluster = false;
        }
        results.clock_hot.push(c);
    }
}

/// 7-Zip's or the native compression step.
fn compress(
    kind: StandardStep,
    exec: &mut dyn Executor,
    env: &Env<'_>,
    targets: &[Target],
    errors: &mut Vec<String>,
    results: &mut Results,
) {
    let ck = if kind == StandardStep::SevenZip {
        CompressKind::SevenZip
    } else {
        CompressKind::Native
    };
    // Outside extensive mode, native LZMA runs single-threaded only once 7-Zip's
    // multi-threaded runs have measured all cores (about 30 s saved on a 2-core
    // VM); where 7-Zip is missing or failed, the native all-core score stands in.
    let sevenzip_measured_all_cores = kind == StandardStep::Lzma
        && !env.cfg.extensive
        && results
            .sevenzip
            .as_ref()
            .and_then(|c| c.sevenzip.as_ref())
            .is_some_and(|z| !z.multi.is_empty());
    let multi_cpus: &[u32] = if sevenzip_measured_all_cores {
        &[]
    } else {
        env.all_cpus
    };
    let (bench, opts) = exec::compress(env, ck, targets, multi_cpus);
    match exec::call(exec, env, bench, opts) {
        Ok(mut r) => {
            if sevenzip_measured_all_cores {
                r.errors.push(Remark::Note(
                    "native LZMA ran single-threaded only: 7-Zip's multi-threaded \
                     runs measured all cores (--extensive runs both)"
                        .to_string(),
                ));
            }
            errors.extend(failures(&r.errors));
            if kind == StandardStep::SevenZip {
                results.sevenzip = Some(r);
            } else {
                results.lzma = Some(r);
            }
        }
        Err(e) => errors.push(e.to_string()),
    }
    // Extensive mode: multi-threaded on each group of cores of one type alone,
    // with the tool this step is about (sbc-bench's "7-zip cluster benchmarks").
    if env.cfg.extensive {
        for (cpus, core_type) in groups_by_core_type(env.topo, env.all_cpus) {
            if env.cancel.is_cancelled() {
                break;
            }
            let label = crate::sys::cpu_list::format_list(&cpus);
            let (bench, opts) = exec::compress(env, ck, &[], &cpus);
            match exec::call(exec, env, bench, opts) {
                Ok(r) => results.compress_per_cluster.push(ClusterCompress {
                    tool: kind,
                    cpus,
                    core_type,
                    result: r,
                }),
                Err(e) => errors.push(format!("CPUs {label}: {e}")),
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::record::run::RunStatus;
    use crate::report::export::ExportSink;
    use crate::run::exec::{Call, Fake};
    use crate::shutdown::CancellationToken;
    use crate::sys::root::SysRoot;
    use std::fs;
    use std::time::Duration;

    /// Canned results, except that memory bandwidth fails and memory latency may panic.
    struct Failing {
        panic_in_memlat: bool,
    }

    impl Executor for Failing {
        fn run(&mut self, env: &Env<'_>, call: &mut dyn Call) -> Result<(), BenchError> {
            match call.name() {
                "membw" => Err(BenchError::Failed("cannot allocate 64 MiB".to_string())),
                "memlat" => {
                    assert!(!self.panic_in_memlat, "benchmark crashed");
                    Fake.run(env, call)
                }
                _ => Fake.run(env, call),
            }
        }
    }

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

    const GOV: &str = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";

    fn board() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sys/devices/system/cpu/cpufreq/policy0");
        fs::create_dir_all(&p).unwrap();
        for (f, v) in [
            ("scaling_governor", "schedutil"),
            (
                "scaling_available_governors",
                "ondemand performance schedutil",
            ),
            ("related_cpus", "0 1"),
            ("scaling_available_frequencies", "408000 1800000"),
            ("cpuinfo_min_freq", "408000"),
            ("cpuinfo_max_freq", "1800000"),
            ("scaling_min_freq", "408000"),
            ("scaling_max_freq", "1800000"),
        ] {
            fs::write(p.join(f), format!("{v}\n")).unwrap();
        }
        let cpu = d.path().join("sys/devices/system/cpu");
        fs::write(cpu.join("present"), "0-1\n").unwrap();
        fs::write(cpu.join("online"), "0-1\n").unwrap();
        fs::create_dir_all(d.path().join("proc")).unwrap();
        fs::write(
            d.path().join("proc/cpuinfo"),
            "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\nCPU variant\t: 0x2\nCPU revision\t: 0\n\n\
             processor\t: 1\nCPU implementer\t: 0x41\nCPU part\t: 0xd05\nCPU variant\t: 0x2\nCPU revision\t: 0\n",
        )
        .unwrap();
        fs::write(d.path().join("proc/loadavg"), "0.01 0.01 0.01 1/80 1\n").unwrap();
        fs::write(d.path().join("proc/stat"), "cpu 1 0 1 100 0 0 0 0\n").unwrap();
        d
    }

    fn run_with(exec: &mut dyn Executor, root: &SysRoot) -> Result<RunReport, NotStarted> {
        let cfg = RunConfig {
            fake_benchmarks: true,
            unattended: true,
            ..Default::default()
        };
        let token = CancellationToken::new();
        let ctx = RunContext {
            root,
            cfg: &cfg,
            cancel: &token,
            sink: &ExportSink::new(),
            host: &crate::run::host::CannedHost,
            monitor_interval: Duration::from_millis(50),
        };
        execute(&ctx, exec, &mut Quiet)
    }

    #[test]
    fn a_failing_benchmark_is_recorded_the_run_goes_on_and_governors_come_back() {
        let d = board();
        let root = SysRoot::new(d.path());
        let r = run_with(
            &mut Failing {
                panic_in_memlat: false,
            },
            &root,
        )
        .unwrap();
        assert_eq!(
            fs::read_to_string(d.path().join(GOV)).unwrap().trim(),
            "schedutil"
        );
        assert_eq!(r.tuning[0].outcome, Ok("performance".to_string()));
        let bw = r
            .steps
            .iter()
            .find(|s| s.kind == StandardStep::MemBandwidth)
            .unwrap();
        assert!(matches!(&bw.status, StepStatus::Failed(e) if e.contains("cannot allocate")));
        // The steps after the failed one still ran.
        assert!(r.steps.iter().any(|s| s.kind == StandardStep::ClockHot));
        assert!(r.results.aes.is_some());
        assert!(r.findings.iter().any(|f| f.code == "benchmark-failed"));
        assert_eq!(r.status, RunStatus::Complete);
    }

    #[test]
    fn a_crashing_benchmark_still_restores_governors() {
        let d = board();
        let root = SysRoot::new(d.path());
        let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_with(
                &mut Failing {
                    panic_in_memlat: true,
                },
                &root,
            )
        }));
        assert!(res.is_err(), "the benchmark panicked");
        assert_eq!(
            fs::read_to_string(d.path().join(GOV)).unwrap().trim(),
            "schedutil"
        );
    }
}

/// The standard run's part of the lifecycle (`run::drive`): its summary and its report
/// page.
#[derive(Debug, Default)]
pub struct StandardCommand(Standard);

impl ModeCommand for StandardCommand {
    type Mode = Standard;
    type Options = ();

    fn prepare(_root: &SysRoot, _cfg: &RunConfig, (): ()) -> anyhow::Result<Result<Self, Outcome>> {
        Ok(Ok(Self(Standard)))
    }

    fn mode(&mut self) -> &mut Standard {
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
            color: crate::output::color(),
        };
        print!("{}", String::from_utf8_lossy(&summary.render(report)));
    }

    fn before_store(&self, report: &RunReport, sink: &ExportSink, db: Option<&Path>) {
        // Beside a regular log file only: never `/dev/null.html` in /dev.
        if let Some(log) = sink.regular_file(Format::Log) {
            crate::run::page::write_beside_log(report, log, db);
        }
    }
}
