//! The standard run in four phases: preflight (nothing changed yet), tune (governors to
//! `performance`, the plan, the report opened), steps (each benchmark while the monitor
//! records) and finish (restore, look again, validate). The export sink (log, JSON) is
//! rewritten after every step, so a crash or Ctrl-C late in a 30-minute run keeps
//! everything measured so far.

use crate::record::finding::FindingCode;
use std::time::{Duration, Instant};

use crate::bench::clock::ClockCheck;
use crate::bench::membw::MembwRun;
use crate::bench::memlat::MemlatRun;
use crate::bench::pin::{self, Target};
use crate::bench::{BenchError, Remark};
use crate::diagnose::throttle;
use crate::diagnose::{self, Finding, validate};
use crate::monitor::{Monitor, MonitorConfig, MonitorHandle, Recording, SampleSpec, Setup};
use crate::output::Outcome;
use crate::record::config::RunConfig;
use crate::record::plan::{Plan, StepKind, format_duration, format_estimate};
use crate::record::run::{
    ClusterCompress, Preflight, Results, RunReport, RunStatus, SCHEMA, SCHEMA_VERSION, StepRecord,
    StepStatus,
};
use crate::record::throttle::OppResidency;
use crate::report::export::ExportSink;
use crate::run::exec::{self, CompressKind, Env, Executor};
use crate::run::host::Host;
use crate::run::plan::{self, PlanInput};
use crate::run::preflight::{self, IdleOutcome};
use crate::run::tuning;
use crate::shutdown::CancellationToken;
use crate::sys::cpu::Topology;
use crate::sys::cpufreq::{self, Policy};
use crate::sys::discover::SystemInfo;
use crate::sys::kmsg;
use crate::sys::root::SysRoot;
use crate::tune::Tuning;

/// How the run talks to the user. The console prints; tests record.
pub trait Ui {
    /// A full line of text.
    fn line(&mut self, s: &str);
    /// A step begins (`Executing memory bandwidth benchmark`); returns a progress callback
    /// taking 0.0..=1.0.
    fn step_started(&mut self, what: &str) -> Box<dyn Fn(f64) + Sync>;
    /// The steps ahead, once before the first starts (a progress bar's `step 2/7` and
    /// the time left).
    fn planned(&mut self, _plan: &Plan) {}
    /// The step ended; `note` is appended after `Done` (`(results will be available in …)`).
    fn step_done(&mut self, what: &str, note: &str);
    /// sbc-bench's "Press [ctrl]-[c] to stop or [enter] to continue." — `false` stops.
    fn confirm(&mut self, warning: &str) -> bool;
    /// A line that replaces the previous one on a terminal (the thermal test's current
    /// temperature every 2 s); a plain line elsewhere.
    fn status(&mut self, s: &str) {
        self.line(s);
    }
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The machine never became idle within `--max-wait`.
    #[error(
        "the system did not become idle within {waited_s:.0} s (load {load1:.2}, cpu {cpu_pct:.1}%); benchmark results would not be meaningful. Stop the background activity or raise --max-wait"
    )]
    TooBusy {
        /// Seconds waited.
        waited_s: f64,
        /// Last 1-minute load.
        load1: f64,
        /// Average utilisation over the last 30 s.
        cpu_pct: f64,
    },
    /// The user stopped at a prompt or pressed Ctrl-C before benchmarks began.
    #[error("stopped before benchmarking")]
    Stopped,
}

pub(crate) fn now_rfc3339() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

