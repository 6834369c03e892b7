//! `sbc-bench wrap`: any command under the standard run's controls, as a mode of the one
//! engine. Preflight (idle gate) and tuning (performance governors) are the standard
//! run's (the engine's, `run::runner`), so is the finish (restore, look again,
//! validate: throttling, swap, background activity). Between them, instead of the
//! benchmark steps, the command runs once per cluster or core type pinned there (its
//! affinity set, or with `--offline-others` the other CPUs taken offline through the
//! restoring guard, as sbc-bench's `-G`/`-P` do), then on all cores, each run a phase of
//! the monitor's recording. The child gets its own process group: Ctrl-C/SIGTERM send it
//! SIGTERM, then SIGKILL after [`KILL_GRACE`], and the report is still written.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::bench::external::extract::{self, Score, Tool};
use crate::bench::pin;
use crate::diagnose::{Finding, Severity};
use crate::monitor::{MonitorHandle, Recording};
use crate::output::Outcome;
use crate::record::config::RunConfig;
use crate::record::finding::FindingCode;
use crate::record::mode::wrap::{
    Confinement, Exit, Split, WrapResults, WrapRun, WrapSpec, WrapStep,
};
use crate::record::plan::{Plan, Step};
use crate::record::run::{ModeResults, RunReport, StepRecord, StepStatus};
use crate::report::export::{ExportSink, Format};
use crate::run::drive::ModeCommand;
use crate::run::plan::PlanInput;
use crate::run::runner::{self, Mode, NotStarted, RunContext, Running, StepScope, Ui, now_rfc3339};
use crate::shutdown::CancellationToken;
use crate::sys::cpu::{Topology, online_path};
use crate::sys::cpu_list::format_list;
use crate::sys::cpufreq;
use crate::sys::root::SysRoot;

/// How long a stopped command gets between SIGTERM and SIGKILL. Shorter than
/// `shutdown::GRACE`, so the report is written before the process exits.
pub const KILL_GRACE: Duration = Duration::from_millis(1000);
/// Bytes of stdout/stderr kept in the report per run.
pub const TAIL_BYTES: usize = 4096;
/// Bytes of output kept for the score extractors (PTS prints a lot).
const PARSE_BYTES: usize = 1 << 20;

