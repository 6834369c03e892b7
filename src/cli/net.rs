//! `sbc-bench net`: iperf3-compatible client and server, and interface listing.
//!
//! The client and server accept iperf3's short options where they mean the same thing
//! (`-p -t -P -R -l -O -u -b -w -M -N -C -i -n -k -J -T -1`), so commands users already
//! type keep working.

use clap::{Args, Subcommand};

use std::time::Duration;

use crate::bench::net::client::ClientConfig;
use crate::bench::net::proto::{self, Protocol, TestParams};
use crate::bench::net::server::ServerConfig;
use crate::bench::net::units;

/// `sbc-bench net`.
#[derive(Debug, Clone, Args)]
pub struct NetArgs {
    /// What to do.
    #[command(subcommand)]
    pub which: NetCommand,
}

/// Network subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum NetCommand {
    /// List every network interface: driver, link, IRQs and their affinity, RPS/XPS.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Only these interfaces.
        #[arg(value_name = "IFACE")]
        ifaces: Vec<String>,
    },
    /// Serve iperf3 clients (`iperf3 -c HOST`) and our own, one test at a time.
    Server(ServerArgs),
    /// Test against an iperf3 server (`iperf3 -s`) or `sbc-bench net server`.
    Client(Box<ClientArgs>),
}

/// Options both ends share.
#[derive(Debug, Clone, Args)]
pub struct NetCommonArgs {
    /// Port of the server.
    #[arg(short = 'p', long, default_value_t = 5201, value_name = "PORT")]
    pub port: u16,
    /// Seconds between interval reports (0 = only the summary).
    #[arg(short = 'i', long, default_value = "1", value_parser = parse_report_interval, value_name = "SECS")]
    pub interval: f64,
    /// Print iperf3's JSON (`-J`) instead of text.
    #[arg(short = 'J', long)]
    pub json: bool,
    /// Interface to watch for the diagnosis (default: the one holding the test's address).
    #[arg(long, value_name = "IFACE")]
    pub iface: Option<String>,
    /// Leave out the diagnosis (plain iperf3 output).
    #[arg(long)]
    pub no_diagnose: bool,
    /// Run the test's threads only on these CPUs (`6`, `4-7`), like `taskset -c`.
    #[arg(short = 'A', long, value_parser = parse_affinity, value_name = "CPUS")]
    pub affinity: Option<CpuList>,
}

/// How either end prints: JSON or iperf3's text, with the diagnosis or not.
impl From<&NetCommonArgs> for crate::run::net::NetOutput {
    fn from(a: &NetCommonArgs) -> Self {
        Self {
            iface: a.iface.clone(),
            json: a.json,
            diagnose: !a.no_diagnose,
        }
    }
}

/// A CPU list from the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuList(pub Vec<u32>);

/// Parse `-A` (`6`, `0,4`, `4-7`).
pub fn parse_affinity(s: &str) -> Result<CpuList, String> {
    crate::bench::pin::parse_cpus(s).map(CpuList)
}

/// `sbc-bench net server`.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// Common options.
    #[command(flatten)]
    pub common: NetCommonArgs,
    /// Listen only on this address or host name (default: every address, as iperf3).
    #[arg(short = 'B', long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// Serve one test, then exit.
    #[arg(short = '1', long)]
    pub one_off: bool,
    /// End a test that moved no data either way for SECS seconds: a client that stopped
    /// sending, or stopped reading (0 = never).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=86_400), value_name = "SECS")]
    pub idle_timeout: u32,
    /// Refuse tests asked to run longer than SECS, and end those without a time (`-t 0`,
    /// `-n`, `-k`) after SECS.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=86_400), value_name = "SECS")]
    pub max_duration: Option<u32>,
    /// End a test whose total bit rate (all streams, both ways) averaged over SECS
    /// (default 5) is above RATE, and refuse one asking for more (`100M`, `1G/10`; 0 = no
    /// limit), as iperf3's option.
    #[arg(long, value_parser = units::parse_rate, value_name = "RATE[/SECS]")]
    pub server_bitrate_limit: Option<(u64, Option<u32>)>,
}