/// Facts for the plan.
pub fn plan_input(
    root: &SysRoot,
    topo: &Topology,
    policies: &[Policy],
    has_7z: bool,
    has_openssl: bool,
) -> PlanInput {
    let walk = crate::bench::clock::walk_permission(root).is_ok();
    let w = crate::bench::clock::WalkOptions::default();
    let opps = if walk {
        topo.clusters
            .iter()
            .filter_map(|c| c.policy)
            .filter_map(|id| policies.iter().find(|p| p.id == id))
            .map(|p| crate::bench::clock::opps_to_check(p, &w).len())
            .sum()
    } else {
        0
    };
    let usable: Vec<u32> = topo.online();
    PlanInput {
        core_type_groups: groups_by_core_type(topo, &usable).len(),
        clusters: topo.clusters.len(),
        cpus: topo.online().len(),
        opps_to_walk: opps,
        sevenzip: has_7z,
        openssl: has_openssl,
    }
}

pub(crate) fn time_in_state(root: &SysRoot, policies: &[Policy]) -> Vec<(u32, Vec<(u64, u64)>)> {
    policies
        .iter()
        .filter_map(|p| {
            let t = root.read_opt(cpufreq::policy_attr(p.id, "stats/time_in_state"))?;
            Some((p.id, cpufreq::parse_time_in_state(&t)))
        })
        .collect()
}

fn vmstat_swap(root: &SysRoot) -> (Option<u64>, Option<u64>) {
    let Some(t) = root.read_opt("/proc/vmstat") else {
        return (None, None);
    };
    let get = |k: &str| {
        t.lines()
            .find_map(|l| l.strip_prefix(k)?.trim().parse::<u64>().ok())
    };
    (get("pswpin "), get("pswpout "))
}

fn swap_state(root: &SysRoot, info: &SystemInfo) -> validate::SwapState {
    use crate::sys::memory::{StorageKind, SwapKind};
    let m = &info.memory;
    let (pswpin, pswpout) = vmstat_swap(root);
    validate::SwapState {
        used_kib: m.swaps.iter().map(|s| s.entry.used_kib).sum(),
        pswpin,
        pswpout,
        zram_only: !m.swaps.is_empty() && m.swaps.iter().all(|s| s.swap_kind == SwapKind::Zram),
        on_sd_card: m
            .swaps
            .iter()
            .any(|s| s.backing.as_ref().and_then(|b| b.storage) == Some(StorageKind::Sd)),
        zswap_enabled: m.zswap.as_ref().and_then(|z| z.enabled) == Some(true),
        has_zram: m.swaps.iter().any(|s| s.swap_kind == SwapKind::Zram),
        configured: !m.swaps.is_empty(),
    }
}

/// Everything the run needs besides the benchmarks.
pub struct RunContext<'a> {
    /// Where to read (and tune) the system.
    pub root: &'a SysRoot,
    /// Settings.
    pub cfg: &'a RunConfig,
    /// Stop early when set (the process token in production).
    pub cancel: &'a CancellationToken,
    /// The output files, rewritten after every step.
    pub sink: &'a ExportSink,
    /// The machine: idle wait, usable CPUs, tools installed.
    pub host: &'a dyn Host,
    /// Monitor sampling interval.
    pub monitor_interval: Duration,
}

/// Run the standard benchmark: preflight, tune, the steps while the monitor records,
/// then restore and validate. The sink is written once the machine is tuned and after
/// every step.
pub fn execute(
    ctx: &RunContext<'_>,
    exec: &mut dyn Executor,
    ui: &mut dyn Ui,
) -> Result<RunReport, RunError> {
    let started = now_rfc3339();
    let pre = preflight(ctx, ui)?;
    let mut run = tune(ctx, started, pre);
    ctx.sink.write(&run.report);
    let recording = steps(ctx, &mut run, exec, ui);
    Ok(finish(ctx, run, recording))
}

/// How a run ended, as the process sees it: stopped before benchmarking 128 + `signal`
/// (Ctrl-C 130 as sbc-bench, TERM 143, HUP 129 while waiting for idle), 130 for a prompt
/// answered no; interrupted by `signal` 128 + signal; finished with results validation does not trust 3; else 0. A machine that never
/// became idle is an error (1).
pub fn outcome(result: &Result<RunReport, RunError>, signal: Option<i32>) -> Outcome {
    match result {
        Err(RunError::Stopped) => Outcome::Interrupted(signal.unwrap_or(2)),
        Err(RunError::TooBusy { .. }) => Outcome::Failed,
        Ok(r) if r.status == RunStatus::Interrupted => Outcome::Interrupted(signal.unwrap_or(2)),
        Ok(r) if diagnose::any_invalid(&r.findings) => Outcome::Untrusted,
        Ok(_) => Outcome::Ok,
    }
}

