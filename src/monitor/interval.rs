//! What happened between two samples: utilisation (total and per core, with sbc-bench's
//! semantics from [`crate::monitor::stat`]), the busiest core, clocks, load, temperature,
//! supply voltage, swap and softirq rates. Pure: [`Interval::new`] only looks at its inputs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::monitor::sample::{
    DiskCounters, IrqLineCounts, NicCounters, PolicyClock, Sample, SoftirqCounters, SwapCounters,
    TaskCounters, TaskId,
};
use crate::monitor::stat::{CpuTimes, ProcStat, USER_HZ, Usage, usage};
use crate::sys::counters::{BlockStat, SECTOR_BYTES};
use crate::sys::net::IfStats;

/// Utilisation of one CPU over the interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CoreUsage {
    /// Logical CPU number.
    pub cpu: u32,
    /// Its utilisation.
    pub usage: Usage,
}

/// The single most utilised CPU: a total of 25 % on a quad-core can be one core saturated
/// by a NIC's interrupts (NanoPi R5S, ROCK 5 ITX reviews).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Busiest {
    /// Logical CPU number (the lowest one on a tie).
    pub cpu: u32,
    /// Its `%cpu` (everything but idle).
    pub cpu_pct: f64,
    /// Its hard plus soft interrupt share, to tell an IRQ-bound core at a glance.
    pub irq_pct: f64,
}

/// Softirq rates of one CPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SoftirqRates {
    /// Logical CPU number.
    pub cpu: u32,
    /// NET_RX softirqs per second.
    pub net_rx_per_s: Option<f64>,
    /// NET_TX softirqs per second.
    pub net_tx_per_s: Option<f64>,
    /// BLOCK softirqs per second.
    pub block_per_s: Option<f64>,
}

/// Interrupts of one IRQ line over the interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IrqLineDelta {
    /// The line's label (`224`).
    pub id: String,
    /// Its handler names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// Interrupts per CPU (CPUs with a column at both ends), exact however short the
    /// interval.
    pub per_cpu: BTreeMap<u32, u64>,
    /// Their sum.
    pub total: u64,
    /// The sum per second; `None` when no time passed.
    pub per_s: Option<f64>,
}

/// What one interface did over the interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NicRates {
    /// Interface name.
    pub iface: String,
    /// Bytes received per second.
    pub rx_bytes_per_s: Option<f64>,
    /// Bytes sent per second.
    pub tx_bytes_per_s: Option<f64>,
    /// Packets received per second.
    pub rx_packets_per_s: Option<f64>,
    /// Packets sent per second.
    pub tx_packets_per_s: Option<f64>,
    /// Growth of every counter (drops, errors, missed…) over the interval, a count; `None`
    /// for counters not read at both ends or reset in between (driver reload).
    pub grown: IfStats,
}

impl NicRates {
    /// Received packets lost on our side (`rx_dropped`, `rx_missed_errors`,
    /// `rx_fifo_errors`, `rx_over_errors` together); `None` when none was read.
    pub fn rx_lost(&self) -> Option<u64> {
        let g = &self.grown;
        [
            g.rx_dropped,
            g.rx_missed_errors,
            g.rx_fifo_errors,
            g.rx_over_errors,
        ]
        .into_iter()
        .flatten()
        .reduce(u64::saturating_add)
    }
}

/// What one block device did over the interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskRates {
    /// Kernel name (`mmcblk0`).
    pub dev: String,
    /// Bytes read (exact however short the interval).
    pub read_bytes: Option<u64>,
    /// Bytes written.
    pub write_bytes: Option<u64>,
    /// Bytes read per second.
    pub read_bytes_per_s: Option<f64>,
    /// Bytes written per second.
    pub write_bytes_per_s: Option<f64>,
    /// Read requests completed per second.
    pub reads_per_s: Option<f64>,
    /// Write requests completed per second.
    pub writes_per_s: Option<f64>,
    /// Share of the interval with requests in flight, percent (`io_ticks`; 100 is a
    /// device that was never idle, not necessarily one at its limit).
    pub busy_pct: Option<f64>,
    /// Requests in flight at the end.
    pub in_flight: Option<u64>,
}

/// CPU time of one task over the interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TaskRates {
    /// Which task.
    pub task: TaskId,
    /// User plus system clock ticks it used.
    pub ticks: Option<u64>,
    /// The same in percent of one core (a process with several busy threads exceeds 100).
    pub cpu_pct: Option<f64>,
    /// The CPU it last ran on, at the end.
    pub cpu: Option<u32>,
}