/// `sbc-bench net client`.
#[derive(Debug, Clone, Args)]
pub struct ClientArgs {
    /// Server host name or address.
    #[arg(value_name = "HOST")]
    pub host: String,
    /// Common options.
    #[command(flatten)]
    pub common: NetCommonArgs,
    /// Seconds to transmit (0 = until stopped with Ctrl-C).
    #[arg(short = 't', long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=86_400), value_name = "SECS")]
    pub time: u32,
    /// Bytes to transmit instead of a time (`100M`).
    #[arg(short = 'n', long, value_parser = parse_size, value_name = "BYTES")]
    pub bytes: Option<u64>,
    /// Blocks to transmit instead of a time.
    #[arg(short = 'k', long, value_parser = parse_size, value_name = "BLOCKS")]
    pub blockcount: Option<u64>,
    /// Parallel streams.
    #[arg(short = 'P', long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=128), value_name = "N")]
    pub parallel: u32,
    /// Reverse: the server sends.
    #[arg(short = 'R', long, conflicts_with = "bidir")]
    pub reverse: bool,
    /// Both ends send at once.
    #[arg(long)]
    pub bidir: bool,
    /// UDP instead of TCP.
    #[arg(short = 'u', long)]
    pub udp: bool,
    /// Target rate per stream in bit/s (`100M`; UDP default 1M, `0` = unlimited), optionally
    /// `/BURST`.
    #[arg(short = 'b', long, value_parser = units::parse_rate, value_name = "RATE")]
    pub bitrate: Option<(u64, Option<u32>)>,
    /// Bytes per write / datagram (`128K`; TCP default 128K, UDP default the path MSS).
    #[arg(short = 'l', long, value_parser = parse_size, value_name = "LEN")]
    pub length: Option<u64>,
    /// Leave out the first SECS seconds (TCP slow start).
    #[arg(short = 'O', long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=600), value_name = "SECS")]
    pub omit: u32,
    /// Socket buffer size (`-w 4M`).
    #[arg(short = 'w', long, value_parser = parse_size, value_name = "SIZE")]
    pub window: Option<u64>,
    /// TCP maximum segment size.
    #[arg(short = 'M', long = "set-mss", value_name = "MSS")]
    pub mss: Option<u32>,
    /// TCP_NODELAY.
    #[arg(short = 'N', long)]
    pub no_delay: bool,
    /// TCP congestion control algorithm (`cubic`, `bbr`).
    #[arg(short = 'C', long, value_name = "ALGO")]
    pub congestion: Option<String>,
    /// A title for the test.
    #[arg(short = 'T', long, value_name = "TITLE")]
    pub title: Option<String>,
    /// 64-bit UDP packet counters.
    #[arg(long)]
    pub udp_counters_64bit: bool,
    /// Local address or host name to connect from.
    #[arg(short = 'B', long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// Print the server's own output of the test too (iperf3's `--get-server-output`).
    #[arg(long)]
    pub get_server_output: bool,
    /// Seconds to wait for the server to accept.
    #[arg(long, default_value_t = 10, value_name = "SECS")]
    pub connect_timeout: u64,
}

/// Parse a size with binary suffixes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    units::parse_size(s)
}

/// Parse the reporting interval: 0 (none) or 0.1–60 seconds, as iperf3 allows.
pub fn parse_report_interval(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number of seconds"))?;
    if v == 0.0 || (v.is_finite() && (0.1..=60.0).contains(&v)) {
        Ok(v)
    } else {
        Err(format!(
            "interval must be 0 or between 0.1 and 60 seconds, got {s}"
        ))
    }
}

impl ServerArgs {
    /// The server's configuration, listening on `bind` (resolved from `-B`).
    pub fn config(&self, bind: Option<std::net::IpAddr>) -> ServerConfig {
        ServerConfig {
            bind,
            port: self.common.port,
            one_off: self.one_off,
            interval_s: self.common.interval,
            data_idle_timeout: Duration::from_secs(u64::from(self.idle_timeout)),
            max_duration: self.max_duration.map(|s| Duration::from_secs(u64::from(s))),
            bitrate_limit: self
                .server_bitrate_limit
                .filter(|&(rate, _)| rate > 0)
                .map(|(rate, secs)| (rate, Duration::from_secs(u64::from(secs.unwrap_or(5))))),
            ..ServerConfig::default()
        }
    }
}

