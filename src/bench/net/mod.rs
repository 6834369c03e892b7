//! Network throughput, wire-compatible with iperf3 3.x: a client that tests against a
//! stock `iperf3 -s`, and a server that stock `iperf3 -c` can test against.
//!
//! - [`proto`]: the control protocol (cookie, state bytes, length-prefixed JSON).
//! - [`engine`]: the data plane, one thread per stream.
//! - [`client`] / [`server`]: the two ends of a test, returning a typed [`TestReport`] and
//!   announcing progress through a callback (they never print).
//! - [`report`]: iperf3's text lines and `-J` JSON, as pure functions of a report.
//! - [`sampler`]: what the system does while a test runs, for the diagnosis.

pub mod client;
pub mod clock;
pub mod engine;
pub mod local;
pub mod proto;
pub mod report;
pub mod sampler;
pub mod server;
pub mod sockopt;
pub mod units;

use serde::{Deserialize, Serialize};

use engine::{NetInterval, StreamFailure, StreamInfo, StreamThread, StreamTotals};
use proto::{PeerResults, TestParams};
use sockopt::CpuUtil;

/// Which end of the test we are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// We connected (`-c`).
    Client,
    /// We accepted (`-s`).
    Server,
}

/// Everything one test produced on our side, and what the peer reported.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TestReport {
    /// Client or server.
    pub role: Role,
    /// The test's parameters (as sent by the client).
    pub params: TestParams,
    /// The cookie identifying the test.
    pub cookie: String,
    /// Client: the host and port we connected to; server: the peer's control address.
    pub peer_host: String,
    /// See [`TestReport::peer_host`].
    pub peer_port: u16,
    /// MSS of the control connection (iperf3's `tcp_mss_default`).
    pub tcp_mss_default: Option<u32>,
    /// Socket send buffer of the first data connection.
    pub sndbuf_actual: Option<u32>,
    /// Socket receive buffer of the first data connection.
    pub rcvbuf_actual: Option<u32>,
    /// Data streams in order.
    #[serde(default)]
    pub streams: Vec<StreamInfo>,
    /// Every interval measured.
    #[serde(default)]
    pub intervals: Vec<NetInterval>,
    /// Our per-stream totals.
    #[serde(default)]
    pub totals: Vec<StreamTotals>,
    /// The peer's results (absent when the test ended early).
    pub peer: Option<PeerResults>,
    /// Our process's CPU use during the test, % of one core.
    pub cpu: CpuUtil,
    /// TCP congestion control on our side.
    pub congestion: Option<String>,
    /// Our sending streams report TCP retransmits.
    pub sender_has_retransmits: bool,
    /// RFC 1123 time the test started.
    pub timestamp: String,
    /// Unix time the test started.
    pub timesecs: i64,
    /// `uname -a` style line.
    pub system_info: String,
}

/// Progress of a test, for the caller to print.
#[derive(Debug)]
pub enum NetEvent<'a> {
    /// Server: listening (before each test).
    Listening {
        /// Port.
        port: u16,
        /// Test number, counting from 1.
        test_number: u32,
    },
    /// Client: parameters accepted by the server.
    Connecting {
        /// Host as given.
        host: &'a str,
        /// Port.
        port: u16,
        /// The test runs server → client.
        reverse: bool,
    },
    /// Server: a client's parameters were accepted.
    Accepted {
        /// Client address.
        host: String,
        /// Client port.
        port: u16,
    },
    /// A data connection is up.
    StreamConnected(&'a StreamInfo),
    /// Data flows.
    Started {
        /// The parameters in effect.
        params: &'a TestParams,
        /// Streams.
        streams: &'a [StreamInfo],
        /// Which thread serves which stream.
        threads: &'a [StreamThread],
    },
    /// The test is about to stop (the stream threads still run): last chance to look at
    /// them.
    Ending {
        /// Which thread serves which stream.
        threads: &'a [StreamThread],
    },
    /// An interval was measured.
    Interval {
        /// The numbers.
        interval: &'a NetInterval,
        /// Which thread serves which stream.
        threads: &'a [StreamThread],
        /// Sending streams report TCP retransmits.
        sender_has_retransmits: bool,
        /// It is the first interval (print the header).
        first: bool,
    },
    /// Something worth a line that is not an error.
    Warning(String),
}

