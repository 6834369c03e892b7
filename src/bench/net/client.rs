//! The client end of an iperf3 test: works against a stock `iperf3 -s` as well as against
//! our own server.

use std::io::Write;
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use socket2::{Domain, SockRef, Socket, Type};

use super::clock::{ClockStep, Measurement, TestClock};
use super::engine::{
    self, DataSocket, Engine, EngineConfig, NetInterval, StreamFailure, StreamSpec, StreamTotals,
};
use super::proto::{
    self, Cookie, Direction, MAX_RESULTS_JSON, PeerResults, Protocol, State, TestParams,
};
use super::sockopt::{self, CpuMark};
use super::{DeadlineRead, NetError, NetEvent, Role, TestReport, io};
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
    /// torn down (not while data flows), and for the whole setup and the whole results
    /// exchange: a server that trickles its messages cannot hold the client longer.
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
    if !super::control_ready(ctrl, timeout, "waiting for the server")? {
        return Ok(None);
    }
    ctrl.set_read_timeout(Some(CONTROL_TIMEOUT))
        .map_err(io("control connection"))?;
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

/// Turn a state the server should not send now into the matching error; the numbers after
/// `SERVER_ERROR` must arrive within `limit` (or before the user stops us).
fn server_state_error(
    ctrl: &TcpStream,
    s: State,
    limit: Duration,
    cancel: Option<&CancellationToken>,
) -> NetError {
    match s {
        State::AccessDenied => NetError::Busy,
        State::ServerTerminate => NetError::ServerTerminated,
        State::ServerError => match proto::read_server_error(&mut DeadlineRead::new(
            ctrl,
            Instant::now() + limit,
            cancel,
        )) {
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

/// The control connection once the server has answered the cookie.
struct Control {
    ctrl: TcpStream,
    /// The server's address (data connections go there too).
    server: SocketAddr,
    cookie: Cookie,
    /// The server's first state byte.
    first_state: State,
}

/// Connect: the control connection, our cookie, and the server's first answer.
///
/// iperf3 3.12 closes and reopens its listening socket after each test; a client that
/// connects in that instant is reset before it hears anything. Retry that case (and only
/// that case) a few times.
fn connect(
    cfg: &ClientConfig,
    addrs: &[SocketAddr],
    cancel: &CancellationToken,
) -> Result<Control, NetError> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let mut ctrl = connect_control(cfg, addrs)?;
        let server = ctrl.peer_addr().map_err(io("control connection"))?;
        ctrl.set_nodelay(true).map_err(io("TCP_NODELAY"))?;
        ctrl.set_read_timeout(Some(CONTROL_TIMEOUT))
            .map_err(io("control connection"))?;
        ctrl.set_write_timeout(Some(CONTROL_TIMEOUT))
            .map_err(io("control connection"))?;
        let cookie = Cookie::random();
        match greet(&mut ctrl, &cookie, server, cfg, cancel) {
            Ok(first_state) => {
                return Ok(Control {
                    ctrl,
                    server,
                    cookie,
                    first_state,
                });
            }
            Err(e) if attempt < 3 && reset_before_reply(&e) => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Send the cookie and wait for the server's first state byte.
fn greet(
    ctrl: &mut TcpStream,
    cookie: &Cookie,
    server: SocketAddr,
    cfg: &ClientConfig,
    cancel: &CancellationToken,
) -> Result<State, NetError> {
    proto::write_cookie(ctrl, cookie)?;
    wait_state(ctrl, cancel, cfg.connect_timeout).map_err(|e| match e {
        NetError::Timeout(_) => NetError::Timeout(format!(
            "{server} accepted the connection but sent nothing for {} s: is an iperf3 server listening there?",
            cfg.connect_timeout.as_secs_f64()
        )),
        e => e,
    })
}

/// The parameters sent to the server: ours with iperf3's client defaults filled in (the
/// UDP block size from the control connection's MSS).
fn negotiated_params(
    cfg: &ClientConfig,
    mss: Option<u32>,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> TestParams {
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
    params
}

/// Wait for the server's next state while the test is set up, until `deadline` (the
/// whole setup's).
fn wait_setup_state(
    ctrl: &mut TcpStream,
    cfg: &ClientConfig,
    deadline: Instant,
    cancel: &CancellationToken,
) -> Result<State, NetError> {
    let limit = deadline.saturating_duration_since(Instant::now());
    wait_state(ctrl, cancel, limit).map_err(|e| match e {
        NetError::Timeout(_) => NetError::Timeout(format!(
            "the server sent nothing for {} s while the test was being set up",
            cfg.control_timeout.as_secs_f64()
        )),
        NetError::Interrupted => {
            terminate(ctrl);
            NetError::Interrupted
        }
        e => e,
    })
}

/// Negotiate: answer the server's states up to `TEST_RUNNING` (parameters, data
/// connections). Returns the engine over the connected streams and the CPU mark taken at
/// `TEST_START`.
fn negotiate(
    c: &mut Control,
    cfg: &ClientConfig,
    params: &TestParams,
    cancel: &CancellationToken,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<(Engine, CpuMark), NetError> {
    let mut engine: Option<Engine> = None;
    let mut cpu_mark = CpuMark::now();
    let mut next_state = Some(c.first_state);
    // The whole setup, not each message: a server that sends TEST_START every few
    // seconds must not hold the client forever.
    let deadline = Instant::now() + cfg.control_timeout;
    loop {
        if cancel.is_cancelled() {
            terminate(&mut c.ctrl);
            return Err(NetError::Interrupted);
        }
        let state = match next_state.take() {
            Some(s) => s,
            None => wait_setup_state(&mut c.ctrl, cfg, deadline, cancel)?,
        };
        match state {
            State::ParamExchange => {
                proto::write_json(&mut c.ctrl, &params.to_json())?;
                on(NetEvent::Connecting {
                    host: &cfg.host,
                    port: cfg.port,
                    reverse: params.reverse,
                });
            }
            State::CreateStreams => {
                let specs = connect_streams(c, cfg, params, on)?;
                engine = Some(Engine::new(engine_config(params), specs));
            }
            State::TestStart => cpu_mark = CpuMark::now(),
            State::TestRunning => break,
            other => {
                let left = deadline.saturating_duration_since(Instant::now());
                return Err(server_state_error(&c.ctrl, other, left, Some(cancel)));
            }
        }
    }
    match engine {
        Some(e) => Ok((e, cpu_mark)),
        None => Err(NetError::Unexpected(
            "TEST_RUNNING before CREATE_STREAMS".into(),
        )),
    }
}

/// The data plane for the client's side of `params`.
fn engine_config(params: &TestParams) -> EngineConfig {
    EngineConfig {
        protocol: params.protocol,
        blksize: params.blksize() as usize,
        rate_bps: match params.protocol {
            Protocol::Udp => Some(params.bandwidth_bps.unwrap_or(0)),
            Protocol::Tcp => params.bandwidth_bps,
        },
        udp64: params.udp_counters_64bit,
        send_budget: EngineConfig::budget_of(params.bytes, params.blocks, params.blksize()),
    }
}

/// Connect every data stream, sending streams first (the server counts on that order).
fn connect_streams(
    c: &Control,
    cfg: &ClientConfig,
    params: &TestParams,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<Vec<StreamSpec>, NetError> {
    let n = params.parallel as usize;
    let roles: Vec<bool> = match params.direction() {
        Direction::ClientToServer => vec![true; n],
        Direction::ServerToClient => vec![false; n],
        Direction::Bidirectional => [vec![true; n], vec![false; n]].concat(),
    };
    let mut specs = Vec::with_capacity(roles.len());
    for (i, sender) in roles.into_iter().enumerate() {
        let id = stream_id(i);
        let setup = |e: std::io::Error| NetError::StreamSetup {
            id,
            reason: e.to_string(),
        };
        let sock = match params.protocol {
            Protocol::Tcp => {
                let mut s = tcp_connect(&c.server, cfg.bind, cfg.connect_timeout, Some(params))
                    .map_err(setup)?;
                proto::write_cookie(&mut s, &c.cookie)?;
                DataSocket::Tcp(s)
            }
            Protocol::Udp => DataSocket::Udp(
                udp_connect(&c.server, cfg.bind, params, Duration::from_secs(10)).map_err(setup)?,
            ),
        };
        let spec = StreamSpec { id, sender, sock };
        on(NetEvent::StreamConnected(&spec.info()));
        specs.push(spec);
    }
    Ok(specs)
}

/// `-n`/`-k`: the sending side stops at the budget (our senders, or in reverse mode the
/// server's); the test ends when it is sent, or all of it arrived here.
struct BudgetWatch {
    budget: Option<u64>,
    direction: Direction,
    /// Bytes received so far, and when that last changed.
    last_rx: (u64, Instant),
}

/// Reverse `-n`/`-k` over UDP: lost datagrams never arrive, so the received count may
/// stay below the budget after the server has sent it all. Data that stopped coming for
/// this long ends the test too.
const BUDGET_STALL: Duration = Duration::from_secs(2);

impl BudgetWatch {
    fn new(params: &TestParams) -> Self {
        Self {
            budget: EngineConfig::budget_of(params.bytes, params.blocks, params.blksize()),
            direction: params.direction(),
            last_rx: (0, Instant::now()),
        }
    }

    fn done(&mut self, engine: &Engine) -> bool {
        let Some(b) = self.budget else {
            return false;
        };
        if self.direction != Direction::ServerToClient {
            return engine.budget_spent();
        }
        let now = Instant::now();
        let (all, sent) = engine.bytes_so_far();
        let got = all - sent;
        if got != self.last_rx.0 {
            self.last_rx = (got, now);
        }
        got >= b || (got > 0 && now.duration_since(self.last_rx.1) >= BUDGET_STALL)
    }
}

/// Run: data flows until the test's time, the budget or (`-t 0`) the user ends it, while
/// the server is watched for a word. Returns the intervals and whether the user stopped
/// a test that runs until stopped.
fn run_data(
    ctrl: &mut TcpStream,
    cfg: &ClientConfig,
    params: &TestParams,
    engine: &mut Engine,
    cancel: &CancellationToken,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<(Vec<NetInterval>, bool), NetError> {
    let mut budget = BudgetWatch::new(params);
    // `-t 0` without `-n`/`-k`: until stopped, and stopping ends the test with results.
    let until_stopped = params.time_s == 0 && budget.budget.is_none();
    let run_for = (params.time_s > 0).then(|| Duration::from_secs(u64::from(params.time_s)));
    let clock = TestClock::new(Instant::now(), cfg.interval_s, params.omit_s, run_for);
    let step = Duration::from_millis(if budget.budget.is_some() { 5 } else { 50 });
    let mut m = Measurement::new(clock, step);
    let mut stopped = false;
    loop {
        if cancel.is_cancelled() {
            if !until_stopped {
                terminate(ctrl);
                engine.stop_all();
                return Err(NetError::Interrupted);
            }
            stopped = true;
        }
        if let Some(f) = engine.failure() {
            terminate(ctrl);
            engine.stop_all();
            return Err(NetError::StreamLost(f));
        }
        if stopped || (!m.clock().omitting() && budget.done(engine)) {
            break;
        }
        let until = match m.step(engine, on) {
            ClockStep::End => break,
            ClockStep::Again => continue,
            ClockStep::Wait(until) => until,
        };
        let mut wait = until.saturating_duration_since(Instant::now());
        if until_stopped {
            // Wake up at once when stopped.
            wait = wait.min(Duration::from_millis(20));
        }
        match poll_state(ctrl, wait) {
            Ok(None) => {}
            Ok(Some(s)) => {
                let c = (!until_stopped).then_some(cancel);
                let e = server_state_error(ctrl, s, cfg.control_timeout, c);
                return Err(blame(engine, e));
            }
            Err(e) => return Err(blame(engine, e)),
        }
    }
    Ok((m.finish(engine, on), stopped))
}

/// Exchange results: `TEST_END`, then our results for theirs, until `DISPLAY_RESULTS`.
/// Receivers keep draining meanwhile so a sending server never blocks on a full pipe.
/// `stopped`: the user's Ctrl-C ended a test run until stopped; it does not interrupt this.
#[allow(clippy::too_many_arguments)]
fn exchange_results(
    ctrl: &mut TcpStream,
    cfg: &ClientConfig,
    params: &TestParams,
    engine: &mut Engine,
    ours: &PeerResults,
    totals: &[StreamTotals],
    stopped: bool,
    cancel: &CancellationToken,
) -> Result<Option<PeerResults>, NetError> {
    proto::write_state(ctrl, State::TestEnd)?;
    let mut peer: Option<PeerResults> = None;
    // One deadline for the whole exchange, every byte of the server's results included.
    let deadline = Instant::now() + cfg.control_timeout;
    // A Ctrl-C that ended a test run until stopped does not interrupt the exchange.
    let reads_cancel = (!stopped).then_some(cancel);
    loop {
        if cancel.is_cancelled() && !stopped {
            terminate(ctrl);
            return Err(NetError::Interrupted);
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(NetError::Timeout(
                "the server did not send its results".into(),
            ));
        }
        let Some(state) = poll_state(ctrl, (deadline - now).min(Duration::from_millis(200)))?
        else {
            continue;
        };
        match state {
            State::ExchangeResults => {
                proto::write_json(ctrl, &ours.to_json())?;
                let body = proto::read_frame(
                    &mut DeadlineRead::new(ctrl, deadline, reads_cancel),
                    MAX_RESULTS_JSON,
                )
                .map_err(|e| match e {
                    proto::ProtoError::Timeout(_) => NetError::Timeout(format!(
                        "the server did not send its results within {} s",
                        cfg.control_timeout.as_secs_f64()
                    )),
                    e => e.into(),
                })?;
                peer = Some(check_peer_results(&body, params, totals)?);
            }
            State::DisplayResults => {
                engine.stop_all();
                engine.shutdown_sockets();
                let _ = proto::write_state(ctrl, State::IperfDone);
                return Ok(peer);
            }
            other => {
                engine.stop_all();
                let left = deadline.saturating_duration_since(Instant::now());
                return Err(server_state_error(ctrl, other, left, reads_cancel));
            }
        }
    }
}

/// The server's results, checked against our streams.
fn check_peer_results(
    body: &[u8],
    params: &TestParams,
    totals: &[StreamTotals],
) -> Result<PeerResults, NetError> {
    let mut theirs = proto::parse_results(body)?;
    // iperf3 3.12 servers keep sending their output once one client asked.
    if !params.get_server_output {
        theirs.server_output_text = None;
    }
    if let Some(s) = theirs
        .streams
        .iter()
        .find(|s| !totals.iter().any(|t| t.id == s.id))
    {
        return Err(NetError::Server(format!(
            "results for unknown stream id {}",
            s.id
        )));
    }
    Ok(theirs)
}

/// Run one test: connect, negotiate, run, exchange results. `on` sees progress (connect
/// lines, intervals) as it happens.
pub fn run_client(
    cfg: &ClientConfig,
    cancel: &CancellationToken,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<TestReport, NetError> {
    let addrs = resolve(&cfg.host, cfg.port)?;
    let mut c = connect(cfg, &addrs, cancel)?;
    let mss = SockRef::from(&c.ctrl).tcp_mss().ok().filter(|&m| m > 0);
    let params = negotiated_params(cfg, mss, on);
    let (timestamp, timesecs) = super::timestamp_now();
    let (mut engine, cpu_mark) = negotiate(&mut c, cfg, &params, cancel, on)?;
    let start = super::start_streams(&mut engine, &params, || Ok(()), on)?;
    let (intervals, stopped) = run_data(&mut c.ctrl, cfg, &params, &mut engine, cancel, on)?;
    let cpu = cpu_mark.util();
    let totals = engine.totals();
    let has_retr = engine.sender_has_retransmits();
    let congestion = engine.congestion();
    let ours = engine::peer_results(
        &cpu,
        params.direction() != Direction::ServerToClient,
        has_retr,
        congestion.clone(),
        &totals,
    );
    let peer = exchange_results(
        &mut c.ctrl,
        cfg,
        &params,
        &mut engine,
        &ours,
        &totals,
        stopped,
        cancel,
    )?;
    Ok(TestReport {
        role: Role::Client,
        params,
        cookie: c.cookie.as_string(),
        peer_host: cfg.host.clone(),
        peer_port: cfg.port,
        tcp_mss_default: mss,
        sndbuf_actual: start.sndbuf,
        rcvbuf_actual: start.rcvbuf,
        streams: start.infos,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An error number we do not know printed `server error - server error -2147483648`.
    #[test]
    fn server_error_with_an_unknown_number_has_one_prefix() {
        let e = NetError::Server(proto::describe_error(i32::MIN, i32::MIN));
        assert_eq!(
            e.to_string(),
            "server error - unknown error number -2147483648"
        );
        let e = NetError::Server(proto::describe_error(proto::ierr::IETOTALRATE, 0));
        assert_eq!(
            e.to_string(),
            "server error - total required bandwidth is larger than server limit"
        );
    }

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
