//! The Markdown form of `sbc-bench report` (`--markdown FILE`, or standard output): the
//! HTML report's sections as tables, for a reviewer to paste. It is drawn from the same
//! [`ReportData`] as the page, so it serves a stored run JSON or an imported log as well
//! as a live run (the run's `--markdown` review, `report::export::markdown`, needs the
//! live run's report). Pure; redaction is the caller's ([`ReportData::redacted`]).

use std::fmt::Write as _;

use crate::report::html::{row_cells, row_head, size_label};
use crate::report::page::{self, ReportData};

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn table(o: &mut String, head: &[&str], rows: &[Vec<String>], numeric_from: usize) {
    let _ = writeln!(
        o,
        "| {} |",
        head.iter().map(|h| cell(h)).collect::<Vec<_>>().join(" | ")
    );
    let rule: Vec<&str> = (0..head.len())
        .map(|i| if i >= numeric_from { "---:" } else { "---" })
        .collect();
    let _ = writeln!(o, "| {} |", rule.join(" | "));
    for r in rows {
        let _ = writeln!(
            o,
            "| {} |",
            r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
        );
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

fn f(v: Option<f64>, d: usize) -> String {
    v.filter(|x| x.is_finite())
        .map_or_else(|| "-".into(), |x| format!("{x:.d$}"))
}

/// The Markdown report.
pub fn render(d: &ReportData) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# sbc-bench report: {}\n", d.title);
    let _ = writeln!(o, "{}.\n", d.source);
    let _ = writeln!(o, "**Verdict:** {}.\n", d.verdict.sentence());
    o.push_str("## Summary\n\n");
    let rows: Vec<Vec<String>> = d
        .summary
        .iter()
        .map(|(k, v)| vec![k.clone(), v.clone()])
        .collect();
    table(&mut o, &["", ""], &rows, 9);
    if let Some(r) = &d.results_row {
        table(&mut o, &row_head(), &[row_cells(r)], 4);
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
        let rows: Vec<Vec<String>> = d
            .topology
            .iter()
            .map(|c| {
                vec![
                    c.cpus.clone(),
                    c.core_type.clone(),
                    c.policy.map_or("-".into(), |p| format!("policy{p}")),
                    c.min_mhz.map_or("-".into(), |m| m.to_string()),
                    c.max_mhz.map_or("-".into(), |m| m.to_string()),
                ]
            })
            .collect();
        table(
            &mut o,
            &["CPUs", "Core type", "cpufreq", "min MHz", "max MHz"],
            &rows,
            3,
        );
    }
    clocks(&mut o, d);
    latency(&mut o, d);
    o.push_str("## Memory bandwidth\n\n");
    if d.bandwidth.is_empty() {
        missing(&mut o, "memory bandwidth", d);
    } else {
        let rows: Vec<Vec<String>> = d
            .bandwidth
            .iter()
            .map(|b| vec![b.cluster.clone(), b.test.clone(), format!("{:.1}", b.mb_s)])
            .collect();
        table(&mut o, &["Cluster", "Test", "MB/s"], &rows, 2);
    }
    aes(&mut o, d);
    o.push_str("## 7-Zip per cluster\n\n");
    if d.sevenzip.is_empty() {
        missing(&mut o, "7-Zip", d);
    } else {
        let rows: Vec<Vec<String>> = d
            .sevenzip
            .iter()
            .map(|z| {
                vec![
                    z.label.clone(),
                    z.tool.clone(),
                    f(z.compress_mips, 0),
                    f(z.decompress_mips, 0),
                    format!("{:.0}", z.total_mips),
                ]
            })
            .collect();
        table(
            &mut o,
            &[
                "Cores",
                "Tool",
                "compress MIPS",
                "decompress MIPS",
                "total MIPS",
            ],
            &rows,
            2,
        );
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
    let rows: Vec<Vec<String>> = d
        .clocks
        .iter()
        .flat_map(|c| {
            c.points.iter().map(|p| {
                let dev = p
                    .measured_mhz
                    .filter(|_| p.opp_mhz > 0.0)
                    .map(|m| format!("{:+.1} %", (m / p.opp_mhz - 1.0) * 100.0));
                vec![
                    c.name.clone(),
                    if p.opp_mhz > 0.0 {
                        format!("{:.0}", p.opp_mhz)
                    } else {
                        "-".into()
                    },
                    f(p.measured_mhz, 0),
                    dev.unwrap_or_else(|| "-".into()),
                    f(p.hot_mhz, 0),
                ]
            })
        })
        .collect();
    table(
        o,
        &["Cluster", "OPP MHz", "measured", "deviation", "at the end"],
        &rows,
        1,
    );
}

fn latency(o: &mut String, d: &ReportData) {
    o.push_str("## Memory latency (ramlat, ns)\n\n");
    if d.latency.is_empty() {
        missing(o, "ramlat table", d);
        return;
    }
    for c in &d.latency {
        let _ = writeln!(o, "{}:\n", c.name);
        let mut head = vec!["size"];
        head.extend(c.columns.iter().map(String::as_str));
        let rows: Vec<Vec<String>> = c
            .rows
            .iter()
            .map(|r| {
                let mut v = vec![size_label(r.size_bytes)];
                v.extend(r.ns.iter().map(|x| format!("{x:.1}")));
                v
            })
            .collect();
        table(o, &head, &rows, 1);
    }
}

fn aes(o: &mut String, d: &ReportData) {
    o.push_str("## AES (1000 bytes/s)\n\n");
    if d.aes.is_empty() {
        missing(o, "AES results", d);
        return;
    }
    let mut sizes: Vec<u64> = d
        .aes
        .iter()
        .flat_map(|r| r.sizes.iter().map(|s| s.0))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    let labels: Vec<String> = sizes.iter().map(|s| format!("{s} bytes")).collect();
    let mut head = vec!["Algorithm", "Cluster"];
    head.extend(labels.iter().map(String::as_str));
    let rows: Vec<Vec<String>> = d
        .aes
        .iter()
        .map(|r| {
            let mut v = vec![r.algorithm.clone(), r.cluster.clone()];
            v.extend(
                sizes
                    .iter()
                    .map(|s| f(r.sizes.iter().find(|x| x.0 == *s).map(|x| x.1), 2)),
            );
            v
        })
        .collect();
    table(o, &head, &rows, 2);
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
    let rows: Vec<Vec<String>> = m
        .phases
        .iter()
        .map(|p| {
            let within = |s: &[page::TimeSeries], name: &str| {
                s.iter().find(|t| t.name == name).and_then(|t| {
                    t.points
                        .iter()
                        .filter(|q| q.0 >= p.start_s && q.0 <= p.end_s)
                        .map(|q| q.1)
                        .reduce(f64::max)
                })
            };
            vec![
                p.label.clone(),
                format!("{:.1}", (p.end_s - p.start_s).max(0.0)),
                f(p.temp_max_c, 1),
                f(p.peak_cpu_pct, 0),
                f(within(&m.usage, "%sys"), 0),
                f(within(&m.usage, "%irq"), 0),
            ]
        })
        .collect();
    if rows.is_empty() {
        missing(o, "phases in the recording", d);
    } else {
        table(
            o,
            &[
                "Phase",
                "duration s",
                "max °C",
                "peak %cpu",
                "peak %sys",
                "peak %irq",
            ],
            &rows,
            1,
        );
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
    let rows: Vec<Vec<String>> = c
        .bars
        .iter()
        .map(|b| {
            if b.this_run {
                vec![
                    format!("**{} (this run)**", b.label),
                    format!("**{:.0}**", b.value),
                ]
            } else {
                vec![b.label.clone(), format!("{:.0}", b.value)]
            }
        })
        .collect();
    table(o, &["Device", &c.metric], &rows, 1);
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