/// Why a test failed.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// Name resolution failed.
    #[error("unable to resolve {host}: {reason}")]
    Resolve {
        /// Host.
        host: String,
        /// Why.
        reason: String,
    },
    /// Connecting the control connection failed.
    #[error("unable to connect to server {addr}: {source}")]
    Connect {
        /// Address tried.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// Binding the listener failed.
    #[error("unable to start listener on {addr}: {source}")]
    Listen {
        /// Address.
        addr: String,
        /// Why.
        source: std::io::Error,
    },
    /// The control protocol broke down.
    #[error("{0}")]
    Proto(proto::ProtoError),
    /// The server is running another test.
    #[error("the server is busy running a test. try again later")]
    Busy,
    /// The server reported an error.
    #[error("server error - {0}")]
    Server(String),
    /// The server was stopped.
    #[error("the server has terminated")]
    ServerTerminated,
    /// The client was stopped.
    #[error("the client has terminated")]
    ClientTerminated,
    /// The peer said the test is over (`IPERF_DONE`) while data still flowed: it gave up
    /// on the test, usually because one of its data connections failed.
    #[error("the {0} ended the test early")]
    PeerEndedEarly(&'static str),
    /// The peer closed the control connection in the middle of a test.
    #[error("the {0} has unexpectedly closed the connection")]
    ControlClosed(&'static str),
    /// A data connection could not be set up.
    #[error("unable to set up data connection {id}: {reason}")]
    StreamSetup {
        /// Stream id.
        id: i64,
        /// Why.
        reason: String,
    },
    /// A data connection broke during the test.
    #[error("data connection {} ({}) lost: {}", .0.id, if .0.sender { "sending" } else { "receiving" }, .0.message)]
    StreamLost(StreamFailure),
    /// The peer sent something that does not belong at this point.
    #[error("unexpected control message {0}")]
    Unexpected(String),
    /// Nothing happened for too long.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The test went past one of the server's limits (`--max-duration`,
    /// `--server-bitrate-limit`).
    #[error("{0}")]
    OverLimit(String),
    /// Stopped by the user (SIGINT/SIGTERM).
    #[error("interrupted")]
    Interrupted,
    /// A local system call failed.
    #[error("{what}: {source}")]
    Io {
        /// What we were doing.
        what: &'static str,
        /// Why it failed.
        source: std::io::Error,
    },
}

/// A read given up because the user stopped us is an interruption, not a protocol error.
impl From<proto::ProtoError> for NetError {
    fn from(e: proto::ProtoError) -> Self {
        match e {
            proto::ProtoError::Cancelled => Self::Interrupted,
            e => Self::Proto(e),
        }
    }
}

/// How often a read that may be cancelled looks at its token.
const CANCEL_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// Reads of one message that must all be done by `deadline`: a peer that trickles the
/// message a byte at a time cannot stretch it (a per-read timeout would restart with each
/// byte). With a token, a cancelled token ends the read within [`CANCEL_POLL`].
pub(crate) struct DeadlineRead<'a> {
    sock: &'a std::net::TcpStream,
    deadline: std::time::Instant,
    cancel: Option<&'a crate::shutdown::CancellationToken>,
}

impl<'a> DeadlineRead<'a> {
    /// Read from `sock` until `deadline`, giving up early when `cancel` is cancelled.
    pub(crate) fn new(
        sock: &'a std::net::TcpStream,
        deadline: std::time::Instant,
        cancel: Option<&'a crate::shutdown::CancellationToken>,
    ) -> Self {
        Self {
            sock,
            deadline,
            cancel,
        }
    }
}

impl std::io::Read for DeadlineRead<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::fd::AsRawFd;
        loop {
            if self.cancel.is_some_and(|c| c.is_cancelled()) {
                return Err(std::io::Error::other(proto::Cancelled));
            }
            let left = self
                .deadline
                .saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(std::io::ErrorKind::TimedOut.into());
            }
            let wait = match self.cancel {
                Some(_) => left.min(CANCEL_POLL),
                None => left,
            };
            if wait_readable(self.sock.as_raw_fd(), wait)? {
                // Readable (or at EOF): this read does not block.
                return std::io::Read::read(&mut &*self.sock, buf);
            }
        }
    }
}

/// A failed system call while `what` was being done.
pub(crate) fn io(what: &'static str) -> impl Fn(std::io::Error) -> NetError {
    move |source| NetError::Io { what, source }
}

/// What a side keeps from its streams as they start.
pub(crate) struct Started {
    /// The streams in order.
    pub infos: Vec<StreamInfo>,
    /// Send buffer of the first data connection.
    pub sndbuf: Option<u32>,
    /// Receive buffer of the first data connection.
    pub rcvbuf: Option<u32>,
}

/// Start the stream threads (they have recorded their ids when this returns), let
/// `started` tell the peer, then announce [`NetEvent::Started`].
pub(crate) fn start_streams(
    engine: &mut engine::Engine,
    params: &TestParams,
    started: impl FnOnce() -> Result<(), NetError>,
    on: &mut dyn FnMut(NetEvent<'_>),
) -> Result<Started, NetError> {
    let infos = engine.infos();
    let (sndbuf, rcvbuf) = engine.first_buffers().unzip();
    engine
        .start(params.omit_s > 0)
        .map_err(io("starting the stream threads"))?;
    started()?;
    on(NetEvent::Started {
        params,
        streams: &infos,
        threads: &engine.threads(),
    });
    Ok(Started {
        infos,
        sndbuf,
        rcvbuf,
    })
}

/// `uname -a` without the OS name suffix, as iperf3's `system_info`.
pub fn system_info() -> String {
    match nix::sys::utsname::uname() {
        Ok(u) => format!(
            "{} {} {} {} {}",
            u.sysname().to_string_lossy(),
            u.nodename().to_string_lossy(),
            u.release().to_string_lossy(),
            u.version().to_string_lossy(),
            u.machine().to_string_lossy()
        ),
        Err(_) => String::new(),
    }
}

/// Now as RFC 1123 (`Mon, 30 Nov 2026 09:02:35 GMT`) and Unix seconds.
pub fn timestamp_now() -> (String, i64) {
    let now = chrono::Utc::now();
    (
        now.format("%a, %d %b %Y %H:%M:%S GMT").to_string(),
        now.timestamp(),
    )
}

/// Is there something (a message or EOF) to read on the control connection within `wait`?
pub(crate) fn control_ready(
    ctrl: &std::net::TcpStream,
    wait: std::time::Duration,
    what: &'static str,
) -> Result<bool, NetError> {
    use std::os::fd::AsRawFd;
    wait_readable(ctrl.as_raw_fd(), wait).map_err(io(what))
}

/// Wait until `fd` is readable or `timeout` passes. `Ok(true)` when readable (or at EOF).
pub(crate) fn wait_readable(
    fd: std::os::fd::RawFd,
    timeout: std::time::Duration,
) -> std::io::Result<bool> {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: one valid pollfd.
    let rc = unsafe { libc::poll(&mut pfd, 1, ms) };
    if rc < 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::Interrupted {
            return Ok(false);
        }
        return Err(e);
    }
    Ok(rc > 0)
}
