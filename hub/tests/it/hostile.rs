//! Bad input, each case named: what a broken client, a pasted log or an attacker sends gets
//! a clear 4xx answer, nothing is stored half (the rows counted before and after), and
//! the hub keeps serving others (a request after each case, and one beside the slow ones).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::common::{Backend, Hub, fixture_logs, on_each_backend};

fn counts(b: &Backend) -> (u64, u64) {
    sbc_bench_hub::store::totals(&b.open()).unwrap()
}

fn still_serving(hub: &Hub) {
    let r = hub.get("healthz");
    assert_eq!((r.status, r.body.as_str()), (200, "ok\n"));
}

/// The hostile logs: what `results import` must survive, as uploads.
fn hostile_logs() -> Vec<(&'static str, Vec<u8>)> {
    let good = std::fs::read_to_string(fixture_logs().join("Kojb.txt")).unwrap();
    let head: String = good.lines().take(3).collect::<Vec<_>>().join("\n");
    vec![
        ("empty", Vec::new()),
        ("blanks only", b"  \n\n\t\n".to_vec()),
        ("binary", (0u8..=255).cycle().take(4096).collect()),
        ("NUL in a log", format!("{head}\n\0\0\0").into_bytes()),
        ("not a log at all", b"Hello, I am a cat picture.\n".to_vec()),
        ("header only, truncated", format!("{head}\n").into_bytes()),
        (
            "a JSON that is no run",
            br#"{"schema": "something-else", "schema_version": 1}"#.to_vec(),
        ),
        (
            "a JSON from a newer sbc-bench",
            br#"{"schema": "sbc-bench-run", "schema_version": 999}"#.to_vec(),
        ),
        (
            "a truncated JSON",
            b"{\"schema\": \"sbc-bench-run\", \"schema_ver".to_vec(),
        ),
        (
            "a JSON bomb (nesting)",
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
        ),
        (
            "a JSON bomb (nested objects)",
            "{\"a\":".repeat(50_000).into_bytes(),
        ),
        ("one huge line", vec![b'x'; 2 << 20]),
        ("Latin-1 mixed into UTF-8", {
            let mut v =
                b"sbc-bench v0.9.72 Caf\xe9 board (Mon, 10 Nov 2025 23:46:00 +0800)\n".to_vec();
            v.extend_from_slice(b"\xff\xfe garbage \xc3\x28\n");
            v
        }),
    ]
}

#[test]
fn hostile_logs_get_a_clear_4xx_and_nothing_is_stored() {
    on_each_backend(|b| {
        let hub = Hub::start(b, &[]);
        for (name, body) in hostile_logs() {
            let r = hub.upload("x.log", &body);
            // A Latin-1 log that still reads as a log (a header, nothing else) is a 422 too:
            // it holds no figures. Every case is a 4xx with a sentence.
            assert!(
                (400..500).contains(&r.status),
                "{name}: {} {}",
                r.status,
                r.body
            );
            assert!(r.body.starts_with("error: "), "{name}: {}", r.body);
            assert!(r.body.len() < 1000, "{name}: {}", r.body);
            assert_eq!(counts(b), (0, 0), "{name} stored something");
            // As a JSON POST as well.
            let r = hub.post("/api/v1/results", "application/json", &body);
            assert!(
                (400..500).contains(&r.status),
                "{name} (JSON): {} {}",
                r.status,
                r.body
            );
            assert_eq!(r.json()["schema"], "sbc-bench-hub-error", "{name}");
            still_serving(&hub);
        }
        assert_eq!(counts(b), (0, 0));
    });
}

#[test]
fn truncated_and_oversized_uploads() {
    on_each_backend(|b| {
        let hub = Hub::start(b, &["--max-upload-kib", "256"]);
        let log = std::fs::read(fixture_logs().join("Kojb.txt")).unwrap();
        // Over the limit: 413, as a multipart part and as a body.
        let big: Vec<u8> = log.iter().cycle().take(300 * 1024).copied().collect();
        let r = hub.upload("big.log", &big);
        assert_eq!(r.status, 413, "{}", r.body);
        let r = hub.post("/api/v1/results", "application/json", &big);
        assert_eq!(r.status, 413, "{}", r.body);
        // A multipart body cut in the middle (its closing boundary never comes).
        let (ct, body) = sbc_bench::results::share::multipart("k.log", &log);
        let cut = &body[..body.len() / 2];
        let req = format!(
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: {ct}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            cut.len()
        );
        let mut raw = req.into_bytes();
        raw.extend_from_slice(cut);
        let answer = hub.raw(&raw);
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        // A Content-Length larger than what is sent, then the client gives up.
        let mut s = TcpStream::connect(&hub.addr).unwrap();
        s.write_all(
            format!(
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: {ct}\r\nContent-Length: {}\r\n\r\n",
                body.len() * 2
            )
            .as_bytes(),
        )
        .unwrap();
        s.write_all(&body).unwrap();
        drop(s);
        // A multipart form without a `file` part; a type the hub does not take.
        let r = hub.post(
            "/",
            "multipart/form-data; boundary=XYZ",
            b"--XYZ\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nhi\r\n--XYZ--\r\n",
        );
        assert_eq!(r.status, 400, "{}", r.body);
        assert!(r.body.contains("no `file` part"), "{}", r.body);
        let r = hub.post("/", "image/png", b"\x89PNG");
        assert_eq!(r.status, 415, "{}", r.body);
        let r = hub.post("/", "multipart/form-data", b"x");
        assert_eq!(r.status, 400, "{}", r.body);
        assert_eq!(counts(b), (0, 0));
        still_serving(&hub);
        // A real one still goes in.
        assert_eq!(hub.upload("k.log", &log).status, 201);
        assert_eq!(counts(b), (1, 1));
    });
}

