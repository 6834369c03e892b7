//! Issue 27: the tuning guard under attack — two runs at once, a reused process id, a
//! journal that names other files, the run after a crash, sbc-bench's yes/no variables.
//! Every case runs over a writable copy of the ROCK 5B tree.

use std::fs;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::bin;
use crate::signal_matrix::{Tree, snapshot};

const GOV0: &str = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";
const GOV4: &str = "sys/devices/system/cpu/cpufreq/policy4/scaling_governor";

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_default()
}

/// `sbc-bench --sysroot T --sysroot-writable ARGS`.
fn on(t: &Tree, args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("sbc-bench"));
    c.env("NO_COLOR", "1")
        .env_remove("MODE")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("SBC_BENCH_DB")
        .env_remove("CPUINFOFILE")
        .env_remove("NOTUNING")
        .env_remove("NotReadyYet")
        .env_remove("MaxKHz")
        .env_remove("MinKHz")
        .env("SBC_BENCH_LIBDIR", "/nonexistent/sbc-bench-libdir")
        .arg("--sysroot")
        .arg(&t.root)
        .arg("--sysroot-writable")
        .args(args)
        .stdin(Stdio::null());
    c
}

fn write_journal(t: &Tree, j: &Value) {
    let dir = t.root.join("run/sbc-bench");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("tuning.json"), j.to_string()).unwrap();
}

fn output(mut c: std::process::Command) -> (Option<i32>, String) {
    let out = c.output().unwrap();
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

// Issue 27, item 2: a second tuning run (`wrap --per-cluster --offline-others` beside a
// `wrap`) rewrote `tuning.json` with only its own entries; after SIGKILL of both, six
// governors stayed at `performance` with no record. The second is refused while the
// first holds the machine, changes nothing, and the first's journal lets `restore` put
// everything back.
#[test]
fn a_second_tuning_run_beside_a_wrap_is_refused_and_sigkill_of_both_is_undone() {
    let t = Tree::new();
    let json = t.tmp.path().join("a.json");
    let pidfile = t.tmp.path().join("command.pid");
    let sh = format!("echo $$ > {}; exec sleep 60", pidfile.display());
    let mut first = on(
        &t,
        &[
            "wrap",
            "--fake-benchmarks",
            "--unattended",
            "--max-wait",
            "0",
        ],
    )
    .arg("--no-store")
    .arg("--log")
    .arg(t.tmp.path().join("a.log"))
    .arg("--json")
    .arg(&json)
    .args(["--", "sh", "-c", &sh])
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let govs = [
        GOV0,
        GOV4,
        "sys/devices/system/cpu/cpufreq/policy6/scaling_governor",
    ];
    while govs
        .iter()
        .any(|g| read(&t.root.join(g)).trim() != "performance")
    {
        assert!(Instant::now() < deadline, "the first run never tuned");
        assert!(first.try_wait().unwrap().is_none(), "the first run ended");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Tuned (the dmc and other devices a moment after the CPUs).
    std::thread::sleep(Duration::from_millis(500));
    let tuned = snapshot(&t.root);
    let mut second = on(
        &t,
        &[
            "wrap",
            "--per-cluster",
            "--offline-others",
            "--fake-benchmarks",
            "--unattended",
            "--max-wait",
            "0",
            "--no-store",
        ],
    );
    second
        .arg("--log")
        .arg(t.tmp.path().join("b.log"))
        .args(["--", "sleep", "60"]);
    let started = Instant::now();
    let (code, text) = output(second);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("is tuning this machine"), "{text}");
    assert!(
        text.contains(&format!("process {}", first.id())),
        "names the holder: {text}"
    );
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(
        snapshot(&t.root) == tuned,
        "the refused run changed the tree"
    );
    // Both gone without a word: SIGKILL of the first (the second never ran).
    first.kill().unwrap();
    first.wait().unwrap();
    // The command outlives sbc-bench (its own process group): end it by its id.
    if let Ok(pid) = read(&pidfile).trim().parse::<i32>() {
        // SAFETY: kill(2) of the process the test started through wrap.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    assert_ne!(t.changed(), Vec::<String>::new(), "SIGKILL left it tuned");
    let (code, text) = output(on(&t, &["restore"]));
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(t.changed(), Vec::<String>::new(), "{text}");
}

// Issue 27, item 3: liveness was `kill(pid, 0)` only: with the crashed run's id now
// another process's, every run and `restore` refused and exited 1, with no override.
#[test]
fn restore_puts_back_a_crashed_runs_settings_whose_pid_another_process_has_now() {
    let t = Tree::new();
    let mut sleeper = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let original = read(&t.root.join(GOV0));
    fs::write(t.root.join(GOV0), "performance").unwrap();
    write_journal(
        &t,
        &serde_json::json!({"version": 2, "runs": [{"pid": sleeper.id(), "start_time": 1,
            "exe": "/usr/bin/sbc-bench", "changes": [{"path": format!("/{GOV0}"),
            "original": original, "written": "performance"}]}]}),
    );
    let (code, text) = output(on(&t, &["restore"]));
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("restored "), "{text}");
    assert_eq!(t.changed(), Vec::<String>::new(), "{text}");
}

// Issue 27, item 3: `restore --force` overrides a run that still holds the machine.
#[test]
fn restore_refuses_while_another_process_holds_the_machine_and_force_overrides() {
    use std::os::fd::AsRawFd;
    let t = Tree::new();
    let original = read(&t.root.join(GOV0));
    fs::write(t.root.join(GOV0), "performance").unwrap();
    write_journal(
        &t,
        &serde_json::json!({"version": 2, "runs": [{"pid": std::process::id(),
            "start_time": 1, "changes": [{"path": format!("/{GOV0}"),
            "original": original, "written": "performance"}]}]}),
    );
    let lock = t.root.join("run/sbc-bench/tuning.lock");
    fs::write(&lock, "").unwrap();
    let held = fs::File::open(&lock).unwrap();
    // SAFETY: flock on a descriptor we own: this test process holds the machine.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    let (code, text) = output(on(&t, &["restore"]));
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("restore --force"), "{text}");
    assert_eq!(
        read(&t.root.join(GOV0)),
        "performance",
        "left to its holder"
    );
    let (code, text) = output(on(&t, &["restore", "--force"]));
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(read(&t.root.join(GOV0)), original, "{text}");
    drop(held);
    fs::remove_file(&lock).unwrap();
    let _ = fs::remove_dir(t.root.join("run/sbc-bench"));
    let _ = fs::remove_dir(t.root.join("run"));
    assert_eq!(t.changed(), Vec::<String>::new(), "{text}");
}

