//! The sampler thread: samples at a fixed rate with an interruptible sleep, records, and
//! hands intervals to a live consumer. Stopping one monitor does not cancel the process;
//! a SIGINT/SIGTERM (the process token) stops every monitor at once.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::monitor::interval::Interval;
use crate::monitor::layout::Layout;
use crate::monitor::recording::Recording;
use crate::monitor::sample::{SampleSpec, Sampler, TaskId, cur_freq_readable};
use crate::shutdown::{self, CancellationToken, CleanupHandle};
use crate::sys::cache;
use crate::sys::cpu::{self, Topology};
use crate::sys::cpufreq::Policy;
use crate::sys::power::{self, DcIn};
use crate::sys::root::SysRoot;
use crate::sys::thermal::{self, ThermalSource};

/// What the monitor watches, found once by discovery.
#[derive(Debug, Clone)]
pub struct Setup {
    /// cpufreq policies.
    pub policies: Vec<Policy>,
    /// CPUs and clusters.
    pub topology: Topology,
    /// Clock columns.
    pub layout: Layout,
    /// The `Temp` sensor.
    pub thermal: Option<ThermalSource>,
    /// The `DC(V)` sensor.
    pub dc_in: Option<DcIn>,
}

impl Setup {
    /// Discover topology, clock columns, thermal source and DC-in sensor. With
    /// `all_policies`, every policy is sampled (per-core clocks for `--cores`).
    pub fn discover(root: &SysRoot, all_policies: bool) -> Self {
        let (policies, topology) = cpu::read(root);
        // Every CPU its own policy (Intel hybrid): caches tell CPU classes apart.
        let per_cpu = policies.len() > 2 && policies.iter().all(|p| p.cpus.len() <= 1);
        let caches = if per_cpu {
            topology
                .cpus
                .iter()
                .filter_map(|c| Some((c.cpu, cache::signature(root, c.cpu)?)))
                .collect()
        } else {
            std::collections::BTreeMap::new()
        };
        let layout = Layout::with_caches(
            &topology,
            &policies,
            |p| cur_freq_readable(root, p),
            &caches,
        )
        .with_all_policies(all_policies);
        Self {
            policies,
            topology,
            layout,
            thermal: thermal::pick_source(root),
            dc_in: power::find_dc_in(root),
        }
    }
}

/// How the monitor samples.
#[derive(Debug, Clone)]
pub struct MonitorConfig {
    /// Time between samples.
    pub interval: Duration,
    /// Optional counters.
    pub spec: SampleSpec,
    /// Stop by itself after this many samples.
    pub count: Option<u64>,
    /// Send every interval to [`MonitorHandle::take_live`]'s receiver.
    pub live: bool,
    /// Send the averages since boot first (as the first line of `sbc-bench -m`).
    pub since_boot_first: bool,
    /// Lower the sampler thread's priority to nice 19, as sbc-bench does, so it yields to
    /// the benchmark it watches.
    pub renice: bool,
}

impl MonitorConfig {
    /// Sampling every `interval`, nothing optional, recording only.
    pub fn every(interval: Duration) -> Self {
        Self {
            interval,
            spec: SampleSpec::default(),
            count: None,
            live: false,
            since_boot_first: false,
            renice: true,
        }
    }
}

struct Shared {
    sampler: Mutex<Sampler>,
    rec: Mutex<Recording>,
    live: Mutex<Option<Sender<Interval>>>,
    /// When the last sample (regular or a mark's) was taken.
    last_at: Mutex<Option<Instant>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    /// Take a sample, record it, send the interval it closes, optionally start a phase.
    /// The sampler lock is held until the sample is recorded, so samples stay in order.
    fn sample(&self, phase: Option<PhaseOp<'_>>, since_boot: bool) {
        let mut sampler = lock(&self.sampler);
        let s = if phase.is_some() {
            sampler.sample_boundary()
        } else {
            sampler.sample()
        };
        *lock(&self.last_at) = Some(Instant::now());
        let first = since_boot.then(|| Interval::since_boot(&s));
        let mut rec = lock(&self.rec);
        let iv = rec.push(s).cloned();
        match phase {
            Some(PhaseOp::Begin(label)) => rec.begin_phase(label),
            Some(PhaseOp::End) => rec.end_phase(),
            None => {}
        }
        drop(rec);
        drop(sampler);
        if let Some(tx) = lock(&self.live).as_ref() {
            for iv in first.into_iter().chain(iv) {
                // A consumer that went away is not an error for the recording.
                let _ = tx.send(iv);
            }
        }
    }
}

enum PhaseOp<'a> {
    Begin(&'a str),
    End,
}

/// Starts monitors.
#[derive(Debug)]
pub struct Monitor;

