//! The standard run over every fixture board with canned benchmark results
//! (`--fake-benchmarks`), on a writable copy of the tree: console, log and JSON are
//! checked and snapshotted, and every governor the run changed is back afterwards. A real
//! quick run is interrupted with SIGINT and must restore governors and leave valid JSON.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use serde_json::Value;

const BOARDS: &[&str] = &[
    "rock-5b",
    "nanopi-r5s",
    "rpi4",
    "rpi5",
    "odroid-n2plus",
    "orangepi-pcplus",
    "visionfive2",
    "x86-vm",
    "x86-hybrid-meteorlake",
];

fn fixture(board: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(board)
}

/// Copy a tree, keeping symlinks as symlinks.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let ty = e.file_type().unwrap();
        let dst = to.join(e.file_name());
        if ty.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(e.path()).unwrap(), &dst).unwrap();
        } else if ty.is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// Every governor file of a tree (cpufreq policies and devfreq devices), trimmed.
fn governors(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let cpufreq = root.join("sys/devices/system/cpu/cpufreq");
    if let Ok(rd) = fs::read_dir(&cpufreq) {
        for e in rd.flatten() {
            for f in ["scaling_governor", "scaling_max_freq", "scaling_min_freq"] {
                let p = e.path().join(f);
                if let Ok(v) = fs::read_to_string(&p) {
                    out.insert(p.display().to_string(), v.trim().to_string());
                }
            }
        }
    }
    if let Ok(rd) = fs::read_dir(root.join("sys/class/devfreq")) {
        for e in rd.flatten() {
            let p = e.path().join("governor");
            if let Ok(v) = fs::read_to_string(&p) {
                out.insert(p.display().to_string(), v.trim().to_string());
            }
        }
    }
    out
}

fn filtered() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}",
        "TIMESTAMP",
    );
    s.add_filter(
        r"\w{3}, \d{1,2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}",
        "DATE",
    );
    s.add_filter(r"(?m)^\d{2}:\d{2}:\d{2}: .*\n", "");
    s.add_filter(r"\(\d+\.\d s\)", "(N s)");
    s.add_filter(r"\(\d+ seconds elapsed\)", "(N seconds elapsed)");
    s.add_filter(r"v\d+\.\d+\.\d+", "vX.Y.Z");
    s.add_filter(
        r"sbc-bench \d+\.\d+\.\d+ \(Rust\)",
        "sbc-bench X.Y.Z (Rust)",
    );
    s.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "TMP");
    s.add_filter(r"Uptime: .*", "Uptime: UPTIME");
    s
}

#[test]
fn fake_runs_over_every_board_restore_governors_and_report() {
    for board in BOARDS {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        copy_tree(&fixture(board), &root);
        let before = governors(&root);
        let log = tmp.path().join("sbc-bench.log");
        let json = tmp.path().join("run.json");
        let out = Command::cargo_bin("sbc-bench")
            .unwrap()
            .env("NO_COLOR", "1")
            .env_remove("MODE")
            .env_remove("SBC_BENCH_SYSROOT")
            .env_remove("CPUINFOFILE")
            .arg("--sysroot")
            .arg(&root)
            .args(["run", "--fake-benchmarks", "--unattended", "--log"])
            .arg(&log)
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            matches!(out.status.code(), Some(0) | Some(3)),
            "{board}: {:?}\n{stdout}\n{stderr}",
            out.status
        );
        assert_eq!(governors(&root), before, "{board}: governors restored");
        let doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(doc["schema"], "sbc-bench-run", "{board}");
        assert_eq!(doc["status"], "complete", "{board}");
        assert!(
            doc["steps"].as_array().is_some_and(|s| s.len() >= 2),
            "{board}"
        );
        let tuned = doc["tuning"].as_array().unwrap();
        if before.keys().any(|k| k.ends_with("scaling_governor")) {
            assert!(!tuned.is_empty(), "{board}: cpufreq governors were tuned");
        }
        let log_text = fs::read_to_string(&log).unwrap();
        assert!(log_text.starts_with("sbc-bench v"), "{board}");
        let last = log_text.trim_end().lines().last().unwrap_or_default();
        assert!(
            last.starts_with("| ") && last.ends_with(" |"),
            "{board}: {last}"
        );
        assert!(log_text.contains("Results validation:"), "{board}");
        let settings = filtered();
        settings.bind(|| {
            insta::assert_snapshot!(format!("run_console_{board}"), stdout);
            insta::assert_snapshot!(format!("run_log_{board}"), log_text);
        });
    }
}

#[test]
fn missing_json_directory_fails_before_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    Command::cargo_bin("sbc-bench")
        .unwrap()
        .env_remove("SBC_BENCH_SYSROOT")
        .arg("--sysroot")
        .arg(fixture("x86-vm"))
        .args([
            "run",
            "--fake-benchmarks",
            "--unattended",
            "--json",
            "/nonexistent/dir/x.json",
            "--log",
        ])
        .arg(tmp.path().join("l.log"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("cannot write JSON report"));
}

/// A real (quick) run on a writable copy of the ROCK 5B tree, interrupted by a signal once
/// the first steps are in the JSON: governors come back, the JSON parses.
fn interrupted_run_restores_governors_and_keeps_valid_json(sig: nix::sys::signal::Signal) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture("rock-5b"), &root);
    // An idle board, so the run starts at once.
    fs::write(root.join("proc/loadavg"), "0.02 0.10 0.20 1/200 4242\n").unwrap();
    let before = governors(&root);
    let json = tmp.path().join("run.json");
    let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
    let mut child = Std::new(exe)
        .env("NO_COLOR", "1")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .arg("--sysroot")
        .arg(&root)
        .args(["run", "--quick", "--unattended", "--max-wait", "0", "--log"])
        .arg(tmp.path().join("l.log"))
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the governors are tuned and at least one step is recorded.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let steps = fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .and_then(|v| v["steps"].as_array().map(Vec::len))
            .unwrap_or(0);
        if steps >= 1 {
            break;
        }
        if let Ok(Some(st)) = child.try_wait() {
            panic!("run ended before it could be interrupted: {st:?}");
        }
        assert!(Instant::now() < deadline, "no step recorded within 60 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_ne!(governors(&root), before, "the run tuned the governors");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + sig as i32), "{status:?}");
    assert_eq!(governors(&root), before, "governors restored after {sig}");
    let doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["schema"], "sbc-bench-run");
    assert!(matches!(
        doc["status"].as_str(),
        Some("running") | Some("interrupted")
    ));
}

#[test]
fn sigint_restores_governors_and_keeps_valid_json() {
    interrupted_run_restores_governors_and_keeps_valid_json(nix::sys::signal::Signal::SIGINT);
}

#[test]
fn sigterm_restores_governors_and_keeps_valid_json() {
    interrupted_run_restores_governors_and_keeps_valid_json(nix::sys::signal::Signal::SIGTERM);
}
