//! `sbc-bench thermal` (sbc-bench -t, -T, -M) over writable copies of fixture boards, with
//! canned benchmarks and a simulated sensor: the test rewrites the thermal zone's `temp`
//! when the run says it is waiting, so cool-down and heat-up finish in milliseconds. Every
//! mode must leave the tree as it found it, also when stopped by SIGTERM.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Std, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{copy_tree, sysroot};

const ZONE0: &str = "sys/devices/virtual/thermal/thermal_zone0/temp";

/// The sensor sbc-bench (and this run) reads on `board`: a thermal zone, or on the
/// ODROID-N2+ the `cpu-thermal` hwmon device.
fn sensor(board: &str) -> &'static str {
    match board {
        "odroid-n2plus" => "sys/class/hwmon/hwmon0/temp1_input",
        _ => ZONE0,
    }
}

/// Every regular file of the tree with its bytes (symlinks as their targets).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_path_buf();
            let ty = e.file_type().unwrap();
            if ty.is_symlink() {
                let target = fs::read_link(&p).unwrap();
                out.insert(rel, target.to_string_lossy().as_bytes().to_vec());
            } else if ty.is_dir() {
                walk(&p, base, out);
            } else {
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    let mut m = BTreeMap::new();
    walk(root, root, &mut m);
    m
}

/// A writable copy of `board` at `temp_mc` millidegrees, idle.
fn board(board: &str, temp_mc: u32) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot(board), &root);
    fs::write(root.join("proc/loadavg"), "0.02 0.10 0.20 1/200 4242\n").unwrap();
    if root.join(sensor(board)).exists() {
        set_temp(&root, board, temp_mc);
    }
    (tmp, root)
}

/// Rewrite the sensor in place, as a driver updates it: the same inode (the run keeps the
/// file open and rereads it), overwritten without truncating first, so a read in between
/// sees the old value or the new one, never an empty file (the temperatures here all have
/// five digits; a shorter one is cut to length after the write).
fn set_temp(root: &Path, board: &str, mc: u32) {
    use std::io::Write as _;
    let text = format!("{mc}\n");
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(root.join(sensor(board)))
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f.set_len(text.len() as u64).unwrap();
}

/// The run, its stdout line by line on a channel.
struct Running {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    /// Wait for a line containing `what` (the run's observable event), at most 60 s.
    fn wait_for(&mut self, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let hit = l.contains(what);
                    self.seen.push(l);
                    if hit {
                        return;
                    }
                }
                Err(e) => panic!("no line with {what:?} ({e}); saw {:#?}", self.seen),
            }
        }
    }

    /// Wait for the exit; the rest of stdout, and the exit code.
    fn finish(mut self) -> (String, Option<i32>, String) {
        let status = self.child.wait().unwrap();
        let mut out = self.seen.join("\n");
        for l in self.lines.iter() {
            out.push('\n');
            out.push_str(&l);
        }
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        (out, status.code(), err)
    }

    fn signal(&self, sig: nix::sys::signal::Signal) {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.child.id() as i32), sig).unwrap();
    }
}