/// One run to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRun {
    /// Monitor phase and heading label.
    pub label: String,
    /// `{cluster}`: `cluster1` / the core type / `all`.
    pub cluster: String,
    /// The CPUs it runs on.
    pub cpus: Vec<u32>,
    /// Pinned to a subset (not an all-core run).
    pub pinned: bool,
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The groups of a split: `(cpus, {cluster} name, core type)`. One group only (a
/// machine of one cluster) gives none: the all-core run covers it, as in sbc-bench.
fn groups(
    split: Split,
    topo: &Topology,
    online: &[u32],
) -> Vec<(Vec<u32>, String, Option<String>)> {
    let out: Vec<(Vec<u32>, String, Option<String>)> = match split {
        Split::AllCores => Vec::new(),
        Split::PerCluster => topo
            .clusters
            .iter()
            .map(|c| {
                let cpus: Vec<u32> = c
                    .cpus
                    .iter()
                    .copied()
                    .filter(|x| online.contains(x))
                    .collect();
                (cpus, format!("cluster{}", c.id), c.core_type.clone())
            })
            .filter(|(cpus, _, _)| !cpus.is_empty())
            .collect(),
        Split::PerCoreType => crate::run::plan::groups_by_core_type(topo, online)
            .into_iter()
            .map(|(cpus, ty)| {
                let name = ty
                    .clone()
                    .unwrap_or_else(|| format!("cpus{}", format_list(&cpus)));
                (cpus, name, ty)
            })
            .collect(),
    };
    if out.len() < 2 { Vec::new() } else { out }
}

/// The runs of a spec on this topology, in order: each group pinned, then all cores
/// (`all_core_runs` times), the whole sequence `repeat` times. Labels are unique (they
/// name monitor phases): repeats get `(2nd run)`. Pure.
pub fn plan_runs(spec: &WrapSpec, topo: &Topology, online: &[u32]) -> Vec<PlannedRun> {
    let mut one: Vec<PlannedRun> = groups(spec.split, topo, online)
        .into_iter()
        .map(|(cpus, cluster, ty)| {
            let ty = ty.map(|t| format!(" ({t})")).unwrap_or_default();
            let what = if cpus.len() == 1 { "core" } else { "cores" };
            PlannedRun {
                label: format!("{} on {what} {}{ty}", spec.name, format_list(&cpus)),
                cluster,
                cpus,
                pinned: true,
            }
        })
        .collect();
    for _ in 0..spec.all_core_runs.max(1) {
        one.push(PlannedRun {
            label: format!("{} on all cores", spec.name),
            cluster: "all".to_string(),
            cpus: online.to_vec(),
            pinned: false,
        });
    }
    let mut out: Vec<PlannedRun> = Vec::new();
    for _ in 0..spec.repeat.max(1) {
        for r in &one {
            let seen = out
                .iter()
                .filter(|o| o.label == r.label || o.label.starts_with(&format!("{} (", r.label)))
                .count() as u32;
            let mut r = r.clone();
            if seen > 0 {
                r.label = format!("{} ({} run)", r.label, ordinal(seen + 1));
            }
            out.push(r);
        }
    }
    out
}

/// `{cpus}` and `{cluster}` replaced in every argument.
pub fn substitute(argv: &[String], cpus: &[u32], cluster: &str) -> Vec<String> {
    let list = format_list(cpus);
    argv.iter()
        .map(|a| a.replace("{cpus}", &list).replace("{cluster}", cluster))
        .collect()
}

/// A wrapped command as a mode of the engine: one step per planned run.
#[derive(Debug, Clone)]
pub struct Wrap {
    /// What to run, and how to split it.
    pub spec: WrapSpec,
    /// The runs, once the machine is tuned.
    planned: Vec<PlannedRun>,
}

impl Wrap {
    /// The mode for `spec`.
    pub fn new(spec: WrapSpec) -> Self {
        Self {
            spec,
            planned: Vec::new(),
        }
    }
}

impl Mode for Wrap {
    type Step = WrapStep;

    /// The runs are planned from the tuned machine's topology, in [`Mode::prepare`].
    fn plan(&self, _cfg: &RunConfig, _input: &PlanInput) -> Plan {
        Plan {
            steps: Vec::new(),
            skipped: Vec::new(),
        }
    }

    fn prepare(&mut self, _ctx: &RunContext<'_>, run: &mut Running, ui: &mut dyn Ui) {
        let spec = &self.spec;
        let online = run.topo.online();
        self.planned = plan_runs(spec, &run.topo, &online);
        run.report.plan = Plan {
            steps: self
                .planned
                .iter()
                .map(|_| Step {
                    kind: WrapStep::Run.into(),
                    min_s: 0.0,
                    max_s: 0.0,
                })
                .collect(),
            skipped: Vec::new(),
        };
        run.report.mode = ModeResults::Wrap(WrapResults {
            spec: spec.clone(),
            ..Default::default()
        });
        if spec.tool == Tool::Geekbench
            && let Some(avail) = run.report.system_before.memory.meminfo.mem_available_kib
            && avail < extract::geekbench::MIN_AVAILABLE_KIB
        {
            ui.line(&format!(
                "WARNING: only {} MB of memory available; Geekbench needs about 1.2 GB and may fail or swap.",
                avail / 1024
            ));
        }
    }

    fn run_step(&mut self, i: usize, kind: WrapStep, s: &mut StepScope<'_, '_>) -> StepRecord {
        let Some(p) = self.planned.get(i) else {
            return StepRecord {
                kind: kind.into(),
                started: now_rfc3339(),
                ended: now_rfc3339(),
                duration_s: 0.0,
                status: StepStatus::Failed("no run planned".to_string()),
            };
        };
        let progress_label = format!("Executing {}", p.label);
        let _progress = s.ui.step_started(&progress_label);
        let record = one_run(s.ctx, s.run, &self.spec, p, s.monitor);
        let note = format!(" ({}, {:.1} s)", record.exit.describe(), record.duration_s);
        let step = StepRecord {
            kind: kind.into(),
            started: record.started.clone(),
            ended: record.ended.clone(),
            duration_s: record.duration_s,
            status: if record.interrupted {
                StepStatus::Cancelled
            } else {
                StepStatus::Ok
            },
        };
        if let Some(w) = s.run.report.mode.wrap_mut() {
            w.runs.push(record);
        }
        s.ui.step_done(&progress_label, &note);
        step
    }

    /// A failed command is a finding of its run; Geekbench's compare URL.
    fn after_steps(&mut self, s: &mut StepScope<'_, '_>, _checkpoint: &dyn Fn(&RunReport)) {
        let report = &mut s.run.report;
        let findings = wrap_findings(report);
        if let Some(w) = report.mode.wrap_mut() {
            w.compare_url = compare_url(w);
        }
        report.findings.extend(findings);
    }

    fn finished(&mut self, _ctx: &RunContext<'_>, report: &mut RunReport) {
        excuse_offlined(report);
    }
}

/// Run the command under the run's controls: preflight, tune, the runs while the monitor
/// records, finish (see [`runner::execute`]).
pub fn execute(
    ctx: &RunContext<'_>,
    spec: &WrapSpec,
    ui: &mut dyn Ui,
) -> Result<RunReport, NotStarted> {
    // The command runs itself: the executor is never asked.
    runner::execute(
        ctx,
        &mut Wrap::new(spec.clone()),
        &mut crate::run::exec::Fake,
        ui,
    )
}

/// CPUs `--offline-others` took offline came back: no sign of CPUs killed mid-run. The
/// `cpus-killed-mid-run` finding is made again from the kernel log and the monitor
/// without them, so a CPU the kernel shut down on its own is still reported.
pub fn excuse_offlined(r: &mut RunReport) {
    let ModeResults::Wrap(w) = &r.mode else {
        return;
    };
    let ours: Vec<u32> = w
        .runs
        .iter()
        .flat_map(|run| run.confinement.offlined.iter().copied())
        .collect();
    if ours.is_empty() {
        return;
    }
    use crate::diagnose::validate;
    let kernel: Vec<_> = r
        .kernel_log
        .iter()
        .filter(|k| validate::cpu_taken_down(&k.message).is_none_or(|c| !ours.contains(&c)))
        .cloned()
        .collect();
    let gone: Vec<u32> = r
        .monitor
        .as_ref()
        .map(Recording::cpus_seen_gone)
        .unwrap_or_default()
        .into_iter()
        .filter(|c| !ours.contains(c))
        .collect();
    let online_after = r
        .system_after
        .as_ref()
        .map(|s| s.topology.online())
        .unwrap_or_default();
    let Some(i) = r
        .findings
        .iter()
        .position(|f| f.code == FindingCode::CpusKilledMidRun)
    else {
        return;
    };
    r.findings.remove(i);
    let again = validate::killed_findings(&kernel, &gone, &online_after);
    for (k, f) in again.into_iter().enumerate() {
        r.findings.insert(i + k, f);
    }
}

/// Geekbench's compare URL between the first two all-core runs (sbc-bench's).
fn compare_url(w: &WrapResults) -> Option<String> {
    if w.spec.tool != Tool::Geekbench {
        return None;
    }
    let urls: Vec<&str> = w
        .runs
        .iter()
        .filter(|r| r.cluster == "all")
        .filter_map(|r| r.score.as_ref()?.url.as_deref())
        .collect();
    let major = w
        .runs
        .iter()
        .find_map(|r| extract::geekbench::major_version(&r.stdout_tail))
        .unwrap_or(6);
    extract::geekbench::compare_url(major, urls.first()?, urls.get(1)?)
}

/// A failed or unstartable command is reported, not fatal: one finding per run.
fn wrap_findings(r: &RunReport) -> Vec<Finding> {
    let ModeResults::Wrap(w) = &r.mode else {
        return Vec::new();
    };
    w.runs
        .iter()
        .filter(|run| !run.exit.success() && !run.interrupted)
        .filter(|run| !matches!(run.exit, Exit::Skipped(_)))
        .map(|run| {
            Finding::new(
                FindingCode::BenchmarkFailed,
                Severity::Invalid,
                format!("{}: {}", run.label, run.exit.describe()),
            )
        })
        .collect()
}

/// Current clock of every cpufreq policy, MHz.
fn clocks_mhz(root: &SysRoot) -> Vec<(u32, u64)> {
    cpufreq::read_policies(root)
        .iter()
        .filter_map(|p| Some((p.id, p.cur_khz? / 1000)))
        .collect()
}

/// One run: confine, run under the monitor, bring CPUs back, extract the score.
fn one_run(
    ctx: &RunContext<'_>,
    run: &mut Running,
    spec: &WrapSpec,
    p: &PlannedRun,
    monitor: Option<&MonitorHandle>,
) -> WrapRun {
    let command = substitute(&spec.command, &p.cpus, &p.cluster);
    let mut record = WrapRun {
        label: p.label.clone(),
        cluster: p.cluster.clone(),
        cpus: p.cpus.clone(),
        command: command.clone(),
        confinement: Confinement::default(),
        started: String::new(),
        ended: String::new(),
        duration_s: 0.0,
        exit: Exit::Skipped(String::new()),
        interrupted: false,
        stdout_tail: String::new(),
        stderr_tail: String::new(),
        clocks_before_mhz: Vec::new(),
        clocks_after_mhz: Vec::new(),
        score: None,
    };
    if let Err(why) = confine(ctx.root, run, spec, p, &mut record.confinement) {
        record.exit = Exit::Skipped(why);
        bring_back(ctx.root, run, &record.confinement);
        return record;
    }
    record.clocks_before_mhz = clocks_mhz(ctx.root);
    if let Some(m) = monitor {
        m.mark(&p.label);
    }
    record.started = now_rfc3339();
    let t0 = Instant::now();
    let out = spawn_and_wait(
        &command,
        &spec.env,
        spec.stdin.as_deref(),
        &record.confinement.affinity,
        ctx.cancel,
    );
    record.duration_s = t0.elapsed().as_secs_f64();
    record.ended = now_rfc3339();
    if let Some(m) = monitor {
        m.end_phase();
    }
    record.clocks_after_mhz = clocks_mhz(ctx.root);
    bring_back(ctx.root, run, &record.confinement);
    let mut score = extract::extract(spec.tool, &out.stdout, &out.stderr);
    if spec.tool == Tool::Pts {
        score = with_composite(score, t0_system_time(record.duration_s));
    }
    record.score = score;
    record.exit = out.exit;
    record.interrupted = out.interrupted;
    record.stdout_tail = tail(&out.stdout, TAIL_BYTES);
    record.stderr_tail = tail(&out.stderr, TAIL_BYTES);
    record
}

/// Pin a run: affinity to its CPUs where this process may use them, and with
/// `--offline-others` every other CPU that can go offline taken offline through the
/// restoring guard (journalled: a killed run is restored by the next one). `Err`: the
/// run cannot be confined and is skipped.
fn confine(
    root: &SysRoot,
    run: &Running,
    spec: &WrapSpec,
    p: &PlannedRun,
    c: &mut Confinement,
) -> Result<(), String> {
    if !p.pinned {
        return Ok(());
    }
    let allowed = pin::allowed_cpus();
    let usable: Vec<u32> = p
        .cpus
        .iter()
        .copied()
        .filter(|x| allowed.is_empty() || allowed.contains(x))
        .collect();
    let missing: Vec<u32> = p
        .cpus
        .iter()
        .copied()
        .filter(|x| !usable.contains(x))
        .collect();
    if spec.offline_others {
        for cpu in run.topo.online() {
            if p.cpus.contains(&cpu) || !root.exists(online_path(cpu)) {
                continue;
            }
            match run.tuning.set(online_path(cpu), "0") {
                Ok(()) => c.offlined.push(cpu),
                Err(e) => c.notes.push(format!("cpu{cpu} stays online: {e}")),
            }
        }
    }
    if usable.is_empty() {
        let why = format!(
            "CPUs {} are not available to this process (its affinity is {})",
            format_list(&p.cpus),
            format_list(&allowed)
        );
        if spec.offline_others {
            c.notes.push(format!("affinity not set: {why}"));
            return Ok(());
        }
        return Err(why);
    }
    if !missing.is_empty() {
        c.notes.push(format!(
            "CPUs {} are not available to this process; pinned to {}",
            format_list(&missing),
            format_list(&usable)
        ));
    }
    c.affinity = usable;
    Ok(())
}

/// Every CPU a run took offline back online (through the guard, so the final restore
/// finds them as found), and the cpufreq governors we set back to `performance` where a
/// CPU coming back reset its policy, as sbc-bench does after its `-G` runs.
fn bring_back(root: &SysRoot, run: &Running, c: &Confinement) {
    for &cpu in &c.offlined {
        if let Err(e) = run.tuning.set(online_path(cpu), "1") {
            crate::output::warn(format!("cannot bring cpu{cpu} back online: {e}"));
        }
    }
    if c.offlined.is_empty() {
        return;
    }
    for g in &run.report.governors_before {
        let tuned = run
            .report
            .tuning
            .iter()
            .any(|t| t.name == g.name && t.outcome.as_deref() == Ok("performance"));
        if tuned
            && g.name.starts_with("cpufreq-policy")
            && root.value(&g.path).as_deref() != Some("performance")
        {
            let _ = run.tuning.set(&g.path, "performance");
        }
    }
}

/// What a finished child left.
#[derive(Debug)]
pub struct ChildOutput {
    /// How it ended.
    pub exit: Exit,
    /// Stopped by cancellation.
    pub interrupted: bool,
    /// The last `PARSE_BYTES` (1 MiB) of stdout.
    pub stdout: String,
    /// The last `PARSE_BYTES` (1 MiB) of stderr.
    pub stderr: String,
}

/// The last `max` bytes of `s`, cut at a character boundary.
pub fn tail(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut i = s.len() - max;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    s[i..].to_string()
}

/// Read a pipe to its end, keeping the last `PARSE_BYTES`.
fn drain(mut r: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut kept: Vec<u8> = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    kept.extend_from_slice(&buf[..n]);
                    if kept.len() > 2 * PARSE_BYTES {
                        kept.drain(..kept.len() - PARSE_BYTES);
                    }
                }
            }
        }
        let s = String::from_utf8_lossy(&kept).into_owned();
        let _ = tx.send(tail(&s, PARSE_BYTES));
    });
    rx
}

