//! iperf3's output, as pure functions of what a test measured: the interval lines, the
//! sender/receiver summary (byte-for-byte in the layout of iperf3 3.12, including which
//! lines a server leaves out), and the `-J` JSON document.

use std::fmt::Write as _;

use serde::Serialize;

use super::engine::{NetInterval, StreamInfo, StreamInterval, StreamTotals};
use super::proto::{Direction, PeerResults, Protocol};
use super::units::{fmt_bits, fmt_bytes, fmt_g2};
use super::{Role, TestReport};

/// The dashed line between intervals and before the summary.
pub const SEPARATOR: &str = "- - - - - - - - - - - - - - - - - - - - - - - - -\n";
/// Last line of a client run.
pub const DONE: &str = "\niperf Done.\n";

/// What the interval and summary layout depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Iperf3Layout {
    /// Client or server.
    pub role: Role,
    /// TCP or UDP.
    pub protocol: Protocol,
    /// Who sends.
    pub direction: Direction,
    /// Streams per direction (`-P`).
    pub parallel: u32,
}

impl Iperf3Layout {
    /// The layout of a report.
    pub fn of(r: &TestReport) -> Self {
        Self {
            role: r.role,
            protocol: r.params.protocol,
            direction: r.params.direction(),
            parallel: r.params.parallel,
        }
    }

    fn bidir(&self) -> bool {
        self.direction == Direction::Bidirectional
    }

    /// Does this side send (non-bidirectional tests)?
    fn local_sends(&self) -> bool {
        matches!(
            (self.role, self.direction),
            (_, Direction::Bidirectional)
                | (Role::Client, Direction::ClientToServer)
                | (Role::Server, Direction::ServerToClient)
        )
    }

    /// Groups of streams in print order: (streams are senders?) — a client lists its
    /// sending streams first, a server its receiving ones.
    fn groups(&self) -> Vec<bool> {
        if self.bidir() {
            match self.role {
                Role::Client => vec![true, false],
                Role::Server => vec![false, true],
            }
        } else {
            vec![self.local_sends()]
        }
    }

    fn role_tag(&self, sender: bool) -> String {
        if self.bidir() {
            format!(
                "[{}-{}]",
                if sender { "TX" } else { "RX" },
                if self.role == Role::Client { "C" } else { "S" }
            )
        } else {
            String::new()
        }
    }

    fn role_col(&self) -> &'static str {
        if self.bidir() { "[Role]" } else { "" }
    }
}

fn stream_prefix(socket: i32, tag: &str, st: f64, et: f64) -> String {
    format!("[{socket:3}]{tag} {st:6.2}-{et:<6.2} sec")
}

fn sum_prefix(tag: &str, st: f64, et: f64) -> String {
    format!("[SUM]{tag} {st:6.2}-{et:<6.2} sec")
}

fn omitted(o: bool) -> &'static str {
    if o { "(omitted)" } else { "" }
}

/// The column header printed before the first interval.
pub fn interval_header(l: &Iperf3Layout, sender_has_retransmits: bool) -> String {
    let role = l.role_col();
    match l.protocol {
        Protocol::Tcp if sender_has_retransmits => {
            format!("[ ID]{role} Interval           Transfer     Bitrate         Retr  Cwnd\n")
        }
        Protocol::Tcp => format!("[ ID]{role} Interval           Transfer     Bitrate\n"),
        Protocol::Udp if l.bidir() => format!(
            "[ ID]{role} Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
        ),
        Protocol::Udp if l.local_sends() => {
            "[ ID] Interval           Transfer     Bitrate         Total Datagrams\n".to_string()
        }
        Protocol::Udp => {
            "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
                .to_string()
        }
    }
}

fn interval_line(l: &Iperf3Layout, s: &StreamInterval, sender_has_retransmits: bool) -> String {
    let tag = l.role_tag(s.sender);
    let p = stream_prefix(s.socket, &tag, s.start, s.end);
    let bytes = fmt_bytes(s.bytes as f64);
    let rate = fmt_bits(if s.seconds > 0.0 {
        s.bytes as f64 / s.seconds
    } else {
        0.0
    });
    match l.protocol {
        Protocol::Tcp if sender_has_retransmits && s.sender => format!(
            "{p}  {bytes}s  {rate}s/sec  {:3}   {}s       {}\n",
            s.retransmits.unwrap_or(0),
            fmt_bytes(s.snd_cwnd.unwrap_or(0) as f64),
            omitted(s.omitted)
        ),
        Protocol::Tcp => format!(
            "{p}  {bytes}s  {rate}s/sec                  {}\n",
            omitted(s.omitted)
        ),
        Protocol::Udp if s.sender => format!(
            "{p}  {bytes}s  {rate}s/sec {} {}  {}\n",
            if l.bidir() { "          " } else { "" },
            s.packets.unwrap_or(0),
            omitted(s.omitted)
        ),
        Protocol::Udp => format!(
            "{p}  {bytes}s  {rate}s/sec  {:5.3} ms  {}/{} ({}%)  {}\n",
            s.jitter_ms.unwrap_or(0.0),
            s.lost_packets.unwrap_or(0),
            s.packets.unwrap_or(0),
            fmt_g2(s.lost_percent.unwrap_or(0.0)),
            omitted(s.omitted)
        ),
    }
}

