//! What the system did while the storage benchmark ran, pass by pass: the observation
//! the storage diagnosis reads and the report renders, built from the benchmark's results
//! and the readings taken around each pass. Plus the two reports `storage` and
//! `storage bench` print (`--json` serialises them as they are).

use serde::Serialize;

use crate::bench::storage::{BenchResult, IoSample, PassWindow, Phase};
use crate::monitor::stat::{CpuTimes, usage};
use crate::record::finding::Finding;
use crate::sys::storage::{Device, Inventory, Landing};

/// Passes shorter than this many clock ticks per CPU (USER_HZ is 100: 50 ms) get no
/// CPU percentages: `/proc/stat` counts in 10 ms ticks, too coarse to say more.
pub const MIN_WINDOW_TICKS: u64 = 5;

/// What the system did during one pass.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PhaseObservation {
    /// Record size in bytes.
    pub record_bytes: u64,
    /// Which pass.
    pub phase: Option<Phase>,
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
    pub avg_khz: Vec<(u32, f64)>,
}

/// cpufreq facts for the diagnosis.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PolicyFacts {
    /// Policy id.
    pub id: u32,
    /// CPUs in it.
    pub cpus: Vec<u32>,
    /// Governor during the run.
    pub governor: Option<String>,
    /// Highest clock, kHz.
    pub max_khz: Option<u64>,
}

/// Everything the storage diagnosis looks at.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StorageObservation {
    /// Filesystem type the file was on.
    pub fstype: Option<String>,
    /// O_DIRECT was in effect.
    pub direct_io: bool,
    /// cpufreq policies.
    pub policies: Vec<PolicyFacts>,
    /// One per pass.
    pub phases: Vec<PhaseObservation>,
}

/// One observation per pass of `result`, from the readings at its start and end
/// (`windows`) and the clock samples taken meanwhile (`clocks`). A pass without a
/// window (monitoring off) keeps only its throughput.
pub fn observe(
    result: &BenchResult,
    windows: &[PassWindow],
    clocks: &[IoSample],
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

fn fill_usage(o: &mut PhaseObservation, a: &IoSample, b: &IoSample, clocks: &[IoSample]) {
    fill_cpu(o, a, b);
    fill_irqs(o, a, b);
    o.avg_khz = avg_clocks(a, b, clocks);
}

/// Every CPU's counters added up, over the CPUs read at both ends; and how many.
fn cpu_totals(a: &IoSample, b: &IoSample) -> (CpuTimes, CpuTimes, u64) {
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
    for (cpu, ta) in &a.cpus {
        let Some(tb) = b.cpus.get(cpu) else { continue };
        add(&mut tot_a, ta);
        add(&mut tot_b, tb);
        ncpu += 1;
    }
    (tot_a, tot_b, ncpu)
}

/// The window in ticks, and for a window long enough the busiest CPU, iowait and
/// interrupt shares and our own CPU time.
fn fill_cpu(o: &mut PhaseObservation, a: &IoSample, b: &IoSample) {
    let (tot_a, tot_b, ncpu) = cpu_totals(a, b);
    // Ticks per CPU elapsed between the readings = the window in clock ticks.
    let window = (ncpu > 0).then(|| tot_b.total().saturating_sub(tot_a.total()) / ncpu);
    o.window_ticks = window;
    let Some(w) = window.filter(|&w| w >= MIN_WINDOW_TICKS) else {
        return;
    };
    let mut best: Option<(u32, f64, f64, f64)> = None;
    for (cpu, ta) in &a.cpus {
        let Some(tb) = b.cpus.get(cpu) else { continue };
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
    if let (Some(sa), Some(sb)) = (a.self_ticks, b.self_ticks) {
        if w > 0 && sb >= sa {
            o.self_cpu_pct = Some((sb - sa) as f64 * 100.0 / w as f64);
        }
    }
}

/// The device's interrupts: exact counts, whatever the pass's length.
fn fill_irqs(o: &mut PhaseObservation, a: &IoSample, b: &IoSample) {
    let (Some(ia), Some(ib)) = (&a.irqs, &b.irqs) else {
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
    let secs = b.t_s - a.t_s;
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
fn avg_clocks(a: &IoSample, b: &IoSample, clocks: &[IoSample]) -> Vec<(u32, f64)> {
    let mut points: Vec<&IoSample> = vec![a];
    points.extend(clocks.iter().filter(|s| s.t_s > a.t_s && s.t_s < b.t_s));
    points.push(b);
    let mut ids: Vec<u32> = points
        .iter()
        .flat_map(|s| s.khz.iter().map(|k| k.0))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let mut out = Vec::new();
    for id in ids {
        let v: Vec<u64> = points
            .iter()
            .filter_map(|s| s.khz.iter().find(|k| k.0 == id).map(|k| k.1))
            .collect();
        if !v.is_empty() {
            out.push((id, v.iter().sum::<u64>() as f64 / v.len() as f64));
        }
    }
    out
}

/// Inventory plus health, findings and notes: what `storage` prints.
#[derive(Debug, Clone, Serialize)]
pub struct StorageReport {
    /// Disks and flash.
    #[serde(flatten)]
    pub inventory: Inventory,
    /// What the inventory shows.
    pub findings: Vec<Finding>,
    /// Missing data and why.
    pub notes: Vec<String>,
}

/// Everything `storage bench --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// Where the file was.
    pub landing: Landing,
    /// The device(s) underneath, from the inventory.
    pub devices: Vec<Device>,
    /// What the user must know about the run: test files left by killed runs, a
    /// filesystem without a size limit, record sizes covering less than the file.
    pub notes: Vec<String>,
    /// The measurement.
    pub result: BenchResult,
    /// What the system did meanwhile.
    pub observation: StorageObservation,
    /// Why the numbers are what they are.
    pub findings: Vec<Finding>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::storage::{PhaseResult, RecordResult, parse_self_ticks};

    fn window_sample(
        t: f64,
        busy: [u64; 2],
        self_ticks: u64,
        irqs: [u64; 2],
        khz: u64,
    ) -> IoSample {
        use crate::monitor::stat::CpuTimes;
        // 100 ticks per second per CPU; `busy` of them in the kernel.
        let total = (t * 100.0).round() as u64;
        let cpu = |b: u64| CpuTimes {
            system: b,
            idle: total - b,
            ..Default::default()
        };
        IoSample {
            t_s: t,
            cpus: [(0, cpu(busy[0])), (1, cpu(busy[1]))].into(),
            khz: vec![(0, khz)],
            self_ticks: Some(self_ticks),
            irqs: Some([(0, irqs[0]), (1, irqs[1])].into()),
        }
    }

    fn one_pass(phase: Phase, started: f64, secs: f64) -> BenchResult {
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
        let clocks = vec![
            IoSample {
                t_s: 1.0,
                khz: vec![(0, 1_800_000)],
                ..Default::default()
            },
            // Outside the window: ignored.
            IoSample {
                t_s: 3.0,
                khz: vec![(0, 100)],
                ..Default::default()
            },
        ];
        let r = one_pass(Phase::RandomRead, 0.0, 2.0);
        let w = PassWindow {
            record_bytes: 4096,
            phase: Phase::RandomRead,
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
        assert_eq!(
            parse_self_ticks(
                "4242 (sbc bench) R 1 4242 4242 0 -1 4194304 300 0 0 0 1234 567 0 0 20 0"
            ),
            Some(1801)
        );
        assert_eq!(parse_self_ticks("garbage"), None);
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
        let r = one_pass(Phase::Reread, 5.0, 0.01);
        let w = PassWindow {
            record_bytes: 4096,
            phase: Phase::Reread,
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