/// `sbc-bench --sysroot ROOT --sysroot-writable ARGS… --fake-benchmarks --unattended
/// --log DIR/l.log --json DIR/run.json`, sbc-bench's short flags included.
fn start(root: &Path, dir: &Path, args: &[&str]) -> Running {
    let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
    let mut child = Std::new(exe)
        .env("NO_COLOR", "1")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .env_remove("MaxKHz")
        .env_remove("MinKHz")
        .arg("--sysroot")
        .arg(root)
        .arg("--sysroot-writable")
        .args(args)
        .args([
            "--fake-benchmarks",
            "--unattended",
            "--max-wait",
            "0",
            "--log",
        ])
        .arg(dir.join("l.log"))
        .arg("--json")
        .arg(dir.join("run.json"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(out).lines() {
            let Ok(l) = l else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    Running {
        child,
        lines: rx,
        seen: Vec::new(),
    }
}

fn json(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

/// The tree as it was, but for the sensor the test moved.
fn assert_restored(
    root: &Path,
    board: &str,
    mut before: BTreeMap<PathBuf, Vec<u8>>,
    temp_mc: Option<u32>,
) {
    if let Some(t) = temp_mc {
        // The test moved the sensor: its file is the one difference allowed.
        let real = fs::canonicalize(root.join(sensor(board))).unwrap();
        let rel = real
            .strip_prefix(fs::canonicalize(root).unwrap())
            .unwrap()
            .to_path_buf();
        before.insert(rel, format!("{t}\n").into_bytes());
    }
    let after = snapshot(root);
    let changed: Vec<_> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, _)| k)
        .chain(before.keys().filter(|k| !after.contains_key(*k)))
        .collect();
    assert!(changed.is_empty(), "left changed: {changed:?}");
}

#[test]
fn thermal_rock5b_waits_for_the_simulated_sensor_to_cool_down_then_loads() {
    let (tmp, root) = board("rock-5b", 63_000);
    let before = snapshot(&root);
    let mut run = start(
        &root,
        tmp.path(),
        &["-t", "--duration", "1s", "--poll-interval", "20ms"],
    );
    run.wait_for("Thermal efficiency test using /sys/devices/virtual/thermal/thermal_zone0/temp");
    run.wait_for(
        "Waiting for the SoC cooling down from current 63°C to 50°C. This may take some time...",
    );
    // Still too warm at 50.9 °C? No: sbc-bench cuts to whole degrees, 50 is the target.
    set_temp(&root, "rock-5b", 57_400);
    run.wait_for("from current 57°C to 50°C");
    set_temp(&root, "rock-5b", 50_900);
    run.wait_for("Waiting for the SoC to cool down. Done.");
    let (out, code, err) = run.finish();
    assert_eq!(code, Some(0), "{out}\n{err}");
    let doc = json(tmp.path());
    let kinds: Vec<&str> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["clock_cold", "cool_down", "thermal_load"]);
    let wait = &doc["results"]["thermal"]["wait"];
    assert_eq!(wait["mode"], "cool_to");
    assert_eq!(wait["start_c"], 63.0);
    assert_eq!(wait["end_c"], 50.9);
    assert!(wait["readings"].as_array().unwrap().len() >= 3);
    // The load ran its --duration, not sbc-bench's 5 minutes, with kH/s per interval.
    let load = &doc["results"]["scrypt"];
    assert!(load["elapsed_s"].as_f64().unwrap() >= 0.4);
    assert!(load["intervals"].as_array().unwrap().len() >= 6);
    // sbc-bench prints the log: its Total Scores, ours the verdict; no Results.md row.
    let log = fs::read_to_string(tmp.path().join("l.log")).unwrap();
    assert!(out.contains("Total Scores: 31.84,29.93"), "{out}");
    assert!(log.contains("Total Scores: 31.84,29.93"), "{log}");
    assert!(log.contains("Waited "), "{log}");
    assert!(log.contains("from 63°C to 50°C (target 50°C)"), "{log}");
    assert!(
        log.contains("System health while running cpuminer:"),
        "{log}"
    );
    let verdict = out
        .lines()
        .rev()
        .find(|l| l.starts_with("Verdict: "))
        .unwrap();
    assert!(
        // The fake load lasts a fraction of a second: its window is named, not "minute".
        verdict.starts_with("Verdict: sustained 94% of the first 0.")
            && verdict.contains(" s (31.84 → 29.93 kH/s)"),
        "{verdict}"
    );
    assert!(verdict.contains("peak 50.9°C, settled 50.9°C"), "{verdict}");
    assert!(verdict.contains("(cpu4-5, Cortex-A76)"), "{verdict}");
    assert!(doc["results_row"].is_null());
    // The thermal test leaves governors as they are (sbc-bench's `BasicSetup nochange`).
    assert!(doc["tuning"].as_array().unwrap().is_empty());
    assert_restored(&root, "rock-5b", before, Some(50_900));
}

#[test]
fn thermal_odroid_n2plus_heats_up_with_scrypt_until_past_the_target() {
    let (tmp, root) = board("odroid-n2plus", 41_000);
    let before = snapshot(&root);
    let mut run = start(
        &root,
        tmp.path(),
        &[
            "thermal",
            "--heat-to",
            "45",
            "--duration",
            "300ms",
            "--poll-interval",
            "20ms",
        ],
    );
    run.wait_for("Thermal efficiency test using /sys/class/hwmon/hwmon0/temp1_input");
    run.wait_for("Heating SoC from current 41°C to 45°C. This may take some time...");
    // 45 °C is not past the target yet: sbc-bench heats while at or below it.
    set_temp(&root, "odroid-n2plus", 45_600);
    run.wait_for("Heating SoC from current 45°C to 45°C");
    set_temp(&root, "odroid-n2plus", 46_100);
    run.wait_for("Heating up the SoC. Done.");
    let (out, code, err) = run.finish();
    assert_eq!(code, Some(0), "{out}\n{err}");
    let doc = json(tmp.path());
    let wait = &doc["results"]["thermal"]["wait"];
    assert_eq!(wait["mode"], "heat_to");
    assert_eq!(wait["end_c"], 46.1);
    assert_eq!(wait["already_there"], false);
    let log = fs::read_to_string(tmp.path().join("l.log")).unwrap();
    assert!(log.contains("Heated the SoC from 41°C to 46°C"), "{log}");
    assert!(
        log.contains("System health while running SoC heat-up:"),
        "{log}"
    );
    assert_restored(&root, "odroid-n2plus", before, Some(46_100));
}

#[test]
fn thermal_rpi4_already_cool_enough_does_not_wait() {
    let (tmp, root) = board("rpi4", 35_000);
    let before = snapshot(&root);
    let run = start(&root, tmp.path(), &["-t", "45", "--duration", "200ms"]);
    let (out, code, err) = run.finish();
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("No need to wait for the SoC chilling since already at 35°C."),
        "{out}"
    );
    assert!(!out.contains("Waiting for the SoC cooling down"), "{out}");
    assert_eq!(
        json(tmp.path())["results"]["thermal"]["wait"]["already_there"],
        true
    );
    assert_restored(&root, "rpi4", before, None);
}

