//! Issue 27, item 5: no blocking open, anywhere. Opening a FIFO for reading blocks until
//! a writer appears, and the read watchdog bounds reads, not opens: `monitor` and
//! `review` hung for ever on a FIFO at `/proc/loadavg` (x86-vm) or
//! `thermal_zone0/temp` (rpi4), and so did `CPUINFOFILE=FIFO` and `monitor --scores
//! FIFO`. Each entry point ends within its deadline — also on trees where *every* file
//! is a FIFO.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as Std, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{copy_tree, sysroot};

fn mkfifo(p: &Path) {
    let _ = fs::remove_file(p);
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path we own.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
        0,
        "{}",
        p.display()
    );
}

/// A copy of `board` with each of `files` (relative, links followed) a FIFO.
fn tree_with_fifos(board: &str, files: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot(board), &root);
    for f in files {
        mkfifo(&fs::canonicalize(root.join(f)).unwrap());
    }
    (tmp, root)
}

/// A copy of `board` whose every regular file under `proc/`, `sys/` and `etc/` is a FIFO.
fn all_fifos(board: &str) -> (tempfile::TempDir, PathBuf) {
    fn walk(d: &Path) {
        for e in fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            let ty = e.file_type().unwrap();
            if ty.is_dir() {
                walk(&e.path());
            } else if ty.is_file() {
                mkfifo(&e.path());
            }
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot(board), &root);
    for d in ["proc", "sys", "etc"] {
        if root.join(d).is_dir() {
            walk(&root.join(d));
        }
    }
    (tmp, root)
}

fn sbc_bench(root: &Path) -> Std {
    let mut c = Std::new(assert_cmd::cargo::cargo_bin("sbc-bench"));
    c.env("NO_COLOR", "1")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("SBC_BENCH_DB")
        .env_remove("CPUINFOFILE")
        .env("SBC_BENCH_LIBDIR", "/nonexistent/sbc-bench-libdir")
        .arg("--sysroot")
        .arg(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Run `c`; it must end within `secs` (killed and failed otherwise) and not panic.
fn ends_within(mut c: Std, secs: u64, what: &str) -> Output {
    let mut child = c.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what} did not end within {secs} s (hung in open?)\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_ne!(
        out.status.code(),
        Some(101),
        "{what} panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `review --fake-benchmarks` over `root` reaches its waiting phase within `secs` (a
/// blocked open would keep it from ever getting there), then stops on SIGTERM.
fn review_reaches_its_waiting_phase(root: &Path, secs: u64) {
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("r.json");
    let mut c = sbc_bench(root);
    c.args([
        "review",
        "--fake-benchmarks",
        "--unattended",
        "--no-store",
        "--log",
    ])
    .arg(tmp.path().join("l.log"))
    .arg("--json")
    .arg(&json)
    .arg("--review")
    .arg(tmp.path().join("review.md"));
    let mut child = c.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let waiting = fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v["review"]["waiting"].is_object());
        if waiting {
            break;
        }
        if let Some(st) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            panic!(
                "review ended before its waiting phase: {st}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "review did not reach its waiting phase within {secs} s (hung in open?)\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) of our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let st = child.wait().unwrap();
    assert!(matches!(st.code(), Some(0 | 3)), "{st}");
}

#[test]
fn monitor_with_a_fifo_at_proc_loadavg_ends() {
    let (_t, root) = tree_with_fifos("x86-vm", &["proc/loadavg"]);
    let mut c = sbc_bench(&root);
    c.args(["monitor", "0.1", "-n", "2"]);
    let out = ends_within(c, 20, "monitor");
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("/proc/loadavg (a FIFO, not a regular file)"),
        "{err}"
    );
}

#[test]
fn monitor_and_review_with_a_fifo_thermal_sensor_end() {
    let (_t, root) = tree_with_fifos("rpi4", &["sys/class/thermal/thermal_zone0/temp"]);
    let mut c = sbc_bench(&root);
    c.args(["monitor", "0.1", "-n", "2"]);
    assert_eq!(ends_within(c, 20, "monitor").status.code(), Some(0));
    review_reaches_its_waiting_phase(&root, 60);
}

#[test]
fn info_with_fifos_where_files_were_ends() {
    for (board, f) in [
        ("x86-vm", "proc/loadavg"),
        ("rpi4", "sys/class/thermal/thermal_zone0/temp"),
    ] {
        let (_t, root) = tree_with_fifos(board, &[f]);
        let mut c = sbc_bench(&root);
        c.arg("info");
        assert_eq!(ends_within(c, 20, "info").status.code(), Some(0), "{board}");
    }
}

#[test]
fn every_file_a_fifo_info_monitor_and_review_still_end() {
    for board in ["x86-vm", "rpi4"] {
        let (_t, root) = all_fifos(board);
        let mut c = sbc_bench(&root);
        c.arg("info");
        ends_within(c, 30, &format!("info on {board}"));
        let mut c = sbc_bench(&root);
        c.args(["monitor", "0.1", "-n", "2"]);
        ends_within(c, 30, &format!("monitor on {board}"));
        review_reaches_its_waiting_phase(&root, 90);
    }
}

#[test]
fn cpuinfofile_fifo_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("cpuinfo");
    mkfifo(&fifo);
    let mut c = sbc_bench(&sysroot("x86-vm"));
    c.env("CPUINFOFILE", &fifo).arg("info");
    let out = ends_within(c, 10, "info with CPUINFOFILE=FIFO");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a FIFO, not a cpuinfo file"), "{err}");
}

#[test]
fn monitor_scores_fifo_and_device_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("scores.json");
    mkfifo(&fifo);
    for scores in [fifo.as_path(), Path::new("/dev/zero")] {
        let mut c = sbc_bench(&sysroot("x86-vm"));
        c.args(["monitor", "0.1", "-n", "1", "--quiet", "--textfile"])
            .arg(tmp.path())
            .arg("--scores")
            .arg(scores);
        let out = ends_within(c, 10, "monitor --scores");
        assert_eq!(out.status.code(), Some(2), "{}", scores.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a regular file"), "{err}");
    }
}

#[test]
fn a_fifo_journal_does_not_hang_restore() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot("x86-vm"), &root);
    fs::create_dir_all(root.join("run/sbc-bench")).unwrap();
    mkfifo(&root.join("run/sbc-bench/tuning.json"));
    let mut c = sbc_bench(&root);
    c.args(["--sysroot-writable", "restore"]);
    let out = ends_within(c, 10, "restore");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not a regular file (a FIFO)"), "{text}");
}
