//! Golden outputs of every mode on every fixture board, captured before the engine
//! redesign (issue "Every mode a plug-in, the run record read back typed") and kept since:
//! what users parse (the sbc-bench log with its Results.md row, the run JSON's keys and
//! values, the Markdown review, `storage`, `net info`) must stay byte for byte.
//! Only what changes from run to run is masked: times, durations, the monitor's samples.

use std::fs;
use std::path::Path;

use crate::common::{BOARDS, bin, copy_tree, sysroot as fixture};

/// Times, durations and temp paths, as the other snapshots mask them.
fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)",
        "TIMESTAMP",
    );
    s.add_filter(
        r"\w{3}, \d{1,2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}",
        "DATE",
    );
    s.add_filter(r"(?m)^\d{2}:\d{2}:\d{2}: .*\n", "");
    s.add_filter(r"\(\d+\.\d s\)", "(N s)");
    s.add_filter(r"\d+\.\d s\b", "N.N s");
    s.add_filter(r"\(\d+ seconds elapsed\)", "(N seconds elapsed)");
    // wrap's `Result: exit 0, 0.0 seconds`: `true` took 0.1 s on a loaded CI machine.
    s.add_filter(r"(Result: exit -?\d+), \d+\.\d seconds", "$1, N.N seconds");
    s.add_filter(r"v\d+\.\d+\.\d+", "vX.Y.Z");
    s.add_filter(
        r"sbc-bench \d+\.\d+\.\d+ \(Rust\)",
        "sbc-bench X.Y.Z (Rust)",
    );
    s.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "TMP");
    s.add_filter(r"Uptime: .*", "Uptime: UPTIME");
    s.add_filter(r"\t\d{2}/\d{2}/\d{2} \t", "\tMM/DD/YY \t");
    s.add_filter(r"\d{2}:\d{2}:\d{2}-\d{2}:\d{2}:\d{2}", "HH:MM:SS-HH:MM:SS");
    // wrap's duration lines carry the day (`0.0 seconds (2026-12-03; …)`).
    s.add_filter(r"\(\d{4}-\d{2}-\d{2}; ", "(YYYY-MM-DD; ");
    s
}

/// Keys whose values differ between two runs of the same fake run.
const VOLATILE: &[&str] = &[
    "started",
    "ended",
    "finished",
    "duration_s",
    "idle_wait_s",
    "uptime",
    "elapsed_s",
    "wall_s",
];

/// Objects that hold the monitor's samples (their count follows the wall clock).
/// The thermal load's per-interval and per-thread hash counts follow it too (the canned
/// scrypt is paced by the clock).
const VOLATILE_OBJECTS: &[&str] = &["monitor", "recording", "intervals", "threads"];

