//! The run engine, naming no mode: preflight (nothing changed yet), tune (the mode's
//! tuning, its plan, the report opened), steps (each through [`Mode::run_step`] while the
//! monitor records) and finish (restore, look again, validate, the mode's hooks). The
//! export sink (log, JSON) is written here, once the machine is tuned, after every step
//! and at the end, so a crash or Ctrl-C late in a 30-minute run keeps everything measured
//! so far. The modes (`run::standard`, `run::thermal`, `run::graph`, `run::review`,
//! `run::wrap`) only say what is theirs.

use crate::record::finding::FindingCode;
use std::time::{Duration, Instant};

use crate::bench::pin::{self, Target};
use crate::diagnose::throttle;
use crate::diagnose::{self, Finding, validate};
use crate::monitor::{Monitor, MonitorConfig, MonitorHandle, Recording, SampleSpec, Setup};
use crate::output::Outcome;
use crate::record::config::RunConfig;
use crate::record::plan::{Plan, StandardStep, StepKind, format_duration, format_estimate};
use crate::record::run::{
    ModeResults, Preflight, Results, RunReport, RunStatus, SCHEMA, SCHEMA_VERSION, StepRecord,
    StepStatus,
};
use crate::record::throttle::OppResidency;
use crate::record::tuning::{Governor, Tuned};
use crate::report::export::ExportSink;
use crate::run::exec::{Env, Executor};
use crate::run::host::Host;
use crate::run::plan::{PlanInput, plan_input};
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
    /// sbc-bench's "Press `[ctrl]-[c]` to stop or `[enter]` to continue." — `false` stops.
    fn confirm(&mut self, warning: &str) -> bool;
    /// A line that replaces the previous one on a terminal (the thermal test's current
    /// temperature every 2 s); a plain line elsewhere.
    fn status(&mut self, s: &str) {
        self.line(s);
    }
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum NotStarted {
    /// The machine never became idle within `--max-wait`.
    #[error(
        "the system did not become idle within {waited_s:.0} s (load {load1:.2}, cpu {cpu_pct:.1}%{}); benchmark results would not be meaningful. Stop the background activity or raise --max-wait",
        busiest.as_deref().map(|b| format!(", busiest: {b}")).unwrap_or_default()
    )]
    TooBusy {
        /// Seconds waited.
        waited_s: f64,
        /// Last 1-minute load.
        load1: f64,
        /// Average utilisation over the last 30 s.
        cpu_pct: f64,
        /// The busiest other process at the end (`apt-get 87 %`).
        busiest: Option<String>,
    },
    /// The user stopped at a prompt or pressed Ctrl-C before benchmarks began.
    #[error("stopped before benchmarking")]
    Stopped,
    /// Another sbc-bench is tuning this machine (the message names it).
    #[error("{0}")]
    Busy(String),
}

