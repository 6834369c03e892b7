//! The history of a SoC or a device: its results over time and across kernels as charts
//! (the project's SVG charts, `sbc_bench::report::page::svg`), and the regressions the
//! history shows: a metric that got worse, beyond the spread of the runs on each side,
//! from one kernel series to the next.

use std::collections::BTreeMap;

use sbc_bench::report::page::svg::{self, Axis, BarChart, Chart, Decor, Series};

use crate::accept::Status;
use crate::store::Summary;

/// A figure the history follows.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    pub key: &'static str,
    pub name: &'static str,
    pub unit: &'static str,
    pub higher_is_better: bool,
    pub get: fn(&Summary) -> Option<f64>,
}

/// The figures followed, in page order.
pub const METRICS: &[Metric] = &[
    Metric {
        key: "7zip-multi",
        name: "7-Zip multi-threaded",
        unit: "MIPS",
        higher_is_better: true,
        get: |s| s.sevenzip_multi.map(|v| v as f64),
    },
    Metric {
        key: "7zip-single",
        name: "7-Zip single-threaded",
        unit: "MIPS",
        higher_is_better: true,
        get: |s| s.sevenzip_single.map(|v| v as f64),
    },
    Metric {
        key: "aes",
        name: "AES-256-CBC 16 KiB",
        unit: "kB/s",
        higher_is_better: true,
        get: |s| s.aes256_16k,
    },
    Metric {
        key: "memcpy",
        name: "memcpy",
        unit: "MB/s",
        higher_is_better: true,
        get: |s| s.memcpy,
    },
    Metric {
        key: "memset",
        name: "memset",
        unit: "MB/s",
        higher_is_better: true,
        get: |s| s.memset,
    },
    Metric {
        key: "latency-16m",
        name: "memory latency at 16 MiB",
        unit: "ns",
        higher_is_better: false,
        get: |s| s.ramlat_16m,
    },
    Metric {
        key: "latency-128m",
        name: "memory latency at 128 MiB",
        unit: "ns",
        higher_is_better: false,
        get: |s| s.ramlat_128m,
    },
];

/// The results a history is drawn from: not hidden, not incomparable (a `--quick` run's
/// or another 7-Zip's figures would draw a false regression).
pub fn comparable(rows: &[Summary]) -> Vec<&Summary> {
    rows.iter()
        .filter(|s| !s.hidden && s.status != Status::NotComparable)
        .collect()
}

/// A run's date as a year with fraction (`2024.5`), from when it ran, else when it was
/// stored.
fn year(s: &Summary) -> Option<f64> {
    let d = s.run_date.as_deref().unwrap_or(&s.created_at);
    let t = chrono::DateTime::parse_from_rfc3339(d).ok()?;
    use chrono::Datelike;
    let y = t.year();
    let start = chrono::NaiveDate::from_ymd_opt(y, 1, 1)?;
    let days = (t.date_naive() - start).num_days() as f64;
    Some(f64::from(y) + days / 366.0)
}

/// One chart (its figure id and its SVG, or the sentence saying why there is none).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub id: String,
    pub svg: Option<String>,
    pub missing: String,
}

fn year_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    let (a, b) = (lo.floor() as i32, hi.ceil() as i32);
    let step = ((b - a) / 8).max(1);
    (a..=b)
        .step_by(step as usize)
        .map(|y| (f64::from(y), y.to_string()))
        .collect()
}

