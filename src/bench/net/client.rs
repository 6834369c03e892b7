//! The client end of an iperf3 test: works against a stock `iperf3 -s` as well as against
//! our own server.

use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use socket2::{Domain, SockRef, Socket, Type};

use super::engine::{self, DataSocket, Engine, EngineConfig, Interval, StreamFailure, StreamSpec};
use super::proto::{
    self, Cookie, Direction, MAX_RESULTS_JSON, PeerResults, Protocol, State, TestParams,
};
use super::sockopt::{self, CpuMark};
use super::{NetError, NetEvent, Role, TestReport};
use crate::shutdown::CancellationToken;

/// How long the server may take to answer during setup and teardown.
pub const CONTROL_TIMEOUT: Duration = Duration::from_secs(30);

/// What to test.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Server host name or address.
    pub host: String,
    /// Server port.
    pub port: u16,
    /// The test; `len` is filled in for UDP from the control connection's MSS when unset.
    pub params: TestParams,
    /// Seconds between interval reports (0 = none, only the summary).
    pub interval_s: f64,
    /// Local address to bind the connections to.
    pub bind: Option<IpAddr>,
    /// Give up connecting after this long, and waiting for the server's first message
    /// after the connection is up (a listener that accepts and says nothing is not an
    /// iperf3 server).
    pub connect_timeout: Duration,
    /// Longest wait for each of the server's later messages while the test is set up and
    /// torn down (not while data flows).
    pub control_timeout: Duration,
}

impl ClientConfig {
    /// Defaults as `iperf3 -c HOST`: TCP, 10 s, one stream, 128 KiB writes.
    pub fn new(host: impl Into<String>) -> Self {
        Self {
            host: host.into(),
            port: proto::DEFAULT_PORT,
            params: TestParams {
                time_s: 10,
                parallel: 1,
                ..TestParams::default()
            },
            interval_s: 1.0,
            bind: None,
            connect_timeout: Duration::from_secs(10),
            control_timeout: CONTROL_TIMEOUT,
        }
    }
}

fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>, NetError> {
    let addrs: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| NetError::Resolve {
            host: host.to_string(),
            reason: e.to_string(),
        })?
        .collect();
    if addrs.is_empty() {
        return Err(NetError::Resolve {
            host: host.to_string(),
            reason: "no address".into(),
        });
    }
    Ok(addrs)
}

fn bind_addr(bind: Option<IpAddr>, target: &SocketAddr) -> Option<SocketAddr> {
    bind.map(|ip| {
        let ip = match (ip, target) {
            // A v4 bind address with a v6 target would fail; map it.
            (IpAddr::V4(v4), SocketAddr::V6(_)) => IpAddr::V6(v4.to_ipv6_mapped()),
            (ip, _) => ip,
        };
        SocketAddr::new(ip, 0)
    })
}

fn tcp_connect(
    addr: &SocketAddr,
    bind: Option<IpAddr>,
    timeout: Duration,
    params: Option<&TestParams>,
) -> std::io::Result<TcpStream> {
    let s = Socket::new(Domain::for_address(*addr), Type::STREAM, None)?;
    if let Some(b) = bind_addr(bind, addr) {
        s.bind(&b.into())?;
    }
    if let Some(p) = params {
        if let Some(w) = p.window {
            s.set_send_buffer_size(w as usize)?;
            s.set_recv_buffer_size(w as usize)?;
        }
        if let Some(m) = p.mss {
            s.set_tcp_mss(m)?;
        }
        if p.nodelay {
            s.set_tcp_nodelay(true)?;
        }
        if let Some(cc) = &p.congestion {
            sockopt::set_congestion(s.as_raw_fd(), cc).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("TCP congestion control {cc:?} is not available here ({e})"),
                )
            })?;
        }
    }
    s.connect_timeout(&(*addr).into(), timeout)?;
    Ok(s.into())
}

