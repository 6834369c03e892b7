//! What the system does while a test runs, on our side of it: per-core usage split into
//! usr/sys/irq/softirq (`/proc/stat`, through [`crate::monitor::stat`]), the interface's
//! IRQ lines (`/proc/interrupts`), NET_RX/NET_TX softirqs per core, the interface's
//! counters and driver statistics, cpufreq per policy, and which core each stream's thread
//! ran on (`/proc/self/task/TID/stat`, field 39).
//!
//! Sampling is cheap (a handful of small files once per interval); turning the samples into
//! an [`NetObservation`] is pure, and so is the diagnosis made from it.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use super::engine::StreamThread;
use crate::diagnose::net::{CpuObs, NetObservation, PolicyObs, ThreadObs};
use crate::monitor::stat::{self, ProcStat};
use crate::sys::cpufreq::{self, Policy};
use crate::sys::irq;
use crate::sys::net::{self, IfStats, Interface};
use crate::sys::root::SysRoot;

/// One reading.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SystemSample {
    /// Seconds since the sampler started.
    pub at_s: f64,
    /// `/proc/stat`.
    pub stat: Option<ProcStat>,
    /// Interrupts of the interface's IRQ lines, summed per CPU.
    pub nic_irqs: BTreeMap<u32, u64>,
    /// NET_RX softirqs per CPU.
    pub net_rx: BTreeMap<u32, u64>,
    /// NET_TX softirqs per CPU.
    pub net_tx: BTreeMap<u32, u64>,
    /// Interface counters.
    pub if_stats: Option<IfStats>,
    /// Current clock per policy, kHz.
    pub cur_khz: BTreeMap<u32, u64>,
    /// (stream id, sender, CPU it last ran on, user+system clock ticks so far) of each
    /// stream thread.
    pub threads: Vec<(i64, bool, u32, u64)>,
}

/// The processor a task last ran on (field 39 of `/proc/PID/task/TID/stat`) and the clock
/// ticks it used (fields 14 and 15, utime + stime). The command name (field 2) may hold
/// spaces and parentheses, so fields are counted after its last `)`.
pub fn parse_task_stat(stat: &str) -> Option<(u32, u64)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| f.get(n - 3).copied();
    let cpu = field(39)?.parse().ok()?;
    let utime: u64 = field(14)?.parse().ok()?;
    let stime: u64 = field(15)?.parse().ok()?;
    Some((cpu, utime + stime))
}

/// Clock ticks per second of `/proc` times (`USER_HZ`).
fn clk_tck() -> f64 {
    // SAFETY: sysconf has no memory effects.
    let v = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if v > 0 { v as f64 } else { 100.0 }
}

/// Samples the system during one test.
#[derive(Debug)]
pub struct Sampler {
    root: SysRoot,
    iface: Option<Interface>,
    policies: Vec<Policy>,
    start: Instant,
    samples: Vec<SystemSample>,
    ethtool_before: Option<BTreeMap<String, u64>>,
    peer_local: bool,
}

impl Sampler {
    /// Prepare for a test over interface `iface` (`None`: unknown, only CPU and clocks).
    pub fn new(root: &SysRoot, iface: Option<&str>) -> Self {
        let ints = irq::read_interrupts(root);
        let iface = iface
            .filter(|n| net::valid_name(n))
            .map(|n| net::read_interface(root, n, ints.as_ref()));
        let ethtool_before = match &iface {
            Some(i) if root.is_host() && i.kind == net::IfaceKind::Physical => {
                net::ethtool::stats(&i.name)
            }
            _ => None,
        };
        Self {
            root: root.clone(),
            iface,
            policies: cpufreq::read_policies(root),
            start: Instant::now(),
            samples: Vec::new(),
            ethtool_before,
            peer_local: false,
        }
    }

    /// The other end of the test runs on this machine (its address is one of ours).
    pub fn set_peer_local(&mut self, yes: bool) {
        self.peer_local = yes;
    }

    /// The interface being watched.
    pub fn interface(&self) -> Option<&Interface> {
        self.iface.as_ref()
    }

