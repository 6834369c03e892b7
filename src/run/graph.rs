//! The efficiency graph (`sbc-bench graph`, sbc-bench's `-g`) as a mode of the run engine:
//! the runner's preflight, tune and finish phases, with this mode's steps in between. For
//! each group of CPUs (all cores, each core, each cluster, each core type, a CPU list) it
//! holds every cpufreq OPP from `MinKHz` (600 MHz) up — with the `userspace` governor and
//! `scaling_setspeed` as sbc-bench, or `scaling_min_freq` = `scaling_max_freq` where the
//! kernel has no `userspace` governor — through a restoring [`Tuning`] guard, measures the
//! clock there, runs 7-Zip's benchmark (our native LZMA one where 7-Zip is missing) at
//! least three times, and reads the SoC temperature and, with a power meter, the mW drawn
//! while each ran. With a meter, four minutes of idle come first (idle consumption).
//!
//! Benchmarks go through the run's [`Executor`] (canned with `--fake-benchmarks`); the
//! meter is the caller's [`PowerMeter`] (a fake one in tests).

use std::time::{Duration, Instant};

use crate::bench::clock;
use crate::bench::external::sevenzip::SevenZip;
use crate::bench::{BenchError, Benchmark, Progress, lzma};
use crate::monitor::SampleSpec;
use crate::output::Outcome;
use crate::record::config::RunConfig;
use crate::record::mode::graph::{
    DEFAULT_MIN_KHZ, GraphConfig, GraphPoint, GraphResults, GraphRun, GraphStep, GraphVariant,
    HoldMethod, IdleBaseline, MIN_REPETITIONS, MipsTool,
};
use crate::record::plan::{Plan, Step};
use crate::record::run::{ModeResults, RunReport, StepRecord, StepStatus};
use crate::report::export::{ExportSink, Format};
use crate::run::drive::ModeCommand;
use crate::run::exec::{self, Canned, Env, Executor};
use crate::run::plan::{PlanInput, groups_by_core_type};
use crate::run::runner::{self, Mode, NotStarted, RunContext, Running, StepScope, Ui};
use crate::shutdown::CancellationToken;
use crate::sys::cpu::Topology;
use crate::sys::cpu_list::format_list;
use crate::sys::cpufreq::{Policy, policy_attr};
use crate::sys::meter::PowerMeter;
use crate::sys::root::SysRoot;
use crate::sys::thermal;
use crate::tune::{TuneError, Tuning};

/// How often the meter is read while a benchmark runs or the board idles.
const METER_EVERY: Duration = Duration::from_millis(500);
/// sbc-bench averages its Netio readings over 4.8 s while idle.
const IDLE_METER_EVERY: Duration = Duration::from_millis(4800);
/// Seconds one 7-Zip run takes at an OPP, roughly (for the plan's estimate).
const RUN_S: (f64, f64) = (15.0, 40.0);
const QUICK_RUN_S: (f64, f64) = (1.0, 5.0);
/// OPPs per group assumed when the plan is made before the policies are read.
const OPPS_GUESS: f64 = 10.0;

/// Why the graph cannot be drawn on this machine.
pub fn refusal(policies: &[Policy]) -> Option<String> {
    if policies.is_empty() {
        return Some(
            "No cpufreq support available. Not able to draw performance graph(s) \
             (no /sys/devices/system/cpu/cpufreq/policy* on this machine)."
                .to_string(),
        );
    }
    if policies.iter().all(|p| p.opps_khz.is_empty()) {
        return Some(
            "No cpufreq OPPs listed (scaling_available_frequencies): nothing to walk through."
                .to_string(),
        );
    }
    None
}

/// One group of CPUs to walk through its OPPs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphTarget {
    /// sbc-bench's focus (`all CPU cores`, `CPU 4-5`).
    pub label: String,
    /// CPUs the benchmark runs on.
    pub cpus: Vec<u32>,
    /// Their shared core type.
    pub core_type: Option<String>,
    /// Policies held at each OPP.
    pub policies: Vec<u32>,
}

fn range_label(cpus: &[u32]) -> String {
    match cpus {
        [] => "CPU ?".to_string(),
        [one] => format!("CPU {one}"),
        [first, .., last] if (*last - *first) as usize + 1 == cpus.len() => {
            format!("CPU {first}-{last}")
        }
        _ => format!("CPU {}", format_list(cpus)),
    }
}

fn shared_core_type(topo: &Topology, cpus: &[u32]) -> Option<String> {
    let mut types = cpus
        .iter()
        .map(|&c| topo.cpu(c).and_then(|c| c.core_type.clone()));
    let first = types.next()??;
    types.all(|t| t.as_deref() == Some(&first)).then_some(first)
}

fn policies_of(topo: &Topology, cpus: &[u32]) -> Vec<u32> {
    let mut p: Vec<u32> = cpus
        .iter()
        .filter_map(|&c| topo.cpu(c).and_then(|c| c.policy))
        .collect();
    p.sort_unstable();
    p.dedup();
    p
}

