//! The server end of an iperf3 test: stock `iperf3 -c` clients (and ours) test against it.
//!
//! It faces the network, so: one test at a time (others are answered `ACCESS_DENIED` at
//! once, as iperf3 does), every message has a deadline for all of its bytes and the whole
//! setup has one too (a client that connects and says nothing, or trickles its messages a
//! byte at a time, is dropped), a test that moves no data either way for `data_idle_timeout`
//! is ended, tests may be capped in length (`max_duration`) and in total bit rate
//! (`bitrate_limit`), messages are size-capped and validated before use
//! ([`super::proto`]), a refused request gets iperf3's `SERVER_ERROR` with the matching
//! error number, and a data connection that breaks ends the test with an error sent to the
//! client. It binds only to the address it is given (default: all, like iperf3).

use std::collections::VecDeque;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use socket2::{Domain, SockRef, Socket, Type};

use super::client::stream_id;
use super::clock::{ClockStep, Measurement, TestClock};
use super::engine::{self, DataSocket, Engine, EngineConfig, NetInterval, StreamSpec, host_string};
use super::proto::{
    self, Cookie, Direction, MAX_PARAMS_JSON, MAX_RESULTS_JSON, PeerResults, ProtoError, Protocol,
    State, TestParams, ierr,
};
use super::report;
use super::sockopt::CpuMark;
use super::{DeadlineRead, NetError, NetEvent, Role, TestReport, io};
use crate::shutdown::CancellationToken;

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to listen on (`None`: every address, IPv6 and IPv4).
    pub bind: Option<IpAddr>,
    /// Port (0 = any free port, for tests).
    pub port: u16,
    /// Serve one test, then return.
    pub one_off: bool,
    /// Seconds between interval reports (0 = none).
    pub interval_s: f64,
    /// Longest wait for all of each message before the test runs (parameters; the
    /// cookie gets at most [`COOKIE_WAIT`]), for the streams to connect, and for the
    /// results at the end.
    pub setup_timeout: Duration,
    /// Longest time from a client's connection to the start of its data, all steps
    /// together.
    pub setup_limit: Duration,
    /// End a test that moved no data either way for this long (a client that stopped
    /// sending, or one that stopped reading what we send); zero: never (`--idle-timeout`).
    pub data_idle_timeout: Duration,
    /// Extra time after the announced duration before a silent client is given up.
    pub grace: Duration,
    /// Refuse tests asked to run longer, and end those without a time (`-t 0`, `-n`,
    /// `-k`) when they reach it (`--max-duration`).
    pub max_duration: Option<Duration>,
    /// Total bit rate of a test, all streams and both directions, averaged over the
    /// given window, above which the test is ended (`--server-bitrate-limit`).
    pub bitrate_limit: Option<(u64, Duration)>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            bind: None,
            port: proto::DEFAULT_PORT,
            one_off: false,
            interval_s: 1.0,
            setup_timeout: Duration::from_secs(10),
            setup_limit: Duration::from_secs(20),
            data_idle_timeout: DEFAULT_IDLE_TIMEOUT,
            grace: Duration::from_secs(40),
            max_duration: None,
            bitrate_limit: None,
        }
    }
}

/// What the acceptor thread does with a new connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The next connection is a control connection.
    Idle,
    /// Connections are data streams of the test with this cookie.
    Streams(Cookie),
    /// A test runs: deny.
    Busy,
}

enum Incoming {
    /// A control connection, and when it was accepted (the setup deadline counts from
    /// there).
    Control(TcpStream, SocketAddr, Instant),
    Data(TcpStream, Cookie),
}

/// Default of [`ServerConfig::data_idle_timeout`].
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a connection arriving while a test ends waits before it is told "busy".
const BUSY_GRACE: Duration = Duration::from_millis(250);
/// Most connections waiting out [`BUSY_GRACE`] at once; later ones are told "busy" at once.
const MAX_PARKED: usize = 4;
/// Longest wait for all of a cookie (37 bytes that a client sends as soon as it is
/// connected).
pub const COOKIE_WAIT: Duration = Duration::from_secs(3);

fn deny(mut s: TcpStream) {
    let _ = s.set_write_timeout(Some(Duration::from_secs(1)));
    let _ = s.write_all(&[State::AccessDenied.byte()]);
}