    /// Take one reading. `threads` are the test's stream threads.
    pub fn sample(&mut self, threads: &[StreamThread]) {
        let r = &self.root;
        let mut s = SystemSample {
            at_s: self.start.elapsed().as_secs_f64(),
            stat: r.read_opt("/proc/stat").map(|t| stat::parse_proc_stat(&t)),
            ..Default::default()
        };
        if let Some(i) = &self.iface {
            if let Some(ints) = irq::read_interrupts(r) {
                let irqs: Vec<u32> = i.irqs.iter().map(|q| q.irq).collect();
                for line in ints.for_names(&i.irq_names(), &irqs) {
                    for &cpu in &ints.cpus {
                        *s.nic_irqs.entry(cpu).or_default() += ints.count(line, cpu);
                    }
                }
            }
            s.if_stats = Some(net::read_stats(r, &i.name));
        }
        if let Some(soft) = irq::read_softirqs(r) {
            s.net_rx = soft.per_cpu("NET_RX");
            s.net_tx = soft.per_cpu("NET_TX");
        }
        for p in &self.policies {
            if let Some(k) = r.parse::<u64>(cpufreq::policy_attr(p.id, "scaling_cur_freq")) {
                s.cur_khz.insert(p.id, k);
            }
        }
        // Our own threads: only meaningful on the live system.
        if r.is_host() {
            for t in threads {
                let Some(tid) = t.tid else { continue };
                if let Some((cpu, ticks)) = r
                    .read_opt(format!("/proc/self/task/{tid}/stat"))
                    .and_then(|st| parse_task_stat(&st))
                {
                    s.threads.push((t.id, t.sender, cpu, ticks));
                }
            }
        }
        self.samples.push(s);
    }

    /// Samples taken so far.
    pub fn samples(&self) -> &[SystemSample] {
        &self.samples
    }

    /// Summarise the test. `rx_bps`/`tx_bps`: goodput our receiving / sending streams saw;
    /// `retransmits`: of our sending streams.
    pub fn finish(
        self,
        rx_bps: Option<f64>,
        tx_bps: Option<f64>,
        retransmits: Option<i64>,
    ) -> NetObservation {
        let ethtool_after = match (&self.iface, &self.ethtool_before) {
            (Some(i), Some(_)) => net::ethtool::stats(&i.name),
            _ => None,
        };
        let peer_local = self.peer_local;
        let mut o = observe(
            &self.root,
            self.iface,
            &self.policies,
            &self.samples,
            self.ethtool_before.as_ref(),
            ethtool_after.as_ref(),
            clk_tck(),
            rx_bps,
            tx_bps,
            retransmits,
        );
        o.peer_local |= peer_local;
        o
    }
}

fn delta_map(a: &BTreeMap<u32, u64>, b: &BTreeMap<u32, u64>) -> BTreeMap<u32, u64> {
    b.iter()
        .map(|(k, v)| (*k, v.saturating_sub(a.get(k).copied().unwrap_or(0))))
        .collect()
}

/// Driver statistics that count lost or refused packets (`rx_missed`, `rx_mac_missed`,
/// `rdu` of the Realtek r8125/r8169, `rx_dropped`, `*_no_buffer*`, `*fifo*`, `*overrun*`).
pub fn is_drop_counter(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    (n.starts_with("rx") || n.contains("_rx") || n == "rdu" || n.contains("missed"))
        && (n.contains("miss")
            || n.contains("drop")
            || n.contains("no_buf")
            || n.contains("nobuf")
            || n.contains("fifo")
            || n.contains("overrun")
            || n == "rdu")
}

/// Per thread: CPUs seen (with counts), first and last (time, ticks) reading.
type ThreadAcc = (BTreeMap<u32, u32>, Option<(f64, u64)>, Option<(f64, u64)>);

