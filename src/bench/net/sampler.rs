//! What the system does while a test runs, on our side of it: per-core usage split into
//! usr/sys/irq/softirq (`/proc/stat`, through [`crate::monitor::stat`]), the interface's
//! IRQ lines (`/proc/interrupts`), NET_RX/NET_TX softirqs per core, the interface's
//! counters and driver statistics, cpufreq per policy, and which core each stream's thread
//! ran on (`/proc/self/task/TID/stat`, field 39).
//!
//! Sampling is cheap (a handful of small files once per interval). The sampler keeps raw
//! readings ([`NetRecording`]); what they mean is derived in [`crate::diagnose::net`].

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;

use super::engine::StreamThread;
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

    /// The readings of the test, with the driver statistics and governor tunables as
    /// they are now, at its end.
    pub fn finish(self) -> NetRecording {
        let ethtool_after = match (&self.iface, &self.ethtool_before) {
            (Some(i), Some(_)) => net::ethtool::stats(&i.name),
            _ => None,
        };
        let io_is_busy = self
            .policies
            .iter()
            .filter_map(|p| Some((p.id, cpufreq::ondemand_io_is_busy(&self.root, p.id)?)))
            .collect();
        NetRecording {
            iface: self.iface,
            policies: self.policies,
            io_is_busy,
            samples: self.samples,
            ethtool_before: self.ethtool_before,
            ethtool_after,
            clk_tck: clk_tck(),
            peer_local: self.peer_local,
        }
    }
}

/// What the sampler read during one test: raw readings, nothing derived.
#[derive(Debug, Clone, Default, Serialize)]
pub struct NetRecording {
    /// The interface watched, as it was before the test.
    pub iface: Option<Interface>,
    /// cpufreq policies, as they were before the test.
    pub policies: Vec<Policy>,
    /// ondemand's (or conservative's) `io_is_busy` per policy that has it, at the end.
    pub io_is_busy: BTreeMap<u32, bool>,
    /// Readings in order.
    pub samples: Vec<SystemSample>,
    /// The driver's statistics (`ethtool -S`) before the test.
    pub ethtool_before: Option<BTreeMap<String, u64>>,
    /// The driver's statistics after the test.
    pub ethtool_after: Option<BTreeMap<String, u64>>,
    /// Clock ticks per second of the threads' CPU times (`USER_HZ`).
    pub clk_tck: f64,
    /// The other end of the test runs on this machine.
    pub peer_local: bool,
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
        let r = s.finish();
        assert_eq!(r.samples.len(), 2);
        assert!(r.samples[0].stat.is_some());
        assert_eq!(r.samples[0].threads.len(), 1);
    }
}
