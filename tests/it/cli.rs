//! Exit codes and messages of the command line.

use crate::common::bin;
use predicates::prelude::*;

#[test]
fn unknown_flag_is_a_usage_error() {
    bin()
        .arg("--definitely-not-a-flag")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--definitely-not-a-flag"));
}

#[test]
fn unsupported_sbc_bench_mode_says_so() {
    bin()
        .args(["-N", "powerbox.local"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Netio power meter monitor mode"));
}

#[test]
fn missing_sysroot_is_reported() {
    bin()
        .args(["--sysroot", "/nonexistent/sysroot", "info"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a directory"));
}

#[test]
fn closed_pipe_is_quiet() {
    use std::io::Read;
    use std::process::{Command as Std, Stdio};
    let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
    let mut child = Std::new(exe)
        .args(["--sysroot", "tests/fixtures/sysroots/rock-5b", "info"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close our end before the child writes: its first write hits a closed pipe (EPIPE).
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    // `info` treats a closed pipe as the reader's choice (0); commands that do not handle it
    // end through the global handler with 141. Either way: no panic text, no crash.
    assert!(
        matches!(status.code(), Some(0) | Some(141)),
        "{status:?} {err}"
    );
}

/// An empty `SBC_BENCH_SYSROOT` is unset (the live system), as an empty `CPUINFOFILE` is;
/// a set one reads the tree, and `--sysroot` beats it.
#[test]
fn empty_sysroot_variable_is_unset() {
    bin()
        .env("SBC_BENCH_SYSROOT", "")
        .env("CPUINFOFILE", "")
        .args(["info", "--json"])
        .assert()
        .success();
    bin()
        .env("SBC_BENCH_SYSROOT", "")
        .args(["-m", "0.05", "--count", "1"])
        .assert()
        .success();
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/sysroots/rock-5b"
    );
    bin()
        .env("SBC_BENCH_SYSROOT", fixture)
        .arg("info")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("Radxa ROCK 5B\n"));
    let rpi5 = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/sysroots/rpi5");
    bin()
        .env("SBC_BENCH_SYSROOT", fixture)
        .args(["--sysroot", rpi5, "info"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("Raspberry Pi 5"));
}

/// `--help` shows users' text, not notes for developers.
#[test]
fn help_has_no_developer_notes() {
    for args in [
        &["monitor", "--help"][..],
        &["--help"][..],
        &["info", "--help"][..],
    ] {
        let out = bin()
            .args(args)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8_lossy(&out);
        assert!(!text.contains("reaches the parser"), "{args:?}: {text}");
        assert!(!text.contains("clap"), "{args:?}: {text}");
    }
}
