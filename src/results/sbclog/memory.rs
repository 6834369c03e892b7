//! Memory in a log: tinymembench's bandwidth rows and latency tables, per core, and
//! ramlat's tables.

use crate::record::log_record::{
    LogBandwidth, LogLatency, LogLatencyTable, LogRamlat, LogRamlatRow, LogTinymembench,
};

use super::cpu_and_type;

/// ` C copy backwards (32 byte blocks)   :   2944.9 MB/s (2)`, old logs' `(0.8%)`, newer
/// `(3, 1.8%)`.
fn bandwidth_row(l: &str) -> Option<LogBandwidth> {
    if !l.starts_with(' ') {
        return None;
    }
    let (name, rest) = l.split_once(" : ")?;
    let rest = rest.trim();
    let (value, note) = rest.split_once("MB/s")?;
    let mb_per_s: f64 = value.trim().parse().ok()?;
    let note = note.trim();
    let inner = note
        .strip_prefix('(')
        .and_then(|n| n.strip_suffix(')'))
        .unwrap_or("");
    let mut row = LogBandwidth {
        name: name.trim().to_string(),
        mb_per_s,
        repeats: None,
        stddev_pct: None,
    };
    for part in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.strip_suffix('%') {
            Some(p) => row.stddev_pct = p.parse().ok(),
            None => row.repeats = part.parse().ok(),
        }
    }
    (!row.name.is_empty()).then_some(row)
}

/// `   1048576 :   15.6 ns          /    16.1 ns `.
fn latency_row(l: &str) -> Option<LogLatency> {
    let (size, rest) = l.split_once(" : ")?;
    let block_bytes = size.trim().parse().ok()?;
    let (single, dual) = match rest.split_once('/') {
        Some((s, d)) => (s, Some(d)),
        None => (rest, None),
    };
    let ns = |s: &str| s.trim().strip_suffix("ns")?.trim().parse::<f64>().ok();
    Some(LogLatency {
        block_bytes,
        single_ns: ns(single)?,
        dual_ns: dual.and_then(ns),
    })
}

/// Every tinymembench run: headed `Executing benchmark on cpu0 (Cortex-A55):` (ours print
/// the bandwidth and the latency of one core under two such headings: one entry),
/// `Executing tinymembench on a big core:`, or not at all (one core).
pub fn tinymembench(lines: &[String]) -> Vec<LogTinymembench> {
    let mut out: Vec<LogTinymembench> = Vec::new();
    let mut current: Option<usize> = None;
    for l in lines {
        if let Some(rest) = l.strip_prefix("Executing benchmark on cpu") {
            let (cpu, core_type) = cpu_and_type(&format!("cpu{rest}"));
            let known = out
                .iter()
                .position(|t| cpu.is_some() && t.cpu == cpu && t.core_type == core_type);
            current = Some(known.unwrap_or_else(|| {
                out.push(LogTinymembench {
                    cpu,
                    core_type,
                    ..LogTinymembench::default()
                });
                out.len() - 1
            }));
            continue;
        }
        if l.starts_with("Executing tinymembench on") {
            out.push(LogTinymembench::default());
            current = Some(out.len() - 1);
            continue;
        }
        if l.starts_with("Executing") || l.starts_with("####") {
            current = None;
            continue;
        }
        let entry = |out: &mut Vec<LogTinymembench>, current: &mut Option<usize>| -> usize {
            *current.get_or_insert_with(|| {
                out.push(LogTinymembench::default());
                out.len() - 1
            })
        };
        if let Some(rest) = l.strip_prefix("block size :") {
            let note = rest
                .split_once(',')
                .map(|(_, n)| n.trim().to_string())
                .filter(|n| !n.is_empty());
            let i = entry(&mut out, &mut current);
            out[i].latency.push(LogLatencyTable {
                note,
                rows: Vec::new(),
            });
        } else if let Some(row) = latency_row(l) {
            let i = entry(&mut out, &mut current);
            match out[i].latency.last_mut() {
                Some(t) => t.rows.push(row),
                None => out[i].latency.push(LogLatencyTable {
                    note: None,
                    rows: vec![row],
                }),
            }
        } else if let Some(row) = bandwidth_row(l) {
            let i = entry(&mut out, &mut current);
            out[i].bandwidth.push(row);
        }
    }
    for t in &mut out {
        t.latency.retain(|l| !l.rows.is_empty());
    }
    out.retain(|t| !t.bandwidth.is_empty() || !t.latency.is_empty());
    out
}

