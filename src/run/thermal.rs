//! The thermal test as a mode of the one run engine (sbc-bench's `TempTest`, `-t`/`-T`, and
//! `-M`): its plan, and its steps — the wait for the SoC to reach the target temperature
//! (cooling down, or heated with scrypt), minutes of scrypt while the monitor records, and
//! `-M`'s AES-256 before and after. Preflight, tuning, the monitor, the export sink and
//! the restore are the runner's; this file only adds what the steps do.

use std::time::{Duration, Instant};

use crate::bench::aes::Algorithm;
use crate::bench::pin::Target;
use crate::bench::scrypt::{self, Scrypt, ScryptRun, Stress};
use crate::bench::{BenchError, Benchmark, Progress};
use crate::diagnose::Finding;
use crate::output::Outcome;
use crate::record::config::RunConfig;
use crate::record::mode::thermal::{ThermalConfig, ThermalMode, ThermalStep, ThermalWait};
use crate::record::plan::{Plan, StandardStep, Step, StepKind};
use crate::record::run::StepRecord;
use crate::record::run::{RunReport, StepStatus};
use crate::report::export::{ConsoleSummary, ExportSink, Exporter, Format};
use crate::run::console::ThermalConsole;
use crate::run::drive::ModeCommand;
use crate::run::exec::{self, Canned, Env, Executor};
use crate::run::plan::PlanInput;
use crate::run::runner::{self, Mode, StepScope, Ui};
use crate::shutdown::CancellationToken;
use crate::sys::root::SysRoot;
use crate::sys::thermal::{self, ThermalSource};
use std::io::IsTerminal;

/// The longest a cool-down or heat-up is expected to take (the plan's estimate only; the
/// wait itself lasts as long as it takes, or until Ctrl-C).
const WAIT_ESTIMATE_S: f64 = 600.0;

/// What the thermal test plans: the standard run's clock checks around its own steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThermalTestStep {
    /// A step of the standard run's (the OPP walk, `-M`'s hot clock check).
    Standard(StandardStep),
    /// A step of its own (the wait, the load, AES-256).
    Thermal(ThermalStep),
}

impl TryFrom<StepKind> for ThermalTestStep {
    /// A kind of another mode.
    type Error = StepKind;

    fn try_from(k: StepKind) -> Result<Self, StepKind> {
        match k {
            StepKind::Standard(s) => Ok(Self::Standard(s)),
            StepKind::Thermal(t) => Ok(Self::Thermal(t)),
            other => Err(other),
        }
    }
}

impl From<ThermalTestStep> for StepKind {
    fn from(k: ThermalTestStep) -> Self {
        match k {
            ThermalTestStep::Standard(s) => s.into(),
            ThermalTestStep::Thermal(t) => t.into(),
        }
    }
}

/// The thermal test as a mode of the engine.
#[derive(Debug, Clone)]
pub struct Thermal {
    /// What to test.
    pub cfg: ThermalConfig,
}

impl Mode for Thermal {
    /// sbc-bench's `TempTest` leaves the governors as they are (`BasicSetup nochange`):
    /// the test is of the board as configured. `-M` runs inside its standard flow, which
    /// sets `performance`.
    fn keeps_governors(&self) -> bool {
        matches!(self.cfg.mode, ThermalMode::CoolTo | ThermalMode::HeatTo)
    }

    type Step = ThermalTestStep;

    fn plan(&self, cfg: &RunConfig, input: &PlanInput) -> Plan {
        plan(&self.cfg, cfg, input)
    }

    fn run_step(
        &mut self,
        i: usize,
        kind: ThermalTestStep,
        s: &mut StepScope<'_, '_>,
    ) -> StepRecord {
        let plan = s.run.report.plan.clone();
        let run_start = s.run_start;
        let note =
            |st: &StepStatus| runner::step_note(&plan, i, st, run_start.elapsed().as_secs_f64());
        let t = self.cfg;
        runner::timed_step(kind.into(), s, &note, &mut |w, report| match kind {
            ThermalTestStep::Thermal(k) => step(t, k, w.exec, w.env, w.targets, report, &mut *w.ui),
            ThermalTestStep::Standard(k) => {
                let r = &mut report.results;
                crate::run::standard::run_step(k, w.exec, w.env, w.targets, r)
            }
        })
    }

    fn findings(&self, report: &RunReport) -> Vec<Finding> {
        findings(report)
    }
}