fn target(topo: &Topology, label: String, cpus: Vec<u32>) -> GraphTarget {
    GraphTarget {
        label,
        core_type: shared_core_type(topo, &cpus),
        policies: policies_of(topo, &cpus),
        cpus,
    }
}

/// The groups sbc-bench's `-g` variant tests, in its order. Only online CPUs that have a
/// policy count; a CPU list naming other CPUs is an error.
pub fn targets(topo: &Topology, variant: &GraphVariant) -> Result<Vec<GraphTarget>, String> {
    let online = topo.online();
    let clusters: Vec<Vec<u32>> = topo
        .clusters
        .iter()
        .map(|c| {
            c.cpus
                .iter()
                .copied()
                .filter(|x| online.contains(x))
                .collect::<Vec<u32>>()
        })
        .filter(|c| !c.is_empty())
        .collect();
    let cores = || -> Vec<GraphTarget> {
        clusters
            .iter()
            .map(|c| target(topo, format!("CPU {}", c[0]), vec![c[0]]))
            .collect()
    };
    let per_cluster = || -> Vec<GraphTarget> {
        clusters
            .iter()
            .map(|c| target(topo, range_label(c), c.clone()))
            .collect()
    };
    let by_type = groups_by_core_type(topo, &online);
    let core_clusters = || -> Vec<GraphTarget> {
        if by_type.is_empty() {
            return per_cluster();
        }
        by_type
            .iter()
            .map(|(c, _)| target(topo, range_label(c), c.clone()))
            .collect()
    };
    let all = || target(topo, "all CPU cores".to_string(), online.clone());
    let out = match variant {
        GraphVariant::AllCores => vec![all()],
        GraphVariant::Cores => cores(),
        GraphVariant::Clusters => per_cluster(),
        GraphVariant::CoreClusters => core_clusters(),
        GraphVariant::All => {
            let mut v = cores();
            v.extend(per_cluster());
            if !by_type.is_empty() && by_type.len() != clusters.len() {
                v.extend(core_clusters());
            }
            if clusters.len() > 1 {
                v.push(all());
            }
            v
        }
        GraphVariant::CpuList(list) => {
            if let Some(bad) = list.iter().find(|c| !online.contains(c)) {
                return Err(format!(
                    "CPU {bad} is not an online CPU of this machine (online: {})",
                    format_list(&online)
                ));
            }
            vec![target(
                topo,
                format!("CPU core(s) {}", format_list(list)),
                list.clone(),
            )]
        }
    };
    let out: Vec<GraphTarget> = out.into_iter().filter(|t| !t.policies.is_empty()).collect();
    if out.is_empty() {
        return Err("no CPU to test has a cpufreq policy".to_string());
    }
    Ok(out)
}

