//! What was observed on our side during one network test: plain data derived from the
//! sampler's readings (by [`crate::diagnose::net::observe`]), which the network diagnosis
//! reads and `net -J` prints under `sbc_bench.observation`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::monitor::stat::Usage;
use crate::sys::net::Interface;

/// One core over the test.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuObs {
    /// CPU number.
    pub cpu: u32,
    /// Average utilisation over the test.
    pub usage: Usage,
    /// Busiest sampling interval: everything but idle, %.
    pub peak_busy_pct: f64,
    /// Busiest sampling interval: hard + soft interrupts, %.
    pub peak_irq_pct: f64,
}

/// Where one stream's thread ran.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadObs {
    /// Stream id.
    pub id: i64,
    /// Sending thread.
    pub sender: bool,
    /// CPU → number of samples it was seen on.
    #[serde(default)]
    pub cpus: BTreeMap<u32, u32>,
    /// CPU time the thread itself used, % of one core.
    pub cpu_pct: Option<f64>,
}

impl ThreadObs {
    /// The CPU it was seen on most, with the share of samples.
    pub fn main_cpu(&self) -> Option<(u32, f64)> {
        let total: u32 = self.cpus.values().sum();
        let (cpu, n) = self.cpus.iter().max_by_key(|(_, n)| **n)?;
        (total > 0).then(|| (*cpu, f64::from(*n) / f64::from(total)))
    }
}

/// One cpufreq policy over the test.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyObs {
    /// Policy number.
    pub id: u32,
    /// Its CPUs.
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// Governor.
    pub governor: Option<String>,
    /// Lowest clock sampled, kHz.
    pub min_khz_seen: Option<u64>,
    /// Highest clock sampled, kHz.
    pub max_khz_seen: Option<u64>,
    /// Highest clock possible, kHz.
    pub max_khz: Option<u64>,
    /// ondemand's `io_is_busy`, when that governor has it.
    pub io_is_busy: Option<bool>,
}

/// Everything the network diagnosis looks at.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetObservation {
    /// The interface the test ran over (as it was before the test).
    pub iface: Option<Interface>,
    /// The test ran over loopback.
    pub loopback: bool,
    /// The other end of the test runs on this machine (loopback, or an address of this
    /// machine): its CPU use shows in the per-core numbers but not in our threads.
    pub peer_local: bool,
    /// Seconds between the first and last sample.
    pub duration_s: f64,
    /// Goodput our receiving streams measured, bit/s.
    pub rx_bps: Option<f64>,
    /// Goodput our sending streams achieved (as the peer received it), bit/s.
    pub tx_bps: Option<f64>,
    /// TCP retransmits of our sending streams.
    pub retransmits: Option<i64>,
    /// Per core.
    #[serde(default)]
    pub cpus: Vec<CpuObs>,
    /// Interrupts of the interface's IRQ lines during the test, per CPU.
    #[serde(default)]
    pub nic_irqs_per_cpu: BTreeMap<u32, u64>,
    /// NET_RX softirqs during the test, per CPU.
    #[serde(default)]
    pub net_rx_per_cpu: BTreeMap<u32, u64>,
    /// NET_TX softirqs during the test, per CPU.
    #[serde(default)]
    pub net_tx_per_cpu: BTreeMap<u32, u64>,
    /// Stream threads.
    #[serde(default)]
    pub threads: Vec<ThreadObs>,
    /// cpufreq policies.
    #[serde(default)]
    pub policies: Vec<PolicyObs>,
    /// Drop/miss counters that grew (`rx_dropped`, `ethtool:rx_mac_missed`…).
    #[serde(default)]
    pub counter_growth: BTreeMap<String, u64>,
}
