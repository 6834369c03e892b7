//! Review mode (`sbc-bench review`, sbc-bench's `-r`, `-j` and `-R`) as a mode of the one
//! run engine: the standard run's preflight, tune, steps and finish phases, with review
//! mode's own tuning (every governor and the ASPM policy to powersave, then to
//! performance, `clk_summary` compared between the two), the 5-minute scrypt heat among
//! the steps, the Markdown review, and a waiting phase in between steps and finish: clocks
//! back at maximum, caches dropped, the kernel log marked, then one monitor line per
//! interval until Ctrl-C/SIGTERM or until the reviewer's command exits. At the stop it
//! looks again (swap, throttling, clocks, kernel messages, PCIe/USB/NIC/storage states),
//! and `finish` restores every value changed and validates.

use std::collections::VecDeque;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::diagnose::review_diff::{self, Changed, Noise};
use crate::monitor::render::{self, Table, TableOptions};
use crate::monitor::{Monitor, MonitorConfig, Recording, Setup};
use crate::output::Outcome;
use crate::record::config::RunConfig;
use crate::record::finding::Finding;
use crate::record::mode::review::{CommandRun, DeviceLines, ReviewRecord, Stop, Waiting};
use crate::record::plan::{Plan, StandardStep};
use crate::record::run::StepRecord;
use crate::record::run::{ModeResults, Results, RunReport};
use crate::record::tuning::{Governor, Tuned};
use crate::report::export::{ExportSink, Format};
use crate::run::drive::ModeCommand;
use crate::run::exec::{Env, Executor};
use crate::run::plan::PlanInput;
use crate::run::runner::{self, Mode, NotStarted, RunContext, Running, StepScope, Ui};
use crate::run::tuning;
use crate::sys::cpufreq::{self, Policy};
use crate::sys::policies::{self, PCIE_ASPM_POLICY};
use crate::sys::root::SysRoot;
use crate::sys::{kmsg, review_state, storage, thermal};
use crate::tune::{Tuning, oneshot};

/// How many lines of the command's output the record keeps.
pub const OUTPUT_TAIL: usize = 20;

/// What review mode does besides the run's settings.
#[derive(Debug, Clone)]
pub struct ReviewOptions {
    /// Baseline benchmarks and the heat (`-r`, `-j`); `false` for `-R`/`--no-benchmarks`.
    pub benchmarks: bool,
    /// Run this instead of waiting for Ctrl-C (`-- COMMAND …` or `ExecuteCommand`).
    pub command: Option<Vec<String>>,
    /// Where the Markdown review is written (besides being printed).
    pub review_file: Option<PathBuf>,
    /// Time between the waiting phase's monitor lines (sbc-bench: `-m 60`).
    pub monitor_every: Duration,
    /// How often the cool-down wait looks at the clocks (sbc-bench: 2 s).
    pub cool_poll: Duration,
    /// Longest cool-down wait (sbc-bench waits without end; we go on after this).
    pub cool_max: Duration,
    /// Samples of `cool_poll` to wait after the clocks are back (sbc-bench: 10).
    pub cool_settle: u32,
}

impl ReviewOptions {
    /// sbc-bench's timings.
    pub fn sbc_bench(benchmarks: bool, command: Option<Vec<String>>) -> Self {
        Self {
            benchmarks,
            command,
            review_file: None,
            monitor_every: Duration::from_secs(60),
            cool_poll: Duration::from_secs(2),
            cool_max: Duration::from_secs(600),
            cool_settle: 10,
        }
    }
}

/// Review mode as a mode of the engine: its own tuning (powersave, then performance,
/// ASPM too), the inventory, the standard steps as the baseline (unless `-R`), the
/// Markdown review, then the waiting phase.
pub struct Review {
    /// What review mode does besides the run's settings.
    pub opts: ReviewOptions,
    /// `clk_summary` lines that changed with tuning.
    clk_summary_diff: Vec<String>,
    /// The review so far, until it joins the report after the steps.
    record: Option<ReviewRecord>,
    /// The findings reviewers made by hand, added once the run is finished.
    insight: Vec<Finding>,
}

impl Review {
    /// The mode with `opts`.
    pub fn new(opts: ReviewOptions) -> Self {
        Self {
            opts,
            clk_summary_diff: Vec::new(),
            record: None,
            insight: Vec::new(),
        }
    }
}

