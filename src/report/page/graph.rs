//! The efficiency graph's outputs: sbc-bench's table per group of CPUs (`Sysfs/Tested:
//! MIPS / Temp /  Watt`, rows `1600 / 1590 :  8033  45.0°C  9575mW`) for the log, SVG
//! charts (MIPS and mW against the measured clock, temperature on the right axis, one
//! series per group; MIPS per watt with a meter) and one self-contained HTML page holding
//! the charts and the tables, where sbc-bench draws PNGs with gnuplot and binds them into
//! a PDF with htmldoc.

use std::fmt::Write;

use crate::record::mode::graph::{GraphPoint, GraphResults, GraphRun, MipsTool};
use crate::record::run::{RunReport, RunStatus};
use crate::report::page::svg::{self, Axis, Chart, Series};

const RULE: &str = "##########################################################################";

/// A clock rounded to 10 MHz, as sbc-bench's table shows the measured one.
pub fn round_to_10_mhz(mhz: f64) -> i64 {
    ((mhz / 10.0).round() * 10.0) as i64
}

/// `Idle temperature: 42.0°C, idle consumption: 2390 mW` (mW rounded to 10, as sbc-bench).
pub fn idle_line(g: &GraphResults) -> Option<String> {
    let idle = g.idle.as_ref()?;
    let temp = idle
        .temp_c
        .map_or("n/a".to_string(), |t| format!("{t:.1}°C"));
    let mw = idle.mw.map_or("n/a".to_string(), |w| {
        format!("{} mW", ((w / 10.0).round() * 10.0) as i64)
    });
    Some(format!("Idle temperature: {temp}, idle consumption: {mw}"))
}

/// Does this graph have power figures?
pub fn metered(g: &GraphResults) -> bool {
    g.meter.is_some()
}

/// One row: `1600 / 1590 :  8033  45.0°C  9575mW`.
pub fn table_row(p: &GraphPoint, metered: bool) -> String {
    let sysfs = p.sysfs_khz / 1000;
    let tested = p
        .measured_mhz
        .map_or("n/a".to_string(), |m| round_to_10_mhz(m).to_string());
    let mut s = format!("{sysfs:>4} / {tested:>4} :");
    let Some(mips) = p.mean_mips() else {
        let why = p.error.as_deref().unwrap_or("not measured");
        let _ = write!(s, " {why}");
        return s;
    };
    let temp = p
        .mean_temp_c()
        .map_or("n/a".to_string(), |t| format!("{t:.1}"));
    let _ = write!(s, "{:>6} {temp:>5}°C", mips.round() as i64);
    if metered {
        match p.mean_mw() {
            Some(w) => {
                let _ = write!(s, "{:>6}mW", w.round() as i64);
            }
            None => s.push_str("   n/a"),
        }
    }
    s
}

/// sbc-bench's table of one group: `Testing through all CPU cores 3 times:`, the header
/// and a row per OPP.
pub fn table(run: &GraphRun, g: &GraphResults) -> String {
    let metered = metered(g);
    let mut s = format!(
        "Testing through {} {} times:\n\nSysfs/Tested:  MIPS / Temp{}\n",
        run.label,
        g.repetitions,
        if metered { " /  Watt" } else { "" }
    );
    for p in &run.points {
        s.push_str(&table_row(p, metered));
        s.push('\n');
    }
    if run.tool == MipsTool::NativeLzma {
        s.push_str("(MIPS: native LZMA rating; 7-Zip is not installed)\n");
    }
    if run.cancelled {
        s.push_str("(interrupted)\n");
    }
    for e in &run.restore_errors {
        let _ = writeln!(s, "Warning: {e}");
    }
    s
}

/// The log's sections of the graph, each after sbc-bench's rule: the idle line, then a
/// table per group.
pub fn log_sections(g: &GraphResults) -> String {
    let mut s = String::new();
    let mut section = |body: &str| {
        let _ = write!(s, "{RULE}\n\n{}\n\n", body.trim_end());
    };
    if let Some(l) = idle_line(g) {
        section(&l);
    }
    for run in &g.runs {
        section(&table(run, g));
    }
    s
}

/// x of a point: the measured clock, or the sysfs one where it was not measured.
fn mhz(p: &GraphPoint) -> f64 {
    p.measured_mhz.unwrap_or(p.sysfs_khz as f64 / 1000.0)
}

fn series(
    run: &GraphRun,
    i: usize,
    suffix: &str,
    axis: Axis,
    value: impl Fn(&GraphPoint) -> Option<f64>,
) -> Series {
    let name = match &run.core_type {
        Some(t) if !run.label.contains(t.as_str()) => format!("{} ({t}){suffix}", run.label),
        _ => format!("{}{suffix}", run.label),
    };
    Series {
        name,
        color: svg::color(i).to_string(),
        axis,
        dashed: axis == Axis::Right,
        points: run
            .points
            .iter()
            .filter_map(|p| Some((mhz(p), value(p)?)))
            .collect(),
    }
}

