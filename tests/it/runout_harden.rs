//! The standard run's outputs as sbc-bench's users read them: a `--quick` run is marked
//! wherever its figures show (log's first line, console, JSON, Results.md row), the
//! health tables carry sbc-bench's phase headings, and `--log FILE` holds one run.

use std::fs;
use std::path::Path;

use crate::common::{copy_tree, sysroot as fixture};
use assert_cmd::Command;
use serde_json::Value;

/// A fake run over a writable copy of `board` with `args` after `run`, its log in `log`.
/// Returns stdout, the log and the JSON report.
fn fake_run(board: &str, args: &[&str], log: &Path) -> (String, String, Value) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture(board), &root);
    let json = tmp.path().join("run.json");
    let out = Command::cargo_bin("sbc-bench")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("MODE")
        .env_remove("NotReadyYet")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended"])
        .args(args)
        .arg("--log")
        .arg(log)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{board} {args:?}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    (stdout, fs::read_to_string(log).unwrap(), doc)
}

fn last_line(log: &str) -> &str {
    log.trim_end().lines().last().unwrap_or_default()
}

#[test]
fn quick_run_is_marked_in_log_console_json_and_row() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("quick.log");
    let (stdout, text, doc) = fake_run("rock-5b", &["--quick"], &log);
    // Log, first line: sbc-bench's mode word, then ours.
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("sbc-bench v") && first.contains(" Radxa ROCK 5B unattended quick ("),
        "{first}"
    );
    // The row: marked after the clock, still ten columns.
    let row = last_line(&text);
    assert!(
        row.starts_with("| Radxa ROCK 5B | 2400/1800 MHz (quick) | "),
        "{row}"
    );
    assert_eq!(row.matches('|').count(), 11, "{row}");
    // Console and log say why, once each.
    let note = "Quick run (--quick)";
    assert_eq!(stdout.matches(note).count(), 1, "{stdout}");
    assert_eq!(text.matches(note).count(), 1);
    // JSON: the setting, the row's mark and the finding.
    assert_eq!(doc["config"]["quick"], true);
    assert_eq!(doc["results_row"]["quick"], true);
    let findings = doc["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["code"] == "quick-run" && f["severity"] == "info"),
        "{findings:?}"
    );

    // A full run has none of it.
    let full_log = tmp.path().join("full.log");
    let (stdout, text, doc) = fake_run("rock-5b", &[], &full_log);
    assert!(!text.lines().next().unwrap_or_default().contains("quick"));
    assert!(!last_line(&text).contains("(quick)"));
    assert!(!stdout.contains(note));
    assert_eq!(doc["results_row"]["quick"], false);
    assert!(
        !doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "quick-run")
    );
}

/// The "System health while running …:" headings in log order.
fn health_headings(log: &str) -> Vec<&str> {
    log.lines()
        .filter_map(|l| l.strip_prefix("System health while running "))
        .filter_map(|l| l.strip_suffix(':'))
        .collect()
}

#[test]
fn log_uses_sbc_bench_phase_headings() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("stress.log");
    let (_, text, doc) = fake_run("rock-5b", &["-c"], &log);
    // sbc-bench's headings (corpus log 8g-p.txt) in its order, ours where it has no
    // such phase (the clock checks, native LZMA).
    assert_eq!(
        health_headings(&text),
        [
            "clock check",
            "tinymembench",
            "ramlat",
            "OpenSSL benchmark",
            "7-zip single core benchmark",
            "7-zip multi core benchmark",
            // No native LZMA phase: 7-Zip ran and this is no --extensive run (issue 17).
            "cpuminer",
            "clock check under load",
        ]
    );
    // All in one section after "Thermal source:", each heading then an empty line then
    // the table's header, as sbc-bench lays them out.
    let at = text
        .find("System health while running tinymembench:")
        .unwrap();
    let before = &text[..at];
    assert!(
        before.contains("\nThermal source: "),
        "thermal source first"
    );
    assert!(
        text[at..].starts_with("System health while running tinymembench:\n\nTime "),
        "{}",
        &text[at..at + 80]
    );
    // The JSON keeps the monitor's own phase labels: only the log's headings changed.
    let phases: Vec<&str> = doc["monitor"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["label"].as_str())
        .collect();
    assert!(phases.contains(&"memory bandwidth benchmark"), "{phases:?}");

    // Extensive mode adds sbc-bench's "7-zip cluster benchmarks" after the multi-core one.
    let log = tmp.path().join("extensive.log");
    let (_, text, _) = fake_run("rock-5b", &["--extensive"], &log);
    let h = health_headings(&text);
    let multi = h
        .iter()
        .position(|l| *l == "7-zip multi core benchmark")
        .unwrap();
    assert_eq!(h.get(multi + 1), Some(&"7-zip cluster benchmarks"), "{h:?}");
}

#[test]
fn explicit_log_file_holds_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("mine.log");
    fs::write(
        &log,
        "sbc-bench v0.9.72 earlier run (Mon, 1 Jan 2024)\n\n| earlier |\n",
    )
    .unwrap();
    let (_, first, _) = fake_run("x86-vm", &[], &log);
    assert!(first.starts_with("sbc-bench v"), "{first}");
    assert!(!first.contains("earlier"), "--log FILE is replaced");
    let (_, second, _) = fake_run("x86-vm", &[], &log);
    let runs = second
        .lines()
        .filter(|l| l.starts_with("sbc-bench v"))
        .count();
    assert_eq!(runs, 1, "a second run replaces the first");
    assert!(last_line(&second).starts_with("| "));
}

