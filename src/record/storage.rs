//! What the system did while the storage benchmark ran, pass by pass: the observation
//! the storage diagnosis reads and the report renders, built from the benchmark's results
//! and the readings taken around each pass. Plus the two reports `storage` and
//! `storage bench` print (`--json` serialises them as they are).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::bench::storage::{BenchResult, StoragePhase};
use crate::monitor::stat::{CpuTimes, usage};
use crate::monitor::{Sample, TaskId};
use crate::record::finding::Finding;
use crate::sys::storage::{Device, Inventory, Landing};

/// Passes shorter than this many clock ticks per CPU (USER_HZ is 100: 50 ms) get no
/// CPU percentages: `/proc/stat` counts in 10 ms ticks, too coarse to say more.
pub const MIN_WINDOW_TICKS: u64 = 5;

/// What the system did during one pass.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseObservation {
    /// Record size in bytes.
    pub record_bytes: u64,
    /// Which pass.
    pub phase: Option<StoragePhase>,
    /// Its throughput, MB/s.
    pub mb_per_s: f64,
    /// Its duration.
    pub seconds: f64,
    /// Clock ticks per CPU between the pass's two `/proc/stat` readings; below
    /// [`MIN_WINDOW_TICKS`] the CPU percentages are left out (too coarse).
    pub window_ticks: Option<u64>,
    /// The busiest CPU (user + system + interrupts, iowait not counted as busy).
    pub busiest_cpu: Option<u32>,
    /// How busy that CPU was, percent.
    pub busiest_cpu_pct: Option<f64>,
    /// Share of that CPU's time in hard and soft interrupts.
    pub busiest_cpu_irq_pct: Option<f64>,
    /// Share of that CPU's time in the kernel.
    pub busiest_cpu_sys_pct: Option<f64>,
    /// iowait over all CPUs, percent.
    pub io_pct: Option<f64>,
    /// Interrupts over all CPUs, percent.
    pub irq_pct: Option<f64>,
    /// CPU time of the benchmark process itself, percent of one core (tells our I/O
    /// path from other processes' load).
    pub self_cpu_pct: Option<f64>,
    /// The storage device's interrupts during the pass (exact counts, however short).
    pub storage_irqs: Option<u64>,
    /// The same per second.
    pub storage_irqs_per_s: Option<f64>,
    /// The CPU that handled most of them.
    pub storage_irq_cpu: Option<u32>,
    /// Average clock per cpufreq policy, kHz.
    #[serde(default)]
    pub avg_khz: Vec<(u32, f64)>,
}

/// cpufreq facts for the diagnosis.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PolicyFacts {
    /// Policy id.
    pub id: u32,
    /// CPUs in it.
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// Governor during the run.
    pub governor: Option<String>,
    /// Highest clock, kHz.
    pub max_khz: Option<u64>,
}

/// Everything the storage diagnosis looks at.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageObservation {
    /// Filesystem type the file was on.
    pub fstype: Option<String>,
    /// O_DIRECT was in effect.
    pub direct_io: bool,
    /// cpufreq policies.
    #[serde(default)]
    pub policies: Vec<PolicyFacts>,
    /// One per pass.
    #[serde(default)]
    pub phases: Vec<PhaseObservation>,
}

/// The readings taken exactly at one pass's start and end (the monitor's on-demand
/// [`crate::monitor::Sampler`], with the storage device's IRQ lines and this process
/// in its mask).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassWindow {
    /// Record size in bytes.
    pub record_bytes: u64,
    /// Which pass.
    pub phase: StoragePhase,
    /// Reading at its start.
    pub start: Sample,
    /// Reading at its end.
    pub end: Sample,
}

/// One observation per pass of `result`, from the readings at its start and end
/// (`windows`) and the monitor's samples taken meanwhile (`clocks`; only their clocks
/// are used). A pass without a
/// window (monitoring off) keeps only its throughput.
pub fn observe(
    result: &BenchResult,
    windows: &[PassWindow],
    clocks: &[Sample],
) -> Vec<PhaseObservation> {
    let mut out = Vec::new();
    for rec in &result.records {
        for p in &rec.phases {
            let mut o = PhaseObservation {
                record_bytes: rec.record_bytes,
                phase: Some(p.phase),
                mb_per_s: p.mb_per_s,
                seconds: p.seconds,
                ..Default::default()
            };
            if let Some(w) = windows
                .iter()
                .find(|w| w.record_bytes == rec.record_bytes && w.phase == p.phase)
            {
                fill_usage(&mut o, &w.start, &w.end, clocks);
            }
            out.push(o);
        }
    }
    out
}

