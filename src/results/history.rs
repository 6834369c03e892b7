//! Several runs side by side on every metric at once (`compare RUN --with RUN…`), and the
//! history of one device's or SoC's stored runs (`compare --history`): when a metric
//! moved beyond its run-to-run spread, and what changed between the two runs (kernel,
//! firmware, distro, governors, clocks, throttling, sbc-bench version).
//!
//! Each figure comes from the typed record: the Results.md row's value, and where the run
//! repeated the measurement (7-Zip's three multi-threaded runs, openssl run twice on
//! cluster 0, cpuminer's totals) the lowest and highest of the repeats.

use std::fmt::Write as _;

use serde::Serialize;

use crate::record::log_record::LogAesLayout;
use crate::results::document::Parsed;

/// Which way is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Higher,
    Lower,
}

impl Better {
    fn arrow(self) -> &'static str {
        match self {
            Better::Higher => "↑",
            Better::Lower => "↓",
        }
    }
}

/// The metrics, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HistoryMetric {
    SevenzipMulti,
    SevenzipSingle,
    Aes,
    Memcpy,
    Memset,
    Khs,
    Ramlat16m,
    Ramlat128m,
}

impl HistoryMetric {
    pub const ALL: [HistoryMetric; 8] = [
        HistoryMetric::SevenzipMulti,
        HistoryMetric::SevenzipSingle,
        HistoryMetric::Aes,
        HistoryMetric::Memcpy,
        HistoryMetric::Memset,
        HistoryMetric::Khs,
        HistoryMetric::Ramlat16m,
        HistoryMetric::Ramlat128m,
    ];

    /// The name shown, with its unit.
    pub fn label(self) -> &'static str {
        match self {
            HistoryMetric::SevenzipMulti => "7-Zip multi (MIPS)",
            HistoryMetric::SevenzipSingle => "7-Zip single (MIPS)",
            HistoryMetric::Aes => "AES-256 16K (KB/s)",
            HistoryMetric::Memcpy => "memcpy (MB/s)",
            HistoryMetric::Memset => "memset (MB/s)",
            HistoryMetric::Khs => "cpuminer (kH/s)",
            HistoryMetric::Ramlat16m => "latency 16 MiB (ns)",
            HistoryMetric::Ramlat128m => "latency 128 MiB (ns)",
        }
    }

    /// The better direction.
    pub fn better(self) -> Better {
        match self {
            HistoryMetric::Ramlat16m | HistoryMetric::Ramlat128m => Better::Lower,
            _ => Better::Higher,
        }
    }

    /// The run's figure, with the spread of its repeats where it repeated it.
    pub fn of(self, p: &Parsed) -> Option<MeasuredFigure> {
        let row = &p.log.results_row;
        let rec = &p.record;
        let value = match self {
            HistoryMetric::SevenzipMulti => row.sevenzip_multi.map(|v| v as f64),
            HistoryMetric::SevenzipSingle => row.sevenzip_single.map(|v| v as f64),
            HistoryMetric::Aes => row.aes256_16k,
            HistoryMetric::Memcpy => row.memcpy_mb_s,
            HistoryMetric::Memset => row.memset_mb_s,
            HistoryMetric::Khs => row.scrypt_khs,
            HistoryMetric::Ramlat16m => p.extra.ramlat_16m_ns,
            HistoryMetric::Ramlat128m => p.extra.ramlat_128m_ns,
        }
        .filter(|v| v.is_finite())?;
        let repeats: Vec<f64> = match self {
            HistoryMetric::SevenzipMulti => rec
                .sevenzip
                .iter()
                .flat_map(|z| &z.multi)
                .map(|r| r.total_mips as f64)
                .collect(),
            // openssl run twice on one cluster: two measurements of one figure.
            HistoryMetric::Aes => rec
                .aes
                .iter()
                .filter(|a| a.layout == LogAesLayout::Twice)
                .flat_map(|a| &a.openssl)
                .filter(|r| r.algorithm == "aes-256-cbc")
                .filter_map(|r| r.kb_per_s.iter().find(|(b, _)| *b == 16384).map(|x| x.1))
                .collect(),
            HistoryMetric::Khs => rec
                .cpuminer
                .iter()
                .flat_map(|c| &c.totals_khs)
                .copied()
                .collect(),
            _ => Vec::new(),
        };
        let repeats: Vec<f64> = repeats.into_iter().filter(|v| v.is_finite()).collect();
        let spread = (repeats.len() > 1).then(|| {
            let lo = repeats.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = repeats.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (lo, hi, repeats.len())
        });
        Some(MeasuredFigure { value, spread })
    }
}

