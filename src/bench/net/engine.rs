//! The data plane: one blocking thread per stream moving bytes as fast as the socket
//! takes them (or at the asked rate), counters the control thread samples each interval,
//! and the per-stream totals that go into the results.
//!
//! Sockets are shared with the threads through `Arc`, so the control thread can ask
//! `TCP_INFO` of a stream while it runs without the descriptor ever being closed under it.
//! Every blocking call has a short timeout so a stop request is seen within 100 ms.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::proto::{PeerResults, Protocol, StreamResult};
use super::sockopt;

/// How long a blocked read waits before looking at the stop flags.
pub const POLL: Duration = Duration::from_millis(100);
/// How long a blocked write waits: short, so the senders stop within a few ms of the end
/// of the test and the last interval ends on time.
pub const SEND_POLL: Duration = Duration::from_millis(10);

/// A connected data socket.
#[derive(Debug)]
pub enum DataSocket {
    /// A TCP stream.
    Tcp(TcpStream),
    /// A connected UDP socket.
    Udp(UdpSocket),
}

impl DataSocket {
    fn fd(&self) -> RawFd {
        match self {
            Self::Tcp(s) => s.as_raw_fd(),
            Self::Udp(s) => s.as_raw_fd(),
        }
    }

    fn addrs(&self) -> (Option<SocketAddr>, Option<SocketAddr>) {
        match self {
            Self::Tcp(s) => (s.local_addr().ok(), s.peer_addr().ok()),
            Self::Udp(s) => (s.local_addr().ok(), s.peer_addr().ok()),
        }
    }
}

/// One data stream as reports name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamInfo {
    /// iperf3 stream id (1, 3, 4, …), the key of the results exchange.
    pub id: i64,
    /// The socket's descriptor, which iperf3 prints as `[  5]`.
    pub socket: i32,
    /// This side sends on it.
    pub sender: bool,
    /// Local address.
    pub local_host: String,
    /// Local port.
    pub local_port: u16,
    /// Remote address.
    pub remote_host: String,
    /// Remote port.
    pub remote_port: u16,
}

/// An IPv4-mapped IPv6 address printed as IPv4, as iperf3 does.
pub fn host_string(a: &SocketAddr) -> String {
    match a {
        SocketAddr::V6(v6) => match v6.ip().to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.ip().to_string(),
        },
        SocketAddr::V4(v4) => v4.ip().to_string(),
    }
}

/// A data socket with its role and id, ready to run.
#[derive(Debug)]
pub struct StreamSpec {
    /// Stream id.
    pub id: i64,
    /// This side sends on it.
    pub sender: bool,
    /// The socket.
    pub sock: DataSocket,
}

impl StreamSpec {
    /// Describe the stream.
    pub fn info(&self) -> StreamInfo {
        let (l, r) = self.sock.addrs();
        StreamInfo {
            id: self.id,
            socket: self.sock.fd(),
            sender: self.sender,
            local_host: l.map(|a| host_string(&a)).unwrap_or_default(),
            local_port: l.map(|a| a.port()).unwrap_or(0),
            remote_host: r.map(|a| host_string(&a)).unwrap_or_default(),
            remote_port: r.map(|a| a.port()).unwrap_or(0),
        }
    }
}

/// Numbers of one stream over one interval, in iperf3's JSON field names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamInterval {
    /// Descriptor.
    pub socket: i32,
    /// Stream id.
    #[serde(skip)]
    pub id: i64,
    /// Seconds since the stream's start.
    pub start: f64,
    /// Seconds since the stream's start.
    pub end: f64,
    /// Length of the interval in seconds.
    pub seconds: f64,
    /// Bytes moved.
    pub bytes: u64,
    /// Rate in bit/s.
    pub bits_per_second: f64,
    /// TCP retransmits in this interval (sending TCP streams).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retransmits: Option<i64>,
    /// Congestion window in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snd_cwnd: Option<u64>,
    /// Peer receive window in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snd_wnd: Option<u64>,
    /// Smoothed RTT in µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt: Option<u64>,
    /// RTT variance in µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rttvar: Option<u64>,
    /// Path MTU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmtu: Option<u64>,
    /// UDP jitter in ms (receiving UDP streams).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter_ms: Option<f64>,
    /// UDP datagrams lost in this interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_packets: Option<i64>,
    /// UDP datagrams in this interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<i64>,
    /// Lost / total in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_percent: Option<f64>,
    /// Inside the omit period.
    pub omitted: bool,
    /// This side sends on the stream.
    pub sender: bool,
}

/// One interval of every stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetInterval {
    /// Per stream, in stream order.
    #[serde(default)]
    pub streams: Vec<StreamInterval>,
}

/// What one stream did over the whole test (after the omit period), measured here.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StreamTotals {
    /// Stream id.
    pub id: i64,
    /// This side sent.
    pub sender: bool,
    /// Bytes sent or received.
    pub bytes: u64,
    /// Seconds from the start to the last measurement.
    pub end_s: f64,
    /// TCP retransmits (sending streams with `TCP_INFO`).
    pub retransmits: Option<i64>,
    /// Largest congestion window seen, bytes.
    pub max_snd_cwnd: u64,
    /// Largest peer window seen, bytes.
    pub max_snd_wnd: u64,
    /// Largest RTT seen, µs.
    pub max_rtt: u64,
    /// Smallest RTT seen, µs.
    pub min_rtt: u64,
    /// Mean of the RTTs seen, µs.
    pub mean_rtt: u64,
    /// UDP datagrams sent (sender) or highest sequence number seen (receiver), total.
    pub packets: i64,
    /// UDP datagrams counted in the omit period.
    pub omitted_packets: i64,
    /// UDP datagrams lost (receiver).
    pub lost: i64,
    /// UDP datagrams lost in the omit period.
    pub omitted_lost: i64,
    /// UDP datagrams out of order (receiver).
    pub out_of_order: i64,
    /// UDP jitter in seconds (receiver).
    pub jitter_s: f64,
}