fn signal_group(pgid: u32, sig: nix::sys::signal::Signal) {
    let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid as i32), sig);
}

/// Start `argv` in its own process group (with `affinity` when not empty: it is
/// started from a thread pinned there, and inherits the mask), feed `stdin`, and wait
/// for it. When `cancel` is set: SIGTERM to the group, SIGKILL after [`KILL_GRACE`].
pub fn spawn_and_wait(
    argv: &[String],
    env: &[(String, String)],
    stdin: Option<&str>,
    affinity: &[u32],
    cancel: &CancellationToken,
) -> ChildOutput {
    use nix::sys::signal::Signal;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let not_started = |e: String| ChildOutput {
        exit: Exit::NotStarted(e),
        interrupted: false,
        stdout: String::new(),
        stderr: String::new(),
    };
    let Some(prog) = argv.first() else {
        return not_started("no command".to_string());
    };
    let mut cmd = Command::new(prog);
    cmd.args(&argv[1..])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let spawned = if affinity.is_empty() {
        cmd.spawn().map_err(|e| e.to_string())
    } else {
        pin::run_on_set(affinity, || cmd.spawn())
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| e.to_string()))
    };
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => return not_started(format!("{prog}: {e}")),
    };
    let pgid = child.id();
    if let (Some(text), Some(mut w)) = (stdin, child.stdin.take()) {
        let text = text.to_string();
        std::thread::spawn(move || {
            let _ = w.write_all(text.as_bytes());
        });
    }
    let out_rx = child.stdout.take().map(drain);
    let err_rx = child.stderr.take().map(drain);
    let mut term_at: Option<Instant> = None;
    let mut killed = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(_) => break None,
        }
        if cancel.is_cancelled() {
            match term_at {
                None => {
                    signal_group(pgid, Signal::SIGTERM);
                    term_at = Some(Instant::now());
                }
                Some(t) if !killed && t.elapsed() >= KILL_GRACE => {
                    signal_group(pgid, Signal::SIGKILL);
                    killed = true;
                }
                _ => {}
            }
            std::thread::sleep(Duration::from_millis(10));
        } else {
            cancel.sleep(Duration::from_millis(20));
        }
    };
    let interrupted = term_at.is_some();
    // What the command left running in its group (a backgrounded helper) holds the
    // pipes open: stopped with it when the run was stopped, waited for a moment else.
    if interrupted {
        signal_group(pgid, Signal::SIGKILL);
    }
    let wait = if interrupted {
        Duration::from_millis(200)
    } else {
        Duration::from_secs(2)
    };
    let collect = |rx: Option<mpsc::Receiver<String>>| {
        rx.and_then(|rx| rx.recv_timeout(wait).ok())
            .unwrap_or_default()
    };
    let stdout = collect(out_rx);
    let stderr = collect(err_rx);
    let exit = match status {
        Some(st) => match (st.code(), st.signal()) {
            (Some(c), _) => Exit::Code(c),
            (None, Some(s)) => Exit::Signal(s),
            (None, None) => Exit::NotStarted("no exit status".to_string()),
        },
        None => Exit::NotStarted("lost track of the child".to_string()),
    };
    ChildOutput {
        exit,
        interrupted,
        stdout,
        stderr,
    }
}