/// A figure: the value, and (lowest, highest, how many) of its repeats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MeasuredFigure {
    pub value: f64,
    pub spread: Option<(f64, f64, usize)>,
}

impl MeasuredFigure {
    /// The spread relative to the value (0 without repeats).
    pub fn spread_rel(&self) -> f64 {
        match self.spread {
            Some((lo, hi, _)) if self.value > 0.0 => (hi - lo) / self.value,
            _ => 0.0,
        }
    }
}

/// One labelled run.
pub struct LabelledRun<'a> {
    /// `#12`, a file name.
    pub label: String,
    pub parsed: &'a Parsed,
}

/// The runs as [`side_by_side`] and [`history`] take them: each borrowed with its label.
pub fn labelled(runs: &[(String, Parsed)]) -> Vec<LabelledRun<'_>> {
    runs.iter()
        .map(|(l, p)| LabelledRun {
            label: l.clone(),
            parsed: p,
        })
        .collect()
}

/// `compare --with` and `compare --history` as JSON: the runs side by side, and (for
/// the history) the moves beyond the spread.
#[derive(Serialize)]
pub struct RunsDoc<'a> {
    /// The runs side by side.
    #[serde(flatten)]
    pub side: &'a SideBySide,
    /// `--history`: the moves beyond the spread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<&'a [MetricMove]>,
}

/// One metric across the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricLine {
    pub metric: HistoryMetric,
    pub better: Better,
    /// Per run, in the runs' order.
    pub values: Vec<Option<MeasuredFigure>>,
    /// The index of the best run, where two or more runs have the figure.
    pub best: Option<usize>,
}

/// The runs side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideBySide {
    /// Each run's label and device.
    pub runs: Vec<(String, String)>,
    pub lines: Vec<MetricLine>,
}

/// Every metric of every run.
pub fn side_by_side(runs: &[LabelledRun<'_>]) -> SideBySide {
    let lines = HistoryMetric::ALL
        .iter()
        .map(|&m| {
            let values: Vec<Option<MeasuredFigure>> = runs.iter().map(|r| m.of(r.parsed)).collect();
            let with: Vec<(usize, f64)> = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| Some((i, v.as_ref()?.value)))
                .collect();
            let best = (with.len() > 1)
                .then(|| {
                    with.iter()
                        .copied()
                        .reduce(|a, b| match m.better() {
                            Better::Higher if b.1 > a.1 => b,
                            Better::Lower if b.1 < a.1 => b,
                            _ => a,
                        })
                        .map(|x| x.0)
                })
                .flatten();
            MetricLine {
                metric: m,
                better: m.better(),
                values,
                best,
            }
        })
        .collect();
    SideBySide {
        runs: runs
            .iter()
            .map(|r| (r.label.clone(), r.parsed.log.results_row.device.clone()))
            .collect(),
        lines,
    }
}

fn fmt_value(v: &MeasuredFigure) -> String {
    let n = |x: f64| {
        if x >= 100.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.2}")
        }
    };
    match v.spread {
        Some((lo, hi, k)) => format!("{} ({}–{} of {k})", n(v.value), n(lo), n(hi)),
        None => n(v.value),
    }
}

/// The side-by-side table as text.
pub fn render_side_by_side(s: &SideBySide) -> String {
    let mut out = String::from("| Metric |");
    for (label, device) in &s.runs {
        let _ = write!(out, " {label} {device} |");
    }
    out.push_str("\n| ----- |");
    for _ in &s.runs {
        out.push_str(" ----: |");
    }
    out.push('\n');
    for l in &s.lines {
        let _ = write!(out, "| {} {} |", l.metric.label(), l.better.arrow());
        for (i, v) in l.values.iter().enumerate() {
            match v {
                Some(v) if l.best == Some(i) => {
                    let _ = write!(out, " **{}** |", fmt_value(v));
                }
                Some(v) => {
                    let _ = write!(out, " {} |", fmt_value(v));
                }
                None => out.push_str(" - |"),
            }
        }
        out.push('\n');
    }
    out.push_str(
        "\n↑ higher is better, ↓ lower is better; the best run in bold; (lowest–highest of n): \
         the spread where the run repeated the measurement (7-Zip's multi-threaded runs, \
         openssl run twice, cpuminer's totals).\n",
    );
    out
}

