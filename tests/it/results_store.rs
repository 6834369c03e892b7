//! The results database as users meet it: a run stored when it finishes, logs and run
//! JSON imported once each, listed, shown, exported (redacted) and deleted, and
//! `compare` starting from the last stored run with the stored runs beside the
//! published rows. Every test names its own database (`--db`) in a temp dir.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{bin, copy_tree, sysroot};

fn logs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs")
}

fn stdout(args: &[&str], db: &Path) -> (Option<i32>, String, String) {
    let out = bin().args(args).arg("--db").arg(db).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fake run over a writable copy of `board`, stored in `db`; also writes its JSON.
fn stored_fake_run(tmp: &Path, board: &str, db: &Path) -> (String, PathBuf) {
    let root = tmp.join(format!("root-{board}"));
    copy_tree(&sysroot(board), &root);
    let json = tmp.join(format!("{board}.json"));
    let out = bin()
        .env_remove("MODE")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(tmp.join(format!("{board}.log")))
        .arg("--json")
        .arg(&json)
        .arg("--db")
        .arg(db)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8_lossy(&out.stdout).into_owned(), json)
}

#[test]
fn a_run_is_stored_whole_when_a_database_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("results.db");
    let (out, json) = stored_fake_run(tmp.path(), "rock-5b", &db);
    assert!(
        out.contains(&format!("Stored as run #1 in {}", db.display())),
        "{out}"
    );
    let (code, list, _) = stdout(&["results", "list", "--json"], &db);
    assert_eq!(code, Some(0));
    let doc: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(doc["schema"], "sbc-bench-results-list");
    let rows = &doc["runs"];
    assert_eq!(rows.as_array().unwrap().len(), 1);
    let r = &rows[0];
    assert_eq!(r["source"], "run");
    assert_eq!(r["device"], "Radxa ROCK 5B");
    assert_eq!(r["soc"], "RK3588");
    assert_eq!(r["core_types"], "Cortex-A55, Cortex-A76");
    assert_eq!(r["document_kind"], "sbc-bench-run JSON");
    assert!(r["sevenzip_multi"].as_i64().unwrap() > 0);
    assert!(r["ramlat_128m_ns"].as_f64().unwrap() > 0.0);
    assert_eq!(r["clocks_measured"].as_str().unwrap().split('/').count(), 3);
    // The document stored is the run JSON the run wrote.
    let (code, doc, _) = stdout(&["results", "show", "#1", "--document"], &db);
    assert_eq!(code, Some(0));
    assert_eq!(doc, fs::read_to_string(&json).unwrap());
}

#[test]
fn a_fake_run_without_a_database_stores_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot("x86-vm"), &root);
    let out = bin()
        .env_remove("MODE")
        .env("HOME", tmp.path())
        .arg("--sysroot")
        .arg(&root)
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(tmp.path().join("l.log"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("Stored as run"), "{text}");
    // --no-store wins over --db.
    let db = tmp.path().join("r.db");
    let out = bin()
        .env_remove("MODE")
        .arg("--sysroot")
        .arg(&root)
        .args([
            "run",
            "--fake-benchmarks",
            "--unattended",
            "--no-store",
            "--log",
        ])
        .arg(tmp.path().join("l.log"))
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Stored as run"));
    assert!(!db.exists());
}

#[test]
fn logs_are_imported_once_each_and_an_appended_log_run_by_run() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    // The directory holds 12 logs and their README, which is named as no result: the
    // status says some files were no results (2), not that one could not be read (1).
    let (code, out, err) = stdout(&["results", "import", logs().to_str().unwrap()], &db);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        out.contains("12 stored, 0 stored before, 1 not results, 0 unreadable"),
        "{out}"
    );
    assert!(
        err.contains("not a result: ") && err.contains("README.md: not a result log"),
        "{err}"
    );
    // Again: nothing new.
    let (_, out, _) = stdout(&["results", "import", logs().to_str().unwrap()], &db);
    assert!(out.contains("0 stored, 12 stored before"), "{out}");
    // Two logs appended as ours appends runs: two runs, both known already.
    let a = fs::read_to_string(logs().join("41BH.txt")).unwrap();
    let b = fs::read_to_string(logs().join("3EOw.txt")).unwrap();
    let both = tmp.path().join("sbc-bench.log");
    fs::write(&both, format!("{a}\n\n\n\n{b}")).unwrap();
    let (code, out, _) = stdout(&["results", "import", both.to_str().unwrap()], &db);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("(run 1 of 2)") && out.contains("(run 2 of 2)"),
        "{out}"
    );
    let (_, list, _) = stdout(&["results", "list"], &db);
    assert!(list.contains("Radxa ROCK 5B"), "{list}");
    let (_, show, _) = stdout(&["results", "show", "1"], &db);
    assert!(show.starts_with("#1: import from "), "{show}");
    assert!(show.contains("Row the log states: |"), "{show}");
}

