//! `sbc-bench report`: the HTML and Markdown report of a fake run over a writable fixture
//! copy, from the results database, the run JSON and an imported log; the page written
//! beside the log after a run; redaction.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{bin, copy_tree, sysroot};

/// The chart ids every page has (`report::page::html::CHART_IDS`).
pub const CHART_IDS: &[&str] = &[
    "chart-clocks",
    "chart-latency",
    "chart-bandwidth",
    "chart-aes",
    "chart-sevenzip",
    "chart-monitor-clock",
    "chart-monitor-temp",
    "chart-monitor-usage",
    "chart-monitor-busiest",
    "chart-comparison",
];

/// A fake run of `board` in `dir` (tree `dir/root`, optionally changed by `edit`),
/// stored in `dir/results.db`, with its log and JSON; the log's path.
pub fn fake_run(board: &str, dir: &Path, edit: impl FnOnce(&Path)) -> PathBuf {
    let root = dir.join("root");
    copy_tree(&sysroot(board), &root);
    edit(&root);
    let log = dir.join("run.log");
    bin()
        .env_remove("MODE")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(&log)
        .arg("--json")
        .arg(dir.join("run.json"))
        .arg("--db")
        .arg(dir.join("results.db"))
        .assert()
        .success();
    log
}

fn report(dir: &Path, args: &[&str]) -> (String, String) {
    let out = bin()
        .current_dir(dir)
        .arg("report")
        .args(args)
        .arg("--db")
        .arg(dir.join("results.db"))
        .assert()
        .success();
    let o = out.get_output();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn report_of_the_last_stored_run_has_every_section_and_chart() {
    let tmp = tempfile::tempdir().unwrap();
    fake_run("rock-5b", tmp.path(), |_| {});
    // Neither --html nor --markdown: the page in the current directory, and it says so.
    let (out, _) = report(tmp.path(), &[]);
    assert!(
        out.contains("HTML report in sbc-bench-report.html"),
        "{out}"
    );
    let html = fs::read_to_string(tmp.path().join("sbc-bench-report.html")).unwrap();
    for id in CHART_IDS {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
    }
    // Clocks, three latency curves, bandwidth, AES, 7-Zip, clock and temperature over
    // time, and the comparison with the RK3588 rows are drawn.
    assert_eq!(html.matches("<svg").count(), 10, "{html}");
    // Issue 28: clocks 2 % below their OPPs are a note: a normal board is valid.
    assert!(html.contains("Verdict: results valid."), "{html}");
    assert!(html.contains("<code>clock-below-advertised</code>"));
    assert!(html.contains("Published rows of SoC RK3588"), "{html}");
    assert!(html.contains("▶ Radxa ROCK 5B (this run)"));
    // A fake run's intervals are too short for a tick: said, not left out.
    assert!(html.contains("No chart: %cpu, %sys, %irq: the recording has no such samples"));
    for needle in ["<script", "src=", "href=", "url(", "@import"] {
        assert!(!html.contains(needle), "the page holds {needle}");
    }
}

#[test]
fn report_markdown_to_stdout_from_a_run_json_has_the_same_sections() {
    let tmp = tempfile::tempdir().unwrap();
    fake_run("rock-5b", tmp.path(), |_| {});
    let (md, _) = report(tmp.path(), &["run.json", "--markdown", "-"]);
    assert!(
        md.starts_with("# sbc-bench report: Radxa ROCK 5B\n"),
        "{md}"
    );
    for h in [
        "## Summary",
        "## Findings",
        "## Topology",
        "## Measured vs advertised clocks",
        "## Memory latency (ramlat, ns)",
        "## Memory bandwidth",
        "## AES (1000 bytes/s)",
        "## 7-Zip per cluster",
        "## Monitor recording",
        "## Compared with known boards",
    ] {
        assert!(md.contains(h), "{h}:\n{md}");
    }
    assert!(
        md.contains("| cpu4-5 (Cortex-A76) | 2400 | 2352 | -2.0 % | 2352 |"),
        "{md}"
    );
    assert!(
        md.contains("| **Radxa ROCK 5B (this run)** | **31192** |"),
        "{md}"
    );
    assert!(!md.contains("<svg"));
    // Only the Markdown was asked for: no page written.
    assert!(!tmp.path().join("sbc-bench-report.html").exists());
}

#[test]
fn run_writes_its_redacted_page_beside_the_log() {
    let tmp = tempfile::tempdir().unwrap();
    let log = fake_run("nanopi-r5s", tmp.path(), |_| {});
    let page = tmp.path().join("run.html");
    let html = fs::read_to_string(&page).unwrap();
    assert!(log.is_file());
    assert!(html.starts_with("<!DOCTYPE html>"));
    for id in CHART_IDS {
        assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
    }
}

#[test]
fn run_whose_page_cannot_be_written_warns_and_succeeds() {
    let tmp = tempfile::tempdir().unwrap();
    // A directory where the page would go: the page fails, the run does not.
    fs::create_dir(tmp.path().join("run.html")).unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot("rock-5b"), &root);
    let out = bin()
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args([
            "run",
            "--fake-benchmarks",
            "--unattended",
            "--no-store",
            "--log",
        ])
        .arg(tmp.path().join("run.log"))
        .assert()
        .success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    // Issue 27, item 6: it says why, naming the path, and leaves the directory alone.
    assert!(
        err.contains("warning: the HTML report was not written")
            && err.contains("run.html is not a regular file"),
        "{err}"
    );
    assert!(tmp.path().join("run.html").is_dir());
}