/// A metric over time, one series per device (the 7 with most results; the rest as one).
fn over_time(rows: &[&Summary], metrics: &[&Metric], id: &str, title: &str) -> Figure {
    let mut by_device: BTreeMap<String, Vec<&Summary>> = BTreeMap::new();
    for s in rows {
        by_device.entry(s.device.clone()).or_default().push(s);
    }
    let mut devices: Vec<(String, Vec<&Summary>)> = by_device.into_iter().collect();
    devices.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    if devices.len() > 8 {
        let rest: Vec<&Summary> = devices.drain(7..).flat_map(|d| d.1).collect();
        devices.push(("other devices".into(), rest));
    }
    let mut series = Vec::new();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (mi, m) in metrics.iter().enumerate() {
        for (i, (name, runs)) in devices.iter().enumerate() {
            let mut points: Vec<(f64, f64)> = runs
                .iter()
                .filter_map(|s| Some((year(s)?, (m.get)(s)?)))
                .filter(|p| p.1.is_finite())
                .collect();
            if points.is_empty() {
                continue;
            }
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            lo = lo.min(points[0].0);
            hi = hi.max(points[points.len() - 1].0);
            let label = if metrics.len() > 1 {
                format!("{name}: {}", m.name)
            } else {
                name.clone()
            };
            series.push(Series {
                name: label,
                color: svg::color(i).to_string(),
                axis: Axis::Left,
                dashed: mi > 0,
                points,
            });
        }
    }
    if series.is_empty() {
        let names: Vec<&str> = metrics.iter().map(|m| m.name).collect();
        return Figure {
            id: id.into(),
            svg: None,
            missing: format!("no result here has a {} figure", names.join(" or ")),
        };
    }
    let unit = metrics[0].unit;
    let chart = Chart {
        title: title.into(),
        x_label: "year of the run".into(),
        y_label: unit.into(),
        y2_label: None,
        series,
        width: 900,
        height: 320,
    };
    let decor = Decor {
        x_ticks: Some(year_ticks(lo, hi.max(lo + 1.0))),
        bands: Vec::new(),
    };
    Figure {
        id: id.into(),
        svg: Some(svg::render_decorated(&chart, &decor)),
        missing: String::new(),
    }
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// `6.1` → (6, 1) for ordering series as numbers.
fn series_key(k: &str) -> (u32, u32) {
    let mut it = k.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
    (it.next().unwrap_or(0), it.next().unwrap_or(0))
}

/// The runs grouped by kernel series, in version order.
fn by_kernel<'a>(rows: &[&'a Summary]) -> Vec<(String, Vec<&'a Summary>)> {
    let mut m: BTreeMap<(u32, u32), (String, Vec<&Summary>)> = BTreeMap::new();
    for s in rows {
        let k = s.kernel_series.clone().unwrap_or_else(|| "?".into());
        m.entry(series_key(&k))
            .or_insert_with(|| (k, Vec::new()))
            .1
            .push(s);
    }
    m.into_values().collect()
}

/// A metric's median per kernel series, as bars.
fn across_kernels(rows: &[&Summary], m: &Metric) -> Figure {
    let id = format!("chart-kernels-{}", m.key);
    let bars: Vec<(String, f64, bool)> = by_kernel(rows)
        .into_iter()
        .filter_map(|(k, runs)| {
            let mut v: Vec<f64> = runs.iter().filter_map(|s| (m.get)(s)).collect();
            let n = v.len();
            Some((
                format!("kernel {k} ({n} run{})", if n == 1 { "" } else { "s" }),
                median(&mut v)?,
                false,
            ))
        })
        .collect();
    if bars.is_empty() {
        return Figure {
            id,
            svg: None,
            missing: format!("no result here has a {} figure", m.name),
        };
    }
    let chart = BarChart {
        title: format!("{} by kernel series (median)", m.name),
        unit: m.unit.into(),
        bars,
        width: 900,
    };
    Figure {
        id,
        svg: Some(svg::render_bars(&chart)),
        missing: String::new(),
    }
}

/// Every chart of a history page, in page order.
pub fn figures(rows: &[Summary]) -> Vec<Figure> {
    let rows = comparable(rows);
    let m = |k: &str| METRICS.iter().find(|m| m.key == k).unwrap_or(&METRICS[0]);
    let mut out = vec![
        over_time(
            &rows,
            &[m("7zip-multi")],
            "chart-7zip",
            "7-Zip multi-threaded over time",
        ),
        over_time(
            &rows,
            &[m("aes")],
            "chart-aes",
            "AES-256-CBC (16 KiB) over time",
        ),
        over_time(
            &rows,
            &[m("memcpy"), m("memset")],
            "chart-memory",
            "memcpy (solid) and memset (dashed) over time",
        ),
        over_time(
            &rows,
            &[m("latency-128m"), m("latency-16m")],
            "chart-latency",
            "Memory latency at 128 MiB (solid) and 16 MiB (dashed) over time",
        ),
    ];
    for k in ["7zip-multi", "aes", "memcpy", "memset", "latency-128m"] {
        out.push(across_kernels(&rows, m(k)));
    }
    out
}

/// A regression: a metric worse from one kernel series to the next, by more than the
/// runs on either side spread.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Regression {
    pub device: String,
    pub metric: String,
    pub from_kernel: String,
    pub to_kernel: String,
    pub before: f64,
    pub after: f64,
    /// How much worse, percent (positive).
    pub worse_pct: f64,
    pub sentence: String,
}

/// The smallest change called a regression, percent, whatever the spread.
const MIN_CHANGE_PCT: f64 = 5.0;

