//! The HTML report of one run (`sbc-bench report`, and `<log stem>.html` beside the log
//! after every run): one self-contained page, its charts inline SVG (`report::page::svg`), no
//! script, font, stylesheet or image from elsewhere, readable without JavaScript and on a
//! phone (the charts scale with their `viewBox`, the tables scroll sideways). Every chart
//! sits in a `<figure id="chart-…">`; one whose data the run lacks holds a sentence
//! saying so instead. Pure: [`ReportData`] in, text out; redaction is the caller's
//! ([`ReportData::redacted`]).

use std::fmt::Write as _;

use crate::record::finding::Severity;
use crate::report::page::svg::{self, Axis, BarChart, Chart, Decor, Series, escape};
use crate::report::page::table::{self, PageTable, size_label};
use crate::report::page::{self, ReportData, TimeSeries};

/// The ids of the page's charts, in page order (the browser test checks each is there).
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

/// The page's stylesheet (the results hub serves it in its own).
pub const CSS: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;\
max-width:1000px;padding:0 12px 40px;color:#1a1a1a;line-height:1.45}\
h1{font-size:1.6em;margin:.6em 0 .2em}h2{font-size:1.25em;margin-top:1.6em;\
border-bottom:1px solid #ccc}\
.source{color:#555;margin:0}\
.verdict{display:inline-block;padding:.25em .7em;border-radius:4px;font-weight:bold;margin:.6em 0}\
.v-ok{background:#d8f0dd}.v-warning{background:#fff0c2}.v-invalid,.v-incomplete{background:#f8d3d0}\
.v-unknown{background:#e8e8e8}\
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}\
table{border-collapse:collapse;margin:.5em 0;font-size:.92em}\
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\
tr.this{font-weight:bold;background:#fff4e0}\
figure{margin:1em 0}svg{max-width:100%;height:auto;display:block}\
.missing{color:#555;font-style:italic;border:1px dashed #bbb;padding:.6em}\
.sev{font-weight:bold;text-transform:uppercase;font-size:.8em;padding:0 .3em;border-radius:3px}\
.sev-invalid{background:#f8d3d0}.sev-warning{background:#fff0c2}.sev-info{background:#dde8f6}\
.sev-ok{background:#d8f0dd}\
ul.findings{padding-left:1.2em}ul.findings li{margin:.4em 0}\
.expl{color:#555;font-size:.9em}\
@media (max-width:600px){body{padding:0 6px 30px}h1{font-size:1.3em}table{font-size:.82em}}\
";

/// The page.
pub fn render(d: &ReportData) -> String {
    let mut o = String::new();
    let title = format!("sbc-bench report: {}", d.title);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>{t}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        t = escape(&title)
    );
    o.push_str(&body(d));
    o.push_str("</body>\n</html>\n");
    o
}

/// What the page's `<body>` holds: the heading, the verdict and every section. The
/// results hub puts it in a page of its own (with [`CSS`] in its stylesheet).
pub fn body(d: &ReportData) -> String {
    let mut o = String::new();
    let title = format!("sbc-bench report: {}", d.title);
    let _ = write!(
        o,
        "<h1>{t}</h1>\n<p class=\"source\">{}</p>\n\
         <p class=\"verdict v-{}\" id=\"verdict\">Verdict: {}.</p>\n",
        escape(&d.source),
        d.verdict.word(),
        escape(d.verdict.sentence()),
        t = escape(&title)
    );
    summary(&mut o, d);
    findings(&mut o, d);
    topology(&mut o, d);
    clocks(&mut o, d);
    latency(&mut o, d);
    bandwidth(&mut o, d);
    aes(&mut o, d);
    sevenzip(&mut o, d);
    monitor(&mut o, d);
    comparison(&mut o, d);
    o
}

fn missing(o: &mut String, id: &str, what: &str, d: &ReportData) {
    let why = if d.missing.is_empty() {
        String::new()
    } else {
        format!(": {}", d.missing)
    };
    let _ = writeln!(
        o,
        "<figure id=\"{id}\"><p class=\"missing\">No chart: {}{}.</p></figure>",
        escape(what),
        escape(&why)
    );
}

fn figure(o: &mut String, id: &str, svgs: &[String]) {
    let _ = writeln!(o, "<figure id=\"{id}\">");
    for s in svgs {
        o.push_str(s);
    }
    o.push_str("</figure>\n");
}

/// A table of the page's model ([`page_table`]), escaped.
fn table(o: &mut String, t: &PageTable) {
    let class = |i: usize| {
        if i >= t.numeric_from {
            " class=\"n\""
        } else {
            ""
        }
    };
    o.push_str("<div class=\"scroll\"><table>\n");
    if t.head.iter().any(|h| !h.is_empty()) {
        o.push_str("<tr>");
        for (i, h) in t.head.iter().enumerate() {
            let _ = write!(o, "<th{}>{}</th>", class(i), escape(h));
        }
        o.push_str("</tr>\n");
    }
    for r in &t.rows {
        o.push_str("<tr>");
        for (i, cell) in r.iter().enumerate() {
            let _ = write!(o, "<td{}>{}</td>", class(i), escape(cell));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table></div>\n");
}

fn summary(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"summary\">Summary</h2>\n");
    table(o, &table::summary(d));
    if let Some(r) = &d.results_row {
        o.push_str("<p>The Results.md row:</p>\n");
        table(o, &table::results_row(r));
    }
}

fn sev_word(s: Severity) -> &'static str {
    match s {
        Severity::Invalid => "invalid",
        Severity::Warning => "warning",
        Severity::Info => "info",
        Severity::Ok => "ok",
    }
}

fn findings(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"findings\">Findings</h2>\n");
    if d.findings.is_empty() {
        let _ = writeln!(
            o,
            "<p>None{}.</p>",
            if d.missing.is_empty() {
                String::new()
            } else {
                escape(&format!(" in the document ({})", d.missing))
            }
        );
        return;
    }
    o.push_str("<ul class=\"findings\">\n");
    for x in &d.findings {
        let w = sev_word(x.severity);
        let _ = writeln!(
            o,
            "<li><span class=\"sev sev-{w}\">{w}</span> <code>{}</code>: {}{}</li>",
            escape(&x.code),
            escape(&x.message),
            if x.explanation.is_empty() {
                String::new()
            } else {
                format!("<br><span class=\"expl\">{}</span>", escape(&x.explanation))
            }
        );
    }
    o.push_str("</ul>\n");
}

fn topology(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"topology\">Topology</h2>\n");
    if d.topology.is_empty() {
        let _ = writeln!(
            o,
            "<p class=\"missing\">No topology in the document{}.</p>",
            escape(&paren(&d.missing))
        );
        return;
    }
    table(o, &table::topology(d));
}

fn paren(s: &str) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!(" ({s})")
    }
}

fn chart(title: &str, x: &str, y: &str, series: Vec<Series>) -> Chart {
    let n = series.len() as u32;
    Chart {
        title: title.to_string(),
        x_label: x.to_string(),
        y_label: y.to_string(),
        y2_label: None,
        series,
        width: 900,
        height: 380 + 18 * n,
    }
}

fn line(name: &str, i: usize, dashed: bool, points: Vec<(f64, f64)>) -> Series {
    Series {
        name: name.to_string(),
        color: svg::color(i).to_string(),
        axis: Axis::Left,
        dashed,
        points,
    }
}

fn clocks(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"clocks\">Measured vs advertised clocks</h2>\n");
    let with_opps: Vec<_> = d
        .clocks
        .iter()
        .filter(|c| c.points.iter().any(|p| p.opp_mhz > 0.0))
        .collect();
    if with_opps.is_empty() {
        missing(o, "chart-clocks", "no cpufreq OPPs were measured", d);
    } else {
        let mut series = Vec::new();
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for (i, c) in with_opps.iter().enumerate() {
            let cold: Vec<(f64, f64)> = c
                .points
                .iter()
                .filter_map(|p| Some((p.opp_mhz, p.measured_mhz?)))
                .collect();
            let hot: Vec<(f64, f64)> = c
                .points
                .iter()
                .filter_map(|p| Some((p.opp_mhz, p.hot_mhz?)))
                .collect();
            for p in &c.points {
                lo = lo.min(p.opp_mhz);
                hi = hi.max(p.opp_mhz);
            }
            series.push(line(&c.name, i, false, cold));
            if !hot.is_empty() {
                series.push(line(&format!("{} at the end", c.name), i, true, hot));
            }
        }
        series.push(Series {
            name: "advertised".into(),
            color: "#999999".into(),
            axis: Axis::Left,
            dashed: true,
            points: vec![(lo, lo), (hi, hi)],
        });
        figure(
            o,
            "chart-clocks",
            &[svg::render(&chart(
                "Measured clock per cpufreq OPP",
                "advertised OPP in MHz",
                "measured MHz",
                series,
            ))],
        );
    }
    let rows = table::clocks(d);
    if !rows.is_empty() {
        o.push_str("<details><summary>Table</summary>\n");
        table(o, &rows);
        o.push_str("</details>\n");
    }
}

fn latency(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"latency\">Memory latency (ramlat)</h2>\n");
    if d.latency.is_empty() {
        missing(o, "chart-latency", "no ramlat table in the run", d);
        return;
    }
    let mut svgs = Vec::new();
    for c in &d.latency {
        let series = c
            .columns
            .iter()
            .enumerate()
            .map(|(j, col)| {
                let pts = c
                    .rows
                    .iter()
                    .filter(|r| r.size_bytes > 0)
                    .filter_map(|r| Some(((r.size_bytes as f64).log2(), *r.ns.get(j)?)))
                    .collect();
                line(col, j, false, pts)
            })
            .collect();
        // Every size while they fit, else every other one.
        let every = if c.rows.len() > 10 { 2 } else { 1 };
        let ticks: Vec<(f64, String)> = c
            .rows
            .iter()
            .filter(|r| r.size_bytes > 0)
            .enumerate()
            .filter(|(i, _)| i % every == 0)
            .map(|(_, r)| ((r.size_bytes as f64).log2(), size_label(r.size_bytes)))
            .collect();
        let decor = Decor {
            x_ticks: Some(ticks),
            bands: Vec::new(),
        };
        svgs.push(svg::render_decorated(
            &chart(
                &format!("Latency, {}", c.name),
                "block size (log scale)",
                "ns",
                series,
            ),
            &decor,
        ));
    }
    figure(o, "chart-latency", &svgs);
    o.push_str("<details><summary>Tables</summary>\n");
    for c in &d.latency {
        let _ = writeln!(o, "<p>{}</p>", escape(&c.name));
        table(o, &table::latency(c));
    }
    o.push_str("</details>\n");
}

fn bandwidth(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"bandwidth\">Memory bandwidth</h2>\n");
    if d.bandwidth.is_empty() {
        missing(
            o,
            "chart-bandwidth",
            "no memory bandwidth results in the run",
            d,
        );
        return;
    }
    let bars = d
        .bandwidth
        .iter()
        .map(|b| (format!("{}: {}", b.cluster, b.test), b.mb_s, false))
        .collect();
    figure(
        o,
        "chart-bandwidth",
        &[svg::render_bars(&BarChart {
            title: "Memory bandwidth".into(),
            unit: "MB/s".into(),
            bars,
            width: 900,
        })],
    );
}

