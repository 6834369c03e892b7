//! `/proc/stat` CPU time counters and the utilisation derived from two readings, with
//! sbc-bench's semantics: `%cpu` is everything but idle (iowait counts as busy), `%irq`
//! is hard plus soft interrupts, percentages of all CPUs' time together.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `USER_HZ`: the unit of `/proc/stat` and `/proc/<pid>/stat` times on every Linux (the
/// one place this is assumed).
pub const USER_HZ: f64 = 100.0;

/// Cumulative time counters of one CPU (or of all, for the `cpu` line), in clock ticks
/// (`USER_HZ`, 100 per second on every Linux we know).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuTimes {
    /// Normal user processes.
    pub user: u64,
    /// Niced user processes.
    pub nice: u64,
    /// Kernel.
    pub system: u64,
    /// Idle.
    pub idle: u64,
    /// Idle while waiting for I/O.
    pub iowait: u64,
    /// Hard interrupts.
    pub irq: u64,
    /// Soft interrupts (network receive processing lands here).
    pub softirq: u64,
    /// Time stolen by the hypervisor.
    pub steal: u64,
}

impl CpuTimes {
    /// All ticks (guest time is already included in user/nice by the kernel).
    pub fn total(&self) -> u64 {
        self.user
            .saturating_add(self.nice)
            .saturating_add(self.system)
            .saturating_add(self.idle)
            .saturating_add(self.iowait)
            .saturating_add(self.irq)
            .saturating_add(self.softirq)
            .saturating_add(self.steal)
    }
}

/// The CPU lines of `/proc/stat`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcStat {
    /// The aggregate `cpu` line.
    pub total: CpuTimes,
    /// `cpuN` lines; offline CPUs are absent.
    pub per_cpu: BTreeMap<u32, CpuTimes>,
}

/// Parse the `cpu`/`cpuN` lines of `/proc/stat`. Malformed lines are skipped; missing
/// trailing fields (old kernels have only four) count as zero.
pub fn parse_proc_stat(text: &str) -> ProcStat {
    let mut out = ProcStat::default();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let Some(name) = it.next() else { continue };
        let Some(rest) = name.strip_prefix("cpu") else {
            continue;
        };
        let v: Vec<u64> = it.map_while(|t| t.parse().ok()).collect();
        if v.len() < 4 {
            continue;
        }
        let g = |i: usize| v.get(i).copied().unwrap_or(0);
        let t = CpuTimes {
            user: g(0),
            nice: g(1),
            system: g(2),
            idle: g(3),
            iowait: g(4),
            irq: g(5),
            softirq: g(6),
            steal: g(7),
        };
        if rest.is_empty() {
            out.total = t;
        } else if let Ok(n) = rest.parse() {
            out.per_cpu.insert(n, t);
        }
    }
    out
}

/// Utilisation over an interval, in percent of the time available.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Everything but idle (sbc-bench's `%cpu`).
    pub cpu_pct: f64,
    /// User processes (`%usr`).
    pub usr_pct: f64,
    /// Niced processes (`%nice`).
    pub nice_pct: f64,
    /// Kernel (`%sys`).
    pub sys_pct: f64,
    /// Waiting for I/O (`%io`).
    pub io_pct: f64,
    /// Hard plus soft interrupts (sbc-bench's `%irq`).
    pub irq_pct: f64,
    /// Hard interrupts alone.
    pub hardirq_pct: f64,
    /// Soft interrupts alone.
    pub softirq_pct: f64,
    /// Stolen by the hypervisor.
    pub steal_pct: f64,
}