/// The lines of one interval: header (first interval) or separator (several streams),
/// one line per stream, and `[SUM]` lines with several streams.
pub fn interval_text(
    l: &Iperf3Layout,
    iv: &NetInterval,
    first: bool,
    sender_has_retransmits: bool,
) -> String {
    let mut out = String::new();
    if iv.streams.is_empty() {
        return out;
    }
    if first {
        out.push_str(&interval_header(l, sender_has_retransmits));
    } else if l.parallel > 1 {
        out.push_str(SEPARATOR);
    }
    let lead = &iv.streams[0];
    for group in l.groups() {
        let mut bytes = 0u64;
        let mut retrans = 0i64;
        let mut packets = 0i64;
        let mut lost = 0i64;
        let mut jitter = 0.0;
        for s in iv.streams.iter().filter(|s| s.sender == group) {
            out.push_str(&interval_line(l, s, sender_has_retransmits));
            bytes += s.bytes;
            retrans += s.retransmits.unwrap_or(0);
            packets += s.packets.unwrap_or(0);
            lost += s.lost_packets.unwrap_or(0);
            jitter += s.jitter_ms.unwrap_or(0.0);
        }
        if l.parallel <= 1 {
            continue;
        }
        let tag = l.role_tag(group);
        let p = sum_prefix(&tag, lead.start, lead.end);
        let b = fmt_bytes(bytes as f64);
        let rate = fmt_bits(if lead.seconds > 0.0 {
            bytes as f64 / lead.seconds
        } else {
            0.0
        });
        let o = omitted(lead.omitted);
        match l.protocol {
            Protocol::Tcp if sender_has_retransmits && group => {
                let _ = writeln!(out, "{p}  {b}s  {rate}s/sec  {retrans:3}             {o}");
            }
            Protocol::Tcp => {
                let _ = writeln!(out, "{p}  {b}s  {rate}s/sec                  {o}");
            }
            Protocol::Udp if group => {
                let z = if l.bidir() { "          " } else { "" };
                let _ = writeln!(out, "{p}  {b}s  {rate}s/sec {z} {packets}  {o}");
            }
            Protocol::Udp => {
                let pct = lost_percent(lost, packets);
                let _ = writeln!(
                    out,
                    "{p}  {b}s  {rate}s/sec  {:5.3} ms  {lost}/{packets} ({}%)  {o}",
                    mean_jitter(jitter, l.parallel),
                    fmt_g2(pct)
                );
            }
        }
    }
    out
}

/// Lost datagrams in percent of `packets` (0 when none were counted).
fn lost_percent(lost: i64, packets: i64) -> f64 {
    if packets > 0 {
        100.0 * lost as f64 / packets as f64
    } else {
        0.0
    }
}

/// iperf3's jitter of a sum line: the streams' jitters added up, divided by the number of
/// streams per direction.
fn mean_jitter(sum: f64, parallel: u32) -> f64 {
    sum / f64::from(parallel.max(1))
}

/// Per-stream summary numbers from both ends' points of view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamSummary {
    /// The stream.
    pub info: StreamInfo,
    /// Bytes the sender sent.
    pub bytes_sent: u64,
    /// Bytes the receiver received.
    pub bytes_received: u64,
    /// TCP retransmits of the sender (`None` when unknown).
    pub retransmits: Option<i64>,
    /// UDP datagrams the sender sent.
    pub sender_packets: i64,
    /// UDP datagrams the receiver counted (highest sequence number).
    pub receiver_packets: i64,
    /// UDP datagrams lost.
    pub lost: i64,
    /// UDP datagrams out of order.
    pub out_of_order: i64,
    /// UDP jitter in ms.
    pub jitter_ms: f64,
    /// Largest congestion window (sending TCP streams measured here).
    pub max_snd_cwnd: u64,
    /// Largest peer window.
    pub max_snd_wnd: u64,
    /// RTT extremes and mean in µs.
    pub max_rtt: u64,
    /// See [`StreamSummary::max_rtt`].
    pub min_rtt: u64,
    /// See [`StreamSummary::max_rtt`].
    pub mean_rtt: u64,
}

/// The summary of a test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Seconds the senders ran (iperf3 takes it from the first stream).
    pub sender_time_s: f64,
    /// Seconds the receivers ran.
    pub receiver_time_s: f64,
    /// Per stream, in stream order.
    pub streams: Vec<StreamSummary>,
    /// Our sending streams report retransmits.
    pub local_retransmits: bool,
    /// The peer's sending streams report retransmits.
    pub peer_retransmits: bool,
}

impl Summary {
    /// Bytes sent and received by the streams whose sender flag is `sender`.
    pub fn totals(&self, sender: bool) -> (u64, u64) {
        self.streams
            .iter()
            .filter(|s| s.info.sender == sender)
            .fold((0, 0), |(a, b), s| (a + s.bytes_sent, b + s.bytes_received))
    }

    /// Goodput in bit/s as the receivers measured it, for streams whose sender flag is
    /// `sender` (`None` when those streams do not exist).
    pub fn received_bps(&self, sender: bool) -> Option<f64> {
        if !self.streams.iter().any(|s| s.info.sender == sender) || self.receiver_time_s <= 0.0 {
            return None;
        }
        Some(self.totals(sender).1 as f64 * 8.0 / self.receiver_time_s)
    }
}

fn peer_stream(peer: Option<&PeerResults>, id: i64) -> Option<&super::proto::StreamResult> {
    peer.and_then(|p| p.streams.iter().find(|s| s.id == id))
}

/// Combine our totals with the peer's results. A server builds its text summary before
/// the results exchange, as iperf3 does, so it passes `peer = None` for that.
pub fn summarize(
    streams: &[StreamInfo],
    totals: &[StreamTotals],
    peer: Option<&PeerResults>,
    local_retransmits: bool,
) -> Summary {
    let first = totals.first();
    let own_end = first.map(|t| t.end_s).unwrap_or(0.0);
    let peer_time = first
        .and_then(|t| peer_stream(peer, t.id))
        .and_then(|s| Some(s.end_time_s? - s.start_time_s.unwrap_or(0.0)))
        .filter(|&t| t > 0.0);
    let (sender_time_s, receiver_time_s) = match first {
        Some(t) if t.sender => (own_end, peer_time.unwrap_or(own_end)),
        Some(_) => (peer_time.unwrap_or(own_end), own_end),
        None => (0.0, 0.0),
    };
    let mut out = Vec::with_capacity(totals.len());
    for (info, t) in streams.iter().zip(totals) {
        let ps = peer_stream(peer, t.id);
        let (bytes_sent, bytes_received) = if t.sender {
            (t.bytes, ps.map(|p| p.bytes).unwrap_or(0))
        } else {
            (ps.map(|p| p.bytes).unwrap_or(0), t.bytes)
        };
        let retransmits = if t.sender {
            t.retransmits
        } else {
            ps.map(|p| p.retransmits).filter(|&r| r >= 0)
        };
        let (sender_packets, receiver_packets) = if t.sender {
            (t.packets, ps.map(|p| p.packets).unwrap_or(0))
        } else {
            (ps.map(|p| p.packets).unwrap_or(0), t.packets)
        };
        let omitted = t.omitted_packets;
        let (lost, jitter_s) = if t.sender {
            (
                ps.map(|p| p.errors).unwrap_or(0),
                ps.map(|p| p.jitter_s).unwrap_or(0.0),
            )
        } else {
            (t.lost - t.omitted_lost, t.jitter_s)
        };
        out.push(StreamSummary {
            info: info.clone(),
            bytes_sent,
            bytes_received,
            retransmits,
            sender_packets: (sender_packets - omitted).max(0),
            receiver_packets: (receiver_packets - omitted).max(0),
            lost,
            out_of_order: t.out_of_order,
            jitter_ms: jitter_s * 1000.0,
            max_snd_cwnd: t.max_snd_cwnd,
            max_snd_wnd: t.max_snd_wnd,
            max_rtt: t.max_rtt,
            min_rtt: t.min_rtt,
            mean_rtt: t.mean_rtt,
        });
    }
    Summary {
        sender_time_s,
        receiver_time_s,
        streams: out,
        local_retransmits,
        peer_retransmits: peer.is_some_and(|p| p.sender_has_retransmits == 1),
    }
}