fn udp_connect(
    addr: &SocketAddr,
    bind: Option<IpAddr>,
    params: &TestParams,
    timeout: Duration,
) -> std::io::Result<UdpSocket> {
    let s = Socket::new(Domain::for_address(*addr), Type::DGRAM, None)?;
    let local = bind_addr(bind, addr).unwrap_or_else(|| match addr {
        SocketAddr::V4(_) => SocketAddr::new(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), 0),
        SocketAddr::V6(_) => SocketAddr::new(IpAddr::V6(std::net::Ipv6Addr::UNSPECIFIED), 0),
    });
    s.bind(&local.into())?;
    if let Some(w) = params.window {
        s.set_send_buffer_size(w as usize)?;
        s.set_recv_buffer_size(w as usize)?;
    }
    s.connect(&(*addr).into())?;
    let u: UdpSocket = s.into();
    u.set_read_timeout(Some(timeout))?;
    u.send(&proto::UDP_CONNECT_MSG)?;
    // In reverse mode data may overtake the reply; allow a few datagrams.
    let mut buf = vec![0u8; params.blksize().max(16) as usize + 64];
    for _ in 0..16 {
        let n = u.recv(&mut buf)?;
        if n == 4
            && (buf[..4] == proto::UDP_CONNECT_REPLY || buf[..4] == proto::UDP_CONNECT_REPLY_LEGACY)
        {
            return Ok(u);
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "no UDP connect reply from the server",
    ))
}

/// Stream ids as iperf3 assigns them: 1, then 3, 4, 5… (its list insertion counts from 2
/// and increments once more for the head).
pub fn stream_id(index: usize) -> i64 {
    if index == 0 { 1 } else { index as i64 + 2 }
}

/// Connect the control connection to the first address that answers.
fn connect_control(cfg: &ClientConfig, addrs: &[SocketAddr]) -> Result<TcpStream, NetError> {
    let mut last_err = None;
    for a in addrs {
        match tcp_connect(a, cfg.bind, cfg.connect_timeout, None) {
            Ok(s) => return Ok(s),
            Err(e) => last_err = Some((a, e)),
        }
    }
    Err(match last_err {
        Some((a, e)) => NetError::Connect {
            addr: a.to_string(),
            source: e,
        },
        None => NetError::Resolve {
            host: cfg.host.clone(),
            reason: "no address".into(),
        },
    })
}

/// Was the connection reset (or closed) before the server said anything?
fn reset_before_reply(e: &NetError) -> bool {
    match e {
        NetError::ControlClosed(_) => true,
        NetError::Proto(proto::ProtoError::Closed) => true,
        NetError::Proto(proto::ProtoError::Io(io)) => matches!(
            io.kind(),
            std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe
        ),
        _ => false,
    }
}

/// Read one state byte, waiting at most `timeout`; `Ok(None)` on timeout.
fn poll_state(ctrl: &mut TcpStream, timeout: Duration) -> Result<Option<State>, NetError> {
    let ready = super::wait_readable(ctrl.as_raw_fd(), timeout).map_err(|e| NetError::Io {
        what: "waiting for the server",
        source: e,
    })?;
    if !ready {
        return Ok(None);
    }
    ctrl.set_read_timeout(Some(CONTROL_TIMEOUT))
        .map_err(|e| NetError::Io {
            what: "control connection",
            source: e,
        })?;
    match proto::read_state(ctrl) {
        Ok(s) => Ok(Some(s)),
        Err(proto::ProtoError::Closed) => Err(NetError::ControlClosed("server")),
        Err(e) => Err(e.into()),
    }
}

/// Wait for the server's next state byte, for at most `limit`.
fn wait_state(
    ctrl: &mut TcpStream,
    cancel: &CancellationToken,
    limit: Duration,
) -> Result<State, NetError> {
    let deadline = Instant::now() + limit;
    loop {
        if cancel.is_cancelled() {
            return Err(NetError::Interrupted);
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(NetError::Timeout("the server sent nothing".into()));
        }
        let wait = (deadline - now).min(Duration::from_millis(200));
        if let Some(s) = poll_state(ctrl, wait)? {
            return Ok(s);
        }
    }
}

/// A data connection of ours that failed in a way only this side causes (aborted or
/// timed out here, not closed or reset by the peer): when the control connection then
/// breaks too, this is the cause to report.
pub fn local_stream_failure(f: &StreamFailure) -> bool {
    f.errno != 0 && f.errno != libc::ECONNRESET && f.errno != libc::EPIPE
}

/// The server broke off the test (closed the control connection or reported an error)
/// while data flowed. When one of our own data connections failed here first (aborted
/// locally, not closed by the peer), that is the cause: the server only reacted to it.
fn blame(engine: &mut Engine, e: NetError) -> NetError {
    let deadline = Instant::now() + Duration::from_millis(300);
    let mut failure = engine.failure();
    while failure.is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
        failure = engine.failure();
    }
    engine.stop_all();
    match failure {
        Some(f) if local_stream_failure(&f) => NetError::StreamLost(f),
        _ => e,
    }
}

