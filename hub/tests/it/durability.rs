//! What the hub promises about its data: a hub killed (SIGKILL) while uploads stream in
//! loses nothing it answered with a URL; a SIGTERM lets the requests under way finish;
//! `backup` copies the SQLite database consistently while the hub serves; state lives in
//! the database alone, so two hub processes on one database serve the same site.

use std::fs;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{Backend, Hub, fixture_logs, hub_bin, on_each_backend};

/// Runs that are all different: a fixture log under another device name each time.
fn doc(i: usize) -> Vec<u8> {
    let t = fs::read_to_string(fixture_logs().join("Kojb.txt")).unwrap();
    t.replacen("sun55iw3", &format!("sun55iw3 board {i}"), 1)
        .into_bytes()
}

#[test]
fn a_hub_killed_mid_upload_loses_nothing_it_answered_with_a_url() {
    on_each_backend(|b| {
        let mut hub = Hub::start(b, &[]);
        let url = hub.url.clone();
        let answered: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let workers: Vec<_> = (0..4)
            .map(|w| {
                let (url, answered, stop) = (url.clone(), answered.clone(), stop.clone());
                std::thread::spawn(move || {
                    let mut i = w * 100_000;
                    while !stop.load(Ordering::SeqCst) {
                        i += 1;
                        let (ct, body) = sbc_bench::results::share::multipart("l.log", &doc(i));
                        let agent: ureq::Agent = ureq::Agent::config_builder()
                            .http_status_as_error(false)
                            .timeout_global(Some(Duration::from_secs(5)))
                            .build()
                            .into();
                        let Ok(mut r) =
                            agent.post(&url).header("Content-Type", &ct).send(&body[..])
                        else {
                            continue;
                        };
                        if r.status().as_u16() == 201 {
                            if let Ok(u) = r.body_mut().read_to_string() {
                                answered.lock().unwrap().push(u.trim().to_string());
                            }
                        }
                    }
                })
            })
            .collect();
        // Let uploads flow, then kill the hub in the middle of them.
        let t0 = std::time::Instant::now();
        while answered.lock().unwrap().len() < 20 {
            assert!(
                t0.elapsed() < Duration::from_secs(120),
                "uploads are not answered"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        hub.kill();
        stop.store(true, Ordering::SeqCst);
        for w in workers {
            w.join().unwrap();
        }
        let urls = answered.lock().unwrap().clone();
        hub.restart();
        let mut lost = Vec::new();
        for u in &urls {
            let path = u.strip_prefix(&url).unwrap();
            if hub.get(path).status != 200 {
                lost.push(u.clone());
            }
        }
        assert!(
            lost.is_empty(),
            "{}: {} of {} answered uploads lost: {lost:?}",
            b.name(),
            lost.len(),
            urls.len()
        );
        let (results, docs) = sbc_bench_hub::store::totals(&b.open()).unwrap();
        // Every answered one is there; one in flight may have committed unanswered.
        assert!(
            results as usize >= urls.len() && results as usize <= urls.len() + 4,
            "{results} stored, {} answered",
            urls.len()
        );
        assert_eq!(
            results, docs,
            "a result without its document, or the reverse"
        );
    });
}

#[test]
fn sigterm_stops_the_hub_after_the_requests_under_way() {
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &["--request-timeout", "20"]);
    // An upload whose body is still coming when the hub is told to stop.
    let (ct, body) = sbc_bench::results::share::multipart("l.log", &doc(1));
    let mut s = std::net::TcpStream::connect(&hub.addr).unwrap();
    use std::io::{Read, Write};
    s.write_all(format!("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: {ct}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len()).as_bytes()).unwrap();
    s.write_all(&body[..body.len() / 2]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let stopper = std::thread::spawn(move || {
        let mut h = hub;
        h.stop()
    });
    std::thread::sleep(Duration::from_millis(300));
    s.write_all(&body[body.len() / 2..]).unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 201"), "{answer}");
    assert_eq!(
        stopper.join().unwrap(),
        Some(0),
        "the hub's exit status after SIGTERM"
    );
    assert_eq!(sbc_bench_hub::store::totals(&b.open()).unwrap(), (1, 1));
}

#[test]
fn backup_copies_the_database_while_the_hub_serves() {
    let b = Backend::sqlite();
    let hub = Hub::start(&b, &[]);
    for i in 0..5 {
        assert_eq!(hub.upload("l.log", &doc(i)).status, 201);
    }
    let Backend::Sqlite(dir) = &b else {
        unreachable!()
    };
    let out = dir.path().join("copy.sqlite3");
    let r = std::process::Command::new(hub_bin())
        .args(["backup", "--data"])
        .arg(dir.path())
        .arg(&out)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // A second backup onto the same file is refused: nothing is overwritten.
    let again = std::process::Command::new(hub_bin())
        .args(["backup", "--data"])
        .arg(dir.path())
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists"));
    // The copy is a database of its own: a hub serves it.
    let restored = tempfile::tempdir().unwrap();
    fs::copy(&out, restored.path().join(sbc_bench_hub::db::SQLITE_FILE)).unwrap();
    let copy = Backend::Sqlite(restored);
    assert_eq!(sbc_bench_hub::store::totals(&copy.open()).unwrap(), (5, 5));
    let h2 = Hub::start(&copy, &[]);
    assert_eq!(h2.get("api/v1/results.json?status=all").json()["total"], 5);
    drop(hub);
}

#[test]
fn two_hub_processes_on_one_database_serve_one_site() {
    on_each_backend(|b| {
        let one = Hub::start(b, &[]);
        let two = Hub::start(b, &[]);
        let r = one.upload("l.log", &doc(7));
        assert_eq!(r.status, 201);
        let id = r.body.trim().rsplit('/').next().unwrap().to_string();
        assert_eq!(two.get(&format!("results/{id}")).status, 200);
        // The same document through the other: one result.
        let again = two.upload("l.log", &doc(7));
        assert_eq!(again.status, 200);
        assert!(again.body.trim().ends_with(&id));
        assert_eq!(two.get("api/v1/results.json?status=all").json()["total"], 1);
    });
}

#[test]
fn the_systemd_unit_verifies() {
    let Ok(out) = std::process::Command::new("systemd-analyze")
        .arg("--version")
        .output()
    else {
        eprintln!(
            "skipped: systemd-analyze is not installed; contrib/hub/sbc-bench-hub.service is not verified"
        );
        return;
    };
    assert!(out.status.success());
    let unit = fs::read_to_string(crate::common::repo().join("contrib/hub/sbc-bench-hub.service"))
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("sbc-bench-hub.service");
    fs::write(
        &path,
        unit.replace(
            "/usr/local/bin/sbc-bench-hub",
            &hub_bin().display().to_string(),
        ),
    )
    .unwrap();
    let v = std::process::Command::new("systemd-analyze")
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&v.stderr);
    assert!(v.status.success() && !err.contains(".service:"), "{err}");
}