#[test]
fn a_file_that_is_no_result_is_named_and_the_rest_still_stored() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let junk = tmp.path().join("junk.txt");
    fs::write(&junk, "hello\n").unwrap();
    let log = logs().join("3EOw.txt");
    let (code, out, err) = stdout(
        &[
            "results",
            "import",
            junk.to_str().unwrap(),
            log.to_str().unwrap(),
        ],
        &db,
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("junk.txt: not a result log"), "{err}");
    assert!(
        out.contains("1 stored, 0 stored before, 1 not results, 0 unreadable"),
        "{out}"
    );
}

#[test]
fn export_redacts_home_paths_unless_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let home = tmp.path().join("home/alice");
    fs::create_dir_all(&home).unwrap();
    fs::copy(logs().join("41BH.txt"), home.join("rock5b.txt")).unwrap();
    stdout(
        &[
            "results",
            "import",
            home.join("rock5b.txt").to_str().unwrap(),
        ],
        &db,
    );
    for format in ["csv", "json", "yaml"] {
        let (code, out, _) = stdout(&["results", "export", "--format", format], &db);
        assert_eq!(code, Some(0));
        assert!(!out.contains("alice"), "{format}: {out}");
        assert!(out.contains("Radxa ROCK 5B"), "{format}: {out}");
        let (_, raw, _) = stdout(
            &["results", "export", "--format", format, "--no-redact"],
            &db,
        );
        assert!(raw.contains("home/alice/rock5b.txt"), "{format}: {raw}");
    }
    let (_, csv, _) = stdout(&["results", "export"], &db);
    assert!(csv.starts_with("id,stored_at,source,source_path,"), "{csv}");
    assert_eq!(csv.lines().count(), 2);
}

#[test]
fn delete_removes_a_run_and_an_unknown_number_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    stdout(
        &[
            "results",
            "import",
            logs().join("3EOw.txt").to_str().unwrap(),
        ],
        &db,
    );
    let (code, out, _) = stdout(&["results", "delete", "1"], &db);
    assert_eq!((code, out.as_str()), (Some(0), "Deleted run #1.\n"));
    let (code, _, err) = stdout(&["results", "delete", "1"], &db);
    assert_eq!(code, Some(2));
    assert!(err.contains("no stored run #1"), "{err}");
    let (code, _, err) = stdout(&["results", "show", "x"], &db);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a run number"), "{err}");
}

#[test]
fn compare_starts_from_the_last_stored_run_with_stored_rows_beside_published_ones_not_copies() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    stored_fake_run(tmp.path(), "rock-5b", &db);
    stdout(
        &[
            "results",
            "import",
            logs().join("41BH.txt").to_str().unwrap(),
        ],
        &db,
    );
    let (code, out, err) = stdout(&["compare"], &db);
    assert_eq!(code, Some(0), "{err}");
    // The imported log is the published ROCK 5B row's own (results/41BH.txt): shown
    // once, as the published row, and said so (issue 28).
    assert!(
        out.starts_with("Published sbc-bench results for SoC RK3588"),
        "{out}"
    );
    assert!(out.contains("| **this run: Radxa ROCK 5B** |"), "{out}");
    // Issue 31: #2 is the published log 41BH stored: its published row is listed, the
    // stored copy is not a second board.
    // (issue 28: it may be named among the rows not shown, never as a row.)
    assert!(
        !out.lines()
            .any(|l| l.starts_with('|') && l.contains("(stored #2)")),
        "{out}"
    );
    assert!(
        out.contains("| Radxa ROCK 5B (RK3588) | 2350/1830 MHz |"),
        "{out}"
    );
    // The run compared is not also a row beside itself.
    assert!(!out.contains("(stored #1)"), "{out}");
    // By number: the imported log, with the run beside it, and without its own
    // published row (+0 %).
    let (code, out, _) = stdout(&["compare", "#2"], &db);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("(stored #1)") && !out.contains("(stored #2)"),
        "{out}"
    );
    assert!(out.contains("(results/41BH.txt): this run itself"), "{out}");
    assert!(!out.contains("| Radxa ROCK 5B (RK3588) |"), "{out}");
}

