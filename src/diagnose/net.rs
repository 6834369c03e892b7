//! Why a network test gave the number it gave: pure rules over what was observed on our
//! side during the test ([`NetObservation`]).
//!
//! The rules are the checks the ROCK 5 ITX and NanoPi R5S reviewers made by hand: a core
//! saturated in softirq by the NIC's interrupts while total %cpu looked harmless (25 % on a
//! four-core RK3568 is one core at 100 %), the receiving process on that same core, RPS off,
//! clocks held low by the governor, a link that negotiated below what the port can do,
//! `rx_mac_missed` growing.
//!
//! Codes are stable (`net-…`); sentences may improve.

use std::collections::BTreeMap;

use super::{Finding, FindingCode, Severity};
use crate::bench::net::TestReport;
use crate::bench::net::report::summarize;
use crate::bench::net::sampler::{NetRecording, SystemSample};
use crate::monitor::stat;
pub use crate::record::net::{CpuObs, NetObservation, PolicyObs, ThreadObs};
use crate::sys::cpu_list as list;
use crate::sys::net::{IfaceKind, Interface};

/// What the test's readings mean: per-core usage (average and busiest interval), where
/// each stream thread ran and how much CPU it used, clocks per policy, IRQ and softirq
/// counts per core, and drop counters that grew. `rx_bps`/`tx_bps`: goodput our receiving
/// / sending streams saw; `retransmits`: of our sending streams. Pure.
pub fn observe(
    rec: &NetRecording,
    rx_bps: Option<f64>,
    tx_bps: Option<f64>,
    retransmits: Option<i64>,
) -> NetObservation {
    let loopback = rec
        .iface
        .as_ref()
        .is_some_and(|i| i.kind == IfaceKind::Loopback);
    let mut o = NetObservation {
        loopback,
        peer_local: loopback || rec.peer_local,
        iface: rec.iface.clone(),
        rx_bps,
        tx_bps,
        retransmits,
        ..Default::default()
    };
    let (Some(first), Some(last)) = (rec.samples.first(), rec.samples.last()) else {
        return o;
    };
    o.duration_s = last.at_s - first.at_s;
    o.cpus = cpu_obs(&rec.samples);
    o.nic_irqs_per_cpu = delta_map(&first.nic_irqs, &last.nic_irqs);
    o.net_rx_per_cpu = delta_map(&first.net_rx, &last.net_rx);
    o.net_tx_per_cpu = delta_map(&first.net_tx, &last.net_tx);
    o.threads = thread_obs(&rec.samples, rec.clk_tck);
    o.policies = policy_obs(rec);
    o.counter_growth = counter_growth(rec);
    o
}

/// How much each counter grew from `a` to `b`, per CPU.
fn delta_map(a: &BTreeMap<u32, u64>, b: &BTreeMap<u32, u64>) -> BTreeMap<u32, u64> {
    b.iter()
        .map(|(k, v)| (*k, v.saturating_sub(a.get(k).copied().unwrap_or(0))))
        .collect()
}

/// Each core's usage from the first to the last sample, and its busiest interval.
fn cpu_obs(samples: &[SystemSample]) -> Vec<CpuObs> {
    let (Some(Some(a)), Some(Some(b))) = (
        samples.first().map(|s| &s.stat),
        samples.last().map(|s| &s.stat),
    ) else {
        return Vec::new();
    };
    let mut cpus = Vec::new();
    for (cpu, tb) in &b.per_cpu {
        let Some(u) = a.per_cpu.get(cpu).and_then(|ta| stat::usage(ta, tb)) else {
            continue;
        };
        // Peak over consecutive samples: a one-second burst counts.
        let (mut peak_busy, mut peak_irq) = (0.0_f64, 0.0_f64);
        for w in samples.windows(2) {
            let (Some(x), Some(y)) = (&w[0].stat, &w[1].stat) else {
                continue;
            };
            if let (Some(px), Some(py)) = (x.per_cpu.get(cpu), y.per_cpu.get(cpu)) {
                if let Some(pu) = stat::usage(px, py) {
                    peak_busy = peak_busy.max(pu.cpu_pct);
                    peak_irq = peak_irq.max(pu.irq_pct);
                }
            }
        }
        cpus.push(CpuObs {
            cpu: *cpu,
            usage: u,
            peak_busy_pct: peak_busy.max(u.cpu_pct),
            peak_irq_pct: peak_irq.max(u.irq_pct),
        });
    }
    cpus
}

