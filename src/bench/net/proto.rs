//! The iperf3 control protocol (version 3.x), written from its public description.
//!
//! A test runs over one TCP control connection:
//! 1. the client sends a 37-byte cookie (36 random characters and a NUL);
//! 2. the server answers with one state byte, `PARAM_EXCHANGE` (or `ACCESS_DENIED` when
//!    it is busy with another test);
//! 3. the client sends the test parameters as a JSON object, prefixed with its length as a
//!    4-byte big-endian integer;
//! 4. the server sends `CREATE_STREAMS`; the client opens the data connections, each of
//!    which starts with the same cookie (TCP) or a 4-byte "connect" datagram (UDP);
//! 5. `TEST_START`, `TEST_RUNNING` from the server; data flows;
//! 6. the client sends `TEST_END`; the server sends `EXCHANGE_RESULTS`, both sides swap
//!    length-prefixed JSON results (client first), the server sends `DISPLAY_RESULTS` and
//!    the client ends with `IPERF_DONE`.
//!
//! `SERVER_ERROR` is followed by two 4-byte big-endian integers: iperf3's error number and
//! the system `errno`.
//!
//! Everything read from the network is validated here: lengths are checked before any
//! allocation, JSON is size-capped, unknown fields are ignored, and values out of range are
//! refused with the error number iperf3 uses for them.

use std::io::{self, Read, Write};

use serde_json::{Map, Value, json};

/// iperf3's default port.
pub const DEFAULT_PORT: u16 = 5201;
/// Length of the cookie on the wire, NUL included.
pub const COOKIE_SIZE: usize = 37;
/// Largest parameter JSON we accept (iperf3 ≥ 3.17 uses the same cap).
pub const MAX_PARAMS_JSON: usize = 8 * 1024;
/// Largest results JSON we accept (≤ 256 streams of ~200 bytes, plus server output text).
pub const MAX_RESULTS_JSON: usize = 1024 * 1024;
/// Most parallel streams (`-P`).
pub const MAX_STREAMS: u32 = 128;
/// Largest TCP block (`-l`).
pub const MAX_TCP_BLKSIZE: u32 = 1024 * 1024;
/// Largest UDP datagram payload.
pub const MAX_UDP_BLKSIZE: u32 = 65535 - 8 - 20;
/// Smallest UDP datagram payload: the 16-byte header with 64-bit counters.
pub const MIN_UDP_BLKSIZE: u32 = 16;
/// Default TCP block.
pub const DEFAULT_TCP_BLKSIZE: u32 = 128 * 1024;
/// Default UDP datagram when the control connection's MSS is unknown.
pub const DEFAULT_UDP_BLKSIZE: u32 = 1460;
/// Default UDP rate, 1 Mbit/s as iperf3 counts it (1024 × 1024 bit/s).
pub const DEFAULT_UDP_RATE: u64 = 1024 * 1024;
/// Longest test.
pub const MAX_TIME_S: u32 = 86_400;
/// Longest omit period.
pub const MAX_OMIT_S: u32 = 600;
/// Largest socket buffer (`-w`).
pub const MAX_WINDOW: u64 = 512 * 1024 * 1024;
/// Largest MSS (`-M`).
pub const MAX_MSS: u32 = 32 * 1024 - 1;
/// Largest `--burst`.
pub const MAX_BURST: u32 = 1000;

/// UDP "connect" datagram a client sends (the bytes `9876` on the wire).
pub const UDP_CONNECT_MSG: [u8; 4] = *b"9876";
/// The server's reply (`6789`).
pub const UDP_CONNECT_REPLY: [u8; 4] = *b"6789";
/// What servers before 3.9 replied (987654321 in little-endian byte order).
pub const UDP_CONNECT_REPLY_LEGACY: [u8; 4] = [0xb1, 0x68, 0xde, 0x3a];

/// Control states, one signed byte each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Streams are set up; the test is about to start.
    TestStart,
    /// Data flows.
    TestRunning,
    /// The client's end condition was met.
    TestEnd,
    /// Server asks for the parameters.
    ParamExchange,
    /// Server asks the client to open the data connections.
    CreateStreams,
    /// The server was stopped.
    ServerTerminate,
    /// The client was stopped.
    ClientTerminate,
    /// Swap results.
    ExchangeResults,
    /// Print the results.
    DisplayResults,
    /// Server idle, waiting for a client.
    IperfStart,
    /// All done.
    IperfDone,
    /// The server is busy (or the cookie did not match).
    AccessDenied,
    /// The server failed; two error numbers follow.
    ServerError,
}

impl State {
    /// iperf3's name of the state (`IPERF_DONE`), for messages.
    pub fn wire_name(self) -> &'static str {
        match self {
            Self::TestStart => "TEST_START",
            Self::TestRunning => "TEST_RUNNING",
            Self::TestEnd => "TEST_END",
            Self::ParamExchange => "PARAM_EXCHANGE",
            Self::CreateStreams => "CREATE_STREAMS",
            Self::ServerTerminate => "SERVER_TERMINATE",
            Self::ClientTerminate => "CLIENT_TERMINATE",
            Self::ExchangeResults => "EXCHANGE_RESULTS",
            Self::DisplayResults => "DISPLAY_RESULTS",
            Self::IperfStart => "IPERF_START",
            Self::IperfDone => "IPERF_DONE",
            Self::AccessDenied => "ACCESS_DENIED",
            Self::ServerError => "SERVER_ERROR",
        }
    }

    /// The byte on the wire.
    pub fn byte(self) -> u8 {
        let v: i8 = match self {
            Self::TestStart => 1,
            Self::TestRunning => 2,
            Self::TestEnd => 4,
            Self::ParamExchange => 9,
            Self::CreateStreams => 10,
            Self::ServerTerminate => 11,
            Self::ClientTerminate => 12,
            Self::ExchangeResults => 13,
            Self::DisplayResults => 14,
            Self::IperfStart => 15,
            Self::IperfDone => 16,
            Self::AccessDenied => -1,
            Self::ServerError => -2,
        };
        v as u8
    }

    /// Decode a state byte; `None` for values no iperf3 sends (3, 5–8 are defined but
    /// never sent).
    pub fn from_byte(b: u8) -> Option<Self> {
        Some(match b as i8 {
            1 => Self::TestStart,
            2 => Self::TestRunning,
            4 => Self::TestEnd,
            9 => Self::ParamExchange,
            10 => Self::CreateStreams,
            11 => Self::ServerTerminate,
            12 => Self::ClientTerminate,
            13 => Self::ExchangeResults,
            14 => Self::DisplayResults,
            15 => Self::IperfStart,
            16 => Self::IperfDone,
            -1 => Self::AccessDenied,
            -2 => Self::ServerError,
            _ => return None,
        })
    }
}