#[test]
fn a_database_path_that_is_a_text_file_is_refused_and_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let notes = tmp.path().join("notes.txt");
    fs::write(&notes, "not a database\n".repeat(200)).unwrap();
    let (code, _, err) = stdout(&["results", "list"], &notes);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error: results database "), "{err}");
    assert_eq!(
        fs::read_to_string(&notes).unwrap(),
        "not a database\n".repeat(200)
    );
}

/// A paste service on loopback for one upload: answers `status` with `answer` and hands
/// the request body back.
fn paste_service(status: &str, answer: &str) -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{Read, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", l.local_addr().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let (status, answer) = (status.to_string(), answer.to_string());
    std::thread::spawn(move || {
        let (mut c, _) = l.accept().unwrap();
        c.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 8192];
        let body = loop {
            let n = c.read(&mut chunk).unwrap();
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf).into_owned();
            if let Some(end) = text.find("\r\n\r\n") {
                let len: usize = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                if buf.len() >= end + 4 + len || n == 0 {
                    break text;
                }
            }
        };
        let _ = write!(
            c,
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
            answer.len()
        );
        let _ = tx.send(body);
    });
    (url, rx)
}

#[test]
fn share_uploads_the_redacted_log_and_keeps_a_receipt() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let mut log = fs::read_to_string(logs().join("41BH.txt")).unwrap();
    log.push_str("\neth0: link/ether 8a:3b:2c:1d:0e:ff brd ff:ff:ff:ff:ff:ff\n");
    let file = tmp.path().join("rock5b.txt");
    fs::write(&file, &log).unwrap();
    stdout(&["results", "import", file.to_str().unwrap()], &db);
    // --dry-run sends nothing and shows what would go.
    let (code, dry, _) = stdout(&["share", "#1", "--dry-run"], &db);
    assert_eq!(code, Some(0));
    assert!(
        dry.contains("Radxa ROCK 5B") && !dry.contains("8a:3b:2c:1d:0e:ff"),
        "{dry}"
    );
    let (url, body) = paste_service("200 OK", "http://127.0.0.1/abc.txt\n");
    let (code, out, err) = stdout(&["share", "#1", "--to", &url], &db);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "http://127.0.0.1/abc.txt\n"),
        "{err}"
    );
    let sent = body.recv().unwrap();
    assert!(sent.starts_with("POST / HTTP/1.1\r\n"), "{sent}");
    assert!(sent.contains("multipart/form-data; boundary="), "{sent}");
    assert!(
        sent.contains("name=\"file\"; filename=\"sbc-bench.txt\""),
        "{sent}"
    );
    assert!(sent.contains("Radxa ROCK 5B"), "{sent}");
    assert!(
        !sent.contains("8a:3b:2c:1d:0e:ff"),
        "the MAC address went out"
    );
    let (_, show, _) = stdout(&["results", "show", "1"], &db);
    assert!(
        show.contains("Shared: http://127.0.0.1/abc.txt on "),
        "{show}"
    );
}

#[test]
fn a_failed_upload_says_so_and_keeps_no_receipt() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let log = logs().join("3EOw.txt");
    let before = fs::read(&log).unwrap();
    for (status, answer, says) in [
        (
            "500 Internal Server Error",
            "boom\n",
            "failed: HTTP 500 boom",
        ),
        (
            "200 OK",
            "<html>we moved</html>",
            "answered, but not with a URL",
        ),
    ] {
        let (url, _body) = paste_service(status, answer);
        let (code, out, err) = stdout(&["share", log.to_str().unwrap(), "--to", &url], &db);
        assert_eq!(code, Some(1), "{out}{err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains(says) && err.contains("nothing was shared"),
            "{err}"
        );
    }
    assert_eq!(fs::read(&log).unwrap(), before);
    // Nothing was stored for the failed uploads (the database was not even needed).
    if db.exists() {
        let c = stdout(&["results", "list", "--json"], &db).1;
        let v: serde_json::Value = serde_json::from_str(&c).unwrap();
        assert_eq!(v["runs"], serde_json::json!([]));
    }
}