/// The results this side sends its peer when a test ends (iperf3's `EXCHANGE_RESULTS`):
/// its CPU use, whether the sending side knows its retransmits (-1 when this side did not
/// send), the congestion control used and every stream's totals.
pub fn peer_results(
    cpu: &sockopt::CpuUtil,
    this_side_sends: bool,
    sender_has_retransmits: bool,
    congestion: Option<String>,
    totals: &[StreamTotals],
) -> PeerResults {
    PeerResults {
        cpu_util_total: cpu.total_pct,
        cpu_util_user: cpu.user_pct,
        cpu_util_system: cpu.system_pct,
        sender_has_retransmits: if this_side_sends {
            i64::from(sender_has_retransmits)
        } else {
            -1
        },
        congestion_used: congestion,
        streams: totals
            .iter()
            .map(|t| StreamResult {
                id: t.id,
                bytes: t.bytes,
                retransmits: t.retransmits.unwrap_or(-1),
                jitter_s: t.jitter_s,
                errors: t.lost,
                packets: t.packets,
                start_time_s: Some(0.0),
                end_time_s: Some(t.end_s),
            })
            .collect(),
        server_output_text: None,
    }
}

/// Which thread serves which stream (for "which core did the receiver run on").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamThread {
    /// Stream id.
    pub id: i64,
    /// Sending thread.
    pub sender: bool,
    /// Kernel thread id, once the thread runs.
    pub tid: Option<i32>,
}

/// Why a stream stopped before the test ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamFailure {
    /// Stream id.
    pub id: i64,
    /// It was sending.
    pub sender: bool,
    /// The system error, if any.
    pub errno: i32,
    /// A sentence.
    pub message: String,
}

#[derive(Debug, Default)]
struct Counters {
    bytes: AtomicU64,
    packets: AtomicI64,
    lost: AtomicI64,
    out_of_order: AtomicI64,
    jitter_bits: AtomicU64,
    tid: AtomicI32,
}

#[derive(Debug, Default)]
struct Flags {
    counting: AtomicBool,
    stop_send: AtomicBool,
    stop_all: AtomicBool,
    failure: Mutex<Option<StreamFailure>>,
    /// In the omit period: a spent budget waits for the reset at its end.
    omitting: AtomicBool,
    /// Bytes the sending threads have claimed from [`EngineConfig::send_budget`], whole
    /// blocks at a time, all streams together.
    claimed: AtomicU64,
    /// Sending threads that have not yet stopped because the budget is spent.
    senders_left: AtomicUsize,
    /// Senders whose budget ran out in the omit period sleep here until it ends or they
    /// are stopped ([`Flags::wake_senders`]).
    wake_lock: Mutex<()>,
    wake: Condvar,
}

/// What a sending thread may do next under the send budget.
enum Claim {
    /// Send one more block.
    Go,
    /// The budget is spent in the omit period: wait for its reset.
    Wait,
    /// The budget is spent: stop.
    Done,
}

impl Flags {
    /// Claim one block of `blksize` bytes from the shared budget (iperf3's `-n`/`-k`):
    /// a block may start while less than the budget has been claimed, so the streams
    /// together send `ceil(budget / blksize)` blocks, as iperf3 does.
    fn claim(&self, budget: Option<u64>, blksize: u64) -> Claim {
        let Some(budget) = budget else {
            return Claim::Go;
        };
        let before = self.claimed.fetch_add(blksize, Ordering::SeqCst);
        if before < budget {
            return Claim::Go;
        }
        // Give the claim back so the total stays exact.
        self.claimed.fetch_sub(blksize, Ordering::SeqCst);
        if self.omitting.load(Ordering::SeqCst) {
            Claim::Wait
        } else {
            Claim::Done
        }
    }

    /// Wait after a spent budget in the omit period until the period ends (the budget
    /// is reset) or sending stops; `false` to stop. The flags are set before the wake-up
    /// is sent under the same lock, so none is lost; the timeout only bounds the wait.
    fn wait_for_budget(&self) -> bool {
        let held = self.wake_lock.lock().unwrap_or_else(|p| p.into_inner());
        let _held = self
            .wake
            .wait_timeout_while(held, Duration::from_secs(1), |_| {
                self.omitting.load(Ordering::SeqCst) && !self.stop_send.load(Ordering::SeqCst)
            })
            .unwrap_or_else(|p| p.into_inner());
        !self.stop_send.load(Ordering::SeqCst)
    }

    /// Wake senders waiting in [`Flags::wait_for_budget`] (after a flag they wait on
    /// changed).
    fn wake_senders(&self) {
        let _held = self.wake_lock.lock().unwrap_or_else(|p| p.into_inner());
        self.wake.notify_all();
    }