/// iperf3's error numbers (`i_errno`) that cross the wire after `SERVER_ERROR`.
pub mod ierr {
    /// Test duration too long.
    pub const IEDURATION: i32 = 5;
    /// Too many parallel streams.
    pub const IENUMSTREAMS: i32 = 6;
    /// Block size too large.
    pub const IEBLOCKSIZE: i32 = 7;
    /// Socket buffer too large.
    pub const IEBUFSIZE: i32 = 8;
    /// MSS too large.
    pub const IEMSS: i32 = 10;
    /// Bad omit value.
    pub const IEOMIT: i32 = 12;
    /// Not implemented.
    pub const IEUNIMP: i32 = 13;
    /// Bad burst.
    pub const IEBURST: i32 = 15;
    /// Bad UDP block size.
    pub const IEUDPBLOCKSIZE: i32 = 20;
    /// Reverse and bidirectional together.
    pub const IEREVERSEBIDIR: i32 = 25;
    /// The test would exceed the server's total bit rate limit.
    pub const IETOTALRATE: i32 = 27;
    /// Cannot listen.
    pub const IELISTEN: i32 = 102;
    /// Cannot receive the cookie.
    pub const IERECVCOOKIE: i32 = 106;
    /// Control connection closed.
    pub const IECTRLCLOSE: i32 = 109;
    /// Unknown message.
    pub const IEMESSAGE: i32 = 110;
    /// Cannot receive parameters.
    pub const IERECVPARAMS: i32 = 114;
    /// Cannot receive results.
    pub const IERECVRESULTS: i32 = 117;
    /// The client terminated.
    pub const IECLIENTTERM: i32 = 119;
    /// The server terminated.
    pub const IESERVERTERM: i32 = 120;
    /// The server is busy.
    pub const IEACCESSDENIED: i32 = 121;
    /// Protocol not supported.
    pub const IEPROTOCOL: i32 = 131;
    /// No data for too long.
    pub const IENOMSG: i32 = 144;
    /// Cannot accept a stream.
    pub const IESTREAMACCEPT: i32 = 204;
    /// Cannot write a stream.
    pub const IESTREAMWRITE: i32 = 205;
    /// Cannot read a stream.
    pub const IESTREAMREAD: i32 = 206;
    /// A stream closed unexpectedly.
    pub const IESTREAMCLOSE: i32 = 207;
    /// Unknown stream id in results.
    pub const IESTREAMID: i32 = 208;
}

/// A sentence for an iperf3 error number (and the system errno that may come with it).
pub fn describe_error(i_errno: i32, errno: i32) -> String {
    use ierr::*;
    let base = match i_errno {
        IEDURATION => format!("test duration too long (maximum = {MAX_TIME_S} seconds)"),
        IENUMSTREAMS => format!("number of parallel streams too large (maximum = {MAX_STREAMS})"),
        IEBLOCKSIZE => format!("block size too large (maximum = {MAX_TCP_BLKSIZE} bytes)"),
        IEBUFSIZE => format!("socket buffer size too large (maximum = {MAX_WINDOW} bytes)"),
        IEMSS => format!("TCP MSS too large (maximum = {MAX_MSS} bytes)"),
        IEOMIT => "bogus value for --omit".into(),
        IEUNIMP => "an option in the request is not implemented".into(),
        IEBURST => format!("invalid burst count (maximum = {MAX_BURST})"),
        IEUDPBLOCKSIZE => "block size invalid".into(),
        IEREVERSEBIDIR => "cannot be both reverse and bidirectional".into(),
        IETOTALRATE => "total required bandwidth is larger than server limit".into(),
        IELISTEN => "unable to start listener for connections".into(),
        IERECVCOOKIE => "unable to receive cookie at server".into(),
        IECTRLCLOSE => "control socket has closed unexpectedly".into(),
        IEMESSAGE => "received an unknown control message".into(),
        IERECVPARAMS => "unable to receive parameters from client".into(),
        IERECVRESULTS => "unable to receive results".into(),
        IECLIENTTERM => "the client has terminated".into(),
        IESERVERTERM => "the server has terminated".into(),
        IEACCESSDENIED => "the server is busy running a test. try again later".into(),
        IEPROTOCOL => "protocol does not exist".into(),
        IENOMSG => "idle timeout for receiving data".into(),
        IESTREAMACCEPT => "unable to accept stream connection".into(),
        IESTREAMWRITE => "unable to write to stream socket".into(),
        IESTREAMREAD => "unable to read from stream socket".into(),
        IESTREAMCLOSE => "stream socket has closed unexpectedly".into(),
        IESTREAMID => "stream has an invalid id".into(),
        // The caller says "server error"; this is what follows it.
        n => format!("unknown error number {n}"),
    };
    if errno > 0 {
        format!("{base}: {}", io::Error::from_raw_os_error(errno))
    } else {
        base
    }
}

/// What went wrong on the control connection.
#[derive(Debug, thiserror::Error)]
pub enum ProtoError {
    /// The socket failed.
    #[error("control connection: {0}")]
    Io(io::Error),
    /// The peer closed the connection.
    #[error("the peer closed the control connection")]
    Closed,
    /// Nothing arrived in time.
    #[error("timed out waiting for {0}")]
    Timeout(&'static str),
    /// A length prefix larger than we accept.
    #[error("message of {len} bytes exceeds the limit of {max} bytes")]
    TooLarge {
        /// Announced length.
        len: u64,
        /// Our cap.
        max: usize,
    },
    /// A zero-length JSON message.
    #[error("empty JSON message")]
    Empty,
    /// Not JSON, or not the JSON we need.
    #[error("malformed message: {0}")]
    Malformed(String),
    /// A state byte that is not part of the protocol.
    #[error("unknown control state {0}")]
    UnknownState(i8),
    /// The user stopped us while we waited for the message.
    #[error("interrupted")]
    Cancelled,
    /// A well-formed request we refuse, with the iperf3 error number to send back.
    #[error("{msg}")]
    Refused {
        /// iperf3 error number.
        i_errno: i32,
        /// Why.
        msg: String,
    },
}

impl ProtoError {
    /// The iperf3 error number that best describes this error when sent to the peer.
    pub fn i_errno(&self, default: i32) -> i32 {
        match self {
            Self::Refused { i_errno, .. } => *i_errno,
            _ => default,
        }
    }
}

/// The error a cancelled read fails with (see [`ProtoError::Cancelled`]).
#[derive(Debug)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Cancelled {}

fn map_io(e: io::Error, what: &'static str) -> ProtoError {
    if e.get_ref().is_some_and(|r| r.is::<Cancelled>()) {
        return ProtoError::Cancelled;
    }
    match e.kind() {
        io::ErrorKind::UnexpectedEof => ProtoError::Closed,
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => ProtoError::Timeout(what),
        _ => ProtoError::Io(e),
    }
}

/// The 37-byte test cookie.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Cookie(pub [u8; COOKIE_SIZE]);

impl std::fmt::Debug for Cookie {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cookie({})", self.as_string())
    }
}