/// `sbc-bench thermal -M` and `sbc-bench review` store their runs as `run` does, named by
/// their mode; `compare` still starts from the last run with benchmark figures.
#[test]
fn mode_runs_are_stored_with_their_mode_and_compare_skips_runs_without_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    stored_fake_run(tmp.path(), "rock-5b", &db);
    let root = tmp.path().join("root-rock-5b");
    let mode_run = |args: &[&str], name: &str| {
        let out = bin()
            .env_remove("MODE")
            .env_remove("NOTUNING")
            .env_remove("ExecuteCommand")
            .arg("--sysroot")
            .arg(&root)
            .arg("--sysroot-writable")
            .args(args)
            .args([
                "--fake-benchmarks",
                "--unattended",
                "--max-wait",
                "0",
                "--log",
            ])
            .arg(tmp.path().join(format!("{name}.log")))
            .arg("--db")
            .arg(&db)
            .args(if name == "review" {
                &["--", "true"][..]
            } else {
                &[][..]
            })
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            matches!(out.status.code(), Some(0) | Some(3)),
            "{name}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    };
    let out = mode_run(
        &["thermal", "--memory-controller", "--duration", "1"],
        "thermal",
    );
    assert!(out.contains("Stored as run #2 in"), "{out}");
    let out = mode_run(&["review", "--no-benchmarks"], "review");
    assert!(out.contains("Stored as run #3 in"), "{out}");
    let (code, out, err) = stdout(&["results", "list", "--json"], &db);
    assert_eq!(code, Some(0), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let modes: Vec<&serde_json::Value> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["mode"])
        .collect();
    assert_eq!(
        modes,
        [
            &serde_json::Value::Null,
            &"thermal".into(),
            &"review".into()
        ]
    );
    // The thermal and review runs have no row of figures: compare starts from run #1 and
    // lists neither beside it.
    let (code, out, err) = stdout(&["compare"], &db);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("| **this run: Radxa ROCK 5B** |"), "{out}");
    assert!(!out.contains("(stored #"), "{out}");
    // Jeff Geerling's results.yml items: one per stored run, his field names.
    let (code, out, err) = stdout(&["results", "export", "--format", "geerling"], &db);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("items:\n\n- name: \"Radxa ROCK 5B\"\n  arch: \"aarch64\"\n"),
        "{out}"
    );
    assert_eq!(out.matches("\n- name: ").count(), 3, "{out}");
    assert!(out.contains("\n  memory_mb_sec:\n    memcpy: "), "{out}");
    // --no-store wins for a mode too.
    let out = bin()
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args([
            "thermal",
            "--memory-controller",
            "--duration",
            "1",
            "--fake-benchmarks",
            "--unattended",
        ])
        .args(["--max-wait", "0"])
        .args(["--no-store", "--log"])
        .arg(tmp.path().join("t2.log"))
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Stored as run"));
}