/// Per thread: CPUs seen (with counts), first and last (time, ticks) reading.
type ThreadAcc = (BTreeMap<u32, u32>, Option<(f64, u64)>, Option<(f64, u64)>);

/// Where each stream thread ran, and its CPU time as % of one core.
fn thread_obs(samples: &[SystemSample], clk_tck: f64) -> Vec<ThreadObs> {
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
    threads
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
        .collect()
}

/// The clocks each policy ran at during the test.
fn policy_obs(rec: &NetRecording) -> Vec<PolicyObs> {
    rec.policies
        .iter()
        .map(|p| {
            let seen: Vec<u64> = rec
                .samples
                .iter()
                .filter_map(|s| s.cur_khz.get(&p.id).copied())
                .collect();
            PolicyObs {
                id: p.id,
                cpus: p.cpus.clone(),
                governor: p.governor.clone(),
                min_khz_seen: seen.iter().copied().min(),
                max_khz_seen: seen.iter().copied().max(),
                max_khz: p.cpuinfo_max_khz.or(p.scaling_max_khz),
                io_is_busy: rec.io_is_busy.get(&p.id).copied(),
            }
        })
        .collect()
}

/// Receive error counters of the interface and drop counters of the driver that grew.
fn counter_growth(rec: &NetRecording) -> BTreeMap<String, u64> {
    let mut growth: BTreeMap<String, u64> = BTreeMap::new();
    let first = rec.samples.first().and_then(|s| s.if_stats.as_ref());
    let last = rec.samples.last().and_then(|s| s.if_stats.as_ref());
    if let (Some(a), Some(b)) = (first, last) {
        for (k, v) in b.delta(a) {
            if k.starts_with("rx_") && k != "rx_bytes" && k != "rx_packets" && v > 0 {
                growth.insert(k.to_string(), v);
            }
        }
    }
    if let (Some(a), Some(b)) = (&rec.ethtool_before, &rec.ethtool_after) {
        for (k, v) in b {
            if is_drop_counter(k) {
                let d = v.saturating_sub(a.get(k).copied().unwrap_or(0));
                if d > 0 {
                    growth.insert(format!("ethtool:{k}"), d);
                }
            }
        }
    }
    growth
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

/// Goodput of our receiving and sending streams, and our retransmits, from a test's
/// report.
pub fn goodput(r: &TestReport) -> (Option<f64>, Option<f64>, Option<i64>) {
    let s = summarize(
        &r.streams,
        &r.totals,
        r.peer.as_ref(),
        r.sender_has_retransmits,
    );
    let retr: Option<i64> = r
        .totals
        .iter()
        .filter(|t| t.sender)
        .map(|t| t.retransmits)
        .sum::<Option<i64>>()
        .filter(|_| r.totals.iter().any(|t| t.sender));
    (s.received_bps(false), s.received_bps(true), retr)
}

/// The observation of a finished test from the sampler's readings.
pub fn observe_test(rec: &NetRecording, r: &TestReport) -> NetObservation {
    let (rx, tx, retr) = goodput(r);
    observe(rec, rx, tx, retr)
}

/// A core at or above this busy share is saturated.
pub const SATURATED_PCT: f64 = 90.0;

fn fmt_rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.2} Gbit/s", bps / 1e9)
    } else {
        format!("{:.0} Mbit/s", bps / 1e6)
    }
}

fn top_cpu(m: &BTreeMap<u32, u64>) -> Option<(u32, f64)> {
    let total: u64 = m.values().sum();
    let (cpu, n) = m.iter().max_by_key(|(_, n)| **n)?;
    (total > 0).then(|| (*cpu, *n as f64 / total as f64))
}

fn mhz(khz: u64) -> u64 {
    khz / 1000
}

