//! The report's charts of a log's typed record ([`LogRecord`]): the topology, the clock
//! per OPP (cold and hot), the latency curves (ramlat, else tinymembench's random read),
//! the bandwidth, AES and 7-Zip figures, and the "System health while running …" tables
//! as time series. What the log lacks stays empty (the page says "No chart"), never
//! guessed.

use crate::record::log_record::{LogClockPhase, LogOppTable, LogRecord};
use crate::report::page::{
    AesRow, Bandwidth, ClockCurve, ClusterView, LatencyCell, LatencyCurve, MonitorView, OppPoint,
    PhaseSpan, ReportData, TimeSeries, ZipRow,
};

/// Fill `d`'s charts from the record.
pub fn charts(rec: &LogRecord, d: &mut ReportData) {
    d.topology = topology(rec);
    d.clocks = clocks(rec);
    d.latency = latency(rec);
    d.bandwidth = bandwidth(rec);
    d.aes = aes(rec);
    d.sevenzip = sevenzip(rec);
    d.monitor = monitor(rec, &d.topology);
}

/// `Cortex-A55 / r2p0` → `Cortex-A55`.
fn core_type(t: Option<&str>) -> String {
    t.map(|t| t.split(" / ").next().unwrap_or(t).trim().to_string())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "n/a".into())
}

/// `0-3` of a sorted list of CPU numbers (`0,2,4` where not contiguous).
fn cpu_range(cpus: &[u32]) -> String {
    match (cpus.first(), cpus.last()) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) if (*b - *a) as usize + 1 == cpus.len() => format!("{a}-{b}"),
        _ => cpus
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// The clusters of the topology table: consecutive CPUs of one cpufreq policy (else one
/// cluster id) and one core type.
fn topology(rec: &LogRecord) -> Vec<ClusterView> {
    let mut groups: Vec<(Option<u32>, Option<i32>, String, Vec<&_>)> = Vec::new();
    for c in &rec.topology {
        let t = core_type(c.core_type.as_deref());
        match groups.last_mut() {
            Some(g) if g.0 == c.policy && g.1 == c.cluster && g.2 == t => g.3.push(c),
            _ => groups.push((c.policy, c.cluster, t, vec![c])),
        }
    }
    groups
        .into_iter()
        .map(|(policy, _, t, cpus)| {
            let ids: Vec<u32> = cpus.iter().map(|c| c.cpu).collect();
            let min = cpus.iter().filter_map(|c| c.min_mhz).min();
            let max = cpus.iter().filter_map(|c| c.max_mhz).max();
            let opps = rec
                .clocks
                .iter()
                .filter(|o| o.phase == LogClockPhase::Cold)
                .find(|o| heading_cpus(o).first().is_some_and(|f| ids.contains(f)))
                .map_or(0, |o| o.rows.iter().filter(|r| r.opp_mhz.is_some()).count());
            ClusterView {
                name: format!("cpu{} ({t})", cpu_range(&ids)),
                cpus: cpu_range(&ids),
                cpu_ids: ids,
                core_type: t,
                policy,
                min_mhz: min,
                max_mhz: max,
                opps,
            }
        })
        .collect()
}

/// The CPUs a heading names: `cpu0-cpu3` → 0..=3, `cpu4` → 4.
fn heading_cpus(t: &LogOppTable) -> Vec<u32> {
    let Some(c) = t.cpus.as_deref() else {
        return Vec::new();
    };
    let num = |s: &str| s.trim().trim_start_matches("cpu").parse::<u32>().ok();
    match c.split_once('-') {
        Some((a, b)) => match (num(a), num(b)) {
            (Some(a), Some(b)) if a <= b && b - a < 4096 => (a..=b).collect(),
            _ => Vec::new(),
        },
        None => num(c).into_iter().collect(),
    }
}

/// A clock table's name, as the topology names clusters.
fn table_name(t: &LogOppTable) -> String {
    let cpus = heading_cpus(t);
    let ty = core_type(t.core_type.as_deref());
    if cpus.is_empty() {
        ty
    } else {
        format!("cpu{} ({ty})", cpu_range(&cpus))
    }
}