fn rate(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 { bytes as f64 / secs } else { 0.0 }
}

/// The summary block iperf3 prints at the end: separator, header, sender and receiver
/// lines per stream and, with several streams, `[SUM]` lines.
pub fn summary_text(l: &Iperf3Layout, s: &Summary) -> String {
    let mut out = String::from(SEPARATOR);
    // Does the sending side of a group report retransmits? A server prints its summary
    // before it has the client's results, so only its own counts.
    let shr = |group_sender: bool| {
        if group_sender {
            s.local_retransmits
        } else {
            l.role == Role::Client && s.peer_retransmits
        }
    };
    let header_retr =
        shr(true) && l.groups().contains(&true) || shr(false) && l.groups().contains(&false);
    summary_header(&mut out, l, header_retr);
    for group in l.groups() {
        let tag = l.role_tag(group);
        for ss in s.streams.iter().filter(|x| x.info.sender == group) {
            stream_summary(&mut out, l, s, ss, &tag, shr(group));
        }
        if l.parallel > 1 {
            group_summary(&mut out, l, s, group, &tag, shr(group));
        }
    }
    out
}

/// The column header of the summary.
fn summary_header(out: &mut String, l: &Iperf3Layout, retr: bool) {
    let role = l.role_col();
    let _ = match l.protocol {
        Protocol::Tcp if retr => writeln!(
            out,
            "[ ID]{role} Interval           Transfer     Bitrate         Retr"
        ),
        Protocol::Tcp => writeln!(out, "[ ID]{role} Interval           Transfer     Bitrate"),
        Protocol::Udp => writeln!(
            out,
            "[ ID]{role} Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams"
        ),
    };
}

/// What follows the transfer and bitrate on a summary line.
enum Tail {
    /// TCP: the retransmits when the side reports them.
    Tcp(Option<i64>),
    /// UDP, sending side: datagrams sent.
    UdpSent(i64),
    /// UDP, receiving side: jitter, lost and total datagrams, and the loss in %.
    UdpReceived {
        jitter_ms: f64,
        lost: i64,
        packets: i64,
        lost_pct: f64,
    },
}

/// One `sender` or `receiver` line after its `[ ID] … sec` prefix `p`.
fn summary_line(out: &mut String, p: &str, bytes: u64, secs: f64, tail: Tail, sender: bool) {
    let b = fmt_bytes(bytes as f64);
    let r = fmt_bits(rate(bytes, secs));
    let side = if sender { "sender" } else { "receiver" };
    let _ = match tail {
        Tail::Tcp(Some(retr)) => writeln!(out, "{p}  {b}s  {r}s/sec  {retr:3}             {side}"),
        Tail::Tcp(None) => writeln!(out, "{p}  {b}s  {r}s/sec                  {side}"),
        Tail::UdpSent(pk) => writeln!(
            out,
            "{p}  {b}s  {r}s/sec  {:5.3} ms  0/{pk} (0%)  {side}",
            0.0
        ),
        Tail::UdpReceived {
            jitter_ms,
            lost,
            packets,
            lost_pct,
        } => writeln!(
            out,
            "{p}  {b}s  {r}s/sec  {jitter_ms:5.3} ms  {lost}/{packets} ({}%)  {side}",
            fmt_g2(lost_pct)
        ),
    };
}

/// A stream's `sender` and `receiver` lines (a server shows only its own side).
fn stream_summary(
    out: &mut String,
    l: &Iperf3Layout,
    s: &Summary,
    ss: &StreamSummary,
    tag: &str,
    shr: bool,
) {
    let server = l.role == Role::Server;
    let (snd_t, rcv_t) = (s.sender_time_s, s.receiver_time_s);
    let sock = ss.info.socket;
    let (sent, received) = match l.protocol {
        Protocol::Tcp => (
            Tail::Tcp(shr.then(|| ss.retransmits.unwrap_or(0))),
            Tail::Tcp(None),
        ),
        Protocol::Udp => (
            Tail::UdpSent(ss.sender_packets),
            Tail::UdpReceived {
                jitter_ms: ss.jitter_ms,
                lost: ss.lost,
                packets: ss.receiver_packets,
                lost_pct: lost_percent(ss.lost, ss.receiver_packets),
            },
        ),
    };
    if !server || ss.info.sender {
        let p = stream_prefix(sock, tag, 0.0, snd_t);
        summary_line(out, &p, ss.bytes_sent, snd_t, sent, true);
    }
    if !server || !ss.info.sender {
        let p = stream_prefix(sock, tag, 0.0, rcv_t);
        summary_line(out, &p, ss.bytes_received, rcv_t, received, false);
    }
}