fn aes(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"aes\">AES (1000 bytes/s)</h2>\n");
    if d.aes.is_empty() {
        missing(o, "chart-aes", "no AES results in the run", d);
        return;
    }
    let largest = |r: &page::AesRow| r.sizes.iter().max_by_key(|s| s.0).copied();
    let bars = d
        .aes
        .iter()
        .filter_map(|r| {
            let (b, v) = largest(r)?;
            Some((
                format!("{} {} ({})", r.algorithm, size_label(b), r.cluster),
                v,
                false,
            ))
        })
        .collect();
    figure(
        o,
        "chart-aes",
        &[svg::render_bars(&BarChart {
            title: "AES throughput at the largest buffer".into(),
            unit: "1000 bytes/s".into(),
            bars,
            width: 900,
        })],
    );
    table(o, &table::aes(d));
}

fn sevenzip(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"sevenzip\">7-Zip per cluster</h2>\n");
    if d.sevenzip.is_empty() {
        missing(
            o,
            "chart-sevenzip",
            "no 7-Zip or LZMA results in the run",
            d,
        );
        return;
    }
    let bars = d
        .sevenzip
        .iter()
        .map(|z| (format!("{} ({})", z.label, z.tool), z.total_mips, false))
        .collect();
    figure(
        o,
        "chart-sevenzip",
        &[svg::render_bars(&BarChart {
            title: "Compression total rating".into(),
            unit: "MIPS".into(),
            bars,
            width: 900,
        })],
    );
    table(o, &table::sevenzip(d));
}