/// The moment a run of `duration_s` seconds began, as system time (a PTS result
/// directory written since then is this run's).
fn t0_system_time(duration_s: f64) -> std::time::SystemTime {
    std::time::SystemTime::now() - Duration::from_secs_f64(duration_s + 1.0)
}

/// PTS's result directory: `~/.phoronix-test-suite/test-results` of the user running us.
fn pts_results_dir() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
    Some(PathBuf::from(home).join(".phoronix-test-suite/test-results"))
}

/// The largest `composite.xml` read (PTS writes a few KiB per test).
const PTS_RESULT_MAX: u64 = 16 << 20;

/// The values of the newest `composite.xml` written since `since`, added to the URL
/// found in PTS's output.
fn with_composite(score: Option<Score>, since: std::time::SystemTime) -> Option<Score> {
    let mut score = score.unwrap_or_default();
    let newest = pts_results_dir()
        .and_then(|d| std::fs::read_dir(d).ok())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path().join("composite.xml"))
        .filter_map(|p| {
            let m = std::fs::metadata(&p).ok()?.modified().ok()?;
            (m >= since).then_some((m, p))
        })
        .max_by_key(|(m, _)| *m);
    if let Some((_, p)) = newest
        && let Ok(xml) = crate::files::read::read_text(&p, PTS_RESULT_MAX)
    {
        score
            .values
            .extend(extract::pts::parse_composite(&xml).values);
    }
    (!score.is_empty()).then_some(score)
}