impl Mode for Review {
    type Step = StandardStep;

    fn intro(&mut self, ui: &mut dyn Ui) {
        ui.line("Starting to examine hardware/software for review purposes...");
    }

    /// sbc-bench waits for idle in review mode only when it benchmarks (`-r`, `-j`): with
    /// `-R` it watches the machine as it is (sbc-bench.sh at 53f7951, line 8485:
    /// `[ "X${RunBenchmarks}" = "XTRUE" ] && CheckLoadAndDmesg`).
    fn waits_for_idle(&self) -> bool {
        self.opts.benchmarks
    }

    fn tune(&mut self, ctx: &RunContext<'_>, t: &Tuning, govs: &[Governor]) -> Vec<Tuned> {
        let root = ctx.root;
        let (tuned, diff) = powersave_then_performance(root, t, govs, is_x86(root));
        self.clk_summary_diff = diff;
        tuned
    }

    fn plan(&self, cfg: &RunConfig, input: &PlanInput) -> Plan {
        crate::run::plan::plan(cfg, input)
    }

    fn prepare(&mut self, ctx: &RunContext<'_>, run: &mut Running, _ui: &mut dyn Ui) {
        let diff = std::mem::take(&mut self.clk_summary_diff);
        let mut rv = inventory(ctx, diff, self.opts.benchmarks);
        if !self.opts.benchmarks {
            run.report.plan = Plan {
                steps: Vec::new(),
                skipped: Vec::new(),
            };
        }
        rv.temp_before_c = soc_temp(ctx.root);
        self.record = Some(rv);
    }

    fn records(&self) -> bool {
        self.opts.benchmarks
    }

    fn run_step(&mut self, i: usize, kind: StandardStep, s: &mut StepScope<'_, '_>) -> StepRecord {
        crate::run::standard::Standard.run_step(i, kind, s)
    }

    /// The review written (printed, its file, the report), then the waiting phase.
    fn after_steps(&mut self, s: &mut StepScope<'_, '_>, checkpoint: &dyn Fn(&RunReport)) {
        let Some(mut rv) = self.record.take() else {
            return;
        };
        let (ctx, run) = (s.ctx, &mut *s.run);
        let root = ctx.root;
        if self.opts.benchmarks {
            rv.temp_after_c = soc_temp(root);
            rv.throttled_in_benchmarks = !ctx.cfg.no_tuning
                && throttled(
                    &runner::residency(
                        &run.tis_before,
                        &runner::time_in_state(root, &run.policies),
                        &run.policies,
                        &run.topo,
                    ),
                    &run.policies,
                );
        }
        let (controllers, details, insight) = insight(root, &run.report.governors_before);
        self.insight = insight;
        rv.pcie_controllers = controllers;
        rv.pcie_details = details;
        rv.kernel_info = kernel_info(ctx, &run.report.system_before);
        rv.markdown = crate::report::log::review::markdown(&run.report, &rv);
        s.ui.line(&format!("\n\n\n{}", rv.markdown));
        if let Some(f) = &self.opts.review_file {
            if let Err(e) = std::fs::write(f, &rv.markdown) {
                crate::output::warn(format!("cannot write the review to {}: {e}", f.display()));
            }
        }
        run.report.mode = ModeResults::Review(rv);
        checkpoint(&run.report);
        if !ctx.cancel.is_cancelled() {
            waiting_phase(ctx, run, s.exec, s.ui, &self.opts, checkpoint);
        }
    }

    fn planned_stop(&self, report: &RunReport) -> bool {
        report.mode.review().is_some_and(|v| v.waiting.is_some())
    }

    /// What reviewers looked up by hand: PCIe payload sizes, IRQ placement, governors
    /// that keep clocks low under I/O.
    fn finished(&mut self, _ctx: &RunContext<'_>, report: &mut RunReport) {
        report.findings.append(&mut self.insight);
    }

    fn after_finish(&mut self, report: &RunReport, ui: &mut dyn Ui) {
        if let ModeResults::Review(rv) = &report.mode {
            ui.line(&crate::report::log::review::final_report(report, rv));
        }
    }
}

/// Run review mode (see [`runner::execute`]).
pub fn execute(
    ctx: &RunContext<'_>,
    exec: &mut dyn Executor,
    ui: &mut dyn Ui,
    opts: &ReviewOptions,
) -> Result<RunReport, NotStarted> {
    runner::execute(ctx, &mut Review::new(opts.clone()), exec, ui)
}