/// `sbc-bench --sysroot x86-vm run --fake-benchmarks` with `args`: exit status and output.
fn fake_x86_run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = Command::cargo_bin("sbc-bench")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("MODE")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("SBC_BENCH_DB")
        .env_remove("CPUINFOFILE")
        .arg("--sysroot")
        .arg(fixture("x86-vm"))
        .args(["run", "--fake-benchmarks", "--unattended", "--no-store"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

// Issue 27, item 6: the HTML page written beside `--log` created `/dev/null.html`,
// `/dev/full.html` and `/dev/stdout.html` (100 KB each, in /dev): a page goes beside a
// regular log file only.
#[test]
fn no_report_page_beside_a_log_that_is_a_device() {
    for dev in ["/dev/null", "/dev/full"] {
        let page = Path::new(dev).with_extension("html");
        let _ = fs::remove_file(&page);
        let (_, text) = fake_x86_run(&["--log".as_ref(), dev.as_ref()]);
        assert!(!page.exists(), "{} written: {text}", page.display());
        assert!(!text.contains("HTML report in /dev/"), "{text}");
    }
}

// Issue 27, item 6: a pre-existing symlink `p.html → victim` was followed and the victim
// overwritten. The link is left alone (the user named the log, not it), and so is its
// target; the run says why there is no page.
#[test]
fn the_report_page_never_writes_through_a_symlink_beside_the_log() {
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim");
    fs::write(&victim, "keep me").unwrap();
    std::os::unix::fs::symlink(&victim, tmp.path().join("p.html")).unwrap();
    let log = tmp.path().join("p.log");
    let (code, text) = fake_x86_run(&["--log".as_ref(), log.as_os_str()]);
    assert!(matches!(code, Some(0 | 3)), "{text}");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me");
    assert!(
        fs::symlink_metadata(tmp.path().join("p.html"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(text.contains("is a symbolic link"), "{text}");
    // Beside a plain log it is written, and said where.
    let log = tmp.path().join("q.log");
    let (_, text) = fake_x86_run(&["--log".as_ref(), log.as_os_str()]);
    let page = tmp.path().join("q.html");
    assert!(page.is_file());
    assert!(
        text.contains(&format!("HTML report in {}", page.display())),
        "{text}"
    );
}

// Issue 27, item 6: `--json`, `--log` or `--markdown /dev/full` exited 0 with a warning:
// a document that cannot be written fails the run.
#[test]
fn a_document_to_dev_full_fails_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("l.log");
    for opt in ["--json", "--markdown"] {
        let (code, text) = fake_x86_run(&[
            "--log".as_ref(),
            log.as_os_str(),
            opt.as_ref(),
            "/dev/full".as_ref(),
        ]);
        assert_eq!(code, Some(1), "{opt}: {text}");
        assert!(text.contains("error: cannot write"), "{opt}: {text}");
    }
    let (code, text) = fake_x86_run(&["--log".as_ref(), "/dev/full".as_ref()]);
    assert_eq!(code, Some(1), "--log: {text}");
}

// Issue 27, item 9: on a machine without DMI or a device tree the device name is the
// hostname, and the exemption for "a hostname that names the board" kept it in
// `--markdown`, the HTML page (title, h1, the Hostname row) and `results export`.
#[test]
fn a_hostname_that_only_the_hostname_proves_is_redacted_everywhere_shared() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture("x86-vm"), &root);
    fs::write(root.join("etc/hostname"), "mini-localhost\n").unwrap();
    if root.join("proc/sys/kernel/hostname").exists() {
        fs::write(root.join("proc/sys/kernel/hostname"), "mini-localhost\n").unwrap();
    }
    let db = tmp.path().join("r.db");
    let out = Command::cargo_bin("sbc-bench")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("MODE")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .arg("--sysroot")
        .arg(&root)
        .args(["run", "--fake-benchmarks", "--unattended", "--db"])
        .arg(&db)
        .arg("--log")
        .arg(tmp.path().join("m.log"))
        .arg("--json")
        .arg(tmp.path().join("m.json"))
        .arg("--markdown")
        .arg(tmp.path().join("m.md"))
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 3)), "{out:?}");
    let json = fs::read_to_string(tmp.path().join("m.json")).unwrap();
    assert!(json.contains("mini-localhost"), "the local JSON keeps it");
    for f in ["m.md", "m.html"] {
        let text = fs::read_to_string(tmp.path().join(f)).unwrap();
        assert!(!text.contains("mini-localhost"), "{f} holds the hostname");
        assert!(
            text.contains("&lt;hostname&gt;") || text.contains("<hostname>"),
            "{f}"
        );
    }
    let export = Command::cargo_bin("sbc-bench")
        .unwrap()
        .args(["results", "--db"])
        .arg(&db)
        .args(["export", "--format", "csv"])
        .output()
        .unwrap();
    let csv = String::from_utf8_lossy(&export.stdout);
    assert!(export.status.success(), "{csv}");
    assert!(!csv.contains("mini-localhost"), "{csv}");
}