/// The thermal test's steps: the OPP walk (sbc-bench's `CheckClockspeedsAndSensors`),
/// then for `-t`/`-T` the wait and the load; for `-M` AES-256, the load, AES-256 again
/// and the hot clock check, as sbc-bench v0.9.72's main flow with `-M`.
pub fn plan(t: &ThermalConfig, cfg: &RunConfig, m: &PlanInput) -> Plan {
    let clusters = m.clusters.max(1) as f64;
    let per_measure = if cfg.quick { (0.05, 0.2) } else { (0.5, 1.2) };
    let points = if m.opps_to_walk > 0 {
        m.opps_to_walk as f64
    } else {
        clusters
    };
    let step = |kind: ThermalTestStep, min_s, max_s| Step {
        kind: kind.into(),
        min_s,
        max_s,
    };
    let (own, standard) = (ThermalTestStep::Thermal, ThermalTestStep::Standard);
    let mut steps = vec![step(
        standard(StandardStep::ClockCold),
        points * per_measure.0,
        points * per_measure.1,
    )];
    let load = step(
        own(ThermalStep::ThermalLoad),
        t.duration_s,
        t.duration_s + 5.0,
    );
    match t.mode {
        ThermalMode::CoolTo | ThermalMode::HeatTo => {
            let wait = if t.mode == ThermalMode::CoolTo {
                ThermalStep::CoolDown
            } else {
                ThermalStep::HeatUp
            };
            steps.push(step(own(wait), 0.0, WAIT_ESTIMATE_S));
            steps.push(load);
        }
        ThermalMode::MemoryController => {
            // 6 buffer sizes natively per cluster, and openssl's 1 s each when installed.
            let aes = clusters
                * 6.0
                * (crate::run::plan::aes_seconds_per_size(cfg) + if m.openssl { 1.0 } else { 0.0 });
            steps.push(step(own(ThermalStep::Aes256Before), aes, aes * 1.2));
            steps.push(load);
            steps.push(step(own(ThermalStep::Aes256After), aes, aes * 1.2));
            steps.push(step(
                standard(StandardStep::ClockHot),
                clusters * per_measure.0,
                clusters * per_measure.1,
            ));
        }
    }
    Plan {
        steps,
        skipped: Vec::new(),
    }
}

/// Why the thermal test cannot run here: sbc-bench's words when no sensor can be read.
pub fn refusal(root: &SysRoot) -> Result<(ThermalSource, f64), String> {
    let src = thermal::pick_source(root).ok_or_else(no_source)?;
    let c = thermal::read_temp_c(root, &src).ok_or_else(no_source)?;
    Ok((src, c))
}

fn no_source() -> String {
    "WARNING: No temperature source found. Aborting.".to_string()
}

/// sbc-bench's warning for a sensor that reads below 20 °C (a board in a fridge, or a
/// driver that reports nonsense).
pub fn ominously_low(c: f64) -> Option<String> {
    (c < 20.0).then(|| {
        format!(
            "WARNING: sysfs thermal readout is ominously low: {}°C.",
            whole_degrees(c)
        )
    })
}

/// sbc-bench compares and prints whole degrees, cut (not rounded): `cut -f1 -d'.'`.
pub fn whole_degrees(c: f64) -> i64 {
    c.trunc() as i64
}