/// The interface's IRQ placement and RPS, for findings that suggest moving them.
fn placement(i: &Interface) -> String {
    let mut parts = Vec::new();
    for q in i.irqs.iter().take(4) {
        let aff = q
            .affinity
            .as_deref()
            .map(list::format_list)
            .unwrap_or_else(|| "?".into());
        match q.effective.as_deref() {
            Some(e) if Some(e) != q.affinity.as_deref() => {
                parts.push(format!(
                    "IRQ {} affinity {aff}, effective {}",
                    q.irq,
                    list::format_list(e)
                ));
            }
            _ => parts.push(format!("IRQ {} affinity {aff}", q.irq)),
        }
    }
    let rps = i.rps_cpus();
    if !i.rx_queues.is_empty() {
        if rps.is_empty() {
            parts.push("RPS off".into());
        } else {
            parts.push(format!("RPS on CPUs {}", list::format_list(&rps)));
        }
    }
    parts.join("; ")
}

/// What the rules share: the observation, and the cores already explained by a finding
/// (one cause per core).
struct Facts<'a> {
    o: &'a NetObservation,
    /// The interface's name, for sentences.
    name: &'a str,
    /// The better of our receiving and sending goodput, bit/s.
    goodput: f64,
    /// The core that took most of the NIC's interrupts, with its share. Only an interface
    /// with IRQ lines that counted interrupts during the test has "the NIC's interrupts"
    /// on a core: NET_RX softirqs alone (veth, loopback, a USB NIC whose IRQ is the
    /// controller's) are the receive path of any traffic.
    irq_top: Option<(u32, f64)>,
    /// Cores a finding already explained.
    flagged: Vec<u32>,
}

impl<'a> Facts<'a> {
    fn of(o: &'a NetObservation) -> Self {
        Self {
            o,
            name: o
                .iface
                .as_ref()
                .map(|i| i.name.as_str())
                .unwrap_or("the interface"),
            goodput: o.rx_bps.into_iter().chain(o.tx_bps).fold(0.0_f64, f64::max),
            irq_top: o
                .iface
                .as_ref()
                .filter(|i| !i.irqs.is_empty())
                .and_then(|_| top_cpu(&o.nic_irqs_per_cpu)),
            flagged: Vec::new(),
        }
    }

    fn nic_cpu(&self) -> Option<u32> {
        self.irq_top.map(|(c, _)| c)
    }
}