fn clocks(rec: &LogRecord) -> Vec<ClockCurve> {
    let hot: Vec<&LogOppTable> = rec
        .clocks
        .iter()
        .filter(|t| t.phase == LogClockPhase::Hot)
        .collect();
    rec.clocks
        .iter()
        .filter(|t| t.phase == LogClockPhase::Cold)
        .filter_map(|t| {
            let h = hot
                .iter()
                .find(|h| h.cpus == t.cpus && h.core_type == t.core_type);
            let mut points: Vec<OppPoint> = t
                .rows
                .iter()
                .filter(|r| r.opp_mhz.is_some() || r.measured_mhz.is_some())
                .map(|r| OppPoint {
                    opp_mhz: r.opp_mhz.map_or(0.0, f64::from),
                    measured_mhz: r.measured_mhz,
                    hot_mhz: h.and_then(|h| {
                        h.rows
                            .iter()
                            .find(|x| x.opp_mhz == r.opp_mhz)
                            .and_then(|x| x.measured_mhz)
                    }),
                })
                .collect();
            points.sort_by(|a, b| b.opp_mhz.total_cmp(&a.opp_mhz));
            (!points.is_empty()).then(|| ClockCurve {
                name: table_name(t),
                points,
            })
        })
        .collect()
}

/// `cpu4 (Cortex-A76)`, `Cortex-A76` or `cpu4`, of what a table's heading names.
fn on(cpu: Option<u32>, ty: Option<&str>) -> String {
    match (cpu, ty) {
        (Some(c), Some(_)) => format!("cpu{c} ({})", core_type(ty)),
        (Some(c), None) => format!("cpu{c}"),
        (None, Some(_)) => core_type(ty),
        (None, None) => "n/a".into(),
    }
}

/// ramlat's tables; where the log has none, tinymembench's random-read latency.
fn latency(rec: &LogRecord) -> Vec<LatencyCurve> {
    let ramlat: Vec<LatencyCurve> = rec
        .ramlat
        .iter()
        .filter(|t| !t.rows.is_empty())
        .map(|t| LatencyCurve {
            name: on(t.cpu, t.core_type.as_deref()),
            columns: t.columns.clone(),
            rows: t
                .rows
                .iter()
                .map(|r| LatencyCell {
                    size_bytes: r.size_bytes,
                    ns: r.ns.clone(),
                })
                .collect(),
        })
        .collect();
    if !ramlat.is_empty() {
        return ramlat;
    }
    let mut out = Vec::new();
    for t in &rec.tinymembench {
        for (i, l) in t
            .latency
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.rows.is_empty())
        {
            let dual = l.rows.iter().all(|r| r.dual_ns.is_some());
            let mut columns = vec!["single random read".to_string()];
            if dual {
                columns.push("dual random read".to_string());
            }
            let note = match (i, &l.note) {
                (0, _) => String::new(),
                (_, Some(n)) => format!(", {n}"),
                (i, None) => format!(", table {}", i + 1),
            };
            out.push(LatencyCurve {
                name: format!("{}, tinymembench{note}", on(t.cpu, t.core_type.as_deref())),
                columns,
                rows: l
                    .rows
                    .iter()
                    .map(|r| LatencyCell {
                        size_bytes: r.block_bytes,
                        ns: std::iter::once(r.single_ns)
                            .chain(r.dual_ns.filter(|_| dual))
                            .collect(),
                    })
                    .collect(),
            });
        }
    }
    out
}

fn bandwidth(rec: &LogRecord) -> Vec<Bandwidth> {
    rec.tinymembench
        .iter()
        .flat_map(|t| {
            let cluster = on(t.cpu, t.core_type.as_deref());
            t.bandwidth.iter().map(move |b| Bandwidth {
                cluster: cluster.clone(),
                test: b.name.clone(),
                mb_s: b.mb_per_s,
            })
        })
        .filter(|b| b.mb_s.is_finite())
        .collect()
}

/// Our native rows, then openssl's (marked); a row without a core type is on the cluster
/// the log ran it on, numbered where the same algorithm ran twice.
fn aes(rec: &LogRecord) -> Vec<AesRow> {
    let Some(a) = &rec.aes else {
        return Vec::new();
    };
    let rows = a
        .native
        .iter()
        .map(|r| (r, ""))
        .chain(a.openssl.iter().map(|r| (r, " (OpenSSL)")));
    let mut seen: Vec<(String, String)> = Vec::new();
    rows.map(|(r, tool)| {
        let base = r
            .tag
            .clone()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "all".into());
        let key = (format!("{}{tool}", r.algorithm), base.clone());
        let n = seen.iter().filter(|k| **k == key).count();
        seen.push(key.clone());
        AesRow {
            algorithm: key.0,
            cluster: if n == 0 {
                base
            } else {
                format!("{base} (run {})", n + 1)
            },
            sizes: r.kb_per_s.clone(),
        }
    })
    .collect()
}