/// Run one thermal step; its results go to the report's
/// [`ModeResults::Thermal`](crate::record::run::ModeResults::Thermal) (and
/// `results.aes` / `results.scrypt`, which the standard log renders).
pub fn step(
    t: ThermalConfig,
    kind: ThermalStep,
    exec: &mut dyn Executor,
    env: &Env<'_>,
    targets: &[Target],
    report: &mut RunReport,
    ui: &mut dyn Ui,
) -> StepStatus {
    let RunReport { results, mode, .. } = report;
    let th = mode.thermal_or_open();
    let src = thermal::pick_source(env.root);
    if th.source.is_none() {
        th.source = src.as_ref().map(ThermalSource::label);
    }
    match kind {
        ThermalStep::CoolDown | ThermalStep::HeatUp => {
            let Some(src) = src else {
                return StepStatus::Failed(no_source());
            };
            let mode = if kind == ThermalStep::CoolDown {
                ThermalMode::CoolTo
            } else {
                ThermalMode::HeatTo
            };
            let poll = Duration::from_secs_f64(t.poll_s.max(0.001));
            let mut read = || thermal::read_temp_c(env.root, &src);
            let mut heat = |d: Duration| {
                let (b, o) = stress(env, d);
                let _ = exec::call(exec, env, b, o);
            };
            let w = wait_for_target(
                mode,
                t.target_c,
                poll,
                &mut read,
                &mut heat,
                env.cancel,
                &mut |l| ui.status(l),
            );
            let status = match (w.end_c, env.cancel.is_cancelled()) {
                (_, true) => StepStatus::Cancelled,
                (None, _) => StepStatus::Failed("the temperature could not be read".into()),
                _ => StepStatus::Ok,
            };
            th.wait = Some(w);
            status
        }
        ThermalStep::ThermalLoad => {
            let (b, o) = stress(env, Duration::from_secs_f64(t.duration_s.max(0.001)));
            match exec::call(exec, env, b, o) {
                Ok(s) => {
                    let cancelled = s.cancelled;
                    results.scrypt = Some(s.run);
                    if cancelled {
                        StepStatus::Cancelled
                    } else {
                        StepStatus::Ok
                    }
                }
                Err(e) => StepStatus::Failed(e.to_string()),
            }
        }
        ThermalStep::Aes256Before | ThermalStep::Aes256After => {
            let (bench, mut opts) = exec::aes(env, targets);
            opts.algorithms = vec![Algorithm::Aes256Cbc];
            opts.parallel.clear();
            match exec::call(exec, env, bench, opts) {
                Ok(r) => {
                    if kind == ThermalStep::Aes256Before {
                        results.aes = Some(r);
                    } else {
                        th.aes_after = Some(r);
                    }
                    StepStatus::Ok
                }
                Err(e) => StepStatus::Failed(e.to_string()),
            }
        }
    }
}

/// Consecutive polls whose temperature read fails before a wait gives up: an I2C or
/// hwmon sensor fails a read now and then (and a file being rewritten reads empty), which
/// must not end a cool-down wait on the spot.
pub const MAX_FAILED_READS: u32 = 3;

/// Wait until the SoC is at the target: cooling down (`-t`: while above it) or heated by
/// `heat` (`-T`: while at or below it), reading the temperature every `poll` and saying
/// so each time, in sbc-bench's words. `heat(poll)` runs the load for one poll interval
/// (scrypt on every core); the wait sleeps whatever of the interval is left. Stops when
/// `cancel` fires or the sensor cannot be read [`MAX_FAILED_READS`] polls in a row.
pub fn wait_for_target(
    mode: ThermalMode,
    target_c: f64,
    poll: Duration,
    read: &mut dyn FnMut() -> Option<f64>,
    heat: &mut dyn FnMut(Duration),
    cancel: &CancellationToken,
    say: &mut dyn FnMut(&str),
) -> ThermalWait {
    let target = target_c.trunc() as i64;
    let t0 = Instant::now();
    let first = read();
    let mut w = ThermalWait {
        mode,
        target_c,
        start_c: first,
        end_c: first,
        already_there: false,
        waited_s: 0.0,
        readings: first.map(|c| vec![(0.0, c)]).unwrap_or_default(),
    };
    let Some(c0) = first else {
        return w;
    };
    let heating = mode == ThermalMode::HeatTo;
    let keep_waiting = |c: f64| {
        let c = whole_degrees(c);
        if heating { c <= target } else { c > target }
    };
    if !keep_waiting(c0) {
        w.already_there = true;
        say(&if heating {
            format!(
                "No need to heat the SoC to {target}°C since already at {}°C.",
                whole_degrees(c0)
            )
        } else {
            format!(
                "No need to wait for the SoC chilling since already at {}°C.",
                whole_degrees(c0)
            )
        });
        return w;
    }
    let mut now_c = c0;
    let mut failed = 0;
    while keep_waiting(now_c) && !cancel.is_cancelled() {
        let c = whole_degrees(now_c);
        say(&if heating {
            format!("Heating SoC from current {c}°C to {target}°C. This may take some time...")
        } else {
            format!(
                "Waiting for the SoC cooling down from current {c}°C to {target}°C. This may take some time..."
            )
        });
        let started = Instant::now();
        if heating {
            heat(poll);
        }
        if !cancel.sleep(poll.saturating_sub(started.elapsed())) {
            break;
        }
        match read() {
            Some(c) => {
                failed = 0;
                w.readings.push((t0.elapsed().as_secs_f64(), c));
                w.end_c = Some(c);
                now_c = c;
            }
            None => {
                failed += 1;
                if failed >= MAX_FAILED_READS {
                    w.end_c = None;
                    break;
                }
            }
        }
    }
    w.waited_s = t0.elapsed().as_secs_f64();
    w
}

