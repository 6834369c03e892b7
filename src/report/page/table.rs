//! The report page's tables as data: each section's head, rows and where its numeric
//! columns begin, built once from [`ReportData`] and drawn by both the HTML page
//! (`report::page::html`) and its Markdown form (`report::page::markdown`), so the two never tell a
//! run differently. Pure; the renderers escape.

use crate::record::results_row::ResultsRow;
use crate::report::page::{ComparisonView, LatencyCurve, MonitorView, ReportData, TimeSeries};

/// One table of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageTable {
    /// Column headings (all empty: a table without a heading row).
    pub head: Vec<String>,
    /// The cells, row by row.
    pub rows: Vec<Vec<String>>,
    /// The first column aligned as a number; the columns before it are text.
    pub numeric_from: usize,
    /// Rows to make stand out (the run of this report among known boards).
    pub emphasised: Vec<usize>,
}

impl PageTable {
    fn new(head: &[&str], rows: Vec<Vec<String>>, numeric_from: usize) -> Self {
        Self {
            head: head.iter().map(|h| h.to_string()).collect(),
            rows,
            numeric_from,
            emphasised: Vec::new(),
        }
    }

    /// Whether the table has no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// A figure rounded to `d` decimals, `-` when unknown.
fn f(v: Option<f64>, d: usize) -> String {
    v.filter(|x| x.is_finite())
        .map_or_else(|| "-".into(), |x| format!("{x:.d$}"))
}

/// `4K`, `16M`: a block size.
pub fn size_label(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes % (1 << 30) == 0 {
        format!("{}G", bytes >> 30)
    } else if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{}M", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes % (1 << 10) == 0 {
        format!("{}K", bytes >> 10)
    } else {
        bytes.to_string()
    }
}

/// (label, value) of the summary, without a heading row.
pub fn summary(d: &ReportData) -> PageTable {
    let rows = d
        .summary
        .iter()
        .map(|(k, v)| vec![k.clone(), v.clone()])
        .collect();
    PageTable::new(&["", ""], rows, 9)
}

/// The Results.md table's header.
pub fn row_head() -> Vec<&'static str> {
    vec![
        "Device / details",
        "Clockspeed",
        "Kernel",
        "Distro",
        "7-zip multi",
        "7-zip single",
        "AES",
        "memcpy",
        "memset",
        "kH/s",
    ]
}

/// The Results.md row's cells as the row renders them.
pub fn row_cells(r: &ResultsRow) -> Vec<String> {
    r.render()
        .trim()
        .trim_matches('|')
        .split(" | ")
        .map(|c| c.trim().to_string())
        .collect()
}

/// The Results.md row as a one-row table.
pub fn results_row(r: &ResultsRow) -> PageTable {
    PageTable::new(&row_head(), vec![row_cells(r)], 4)
}

/// One row per cluster.
pub fn topology(d: &ReportData) -> PageTable {
    let rows = d
        .topology
        .iter()
        .map(|c| {
            vec![
                c.cpus.clone(),
                c.core_type.clone(),
                c.policy.map_or("-".into(), |p| format!("policy{p}")),
                c.min_mhz.map_or("-".into(), |m| m.to_string()),
                c.max_mhz.map_or("-".into(), |m| m.to_string()),
                c.opps.to_string(),
            ]
        })
        .collect();
    let head = ["CPUs", "Core type", "cpufreq", "min MHz", "max MHz", "OPPs"];
    PageTable::new(&head, rows, 3)
}