/// One diagnosis rule: looks at the facts, adds its findings.
type Rule = fn(&mut Facts<'_>, &mut Vec<Finding>);

/// The rules in the order their findings are listed; a rule that explains a core flags it
/// for the rules after it.
const RULES: &[Rule] = &[
    loopback,
    link,
    irq_bound_core,
    thread_shares_irq_core,
    cpu_bound_thread,
    background_load,
    irqs_on_one_core,
    low_clocks,
    rx_drops,
    retransmits,
];

/// The findings for one test.
pub fn diagnose(o: &NetObservation) -> Vec<Finding> {
    let mut facts = Facts::of(o);
    let mut out = Vec::new();
    for rule in RULES {
        rule(&mut facts, &mut out);
    }
    out
}

fn loopback(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    if f.o.loopback {
        out.push(Finding::new(
            FindingCode::NetLoopback,
            Severity::Info,
            "the test ran over loopback: it measures CPU and memory, not a network interface",
        ));
    }
}

/// Link: only a physical port has a line rate; a veth, bridge or tunnel reports a nominal
/// speed (10000 for veth) that says nothing about a wire.
fn link(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    let Some(i) =
        f.o.iface
            .as_ref()
            .filter(|i| !f.o.loopback && i.kind == IfaceKind::Physical)
    else {
        return;
    };
    if let (Some(speed), Some(max)) = (i.speed_mbps, i.max_speed_mbps()) {
        if speed < max {
            out.push(Finding::new(
                FindingCode::NetLinkDowngraded,
                Severity::Warning,
                format!("link negotiated at {speed} Mb/s, {max} possible (cable, switch port or autonegotiation)"),
            ));
        }
    }
    if i.duplex.as_deref() == Some("half") {
        out.push(Finding::new(
            FindingCode::NetHalfDuplex,
            Severity::Warning,
            format!("{} runs half duplex: collisions cap throughput", f.name),
        ));
    }
    if let Some(speed) = i.speed_mbps.filter(|_| f.goodput > 0.0) {
        let pct = f.goodput / (f64::from(speed) * 1e6) * 100.0;
        // Above 100 % the traffic did not (only) cross this port, or the driver reports a
        // wrong speed: no claim about the wire either way.
        if (90.0..=100.0).contains(&pct) {
            out.push(Finding::new(
                FindingCode::NetAtLineRate,
                Severity::Info,
                format!(
                    "goodput {} = {pct:.0} % of line rate: at the wire limit ({speed} Mb/s, TCP over Ethernet tops out near 94 %)",
                    fmt_rate(f.goodput)
                ),
            ));
        }
    }
}

/// A core saturated mostly by interrupts, the one that serves the NIC's.
fn irq_bound_core(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    let nic_cpu = f.nic_cpu();
    for c in &f.o.cpus {
        let irq = c.usage.irq_pct;
        let busy = c.usage.cpu_pct;
        if busy < SATURATED_PCT || irq < busy * 0.5 {
            continue;
        }
        // On loopback the "receive interrupt" work is the sender's own softirq.
        if f.o.loopback || Some(c.cpu) != nic_cpu {
            continue;
        }
        f.flagged.push(c.cpu);
        let what = if c.usage.softirq_pct >= c.usage.hardirq_pct {
            "softirq"
        } else {
            "irq"
        };
        let mut msg = format!(
            "cpu{} saturated ({:.0} % {what}) serving {} interrupts; receive is CPU-bound on one core",
            c.cpu, irq, f.name
        );
        if let Some(i) = f.o.iface.as_ref().filter(|i| !i.irqs.is_empty()) {
            msg.push_str(&format!(
                " ({}). Spread the IRQs over other cores (/proc/irq/N/smp_affinity_list) or enable RPS (/sys/class/net/{}/queues/rx-*/rps_cpus)",
                placement(i),
                i.name
            ));
        }
        out.push(Finding::new(
            FindingCode::NetIrqBoundCore,
            Severity::Warning,
            msg,
        ));
    }
}

fn side(sender: bool) -> &'static str {
    if sender { "sending" } else { "receiving" }
}

/// A stream thread on the core that serves the NIC.
fn thread_shares_irq_core(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    let Some(nc) = f.nic_cpu().filter(|_| !f.o.loopback) else {
        return;
    };
    let shared = f.o.threads.iter().find(|t| {
        t.main_cpu()
            .is_some_and(|(cpu, share)| cpu == nc && share >= 0.5)
    });
    if let Some(t) = shared {
        out.push(Finding::new(
            FindingCode::NetThreadSharesIrqCore,
            Severity::Warning,
            format!(
                "the {} thread shares cpu{nc} with the NIC's interrupts; pin it elsewhere (sbc-bench net … -A CPU) or move the IRQs",
                side(t.sender)
            ),
        ));
    }
}

/// A stream thread saturating its core by itself.
fn cpu_bound_thread(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    for t in &f.o.threads {
        let (Some((cpu, _)), Some(pct)) = (t.main_cpu(), t.cpu_pct) else {
            continue;
        };
        if pct < 85.0 || f.flagged.contains(&cpu) {
            continue;
        }
        f.flagged.push(cpu);
        let split =
            f.o.cpus
                .iter()
                .find(|c| c.cpu == cpu)
                .map(|c| {
                    format!(
                        "; cpu{cpu} {:.0} % busy: {:.0} % sys, {:.0} % usr, {:.0} % irq",
                        c.usage.cpu_pct,
                        c.usage.sys_pct,
                        c.usage.usr_pct + c.usage.nice_pct,
                        c.usage.irq_pct
                    )
                })
                .unwrap_or_default();
        out.push(Finding::new(
            FindingCode::NetCpuBoundCore,
            Severity::Warning,
            format!(
                "the {} thread used {pct:.0} % of a core (mostly cpu{cpu}{split}): the test is CPU-bound on one core",
                side(t.sender),
            ),
        ));
    }
}