    fn fail(&self, id: i64, sender: bool, what: &str, e: Option<&io::Error>) {
        if !self.counting.load(Ordering::SeqCst) {
            // The test is ending; peers close their sockets at different moments.
            return;
        }
        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            *f = Some(StreamFailure {
                id,
                sender,
                errno: e.and_then(|e| e.raw_os_error()).unwrap_or(0),
                message: match e {
                    Some(e) => format!("{what}: {e}"),
                    None => what.to_string(),
                },
            });
        }
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Last {
    bytes: u64,
    packets: i64,
    lost: i64,
    retrans: u64,
}

#[derive(Debug)]
struct Stream {
    info: StreamInfo,
    sock: Arc<DataSocket>,
    counters: Arc<Counters>,
    handle: Option<JoinHandle<()>>,
    last: Last,
    base: Last,
    base_ooo: i64,
    start: Instant,
    last_tick: Instant,
    retrans_base: Option<u64>,
    max_cwnd: u64,
    max_wnd: u64,
    rtt_min: u64,
    rtt_max: u64,
    rtt_sum: u64,
    rtt_n: u64,
    end_s: f64,
}

/// Settings of the data plane.
#[derive(Debug, Clone, Copy)]
pub struct EngineConfig {
    /// TCP or UDP.
    pub protocol: Protocol,
    /// Bytes per write / datagram.
    pub blksize: usize,
    /// Rate limit per stream in bit/s (`None` = as fast as possible).
    pub rate_bps: Option<u64>,
    /// 64-bit UDP counters.
    pub udp64: bool,
    /// Bytes all sending streams together send before they stop (iperf3's `-n`, or `-k`
    /// times the block size), counted after the omit period; `None`: until stopped.
    pub send_budget: Option<u64>,
}

impl EngineConfig {
    /// The send budget of a test: `-n` bytes, or `-k` blocks of `blksize` bytes.
    pub fn budget_of(bytes: u64, blocks: u64, blksize: u32) -> Option<u64> {
        if bytes > 0 {
            Some(bytes)
        } else if blocks > 0 {
            Some(blocks.saturating_mul(u64::from(blksize.max(1))))
        } else {
            None
        }
    }
}

/// Running streams.
#[derive(Debug)]
pub struct Engine {
    cfg: EngineConfig,
    streams: Vec<Stream>,
    flags: Arc<Flags>,
    omitting: bool,
    started: bool,
    tcp_info_ok: bool,
}

impl Engine {
    /// Take ownership of connected sockets; nothing runs until [`Engine::start`].
    pub fn new(cfg: EngineConfig, specs: Vec<StreamSpec>) -> Self {
        let now = Instant::now();
        let streams = specs
            .into_iter()
            .map(|s| {
                let info = s.info();
                if let DataSocket::Tcp(t) = &s.sock {
                    let _ = t.set_read_timeout(Some(POLL));
                    let _ = t.set_write_timeout(Some(SEND_POLL));
                }
                if let DataSocket::Udp(u) = &s.sock {
                    let _ = u.set_read_timeout(Some(POLL));
                    let _ = u.set_write_timeout(Some(SEND_POLL));
                }
                Stream {
                    info,
                    sock: Arc::new(s.sock),
                    counters: Arc::new(Counters::default()),
                    handle: None,
                    last: Last::default(),
                    base: Last::default(),
                    base_ooo: 0,
                    start: now,
                    last_tick: now,
                    retrans_base: None,
                    max_cwnd: 0,
                    max_wnd: 0,
                    rtt_min: 0,
                    rtt_max: 0,
                    rtt_sum: 0,
                    rtt_n: 0,
                    end_s: 0.0,
                }
            })
            .collect();
        Self {
            cfg,
            streams,
            flags: Arc::new(Flags::default()),
            omitting: false,
            started: false,
            tcp_info_ok: cfg.protocol == Protocol::Tcp,
        }
    }

    /// Streams in order.
    pub fn infos(&self) -> Vec<StreamInfo> {
        self.streams.iter().map(|s| s.info.clone()).collect()
    }

    /// Does a sending stream report retransmits (TCP with `TCP_INFO`)?
    pub fn sender_has_retransmits(&self) -> bool {
        self.cfg.protocol == Protocol::Tcp
            && self.tcp_info_ok
            && self.streams.iter().any(|s| s.info.sender)
    }