impl ClientArgs {
    /// The client's configuration (the bind address is set later, once resolved); a
    /// value out of iperf3's range is the reason, in iperf3's words.
    pub fn config(&self) -> Result<ClientConfig, String> {
        client_config(self)
    }
}

fn client_config(a: &ClientArgs) -> Result<ClientConfig, String> {
    let protocol = if a.udp { Protocol::Udp } else { Protocol::Tcp };
    let len = match a.length {
        None => None,
        Some(l) => {
            let max = match protocol {
                Protocol::Tcp => proto::MAX_TCP_BLKSIZE,
                Protocol::Udp => proto::MAX_UDP_BLKSIZE,
            };
            let min = match protocol {
                Protocol::Tcp => 1,
                Protocol::Udp => proto::MIN_UDP_BLKSIZE,
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
        Some(w) if w > 0 && w <= proto::MAX_WINDOW => Some(w as u32),
        Some(_) => return Err("-w must be between 1 byte and 512M".into()),
    };
    let (rate, burst) = match a.bitrate {
        Some((r, b)) => (Some(r), b),
        None if a.udp => (Some(proto::DEFAULT_UDP_RATE), None),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn client(args: &[&str]) -> ClientArgs {
        let mut v = vec!["sbc-bench", "net", "client"];
        v.extend_from_slice(args);
        match Cli::try_parse_from(v).unwrap().command {
            Some(Command::Net(NetArgs {
                which: NetCommand::Client(c),
            })) => *c,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn iperf3_style_flags() {
        let c = client(&[
            "192.168.2.1",
            "-t",
            "60",
            "-i",
            "10",
            "-R",
            "-P",
            "4",
            "-l",
            "64K",
            "-O",
            "2",
        ]);
        assert_eq!(c.host, "192.168.2.1");
        assert_eq!(c.time, 60);
        assert_eq!(c.common.interval, 10.0);
        assert!(c.reverse);
        assert_eq!(c.parallel, 4);
        assert_eq!(c.length, Some(65536));
        assert_eq!(c.omit, 2);
        let u = client(&["h", "-u", "-b", "100M", "-J"]);
        assert!(u.udp && u.common.json);
        assert_eq!(
            client(&["h", "-A", "4-5"]).common.affinity,
            Some(CpuList(vec![4, 5]))
        );
        assert_eq!(u.bitrate, Some((100_000_000, None)));
    }

    #[test]
    fn bad_values_are_usage_errors() {
        for bad in [
            vec!["h", "-P", "0"],
            vec!["h", "-P", "129"],
            vec!["h", "-t", "100000"],
            vec!["h", "-i", "0.01"],
            vec!["h", "-l", "lots"],
            vec!["h", "-R", "--bidir"],
            vec!["h", "-p", "70000"],
            vec!["h", "-A", "x"],
        ] {
            let mut v = vec!["sbc-bench", "net", "client"];
            v.extend_from_slice(&bad);
            assert!(Cli::try_parse_from(v).is_err(), "{bad:?}");
        }
        // -B takes host names as iperf3 does; they are resolved when the command runs.
        assert!(Cli::try_parse_from(["sbc-bench", "net", "server", "--bind", "localhost"]).is_ok());
    }

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
            let cfg = (client_args(&[flag, "0"]).config()).unwrap();
            assert_eq!(
                (cfg.params.time_s, cfg.params.bytes, cfg.params.blocks),
                (10, 0, 0)
            );
            let cfg = (client_args(&[flag, "0", "-t", "3"]).config()).unwrap();
            assert_eq!(cfg.params.time_s, 3);
        }
        // `-n 0 -k 5` is `-k 5`, not two end conditions.
        let cfg = (client_args(&["-n", "0", "-k", "5"]).config()).unwrap();
        assert_eq!((cfg.params.time_s, cfg.params.blocks), (0, 5));
        let cfg = (client_args(&["-n", "1M"]).config()).unwrap();
        assert_eq!((cfg.params.time_s, cfg.params.bytes), (0, 1 << 20));
    }
}