/// The OPPs walked for a group, lowest first: those of its highest-numbered policy (as
/// sbc-bench takes its "biggest cluster"), from `MinKHz` (600 MHz) to `MaxKHz`.
pub fn opps(walked: &Policy, cfg: &RunConfig) -> Vec<u64> {
    let min = cfg.min_khz.unwrap_or(DEFAULT_MIN_KHZ);
    let max = cfg.max_khz.unwrap_or(u64::MAX);
    let mut v: Vec<u64> = walked
        .opps_khz
        .iter()
        .copied()
        .filter(|&f| f >= min && f <= max)
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn repetitions(g: &GraphConfig) -> u32 {
    g.repetitions.max(MIN_REPETITIONS)
}

fn run_seconds(cfg: &RunConfig) -> (f64, f64) {
    if cfg.quick { QUICK_RUN_S } else { RUN_S }
}

/// The graph's plan, made before the policies are read (the runner's tune phase): the
/// idle step with a meter, then one step per group, OPPs guessed. [`execute`] replaces it
/// with [`plan_for`] once the groups are known.
pub fn plan(cfg: &RunConfig, g: &GraphConfig, m: &PlanInput) -> Plan {
    let clusters = m.clusters.max(1);
    let groups = m.core_type_groups;
    let runs = match &g.variant {
        GraphVariant::AllCores | GraphVariant::CpuList(_) => 1,
        GraphVariant::Cores | GraphVariant::Clusters => clusters,
        GraphVariant::CoreClusters => groups.max(1).min(clusters),
        GraphVariant::All => {
            let types = if groups > 0 && groups != clusters {
                groups
            } else {
                0
            };
            2 * clusters + types + usize::from(clusters > 1)
        }
    };
    let opps = if m.opps_to_walk > 0 {
        m.opps_to_walk as f64 / clusters as f64
    } else {
        OPPS_GUESS
    };
    let steps = idle_step(g)
        .into_iter()
        .chain((0..runs).map(|_| graph_step(cfg, g, opps)))
        .collect();
    Plan {
        steps,
        skipped: Vec::new(),
    }
}

fn idle_step(g: &GraphConfig) -> Option<Step> {
    g.power.as_ref().map(|_| Step {
        kind: GraphStep::Idle.into(),
        min_s: g.idle_s as f64,
        max_s: g.idle_s as f64 + 5.0,
    })
}

fn graph_step(cfg: &RunConfig, g: &GraphConfig, opps: f64) -> Step {
    let (lo, hi) = run_seconds(cfg);
    let n = opps * f64::from(repetitions(g));
    Step {
        kind: GraphStep::Walk.into(),
        min_s: n * lo,
        max_s: n * hi,
    }
}

/// The plan once the groups and their OPP counts are known.
pub fn plan_for(cfg: &RunConfig, g: &GraphConfig, opps_per_group: &[usize]) -> Plan {
    let steps = idle_step(g)
        .into_iter()
        .chain(opps_per_group.iter().map(|&n| graph_step(cfg, g, n as f64)))
        .collect();
    Plan {
        steps,
        skipped: Vec::new(),
    }
}

// ---- Holding OPPs ----

/// How OPPs are held on this machine: `userspace` where every policy offers it (and has
/// `scaling_setspeed`), else the limits.
pub fn hold_method(root: &SysRoot, policies: &[Policy]) -> HoldMethod {
    let userspace = policies.iter().all(|p| {
        p.available_governors.iter().any(|g| g == "userspace")
            && root.exists(policy_attr(p.id, "scaling_setspeed"))
    });
    if userspace {
        HoldMethod::Userspace
    } else {
        HoldMethod::MinMax
    }
}

/// The value a policy can take nearest to `khz`: within its hardware limits (a little
/// cluster asked for a big cluster's 2.4 GHz stays at its own maximum, as the kernel
/// would clamp it).
fn clamp(p: &Policy, khz: u64) -> u64 {
    let lo = p.cpuinfo_min_khz.unwrap_or(0);
    let hi = p.cpuinfo_max_khz.unwrap_or(u64::MAX).max(lo);
    khz.clamp(lo, hi)
}

/// A policy's (scaling_min_freq, scaling_max_freq) as last set or read, kHz.
type Limits = (Option<u64>, Option<u64>);

/// Holds policies at chosen clocks through one restoring guard.
struct Holder<'a> {
    root: &'a SysRoot,
    tuning: Tuning,
    method: HoldMethod,
    /// Current limits per policy (min, max), for the order of limit writes.
    limits: Vec<(u32, Limits)>,
}

impl<'a> Holder<'a> {
    fn new(root: &'a SysRoot, method: HoldMethod) -> Result<Self, String> {
        Ok(Self {
            root,
            tuning: Tuning::new(root).map_err(|e| e.to_string())?,
            method,
            limits: Vec::new(),
        })
    }

    fn set(&mut self, p: &Policy, khz: u64) -> Result<(), TuneError> {
        let khz = clamp(p, khz);
        match self.method {
            HoldMethod::Userspace => {
                self.tuning
                    .set(policy_attr(p.id, "scaling_governor"), "userspace")?;
                self.tuning
                    .set_volatile(policy_attr(p.id, "scaling_setspeed"), &khz.to_string())
            }
            HoldMethod::MinMax => self.limits(p.id, khz),
        }
    }

    /// Both limits to `khz`, raising the maximum first when going up and the minimum
    /// first when going down (kernels refuse a minimum above the maximum).
    fn limits(&mut self, policy: u32, khz: u64) -> Result<(), TuneError> {
        let root = self.root;
        let i = match self.limits.iter().position(|(id, _)| *id == policy) {
            Some(i) => i,
            None => {
                let cur = (
                    root.parse::<u64>(policy_attr(policy, "scaling_min_freq")),
                    root.parse::<u64>(policy_attr(policy, "scaling_max_freq")),
                );
                self.limits.push((policy, cur));
                self.limits.len() - 1
            }
        };
        let (min, max) = (
            policy_attr(policy, "scaling_min_freq"),
            policy_attr(policy, "scaling_max_freq"),
        );
        let v = khz.to_string();
        let up = self.limits[i].1.1.is_some_and(|m| khz > m);
        let order = if up { [&max, &min] } else { [&min, &max] };
        let t = &self.tuning;
        let res = match t.set(order[0], &v).and_then(|()| t.set(order[1], &v)) {
            Err(TuneError::Write { .. }) => t.set(order[1], &v).and_then(|()| t.set(order[0], &v)),
            other => other,
        };
        if res.is_ok() {
            self.limits[i].1 = (Some(khz), Some(khz));
        }
        res
    }

    fn restore(&self) -> Vec<String> {
        self.tuning
            .restore()
            .iter()
            .map(|e| e.to_string())
            .collect()
    }
}

// ---- Measuring, behind the executor seam ----

/// The clock of `cpu` at an OPP.
#[derive(Debug, Clone)]
pub struct ClockAt {
    /// Where it is measured.
    pub cpu: u32,
    /// The OPP held (canned results derive from it).
    pub opp_khz: u64,
}

