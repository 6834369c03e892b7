//! Hardening of the command line: hybrid Intel clusters in the plan, exit statuses as
//! documented, one style for bad values, and the papercuts a newcomer meets first.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};

use crate::common::{bin, copy_tree, sysroot};

/// A fake run over a writable copy of `board`: its JSON report and log.
fn fake_run(board: &str) -> (Value, String) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot(board), &root);
    let (log, report) = (tmp.path().join("l.log"), tmp.path().join("run.json"));
    bin()
        .env_remove("MODE")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(&log)
        .arg("--json")
        .arg(&report)
        .assert()
        .code(predicate::in_iter([0, 3]));
    let doc = serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
    (doc, fs::read_to_string(&log).unwrap())
}

/// Core Ultra 9 185H (corpus log `XRRi`): the two low-power E-cores cpu20-21 (no L3,
/// 2.5 GHz) are a cluster of their own in sbc-bench's log and in our monitor, but the
/// run folded them into the E-cores and never benchmarked them. Every cluster now gets
/// its clock check, memory, AES and single-threaded compression runs.
#[test]
fn meteor_lake_lp_e_cores_get_their_own_cluster_benchmarks() {
    let (doc, log) = fake_run("x86-hybrid-meteorlake");
    let clusters: Vec<Value> = doc["system_before"]["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| json!({"cpus": c["cpus"], "core_type": c["core_type"]}))
        .collect();
    assert_eq!(clusters.len(), 3, "{clusters:?}");
    for line in [
        "Checking cpufreq OPP for cpu20-cpu21 (Crestmont (E-core)):",
        "Executing benchmark on cpu20 (Crestmont (E-core)):",
        "Executing ramlat on cpu20 (Crestmont (E-core)), results in ns:",
        "Executing benchmark single-threaded on cpu20 (Crestmont (E-core))",
    ] {
        assert!(log.contains(line), "{line}");
    }
    insta::assert_json_snapshot!(json!({"clusters": clusters, "plan": doc["plan"]}));
}

/// `run` took `MaxKHz=abc` silently (no limit at all) while `bench clock` refused it.
#[test]
fn run_refuses_maxkhz_abc() {
    for cmd in [
        &["run", "--fake-benchmarks"][..],
        &["bench", "clock", "--quick"],
    ] {
        bin()
            .env("MaxKHz", "abc")
            .args(cmd)
            .assert()
            .code(2)
            .stdout("")
            .stderr(
                "error: invalid value 'abc' for 'MaxKHz': not a frequency in kHz (e.g. 1800000)\n",
            );
    }
    bin()
        .env("MinKHz", "1.2GHz")
        .args(["run", "--fake-benchmarks"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("'1.2GHz' for 'MinKHz'"));
}

/// `MODE=foo` (or a typo like `unatended`) ran an attended standard run without a word.
#[test]
fn run_refuses_mode_foo() {
    for mode in ["foo", "unatended", "unattended,foo"] {
        bin()
            .env("MODE", mode)
            .args(["run", "--fake-benchmarks"])
            .assert()
            .code(2)
            .stdout("")
            .stderr(format!(
                "error: invalid value '{mode}' for 'MODE': not one of unattended, extensive\n"
            ));
    }
}

/// A run on a copy of the x86 VM tree whose load never drops, signalled while it waits
/// for the machine to become idle (nothing has been changed yet).
fn signal_during_idle_wait(sig: nix::sys::signal::Signal) -> (Option<i32>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot("x86-vm"), &root);
    fs::write(root.join("proc/loadavg"), "3.00 3.00 3.00 1/200 4242\n").unwrap();
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("sbc-bench"))
        .env("NO_COLOR", "1")
        .env_remove("MODE")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .arg("--sysroot")
        .arg(&root)
        .args(["run", "--unattended", "--max-wait", "120", "--log"])
        .arg(tmp.path().join("l.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = String::new();
    while !seen.contains("Waiting...") {
        assert!(Instant::now() < deadline, "never waited for idle: {seen}");
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            panic!("run ended before waiting for idle: {seen}");
        }
        seen.push_str(&line);
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(
        !Path::new(&tmp.path().join("l.log")).exists(),
        "no log left behind"
    );
    (status.code(), err)
}

/// TERM while waiting for idle exited 130 (as for Ctrl-C): 128 + signal, as documented.
#[test]
fn term_during_idle_wait_exits_143() {
    let (code, err) = signal_during_idle_wait(nix::sys::signal::Signal::SIGTERM);
    assert_eq!(code, Some(143), "{err}");
    assert!(err.contains("Stopped before benchmarking"), "{err}");
}

/// HUP (the terminal went away) while waiting for idle: 129, not 130.
#[test]
fn hup_during_idle_wait_exits_129() {
    let (code, err) = signal_during_idle_wait(nix::sys::signal::Signal::SIGHUP);
    assert_eq!(code, Some(129), "{err}");
}

/// `--max-wait abc` said "invalid digit found in string", `monitor abc` "'abc' is not a
/// number of seconds", `MaxKHz=abc` "the environment variable MaxKHz='abc' is not…": now
/// every bad number is `error: invalid value 'V' for 'NAME': not …`, exit status 2.
#[test]
fn bad_number_messages_share_one_style() {
    /// Arguments, environment, the bad value and the name clap (or we) give it.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str, &'a str);
    let cases: &[Case] = &[
        (
            &["run", "--max-wait", "abc"],
            &[],
            "abc",
            "--max-wait <SECONDS>",
        ),
        (&["monitor", "abc"], &[], "abc", "[SECONDS]"),
        (&["-m", "0"], &[], "0", "[SECONDS]"),
        (&["monitor", "-n", "x"], &[], "x", "--count <N>"),
        (
            &["bench", "clock", "--max-khz", "abc"],
            &[],
            "abc",
            "--max-khz <KHZ>",
        ),
        (
            &["bench", "clock", "--min-khz", "1e6"],
            &[],
            "1e6",
            "--min-khz <KHZ>",
        ),
        (
            &["bench", "scrypt", "--duration", "5x"],
            &[],
            "5x",
            "--duration <TIME>",
        ),
        (&["run"], &[("MaxKHz", "abc")], "abc", "MaxKHz"),
        (&["bench", "clock"], &[("MinKHz", "x")], "x", "MinKHz"),
    ];
    for (args, env, value, name) in cases {
        let mut c = bin();
        c.env_remove("MODE");
        for (k, v) in *env {
            c.env(k, v);
        }
        let out = c.args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err.lines().next().unwrap_or_default();
        let prefix = format!("error: invalid value '{value}' for '{name}': not ");
        assert!(first.starts_with(&prefix), "{args:?} {env:?}: {first}");
    }
}

/// `-h` listed `-c` but not sbc-bench's other modes `-m` and `-S`.
#[test]
fn help_lists_sbc_bench_short_modes() {
    for flag in ["-h", "--help"] {
        bin().arg(flag).assert().success().stdout(
            predicate::str::contains("  -c, --stress")
                .and(predicate::str::contains("  -m [SECONDS]"))
                .and(predicate::str::contains("  -S  ")),
        );
    }
}

/// `bench foo` said "unrecognized subcommand" and named nothing to use instead.
#[test]
fn bench_foo_lists_the_available_benchmarks() {
    bin().args(["bench", "foo"]).assert().code(2).stderr(
        predicate::str::starts_with("error: unrecognized subcommand 'foo'\n").and(
            predicate::str::contains(
                "available benchmarks: clock, membw, memlat, aes, compress, scrypt",
            ),
        ),
    );
    bin()
        .arg("foo")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "available commands: run, info, monitor",
        ));
}

/// `bench clock --cpus 99` said "no such CPU" and left the user guessing which exist.
#[test]
fn bench_clock_cpus_99_says_which_cpus_exist() {
    let out = bin()
        .args(["bench", "clock", "--quick", "--cpus", "99"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("skipping cpu99: no such CPU; this machine has cpu0"),
        "{err}"
    );
}

/// The progress bar stays out of pipes: a run's stderr holds no bar.
#[test]
fn progress_bars_stay_quiet_in_pipes() {
    let mut c = Command::cargo_bin("sbc-bench").unwrap();
    c.env("NO_COLOR", "1")
        .args(["bench", "membw", "--quick", "--cpus", "0"])
        .assert()
        .stderr(
            predicate::str::contains("step 1/")
                .not()
                .and(predicate::str::contains("%").not()),
        );
}