impl Cookie {
    /// A fresh random cookie: 36 characters of `a–z2–7` and a NUL, as iperf3 makes them.
    pub fn random() -> Self {
        const CHARS: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
        let mut raw = [0u8; COOKIE_SIZE];
        fill_random(&mut raw);
        let mut out = [0u8; COOKIE_SIZE];
        for (o, r) in out.iter_mut().zip(raw.iter()).take(COOKIE_SIZE - 1) {
            *o = CHARS[(*r % 32) as usize];
        }
        Self(out)
    }

    /// The printable part (up to the first NUL).
    pub fn as_string(&self) -> String {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(COOKIE_SIZE);
        String::from_utf8_lossy(&self.0[..end]).into_owned()
    }
}

/// Random bytes from the kernel; falls back to a time- and address-seeded generator when
/// `getrandom(2)` is unavailable (very old kernels), which is enough for a test cookie.
fn fill_random(buf: &mut [u8]) {
    // SAFETY: getrandom writes at most buf.len() bytes into buf.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) };
    if n == buf.len() as isize {
        return;
    }
    let mut x = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
        ^ (buf.as_ptr() as u64).rotate_left(32)
        ^ u64::from(std::process::id());
    for b in buf.iter_mut() {
        // xorshift64*
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *b = (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
    }
}

/// Read one state byte.
pub fn read_state<R: Read>(r: &mut R) -> Result<State, ProtoError> {
    let mut b = [0u8; 1];
    r.read_exact(&mut b)
        .map_err(|e| map_io(e, "a control message"))?;
    State::from_byte(b[0]).ok_or(ProtoError::UnknownState(b[0] as i8))
}

/// Write one state byte.
pub fn write_state<W: Write>(w: &mut W, s: State) -> Result<(), ProtoError> {
    w.write_all(&[s.byte()])
        .and_then(|_| w.flush())
        .map_err(|e| map_io(e, "the peer to accept a control message"))
}

/// Read a cookie.
pub fn read_cookie<R: Read>(r: &mut R) -> Result<Cookie, ProtoError> {
    let mut c = [0u8; COOKIE_SIZE];
    r.read_exact(&mut c).map_err(|e| map_io(e, "the cookie"))?;
    Ok(Cookie(c))
}

/// Write a cookie.
pub fn write_cookie<W: Write>(w: &mut W, c: &Cookie) -> Result<(), ProtoError> {
    w.write_all(&c.0)
        .and_then(|_| w.flush())
        .map_err(|e| map_io(e, "the peer to accept the cookie"))
}

/// Read a length-prefixed message of at most `max` bytes. The length is checked before
/// anything is allocated.
pub fn read_frame<R: Read>(r: &mut R, max: usize) -> Result<Vec<u8>, ProtoError> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)
        .map_err(|e| map_io(e, "a JSON message"))?;
    let len = u32::from_be_bytes(len) as usize;
    if len == 0 {
        return Err(ProtoError::Empty);
    }
    if len > max {
        return Err(ProtoError::TooLarge {
            len: len as u64,
            max,
        });
    }
    let mut buf = vec![0u8; len];
    r.read_exact(&mut buf)
        .map_err(|e| map_io(e, "the rest of a JSON message"))?;
    Ok(buf)
}

/// Write `v` as a length-prefixed compact JSON message.
pub fn write_json<W: Write>(w: &mut W, v: &Value) -> Result<(), ProtoError> {
    let body = serde_json::to_vec(v).map_err(|e| ProtoError::Malformed(e.to_string()))?;
    let len = u32::try_from(body.len()).map_err(|_| ProtoError::TooLarge {
        len: body.len() as u64,
        max: u32::MAX as usize,
    })?;
    let mut msg = Vec::with_capacity(body.len() + 4);
    msg.extend_from_slice(&len.to_be_bytes());
    msg.extend_from_slice(&body);
    w.write_all(&msg)
        .and_then(|_| w.flush())
        .map_err(|e| map_io(e, "the peer to accept a JSON message"))
}

/// Write `SERVER_ERROR` with iperf3's error number and the system errno.
pub fn write_server_error<W: Write>(w: &mut W, i_errno: i32, errno: i32) -> Result<(), ProtoError> {
    let mut msg = [0u8; 9];
    msg[0] = State::ServerError.byte();
    msg[1..5].copy_from_slice(&i_errno.to_be_bytes());
    msg[5..9].copy_from_slice(&errno.to_be_bytes());
    w.write_all(&msg)
        .and_then(|_| w.flush())
        .map_err(|e| map_io(e, "the peer to accept an error"))
}

/// Read the two numbers following `SERVER_ERROR`.
pub fn read_server_error<R: Read>(r: &mut R) -> Result<(i32, i32), ProtoError> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)
        .map_err(|e| map_io(e, "the error number"))?;
    let i_errno = i32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let errno = i32::from_be_bytes([b[4], b[5], b[6], b[7]]);
    Ok((i_errno, errno))
}

/// Transport of the data connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Protocol {
    /// TCP streams.
    #[default]
    Tcp,
    /// UDP datagrams with sequence numbers and timestamps.
    Udp,
}

impl Protocol {
    /// `TCP` / `UDP` as iperf3 prints it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Tcp => "TCP",
            Self::Udp => "UDP",
        }
    }
}

/// Who sends data in a test, from the client's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Client sends (the default).
    ClientToServer,
    /// Server sends (`-R`).
    ServerToClient,
    /// Both send (`--bidir`).
    Bidirectional,
}