impl Benchmark for ClockAt {
    const NAME: &'static str = "graph-clock";
    type Options = clock::ClockOptions;
    type Output = f64;

    fn run(
        &self,
        opts: &clock::ClockOptions,
        _progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<f64, BenchError> {
        clock::measure_on(self.cpu, opts, cancel)
            .map(|m| m.mhz)
            .map_err(BenchError::Failed)
    }
}

impl Canned for ClockAt {
    /// Half a percent below the OPP, as many boards run (`1600 / 1590`).
    fn canned(&self, _opts: &clock::ClockOptions) -> Result<f64, BenchError> {
        Ok(self.opp_khz as f64 / 1000.0 * 0.995)
    }
}

/// One MIPS figure on a group of CPUs.
#[derive(Debug, Clone)]
pub struct MipsAt<'a> {
    /// CPUs it runs on (7-Zip `-mmt=N` restricted to them; one native thread each).
    pub cpus: &'a [u32],
    /// 7-Zip or native.
    pub tool: MipsTool,
    /// The OPP held (canned results derive from it).
    pub opp_khz: u64,
    /// Core type (canned results derive from it).
    pub core_type: Option<&'a str>,
}

impl Benchmark for MipsAt<'_> {
    const NAME: &'static str = "graph-mips";
    type Options = lzma::LzmaOptions;
    type Output = f64;

    fn run(
        &self,
        opts: &lzma::LzmaOptions,
        _progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<f64, BenchError> {
        match self.tool {
            MipsTool::SevenZip => {
                let z = SevenZip::find(cancel).ok_or_else(|| {
                    BenchError::Unsupported("7-Zip is not installed (7z, 7za or 7zz)".into())
                })?;
                let threads = u32::try_from(self.cpus.len()).unwrap_or(u32::MAX).max(1);
                Ok(z.bench(threads, self.cpus, None, cancel)?
                    .table
                    .total_rating_mips as f64)
            }
            MipsTool::NativeLzma => {
                let tick = || {};
                let r = match self.cpus {
                    [one] => lzma::run_on(*one, opts, cancel, &tick)?,
                    many => lzma::run_parallel(many, opts, cancel, &tick)?,
                };
                Ok(r.total_rating_mips)
            }
        }
    }
}

impl Canned for MipsAt<'_> {
    /// MIPS per MHz and core of the corpus' boards: Cortex-A76 ≈ 2.0, A55 ≈ 1.0.
    fn canned(&self, _opts: &lzma::LzmaOptions) -> Result<f64, BenchError> {
        let per_mhz = match self.core_type {
            Some(t) if t.contains("A7") => 2.0,
            Some(t) if t.contains("A5") => 1.0,
            _ => 1.5,
        };
        Ok(self.opp_khz as f64 / 1000.0 * per_mhz * self.cpus.len() as f64)
    }
}

// ---- The meter ----

/// Read `meter` now, then every `every` until `stop` fires, then once more; returns the
/// readings in mW (failed readings are left out).
fn sample(meter: &mut dyn PowerMeter, every: Duration, stop: &CancellationToken) -> Vec<f64> {
    let mut out = Vec::new();
    let mut read = |m: &mut dyn PowerMeter| {
        if let Ok(r) = m.read() {
            if r.mw.is_finite() {
                out.push(r.mw);
            }
        }
    };
    read(meter);
    while stop.sleep(every) {
        read(meter);
    }
    read(meter);
    out
}

