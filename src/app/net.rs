//! `sbc-bench net`: wiring of the iperf3-compatible client and server, the sampler and the
//! diagnosis, and `net info`. What is printed is made in [`crate::report::net`] and
//! [`crate::bench::net::report`] (iperf3's own lines).

use std::cell::RefCell;
use std::time::Duration;

use crate::app::Ctx;
use crate::bench::net::client::{self, ClientConfig};
use crate::bench::net::engine::{StreamInfo, StreamThread};
use crate::bench::net::proto::{Protocol, TestParams};
use crate::bench::net::report::{self, Iperf3Layout};
use crate::bench::net::sampler::{self, NetSampler};
use crate::bench::net::server::{self, ServerConfig};
use crate::bench::net::{NetError, NetEvent, Role, TestReport};
use crate::cli::net::{ClientArgs, CommonArgs, NetArgs, NetCommand, ServerArgs};
use crate::diagnose::net::{diagnose, observe_test};
use crate::output::{self, Outcome};
use crate::report::net::{cpu_line, render_findings, render_info, result_json};
use crate::sys::cpu::list;
use crate::sys::net;
use crate::sys::root::SysRoot;

/// Run the command.
pub fn run(ctx: &Ctx, args: &NetArgs) -> anyhow::Result<Outcome> {
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
fn check_ifaces(root: &SysRoot, names: &[String]) -> Result<(), (String, Outcome)> {
    if let Some(n) = names.iter().find(|n| !net::valid_name(n)) {
        return Err((format!("'{n}' is not an interface name"), Outcome::Usage));
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
            Outcome::Failed,
        ))
    }
}

fn info(root: &SysRoot, json: bool, only: &[String]) -> anyhow::Result<Outcome> {
    if let Err((e, outcome)) = check_ifaces(root, only) {
        error(&e);
        return Ok(outcome);
    }
    let mut all = net::read_all(root);
    if !only.is_empty() {
        all.retain(|i| only.contains(&i.name));
    }
    if json {
        // An object, not the bare array it was before the JSON contract: an array has no
        // place for `schema` (docs/RUN-JSON.md, deprecations).
        let interfaces = serde_json::json!({ "interfaces": all });
        let doc = crate::output::schema::stamp(crate::output::schema::NET_INFO, &interfaces);
        out(&format!("{}\n", serde_json::to_string_pretty(&doc)?));
    } else {
        out(&render_info(&all));
    }
    Ok(Outcome::Ok)
}

