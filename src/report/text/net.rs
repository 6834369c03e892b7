//! `sbc-bench net`'s own text: `net info`, and the diagnosis block and `-J` document
//! that follow a test (iperf3's own lines come from [`crate::bench::net::report`]).

use std::fmt::Write as _;

use crate::bench::net::report;
use crate::bench::net::{Role, TestReport};
use crate::output::{self, Paint};
use crate::record::finding::{Finding, Severity};
use crate::record::net::NetObservation;
use crate::sys::cpu_list as list;
use crate::sys::net::{IfaceKind, Interface};

fn onoff(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

fn cpus_or(v: Option<&Vec<u32>>, none: &str) -> String {
    match v {
        Some(c) if !c.is_empty() => list::format_list(c),
        Some(_) => none.to_string(),
        None => "n/a".to_string(),
    }
}

/// `sbc-bench net info` as text.
pub fn render_info(ifaces: &[Interface]) -> String {
    let mut s = String::new();
    if ifaces.is_empty() {
        s.push_str("No network interfaces found.\n");
        return s;
    }
    for i in ifaces {
        let _ = writeln!(s, "{}", head_line(i));
        if let Some(e) = &i.ethtool {
            ethtool_lines(&mut s, e);
        }
        queue_line(&mut s, i);
        if let Some(t) = i.napi_threaded {
            let _ = writeln!(s, "  NAPI: {}", if t { "threaded" } else { "softirq" });
        }
        irq_lines(&mut s, i);
        let c: Vec<String> = i
            .stats
            .pairs()
            .into_iter()
            .filter(|(k, v)| *v > 0 && !k.ends_with("bytes"))
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        if !c.is_empty() {
            let _ = writeln!(s, "  counters: {}", c.join(", "));
        }
    }
    s
}

/// `eth1: r8125 (0000:01:00.0), up, 2500 Mb/s full duplex, MTU 1500`.
fn head_line(i: &Interface) -> String {
    let mut head = format!("{}:", i.name);
    match (&i.driver, &i.device) {
        (Some(d), Some(dev)) => {
            let _ = write!(head, " {d} ({dev})");
        }
        (Some(d), None) => {
            let _ = write!(head, " {d}");
        }
        (None, _) => head.push_str(match i.kind {
            IfaceKind::Loopback => " loopback",
            IfaceKind::Virtual => " virtual",
            IfaceKind::Physical => " (driver unknown)",
        }),
    }
    if let Some(o) = &i.operstate {
        let _ = write!(head, ", {o}");
    }
    match (i.speed_mbps, &i.duplex) {
        (Some(sp), Some(d)) => {
            let _ = write!(head, ", {sp} Mb/s {d} duplex");
        }
        (Some(sp), None) => {
            let _ = write!(head, ", {sp} Mb/s");
        }
        _ => {}
    }
    if let Some(m) = i.mtu {
        let _ = write!(head, ", MTU {m}");
    }
    head
}

/// The `link:`, `driver:` and `offloads:` lines from ethtool.
fn ethtool_lines(s: &mut String, e: &crate::sys::net::ethtool::EthtoolInfo) {
    if let Some(l) = &e.link {
        let mut parts = Vec::new();
        if let Some(m) = l.supported_max_mbps {
            parts.push(format!("supports up to {m} Mb/s"));
        }
        if let Some(m) = l.advertised_max_mbps {
            parts.push(format!("advertises up to {m} Mb/s"));
        }
        if let Some(m) = l.partner_max_mbps {
            parts.push(format!("link partner up to {m} Mb/s"));
        }
        parts.push(format!("autoneg {}", onoff(l.autoneg)));
        let _ = writeln!(s, "  link: {}", parts.join(", "));
    }
    let mut d = Vec::new();
    if let Some(v) = &e.version {
        d.push(format!("version {v}"));
    }
    if let Some(v) = &e.firmware {
        d.push(format!("firmware {v}"));
    }
    if e.n_stats > 0 {
        d.push(format!("{} driver statistics", e.n_stats));
    }
    if !d.is_empty() {
        let _ = writeln!(s, "  driver: {}", d.join(", "));
    }
    if !e.offloads.is_empty() {
        let o: Vec<String> = e
            .offloads
            .iter()
            .map(|(k, v)| format!("{k} {}", onoff(*v)))
            .collect();
        let _ = writeln!(s, "  offloads: {}", o.join(", "));
    }
}

/// `queues: 1 rx, 1 tx; rx-0 RPS 0-1,3, tx-0 XPS off`.
fn queue_line(s: &mut String, i: &Interface) {
    if i.rx_queues.is_empty() && i.tx_queues.is_empty() {
        return;
    }
    let rps = i
        .rx_queues
        .iter()
        .map(|q| format!("{} RPS {}", q.name, cpus_or(q.rps_cpus.as_ref(), "off")));
    let xps = i
        .tx_queues
        .iter()
        .map(|q| format!("{} XPS {}", q.name, cpus_or(q.xps_cpus.as_ref(), "off")));
    let _ = writeln!(
        s,
        "  queues: {} rx, {} tx; {}",
        i.rx_queues.len(),
        i.tx_queues.len(),
        rps.chain(xps).collect::<Vec<_>>().join(", ")
    );
}

/// One `IRQ N name: affinity …, effective …; cpuN count` line per IRQ line.
fn irq_lines(s: &mut String, i: &Interface) {
    for q in &i.irqs {
        let counts: Vec<String> = q
            .per_cpu
            .iter()
            .map(|(c, n)| format!("cpu{c} {n}"))
            .collect();
        let _ = writeln!(
            s,
            "  IRQ {} {}: affinity {}, effective {}{}",
            q.irq,
            q.name,
            cpus_or(q.affinity.as_ref(), "none"),
            cpus_or(q.effective.as_ref(), "none"),
            if counts.is_empty() {
                String::new()
            } else {
                format!("; {}", counts.join(", "))
            }
        );
    }
}

/// The diagnosis block printed after the iperf3 output.
pub fn render_findings(cpu_line: Option<&str>, findings: &[Finding]) -> String {
    let mut s = String::from("\nDiagnosis (sbc-bench):\n");
    if let Some(c) = cpu_line {
        let _ = writeln!(s, "  {c}");
    }
    if findings.is_empty() {
        s.push_str("  no bottleneck found on this side of the test\n");
    }
    for f in findings {
        let (label, paint) = match f.severity {
            Severity::Ok => ("ok", Paint::Green),
            Severity::Info => ("info", Paint::Bold),
            Severity::Warning => ("warning", Paint::Yellow),
            Severity::Invalid => ("invalid", Paint::Red),
        };
        let _ = writeln!(
            s,
            "  {} [{}] {}",
            output::paint(paint, &format!("{label:<7}")),
            f.code,
            f.message
        );
    }
    s
}

/// iperf3's verbose CPU line: `CPU Utilization: local/sender 35.0% (0.0%u/35.0%s), …`.
pub fn cpu_line(r: &TestReport) -> Option<String> {
    let p = r.peer.as_ref()?;
    let local_sends = match r.role {
        Role::Client => !r.params.reverse,
        Role::Server => r.params.reverse || r.params.bidirectional,
    };
    let (l, rr) = if local_sends {
        ("sender", "receiver")
    } else {
        ("receiver", "sender")
    };
    Some(format!(
        "CPU Utilization: local/{l} {:.1}% ({:.1}%u/{:.1}%s), remote/{rr} {:.1}% ({:.1}%u/{:.1}%s)",
        r.cpu.total_pct,
        r.cpu.user_pct,
        r.cpu.system_pct,
        p.cpu_util_total,
        p.cpu_util_user,
        p.cpu_util_system
    ))
}

/// The JSON document of a finished test, with the diagnosis when one was made.
pub fn result_json(
    r: &TestReport,
    diag: bool,
    findings: &[Finding],
    obs: Option<&NetObservation>,
) -> String {
    let extra = diag.then(|| serde_json::json!({ "findings": findings, "observation": obs }));
    report::json_document(r, None, extra)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::finding::FindingCode;
    use crate::sys::net::{self, IfaceIrq, IfaceKind, RxQueue, TxQueue};
    use std::collections::BTreeMap;

    #[test]
    fn info_text_for_a_nanopi_r5s_port() {
        let i = Interface {
            name: "eth1".into(),
            kind: IfaceKind::Physical,
            driver: Some("r8125".into()),
            device: Some("0000:01:00.0".into()),
            operstate: Some("up".into()),
            carrier: Some(true),
            speed_mbps: Some(2500),
            duplex: Some("full".into()),
            mtu: Some(1500),
            mac: None,
            tx_queue_len: Some(1000),
            napi_threaded: None,
            gro_flush_timeout_ns: None,
            rx_queues: vec![RxQueue {
                name: "rx-0".into(),
                rps_cpus: Some(vec![0, 1, 3]),
                rps_mask: Some("b".into()),
                rps_flow_cnt: None,
            }],
            tx_queues: vec![TxQueue {
                name: "tx-0".into(),
                xps_cpus: Some(vec![]),
                xps_mask: Some("0".into()),
            }],
            irqs: vec![IfaceIrq {
                irq: 87,
                name: "eth1-0".into(),
                per_cpu: BTreeMap::from([(2, 412345)]),
                affinity: Some(vec![2]),
                effective: Some(vec![2]),
            }],
            stats: net::IfStats {
                rx_packets: Some(9569147),
                rx_missed_errors: Some(31),
                rx_bytes: Some(14506385933),
                ..Default::default()
            },
            ethtool: None,
        };
        assert_eq!(
            render_info(&[i]),
            "eth1: r8125 (0000:01:00.0), up, 2500 Mb/s full duplex, MTU 1500\n  queues: 1 rx, 1 tx; rx-0 RPS 0-1,3, tx-0 XPS off\n  IRQ 87 eth1-0: affinity 2, effective 2; cpu2 412345\n  counters: rx_packets 9569147, rx_missed_errors 31\n"
        );
        assert_eq!(render_info(&[]), "No network interfaces found.\n");
    }

    #[test]
    fn findings_block() {
        let f = vec![Finding::new(
            FindingCode::NetLoopback,
            Severity::Info,
            "over loopback",
        )];
        let s = render_findings(Some("CPU Utilization: x"), &f);
        assert!(s.starts_with("\nDiagnosis (sbc-bench):\n  CPU Utilization: x\n"));
        assert!(s.contains("[net-loopback] over loopback"));
        assert!(render_findings(None, &[]).contains("no bottleneck found"));
    }
}
