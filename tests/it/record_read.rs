//! The run record read back as a type (`record::read::run_report`): the run JSON of every
//! mode on the fixture boards reads into `RunReport` and writes again byte for byte, so no
//! field of ours is lost or renamed between writing and reading.

use std::fs;

use crate::common::{BOARDS, bin, copy_tree, sysroot as fixture};

/// The run JSON of one fake mode run over a writable copy of `board`.
fn run_json(board: &str, mode: &[&str], tail: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture(board), &root);
    let json = tmp.path().join("r.json");
    let out = bin()
        .env_remove("MODE")
        .env_remove("NOTUNING")
        .env_remove("NotReadyYet")
        .env_remove("ExecuteCommand")
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(mode)
        .args(["--fake-benchmarks", "--unattended", "--max-wait", "0"])
        .arg("--log")
        .arg(tmp.path().join("l.log"))
        .arg("--json")
        .arg(&json)
        .args(tail)
        .write_stdin("")
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{board} {mode:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    fs::read_to_string(&json).unwrap()
}

/// JSON → `RunReport` → JSON, byte for byte (the exporter's pretty form and newline).
fn assert_round_trip(board: &str, mode: &[&str], tail: &[&str]) {
    let text = run_json(board, mode, tail);
    let report = sbc_bench::record::read::run_report(&text)
        .unwrap_or_else(|e| panic!("{board} {mode:?}: {e}"));
    let again = serde_json::to_string_pretty(&report).unwrap() + "\n";
    if again != text {
        let at = again
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{board} {mode:?}: differs at line {}: written {:?}, read back {:?}",
            at + 1,
            text.lines().nth(at),
            again.lines().nth(at)
        );
    }
}

#[test]
fn every_standard_run_json_reads_back_byte_for_byte() {
    for board in BOARDS {
        assert_round_trip(board, &["run", "--no-store"], &[]);
    }
}

#[test]
fn an_extensive_stress_run_json_reads_back_byte_for_byte() {
    for board in ["rock-5b", "x86-hybrid-meteorlake"] {
        assert_round_trip(board, &["run", "--no-store", "--extensive", "-c"], &[]);
    }
}

#[test]
fn every_thermal_run_json_reads_back_byte_for_byte() {
    for board in BOARDS {
        let m = ["thermal", "--memory-controller", "--duration", "2s"];
        assert_round_trip(board, &[&m[..], &["--no-store"]].concat(), &[]);
    }
    for board in ["rock-5b", "rpi4"] {
        let t = [
            "thermal",
            "--cool-to",
            "99",
            "--duration",
            "2s",
            "--no-store",
        ];
        assert_round_trip(board, &t, &[]);
    }
}

#[test]
fn every_graph_run_json_reads_back_byte_for_byte() {
    for board in ["rock-5b", "rpi5", "nanopi-r5s", "odroid-n2plus"] {
        assert_round_trip(board, &["graph", "--no-store"], &[]);
    }
}

#[test]
fn every_wrap_run_json_reads_back_byte_for_byte() {
    for board in BOARDS {
        assert_round_trip(board, &["wrap", "--no-store"], &["--", "true"]);
    }
}

#[test]
fn every_review_run_json_reads_back_byte_for_byte() {
    for board in BOARDS {
        let r = ["review", "--no-benchmarks", "--no-store"];
        assert_round_trip(board, &r, &["--", "true"]);
    }
}