/// A saturated core the test did not saturate: something else competes.
fn background_load(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    for c in &f.o.cpus {
        if c.usage.cpu_pct < SATURATED_PCT || f.flagged.contains(&c.cpu) {
            continue;
        }
        let ours: f64 =
            f.o.threads
                .iter()
                .filter(|t| t.main_cpu().is_some_and(|(m, _)| m == c.cpu))
                .filter_map(|t| t.cpu_pct)
                .fold(0.0, |a, b| a + b);
        if ours >= c.usage.cpu_pct * 0.5 || c.usage.irq_pct >= c.usage.cpu_pct * 0.5 {
            continue;
        }
        f.flagged.push(c.cpu);
        let head = format!(
            "cpu{} was {:.0} % busy during the test ({:.0} % usr, {:.0} % sys), {:.0} % of it this side's stream threads",
            c.cpu,
            c.usage.cpu_pct,
            c.usage.usr_pct + c.usage.nice_pct,
            c.usage.sys_pct,
            ours
        );
        // With the peer on this machine its threads are most of that: not "other load",
        // and not a finding worth a warning.
        out.push(if f.o.peer_local {
            Finding::new(
                FindingCode::NetBackgroundLoad,
                Severity::Info,
                format!(
                    "{head}; the other end of the test runs on this machine and is not counted as this side, so this is its work and/or other load"
                ),
            )
        } else {
            Finding::new(
                FindingCode::NetBackgroundLoad,
                Severity::Warning,
                format!("{head}: other load competed"),
            )
        });
    }
}

/// All NIC interrupts on one core, without saturation (yet).
fn irqs_on_one_core(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    let (Some((cpu, share)), Some(i)) = (f.irq_top, f.o.iface.as_ref()) else {
        return;
    };
    let total: u64 = f.o.nic_irqs_per_cpu.values().sum();
    if share >= 0.99 && total >= 1000 && !f.flagged.contains(&cpu) && i.rps_cpus().is_empty() {
        out.push(Finding::new(
            FindingCode::NetIrqsOneCore,
            Severity::Info,
            format!(
                "all {} interrupts ({total}) landed on cpu{cpu} with RPS off ({})",
                i.name,
                placement(i)
            ),
        ));
    }
}

/// Clocks of busy cores that stayed well below what they can reach.
fn low_clocks(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    let busy_cpus: Vec<u32> =
        f.o.cpus
            .iter()
            .filter(|c| c.usage.cpu_pct >= 30.0)
            .map(|c| c.cpu)
            .collect();
    for p in &f.o.policies {
        if !p.cpus.iter().any(|c| busy_cpus.contains(c)) {
            continue;
        }
        let (Some(lo), Some(hi), Some(max)) = (p.min_khz_seen, p.max_khz_seen, p.max_khz) else {
            continue;
        };
        if (hi as f64) >= max as f64 * 0.85 {
            continue;
        }
        let gov = p.governor.as_deref().unwrap_or("unknown");
        let io = match (gov, p.io_is_busy) {
            ("ondemand" | "conservative", Some(false)) => " without io_is_busy",
            ("ondemand" | "conservative", Some(true)) => " with io_is_busy",
            _ => "",
        };
        let range = if mhz(lo) == mhz(hi) {
            format!("{} MHz", mhz(hi))
        } else {
            format!("{}–{} MHz", mhz(lo), mhz(hi))
        };
        out.push(Finding::new(
            FindingCode::NetLowClocks,
            Severity::Warning,
            format!(
                "clocks of cpu{} stayed at {range} during the test (governor {gov}{io}); they can reach {} MHz",
                list::format_list(&p.cpus),
                mhz(max)
            ),
        ));
    }
}

/// Receive drop and miss counters that grew.
fn rx_drops(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    let grown: u64 = f.o.counter_growth.values().sum();
    if grown == 0 {
        return;
    }
    let detail: Vec<String> =
        f.o.counter_growth
            .iter()
            .map(|(k, v)| format!("{} +{v}", k.trim_start_matches("ethtool:")))
            .collect();
    out.push(Finding::new(
        FindingCode::NetRxDrops,
        Severity::Warning,
        format!(
            "rx drops/missed grew by {grown} during the test ({}): packets arrived faster than they were taken from the ring",
            detail.join(", ")
        ),
    ));
}