/// Test parameters as the client sends them.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct TestParams {
    /// TCP or UDP.
    pub protocol: Protocol,
    /// Seconds at the start left out of the results.
    pub omit_s: u32,
    /// Test length in seconds (0 when ended by bytes or blocks).
    pub time_s: u32,
    /// Bytes to transfer (`-n`), 0 = by time.
    pub bytes: u64,
    /// Blocks to transfer (`-k`), 0 = by time.
    pub blocks: u64,
    /// TCP maximum segment size (`-M`).
    pub mss: Option<u32>,
    /// `TCP_NODELAY` on the data connections.
    pub nodelay: bool,
    /// Number of parallel streams per direction.
    pub parallel: u32,
    /// Server sends.
    pub reverse: bool,
    /// Both send.
    pub bidirectional: bool,
    /// Socket buffer size (`-w`).
    pub window: Option<u32>,
    /// Block length (`-l`).
    pub len: Option<u32>,
    /// Target rate in bit/s (`-b`), per stream.
    pub bandwidth_bps: Option<u64>,
    /// Kernel pacing rate in bit/s (`--fq-rate`).
    pub fqrate_bps: Option<u64>,
    /// Pacing timer in µs.
    pub pacing_timer_us: Option<u32>,
    /// Packets per burst.
    pub burst: Option<u32>,
    /// IP TOS byte.
    pub tos: Option<u32>,
    /// TCP congestion control algorithm asked for.
    pub congestion: Option<String>,
    /// Client wants the server's output in the results.
    pub get_server_output: bool,
    /// UDP packet counters are 64 bits (16-byte header).
    pub udp_counters_64bit: bool,
    /// Test title (`-T`).
    pub title: Option<String>,
    /// Free text (`--extra-data`).
    pub extra_data: Option<String>,
    /// Client version string.
    pub client_version: Option<String>,
}

impl TestParams {
    /// Direction of the data.
    pub fn direction(&self) -> Direction {
        if self.bidirectional {
            Direction::Bidirectional
        } else if self.reverse {
            Direction::ServerToClient
        } else {
            Direction::ClientToServer
        }
    }

    /// Block length in effect.
    pub fn blksize(&self) -> u32 {
        self.len.unwrap_or(match self.protocol {
            Protocol::Tcp => DEFAULT_TCP_BLKSIZE,
            Protocol::Udp => DEFAULT_UDP_BLKSIZE,
        })
    }

    /// The JSON object an iperf3 client would send for these parameters.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        match self.protocol {
            Protocol::Tcp => m.insert("tcp".into(), json!(true)),
            Protocol::Udp => m.insert("udp".into(), json!(true)),
        };
        m.insert("omit".into(), json!(self.omit_s));
        m.insert("time".into(), json!(self.time_s));
        m.insert("num".into(), json!(self.bytes));
        m.insert("blockcount".into(), json!(self.blocks));
        if let Some(v) = self.mss {
            m.insert("MSS".into(), json!(v));
        }
        if self.nodelay {
            m.insert("nodelay".into(), json!(true));
        }
        m.insert("parallel".into(), json!(self.parallel));
        if self.reverse {
            m.insert("reverse".into(), json!(true));
        }
        if self.bidirectional {
            m.insert("bidirectional".into(), json!(true));
        }
        if let Some(v) = self.window {
            m.insert("window".into(), json!(v));
        }
        if let Some(v) = self.len {
            m.insert("len".into(), json!(v));
        }
        if let Some(v) = self.bandwidth_bps {
            m.insert("bandwidth".into(), json!(v));
        }
        if let Some(v) = self.fqrate_bps {
            m.insert("fqrate".into(), json!(v));
        }
        if let Some(v) = self.pacing_timer_us {
            m.insert("pacing_timer".into(), json!(v));
        }
        if let Some(v) = self.burst {
            m.insert("burst".into(), json!(v));
        }
        if let Some(v) = self.tos {
            m.insert("TOS".into(), json!(v));
        }
        if let Some(v) = &self.title {
            m.insert("title".into(), json!(v));
        }
        if let Some(v) = &self.extra_data {
            m.insert("extra_data".into(), json!(v));
        }
        if let Some(v) = &self.congestion {
            m.insert("congestion".into(), json!(v));
        }
        if self.get_server_output {
            m.insert("get_server_output".into(), json!(1));
        }
        if self.udp_counters_64bit {
            m.insert("udp_counters_64bit".into(), json!(1));
        }
        if let Some(v) = &self.client_version {
            m.insert("client_version".into(), json!(v));
        }
        Value::Object(m)
    }

    /// Read and validate parameters from a JSON value. Unknown fields are ignored (newer
    /// clients add some); flags count as set when present, as in iperf3.
    pub fn from_json(v: &Value) -> Result<Self, ProtoError> {
        let o = v
            .as_object()
            .ok_or_else(|| ProtoError::Malformed("parameters are not a JSON object".into()))?;
        let refuse = |i_errno: i32, msg: String| ProtoError::Refused { i_errno, msg };
        if o.contains_key("sctp") {
            return Err(refuse(ierr::IEPROTOCOL, "SCTP is not supported".into()));
        }
        let protocol = if o.contains_key("udp") {
            Protocol::Udp
        } else {
            Protocol::Tcp
        };
        let p = TestParams {
            protocol,
            omit_s: num_u32(o, "omit")?.unwrap_or(0),
            time_s: num_u32(o, "time")?.unwrap_or(0),
            bytes: num_u64(o, "num")?.unwrap_or(0),
            blocks: num_u64(o, "blockcount")?.unwrap_or(0),
            mss: num_u32(o, "MSS")?.filter(|&v| v > 0),
            nodelay: o.contains_key("nodelay"),
            parallel: num_u32(o, "parallel")?.unwrap_or(1),
            reverse: o.contains_key("reverse"),
            bidirectional: o.contains_key("bidirectional"),
            window: num_u32(o, "window")?.filter(|&v| v > 0),
            len: num_u32(o, "len")?.filter(|&v| v > 0),
            bandwidth_bps: num_u64(o, "bandwidth")?.filter(|&v| v > 0),
            fqrate_bps: num_u64(o, "fqrate")?.filter(|&v| v > 0),
            pacing_timer_us: num_u32(o, "pacing_timer")?.filter(|&v| v > 0),
            burst: num_u32(o, "burst")?.filter(|&v| v > 0),
            tos: num_u32(o, "TOS")?.filter(|&v| v > 0),
            congestion: text(o, "congestion", 16)?,
            get_server_output: o.contains_key("get_server_output"),
            udp_counters_64bit: o.contains_key("udp_counters_64bit"),
            title: text(o, "title", 256)?,
            extra_data: text(o, "extra_data", 1024)?,
            client_version: text(o, "client_version", 64)?,
        };
        if p.parallel == 0 || p.parallel > MAX_STREAMS {
            return Err(refuse(
                ierr::IENUMSTREAMS,
                format!(
                    "{} parallel streams asked, 1 to {MAX_STREAMS} allowed",
                    p.parallel
                ),
            ));
        }
        if p.time_s > MAX_TIME_S {
            return Err(refuse(
                ierr::IEDURATION,
                format!(
                    "a {} s test asked, at most {MAX_TIME_S} s allowed",
                    p.time_s
                ),
            ));
        }
        if p.omit_s > MAX_OMIT_S {
            return Err(refuse(ierr::IEOMIT, format!("omit of {} s", p.omit_s)));
        }
        if p.reverse && p.bidirectional {
            return Err(refuse(
                ierr::IEREVERSEBIDIR,
                "reverse and bidirectional together".into(),
            ));
        }
        if let Some(len) = p.len {
            match p.protocol {
                Protocol::Tcp if len > MAX_TCP_BLKSIZE => {
                    return Err(refuse(ierr::IEBLOCKSIZE, format!("block of {len} bytes")));
                }
                Protocol::Udp if !(MIN_UDP_BLKSIZE..=MAX_UDP_BLKSIZE).contains(&len) => {
                    return Err(refuse(
                        ierr::IEUDPBLOCKSIZE,
                        format!("UDP datagram of {len} bytes"),
                    ));
                }
                _ => {}
            }
        }
        if p.window.is_some_and(|w| u64::from(w) > MAX_WINDOW) {
            return Err(refuse(ierr::IEBUFSIZE, "socket buffer too large".into()));
        }
        if p.mss.is_some_and(|m| m > MAX_MSS) {
            return Err(refuse(ierr::IEMSS, "MSS too large".into()));
        }
        if p.burst.is_some_and(|b| b > MAX_BURST) {
            return Err(refuse(ierr::IEBURST, "burst too large".into()));
        }
        Ok(p)
    }
}