fn time_chart(title: &str, y: &str, series: &[TimeSeries], bands: &Decor) -> String {
    let s = series
        .iter()
        .enumerate()
        .map(|(i, t)| line(&t.name, i, false, t.points.clone()))
        .collect();
    svg::render_decorated(&chart(title, "seconds since the start", y, s), bands)
}

/// Which series of the recording a chart shows.
type Pick = fn(&page::MonitorView) -> &Vec<TimeSeries>;

fn monitor(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"monitor\">Monitor recording</h2>\n");
    let groups: [(&str, &str, &str, Pick); 4] = [
        ("chart-monitor-clock", "Clock per cluster", "MHz", |m| {
            &m.clocks
        }),
        ("chart-monitor-temp", "Temperature", "°C", |m| &m.temp),
        ("chart-monitor-usage", "%cpu, %sys, %irq", "%", |m| &m.usage),
        ("chart-monitor-busiest", "Busiest core", "%cpu", |m| {
            &m.busiest
        }),
    ];
    let Some(m) = &d.monitor else {
        for (id, title, _, _) in groups {
            missing(
                o,
                id,
                &format!("{title}: no monitor recording in the run"),
                d,
            );
        }
        return;
    };
    if let Some(src) = &m.thermal_source {
        let _ = writeln!(o, "<p>Thermal source: {}</p>", escape(src));
    }
    let decor = Decor {
        x_ticks: None,
        bands: m
            .phases
            .iter()
            .map(|p| (p.start_s, p.end_s, p.label.clone()))
            .collect(),
    };
    for (id, title, y, pick) in groups {
        let series = pick(m);
        if page::empty(series) {
            missing(
                o,
                id,
                &format!(
                    "{title}: the recording has no such samples (no cpufreq, no sensor, or \
                     intervals too short for a tick)"
                ),
                d,
            );
        } else {
            figure(o, id, &[time_chart(title, y, series, &decor)]);
        }
    }
    if !m.phases.is_empty() {
        table(o, &table::phases(m));
    }
}