/// Derived values between two samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Wall-clock start, milliseconds since the Unix epoch.
    pub start_unix_ms: i64,
    /// Wall-clock end (when the row's instantaneous values were read).
    pub end_unix_ms: i64,
    /// Monotonic seconds between the samples.
    pub elapsed_s: f64,
    /// Counters taken against zero: averages since boot, as sbc-bench's first `-m` line.
    pub since_boot: bool,
    /// Utilisation of all CPUs together; `None` when no tick passed or counters reset.
    pub usage: Option<Usage>,
    /// Utilisation of each CPU online at both ends.
    pub cores: Vec<CoreUsage>,
    /// The most utilised CPU.
    pub busiest: Option<Busiest>,
    /// CPUs online at the start and gone at the end (offlined, killed by a thermal driver).
    pub cpus_gone: Vec<u32>,
    /// CPUs online at the end that were not at the start.
    pub cpus_new: Vec<u32>,
    /// Clock of each policy at the end.
    pub clocks: Vec<PolicyClock>,
    /// Load averages at the end.
    pub loadavg: Option<[f64; 3]>,
    /// Temperature at the end, °C.
    pub temp_c: Option<f64>,
    /// Supply voltage at the end, volts.
    pub dc_in_v: Option<f64>,
    /// Pages swapped in per second.
    pub swap_in_pages_per_s: Option<f64>,
    /// Pages swapped out per second.
    pub swap_out_pages_per_s: Option<f64>,
    /// Softirq rates per CPU (empty unless sampled).
    pub softirqs: Vec<SoftirqRates>,
    /// Interrupts of each sampled IRQ line present at both ends (empty unless sampled).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub irq_lines: Vec<IrqLineDelta>,
    /// Each sampled interface read at both ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nics: Vec<NicRates>,
    /// Each sampled block device read at both ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<DiskRates>,
    /// Each sampled task (its rates `None` unless read at both ends).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskRates>,
}

/// Difference of a counter that may be 32 bits wide (`/proc/softirqs` is `unsigned int`,
/// `/proc/vmstat` is `unsigned long`, 32 bits on armv7): a value below the previous one
/// that fits 32 bits wrapped once; anything else went backwards (reset) and is `None`.
pub fn counter_delta(prev: u64, cur: u64) -> Option<u64> {
    if cur >= prev {
        Some(cur - prev)
    } else if prev <= u64::from(u32::MAX) {
        Some((cur + (1u64 << 32)) - prev)
    } else {
        None
    }
}

impl Interval {
    /// Derive the interval from `prev` to `cur`.
    pub fn new(prev: &Sample, cur: &Sample) -> Self {
        let elapsed_s = cur.mono_s - prev.mono_s;
        let rate =
            |d: Option<u64>| -> Option<f64> { (elapsed_s > 0.0).then_some(d? as f64 / elapsed_s) };
        let (usage, cores, cpus_gone, cpus_new) = match (&prev.stat, &cur.stat) {
            (Some(a), Some(b)) => cpu_usage(a, b),
            _ => (None, Vec::new(), Vec::new(), Vec::new()),
        };
        let busiest = busiest(&cores);
        let (swap_in, swap_out) = match (prev.swap, cur.swap) {
            (Some(a), Some(b)) => (
                rate(counter_delta(a.pswpin, b.pswpin)),
                rate(counter_delta(a.pswpout, b.pswpout)),
            ),
            _ => (None, None),
        };
        let softirqs = match (&prev.softirqs, &cur.softirqs) {
            (Some(a), Some(b)) => softirq_rates(a, b, &rate),
            _ => Vec::new(),
        };
        let irq_lines = match (&prev.irq_lines, &cur.irq_lines) {
            (Some(a), Some(b)) => irq_line_deltas(a, b, elapsed_s),
            _ => Vec::new(),
        };
        Self {
            start_unix_ms: prev.unix_ms,
            end_unix_ms: cur.unix_ms,
            elapsed_s,
            since_boot: false,
            usage,
            cores,
            busiest,
            cpus_gone,
            cpus_new,
            clocks: cur.clocks.clone(),
            loadavg: cur.loadavg,
            temp_c: cur.temp_c,
            dc_in_v: cur.dc_in_v,
            swap_in_pages_per_s: swap_in,
            swap_out_pages_per_s: swap_out,
            softirqs,
            irq_lines,
            nics: nic_rates(&prev.nics, &cur.nics, &rate),
            disks: disk_rates(&prev.disks, &cur.disks, elapsed_s, &rate),
            tasks: task_rates(&prev.tasks, &cur.tasks, &rate),
        }
    }