/// The review's PCIe lines (sbc-bench's per controller, then the details it lacks) and the
/// findings reviewers made by hand:
/// PCIe links and payload sizes, where NIC/storage/USB interrupts are served, governors
/// that keep clocks low under I/O (judged on the governors as the review found them).
fn insight(
    root: &SysRoot,
    governors_before: &[Governor],
) -> (
    Vec<String>,
    Vec<String>,
    Vec<crate::record::finding::Finding>,
) {
    use crate::diagnose::{governor_advice, irq_placement, pcie};
    use crate::report::text::pcie as lines;
    let funcs = crate::sys::pci::read_functions(root);
    let checks = pcie::check(&funcs);
    let mut findings = pcie::findings(&checks);
    let placements = match crate::sys::irq::read_interrupts(root) {
        Some(ints) => {
            let aff = crate::sys::irq::read_affinities(root, &ints);
            let nics = crate::sys::net::read_all(root);
            let p = irq_placement::placement(&ints, &aff, &nics);
            findings.extend(irq_placement::findings(&p, &ints.cpus));
            p
        }
        None => Vec::new(),
    };
    findings.extend(governor_advice::advise(governors_before));
    let mut details = lines::check_lines(&checks);
    details.extend(lines::efficiency_note(&checks));
    details.extend(lines::irq_lines(&placements));
    // sbc-bench's lines name the controllers from pci.ids; without that database the
    // class and IDs of the review's own lines say more than bare IDs.
    let controllers = if funcs.iter().any(|f| f.device_name.is_some()) {
        lines::controller_lines(&funcs)
    } else {
        Vec::new()
    };
    (controllers, details, findings)
}

/// The `### Kernel info:` lines with sbc-bench's kernel text (end of life, revisions
/// behind, vendor/BSP kernel) from the release table in the binary. A run with canned
/// results judges at the table's own date, so its review does not change with the day.
fn kernel_info(ctx: &RunContext<'_>, info: &crate::sys::discover::SystemInfo) -> Vec<String> {
    let Ok(table) = crate::diagnose::kernel::built_in_table() else {
        return Vec::new();
    };
    let today = if ctx.cfg.fake_benchmarks {
        table.snapshot
    } else {
        chrono::Local::now().date_naive()
    };
    let log = crate::sys::kernel::read_kernel_log(ctx.root);
    let a = crate::report::text::kernel::assess_system(info, log.as_deref(), &table, today);
    let facts = crate::report::text::kernel::ReviewKernelFacts::new(
        &info.kernel,
        crate::sys::kernel::read_vulnerabilities(ctx.root),
    );
    crate::report::text::kernel::review_section_lines(&facts, &a)
}

fn is_x86(root: &SysRoot) -> bool {
    crate::sys::board::kernel_machine(root, &crate::sys::board::HostFacts::read(root))
        .is_some_and(|m| m == "x86_64" || m.starts_with("i686") || m.starts_with("i386"))
}

fn soc_temp(root: &SysRoot) -> Option<f64> {
    thermal::read_temp_c(root, &thermal::pick_source(root)?)
}

/// Did a policy spend time below its highest OPP?
fn throttled(res: &[crate::record::throttle::OppResidency], policies: &[Policy]) -> bool {
    res.iter().any(|r| {
        let max = policies
            .iter()
            .find(|p| p.id == r.policy)
            .and_then(|p| p.cpuinfo_max_khz.or(p.opps_khz.iter().copied().max()));
        max.is_some_and(|max| {
            r.seconds_at_khz
                .iter()
                .any(|&(khz, s)| khz < max && s > 0.0)
        })
    })
}

/// Set every governor offering `to` (cpufreq and every devfreq device, as sbc-bench's
/// `HandleGovernors`) to it; the outcomes.
fn set_all(t: &Tuning, govs: &[Governor], to: &str) -> Vec<Tuned> {
    govs.iter()
        .filter(|g| g.governor.is_some())
        .filter(|g| g.available.is_empty() || g.available.iter().any(|a| a == to))
        .map(|g| Tuned {
            name: g.name.clone(),
            from: g.governor.clone(),
            outcome: if g.governor.as_deref() == Some(to) {
                Ok(to.to_string())
            } else {
                t.set(&g.path, to)
                    .map(|()| to.to_string())
                    .map_err(|e| e.to_string())
            },
        })
        .collect()
}