fn comparison(o: &mut String, d: &ReportData) {
    o.push_str("<h2 id=\"comparison\">Compared with known boards</h2>\n");
    let Some(c) = d.comparison.as_ref().filter(|c| !c.bars.is_empty()) else {
        missing(
            o,
            "chart-comparison",
            "no published row shares the run's SoC or core types",
            &ReportData {
                missing: String::new(),
                ..ReportData::default()
            },
        );
        return;
    };
    let _ = writeln!(
        o,
        "<p>{}, sorted by {}; this run in bold.</p>",
        escape(&c.selection),
        escape(&c.metric)
    );
    let bars = c
        .bars
        .iter()
        .map(|b| {
            let label = if b.this_run {
                format!("▶ {} (this run)", b.label)
            } else {
                b.label.clone()
            };
            (label, b.value, b.this_run)
        })
        .collect();
    figure(
        o,
        "chart-comparison",
        &[svg::render_bars(&BarChart {
            title: format!("{} compared", c.metric),
            unit: c.metric.clone(),
            bars,
            width: 900,
        })],
    );
    if !c.why.is_empty() {
        o.push_str("<p>Why the numbers differ:</p>\n<ul>\n");
        for w in &c.why {
            let _ = writeln!(o, "<li>{}</li>", escape(w));
        }
        o.push_str("</ul>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::page::*;

    fn data() -> ReportData {
        ReportData {
            title: "Radxa <ROCK> 5B".into(),
            source: "test".into(),
            summary: vec![("Kernel".into(), "6.1".into())],
            verdict: Verdict::Warnings,
            findings: vec![FindingView {
                severity: Severity::Warning,
                code: "clock-below-advertised".into(),
                message: "-4 %".into(),
                explanation: "A measured clock is well below".into(),
            }],
            clocks: vec![ClockCurve {
                name: "cpu4-5 (Cortex-A76)".into(),
                points: vec![
                    OppPoint {
                        opp_mhz: 2400.0,
                        measured_mhz: Some(2304.0),
                        hot_mhz: Some(2200.0),
                    },
                    OppPoint {
                        opp_mhz: 408.0,
                        measured_mhz: Some(407.0),
                        hot_mhz: None,
                    },
                ],
            }],
            latency: vec![LatencyCurve {
                name: "cpu0-3".into(),
                columns: vec!["1x32".into(), "2x32".into()],
                rows: vec![
                    LatencyCell {
                        size_bytes: 4096,
                        ns: vec![1.7, 1.8],
                    },
                    LatencyCell {
                        size_bytes: 64 << 20,
                        ns: vec![99.0, 110.0],
                    },
                ],
            }],
            monitor: Some(MonitorView {
                phases: vec![PhaseSpan {
                    label: "7-zip".into(),
                    start_s: 0.0,
                    end_s: 30.0,
                    temp_max_c: Some(60.0),
                    peak_cpu_pct: Some(100.0),
                }],
                temp: vec![TimeSeries {
                    name: "SoC temperature".into(),
                    points: vec![(0.0, 40.0), (30.0, 60.0)],
                }],
                ..MonitorView::default()
            }),
            comparison: Some(ComparisonView {
                metric: "7zip-multi".into(),
                selection: "SoC RK3588".into(),
                bars: vec![
                    Bar {
                        label: "Rock 5B".into(),
                        value: 16000.0,
                        this_run: false,
                    },
                    Bar {
                        label: "Radxa ROCK 5B".into(),
                        value: 15000.0,
                        this_run: true,
                    },
                ],
                why: vec!["measured clock lower".into()],
            }),
            ..ReportData::default()
        }
    }

    #[test]
    fn every_chart_id_is_on_the_page_drawn_or_saying_why_not() {
        let html = render(&data());
        for id in CHART_IDS {
            assert_eq!(html.matches(&format!("id=\"{id}\"")).count(), 1, "{id}");
        }
        // Drawn: clocks, latency, temperature, comparison; the rest say why not.
        assert_eq!(html.matches("<svg").count(), 4, "{html}");
        assert!(html.contains("No chart: no memory bandwidth results in the run."));
        assert!(html.contains("No chart: Clock per cluster: the recording has no such samples"));
        assert!(html.contains("Radxa &lt;ROCK&gt; 5B"), "escaped");
        assert!(html.contains("class=\"verdict v-warning\""));
        assert!(html.contains("<span class=\"sev sev-warning\">warning</span>"));
        assert!(html.contains(">64M</text>"), "log-scale latency ticks");
        assert!(html.contains("▶ Radxa ROCK 5B (this run)"));
    }

    #[test]
    fn the_page_fetches_nothing() {
        let html = render(&data());
        for needle in ["<script", "src=", "href=", "url(", "@import", "<link"] {
            assert!(!html.contains(needle), "{needle}");
        }
        assert!(html.contains("name=\"viewport\""));
    }

    #[test]
    fn an_imported_log_says_why_its_charts_are_missing() {
        let d = ReportData {
            title: "Rock 5B".into(),
            missing: "an imported sbc-bench log holds no such data".into(),
            ..ReportData::default()
        };
        let html = render(&d);
        assert_eq!(html.matches("<svg").count(), 0);
        assert_eq!(
            html.matches("an imported sbc-bench log holds no such data.</p>")
                .count(),
            CHART_IDS.len() - 1,
            "each chart but the comparison says why"
        );
        assert!(html.contains("Verdict: not stated in the document."));
    }

    #[test]
    fn size_labels() {
        assert_eq!(size_label(4096), "4K");
        assert_eq!(size_label(64 << 20), "64M");
        assert_eq!(size_label(1000), "1000");
    }
}