/// Run `work` while the meter (if any) is sampled on its own thread; returns what `work`
/// returned and the mean mW.
fn metered<T>(
    meter: &mut Option<Box<dyn PowerMeter>>,
    every: Duration,
    work: impl FnOnce() -> T,
) -> (T, Vec<f64>) {
    let Some(m) = meter.as_mut() else {
        return (work(), Vec::new());
    };
    let stop = CancellationToken::new();
    std::thread::scope(|s| {
        let sampler = s.spawn(|| sample(m.as_mut(), every, &stop));
        let out = work();
        stop.cancel();
        let readings = sampler.join().unwrap_or_default();
        (out, readings)
    })
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

// ---- The steps ----

/// What the graph's steps share.
struct Graphing {
    cfg: GraphConfig,
    method: HoldMethod,
    tool: MipsTool,
    targets: Vec<GraphTarget>,
    temp: Option<thermal::ThermalSource>,
    meter: Option<Box<dyn PowerMeter>>,
}

fn soc_temp(root: &SysRoot, src: Option<&thermal::ThermalSource>) -> Option<f64> {
    thermal::read_temp_c(root, src?)
}

/// The idle step: governors to `powersave` where offered (sbc-bench), then `idle_s` of
/// meter readings; the governors come back after.
fn idle(ctx: &RunContext<'_>, policies: &[Policy], g: &mut Graphing) -> (IdleBaseline, StepStatus) {
    let t0 = Instant::now();
    let guard = match Tuning::new(ctx.root) {
        Ok(g) => g,
        Err(e) => {
            let base = IdleBaseline {
                seconds: 0.0,
                temp_c: None,
                mw: None,
                readings: 0,
            };
            return (base, StepStatus::Failed(e.to_string()));
        }
    };
    let mut errors = Vec::new();
    for p in policies {
        if p.available_governors.iter().any(|x| x == "powersave") {
            if let Err(e) = guard.set(policy_attr(p.id, "scaling_governor"), "powersave") {
                errors.push(e.to_string());
            }
        }
    }
    let total = Duration::from_secs(g.cfg.idle_s);
    let cancel = ctx.cancel;
    let (_, readings) = metered(
        &mut g.meter,
        IDLE_METER_EVERY.min(total.max(METER_EVERY)),
        || cancel.sleep(total),
    );
    errors.extend(guard.restore().iter().map(|e| e.to_string()));
    let base = IdleBaseline {
        seconds: t0.elapsed().as_secs_f64(),
        temp_c: soc_temp(ctx.root, g.temp.as_ref()),
        mw: mean(&readings),
        readings: readings.len(),
    };
    let status = if readings.is_empty() {
        StepStatus::Failed("the power meter gave no reading while idle".to_string())
    } else if errors.is_empty() {
        StepStatus::Ok
    } else {
        StepStatus::Failed(errors.join("; "))
    };
    (base, status)
}

/// Put every policy at its lowest clock (sbc-bench: the clusters not tested stay slow).
fn all_to_minimum(h: &mut Holder<'_>, policies: &[Policy]) -> Vec<String> {
    let mut errors = Vec::new();
    for p in policies {
        if let Err(e) = h.set(p, p.cpuinfo_min_khz.unwrap_or(0)) {
            errors.push(e.to_string());
        }
    }
    errors
}

/// One OPP: hold it, measure the clock, then MIPS, temperature and mW per repetition.
fn point(
    exec: &mut dyn Executor,
    env: &Env<'_>,
    g: &mut Graphing,
    t: &GraphTarget,
    measure_cpu: u32,
    khz: u64,
) -> GraphPoint {
    let mut p = GraphPoint {
        sysfs_khz: khz,
        measured_mhz: None,
        mips: Vec::new(),
        temps_c: Vec::new(),
        mw: Vec::new(),
        error: None,
    };
    let copts = if env.cfg.quick {
        clock::ClockOptions::quick()
    } else {
        clock::ClockOptions::standard()
    };
    let clock = ClockAt {
        cpu: measure_cpu,
        opp_khz: khz,
    };
    match exec::call(exec, env, clock, copts) {
        Ok(mhz) => p.measured_mhz = Some(mhz),
        Err(e) => p.error = Some(format!("clock: {e}")),
    }
    let lopts = if env.cfg.quick {
        lzma::LzmaOptions::quick()
    } else {
        lzma::LzmaOptions::default()
    };
    for _ in 0..repetitions(&g.cfg) {
        if env.cancel.is_cancelled() {
            break;
        }
        let bench = MipsAt {
            cpus: &t.cpus,
            tool: g.tool,
            opp_khz: khz,
            core_type: t.core_type.as_deref(),
        };
        let (res, readings) = metered(&mut g.meter, METER_EVERY, || {
            exec::call(exec, env, bench, lopts.clone())
        });
        match res {
            Ok(mips) => {
                p.mips.push(mips);
                if let Some(c) = soc_temp(env.root, g.temp.as_ref()) {
                    p.temps_c.push(c);
                }
                if let Some(w) = mean(&readings) {
                    p.mw.push(w);
                }
            }
            Err(e) => {
                p.error = Some(e.to_string());
                break;
            }
        }
    }
    p
}

/// One group walked through its OPPs through its own guard, restored at the end.
fn walk(
    exec: &mut dyn Executor,
    env: &Env<'_>,
    g: &mut Graphing,
    t: &GraphTarget,
) -> (GraphRun, StepStatus) {
    let policies: Vec<&Policy> = env
        .policies
        .iter()
        .filter(|p| t.policies.contains(&p.id))
        .collect();
    let walked = policies.iter().max_by_key(|p| p.id).copied();
    let mut run = GraphRun {
        label: t.label.clone(),
        cpus: t.cpus.clone(),
        core_type: t.core_type.clone(),
        policies: t.policies.clone(),
        walked_policy: walked.map_or(0, |p| p.id),
        measure_cpu: t.cpus[0],
        tool: g.tool,
        points: Vec::new(),
        restore_errors: Vec::new(),
        cancelled: false,
    };
    let Some(walked) = walked else {
        return (run, StepStatus::Failed("no cpufreq policy".to_string()));
    };
    run.measure_cpu = t
        .cpus
        .iter()
        .copied()
        .find(|c| walked.cpus.contains(c))
        .unwrap_or(t.cpus[0]);
    let mut holder = match Holder::new(env.root, g.method) {
        Ok(h) => h,
        Err(e) => return (run, StepStatus::Failed(e)),
    };
    let mut errors = all_to_minimum(&mut holder, env.policies);
    let list = opps(walked, env.cfg);
    for (i, &khz) in list.iter().enumerate() {
        if env.cancel.is_cancelled() {
            run.cancelled = true;
            break;
        }
        let held: Vec<String> = policies
            .iter()
            .filter_map(|p| holder.set(p, khz).err().map(|e| e.to_string()))
            .collect();
        let pt = if held.is_empty() {
            point(exec, env, g, t, run.measure_cpu, khz)
        } else {
            GraphPoint {
                sysfs_khz: khz,
                measured_mhz: None,
                mips: Vec::new(),
                temps_c: Vec::new(),
                mw: Vec::new(),
                error: Some(held.join("; ")),
            }
        };
        if let Some(e) = &pt.error {
            errors.push(format!("{} MHz: {e}", khz / 1000));
        }
        run.points.push(pt);
        (env.progress)((i + 1) as f64 / list.len().max(1) as f64);
    }
    run.restore_errors = holder.restore();
    errors.extend(run.restore_errors.iter().cloned());
    let status = if errors.is_empty() {
        StepStatus::Ok
    } else {
        StepStatus::Failed(errors.join("; "))
    };
    (run, status)
}

/// The efficiency graph as a mode of the engine: the idle step (with a meter), then one
/// step per group of CPUs walked through its OPPs.
pub struct Graph {
    /// What to draw.
    pub cfg: GraphConfig,
    /// The power meter, if the user gave one (`--power`).
    meter: Option<Box<dyn PowerMeter>>,
    /// The walk's settings, once the machine is tuned.
    graphing: Option<Graphing>,
    /// The next group of CPUs to walk.
    next_target: usize,
}

impl Graph {
    /// The mode for `cfg`, reading `meter` when there is one.
    pub fn new(cfg: GraphConfig, meter: Option<Box<dyn PowerMeter>>) -> Self {
        Self {
            cfg,
            meter,
            graphing: None,
            next_target: 0,
        }
    }
}

impl Mode for Graph {
    type Step = GraphStep;

    fn plan(&self, cfg: &RunConfig, input: &PlanInput) -> Plan {
        plan(cfg, &self.cfg, input)
    }

    /// The groups to walk and their OPPs counted for the plan, the tool, the hold method
    /// and the results opened.
    fn prepare(&mut self, ctx: &RunContext<'_>, run: &mut Running, ui: &mut dyn Ui) {
        let gcfg = &self.cfg;
        let targets = match targets(&run.topo, &gcfg.variant) {
            Ok(t) => t,
            Err(e) => {
                // Checked before the run by the command; here for library callers.
                ui.line(&format!("Not able to draw performance graph(s): {e}"));
                Vec::new()
            }
        };
        let opp_counts: Vec<usize> = targets
            .iter()
            .map(|t| {
                run.policies
                    .iter()
                    .filter(|p| t.policies.contains(&p.id))
                    .max_by_key(|p| p.id)
                    .map_or(0, |p| opps(p, ctx.cfg).len())
            })
            .collect();
        run.report.plan = plan_for(ctx.cfg, gcfg, &opp_counts);
        let tool = if ctx.host.tools(ctx.cancel).sevenzip {
            MipsTool::SevenZip
        } else {
            MipsTool::NativeLzma
        };
        let method = hold_method(ctx.root, &run.policies);
        let meter = self.meter.take();
        run.report.mode = ModeResults::Graph(GraphResults {
            method,
            repetitions: repetitions(gcfg),
            min_khz: ctx.cfg.min_khz.unwrap_or(DEFAULT_MIN_KHZ),
            meter: meter.as_ref().map(|m| m.describe()),
            idle: None,
            runs: Vec::new(),
        });
        if meter.is_none() {
            run.report.plan.steps.retain(|s| s.kind != GraphStep::Idle);
        }
        self.graphing = Some(Graphing {
            cfg: gcfg.clone(),
            method,
            tool,
            targets,
            temp: thermal::pick_source(ctx.root),
            meter,
        });
    }

    /// Process snapshots are left out: the graph's findings name no background load.
    fn sample_spec(&self) -> SampleSpec {
        SampleSpec::full()
    }

    fn run_step(&mut self, _i: usize, kind: GraphStep, s: &mut StepScope<'_, '_>) -> StepRecord {
        let Some(g) = self.graphing.as_mut() else {
            return runner::timed_step(kind.into(), s, &note, &mut |_, _| {
                StepStatus::Failed("the graph was not prepared".to_string())
            });
        };
        // sbc-bench's `Checking CPU 4-5: …`: which group this step walks.
        let target = (kind == GraphStep::Walk)
            .then(|| g.targets.get(self.next_target).cloned())
            .flatten();
        if let Some(t) = &target {
            s.ui.line(&format!("Checking {} ({}):", t.label, format_list(&t.cpus)));
        }
        if kind == GraphStep::Walk {
            self.next_target += 1;
        }
        let (ctx, policies) = (s.ctx, s.run.policies.clone());
        runner::timed_step(
            kind.into(),
            s,
            &note,
            &mut |w, report| match (kind, &target) {
                (GraphStep::Idle, _) => {
                    let (base, status) = idle(ctx, &policies, g);
                    if let Some(r) = report.mode.graph_mut() {
                        r.idle = Some(base);
                    }
                    status
                }
                (GraphStep::Walk, Some(t)) => {
                    let (r, status) = walk(w.exec, w.env, g, t);
                    if let Some(res) = report.mode.graph_mut() {
                        res.runs.push(r);
                    }
                    status
                }
                (GraphStep::Walk, None) => {
                    StepStatus::Failed("no group of CPUs left to test".to_string())
                }
            },
        )
    }
}

/// What follows `Done` on a graph step's line: why it failed, or nothing.
fn note(status: &StepStatus) -> String {
    match status {
        StepStatus::Failed(e) => format!(" (failed: {e})"),
        StepStatus::Cancelled => " (interrupted)".to_string(),
        StepStatus::Ok => String::new(),
    }
}

/// Draw the efficiency graph: the engine's preflight and tune, this mode's steps, the
/// engine's finish (restore, validate, the final files). `meter`: the power meter, if
/// the user gave one (`--power`). Without a graph in the settings, the standard run.
pub fn execute(
    ctx: &RunContext<'_>,
    exec: &mut dyn Executor,
    ui: &mut dyn Ui,
    meter: Option<Box<dyn PowerMeter>>,
) -> Result<RunReport, NotStarted> {
    let Some(gcfg) = ctx.cfg.kind.graph().cloned() else {
        return crate::run::standard::execute(ctx, exec, ui);
    };
    runner::execute(ctx, &mut Graph::new(gcfg, meter), exec, ui)
}

/// Why the graph cannot run here, before anything is changed: no cpufreq (sbc-bench's
/// words), a CPU list naming CPUs this machine lacks, OPPs nobody may set.
pub fn check(root: &SysRoot, cfg: &RunConfig) -> Result<(), String> {
    let (policies, topo) = crate::sys::cpu::read(root);
    if let Some(why) = refusal(&policies) {
        return Err(why);
    }
    if let Some(g) = cfg.kind.graph() {
        targets(&topo, &g.variant)?;
    }
    if root.is_read_only() {
        return Err(
            "the efficiency graph sets cpufreq OPPs, and --sysroot trees are only read: \
             pass --sysroot-writable to walk a copy's OPPs"
                .to_string(),
        );
    }
    if root.is_host() && !nix::unistd::geteuid().is_root() {
        return Err("the efficiency graph sets cpufreq OPPs: run it as root".to_string());
    }
    Ok(())
}

/// The graph's part of the lifecycle (`run::drive`): its meter's line, its tables and
/// its page.
pub struct GraphCommand {
    mode: Graph,
    /// `Power: …`, with a meter.
    meter: Option<String>,
}

impl ModeCommand for GraphCommand {
    type Mode = Graph;
    type Options = ();

    fn prepare(root: &SysRoot, cfg: &RunConfig, (): ()) -> anyhow::Result<Result<Self, Outcome>> {
        let Some(gcfg) = cfg.kind.graph().cloned() else {
            anyhow::bail!("the efficiency graph's settings are missing");
        };
        if let Err(why) = check(root, cfg) {
            eprintln!("{why}");
            return Ok(Err(Outcome::Failed));
        }
        let meter: Option<Box<dyn PowerMeter>> = match &gcfg.power {
            Some(spec) => match crate::sys::meter::open(spec, root) {
                Ok(m) => Some(m),
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(Err(Outcome::Failed));
                }
            },
            None => None,
        };
        Ok(Ok(Self {
            meter: meter.as_ref().map(|m| m.describe()),
            mode: Graph::new(gcfg, meter),
        }))
    }

    fn files(&mut self, _cfg: &RunConfig, sink: &mut ExportSink) -> anyhow::Result<()> {
        if let Some(h) = &self.mode.cfg.html {
            sink.add(Format::GraphHtml, h)?;
        }
        Ok(())
    }

    fn mode(&mut self) -> &mut Graph {
        &mut self.mode
    }

    fn banner(&self) -> String {
        let banner = format!(
            "sbc-bench {} (Rust): efficiency graph",
            env!("CARGO_PKG_VERSION")
        );
        match &self.meter {
            Some(m) => format!("{banner}\nPower: {m}"),
            None => banner,
        }
    }

    fn summary(&self, report: &RunReport, sink: &ExportSink) {
        if let Some(g) = report.mode.graph() {
            print!("\n{}", crate::report::page::graph::log_sections(g));
        }
        print!(
            "{}",
            crate::report::log::run::validation(report, crate::output::color())
        );
        if let Some(l) = sink.path(Format::Log) {
            println!("Full log: {}", l.display());
        }
    }

    fn after_store(&self, sink: &ExportSink) {
        if let Some(h) = sink.path(Format::GraphHtml) {
            println!("Please check {}", h.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fixture(board: &str) -> SysRoot {
        SysRoot::new(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/sysroots")
                .join(board),
        )
    }

    fn labels(board: &str, v: GraphVariant) -> Vec<String> {
        let topo = crate::sys::cpu::read(&fixture(board)).1;
        targets(&topo, &v)
            .unwrap()
            .into_iter()
            .map(|t| t.label)
            .collect()
    }

    #[test]
    fn variants_pick_sbc_bench_s_groups_on_rk3588() {
        assert_eq!(labels("rock-5b", GraphVariant::AllCores), ["all CPU cores"]);
        assert_eq!(
            labels("rock-5b", GraphVariant::Cores),
            ["CPU 0", "CPU 4", "CPU 6"]
        );
        assert_eq!(
            labels("rock-5b", GraphVariant::Clusters),
            ["CPU 0-3", "CPU 4-5", "CPU 6-7"]
        );
        // Core types: 4-7 are one group although two clusters.
        assert_eq!(
            labels("rock-5b", GraphVariant::CoreClusters),
            ["CPU 0-3", "CPU 4-7"]
        );
        assert_eq!(
            labels("rock-5b", GraphVariant::All),
            [
                "CPU 0",
                "CPU 4",
                "CPU 6",
                "CPU 0-3",
                "CPU 4-5",
                "CPU 6-7",
                "CPU 0-3",
                "CPU 4-7",
                "all CPU cores"
            ]
        );
        let topo = crate::sys::cpu::read(&fixture("rock-5b")).1;
        let t = targets(&topo, &GraphVariant::CpuList(vec![0, 4])).unwrap();
        assert_eq!(t[0].label, "CPU core(s) 0,4");
        assert_eq!(t[0].policies, [0, 4]);
        assert!(
            targets(&topo, &GraphVariant::CpuList(vec![9]))
                .unwrap_err()
                .contains("CPU 9")
        );
    }

    #[test]
    fn opps_from_600_mhz_up_lowest_first() {
        let root = fixture("rock-5b");
        let policies = crate::sys::cpufreq::read_policies(&root);
        let p4 = policies.iter().find(|p| p.id == 4).unwrap();
        let v = opps(p4, &RunConfig::default());
        assert_eq!(v.first(), Some(&600_000));
        assert_eq!(v.last(), Some(&2_400_000));
        assert!(!v.contains(&408_000));
        let cfg = RunConfig {
            min_khz: Some(1_000_000),
            max_khz: Some(2_000_000),
            ..Default::default()
        };
        assert_eq!(
            opps(p4, &cfg),
            [1_008_000, 1_200_000, 1_416_000, 1_608_000, 1_800_000]
        );
    }

    #[test]
    fn no_cpufreq_is_refused_with_sbc_bench_s_words() {
        let policies = crate::sys::cpufreq::read_policies(&fixture("x86-vm"));
        let why = refusal(&policies).unwrap();
        assert!(why.starts_with("No cpufreq support available."), "{why}");
        let rk = crate::sys::cpufreq::read_policies(&fixture("rock-5b"));
        assert_eq!(refusal(&rk), None);
    }

    #[test]
    fn a_little_cluster_stays_at_its_own_maximum() {
        let p = Policy {
            cpuinfo_min_khz: Some(408_000),
            cpuinfo_max_khz: Some(1_800_000),
            ..Default::default()
        };
        assert_eq!(clamp(&p, 2_400_000), 1_800_000);
        assert_eq!(clamp(&p, 100_000), 408_000);
        assert_eq!(clamp(&p, 1_200_000), 1_200_000);
    }

    struct Steady(f64);
    impl PowerMeter for Steady {
        fn describe(&self) -> String {
            "steady".into()
        }
        fn read(
            &mut self,
        ) -> Result<crate::sys::meter::PowerReading, crate::sys::meter::MeterError> {
            Ok(crate::sys::meter::PowerReading {
                mw: self.0,
                energy_mwh: None,
                volts: None,
                amps: None,
            })
        }
    }

    #[test]
    fn the_meter_is_read_before_and_after_the_work() {
        let mut m: Option<Box<dyn PowerMeter>> = Some(Box::new(Steady(2390.0)));
        let (v, readings) = metered(&mut m, Duration::from_secs(60), || 7);
        assert_eq!(v, 7);
        assert!(readings.len() >= 2, "{readings:?}");
        assert_eq!(mean(&readings), Some(2390.0));
        let (_, none) = metered(&mut None, METER_EVERY, || ());
        assert!(none.is_empty());
    }
}
