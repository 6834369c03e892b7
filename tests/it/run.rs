//! The standard run over every fixture board with canned benchmark results
//! (`--fake-benchmarks`), on a writable copy of the tree: console, log and JSON are
//! checked and snapshotted, and every governor the run changed is back afterwards. A real
//! quick run is interrupted with SIGINT and must restore governors and leave valid JSON.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use crate::common::{BOARDS, copy_tree, sysroot as fixture};
use assert_cmd::Command;
use predicates::prelude::PredicateBooleanExt;
use serde_json::Value;

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
    s.add_filter(r"\t\d{2}/\d{2}/\d{2} \t", "\tMM/DD/YY \t");
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
            .arg("--sysroot-writable")
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

/// A real (quick) run on a writable copy of the ROCK 5B tree, started and waited for until
/// its governors are tuned and the first step is in the JSON.
struct TunedRun {
    tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    json: std::path::PathBuf,
    before: BTreeMap<String, String>,
    child: std::process::Child,
}

fn start_tuned_run() -> TunedRun {
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
        .arg("--sysroot-writable")
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
    TunedRun {
        tmp,
        root,
        json,
        before,
        child,
    }
}

/// A tuned run interrupted by a signal: governors come back, the JSON parses.
fn interrupted_run_restores_governors_and_keeps_valid_json(sig: nix::sys::signal::Signal) {
    let TunedRun {
        tmp,
        root,
        json,
        before,
        mut child,
    } = start_tuned_run();
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
    // CPUs of the 8-core tree this host does not have are skipped, not run into errors:
    // every step finished before the signal succeeded.
    let steps = doc["steps"].as_array().unwrap();
    for st in &steps[..steps.len() - 1] {
        assert_eq!(st["status"]["status"], "ok", "{st}");
    }
    // An interrupted run's log ends without a paste-ready Results.md row.
    if doc["status"] == "interrupted" {
        let log = fs::read_to_string(tmp.path().join("l.log")).unwrap();
        let last = log.trim_end().lines().last().unwrap_or_default();
        assert!(!last.starts_with("| "), "{last}");
        assert!(doc["results_row"].is_null());
    }
}

#[test]
fn sigint_restores_governors_and_keeps_valid_json() {
    interrupted_run_restores_governors_and_keeps_valid_json(nix::sys::signal::Signal::SIGINT);
}

#[test]
fn sigterm_restores_governors_and_keeps_valid_json() {
    interrupted_run_restores_governors_and_keeps_valid_json(nix::sys::signal::Signal::SIGTERM);
}

// Ctrl-\\, USR1, USR2, ALRM and XCPU left all governors at `performance` (issue: "never
// leave a board changed"): every catchable terminating signal restores.
#[test]
fn sigquit_restores_governors() {
    interrupted_run_restores_governors_and_keeps_valid_json(nix::sys::signal::Signal::SIGQUIT);
}

#[test]
fn sigusr1_restores_governors() {
    interrupted_run_restores_governors_and_keeps_valid_json(nix::sys::signal::Signal::SIGUSR1);
}

#[test]
fn sigusr2_restores_governors() {
    interrupted_run_restores_governors_and_keeps_valid_json(nix::sys::signal::Signal::SIGUSR2);
}

#[test]
fn sigalrm_restores_governors() {
    interrupted_run_restores_governors_and_keeps_valid_json(nix::sys::signal::Signal::SIGALRM);
}

#[test]
fn sigxcpu_restores_governors() {
    interrupted_run_restores_governors_and_keeps_valid_json(nix::sys::signal::Signal::SIGXCPU);
}