// Issue 27, item 7: `restore` wrote wherever a journal pointed (`/sys/../etc/os-release`
// was accepted, the copy's `/etc/hostname` rewritten).
#[test]
fn restore_never_writes_a_path_the_guard_does_not_change() {
    let t = Tree::new();
    let hostname = read(&t.root.join("etc/hostname"));
    write_journal(
        &t,
        &serde_json::json!({"version": 2, "runs": [{"pid": u32::MAX - 1, "changes": [
            {"path": "/sys/../etc/hostname", "original": "pwned\n", "written": hostname.trim()},
            {"path": "/etc/hostname", "original": "pwned\n", "written": hostname.trim()},
            {"path": "/sys/class/devfreq/dmc/../../../etc/hostname", "original": "pwned\n",
             "written": hostname.trim()}]}]}),
    );
    let (code, text) = output(on(&t, &["restore"]));
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("not a setting sbc-bench changes"), "{text}");
    assert_eq!(read(&t.root.join("etc/hostname")), hostname);
    // The journal held nothing else: gone, with its directory.
    assert_eq!(t.changed(), Vec::<String>::new(), "{text}");
}

// Issue 27, item 8: the run after a crash recovered the journal first, but its log and
// JSON listed the governors as seen before the recovery (`performance -> performance`).
#[test]
fn the_run_after_a_crash_reports_the_governors_as_restored() {
    let t = Tree::new();
    let original = read(&t.root.join(GOV0));
    fs::write(t.root.join(GOV0), "performance").unwrap();
    write_journal(
        &t,
        &serde_json::json!({"version": 2, "runs": [{"pid": u32::MAX - 1, "start_time": 1,
            "changes": [{"path": format!("/{GOV0}"), "original": original,
            "written": "performance"}]}]}),
    );
    let json = t.tmp.path().join("r.json");
    let mut c = on(
        &t,
        &["run", "--fake-benchmarks", "--unattended", "--no-store"],
    );
    c.arg("--log")
        .arg(t.tmp.path().join("r.log"))
        .arg("--json")
        .arg(&json);
    let (code, text) = output(c);
    assert!(matches!(code, Some(0 | 3)), "{text}");
    assert!(text.contains("restored "), "says so: {text}");
    let doc: Value = serde_json::from_str(&read(&json)).unwrap();
    let g = doc["governors_before"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "cpufreq-policy0")
        .unwrap();
    assert_eq!(g["governor"], original.trim(), "{g}");
    let tuned = doc["tuning"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "cpufreq-policy0")
        .unwrap();
    assert_eq!(tuned["from"], original.trim(), "{tuned}");
    let log = read(&t.tmp.path().join("r.log"));
    assert!(!log.contains("performance -> performance"), "{log}");
    assert_eq!(t.changed(), Vec::<String>::new());
}

// Issue 27, item 14: `NOTUNING=2` and `NotReadyYet=garbage` silently meant "no";
// `MaxKHz` below `MinKHz` was accepted.
#[test]
fn bad_yes_no_variables_and_a_reversed_clock_range_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |k: &str, v: &str| {
        let mut c = bin();
        c.arg("--sysroot")
            .arg(crate::common::sysroot("x86-vm"))
            .env(k, v)
            .args(["run", "--fake-benchmarks", "--unattended", "--log"])
            .arg(tmp.path().join("l.log"));
        c
    };
    for (k, v) in [
        ("NOTUNING", "2"),
        ("NotReadyYet", "garbage"),
        ("NOTUNING", "-1"),
    ] {
        run(k, v)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "invalid value '{v}' for '{k}': not yes or no"
            )));
    }
    run("MaxKHz", "600000")
        .env("MinKHz", "1200000")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "MaxKHz (600000) is below MinKHz (1200000)",
        ));
}