fn fill_usage(o: &mut PhaseObservation, a: &Sample, b: &Sample, clocks: &[Sample]) {
    fill_cpu(o, a, b);
    fill_irqs(o, a, b);
    o.avg_khz = avg_clocks(a, b, clocks);
}

/// Every CPU's counters added up, over the CPUs read at both ends; and how many.
fn cpu_totals(a: &Sample, b: &Sample) -> (CpuTimes, CpuTimes, u64) {
    let mut tot_a = CpuTimes::default();
    let mut tot_b = CpuTimes::default();
    let add = |t: &mut CpuTimes, x: &CpuTimes| {
        t.user += x.user;
        t.nice += x.nice;
        t.system += x.system;
        t.idle += x.idle;
        t.iowait += x.iowait;
        t.irq += x.irq;
        t.softirq += x.softirq;
        t.steal += x.steal;
    };
    let mut ncpu = 0u64;
    for (cpu, ta) in per_cpu(a) {
        let Some(tb) = per_cpu(b).get(cpu) else {
            continue;
        };
        add(&mut tot_a, ta);
        add(&mut tot_b, tb);
        ncpu += 1;
    }
    (tot_a, tot_b, ncpu)
}

/// The window in ticks, and for a window long enough the busiest CPU, iowait and
/// interrupt shares and our own CPU time.
fn fill_cpu(o: &mut PhaseObservation, a: &Sample, b: &Sample) {
    let (tot_a, tot_b, ncpu) = cpu_totals(a, b);
    // Ticks per CPU elapsed between the readings = the window in clock ticks.
    let window = (ncpu > 0).then(|| tot_b.total().saturating_sub(tot_a.total()) / ncpu);
    o.window_ticks = window;
    let Some(w) = window.filter(|&w| w >= MIN_WINDOW_TICKS) else {
        return;
    };
    let mut best: Option<(u32, f64, f64, f64)> = None;
    for (cpu, ta) in per_cpu(a) {
        let Some(tb) = per_cpu(b).get(cpu) else {
            continue;
        };
        if let Some(u) = usage(ta, tb) {
            let busy = u.cpu_pct - u.io_pct;
            if best.is_none_or(|(_, bb, _, _)| busy > bb) {
                best = Some((*cpu, busy, u.irq_pct, u.sys_pct));
            }
        }
    }
    if let Some((cpu, busy, irq, sys)) = best {
        o.busiest_cpu = Some(cpu);
        o.busiest_cpu_pct = Some(busy);
        o.busiest_cpu_irq_pct = Some(irq);
        o.busiest_cpu_sys_pct = Some(sys);
    }
    if let Some(u) = usage(&tot_a, &tot_b) {
        o.io_pct = Some(u.io_pct);
        o.irq_pct = Some(u.irq_pct);
    }
    if let (Some(sa), Some(sb)) = (self_ticks(a), self_ticks(b)) {
        if w > 0 && sb >= sa {
            o.self_cpu_pct = Some((sb - sa) as f64 * 100.0 / w as f64);
        }
    }
}

/// The device's interrupts: exact counts, whatever the pass's length.
fn fill_irqs(o: &mut PhaseObservation, a: &Sample, b: &Sample) {
    let (Some(ia), Some(ib)) = (device_irqs(a), device_irqs(b)) else {
        return;
    };
    let per_cpu: Vec<(u32, u64)> = ia
        .iter()
        .filter_map(|(cpu, &n)| {
            ib.get(cpu)
                .and_then(|&m| m.checked_sub(n))
                .map(|d| (*cpu, d))
        })
        .collect();
    let total: u64 = per_cpu.iter().map(|x| x.1).sum();
    o.storage_irqs = Some(total);
    let secs = b.mono_s - a.mono_s;
    if secs > 0.0 {
        o.storage_irqs_per_s = Some(total as f64 / secs);
    }
    o.storage_irq_cpu = per_cpu
        .iter()
        .filter(|x| x.1 > 0)
        .max_by_key(|x| x.1)
        .map(|x| x.0);
}