/// A group's `[SUM]` lines, with `-P` above 1.
fn group_summary(
    out: &mut String,
    l: &Iperf3Layout,
    s: &Summary,
    group: bool,
    tag: &str,
    shr: bool,
) {
    let server = l.role == Role::Server;
    let (snd_t, rcv_t) = (s.sender_time_s, s.receiver_time_s);
    let members: Vec<&StreamSummary> = s
        .streams
        .iter()
        .filter(|x| x.info.sender == group)
        .collect();
    let sum = |f: fn(&StreamSummary) -> i64| members.iter().map(|x| f(x)).sum::<i64>();
    let tot_sent: u64 = members.iter().map(|x| x.bytes_sent).sum();
    let tot_recv: u64 = members.iter().map(|x| x.bytes_received).sum();
    let tot_lost = sum(|x| x.lost);
    let tot_pk = sum(|x| {
        if x.sender_packets > 0 {
            x.sender_packets
        } else {
            x.receiver_packets
        }
    });
    let jitter: f64 = members.iter().map(|x| x.jitter_ms).sum();
    let (sent, received) = match l.protocol {
        Protocol::Tcp => (
            Tail::Tcp(shr.then(|| sum(|x| x.retransmits.unwrap_or(0)))),
            Tail::Tcp(None),
        ),
        Protocol::Udp => (
            Tail::UdpSent(sum(|x| x.sender_packets)),
            Tail::UdpReceived {
                jitter_ms: mean_jitter(jitter, l.parallel),
                lost: tot_lost,
                packets: sum(|x| x.receiver_packets),
                lost_pct: lost_percent(tot_lost, tot_pk),
            },
        ),
    };
    if !server || group {
        let p = sum_prefix(tag, 0.0, snd_t);
        summary_line(out, &p, tot_sent, snd_t, sent, true);
    }
    if !server || !group {
        let p = sum_prefix(tag, 0.0, rcv_t);
        summary_line(out, &p, tot_recv, rcv_t, received, false);
    }
}

/// `Connecting to host …` and, for `-R`, `Reverse mode, …`.
pub fn connecting_text(host: &str, port: u16, reverse: bool) -> String {
    let mut s = format!("Connecting to host {host}, port {port}\n");
    if reverse {
        let _ = writeln!(s, "Reverse mode, remote host {host} is sending");
    }
    s
}

/// `[  5] local … port … connected to … port …`.
pub fn connected_text(i: &StreamInfo) -> String {
    format!(
        "[{:3}] local {} port {} connected to {} port {}\n",
        i.socket, i.local_host, i.local_port, i.remote_host, i.remote_port
    )
}

/// The banner a server prints before each test.
pub fn listening_text(port: u16, test_number: u32) -> String {
    format!(
        "-----------------------------------------------------------\nServer listening on {port} (test #{test_number})\n-----------------------------------------------------------\n"
    )
}

/// The server's own output a client asked for (`--get-server-output`), as iperf3 prints
/// it after the summary. The text comes from the peer: its control characters are
/// escaped so that it cannot move the cursor, clear the screen or retitle the terminal.
pub fn server_output_block(text: &str) -> String {
    format!("\nServer output:\n{}\n", escape_controls(text))
}

pub use crate::output::escape_controls;

/// `Accepted connection from …, port …`.
pub fn accepted_text(host: &str, port: u16) -> String {
    format!("Accepted connection from {host}, port {port}\n")
}

// ---- JSON (`-J`) ----------------------------------------------------------------------

#[derive(Serialize)]
struct JConnected<'a> {
    socket: i32,
    local_host: &'a str,
    local_port: u16,
    remote_host: &'a str,
    remote_port: u16,
}

#[derive(Serialize)]
struct JTimestamp<'a> {
    time: &'a str,
    timesecs: i64,
}

#[derive(Serialize)]
struct JHostPort<'a> {
    host: &'a str,
    port: u16,
}

#[derive(Serialize)]
struct JTestStart {
    protocol: &'static str,
    num_streams: u32,
    blksize: u32,
    omit: u32,
    duration: u32,
    bytes: u64,
    blocks: u64,
    reverse: u8,
    tos: u32,
    target_bitrate: u64,
    bidir: u8,
    fqrate: u64,
    interval: f64,
}

#[derive(Serialize)]
struct JStart<'a> {
    connected: Vec<JConnected<'a>>,
    version: String,
    system_info: &'a str,
    timestamp: JTimestamp<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    connecting_to: Option<JHostPort<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accepted_connection: Option<JHostPort<'a>>,
    cookie: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tcp_mss_default: Option<u32>,
    target_bitrate: u64,
    sock_bufsize: u32,
    sndbuf_actual: u32,
    rcvbuf_actual: u32,
    test_start: JTestStart,
}

#[derive(Serialize, Clone, Default)]
struct JSum {
    start: f64,
    end: f64,
    seconds: f64,
    bytes: u64,
    bits_per_second: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    retransmits: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    jitter_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lost_packets: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    packets: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lost_percent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    omitted: Option<bool>,
    sender: bool,
}

#[derive(Serialize)]
struct JInterval<'a> {
    streams: &'a [StreamInterval],
    sum: JSum,
    #[serde(skip_serializing_if = "Option::is_none")]
    sum_bidir_reverse: Option<JSum>,
}

#[derive(Serialize)]
struct JSide {
    socket: i32,
    start: f64,
    end: f64,
    seconds: f64,
    bytes: u64,
    bits_per_second: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    retransmits: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_snd_cwnd: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_snd_wnd: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_rtt: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_rtt: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_rtt: Option<u64>,
    sender: bool,
}

#[derive(Serialize)]
struct JUdp {
    socket: i32,
    start: f64,
    end: f64,
    seconds: f64,
    bytes: u64,
    bits_per_second: f64,
    jitter_ms: f64,
    lost_packets: i64,
    packets: i64,
    lost_percent: f64,
    out_of_order: i64,
    sender: bool,
}

#[derive(Serialize)]
#[serde(untagged)]
enum JEndStream {
    Tcp { sender: JSide, receiver: JSide },
    Udp { udp: JUdp },
}

#[derive(Serialize)]
struct JCpu {
    host_total: f64,
    host_user: f64,
    host_system: f64,
    remote_total: f64,
    remote_user: f64,
    remote_system: f64,
}

#[derive(Serialize)]
struct JEnd {
    streams: Vec<JEndStream>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sum: Option<JSum>,
    sum_sent: JSum,
    sum_received: JSum,
    #[serde(skip_serializing_if = "Option::is_none")]
    sum_sent_bidir_reverse: Option<JSum>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sum_received_bidir_reverse: Option<JSum>,
    cpu_utilization_percent: JCpu,
    #[serde(skip_serializing_if = "Option::is_none")]
    sender_tcp_congestion: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    receiver_tcp_congestion: Option<String>,
}

