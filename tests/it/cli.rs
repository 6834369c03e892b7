//! Exit codes and messages of the command line.

use assert_cmd::Command;
use predicates::prelude::*;

fn bin() -> Command {
    let mut c = Command::cargo_bin("sbc-bench").expect("binary built");
    c.env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .env("NO_COLOR", "1");
    c
}

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
        .arg("-r")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("review mode"));
}

#[test]
fn missing_sysroot_is_reported() {
    bin()
        .args(["--sysroot", "/nonexistent/sysroot", "info"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a directory"));
}
