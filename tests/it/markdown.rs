//! `run --markdown FILE`: the review a user pastes, redacted unless `--no-redact`.

use std::fs;

use crate::common::{bin, copy_tree, sysroot};

fn markdown_of(board: &str, extra: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot(board), &root);
    let md = tmp.path().join("review.md");
    bin()
        .env_remove("MODE")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(tmp.path().join("run.log"))
        .arg("--markdown")
        .arg(&md)
        .args(extra)
        .assert()
        .success();
    fs::read_to_string(&md).unwrap()
}

#[test]
fn markdown_review_has_the_row_verdict_findings_and_summary() {
    let md = markdown_of("rock-5b", &[]);
    assert!(
        md.starts_with("# sbc-bench results: Radxa ROCK 5B\n"),
        "{md}"
    );
    assert!(
        // Issue 28: the fake run's clocks 2 % below their OPPs are a note, not a warning.
        md.contains("**Verdict:** results valid."),
        "{md}"
    );
    assert!(
        md.contains("| Radxa ROCK 5B | 2400/1800 MHz | 5.10 | Ubuntu 20.04 LTS arm64 | 31190 |"),
        "{md}"
    );
    assert!(md.contains("- info (`clock-below-advertised`): "), "{md}");
    assert!(md.contains("Memory performance (all 3 CPU clusters measured individually):"));
    // A board-named hostname (`rock-5b`) is hardware, not an identifier: kept.
    assert!(md.contains("DT compat: radxa,rock-5b"), "{md}");
}

#[test]
fn markdown_review_redacts_the_chip_id_unless_told_not_to() {
    let md = markdown_of("rock-5b", &[]);
    assert!(md.contains("SoC guess: Rockchip RK3588 / 35 88 …"), "{md}");
    assert!(!md.contains("12 fe 21 41"), "{md}");
    let full = markdown_of("rock-5b", &["--no-redact"]);
    assert!(full.contains("35 88 12 fe 21 41"), "{full}");
}

#[test]
fn no_redact_without_markdown_is_a_usage_error() {
    bin()
        .arg("--sysroot")
        .arg(sysroot("rock-5b"))
        .args(["run", "--fake-benchmarks", "--no-redact"])
        .assert()
        .code(2);
}