pub(crate) fn now_rfc3339() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
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
    let Some(t) = root.read_opt(crate::sys::counters::PROC_VMSTAT) else {
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

/// One mode of the engine (the standard run, the thermal test, the efficiency graph,
/// review mode, a wrapped command): what is its own, everything else the engine's.
/// Every hook but [`plan`](Mode::plan) and [`run_step`](Mode::run_step) has the
/// standard run's answer as its default.
pub trait Mode {
    /// The kinds of step the mode plans (the standard run's [`StandardStep`], the graph's
    /// [`GraphStep`](crate::record::mode::graph::GraphStep) …): the engine hands
    /// [`run_step`](Mode::run_step) only these.
    type Step: Copy + TryFrom<StepKind>;

    /// Said before preflight (review mode's first line).
    fn intro(&mut self, _ui: &mut dyn Ui) {}

    /// Leave the governors as found (sbc-bench's `TempTest`).
    fn keeps_governors(&self) -> bool {
        false
    }

    /// Wait for the machine to become idle before starting? Only a mode that benchmarks
    /// needs it: review mode without benchmarks (`-R`) watches a busy machine, which is
    /// what it is for.
    fn waits_for_idle(&self) -> bool {
        true
    }

    /// The mode's tuning (governors to `performance`); not called with `NOTUNING=yes` or
    /// when the mode [keeps the governors](Mode::keeps_governors).
    fn tune(&mut self, _ctx: &RunContext<'_>, t: &Tuning, govs: &[Governor]) -> Vec<Tuned> {
        tuning::set_performance(t, govs)
    }

    /// The steps, from the settings and the facts about the tuned machine.
    fn plan(&self, cfg: &RunConfig, input: &PlanInput) -> Plan;

    /// The tuned machine, before the first step: the mode's results opened, its plan
    /// refined with what tuning found. The engine writes the files right after.
    fn prepare(&mut self, _ctx: &RunContext<'_>, _run: &mut Running, _ui: &mut dyn Ui) {}

    /// Does the monitor record the steps? (Review mode without benchmarks has none.)
    fn records(&self) -> bool {
        true
    }

    /// What the monitor samples: everything, with process snapshots at phase boundaries
    /// to name what else ran (background findings).
    fn sample_spec(&self) -> SampleSpec {
        let mut spec = SampleSpec::full();
        spec.processes = true;
        spec
    }

    /// Run step `i` of the plan, of kind `kind`, saying so to the user
    /// ([`Ui::step_started`], [`Ui::step_done`]): the results go into `run.report`, the
    /// record of the step is returned. [`timed_step`] does the standard run's bookkeeping.
    fn run_step(&mut self, i: usize, kind: Self::Step, s: &mut StepScope<'_, '_>) -> StepRecord;

    /// After the last step, the monitor stopped, before the restore: review mode's
    /// waiting phase, wrap's findings. `checkpoint` writes the files.
    fn after_steps(&mut self, _s: &mut StepScope<'_, '_>, _checkpoint: &dyn Fn(&RunReport)) {}

    /// The mode's own findings, after validation's (`-M`'s AES-256 slower after the load).
    fn findings(&self, _report: &RunReport) -> Vec<Finding> {
        Vec::new()
    }

    /// Does a complete run get a Results.md row? Only the standard run measures one.
    fn has_results_row(&self) -> bool {
        false
    }

    /// Is this report's stop by a signal the mode's normal end (review's waiting phase)?
    fn planned_stop(&self, _report: &RunReport) -> bool {
        false
    }

    /// The finished report, before its last write (wrap: the CPUs it offlined excused).
    fn finished(&mut self, _ctx: &RunContext<'_>, _report: &mut RunReport) {}

    /// After the last write (review mode's final report on the console).
    fn after_finish(&mut self, _report: &RunReport, _ui: &mut dyn Ui) {}
}

/// What a step runs with: the run's context, the tuned machine and its report, the
/// benchmarks, the user, the monitor, and when the steps began.
pub struct StepScope<'s, 'c> {
    /// Where and how the run runs.
    pub ctx: &'s RunContext<'c>,
    /// The tuned machine and the report so far.
    pub run: &'s mut Running,
    /// The benchmarks.
    pub exec: &'s mut dyn Executor,
    /// The user.
    pub ui: &'s mut dyn Ui,
    /// The monitor, while it records.
    pub monitor: Option<&'s MonitorHandle>,
    /// When the first step began.
    pub run_start: Instant,
}

/// Run `mode`: preflight, tune, the steps while the monitor records, then restore and
/// validate. The sink is written once the machine is tuned, after every step and at the
/// end.
pub fn execute<M: Mode>(
    ctx: &RunContext<'_>,
    mode: &mut M,
    exec: &mut dyn Executor,
    ui: &mut dyn Ui,
) -> Result<RunReport, NotStarted> {
    let started = now_rfc3339();
    // The board first: refused while another run tunes it, and what a killed run left
    // changed put back (and said) before anything is read for the report, so its
    // governors are the machine's own, not the killed run's.
    let guard = claim(ctx.root, ui)?;
    mode.intro(ui);
    let pre = preflight(ctx, ui, mode.waits_for_idle())?;
    let mut run = tune(ctx, mode, started, pre, guard);
    mode.prepare(ctx, &mut run, ui);
    ctx.sink.write(&run.report);
    let recording = steps(ctx, mode, &mut run, exec, ui);
    let mut s = StepScope {
        ctx,
        run: &mut run,
        exec,
        ui: &mut *ui,
        monitor: None,
        run_start: Instant::now(),
    };
    mode.after_steps(&mut s, &|r| ctx.sink.write(r));
    let report = finish(ctx, mode, run, recording);
    mode.after_finish(&report, ui);
    Ok(report)
}

/// How a run ended, as the process sees it: stopped before benchmarking 128 + `signal`
/// (Ctrl-C 130 as sbc-bench, TERM 143, HUP 129 while waiting for idle), 130 for a prompt
/// answered no; interrupted by `signal` 128 + signal; finished with results validation does not trust 3; else 0. A machine that never
/// became idle is an error (1).
pub fn outcome(result: &Result<RunReport, NotStarted>, signal: Option<i32>) -> Outcome {
    match result {
        Err(NotStarted::Stopped) => Outcome::Interrupted(signal.unwrap_or(2)),
        Err(NotStarted::TooBusy { .. } | NotStarted::Busy(_)) => Outcome::Failed,
        Ok(r) if r.status == RunStatus::Interrupted => Outcome::Interrupted(signal.unwrap_or(2)),
        Ok(r) if diagnose::any_invalid(&r.findings) => Outcome::Untrusted,
        Ok(_) => Outcome::Ok,
    }
}

/// The tuning guard of the run: the board taken, a killed run's settings restored (each
/// line said).
fn claim(root: &SysRoot, ui: &mut dyn Ui) -> Result<Tuning, NotStarted> {
    match Tuning::claim(root) {
        Ok((t, lines)) => {
            for l in lines {
                ui.line(&format!("Warning: {l}"));
            }
            Ok(t)
        }
        Err(crate::tune::ClaimError::Stopping) => Err(NotStarted::Stopped),
        Err(e) => Err(NotStarted::Busy(e.to_string())),
    }
}

/// What preflight found, and where the kernel log stood before the run.
pub(crate) struct Checked {
    preflight: Preflight,
    /// Sequence number of the last kernel message before the run.
    last_seq: Option<u64>,
}

/// Phase 1: root, kernel log, offline cores, idle wait (unless the mode runs no
/// benchmarks: `wait`). Stops before anything changes.
pub(crate) fn preflight(
    ctx: &RunContext<'_>,
    ui: &mut dyn Ui,
    wait: bool,
) -> Result<Checked, NotStarted> {
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
        return Err(NotStarted::Stopped);
    }
    confirm_offline_cores(root, ui)?;
    let (outcome, waited_s) = if wait {
        ctx.host
            .wait_for_idle(root, ctx.cfg, ctx.cancel, &mut |l| ui.line(l))
    } else {
        (IdleOutcome::Idle(Duration::ZERO), 0.0)
    };
    pre.idle_wait_s = waited_s;
    match outcome {
        IdleOutcome::Idle(_) => {}
        IdleOutcome::Cancelled => return Err(NotStarted::Stopped),
        IdleOutcome::GaveUp {
            waited,
            cpu_pct,
            load1,
            busiest,
        } => {
            return Err(NotStarted::TooBusy {
                waited_s: waited.as_secs_f64(),
                load1,
                cpu_pct,
                busiest,
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
fn confirm_offline_cores(root: &SysRoot, ui: &mut dyn Ui) -> Result<(), NotStarted> {
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
            crate::sys::cpu_list::format_list(&offline)
        ))
    {
        return Err(NotStarted::Stopped);
    }
    Ok(())
}

/// A tuned machine, ready for the steps: the report so far, the facts the steps and
/// the final comparison need, and the guard that puts governors back.
pub struct Running {
    /// The report so far.
    pub report: RunReport,
    /// Clocks as tuned.
    pub policies: Vec<Policy>,
    /// CPUs and clusters as tuned.
    pub topo: Topology,
    /// One CPU per cluster to pin benchmarks to.
    pub targets: Vec<Target>,
    /// Online CPUs the benchmarks may use (never empty).
    pub all_cpus: Vec<u32>,
    /// The guard that puts the governors back.
    pub tuning: Tuning,
    /// `time_in_state` per policy when tuned.
    pub tis_before: Vec<(u32, Vec<(u64, u64)>)>,
    /// CPUs online when tuned.
    pub online_before: Vec<u32>,
    /// Swap when tuned.
    pub swap_before: validate::SwapState,
    /// The last kernel message before the run.
    pub last_seq: Option<u64>,
}
/// Phase 2: look at the machine, tune it the mode's way, plan the steps, open the report.
fn tune<M: Mode>(
    ctx: &RunContext<'_>,
    mode: &mut M,
    started: String,
    checked: Checked,
    tuning_guard: Tuning,
) -> Running {
    let (root, cfg) = (ctx.root, ctx.cfg);
    let system_before = SystemInfo::read(root);
    let topo = system_before.topology.clone();
    let governors_before = tuning::read_governors(root, &system_before.cpufreq);
    let tuned = if cfg.no_tuning || mode.keeps_governors() {
        Vec::new()
    } else {
        mode.tune(ctx, &tuning_guard, &governors_before)
    };
    // Clocks as tuned, for the OPP walk and the report.
    let policies = cpufreq::read_policies(root);
    let tools = ctx.host.tools(ctx.cancel);
    let plan: Plan = mode.plan(
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
        schema: SCHEMA.to_string(),
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
        mode: ModeResults::Standard,
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

/// Phase 3: every planned step through the mode while the monitor records; the report
/// and its files are brought up to date after each. Returns the monitor's recording.
fn steps<M: Mode>(
    ctx: &RunContext<'_>,
    mode: &mut M,
    run: &mut Running,
    exec: &mut dyn Executor,
    ui: &mut dyn Ui,
) -> Option<Recording> {
    if !mode.records() {
        return None;
    }
    let setup = Setup::discover(ctx.root, true);
    let mut mcfg = MonitorConfig::every(ctx.monitor_interval);
    mcfg.spec = mode.sample_spec();
    let monitor: Option<MonitorHandle> = Monitor::start(ctx.root, &setup, mcfg).ok();
    let run_start = Instant::now();
    let plan = run.report.plan.clone();
    ui.planned(&plan);
    for (i, step) in plan.steps.iter().enumerate() {
        if ctx.cancel.is_cancelled() {
            break;
        }
        let mut s = StepScope {
            ctx,
            run: &mut *run,
            exec: &mut *exec,
            ui: &mut *ui,
            monitor: monitor.as_ref(),
            run_start,
        };
        let record = match M::Step::try_from(step.kind) {
            Ok(kind) => mode.run_step(i, kind, &mut s),
            Err(_) => not_of_this_mode(step.kind),
        };
        run.report.steps.push(record);
        if let Some(m) = &monitor {
            run.report.monitor = Some(m.snapshot());
        }
        ctx.sink.write(&run.report);
    }
    monitor.map(MonitorHandle::stop)
}

/// A planned step the mode does not run (a plan edited by hand, a mode's plan out of
/// step with its kinds): recorded as failed, and the run goes on.
fn not_of_this_mode(kind: StepKind) -> StepRecord {
    let now = now_rfc3339();
    StepRecord {
        kind,
        started: now.clone(),
        ended: now,
        duration_s: 0.0,
        status: StepStatus::Failed(format!("not a step of this mode: {kind:?}")),
    }
}

/// What a step's work gets: where it runs, its progress callback, the targets.
pub struct StepWork<'e, 'c> {
    /// Settings, machine and cancellation for the benchmarks.
    pub env: &'e Env<'c>,
    /// One CPU per cluster.
    pub targets: &'e [Target],
    /// The benchmarks.
    pub exec: &'e mut dyn Executor,
    /// The user (the thermal wait's status line).
    pub ui: &'e mut dyn Ui,
}

/// The standard run's bookkeeping around one step's `work`: the progress line, the
/// monitor's phase, the times, a cancelled step marked so, and `note(status)` after
/// `Done`.
pub fn timed_step(
    kind: StepKind,
    s: &mut StepScope<'_, '_>,
    note: &dyn Fn(&StepStatus) -> String,
    work: &mut dyn FnMut(&mut StepWork<'_, '_>, &mut RunReport) -> StepStatus,
) -> StepRecord {
    let progress = s.ui.step_started(kind.progress());
    if let Some(m) = s.monitor {
        m.mark(kind.phase());
    }
    let t0 = Instant::now();
    let step_started = now_rfc3339();
    let Running {
        report,
        policies,
        topo,
        targets,
        all_cpus,
        ..
    } = &mut *s.run;
    let env = Env {
        root: s.ctx.root,
        cfg: s.ctx.cfg,
        policies,
        topo,
        cancel: s.ctx.cancel,
        progress: &*progress,
        all_cpus,
    };
    let mut w = StepWork {
        env: &env,
        targets,
        exec: &mut *s.exec,
        ui: &mut *s.ui,
    };
    let status = work(&mut w, report);
    if let Some(m) = s.monitor {
        m.end_phase();
    }
    let status = if s.ctx.cancel.is_cancelled() {
        StepStatus::Cancelled
    } else {
        status
    };
    let note = note(&status);
    let record = StepRecord {
        kind,
        started: step_started,
        ended: now_rfc3339(),
        duration_s: t0.elapsed().as_secs_f64(),
        status,
    };
    s.ui.step_done(kind.progress(), &note);
    record
}

/// What follows `Done` on a step's line: the estimate after the first step, the time
/// taken after the last, or why it failed.
pub fn step_note(plan: &Plan, i: usize, status: &StepStatus, elapsed_s: f64) -> String {
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

/// Phase 4: restore, look again, validate, the mode's findings and hooks, and the
/// final report written.
fn finish<M: Mode>(
    ctx: &RunContext<'_>,
    mode: &mut M,
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
    report.findings.extend(mode.findings(&report));
    report.system_after = Some(system_after);
    report.monitor = recording;
    // Review mode's waiting phase ends with Ctrl-C or SIGTERM: its normal stop.
    let planned_stop = mode.planned_stop(&report);
    report.status = if ctx.cancel.is_cancelled() && !planned_stop {
        RunStatus::Interrupted
    } else {
        RunStatus::Complete
    };
    // An interrupted run has no Results.md row: a partial one would look paste-ready.
    // The thermal test and the efficiency graph measure no Results.md row (sbc-bench -g
    // prints none); review mode has none either, as sbc-bench; `wrap` runs other tools.
    report.results_row = (report.status == RunStatus::Complete && mode.has_results_row())
        .then(|| crate::diagnose::run_validation::results_row(&report, &report.findings));
    report.finished = Some(now_rfc3339());
    mode.finished(ctx, &mut report);
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
    let sevenzip_skipped = r
        .plan
        .skipped
        .iter()
        .any(|(k, _)| *k == StandardStep::SevenZip);
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
pub fn residency(
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