/// A number field: absent → `None`; present but not a finite non-negative integer that
/// fits → refused. (iperf3 writes integers; floats with an integral value are accepted.)
fn num_u64(o: &Map<String, Value>, key: &str) -> Result<Option<u64>, ProtoError> {
    let Some(v) = o.get(key) else {
        return Ok(None);
    };
    if let Some(n) = v.as_u64() {
        return Ok(Some(n));
    }
    if let Some(f) = v.as_f64() {
        if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 {
            return Ok(Some(f as u64));
        }
    }
    Err(ProtoError::Malformed(format!(
        "field {key:?} is not a non-negative integer"
    )))
}

fn num_u32(o: &Map<String, Value>, key: &str) -> Result<Option<u32>, ProtoError> {
    match num_u64(o, key)? {
        None => Ok(None),
        Some(n) => u32::try_from(n)
            .map(Some)
            .map_err(|_| ProtoError::Malformed(format!("field {key:?} is out of range"))),
    }
}

fn text(o: &Map<String, Value>, key: &str, max: usize) -> Result<Option<String>, ProtoError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.chars().take(max).collect())),
        Some(_) => Err(ProtoError::Malformed(format!(
            "field {key:?} is not a string"
        ))),
    }
}

fn num_f64(o: &Map<String, Value>, key: &str) -> Result<Option<f64>, ProtoError> {
    match o.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|f| f.is_finite())
            .map(Some)
            .ok_or_else(|| ProtoError::Malformed(format!("field {key:?} is not a number"))),
    }
}

fn num_i64(o: &Map<String, Value>, key: &str) -> Result<Option<i64>, ProtoError> {
    match o.get(key) {
        None => Ok(None),
        Some(v) => {
            if let Some(i) = v.as_i64() {
                return Ok(Some(i));
            }
            // iperf3 3.12 prints -1 as 18446744073709551615 (an int64 written as unsigned):
            // read integers above i64::MAX as the two's complement they came from.
            if let Some(u) = v.as_u64() {
                return Ok(Some(u as i64));
            }
            match v.as_f64() {
                Some(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.2e18 => {
                    Ok(Some(f as i64))
                }
                _ => Err(ProtoError::Malformed(format!(
                    "field {key:?} is not an integer"
                ))),
            }
        }
    }
}

/// Parse and validate a parameter message body.
pub fn parse_params(body: &[u8]) -> Result<TestParams, ProtoError> {
    let v: Value =
        serde_json::from_slice(body).map_err(|e| ProtoError::Malformed(e.to_string()))?;
    TestParams::from_json(&v)
}

/// One stream's totals in a results message.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct StreamResult {
    /// Stream id (1, 3, 4, 5…: iperf3 numbers the second stream 3, and both ends
    /// number streams in the order they were connected).
    pub id: i64,
    /// Bytes sent (sender) or received (receiver).
    pub bytes: u64,
    /// TCP retransmits of a sending stream; -1 when not known.
    pub retransmits: i64,
    /// UDP jitter in seconds (receiver).
    pub jitter_s: f64,
    /// UDP datagrams lost (receiver).
    pub errors: i64,
    /// UDP datagrams sent or received.
    pub packets: i64,
    /// Seconds from the start of the test to its start (0).
    pub start_time_s: Option<f64>,
    /// Seconds from the start of the test to its last measurement.
    pub end_time_s: Option<f64>,
}

/// The results one side sends to the other.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct PeerResults {
    /// CPU used by the process over the test, % of one core.
    pub cpu_util_total: f64,
    /// User part.
    pub cpu_util_user: f64,
    /// System part.
    pub cpu_util_system: f64,
    /// 1 = the sending side reports retransmits, 0 = it cannot, -1 = this side did not send.
    pub sender_has_retransmits: i64,
    /// TCP congestion control used.
    pub congestion_used: Option<String>,
    /// Per-stream totals.
    #[serde(default)]
    pub streams: Vec<StreamResult>,
    /// The server's text output, when the client asked for it.
    pub server_output_text: Option<String>,
}

impl PeerResults {
    /// The JSON object iperf3 exchanges.
    pub fn to_json(&self) -> Value {
        let streams: Vec<Value> = self
            .streams
            .iter()
            .map(|s| {
                json!({
                    "id": s.id,
                    "bytes": s.bytes,
                    "retransmits": s.retransmits,
                    "jitter": s.jitter_s,
                    "errors": s.errors,
                    "packets": s.packets,
                    "start_time": s.start_time_s.unwrap_or(0.0),
                    "end_time": s.end_time_s.unwrap_or(0.0),
                })
            })
            .collect();
        let mut m = Map::new();
        m.insert("cpu_util_total".into(), json!(self.cpu_util_total));
        m.insert("cpu_util_user".into(), json!(self.cpu_util_user));
        m.insert("cpu_util_system".into(), json!(self.cpu_util_system));
        m.insert(
            "sender_has_retransmits".into(),
            json!(self.sender_has_retransmits),
        );
        if let Some(c) = &self.congestion_used {
            m.insert("congestion_used".into(), json!(c));
        }
        if let Some(t) = &self.server_output_text {
            m.insert("server_output_text".into(), json!(t));
        }
        m.insert("streams".into(), Value::Array(streams));
        Value::Object(m)
    }