/// Utilisation between two readings of the same CPU; `None` when no tick elapsed or
/// the counters went backwards (CPU hot-plugged in between).
pub fn usage(prev: &CpuTimes, cur: &CpuTimes) -> Option<Usage> {
    let d = |a: u64, b: u64| b.checked_sub(a);
    let user = d(prev.user, cur.user)?;
    let nice = d(prev.nice, cur.nice)?;
    let system = d(prev.system, cur.system)?;
    let idle = d(prev.idle, cur.idle)?;
    let iowait = d(prev.iowait, cur.iowait).unwrap_or(0);
    let irq = d(prev.irq, cur.irq)?;
    let softirq = d(prev.softirq, cur.softirq)?;
    let steal = d(prev.steal, cur.steal).unwrap_or(0);
    // Garbage counters near u64::MAX must give "no value", not an overflow panic.
    let total = [user, nice, system, idle, iowait, irq, softirq, steal]
        .iter()
        .try_fold(0u64, |a, &x| a.checked_add(x))?;
    if total == 0 {
        return None;
    }
    let pct = |x: u64| x as f64 * 100.0 / total as f64;
    Some(Usage {
        cpu_pct: pct(total - idle),
        usr_pct: pct(user),
        nice_pct: pct(nice),
        sys_pct: pct(system),
        io_pct: pct(iowait),
        irq_pct: pct(irq + softirq),
        hardirq_pct: pct(irq),
        softirq_pct: pct(softirq),
        steal_pct: pct(steal),
    })
}

/// `/proc/loadavg`: the 1, 5 and 15 minute load averages.
pub fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut it = text.split_whitespace().map(|t| t.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "cpu  51162 0 11116 72235 556 0 63 39 0 0\n\
cpu0 25374 0 5314 36735 114 0 5 17 0 0\n\
cpu1 25788 0 5802 35500 442 0 57 22 0 0\n\
intr 427135 0 0 0\n\
ctxt 487860\n";

    #[test]
    fn parses_total_and_per_cpu() {
        let s = parse_proc_stat(SAMPLE);
        assert_eq!(s.total.user, 51162);
        assert_eq!(s.per_cpu.len(), 2);
        assert_eq!(s.per_cpu[&1].softirq, 57);
        assert_eq!(s.total.total(), 51162 + 11116 + 72235 + 556 + 63 + 39);
    }

    #[test]
    fn old_kernel_four_fields_and_garbage() {
        let s = parse_proc_stat("cpu 1 2 3 4\ncpu0 x y\ncpuZ 1 2 3 4 5\n");
        assert_eq!(s.total.idle, 4);
        assert!(s.per_cpu.is_empty());
        assert_eq!(parse_proc_stat(""), ProcStat::default());
    }

    #[test]
    fn nanopi_r5s_one_core_of_four_in_softirq() {
        // One of four cores busy serving a NIC: 25 % irq in total, as the R5S review saw.
        let a = CpuTimes {
            idle: 1000,
            ..Default::default()
        };
        let b = CpuTimes {
            idle: 1300,
            softirq: 100,
            ..Default::default()
        };
        let u = usage(&a, &b).unwrap();
        assert_eq!(u.irq_pct, 25.0);
        assert_eq!(u.cpu_pct, 25.0);
        assert!(usage(&b, &a).is_none(), "counters going backwards");
        assert!(usage(&a, &a).is_none(), "no time passed");
    }

    #[test]
    fn huge_garbage_counters_do_not_overflow() {
        let max = CpuTimes {
            user: u64::MAX,
            nice: u64::MAX,
            system: u64::MAX,
            idle: u64::MAX,
            ..Default::default()
        };
        assert!(usage(&CpuTimes::default(), &max).is_none());
        let s = parse_proc_stat("cpu 18446744073709551615 18446744073709551615 1 1\n");
        assert_eq!(s.total.user, u64::MAX);
        assert_eq!(s.total.total(), u64::MAX);
    }

    #[test]
    fn loadavg() {
        assert_eq!(
            parse_loadavg("1.75 1.41 0.72 1/79 16143\n"),
            Some([1.75, 1.41, 0.72])
        );
        assert_eq!(parse_loadavg("garbage"), None);
    }
}
