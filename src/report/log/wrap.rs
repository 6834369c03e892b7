//! `sbc-bench wrap`'s text: the log in sbc-bench's layout (head, one section per run,
//! the table of runs with sbc-bench's duration lines, Geekbench's "All Geekbench
//! results" table and compare URL, then the standard run's after-sections with one
//! `System health while running <label>` table per run, validation and tuning) and the
//! console summary. Pure functions of the report.

use std::fmt::Write as _;

use crate::bench::external::extract::{Score, Tool};
use crate::monitor::Recording;
use crate::monitor::render::TableOptions;
use crate::record::mode::wrap::{WrapResults, WrapRun};
use crate::record::run::table_every_s;
use crate::record::run::{ModeResults, RunReport, RunStatus};
use crate::report::log::common::{
    after_sections_with, log_head, section, validation, validation_and_tuning,
};
use crate::sys::cpu_list::format_list;

/// `HH:MM:SS` of an RFC 3339 time (the time as written, local).
fn hms(t: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(t)
        .map(|d| d.format("%H:%M:%S").to_string())
        .unwrap_or_else(|_| "-".to_string())
}

fn day(t: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(t)
        .map(|d| d.format("%Y-%m-%d").to_string())
        .unwrap_or_else(|_| "-".to_string())
}

/// `1467.61 bogo ops/s`: a value as the table shows it.
fn value(v: f64, unit: &str) -> String {
    let n = if v.fract() == 0.0 || v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    };
    if unit.is_empty() {
        n
    } else {
        format!("{n} {unit}")
    }
}

/// `Single-Core Score: 400 points`; a value named as its unit (Stockfish's `nodes/s`)
/// once: `783140 nodes/s`, not `nodes/s: 783140 nodes/s`.
fn named_value(name: &str, v: f64, unit: &str) -> String {
    if name == unit {
        value(v, unit)
    } else {
        format!("{name}: {}", value(v, unit))
    }
}

/// The score column: the first value (the tool's headline), or `-`.
fn headline(s: Option<&Score>) -> String {
    s.and_then(|s| s.values.first())
        .map(|v| named_value(&v.name, v.value, &v.unit))
        .unwrap_or_else(|| "-".to_string())
}

/// One line per run: label, exit, duration, start-end, score.
pub fn runs_table(w: &WrapResults) -> String {
    let width = w
        .runs
        .iter()
        .map(|r| r.label.len())
        .max()
        .unwrap_or(3)
        .max(3);
    let exits: Vec<String> = w
        .runs
        .iter()
        .map(|r| {
            if r.interrupted {
                format!("{} (stopped)", r.exit.describe())
            } else {
                r.exit.describe()
            }
        })
        .collect();
    // The exit column is as wide as its longest cell (18 at least, as it always was): a
    // `skipped: …` reason does not push the columns after it out of line.
    let exit_w = exits
        .iter()
        .map(|e| e.chars().count())
        .max()
        .unwrap_or(0)
        .max(18);
    let mut s = format!(
        "{:<width$}  {:<exit_w$} {:>10}  {:<17}  Score\n",
        "Run", "Exit", "Duration", "Time"
    );
    for (r, exit) in w.runs.iter().zip(&exits) {
        let time = if r.started.is_empty() {
            "-".to_string()
        } else {
            format!("{}-{}", hms(&r.started), hms(&r.ended))
        };
        let _ = writeln!(
            s,
            "{:<width$}  {:<exit_w$} {:>8.1} s  {:<17}  {}",
            r.label,
            exit,
            r.duration_s,
            time,
            headline(r.score.as_ref())
        );
    }
    s
}

/// sbc-bench's duration lines (`geekbench on cores 0-3: 123.4 seconds (2024-01-01;
/// 10:00:00-10:02:03)`), for lining up with an external power log.
fn durations(w: &WrapResults) -> String {
    let mut s = String::new();
    for r in w.runs.iter().filter(|r| !r.started.is_empty()) {
        let _ = writeln!(
            s,
            "{}: {:.1} seconds ({}; {}-{})",
            r.label,
            r.duration_s,
            day(&r.started),
            hms(&r.started),
            hms(&r.ended)
        );
    }
    s
}