/// Issue 31: our log and our JSON of one run give one record: the same Results.md row
/// (our log of a single-cluster board used to give the highest AES row instead of the
/// mean of openssl's two runs), the same indexed figures, and one stored row for both.
#[test]
fn our_log_and_json_of_every_board_give_one_record_and_store_once() {
    use sbc_bench::record::log_record::{LogWriter, NEWEST_RULES};
    use sbc_bench::results::document;
    let tmp = tempfile::tempdir().unwrap();
    for board in crate::common::BOARDS {
        let root = tmp.path().join(format!("root-{board}"));
        copy_tree(&sysroot(board), &root);
        let log = tmp.path().join(format!("{board}.log"));
        let json = tmp.path().join(format!("{board}.json"));
        let out = bin()
            .env_remove("MODE")
            .arg("--sysroot")
            .arg(&root)
            .arg("--sysroot-writable")
            .args([
                "run",
                "--fake-benchmarks",
                "--unattended",
                "--no-store",
                "--log",
            ])
            .arg(&log)
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        assert!(matches!(out.status.code(), Some(0) | Some(3)), "{board}");
        let log_text = fs::read_to_string(&log).unwrap();
        let json_text = fs::read_to_string(&json).unwrap();
        let a = document::parse(&log_text).unwrap();
        let b = document::parse(&json_text).unwrap();
        assert_eq!(a.record.writer, LogWriter::Ours, "{board}");
        assert_eq!(a.record.rules, NEWEST_RULES, "{board}");
        let (ra, rb) = (&a.log.results_row, &b.log.results_row);
        assert_eq!(ra.render(), rb.render(), "{board}: the row");
        for (what, x, y) in [
            ("aes", ra.aes256_16k, rb.aes256_16k),
            ("memcpy", ra.memcpy_mb_s, rb.memcpy_mb_s),
            ("memset", ra.memset_mb_s, rb.memset_mb_s),
        ] {
            match (x, y) {
                (Some(x), Some(y)) => assert!((x - y).abs() <= 0.05, "{board} {what}: {x} {y}"),
                (x, y) => assert_eq!(x, y, "{board} {what}"),
            }
        }
        assert_eq!(
            (ra.sevenzip_multi, ra.sevenzip_single),
            (rb.sevenzip_multi, rb.sevenzip_single),
            "{board}"
        );
        assert_eq!(a.extra.clocks_mhz, b.extra.clocks_mhz, "{board}");
        assert_eq!(a.extra.ramlat_16m_ns, b.extra.ramlat_16m_ns, "{board}");
        assert_eq!(a.extra.ramlat_128m_ns, b.extra.ramlat_128m_ns, "{board}");
        assert_eq!(a.log.date_utc, b.log.date_utc, "{board}");
        assert!(a.log.date_utc.is_some(), "{board}");
        // Imported both ways: one row, the run JSON's.
        let db = tmp.path().join(format!("{board}.db"));
        let (code, out, err) = stdout(
            &[
                "results",
                "import",
                log.to_str().unwrap(),
                json.to_str().unwrap(),
            ],
            &db,
        );
        assert_eq!(code, Some(0), "{board}: {out}{err}");
        assert!(
            out.contains("its run JSON replaces it there"),
            "{board}: {out}"
        );
        let (_, list, _) = stdout(&["results", "list", "--json"], &db);
        let v: serde_json::Value = serde_json::from_str(&list).unwrap();
        let runs = v["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1, "{board}: {list}");
        assert_eq!(runs[0]["document_kind"], document::FORMAT_RUN_JSON);
    }
}

/// Issue 31: the history of one device's stored runs (three published Radxa ROCK 5A
/// logs, 2022 and 2024) in date order, and runs side by side on every metric.
#[test]
fn compare_history_and_side_by_side_over_stored_published_logs() {
    let Some(corpus) = crate::common::corpus_logs() else {
        eprintln!("skipped: the corpus is not here");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    // Imported newest first: the history still goes by date.
    for f in ["C6zgdP", "3XYo", "3XTA"] {
        let p = corpus.join(format!("{f}.txt"));
        let (code, out, err) = stdout(&["results", "import", p.to_str().unwrap()], &db);
        assert_eq!(code, Some(0), "{f}: {out}{err}");
    }
    let (code, out, err) = stdout(
        &["compare", "--history", "--device", "ROCK 5A", "--json"],
        &db,
    );
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "sbc-bench-compare-runs");
    let runs: Vec<&str> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[0].as_str().unwrap())
        .collect();
    assert_eq!(runs.len(), 3, "{out}");
    assert!(runs[0].starts_with("#3 2022-05-16"), "{runs:?}");
    assert!(runs[2].starts_with("#1 2024-04-19"), "{runs:?}");
    assert_eq!(v["lines"].as_array().unwrap().len(), 8);
    // Every move names its threshold, at least the 3 % noise floor.
    for m in v["moves"].as_array().unwrap() {
        assert!(m["threshold_pct"].as_f64().unwrap() >= 3.0, "{m}");
    }
    let (_, text, _) = stdout(&["compare", "--history", "--device", "ROCK 5A"], &db);
    assert!(text.contains("| latency 128 MiB (ns) ↓ |"), "{text}");
    assert!(
        text.contains("Moves beyond the run-to-run spread:")
            || text.contains("No metric moved beyond"),
        "{text}"
    );
    let (code, text, err) = stdout(&["compare", "#1", "--with", "#2", "--with", "#3"], &db);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        text.starts_with("| Metric | #1 Radxa ROCK 5A | #2 Radxa ROCK 5A | #3 Radxa ROCK 5A |"),
        "{text}"
    );
    assert!(text.contains("| 7-Zip multi (MIPS) ↑ |"), "{text}");
    assert!(
        text.contains(" of 3)"),
        "the spread of 7-Zip's runs: {text}"
    );
}

