//! What the system does while a test runs, on our side of it: per-core usage split into
//! usr/sys/irq/softirq (`/proc/stat`, through [`crate::monitor::stat`]), the interface's
//! IRQ lines (`/proc/interrupts`), NET_RX/NET_TX softirqs per core, the interface's
//! counters and driver statistics, cpufreq per policy, and which core each stream's thread
//! ran on (`/proc/PID/task/TID/stat`, field 39), all read by the monitor's sampler
//! ([`crate::monitor::Sampler`]) with the mask a test needs.
//!
//! Sampling is cheap (a handful of small files once per interval). The sampler keeps raw
//! readings ([`NetRecording`]); what they mean is derived in [`crate::diagnose::net`].

use std::collections::BTreeMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::engine::{StreamInfo, StreamThread};
use crate::monitor::sample::{IrqSelect, Sample, SampleSpec, TaskId};
use crate::monitor::stat::{ProcStat, USER_HZ};
use crate::monitor::{ClockColumn, ClockColumns, Layout};
use crate::sys::cpufreq::{self, Policy};
use crate::sys::irq;
use crate::sys::net::{self, IfStats, Interface};
use crate::sys::root::SysRoot;

/// One reading.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SystemSample {
    /// Seconds since the sampler started.
    pub at_s: f64,
    /// `/proc/stat`.
    pub stat: Option<ProcStat>,
    /// Interrupts of the interface's IRQ lines, summed per CPU.
    #[serde(default)]
    pub nic_irqs: BTreeMap<u32, u64>,
    /// NET_RX softirqs per CPU.
    #[serde(default)]
    pub net_rx: BTreeMap<u32, u64>,
    /// NET_TX softirqs per CPU.
    #[serde(default)]
    pub net_tx: BTreeMap<u32, u64>,
    /// Interface counters.
    pub if_stats: Option<IfStats>,
    /// Current clock per policy, kHz.
    #[serde(default)]
    pub cur_khz: BTreeMap<u32, u64>,
    /// (stream id, sender, CPU it last ran on, user+system clock ticks so far) of each
    /// stream thread.
    #[serde(default)]
    pub threads: Vec<(i64, bool, u32, u64)>,
}

impl SystemSample {
    /// The network's view of one [`Sample`] of the monitor's sampler: the interface's IRQ
    /// lines summed per CPU, its counters, and each stream thread's CPU and ticks.
    fn of(sample: Sample, at_s: f64, threads: &[StreamThread]) -> Self {
        let mut nic_irqs: BTreeMap<u32, u64> = BTreeMap::new();
        for line in sample.irq_lines.iter().flatten() {
            for (&cpu, &n) in &line.per_cpu {
                *nic_irqs.entry(cpu).or_default() += n;
            }
        }
        let tids: BTreeMap<u32, (i64, bool)> = threads
            .iter()
            .filter_map(|t| Some((u32::try_from(t.tid?).ok()?, (t.id, t.sender))))
            .collect();
        let softirqs = sample.softirqs.unwrap_or_default();
        Self {
            at_s,
            cur_khz: sample
                .clocks
                .iter()
                .filter_map(|c| Some((c.policy, c.khz?)))
                .collect(),
            stat: sample.stat,
            nic_irqs,
            net_rx: softirqs.net_rx,
            net_tx: softirqs.net_tx,
            if_stats: sample.nics.into_iter().next().and_then(|n| n.stats),
            threads: sample
                .tasks
                .iter()
                .filter_map(|t| {
                    let (id, sender) = tids.get(&t.task.tid?)?;
                    let st = t.stat?;
                    Some((*id, *sender, st.cpu, st.ticks))
                })
                .collect(),
        }
    }
}

/// What the test needs read, as the monitor sampler's mask: CPU times and every policy's
/// clock always, softirqs, and the interface's IRQ lines and counters when it is known.
fn spec_for(iface: Option<&Interface>) -> SampleSpec {
    let mut spec = SampleSpec {
        softirqs: true,
        ..SampleSpec::default()
    };
    if let Some(i) = iface {
        let irqs: Vec<u32> = i.irqs.iter().map(|q| q.irq).collect();
        spec = spec
            .with_irqs(IrqSelect::numbers(&irqs))
            .with_irqs(IrqSelect::handlers(&i.irq_names()))
            .with_nic(&i.name);
    }
    spec
}