fn sevenzip(rec: &LogRecord) -> Vec<ZipRow> {
    let Some(z) = &rec.sevenzip else {
        return Vec::new();
    };
    // `7-Zip (a) [64] 16.02 : …` → `7-Zip 16.02`.
    let tool = z
        .version
        .as_deref()
        .and_then(|v| {
            v.split_whitespace()
                .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))
        })
        .map_or_else(|| "7-Zip".to_string(), |v| format!("7-Zip {v}"));
    let row = |label: String, r: &crate::record::log_record::LogZipRun| ZipRow {
        label,
        tool: tool.clone(),
        compress_mips: r.compress_mips.map(|x| x as f64),
        decompress_mips: r.decompress_mips.map(|x| x as f64),
        total_mips: r.total_mips as f64,
    };
    let mut out: Vec<ZipRow> = z
        .single
        .iter()
        .map(|r| row(on(r.cpu, r.core_type.as_deref()), r))
        .collect();
    out.extend(z.cluster.iter().map(|r| {
        let cpus = r.cpus.as_deref().map(|c| format!("cpu{c}"));
        let label = match (cpus, &r.core_type) {
            (Some(c), Some(_)) => format!("{c} ({})", core_type(r.core_type.as_deref())),
            (Some(c), None) => c,
            (None, _) => core_type(r.core_type.as_deref()),
        };
        row(label, r)
    }));
    let n = z.multi.len();
    out.extend(z.multi.iter().enumerate().map(|(i, r)| {
        let label = if n > 1 {
            format!("all cores (run {})", i + 1)
        } else {
            "all cores".into()
        };
        row(label, r)
    }));
    out
}

/// `16:24:05` as seconds of the day.
fn seconds(t: &str) -> Option<f64> {
    let mut p = t.trim().split(':').map(|x| x.parse::<u32>().ok());
    let (h, m, s) = (p.next()??, p.next()??, p.next()??);
    (h < 24 && m < 60 && s < 61).then(|| f64::from(h * 3600 + m * 60 + s))
}

/// Each health row's time on one axis: seconds from the first row, across midnight
/// (`None` for a row whose time does not read); `None` when no row's time reads.
fn time_axis(
    tables: &[&crate::record::log_record::LogHealthTable],
) -> Option<Vec<Vec<Option<f64>>>> {
    let mut t0: Option<f64> = None;
    let mut last = 0.0;
    let mut day = 0.0;
    let mut at: Vec<Vec<Option<f64>>> = Vec::new();
    for t in tables {
        let mut v = Vec::new();
        for r in &t.rows {
            let Some(s) = seconds(&r.time) else {
                v.push(None);
                continue;
            };
            let base = *t0.get_or_insert(s);
            let mut x = s + day - base;
            if x + 3600.0 < last {
                // Past midnight.
                day += 86_400.0;
                x += 86_400.0;
            }
            last = x;
            v.push(Some(x));
        }
        at.push(v);
    }
    t0.map(|_| at)
}