impl Monitor {
    /// Start sampling in a background thread: the first sample is taken at once.
    pub fn start(
        root: &SysRoot,
        setup: &Setup,
        config: MonitorConfig,
    ) -> std::io::Result<MonitorHandle> {
        let sampler = Sampler::new(
            root,
            &setup.layout,
            setup.thermal.as_ref(),
            setup.dc_in.clone(),
            config.spec.clone(),
        );
        let mut rec = Recording::new(
            config.interval.as_secs_f64(),
            setup.layout.clone(),
            config.spec.clone(),
        );
        rec.thermal_source = setup.thermal.as_ref().map(ThermalSource::label);
        rec.dc_in = setup.dc_in.as_ref().map(|d| d.label.clone());
        let (tx, rx) = if config.live {
            let (tx, rx) = mpsc::channel();
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        let shared = Arc::new(Shared {
            sampler: Mutex::new(sampler),
            rec: Mutex::new(rec),
            live: Mutex::new(tx),
            last_at: Mutex::new(None),
        });
        let token = Arc::new(CancellationToken::new());
        // A signal cancels the process token and runs cleanups at once: wake our sleep.
        let t2 = Arc::clone(&token);
        let cleanup = shutdown::register(move || t2.cancel());
        let (sh, tk) = (Arc::clone(&shared), Arc::clone(&token));
        let thread = std::thread::Builder::new()
            .name("monitor".into())
            .spawn(move || sampler_loop(&sh, &tk, &config))?;
        Ok(MonitorHandle {
            shared,
            token,
            thread: Some(thread),
            live: rx,
            _cleanup: cleanup,
        })
    }
}

fn sampler_loop(shared: &Shared, token: &CancellationToken, config: &MonitorConfig) {
    if config.renice {
        renice_this_thread();
    }
    run_schedule(shared, token, config);
    // The consumer sees the end of the stream.
    lock(&shared.live).take();
}

/// Sample at a fixed rate (no drift) until cancelled or `count` samples are taken. A
/// mark's sample re-anchors the schedule, so no interval is shorter than half the
/// sampling interval (a 3 ms interval would make one tick look like 100 %).
fn run_schedule(shared: &Shared, token: &CancellationToken, config: &MonitorConfig) {
    let interval = config.interval.max(Duration::from_millis(1));
    let mut next = Instant::now();
    let mut n: u64 = 0;
    loop {
        shared.sample(None, n == 0 && config.since_boot_first);
        n += 1;
        if config.count.is_some_and(|c| n >= c) {
            return;
        }
        next += interval;
        let now = Instant::now();
        while next < now {
            // Fell behind (suspend, a stalled sysfs read): skip the missed ticks.
            next += interval;
        }
        loop {
            let now = Instant::now();
            if shutdown::token().is_cancelled() || (next > now && !token.sleep(next - now)) {
                return;
            }
            if shutdown::token().is_cancelled() {
                return;
            }
            match reanchor(next, *lock(&shared.last_at), interval) {
                Some(later) => next = later,
                None => break,
            }
        }
    }
}

/// When the sample due at `next` would come less than half an interval after the last
/// one (a mark sampled meanwhile), the deadline moves to one interval after that sample.
fn reanchor(next: Instant, last: Option<Instant>, interval: Duration) -> Option<Instant> {
    let last = last?;
    (last + interval / 2 > next).then_some(last + interval)
}

/// nice 19 for the calling thread only (Linux: the thread id is a valid `who`).
fn renice_this_thread() {
    let tid = nix::unistd::gettid().as_raw();
    // SAFETY: setpriority has no memory-safety preconditions; a failure (no permission
    // to lower priority is never refused, but seccomp may) only leaves the nice value.
    let _ = unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19) };
}

/// A running monitor.
pub struct MonitorHandle {
    shared: Arc<Shared>,
    token: Arc<CancellationToken>,
    thread: Option<JoinHandle<()>>,
    live: Option<Receiver<Interval>>,
    _cleanup: CleanupHandle,
}

impl std::fmt::Debug for MonitorHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MonitorHandle")
            .field("running", &self.is_running())
            .finish()
    }
}

impl MonitorHandle {
    /// The receiver of intervals as they come (with [`MonitorConfig::live`]); it
    /// disconnects when the sampler stops (count reached, [`stop`](Self::stop), a signal).
    pub fn take_live(&mut self) -> Option<Receiver<Interval>> {
        self.live.take()
    }

    /// Start phase `label` now: takes a boundary sample and ends the running phase.
    pub fn mark(&self, label: &str) {
        self.shared.sample(Some(PhaseOp::Begin(label)), false);
    }

    /// End the running phase now (time between benchmarks belongs to no phase).
    pub fn end_phase(&self) {
        self.shared.sample(Some(PhaseOp::End), false);
    }