/// SIGKILL cannot be caught: the journal written before the first change lets
/// `sbc-bench restore` put every governor back, and says so.
#[test]
fn sigkill_leaves_a_journal_that_restore_undoes() {
    let TunedRun {
        tmp: _tmp,
        root,
        before,
        mut child,
        ..
    } = start_tuned_run();
    child.kill().unwrap();
    let _ = child.wait();
    assert_ne!(governors(&root), before, "SIGKILL left them tuned");
    let journal = root.join("run/sbc-bench/tuning.json");
    assert!(journal.exists());
    let out = Command::cargo_bin("sbc-bench")
        .unwrap()
        .env_remove("SBC_BENCH_SYSROOT")
        .arg("--sysroot")
        .arg(&root)
        .args(["--sysroot-writable", "restore"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("restored "), "{text}");
    assert_eq!(governors(&root), before);
    assert!(!journal.exists());
    // Nothing left: a second restore says so.
    Command::cargo_bin("sbc-bench")
        .unwrap()
        .env_remove("SBC_BENCH_SYSROOT")
        .arg("--sysroot")
        .arg(&root)
        .args(["--sysroot-writable", "restore"])
        .assert()
        .success()
        .stdout(predicates::str::contains("Nothing to restore"));
}

/// `--sysroot` trees are only read: a run over one leaves every governor as it was.
#[test]
fn a_sysroot_run_without_sysroot_writable_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture("rock-5b"), &root);
    let before = governors(&root);
    let out = Command::cargo_bin("sbc-bench")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("SBC_BENCH_SYSROOT")
        .arg("--sysroot")
        .arg(&root)
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(tmp.path().join("l.log"))
        .output()
        .unwrap();
    // The run completes (its log says the governors could not be set) …
    assert!(matches!(out.status.code(), Some(0 | 3)), "{out:?}");
    let log = fs::read_to_string(tmp.path().join("l.log")).unwrap();
    assert!(log.contains("--sysroot-writable"), "{log}");
    // … and the tree is as it was.
    assert_eq!(governors(&root), before);
    assert!(!root.join("run").exists(), "no journal in a read-only tree");
}

/// A fake run over a writable copy of `board`, after `prep` changed the tree.
fn fake_run(
    board: &str,
    env: &[(&str, &str)],
    prep: impl FnOnce(&Path),
) -> (Option<i32>, String, String, Value) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture(board), &root);
    prep(&root);
    let log = tmp.path().join("sbc-bench.log");
    let json = tmp.path().join("run.json");
    let mut cmd = Command::cargo_bin("sbc-bench").unwrap();
    cmd.env("NO_COLOR", "1")
        .env_remove("MODE")
        .env_remove("NotReadyYet")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(&log)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let doc = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        fs::read_to_string(&log).unwrap(),
        doc,
    )
}

const PI_GET_THROTTLED: &str = "sys/devices/platform/soc/soc:firmware/get_throttled";

/// The firmware's sysfs node prints bare hex (`%x`): 50000 is under-voltage and throttling
/// since boot, 80000 the soft temperature limit since boot.
#[test]
fn pi_get_throttled_from_sysfs_is_hex() {
    for (value, expect, not) in [
        (
            "50000",
            "under-voltage has occurred since last reboot, throttling has occurred since last reboot",
            "soft temperature",
        ),
        (
            "80000",
            "soft temperature limit has occurred since last reboot",
            "under-voltage",
        ),
    ] {
        let (_, stdout, log, _) = fake_run("rpi4", &[], |root| {
            let f = root.join(PI_GET_THROTTLED);
            fs::create_dir_all(f.parent().unwrap()).unwrap();
            fs::write(&f, format!("{value}\n")).unwrap();
        });
        let line = stdout
            .lines()
            .find(|l| l.contains("Raspberry Pi firmware"))
            .unwrap_or_else(|| panic!("{value}: no firmware finding\n{stdout}"));
        assert!(line.contains(expect), "{value}: {line}");
        assert!(!line.contains(not), "{value}: {line}");
        assert!(log.contains("Querying ThreadX on RPi"), "{value}");
    }
}

/// NotReadyYet=yes as sbc-bench: memory benchmarks run; OpenSSL, 7-Zip and the native
/// LZMA stand-in are skipped, and each is listed.
#[test]
fn not_ready_yet_keeps_memory_benchmarks_and_lists_every_skip() {
    let (code, _, log, doc) = fake_run("rock-5b", &[("NotReadyYet", "yes")], |_| {});
    assert!(matches!(code, Some(0) | Some(3)));
    let kinds: Vec<&str> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["clock_cold", "mem_bandwidth", "mem_latency", "clock_hot"]
    );
    let skipped: Vec<&str> = doc["plan"]["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[0].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["aes", "seven_zip", "lzma"]);
    assert!(log.contains("libc memcpy") || log.contains("memcpy"));
}

