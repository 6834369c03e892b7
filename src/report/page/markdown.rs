//! The Markdown form of `sbc-bench report` (`--markdown FILE`, or standard output): the
//! HTML report's sections as tables, for a reviewer to paste. It is drawn from the same
//! [`ReportData`] as the page, so it serves a stored run JSON or an imported log as well
//! as a live run (the run's `--markdown` review, `report::export::markdown`, needs the
//! live run's report). Pure; redaction is the caller's ([`ReportData::redacted`]).

use std::fmt::Write as _;

use crate::report::page::table::{self, PageTable};
use crate::report::page::{self, ReportData};

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A table of the page's model ([`page_table`]); an emphasised row in bold.
fn table(o: &mut String, t: &PageTable) {
    let line = |cells: &mut dyn Iterator<Item = String>| {
        format!("| {} |", cells.collect::<Vec<_>>().join(" | "))
    };
    let _ = writeln!(o, "{}", line(&mut t.head.iter().map(|h| cell(h))));
    let rule: Vec<&str> = (0..t.head.len())
        .map(|i| if i >= t.numeric_from { "---:" } else { "---" })
        .collect();
    let _ = writeln!(o, "| {} |", rule.join(" | "));
    for (i, r) in t.rows.iter().enumerate() {
        let bold = t.emphasised.contains(&i);
        let mut cells = r.iter().map(|c| {
            if bold {
                format!("**{}**", cell(c))
            } else {
                cell(c)
            }
        });
        let _ = writeln!(o, "{}", line(&mut cells));
    }
    o.push('\n');
}

fn missing(o: &mut String, what: &str, d: &ReportData) {
    let why = if d.missing.is_empty() {
        String::new()
    } else {
        format!(": {}", d.missing)
    };
    let _ = writeln!(o, "_No data: {what}{why}._\n");
}

/// The Markdown report.
pub fn render(d: &ReportData) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# sbc-bench report: {}\n", d.title);
    let _ = writeln!(o, "{}.\n", d.source);
    let _ = writeln!(o, "**Verdict:** {}.\n", d.verdict.sentence());
    o.push_str("## Summary\n\n");
    table(&mut o, &table::summary(d));
    if let Some(r) = &d.results_row {
        table(&mut o, &table::results_row(r));
    }
    o.push_str("## Findings\n\n");
    if d.findings.is_empty() {
        o.push_str("None.\n\n");
    }
    for x in &d.findings {
        let _ = writeln!(
            o,
            "- {} (`{}`): {}{}",
            x.severity.word(),
            x.code,
            x.message,
            if x.explanation.is_empty() {
                String::new()
            } else {
                format!(" — _{}_", x.explanation)
            }
        );
    }
    if !d.findings.is_empty() {
        o.push('\n');
    }
    o.push_str("## Topology\n\n");
    if d.topology.is_empty() {
        missing(&mut o, "topology", d);
    } else {
        table(&mut o, &table::topology(d));
    }
    clocks(&mut o, d);
    latency(&mut o, d);
    o.push_str("## Memory bandwidth\n\n");
    if d.bandwidth.is_empty() {
        missing(&mut o, "memory bandwidth", d);
    } else {
        table(&mut o, &table::bandwidth(d));
    }
    aes(&mut o, d);
    o.push_str("## 7-Zip per cluster\n\n");
    if d.sevenzip.is_empty() {
        missing(&mut o, "7-Zip", d);
    } else {
        table(&mut o, &table::sevenzip(d));
    }
    monitor(&mut o, d);
    comparison(&mut o, d);
    o
}

fn clocks(o: &mut String, d: &ReportData) {
    o.push_str("## Measured vs advertised clocks\n\n");
    if d.clocks.is_empty() {
        missing(o, "clock measurements", d);
        return;
    }
    table(o, &table::clocks(d));
}

fn latency(o: &mut String, d: &ReportData) {
    o.push_str("## Memory latency (ramlat, ns)\n\n");
    if d.latency.is_empty() {
        missing(o, "ramlat table", d);
        return;
    }
    for c in &d.latency {
        let _ = writeln!(o, "{}:\n", c.name);
        table(o, &table::latency(c));
    }
}

fn aes(o: &mut String, d: &ReportData) {
    o.push_str("## AES (1000 bytes/s)\n\n");
    if d.aes.is_empty() {
        missing(o, "AES results", d);
        return;
    }
    table(o, &table::aes(d));
}

fn monitor(o: &mut String, d: &ReportData) {
    o.push_str("## Monitor recording\n\n");
    let Some(m) = &d.monitor else {
        missing(o, "monitor recording", d);
        return;
    };
    let peak = |s: &[page::TimeSeries], name: &str| {
        s.iter()
            .find(|t| t.name == name)
            .and_then(|t| t.points.iter().map(|p| p.1).reduce(f64::max))
    };
    let phases = table::phases(m);
    if phases.is_empty() {
        missing(o, "phases in the recording", d);
    } else {
        table(o, &phases);
    }
    if let Some(t) = peak(&m.temp, "SoC temperature") {
        let _ = writeln!(o, "Highest temperature sampled: {t:.1} °C.\n");
    }
}

fn comparison(o: &mut String, d: &ReportData) {
    o.push_str("## Compared with known boards\n\n");
    let Some(c) = d.comparison.as_ref().filter(|c| !c.bars.is_empty()) else {
        o.push_str("_No data: no published row shares the run's SoC or core types._\n");
        return;
    };
    let _ = writeln!(
        o,
        "{}, sorted by {}; this run in bold.\n",
        c.selection, c.metric
    );
    table(o, &table::comparison(c));
    for w in &c.why {
        let _ = writeln!(o, "- {w}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::page::*;

    #[test]
    fn the_markdown_has_the_pages_sections_as_tables() {
        let d = ReportData {
            title: "Board".into(),
            source: "src".into(),
            verdict: Verdict::Valid,
            bandwidth: vec![Bandwidth {
                cluster: "cpu0-3 (Cortex-A55)".into(),
                test: "libc memcpy | copy".into(),
                mb_s: 10743.6,
            }],
            comparison: Some(ComparisonView {
                metric: "7zip-multi".into(),
                selection: "SoC RK3588".into(),
                bars: vec![Bar {
                    label: "Board".into(),
                    value: 31190.0,
                    this_run: true,
                }],
                why: vec!["slower clocks".into()],
            }),
            ..ReportData::default()
        };
        let md = render(&d);
        assert!(md.starts_with("# sbc-bench report: Board\n"));
        assert!(md.contains("**Verdict:** results valid."));
        assert!(
            md.contains("| cpu0-3 (Cortex-A55) | libc memcpy \\| copy | 10743.6 |"),
            "{md}"
        );
        assert!(md.contains("| **Board (this run)** | **31190** |"), "{md}");
        assert!(md.contains("_No data: ramlat table._"), "{md}");
        assert!(md.contains("- slower clocks"));
        for h in [
            "## Findings",
            "## Topology",
            "## AES",
            "## Monitor recording",
        ] {
            assert!(md.contains(h), "{h}");
        }
        assert!(!md.contains("<svg"));
    }
}