/// The health tables (not the single row before the hot clock check) on one time axis:
/// seconds from the first row, across midnight.
fn monitor(rec: &LogRecord, topo: &[ClusterView]) -> Option<MonitorView> {
    let tables: Vec<_> = rec
        .health
        .iter()
        .filter(|t| t.phase != "clock check under load" && !t.rows.is_empty())
        .collect();
    let at = time_axis(&tables)?;
    let points = |f: &dyn Fn(&crate::record::log_record::LogHealthRow) -> Option<f64>| {
        let mut p: Vec<(f64, f64)> = tables
            .iter()
            .zip(&at)
            .flat_map(|(t, xs)| t.rows.iter().zip(xs))
            .filter_map(|(r, x)| Some(((*x)?, f(r).filter(|y| y.is_finite())?)))
            .collect();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        p
    };
    // Clock series by the names the tables give, in order of first appearance.
    let mut names: Vec<String> = Vec::new();
    for t in &tables {
        for n in &t.clock_names {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    let clocks = names
        .iter()
        .map(|n| {
            // `cpu4` → the cluster it is in.
            let label = n
                .strip_prefix("cpu")
                .and_then(|c| c.parse::<u32>().ok())
                .and_then(|c| topo.iter().find(|v| v.cpu_ids.contains(&c)))
                .map_or_else(|| n.clone(), |v| v.name.clone());
            let mut p: Vec<(f64, f64)> = Vec::new();
            for (t, xs) in tables.iter().zip(&at) {
                let Some(i) = t.clock_names.iter().position(|x| x == n) else {
                    continue;
                };
                for (r, x) in t.rows.iter().zip(xs) {
                    if let (Some(x), Some(Some(mhz))) = (x, r.clocks_mhz.get(i)) {
                        p.push((*x, f64::from(*mhz)));
                    }
                }
            }
            p.sort_by(|a, b| a.0.total_cmp(&b.0));
            TimeSeries {
                name: label,
                points: p,
            }
        })
        .collect();
    let phases = tables
        .iter()
        .zip(&at)
        .filter_map(|(t, xs)| {
            let xs: Vec<f64> = xs.iter().flatten().copied().collect();
            let max = |f: &dyn Fn(&crate::record::log_record::LogHealthRow) -> Option<f64>| {
                t.rows
                    .iter()
                    .filter_map(f)
                    .filter(|x| x.is_finite())
                    .reduce(f64::max)
            };
            Some(PhaseSpan {
                label: t.phase.clone(),
                start_s: *xs.first()?,
                end_s: *xs.last()?,
                temp_max_c: max(&|r| r.temp_c),
                peak_cpu_pct: max(&|r| r.cpu_pct),
            })
        })
        .collect();
    let series =
        |name: &str, f: &dyn Fn(&crate::record::log_record::LogHealthRow) -> Option<f64>| {
            TimeSeries {
                name: name.into(),
                points: points(f),
            }
        };
    Some(MonitorView {
        phases,
        clocks,
        temp: vec![series("SoC temperature", &|r| r.temp_c)],
        usage: vec![
            series("%cpu", &|r| r.cpu_pct),
            series("%sys", &|r| r.sys_pct),
            series("%irq", &|r| r.irq_pct),
        ],
        // The tables hold no per-core figure.
        busiest: Vec::new(),
        thermal_source: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "sbc-bench v0.9.72 Radxa ROCK 5B (Mon, 10 Nov 2025 23:46:00 +0800)\n\n\
CPU sysfs topology (clusters, cpufreq members, clockspeeds)\n\
                 cpufreq   min    max\n\
 CPU    cluster  policy   speed  speed   core type\n\
  0        0        0      408    1800   Cortex-A55 / r2p0\n\
  1        0        0      408    1800   Cortex-A55 / r2p0\n\
  4        1        4      408    2400   Cortex-A76 / r4p0\n\n\
Checking cpufreq OPP for cpu0-cpu1 (Cortex-A55):\n\n\
Cpufreq OPP: 1800    Measured: 1794 (1794.0/1794.0/1793.9)\n\
Cpufreq OPP:  408    Measured:  406 (406.1/406.0/405.9)\n\n\
Checking cpufreq OPP for cpu4 (Cortex-A76):\n\n\
Cpufreq OPP: 2400    Measured: 2350 (2350.0/2350.0/2350.0)\n\n\
Executing ramlat on cpu0 (Cortex-A55), results in ns:\n\n\
       size:  1x32  2x32\n\
     16384k: 120.5 130.1\n\
    131072k: 140.2 150.3\n\n\
System health while running 7-zip single core benchmark:\n\n\
Time        cpu0/cpu4    load %cpu %sys %usr %nice %io %irq   Temp\n\
23:59:58:  1800/2400MHz  1.00  10%   1%   9%   0%   0%   0%  40.0°C\n\
00:00:08:  1800/2400MHz  1.00  25%   1%  24%   0%   0%   0%  45.0°C\n\n";

    #[test]
    fn a_log_record_gives_topology_clock_latency_and_health_charts() {
        let rec = crate::results::sbclog::read(LOG);
        let mut d = ReportData::default();
        charts(&rec, &mut d);
        let names: Vec<&str> = d.topology.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["cpu0-1 (Cortex-A55)", "cpu4 (Cortex-A76)"]);
        assert_eq!(d.clocks.len(), 2);
        assert_eq!(d.clocks[0].name, "cpu0-1 (Cortex-A55)");
        assert_eq!(d.clocks[0].points[0].opp_mhz, 1800.0);
        assert_eq!(d.clocks[0].points[0].measured_mhz, Some(1794.0));
        assert_eq!(d.latency.len(), 1);
        assert_eq!(d.latency[0].rows[1].size_bytes, 128 << 20);
        let m = d.monitor.expect("health table");
        // Across midnight: 10 s apart.
        assert_eq!(m.temp[0].points, [(0.0, 40.0), (10.0, 45.0)]);
        assert_eq!(m.clocks.len(), 2);
        assert_eq!(m.clocks[1].name, "cpu4 (Cortex-A76)");
        assert_eq!(m.phases[0].temp_max_c, Some(45.0));
    }

    #[test]
    fn a_log_without_tables_gives_no_charts() {
        let rec =
            crate::results::sbclog::read("sbc-bench v0.9.72 X (Mon, 10 Nov 2025 23:46:00 +0800)\n");
        let mut d = ReportData::default();
        charts(&rec, &mut d);
        assert!(d.clocks.is_empty() && d.latency.is_empty() && d.aes.is_empty());
        assert!(d.monitor.is_none());
    }
}