/// TCP retransmits of our sending streams, one in a thousand segments or more.
fn retransmits(f: &mut Facts<'_>, out: &mut Vec<Finding>) {
    let (Some(r), Some(tx)) = (f.o.retransmits, f.o.tx_bps) else {
        return;
    };
    let segments = tx / 8.0 * f.o.duration_s.max(1.0) / 1448.0;
    if r > 0 && segments > 0.0 && r as f64 / segments >= 0.001 && !f.o.loopback {
        out.push(Finding::new(
            FindingCode::NetRetransmits,
            Severity::Info,
            format!(
                "{r} TCP retransmits ({:.2} % of segments): loss on the path or at the receiver",
                r as f64 / segments * 100.0
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::stat::Usage;
    use crate::sys::net::{IfaceIrq, RxQueue};

    fn usage(busy: f64, sys: f64, soft: f64) -> Usage {
        Usage {
            cpu_pct: busy,
            sys_pct: sys,
            irq_pct: soft,
            softirq_pct: soft,
            ..Default::default()
        }
    }

    fn rock5_itx() -> Interface {
        Interface {
            name: "enP4p65s0".into(),
            kind: IfaceKind::Physical,
            driver: Some("r8125".into()),
            device: Some("0004:41:00.0".into()),
            operstate: Some("up".into()),
            carrier: Some(true),
            speed_mbps: Some(2500),
            duplex: Some("full".into()),
            mtu: Some(1500),
            mac: None,
            tx_queue_len: Some(1000),
            napi_threaded: Some(false),
            gro_flush_timeout_ns: Some(0),
            rx_queues: vec![RxQueue {
                name: "rx-0".into(),
                rps_cpus: Some(vec![]),
                rps_mask: Some("00".into()),
                rps_flow_cnt: Some(0),
            }],
            tx_queues: vec![],
            irqs: vec![IfaceIrq {
                irq: 224,
                name: "enP4p65s0-0".into(),
                per_cpu: BTreeMap::from([(6, 597)]),
                affinity: Some((0..8).collect()),
                effective: Some(vec![6]),
            }],
            stats: Default::default(),
            ethtool: None,
        }
    }

    /// ROCK 5 ITX, `taskset -c 6 iperf3 -s`: RX at 1.30 Gbit/s with cpu6 at 100 %
    /// serving enP4p65s0's interrupts and running the receiver (seeds/rock-5-itx-preview.txt).
    #[test]
    fn rock5_itx_receiver_on_the_irq_core() {
        let mut cpus: Vec<CpuObs> = (0..8)
            .map(|c| CpuObs {
                cpu: c,
                usage: usage(3.0, 2.0, 0.5),
                ..Default::default()
            })
            .collect();
        cpus[6].usage = usage(100.0, 38.0, 62.0);
        let o = NetObservation {
            iface: Some(rock5_itx()),
            duration_s: 10.0,
            rx_bps: Some(1.30e9),
            cpus,
            nic_irqs_per_cpu: BTreeMap::from([(6, 85905 - 597 + 51853 - 46), (0, 112560 - 335)]),
            net_rx_per_cpu: BTreeMap::from([(6, 200_000), (0, 90_000)]),
            threads: vec![ThreadObs {
                id: 1,
                sender: false,
                cpus: BTreeMap::from([(6, 10)]),
                cpu_pct: Some(35.0),
            }],
            ..Default::default()
        };
        let f = diagnose(&o);
        let codes: Vec<&str> = f.iter().map(|f| f.code.as_str()).collect();
        assert!(codes.contains(&"net-irq-bound-core"), "{f:#?}");
        assert!(codes.contains(&"net-thread-shares-irq-core"), "{f:#?}");
        let irq = f.iter().find(|f| f.code == "net-irq-bound-core").unwrap();
        assert!(
            irq.message
                .starts_with("cpu6 saturated (62 % softirq) serving enP4p65s0 interrupts"),
            "{}",
            irq.message
        );
        assert!(irq.message.contains("IRQ 224 affinity 0-7, effective 6"));
        assert!(irq.message.contains("RPS off"));
        let share = f
            .iter()
            .find(|f| f.code == "net-thread-shares-irq-core")
            .unwrap();
        assert!(share.message.contains("receiving thread shares cpu6"));
        assert!(!codes.contains(&"net-at-line-rate"));
    }

    /// ROCK 5 ITX TX direction: 2.35 Gbit/s on 2.5GbE, nothing wrong.
    #[test]
    fn rock5_itx_at_line_rate() {
        let o = NetObservation {
            iface: Some(rock5_itx()),
            duration_s: 10.0,
            tx_bps: Some(2.35e9),
            retransmits: Some(0),
            ..Default::default()
        };
        let f = diagnose(&o);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].code, "net-at-line-rate");
        assert!(
            f[0].message
                .starts_with("goodput 2.35 Gbit/s = 94 % of line rate: at the wire limit")
        );
    }

    /// NanoPi R5S eth2: rx_mac_missed +335, rdu +35 (seeds/nanopi-r5s-review-ru.txt),
    /// clocks held at 408–1200 MHz, and a link that came up at 1000 on a 2.5G port.
    #[test]
    fn nanopi_r5s_drops_clocks_and_link() {
        let mut iface = rock5_itx();
        iface.name = "eth2".into();
        iface.speed_mbps = Some(1000);
        iface.ethtool = Some(crate::sys::net::ethtool::EthtoolInfo {
            link: Some(crate::sys::net::ethtool::LinkModes {
                speed_mbps: Some(1000),
                supported_max_mbps: Some(2500),
                ..Default::default()
            }),
            ..Default::default()
        });
        let o = NetObservation {
            iface: Some(iface),
            duration_s: 60.0,
            rx_bps: Some(0.6e9),
            cpus: (0..4)
                .map(|c| CpuObs {
                    cpu: c,
                    usage: usage(if c == 0 { 60.0 } else { 10.0 }, 5.0, 2.0),
                    ..Default::default()
                })
                .collect(),
            policies: vec![PolicyObs {
                id: 0,
                cpus: vec![0, 1, 2, 3],
                governor: Some("ondemand".into()),
                min_khz_seen: Some(408_000),
                max_khz_seen: Some(1_200_000),
                max_khz: Some(1_992_000),
                io_is_busy: Some(false),
            }],
            counter_growth: BTreeMap::from([
                ("ethtool:rdu".to_string(), 35),
                ("ethtool:rx_mac_missed".to_string(), 335),
            ]),
            ..Default::default()
        };
        let f = diagnose(&o);
        let get = |c: &str| f.iter().find(|f| f.code == c).map(|f| f.message.clone());
        assert_eq!(
            get("net-link-downgraded").as_deref(),
            Some(
                "link negotiated at 1000 Mb/s, 2500 possible (cable, switch port or autonegotiation)"
            )
        );
        assert!(get("net-low-clocks").unwrap().starts_with(
            "clocks of cpu0-3 stayed at 408–1200 MHz during the test (governor ondemand without io_is_busy)"
        ));
        assert!(get("net-rx-drops").unwrap().starts_with(
            "rx drops/missed grew by 370 during the test (rdu +35, rx_mac_missed +335)"
        ));
    }

    #[test]
    fn loopback_cpu_bound_thread() {
        let o = NetObservation {
            loopback: true,
            duration_s: 2.0,
            rx_bps: Some(25e9),
            cpus: vec![
                CpuObs {
                    cpu: 0,
                    usage: usage(99.0, 80.0, 15.0),
                    ..Default::default()
                },
                CpuObs {
                    cpu: 1,
                    usage: usage(40.0, 30.0, 5.0),
                    ..Default::default()
                },
            ],
            threads: vec![ThreadObs {
                id: 1,
                sender: false,
                cpus: BTreeMap::from([(0, 3), (1, 1)]),
                cpu_pct: Some(96.0),
            }],
            ..Default::default()
        };
        let f = diagnose(&o);
        let codes: Vec<&str> = f.iter().map(|f| f.code.as_str()).collect();
        assert_eq!(codes, vec!["net-loopback", "net-cpu-bound-core"], "{f:#?}");
        assert_eq!(
            f[1].message,
            "the receiving thread used 96 % of a core (mostly cpu0; cpu0 99 % busy: 80 % sys, 0 % usr, 15 % irq): the test is CPU-bound on one core"
        );
    }

    #[test]
    fn a_busy_core_the_test_did_not_cause() {
        let o = NetObservation {
            duration_s: 2.0,
            cpus: vec![CpuObs {
                cpu: 1,
                usage: Usage {
                    cpu_pct: 100.0,
                    usr_pct: 90.0,
                    sys_pct: 10.0,
                    ..Default::default()
                },
                ..Default::default()
            }],
            threads: vec![ThreadObs {
                id: 1,
                sender: false,
                cpus: BTreeMap::from([(1, 3)]),
                cpu_pct: Some(3.0),
            }],
            ..Default::default()
        };
        let f = diagnose(&o);
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].code, "net-background-load");
        assert!(
            f[0].message
                .starts_with("cpu1 was 100 % busy during the test (90 % usr, 10 % sys), 3 % of it")
        );
    }

    /// A veth pair between two namespaces (audit of issue 5): 20 Gbit/s over a "10000
    /// Mb/s" virtual link, no IRQ lines, NET_RX softirqs on the sender's core. No line
    /// rate, no "NIC's interrupts".
    #[test]
    fn veth_has_no_line_rate_and_no_nic_interrupts() {
        let mut veth = rock5_itx();
        veth.name = "veth-a5".into();
        veth.kind = IfaceKind::Virtual;
        veth.driver = Some("veth".into());
        veth.speed_mbps = Some(10000);
        veth.irqs.clear();
        let o = NetObservation {
            iface: Some(veth),
            duration_s: 3.0,
            tx_bps: Some(20.06e9),
            cpus: vec![CpuObs {
                cpu: 0,
                usage: usage(100.0, 40.0, 60.0),
                ..Default::default()
            }],
            net_rx_per_cpu: BTreeMap::from([(0, 90_000)]),
            threads: vec![ThreadObs {
                id: 1,
                sender: true,
                cpus: BTreeMap::from([(0, 3)]),
                cpu_pct: Some(40.0),
            }],
            ..Default::default()
        };
        let f = diagnose(&o);
        let codes: Vec<&str> = f.iter().map(|f| f.code.as_str()).collect();
        for bad in [
            "net-at-line-rate",
            "net-thread-shares-irq-core",
            "net-irq-bound-core",
            "net-link-downgraded",
        ] {
            assert!(!codes.contains(&bad), "{bad}: {f:#?}");
        }
        // The same with --iface naming a physical port the traffic did not cross: more
        // than the line rate is no claim about the wire.
        let mut o = o;
        o.iface = Some(rock5_itx());
        o.nic_irqs_per_cpu = BTreeMap::from([(6, 5000)]);
        let f = diagnose(&o);
        assert!(f.iter().all(|f| f.code != "net-at-line-rate"), "{f:#?}");
        // A physical port with IRQ lines that counted nothing: no IRQ core either.
        o.nic_irqs_per_cpu = BTreeMap::from([(6, 0)]);
        let f = diagnose(&o);
        assert!(
            f.iter().all(|f| f.code != "net-thread-shares-irq-core"),
            "{f:#?}"
        );
    }

    /// Loopback against a local iperf3 -s: the peer's CPU is not called foreign load.
    #[test]
    fn local_peer_load_is_named() {
        let mut o = NetObservation {
            loopback: true,
            peer_local: true,
            duration_s: 2.0,
            cpus: vec![CpuObs {
                cpu: 1,
                usage: Usage {
                    cpu_pct: 100.0,
                    usr_pct: 5.0,
                    sys_pct: 60.0,
                    ..Default::default()
                },
                ..Default::default()
            }],
            ..Default::default()
        };
        let f = diagnose(&o);
        let bg = f.iter().find(|f| f.code == "net-background-load").unwrap();
        assert_eq!(bg.severity, Severity::Info);
        assert!(
            bg.message
                .contains("the other end of the test runs on this machine"),
            "{}",
            bg.message
        );
        assert!(!bg.message.contains("other load competed"));
        o.peer_local = false;
        o.loopback = false;
        let f = diagnose(&o);
        assert!(f[0].message.ends_with("other load competed"), "{f:#?}");
        assert_eq!(f[0].severity, Severity::Warning);
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
    fn empty_observation_says_nothing_wrong() {
        assert!(diagnose(&NetObservation::default()).is_empty());
    }
}