    /// Read and validate results. The fields iperf3 requires must be present; unknown
    /// fields are ignored.
    pub fn from_json(v: &Value) -> Result<Self, ProtoError> {
        let o = v
            .as_object()
            .ok_or_else(|| ProtoError::Malformed("results are not a JSON object".into()))?;
        let need = |k: &str| ProtoError::Malformed(format!("results lack {k:?}"));
        let streams_v = o
            .get("streams")
            .and_then(Value::as_array)
            .ok_or_else(|| need("streams"))?;
        if streams_v.len() > 2 * MAX_STREAMS as usize {
            return Err(ProtoError::Malformed(format!(
                "results for {} streams",
                streams_v.len()
            )));
        }
        let mut streams = Vec::with_capacity(streams_v.len());
        for s in streams_v {
            let so = s
                .as_object()
                .ok_or_else(|| ProtoError::Malformed("a stream result is not an object".into()))?;
            streams.push(StreamResult {
                id: num_i64(so, "id")?.ok_or_else(|| need("id"))?,
                bytes: num_u64(so, "bytes")?.ok_or_else(|| need("bytes"))?,
                retransmits: num_i64(so, "retransmits")?.ok_or_else(|| need("retransmits"))?,
                jitter_s: num_f64(so, "jitter")?.ok_or_else(|| need("jitter"))?,
                errors: num_i64(so, "errors")?.ok_or_else(|| need("errors"))?,
                packets: num_i64(so, "packets")?.ok_or_else(|| need("packets"))?,
                start_time_s: num_f64(so, "start_time")?,
                end_time_s: num_f64(so, "end_time")?,
            });
        }
        for s in &streams {
            plausible(s)?;
        }
        Ok(PeerResults {
            cpu_util_total: num_f64(o, "cpu_util_total")?.ok_or_else(|| need("cpu_util_total"))?,
            cpu_util_user: num_f64(o, "cpu_util_user")?.ok_or_else(|| need("cpu_util_user"))?,
            cpu_util_system: num_f64(o, "cpu_util_system")?
                .ok_or_else(|| need("cpu_util_system"))?,
            sender_has_retransmits: num_i64(o, "sender_has_retransmits")?
                .ok_or_else(|| need("sender_has_retransmits"))?,
            congestion_used: text(o, "congestion_used", 16)?,
            streams,
            server_output_text: text(o, "server_output_text", MAX_RESULTS_JSON)?,
        })
    }
}

/// Most bytes one stream may report: 2^53, the largest count a JSON number (a double, as
/// iperf3 writes it) holds exactly, about a day at 800 Gbit/s.
pub const MAX_STREAM_BYTES: u64 = 1 << 53;
/// Latest end time a stream may report: the longest test plus an hour of slack.
const MAX_END_TIME_S: f64 = MAX_TIME_S as f64 + 3600.0;

/// Refuse a stream result no test can produce (`0.00-inf sec  16777216 TBytes` when
/// printed): counts beyond [`MAX_STREAM_BYTES`], times outside the test, negative counts.
fn plausible(s: &StreamResult) -> Result<(), ProtoError> {
    let bad = |what: String| {
        Err(ProtoError::Malformed(format!(
            "implausible result for stream {}: {what}",
            s.id
        )))
    };
    if s.bytes > MAX_STREAM_BYTES {
        return bad(format!("{} bytes", s.bytes));
    }
    let start = s.start_time_s.unwrap_or(0.0);
    if !(0.0..=MAX_END_TIME_S).contains(&start) {
        return bad(format!("start time {start} s"));
    }
    if let Some(end) = s.end_time_s {
        if !(start..=MAX_END_TIME_S).contains(&end) {
            return bad(format!("interval {start}-{end} s"));
        }
    }
    if !(0.0..=MAX_END_TIME_S).contains(&s.jitter_s) {
        return bad(format!("jitter {} s", s.jitter_s));
    }
    if s.errors < -1 || s.packets < -1 || s.retransmits < -1 {
        return bad("a negative count".into());
    }
    Ok(())
}

/// Parse and validate a results message body.
pub fn parse_results(body: &[u8]) -> Result<PeerResults, ProtoError> {
    let v: Value =
        serde_json::from_slice(body).map_err(|e| ProtoError::Malformed(e.to_string()))?;
    PeerResults::from_json(&v)
}

/// What a client says on a control connection, decoded in order: cookie, parameters, the
/// state bytes up to the results, the results. Used by the fuzz target and tests to run the
/// server's parsing over arbitrary bytes without sockets.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientTranscript {
    /// The cookie.
    pub cookie: Cookie,
    /// The parameters.
    pub params: TestParams,
    /// State bytes before the results (`TEST_END`).
    pub states: Vec<State>,
    /// The client's results, if it got that far.
    pub results: Option<PeerResults>,
}