/// What preflight found, and where the kernel log stood before the run.
pub(crate) struct Checked {
    preflight: Preflight,
    /// Sequence number of the last kernel message before the run.
    last_seq: Option<u64>,
}

/// Phase 1: root, kernel log, offline cores, idle wait. Stops before anything changes.
pub(crate) fn preflight(ctx: &RunContext<'_>, ui: &mut dyn Ui) -> Result<Checked, RunError> {
    let root = ctx.root;
    let mut pre = Preflight {
        root: preflight::is_root(),
        ..Default::default()
    };
    if !pre.root && root.is_host() {
        ui.line("WARNING: not running as root: governors stay as they are and cpufreq OPPs cannot be checked.");
    }
    let kmsg_start = kmsg::read(root);
    pre.early_boot_in_dmesg = kmsg_start.as_deref().map(kmsg::has_early_boot);
    let last_seq = kmsg_start.as_ref().and_then(|r| r.last()).map(|r| r.seq);
    if pre.early_boot_in_dmesg == Some(false)
        && !ui.confirm(
            "WARNING: dmesg output does not contain early boot messages which\nhelp in identifying hardware details.\nIt is recommended to reboot now and then execute the benchmarks.",
        )
    {
        return Err(RunError::Stopped);
    }
    confirm_offline_cores(root, ui)?;
    let (outcome, waited_s) = ctx
        .host
        .wait_for_idle(root, ctx.cfg, ctx.cancel, &mut |l| ui.line(l));
    pre.idle_wait_s = waited_s;
    match outcome {
        IdleOutcome::Idle(_) => {}
        IdleOutcome::Cancelled => return Err(RunError::Stopped),
        IdleOutcome::GaveUp {
            waited,
            cpu_pct,
            load1,
        } => {
            return Err(RunError::TooBusy {
                waited_s: waited.as_secs_f64(),
                load1,
                cpu_pct,
            });
        }
    }
    pre.uptime = Some(preflight::uptime_line(root, chrono::Local::now()));
    Ok(Checked {
        preflight: pre,
        last_seq,
    })
}

/// sbc-bench warns about offline cores before anything else (and asks, when
/// interactive): per-cluster results then miss cores.
fn confirm_offline_cores(root: &SysRoot, ui: &mut dyn Ui) -> Result<(), RunError> {
    let topo_now = crate::sys::cpu::read(root).1;
    let offline: Vec<u32> = topo_now
        .cpus
        .iter()
        .filter(|c| !c.online)
        .map(|c| c.cpu)
        .collect();
    if !offline.is_empty()
        && !ui.confirm(&format!(
            "WARNING: One or more CPU cores are offline: {}\n",
            crate::sys::cpu::list::format_list(&offline)
        ))
    {
        return Err(RunError::Stopped);
    }
    Ok(())
}

/// A tuned machine, ready for the steps: the report so far, the facts the steps and
/// the final comparison need, and the guard that puts governors back.
pub(crate) struct Running {
    pub(crate) report: RunReport,
    /// Clocks as tuned.
    pub(crate) policies: Vec<Policy>,
    pub(crate) topo: Topology,
    pub(crate) targets: Vec<Target>,
    /// Online CPUs the benchmarks may use (never empty).
    pub(crate) all_cpus: Vec<u32>,
    pub(crate) tuning: Tuning,
    pub(crate) tis_before: Vec<(u32, Vec<(u64, u64)>)>,
    pub(crate) online_before: Vec<u32>,
    pub(crate) swap_before: validate::SwapState,
    pub(crate) last_seq: Option<u64>,
}