/// scrypt on every usable CPU for `duration` (the load, and one heat-up interval).
fn stress<'a>(env: &'a Env<'_>, duration: Duration) -> (ThermalStress<'a>, scrypt::ScryptOptions) {
    let opts = scrypt::ScryptOptions {
        duration,
        ..Default::default()
    };
    (
        ThermalStress {
            cpus: env.all_cpus,
            cancel: env.cancel,
        },
        opts,
    )
}

/// The thermal test's scrypt load: the native stress test, whose canned stand-in takes
/// the time it is asked for (so the monitor records the phase and a signal can stop it)
/// and shows a board that loses 6 % once warm.
#[derive(Debug, Clone, Copy)]
pub struct ThermalStress<'a> {
    /// The CPUs to hash on.
    pub cpus: &'a [u32],
    /// Stops the canned wait too.
    pub cancel: &'a CancellationToken,
}

impl Benchmark for ThermalStress<'_> {
    const NAME: &'static str = "scrypt";
    type Options = scrypt::ScryptOptions;
    type Output = Stress;

    fn run(
        &self,
        opts: &scrypt::ScryptOptions,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<Stress, BenchError> {
        Scrypt { cpus: self.cpus }.run(opts, progress, cancel)
    }
}

impl Canned for ThermalStress<'_> {
    fn canned(&self, opts: &scrypt::ScryptOptions) -> Result<Stress, BenchError> {
        let t0 = Instant::now();
        let finished = self.cancel.sleep(opts.duration);
        let elapsed = t0.elapsed().as_secs_f64();
        Ok(Stress {
            run: canned_run(self.cpus, elapsed),
            cancelled: !finished,
        })
    }
}

/// Six or more intervals over `elapsed_s`: 3.98 kH/s per core in the first half, 6 %
/// less after.
fn canned_run(cpus: &[u32], elapsed_s: f64) -> ScryptRun {
    let n = ((elapsed_s / scrypt::DEFAULT_INTERVAL.as_secs_f64()).round() as usize).max(6);
    let len = elapsed_s / n as f64;
    let full = 3.98 * cpus.len() as f64;
    let intervals: Vec<scrypt::ScryptInterval> = (0..n)
        .map(|i| {
            let khs = if i < n / 2 { full } else { full * 0.94 };
            scrypt::ScryptInterval {
                end_s: len * (i + 1) as f64,
                seconds: len,
                hashes: (khs * 1000.0 * len) as u64,
                khash_per_s: khs,
            }
        })
        .collect();
    let mean = intervals.iter().map(|i| i.khash_per_s).sum::<f64>() / n as f64;
    ScryptRun {
        n: 1024,
        kernel: "neon-4way".into(),
        threads: cpus
            .iter()
            .map(|&cpu| scrypt::ThreadResult {
                cpu,
                hashes: 0,
                error: None,
            })
            .collect(),
        intervals,
        mean_khash_per_s: mean,
        elapsed_s,
    }
}

/// The thermal test's findings: `-M`'s AES-256 slower after the load.
pub fn findings(r: &RunReport) -> Vec<Finding> {
    let after = r.mode.thermal().and_then(|t| t.aes_after.as_ref());
    match (&r.results.aes, after) {
        (Some(before), Some(after)) => crate::diagnose::thermal::aes_findings(before, after),
        _ => Vec::new(),
    }
}

/// The thermal test's part of the lifecycle (`run::drive`): the sensor line and its
/// summary.
pub struct ThermalCommand {
    mode: Thermal,
    /// `Thermal efficiency test using …` (`-t`/`-T` with a sensor).
    sensor_line: Option<String>,
}

impl ModeCommand for ThermalCommand {
    type Mode = Thermal;
    type Options = ();