/// Write to stdout; a closed pipe (`| head`) is not an error worth a panic.
fn out(text: &str) {
    // A test in progress goes on when nobody reads its output any more (a closed pipe, a
    // full disk): the peer is mid-test, and the exit status still tells the outcome.
    let _ = output::print_or_closed(text);
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
) -> NetSampler {
    let iface = iface_for_streams(common, streams);
    let mut s = NetSampler::new(root, iface.as_deref());
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
    // `-n 0` / `-k 0` set no budget: the test runs by time (10 s unless `-t`), as iperf3.
    let bytes = a.bytes.filter(|&n| n > 0);
    let blocks = a.blockcount.filter(|&n| n > 0);
    if bytes.is_some() && blocks.is_some() {
        return Err("-n and -k cannot be used together".into());
    }
    // `-t 0` without `-n`/`-k` runs until stopped (Ctrl-C), as with iperf3.
    let time_s = if bytes.is_some() || blocks.is_some() {
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
        bytes: bytes.unwrap_or(0),
        blocks: blocks.unwrap_or(0),
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

/// What either end prints and samples while its tests run.
struct Watch<'a> {
    root: &'a SysRoot,
    common: &'a CommonArgs,
    role: Role,
    json: bool,
    diag: bool,
    /// Set when data starts to flow.
    layout: Option<Iperf3Layout>,
    sampler: Option<NetSampler>,
}

impl<'a> Watch<'a> {
    fn new(root: &'a SysRoot, common: &'a CommonArgs, role: Role) -> Self {
        Self {
            root,
            common,
            role,
            json: common.json,
            diag: !common.no_diagnose,
            layout: None,
            sampler: None,
        }
    }

    /// Progress: iperf3's lines as they come (not with `-J`), a sample per interval.
    fn on(&mut self, ev: NetEvent<'_>) {
        let text = !self.json;
        match ev {
            NetEvent::Listening { port, test_number } if text => {
                out(&report::listening_text(port, test_number))
            }
            NetEvent::Connecting {
                host,
                port,
                reverse,
            } if text => out(&report::connecting_text(host, port, reverse)),
            NetEvent::Accepted { host, port } if text => out(&report::accepted_text(&host, port)),
            NetEvent::StreamConnected(i) if text => out(&report::connected_text(i)),
            NetEvent::Started {
                params,
                streams,
                threads,
            } => {
                self.layout = Some(Iperf3Layout {
                    role: self.role,
                    protocol: params.protocol,
                    direction: params.direction(),
                    parallel: params.parallel,
                });
                if self.diag {
                    self.sampler = Some(start_sampler(self.root, self.common, streams, threads));
                }
            }
            NetEvent::Ending { threads } => self.sample(threads),
            NetEvent::Interval {
                interval,
                threads,
                sender_has_retransmits,
                first,
            } => {
                if let Some(l) = self.layout.as_ref().filter(|_| text) {
                    out(&report::interval_text(
                        l,
                        interval,
                        first,
                        sender_has_retransmits,
                    ));
                }
                self.sample(threads);
            }
            NetEvent::Warning(w) if text => output::warn(w),
            _ => {}
        }
    }

    fn sample(&mut self, threads: &[StreamThread]) {
        if let Some(s) = self.sampler.as_mut() {
            s.sample(threads);
        }
    }

    /// A test ended: its results and diagnosis, or its error. `false` when it failed.
    fn finished(&mut self, r: Result<&TestReport, &NetError>) -> bool {
        let sampler = self.sampler.take();
        let r = match r {
            Ok(r) => r,
            Err(e) => {
                if self.json {
                    out(&format!("{}\n", report::json_error(&e.to_string())));
                }
                error(&e.to_string());
                return false;
            }
        };
        let obs = sampler
            .filter(|_| self.diag)
            .map(|s| observe_test(&s.finish(), r));
        let findings = obs.as_ref().map(diagnose).unwrap_or_default();
        if self.json {
            let doc = result_json(r, self.diag, &findings, obs.as_ref());
            out(&format!("{doc}\n"));
            return true;
        }
        // The server prints its summary before it has the client's results, as iperf3
        // does; the results still feed the diagnosis and the JSON.
        let peer = r.peer.as_ref().filter(|_| self.role == Role::Client);
        let s = report::summarize(&r.streams, &r.totals, peer, r.sender_has_retransmits);
        out(&report::summary_text(&Iperf3Layout::of(r), &s));
        if self.role == Role::Client {
            if let Some(t) = peer.and_then(|p| p.server_output_text.as_ref()) {
                out(&report::server_output_block(t));
            }
            out(report::DONE);
        }
        if self.diag {
            out(&render_findings(cpu_line(r).as_deref(), &findings));
        }
        true
    }
}

/// `-B` and `-A` of either end, and `--iface` checked: the bind address, or the outcome
/// to end with (the error printed).
fn prepare(
    ctx: &Ctx,
    bind: Option<&str>,
    common: &CommonArgs,
) -> Result<Option<std::net::IpAddr>, Outcome> {
    let bind = bind.map(resolve_bind).transpose().map_err(|e| {
        error(&e);
        Outcome::Failed
    })?;
    if let Err((e, outcome)) = check_ifaces(&ctx.root, common.iface.as_slice()) {
        error(&e);
        return Err(outcome);
    }
    if let Err(e) = apply_affinity(common) {
        error(&e);
        return Err(Outcome::Failed);
    }
    Ok(bind)
}

fn run_client(ctx: &Ctx, a: &ClientArgs) -> anyhow::Result<Outcome> {
    let mut cfg = match client_config(a) {
        Ok(c) => c,
        Err(e) => {
            error(&e);
            return Ok(Outcome::Usage);
        }
    };
    cfg.bind = match prepare(ctx, a.bind.as_deref(), &a.common) {
        Ok(b) => b,
        Err(outcome) => return Ok(outcome),
    };
    let mut watch = Watch::new(&ctx.root, &a.common, Role::Client);
    let result = client::run_client(&cfg, crate::shutdown::token(), &mut |ev| watch.on(ev));
    Ok(if watch.finished(result.as_ref()) {
        Outcome::Ok
    } else if matches!(result, Err(NetError::Interrupted)) {
        // Stopped by a signal: 128 + its number, as the README documents.
        Outcome::Interrupted(crate::shutdown::signal().unwrap_or(libc::SIGINT))
    } else {
        Outcome::Failed
    })
}

fn run_server(ctx: &Ctx, a: &ServerArgs) -> anyhow::Result<Outcome> {
    let bind = match prepare(ctx, a.bind.as_deref(), &a.common) {
        Ok(b) => b,
        Err(outcome) => return Ok(outcome),
    };
    let cfg = ServerConfig {
        bind,
        port: a.common.port,
        one_off: a.one_off,
        interval_s: a.common.interval,
        data_idle_timeout: Duration::from_secs(u64::from(a.idle_timeout)),
        max_duration: a.max_duration.map(|s| Duration::from_secs(u64::from(s))),
        bitrate_limit: a
            .server_bitrate_limit
            .filter(|&(rate, _)| rate > 0)
            .map(|(rate, secs)| (rate, Duration::from_secs(u64::from(secs.unwrap_or(5))))),
        ..ServerConfig::default()
    };
    let watch = RefCell::new(Watch::new(&ctx.root, &a.common, Role::Server));
    let mut failed = false;
    let served = server::serve(
        &cfg,
        crate::shutdown::token(),
        &mut |ev| watch.borrow_mut().on(ev),
        &mut |r| failed |= !watch.borrow_mut().finished(r),
    );
    Ok(match served {
        Ok(_) if a.one_off && failed => Outcome::Failed,
        Ok(_) => Outcome::Ok,
        Err(e) => {
            error(&e.to_string());
            Outcome::Failed
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn client_args(args: &[&str]) -> ClientArgs {
        let mut v = vec!["sbc-bench", "net", "client", "h"];
        v.extend_from_slice(args);
        match Cli::try_parse_from(v).map(|c| c.command) {
            Ok(Some(Command::Net(NetArgs {
                which: NetCommand::Client(c),
            }))) => *c,
            other => panic!("{other:?}"),
        }
    }

    /// `-n 0` / `-k 0` ran until stopped; iperf3 runs its default 10 s (or `-t`).
    #[test]
    fn client_n_0_runs_the_default_ten_seconds() {
        for flag in ["-n", "-k"] {
            let cfg = client_config(&client_args(&[flag, "0"])).unwrap();
            assert_eq!(
                (cfg.params.time_s, cfg.params.bytes, cfg.params.blocks),
                (10, 0, 0)
            );
            let cfg = client_config(&client_args(&[flag, "0", "-t", "3"])).unwrap();
            assert_eq!(cfg.params.time_s, 3);
        }
        // `-n 0 -k 5` is `-k 5`, not two end conditions.
        let cfg = client_config(&client_args(&["-n", "0", "-k", "5"])).unwrap();
        assert_eq!((cfg.params.time_s, cfg.params.blocks), (0, 5));
        let cfg = client_config(&client_args(&["-n", "1M"])).unwrap();
        assert_eq!((cfg.params.time_s, cfg.params.bytes), (0, 1 << 20));
    }
}
