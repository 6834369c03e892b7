//! `sbc-bench net`: interoperability with the real iperf3 both ways (loopback and two
//! network namespaces joined by a veth pair), robustness of the server against garbage,
//! truncated and hostile input, loss of a data connection, and the diagnosis over the
//! fixture sysroots built from the ROCK 5 ITX and NanoPi R5S reviews.
//!
//! Runs are 1 s each. Tests that need `iperf3` or network namespaces say so and skip where
//! those are missing (CI installs iperf3; namespaces need root).

#![allow(clippy::unwrap_used)] // test helpers: a failed setup is a failed test

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command as Proc, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::bin;
use predicates::prelude::*;
use sbc_bench::bench::net::client::{ClientConfig, run_client};
use sbc_bench::bench::net::proto::{self, Protocol, State};
use sbc_bench::bench::net::server::{ServerConfig, serve_on};
use sbc_bench::bench::net::{NetError, TestReport};
use sbc_bench::shutdown::CancellationToken;

fn bin_path() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("sbc-bench")
}

fn have_iperf3() -> bool {
    let ok = Proc::new("iperf3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("SKIP: iperf3 is not installed (apt-get install iperf3; .ci/run does)");
    }
    ok
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Is something listening on TCP `port` (any address)? Reads /proc/net/tcp{,6} so that
/// no probe connection reaches a one-off iperf3 server.
fn listening(port: u16) -> bool {
    let hex = format!(":{port:04X} ");
    ["/proc/net/tcp", "/proc/net/tcp6"].iter().any(|f| {
        std::fs::read_to_string(f).is_ok_and(|t| {
            t.lines().skip(1).any(|l| {
                let cols: Vec<&str> = l.split_whitespace().collect();
                cols.len() > 3 && format!("{} ", cols[1]).contains(&hex) && cols[3] == "0A"
            })
        })
    })
}

fn wait_listening(port: u16) {
    let t = Instant::now();
    while !listening(port) {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "nothing listens on {port}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A child process killed on drop.
struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn iperf3_server(port: u16) -> Kill {
    let c = Proc::new("iperf3")
        .args(["-s", "-1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("iperf3 starts");
    wait_listening(port);
    Kill(c)
}

fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

// ---- our client against iperf3 -s ------------------------------------------------------

fn our_client_vs_iperf3(extra: &[&str]) -> serde_json::Value {
    let port = free_port();
    let _srv = iperf3_server(port);
    let mut args = vec!["net", "client", "127.0.0.1", "-p"];
    let p = port.to_string();
    args.push(&p);
    args.extend_from_slice(&["-t", "1", "-J"]);
    args.extend_from_slice(extra);
    let out = bin()
        .args(&args)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

#[test]
fn our_client_against_iperf3_tcp() {
    if !have_iperf3() {
        return;
    }
    let v = our_client_vs_iperf3(&[]);
    let sent = v["end"]["sum_sent"]["bytes"].as_u64().unwrap();
    let got = v["end"]["sum_received"]["bytes"].as_u64().unwrap();
    assert!(sent > 0 && got > 0 && got <= sent, "{sent} {got}");
    assert!(v["end"]["sum_sent"]["retransmits"].is_i64());
    assert!(
        v["end"]["cpu_utilization_percent"]["remote_total"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert_eq!(v["start"]["test_start"]["num_streams"], 1);
    assert!(v["sbc_bench"]["findings"].is_array());
}

#[test]
fn our_client_against_iperf3_reverse_parallel_and_bidir() {
    if !have_iperf3() {
        return;
    }
    let v = our_client_vs_iperf3(&["-R", "-P", "2", "--no-diagnose"]);
    assert_eq!(v["end"]["streams"].as_array().unwrap().len(), 2);
    // iperf3 sent; it reports retransmits, we report what arrived.
    assert!(v["end"]["sum_received"]["bytes"].as_u64().unwrap() > 0);
    assert!(v["end"]["sum_sent"]["retransmits"].is_i64());
    let v = our_client_vs_iperf3(&["--bidir", "--no-diagnose"]);
    assert!(v["end"]["sum_received"]["bytes"].as_u64().unwrap() > 0);
    assert!(
        v["end"]["sum_received_bidir_reverse"]["bytes"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn our_client_against_iperf3_udp() {
    if !have_iperf3() {
        return;
    }
    let v = our_client_vs_iperf3(&["-u", "-b", "20M", "--no-diagnose"]);
    let s = &v["end"]["sum_received"];
    assert!(s["packets"].as_i64().unwrap() > 0);
    assert!(
        s["bytes"].as_u64().unwrap() > 1_000_000,
        "about 2.5 MB at 20 Mbit/s"
    );
    assert!(v["end"]["sum"]["jitter_ms"].as_f64().is_some());
}

#[test]
fn our_client_text_matches_iperf3_layout() {
    if !have_iperf3() {
        return;
    }
    let port = free_port();
    let _srv = iperf3_server(port);
    let out = bin()
        .args([
            "net",
            "client",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-t",
            "1",
            "--no-diagnose",
        ])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!("Connecting to host 127.0.0.1, port {port}")
    );
    assert!(
        lines[1].contains("] local 127.0.0.1 port ")
            && lines[1].ends_with(&format!("connected to 127.0.0.1 port {port}"))
    );
    assert_eq!(
        lines[2],
        "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd"
    );
    // `0.00-1.00`, or a few ms late on a loaded machine, as with iperf3.
    assert!(
        lines[3].starts_with("[  ")
            && lines[3].contains("   0.00-1.0")
            && lines[3].contains(" sec  ")
            && lines[3].ends_with("       "),
        "{}",
        lines[3]
    );
    assert_eq!(
        lines[4],
        "- - - - - - - - - - - - - - - - - - - - - - - - -"
    );
    assert_eq!(
        lines[5],
        "[ ID] Interval           Transfer     Bitrate         Retr"
    );
    assert!(lines[6].ends_with("             sender"));
    assert!(lines[7].ends_with("                  receiver"));
    assert_eq!(lines[8], "");
    assert_eq!(lines[9], "iperf Done.");
}

// ---- iperf3 -c against our server -------------------------------------------------------

struct OurServer {
    port: u16,
    cancel: Arc<CancellationToken>,
    handle: Option<std::thread::JoinHandle<Vec<Result<TestReport, String>>>>,
}

impl OurServer {
    fn start(cfg: ServerConfig) -> Self {
        let listener = Arc::new(TcpListener::bind("127.0.0.1:0").unwrap());
        let port = listener.local_addr().unwrap().port();
        let cancel = Arc::new(CancellationToken::new());
        let c2 = Arc::clone(&cancel);
        let handle = std::thread::spawn(move || {
            let mut results = Vec::new();
            let _ = serve_on(listener, &cfg, &c2, &mut |_| {}, &mut |r| {
                results.push(r.cloned().map_err(|e| e.to_string()));
            });
            results
        });
        Self {
            port,
            cancel,
            handle: Some(handle),
        }
    }

    fn stop(mut self) -> Vec<Result<TestReport, String>> {
        self.cancel.cancel();
        self.handle.take().unwrap().join().unwrap()
    }
}

impl Drop for OurServer {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

fn quick_server() -> ServerConfig {
    ServerConfig {
        setup_timeout: Duration::from_secs(1),
        data_idle_timeout: Duration::from_secs(3),
        ..ServerConfig::default()
    }
}

fn iperf3_client(port: u16, extra: &[&str]) -> serde_json::Value {
    let mut c = Proc::new("iperf3");
    c.args(["-c", "127.0.0.1", "-p", &port.to_string(), "-J"]);
    // iperf3 takes one end condition only.
    if !extra.iter().any(|a| *a == "-n" || *a == "-k") {
        c.args(["-t", "1"]);
    }
    c.args(extra);
    let out = c.output().expect("iperf3 runs");
    let v = json(&out.stdout);
    assert!(v.get("error").is_none(), "{extra:?}: {}", v["error"]);
    v
}

#[test]
fn iperf3_client_against_our_server() {
    if !have_iperf3() {
        return;
    }
    let srv = OurServer::start(quick_server());
    let v = iperf3_client(srv.port, &[]);
    assert!(v["end"]["sum_received"]["bytes"].as_u64().unwrap() > 0);
    assert!(
        v["end"]["cpu_utilization_percent"]["remote_total"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let v = iperf3_client(srv.port, &["-R", "-P", "2"]);
    assert_eq!(v["end"]["streams"].as_array().unwrap().len(), 2);
    assert!(
        v["end"]["sum_sent"]["retransmits"].is_i64(),
        "our server reports retransmits"
    );
    assert!(v["end"]["sum_received"]["bytes"].as_u64().unwrap() > 0);
    let v = iperf3_client(srv.port, &["--bidir"]);
    assert!(
        v["end"]["sum_received_bidir_reverse"]["bytes"]
            .as_u64()
            .unwrap()
            > 0
    );
    let v = iperf3_client(srv.port, &["-u", "-b", "20M"]);
    assert!(v["end"]["sum_received"]["packets"].as_i64().unwrap() > 0);
    let v = iperf3_client(srv.port, &["-u", "-b", "20M", "-R"]);
    assert!(v["end"]["sum_received"]["packets"].as_i64().unwrap() > 0);
    let results = srv.stop();
    assert_eq!(results.len(), 5);
    for r in &results {
        let r = r.as_ref().unwrap();
        assert!(r.peer.is_some(), "results exchanged");
        assert!(r.totals.iter().all(|t| t.bytes > 0));
    }
}

#[test]
fn our_client_against_our_server() {
    let srv = OurServer::start(quick_server());
    let mut cfg = ClientConfig::new("127.0.0.1");
    cfg.port = srv.port;
    cfg.params.time_s = 1;
    cfg.params.parallel = 2;
    cfg.params.bidirectional = true;
    let r = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap();
    assert_eq!(r.streams.len(), 4);
    let peer = r.peer.as_ref().unwrap();
    // Ids pair up: what we sent on stream 1 the server received on its stream 1.
    for t in &r.totals {
        let p = peer.streams.iter().find(|s| s.id == t.id).unwrap();
        if t.sender {
            assert!(
                p.bytes <= t.bytes && p.bytes > t.bytes / 2,
                "{} vs {}",
                p.bytes,
                t.bytes
            );
        } else {
            assert!(
                t.bytes <= p.bytes && t.bytes > p.bytes / 2,
                "{} vs {}",
                t.bytes,
                p.bytes
            );
        }
    }
    cfg.params.bidirectional = false;
    cfg.params.parallel = 1;
    cfg.params.protocol = Protocol::Udp;
    cfg.params.bandwidth_bps = Some(10_000_000);
    let r = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap();
    assert!(r.peer.unwrap().streams[0].packets > 0);
    srv.stop();
}

// ---- -n / -k: exactly the budget, as iperf3 ---------------------------------------------

fn sent_bytes(r: &TestReport) -> u64 {
    r.totals.iter().filter(|t| t.sender).map(|t| t.bytes).sum()
}

fn received_bytes(r: &TestReport) -> u64 {
    r.totals.iter().filter(|t| !t.sender).map(|t| t.bytes).sum()
}

/// Our client and our server send exactly the asked bytes or blocks (whole blocks, all
/// streams together), in both directions.
#[test]
fn bytes_and_blocks_are_exact_against_our_server() {
    let srv = OurServer::start(quick_server());
    let run = |bytes: u64, blocks: u64, parallel: u32, reverse: bool, len: u32| {
        let mut cfg = ClientConfig::new("127.0.0.1");
        cfg.port = srv.port;
        cfg.interval_s = 0.0;
        cfg.params.time_s = 0;
        cfg.params.bytes = bytes;
        cfg.params.blocks = blocks;
        cfg.params.parallel = parallel;
        cfg.params.reverse = reverse;
        cfg.params.len = Some(len);
        run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap()
    };
    // 5 MiB in 128 KiB blocks over 3 streams.
    let r = run(5 << 20, 0, 3, false, 128 << 10);
    assert_eq!(sent_bytes(&r), 5 << 20);
    // 1 byte is one whole block, as iperf3 sends it.
    let r = run(1, 0, 1, false, 128 << 10);
    assert_eq!(sent_bytes(&r), 128 << 10);
    // Not a multiple of the block size: rounded up to whole blocks.
    let r = run(1_000_000, 0, 2, false, 64 << 10);
    assert_eq!(sent_bytes(&r), 16 * (64 << 10));
    // -k 100 of 8 KiB.
    let r = run(0, 100, 2, false, 8 << 10);
    assert_eq!(sent_bytes(&r), 100 * (8 << 10));
    // Reverse: the server sends the budget and the client receives all of it.
    let r = run(3 << 20, 0, 2, true, 128 << 10);
    assert_eq!(received_bytes(&r), 3 << 20);
    let r = run(0, 50, 1, true, 128 << 10);
    assert_eq!(received_bytes(&r), 50 * (128 << 10));
    // UDP reverse: the server sends exactly the budget; the client ends when all of it
    // arrived or, with datagrams lost, when data stopped coming.
    let mut cfg = ClientConfig::new("127.0.0.1");
    cfg.port = srv.port;
    cfg.interval_s = 0.0;
    cfg.params.time_s = 0;
    cfg.params.bytes = 1 << 20;
    cfg.params.reverse = true;
    cfg.params.protocol = Protocol::Udp;
    cfg.params.len = Some(1024);
    cfg.params.bandwidth_bps = Some(50_000_000);
    let r = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap();
    assert!(received_bytes(&r) <= 1 << 20);
    let results = srv.stop();
    assert_eq!(results.len(), 7);
    let served: Vec<u64> = results
        .iter()
        .map(|r| sent_bytes(r.as_ref().unwrap()))
        .collect();
    // What our server sent in the three reverse tests.
    assert_eq!(served[4..], [3 << 20, 50 * (128 << 10), 1 << 20]);
}

/// Against iperf3 3.12 both ways: our client's `-n`/`-k` and our server's budget in
/// reverse mode give the exact byte counts iperf3 reports.
#[test]
fn bytes_and_blocks_are_exact_with_iperf3() {
    if !have_iperf3() {
        return;
    }
    let v = our_client_vs_iperf3(&["-n", "20M"]);
    assert_eq!(v["end"]["sum_sent"]["bytes"].as_u64(), Some(20 << 20));
    let v = our_client_vs_iperf3(&["-k", "100", "-P", "2"]);
    assert_eq!(
        v["end"]["sum_sent"]["bytes"].as_u64(),
        Some(100 * (128 << 10))
    );
    let v = our_client_vs_iperf3(&["-n", "1"]);
    assert_eq!(v["end"]["sum_sent"]["bytes"].as_u64(), Some(128 << 10));
    let v = our_client_vs_iperf3(&["-R", "-n", "10M", "-P", "2"]);
    assert_eq!(v["end"]["sum_received"]["bytes"].as_u64(), Some(10 << 20));
    let srv = OurServer::start(quick_server());
    let v = iperf3_client(srv.port, &["-R", "-n", "20M"]);
    assert_eq!(v["end"]["sum_sent"]["bytes"].as_u64(), Some(20 << 20));
    assert_eq!(v["end"]["sum_received"]["bytes"].as_u64(), Some(20 << 20));
    // In reverse mode an iperf3 3.12 client ends a `-k` test on its own count of
    // received blocks, which on a loaded machine can end it before the server sent them
    // all (iperf3 against iperf3 too): never more than the budget, usually all of it.
    let v = iperf3_client(srv.port, &["-R", "-k", "100", "-P", "3"]);
    let sent = v["end"]["sum_sent"]["bytes"].as_u64().unwrap();
    assert!(
        (50 * (128 << 10)..=100 * (128 << 10)).contains(&sent),
        "{sent}"
    );
    // (Not UDP `-R -n` with iperf3 as the client: one lost datagram and it waits forever
    // for the rest of the budget.)
    let v = iperf3_client(srv.port, &["-u", "-b", "50M", "-n", "1M", "-l", "1024"]);
    assert_eq!(v["end"]["sum_sent"]["bytes"].as_u64(), Some(1 << 20));
    srv.stop();
}

// ---- control timeouts, early ends, server output ----------------------------------------

/// A listener that accepts and says nothing (or stops after PARAM_EXCHANGE) is given up
/// on with a clear message instead of a hang.
#[test]
fn client_gives_up_on_a_silent_server() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let mut cfg = ClientConfig::new("127.0.0.1");
    cfg.port = port;
    cfg.params.time_s = 1;
    cfg.connect_timeout = Duration::from_secs(1);
    // The listener never accepts: the connection waits in its backlog, like a firewall
    // or proxy that completes the handshake for an address nobody serves.
    cfg.control_timeout = Duration::from_secs(1);
    let t = Instant::now();
    let e = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap_err();
    assert!(matches!(e, NetError::Timeout(_)), "{e}");
    assert!(
        e.to_string()
            .contains("accepted the connection but sent nothing for 1 s"),
        "{e}"
    );
    assert!(t.elapsed() < Duration::from_secs(5));
    // Asks for the parameters, then goes quiet.
    drop(l);
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    cfg.port = l.local_addr().unwrap().port();
    let h = std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        let mut c = [0u8; proto::COOKIE_SIZE];
        s.read_exact(&mut c).unwrap();
        s.write_all(&[State::ParamExchange.byte()]).unwrap();
        std::thread::sleep(Duration::from_secs(3));
        drop(l);
    });
    let e = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap_err();
    assert!(
        e.to_string()
            .contains("the server sent nothing for 1 s while the test was being set up"),
        "{e}"
    );
    h.join().unwrap();
}

/// A stock client that gives up mid-test says IPERF_DONE: the server says the client
/// ended the test early, in words.
#[test]
fn client_ending_early_is_reported_in_words() {
    let srv = OurServer::start(quick_server());
    let port = srv.port;
    let c = cookie();
    let mut ctrl = raw(port);
    ctrl.write_all(&c).unwrap();
    let mut b = [0u8; 1];
    ctrl.read_exact(&mut b).unwrap();
    ctrl.write_all(&frame(
        br#"{"tcp":true,"time":5,"parallel":1,"reverse":1,"len":131072}"#,
    ))
    .unwrap();
    ctrl.read_exact(&mut b).unwrap();
    assert_eq!(b[0], State::CreateStreams.byte());
    let mut data = TcpStream::connect(("127.0.0.1", port)).unwrap();
    data.write_all(&c).unwrap();
    ctrl.read_exact(&mut b).unwrap();
    ctrl.read_exact(&mut b).unwrap();
    assert_eq!(b[0], State::TestRunning.byte());
    let mut buf = vec![0u8; 1 << 16];
    data.read_exact(&mut buf).unwrap();
    ctrl.write_all(&[State::IperfDone.byte()]).unwrap();
    // The server closes the control connection once it has ended the test.
    let _ = read_all(ctrl);
    drop(data);
    let results = srv.stop();
    let e = results[0].as_ref().unwrap_err();
    assert_eq!(e, "the client ended the test early");
}

/// `--get-server-output`: our server sends its text output in the results, the way
/// iperf3 3.12 does, and our client prints it.
#[test]
fn server_output_on_request() {
    let srv = OurServer::start(quick_server());
    let mut cfg = ClientConfig::new("127.0.0.1");
    cfg.port = srv.port;
    cfg.params.time_s = 1;
    cfg.params.get_server_output = true;
    let r = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap();
    let text = r.peer.as_ref().unwrap().server_output_text.clone().unwrap();
    assert!(
        text.starts_with("Accepted connection from 127.0.0.1, port "),
        "{text}"
    );
    assert!(
        text.contains("[ ID] Interval           Transfer     Bitrate\n"),
        "{text}"
    );
    assert!(text.ends_with(" receiver\n"), "{text}");
    cfg.params.get_server_output = false;
    let r = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap();
    assert!(r.peer.unwrap().server_output_text.is_none());
    if have_iperf3() {
        let v = iperf3_client(srv.port, &["--get-server-output"]);
        let t = v["server_output_text"].as_str().unwrap();
        // The third test of this server starts with the banner, as with iperf3.
        assert!(
            t.starts_with(
                "-----------------------------------------------------------\nServer listening on "
            ),
            "{t}"
        );
        assert!(t.contains("(test #3)\n"), "{t}");
        assert!(t.contains(" receiver\n"), "{t}");
    }
    srv.stop();
}

// ---- robustness -----------------------------------------------------------------------

fn raw(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s
}

fn read_all(mut s: TcpStream) -> Vec<u8> {
    let mut v = Vec::new();
    let _ = s.read_to_end(&mut v);
    v
}

fn cookie() -> [u8; proto::COOKIE_SIZE] {
    proto::Cookie::random().0
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut v = (body.len() as u32).to_be_bytes().to_vec();
    v.extend_from_slice(body);
    v
}

fn still_serves(port: u16) {
    let mut cfg = ClientConfig::new("127.0.0.1");
    cfg.port = port;
    cfg.params.time_s = 1;
    cfg.interval_s = 0.0;
    let r = run_client(&cfg, &CancellationToken::new(), &mut |_| {});
    assert!(r.is_ok(), "server no longer serves: {:?}", r.err());
}

#[test]
fn server_refuses_bad_messages_with_iperf3_errors() {
    let srv = OurServer::start(quick_server());
    let port = srv.port;
    // Length prefix of 4 GiB: refused before allocating, SERVER_ERROR + IERECVPARAMS.
    let mut s = raw(port);
    s.write_all(&cookie()).unwrap();
    s.write_all(&[0xff, 0xff, 0xff, 0xff]).unwrap();
    let got = read_all(s);
    assert_eq!(got, [9, 0xfe, 0, 0, 0, 114, 0, 0, 0, 0]);
    // Not JSON.
    let mut s = raw(port);
    s.write_all(&cookie()).unwrap();
    s.write_all(&frame(b"{\"tcp\": tru")).unwrap();
    assert_eq!(read_all(s), [9, 0xfe, 0, 0, 0, 114, 0, 0, 0, 0]);
    // Valid JSON, refused value: 1000 streams → IENUMSTREAMS (6).
    let mut s = raw(port);
    s.write_all(&cookie()).unwrap();
    s.write_all(&frame(br#"{"tcp":true,"time":1,"parallel":1000}"#))
        .unwrap();
    assert_eq!(read_all(s), [9, 0xfe, 0, 0, 0, 6, 0, 0, 0, 0]);
    // SCTP → IEPROTOCOL (131).
    let mut s = raw(port);
    s.write_all(&cookie()).unwrap();
    s.write_all(&frame(br#"{"sctp":true,"time":1,"parallel":1}"#))
        .unwrap();
    assert_eq!(read_all(s), [9, 0xfe, 0, 0, 0, 131, 0, 0, 0, 0]);
    still_serves(port);
    let results = srv.stop();
    assert_eq!(results.iter().filter(|r| r.is_err()).count(), 4);
}

#[test]
fn server_survives_random_bytes_and_truncations() {
    let srv = OurServer::start(quick_server());
    let port = srv.port;
    let mut seed: u64 = 0x5eed_1234_abcd_0001;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut params = cookie().to_vec();
    params.extend_from_slice(&frame(
        br#"{"tcp":true,"time":1,"parallel":1,"len":131072}"#,
    ));
    for i in 0..24 {
        let mut s = raw(port);
        let payload: Vec<u8> = match i % 3 {
            // Pure garbage of random length.
            0 => (0..(rnd() % 600)).map(|_| rnd() as u8).collect(),
            // A valid start cut anywhere.
            1 => params[..(rnd() as usize % params.len())].to_vec(),
            // Valid parameters, then garbage state bytes.
            _ => {
                let mut v = params.clone();
                v.extend((0..(rnd() % 16)).map(|_| rnd() as u8));
                v
            }
        };
        let _ = s.write_all(&payload);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let _ = read_all(s);
    }
    still_serves(port);
    srv.stop();
}

#[test]
fn half_open_control_connection_times_out_and_others_are_told_busy() {
    let srv = OurServer::start(quick_server());
    let port = srv.port;
    let silent = raw(port);
    std::thread::sleep(Duration::from_millis(200));
    // The server is busy with the silent client: a second one gets ACCESS_DENIED.
    assert_eq!(read_all(raw(port)), [0xff]);
    // After the setup timeout (1 s) the silent one is dropped.
    let t = Instant::now();
    let _ = read_all(silent);
    assert!(t.elapsed() < Duration::from_secs(4));
    still_serves(port);
    srv.stop();
}

#[test]
fn busy_server_answers_access_denied_and_client_says_so() {
    let srv = OurServer::start(quick_server());
    let port = srv.port;
    let first = std::thread::spawn(move || {
        let mut cfg = ClientConfig::new("127.0.0.1");
        cfg.port = port;
        cfg.params.time_s = 2;
        run_client(&cfg, &CancellationToken::new(), &mut |_| {})
    });
    std::thread::sleep(Duration::from_millis(700));
    let mut cfg = ClientConfig::new("127.0.0.1");
    cfg.port = port;
    cfg.params.time_s = 1;
    let e = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap_err();
    assert!(matches!(e, NetError::Busy), "{e}");
    assert_eq!(
        e.to_string(),
        "the server is busy running a test. try again later"
    );
    assert!(first.join().unwrap().is_ok());
    srv.stop();
}

/// A client that sets up one TCP stream by hand, sends a little and closes the stream.
#[test]
fn lost_data_connection_ends_the_test_on_the_server_with_an_error() {
    let srv = OurServer::start(quick_server());
    let port = srv.port;
    let c = cookie();
    let mut ctrl = raw(port);
    ctrl.write_all(&c).unwrap();
    let mut b = [0u8; 1];
    ctrl.read_exact(&mut b).unwrap();
    assert_eq!(b[0], State::ParamExchange.byte());
    ctrl.write_all(&frame(
        br#"{"tcp":true,"time":5,"parallel":1,"len":131072}"#,
    ))
    .unwrap();
    ctrl.read_exact(&mut b).unwrap();
    assert_eq!(b[0], State::CreateStreams.byte());
    let mut data = TcpStream::connect(("127.0.0.1", port)).unwrap();
    data.write_all(&c).unwrap();
    ctrl.read_exact(&mut b).unwrap();
    assert_eq!(b[0], State::TestStart.byte());
    ctrl.read_exact(&mut b).unwrap();
    assert_eq!(b[0], State::TestRunning.byte());
    data.write_all(&vec![0u8; 1 << 20]).unwrap();
    drop(data);
    let t = Instant::now();
    let rest = read_all(ctrl);
    assert!(t.elapsed() < Duration::from_secs(3), "error comes at once");
    assert_eq!(rest[0], State::ServerError.byte(), "{rest:?}");
    let i_errno = i32::from_be_bytes([rest[1], rest[2], rest[3], rest[4]]);
    assert_eq!(i_errno, proto::ierr::IESTREAMREAD);
    let results = srv.stop();
    let e = results[0].as_ref().unwrap_err();
    assert!(e.contains("data connection 1 (receiving) lost"), "{e}");
}

/// A server that sets the test up and then closes the data connection.
#[test]
fn lost_data_connection_ends_the_test_on_the_client_with_an_error() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let fake = std::thread::spawn(move || {
        let (mut ctrl, _) = l.accept().unwrap();
        ctrl.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut c = [0u8; proto::COOKIE_SIZE];
        ctrl.read_exact(&mut c).unwrap();
        ctrl.write_all(&[State::ParamExchange.byte()]).unwrap();
        let _params = proto::read_frame(&mut ctrl, proto::MAX_PARAMS_JSON).unwrap();
        ctrl.write_all(&[State::CreateStreams.byte()]).unwrap();
        let (mut data, _) = l.accept().unwrap();
        data.read_exact(&mut c).unwrap();
        ctrl.write_all(&[State::TestStart.byte(), State::TestRunning.byte()])
            .unwrap();
        let mut buf = vec![0u8; 1 << 16];
        for _ in 0..20 {
            let _ = data.read(&mut buf);
        }
        // Abort with a reset so the client's next write fails at once.
        socket2::SockRef::from(&data)
            .set_linger(Some(Duration::ZERO))
            .unwrap();
        drop(data);
        // The client tells us it gave up.
        let mut b = [0u8; 1];
        ctrl.read_exact(&mut b).map(|_| b[0]).ok()
    });
    let mut cfg = ClientConfig::new("127.0.0.1");
    cfg.port = port;
    cfg.params.time_s = 5;
    let t = Instant::now();
    let e = run_client(&cfg, &CancellationToken::new(), &mut |_| {}).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(3));
    assert!(matches!(e, NetError::StreamLost(_)), "{e}");
    assert!(
        e.to_string()
            .starts_with("data connection 1 (sending) lost"),
        "{e}"
    );
    assert_eq!(fake.join().unwrap(), Some(State::ClientTerminate.byte()));
}

// ---- two network namespaces over a veth pair --------------------------------------------

struct Netns {
    a: String,
    b: String,
}

impl Netns {
    /// `A` (10.201.N.1) and `B` (10.201.N.2) joined by a veth pair; `None` where the kernel
    /// or our privileges do not allow it.
    fn create() -> Option<Self> {
        let id = std::process::id() % 250;
        let (a, b) = (format!("sbcb-a-{id}"), format!("sbcb-b-{id}"));
        let ip = |args: &[&str]| {
            Proc::new("ip")
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| s.success())
                .unwrap_or(false)
        };
        if !ip(&["netns", "add", &a]) {
            eprintln!("SKIP: cannot create network namespaces here (needs root and iproute2)");
            return None;
        }
        let me = Self {
            a: a.clone(),
            b: b.clone(),
        };
        let va = format!("vsa{id}");
        let vb = format!("vsb{id}");
        let ok = ip(&["netns", "add", &b])
            && ip(&[
                "link", "add", &va, "netns", &a, "type", "veth", "peer", "name", &vb, "netns", &b,
            ])
            && ip(&[
                "-n",
                &a,
                "addr",
                "add",
                &format!("10.201.{id}.1/24"),
                "dev",
                &va,
            ])
            && ip(&[
                "-n",
                &b,
                "addr",
                "add",
                &format!("10.201.{id}.2/24"),
                "dev",
                &vb,
            ])
            && ip(&["-n", &a, "link", "set", &va, "up"])
            && ip(&["-n", &b, "link", "set", &vb, "up"])
            && ip(&["-n", &a, "link", "set", "lo", "up"])
            && ip(&["-n", &b, "link", "set", "lo", "up"]);
        if !ok {
            eprintln!("SKIP: cannot set up a veth pair between namespaces");
            return None;
        }
        Some(me)
    }

    fn addr_a(&self) -> String {
        format!("10.201.{}.1", std::process::id() % 250)
    }

    fn exec(&self, ns: &str, prog: &Path, args: &[&str]) -> Proc {
        let mut c = Proc::new("ip");
        c.args(["netns", "exec", ns]).arg(prog).args(args);
        c
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        for n in [&self.a, &self.b] {
            let _ = Proc::new("ip").args(["netns", "del", n]).status();
        }
    }
}

fn ns_listening(ns: &Netns, port: u16) {
    let t = Instant::now();
    loop {
        let out = Proc::new("ip")
            .args([
                "netns",
                "exec",
                &ns.a,
                "cat",
                "/proc/net/tcp",
                "/proc/net/tcp6",
            ])
            .output()
            .unwrap();
        let hex = format!(":{port:04X}");
        if String::from_utf8_lossy(&out.stdout).lines().any(|l| {
            l.split_whitespace()
                .nth(1)
                .is_some_and(|c| c.ends_with(&hex))
                && l.split_whitespace().nth(3) == Some("0A")
        }) {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "nothing listens in the namespace"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn interop_between_namespaces_over_veth() {
    if !have_iperf3() {
        return;
    }
    let Some(ns) = Netns::create() else { return };
    let iperf3 = Path::new("iperf3");
    let ours = bin_path();
    let port = "5299";
    let server_ip = ns.addr_a();

    // iperf3 -s in A, our client in B, reverse so our receive path runs.
    let srv = Kill(
        ns.exec(&ns.a, iperf3, &["-s", "-1", "-p", port])
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    ns_listening(&ns, 5299);
    let out = ns
        .exec(
            &ns.b,
            &ours,
            &[
                "net", "client", &server_ip, "-p", port, "-t", "1", "-R", "-J",
            ],
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&out.stdout);
    assert!(v["end"]["sum_received"]["bytes"].as_u64().unwrap() > 0);
    // The veth interface was found and watched.
    assert_eq!(
        v["sbc_bench"]["observation"]["iface"]["name"],
        format!("vsb{}", std::process::id() % 250)
    );
    drop(srv);

    // Our server in A, iperf3 -c in B.
    let srv = Kill(
        ns.exec(&ns.a, &ours, &["net", "server", "-1", "-p", port])
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    ns_listening(&ns, 5299);
    let out = ns
        .exec(
            &ns.b,
            iperf3,
            &["-c", &server_ip, "-p", port, "-t", "1", "-J"],
        )
        .output()
        .unwrap();
    let v = json(&out.stdout);
    assert!(v.get("error").is_none(), "{}", v["error"]);
    assert!(v["end"]["sum_received"]["bytes"].as_u64().unwrap() > 0);
    drop(srv);
}

// ---- CLI and fixtures -------------------------------------------------------------------

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/net/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn net_info_over_the_nanopi_r5s_fixture() {
    bin()
        .args(["--sysroot", &fixture("nanopi-r5s"), "net", "info"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "eth1: r8125 (0000:01:00.0), up, 2500 Mb/s full duplex, MTU 1500\n  queues: 1 rx, 1 tx; rx-0 RPS 0-1,3, tx-0 XPS off\n  IRQ 87 eth1-0: affinity 2, effective 2; cpu2 9568112\n",
        ))
        .stdout(predicate::str::contains("eth0: rk_gmac-dwmac (fe2a0000.ethernet)"));
    bin()
        .args([
            "--sysroot",
            &fixture("rock5-itx"),
            "net",
            "info",
            "--json",
            "enP4p65s0",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            // One level deeper than before the JSON contract: under `interfaces`.
            "\"effective\": [\n            6\n          ]",
        ));
    bin()
        .args(["--sysroot", &fixture("rock5-itx"), "net", "info", "eth9"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no such interface: eth9"));
    bin().args(["net", "info", "../etc"]).assert().code(2);
}

#[test]
fn client_errors_are_clear() {
    let port = free_port();
    bin()
        .args([
            "net",
            "client",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-t",
            "1",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "sbc-bench net: error - unable to connect to server 127.0.0.1:",
        ));
    bin()
        .args(["net", "client", "h", "-P", "0"])
        .assert()
        .code(2);
    bin()
        .args(["net", "client", "h", "-u", "-l", "70000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("-l must be between"));
    // Every net error reads like iperf3's `iperf3: error - …`, argument checks included.
    bin()
        .args([
            "net",
            "client",
            "127.0.0.1",
            "--iface",
            "nosuch0",
            "-t",
            "1",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "sbc-bench net: error - no such interface: nosuch0",
        ));
    bin()
        .args(["net", "server", "--iface", "nosuch0", "-1"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no such interface: nosuch0"));
    bin()
        .args(["net", "client", "127.0.0.1", "-B", "no-such-host.invalid"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "sbc-bench net: error - unable to resolve bind address no-such-host.invalid",
        ));
    bin()
        .args(["net", "server", "-B", "no-such-host.invalid", "-1"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "sbc-bench net: error - unable to resolve bind address no-such-host.invalid",
        ));
}

/// `-B` takes a host name, as iperf3's does.
#[test]
fn bind_takes_a_host_name() {
    let srv = OurServer::start(quick_server());
    bin()
        .args([
            "net",
            "client",
            "127.0.0.1",
            "-p",
            &srv.port.to_string(),
            "-t",
            "1",
            "-B",
            "localhost",
            "--no-diagnose",
        ])
        .timeout(Duration::from_secs(20))
        .assert()
        .success()
        .stdout(predicate::str::contains("iperf Done."));
    srv.stop();
}

/// `-t 0` runs until stopped, and stopping (SIGINT) still ends with the summary.
#[test]
fn zero_time_runs_until_stopped() {
    let srv = OurServer::start(quick_server());
    let mut c = Proc::new(bin_path())
        .args([
            "net",
            "client",
            "127.0.0.1",
            "-p",
            &srv.port.to_string(),
            "-t",
            "0",
            "-i",
            "0",
            "--no-diagnose",
        ])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(c.try_wait().unwrap().is_none(), "still running after 1.5 s");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(c.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = c.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(" sender\n"), "{text}");
    assert!(text.contains("iperf Done."), "{text}");
    let results = srv.stop();
    assert!(results[0].is_ok(), "{:?}", results[0]);
}

/// The ROCK 5 ITX RX test of the review, replayed on its fixture: interrupts before and
/// after from the review, cpu6 at 100 % (62 % softirq), clocks held at 408 MHz.
#[test]
fn rock5_itx_diagnosis_from_two_samples() {
    use sbc_bench::bench::net::sampler::NetSampler;
    use sbc_bench::sys::root::SysRoot;
    let d = tempfile::tempdir().unwrap();
    let ok = Proc::new("cp")
        .args(["-a", &format!("{}/.", fixture("rock5-itx"))])
        .arg(d.path())
        .status()
        .unwrap();
    assert!(ok.success());
    let root = SysRoot::new(d.path());
    let mut s = NetSampler::new(&root, Some("enP4p65s0"));
    s.sample(&[]);
    let hdr = "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       \n";
    std::fs::write(
        d.path().join("proc/interrupts"),
        format!("{hdr}224:          0          0          0          0          0          0      85905          0   ITS-MSI 570949632 Edge      enP4p65s0-0\n240:          0          0          0          0          0          0      51853          0   ITS-MSI 570949648 Edge      enP4p65s0-16\n242:     112560          0          0          0          0          0          0          0   ITS-MSI 570949650 Edge      enP4p65s0-18\n"),
    )
    .unwrap();
    // 10 s later: cpu6 busy all the time (38 % sys, 62 % softirq), the others nearly idle.
    let mut stat = String::from("cpu  0 0 0 0 0 0 0 0 0 0\n");
    for i in 0..8 {
        if i == 6 {
            stat.push_str("cpu6 500 0 630 100000 12 0 632 0 0 0\n");
        } else {
            stat.push_str(&format!("cpu{i} 510 0 260 100980 12 0 12 0 0 0\n"));
        }
    }
    std::fs::write(d.path().join("proc/stat"), stat).unwrap();
    s.sample(&[]);
    let o = sbc_bench::diagnose::net::observe(&s.finish(), Some(1.30e9), None, None);
    assert_eq!(
        o.nic_irqs_per_cpu.get(&6),
        Some(&(85905 - 597 + 51853 - 46))
    );
    let f = sbc_bench::diagnose::net::diagnose(&o);
    let codes: Vec<&str> = f.iter().map(|f| f.code.as_str()).collect();
    assert!(codes.contains(&"net-irq-bound-core"), "{f:#?}");
    assert!(codes.contains(&"net-low-clocks"), "{f:#?}");
    let irq = &f[codes
        .iter()
        .position(|c| *c == "net-irq-bound-core")
        .unwrap()];
    assert!(
        irq.message
            .starts_with("cpu6 saturated (62 % softirq) serving enP4p65s0 interrupts"),
        "{}",
        irq.message
    );
    let clocks = &f[codes.iter().position(|c| *c == "net-low-clocks").unwrap()];
    assert!(
        clocks
            .message
            .starts_with("clocks of cpu6-7 stayed at 408 MHz during the test (governor powersave)"),
        "{}",
        clocks.message
    );
}