// Issue 27, item 10: `results import`, `list` and `show` echoed `ESC]0;…BEL ESC[2J` from a
// device name to the terminal: escaped, as the net client does with a peer's text.
#[test]
fn terminal_escapes_in_a_device_name_are_never_printed_raw() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    let evil = "Evil\u{1b}]0;owned\u{7}\u{1b}[2JBoard";
    let log = fs::read_to_string(logs().join("41BH.txt"))
        .unwrap()
        .replace("Radxa ROCK 5B", evil);
    let f = tmp.path().join("evil.txt");
    fs::write(&f, log).unwrap();
    let (code, out, err) = stdout(&["results", "import", f.to_str().unwrap()], &db);
    assert_eq!(code, Some(0), "{err}");
    for (what, text) in [
        ("import", out),
        ("list", stdout(&["results", "list"], &db).1),
        ("show", stdout(&["results", "show", "1"], &db).1),
        ("parse", {
            let o = bin().args(["results", "parse"]).arg(&f).output().unwrap();
            String::from_utf8_lossy(&o.stdout).into_owned()
        }),
    ] {
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{what}: {text:?}"
        );
        assert!(text.contains("Evil\\x1b]0;owned\\x07"), "{what}: {text}");
    }
}

// Issue 27, item 12: 2 of 4 concurrent imports into a new database failed (`table runs
// already exists`, `UNIQUE constraint failed: runs.sha256`, the rest of that import
// dropped). All four succeed, every log stored once.
#[test]
fn four_concurrent_imports_into_a_new_database_all_succeed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("logs");
    fs::create_dir(&dir).unwrap();
    for f in ["41BH.txt", "3EOw.txt", "3MGN.txt", "4IT1.txt", "Kojb.txt"] {
        fs::copy(logs().join(f), dir.join(f)).unwrap();
    }
    for round in 0..3 {
        let db = tmp.path().join(format!("new{round}.db"));
        // Started together, then waited for: they race for the new file.
        let children: Vec<_> = (0..4)
            .map(|_| {
                std::process::Command::new(assert_cmd::cargo::cargo_bin("sbc-bench"))
                    .env("NO_COLOR", "1")
                    .env_remove("SBC_BENCH_DB")
                    .args(["results", "import"])
                    .arg(&dir)
                    .arg("--db")
                    .arg(&db)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut stored = 0;
        for c in children {
            let out = c.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "round {round}: {text}{err}");
            let summary = text.lines().last().unwrap_or_default();
            stored += summary
                .split(' ')
                .next()
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap();
        }
        assert_eq!(stored, 5, "round {round}: each log stored once in all");
        let (_, list, _) = stdout(&["results", "list"], &db);
        assert_eq!(list.lines().count(), 6, "{list}");
    }
}

// Issue 27, item 12: an import into a database with a corrupt page exited 0 and wrote on
// top of it (30/30). It is refused, with a clear message, and left as it was.
#[test]
fn a_damaged_database_is_refused_and_left_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    stdout(
        &[
            "results",
            "import",
            logs().join("41BH.txt").to_str().unwrap(),
            logs().join("3EOw.txt").to_str().unwrap(),
        ],
        &db,
    );
    let mut bytes = fs::read(&db).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    assert!(bytes.len() >= 3 * page);
    // The second page: garbage over its b-tree header.
    for b in &mut bytes[page..page + 64] {
        *b = 0xa5;
    }
    fs::write(&db, &bytes).unwrap();
    for args in [
        vec![
            "results",
            "import",
            logs().join("4IT1.txt").to_str().unwrap(),
        ],
        vec!["results", "list"],
    ] {
        let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        let (code, _, err) = stdout(&refs, &db);
        assert!(matches!(code, Some(1 | 2)), "{args:?}: {err}");
        assert!(err.contains("is damaged"), "{err}");
        assert_eq!(fs::read(&db).unwrap(), bytes, "left as it was");
    }
}

// Issue 27, item 12: a database that refuses writes failed `import` with 1 but `delete`
// with 2 (a usage error); both say it once (`database or disk is full: database or disk
// is full` was printed twice over).
#[test]
fn a_database_that_refuses_writes_fails_import_and_delete_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("r.db");
    stdout(
        &[
            "results",
            "import",
            logs().join("41BH.txt").to_str().unwrap(),
        ],
        &db,
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER no_insert BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;
         CREATE TRIGGER no_delete BEFORE DELETE ON runs BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;",
    )
    .unwrap();
    drop(conn);
    let (import, _, ierr) = stdout(
        &[
            "results",
            "import",
            logs().join("3EOw.txt").to_str().unwrap(),
        ],
        &db,
    );
    let (delete, _, derr) = stdout(&["results", "delete", "1"], &db);
    assert_eq!(import, Some(1), "{ierr}");
    assert_eq!(delete, Some(1), "{derr}");
    for e in [ierr, derr] {
        assert_eq!(e.matches("database or disk is full").count(), 1, "{e}");
    }
}