/// Phase 2: look at the machine, tune it, plan the steps, open the report.
pub(crate) fn tune(ctx: &RunContext<'_>, started: String, checked: Checked) -> Running {
    tune_with(ctx, started, checked, &mut |t, g| {
        tuning::set_performance(t, g)
    })
}

/// [`tune`] with the mode's own way to tune (review mode: everything to powersave, then
/// to performance, ASPM too); not called with `NOTUNING=yes`.
pub(crate) fn tune_with(
    ctx: &RunContext<'_>,
    started: String,
    checked: Checked,
    set: &mut dyn FnMut(
        &Tuning,
        &[crate::record::tuning::Governor],
    ) -> Vec<crate::record::tuning::Tuned>,
) -> Running {
    let (root, cfg) = (ctx.root, ctx.cfg);
    let system_before = SystemInfo::read(root);
    let topo = system_before.topology.clone();
    let governors_before = tuning::read_governors(root, &system_before.cpufreq);
    let tuning_guard = Tuning::new(root);
    let tuned = if cfg.no_tuning || crate::run::thermal::keeps_governors(cfg) {
        Vec::new()
    } else {
        set(&tuning_guard, &governors_before)
    };
    // Clocks as tuned, for the OPP walk and the report.
    let policies = cpufreq::read_policies(root);
    let tools = ctx.host.tools(ctx.cancel);
    let plan: Plan = plan::plan(
        cfg,
        &plan_input(root, &topo, &policies, tools.sevenzip, tools.openssl),
    );
    let allowed = ctx.host.allowed_cpus(root);
    let (targets, skipped) = pin::targets(&topo, None, &allowed);
    let mut all_cpus: Vec<u32> = topo
        .online()
        .into_iter()
        .filter(|c| allowed.is_empty() || allowed.contains(c))
        .collect();
    if all_cpus.is_empty() {
        all_cpus = vec![0];
    }
    let report = RunReport {
        schema: SCHEMA,
        schema_version: SCHEMA_VERSION,
        sbc_bench_version: env!("CARGO_PKG_VERSION").to_string(),
        status: RunStatus::Running,
        started,
        finished: None,
        config: cfg.clone(),
        plan,
        system_before,
        system_after: None,
        preflight: checked.preflight,
        governors_before,
        tuning: tuned,
        steps: Vec::new(),
        results: Results {
            skipped_cpus: skipped,
            ..Default::default()
        },
        monitor: None,
        throttling: Vec::new(),
        pi_throttled_before: crate::bench::external::vcgencmd::pi_throttled(root),
        pi_throttled_after: None,
        kernel_log: Vec::new(),
        findings: Vec::new(),
        results_row: None,
        power: None,
        review: None,
        wrap: None,
    };
    Running {
        tis_before: time_in_state(root, &policies),
        online_before: topo.online(),
        swap_before: swap_state(root, &report.system_before),
        last_seq: checked.last_seq,
        report,
        policies,
        topo,
        targets,
        all_cpus,
        tuning: tuning_guard,
    }
}