/// Average clock per policy: the readings at both ends and the samples in between.
fn avg_clocks(a: &Sample, b: &Sample, clocks: &[Sample]) -> Vec<(u32, f64)> {
    let mut points: Vec<&Sample> = vec![a];
    points.extend(
        clocks
            .iter()
            .filter(|s| s.mono_s > a.mono_s && s.mono_s < b.mono_s),
    );
    points.push(b);
    let mut ids: Vec<u32> = points.iter().flat_map(|s| khz(s).map(|k| k.0)).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut out = Vec::new();
    for id in ids {
        let v: Vec<u64> = points
            .iter()
            .filter_map(|s| khz(s).find(|k| k.0 == id).map(|k| k.1))
            .collect();
        if !v.is_empty() {
            out.push((id, v.iter().sum::<u64>() as f64 / v.len() as f64));
        }
    }
    out
}

/// `/proc/stat` per CPU (empty when it was not read).
fn per_cpu(s: &Sample) -> &BTreeMap<u32, CpuTimes> {
    static NONE: BTreeMap<u32, CpuTimes> = BTreeMap::new();
    s.stat.as_ref().map_or(&NONE, |st| &st.per_cpu)
}

/// This process's user + system time, clock ticks.
fn self_ticks(s: &Sample) -> Option<u64> {
    let me = TaskId::this_process();
    s.tasks
        .iter()
        .find(|t| t.task == me)
        .and_then(|t| t.stat)
        .map(|st| st.ticks)
}

/// The storage device's interrupts per CPU, summed over its lines; `None` when no
/// line was asked for or `/proc/interrupts` could not be read.
fn device_irqs(s: &Sample) -> Option<BTreeMap<u32, u64>> {
    let lines = s.irq_lines.as_ref()?;
    let mut out = BTreeMap::new();
    for l in lines {
        for (&cpu, &n) in &l.per_cpu {
            let e = out.entry(cpu).or_insert(0u64);
            *e = e.saturating_add(n);
        }
    }
    Some(out)
}

/// Current clock per policy, kHz, where it was read.
fn khz(s: &Sample) -> impl Iterator<Item = (u32, u64)> + '_ {
    s.clocks.iter().filter_map(|c| Some((c.policy, c.khz?)))
}

/// Inventory plus health, findings and notes: what `storage` prints.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StorageReport {
    /// Disks and flash.
    #[serde(flatten)]
    pub inventory: Inventory,
    /// What the inventory shows.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// Missing data and why.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Everything `storage bench --json` prints.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchReport {
    /// Where the file was.
    pub landing: Landing,
    /// The device(s) underneath, from the inventory.
    #[serde(default)]
    pub devices: Vec<Device>,
    /// What the user must know about the run: test files left by killed runs, a
    /// filesystem without a size limit, record sizes covering less than the file.
    #[serde(default)]
    pub notes: Vec<String>,
    /// The measurement.
    pub result: BenchResult,
    /// What the system did meanwhile.
    pub observation: StorageObservation,
    /// Why the numbers are what they are.
    #[serde(default)]
    pub findings: Vec<Finding>,
}

/// Where the test file lands and what the system looks like around it.
pub struct Surroundings {
    /// The filesystem and disks under the test file.
    pub land: crate::sys::storage::Landing,
    /// The whole inventory (for hubs shared with other disks).
    pub inv: crate::sys::storage::Inventory,
    /// The disks under the test file.
    pub devices: Vec<crate::sys::storage::Device>,
    /// The cpufreq policies, for the diagnosis.
    pub policies: Vec<PolicyFacts>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::storage::{PhaseResult, RecordResult};
    use crate::monitor::sample::{IrqLineCounts, PolicyClock, TaskCounters};
    use crate::monitor::stat::ProcStat;
    use crate::sys::counters::TaskStat;

    fn clock_at(t: f64, khz: u64) -> Sample {
        Sample {
            mono_s: t,
            clocks: vec![PolicyClock {
                policy: 0,
                khz: Some(khz),
            }],
            ..Default::default()
        }
    }