/// Every OPP of every cluster: advertised, measured, the deviation, measured at the end.
pub fn clocks(d: &ReportData) -> PageTable {
    let rows = d
        .clocks
        .iter()
        .flat_map(|c| {
            c.points.iter().map(|p| {
                let dev = p
                    .measured_mhz
                    .filter(|_| p.opp_mhz > 0.0)
                    .map(|m| (m / p.opp_mhz - 1.0) * 100.0);
                vec![
                    c.name.clone(),
                    if p.opp_mhz > 0.0 {
                        format!("{:.0}", p.opp_mhz)
                    } else {
                        "-".into()
                    },
                    f(p.measured_mhz, 0),
                    dev.map_or("-".into(), |x| format!("{x:+.1} %")),
                    f(p.hot_mhz, 0),
                ]
            })
        })
        .collect();
    let head = ["Cluster", "OPP MHz", "measured", "deviation", "at the end"];
    PageTable::new(&head, rows, 1)
}

/// One cluster's ramlat table, ns.
pub fn latency(c: &LatencyCurve) -> PageTable {
    let mut head = vec!["size"];
    head.extend(c.columns.iter().map(String::as_str));
    let rows = c
        .rows
        .iter()
        .map(|r| {
            let mut v = vec![size_label(r.size_bytes)];
            v.extend(r.ns.iter().map(|x| format!("{x:.1}")));
            v
        })
        .collect();
    PageTable::new(&head, rows, 1)
}

/// Memory bandwidth per cluster and test, MB/s.
pub fn bandwidth(d: &ReportData) -> PageTable {
    let rows = d
        .bandwidth
        .iter()
        .map(|b| vec![b.cluster.clone(), b.test.clone(), format!("{:.1}", b.mb_s)])
        .collect();
    PageTable::new(&["Cluster", "Test", "MB/s"], rows, 2)
}

/// AES per algorithm and cluster, 1000 bytes/s per buffer size (as openssl prints).
pub fn aes(d: &ReportData) -> PageTable {
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
    let rows = d
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
    PageTable::new(&head, rows, 2)
}

/// 7-Zip (or native LZMA) ratings per cluster and on all cores, MIPS.
pub fn sevenzip(d: &ReportData) -> PageTable {
    let rows = d
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
    let head = [
        "Cores",
        "Tool",
        "compress MIPS",
        "decompress MIPS",
        "total MIPS",
    ];
    PageTable::new(&head, rows, 2)
}

/// The highest value of the series `name` within [from, to] seconds.
fn peak_within(s: &[TimeSeries], name: &str, from: f64, to: f64) -> Option<f64> {
    s.iter().find(|t| t.name == name).and_then(|t| {
        t.points
            .iter()
            .filter(|q| q.0 >= from && q.0 <= to)
            .map(|q| q.1)
            .reduce(f64::max)
    })
}

/// The recording's phases: when, how long, how hot, how busy.
pub fn phases(m: &MonitorView) -> PageTable {
    let rows = m
        .phases
        .iter()
        .map(|p| {
            let peak = |name: &str| peak_within(&m.usage, name, p.start_s, p.end_s);
            vec![
                p.label.clone(),
                format!("{:.1}", p.start_s),
                format!("{:.1}", (p.end_s - p.start_s).max(0.0)),
                f(p.temp_max_c, 1),
                f(p.peak_cpu_pct, 0),
                f(peak("%sys"), 0),
                f(peak("%irq"), 0),
            ]
        })
        .collect();
    let head = [
        "Phase",
        "start s",
        "duration s",
        "max °C",
        "peak %cpu",
        "peak %sys",
        "peak %irq",
    ];
    PageTable::new(&head, rows, 1)
}

/// The run beside known boards by the comparison's metric; the run itself marked
/// `(this run)` (the renderers make its row stand out).
pub fn comparison(c: &ComparisonView) -> PageTable {
    let rows: Vec<Vec<String>> = c
        .bars
        .iter()
        .map(|b| {
            let label = if b.this_run {
                format!("{} (this run)", b.label)
            } else {
                b.label.clone()
            };
            vec![label, format!("{:.0}", b.value)]
        })
        .collect();
    let mut t = PageTable::new(&["Device", &c.metric], rows, 1);
    t.emphasised = c
        .bars
        .iter()
        .enumerate()
        .filter(|(_, b)| b.this_run)
        .map(|(i, _)| i)
        .collect();
    t
}
