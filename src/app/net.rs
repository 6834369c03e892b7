//! `sbc-bench net`: wiring of the iperf3-compatible client and server, the sampler and the
//! diagnosis, and `net info`.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::time::Duration;

use crate::app::Ctx;
use crate::bench::net::client::{self, ClientConfig};
use crate::bench::net::engine::{StreamInfo, StreamThread};
use crate::bench::net::proto::{Protocol, TestParams};
use crate::bench::net::report::{self, Layout};
use crate::bench::net::sampler::{self, Sampler};
use crate::bench::net::server::{self, ServerConfig};
use crate::bench::net::{NetEvent, Role, TestReport};
use crate::cli::net::{ClientArgs, CommonArgs, NetArgs, NetCommand, ServerArgs};
use crate::diagnose::net::{NetObservation, diagnose};
use crate::diagnose::{Finding, Severity};
use crate::output::{self, Paint};
use crate::sys::cpu::list;
use crate::sys::net::{self, Interface};
use crate::sys::root::SysRoot;

/// Run the command.
pub fn run(ctx: &Ctx, args: &NetArgs) -> anyhow::Result<i32> {
    match &args.which {
        NetCommand::Info { json, ifaces } => info(&ctx.root, *json, ifaces),
        NetCommand::Client(a) => run_client(ctx, a),
        NetCommand::Server(a) => run_server(ctx, a),
    }
}

/// Print an error of a net command the way iperf3 does (`iperf3: error - …`), so every
/// net error reads alike, whether an option was wrong or the test failed.
pub fn error_line(msg: &str) -> String {
    format!("sbc-bench net: error - {msg}")
}

fn error(msg: &str) {
    eprintln!("{}", error_line(msg));
}

/// Interface names that are not valid or that this system does not have, as the error
/// `net info` and `--iface` print; `Ok` when all exist.
fn check_ifaces(root: &SysRoot, names: &[String]) -> Result<(), (String, i32)> {
    if let Some(n) = names.iter().find(|n| !net::valid_name(n)) {
        return Err((
            format!("'{n}' is not an interface name"),
            output::EXIT_USAGE,
        ));
    }
    let have = net::list_interfaces(root);
    let missing: Vec<&str> = names
        .iter()
        .filter(|n| !have.contains(n))
        .map(String::as_str)
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err((
            format!("no such interface: {}", missing.join(", ")),
            output::EXIT_ERROR,
        ))
    }
}