/// The wrapped command's part of the lifecycle (`run::drive`): its console and its
/// summary.
pub struct WrapCommand(Wrap);

impl ModeCommand for WrapCommand {
    type Mode = Wrap;
    type Options = ();

    fn prepare(_root: &SysRoot, cfg: &RunConfig, (): ()) -> anyhow::Result<Result<Self, Outcome>> {
        let Some(spec) = cfg.kind.wrap().cloned() else {
            anyhow::bail!("the wrapped command's settings are missing");
        };
        Ok(Ok(Self(Wrap::new(spec))))
    }

    fn mode(&mut self) -> &mut Wrap {
        &mut self.0
    }

    fn banner(&self) -> String {
        format!("sbc-bench {} (Rust) wrap", env!("CARGO_PKG_VERSION"))
    }

    fn ui(&self, _cfg: &RunConfig) -> Box<dyn Ui> {
        Box::new(crate::run::console::WrapConsole)
    }

    fn stopped(&self) -> &'static str {
        "Stopped before running the command; nothing was changed."
    }

    fn summary(&self, report: &RunReport, sink: &ExportSink) {
        let log = sink.path(Format::Log).map(|p| p.display().to_string());
        print!(
            "{}",
            crate::report::log::wrap::console(report, log.as_deref(), crate::output::color())
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn topo(board: &str) -> Topology {
        let root = SysRoot::new(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/sysroots")
                .join(board),
        );
        crate::sys::cpu::read(&root).1
    }

    fn spec(split: Split) -> WrapSpec {
        WrapSpec {
            command: vec!["bench".into(), "--cpus={cpus}".into(), "{cluster}".into()],
            split,
            repeat: 1,
            all_core_runs: 1,
            name: "bench".into(),
            ..Default::default()
        }
    }

    #[test]
    fn rock_5b_per_cluster_then_all_cores() {
        let t = topo("rock-5b");
        let runs = plan_runs(&spec(Split::PerCluster), &t, &t.online());
        let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "bench on cores 0-3 (Cortex-A55)",
                "bench on cores 4-5 (Cortex-A76)",
                "bench on cores 6-7 (Cortex-A76)",
                "bench on all cores"
            ]
        );
        assert_eq!(
            substitute(
                &spec(Split::PerCluster).command,
                &runs[1].cpus,
                &runs[1].cluster
            ),
            ["bench", "--cpus=4-5", "cluster1"]
        );
        // Per core type: the two A76 clusters are one group.
        let runs = plan_runs(&spec(Split::PerCoreType), &t, &t.online());
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[1].cpus, [4, 5, 6, 7]);
        assert_eq!(runs[1].cluster, "Cortex-A76");
    }

    #[test]
    fn repeats_and_two_all_core_runs_get_unique_labels() {
        let t = topo("x86-vm");
        let mut s = spec(Split::PerCluster);
        s.repeat = 2;
        s.all_core_runs = 2;
        let runs = plan_runs(&s, &t, &t.online());
        let labels: Vec<&str> = runs.iter().map(|r| r.label.as_str()).collect();
        // One cluster: no per-cluster run, as sbc-bench on a machine of one core type.
        assert_eq!(
            labels,
            [
                "bench on all cores",
                "bench on all cores (2nd run)",
                "bench on all cores (3rd run)",
                "bench on all cores (4th run)"
            ]
        );
    }

    #[test]
    fn labels_keep_the_group_and_the_core_type() {
        let t = topo("x86-hybrid-meteorlake");
        let runs = plan_runs(&spec(Split::PerCoreType), &t, &t.online());
        assert_eq!(runs.len(), 3, "{runs:?}");
        assert_eq!(runs[0].cpus, (0..12).collect::<Vec<u32>>());
        assert!(runs[0].pinned && !runs[2].pinned);
        assert_eq!(runs[2].cpus.len(), 22);
    }

    #[test]
    fn tails_cut_at_characters() {
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("aé", 1), "");
        assert_eq!(tail("ab", 5), "ab");
        assert_eq!(ordinal(11), "11th");
        assert_eq!(ordinal(22), "22nd");
    }

    #[test]
    fn a_missing_program_is_not_started_not_a_panic() {
        let c = CancellationToken::new();
        let out = spawn_and_wait(
            &["/nonexistent/sbc-bench-test".to_string()],
            &[],
            None,
            &[],
            &c,
        );
        assert!(matches!(out.exit, Exit::NotStarted(_)), "{out:?}");
    }

    #[test]
    fn exit_status_output_and_stdin_of_a_child() {
        let c = CancellationToken::new();
        let out = spawn_and_wait(
            &[
                "/bin/sh".to_string(),
                "-c".to_string(),
                "read x; echo got $x; echo err >&2; exit 3".to_string(),
            ],
            &[],
            Some("hello\n"),
            &[],
            &c,
        );
        assert_eq!(out.exit, Exit::Code(3));
        assert_eq!(out.stdout, "got hello\n");
        assert_eq!(out.stderr, "err\n");
        assert!(!out.interrupted);
    }

    #[test]
    fn a_cancelled_child_that_ignores_sigterm_is_killed() {
        let d = tempfile::tempdir().unwrap();
        let ready = d.path().join("ready");
        let c = CancellationToken::new();
        // Cancel once the child has set its trap (it says so in a file), not before:
        // a SIGTERM before the trap would simply end it.
        let out = std::thread::scope(|s| {
            s.spawn(|| {
                let deadline = Instant::now() + Duration::from_secs(60);
                while !ready.exists() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
                c.cancel();
            });
            spawn_and_wait(
                &[
                    "/bin/sh".to_string(),
                    "-c".to_string(),
                    format!(
                        "trap '' TERM; touch '{}'; while :; do sleep 0.05; done",
                        ready.display()
                    ),
                ],
                &[],
                None,
                &[],
                &c,
            )
        });
        assert_eq!(out.exit, Exit::Signal(9));
        assert!(out.interrupted);
    }
}