/// `16384k` / `4M` in bytes.
fn ramlat_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (n, mult) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1u64 << 10),
        'm' | 'M' => (&s[..s.len() - 1], 1 << 20),
        'g' | 'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    n.parse::<u64>().ok().map(|n| n * mult)
}

/// Every ramlat table: `Executing ramlat on cpu0 (Cortex-A55), results in ns:`, its
/// `size:` header and rows.
pub fn ramlat(lines: &[String]) -> Vec<LogRamlat> {
    let mut out: Vec<LogRamlat> = Vec::new();
    let mut open = false;
    for l in lines {
        if let Some(rest) = l.strip_prefix("Executing ramlat on ") {
            let who = rest.split(", results").next().unwrap_or(rest);
            let (cpu, core_type) = cpu_and_type(who);
            out.push(LogRamlat {
                cpu,
                core_type,
                ..LogRamlat::default()
            });
            open = true;
            continue;
        }
        let t = l.trim();
        if !open || t.is_empty() {
            continue;
        }
        let Some(table) = out.last_mut() else {
            continue;
        };
        if let Some(cols) = t.strip_prefix("size:") {
            table.columns = cols.split_whitespace().map(str::to_string).collect();
            continue;
        }
        let row = t.split_once(':').and_then(|(size, rest)| {
            let ns: Option<Vec<f64>> = rest.split_whitespace().map(|x| x.parse().ok()).collect();
            Some(LogRamlatRow {
                size_bytes: ramlat_size(size)?,
                ns: ns.filter(|n| !n.is_empty())?,
            })
        });
        match row {
            Some(r) => table.rows.push(r),
            None => open = false,
        }
    }
    out.retain(|t| !t.rows.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::sbclog::normalise;

    #[test]
    fn bandwidth_rows_of_every_layout() {
        let r = bandwidth_row(
            " C copy backwards                                 :   2978.1 MB/s (3, 7.5%)",
        )
        .unwrap();
        assert_eq!((r.name.as_str(), r.mb_per_s), ("C copy backwards", 2978.1));
        assert_eq!((r.repeats, r.stddev_pct), (Some(3), Some(7.5)));
        let old = bandwidth_row(
            " NEON read                                            :   1320.3 MB/s (1.8%)",
        )
        .unwrap();
        assert_eq!((old.repeats, old.stddev_pct), (None, Some(1.8)));
        let bare =
            bandwidth_row(" standard memcpy                                      :    616.7 MB/s")
                .unwrap();
        assert_eq!(bare.name, "standard memcpy");
        assert_eq!(bandwidth_row("memcpy: 6730.4 MB/s"), None);
        assert_eq!(
            bandwidth_row("  * cpu0 (Cortex-A55): memcpy: 6730.4 MB/s"),
            None
        );
    }

    #[test]
    fn ours_print_one_core_under_two_headings() {
        let text = "Executing benchmark on cpu0 (Cortex-A55):\n\nlibc: glibc (fake)\n\n libc memcpy copy                                 :  10743.6 MB/s (2)\n\n####\n\n\
Executing benchmark on cpu0 (Cortex-A55):\n\nblock size : single random read / dual random read, [MADV_HUGEPAGE]\n      4096 :    1.5 ns          /     2.0 ns \n  67108864 :   99.0 ns          /   132.0 ns \n\n\
Executing benchmark on each cluster individually\n\n\
Executing ramlat on cpu0 (Cortex-A55), results in ns:\n\n       size:  1x32  2x32\n         4k: 1.700 1.870 \n    131072k: 110.0 121.0 \n\nHuge pages: unknown\n";
        let l = normalise(text);
        let t = tinymembench(&l);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].cpu, Some(0));
        assert_eq!(t[0].bandwidth[0].mb_per_s, 10743.6);
        assert_eq!(t[0].latency[0].note.as_deref(), Some("[MADV_HUGEPAGE]"));
        assert_eq!(t[0].latency[0].rows[1].block_bytes, 67108864);
        assert_eq!(t[0].latency[0].rows[1].dual_ns, Some(132.0));
        let r = ramlat(&l);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].columns, ["1x32", "2x32"]);
        assert_eq!(r[0].rows[1].size_bytes, 128 << 20);
        assert_eq!(r[0].rows[1].ns, [110.0, 121.0]);
    }

    #[test]
    fn an_old_log_without_headings_is_one_run() {
        let text = "tinymembench v0.4.9\n\n standard memcpy                                      :    616.7 MB/s\n\nblock size : single random read / dual random read\n      1024 :    0.0 ns          /     0.0 ns \n";
        let t = tinymembench(&normalise(text));
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].cpu, None);
        assert_eq!(t[0].latency[0].rows.len(), 1);
    }
}