/// Build the observation from samples (pure, apart from reading governor tunables).
#[allow(clippy::too_many_arguments)]
pub fn observe(
    root: &SysRoot,
    iface: Option<Interface>,
    policies: &[Policy],
    samples: &[SystemSample],
    ethtool_before: Option<&BTreeMap<String, u64>>,
    ethtool_after: Option<&BTreeMap<String, u64>>,
    clk_tck: f64,
    rx_bps: Option<f64>,
    tx_bps: Option<f64>,
    retransmits: Option<i64>,
) -> NetObservation {
    let (first, last) = match (samples.first(), samples.last()) {
        (Some(a), Some(b)) => (a, b),
        _ => {
            let loopback = iface
                .as_ref()
                .is_some_and(|i| i.kind == net::IfaceKind::Loopback);
            return NetObservation {
                loopback,
                peer_local: loopback,
                iface,
                rx_bps,
                tx_bps,
                retransmits,
                ..Default::default()
            };
        }
    };
    let mut cpus = Vec::new();
    if let (Some(a), Some(b)) = (&first.stat, &last.stat) {
        for (cpu, tb) in &b.per_cpu {
            let Some(ta) = a.per_cpu.get(cpu) else {
                continue;
            };
            let Some(u) = stat::usage(ta, tb) else {
                continue;
            };
            // Peak over consecutive samples: a one-second burst counts.
            let mut peak_busy: f64 = 0.0;
            let mut peak_soft: f64 = 0.0;
            for w in samples.windows(2) {
                let (Some(x), Some(y)) = (&w[0].stat, &w[1].stat) else {
                    continue;
                };
                if let (Some(px), Some(py)) = (x.per_cpu.get(cpu), y.per_cpu.get(cpu)) {
                    if let Some(pu) = stat::usage(px, py) {
                        peak_busy = peak_busy.max(pu.cpu_pct);
                        peak_soft = peak_soft.max(pu.irq_pct);
                    }
                }
            }
            cpus.push(CpuObs {
                cpu: *cpu,
                usage: u,
                peak_busy_pct: peak_busy.max(u.cpu_pct),
                peak_irq_pct: peak_soft.max(u.irq_pct),
            });
        }
    }
    let mut threads: BTreeMap<(i64, bool), ThreadAcc> = BTreeMap::new();
    for s in samples {
        for &(id, sender, cpu, ticks) in &s.threads {
            let e = threads.entry((id, sender)).or_default();
            *e.0.entry(cpu).or_default() += 1;
            if e.1.is_none() {
                e.1 = Some((s.at_s, ticks));
            }
            e.2 = Some((s.at_s, ticks));
        }
    }
    let policy_obs = policies
        .iter()
        .map(|p| {
            let seen: Vec<u64> = samples
                .iter()
                .filter_map(|s| s.cur_khz.get(&p.id).copied())
                .collect();
            let io_is_busy = cpufreq::ondemand_io_is_busy(root, p.id);
            PolicyObs {
                id: p.id,
                cpus: p.cpus.clone(),
                governor: p.governor.clone(),
                min_khz_seen: seen.iter().copied().min(),
                max_khz_seen: seen.iter().copied().max(),
                max_khz: p.cpuinfo_max_khz.or(p.scaling_max_khz),
                io_is_busy,
            }
        })
        .collect();
    let mut growth: BTreeMap<String, u64> = BTreeMap::new();
    if let (Some(a), Some(b)) = (&first.if_stats, &last.if_stats) {
        for (k, v) in b.delta(a) {
            if k.starts_with("rx_") && k != "rx_bytes" && k != "rx_packets" && v > 0 {
                growth.insert(k.to_string(), v);
            }
        }
    }
    if let (Some(a), Some(b)) = (ethtool_before, ethtool_after) {
        for (k, v) in b {
            if is_drop_counter(k) {
                let d = v.saturating_sub(a.get(k).copied().unwrap_or(0));
                if d > 0 {
                    growth.insert(format!("ethtool:{k}"), d);
                }
            }
        }
    }
    let duration_s = last.at_s - first.at_s;
    let loopback = iface
        .as_ref()
        .is_some_and(|i| i.kind == net::IfaceKind::Loopback);
    NetObservation {
        loopback,
        peer_local: loopback,
        iface,
        duration_s,
        rx_bps,
        tx_bps,
        retransmits,
        cpus,
        nic_irqs_per_cpu: delta_map(&first.nic_irqs, &last.nic_irqs),
        net_rx_per_cpu: delta_map(&first.net_rx, &last.net_rx),
        net_tx_per_cpu: delta_map(&first.net_tx, &last.net_tx),
        threads: threads
            .into_iter()
            .map(|((id, sender), (cpus, a, b))| ThreadObs {
                id,
                sender,
                cpus,
                cpu_pct: match (a, b) {
                    (Some((t0, k0)), Some((t1, k1))) if t1 > t0 => {
                        Some(k1.saturating_sub(k0) as f64 / clk_tck / (t1 - t0) * 100.0)
                    }
                    _ => None,
                },
            })
            .collect(),
        policies: policy_obs,
        counter_growth: growth,
    }
}