fn temperature_series(g: &GraphResults) -> impl Iterator<Item = Series> + '_ {
    g.runs
        .iter()
        .enumerate()
        .map(|(i, r)| series(r, i, " SoC temp", Axis::Right, GraphPoint::mean_temp_c))
}

fn mips_name(g: &GraphResults) -> &'static str {
    if g.runs.iter().all(|r| r.tool == MipsTool::SevenZip) {
        "7-Zip MIPS"
    } else {
        "MIPS (native LZMA where 7-Zip is missing)"
    }
}

const X_LABEL: &str = "CPU clockspeed in MHz (measured)";

/// The charts: MIPS (and temperature); with a meter also mW (and temperature) and MIPS
/// per watt.
pub fn charts(g: &GraphResults, device: &str) -> Vec<Chart> {
    let chart = |title: String, y: &str, y2: bool, series: Vec<Series>| Chart {
        title,
        x_label: X_LABEL.to_string(),
        y_label: y.to_string(),
        y2_label: y2.then(|| "SoC temperature in °C".to_string()),
        series,
        width: 900,
        height: 450 + 18 * g.runs.len() as u32 * if y2 { 2 } else { 1 },
    };
    let mips = mips_name(g);
    let mut mips_series: Vec<Series> = g
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| series(r, i, "", Axis::Left, GraphPoint::mean_mips))
        .collect();
    mips_series.extend(temperature_series(g));
    let mut out = vec![chart(
        format!("{device}: {mips} and SoC temperature"),
        mips,
        true,
        mips_series,
    )];
    if metered(g) {
        let mut mw: Vec<Series> = g
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| series(r, i, " mW", Axis::Left, GraphPoint::mean_mw))
            .collect();
        mw.extend(temperature_series(g));
        out.push(chart(
            format!("{device}: consumption and SoC temperature"),
            "Consumption in mW",
            true,
            mw,
        ));
        let eff = g
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| series(r, i, "", Axis::Left, GraphPoint::mips_per_watt))
            .collect();
        out.push(chart(
            format!("{device}: efficiency"),
            &format!("{mips} per watt"),
            false,
            eff,
        ));
    }
    out
}

fn device(r: &RunReport) -> String {
    let i = &r.system_before;
    i.device
        .name
        .clone()
        .or_else(|| i.hostname.clone())
        .unwrap_or_else(|| "n/a".to_string())
}