    /// sbc-bench's TempTest refuses without a sensor; -M runs in its main flow, which
    /// does not need one.
    fn prepare(root: &SysRoot, cfg: &RunConfig, (): ()) -> anyhow::Result<Result<Self, Outcome>> {
        let Some(t) = cfg.kind.thermal().copied() else {
            anyhow::bail!("the thermal test's settings are missing");
        };
        let source = refusal(root);
        let waits = matches!(t.mode, ThermalMode::CoolTo | ThermalMode::HeatTo);
        let sensor_line = match &source {
            Err(msg) if waits => {
                eprintln!("{msg}");
                return Ok(Err(Outcome::Failed));
            }
            Err(_) => None,
            Ok((src, c)) => {
                if let Some(w) = ominously_low(*c) {
                    eprintln!("{w}\n");
                }
                let file = src.temp_file.file_name();
                let file = file.map(|f| f.to_string_lossy().to_string());
                waits.then(|| {
                    let file = file.unwrap_or_default();
                    format!("Thermal efficiency test using {}{file}", src.dir)
                })
            }
        };
        Ok(Ok(Self {
            mode: Thermal { cfg: t },
            sensor_line,
        }))
    }

    fn mode(&mut self) -> &mut Thermal {
        &mut self.mode
    }

    fn banner(&self) -> String {
        let banner = format!("sbc-bench {} (Rust)", env!("CARGO_PKG_VERSION"));
        match &self.sensor_line {
            Some(l) => format!("{banner}\n\n{l}\n"),
            None => banner,
        }
    }

    fn ui(&self, cfg: &RunConfig) -> Box<dyn Ui> {
        Box::new(ThermalConsole::new(
            !cfg.unattended && std::io::stdin().is_terminal(),
            std::io::stdout().is_terminal(),
        ))
    }