    /// Averages since boot, as the first line of `sbc-bench -m` shows them (the monotonic
    /// clock stands for the uptime on the live system, the tree's uptime otherwise).
    pub fn since_boot(cur: &Sample) -> Self {
        let uptime = cur.uptime_s.unwrap_or(cur.mono_s);
        let zero = Sample {
            mono_s: cur.mono_s - uptime,
            unix_ms: cur.unix_ms - (uptime * 1000.0) as i64,
            stat: cur.stat.as_ref().map(|s| ProcStat {
                total: CpuTimes::default(),
                per_cpu: s
                    .per_cpu
                    .keys()
                    .map(|&k| (k, CpuTimes::default()))
                    .collect(),
            }),
            swap: cur.swap.map(|_| SwapCounters::default()),
            softirqs: cur.softirqs.as_ref().map(|s| SoftirqCounters {
                net_rx: s.net_rx.keys().map(|&k| (k, 0)).collect(),
                net_tx: s.net_tx.keys().map(|&k| (k, 0)).collect(),
                block: s.block.keys().map(|&k| (k, 0)).collect(),
            }),
            irq_lines: cur.irq_lines.as_ref().map(|v| {
                v.iter()
                    .map(|l| IrqLineCounts {
                        per_cpu: l.per_cpu.keys().map(|&k| (k, 0)).collect(),
                        ..l.clone()
                    })
                    .collect()
            }),
            nics: cur
                .nics
                .iter()
                .map(|n| NicCounters {
                    iface: n.iface.clone(),
                    stats: n.stats.map(zero_if_stats),
                })
                .collect(),
            disks: cur
                .disks
                .iter()
                .map(|d| DiskCounters {
                    dev: d.dev.clone(),
                    stat: d.stat.map(|_| BlockStat::default()),
                })
                .collect(),
            // Tasks started after boot: no since-boot figure (their rates stay `None`).
            ..Default::default()
        };
        Self {
            since_boot: true,
            ..Self::new(&zero, cur)
        }
    }

    /// Clock of `policy` at the end, kHz.
    pub fn policy_khz(&self, policy: u32) -> Option<u64> {
        self.clocks
            .iter()
            .find(|c| c.policy == policy)
            .and_then(|c| c.khz)
    }

    /// Interrupts per CPU of every sampled IRQ line together (a NIC's or a disk's queues).
    pub fn irqs_per_cpu(&self) -> BTreeMap<u32, u64> {
        let mut out = BTreeMap::new();
        for l in &self.irq_lines {
            for (&cpu, &n) in &l.per_cpu {
                let e: &mut u64 = out.entry(cpu).or_default();
                *e = e.saturating_add(n);
            }
        }
        out
    }

    /// The interface `iface`, if read at both ends.
    pub fn nic(&self, iface: &str) -> Option<&NicRates> {
        self.nics.iter().find(|n| n.iface == iface)
    }

    /// The block device `dev`, if read at both ends.
    pub fn disk(&self, dev: &str) -> Option<&DiskRates> {
        self.disks.iter().find(|d| d.dev == dev)
    }

    /// The task `task`, if sampled.
    pub fn task(&self, task: TaskId) -> Option<&TaskRates> {
        self.tasks.iter().find(|t| t.task == task)
    }

    /// Utilisation of `cpu`, if it was online throughout.
    pub fn core(&self, cpu: u32) -> Option<&Usage> {
        self.cores.iter().find(|c| c.cpu == cpu).map(|c| &c.usage)
    }
}

type CpuUsage = (Option<Usage>, Vec<CoreUsage>, Vec<u32>, Vec<u32>);

fn cpu_usage(a: &ProcStat, b: &ProcStat) -> CpuUsage {
    let cores = b
        .per_cpu
        .iter()
        .filter_map(|(cpu, cur)| {
            let prev = a.per_cpu.get(cpu)?;
            Some(CoreUsage {
                cpu: *cpu,
                usage: usage(prev, cur)?,
            })
        })
        .collect();
    let gone = a
        .per_cpu
        .keys()
        .filter(|k| !b.per_cpu.contains_key(k))
        .copied()
        .collect();
    let new = b
        .per_cpu
        .keys()
        .filter(|k| !a.per_cpu.contains_key(k))
        .copied()
        .collect();
    (usage(&a.total, &b.total), cores, gone, new)
}