/// The regressions of each device in `rows`, oldest first.
pub fn regressions(rows: &[Summary]) -> Vec<Regression> {
    let rows = comparable(rows);
    let mut by_device: BTreeMap<&str, Vec<&Summary>> = BTreeMap::new();
    for s in &rows {
        by_device.entry(s.device.as_str()).or_default().push(s);
    }
    let mut out = Vec::new();
    for (device, runs) in by_device {
        let groups = by_kernel(&runs);
        for pair in groups.windows(2) {
            let ((ka, a), (kb, b)) = (&pair[0], &pair[1]);
            for m in METRICS {
                let mut va: Vec<f64> = a.iter().filter_map(|s| (m.get)(s)).collect();
                let mut vb: Vec<f64> = b.iter().filter_map(|s| (m.get)(s)).collect();
                let spread = |v: &[f64], med: f64| -> f64 {
                    let (lo, hi) = v
                        .iter()
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                            (l.min(*x), h.max(*x))
                        });
                    if med > 0.0 {
                        (hi - lo) / med * 100.0
                    } else {
                        0.0
                    }
                };
                let (Some(ma), Some(mb)) = (median(&mut va), median(&mut vb)) else {
                    continue;
                };
                if ma <= 0.0 {
                    continue;
                }
                let change = (mb - ma) / ma * 100.0;
                let worse = if m.higher_is_better { -change } else { change };
                let threshold = MIN_CHANGE_PCT.max(spread(&va, ma)).max(spread(&vb, mb));
                if worse > threshold {
                    let n = |v: &[f64]| {
                        format!("{} run{}", v.len(), if v.len() == 1 { "" } else { "s" })
                    };
                    out.push(Regression {
                        device: device.to_string(),
                        metric: m.name.to_string(),
                        from_kernel: ka.clone(),
                        to_kernel: kb.clone(),
                        before: ma,
                        after: mb,
                        worse_pct: worse,
                        sentence: format!(
                            "{device}: {} {} {:.0}% ({} → {} {}) from kernel {ka} ({}) to {kb} ({})",
                            m.name,
                            if m.higher_is_better { "fell" } else { "rose" },
                            worse,
                            fmt_num(ma),
                            fmt_num(mb),
                            m.unit,
                            n(&va),
                            n(&vb),
                        ),
                    });
                }
            }
        }
    }
    out
}

/// A figure as the pages print it: whole numbers above 100, one decimal below.
pub fn fmt_num(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, kernel: &str, date: &str, memcpy: f64, lat: f64) -> Summary {
        Summary {
            id: id.into(),
            label: "Board".into(),
            label_md: None,
            clock_md: None,
            distro_md: None,
            device: "Board".into(),
            device_slug: "board".into(),
            soc: Some("RK3588".into()),
            soc_slug: Some("rk3588".into()),
            core_types: None,
            arch: None,
            kernel: Some(format!("{kernel}.0")),
            kernel_series: Some(kernel.into()),
            distro: None,
            distro_arch: String::new(),
            run_date: Some(date.into()),
            created_at: date.into(),
            tool_version: None,
            mode: None,
            status: Status::Verified,
            auto_status: Status::Verified,
            override_reason: None,
            hidden: false,
            clock: String::new(),
            throttled: false,
            quick: false,
            sevenzip_multi: Some(10000),
            sevenzip_single: None,
            aes256_16k: None,
            memcpy: Some(memcpy),
            memset: None,
            scrypt: None,
            ramlat_16m: None,
            ramlat_128m: Some(lat),
            has_log: true,
        }
    }

    #[test]
    fn a_latency_rise_after_a_kernel_change_is_a_regression() {
        let rows = vec![
            run("a", "5.10", "2023-01-01T00:00:00Z", 5000.0, 110.0),
            run("b", "5.10", "2023-02-01T00:00:00Z", 5100.0, 112.0),
            run("c", "6.1", "2024-01-01T00:00:00Z", 5050.0, 140.0),
            run("d", "6.1", "2024-02-01T00:00:00Z", 5000.0, 138.0),
        ];
        let r = regressions(&rows);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(r[0].metric, "memory latency at 128 MiB");
        assert_eq!(
            (r[0].from_kernel.as_str(), r[0].to_kernel.as_str()),
            ("5.10", "6.1")
        );
        assert!(r[0].sentence.contains("rose 25%"), "{}", r[0].sentence);
        // Within the spread of the runs: none.
        let noisy = vec![
            run("a", "5.10", "2023-01-01T00:00:00Z", 4000.0, 110.0),
            run("b", "5.10", "2023-02-01T00:00:00Z", 6000.0, 110.0),
            run("c", "6.1", "2024-01-01T00:00:00Z", 4600.0, 110.0),
        ];
        assert!(regressions(&noisy).is_empty());
    }

    #[test]
    fn kernels_order_as_numbers_and_charts_draw() {
        assert!(series_key("6.12") > series_key("6.6"));
        let rows = vec![
            run("a", "6.6", "2023-01-01T00:00:00Z", 5000.0, 110.0),
            run("b", "6.12", "2024-01-01T00:00:00Z", 5100.0, 112.0),
        ];
        let f = figures(&rows);
        assert!(
            f.iter()
                .find(|x| x.id == "chart-7zip")
                .unwrap()
                .svg
                .is_some()
        );
        let aes = f.iter().find(|x| x.id == "chart-aes").unwrap();
        assert!(aes.svg.is_none() && aes.missing.contains("AES"));
    }
}