    fn summary(&self, report: &RunReport, sink: &ExportSink) {
        let log = sink.path(Format::Log).map(|l| l.display().to_string());
        if self.mode.cfg.mode == ThermalMode::MemoryController {
            let summary = ConsoleSummary {
                log,
                color: crate::output::color(),
            };
            print!("{}", String::from_utf8_lossy(&summary.render(report)));
            println!(
                "\n{}",
                crate::report::log::thermal::section(report).trim_end()
            );
            return;
        }
        // As sbc-bench's TempTest: the whole log, then (ours) the verdict last.
        let text = Format::Log.exporter().render(report);
        print!("\n{}", String::from_utf8_lossy(&text));
        if let Some(v) = crate::diagnose::thermal::verdict(report) {
            println!("\n{}", crate::report::log::thermal::verdict_line(&v));
        }
        if let Some(l) = log {
            println!("\nFull results in {l}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn run_wait(
        mode: ThermalMode,
        target: f64,
        temps: &[f64],
        cancel_after: Option<usize>,
    ) -> (ThermalWait, Vec<String>, usize) {
        let seq = RefCell::new(temps.iter().copied());
        let reads = RefCell::new(0usize);
        let cancel = CancellationToken::new();
        let mut read = || {
            *reads.borrow_mut() += 1;
            if cancel_after.is_some_and(|n| *reads.borrow() > n) {
                cancel.cancel();
            }
            seq.borrow_mut().next()
        };
        let mut heats = 0usize;
        let mut heat = |d: Duration| {
            assert_eq!(d, Duration::from_millis(1));
            heats += 1;
        };
        let mut lines = Vec::new();
        let w = wait_for_target(
            mode,
            target,
            Duration::from_millis(1),
            &mut read,
            &mut heat,
            &cancel,
            &mut |l| lines.push(l.to_string()),
        );
        (w, lines, heats)
    }

    #[test]
    fn cool_down_waits_while_above_the_target_in_whole_degrees() {
        // 50.9 °C counts as 50 °C, as sbc-bench's `cut -f1 -d.`: done.
        let (w, lines, heats) =
            run_wait(ThermalMode::CoolTo, 50.0, &[63.2, 57.0, 50.9, 40.0], None);
        assert_eq!(heats, 0);
        assert_eq!(
            lines,
            [
                "Waiting for the SoC cooling down from current 63°C to 50°C. This may take some time...",
                "Waiting for the SoC cooling down from current 57°C to 50°C. This may take some time...",
            ]
        );
        assert_eq!(
            (w.start_c, w.end_c, w.already_there),
            (Some(63.2), Some(50.9), false)
        );
        assert_eq!(w.readings.len(), 3);
    }

    #[test]
    fn heat_up_runs_the_load_until_above_the_target() {
        let (w, lines, heats) =
            run_wait(ThermalMode::HeatTo, 50.0, &[41.0, 48.5, 50.0, 51.2], None);
        assert_eq!(heats, 3);
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            "Heating SoC from current 41°C to 50°C. This may take some time..."
        );
        assert_eq!(w.end_c, Some(51.2));
    }

    #[test]
    fn already_there_says_so_and_does_not_wait() {
        let (w, lines, _) = run_wait(ThermalMode::CoolTo, 50.0, &[45.0], None);
        assert!(w.already_there);
        assert_eq!(
            lines,
            ["No need to wait for the SoC chilling since already at 45°C."]
        );
        let (w, lines, heats) = run_wait(ThermalMode::HeatTo, 50.0, &[62.0], None);
        assert!(w.already_there && heats == 0);
        assert_eq!(
            lines,
            ["No need to heat the SoC to 50°C since already at 62°C."]
        );
    }

    #[test]
    fn a_sensor_that_goes_away_ends_the_wait_without_an_end_temperature() {
        let (w, _, _) = run_wait(ThermalMode::CoolTo, 50.0, &[70.0, 69.0], None);
        assert_eq!((w.start_c, w.end_c), (Some(70.0), None));
    }

    #[test]
    fn a_transiently_unreadable_sensor_does_not_end_the_cool_down_wait() {
        // CI: the simulated sensor file read empty while the test rewrote it, and the
        // wait ended with "the temperature could not be read".
        let seq = RefCell::new(
            [Some(63.0), None, Some(57.0), None, None, Some(45.0)]
                .into_iter()
                .chain(std::iter::repeat(None)),
        );
        let mut read = || seq.borrow_mut().next().flatten();
        let w = wait_for_target(
            ThermalMode::CoolTo,
            50.0,
            Duration::from_millis(1),
            &mut read,
            &mut |_| {},
            &CancellationToken::new(),
            &mut |_| {},
        );
        assert_eq!((w.start_c, w.end_c), (Some(63.0), Some(45.0)));
        assert_eq!(w.readings.len(), 3);
    }

    #[test]
    fn a_signal_stops_the_wait() {
        let temps = [80.0; 100];
        let (w, lines, _) = run_wait(ThermalMode::CoolTo, 50.0, &temps, Some(3));
        assert!(lines.len() <= 4, "{lines:?}");
        assert!(w.readings.len() < 100);
    }

    #[test]
    fn plans_as_sbc_bench_orders_the_steps() {
        let m = PlanInput {
            clusters: 3,
            cpus: 8,
            opps_to_walk: 30,
            openssl: true,
            ..Default::default()
        };
        let kinds = |mode| {
            let t = ThermalConfig {
                mode,
                ..Default::default()
            };
            plan(&t, &RunConfig::default(), &m)
                .steps
                .iter()
                .map(|s| s.kind)
                .collect::<Vec<_>>()
        };
        let (cold, hot) = (
            StandardStep::ClockCold.into(),
            StandardStep::ClockHot.into(),
        );
        let own = |k: ThermalStep| StepKind::from(k);
        assert_eq!(
            kinds(ThermalMode::CoolTo),
            [
                cold,
                own(ThermalStep::CoolDown),
                own(ThermalStep::ThermalLoad)
            ]
        );
        assert_eq!(
            kinds(ThermalMode::HeatTo),
            [
                cold,
                own(ThermalStep::HeatUp),
                own(ThermalStep::ThermalLoad)
            ]
        );
        assert_eq!(
            kinds(ThermalMode::MemoryController),
            [
                cold,
                own(ThermalStep::Aes256Before),
                own(ThermalStep::ThermalLoad),
                own(ThermalStep::Aes256After),
                hot
            ]
        );
    }

    #[test]
    fn ominously_low_below_20_degrees() {
        assert_eq!(
            ominously_low(12.7).as_deref(),
            Some("WARNING: sysfs thermal readout is ominously low: 12°C.")
        );
        assert_eq!(ominously_low(20.0), None);
    }

    #[test]
    fn the_canned_load_loses_six_percent_in_its_second_half() {
        let r = canned_run(&[0, 1, 2, 3], 300.0);
        assert_eq!(r.intervals.len(), 60);
        assert!((r.intervals[0].khash_per_s - 15.92).abs() < 1e-9);
        assert!((r.intervals[59].khash_per_s - 15.92 * 0.94).abs() < 1e-9);
        assert_eq!(canned_run(&[0], 0.01).intervals.len(), 6);
    }
}