/// The pretty-printed run JSON with volatile values masked and the monitor's recording
/// left out; keys keep their order, everything else its bytes.
pub fn mask_json(text: &str) -> String {
    let mut out = String::new();
    let mut skip_until: Option<String> = None;
    for line in text.lines() {
        if let Some(end) = &skip_until {
            if line == end.as_str() || line == format!("{end},") {
                skip_until = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if let Some((key, rest)) = trimmed.strip_prefix('"').and_then(|t| t.split_once("\": ")) {
            if VOLATILE_OBJECTS.contains(&key) && (rest == "{" || rest == "[") {
                let close = if rest == "{" { "}" } else { "]" };
                out.push_str(&format!("{indent}\"{key}\": MASKED\n"));
                skip_until = Some(format!("{indent}{close}"));
                continue;
            }
            if VOLATILE.contains(&key) && !rest.starts_with('{') && !rest.starts_with('[') {
                let comma = if rest.ends_with(',') { "," } else { "" };
                out.push_str(&format!("{indent}\"{key}\": MASKED{comma}\n"));
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// One fake mode run over a writable copy of `board`: its console, log, JSON and (for
/// `run`) Markdown, each snapshotted.
fn golden_mode(board: &str, name: &str, mode: &[&str], tail: &[&str], markdown: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture(board), &root);
    let log = tmp.path().join("l.log");
    let json = tmp.path().join("r.json");
    let md = tmp.path().join("r.md");
    let mut c = bin();
    c.env_remove("MODE")
        .env_remove("NOTUNING")
        .env_remove("NotReadyYet")
        .env_remove("ExecuteCommand")
        .env_remove("Netio")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(mode)
        .args([
            "--fake-benchmarks",
            "--unattended",
            "--max-wait",
            "0",
            "--log",
        ])
        .arg(&log)
        .arg("--json")
        .arg(&json);
    if markdown {
        c.arg("--markdown").arg(&md);
    }
    c.args(tail).write_stdin("");
    let out = c.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{board} {name}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let read = |p: &Path| fs::read_to_string(p).unwrap_or_else(|e| format!("<{e}>"));
    settings().bind(|| {
        insta::assert_snapshot!(format!("{name}_console_{board}"), stdout);
        insta::assert_snapshot!(format!("{name}_log_{board}"), read(&log));
        insta::assert_snapshot!(format!("{name}_json_{board}"), mask_json(&read(&json)));
        if markdown {
            insta::assert_snapshot!(format!("{name}_md_{board}"), read(&md));
        }
    });
}

#[test]
fn golden_standard_run_json_and_markdown_on_every_board() {
    for board in BOARDS {
        golden_mode(board, "run", &["run", "--no-store"], &[], true);
    }
}

#[test]
fn golden_thermal_memory_controller_on_every_board() {
    for board in BOARDS {
        golden_mode(
            board,
            "thermal_m",
            &[
                "thermal",
                "--memory-controller",
                "--duration",
                "2s",
                "--no-store",
            ],
            &[],
            false,
        );
    }
}

#[test]
fn golden_thermal_cool_to_on_boards_with_a_sensor() {
    for board in ["rock-5b", "rpi4", "nanopi-r5s"] {
        golden_mode(
            board,
            "thermal_t",
            &[
                "thermal",
                "--cool-to",
                "99",
                "--duration",
                "2s",
                "--no-store",
            ],
            &[],
            false,
        );
    }
}

#[test]
fn golden_graph_on_cpufreq_boards() {
    for board in ["rock-5b", "rpi5", "nanopi-r5s", "odroid-n2plus"] {
        golden_mode(board, "graph", &["graph", "--no-store"], &[], false);
    }
}

#[test]
fn golden_wrap_on_every_board() {
    for board in BOARDS {
        golden_mode(
            board,
            "wrap",
            &["wrap", "--no-store"],
            &["--", "true"],
            false,
        );
    }
}

#[test]
fn golden_review_without_benchmarks_on_every_board() {
    for board in BOARDS {
        golden_mode(
            board,
            "review_r",
            &["review", "--no-benchmarks", "--no-store"],
            &["--", "true"],
            false,
        );
    }
}

/// `storage` and `net info` as text, on every board.
#[test]
fn golden_storage_and_net_info_text_on_every_board() {
    for board in BOARDS {
        for (name, args) in [
            ("storage", vec!["storage"]),
            ("net_info", vec!["net", "info"]),
        ] {
            let out = bin()
                .arg("--sysroot")
                .arg(fixture(board))
                .args(&args)
                .output()
                .unwrap();
            let text = format!(
                "status: {:?}\n--- stdout\n{}--- stderr\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            settings().bind(|| {
                insta::assert_snapshot!(format!("{name}_{board}"), text);
            });
        }
    }
}

#[test]
fn mask_json_keeps_order_and_masks_times_and_the_monitor() {
    let text =
        "{\n  \"started\": \"x\",\n  \"monitor\": {\n    \"a\": 1\n  },\n  \"b\": [\n    1\n  ]\n}";
    assert_eq!(
        mask_json(text),
        "{\n  \"started\": MASKED,\n  \"monitor\": MASKED\n  \"b\": [\n    1\n  ]\n}\n"
    );
}