/// The ASPM policy to `to` where the machine has PCIe Express and the parameter exists.
fn set_aspm(root: &SysRoot, t: &Tuning, to: &str) -> Option<Tuned> {
    if !root.exists(policies::PCI_EXPRESS_BUS) {
        return None;
    }
    let now = root.value(PCIE_ASPM_POLICY)?;
    let from = policies::selected(&now);
    let outcome = if from.as_deref() == Some(to) {
        Ok(to.to_string())
    } else {
        t.set(PCIE_ASPM_POLICY, to)
            .map(|()| to.to_string())
            .map_err(|e| e.to_string())
    };
    Some(Tuned {
        name: "pcie_aspm".to_string(),
        from,
        outcome,
    })
}

/// Review mode's tuning: everything to powersave (not on x86, where sbc-bench's
/// `HandleGovernors` does nothing), `clk_summary` read, then everything to performance
/// and `clk_summary` read again; the outcomes of the last step and the diff.
fn powersave_then_performance(
    root: &SysRoot,
    t: &Tuning,
    govs: &[Governor],
    x86: bool,
) -> (Vec<Tuned>, Vec<String>) {
    if x86 {
        let mut out = tuning::set_performance(t, govs);
        out.extend(set_aspm(root, t, "performance"));
        return (out, Vec::new());
    }
    drop(set_all(t, govs, "powersave"));
    let _ = set_aspm(root, t, "powersave");
    let idle = review_state::clk_summary(root);
    let mut out = set_all(t, govs, "performance");
    out.extend(set_aspm(root, t, "performance"));
    let tuned = review_state::clk_summary(root);
    let diff = match (idle, tuned) {
        (Some(a), Some(b)) => review_diff::diff(&lines(&a), &lines(&b)),
        _ => Vec::new(),
    };
    (out, diff)
}

fn lines(s: &str) -> Vec<String> {
    s.lines().map(str::to_string).collect()
}

/// The device lines as they stand now.
fn device_lines(root: &SysRoot) -> DeviceLines {
    crate::report::log::review::device_lines(
        &review_state::read(root),
        &storage::discover(root).devices,
    )
}

/// What the review shows besides the benchmarks, read once tuned.
fn inventory(
    ctx: &RunContext<'_>,
    clk_summary_diff: Vec<String>,
    benchmarks: bool,
) -> ReviewRecord {
    let root = ctx.root;
    let governors_tuned = if ctx.cfg.no_tuning {
        Vec::new()
    } else {
        tuning::read_governors(root, &cpufreq::read_policies(root))
    };
    let devfreq: Vec<String> = crate::sys::devfreq::read(root)
        .into_iter()
        .map(|d| d.name)
        .collect();
    ReviewRecord {
        benchmarks,
        governors_tuned,
        policies_tuned: policies::read(root, &devfreq),
        clk_summary_diff,
        temp_before_c: None,
        temp_after_c: None,
        throttled_in_benchmarks: false,
        devices: device_lines(root),
        vulnerabilities: review_state::vulnerabilities(root),
        challenging_mounts: review_state::challenging_mounts(root),
        kernel_info: Vec::new(),
        pcie_controllers: Vec::new(),
        pcie_details: Vec::new(),
        markdown: String::new(),
        waiting: None,
    }
}

/// sbc-bench's cool-down: wait until every policy's clock is back at its maximum, then
/// `cool_settle` more polls for temperatures to settle.
fn cool_down(ctx: &RunContext<'_>, ui: &mut dyn Ui, opts: &ReviewOptions) {
    let root = ctx.root;
    let at_max = || {
        cpufreq::read_policies(root)
            .iter()
            .all(|p| p.cur_khz.is_none() || p.cur_khz == p.cpuinfo_max_khz)
    };
    if at_max() {
        return;
    }
    ui.line("\nWaiting for the device to cool down");
    let t0 = Instant::now();
    while !at_max() {
        if t0.elapsed() >= opts.cool_max || !ctx.cancel.sleep(opts.cool_poll) {
            ui.line(&format!(
                "Clocks not back at maximum after {:.0} s; going on.",
                t0.elapsed().as_secs_f64()
            ));
            return;
        }
    }
    for _ in 0..opts.cool_settle {
        if !ctx.cancel.sleep(opts.cool_poll) {
            return;
        }
    }
    if let Some(t) = soc_temp(root) {
        ui.line(&format!("Cooled down to {t:.1}°C."));
    }
}