    /// Start every stream's thread. `omitting`: the first intervals are the omit period.
    pub fn start(&mut self, omitting: bool) -> io::Result<()> {
        let now = Instant::now();
        self.omitting = omitting;
        self.flags.omitting.store(omitting, Ordering::SeqCst);
        self.flags.counting.store(true, Ordering::SeqCst);
        self.flags.senders_left.store(
            self.streams.iter().filter(|s| s.info.sender).count(),
            Ordering::SeqCst,
        );
        for s in &mut self.streams {
            s.start = now;
            s.last_tick = now;
            if s.info.sender && self.cfg.protocol == Protocol::Tcp {
                match sockopt::tcp_info(s.sock.fd()) {
                    Some(i) => s.retrans_base = Some(i.total_retrans),
                    None => self.tcp_info_ok = false,
                }
            }
        }
        // Each thread says when it runs (its id recorded for the caller's sampler); the
        // test starts when all of them do, without polling for it.
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
        let mut spawned = 0;
        let mut result = Ok(());
        for i in 0..self.streams.len() {
            match self.spawn_stream(i, now, ready_tx.clone()) {
                Ok(h) => {
                    self.streams[i].handle = Some(h);
                    spawned += 1;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        drop(ready_tx);
        // A thread that died before saying so closes its sender: `recv` fails, no hang.
        for _ in 0..spawned {
            if ready_rx.recv().is_err() {
                break;
            }
        }
        self.started = true;
        result
    }

    fn spawn_stream(
        &self,
        i: usize,
        now: Instant,
        ready: std::sync::mpsc::Sender<()>,
    ) -> io::Result<std::thread::JoinHandle<()>> {
        let s = &self.streams[i];
        let sock = Arc::clone(&s.sock);
        let c = Arc::clone(&s.counters);
        let f = Arc::clone(&self.flags);
        let cfg = self.cfg;
        let (id, sender) = (s.info.id, s.info.sender);
        let name = format!("net-{}-{id}", if sender { "tx" } else { "rx" });
        std::thread::Builder::new().name(name).spawn(move || {
            c.tid.store(sockopt::gettid(), Ordering::Relaxed);
            let _ = ready.send(());
            drop(ready);
            match (&*sock, sender) {
                (DataSocket::Tcp(t), true) => tcp_send(t, &c, &f, id, cfg, now),
                (DataSocket::Tcp(t), false) => tcp_recv(t, &c, &f, id, cfg),
                (DataSocket::Udp(u), true) => udp_send(u, &c, &f, id, cfg, now),
                (DataSocket::Udp(u), false) => udp_recv(u, &c, &f, id, cfg),
            }
        })
    }

    /// Which thread serves which stream.
    pub fn threads(&self) -> Vec<StreamThread> {
        self.streams
            .iter()
            .map(|s| {
                let t = s.counters.tid.load(Ordering::Relaxed);
                StreamThread {
                    id: s.info.id,
                    sender: s.info.sender,
                    tid: (t > 0).then_some(t),
                }
            })
            .collect()
    }

    /// The first stream failure, if any.
    pub fn failure(&self) -> Option<StreamFailure> {
        self.flags
            .failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Bytes moved by all streams so far (after the omit period), and by sending streams.
    pub fn bytes_so_far(&self) -> (u64, u64) {
        let mut all = 0;
        let mut sent = 0;
        for s in &self.streams {
            let b = s
                .counters
                .bytes
                .load(Ordering::Relaxed)
                .saturating_sub(s.base.bytes);
            all += b;
            if s.info.sender {
                sent += b;
            }
        }
        (all, sent)
    }

    /// Has the send budget ([`EngineConfig::send_budget`]) been sent in full, every
    /// sending thread stopped? `false` without a budget or without sending streams.
    pub fn budget_spent(&self) -> bool {
        self.cfg.send_budget.is_some()
            && self.started
            && self.streams.iter().any(|s| s.info.sender)
            && self.flags.senders_left.load(Ordering::SeqCst) == 0
    }

    /// Measure the interval since the last tick.
    pub fn tick(&mut self) -> NetInterval {
        self.tick_at(Instant::now())
    }

    /// Stop sending, wait for the senders, and measure the last interval as ending at the
    /// moment the stop was asked: a write issued before the end of the test that completes
    /// a few ms later belongs to the test, and the interval ends on time (`1.00`, not
    /// `1.01`).
    pub fn finish_sending(&mut self) -> NetInterval {
        let at = Instant::now();
        self.stop_senders();
        self.tick_at(at)
    }

    /// Measure the interval since the last tick, as of `now`.
    pub fn tick_at(&mut self, now: Instant) -> NetInterval {
        let omitted = self.omitting;
        let protocol = self.cfg.protocol;
        let mut out = Vec::with_capacity(self.streams.len());
        for s in &mut self.streams {
            let c = &s.counters;
            let bytes = c.bytes.load(Ordering::Relaxed);
            let packets = c.packets.load(Ordering::Relaxed);
            let lost = c.lost.load(Ordering::Relaxed);
            let jitter = f64::from_bits(c.jitter_bits.load(Ordering::Relaxed));
            let d_bytes = bytes.saturating_sub(s.last.bytes);
            let d_packets = packets - s.last.packets;
            let d_lost = lost - s.last.lost;
            let now = now.max(s.last_tick);
            let seconds = now.duration_since(s.last_tick).as_secs_f64();
            let start = s.last_tick.duration_since(s.start).as_secs_f64();
            let end = now.duration_since(s.start).as_secs_f64();
            let mut iv = StreamInterval {
                socket: s.info.socket,
                id: s.info.id,
                start,
                end,
                seconds,
                bytes: d_bytes,
                bits_per_second: if seconds > 0.0 {
                    d_bytes as f64 * 8.0 / seconds
                } else {
                    0.0
                },
                retransmits: None,
                snd_cwnd: None,
                snd_wnd: None,
                rtt: None,
                rttvar: None,
                pmtu: None,
                jitter_ms: None,
                lost_packets: None,
                packets: None,
                lost_percent: None,
                omitted,
                sender: s.info.sender,
            };
            match protocol {
                Protocol::Tcp if s.info.sender => {
                    if let Some(ti) = sockopt::tcp_info(s.sock.fd()) {
                        let prev = s.last.retrans;
                        let base = s.retrans_base.unwrap_or(ti.total_retrans);
                        let total = ti.total_retrans.saturating_sub(base);
                        iv.retransmits = Some(total.saturating_sub(prev) as i64);
                        s.last.retrans = total;
                        iv.snd_cwnd = Some(ti.snd_cwnd_bytes);
                        iv.snd_wnd = Some(ti.snd_wnd_bytes);
                        iv.rtt = Some(ti.rtt_us);
                        iv.rttvar = Some(ti.rttvar_us);
                        iv.pmtu = Some(ti.pmtu);
                        if !omitted {
                            s.max_cwnd = s.max_cwnd.max(ti.snd_cwnd_bytes);
                            s.max_wnd = s.max_wnd.max(ti.snd_wnd_bytes);
                            s.rtt_max = s.rtt_max.max(ti.rtt_us);
                            if s.rtt_min == 0 || ti.rtt_us < s.rtt_min {
                                s.rtt_min = ti.rtt_us;
                            }
                            s.rtt_sum += ti.rtt_us;
                            s.rtt_n += 1;
                        }
                    }
                }
                Protocol::Tcp => {}
                Protocol::Udp if s.info.sender => iv.packets = Some(d_packets),
                Protocol::Udp => {
                    iv.packets = Some(d_packets);
                    iv.lost_packets = Some(d_lost);
                    iv.jitter_ms = Some(jitter * 1000.0);
                    iv.lost_percent = Some(if d_packets > 0 {
                        100.0 * d_lost as f64 / d_packets as f64
                    } else {
                        0.0
                    });
                }
            }
            s.last.bytes = bytes;
            s.last.packets = packets;
            s.last.lost = lost;
            s.last_tick = now;
            s.end_s = end;
            out.push(iv);
        }
        NetInterval { streams: out }
    }

    /// End the omit period: what was counted so far is left out, and times restart at 0.
    pub fn end_omit(&mut self) {
        let now = Instant::now();
        self.omitting = false;
        // The budget counts from here (iperf3 resets its byte count after the omit
        // period); senders waiting on a budget spent while omitting go on.
        self.flags.claimed.store(0, Ordering::SeqCst);
        self.flags.omitting.store(false, Ordering::SeqCst);
        self.flags.wake_senders();
        for s in &mut self.streams {
            let c = &s.counters;
            s.base.bytes = c.bytes.load(Ordering::Relaxed);
            s.base.packets = c.packets.load(Ordering::Relaxed);
            s.base.lost = c.lost.load(Ordering::Relaxed);
            s.base_ooo = c.out_of_order.load(Ordering::Relaxed);
            s.last = Last {
                retrans: 0,
                ..s.base
            };
            if let Some(ti) = s
                .info
                .sender
                .then(|| sockopt::tcp_info(s.sock.fd()))
                .flatten()
            {
                s.retrans_base = Some(ti.total_retrans);
            }
            s.start = now;
            s.last_tick = now;
            s.end_s = 0.0;
        }
    }

    /// Stop sending and wait for the sending threads.
    pub fn stop_senders(&mut self) {
        self.flags.stop_send.store(true, Ordering::SeqCst);
        self.flags.wake_senders();
        for s in &mut self.streams {
            if s.info.sender {
                if let Some(h) = s.handle.take() {
                    let _ = h.join();
                }
            }
        }
    }

    /// Stop counting: what arrives from now on is drained but not measured, and streams
    /// closing are no longer failures.
    pub fn stop_counting(&self) {
        self.flags.counting.store(false, Ordering::SeqCst);
    }

    /// Stop every thread and wait for them.
    pub fn stop_all(&mut self) {
        self.flags.counting.store(false, Ordering::SeqCst);
        self.flags.stop_send.store(true, Ordering::SeqCst);
        self.flags.stop_all.store(true, Ordering::SeqCst);
        self.flags.wake_senders();
        for s in &mut self.streams {
            if let Some(h) = s.handle.take() {
                let _ = h.join();
            }
        }
    }

    /// Close every data socket (after [`Engine::stop_all`]): peers see the end at once.
    pub fn shutdown_sockets(&self) {
        for s in &self.streams {
            if let DataSocket::Tcp(t) = &*s.sock {
                let _ = t.shutdown(std::net::Shutdown::Both);
            }
        }
    }

    /// Totals per stream up to the last [`Engine::tick`].
    pub fn totals(&self) -> Vec<StreamTotals> {
        self.streams
            .iter()
            .map(|s| {
                let c = &s.counters;
                let tcp_sender = self.cfg.protocol == Protocol::Tcp && s.info.sender;
                StreamTotals {
                    id: s.info.id,
                    sender: s.info.sender,
                    bytes: s.last.bytes.saturating_sub(s.base.bytes),
                    end_s: s.end_s,
                    retransmits: (tcp_sender && self.tcp_info_ok).then_some(s.last.retrans as i64),
                    max_snd_cwnd: s.max_cwnd,
                    max_snd_wnd: s.max_wnd,
                    max_rtt: s.rtt_max,
                    min_rtt: s.rtt_min,
                    mean_rtt: s.rtt_sum.checked_div(s.rtt_n).unwrap_or(0),
                    packets: c.packets.load(Ordering::Relaxed),
                    omitted_packets: s.base.packets,
                    lost: c.lost.load(Ordering::Relaxed),
                    omitted_lost: s.base.lost,
                    out_of_order: c.out_of_order.load(Ordering::Relaxed) - s.base_ooo,
                    jitter_s: f64::from_bits(c.jitter_bits.load(Ordering::Relaxed)),
                }
            })
            .collect()
    }

    /// Send and receive buffer sizes of the first stream's socket.
    pub fn first_buffers(&self) -> Option<(u32, u32)> {
        let s = self.streams.first()?;
        let r = match &*s.sock {
            DataSocket::Tcp(t) => socket2::SockRef::from(t),
            DataSocket::Udp(u) => socket2::SockRef::from(u),
        };
        Some((
            r.send_buffer_size().ok()? as u32,
            r.recv_buffer_size().ok()? as u32,
        ))
    }

    /// The congestion control algorithm of the first TCP stream.
    pub fn congestion(&self) -> Option<String> {
        self.streams.first().and_then(|s| match &*s.sock {
            DataSocket::Tcp(t) => sockopt::congestion(t.as_raw_fd()),
            DataSocket::Udp(_) => None,
        })
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if self.started {
            self.stop_all();
        }
    }
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// A payload that does not compress (a NIC or VPN that compresses must not flatter us).
fn payload(len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len.max(1)];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for b in v.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    v
}

/// Rate limiting as iperf3 does it: a stream may send while its average rate since the
/// start is below the target.
fn pace(rate_bps: Option<u64>, start: Instant, sent: u64, flags: &Flags) -> bool {
    let Some(rate) = rate_bps.filter(|&r| r > 0) else {
        return true;
    };
    loop {
        if flags.stop_send.load(Ordering::Relaxed) {
            return false;
        }
        let due = Duration::from_secs_f64(sent as f64 * 8.0 / rate as f64);
        let elapsed = start.elapsed();
        if elapsed >= due {
            return true;
        }
        std::thread::sleep((due - elapsed).min(Duration::from_millis(10)));
    }
}

/// Marks a sending thread as stopped by the spent budget when it returns that way.
struct SenderExit<'a> {
    flags: &'a Flags,
    budget_spent: bool,
}

impl Drop for SenderExit<'_> {
    fn drop(&mut self) {
        if self.budget_spent {
            self.flags.senders_left.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

fn tcp_send(sock: &TcpStream, c: &Counters, f: &Flags, id: i64, cfg: EngineConfig, start: Instant) {
    let buf = payload(cfg.blksize);
    let mut w = sock;
    let mut sent = 0u64;
    let mut exit = SenderExit {
        flags: f,
        budget_spent: false,
    };
    'blocks: while !f.stop_send.load(Ordering::Relaxed) {
        if !pace(cfg.rate_bps, start, sent, f) {
            break;
        }
        match f.claim(cfg.send_budget, buf.len() as u64) {
            Claim::Go => {}
            Claim::Wait => {
                if f.wait_for_budget() {
                    continue;
                }
                break;
            }
            Claim::Done => {
                exit.budget_spent = true;
                break;
            }
        }
        // A whole block, as iperf3 sends it: a short write is completed first.
        let mut off = 0;
        while off < buf.len() {
            match w.write(&buf[off..]) {
                Ok(0) => {
                    f.fail(id, true, "the data connection was closed", None);
                    break 'blocks;
                }
                Ok(n) => {
                    off += n;
                    sent += n as u64;
                    c.bytes.fetch_add(n as u64, Ordering::Relaxed);
                }
                Err(e) if is_timeout(&e) => {
                    if f.stop_send.load(Ordering::Relaxed) {
                        break 'blocks;
                    }
                }
                Err(e) => {
                    f.fail(id, true, "unable to write to the data connection", Some(&e));
                    break 'blocks;
                }
            }
        }
    }
}

fn tcp_recv(sock: &TcpStream, c: &Counters, f: &Flags, id: i64, cfg: EngineConfig) {
    let mut buf = vec![0u8; cfg.blksize.max(1)];
    let mut r = sock;
    while !f.stop_all.load(Ordering::Relaxed) {
        match r.read(&mut buf) {
            Ok(0) => {
                f.fail(id, false, "the peer closed the data connection", None);
                break;
            }
            Ok(n) => {
                if f.counting.load(Ordering::Relaxed) {
                    c.bytes.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
            Err(e) if is_timeout(&e) => {}
            Err(e) => {
                f.fail(
                    id,
                    false,
                    "unable to read from the data connection",
                    Some(&e),
                );
                break;
            }
        }
    }
}

fn udp_send(sock: &UdpSocket, c: &Counters, f: &Flags, id: i64, cfg: EngineConfig, start: Instant) {
    let mut buf = payload(cfg.blksize.max(16));
    let mut sent = 0u64;
    let mut count: u64 = 0;
    let mut exit = SenderExit {
        flags: f,
        budget_spent: false,
    };
    while !f.stop_send.load(Ordering::Relaxed) {
        if !pace(cfg.rate_bps, start, sent, f) {
            break;
        }
        match f.claim(cfg.send_budget, buf.len() as u64) {
            Claim::Go => {}
            Claim::Wait => {
                if f.wait_for_budget() {
                    continue;
                }
                break;
            }
            Claim::Done => {
                exit.budget_spent = true;
                break;
            }
        }
        count += 1;
        let (sec, usec) = sockopt::monotonic_now();
        buf[0..4].copy_from_slice(&sec.to_be_bytes());
        buf[4..8].copy_from_slice(&usec.to_be_bytes());
        if cfg.udp64 {
            buf[8..16].copy_from_slice(&count.to_be_bytes());
        } else {
            buf[8..12].copy_from_slice(&(count as u32).to_be_bytes());
        }
        match sock.send(&buf) {
            Ok(n) => {
                sent += n as u64;
                c.bytes.fetch_add(n as u64, Ordering::Relaxed);
                c.packets.store(count as i64, Ordering::Relaxed);
            }
            Err(e)
                if is_timeout(&e)
                    || e.raw_os_error() == Some(libc::ENOBUFS)
                    || e.kind() == io::ErrorKind::ConnectionRefused =>
            {
                // A full queue or an ICMP "port unreachable" from a previous datagram:
                // this datagram is lost, as with iperf3; its share of the budget is
                // sent again.
                count -= 1;
                if cfg.send_budget.is_some() {
                    f.claimed.fetch_sub(buf.len() as u64, Ordering::SeqCst);
                }
            }
            Err(e) => {
                f.fail(id, true, "unable to send a datagram", Some(&e));
                break;
            }
        }
    }
}

/// Receive-side UDP bookkeeping: loss from sequence gaps, out-of-order packets, and
/// RFC 1889 interarrival jitter (J += (|D| − J) / 16, D the change of transit time).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct UdpRx {
    /// Highest sequence number seen.
    pub packet_count: i64,
    /// Datagrams counted as lost.
    pub lost: i64,
    /// Datagrams that arrived after a later one.
    pub out_of_order: i64,
    /// Jitter in seconds.
    pub jitter_s: f64,
    prev_transit: Option<f64>,
}

impl UdpRx {
    /// Account one datagram with sequence number `seq`, sent at `sent_s` and received at
    /// `arrival_s` (each on its own clock; only differences matter).
    pub fn datagram(&mut self, seq: i64, sent_s: f64, arrival_s: f64) {
        if seq > self.packet_count {
            if seq > self.packet_count + 1 {
                self.lost += seq - 1 - self.packet_count;
            }
            self.packet_count = seq;
        } else {
            self.out_of_order += 1;
            if self.lost > 0 {
                self.lost -= 1;
            }
        }
        let transit = arrival_s - sent_s;
        let prev = self.prev_transit.unwrap_or(transit);
        let d = (transit - prev).abs();
        self.prev_transit = Some(transit);
        self.jitter_s += (d - self.jitter_s) / 16.0;
    }
}

/// Decode a datagram header: (seconds, microseconds, sequence number).
pub fn udp_header(buf: &[u8], udp64: bool) -> Option<(u32, u32, i64)> {
    let sec = u32::from_be_bytes(buf.get(0..4)?.try_into().ok()?);
    let usec = u32::from_be_bytes(buf.get(4..8)?.try_into().ok()?);
    let seq = if udp64 {
        u64::from_be_bytes(buf.get(8..16)?.try_into().ok()?).min(i64::MAX as u64) as i64
    } else {
        i64::from(u32::from_be_bytes(buf.get(8..12)?.try_into().ok()?))
    };
    Some((sec, usec, seq))
}

fn udp_recv(sock: &UdpSocket, c: &Counters, f: &Flags, id: i64, cfg: EngineConfig) {
    let mut buf = vec![0u8; cfg.blksize.max(16) + 64];
    let mut rx = UdpRx::default();
    while !f.stop_all.load(Ordering::Relaxed) {
        match sock.recv(&mut buf) {
            Ok(n) => {
                if !f.counting.load(Ordering::Relaxed) {
                    continue;
                }
                let Some((sec, usec, seq)) = udp_header(&buf[..n], cfg.udp64) else {
                    continue;
                };
                // A stray "connect" datagram or garbage with a sequence number of 0.
                if seq <= 0 {
                    continue;
                }
                c.bytes.fetch_add(n as u64, Ordering::Relaxed);
                let (asec, ausec) = sockopt::monotonic_now();
                rx.datagram(
                    seq,
                    f64::from(sec) + f64::from(usec) / 1e6,
                    f64::from(asec) + f64::from(ausec) / 1e6,
                );
                c.packets.store(rx.packet_count, Ordering::Relaxed);
                c.lost.store(rx.lost, Ordering::Relaxed);
                c.out_of_order.store(rx.out_of_order, Ordering::Relaxed);
                c.jitter_bits
                    .store(rx.jitter_s.to_bits(), Ordering::Relaxed);
            }
            Err(e) if is_timeout(&e) || e.kind() == io::ErrorKind::ConnectionRefused => {}
            Err(e) => {
                f.fail(id, false, "unable to receive a datagram", Some(&e));
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_results_of_both_ends() {
        let cpu = sockopt::CpuUtil {
            total_pct: 12.5,
            user_pct: 2.5,
            system_pct: 10.0,
        };
        let totals = [StreamTotals {
            id: 1,
            sender: true,
            bytes: 1_000_000,
            end_s: 10.0,
            retransmits: Some(7),
            ..Default::default()
        }];
        let sent = peer_results(&cpu, true, true, Some("bbr".into()), &totals);
        assert_eq!(sent.sender_has_retransmits, 1);
        assert_eq!(sent.cpu_util_system, 10.0);
        assert_eq!(sent.congestion_used.as_deref(), Some("bbr"));
        assert_eq!(sent.streams[0].retransmits, 7);
        assert_eq!(sent.streams[0].end_time_s, Some(10.0));
        let received = peer_results(&cpu, false, true, None, &[StreamTotals::default()]);
        assert_eq!(received.sender_has_retransmits, -1);
        assert_eq!(received.streams[0].retransmits, -1);
    }

    #[test]
    fn udp_loss_reordering_and_jitter() {
        let mut rx = UdpRx::default();
        rx.datagram(1, 0.0, 0.010);
        rx.datagram(2, 0.001, 0.011);
        assert!(rx.jitter_s < 1e-12, "constant transit, no jitter");
        rx.datagram(5, 0.004, 0.016); // 3 and 4 missing
        assert_eq!(rx.packet_count, 5);
        assert_eq!(rx.lost, 2);
        rx.datagram(3, 0.002, 0.017); // late: no longer lost
        assert_eq!(rx.lost, 1);
        assert_eq!(rx.out_of_order, 1);
        assert!(rx.jitter_s > 0.0);
    }

    #[test]
    fn headers() {
        let mut b = [0u8; 16];
        b[0..4].copy_from_slice(&7u32.to_be_bytes());
        b[4..8].copy_from_slice(&999_999u32.to_be_bytes());
        b[8..12].copy_from_slice(&42u32.to_be_bytes());
        assert_eq!(udp_header(&b, false), Some((7, 999_999, 42)));
        b[8..16].copy_from_slice(&(1u64 << 40).to_be_bytes());
        assert_eq!(udp_header(&b, true), Some((7, 999_999, 1 << 40)));
        assert_eq!(udp_header(&b[..11], false), None);
        assert_eq!(udp_header(&b[..12], true), None);
        b[8..16].copy_from_slice(&u64::MAX.to_be_bytes());
        assert_eq!(udp_header(&b, true).map(|h| h.2), Some(i64::MAX));
    }

    #[test]
    fn host_strings_unmap_v4() {
        let a: SocketAddr = "[::ffff:192.168.81.1]:5201".parse().unwrap();
        assert_eq!(host_string(&a), "192.168.81.1");
        let b: SocketAddr = "[fe80::1]:5201".parse().unwrap();
        assert_eq!(host_string(&b), "fe80::1");
    }

    /// `-n`: three streams together send whole blocks up to the budget, then stop.
    #[test]
    fn send_budget_is_exact_across_streams() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let blksize = 16 * 1024;
        let budget = 40 * blksize as u64 + 1; // 41 blocks, as iperf3 rounds up
        let mut tx_specs = Vec::new();
        let mut rx_specs = Vec::new();
        for id in 1..=3 {
            let a = TcpStream::connect(l.local_addr().unwrap()).unwrap();
            let (b, _) = l.accept().unwrap();
            tx_specs.push(StreamSpec {
                id,
                sender: true,
                sock: DataSocket::Tcp(a),
            });
            rx_specs.push(StreamSpec {
                id,
                sender: false,
                sock: DataSocket::Tcp(b),
            });
        }
        let cfg = EngineConfig {
            protocol: Protocol::Tcp,
            blksize,
            rate_bps: None,
            udp64: false,
            send_budget: Some(budget),
        };
        let mut rx = Engine::new(cfg, rx_specs);
        let mut tx = Engine::new(cfg, tx_specs);
        assert!(!tx.budget_spent(), "not before the start");
        rx.start(false).unwrap();
        tx.start(false).unwrap();
        let t = Instant::now();
        while !tx.budget_spent() {
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "senders never stopped"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(
            tx.bytes_so_far(),
            (41 * blksize as u64, 41 * blksize as u64)
        );
        tx.finish_sending();
        let sent: u64 = tx.totals().iter().map(|t| t.bytes).sum();
        assert_eq!(sent, 41 * blksize as u64);
        tx.stop_all();
        rx.stop_all();
        assert_eq!(EngineConfig::budget_of(0, 0, 1000), None);
        assert_eq!(EngineConfig::budget_of(5, 7, 1000), Some(5));
        assert_eq!(EngineConfig::budget_of(0, 7, 1000), Some(7000));
    }

    #[test]
    fn loopback_tcp_pair_counts_and_stops() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let a = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (b, _) = l.accept().unwrap();
        let cfg = EngineConfig {
            protocol: Protocol::Tcp,
            blksize: 64 * 1024,
            rate_bps: None,
            udp64: false,
            send_budget: None,
        };
        let mut tx = Engine::new(
            cfg,
            vec![StreamSpec {
                id: 1,
                sender: true,
                sock: DataSocket::Tcp(a),
            }],
        );
        let mut rx = Engine::new(
            cfg,
            vec![StreamSpec {
                id: 1,
                sender: false,
                sock: DataSocket::Tcp(b),
            }],
        );
        rx.start(false).unwrap();
        tx.start(false).unwrap();
        std::thread::sleep(Duration::from_millis(150));
        let iv = tx.tick();
        assert!(iv.streams[0].bytes > 0);
        // TCP_INFO works natively; qemu-user (the aarch64 test runner) lacks it.
        if cfg!(target_arch = "x86_64") {
            assert!(iv.streams[0].retransmits.is_some());
            assert!(tx.sender_has_retransmits());
        }
        tx.stop_senders();
        tx.tick();
        tx.stop_counting();
        std::thread::sleep(Duration::from_millis(50));
        rx.tick();
        let (sent, got) = (tx.totals()[0].bytes, rx.totals()[0].bytes);
        assert!(got > 0 && got <= sent, "{got} of {sent}");
        assert!(rx.failure().is_none());
        assert!(tx.threads()[0].tid.is_some());
        // Closing one end while the other still counts is a failure with a reason.
        tx.stop_all();
        drop(tx);
        std::thread::sleep(Duration::from_millis(300));
        let f = rx.failure().expect("peer closed");
        assert!(f.message.contains("closed"), "{}", f.message);
        rx.stop_all();
    }
}