fn busiest(cores: &[CoreUsage]) -> Option<Busiest> {
    let mut best: Option<&CoreUsage> = None;
    for c in cores {
        if best.is_none_or(|b| c.usage.cpu_pct > b.usage.cpu_pct) {
            best = Some(c);
        }
    }
    best.map(|c| Busiest {
        cpu: c.cpu,
        cpu_pct: c.usage.cpu_pct,
        irq_pct: c.usage.irq_pct,
    })
}

fn softirq_rates(
    a: &SoftirqCounters,
    b: &SoftirqCounters,
    rate: &dyn Fn(Option<u64>) -> Option<f64>,
) -> Vec<SoftirqRates> {
    let mut cpus: Vec<u32> = b
        .net_rx
        .keys()
        .chain(b.net_tx.keys())
        .chain(b.block.keys())
        .copied()
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    let d = |pa: &std::collections::BTreeMap<u32, u64>,
             pb: &std::collections::BTreeMap<u32, u64>,
             cpu: u32| rate(counter_delta(*pa.get(&cpu)?, *pb.get(&cpu)?));
    cpus.into_iter()
        .map(|cpu| SoftirqRates {
            cpu,
            net_rx_per_s: d(&a.net_rx, &b.net_rx, cpu),
            net_tx_per_s: d(&a.net_tx, &b.net_tx, cpu),
            block_per_s: d(&a.block, &b.block, cpu),
        })
        .collect()
}

fn irq_line_deltas(a: &[IrqLineCounts], b: &[IrqLineCounts], elapsed_s: f64) -> Vec<IrqLineDelta> {
    b.iter()
        .filter_map(|lb| {
            let la = a.iter().find(|l| l.id == lb.id)?;
            let per_cpu: BTreeMap<u32, u64> = lb
                .per_cpu
                .iter()
                .filter_map(|(cpu, &n)| Some((*cpu, counter_delta(*la.per_cpu.get(cpu)?, n)?)))
                .collect();
            let total = per_cpu.values().fold(0u64, |s, &n| s.saturating_add(n));
            Some(IrqLineDelta {
                id: lb.id.clone(),
                actions: lb.actions.clone(),
                per_cpu,
                total,
                per_s: (elapsed_s > 0.0).then(|| total as f64 / elapsed_s),
            })
        })
        .collect()
}

fn nic_rates(
    a: &[NicCounters],
    b: &[NicCounters],
    rate: &dyn Fn(Option<u64>) -> Option<f64>,
) -> Vec<NicRates> {
    b.iter()
        .filter_map(|nb| {
            let sb = nb.stats?;
            let sa = a.iter().find(|n| n.iface == nb.iface)?.stats?;
            let mut grown = IfStats::default();
            let before: BTreeMap<&str, u64> = sa.pairs().into_iter().collect();
            for (name, v) in sb.pairs() {
                grown.set(
                    name,
                    before.get(name).and_then(|&old| counter_delta(old, v)),
                );
            }
            Some(NicRates {
                iface: nb.iface.clone(),
                rx_bytes_per_s: rate(grown.rx_bytes),
                tx_bytes_per_s: rate(grown.tx_bytes),
                rx_packets_per_s: rate(grown.rx_packets),
                tx_packets_per_s: rate(grown.tx_packets),
                grown,
            })
        })
        .collect()
}

fn disk_rates(
    a: &[DiskCounters],
    b: &[DiskCounters],
    elapsed_s: f64,
    rate: &dyn Fn(Option<u64>) -> Option<f64>,
) -> Vec<DiskRates> {
    b.iter()
        .filter_map(|db| {
            let sb = db.stat?;
            let sa = a.iter().find(|d| d.dev == db.dev)?.stat?;
            let d = |x: fn(&BlockStat) -> u64| counter_delta(x(&sa), x(&sb));
            let bytes = |s: Option<u64>| s?.checked_mul(SECTOR_BYTES);
            let read_bytes = bytes(d(|s| s.read_sectors));
            let write_bytes = bytes(d(|s| s.write_sectors));
            Some(DiskRates {
                dev: db.dev.clone(),
                read_bytes,
                write_bytes,
                read_bytes_per_s: rate(read_bytes),
                write_bytes_per_s: rate(write_bytes),
                reads_per_s: rate(d(|s| s.reads)),
                writes_per_s: rate(d(|s| s.writes)),
                busy_pct: d(|s| s.io_ms)
                    .filter(|_| elapsed_s > 0.0)
                    .map(|ms| (ms as f64 / 10.0 / elapsed_s).min(100.0)),
                in_flight: Some(sb.in_flight),
            })
        })
        .collect()
}