/// Extensive mode: the mode is in the log's first line; the per-type compression runs
/// name their CPUs and core type (sbc-bench's 41BH.txt); the hot clock check names each
/// core.
#[test]
fn extensive_mode_labels_like_sbc_bench() {
    let (_, _, log, doc) = fake_run("rock-5b", &[("MODE", "extensive")], |_| {});
    let first = log.lines().next().unwrap();
    assert!(first.contains(" Radxa ROCK 5B extensive ("), "{first}");
    assert!(log.contains("Executing benchmark 3 times multi-threaded on CPUs 0-3 (Cortex-A55)\n"));
    assert!(log.contains("Executing benchmark 3 times multi-threaded on CPUs 4-7 (Cortex-A76)\n"));
    assert_eq!(
        log.matches("Executing benchmark 3 times multi-threaded on CPUs 0-7\n")
            .count(),
        1
    );
    assert!(log.contains(
        "Executing native LZMA benchmark multi-threaded on CPUs 4-7 (Cortex-A76) (4 threads)"
    ));
    // The per-type native run comes after the main native section.
    let main_native = log.find("Native LZMA benchmark (").unwrap();
    let per_type = log
        .find("Executing native LZMA benchmark multi-threaded on CPUs 0-3")
        .unwrap();
    assert!(main_native < per_type);
    for cpu in 0..8 {
        let ty = if cpu < 4 { "Cortex-A55" } else { "Cortex-A76" };
        assert!(
            log.contains(&format!("Checking cpufreq OPP for cpu{cpu} ({ty}):")),
            "cpu{cpu}"
        );
    }
    assert_eq!(
        doc["results"]["compress_per_cluster"]
            .as_array()
            .unwrap()
            .len(),
        4
    );
}

/// A run that never starts benchmarking leaves an existing JSON report alone and creates
/// no log file.
#[test]
fn a_run_that_gives_up_leaves_output_files_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture("x86-vm"), &root);
    fs::write(root.join("proc/loadavg"), "3.00 3.00 3.00 1/200 4242\n").unwrap();
    let json = tmp.path().join("prev.json");
    fs::write(
        &json,
        "{\"schema\": \"sbc-bench-run\", \"previous\": true}\n",
    )
    .unwrap();
    let log = tmp.path().join("new.log");
    let out = Command::cargo_bin("sbc-bench")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("MODE")
        .env_remove("SBC_BENCH_SYSROOT")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--unattended", "--max-wait", "1", "--log"])
        .arg(&log)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Average load and/or CPU utilization too high (too much background activity). Waiting..."),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("within 1 s"), "{stderr}");
    assert_eq!(
        fs::read_to_string(&json).unwrap(),
        "{\"schema\": \"sbc-bench-run\", \"previous\": true}\n"
    );
    assert!(!log.exists(), "no empty log left behind");
}

/// `run --json /dev/null` replaced the device with a regular file (and `/dev/full` on one
/// machine): a device is written in place, a symlink's target replaced, the link kept.
#[test]
fn run_json_to_a_device_or_symlink_never_replaces_it() {
    use std::os::unix::fs::FileTypeExt;
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real.json");
    fs::write(&real, "old").unwrap();
    let link = tmp.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    for target in [Path::new("/dev/null"), link.as_path()] {
        Command::cargo_bin("sbc-bench")
            .unwrap()
            .env("NO_COLOR", "1")
            .env_remove("SBC_BENCH_SYSROOT")
            .arg("--sysroot")
            .arg(fixture("x86-vm"))
            .args(["run", "--fake-benchmarks", "--unattended", "--log"])
            .arg(tmp.path().join("l.log"))
            .arg("--json")
            .arg(target)
            .assert()
            .code(predicates::ord::eq(0).or(predicates::ord::eq(3)));
    }
    assert!(
        fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let doc: Value = serde_json::from_str(&fs::read_to_string(&real).unwrap()).unwrap();
    assert_eq!(doc["schema"], "sbc-bench-run");
}

/// `--log` naming a FIFO hung the run: nobody reads it, so it is refused before the run.
#[test]
fn run_log_to_a_fifo_nobody_reads_is_refused_not_hung_on() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("log.fifo");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    Command::cargo_bin("sbc-bench")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("SBC_BENCH_SYSROOT")
        .arg("--sysroot")
        .arg(fixture("x86-vm"))
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(&fifo)
        .timeout(Duration::from_secs(30))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("nobody reads"));
}
