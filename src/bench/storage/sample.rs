//! The counters read around each pass (CPU time, our own CPU time, the device's
//! interrupts, clocks) and the thread sampling clocks during long passes.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::Phase;
use crate::shutdown::CancellationToken;

/// One reading of the counters that explain storage throughput.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct IoSample {
    /// Seconds since the sampler started.
    pub t_s: f64,
    /// `/proc/stat` per CPU (empty in the clock-only samples taken during a pass).
    pub cpus: std::collections::BTreeMap<u32, crate::monitor::stat::CpuTimes>,
    /// Current clock per cpufreq policy, kHz.
    pub khz: Vec<(u32, u64)>,
    /// This process's user + system time (`/proc/self/stat`), clock ticks.
    pub self_ticks: Option<u64>,
    /// The storage device's interrupts (`/proc/interrupts`, the lines of
    /// [`crate::sys::storage::irq_lines`]) per CPU; `None` when none were found.
    pub irqs: Option<std::collections::BTreeMap<u32, u64>>,
}

/// Read every counter at one instant: `/proc/stat`, `/proc/self/stat`, the interrupt
/// lines `irq_ids` of `/proc/interrupts`, and the clocks of `policies`. Taken exactly at
/// each pass's start and end, so every pass gets its own figures however short it is.
pub fn snapshot(
    root: &crate::sys::root::SysRoot,
    policies: &[u32],
    irq_ids: &[String],
    t0: Instant,
) -> IoSample {
    let mut s = clock_sample(root, policies, t0);
    s.cpus = root
        .read_opt("/proc/stat")
        .map(|t| crate::monitor::stat::parse_proc_stat(&t).per_cpu)
        .unwrap_or_default();
    // Our own process's CPU time: `/proc/self` is this process, which is fine because
    // snapshots are only taken on the live system (`storage bench` does so only there).
    s.self_ticks = root
        .read_opt("/proc/self/stat")
        .and_then(|t| parse_self_ticks(&t));
    if !irq_ids.is_empty() {
        s.irqs = crate::sys::irq::read_interrupts(root).map(|ints| irq_counts(&ints, irq_ids));
    }
    s
}

/// Sum of the lines `ids` per CPU.
pub fn irq_counts(
    ints: &crate::sys::irq::Interrupts,
    ids: &[String],
) -> std::collections::BTreeMap<u32, u64> {
    let mut out = std::collections::BTreeMap::new();
    for l in ints.lines.iter().filter(|l| ids.contains(&l.id)) {
        for &cpu in &ints.cpus {
            let n = ints.count(l, cpu);
            let e = out.entry(cpu).or_insert(0u64);
            *e = e.saturating_add(n);
        }
    }
    out
}

fn clock_sample(root: &crate::sys::root::SysRoot, policies: &[u32], t0: Instant) -> IoSample {
    let khz = policies
        .iter()
        .filter_map(|&id| {
            root.parse::<u64>(crate::sys::cpufreq::policy_attr(id, "scaling_cur_freq"))
                .map(|k| (id, k))
        })
        .collect();
    IoSample {
        t_s: t0.elapsed().as_secs_f64(),
        khz,
        ..Default::default()
    }
}

/// A thread reading the cpufreq policies' `scaling_cur_freq` at a fixed interval while
/// the benchmark runs, for average clocks during long passes.
#[derive(Debug)]
pub struct Sampler {
    stop: std::sync::Arc<CancellationToken>,
    handle: Option<std::thread::JoinHandle<Vec<IoSample>>>,
    t0: Instant,
}

impl Sampler {
    /// Start sampling the clocks of `policies` every `interval` (the first at once).
    pub fn start(root: crate::sys::root::SysRoot, policies: Vec<u32>, interval: Duration) -> Self {
        let stop = std::sync::Arc::new(CancellationToken::new());
        let s2 = std::sync::Arc::clone(&stop);
        let t0 = Instant::now();
        let handle = std::thread::Builder::new()
            .name("storage-sampler".into())
            .spawn(move || {
                let mut out = Vec::new();
                loop {
                    out.push(clock_sample(&root, &policies, t0));
                    if !s2.sleep(interval) {
                        return out;
                    }
                }
            })
            .ok();
        Self { stop, handle, t0 }
    }

    /// When sampling started: the time base of every sample and snapshot.
    pub fn started(&self) -> Instant {
        self.t0
    }

    /// Stop and hand over the samples.
    pub fn finish(mut self) -> Vec<IoSample> {
        self.stop.cancel();
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}

/// utime + stime (fields 14 and 15) of a `/proc/<pid>/stat` line; the command name in
/// parentheses may contain spaces, so fields are counted after the last `)`.
pub fn parse_self_ticks(stat: &str) -> Option<u64> {
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(utime + stime)
}

/// The readings taken exactly at one pass's start and end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassWindow {
    /// Record size in bytes.
    pub record_bytes: u64,
    /// Which pass.
    pub phase: Phase,
    /// Reading at its start.
    pub start: IoSample,
    /// Reading at its end.
    pub end: IoSample,
}