/// Decode what a client sent, the way the server reads it.
pub fn decode_client_transcript(data: &[u8]) -> Result<ClientTranscript, ProtoError> {
    let mut r = io::Cursor::new(data);
    let cookie = read_cookie(&mut r)?;
    let params = parse_params(&read_frame(&mut r, MAX_PARAMS_JSON)?)?;
    let mut states = Vec::new();
    let mut results = None;
    while (r.position() as usize) < data.len() {
        let s = read_state(&mut r)?;
        states.push(s);
        match s {
            State::TestEnd => {
                if (r.position() as usize) < data.len() {
                    results = Some(parse_results(&read_frame(&mut r, MAX_RESULTS_JSON)?)?);
                }
            }
            State::IperfDone | State::ClientTerminate => break,
            State::TestStart => {}
            other => {
                return Err(ProtoError::Refused {
                    i_errno: ierr::IEMESSAGE,
                    msg: format!("a client does not send {other:?}"),
                });
            }
        }
    }
    Ok(ClientTranscript {
        cookie,
        params,
        states,
        results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What iperf3 3.12 sends for `iperf3 -c HOST -t 2 -R -P 2` (captured on loopback).
    const IPERF312_PARAMS: &str = r#"{"tcp":true,"omit":0,"time":2,"num":0,"blockcount":0,"parallel":2,"reverse":true,"len":131072,"pacing_timer":1000,"client_version":"3.12"}"#;

    /// What iperf3 3.12 sends back after a one-stream test (shape captured on loopback).
    const IPERF312_RESULTS: &str = r#"{"cpu_util_total":34.96,"cpu_util_user":0,"cpu_util_system":34.96,"sender_has_retransmits":1,"congestion_used":"bbr","streams":[{"id":1,"bytes":1715732480,"retransmits":7,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":1.000387}]}"#;

    fn results_with_stream(stream: &str) -> String {
        format!(
            r#"{{"cpu_util_total":1,"cpu_util_user":0,"cpu_util_system":1,"sender_has_retransmits":1,"streams":[{stream}]}}"#
        )
    }

    /// A server that reports 2^64 - 1 bytes over -1e308..1e308 s made the client print
    /// `0.00-inf sec  16777216 TBytes`: such results are refused before anything prints.
    #[test]
    fn absurd_peer_results_are_refused_before_printing() {
        for stream in [
            r#"{"id":1,"bytes":18446744073709551615,"retransmits":0,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":1}"#,
            r#"{"id":1,"bytes":1000,"retransmits":0,"jitter":0,"errors":0,"packets":0,"start_time":-1e308,"end_time":1e308}"#,
            r#"{"id":1,"bytes":1000,"retransmits":0,"jitter":0,"errors":0,"packets":0,"start_time":2,"end_time":1}"#,
            r#"{"id":1,"bytes":1000,"retransmits":0,"jitter":-5,"errors":0,"packets":0}"#,
            r#"{"id":1,"bytes":1000,"retransmits":0,"jitter":0,"errors":-7,"packets":0}"#,
        ] {
            let e = parse_results(results_with_stream(stream).as_bytes()).unwrap_err();
            assert!(
                e.to_string().contains("implausible result for stream 1"),
                "{e}"
            );
        }
        // What real peers send still parses: a day at 10 Gbit/s, unknown retransmits.
        let ok = r#"{"id":1,"bytes":108000000000000,"retransmits":-1,"jitter":0.001,"errors":0,"packets":0,"start_time":0,"end_time":86400.2}"#;
        assert!(parse_results(results_with_stream(ok).as_bytes()).is_ok());
        assert!(parse_results(IPERF312_RESULTS.as_bytes()).is_ok());
    }

    #[test]
    fn state_bytes_round_trip() {
        for s in [
            State::TestStart,
            State::TestRunning,
            State::TestEnd,
            State::ParamExchange,
            State::CreateStreams,
            State::ServerTerminate,
            State::ClientTerminate,
            State::ExchangeResults,
            State::DisplayResults,
            State::IperfStart,
            State::IperfDone,
            State::AccessDenied,
            State::ServerError,
        ] {
            assert_eq!(State::from_byte(s.byte()), Some(s));
        }
        assert_eq!(State::AccessDenied.byte(), 0xff);
        assert_eq!(State::ServerError.byte(), 0xfe);
        assert_eq!(State::from_byte(3), None);
        assert_eq!(State::from_byte(0), None);
        assert_eq!(State::from_byte(100), None);
    }

    #[test]
    fn cookie_looks_like_iperf3s() {
        let c = Cookie::random();
        assert_eq!(c.0[36], 0);
        let s = c.as_string();
        assert_eq!(s.len(), 36);
        assert!(
            s.bytes()
                .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
        );
        assert_ne!(Cookie::random(), c);
    }

    #[test]
    fn iperf3_params_parse() {
        let p = parse_params(IPERF312_PARAMS.as_bytes()).unwrap();
        assert_eq!(p.protocol, Protocol::Tcp);
        assert_eq!(p.time_s, 2);
        assert_eq!(p.parallel, 2);
        assert_eq!(p.direction(), Direction::ServerToClient);
        assert_eq!(p.blksize(), 131072);
        assert_eq!(p.pacing_timer_us, Some(1000));
        assert_eq!(p.client_version.as_deref(), Some("3.12"));
        // And what we send parses back to the same.
        let again = TestParams::from_json(&p.to_json()).unwrap();
        assert_eq!(again, p);
    }

    #[test]
    fn unknown_fields_are_ignored_and_flags_are_presence() {
        let p = parse_params(
            br#"{"udp":true,"time":1,"parallel":1,"len":1460,"bandwidth":1048576,"future_option":{"x":[1,2]},"bidirectional":0,"udp_counters_64bit":1}"#,
        )
        .unwrap();
        assert_eq!(p.protocol, Protocol::Udp);
        assert!(p.bidirectional, "present means set, as in iperf3");
        assert!(p.udp_counters_64bit);
        assert_eq!(p.bandwidth_bps, Some(1048576));
    }

    #[test]
    fn bad_params_are_refused_with_iperf3_error_numbers() {
        let code = |s: &str| match parse_params(s.as_bytes()) {
            Err(ProtoError::Refused { i_errno, .. }) => i_errno,
            Err(e) => panic!("expected a refusal for {s}, got {e}"),
            Ok(p) => panic!("accepted {s}: {p:?}"),
        };
        assert_eq!(code(r#"{"tcp":true,"parallel":1000}"#), ierr::IENUMSTREAMS);
        assert_eq!(code(r#"{"tcp":true,"parallel":0}"#), ierr::IENUMSTREAMS);
        assert_eq!(code(r#"{"tcp":true,"time":100000}"#), ierr::IEDURATION);
        assert_eq!(code(r#"{"tcp":true,"len":2000000}"#), ierr::IEBLOCKSIZE);
        assert_eq!(code(r#"{"udp":true,"len":70000}"#), ierr::IEUDPBLOCKSIZE);
        assert_eq!(code(r#"{"udp":true,"len":8}"#), ierr::IEUDPBLOCKSIZE);
        assert_eq!(
            code(r#"{"tcp":true,"reverse":true,"bidirectional":true}"#),
            ierr::IEREVERSEBIDIR
        );
        assert_eq!(code(r#"{"sctp":true}"#), ierr::IEPROTOCOL);
        assert_eq!(code(r#"{"tcp":true,"window":4294967295}"#), ierr::IEBUFSIZE);
        for bad in [
            "[]",
            "null",
            "{",
            r#"{"time":-1}"#,
            r#"{"time":"10"}"#,
            r#"{"time":1.5}"#,
            r#"{"parallel":99999999999}"#,
            r#"{"title":5}"#,
        ] {
            assert!(
                matches!(parse_params(bad.as_bytes()), Err(ProtoError::Malformed(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn iperf312_unsigned_minus_one() {
        // Captured from `iperf3 -s -d` (3.12) after a test where the client sent.
        let r = parse_results(br#"{"cpu_util_total":29.6,"cpu_util_user":0.9,"cpu_util_system":28.7,"sender_has_retransmits":18446744073709551615,"congestion_used":"bbr","streams":[{"id":1,"bytes":2280914944,"retransmits":18446744073709551615,"jitter":0,"errors":0,"packets":0,"start_time":0,"end_time":1.00031}]}"#).unwrap();
        assert_eq!(r.sender_has_retransmits, -1);
        assert_eq!(r.streams[0].retransmits, -1);
    }

    #[test]
    fn results_round_trip_and_validation() {
        let r = parse_results(IPERF312_RESULTS.as_bytes()).unwrap();
        assert_eq!(r.streams.len(), 1);
        assert_eq!(r.streams[0].bytes, 1715732480);
        assert_eq!(r.streams[0].retransmits, 7);
        assert_eq!(r.congestion_used.as_deref(), Some("bbr"));
        assert_eq!(PeerResults::from_json(&r.to_json()).unwrap(), r);
        // A missing required field is an error, as in iperf3.
        assert!(
            parse_results(
                br#"{"cpu_util_total":1,"cpu_util_user":1,"cpu_util_system":1,"streams":[]}"#
            )
            .is_err()
        );
        assert!(parse_results(br#"{"cpu_util_total":1,"cpu_util_user":1,"cpu_util_system":1,"sender_has_retransmits":1,"streams":[{"id":1}]}"#).is_err());
    }

    #[test]
    fn frames_check_length_before_allocating() {
        let mut huge = io::Cursor::new(vec![0xff, 0xff, 0xff, 0xff, b'{']);
        assert!(matches!(
            read_frame(&mut huge, MAX_PARAMS_JSON),
            Err(ProtoError::TooLarge {
                len: 4294967295,
                ..
            })
        ));
        let mut zero = io::Cursor::new(vec![0, 0, 0, 0]);
        assert!(matches!(read_frame(&mut zero, 10), Err(ProtoError::Empty)));
        let mut truncated = io::Cursor::new(vec![0, 0, 0, 10, b'{']);
        assert!(matches!(
            read_frame(&mut truncated, 100),
            Err(ProtoError::Closed)
        ));
        let mut out = Vec::new();
        write_json(&mut out, &json!({"a": 1})).unwrap();
        assert_eq!(&out[..4], &[0, 0, 0, 7]);
        assert_eq!(
            read_frame(&mut io::Cursor::new(out), 100).unwrap(),
            br#"{"a":1}"#
        );
    }

    #[test]
    fn server_error_encoding() {
        let mut out = Vec::new();
        write_server_error(&mut out, ierr::IERECVPARAMS, 0).unwrap();
        assert_eq!(out, [0xfe, 0, 0, 0, 114, 0, 0, 0, 0]);
        let mut r = io::Cursor::new(&out[1..]);
        assert_eq!(read_server_error(&mut r).unwrap(), (114, 0));
        assert!(describe_error(ierr::IEACCESSDENIED, 0).contains("busy"));
        assert!(describe_error(ierr::IESTREAMREAD, 104).contains("unable to read"));
    }

    #[test]
    fn transcript_of_an_iperf3_client() {
        let mut t = Vec::new();
        t.extend_from_slice(&Cookie::random().0);
        write_json(&mut t, &serde_json::from_str(IPERF312_PARAMS).unwrap()).unwrap();
        t.push(State::TestEnd.byte());
        write_json(&mut t, &serde_json::from_str(IPERF312_RESULTS).unwrap()).unwrap();
        t.push(State::IperfDone.byte());
        let d = decode_client_transcript(&t).unwrap();
        assert_eq!(d.params.parallel, 2);
        assert_eq!(d.states, vec![State::TestEnd, State::IperfDone]);
        assert!(d.results.is_some());
        // Every truncation is an error or a shorter transcript, never a panic.
        for n in 0..t.len() {
            let _ = decode_client_transcript(&t[..n]);
        }
        assert!(decode_client_transcript(&t[..20]).is_err());
    }

    mod fuzz {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]

            /// Whatever a peer sends, decoding returns (an error or a value), never panics.
            #[test]
            fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..600)) {
                let _ = decode_client_transcript(&data);
                let _ = parse_params(&data);
                let _ = parse_results(&data);
                let _ = read_frame(&mut io::Cursor::new(&data), MAX_PARAMS_JSON);
            }

            /// A valid start followed by arbitrary bytes.
            #[test]
            fn valid_prefix_then_garbage(tail in proptest::collection::vec(any::<u8>(), 0..64), parallel in 0u32..300, time in 0u32..100_000) {
                let mut t = Cookie::random().0.to_vec();
                write_json(&mut t, &json!({"tcp": true, "parallel": parallel, "time": time})).unwrap();
                t.extend_from_slice(&tail);
                if let Ok(d) = decode_client_transcript(&t) {
                    prop_assert!(d.params.parallel >= 1 && d.params.parallel <= MAX_STREAMS);
                    prop_assert!(d.params.time_s <= MAX_TIME_S);
                }
            }

            /// Arbitrary JSON values in every field are validated, not trusted.
            #[test]
            fn arbitrary_field_values(v in prop_oneof![
                Just(json!(null)), Just(json!(-1)), Just(json!(1.5)), Just(json!("x")),
                Just(json!([1])), Just(json!({"a": 1})), Just(json!(1e300)), Just(json!(u64::MAX)),
                any::<i64>().prop_map(|i| json!(i)), any::<f64>().prop_map(|f| json!(f)),
            ], key in prop_oneof![
                Just("time"), Just("parallel"), Just("len"), Just("window"), Just("bandwidth"),
                Just("omit"), Just("MSS"), Just("title"), Just("congestion"), Just("num"),
            ]) {
                let mut m = Map::new();
                m.insert("tcp".into(), json!(true));
                m.insert(key.into(), v);
                let _ = TestParams::from_json(&Value::Object(m));
                let r = json!({"cpu_util_total": 1, "cpu_util_user": 0, "cpu_util_system": 1,
                    "sender_has_retransmits": 1, "streams": [{"id": 1, "bytes": key, "retransmits": 0,
                    "jitter": 0, "errors": 0, "packets": 0}]});
                prop_assert!(PeerResults::from_json(&r).is_err());
            }
        }
    }
}