    /// Replace the tasks sampled from the next sample on ([`Sampler::set_tasks`]): a
    /// benchmark's threads are born after the monitor starts.
    pub fn set_tasks(&self, tasks: &[TaskId]) {
        lock(&self.shared.sampler).set_tasks(tasks);
        lock(&self.shared.rec).spec.tasks = tasks.to_vec();
    }

    /// A copy of everything recorded so far (for rewriting the JSON report mid-run).
    pub fn snapshot(&self) -> Recording {
        lock(&self.shared.rec).clone()
    }

    /// Is the sampler thread still sampling?
    pub fn is_running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Stop sampling (within milliseconds) and return the recording. A running phase is
    /// ended with a final sample.
    pub fn stop(mut self) -> Recording {
        self.halt();
        let open = lock(&self.shared.rec).phase_open();
        if open {
            self.shared.sample(Some(PhaseOp::End), false);
        }
        lock(&self.shared.rec).clone()
    }

    fn halt(&mut self) {
        self.token.cancel();
        if let Some(t) = self.thread.take() {
            // The sampler thread does not panic on bad input; if it did, the recording
            // so far is still good.
            let _ = t.join();
        }
    }
}

impl Drop for MonitorHandle {
    fn drop(&mut self) {
        self.halt();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vm_setup() -> (SysRoot, Setup) {
        let root = SysRoot::host();
        let setup = Setup::discover(&root, false);
        (root, setup)
    }

    #[test]
    fn count_stops_by_itself_and_live_sees_every_interval() {
        let (root, setup) = vm_setup();
        let mut cfg = MonitorConfig::every(Duration::from_millis(20));
        cfg.count = Some(4);
        cfg.live = true;
        cfg.since_boot_first = true;
        let mut h = Monitor::start(&root, &setup, cfg).unwrap();
        let rx = h.take_live().unwrap();
        let got: Vec<Interval> = rx.iter().collect();
        assert_eq!(got.len(), 4, "since-boot line plus 3 intervals");
        assert!(got[0].since_boot);
        assert!(got[1..].iter().all(|i| !i.since_boot && i.elapsed_s > 0.0));
        let rec = h.stop();
        assert_eq!(rec.samples.len(), 4);
        assert_eq!(rec.intervals.len(), 3);
    }

    #[test]
    fn stop_is_prompt_and_marks_make_phases() {
        let (root, setup) = vm_setup();
        let h =
            Monitor::start(&root, &setup, MonitorConfig::every(Duration::from_secs(60))).unwrap();
        h.mark("one");
        h.mark("two");
        h.end_phase();
        h.mark("three");
        assert!(h.is_running());
        let t0 = Instant::now();
        let rec = h.stop();
        assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
        let labels: Vec<&str> = rec.phases.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels, ["one", "two", "three"]);
        assert!(rec.phases.iter().all(|p| p.end.is_some()));
        assert_eq!(rec.phases[0].end, Some(rec.phases[1].start));
        // first sample + 4 marks/ends + the final sample closing "three"
        assert_eq!(rec.samples.len(), 6);
        assert!(rec.samples.windows(2).all(|w| w[0].mono_s <= w[1].mono_s));
    }

    #[test]
    fn a_mark_re_anchors_the_schedule() {
        let t0 = Instant::now();
        let i = Duration::from_millis(100);
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        // Due at 100 ms, a mark sampled at 95 ms: next regular sample at 195 ms.
        assert_eq!(reanchor(at(100), Some(at(95)), i), Some(at(195)));
        // The last sample was the regular one at 0 ms, or a mark long enough ago: keep.
        assert_eq!(reanchor(at(100), Some(at(0)), i), None);
        assert_eq!(reanchor(at(100), Some(at(40)), i), None);
        assert_eq!(reanchor(at(100), None, i), None);
    }

    #[test]
    fn tasks_born_after_the_monitor_are_sampled_from_then_on() {
        let (root, setup) = vm_setup();
        let h =
            Monitor::start(&root, &setup, MonitorConfig::every(Duration::from_secs(60))).unwrap();
        let me = TaskId::this_thread();
        h.set_tasks(&[me]);
        h.mark("with a task");
        let rec = h.stop();
        let last = rec.samples.last().unwrap();
        assert_eq!(last.tasks[0].task, me);
        assert!(last.tasks[0].stat.is_some());
        assert_eq!(rec.spec.tasks, vec![me]);
        assert!(rec.intervals.last().unwrap().task(me).is_some());
    }

    #[test]
    fn dropping_a_handle_stops_its_thread_and_not_the_process() {
        let (root, setup) = vm_setup();
        let h =
            Monitor::start(&root, &setup, MonitorConfig::every(Duration::from_secs(60))).unwrap();
        drop(h);
        assert!(!shutdown::token().is_cancelled());
    }
}