#[derive(Serialize)]
struct JDoc<'a> {
    /// `schema`, `schema_version` (docs/RUN-JSON.md); iperf3 parsers ignore them.
    #[serde(flatten)]
    schema: crate::output::schema::Schema,
    start: JStart<'a>,
    intervals: Vec<JInterval<'a>>,
    end: JEnd,
    /// The server's text output, when the client asked for it (`--get-server-output`).
    #[serde(skip_serializing_if = "Option::is_none")]
    server_output_text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    /// Our additions (findings); iperf3 parsers ignore unknown keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    sbc_bench: Option<serde_json::Value>,
}

fn interval_sum(l: &Iperf3Layout, iv: &NetInterval, group: bool, shr: bool) -> Option<JSum> {
    let lead = iv.streams.first()?;
    let members: Vec<&StreamInterval> = iv.streams.iter().filter(|s| s.sender == group).collect();
    if members.is_empty() {
        return None;
    }
    let bytes: u64 = members.iter().map(|s| s.bytes).sum();
    let packets: i64 = members.iter().map(|s| s.packets.unwrap_or(0)).sum();
    let lost: i64 = members.iter().map(|s| s.lost_packets.unwrap_or(0)).sum();
    let jitter: f64 = members.iter().map(|s| s.jitter_ms.unwrap_or(0.0)).sum();
    let udp = l.protocol == Protocol::Udp;
    Some(JSum {
        start: lead.start,
        end: lead.end,
        seconds: lead.seconds,
        bytes,
        bits_per_second: rate(bytes, lead.seconds) * 8.0,
        retransmits: (!udp && shr && group)
            .then(|| members.iter().map(|s| s.retransmits.unwrap_or(0)).sum()),
        jitter_ms: (udp && !group).then_some(mean_jitter(jitter, l.parallel)),
        lost_packets: (udp && !group).then_some(lost),
        packets: udp.then_some(packets),
        lost_percent: (udp && !group).then_some(lost_percent(lost, packets)),
        omitted: Some(lead.omitted),
        sender: group,
    })
}

/// Whether a group's sums carry retransmits: our sending group when our sender reports
/// them, the peer's when the peer's does.
fn group_retransmits(s: &Summary, group: bool) -> bool {
    if group {
        s.local_retransmits
    } else {
        s.peer_retransmits
    }
}

/// iperf3's `-J` document for a finished test; `extra` goes under an `sbc_bench` key.
pub fn json_document(
    r: &TestReport,
    error: Option<&str>,
    extra: Option<serde_json::Value>,
) -> String {
    let l = Iperf3Layout::of(r);
    let s = summarize(
        &r.streams,
        &r.totals,
        r.peer.as_ref(),
        r.sender_has_retransmits,
    );
    let doc = JDoc {
        schema: crate::output::schema::NET,
        start: json_start(r),
        intervals: json_intervals(r, &l, &s),
        end: json_end(r, &l, &s),
        server_output_text: r
            .peer
            .as_ref()
            .and_then(|p| p.server_output_text.as_deref()),
        error,
        sbc_bench: extra,
    };
    tab_indented(&doc)
}

/// Pretty JSON indented with tabs, as iperf3 writes it.
fn tab_indented(doc: &impl Serialize) -> String {
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"\t");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    if doc.serialize(&mut ser).is_err() {
        return "{}".into();
    }
    String::from_utf8(out).unwrap_or_else(|_| "{}".into())
}

/// `intervals`: each with its streams and the sum of the first group (and of the
/// reverse group in a bidirectional test).
fn json_intervals<'a>(r: &'a TestReport, l: &Iperf3Layout, s: &Summary) -> Vec<JInterval<'a>> {
    let groups = l.groups();
    r.intervals
        .iter()
        .map(|iv| {
            let g0 = groups[0];
            JInterval {
                streams: &iv.streams,
                sum: interval_sum(l, iv, g0, group_retransmits(s, g0)).unwrap_or(JSum {
                    omitted: Some(false),
                    sender: g0,
                    ..JSum::default()
                }),
                sum_bidir_reverse: groups
                    .get(1)
                    .and_then(|&g| interval_sum(l, iv, g, group_retransmits(s, g))),
            }
        })
        .collect()
}

/// `start`: connections, versions, the test's parameters.
fn json_start(r: &TestReport) -> JStart<'_> {
    let udp = r.params.protocol == Protocol::Udp;
    JStart {
        connected: r
            .streams
            .iter()
            .map(|i| JConnected {
                socket: i.socket,
                local_host: &i.local_host,
                local_port: i.local_port,
                remote_host: &i.remote_host,
                remote_port: i.remote_port,
            })
            .collect(),
        version: format!(
            "sbc-bench {} (iperf 3.12 protocol)",
            env!("CARGO_PKG_VERSION")
        ),
        system_info: &r.system_info,
        timestamp: JTimestamp {
            time: &r.timestamp,
            timesecs: r.timesecs,
        },
        connecting_to: (r.role == Role::Client).then_some(JHostPort {
            host: &r.peer_host,
            port: r.peer_port,
        }),
        accepted_connection: (r.role == Role::Server).then_some(JHostPort {
            host: &r.peer_host,
            port: r.peer_port,
        }),
        cookie: &r.cookie,
        tcp_mss_default: if udp { None } else { r.tcp_mss_default },
        target_bitrate: r.params.bandwidth_bps.unwrap_or(0),
        sock_bufsize: r.params.window.unwrap_or(0),
        sndbuf_actual: r.sndbuf_actual.unwrap_or(0),
        rcvbuf_actual: r.rcvbuf_actual.unwrap_or(0),
        test_start: JTestStart {
            protocol: r.params.protocol.name(),
            num_streams: r.params.parallel,
            blksize: r.params.blksize(),
            omit: r.params.omit_s,
            duration: r.params.time_s,
            bytes: r.params.bytes,
            blocks: r.params.blocks,
            reverse: u8::from(r.params.reverse),
            tos: r.params.tos.unwrap_or(0),
            target_bitrate: r.params.bandwidth_bps.unwrap_or(0),
            bidir: u8::from(r.params.bidirectional),
            fqrate: r.params.fqrate_bps.unwrap_or(0),
            interval: 1.0,
        },
    }
}