/// What is below this share of the value is run-to-run noise even without repeats.
pub const NOISE: f64 = 0.03;

/// One move of a metric between two consecutive runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricMove {
    pub metric: HistoryMetric,
    /// The earlier and the later run's labels.
    pub from: String,
    pub to: String,
    pub before: f64,
    pub after: f64,
    /// Percent change.
    pub change_pct: f64,
    /// Better or worse by the metric's direction.
    pub worse: bool,
    /// The threshold it crossed, percent: the larger spread of the two runs, at least
    /// [`NOISE`].
    pub threshold_pct: f64,
    /// What differs between the two runs.
    pub changed: Vec<String>,
}

/// What differs between two runs' records.
pub fn changes(a: &Parsed, b: &Parsed) -> Vec<String> {
    let mut out = Vec::new();
    let mut diff = |what: &str, x: Option<String>, y: Option<String>| {
        let (x, y) = (x.filter(|s| !s.is_empty()), y.filter(|s| !s.is_empty()));
        if x.is_some() && y.is_some() && x != y {
            out.push(format!(
                "{what} {} → {}",
                x.unwrap_or_default(),
                y.unwrap_or_default()
            ));
        }
    };
    let kernel = |p: &Parsed| {
        p.log
            .kernel_release
            .clone()
            .or_else(|| Some(p.log.results_row.kernel.clone()))
    };
    diff("kernel", kernel(a), kernel(b));
    diff(
        "firmware",
        a.record.host.firmware.clone(),
        b.record.host.firmware.clone(),
    );
    // The codename where both logs print it: the row's distro column is spelt
    // differently by sbc-bench versions (`Bullseye arm64`, `Debian GNU/Linux 11
    // (bullseye) arm64`) for one distro.
    let distro = |p: &Parsed| {
        let arch = crate::results::store_index::arch_of(p).unwrap_or_default();
        p.record.host.codename.as_deref().map(|c| {
            format!("{} {arch}", c.to_ascii_lowercase())
                .trim()
                .to_string()
        })
    };
    match (distro(a), distro(b)) {
        (Some(x), Some(y)) => diff("distro", Some(x), Some(y)),
        _ => diff(
            "distro",
            Some(a.log.results_row.distro_arch.clone()),
            Some(b.log.results_row.distro_arch.clone()),
        ),
    }
    let gov = |p: &Parsed| Some(p.record.governors.join("; "));
    diff("governors", gov(a), gov(b));
    let clocks = |p: &Parsed| {
        Some(
            p.extra
                .clocks_mhz
                .iter()
                .map(|c| format!("{c}"))
                .collect::<Vec<_>>()
                .join("/"),
        )
        .filter(|s| !s.is_empty())
        .map(|s| format!("{s} MHz"))
    };
    diff("measured clocks", clocks(a), clocks(b));
    let thr = |p: &Parsed| {
        let t = if p.log.results_row.throttled {
            "throttled"
        } else {
            "not throttled"
        };
        Some(t.to_string())
    };
    diff("throttling", thr(a), thr(b));
    diff("sbc-bench", a.log.version.clone(), b.log.version.clone());
    out
}

/// The moves beyond the spread between each run and the next (the runs in date order).
pub fn history(runs: &[LabelledRun<'_>]) -> Vec<MetricMove> {
    let mut out = Vec::new();
    for w in runs.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let mut changed: Option<Vec<String>> = None;
        for m in HistoryMetric::ALL {
            let (Some(x), Some(y)) = (m.of(a.parsed), m.of(b.parsed)) else {
                continue;
            };
            if x.value <= 0.0 {
                continue;
            }
            let rel = (y.value - x.value) / x.value;
            let threshold = x.spread_rel().max(y.spread_rel()).max(NOISE);
            if rel.abs() <= threshold {
                continue;
            }
            let worse = match m.better() {
                Better::Higher => rel < 0.0,
                Better::Lower => rel > 0.0,
            };
            out.push(MetricMove {
                metric: m,
                from: a.label.clone(),
                to: b.label.clone(),
                before: x.value,
                after: y.value,
                change_pct: rel * 100.0,
                worse,
                threshold_pct: threshold * 100.0,
                changed: changed
                    .get_or_insert_with(|| changes(a.parsed, b.parsed))
                    .clone(),
            });
        }
    }
    out
}