/// Phase 3: every planned step while the monitor records; the report and its files are
/// brought up to date after each. Returns the monitor's recording.
pub(crate) fn steps(
    ctx: &RunContext<'_>,
    run: &mut Running,
    exec: &mut dyn Executor,
    ui: &mut dyn Ui,
) -> Option<Recording> {
    let setup = Setup::discover(ctx.root, true);
    let mut mcfg = MonitorConfig::every(ctx.monitor_interval);
    mcfg.spec = SampleSpec::full();
    // Process snapshots at phase boundaries name what else ran (background findings).
    mcfg.spec.processes = true;
    let monitor: Option<MonitorHandle> = Monitor::start(ctx.root, &setup, mcfg).ok();
    let run_start = Instant::now();
    let plan = run.report.plan.clone();
    ui.planned(&plan);
    for (i, step) in plan.steps.iter().enumerate() {
        if ctx.cancel.is_cancelled() {
            break;
        }
        let progress = ui.step_started(step.kind.progress());
        if let Some(m) = &monitor {
            m.mark(step.kind.phase());
        }
        let t0 = Instant::now();
        let step_started = now_rfc3339();
        let env = Env {
            root: ctx.root,
            cfg: ctx.cfg,
            policies: &run.policies,
            topo: &run.topo,
            cancel: ctx.cancel,
            progress: &*progress,
            all_cpus: &run.all_cpus,
        };
        let status = if crate::run::thermal::handles(step.kind) {
            let r = &mut run.report.results;
            crate::run::thermal::step(step.kind, exec, &env, &run.targets, r, ui)
        } else {
            run_step(step.kind, exec, &env, &run.targets, &mut run.report.results)
        };
        if let Some(m) = &monitor {
            m.end_phase();
        }
        let status = if ctx.cancel.is_cancelled() {
            StepStatus::Cancelled
        } else {
            status
        };
        let note = step_note(&plan, i, &status, run_start.elapsed().as_secs_f64());
        run.report.steps.push(StepRecord {
            kind: step.kind,
            started: step_started,
            ended: now_rfc3339(),
            duration_s: t0.elapsed().as_secs_f64(),
            status,
        });
        ui.step_done(step.kind.progress(), &note);
        if let Some(m) = &monitor {
            run.report.monitor = Some(m.snapshot());
        }
        ctx.sink.write(&run.report);
    }
    monitor.map(MonitorHandle::stop)
}

/// What follows `Done` on a step's line: the estimate after the first step, the time
/// taken after the last, or why it failed.
fn step_note(plan: &Plan, i: usize, status: &StepStatus, elapsed_s: f64) -> String {
    let remaining = || {
        let (lo, hi) = plan.remaining_after_first_s();
        format_estimate(lo, hi)
    };
    let more = plan.steps.len() > 1;
    match (status, i) {
        // The estimate still matters when the first step partly failed.
        (StepStatus::Failed(e), 0) if more => {
            format!(
                " (results will be available in {}; failed: {e})",
                remaining()
            )
        }
        (StepStatus::Failed(e), _) => format!(" (failed: {e})"),
        (StepStatus::Cancelled, _) => " (interrupted)".to_string(),
        (StepStatus::Ok, 0) if more => format!(" (results will be available in {})", remaining()),
        (StepStatus::Ok, n) if n + 1 == plan.steps.len() => {
            format!(" ({} elapsed)", format_duration(elapsed_s))
        }
        _ => String::new(),
    }
}

/// Phase 4: restore, look again, validate, and write the final report.
pub(crate) fn finish(
    ctx: &RunContext<'_>,
    run: Running,
    recording: Option<Recording>,
) -> RunReport {
    let root = ctx.root;
    let Running {
        mut report,
        policies,
        topo,
        tuning,
        tis_before,
        online_before,
        swap_before,
        last_seq,
        ..
    } = run;
    for e in tuning.restore() {
        report.findings.push(Finding::new(
            FindingCode::RestoreFailed,
            diagnose::Severity::Warning,
            e.to_string(),
        ));
    }
    drop(tuning);
    let system_after = SystemInfo::read(root);
    report.throttling = residency(
        &tis_before,
        &time_in_state(root, &policies),
        &policies,
        &topo,
    );
    report.kernel_log = kmsg::read(root)
        .unwrap_or_default()
        .into_iter()
        .filter(|r| last_seq.is_none_or(|s| r.seq > s))
        .collect();
    report.pi_throttled_after = crate::bench::external::vcgencmd::pi_throttled(root);
    let swap_after = swap_state(root, &system_after);
    let online_after = system_after.topology.online();
    report
        .findings
        .extend(crate::diagnose::run_validation::findings(
            &report,
            recording.as_ref(),
            &swap_before,
            &swap_after,
            &online_before,
            &online_after,
        ));
    report.findings.extend(setup_findings(&report));
    report
        .findings
        .extend(crate::run::thermal::findings(&report));
    report.system_after = Some(system_after);
    report.monitor = recording;
    // Review mode's waiting phase ends with Ctrl-C or SIGTERM: its normal stop.
    let planned_stop = report.review.as_ref().is_some_and(|v| v.waiting.is_some());
    report.status = if ctx.cancel.is_cancelled() && !planned_stop {
        RunStatus::Interrupted
    } else {
        RunStatus::Complete
    };
    // An interrupted run has no Results.md row: a partial one would look paste-ready.
    // The thermal test and the efficiency graph measure no Results.md row (sbc-bench -g
    // prints none); review mode has none either, as sbc-bench; `wrap` runs other tools.
    report.results_row = (report.status == RunStatus::Complete
        && report.config.thermal.is_none()
        && report.config.graph.is_none()
        && report.review.is_none()
        && report.wrap.is_none())
    .then(|| crate::diagnose::run_validation::results_row(&report, &report.findings));
    report.finished = Some(now_rfc3339());
    crate::run::wrap::excuse_offlined(&mut report);
    ctx.sink.finish(&report);
    report
}