/// One stream's totals under `end.streams`.
fn json_end_stream(ss: &StreamSummary, s: &Summary, udp: bool) -> JEndStream {
    let (snd_t, rcv_t) = (s.sender_time_s, s.receiver_time_s);
    let group = ss.info.sender;
    if udp {
        let pk = if ss.sender_packets > 0 {
            ss.sender_packets
        } else {
            ss.receiver_packets
        };
        return JEndStream::Udp {
            udp: JUdp {
                socket: ss.info.socket,
                start: 0.0,
                end: snd_t,
                seconds: snd_t,
                bytes: ss.bytes_sent,
                bits_per_second: rate(ss.bytes_sent, snd_t) * 8.0,
                jitter_ms: ss.jitter_ms,
                lost_packets: ss.lost,
                packets: pk,
                lost_percent: lost_percent(ss.lost, pk),
                out_of_order: ss.out_of_order,
                sender: group,
            },
        };
    }
    let with_retr = group_retransmits(s, group);
    // TCP_INFO numbers are ours only for our own sending streams.
    let ours = |v: u64| with_retr.then_some(if group { v } else { 0 });
    JEndStream::Tcp {
        sender: JSide {
            socket: ss.info.socket,
            start: 0.0,
            end: snd_t,
            seconds: snd_t,
            bytes: ss.bytes_sent,
            bits_per_second: rate(ss.bytes_sent, snd_t) * 8.0,
            retransmits: with_retr.then(|| ss.retransmits.unwrap_or(0)),
            max_snd_cwnd: ours(ss.max_snd_cwnd),
            max_snd_wnd: ours(ss.max_snd_wnd),
            max_rtt: ours(ss.max_rtt),
            min_rtt: ours(ss.min_rtt),
            mean_rtt: ours(ss.mean_rtt),
            sender: group,
        },
        receiver: JSide {
            socket: ss.info.socket,
            start: 0.0,
            end: rcv_t,
            seconds: snd_t,
            bytes: ss.bytes_received,
            bits_per_second: rate(ss.bytes_received, rcv_t) * 8.0,
            retransmits: None,
            max_snd_cwnd: None,
            max_snd_wnd: None,
            max_rtt: None,
            min_rtt: None,
            mean_rtt: None,
            sender: group,
        },
    }
}

/// The sums of one group of streams (those we send, or those we receive): sent,
/// received and, for UDP, the combined sum. `None` when the group is empty.
fn group_sums(
    s: &Summary,
    l: &Iperf3Layout,
    group: bool,
    udp: bool,
) -> Option<(JSum, JSum, Option<JSum>)> {
    let (snd_t, rcv_t) = (s.sender_time_s, s.receiver_time_s);
    let members: Vec<&StreamSummary> = s
        .streams
        .iter()
        .filter(|x| x.info.sender == group)
        .collect();
    if members.is_empty() {
        return None;
    }
    let sent: u64 = members.iter().map(|x| x.bytes_sent).sum();
    let recv: u64 = members.iter().map(|x| x.bytes_received).sum();
    let retr: i64 = members.iter().map(|x| x.retransmits.unwrap_or(0)).sum();
    let snd_pk: i64 = members.iter().map(|x| x.sender_packets).sum();
    let rcv_pk: i64 = members.iter().map(|x| x.receiver_packets).sum();
    let lost: i64 = members.iter().map(|x| x.lost).sum();
    let jitter = mean_jitter(members.iter().map(|x| x.jitter_ms).sum::<f64>(), l.parallel);
    let tot_pk = if snd_pk > 0 { snd_pk } else { rcv_pk };
    let pct = lost_percent(lost, tot_pk);
    let mk = |t: f64, bytes: u64, retr: Option<i64>, u: Option<(f64, i64, i64, f64)>| JSum {
        start: 0.0,
        end: t,
        seconds: t,
        bytes,
        bits_per_second: rate(bytes, t) * 8.0,
        retransmits: retr,
        jitter_ms: u.map(|x| x.0),
        lost_packets: u.map(|x| x.1),
        packets: u.map(|x| x.2),
        lost_percent: u.map(|x| x.3),
        omitted: None,
        sender: group,
    };
    if udp {
        let mut sum_sent = mk(snd_t, sent, None, Some((0.0, 0, snd_pk, 0.0)));
        sum_sent.sender = true;
        let mut sum_recv = mk(rcv_t, recv, None, Some((jitter, lost, rcv_pk, pct)));
        sum_recv.sender = false;
        let sum = mk(rcv_t, sent, None, Some((jitter, lost, tot_pk, pct)));
        Some((sum_sent, sum_recv, Some(sum)))
    } else {
        let retr = group_retransmits(s, group).then_some(retr);
        Some((
            mk(snd_t, sent, retr, None),
            mk(rcv_t, recv, None, None),
            None,
        ))
    }
}

/// `end`: per-stream totals, the groups' sums, CPU use and congestion control.
fn json_end(r: &TestReport, l: &Iperf3Layout, s: &Summary) -> JEnd {
    let udp = r.params.protocol == Protocol::Udp;
    let groups = l.groups();
    let (sum_sent, sum_received, sum) = group_sums(s, l, groups[0], udp)
        .unwrap_or_else(|| (JSum::default(), JSum::default(), None));
    let rev = groups.get(1).and_then(|&g| group_sums(s, l, g, udp));
    let peer_cpu = r.peer.as_ref();
    let peer_cc = r.peer.as_ref().and_then(|p| p.congestion_used.clone());
    let (snd_cc, rcv_cc) = if udp {
        (None, None)
    } else if groups[0] {
        (r.congestion.clone(), peer_cc)
    } else {
        (peer_cc, r.congestion.clone())
    };
    JEnd {
        streams: s
            .streams
            .iter()
            .map(|ss| json_end_stream(ss, s, udp))
            .collect(),
        sum,
        sum_sent,
        sum_received,
        sum_sent_bidir_reverse: rev.as_ref().map(|x| x.0.clone()),
        sum_received_bidir_reverse: rev.as_ref().map(|x| x.1.clone()),
        cpu_utilization_percent: JCpu {
            host_total: r.cpu.total_pct,
            host_user: r.cpu.user_pct,
            host_system: r.cpu.system_pct,
            remote_total: peer_cpu.map(|p| p.cpu_util_total).unwrap_or(0.0),
            remote_user: peer_cpu.map(|p| p.cpu_util_user).unwrap_or(0.0),
            remote_system: peer_cpu.map(|p| p.cpu_util_system).unwrap_or(0.0),
        },
        sender_tcp_congestion: snd_cc,
        receiver_tcp_congestion: rcv_cc,
    }
}