/// Swap in use, KiB.
fn swap_used_kib(root: &SysRoot) -> u64 {
    crate::sys::memory::read(root, None)
        .swaps
        .iter()
        .map(|s| s.entry.used_kib)
        .sum()
}

/// The waiting phase and the look at the stop; fills the review's `waiting`.
fn waiting_phase(
    ctx: &RunContext<'_>,
    run: &mut Running,
    exec: &mut dyn Executor,
    ui: &mut dyn Ui,
    opts: &ReviewOptions,
    checkpoint: &dyn Fn(&RunReport),
) {
    let root = ctx.root;
    if opts.benchmarks && !ctx.cfg.no_tuning {
        cool_down(ctx, ui, opts);
    }
    oneshot::drop_caches(root);
    let last_seq = kmsg::read(root).and_then(|r| r.last().map(|m| m.seq));
    oneshot::mark_kernel_log(root, review_diff::MARK);
    let tis_before = runner::time_in_state(root, &run.policies);
    let swap_before = swap_used_kib(root);
    let devices_before = run
        .report
        .mode
        .review()
        .map(|r| r.devices.clone())
        .unwrap_or_default();
    let mut w = Waiting {
        started: now(),
        ended: None,
        stopped_by: None,
        command: None,
        swap_used_before_kib: swap_before,
        swap_used_after_kib: None,
        throttling: Vec::new(),
        throttled: false,
        clocks_now: Vec::new(),
        temp_now_c: None,
        kernel_messages: Vec::new(),
        noise: None,
        devices_after: None,
        pcie_diff: Vec::new(),
        storage_diff: Vec::new(),
        changed: None,
        monitor: None,
    };
    // Recorded before watching: a signal from now on is the review's normal stop.
    set_waiting(run, w.clone());
    checkpoint(&run.report);
    let (stop, command, monitor) = watch(ctx, ui, opts);
    // The look at the stop.
    w.ended = Some(now());
    w.stopped_by = Some(stop);
    w.command = command;
    w.monitor = monitor;
    w.swap_used_after_kib = Some(swap_used_kib(root));
    if !ctx.cfg.no_tuning {
        w.throttling = runner::residency(
            &tis_before,
            &runner::time_in_state(root, &run.policies),
            &run.policies,
            &run.topo,
        );
        w.throttled = throttled(&w.throttling, &run.policies);
    }
    // After a signal the clean-ups have already put the governors back, and the grace
    // period is too short for a measurement: clocks are measured again only when the
    // command ended the waiting.
    if opts.benchmarks && !matches!(stop, Stop::Signal(_)) {
        w.clocks_now = clocks_now(ctx, run, exec);
    }
    w.temp_now_c = soc_temp(root);
    w.kernel_messages = kmsg::read(root)
        .unwrap_or_default()
        .into_iter()
        .filter(|m| last_seq.is_none_or(|s| m.seq > s))
        .filter(|m| !review_diff::is_known_noise(&m.message))
        .collect();
    w.noise = Noise::of(w.kernel_messages.len());
    let after = device_lines(root);
    let group = |d: &DeviceLines| -> Vec<String> {
        d.pcie
            .iter()
            .chain(&d.usb)
            .chain(&d.nics)
            .cloned()
            .collect()
    };
    let stor = |d: &DeviceLines| -> Vec<String> {
        d.storage
            .iter()
            .map(|l| review_diff::without_drive_temp(l).to_string())
            .collect()
    };
    w.pcie_diff = review_diff::diff(&group(&devices_before), &group(&after));
    w.storage_diff = review_diff::diff(&stor(&devices_before), &stor(&after));
    w.changed = Changed::of(&w.pcie_diff, &w.storage_diff);
    w.devices_after = Some(after);
    set_waiting(run, w);
}

fn now() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

fn set_waiting(run: &mut Running, w: Waiting) {
    if let Some(r) = run.report.mode.review_mut() {
        r.waiting = Some(w);
    }
}