/// Turn a state the server should not send now into the matching error.
fn server_state_error(ctrl: &mut TcpStream, s: State) -> NetError {
    match s {
        State::AccessDenied => NetError::Busy,
        State::ServerTerminate => NetError::ServerTerminated,
        State::ServerError => match proto::read_server_error(ctrl) {
            Ok((i, e)) => NetError::Server(proto::describe_error(i, e)),
            Err(e) => e.into(),
        },
        State::IperfDone => NetError::PeerEndedEarly("server"),
        other => NetError::Unexpected(other.wire_name().to_string()),
    }
}

/// Send `CLIENT_TERMINATE`, best effort.
fn terminate(ctrl: &mut TcpStream) {
    let _ = ctrl.write_all(&[State::ClientTerminate.byte()]);
}

/// Run one test. `on` sees progress (connect lines, intervals) as it happens.
pub fn run_client(
    cfg: &ClientConfig,
    cancel: &CancellationToken,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<TestReport, NetError> {
    let addrs = resolve(&cfg.host, cfg.port)?;
    let io = |what: &'static str| move |e: std::io::Error| NetError::Io { what, source: e };
    // iperf3 3.12 closes and reopens its listening socket after each test; a client that
    // connects in that instant is reset before it hears anything. Retry that case (and
    // only that case) a few times.
    let mut attempt = 0;
    let (mut ctrl, server, cookie, first_state) = loop {
        attempt += 1;
        let mut ctrl = connect_control(cfg, &addrs)?;
        let server = ctrl.peer_addr().map_err(io("control connection"))?;
        ctrl.set_nodelay(true).map_err(io("TCP_NODELAY"))?;
        ctrl.set_read_timeout(Some(CONTROL_TIMEOUT))
            .map_err(io("control connection"))?;
        ctrl.set_write_timeout(Some(CONTROL_TIMEOUT))
            .map_err(io("control connection"))?;
        let cookie = Cookie::random();
        let first = proto::write_cookie(&mut ctrl, &cookie)
            .map_err(NetError::from)
            .and_then(|_| {
                wait_state(&mut ctrl, cancel, cfg.connect_timeout).map_err(|e| match e {
                    NetError::Timeout(_) => NetError::Timeout(format!(
                        "{server} accepted the connection but sent nothing for {} s: is an iperf3 server listening there?",
                        cfg.connect_timeout.as_secs_f64()
                    )),
                    e => e,
                })
            });
        match first {
            Ok(s) => break (ctrl, server, cookie, s),
            Err(e) if attempt < 3 && reset_before_reply(&e) => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => return Err(e),
        }
    };
    let mss = SockRef::from(&ctrl).tcp_mss().ok().filter(|&m| m > 0);
    let mut params = cfg.params.clone();
    if params.parallel == 0 {
        params.parallel = 1;
    }
    if params.protocol == Protocol::Udp && params.len.is_none() {
        params.len = Some(
            mss.filter(|&m| m <= proto::MAX_UDP_BLKSIZE)
                .unwrap_or(proto::DEFAULT_UDP_BLKSIZE),
        );
    }
    if let (Protocol::Udp, Some(len), Some(m)) = (params.protocol, params.len, mss) {
        if len > m {
            on(NetEvent::Warning(format!(
                "UDP block size {len} exceeds TCP MSS {m}, may result in fragmentation / drops"
            )));
        }
    }
    if params.protocol == Protocol::Tcp && params.len.is_none() {
        params.len = Some(proto::DEFAULT_TCP_BLKSIZE);
    }
    if params.pacing_timer_us.is_none() {
        params.pacing_timer_us = Some(1000);
    }
    if params.client_version.is_none() {
        params.client_version = Some("3.12".into());
    }
    let direction = params.direction();
    let (timestamp, timesecs) = super::timestamp_now();
    let mut cpu_mark = CpuMark::now();

    let mut engine: Option<Engine> = None;
    let mut intervals: Vec<Interval> = Vec::new();
    // Setup: everything up to TEST_RUNNING.
    let mut next_state = Some(first_state);
    loop {
        if cancel.is_cancelled() {
            terminate(&mut ctrl);
            return Err(NetError::Interrupted);
        }
        let state = match next_state.take() {
            Some(s) => s,
            None => wait_state(&mut ctrl, cancel, cfg.control_timeout).map_err(|e| match e {
                NetError::Timeout(_) => NetError::Timeout(format!(
                    "the server sent nothing for {} s while the test was being set up",
                    cfg.control_timeout.as_secs_f64()
                )),
                NetError::Interrupted => {
                    terminate(&mut ctrl);
                    NetError::Interrupted
                }
                e => e,
            })?,
        };
        match state {
            State::ParamExchange => {
                proto::write_json(&mut ctrl, &params.to_json())?;
                on(NetEvent::Connecting {
                    host: &cfg.host,
                    port: cfg.port,
                    reverse: params.reverse,
                });
            }
            State::CreateStreams => {
                let n = params.parallel as usize;
                let roles: Vec<bool> = match direction {
                    Direction::ClientToServer => vec![true; n],
                    Direction::ServerToClient => vec![false; n],
                    Direction::Bidirectional => {
                        let mut v = vec![true; n];
                        v.extend(vec![false; n]);
                        v
                    }
                };
                let mut specs = Vec::with_capacity(roles.len());
                for (i, sender) in roles.into_iter().enumerate() {
                    let id = stream_id(i);
                    let sock = match params.protocol {
                        Protocol::Tcp => {
                            let mut s =
                                tcp_connect(&server, cfg.bind, cfg.connect_timeout, Some(&params))
                                    .map_err(|e| NetError::StreamSetup {
                                        id,
                                        reason: e.to_string(),
                                    })?;
                            proto::write_cookie(&mut s, &cookie)?;
                            DataSocket::Tcp(s)
                        }
                        Protocol::Udp => DataSocket::Udp(
                            udp_connect(&server, cfg.bind, &params, Duration::from_secs(10))
                                .map_err(|e| NetError::StreamSetup {
                                    id,
                                    reason: e.to_string(),
                                })?,
                        ),
                    };
                    let spec = StreamSpec { id, sender, sock };
                    on(NetEvent::StreamConnected(&spec.info()));
                    specs.push(spec);
                }
                engine = Some(Engine::new(
                    EngineConfig {
                        protocol: params.protocol,
                        blksize: params.blksize() as usize,
                        rate_bps: match params.protocol {
                            Protocol::Udp => Some(params.bandwidth_bps.unwrap_or(0)),
                            Protocol::Tcp => params.bandwidth_bps,
                        },
                        udp64: params.udp_counters_64bit,
                        send_budget: EngineConfig::budget_of(
                            params.bytes,
                            params.blocks,
                            params.blksize(),
                        ),
                    },
                    specs,
                ));
            }
            State::TestStart => {
                cpu_mark = CpuMark::now();
            }
            State::TestRunning => break,
            other => return Err(server_state_error(&mut ctrl, other)),
        }
    }
    let Some(mut engine) = engine else {
        return Err(NetError::Unexpected(
            "TEST_RUNNING before CREATE_STREAMS".into(),
        ));
    };
    let infos = engine.infos();
    let (sndbuf, rcvbuf) = match engine.first_buffers() {
        Some((s, r)) => (Some(s), Some(r)),
        None => (None, None),
    };
    engine
        .start(params.omit_s > 0)
        .map_err(io("starting the stream threads"))?;
    // Give the threads a moment to record their ids for the caller's sampler.
    std::thread::sleep(Duration::from_millis(2));
    on(NetEvent::Started {
        params: &params,
        streams: &infos,
        threads: &engine.threads(),
    });

    // Running.
    let start = Instant::now();
    let interval = (cfg.interval_s > 0.0).then(|| Duration::from_secs_f64(cfg.interval_s));
    let mut omit_end =
        (params.omit_s > 0).then(|| start + Duration::from_secs(u64::from(params.omit_s)));
    let mut test_end = (params.time_s > 0)
        .then(|| start + Duration::from_secs(u64::from(params.time_s) + u64::from(params.omit_s)));
    let mut next_tick = interval.map(|i| start + i);
    let mut first = true;
    let budget = EngineConfig::budget_of(params.bytes, params.blocks, params.blksize());
    // `-t 0` without `-n`/`-k`: until stopped, and stopping ends the test with results.
    let until_stopped = params.time_s == 0 && budget.is_none();
    let mut stopped = false;
    // Reverse `-n`/`-k` over UDP: lost datagrams never arrive, so the received count may
    // stay below the budget after the server has sent it all. Data that stopped coming for
    // this long ends the test too.
    const BUDGET_STALL: Duration = Duration::from_secs(2);
    let mut last_rx = (0u64, Instant::now());
    loop {
        if cancel.is_cancelled() {
            if until_stopped {
                stopped = true;
            } else {
                terminate(&mut ctrl);
                engine.stop_all();
                return Err(NetError::Interrupted);
            }
        }
        if let Some(f) = engine.failure() {
            terminate(&mut ctrl);
            engine.stop_all();
            return Err(NetError::StreamLost(f));
        }
        let now = Instant::now();
        // With `-n`/`-k` the sending side stops at the budget (our senders, or in reverse
        // mode the server's): the test ends when it is sent, or all of it arrived here.
        let budget_done = omit_end.is_none()
            && budget.is_some_and(|b| match direction {
                Direction::ServerToClient => {
                    let (all, sent) = engine.bytes_so_far();
                    let got = all - sent;
                    if got != last_rx.0 {
                        last_rx = (got, now);
                    }
                    got >= b || (got > 0 && now.duration_since(last_rx.1) >= BUDGET_STALL)
                }
                _ => engine.budget_spent(),
            });
        let time_done = test_end.is_some_and(|t| now >= t);
        if time_done || budget_done || stopped {
            end_of_data(
                &mut engine,
                on,
                interval.is_some().then_some(cfg.interval_s),
                first,
                &mut intervals,
            );
            break;
        }
        if let Some(t) = next_tick.filter(|&t| now >= t) {
            let iv = engine.tick();
            report_interval(&engine, on, iv, first, &mut intervals);
            first = false;
            next_tick = interval.map(|i| t + i);
            continue;
        }
        // At the end of the omit period the omitted interval is reported first (above),
        // then counting restarts at 0, as iperf3 does.
        if omit_end.is_some_and(|t| now >= t) {
            engine.end_omit();
            omit_end = None;
            // Measure `-t` seconds from here, with intervals aligned to the new start.
            let restart = Instant::now();
            next_tick = interval.map(|i| restart + i);
            test_end = (params.time_s > 0)
                .then(|| restart + Duration::from_secs(u64::from(params.time_s)));
            continue;
        }
        let step = if budget.is_some() { 5 } else { 50 };
        let mut until = now + Duration::from_millis(step);
        for t in [next_tick, omit_end, test_end].into_iter().flatten() {
            until = until.min(t);
        }
        let polled = if until_stopped {
            // Wake up at once when stopped.
            let wait = until.saturating_duration_since(now);
            poll_state(&mut ctrl, wait.min(Duration::from_millis(20)))
        } else {
            poll_state(&mut ctrl, until.saturating_duration_since(now))
        };
        match polled {
            Ok(None) => {}
            Ok(Some(s)) => {
                let e = server_state_error(&mut ctrl, s);
                return Err(blame(&mut engine, e));
            }
            Err(e) => return Err(blame(&mut engine, e)),
        }
    }
    let cpu = cpu_mark.util();
    proto::write_state(&mut ctrl, State::TestEnd)?;

    // Teardown: swap results, display, done. Receivers keep draining meanwhile so a
    // sending server never blocks on a full pipe.
    let totals = engine.totals();
    let has_retr = engine.sender_has_retransmits();
    let congestion = engine.congestion();
    let mut peer: Option<PeerResults> = None;
    let deadline = Instant::now() + cfg.control_timeout;
    loop {
        // A test run until stopped was stopped by this very cancellation: finish it.
        if cancel.is_cancelled() && !stopped {
            terminate(&mut ctrl);
            return Err(NetError::Interrupted);
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(NetError::Timeout(
                "the server did not send its results".into(),
            ));
        }
        let Some(state) = poll_state(&mut ctrl, (deadline - now).min(Duration::from_millis(200)))?
        else {
            continue;
        };
        match state {
            State::ExchangeResults => {
                let ours = engine::peer_results(
                    &cpu,
                    direction != Direction::ServerToClient,
                    has_retr,
                    congestion.clone(),
                    &totals,
                );
                proto::write_json(&mut ctrl, &ours.to_json())?;
                ctrl.set_read_timeout(Some(cfg.control_timeout))
                    .map_err(io("control connection"))?;
                let body = proto::read_frame(&mut ctrl, MAX_RESULTS_JSON)?;
                let mut theirs = proto::parse_results(&body)?;
                // iperf3 3.12 servers keep sending their output once one client asked.
                if !params.get_server_output {
                    theirs.server_output_text = None;
                }
                for s in &theirs.streams {
                    if !totals.iter().any(|t| t.id == s.id) {
                        return Err(NetError::Server(format!(
                            "results for unknown stream id {}",
                            s.id
                        )));
                    }
                }
                peer = Some(theirs);
            }
            State::DisplayResults => {
                engine.stop_all();
                engine.shutdown_sockets();
                let _ = proto::write_state(&mut ctrl, State::IperfDone);
                break;
            }
            other => {
                engine.stop_all();
                return Err(server_state_error(&mut ctrl, other));
            }
        }
    }
    Ok(TestReport {
        role: Role::Client,
        params,
        cookie: cookie.as_string(),
        peer_host: cfg.host.clone(),
        peer_port: cfg.port,
        tcp_mss_default: mss,
        sndbuf_actual: sndbuf,
        rcvbuf_actual: rcvbuf,
        streams: infos,
        intervals,
        totals,
        peer,
        cpu,
        congestion,
        sender_has_retransmits: has_retr,
        timestamp,
        timesecs,
        system_info: super::system_info(),
    })
}

/// iperf3 drops a final interval shorter than 10 % of the reporting interval that moved
/// no data (control messages queued behind data make such slivers).
pub fn keep_interval(iv: &Interval, interval_s: f64) -> bool {
    iv.streams
        .iter()
        .any(|s| s.bytes > 0 || s.seconds >= interval_s * 0.1)
}

/// Report one interval to `on` (an [`NetEvent::Interval`]) and keep it.
pub(super) fn report_interval(
    engine: &Engine,
    on: &mut dyn FnMut(NetEvent<'_>),
    iv: Interval,
    first: bool,
    intervals: &mut Vec<Interval>,
) {
    on(NetEvent::Interval {
        interval: &iv,
        threads: &engine.threads(),
        sender_has_retransmits: engine.sender_has_retransmits(),
        first,
    });
    intervals.push(iv);
}

/// The end of the data phase, the same on both sides: [`NetEvent::Ending`] (while the
/// stream threads still run), the last, partial interval, counting stopped. That interval
/// is reported when intervals are (`interval_s`) and [`keep_interval`] keeps it.
pub(super) fn end_of_data(
    engine: &mut Engine,
    on: &mut dyn FnMut(NetEvent<'_>),
    interval_s: Option<f64>,
    first: bool,
    intervals: &mut Vec<Interval>,
) {
    on(NetEvent::Ending {
        threads: &engine.threads(),
    });
    let iv = engine.finish_sending();
    engine.stop_counting();
    if interval_s.is_some_and(|s| keep_interval(&iv, s)) {
        report_interval(engine, on, iv, first, intervals);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iperf3_stream_ids() {
        let ids: Vec<i64> = (0..5).map(stream_id).collect();
        assert_eq!(ids, vec![1, 3, 4, 5, 6]);
    }

    /// Our receiving data socket aborted here (`ss -K`: ECONNABORTED) is our side's
    /// failure; a peer that closed or reset the connection is the server's.
    #[test]
    fn which_side_a_lost_stream_blames() {
        let f = |errno| StreamFailure {
            id: 1,
            sender: false,
            errno,
            message: String::new(),
        };
        assert!(local_stream_failure(&f(libc::ECONNABORTED)));
        assert!(local_stream_failure(&f(libc::ETIMEDOUT)));
        assert!(!local_stream_failure(&f(0)));
        assert!(!local_stream_failure(&f(libc::ECONNRESET)));
        assert!(!local_stream_failure(&f(libc::EPIPE)));
    }

    #[test]
    fn refused_connection_is_a_clear_error() {
        // Bind a port, close it, and connect there.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let mut cfg = ClientConfig::new("127.0.0.1");
        cfg.port = port;
        let e = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap_err();
        assert!(matches!(e, NetError::Connect { .. }), "{e}");
        assert!(e.to_string().contains("unable to connect"));
        let mut cfg = ClientConfig::new("no-such-host.invalid");
        cfg.port = port;
        assert!(run_client(&cfg, &CancellationToken::new(), &mut |_| {}).is_err());
    }
}