/// What the setup does to comparability, said once in the console and the log: a
/// `--quick` run, and 7-Zip missing (its Results.md columns stay `-`) with how to get it.
fn setup_findings(r: &RunReport) -> Vec<Finding> {
    let mut out = Vec::new();
    if r.config.quick {
        out.push(Finding::new(
            FindingCode::QuickRun,
            diagnose::Severity::Info,
            "Quick run (--quick): shortened benchmarks, not comparable with full runs or with \
             the published Results.md table; the row is marked (quick)",
        ));
    }
    // Skipped without NotReadyYet=yes means not installed (see `plan::plan`).
    let sevenzip_skipped = r.plan.skipped.iter().any(|(k, _)| *k == StepKind::SevenZip);
    if sevenzip_skipped && !r.config.not_ready_yet {
        out.push(Finding::new(
            FindingCode::SevenZipVersion,
            diagnose::Severity::Warning,
            "7-Zip is not installed, so the Results.md row's 7-zip columns show -: install it \
             (apt install p7zip-full). Only 7-Zip 16.02 compares with the published table; \
             sbc-bench's release packages bundle a static 7za 16.02 (next to the binary, or \
             /usr/lib/sbc-bench/7za), which is found first; elsewhere build p7zip 16.02 \
             (https://github.com/ThomasKaiser/p7zip) and put its bin/7za on the PATH",
        ));
    }
    out
}

/// Time spent at each OPP between two `time_in_state` readings, per policy.
pub(crate) fn residency(
    before: &[(u32, Vec<(u64, u64)>)],
    after: &[(u32, Vec<(u64, u64)>)],
    policies: &[Policy],
    topo: &Topology,
) -> Vec<OppResidency> {
    after
        .iter()
        .map(|(id, after)| {
            let before = before
                .iter()
                .find(|(b, _)| b == id)
                .map(|(_, v)| v.as_slice())
                .unwrap_or(&[]);
            let p = policies.iter().find(|p| p.id == *id);
            OppResidency {
                policy: *id,
                cpus: p.map(|p| p.cpus.clone()).unwrap_or_default(),
                core_type: p
                    .and_then(|p| p.cpus.first())
                    .and_then(|c| topo.cpu(*c))
                    .and_then(|c| c.core_type.clone()),
                seconds_at_khz: throttle::residency_delta(before, after),
            }
        })
        .collect()
}