fn info(root: &SysRoot, json: bool, only: &[String]) -> anyhow::Result<i32> {
    if let Err((e, code)) = check_ifaces(root, only) {
        error(&e);
        return Ok(code);
    }
    let mut all = net::read_all(root);
    if !only.is_empty() {
        all.retain(|i| only.contains(&i.name));
    }
    if json {
        out(&format!("{}\n", serde_json::to_string_pretty(&all)?));
    } else {
        out(&render_info(&all));
    }
    Ok(output::EXIT_OK)
}

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
        let mut head = format!("{}:", i.name);
        match (&i.driver, &i.device) {
            (Some(d), Some(dev)) => {
                let _ = write!(head, " {d} ({dev})");
            }
            (Some(d), None) => {
                let _ = write!(head, " {d}");
            }
            (None, _) => head.push_str(match i.kind {
                net::IfaceKind::Loopback => " loopback",
                net::IfaceKind::Virtual => " virtual",
                net::IfaceKind::Physical => " (driver unknown)",
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
        let _ = writeln!(s, "{head}");
        if let Some(e) = &i.ethtool {
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
        if !i.rx_queues.is_empty() || !i.tx_queues.is_empty() {
            let rps: Vec<String> = i
                .rx_queues
                .iter()
                .map(|q| format!("{} RPS {}", q.name, cpus_or(q.rps_cpus.as_ref(), "off")))
                .collect();
            let xps: Vec<String> = i
                .tx_queues
                .iter()
                .map(|q| format!("{} XPS {}", q.name, cpus_or(q.xps_cpus.as_ref(), "off")))
                .collect();
            let _ = writeln!(
                s,
                "  queues: {} rx, {} tx; {}",
                i.rx_queues.len(),
                i.tx_queues.len(),
                rps.into_iter().chain(xps).collect::<Vec<_>>().join(", ")
            );
        }
        if let Some(t) = i.napi_threaded {
            let _ = writeln!(s, "  NAPI: {}", if t { "threaded" } else { "softirq" });
        }
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

/// Write to stdout; a closed pipe (`| head`) is not an error worth a panic.
fn out(text: &str) {
    // A test in progress goes on when nobody reads its output any more (a closed pipe, a
    // full disk): the peer is mid-test, and the exit status still tells the outcome.
    let _ = output::print_or_closed(text);
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

/// Goodput of our receiving and sending streams, and our retransmits.
fn goodput(r: &TestReport) -> (Option<f64>, Option<f64>, Option<i64>) {
    let s = report::summarize(
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

fn observation(sampler: Option<Sampler>, r: &TestReport) -> Option<NetObservation> {
    let (rx, tx, retr) = goodput(r);
    sampler.map(|s| s.finish(rx, tx, retr))
}

/// The JSON document of a finished test, with the diagnosis when one was made.
fn result_json(
    r: &TestReport,
    diag: bool,
    findings: &[Finding],
    obs: Option<&NetObservation>,
) -> String {
    let extra = diag.then(|| serde_json::json!({ "findings": findings, "observation": obs }));
    report::json_document(r, None, extra)
}

/// Is the other end of the streams on this machine (a loopback address or one of ours)?
fn peer_is_local(streams: &[StreamInfo]) -> bool {
    let Some(ip) = streams
        .first()
        .and_then(|s| s.remote_host.parse::<std::net::IpAddr>().ok())
    else {
        return false;
    };
    ip.is_loopback() || sampler::interface_for(ip).is_some()
}

fn iface_for_streams(common: &CommonArgs, streams: &[StreamInfo]) -> Option<String> {
    if let Some(i) = &common.iface {
        return Some(i.clone());
    }
    let ip: std::net::IpAddr = streams.first()?.local_host.parse().ok()?;
    sampler::interface_for(ip)
}

/// Start sampling the machine for the diagnosis when the streams begin: the interface they
/// use (or `--iface`), the first sample at once.
fn start_sampler(
    root: &SysRoot,
    common: &CommonArgs,
    streams: &[StreamInfo],
    threads: &[StreamThread],
) -> Sampler {
    let iface = iface_for_streams(common, streams);
    let mut s = Sampler::new(root, iface.as_deref());
    s.set_peer_local(root.is_host() && peer_is_local(streams));
    s.sample(threads);
    s
}

fn client_config(a: &ClientArgs) -> Result<ClientConfig, String> {
    let protocol = if a.udp { Protocol::Udp } else { Protocol::Tcp };
    let len = match a.length {
        None => None,
        Some(l) => {
            let max = match protocol {
                Protocol::Tcp => crate::bench::net::proto::MAX_TCP_BLKSIZE,
                Protocol::Udp => crate::bench::net::proto::MAX_UDP_BLKSIZE,
            };
            let min = match protocol {
                Protocol::Tcp => 1,
                Protocol::Udp => crate::bench::net::proto::MIN_UDP_BLKSIZE,
            };
            if l < u64::from(min) || l > u64::from(max) {
                return Err(format!(
                    "-l must be between {min} and {max} bytes for {}",
                    protocol.name()
                ));
            }
            Some(l as u32)
        }
    };
    let window = match a.window {
        None => None,
        Some(w) if w > 0 && w <= crate::bench::net::proto::MAX_WINDOW => Some(w as u32),
        Some(_) => return Err("-w must be between 1 byte and 512M".into()),
    };
    let (rate, burst) = match a.bitrate {
        Some((r, b)) => (Some(r), b),
        None if a.udp => (Some(crate::bench::net::proto::DEFAULT_UDP_RATE), None),
        None => (None, None),
    };
    if a.bytes.is_some() && a.blockcount.is_some() {
        return Err("-n and -k cannot be used together".into());
    }
    // `-t 0` without `-n`/`-k` runs until stopped (Ctrl-C), as with iperf3.
    let time_s = if a.bytes.is_some() || a.blockcount.is_some() {
        0
    } else {
        a.time
    };
    let mut cfg = ClientConfig::new(a.host.clone());
    cfg.port = a.common.port;
    cfg.interval_s = a.common.interval;
    cfg.connect_timeout = Duration::from_secs(a.connect_timeout.clamp(1, 600));
    cfg.params = TestParams {
        protocol,
        omit_s: a.omit,
        time_s,
        bytes: a.bytes.unwrap_or(0),
        blocks: a.blockcount.unwrap_or(0),
        mss: a.mss,
        nodelay: a.no_delay,
        parallel: a.parallel,
        reverse: a.reverse,
        bidirectional: a.bidir,
        window,
        len,
        bandwidth_bps: rate.filter(|&r| r > 0 || a.udp),
        burst,
        congestion: a.congestion.clone(),
        udp_counters_64bit: a.udp_counters_64bit,
        get_server_output: a.get_server_output,
        title: a.title.clone(),
        ..TestParams::default()
    };
    Ok(cfg)
}

/// `-B`: an address, or a host name resolved to its first address (as iperf3 takes it).
pub fn resolve_bind(host: &str) -> Result<std::net::IpAddr, String> {
    if let Ok(ip) = host.parse() {
        return Ok(ip);
    }
    use std::net::ToSocketAddrs;
    (host, 0)
        .to_socket_addrs()
        .map_err(|e| format!("unable to resolve bind address {host}: {e}"))?
        .next()
        .map(|a| a.ip())
        .ok_or_else(|| format!("unable to resolve bind address {host}: no address"))
}

/// Restrict this thread (and the stream threads it will start) to `-A` CPUs.
fn apply_affinity(common: &CommonArgs) -> Result<(), String> {
    let Some(list) = &common.affinity else {
        return Ok(());
    };
    let mut set = nix::sched::CpuSet::new();
    for &c in &list.0 {
        set.set(c as usize)
            .map_err(|_| format!("cpu{c} is beyond what this system supports"))?;
    }
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).map_err(|e| {
        format!(
            "cannot run on CPUs {}: {e} (offline or outside our cpuset?)",
            list::format_list(&list.0)
        )
    })
}

fn run_client(ctx: &Ctx, a: &ClientArgs) -> anyhow::Result<i32> {
    let mut cfg = match client_config(a) {
        Ok(c) => c,
        Err(e) => {
            error(&e);
            return Ok(output::EXIT_USAGE);
        }
    };
    cfg.bind = match a.bind.as_deref().map(resolve_bind).transpose() {
        Ok(b) => b,
        Err(e) => {
            error(&e);
            return Ok(output::EXIT_ERROR);
        }
    };
    if let Err((e, code)) = check_ifaces(&ctx.root, a.common.iface.as_slice()) {
        error(&e);
        return Ok(code);
    }
    if let Err(e) = apply_affinity(&a.common) {
        error(&e);
        return Ok(output::EXIT_ERROR);
    }
    let json = a.common.json;
    let diag = !a.common.no_diagnose;
    let mut sampler: Option<Sampler> = None;
    let mut layout = Layout {
        role: Role::Client,
        protocol: cfg.params.protocol,
        direction: cfg.params.direction(),
        parallel: cfg.params.parallel,
    };
    let result = {
        let mut on = |ev: NetEvent<'_>| match ev {
            NetEvent::Connecting {
                host,
                port,
                reverse,
            } if !json => {
                out(&report::connecting_text(host, port, reverse));
            }
            NetEvent::StreamConnected(i) if !json => out(&report::connected_text(i)),
            NetEvent::Started {
                params,
                streams,
                threads,
            } => {
                layout.parallel = params.parallel;
                if diag {
                    sampler = Some(start_sampler(&ctx.root, &a.common, streams, threads));
                }
            }
            NetEvent::Ending { threads } => {
                if let Some(s) = sampler.as_mut() {
                    s.sample(threads);
                }
            }
            NetEvent::Interval {
                interval,
                threads,
                sender_has_retransmits,
                first,
            } => {
                if !json {
                    out(&report::interval_text(
                        &layout,
                        interval,
                        first,
                        sender_has_retransmits,
                    ));
                }
                if let Some(s) = sampler.as_mut() {
                    s.sample(threads);
                }
            }
            NetEvent::Warning(w) if !json => output::warn(w),
            _ => {}
        };
        client::run_client(&cfg, crate::shutdown::token(), &mut on)
    };
    match result {
        Ok(r) => {
            let obs = if diag { observation(sampler, &r) } else { None };
            let findings = obs.as_ref().map(diagnose).unwrap_or_default();
            if json {
                out(&format!(
                    "{}\n",
                    result_json(&r, diag, &findings, obs.as_ref())
                ));
            } else {
                let s = report::summarize(
                    &r.streams,
                    &r.totals,
                    r.peer.as_ref(),
                    r.sender_has_retransmits,
                );
                out(&report::summary_text(&Layout::of(&r), &s));
                if let Some(t) = r.peer.as_ref().and_then(|p| p.server_output_text.as_ref()) {
                    out(&report::server_output_block(t));
                }
                out(report::DONE);
                if diag {
                    out(&render_findings(cpu_line(&r).as_deref(), &findings));
                }
            }
            Ok(output::EXIT_OK)
        }
        Err(e) => {
            if json {
                out(&format!("{}\n", report::json_error(&e.to_string())));
            }
            error(&e.to_string());
            Ok(output::EXIT_ERROR)
        }
    }
}

fn run_server(ctx: &Ctx, a: &ServerArgs) -> anyhow::Result<i32> {
    let bind = match a.bind.as_deref().map(resolve_bind).transpose() {
        Ok(b) => b,
        Err(e) => {
            error(&e);
            return Ok(output::EXIT_ERROR);
        }
    };
    let cfg = ServerConfig {
        bind,
        port: a.common.port,
        one_off: a.one_off,
        interval_s: a.common.interval,
        ..ServerConfig::default()
    };
    if let Err((e, code)) = check_ifaces(&ctx.root, a.common.iface.as_slice()) {
        error(&e);
        return Ok(code);
    }
    if let Err(e) = apply_affinity(&a.common) {
        error(&e);
        return Ok(output::EXIT_ERROR);
    }
    let json = a.common.json;
    let diag = !a.common.no_diagnose;
    let sampler: RefCell<Option<Sampler>> = RefCell::new(None);
    let layout: RefCell<Option<Layout>> = RefCell::new(None);
    let failed = RefCell::new(false);
    let mut on = |ev: NetEvent<'_>| match ev {
        NetEvent::Listening { port, test_number } if !json => {
            out(&report::listening_text(port, test_number))
        }
        NetEvent::Accepted { host, port } if !json => out(&report::accepted_text(&host, port)),
        NetEvent::StreamConnected(i) if !json => out(&report::connected_text(i)),
        NetEvent::Ending { threads } => {
            if let Some(s) = sampler.borrow_mut().as_mut() {
                s.sample(threads);
            }
        }
        NetEvent::Started {
            params,
            streams,
            threads,
        } => {
            *layout.borrow_mut() = Some(Layout {
                role: Role::Server,
                protocol: params.protocol,
                direction: params.direction(),
                parallel: params.parallel,
            });
            if diag {
                *sampler.borrow_mut() = Some(start_sampler(&ctx.root, &a.common, streams, threads));
            }
        }
        NetEvent::Interval {
            interval,
            threads,
            sender_has_retransmits,
            first,
        } => {
            if !json {
                if let Some(l) = layout.borrow().as_ref() {
                    out(&report::interval_text(
                        l,
                        interval,
                        first,
                        sender_has_retransmits,
                    ));
                }
            }
            if let Some(s) = sampler.borrow_mut().as_mut() {
                s.sample(threads);
            }
        }
        NetEvent::Warning(w) if !json => output::warn(w),
        _ => {}
    };
    let mut done = |r: Result<&TestReport, &crate::bench::net::NetError>| {
        let taken = sampler.borrow_mut().take();
        match r {
            Ok(r) => {
                let obs = if diag { observation(taken, r) } else { None };
                let findings = obs.as_ref().map(diagnose).unwrap_or_default();
                if json {
                    out(&format!(
                        "{}\n",
                        result_json(r, diag, &findings, obs.as_ref())
                    ));
                } else {
                    // The server prints its summary before it has the client's results, as
                    // iperf3 does; the results still feed the diagnosis and the JSON.
                    let s =
                        report::summarize(&r.streams, &r.totals, None, r.sender_has_retransmits);
                    out(&report::summary_text(&Layout::of(r), &s));
                    if diag {
                        out(&render_findings(cpu_line(r).as_deref(), &findings));
                    }
                }
            }
            Err(e) => {
                *failed.borrow_mut() = true;
                if json {
                    out(&format!("{}\n", report::json_error(&e.to_string())));
                }
                error(&e.to_string());
            }
        }
    };
    match server::serve(&cfg, crate::shutdown::token(), &mut on, &mut done) {
        Ok(_) => Ok(if a.one_off && *failed.borrow() {
            output::EXIT_ERROR
        } else {
            output::EXIT_OK
        }),
        Err(e) => {
            error(&e.to_string());
            Ok(output::EXIT_ERROR)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::finding::FindingCode;
    use crate::sys::net::{IfaceIrq, IfaceKind, RxQueue, TxQueue};
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