fn clocks(c: &[(u32, u64)]) -> String {
    if c.is_empty() {
        return "n/a".to_string();
    }
    c.iter()
        .map(|(p, mhz)| format!("policy{p} {mhz} MHz"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One run's section: what ran where, how it ended, its score and output tail.
fn run_section(r: &WrapRun) -> String {
    let mut s = format!("Executing {}\n\n", r.label);
    let _ = writeln!(s, "Command: {}", shell_words(&r.command));
    let c = &r.confinement;
    if !c.affinity.is_empty() {
        let _ = writeln!(s, "Affinity: CPUs {}", format_list(&c.affinity));
    }
    if !c.offlined.is_empty() {
        let _ = writeln!(
            s,
            "Taken offline for this run (and brought back): CPUs {}",
            format_list(&c.offlined)
        );
    }
    for n in &c.notes {
        let _ = writeln!(s, "Note: {n}");
    }
    let stopped = if r.interrupted { ", stopped" } else { "" };
    let _ = writeln!(
        s,
        "Result: {}{stopped}, {:.1} seconds",
        r.exit.describe(),
        r.duration_s
    );
    let _ = writeln!(s, "Clocks before: {}", clocks(&r.clocks_before_mhz));
    let _ = writeln!(s, "Clocks after:  {}", clocks(&r.clocks_after_mhz));
    if let Some(sc) = &r.score {
        if let Some(u) = &sc.url {
            let _ = writeln!(s, "\n  {u}");
        }
        if !sc.values.is_empty() {
            s.push('\n');
        }
        for v in &sc.values {
            let _ = writeln!(s, "  {}", named_value(&v.name, v.value, &v.unit));
        }
    }
    for (what, tail) in [("stdout", &r.stdout_tail), ("stderr", &r.stderr_tail)] {
        let t = crate::bench::external::extract::strip_ansi(tail);
        if !t.trim().is_empty() {
            let _ = write!(s, "\nLast lines of {what}:\n\n{}\n", t.trim_end());
        }
    }
    s
}

/// The command as a shell would take it back (`stress-ng --cpu 1 'a b'`).
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%{}".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// sbc-bench's "All Geekbench results:" table: one column per run (`0-3`, `4-7`,
/// `all 1st`, `all 2nd`), one row per score, `%25s` names and `%10s` values.
pub fn geekbench_table(w: &WrapResults) -> String {
    if w.spec.tool != Tool::Geekbench || !w.runs.iter().any(|r| r.cluster != "all") {
        return String::new();
    }
    let mut all = 0;
    let cols: Vec<(String, &WrapRun)> = w
        .runs
        .iter()
        .map(|r| {
            let name = if r.cluster == "all" {
                all += 1;
                format!("all {}", ordinal_short(all))
            } else {
                format_list(&r.cpus)
            };
            (name, r)
        })
        .collect();
    let mut names: Vec<&str> = Vec::new();
    for (_, r) in &cols {
        for v in r.score.iter().flat_map(|s| &s.values) {
            if !names.contains(&v.name.as_str()) {
                names.push(&v.name);
            }
        }
    }
    let mut s = String::from("All Geekbench results:\n\n");
    let _ = write!(s, "{:25}", "");
    for (n, _) in &cols {
        let _ = write!(s, "{n:>10}");
    }
    s.push('\n');
    for name in names {
        let _ = write!(s, "{name:>25}");
        for (_, r) in &cols {
            let v = r
                .score
                .iter()
                .flat_map(|s| &s.values)
                .find(|v| v.name == name)
                .map(|v| format!("{:.0}", v.value))
                .unwrap_or_else(|| "-".to_string());
            let _ = write!(s, "{v:>10}");
        }
        s.push('\n');
    }
    s
}

fn ordinal_short(n: u32) -> String {
    match n {
        1 => "1st".to_string(),
        2 => "2nd".to_string(),
        3 => "3rd".to_string(),
        n => format!("{n}th"),
    }
}

/// One `System health while running <label>:` table per run of a wrap run that ran, with
/// the monitor's renderer.
fn health_tables(rec: &Recording, w: &WrapResults, opts: &TableOptions) -> String {
    let mut s = String::new();
    for r in &w.runs {
        let Some(phase) = rec.phase(&r.label) else {
            continue;
        };
        let every = table_every_s(r.duration_s, rec.interval_s);
        s.push_str(&rec.health_table(phase, every, opts, &crate::monitor::render::local_hms));
        s.push('\n');
    }
    s
}

/// The full log of a wrap run.
pub fn log(r: &RunReport) -> String {
    let mut s = log_head(r);
    let ModeResults::Wrap(w) = &r.mode else {
        return s;
    };
    for run in &w.runs {
        section(&mut s, &run_section(run));
    }
    section(&mut s, &geekbench_table(w));
    if let Some(u) = &w.compare_url {
        section(&mut s, u);
    }
    let mut t = format!("Runs of {} (local time):\n\n", w.spec.name);
    t.push_str(&runs_table(w));
    t.push('\n');
    t.push_str(&durations(w));
    section(&mut s, &t);
    section(&mut s, &crate::report::log::power::log_section(r));
    after_sections_with(&mut s, r, &|rec, opts| health_tables(rec, w, opts));
    section(&mut s, &validation_and_tuning(r));
    if r.status == RunStatus::Interrupted {
        s.push_str("The run was interrupted: the command was stopped.\n");
    }
    s
}

/// What the console shows at the end: the table of runs, the compare URL, validation.
pub fn console(r: &RunReport, log: Option<&str>, color: bool) -> String {
    let mut s = String::from("\n");
    if let ModeResults::Wrap(w) = &r.mode {
        s.push_str(&runs_table(w));
        if let Some(u) = &w.compare_url {
            let _ = writeln!(s, "\n{u}");
        }
        s.push('\n');
    }
    s.push_str(&validation(r, color));
    if r.status == RunStatus::Interrupted {
        s.push_str("\nThe run was interrupted: the command was stopped.\n");
    }
    if let Some(l) = log {
        let _ = write!(s, "\nFull results in {l}\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::external::extract::Value;
    use crate::record::mode::wrap::{Confinement, Exit, WrapSpec};

    fn run(label: &str, cluster: &str, cpus: Vec<u32>, single: f64, multi: f64) -> WrapRun {
        WrapRun {
            label: label.into(),
            cluster: cluster.into(),
            cpus,
            command: vec!["geekbench6".into()],
            confinement: Confinement::default(),
            started: "2024-01-01T10:00:00+01:00".into(),
            ended: "2024-01-01T10:02:03+01:00".into(),
            duration_s: 123.4,
            exit: Exit::Code(0),
            interrupted: false,
            stdout_tail: String::new(),
            stderr_tail: String::new(),
            clocks_before_mhz: vec![(0, 1800)],
            clocks_after_mhz: vec![(0, 1800)],
            score: Some(Score {
                values: vec![
                    Value {
                        name: "Single-Core Score".into(),
                        value: single,
                        unit: "points".into(),
                    },
                    Value {
                        name: "Multi-Core Score".into(),
                        value: multi,
                        unit: "points".into(),
                    },
                ],
                url: Some("https://browser.geekbench.com/v6/cpu/1".into()),
            }),
        }
    }

    fn gb() -> WrapResults {
        WrapResults {
            spec: WrapSpec {
                tool: Tool::Geekbench,
                name: "geekbench6".into(),
                ..Default::default()
            },
            runs: vec![
                run(
                    "geekbench6 on cores 0-3 (Cortex-A55)",
                    "Cortex-A55",
                    vec![0, 1, 2, 3],
                    400.0,
                    1200.0,
                ),
                run(
                    "geekbench6 on cores 4-7 (Cortex-A76)",
                    "Cortex-A76",
                    vec![4, 5, 6, 7],
                    800.0,
                    2600.0,
                ),
                run(
                    "geekbench6 on all cores",
                    "all",
                    (0..8).collect(),
                    810.0,
                    3000.0,
                ),
                run(
                    "geekbench6 on all cores (2nd run)",
                    "all",
                    (0..8).collect(),
                    805.0,
                    2990.0,
                ),
            ],
            compare_url: None,
        }
    }

    #[test]
    fn all_geekbench_results_per_cluster_as_sbc_bench() {
        let t = geekbench_table(&gb());
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "All Geekbench results:");
        assert_eq!(
            lines[2],
            format!(
                "{:25}{:>10}{:>10}{:>10}{:>10}",
                "", "0-3", "4-7", "all 1st", "all 2nd"
            )
        );
        assert_eq!(
            lines[3],
            format!(
                "{:>25}{:>10}{:>10}{:>10}{:>10}",
                "Single-Core Score", 400, 800, 810, 805
            )
        );
        assert!(lines[4].ends_with("      3000      2990"), "{t}");
    }

    #[test]
    fn durations_as_sbc_bench_logs_them() {
        let d = durations(&gb());
        assert_eq!(
            d.lines().next(),
            Some(
                "geekbench6 on cores 0-3 (Cortex-A55): 123.4 seconds (2024-01-01; 10:00:00-10:02:03)"
            )
        );
        let t = runs_table(&gb());
        assert!(
            t.contains("exit 0") && t.contains("Single-Core Score: 400 points"),
            "{t}"
        );
        assert_eq!(shell_words(&["a b".into(), "x".into()]), "'a b' x");
    }

    /// Issue 28: a `skipped: …` exit (wider than the 18 columns of `exit 0`) pushed its
    /// row's duration, time and score out of line with the heading and the other rows.
    #[test]
    fn wrap_table_keeps_its_columns_on_skipped_rows() {
        let mut w = gb();
        w.runs[1].exit = Exit::Skipped("cores 4-7 are not online here".into());
        w.runs[1].started = String::new();
        w.runs[1].score = None;
        let t = runs_table(&w);
        let lines: Vec<&str> = t.lines().collect();
        let col = |l: &str, what: &str| l.find(what).unwrap_or(usize::MAX);
        let duration = col(lines[0], "Duration") + "Duration".len();
        for l in &lines[1..] {
            assert_eq!(col(l, " s  ") + 2, duration, "{t}");
        }
        assert!(
            lines[2].contains("skipped: cores 4-7 are not online here "),
            "{t}"
        );
        // Without a long exit the table is as it always was.
        let plain = runs_table(&gb());
        assert!(plain.starts_with(&format!("{:<36}  {:<18} {:>10}", "Run", "Exit", "Duration")));
    }

    /// Issue 28: Stockfish's value is named as its unit: the table said `nodes/s: 783140
    /// nodes/s`.
    #[test]
    fn stockfish_nodes_per_second_is_said_once() {
        let mut w = gb();
        w.runs[0].score = Some(crate::bench::external::extract::stockfish::parse(
            "Nodes/second    : 783140\n",
        ));
        let t = runs_table(&w);
        assert!(t.contains("  783140 nodes/s\n"), "{t}");
        assert!(!t.contains("nodes/s: "), "{t}");
        let sec = run_section(&w.runs[0]);
        assert!(sec.contains("\n  783140 nodes/s\n"), "{sec}");
    }
}