/// "Clockspeeds now": the hot clock check again.
fn clocks_now(
    ctx: &RunContext<'_>,
    run: &Running,
    exec: &mut dyn Executor,
) -> Vec<crate::bench::clock::ClockCheck> {
    let progress = |_: f64| {};
    let env = Env {
        root: ctx.root,
        cfg: ctx.cfg,
        policies: &run.policies,
        topo: &run.topo,
        cancel: ctx.cancel,
        progress: &progress,
        all_cpus: &run.all_cpus,
    };
    let mut results = Results::default();
    let _ = crate::run::standard::run_step(
        StandardStep::ClockHot,
        exec,
        &env,
        &run.targets,
        &mut results,
    );
    results.clock_hot
}

/// Watch until the stop: one monitor line per interval, and the command when there is
/// one. Returns what stopped it, the command's record and the monitor's recording.
fn watch(
    ctx: &RunContext<'_>,
    ui: &mut dyn Ui,
    opts: &ReviewOptions,
) -> (Stop, Option<CommandRun>, Option<Recording>) {
    let setup = Setup::discover(ctx.root, true);
    let mut mcfg = MonitorConfig::every(opts.monitor_every);
    mcfg.live = true;
    let online = setup.topology.online();
    let mut table = Table::new(
        setup.layout.clone(),
        TableOptions {
            dc_in: setup.dc_in.is_some(),
            busiest: online.len() > 1,
            cores: Vec::new(),
            plain_na: false,
        },
        false,
    );
    let mut monitor = Monitor::start(ctx.root, &setup, mcfg).ok();
    let rx = monitor.as_mut().and_then(|m| m.take_live());
    match &opts.command {
        None => ui.line(&format!("\n{}\n", crate::report::log::review::READY)),
        Some(argv) => ui.line(&format!("\nNow executing \"{}\"\n", argv.join(" "))),
    }
    ui.line(table.header().trim_end());
    let mut print_rows = |ui: &mut dyn Ui| {
        if let Some(rx) = &rx {
            while let Ok(iv) = rx.try_recv() {
                ui.line(
                    table
                        .row(&iv, &render::local_hms(iv.end_unix_ms))
                        .trim_end(),
                );
            }
        }
    };
    let (stop, command) = match &opts.command {
        None => {
            while ctx.cancel.sleep(Duration::from_millis(100)) {
                print_rows(ui);
            }
            (Stop::Signal(crate::shutdown::signal().unwrap_or(2)), None)
        }
        Some(argv) => {
            let (stop, c) = run_command(ctx, ui, argv, &mut print_rows);
            (stop, Some(c))
        }
    };
    print_rows(ui);
    (
        stop,
        command,
        monitor.map(crate::monitor::MonitorHandle::stop),
    )
}

/// Run the reviewer's command, its output passed through and its tail kept, until it
/// exits or a signal stops the review (then it is ended as well).
fn run_command(
    ctx: &RunContext<'_>,
    ui: &mut dyn Ui,
    argv: &[String],
    tick: &mut dyn FnMut(&mut dyn Ui),
) -> (Stop, CommandRun) {
    let t0 = Instant::now();
    let mut rec = CommandRun {
        argv: argv.to_vec(),
        ..Default::default()
    };
    let Some((prog, args)) = argv.split_first() else {
        rec.error = Some("empty command".to_string());
        return (Stop::CommandFailed, rec);
    };
    let mut child = match Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            rec.error = Some(e.to_string());
            return (Stop::CommandFailed, rec);
        }
    };
    let (tx, out) = mpsc::channel::<String>();
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|r| {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(r).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        })
    })
    .collect();
    drop(tx);
    let mut tail: VecDeque<String> = VecDeque::new();
    let mut keep = |ui: &mut dyn Ui, l: String| {
        ui.line(&l);
        if tail.len() == OUTPUT_TAIL {
            tail.pop_front();
        }
        tail.push_back(l);
    };
    let mut stop = Stop::CommandExited;
    let status = loop {
        while let Ok(l) = out.try_recv() {
            keep(ui, l);
        }
        tick(ui);
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(e) => {
                rec.error = Some(e.to_string());
                break None;
            }
        }
        if ctx.cancel.is_cancelled() {
            stop = Stop::Signal(crate::shutdown::signal().unwrap_or(2));
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(child.id() as i32),
                nix::sys::signal::Signal::SIGTERM,
            );
            break child.wait().ok();
        }
        ctx.cancel.sleep(Duration::from_millis(20));
    };
    // The rest of its output; a grandchild that keeps the pipes open is not waited for.
    drop(readers);
    while let Ok(l) = out.recv_timeout(Duration::from_millis(200)) {
        keep(ui, l);
    }
    if let Some(st) = status {
        use std::os::unix::process::ExitStatusExt;
        rec.exit_code = st.code();
        rec.signal = st.signal();
    }
    rec.duration_s = t0.elapsed().as_secs_f64();
    rec.output_tail = tail.into_iter().collect();
    (stop, rec)
}