/// A listening socket with `SO_REUSEADDR`, dual-stack when bound to every address.
pub fn listen(bind: Option<IpAddr>, port: u16) -> Result<TcpListener, NetError> {
    let try_bind = |addr: SocketAddr, v6only: Option<bool>| -> std::io::Result<TcpListener> {
        let s = Socket::new(Domain::for_address(addr), Type::STREAM, None)?;
        s.set_reuse_address(true)?;
        if let Some(v) = v6only {
            s.set_only_v6(v)?;
        }
        s.bind(&addr.into())?;
        s.listen(128)?;
        Ok(s.into())
    };
    let result = match bind {
        Some(ip) => try_bind(SocketAddr::new(ip, port), None),
        None => try_bind(
            SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), port),
            Some(false),
        )
        .or_else(|_| {
            try_bind(
                SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), port),
                None,
            )
        }),
    };
    result.map_err(|e| NetError::Listen {
        addr: match bind {
            Some(ip) => SocketAddr::new(ip, port).to_string(),
            None => format!("*:{port}"),
        },
        source: e,
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn acceptor(
    listener: Arc<TcpListener>,
    phase: Arc<Mutex<Phase>>,
    tx: Sender<Incoming>,
    stop: Arc<AtomicBool>,
    cookie_timeout: Duration,
) {
    // Connections that came while a test ended, waiting out `BUSY_GRACE` (a client
    // running tests back to back connects again while we still close the previous one).
    // The acceptor never sleeps for one: it keeps accepting, and answers the rest at once.
    let mut parked: VecDeque<(TcpStream, SocketAddr, Instant)> = VecDeque::new();
    while !stop.load(Ordering::Relaxed) {
        if !parked.is_empty() {
            let mut ph = lock(&phase);
            if *ph == Phase::Idle {
                if let Some((s, peer, at)) = parked.pop_front() {
                    *ph = Phase::Busy;
                    drop(ph);
                    if tx.send(Incoming::Control(s, peer, at)).is_err() {
                        return;
                    }
                }
            } else {
                drop(ph);
            }
            let now = Instant::now();
            while parked
                .front()
                .is_some_and(|p| now.duration_since(p.2) >= BUSY_GRACE)
            {
                if let Some((s, ..)) = parked.pop_front() {
                    deny(s);
                }
            }
        }
        let wait = if parked.is_empty() { 100 } else { 10 };
        match super::wait_readable(listener.as_raw_fd(), Duration::from_millis(wait)) {
            Ok(true) => {}
            _ => continue,
        }
        let Ok((s, peer)) = listener.accept() else {
            continue;
        };
        let now = Instant::now();
        let current = *lock(&phase);
        match current {
            Phase::Idle => {
                *lock(&phase) = Phase::Busy;
                if tx.send(Incoming::Control(s, peer, now)).is_err() {
                    return;
                }
            }
            Phase::Streams(_) => {
                // Read the cookie here, in accept order: stream ids are assigned in the
                // order the client connected them, so this must not be reordered. A peer
                // that connects and trickles or says nothing holds the queue for
                // `COOKIE_WAIT` at most, all of its bytes together.
                let deadline = now + cookie_timeout.min(COOKIE_WAIT);
                match proto::read_cookie(&mut DeadlineRead::new(&s, deadline, None)) {
                    Ok(c) => {
                        if tx.send(Incoming::Data(s, c)).is_err() {
                            return;
                        }
                    }
                    Err(_) => deny(s),
                }
            }
            Phase::Busy if parked.len() < MAX_PARKED => parked.push_back((s, peer, now)),
            Phase::Busy => deny(s),
        }
    }
}

/// Serve tests until cancelled (or after one with `one_off`). Each finished or failed test
/// is handed to `done`; progress goes to `on`. Returns the number of tests served.
pub fn serve(
    cfg: &ServerConfig,
    cancel: &CancellationToken,
    on: &mut dyn FnMut(NetEvent<'_>),
    done: &mut dyn FnMut(Result<&TestReport, &NetError>),
) -> Result<u32, NetError> {
    let listener = Arc::new(listen(cfg.bind, cfg.port)?);
    serve_on(listener, cfg, cancel, on, done)
}

/// [`serve`] on a listener the caller made (tests bind port 0 and read the port first).
pub fn serve_on(
    listener: Arc<TcpListener>,
    cfg: &ServerConfig,
    cancel: &CancellationToken,
    on: &mut dyn FnMut(NetEvent<'_>),
    done: &mut dyn FnMut(Result<&TestReport, &NetError>),
) -> Result<u32, NetError> {
    let port = listener
        .local_addr()
        .map_err(|e| NetError::Io {
            what: "listener",
            source: e,
        })?
        .port();
    let phase = Arc::new(Mutex::new(Phase::Idle));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let handle = {
        let (l, p, s) = (Arc::clone(&listener), Arc::clone(&phase), Arc::clone(&stop));
        let t = cfg.setup_timeout;
        std::thread::Builder::new()
            .name("net-accept".into())
            .spawn(move || acceptor(l, p, tx, s, t))
            .map_err(|e| NetError::Io {
                what: "starting the acceptor thread",
                source: e,
            })?
    };
    let mut served = 0u32;
    on(NetEvent::Listening {
        port,
        test_number: served + 1,
    });
    while !cancel.is_cancelled() {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(Incoming::Control(mut ctrl, peer, accepted)) => {
                let ctx = Ctx {
                    cfg,
                    listener: &listener,
                    phase: &phase,
                    rx: &rx,
                    cancel,
                    port,
                    test_number: served + 1,
                    setup_end: accepted + cfg.setup_limit,
                };
                let result = run_test(&ctx, &mut ctrl, peer, on);
                // Free before closing: a client that sees the close may connect at once.
                *lock(&phase) = Phase::Idle;
                drop(ctrl);
                served += 1;
                match &result {
                    Ok(r) => done(Ok(r)),
                    Err(e) => done(Err(e)),
                }
                if cfg.one_off || cancel.is_cancelled() {
                    break;
                }
                on(NetEvent::Listening {
                    port,
                    test_number: served + 1,
                });
            }
            // A data connection for a test that is over.
            Ok(Incoming::Data(s, _)) => deny(s),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    stop.store(true, Ordering::SeqCst);
    let _ = handle.join();
    Ok(served)
}

struct Ctx<'a> {
    cfg: &'a ServerConfig,
    listener: &'a TcpListener,
    phase: &'a Mutex<Phase>,
    rx: &'a Receiver<Incoming>,
    cancel: &'a CancellationToken,
    port: u16,
    /// Tests served so far, this one included.
    test_number: u32,
    /// The data must flow by then ([`ServerConfig::setup_limit`]).
    setup_end: Instant,
}

impl Ctx<'_> {
    /// When a message that starts now must be in: `wait` from now, within the setup.
    fn message_deadline(&self, wait: Duration) -> Instant {
        (Instant::now() + wait).min(self.setup_end)
    }
}

/// Restores the listener's socket options when the streams are in.
struct ListenerOpts<'a> {
    sock: SockRef<'a>,
    rcv: Option<usize>,
    snd: Option<usize>,
}

impl<'a> ListenerOpts<'a> {
    /// Data connections inherit buffer sizes from the listening socket, and the window
    /// must be set before the handshake to be scaled, so set it there for this test.
    fn apply(listener: &'a TcpListener, p: &TestParams) -> Self {
        let sock = SockRef::from(listener);
        let mut me = Self {
            rcv: None,
            snd: None,
            sock,
        };
        if let Some(w) = p.window {
            me.rcv = me.sock.recv_buffer_size().ok();
            me.snd = me.sock.send_buffer_size().ok();
            let _ = me.sock.set_recv_buffer_size(w as usize);
            let _ = me.sock.set_send_buffer_size(w as usize);
        }
        if let Some(m) = p.mss {
            let _ = me.sock.set_tcp_mss(m);
        }
        me
    }
}

impl Drop for ListenerOpts<'_> {
    fn drop(&mut self) {
        // The kernel doubles what it is given; halve to restore the original value.
        if let Some(r) = self.rcv {
            let _ = self.sock.set_recv_buffer_size(r / 2);
        }
        if let Some(s) = self.snd {
            let _ = self.sock.set_send_buffer_size(s / 2);
        }
    }
}

/// Send `SERVER_ERROR` (best effort) and turn `e` into the test's error.
fn refuse(ctrl: &mut TcpStream, e: ProtoError, default_errno: i32) -> NetError {
    let _ = proto::write_server_error(ctrl, e.i_errno(default_errno), 0);
    e.into()
}

fn udp_listener(bind: Option<IpAddr>, port: u16, v6: bool) -> std::io::Result<UdpSocket> {
    let ip = bind.unwrap_or(if v6 {
        IpAddr::V6(Ipv6Addr::UNSPECIFIED)
    } else {
        IpAddr::V4(Ipv4Addr::UNSPECIFIED)
    });
    let addr = SocketAddr::new(ip, port);
    let s = Socket::new(Domain::for_address(addr), Type::DGRAM, None)?;
    s.set_reuse_address(true)?;
    if bind.is_none() && v6 {
        s.set_only_v6(false)?;
    }
    s.bind(&addr.into())?;
    Ok(s.into())
}

/// Is there a message (or EOF) on the control connection? Handle what a client may say
/// while streams are set up or data flows.
fn check_control(ctrl: &mut TcpStream, wait: Duration) -> Result<Option<State>, NetError> {
    if !super::control_ready(ctrl, wait, "control connection")? {
        return Ok(None);
    }
    match proto::read_state(ctrl) {
        Ok(State::ClientTerminate) => Err(NetError::ClientTerminated),
        Ok(s) => Ok(Some(s)),
        Err(ProtoError::Closed) => Err(NetError::ControlClosed("client")),
        Err(ProtoError::UnknownState(b)) => {
            let _ = proto::write_server_error(ctrl, ierr::IEMESSAGE, 0);
            Err(NetError::Unexpected(format!("state byte {b}")))
        }
        Err(e) => Err(e.into()),
    }
}

/// What the server prints for one test, from "Accepted connection" to its summary: the
/// text iperf3 sends a client that asked for it (`--get-server-output`, the results'
/// `server_output_text`). Like iperf3 3.12, from the second test on it starts with the
/// "Server listening" banner printed before the test.
pub fn server_output_text(
    (port, test_number): (u16, u32),
    peer: &SocketAddr,
    params: &TestParams,
    streams: &[engine::StreamInfo],
    intervals: &[NetInterval],
    totals: &[engine::StreamTotals],
    sender_has_retransmits: bool,
) -> String {
    let layout = report::Iperf3Layout {
        role: Role::Server,
        protocol: params.protocol,
        direction: params.direction(),
        parallel: params.parallel,
    };
    let mut s = if test_number > 1 {
        report::listening_text(port, test_number)
    } else {
        String::new()
    };
    s.push_str(&report::accepted_text(&host_string(peer), peer.port()));
    for i in streams {
        s.push_str(&report::connected_text(i));
    }
    for (n, iv) in intervals.iter().enumerate() {
        s.push_str(&report::interval_text(
            &layout,
            iv,
            n == 0,
            sender_has_retransmits,
        ));
    }
    let sum = report::summarize(streams, totals, None, sender_has_retransmits);
    s.push_str(&report::summary_text(&layout, &sum));
    s
}

/// Negotiate: the cookie, then the client's parameters. A request that does not parse
/// or validate gets iperf3's `SERVER_ERROR`.
fn negotiate(
    ctx: &Ctx<'_>,
    ctrl: &mut TcpStream,
    peer: SocketAddr,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<(Cookie, TestParams), NetError> {
    let t = Some(ctx.cfg.setup_timeout);
    ctrl.set_nodelay(true).map_err(io("TCP_NODELAY"))?;
    ctrl.set_read_timeout(t).map_err(io("control connection"))?;
    ctrl.set_write_timeout(t)
        .map_err(io("control connection"))?;
    // Every byte of a message by its deadline: a byte every few seconds does not keep
    // the slot.
    let wait = ctx.cfg.setup_timeout.min(COOKIE_WAIT);
    let cancel = Some(ctx.cancel);
    let cookie = proto::read_cookie(&mut DeadlineRead::new(
        ctrl,
        ctx.message_deadline(wait),
        cancel,
    ))?;
    proto::write_state(ctrl, State::ParamExchange)?;
    let deadline = ctx.message_deadline(ctx.cfg.setup_timeout);
    let params = match proto::read_frame(
        &mut DeadlineRead::new(ctrl, deadline, cancel),
        MAX_PARAMS_JSON,
    )
    .and_then(|b| proto::parse_params(&b))
    .and_then(|p| allowed(ctx.cfg, p))
    {
        Ok(p) => p,
        Err(proto::ProtoError::Cancelled) => {
            let _ = proto::write_state(ctrl, State::ServerTerminate);
            return Err(NetError::Interrupted);
        }
        Err(e) => return Err(refuse(ctrl, e, ierr::IERECVPARAMS)),
    };
    on(NetEvent::Accepted {
        host: host_string(&peer),
        port: peer.port(),
    });
    Ok((cookie, params))
}

/// What this server's limits allow of valid parameters: the length (`max_duration`) and
/// the total rate asked (`bitrate_limit`).
fn allowed(cfg: &ServerConfig, p: TestParams) -> Result<TestParams, proto::ProtoError> {
    if let Some(max) = cfg.max_duration {
        if u64::from(p.time_s) > max.as_secs() {
            return Err(proto::ProtoError::Refused {
                i_errno: ierr::IEDURATION,
                msg: format!(
                    "a {} s test asked, this server allows at most {} s",
                    p.time_s,
                    max.as_secs()
                ),
            });
        }
    }
    if let (Some((limit, _)), Some(rate)) = (cfg.bitrate_limit, p.bandwidth_bps) {
        let streams = u64::try_from(Streams::of(&p).total).unwrap_or(u64::MAX);
        let total = rate.saturating_mul(streams);
        if total > limit {
            return Err(proto::ProtoError::Refused {
                i_errno: ierr::IETOTALRATE,
                msg: format!("{total} bit/s asked in all, this server allows {limit}"),
            });
        }
    }
    Ok(p)
}

/// How many data streams a test has, and which are ours to send: receivers come first
/// (the client connects its sending streams first).
#[derive(Debug, Clone, Copy)]
struct Streams {
    receivers: usize,
    total: usize,
}

impl Streams {
    fn of(params: &TestParams) -> Self {
        let n = params.parallel as usize;
        let receivers = if params.direction() == Direction::ServerToClient {
            0
        } else {
            n
        };
        let senders = if params.direction() == Direction::ClientToServer {
            0
        } else {
            n
        };
        Self {
            receivers,
            total: receivers + senders,
        }
    }

    /// Add the next stream to arrive, announced to `on`.
    fn push(
        &self,
        specs: &mut Vec<StreamSpec>,
        sock: DataSocket,
        on: &mut dyn FnMut(NetEvent<'_>),
    ) {
        let i = specs.len();
        let spec = StreamSpec {
            id: stream_id(i),
            sender: i >= self.receivers,
            sock,
        };
        on(NetEvent::StreamConnected(&spec.info()));
        specs.push(spec);
    }
}

/// One look at the clock and the control connection while streams connect: stopped,
/// out of time (`late` says how far it got), or a client that speaks out of turn.
fn setup_check(
    ctx: &Ctx<'_>,
    ctrl: &mut TcpStream,
    deadline: Instant,
    late: impl FnOnce() -> String,
) -> Result<(), NetError> {
    if ctx.cancel.is_cancelled() {
        let _ = proto::write_state(ctrl, State::ServerTerminate);
        return Err(NetError::Interrupted);
    }
    if Instant::now() >= deadline {
        let _ = proto::write_server_error(ctrl, ierr::IESTREAMACCEPT, libc::ETIMEDOUT);
        return Err(NetError::Timeout(late()));
    }
    match check_control(ctrl, Duration::ZERO)? {
        Some(s) => Err(NetError::Unexpected(format!(
            "{} while connecting streams",
            s.wire_name()
        ))),
        None => Ok(()),
    }
}

/// Accept the test's data connections.
fn accept_streams(
    ctx: &Ctx<'_>,
    ctrl: &mut TcpStream,
    peer: SocketAddr,
    (cookie, params): (Cookie, &TestParams),
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<Vec<StreamSpec>, NetError> {
    let n = Streams::of(params);
    let deadline = ctx.message_deadline(ctx.cfg.setup_timeout);
    match params.protocol {
        Protocol::Tcp => accept_tcp(ctx, ctrl, (cookie, params), n, deadline, on),
        Protocol::Udp => accept_udp(ctx, ctrl, peer, n, deadline, on),
    }
}

/// TCP streams come through the acceptor thread, which reads their cookie.
fn accept_tcp(
    ctx: &Ctx<'_>,
    ctrl: &mut TcpStream,
    (cookie, params): (Cookie, &TestParams),
    n: Streams,
    deadline: Instant,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<Vec<StreamSpec>, NetError> {
    let mut specs: Vec<StreamSpec> = Vec::with_capacity(n.total);
    let _opts = ListenerOpts::apply(ctx.listener, params);
    *lock(ctx.phase) = Phase::Streams(cookie);
    proto::write_state(ctrl, State::CreateStreams)?;
    while specs.len() < n.total {
        setup_check(ctx, ctrl, deadline, || {
            format!("{} of {} data connections arrived", specs.len(), n.total)
        })?;
        match ctx.rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Incoming::Data(s, c)) if c == cookie => n.push(&mut specs, DataSocket::Tcp(s), on),
            Ok(Incoming::Data(s, _)) | Ok(Incoming::Control(s, ..)) => deny(s),
            Err(_) => {}
        }
    }
    *lock(ctx.phase) = Phase::Busy;
    Ok(specs)
}

/// UDP streams: each one's first datagram on the listening UDP socket connects that
/// socket to the client; a fresh one listens for the next.
fn accept_udp(
    ctx: &Ctx<'_>,
    ctrl: &mut TcpStream,
    peer: SocketAddr,
    n: Streams,
    deadline: Instant,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<Vec<StreamSpec>, NetError> {
    let mut specs: Vec<StreamSpec> = Vec::with_capacity(n.total);
    let v6 = matches!(ctrl.local_addr(), Ok(SocketAddr::V6(_)));
    let bind = ctx.cfg.bind;
    let mut pending = match udp_listener(bind, ctx.port, v6) {
        Ok(u) => u,
        Err(e) => {
            let _ = proto::write_server_error(ctrl, ierr::IELISTEN, e.raw_os_error().unwrap_or(0));
            return Err(NetError::Listen {
                addr: format!("udp port {}", ctx.port),
                source: e,
            });
        }
    };
    proto::write_state(ctrl, State::CreateStreams)?;
    let mut buf = [0u8; 64];
    while specs.len() < n.total {
        setup_check(ctx, ctrl, deadline, || "UDP streams did not connect".into())?;
        pending
            .set_read_timeout(Some(Duration::from_millis(50)))
            .map_err(io("UDP socket"))?;
        let Ok((_, from)) = pending.recv_from(&mut buf) else {
            continue;
        };
        // Only the client of this test may connect streams.
        if from.ip() != peer.ip() && host_string(&from) != host_string(&peer) {
            continue;
        }
        pending.connect(from).map_err(io("UDP connect"))?;
        let next = udp_listener(bind, ctx.port, v6).map_err(io("UDP listener"))?;
        let stream = std::mem::replace(&mut pending, next);
        stream
            .send(&proto::UDP_CONNECT_REPLY)
            .map_err(io("UDP connect reply"))?;
        n.push(&mut specs, DataSocket::Udp(stream), on);
    }
    Ok(specs)
}

/// Send `SERVER_ERROR` (best effort) and stop every stream.
fn fail(ctrl: &mut TcpStream, engine: &mut Engine, i_errno: i32, errno: i32) {
    let _ = proto::write_server_error(ctrl, i_errno, errno);
    engine.stop_all();
}

/// A test whose streams moved nothing, either way, for `limit` ends: receivers that get
/// nothing, and senders whose peer stopped reading (their writes no longer go anywhere).
struct IdleWatch {
    limit: Duration,
    last: (u64, Instant),
}

impl IdleWatch {
    fn idle(&mut self, engine: &Engine) -> bool {
        let now = Instant::now();
        let (all, _) = engine.bytes_so_far();
        if all != self.last.0 {
            self.last = (all, now);
            return false;
        }
        now.duration_since(self.last.1) >= self.limit
    }
}

/// The total bit rate of a test, averaged over `window`, against the server's limit.
struct RateWatch {
    limit_bps: u64,
    window: Duration,
    /// Byte counts over the last `window`, oldest first.
    samples: VecDeque<(Instant, u64)>,
}

impl RateWatch {
    /// The average rate when it is over the limit (once a whole window was seen).
    fn over(&mut self, engine: &Engine) -> Option<f64> {
        let now = Instant::now();
        let (all, _) = engine.bytes_so_far();
        self.samples.push_back((now, all));
        while self.samples.len() > 2 && now.duration_since(self.samples[1].0) >= self.window {
            self.samples.pop_front();
        }
        let &(t0, b0) = self.samples.front()?;
        let age = now.duration_since(t0);
        if age < self.window || age.is_zero() {
            return None;
        }
        let bps = all.saturating_sub(b0) as f64 * 8.0 / age.as_secs_f64();
        (bps > self.limit_bps as f64).then_some(bps)
    }
}

/// Run: data flows until the client says `TEST_END`; a client that stays silent past the
/// announced time (plus grace), or sends no data for `data_idle_timeout`, is given up.
fn run_data(
    ctx: &Ctx<'_>,
    ctrl: &mut TcpStream,
    engine: &mut Engine,
    params: &TestParams,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<Vec<NetInterval>, NetError> {
    let cfg = ctx.cfg;
    let give_up =
        (params.time_s > 0).then(|| Duration::from_secs(u64::from(params.time_s)) + cfg.grace);
    let clock = TestClock::new(Instant::now(), cfg.interval_s, params.omit_s, give_up);
    let mut m = Measurement::new(clock, Duration::from_millis(50));
    // A paced test may move a block only every so often (`-b 8k -l 128K`: one a
    // minute); that much more is not idle.
    let per_block = params
        .bandwidth_bps
        .filter(|&r| r > 0)
        .map(|r| {
            Duration::from_secs_f64((f64::from(params.blksize()) * 8.0 / r as f64).min(86_400.0))
        })
        .unwrap_or_default();
    let mut idle = (!cfg.data_idle_timeout.is_zero()).then(|| IdleWatch {
        limit: cfg.data_idle_timeout + per_block,
        last: (0, Instant::now()),
    });
    let mut rate = cfg.bitrate_limit.map(|(limit_bps, window)| RateWatch {
        limit_bps,
        window: window.max(Duration::from_millis(100)),
        samples: VecDeque::new(),
    });
    // A test without a time of its own ends at the server's cap.
    let cap = cfg
        .max_duration
        .filter(|_| params.time_s == 0)
        .map(|m| (Instant::now() + m, m));
    loop {
        if ctx.cancel.is_cancelled() {
            let _ = proto::write_state(ctrl, State::ServerTerminate);
            engine.stop_all();
            return Err(NetError::Interrupted);
        }
        if let Some(f) = engine.failure() {
            let code = if f.sender {
                ierr::IESTREAMWRITE
            } else {
                ierr::IESTREAMREAD
            };
            fail(ctrl, engine, code, f.errno);
            return Err(NetError::StreamLost(f));
        }
        if m.clock().ended(Instant::now()) {
            fail(ctrl, engine, ierr::IENOMSG, 0);
            return Err(NetError::Timeout("the client did not end the test".into()));
        }
        if idle.as_mut().is_some_and(|w| w.idle(engine)) {
            fail(ctrl, engine, ierr::IENOMSG, 0);
            return Err(NetError::Timeout(format!(
                "no data moved for {} s",
                cfg.data_idle_timeout.as_secs_f64()
            )));
        }
        if let Some((_, max)) = cap.filter(|c| Instant::now() >= c.0) {
            fail(ctrl, engine, ierr::IEDURATION, 0);
            return Err(NetError::OverLimit(format!(
                "the test reached this server's --max-duration of {} s",
                max.as_secs_f64()
            )));
        }
        if let Some(bps) = rate.as_mut().and_then(|w| w.over(engine)) {
            fail(ctrl, engine, ierr::IETOTALRATE, 0);
            return Err(NetError::OverLimit(format!(
                "the test's total rate of {:.0} bit/s is over this server's limit of {} bit/s",
                bps,
                cfg.bitrate_limit.map(|l| l.0).unwrap_or(0)
            )));
        }
        let until = match m.step(engine, on) {
            // Checked above; the clock may have run out since.
            ClockStep::End | ClockStep::Again => continue,
            ClockStep::Wait(until) => until,
        };
        match check_control(ctrl, until.saturating_duration_since(Instant::now())) {
            Ok(None) | Ok(Some(State::TestStart)) => {}
            Ok(Some(State::TestEnd)) => break,
            Ok(Some(State::IperfDone)) => {
                // A stock client that lost a data connection says IPERF_DONE and leaves.
                engine.stop_all();
                return Err(NetError::PeerEndedEarly("client"));
            }
            Ok(Some(other)) => {
                fail(ctrl, engine, ierr::IEMESSAGE, 0);
                return Err(NetError::Unexpected(format!(
                    "{} during the test",
                    other.wire_name()
                )));
            }
            Err(e) => {
                engine.stop_all();
                return Err(e);
            }
        }
    }
    // TEST_END: the last interval, then results.
    Ok(m.finish(engine, on))
}

/// Exchange results: ask for the client's, check them against our streams, send ours
/// (with the server's output when asked), and let the client display them.
fn exchange_results(
    ctx: &Ctx<'_>,
    ctrl: &mut TcpStream,
    totals: &[engine::StreamTotals],
    ours: PeerResults,
) -> Result<PeerResults, NetError> {
    ctrl.set_read_timeout(Some(ctx.cfg.setup_timeout))
        .map_err(io("control connection"))?;
    proto::write_state(ctrl, State::ExchangeResults)?;
    let deadline = Instant::now() + ctx.cfg.setup_timeout;
    let theirs = match proto::read_frame(
        &mut DeadlineRead::new(ctrl, deadline, Some(ctx.cancel)),
        MAX_RESULTS_JSON,
    )
    .and_then(|b| proto::parse_results(&b))
    {
        Ok(r) => r,
        Err(proto::ProtoError::Cancelled) => {
            let _ = proto::write_state(ctrl, State::ServerTerminate);
            return Err(NetError::Interrupted);
        }
        Err(e) => return Err(refuse(ctrl, e, ierr::IERECVRESULTS)),
    };
    if let Some(bad) = theirs
        .streams
        .iter()
        .find(|s| !totals.iter().any(|t| t.id == s.id))
    {
        let _ = proto::write_server_error(ctrl, ierr::IESTREAMID, 0);
        return Err(NetError::Unexpected(format!(
            "results for unknown stream id {}",
            bad.id
        )));
    }
    proto::write_json(ctrl, &ours.to_json())?;
    proto::write_state(ctrl, State::DisplayResults)?;
    // IPERF_DONE, or the client just closing, both end the test.
    let _ = check_control(ctrl, ctx.cfg.setup_timeout.min(Duration::from_secs(5)));
    Ok(theirs)
}

/// Serve one test on control connection `ctrl`: negotiate, accept the streams, run,
/// exchange results.
fn run_test(
    ctx: &Ctx<'_>,
    ctrl: &mut TcpStream,
    peer: SocketAddr,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<TestReport, NetError> {
    let (cookie, params) = negotiate(ctx, ctrl, peer, on)?;
    let mss = SockRef::from(&ctrl).tcp_mss().ok().filter(|&m| m > 0);
    let (timestamp, timesecs) = super::timestamp_now();
    let specs = accept_streams(ctx, ctrl, peer, (cookie, &params), on)?;
    let mut engine = Engine::new(
        EngineConfig {
            protocol: params.protocol,
            blksize: params.blksize() as usize,
            rate_bps: params.bandwidth_bps,
            udp64: params.udp_counters_64bit,
            send_budget: EngineConfig::budget_of(params.bytes, params.blocks, params.blksize()),
        },
        specs,
    );
    let cpu_mark = CpuMark::now();
    proto::write_state(ctrl, State::TestStart)?;
    let start = super::start_streams(
        &mut engine,
        &params,
        || Ok(proto::write_state(ctrl, State::TestRunning)?),
        on,
    )?;
    let intervals = run_data(ctx, ctrl, &mut engine, &params, on)?;
    let cpu = cpu_mark.util();
    let totals = engine.totals();
    let has_retr = engine.sender_has_retransmits();
    let congestion = engine.congestion();
    engine.stop_all();
    engine.shutdown_sockets();
    let mut ours = engine::peer_results(
        &cpu,
        params.direction() != Direction::ClientToServer,
        has_retr,
        congestion.clone(),
        &totals,
    );
    if params.get_server_output {
        // `iperf3 -c --get-server-output` prints this under "Server output:".
        ours.server_output_text = Some(server_output_text(
            (ctx.port, ctx.test_number),
            &peer,
            &params,
            &start.infos,
            &intervals,
            &totals,
            has_retr,
        ));
    }
    let theirs = exchange_results(ctx, ctrl, &totals, ours)?;
    Ok(TestReport {
        role: Role::Server,
        params,
        cookie: cookie.as_string(),
        peer_host: host_string(&peer),
        peer_port: peer.port(),
        tcp_mss_default: mss,
        sndbuf_actual: start.sndbuf,
        rcvbuf_actual: start.rcvbuf,
        streams: start.infos,
        intervals,
        totals,
        peer: Some(theirs),
        cpu,
        congestion,
        sender_has_retransmits: has_retr,
        timestamp,
        timesecs,
        system_info: super::system_info(),
    })
}