/// The interface that carries traffic from local address `local`: the one holding that
/// address (`lo` for loopback addresses). `None` when no interface has it.
pub fn interface_for(local: std::net::IpAddr) -> Option<String> {
    if local.is_loopback() {
        return Some("lo".into());
    }
    let want = match local {
        std::net::IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(std::net::IpAddr::V4)
            .unwrap_or(local),
        v4 => v4,
    };
    let addrs = nix::ifaddrs::getifaddrs().ok()?;
    for a in addrs {
        let Some(sa) = a.address else { continue };
        let ip = if let Some(v4) = sa.as_sockaddr_in() {
            std::net::IpAddr::V4(v4.ip())
        } else if let Some(v6) = sa.as_sockaddr_in6() {
            std::net::IpAddr::V6(v6.ip())
        } else {
            continue;
        };
        if ip == want {
            return Some(a.interface_name);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_cpu_field() {
        // A thread named with spaces and a parenthesis, running on CPU 6, 3 + 95 ticks.
        let st = "4242 (net rx) 1) S 1 4242 4242 0 -1 4194368 120 0 0 0 3 95 0 0 20 0 9 0 1000 100000000 500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 -1 6 0 0 0 0 0\n";
        assert_eq!(parse_task_stat(st), Some((6, 98)));
        assert_eq!(parse_task_stat("1 (x) S 1"), None);
        assert_eq!(parse_task_stat("garbage"), None);
        // Our own thread, live.
        let me = std::fs::read_to_string(format!(
            "/proc/self/task/{}/stat",
            super::super::sockopt::gettid()
        ))
        .unwrap();
        assert!(parse_task_stat(&me).is_some());
    }

    #[test]
    fn drop_counters() {
        for k in [
            "rx_missed",
            "rx_mac_missed",
            "rdu",
            "rx_dropped",
            "rx_fifo_errors",
            "rx_no_buffer_count",
            "rx_queue_0_drops",
        ] {
            assert!(is_drop_counter(k), "{k}");
        }
        for k in [
            "tx_packets",
            "rx_octets",
            "tx_pause_on",
            "rx_packets",
            "tdu",
        ] {
            assert!(!is_drop_counter(k), "{k}");
        }
    }

    #[test]
    fn loopback_is_lo() {
        assert_eq!(
            interface_for("127.0.0.1".parse().unwrap()).as_deref(),
            Some("lo")
        );
        assert_eq!(interface_for("::1".parse().unwrap()).as_deref(), Some("lo"));
        assert_eq!(interface_for("203.0.113.77".parse().unwrap()), None);
    }

    #[test]
    fn sampling_the_live_machine_does_not_panic() {
        let mut s = Sampler::new(&SysRoot::host(), Some("lo"));
        s.sample(&[StreamThread {
            id: 1,
            sender: true,
            tid: Some(super::super::sockopt::gettid()),
        }]);
        std::thread::sleep(std::time::Duration::from_millis(30));
        s.sample(&[]);
        let o = s.finish(Some(1e9), None, None);
        assert!(o.loopback);
        assert!(!o.cpus.is_empty());
        assert_eq!(o.threads.len(), 1);
    }
}