/// The page of a log (our `report LOG`), written to `dir/NAME.html`.
pub fn log_page(dir: &Path, name: &str) -> (PathBuf, String) {
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/logs/{name}.txt"));
    let page = dir.join(format!("{name}.html"));
    bin()
        .arg("report")
        .arg(&log)
        .arg("--html")
        .arg(&page)
        .arg("--db")
        .arg(dir.join("none.db"))
        .assert()
        .success();
    let html = fs::read_to_string(&page).unwrap();
    (page, html)
}

/// The charts a page draws (an SVG in the figure), by id.
pub fn drawn(html: &str) -> Vec<&'static str> {
    CHART_IDS
        .iter()
        .copied()
        .filter(|id| html.contains(&format!("id=\"{id}\">\n<svg")))
        .collect()
}

/// Issue 31: the report of a published log drew eleven "No chart" boxes although the log
/// holds every table. The RK3588 log 41BH (v0.9.8) gets clock, latency, bandwidth, AES,
/// 7-Zip and its health tables as time charts; only the busiest core, which no log
/// prints, says why not.
#[test]
fn report_of_a_published_rk3588_log_draws_every_chart_its_tables_allow() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, html) = log_page(tmp.path(), "41BH");
    assert!(html.contains("sbc-bench log, sbc-bench 0.9.8"), "{html}");
    assert_eq!(
        drawn(&html),
        [
            "chart-clocks",
            "chart-latency",
            "chart-bandwidth",
            "chart-aes",
            "chart-sevenzip",
            "chart-monitor-clock",
            "chart-monitor-temp",
            "chart-monitor-usage",
            "chart-comparison",
        ],
        "{html}"
    );
    assert!(
        html.contains("No chart: busiest core %cpu")
            || html.contains("id=\"chart-monitor-busiest\""),
        "{html}"
    );
    // Three clusters, each its ramlat curve; the topology table's clusters.
    assert!(html.contains("Latency, cpu0 (Cortex-A55)"), "{html}");
    assert!(html.contains("cpu4-5 (Cortex-A76)"), "{html}");
}

#[test]
fn report_of_a_log_says_which_tables_it_lacks() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, html) = log_page(tmp.path(), "8SWL");
    assert!(html.contains("sbc-bench log, sbc-bench 0.9.71"), "{html}");
    assert!(html.contains("X1E001DE Snapdragon Devkit"));
    assert!(
        html.contains("<td class=\"n\">66120</td>"),
        "the log's row: {html}"
    );
    let d = drawn(&html);
    assert!(
        d.contains(&"chart-sevenzip") && d.contains(&"chart-latency"),
        "{d:?}"
    );
    // What is not drawn says why.
    for id in CHART_IDS.iter().filter(|id| !d.contains(id)) {
        let at = html.find(&format!("id=\"{id}\"")).unwrap();
        assert!(
            html[at..].starts_with(&format!("id=\"{id}\"><p class=\"missing\">No chart: ")),
            "{id}"
        );
    }
}

#[test]
fn report_of_a_missing_run_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(tmp.path())
        .args(["report", "#7", "--db"])
        .arg(tmp.path().join("none.db"))
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("no results database at"), "{err}");
}

/// An rpi4 copy with a hostname of its own and serials on the kernel command line; the
/// fixture's command line holds the Ethernet MAC (`smsc95xx.macaddr=`).
fn identifying(root: &Path) {
    fs::write(root.join("etc/hostname"), "lab-bench-42\n").unwrap();
    let cmdline = root.join("proc/cmdline");
    let c = fs::read_to_string(&cmdline).unwrap();
    fs::write(
        &cmdline,
        format!(
            "{} bcm2709.serial=0xa1b2c3d4 androidboot.serialno=R58M1234XYZ\n",
            c.trim_end()
        ),
    )
    .unwrap();
}

const IDENTIFIERS: &[&str] = &[
    "lab-bench-42",
    "DC:A6:32:00:93:F2",
    "0xa1b2c3d4",
    "R58M1234XYZ",
];

#[test]
fn report_redacts_hostname_mac_and_serials_unless_no_redact() {
    let tmp = tempfile::tempdir().unwrap();
    fake_run("rpi4", tmp.path(), identifying);
    report(tmp.path(), &["--html", "r.html", "--markdown", "r.md"]);
    report(
        tmp.path(),
        &[
            "--html",
            "full.html",
            "--markdown",
            "full.md",
            "--no-redact",
        ],
    );
    let json = fs::read_to_string(tmp.path().join("run.json")).unwrap();
    for f in ["r.html", "r.md", "run.html"] {
        let text = fs::read_to_string(tmp.path().join(f)).unwrap();
        for id in IDENTIFIERS {
            assert!(json.contains(id), "the run JSON keeps {id}");
            assert!(!text.contains(id), "{f} leaks {id}");
        }
        assert!(
            text.contains("smsc95xx.macaddr=&lt;mac&gt;")
                || text.contains("smsc95xx.macaddr=<mac>"),
            "{f}"
        );
    }
    for f in ["full.html", "full.md"] {
        let text = fs::read_to_string(tmp.path().join(f)).unwrap();
        for id in IDENTIFIERS {
            assert!(text.contains(id), "{f} (--no-redact) lost {id}");
        }
    }
}