#[test]
fn a_multipart_body_that_never_ends_is_cut_off_and_others_are_served_meanwhile() {
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &["--request-timeout", "2", "--max-upload-kib", "512"]);
    // Chunked, a part that keeps coming slowly and never closes.
    let mut slow = TcpStream::connect(&hub.addr).unwrap();
    slow.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
    let first = b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"l\"\r\n\r\nsbc-bench v0.9.72 x\n";
    slow.write_all(format!("{:x}\r\n", first.len()).as_bytes())
        .unwrap();
    slow.write_all(first).unwrap();
    slow.write_all(b"\r\n").unwrap();
    // And one that streams fast and never ends: it meets the size limit.
    let mut fast = TcpStream::connect(&hub.addr).unwrap();
    fast.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
    let part = b"--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"l\"\r\n\r\n";
    fast.write_all(format!("{:x}\r\n", part.len()).as_bytes())
        .unwrap();
    fast.write_all(part).unwrap();
    fast.write_all(b"\r\n").unwrap();
    let chunk = vec![b'a'; 64 * 1024];
    let mut sent = 0usize;
    fast.set_write_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let t0 = Instant::now();
    // The hub stops reading at its limit: the socket's buffers fill (a few MiB on
    // loopback) and writing fails or blocks, long before 64 MiB.
    while t0.elapsed() < Duration::from_secs(20) && sent < 64 << 20 {
        let ok = fast
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .is_ok()
            && fast.write_all(&chunk).is_ok()
            && fast.write_all(b"\r\n").is_ok();
        if !ok {
            break;
        }
        sent += chunk.len();
    }
    assert!(
        sent < 64 << 20,
        "the hub took {sent} bytes of an endless body"
    );
    fast.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = fast.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 413"),
        "after {sent} bytes: {answer}"
    );
    // Meanwhile, others are served.
    let t = Instant::now();
    still_serving(&hub);
    assert!(t.elapsed() < Duration::from_secs(2));
    // The slow one is cut off at the request timeout with a 408.
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(500));
        let _ = slow.write_all(b"5\r\nmore\n\r\n");
    }
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = slow.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert_eq!(counts(&b), (0, 0));
}

#[test]
fn a_slowloris_is_cut_off_at_the_head_timeout_and_others_are_served() {
    let b = Backend::sqlite();
    let hub = Hub::start(
        &b,
        &[
            "--header-timeout",
            "1",
            "--max-connections-per-address",
            "40",
        ],
    );
    let mut slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(&hub.addr).unwrap();
            s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").unwrap();
            s
        })
        .collect();
    // A header line every 300 ms: the head never completes.
    let t0 = Instant::now();
    let mut closed = 0;
    while t0.elapsed() < Duration::from_secs(4) {
        std::thread::sleep(Duration::from_millis(300));
        still_serving(&hub);
        closed = 0;
        for s in &mut slow {
            if s.write_all(b"X-Slow: 1\r\n").is_err() {
                closed += 1;
            }
        }
    }
    let mut cut = 0;
    for s in &mut slow {
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut buf = [0u8; 256];
        match s.read(&mut buf) {
            Ok(0) | Err(_) => cut += 1,
            Ok(n) => {
                let text = String::from_utf8_lossy(&buf[..n]);
                assert!(
                    text.starts_with("HTTP/1.1 408") || text.starts_with("HTTP/1.1 4"),
                    "{text}"
                );
                cut += 1;
            }
        }
    }
    assert_eq!(cut, 20, "{closed} closed while writing");
}

#[test]
fn connections_over_the_per_address_cap_are_refused_at_once() {
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &["--max-connections-per-address", "5"]);
    let held: Vec<TcpStream> = (0..5)
        .map(|_| TcpStream::connect(&hub.addr).unwrap())
        .collect();
    // The hub counts a connection when it accepts it: wait until the sixth is refused.
    let t0 = Instant::now();
    let refused = loop {
        let extra = hub.raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        if extra.starts_with("HTTP/1.1 503") || t0.elapsed() > Duration::from_secs(10) {
            break extra;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.contains("too many connections"));
    drop(held);
    std::thread::sleep(Duration::from_millis(300));
    still_serving(&hub);
}