#[test]
fn thermal_rpi5_ominously_low_reading_is_warned_about() {
    let (tmp, root) = board("rpi5", 12_300);
    let run = start(&root, tmp.path(), &["-T", "10", "--duration", "200ms"]);
    let (out, code, err) = run.finish();
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        err.contains("WARNING: sysfs thermal readout is ominously low: 12°C."),
        "{err}"
    );
    assert!(
        out.contains("No need to heat the SoC to 10°C since already at 12°C."),
        "{out}"
    );
}

#[test]
fn thermal_x86_vm_without_a_sensor_is_refused_before_anything() {
    let (tmp, root) = board("x86-vm", 0);
    let before = snapshot(&root);
    for args in [&["-t"][..], &["-T", "60"], &["thermal"]] {
        let run = start(&root, tmp.path(), args);
        let (out, code, err) = run.finish();
        assert_eq!(code, Some(1), "{args:?}: {out}\n{err}");
        assert!(
            err.contains("WARNING: No temperature source found. Aborting."),
            "{err}"
        );
        assert!(!tmp.path().join("l.log").exists());
        assert!(!tmp.path().join("run.json").exists());
    }
    assert_restored(&root, "x86-vm", before, None);
}

#[test]
fn thermal_rock5b_memory_controller_test_tunes_measures_aes_twice_and_restores() {
    let (tmp, root) = board("rock-5b", 45_000);
    let before = snapshot(&root);
    let run = start(&root, tmp.path(), &["-M", "--duration", "300ms"]);
    let (out, code, err) = run.finish();
    assert_eq!(code, Some(0), "{out}\n{err}");
    let doc = json(tmp.path());
    let kinds: Vec<&str> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "clock_cold",
            "aes256_before",
            "thermal_load",
            "aes256_after",
            "clock_hot"
        ]
    );
    // Unlike -t/-T, -M runs in sbc-bench's main flow: governors to performance.
    assert!(!doc["tuning"].as_array().unwrap().is_empty());
    assert!(doc["results"]["aes"].is_object());
    assert!(doc["results"]["thermal"]["aes_after"].is_object());
    // Canned AES is as fast after as before: the ratio is 1 and nothing is found.
    assert!(
        out.contains("cpu4 (Cortex-A76): 1325370 KB/s -> 1325370 KB/s = 1.000 (native)"),
        "{out}"
    );
    assert!(out.contains("not DRAM bandwidth"), "{out}");
    let findings = doc["findings"].as_array().unwrap();
    assert!(
        !findings
            .iter()
            .any(|f| f["code"] == "aes-slower-after-load")
    );
    assert_restored(&root, "rock-5b", before, None);
}

#[test]
fn thermal_rpi5_sigterm_while_cooling_down_leaves_the_tree_as_it_was() {
    let (tmp, root) = board("rpi5", 80_000);
    let before = snapshot(&root);
    let mut run = start(&root, tmp.path(), &["-t", "--poll-interval", "20ms"]);
    run.wait_for("Waiting for the SoC cooling down from current 80°C to 50°C");
    run.signal(nix::sys::signal::Signal::SIGTERM);
    let (out, code, err) = run.finish();
    assert_eq!(code, Some(143), "{out}\n{err}");
    let doc = json(tmp.path());
    assert!(matches!(
        doc["status"].as_str(),
        Some("running") | Some("interrupted")
    ));
    assert_restored(&root, "rpi5", before, None);
}

#[test]
fn thermal_rock5b_sigterm_during_the_memory_controller_load_restores_governors() {
    let (tmp, root) = board("rock-5b", 45_000);
    let before = snapshot(&root);
    let gov = root.join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
    let mut run = start(&root, tmp.path(), &["-M", "--duration", "60s"]);
    run.wait_for("Executing AES-256 benchmark. Done.");
    // The load runs for a minute now, with governors tuned.
    assert_eq!(fs::read_to_string(&gov).unwrap().trim(), "performance");
    run.signal(nix::sys::signal::Signal::SIGTERM);
    let (out, code, err) = run.finish();
    assert_eq!(code, Some(143), "{out}\n{err}");
    assert_restored(&root, "rock-5b", before, None);
}