/// A `-J` document for a test that failed before it produced results.
pub fn json_error(error: &str) -> String {
    let schema = crate::output::schema::NET;
    let v = serde_json::json!({
        "schema": schema.name,
        "schema_version": schema.version,
        "start": {},
        "intervals": [],
        "end": {},
        "error": error,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::net::proto::{StreamResult, TestParams};

    /// `--get-server-output` printed the server's text raw: a server could clear the
    /// screen, retitle the terminal or hide lines with escape sequences.
    #[test]
    fn get_server_output_control_characters_are_escaped() {
        let evil =
            "Accepted\x1b[2J\x1b]0;owned\x07 done\r[ ID]\u{202e}txt\u{9b}31m\x7f\nnext\tline";
        let block = server_output_block(evil);
        assert_eq!(
            block,
            "\nServer output:\nAccepted\\x1b[2J\\x1b]0;owned\\x07 done\\r[ ID]\\u{202e}txt\\x9b31m\\x7f\nnext\tline\n"
        );
        assert!(
            !block
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t')
        );
        // Plain iperf3 text is unchanged.
        let plain = "[  5]   0.00-1.00   sec  1.10 GBytes  9.42 Gbits/sec  receiver\n";
        assert_eq!(escape_controls(plain), plain);
    }

    fn info(socket: i32, id: i64, sender: bool) -> StreamInfo {
        StreamInfo {
            id,
            socket,
            sender,
            local_host: "192.168.81.2".into(),
            local_port: 55603,
            remote_host: "192.168.81.1".into(),
            remote_port: 5201,
        }
    }

    fn tcp_iv(
        socket: i32,
        id: i64,
        sender: bool,
        st: f64,
        bytes: u64,
        retr: i64,
        cwnd: u64,
    ) -> StreamInterval {
        StreamInterval {
            socket,
            id,
            start: st,
            end: st + 1.0,
            seconds: 1.0,
            bytes,
            bits_per_second: bytes as f64 * 8.0,
            retransmits: sender.then_some(retr),
            snd_cwnd: sender.then_some(cwnd),
            snd_wnd: None,
            rtt: None,
            rttvar: None,
            pmtu: None,
            jitter_ms: None,
            lost_packets: None,
            packets: None,
            lost_percent: None,
            omitted: false,
            sender,
        }
    }

    /// Tinker Board (RK3288) sending to a PC, from `seeds/arm-boards-iperf3-ja.txt`
    /// (iperf3 of 2018 printed "Bandwidth" where 3.12 prints "Bitrate").
    #[test]
    fn tinker_board_interval_lines() {
        let l = Iperf3Layout {
            role: Role::Client,
            protocol: Protocol::Tcp,
            direction: Direction::ClientToServer,
            parallel: 1,
        };
        let iv = NetInterval {
            streams: vec![tcp_iv(4, 1, true, 0.0, 113 * 1048576, 0, 358 * 1024)],
        };
        let text = interval_text(&l, &iv, true, true);
        assert_eq!(
            text,
            "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n\
             [  4]   0.00-1.00   sec   113 MBytes   948 Mbits/sec    0    358 KBytes       \n"
        );
        // Receiving side, reverse mode: no Retr/Cwnd columns.
        let l = Iperf3Layout {
            direction: Direction::ServerToClient,
            ..l
        };
        let iv = NetInterval {
            streams: vec![tcp_iv(5, 1, false, 1.0, 281 * 1048576, 0, 0)],
        };
        assert_eq!(
            interval_text(&l, &iv, false, false),
            "[  5]   1.00-2.00   sec   281 MBytes  2.36 Gbits/sec                  \n"
        );
    }

    #[test]
    fn rock5_itx_summary_lines() {
        // `iperf3 -c 192.168.81.1 -R` against the ROCK 5 ITX: 2.74 GBytes in 10 s, 15
        // retransmits on the server (sender) side.
        let l = Iperf3Layout {
            role: Role::Client,
            protocol: Protocol::Tcp,
            direction: Direction::ServerToClient,
            parallel: 1,
        };
        let bytes = (2.74 * 1073741824.0) as u64;
        let totals = vec![StreamTotals {
            id: 1,
            sender: false,
            bytes,
            end_s: 10.0,
            ..Default::default()
        }];
        let peer = PeerResults {
            sender_has_retransmits: 1,
            streams: vec![StreamResult {
                id: 1,
                bytes: bytes + 1_000_000,
                retransmits: 15,
                start_time_s: Some(0.0),
                end_time_s: Some(10.0),
                ..Default::default()
            }],
            ..Default::default()
        };
        let s = summarize(&[info(5, 1, false)], &totals, Some(&peer), false);
        assert_eq!(
            summary_text(&l, &s),
            "- - - - - - - - - - - - - - - - - - - - - - - - -\n\
             [ ID] Interval           Transfer     Bitrate         Retr\n\
             [  5]   0.00-10.00  sec  2.74 GBytes  2.35 Gbits/sec   15             sender\n\
             [  5]   0.00-10.00  sec  2.74 GBytes  2.35 Gbits/sec                  receiver\n"
        );
        assert!((s.received_bps(false).unwrap() - bytes as f64 * 0.8).abs() < 1.0);
        // The same test seen by our server: only the sender line, header with Retr.
        let l = Iperf3Layout {
            role: Role::Server,
            ..l
        };
        let server_totals = vec![StreamTotals {
            id: 1,
            sender: true,
            bytes,
            end_s: 10.0,
            retransmits: Some(15),
            ..Default::default()
        }];
        let s = summarize(&[info(5, 1, true)], &server_totals, None, true);
        let t = summary_text(&l, &s);
        assert!(t.ends_with("   15             sender\n"), "{t}");
        assert!(!t.contains("receiver"));
    }

    #[test]
    fn parallel_streams_get_sum_lines_and_separators() {
        let l = Iperf3Layout {
            role: Role::Client,
            protocol: Protocol::Tcp,
            direction: Direction::ServerToClient,
            parallel: 2,
        };
        let iv = NetInterval {
            streams: vec![
                tcp_iv(5, 1, false, 1.0, 1_000_000_000, 0, 0),
                tcp_iv(7, 3, false, 1.0, 500_000_000, 0, 0),
            ],
        };
        let t = interval_text(&l, &iv, false, false);
        assert!(t.starts_with(SEPARATOR));
        assert!(
            t.contains("[SUM]   1.00-2.00   sec  1.40 GBytes  12.0 Gbits/sec                  \n"),
            "{t}"
        );
    }

    #[test]
    fn bidir_role_tags() {
        let l = Iperf3Layout {
            role: Role::Client,
            protocol: Protocol::Tcp,
            direction: Direction::Bidirectional,
            parallel: 1,
        };
        let iv = NetInterval {
            streams: vec![
                tcp_iv(5, 1, true, 0.0, 1_000_000, 1, 3 * 1048576),
                tcp_iv(7, 3, false, 0.0, 1_000_000, 0, 0),
            ],
        };
        let t = interval_text(&l, &iv, true, true);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(
            lines[0],
            "[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd"
        );
        assert!(lines[1].starts_with("[  5][TX-C]   0.00-1.00   sec"));
        assert!(lines[2].starts_with("[  7][RX-C]   0.00-1.00   sec"));
        let s = Iperf3Layout {
            role: Role::Server,
            ..l
        };
        let t = interval_text(&s, &iv, true, true);
        let lines: Vec<&str> = t.lines().collect();
        assert!(
            lines[1].starts_with("[  7][RX-S]"),
            "server lists receivers first"
        );
    }

    #[test]
    fn udp_lines() {
        let l = Iperf3Layout {
            role: Role::Client,
            protocol: Protocol::Udp,
            direction: Direction::ClientToServer,
            parallel: 1,
        };
        let mut iv = tcp_iv(5, 1, true, 0.0, 1_277_952, 0, 0);
        iv.retransmits = None;
        iv.snd_cwnd = None;
        iv.packets = Some(39);
        let t = interval_text(&l, &NetInterval { streams: vec![iv] }, true, false);
        assert_eq!(
            t,
            "[ ID] Interval           Transfer     Bitrate         Total Datagrams\n\
             [  5]   0.00-1.00   sec  1.22 MBytes  10.2 Mbits/sec  39  \n"
        );
        let totals = vec![StreamTotals {
            id: 1,
            sender: true,
            bytes: 2_523_136,
            end_s: 2.0,
            packets: 77,
            ..Default::default()
        }];
        let peer = PeerResults {
            streams: vec![StreamResult {
                id: 1,
                bytes: 2_523_136,
                jitter_s: 0.000008,
                packets: 77,
                start_time_s: Some(0.0),
                end_time_s: Some(2.0),
                ..Default::default()
            }],
            sender_has_retransmits: -1,
            ..Default::default()
        };
        let s = summarize(&[info(5, 1, true)], &totals, Some(&peer), false);
        assert_eq!(
            summary_text(&l, &s),
            "- - - - - - - - - - - - - - - - - - - - - - - - -\n\
             [ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n\
             [  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.000 ms  0/77 (0%)  sender\n\
             [  5]   0.00-2.00   sec  2.41 MBytes  10.1 Mbits/sec  0.008 ms  0/77 (0%)  receiver\n"
        );
    }

    #[test]
    fn json_has_the_fields_iperf3_parsers_read() {
        let r = TestReport {
            role: Role::Client,
            params: TestParams {
                time_s: 1,
                parallel: 1,
                len: Some(131072),
                ..Default::default()
            },
            cookie: "x".into(),
            peer_host: "127.0.0.1".into(),
            peer_port: 5201,
            tcp_mss_default: Some(32768),
            sndbuf_actual: Some(16384),
            rcvbuf_actual: Some(131072),
            streams: vec![info(5, 1, true)],
            intervals: vec![NetInterval {
                streams: vec![tcp_iv(5, 1, true, 0.0, 1000, 2, 100)],
            }],
            totals: vec![StreamTotals {
                id: 1,
                sender: true,
                bytes: 1000,
                end_s: 1.0,
                retransmits: Some(2),
                ..Default::default()
            }],
            peer: Some(PeerResults {
                cpu_util_total: 5.0,
                sender_has_retransmits: -1,
                streams: vec![StreamResult {
                    id: 1,
                    bytes: 900,
                    retransmits: -1,
                    start_time_s: Some(0.0),
                    end_time_s: Some(1.0),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            cpu: Default::default(),
            congestion: Some("cubic".into()),
            sender_has_retransmits: true,
            timestamp: "Mon, 30 Nov 2026 09:02:35 GMT".into(),
            timesecs: 0,
            system_info: "Linux".into(),
        };
        let v: serde_json::Value = serde_json::from_str(&json_document(&r, None, None)).unwrap();
        assert_eq!(v["end"]["sum_sent"]["bytes"], 1000);
        assert_eq!(v["end"]["sum_sent"]["retransmits"], 2);
        assert_eq!(v["end"]["sum_received"]["bytes"], 900);
        assert_eq!(v["end"]["sum_received"]["bits_per_second"], 7200.0);
        assert_eq!(v["end"]["cpu_utilization_percent"]["remote_total"], 5.0);
        assert_eq!(v["end"]["streams"][0]["sender"]["retransmits"], 2);
        assert_eq!(v["intervals"][0]["sum"]["bytes"], 1000);
        assert_eq!(v["intervals"][0]["streams"][0]["snd_cwnd"], 100);
        assert_eq!(v["start"]["test_start"]["protocol"], "TCP");
        assert_eq!(v["start"]["connecting_to"]["port"], 5201);
        assert_eq!(v["end"]["sender_tcp_congestion"], "cubic");
        let e: serde_json::Value = serde_json::from_str(&json_error("boom")).unwrap();
        assert_eq!(e["error"], "boom");
    }
}