/// The history as text: the runs, then each move.
pub fn render_history(runs: &[LabelledRun<'_>], moves: &[MetricMove]) -> String {
    let mut out = String::new();
    let s = side_by_side(runs);
    out.push_str(&render_side_by_side(&s));
    out.push('\n');
    if runs.len() < 2 {
        out.push_str("Fewer than two runs: nothing to follow.\n");
        return out;
    }
    if moves.is_empty() {
        let _ = writeln!(
            out,
            "No metric moved beyond its run-to-run spread (at least {:.0} %) between consecutive runs.",
            NOISE * 100.0
        );
        return out;
    }
    out.push_str("Moves beyond the run-to-run spread:\n");
    for m in moves {
        let _ = writeln!(
            out,
            "  * {} → {}: {} {} {:+.1} % ({} → {}; spread {:.1} %){}",
            m.from,
            m.to,
            m.metric.label(),
            if m.worse { "worse" } else { "better" },
            m.change_pct,
            fmt_value(&MeasuredFigure {
                value: m.before,
                spread: None
            }),
            fmt_value(&MeasuredFigure {
                value: m.after,
                spread: None
            }),
            m.threshold_pct,
            if m.changed.is_empty() {
                "; nothing the logs state changed".to_string()
            } else {
                format!("; changed: {}", m.changed.join(", "))
            }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::document::parse_log_run;

    fn log(kernel: &str, ramlat: &str, zip: [u32; 3]) -> String {
        format!(
            "sbc-bench v0.9.72 Radxa ROCK 5B (Mon, 10 Nov 2025 23:46:00 +0800)\n\n\
Linux {kernel} (rock-5b) \t_aarch64_\t(8 CPU)\n\n\
Executing ramlat on cpu0 (Cortex-A55), results in ns:\n\n\
       size:  1x32  2x32\n\
    131072k: {ramlat} 150.3\n\n\
Executing benchmark 3 times multi-threaded on CPUs 0-7\n\n\
Tot:             786   4000  {}\n\
Tot:             786   4000  {}\n\
Tot:             786   4000  {}\n\
Total: {},{},{}\n\n",
            zip[0], zip[1], zip[2], zip[0], zip[1], zip[2]
        )
    }

    #[test]
    fn latency_up_after_a_kernel_change_is_a_move_and_names_the_kernel() {
        let a = parse_log_run(&log("5.10.110", "120.0", [16000, 16100, 16200])).unwrap();
        let b = parse_log_run(&log("6.1.43", "140.0", [16050, 16150, 15950])).unwrap();
        let runs = [
            LabelledRun {
                label: "#1".into(),
                parsed: &a,
            },
            LabelledRun {
                label: "#2".into(),
                parsed: &b,
            },
        ];
        let moves = history(&runs);
        let lat: Vec<&MetricMove> = moves
            .iter()
            .filter(|m| m.metric == HistoryMetric::Ramlat128m)
            .collect();
        assert_eq!(lat.len(), 1, "{moves:?}");
        assert!(lat[0].worse);
        assert!(
            lat[0]
                .changed
                .iter()
                .any(|c| c.contains("5.10.110 → 6.1.43")),
            "{:?}",
            lat[0].changed
        );
        // 7-Zip moved within its spread: no move.
        assert!(
            !moves
                .iter()
                .any(|m| m.metric == HistoryMetric::SevenzipMulti)
        );
        let text = render_history(&runs, &moves);
        assert!(
            text.contains("latency 128 MiB (ns) worse +16.7 %"),
            "{text}"
        );
    }

    #[test]
    fn side_by_side_marks_the_better_direction_and_the_spread() {
        let a = parse_log_run(&log("5.10.110", "120.0", [16000, 16100, 16200])).unwrap();
        let b = parse_log_run(&log("5.10.110", "110.0", [15000, 15100, 15200])).unwrap();
        let s = side_by_side(&[
            LabelledRun {
                label: "#1".into(),
                parsed: &a,
            },
            LabelledRun {
                label: "#2".into(),
                parsed: &b,
            },
        ]);
        let lat = s
            .lines
            .iter()
            .find(|l| l.metric == HistoryMetric::Ramlat128m)
            .unwrap();
        assert_eq!((lat.better, lat.best), (Better::Lower, Some(1)));
        let zip = &s.lines[0];
        assert_eq!(zip.best, Some(0));
        assert_eq!(zip.values[0].unwrap().spread, Some((16000.0, 16200.0, 3)));
        let t = render_side_by_side(&s);
        assert!(
            t.contains("| latency 128 MiB (ns) ↓ | 120 | **110** |"),
            "{t}"
        );
    }
}