#[test]
fn an_oversized_request_head_is_refused() {
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &[]);
    let long = format!(
        "GET /?soc={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    let answer = hub.raw(long.as_bytes());
    assert!(
        answer.starts_with("HTTP/1.1 431")
            || answer.starts_with("HTTP/1.1 400")
            || answer.is_empty(),
        "{answer}"
    );
    let many: String = (0..200).map(|i| format!("X-H{i}: v\r\n")).collect();
    let answer =
        hub.raw(format!("GET / HTTP/1.1\r\nHost: x\r\n{many}Connection: close\r\n\r\n").as_bytes());
    assert!(
        answer.starts_with("HTTP/1.1 431") || answer.starts_with("HTTP/1.1 400"),
        "{answer}"
    );
    still_serving(&hub);
}

#[test]
fn sql_and_html_injection_in_every_field_is_inert() {
    on_each_backend(|b| {
        let hub = Hub::start(b, &[]);
        let evil = "x'); DROP TABLE results; -- <script>alert(1)</script> \"><img src=x onerror=alert(2)> | [a](javascript:alert(3))";
        let good = std::fs::read_to_string(fixture_logs().join("Kojb.txt")).unwrap();
        // The device (header), the kernel and distro cells, the SoC guess: all from the log.
        let mut text = good.replacen("sun55iw3", evil, 1);
        text = text.replace("SoC guess: ", &format!("SoC guess: {evil} "));
        let r = hub.upload("evil.log", text.as_bytes());
        assert_eq!(r.status, 201, "{}", r.body);
        let id = r
            .body
            .trim()
            .rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".html")
            .to_string();
        let page = hub.get(&format!("results/{id}.html")).body;
        assert!(!page.contains("<script>alert"), "unescaped script");
        assert!(!page.contains("<img src=x"), "unescaped img");
        assert!(
            page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{page}"
        );
        let all = hub.get("/?status=all").body;
        assert!(!all.contains("<script>") && all.contains("&lt;script&gt;"));
        // The table is still there, and so is everything else.
        assert_eq!(counts(b), (1, 1));
        // Filters and sorts with SQL in them: bound as values, or refused.
        for q in [
            "?soc=x%27%29%3B%20DROP%20TABLE%20results%3B%20--",
            "?core=%25%27%20OR%201%3D1%20--",
            "?kernel=1%27%20OR%20%271%27%3D%271",
            "?distro=%5C%25",
            "?status=all&soc=%3Cscript%3E",
        ] {
            let r = hub.get(q);
            assert_eq!(r.status, 200, "{q}");
            assert!(!r.body.contains("<script>"), "{q}");
        }
        for q in [
            "?sort=id;DROP%20TABLE%20results",
            "?dir=desc;--",
            "?status=verified%27--",
            "?since=2020-01-01%27",
        ] {
            assert_eq!(hub.get(q).status, 400, "{q}");
        }
        let md = hub.get("Results.md?x=1").body;
        assert!(!md.contains("[a](javascript"), "{md}");
        assert_eq!(counts(b), (1, 1));
        let list = hub.get("api/v1/results.json?status=all").json();
        assert_eq!(list["total"], 1);
        assert!(
            list["results"][0]["device"]
                .as_str()
                .unwrap()
                .contains("DROP TABLE")
        );
    });
}

#[test]
fn path_traversal_in_every_url_finds_nothing() {
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &[]);
    let log = std::fs::read(fixture_logs().join("Kojb.txt")).unwrap();
    assert_eq!(hub.upload("k.log", &log).status, 201);
    for path in [
        "/../../../../etc/passwd",
        "/results/../../../etc/passwd",
        "/results/..%2f..%2f..%2fetc%2fpasswd.txt",
        "/results/%2e%2e%2f%2e%2e%2fetc%2fpasswd.txt",
        "/results/....//....//etc/passwd.txt",
        "/soc/..%2f..%2fhub.sqlite3.html",
        "/device/%2e%2e.html",
        "/reviews/..%5c..%5cetc%5cpasswd.html",
        "/api/v1/results/..%2fhub.sqlite3.json",
        "/api/v1/soc/..%2f..%2fetc.json",
        "/hub.sqlite3",
        "/hub.sqlite3-wal",
        "/results/%00.txt",
        "/export/../hub.sqlite3",
        "/static/../../etc/passwd",
        "//etc/passwd",
        "/results/87lq.txt%00.html",
    ] {
        let raw = hub
            .raw(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes());
        let status: u16 = raw.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
        assert!((400..500).contains(&status), "{path}: {raw}");
        assert!(
            !raw.contains("root:") && !raw.contains("SQLite format"),
            "{path}: {raw}"
        );
    }
    still_serving(&hub);
}