/// Why review mode refuses to start without root.
pub const NEEDS_ROOT: &str = "review mode needs root (sudo sbc-bench -r): it switches governors \
and the PCIe ASPM policy, drops caches, marks the kernel log and reads debugfs";

/// Review mode's own options, as `cli::review` read them.
#[derive(Debug, Clone, Default)]
pub struct ReviewRequest {
    /// Baseline benchmarks and the heat (`false` for `-R`/`--no-benchmarks`).
    pub benchmarks: bool,
    /// Run this instead of waiting for Ctrl-C (`-- COMMAND …` or `ExecuteCommand`).
    pub command: Option<Vec<String>>,
    /// The command is `ExecuteCommand`'s, not given after `--`: said before the run.
    pub from_env: bool,
    /// `--review FILE`; default: `sbc-bench-review.md` beside the log.
    pub review_file: Option<PathBuf>,
}

/// The review file beside the log: `/var/log/sbc-bench-review.md`.
fn default_review_file(log: &Path) -> PathBuf {
    log.parent()
        .unwrap_or_else(|| Path::new("."))
        .join("sbc-bench-review.md")
}

/// The timings: sbc-bench's, or fast ones with canned benchmarks (the whole review over
/// a fixture tree in well under a second).
fn options(benchmarks: bool, fake: bool, command: Option<Vec<String>>) -> ReviewOptions {
    let mut o = ReviewOptions::sbc_bench(benchmarks, command);
    if fake {
        o.monitor_every = Duration::from_millis(250);
        o.cool_poll = Duration::from_millis(20);
        o.cool_max = Duration::ZERO;
        o.cool_settle = 0;
    }
    o
}

/// Review mode's part of the lifecycle (`run::drive`): where its review and log went.
pub struct ReviewCommand {
    mode: Review,
    /// `--review FILE`, until the log's place is known.
    review_file: Option<PathBuf>,
    /// The log, as the sink has it.
    log: PathBuf,
}

impl ModeCommand for ReviewCommand {
    type Mode = Review;
    type Options = ReviewRequest;

    fn may_start() -> Result<(), Outcome> {
        if crate::run::preflight::is_root() {
            return Ok(());
        }
        eprintln!("error: {NEEDS_ROOT}");
        Err(Outcome::Failed)
    }

    fn prepare(
        _root: &SysRoot,
        cfg: &RunConfig,
        req: ReviewRequest,
    ) -> anyhow::Result<Result<Self, Outcome>> {
        if req.from_env {
            if let Some(c) = &req.command {
                // sbc-bench then waits for Enter; unattended here.
                println!("WARNING: ExecuteCommand is set to \"{}\"\n", c.join(" "));
            }
        }
        let opts = options(req.benchmarks, cfg.fake_benchmarks, req.command);
        Ok(Ok(Self {
            mode: Review::new(opts),
            review_file: req.review_file,
            log: PathBuf::new(),
        }))
    }

    fn files(&mut self, cfg: &RunConfig, sink: &mut ExportSink) -> anyhow::Result<()> {
        self.log = sink.path(Format::Log).unwrap_or(&cfg.log).to_path_buf();
        let file = self.review_file.take();
        self.mode.opts.review_file = Some(file.unwrap_or_else(|| default_review_file(&self.log)));
        Ok(())
    }

    fn mode(&mut self) -> &mut Review {
        &mut self.mode
    }

    fn banner(&self) -> String {
        format!("sbc-bench {} (Rust) review mode", env!("CARGO_PKG_VERSION"))
    }

    fn stopped(&self) -> &'static str {
        "Stopped before the review began; nothing was changed."
    }

    fn summary(&self, _report: &RunReport, _sink: &ExportSink) {
        if let Some(f) = &self.mode.opts.review_file {
            println!("Review in {}", f.display());
        }
        println!("Full log in {}", self.log.display());
    }
}