    fn window_sample(t: f64, busy: [u64; 2], self_ticks: u64, irqs: [u64; 2], khz: u64) -> Sample {
        // 100 ticks per second per CPU; `busy` of them in the kernel.
        let total = (t * 100.0).round() as u64;
        let cpu = |b: u64| CpuTimes {
            system: b,
            idle: total - b,
            ..Default::default()
        };
        // The device's interrupts on two lines, as `/proc/interrupts` lists them.
        let line = |id: &str, n: [u64; 2]| IrqLineCounts {
            id: id.into(),
            actions: vec![],
            per_cpu: [(0, n[0]), (1, n[1])].into(),
        };
        Sample {
            stat: Some(ProcStat {
                total: CpuTimes::default(),
                per_cpu: [(0, cpu(busy[0])), (1, cpu(busy[1]))].into(),
            }),
            tasks: vec![TaskCounters {
                task: TaskId::this_process(),
                stat: Some(TaskStat {
                    ticks: self_ticks,
                    cpu: 0,
                }),
            }],
            irq_lines: Some(vec![
                line("nvme0q1", [irqs[0] - 1, irqs[1]]),
                line("nvme0q2", [1, 0]),
            ]),
            ..clock_at(t, khz)
        }
    }

    fn one_pass(phase: StoragePhase, started: f64, secs: f64) -> BenchResult {
        BenchResult {
            dir: "/x".into(),
            file_size_bytes: 1,
            direct_io: true,
            fsync_in_write_timing: true,
            records: vec![RecordResult {
                record_bytes: 4096,
                phases: vec![PhaseResult::new(phase, started, secs, 1, 1)],
            }],
            warnings: vec![],
        }
    }

    #[test]
    fn observation_windows() {
        let start = window_sample(0.0, [0, 0], 0, [1000, 50], 408_000);
        let end = window_sample(2.0, [190, 20], 180, [21_000, 60], 1_800_000);
        // Outside the window (the second): ignored.
        let clocks = vec![clock_at(1.0, 1_800_000), clock_at(3.0, 100)];
        let r = one_pass(StoragePhase::RandomRead, 0.0, 2.0);
        let w = PassWindow {
            record_bytes: 4096,
            phase: StoragePhase::RandomRead,
            start,
            end,
        };
        let o = observe(&r, std::slice::from_ref(&w), &clocks);
        assert_eq!(o[0].window_ticks, Some(200));
        assert_eq!(o[0].busiest_cpu, Some(0));
        assert!((o[0].busiest_cpu_pct.unwrap() - 95.0).abs() < 1e-9);
        assert!((o[0].busiest_cpu_sys_pct.unwrap() - 95.0).abs() < 1e-9);
        assert_eq!(o[0].avg_khz, vec![(0, 1_336_000.0)]);
        assert!((o[0].self_cpu_pct.unwrap() - 90.0).abs() < 1e-9);
        assert_eq!(o[0].storage_irqs, Some(20_010));
        assert_eq!(o[0].storage_irqs_per_s, Some(10_005.0));
        assert_eq!(o[0].storage_irq_cpu, Some(0));
        // Without readings (monitoring off) a pass keeps only its throughput.
        let o = observe(&r, &[], &clocks);
        assert_eq!(o[0].busiest_cpu, None);
        assert_eq!(o[0].window_ticks, None);
    }

    #[test]
    fn a_pass_shorter_than_the_sampler_still_gets_its_own_figures() {
        // A 16 MiB pass of 12 ms on a fast drive: 1 tick passed, so no CPU percentages,
        // but its own interrupt count and clocks, from readings at its own start and end.
        let start = window_sample(5.0, [300, 100], 400, [7000, 0], 1_800_000);
        let end = window_sample(5.01, [301, 100], 401, [7003, 1], 1_800_000);
        let r = one_pass(StoragePhase::Reread, 5.0, 0.01);
        let w = PassWindow {
            record_bytes: 4096,
            phase: StoragePhase::Reread,
            start,
            end,
        };
        let o = observe(&r, &[w], &[]);
        assert_eq!(o[0].window_ticks, Some(1));
        assert_eq!(o[0].busiest_cpu_pct, None);
        assert_eq!(o[0].self_cpu_pct, None);
        assert_eq!(o[0].storage_irqs, Some(4));
        assert!((o[0].storage_irqs_per_s.unwrap() - 400.0).abs() < 1e-6);
        assert_eq!(o[0].storage_irq_cpu, Some(0));
        assert_eq!(o[0].avg_khz, vec![(0, 1_800_000.0)]);
    }
}