/// Inline styles only: the page loads nothing (the CSP forbids it too).
const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:960px;color:#222}\
table{border-collapse:collapse;margin:0.5em 0 1.5em}\
th,td{border:1px solid #bbb;padding:2px 8px;text-align:right}\
th{background:#eee}figure{margin:1em 0}pre{background:#f6f6f6;padding:0.5em}";

/// One group's measurements as an HTML table.
fn html_table(o: &mut String, run: &GraphRun, metered: bool) {
    let e = svg::escape;
    let _ = writeln!(o, "<h3>{}</h3>", e(&run.label));
    o.push_str("<table>\n<tr><th>Sysfs MHz</th><th>Measured MHz</th><th>MIPS</th><th>SoC °C</th>");
    if metered {
        o.push_str("<th>mW</th><th>MIPS/W</th>");
    }
    o.push_str("</tr>\n");
    let cell = |v: Option<f64>, prec: usize| v.map_or("n/a".to_string(), |v| format!("{v:.prec$}"));
    for p in &run.points {
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            p.sysfs_khz / 1000,
            p.measured_mhz
                .map_or("n/a".to_string(), |m| round_to_10_mhz(m).to_string()),
            cell(p.mean_mips(), 0),
            cell(p.mean_temp_c(), 1)
        );
        if metered {
            let _ = write!(
                o,
                "<td>{}</td><td>{}</td>",
                cell(p.mean_mw(), 0),
                cell(p.mips_per_watt(), 0)
            );
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n");
}

/// The page: the charts inline, a table per group, and the log's text as sbc-bench writes
/// it. No scripts, no external resources.
pub fn html(r: &RunReport) -> String {
    let e = svg::escape;
    let dev = device(r);
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>{t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
        t = e(&format!("{dev}: efficiency graph"))
    );
    let _ = writeln!(
        o,
        "<p>sbc-bench v{} (Rust), started {}{}.</p>",
        e(&r.sbc_bench_version),
        e(&r.started),
        if r.status == RunStatus::Interrupted {
            ", interrupted"
        } else {
            ""
        }
    );
    let Some(g) = r.mode.graph() else {
        o.push_str("<p>No measurements yet.</p>\n</body>\n</html>\n");
        return o;
    };
    let _ = writeln!(
        o,
        "<p>Every cpufreq OPP from {} MHz up, held with {}, measured {} times.{}</p>",
        g.min_khz / 1000,
        match g.method {
            crate::record::mode::graph::HoldMethod::Userspace => "the userspace governor",
            crate::record::mode::graph::HoldMethod::MinMax => "scaling_min_freq = scaling_max_freq",
        },
        g.repetitions,
        g.meter
            .as_ref()
            .map(|m| format!(" Power: {}.", e(m)))
            .unwrap_or_default()
    );
    if let Some(l) = idle_line(g) {
        let _ = writeln!(o, "<p>{}</p>", e(&l));
    }
    for c in charts(g, &dev) {
        let _ = writeln!(o, "<figure>\n{}</figure>", svg::render(&c));
    }
    o.push_str("<h2>Measurements</h2>\n");
    for run in &g.runs {
        html_table(&mut o, run, metered(g));
    }
    let _ = writeln!(
        o,
        "<h2>As sbc-bench logs it</h2>\n<pre>{}</pre>",
        e(log_sections(g).trim_end())
    );
    o.push_str("</body>\n</html>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::mode::graph::{HoldMethod, IdleBaseline};

    fn point(khz: u64, mhz: f64, mips: f64, temp: f64, mw: Option<f64>) -> GraphPoint {
        GraphPoint {
            sysfs_khz: khz,
            measured_mhz: Some(mhz),
            mips: vec![mips - 2.0, mips, mips + 2.0],
            temps_c: vec![temp - 0.5, temp, temp + 0.5],
            mw: mw.map(|w| vec![w - 10.0, w, w + 10.0]).unwrap_or_default(),
            error: None,
        }
    }

    fn graph(metered: bool) -> GraphResults {
        let w = |v| metered.then_some(v);
        GraphResults {
            method: HoldMethod::Userspace,
            repetitions: 3,
            min_khz: 600_000,
            meter: metered.then(|| "fake".to_string()),
            idle: metered.then_some(IdleBaseline {
                seconds: 240.0,
                temp_c: Some(42.0),
                mw: Some(2386.0),
                readings: 5,
            }),
            runs: vec![GraphRun {
                label: "all CPU cores".into(),
                cpus: (0..8).collect(),
                core_type: None,
                policies: vec![0, 4],
                walked_policy: 4,
                measure_cpu: 4,
                tool: MipsTool::SevenZip,
                points: vec![
                    point(1_600_000, 1587.0, 8033.0, 45.0, w(9575.0)),
                    point(2_000_000, 2000.0, 8828.0, 64.0, w(13195.0)),
                ],
                restore_errors: Vec::new(),
                cancelled: false,
            }],
        }
    }

    // Rows as sbc-bench logs them (Efficiency_Graphing.md, ODROID-HC2, all cores).
    #[test]
    fn rows_read_like_sbc_bench_s() {
        let g = graph(true);
        let t = table(&g.runs[0], &g);
        assert!(t.starts_with(
            "Testing through all CPU cores 3 times:\n\nSysfs/Tested:  MIPS / Temp /  Watt\n"
        ));
        assert!(t.contains("\n1600 / 1590 :  8033  45.0°C  9575mW\n"), "{t}");
        assert!(t.contains("\n2000 / 2000 :  8828  64.0°C 13195mW\n"), "{t}");
        let g = graph(false);
        let t = table(&g.runs[0], &g);
        assert!(t.contains("Sysfs/Tested:  MIPS / Temp\n1600 / 1590 :  8033  45.0°C\n"));
    }

    #[test]
    fn idle_line_rounds_to_ten_milliwatts() {
        assert_eq!(
            idle_line(&graph(true)).as_deref(),
            Some("Idle temperature: 42.0°C, idle consumption: 2390 mW")
        );
        assert_eq!(idle_line(&graph(false)), None);
    }

    #[test]
    fn a_failed_opp_says_why() {
        let p = GraphPoint {
            sysfs_khz: 2_400_000,
            measured_mhz: None,
            mips: vec![],
            temps_c: vec![],
            mw: vec![],
            error: Some("cannot write".into()),
        };
        assert_eq!(table_row(&p, true), "2400 /  n/a : cannot write");
    }

    #[test]
    fn charts_one_series_per_group_and_efficiency_with_a_meter() {
        let c = charts(&graph(true), "Rock <5B>");
        assert_eq!(c.len(), 3);
        // MIPS + temperature of the one group.
        assert_eq!(c[0].series.len(), 2);
        assert_eq!(c[0].series[0].points[0], (1587.0, 8033.0));
        assert_eq!(c[2].series.len(), 1);
        let eff = c[2].series[0].points[0].1;
        assert!((eff - 8033.0 / 9.575).abs() < 1e-6, "{eff}");
        assert!(svg::render(&c[0]).contains("Rock &lt;5B&gt;"));
        assert_eq!(charts(&graph(false), "x").len(), 1);
    }
}