fn task_rates(
    a: &[TaskCounters],
    b: &[TaskCounters],
    rate: &dyn Fn(Option<u64>) -> Option<f64>,
) -> Vec<TaskRates> {
    b.iter()
        .map(|tb| {
            let before = a.iter().find(|t| t.task == tb.task).and_then(|t| t.stat);
            let ticks = match (before, tb.stat) {
                (Some(x), Some(y)) => y.ticks.checked_sub(x.ticks),
                _ => None,
            };
            TaskRates {
                task: tb.task,
                ticks,
                cpu_pct: rate(ticks).map(|t| t * 100.0 / USER_HZ),
                cpu: tb.stat.map(|s| s.cpu),
            }
        })
        .collect()
}

/// Zero for every counter `s` has (the since-boot origin).
fn zero_if_stats(s: IfStats) -> IfStats {
    let mut z = IfStats::default();
    for (name, _) in s.pairs() {
        z.set(name, Some(0));
    }
    z
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn times(busy: u64, idle: u64, softirq: u64) -> CpuTimes {
        CpuTimes {
            user: busy,
            idle,
            softirq,
            ..Default::default()
        }
    }

    fn sample(t: f64, cpus: &[(u32, CpuTimes)]) -> Sample {
        let mut total = CpuTimes::default();
        for (_, c) in cpus {
            total.user += c.user;
            total.idle += c.idle;
            total.softirq += c.softirq;
        }
        Sample {
            mono_s: t,
            unix_ms: (t * 1000.0) as i64,
            stat: Some(ProcStat {
                total,
                per_cpu: cpus.iter().copied().collect(),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn one_core_saturated_by_softirq_on_a_quad_core() {
        // NanoPi R5S receiving iperf3: total 25 %, but cpu2 is at 100 % in softirq.
        let a = sample(
            10.0,
            &[
                (0, times(0, 1000, 0)),
                (1, times(0, 1000, 0)),
                (2, times(0, 1000, 0)),
                (3, times(0, 1000, 0)),
            ],
        );
        let b = sample(
            15.0,
            &[
                (0, times(0, 1500, 0)),
                (1, times(0, 1500, 0)),
                (2, times(0, 1000, 500)),
                (3, times(0, 1500, 0)),
            ],
        );
        let i = Interval::new(&a, &b);
        assert_eq!(i.elapsed_s, 5.0);
        let u = i.usage.unwrap();
        assert_eq!(u.cpu_pct, 25.0);
        assert_eq!(u.irq_pct, 25.0);
        let busy = i.busiest.unwrap();
        assert_eq!((busy.cpu, busy.cpu_pct, busy.irq_pct), (2, 100.0, 100.0));
        assert_eq!(i.cores.len(), 4);
        assert_eq!(i.core(1).unwrap().cpu_pct, 0.0);
    }

    #[test]
    fn busiest_tie_is_the_lowest_cpu() {
        let a = sample(0.0, &[(0, times(0, 0, 0)), (1, times(0, 0, 0))]);
        let b = sample(1.0, &[(0, times(50, 50, 0)), (1, times(50, 50, 0))]);
        assert_eq!(Interval::new(&a, &b).busiest.unwrap().cpu, 0);
    }

    #[test]
    fn hot_plug_between_samples() {
        // cpu3 went offline, cpu5 came online: neither has a usage, both are reported.
        let a = sample(0.0, &[(0, times(10, 90, 0)), (3, times(50, 50, 0))]);
        let b = sample(1.0, &[(0, times(60, 140, 0)), (5, times(1, 1, 0))]);
        let i = Interval::new(&a, &b);
        assert_eq!(i.cores.len(), 1);
        assert_eq!(i.cores[0].cpu, 0);
        assert_eq!(i.cpus_gone, vec![3]);
        assert_eq!(i.cpus_new, vec![5]);
        assert_eq!(i.busiest.unwrap().cpu, 0);
        assert!(i.usage.is_some(), "the total line still moved forwards");
    }

    #[test]
    fn zero_elapsed_and_identical_samples() {
        let mut a = sample(5.0, &[(0, times(10, 90, 0))]);
        a.swap = Some(SwapCounters {
            pswpin: 1,
            pswpout: 2,
        });
        let i = Interval::new(&a, &a);
        assert_eq!(i.elapsed_s, 0.0);
        assert!(i.usage.is_none());
        assert!(i.cores.is_empty());
        assert!(i.busiest.is_none());
        assert_eq!(i.swap_in_pages_per_s, None);
    }

    #[test]
    fn thirty_two_bit_counters_wrap() {
        assert_eq!(counter_delta(10, 15), Some(5));
        assert_eq!(counter_delta(u64::from(u32::MAX) - 1, 3), Some(5));
        assert_eq!(counter_delta(1 << 40, 5), None, "64-bit counter reset");
        let mut a = sample(0.0, &[(0, times(0, 100, 0))]);
        let mut b = sample(2.0, &[(0, times(0, 200, 0))]);
        a.swap = Some(SwapCounters {
            pswpin: u64::from(u32::MAX),
            pswpout: 100,
        });
        b.swap = Some(SwapCounters {
            pswpin: 9,
            pswpout: 300,
        });
        a.softirqs = Some(SoftirqCounters {
            net_rx: BTreeMap::from([(0, u64::from(u32::MAX) - 9)]),
            ..Default::default()
        });
        b.softirqs = Some(SoftirqCounters {
            net_rx: BTreeMap::from([(0, 10)]),
            ..Default::default()
        });
        let i = Interval::new(&a, &b);
        assert_eq!(i.swap_in_pages_per_s, Some(5.0));
        assert_eq!(i.swap_out_pages_per_s, Some(100.0));
        assert_eq!(i.softirqs[0].net_rx_per_s, Some(10.0));
        assert_eq!(i.softirqs[0].block_per_s, None);
    }

    #[test]
    fn since_boot_averages() {
        let mut b = sample(100.0, &[(0, times(25, 75, 0)), (1, times(75, 25, 0))]);
        b.unix_ms = 1_000_000;
        b.temp_c = Some(41.6);
        let i = Interval::since_boot(&b);
        assert!(i.since_boot);
        assert_eq!(i.usage.unwrap().cpu_pct, 50.0);
        assert_eq!(i.busiest.unwrap().cpu, 1);
        assert_eq!(i.start_unix_ms, 900_000);
        assert_eq!(i.temp_c, Some(41.6));
        // A --sysroot tree: its own uptime, not this process's clock.
        b.uptime_s = Some(20.0);
        let i = Interval::since_boot(&b);
        assert_eq!(i.start_unix_ms, 980_000);
        assert!((i.elapsed_s - 20.0).abs() < 1e-9, "{}", i.elapsed_s);
        assert_eq!(i.usage.unwrap().cpu_pct, 50.0);
    }

    fn arb_times() -> impl proptest::strategy::Strategy<Value = CpuTimes> {
        use proptest::prelude::*;
        (proptest::array::uniform8(0u64..1 << 40), any::<bool>()).prop_map(|(v, huge)| {
            let big = if huge { u64::MAX - (1 << 41) } else { 0 };
            CpuTimes {
                user: v[0] + big,
                nice: v[1] + big,
                system: v[2],
                idle: v[3],
                iowait: v[4],
                irq: v[5],
                softirq: v[6],
                steal: v[7],
            }
        })
    }

    proptest::proptest! {
        #[test]
        fn any_counters_give_sane_percentages_or_none(
            a in proptest::collection::vec(arb_times(), 0..5),
            b in proptest::collection::vec(arb_times(), 0..5),
            ta in -10.0f64..1e6,
            tb in -10.0f64..1e6,
        ) {
            let mk = |v: &Vec<CpuTimes>, t: f64| Sample {
                mono_s: t,
                stat: Some(ProcStat {
                    total: v.first().copied().unwrap_or_default(),
                    per_cpu: v.iter().copied().enumerate().map(|(i, c)| (i as u32, c)).collect(),
                }),
                ..Default::default()
            };
            let (sa, sb) = (mk(&a, ta), mk(&b, tb));
            for i in [Interval::new(&sa, &sb), Interval::since_boot(&sb)] {
                for u in i.usage.iter().chain(i.cores.iter().map(|c| &c.usage)) {
                    for p in [u.cpu_pct, u.sys_pct, u.usr_pct, u.irq_pct, u.io_pct] {
                        proptest::prop_assert!((0.0..=100.0 + 1e-9).contains(&p), "{p}");
                    }
                }
            }
        }
    }

    #[test]
    fn missing_stat_gives_no_usage() {
        let a = Sample::default();
        let b = Sample {
            mono_s: 1.0,
            ..Default::default()
        };
        let i = Interval::new(&a, &b);
        assert!(i.usage.is_none() && i.cores.is_empty() && i.busiest.is_none());
    }
}