/// A clock layout that reads every policy (the diagnosis looks at each one).
fn every_policy(policies: &[Policy]) -> Layout {
    Layout {
        clocks: ClockColumns::Clusters {
            columns: policies
                .iter()
                .map(|p| ClockColumn {
                    first_cpu: p.cpus.first().copied().unwrap_or(0),
                    policy: p.id,
                })
                .collect(),
        },
        cpu_policy: policies
            .iter()
            .flat_map(|p| p.cpus.iter().map(|&c| (c, p.id)))
            .collect(),
        all_policies: false,
    }
}

/// Samples the system during one test, through the monitor's [`crate::monitor::Sampler`].
#[derive(Debug)]
pub struct NetSampler {
    root: SysRoot,
    iface: Option<Interface>,
    policies: Vec<Policy>,
    reader: crate::monitor::Sampler,
    start: Instant,
    samples: Vec<SystemSample>,
    ethtool_before: Option<BTreeMap<String, u64>>,
    peer_local: bool,
}

impl NetSampler {
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
        let policies = cpufreq::read_policies(root);
        let reader = crate::monitor::Sampler::new(
            root,
            &every_policy(&policies),
            None,
            None,
            spec_for(iface.as_ref()),
        );
        Self {
            root: root.clone(),
            iface,
            policies,
            reader,
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

    /// Take one reading. `threads` are the test's stream threads (ours: only meaningful on
    /// the live system).
    pub fn sample(&mut self, threads: &[StreamThread]) {
        let tasks: Vec<TaskId> = if self.root.is_host() {
            let pid = std::process::id();
            threads
                .iter()
                .filter_map(|t| Some(TaskId::thread(pid, u32::try_from(t.tid?).ok()?)))
                .collect()
        } else {
            Vec::new()
        };
        if tasks != self.reader.tasks() {
            self.reader.set_tasks(&tasks);
        }
        let at_s = self.start.elapsed().as_secs_f64();
        let sample = self.reader.sample();
        self.samples.push(SystemSample::of(sample, at_s, threads));
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
            clk_tck: USER_HZ,
            peer_local: self.peer_local,
        }
    }
}

/// What the sampler read during one test: raw readings, nothing derived.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NetRecording {
    /// The interface watched, as it was before the test.
    pub iface: Option<Interface>,
    /// cpufreq policies, as they were before the test.
    #[serde(default)]
    pub policies: Vec<Policy>,
    /// ondemand's (or conservative's) `io_is_busy` per policy that has it, at the end.
    #[serde(default)]
    pub io_is_busy: BTreeMap<u32, bool>,
    /// Readings in order.
    #[serde(default)]
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

/// Is the other end of the streams on this machine (a loopback address or one of ours)?
fn peer_is_local(streams: &[StreamInfo]) -> bool {
    let Some(ip) = streams
        .first()
        .and_then(|s| s.remote_host.parse::<std::net::IpAddr>().ok())
    else {
        return false;
    };
    ip.is_loopback() || interface_for(ip).is_some()
}

/// The interface the streams use: `--iface`, else the one with their local address.
fn iface_for_streams(iface: Option<&str>, streams: &[StreamInfo]) -> Option<String> {
    if let Some(i) = iface {
        return Some(i.to_string());
    }
    let ip: std::net::IpAddr = streams.first()?.local_host.parse().ok()?;
    interface_for(ip)
}

impl NetSampler {
    /// Start sampling the machine for the diagnosis when the streams begin: the interface they
    /// use (or `--iface`), the first sample at once.
    pub fn for_streams(
        root: &SysRoot,
        iface: Option<&str>,
        streams: &[StreamInfo],
        threads: &[StreamThread],
    ) -> NetSampler {
        let iface = iface_for_streams(iface, streams);
        let mut s = NetSampler::new(root, iface.as_deref());
        s.set_peer_local(root.is_host() && peer_is_local(streams));
        s.sample(threads);
        s
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
        let mut s = NetSampler::new(&SysRoot::host(), Some("lo"));
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
        assert_eq!(r.samples[0].threads[0].0, 1);
        assert!(r.samples[1].threads.is_empty());
    }
}