/// Usable CPUs grouped by core type in CPU order, as sbc-bench's extensive mode forms its
/// clusters (`ClusterConfigByCoreType`): RK3588 → 0-3 (Cortex-A55), 4-7 (Cortex-A76).
/// Empty when there is only one group (nothing to add to the all-core run). Cores of
/// unknown type group by cluster.
pub fn groups_by_core_type(topo: &Topology, usable: &[u32]) -> Vec<(Vec<u32>, Option<String>)> {
    let mut groups: Vec<(Vec<u32>, Option<String>, Option<u32>)> = Vec::new();
    for &cpu in usable {
        let c = topo.cpu(cpu);
        let ty = c.and_then(|c| c.core_type.clone());
        let key = if ty.is_some() {
            None
        } else {
            c.map(|c| c.cluster)
        };
        match groups.last_mut() {
            Some(g) if g.1 == ty && g.2 == key => g.0.push(cpu),
            _ => groups.push((vec![cpu], ty, key)),
        }
    }
    if groups.len() < 2 {
        return Vec::new();
    }
    groups.into_iter().map(|(c, t, _)| (c, t)).collect()
}

/// Run one step over its targets and store the results.
pub(crate) fn run_step(
    kind: StepKind,
    exec: &mut dyn Executor,
    env: &Env<'_>,
    targets: &[Target],
    results: &mut Results,
) -> StepStatus {
    let mut errors: Vec<String> = Vec::new();
    let e = &mut errors;
    match kind {
        StepKind::ClockCold => {
            let runs = per_target(exec, env, targets, e, |t| exec::clock(env, t, false));
            results.clock_cold.extend(runs);
        }
        StepKind::ClockHot => clock_hot(exec, env, targets, e, results),
        // The graph's steps are run by `run::graph`, which owns their meter.
        StepKind::GraphIdle | StepKind::Graph => {
            e.push("the efficiency graph's steps run in `run::graph`".to_string());
        }
        // Run by `run::wrap`, never planned into a standard run.
        StepKind::Wrap => {}
        StepKind::MemBandwidth => {
            results
                .membw
                .extend(per_target(exec, env, targets, e, |t| exec::membw(env, t)));
        }
        StepKind::MemLatency => {
            results
                .memlat
                .extend(per_target(exec, env, targets, e, |t| exec::memlat(env, t)));
        }
        StepKind::Aes => {
            let (bench, opts) = exec::aes(env, targets);
            match exec::call(exec, env, bench, opts) {
                Ok(r) => {
                    e.extend(failures(&r.errors));
                    results.aes = Some(r);
                }
                Err(err) => e.push(err.to_string()),
            }
        }
        StepKind::SevenZip | StepKind::Lzma => compress(kind, exec, env, targets, e, results),
        StepKind::CoolDown
        | StepKind::HeatUp
        | StepKind::ThermalLoad
        | StepKind::Aes256Before
        | StepKind::Aes256After => e.push("a step of the thermal test (run::thermal)".into()),
        StepKind::Scrypt => {
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
    kind: StepKind,
    exec: &mut dyn Executor,
    env: &Env<'_>,
    targets: &[Target],
    errors: &mut Vec<String>,
    results: &mut Results,
) {
    let ck = if kind == StepKind::SevenZip {
        CompressKind::SevenZip
    } else {
        CompressKind::Native
    };
    // Outside extensive mode, native LZMA runs single-threaded only once 7-Zip's
    // multi-threaded runs have measured all cores (about 30 s saved on a 2-core
    // VM); where 7-Zip is missing or failed, the native all-core score stands in.
    let sevenzip_measured_all_cores = kind == StepKind::Lzma
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
            if kind == StepKind::SevenZip {
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
            let label = crate::sys::cpu::list::format_list(&cpus);
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
mod tests {
    use super::*;
    use crate::run::exec::{Call, Fake};
    use std::fs;

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

    fn run_with(exec: &mut dyn Executor, root: &SysRoot) -> Result<RunReport, RunError> {
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
            .find(|s| s.kind == StepKind::MemBandwidth)
            .unwrap();
        assert!(matches!(&bw.status, StepStatus::Failed(e) if e.contains("cannot allocate")));
        // The steps after the failed one still ran.
        assert!(r.steps.iter().any(|s| s.kind == StepKind::ClockHot));
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
