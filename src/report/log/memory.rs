//! Memory benchmark text in the layouts users know: the bandwidth lines of tinymembench
//! 0.4.9-nuumio that current sbc-bench builds
//! (` libc memcpy copy                                 :  17507.8 MB/s (3, 1.8%)`) and
//! latency table, ramlat's table as sbc-bench logs it (indented by four spaces), and the
//! review summary lines (`memcpy: 3066.5 MB/s, memchr: 2979.7 MB/s, memset: 6243.8 MB/s`,
//! `16M latency: 163.8 164.6 …`).

use crate::bench::kernels::buffer::Advice;
use crate::bench::membw::{Kind, MembwResult, MembwRun};
use crate::bench::memlat::{LatencyTable, MemlatResult, MemlatRun, RamlatTable};
use crate::bench::pin::Skipped;

const MIB: u64 = 1024 * 1024;

/// `Executing benchmark on cpu0 (Cortex-A55):` with sbc-bench's surrounding blank lines.
fn executing(label: &str) -> String {
    format!("\nExecuting benchmark on {label}:\n\n")
}

/// One bandwidth line as tinymembench 0.4.9-nuumio prints it: the number of repetitions in
/// brackets, and the sample standard deviation from 0.1 % on (`(3, 1.8%)`).
pub fn bw_line(name: &str, mb_per_s: f64, stddev_pct: f64, repeats: usize) -> String {
    let mut s = format!(" {name:<48} : {mb_per_s:>8.1} MB/s ({repeats}");
    if stddev_pct >= 0.1 {
        s.push_str(&format!(", {stddev_pct:.1}%"));
    }
    s.push(')');
    s
}

/// A summary line with sbc-bench's CPU tag when `tagged` (machines with several clusters):
/// `cpu0 (Cortex-A720): memcpy: …` (`sep` = `": "`), `cpu0 (Cortex-A720) 16M latency: …`
/// (`sep` = `" "`); untagged just the text.
pub fn tagged_summary(label: &str, tagged: bool, sep: &str, text: &str) -> String {
    if tagged {
        format!("{label}{sep}{text}")
    } else {
        text.to_string()
    }
}

/// sbc-bench's summary block after the tables: a blank line, `heading`, then `  * line`
/// per line; nothing when there are no lines.
pub fn summary_block(heading: &str, lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut s = format!("\n{heading}\n");
    for l in lines {
        s.push_str(&format!("  * {l}\n"));
    }
    s
}

/// The bandwidth block of one core (without the `Executing …` heading).
pub fn render_membw_result(r: &MembwResult) -> String {
    let mut s = format!(
        "libc: {}, buffers: 2 x {} MiB, best of {} runs, 1 MB = 1000000 bytes\n",
        r.libc,
        r.rows_buffer_bytes as u64 / MIB,
        r.rows
            .iter()
            .map(|x| x.samples_mb_per_s.len())
            .max()
            .unwrap_or(0)
    );
    if let Some(n) = &r.buffers.note {
        s.push_str(&format!("Note: {n}\n"));
    }
    s.push('\n');
    let mut in_libc = true;
    for row in &r.rows {
        if in_libc && row.implementation != "libc" {
            s.push_str(" ---\n");
            in_libc = false;
        }
        s.push_str(&bw_line(
            &row.name,
            row.mb_per_s,
            row.stddev_pct,
            row.samples_mb_per_s.len(),
        ));
        s.push('\n');
    }
    if !r.dram_rows.is_empty() {
        s.push_str(&dram_heading(r));
        for row in &r.dram_rows {
            s.push_str(&bw_line(
                &row.name,
                row.mb_per_s,
                row.stddev_pct,
                row.samples_mb_per_s.len(),
            ));
            s.push('\n');
        }
    }
    if r.cancelled {
        s.push_str("(cancelled)\n");
    }
    s
}

/// The heading of the DRAM rows: `\nBeyond the 300 MiB last-level cache (2 x 512 MiB
/// buffers), the DRAM bandwidth:\n\n`.
fn dram_heading(r: &MembwResult) -> String {
    let cache = r
        .buffers
        .llc_bytes
        .map(|c| format!(" {} MiB", (c / MIB).max(1)))
        .unwrap_or_default();
    format!(
        "\nBeyond the{cache} last-level cache (2 x {} MiB buffers), the DRAM bandwidth:\n\n",
        r.buffers.bytes as u64 / MIB
    )
}

/// The console's DRAM line of one core when it was measured apart: `DRAM (2 x 512 MiB, beyond
/// the last-level cache): memcpy 8781.0 MB/s, memset 8177.0 MB/s`.
pub fn dram_summary(r: &MembwResult) -> Option<String> {
    use crate::bench::membw::{ROW_DRAM_MEMCPY, ROW_DRAM_MEMSET};
    let parts: Vec<String> = [("memcpy", ROW_DRAM_MEMCPY), ("memset", ROW_DRAM_MEMSET)]
        .iter()
        .filter_map(|(n, row)| {
            r.dram_row(row)
                .map(|x| format!("{n} {:.1} MB/s", x.mb_per_s))
        })
        .collect();
    (!parts.is_empty()).then(|| {
        format!(
            "DRAM (2 x {} MiB, beyond the last-level cache): {}",
            r.buffers.bytes as u64 / MIB,
            parts.join(", ")
        )
    })
}

/// `bench membw` text for all targets.
pub fn render_membw(runs: &[MembwRun], skipped: &[Skipped]) -> String {
    let mut s = skipped_lines(skipped);
    for r in runs {
        s.push_str(&executing(&r.target.label()));
        match (&r.result, &r.error) {
            (Some(res), _) => s.push_str(&render_membw_result(res)),
            (None, e) => s.push_str(&format!(
                "Not measured: {}\n",
                e.as_deref().unwrap_or("unknown error")
            )),
        }
    }
    s
}

/// The review summary of one core: `memcpy: 3066.5 MB/s, memchr: 2979.7 MB/s, memset:
/// 6243.8 MB/s`; our best copy and fill kernels follow when they beat the libc.
pub fn membw_summary(r: &MembwResult) -> String {
    let mut parts = Vec::new();
    for (name, v) in [
        ("memcpy", r.memcpy_mb_per_s()),
        ("memchr", r.memchr_mb_per_s()),
        ("memset", r.memset_mb_per_s()),
    ] {
        if let Some(v) = v {
            parts.push(format!("{name}: {v:.1} MB/s"));
        }
    }
    let best = |kind: Kind| {
        r.rows
            .iter()
            .filter(|x| x.kind == kind && x.implementation != "libc")
            .max_by(|a, b| a.mb_per_s.total_cmp(&b.mb_per_s))
    };
    for (kind, libc) in [
        (Kind::Copy, r.memcpy_mb_per_s()),
        (Kind::Fill, r.memset_mb_per_s()),
    ] {
        if let Some(b) = best(kind) {
            if libc.is_none_or(|l| b.mb_per_s > l * 1.05) {
                parts.push(format!("{}: {:.1} MB/s", b.name, b.mb_per_s));
            }
        }
    }
    parts.join(", ")
}

/// tinymembench's table heading with its page-size suffix.
fn latency_heading(t: &LatencyTable) -> String {
    let suffix = match (t.advice, t.advised) {
        (Advice::HugePage, true) => ", [MADV_HUGEPAGE]",
        (Advice::NoHugePage, true) => ", [MADV_NOHUGEPAGE]",
        _ => "",
    };
    format!("block size : single random read / dual random read{suffix}\n")
}

/// tinymembench's latency table.
pub fn render_latency_table(t: &LatencyTable) -> String {
    let mut s = latency_heading(t);
    for r in &t.rows {
        s.push_str(&format!(
            "{:>10} : {:>6.1} ns          /  {:>6.1} ns \n",
            r.block_bytes, r.single_ns, r.dual_ns
        ));
    }
    s
}

/// A latency value as ramlat prints it: four significant digits in five columns.
pub fn ramlat_value(ns: f64) -> String {
    if ns < 10.0 {
        format!("{ns:1.3}")
    } else if ns < 100.0 {
        format!("{ns:2.2}")
    } else if ns < 1000.0 {
        format!("{ns:3.1}")
    } else {
        format!("{ns:4.0}")
    }
}

/// ramlat's table, each line indented by four spaces as sbc-bench logs it.
pub fn render_ramlat_table(t: &RamlatTable) -> String {
    let mut s = String::from("    ");
    s.push_str("   size:");
    for c in &t.columns {
        s.push_str(&format!("{c:>6}"));
    }
    s.push('\n');
    for r in &t.rows {
        s.push_str(&format!("    {:>6}k: ", r.size_bytes / 1024));
        for v in &r.ns {
            s.push_str(&ramlat_value(*v));
            s.push(' ');
        }
        s.push('\n');
    }
    s
}

/// The review summary line of a ramlat row: `16M latency: 163.8 164.6 … 398.6 `.
pub fn latency_summary(t: &RamlatTable, size_bytes: u64) -> Option<String> {
    let row = t.row(size_bytes)?;
    let mut s = format!("{}M latency: ", size_bytes / MIB);
    for v in &row.ns {
        s.push_str(&ramlat_value(*v));
        s.push(' ');
    }
    Some(s)
}

fn huge_page_line(r: &MemlatResult, backed: Option<u64>) -> String {
    let mode = r.plan.thp_mode.as_deref().unwrap_or("not available");
    match backed {
        Some(b) => format!(
            "Huge pages: {} of {} MiB backed by transparent huge pages (THP mode: {mode})\n",
            b / MIB,
            r.plan.bytes as u64 / MIB
        ),
        None => format!("Huge pages: unknown (THP mode: {mode})\n"),
    }
}

/// The latency blocks of one core (without headings).
pub fn render_memlat_result(label: &str, r: &MemlatResult) -> String {
    let mut s = String::new();
    if let Some(n) = &r.plan.note {
        s.push_str(&format!("Note: {n}\n\n"));
    }
    for (i, t) in r.tinymembench.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(&render_latency_table(t));
    }
    if let Some(t) = &r.ramlat {
        s.push_str(&format!(
            "\nExecuting ramlat on {label}, results in ns:\n\n"
        ));
        s.push_str(&render_ramlat_table(t));
        s.push('\n');
        s.push_str(&huge_page_line(r, t.huge_page_bytes));
    }
    if r.cancelled {
        s.push_str("(cancelled)\n");
    }
    s
}

/// `bench memlat` text for all targets (and the run log's section: no notes on quick runs,
/// the log keeps sbc-bench's layout).
pub fn render_memlat(runs: &[MemlatRun], skipped: &[Skipped]) -> String {
    render_memlat_with(runs, skipped, false)
}

/// [`render_memlat`] for `bench memlat`: with `quick`, a core whose latency drops as the
/// blocks grow gets a note saying why, instead of numbers that look like a finding.
pub fn render_memlat_with(runs: &[MemlatRun], skipped: &[Skipped], quick: bool) -> String {
    let mut s = skipped_lines(skipped);
    for r in runs {
        let label = r.target.label();
        s.push_str(&executing(&label));
        match (&r.result, &r.error) {
            (Some(res), _) => {
                s.push_str(&render_memlat_result(&label, res));
                if let Some(n) = quick.then(|| backwards_note(res)).flatten() {
                    s.push_str(&format!("\nNote: {n}\n"));
                }
            }
            (None, e) => s.push_str(&format!(
                "Not measured: {}\n",
                e.as_deref().unwrap_or("unknown error")
            )),
        }
    }
    s
}

/// Latency must not fall by more than this share from one block size to the next before
/// a quick run is called out (L1 and L2 rows jitter by a few per cent).
const BACKWARDS_SHARE: f64 = 0.2;
/// … and by more than this many ns (sub-ns rows jitter by more than 20 %).
const BACKWARDS_NS: f64 = 1.0;

/// Latency rises with the block size on every machine; a `--quick` run measures each
/// size so briefly that it can drop instead (a 2 MiB row at 13 ns under a 1 MiB row at
/// 46 ns on this VM). The first such drop, in a sentence; `None` when the values rise.
pub fn backwards_note(r: &MemlatResult) -> Option<String> {
    let tiny = r
        .tinymembench
        .iter()
        .flat_map(|t| t.rows.windows(2))
        .map(|w| {
            (
                w[0].block_bytes,
                w[0].single_ns,
                w[1].block_bytes,
                w[1].single_ns,
            )
        });
    let ramlat = r
        .ramlat
        .iter()
        .flat_map(|t| t.rows.windows(2))
        .filter_map(|w| {
            Some((
                w[0].size_bytes,
                *w[0].ns.first()?,
                w[1].size_bytes,
                *w[1].ns.first()?,
            ))
        });
    let (small, small_ns, big, big_ns) = tiny
        .chain(ramlat)
        .find(|&(_, a, _, b)| a - b > BACKWARDS_NS && b < a * (1.0 - BACKWARDS_SHARE))?;
    Some(format!(
        "latency drops from {small_ns:.1} ns at {} to {big_ns:.1} ns at {}: --quick runs are \
         too short for latency to rise with the block size; run without --quick for values \
         to compare",
        size_words(small),
        size_words(big)
    ))
}

/// `512 KiB`, `2 MiB`.
fn size_words(bytes: u64) -> String {
    if bytes >= MIB && bytes % MIB == 0 {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{} KiB", bytes / 1024)
    }
}

fn skipped_lines(skipped: &[Skipped]) -> String {
    skipped
        .iter()
        .map(|k| format!("Skipping cpu{}: {}\n", k.cpu, k.reason))
        .collect()
}

/// `bench membw`'s text: the tables, then the summary lines, tagged with the CPU
/// (`tagged`) only on machines with several clusters or CPUs chosen by `--cpus`, as
/// sbc-bench tags them.
pub fn membw_report(runs: &[MembwRun], skipped: &[Skipped], tagged: bool) -> String {
    let out = render_membw(runs, skipped);
    let summaries: Vec<String> = runs
        .iter()
        .filter_map(|x| {
            x.result
                .as_ref()
                .map(|m| tagged_summary(&x.target.label(), tagged, ": ", &membw_summary(m)))
        })
        .collect();
    out + &summary_block("Memory performance:", &summaries)
}

/// `bench memlat`'s text: the tables, then sbc-bench's summary — every CPU's 16M line,
/// then every CPU's 128M line, tagged as in [`membw_report`] (`  * cpu0 (Cortex-A720)
/// 16M latency: …`).
pub fn memlat_report(runs: &[MemlatRun], skipped: &[Skipped], quick: bool, tagged: bool) -> String {
    let out = render_memlat_with(runs, skipped, quick);
    let mut summary = Vec::new();
    for size in [16u64 << 20, 128 << 20] {
        for x in runs {
            let table = x.result.as_ref().and_then(|m| m.ramlat.as_ref());
            if let Some(line) = table.and_then(|t| latency_summary(t, size)) {
                let label = x.target.label();
                summary.push(tagged_summary(&label, tagged, " ", &line));
            }
        }
    }
    out + &summary_block(
        "Memory latency (ramlat as sbc-bench runs it: the kernel's THP policy, ns):",
        &summary,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::membw::{BufferPlan, Row};
    use crate::bench::memlat::{LatencyRow, MemPlan, RAMLAT_COLUMNS, RamlatRow};
    use crate::bench::pin::Target;

    #[test]
    fn bandwidth_lines_match_tinymembench() {
        // From corpus logs 1ET4.txt and uHzXI7.txt (tinymembench v0.4.9-nuumio, as
        // current sbc-bench builds it).
        assert_eq!(
            bw_line("libc memcpy copy", 17507.8, 1.8, 3),
            " libc memcpy copy                                 :  17507.8 MB/s (3, 1.8%)"
        );
        assert_eq!(
            bw_line("libc memchr scan", 26934.2, 0.04, 2),
            " libc memchr scan                                 :  26934.2 MB/s (2)"
        );
        assert_eq!(
            bw_line("libc memset fill", 11231.2, 0.2, 3),
            " libc memset fill                                 :  11231.2 MB/s (3, 0.2%)"
        );
        assert_eq!(
            bw_line(
                "SSE2 nontemporal copy prefetched (32 bytes step)",
                8398.0,
                0.1,
                3
            ),
            " SSE2 nontemporal copy prefetched (32 bytes step) :   8398.0 MB/s (3, 0.1%)"
        );
    }

    #[test]
    fn summaries_are_tagged_only_with_several_clusters() {
        // From corpus log 1ET4.txt.
        assert_eq!(
            tagged_summary("cpu0 (Cortex-A720)", true, ": ", "memcpy: 17507.8 MB/s"),
            "cpu0 (Cortex-A720): memcpy: 17507.8 MB/s"
        );
        assert_eq!(
            tagged_summary("cpu0 (Cortex-A720)", true, " ", "16M latency: 38.16 "),
            "cpu0 (Cortex-A720) 16M latency: 38.16 "
        );
        assert_eq!(
            tagged_summary("cpu0 (Cortex-A53)", false, " ", "16M latency: 147.2 "),
            "16M latency: 147.2 "
        );
    }

    fn row(name: &str, imp: &str, kind: Kind, v: f64, pct: f64) -> Row {
        Row {
            name: name.into(),
            implementation: imp.into(),
            kind,
            mb_per_s: v,
            stddev_pct: pct,
            samples_mb_per_s: vec![v, v * 0.99],
        }
    }

    fn membw() -> MembwResult {
        MembwResult {
            libc: "musl".into(),
            buffers: BufferPlan {
                bytes: 32 * 1024 * 1024,
                wanted_bytes: 32 * 1024 * 1024,
                llc_bytes: None,
                mem_available_bytes: None,
                note: None,
            },
            rows: vec![
                row("libc memcpy copy", "libc", Kind::Copy, 3066.5, 0.4),
                row("libc memchr scan", "libc", Kind::Scan, 2979.7, 0.0),
                row("libc memset fill", "libc", Kind::Fill, 6243.8, 0.0),
                row("NEON LDP/STP copy", "neon", Kind::Copy, 4100.0, 0.2),
                row("NEON STP fill", "neon", Kind::Fill, 6300.0, 0.0),
            ],
            rows_buffer_bytes: 32 * 1024 * 1024,
            dram_rows: Vec::new(),
            duration_s: 12.0,
            cancelled: false,
        }
    }

    #[test]
    fn dram_rows_are_a_separate_block_and_summary_line() {
        let mut r = membw();
        assert!(!render_membw_result(&r).contains("DRAM"));
        assert_eq!(dram_summary(&r), None);
        r.buffers.bytes = 512 * 1024 * 1024;
        r.buffers.llc_bytes = Some(300 * MIB);
        r.dram_rows = vec![
            row("DRAM libc memcpy copy", "libc", Kind::Copy, 8781.0, 0.0),
            row("DRAM libc memset fill", "libc", Kind::Fill, 8177.0, 0.3),
        ];
        let text = render_membw_result(&r);
        assert!(
            text.starts_with("libc: musl, buffers: 2 x 32 MiB,"),
            "{text}"
        );
        assert!(
            text.ends_with(
                "\nBeyond the 300 MiB last-level cache (2 x 512 MiB buffers), the DRAM bandwidth:\n\n \
                 DRAM libc memcpy copy                            :   8781.0 MB/s (2)\n \
                 DRAM libc memset fill                            :   8177.0 MB/s (2, 0.3%)\n"
            ),
            "{text}"
        );
        // sbc-bench's parser (`/^ libc memcpy copy/`) sees only tinymembench's row.
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with(" libc memcpy copy"))
                .count(),
            1
        );
        assert_eq!(
            dram_summary(&r).unwrap(),
            "DRAM (2 x 512 MiB, beyond the last-level cache): memcpy 8781.0 MB/s, memset 8177.0 MB/s"
        );
    }

    #[test]
    fn bandwidth_block_and_summary() {
        let run = MembwRun {
            target: Target {
                cpu: 0,
                core_type: Some("Cortex-A55".into()),
                cluster: Some(0),
            },
            result: Some(membw()),
            error: None,
        };
        let text = render_membw(&[run], &[]);
        assert!(text.starts_with("\nExecuting benchmark on cpu0 (Cortex-A55):\n\nlibc: musl, buffers: 2 x 32 MiB, best of 2 runs"));
        assert!(text.contains(
            " libc memset fill                                 :   6243.8 MB/s (2)\n ---\n NEON LDP/STP copy"
        ));
        // The libc memset is within 5 % of NEON's: only the faster copy kernel is added.
        assert_eq!(
            membw_summary(&membw()),
            "memcpy: 3066.5 MB/s, memchr: 2979.7 MB/s, memset: 6243.8 MB/s, NEON LDP/STP copy: 4100.0 MB/s"
        );
    }

    #[test]
    fn ramlat_values_and_rows_match_the_corpus() {
        assert_eq!(ramlat_value(1.5444), "1.544");
        assert_eq!(ramlat_value(16.934), "16.93");
        assert_eq!(ramlat_value(109.34), "109.3");
        assert_eq!(ramlat_value(1234.4), "1234");
        let t = RamlatTable {
            columns: RAMLAT_COLUMNS.iter().map(|s| s.to_string()).collect(),
            advised: true,
            huge_page_bytes: None,
            cell_ms: 25.0,
            rows: vec![
                RamlatRow {
                    size_bytes: 4096,
                    ns: vec![1.544, 1.540, 1.540, 1.540, 1.539, 1.539, 1.540, 2.843],
                },
                RamlatRow {
                    size_bytes: 128 * 1024 * 1024,
                    ns: vec![52.42, 72.42, 51.15, 72.60, 49.50, 66.37, 95.08, 138.5],
                },
            ],
        };
        // From corpus log 1ET4.txt (ramlat on a Cortex-A720).
        assert_eq!(
            render_ramlat_table(&t),
            "       size:  1x32  2x32  1x64  2x64 1xPTR 2xPTR 4xPTR 8xPTR\n\
\x20        4k: 1.544 1.540 1.540 1.540 1.539 1.539 1.540 2.843 \n\
\x20   131072k: 52.42 72.42 51.15 72.60 49.50 66.37 95.08 138.5 \n"
        );
        assert_eq!(
            latency_summary(&t, 128 * 1024 * 1024).as_deref(),
            Some("128M latency: 52.42 72.42 51.15 72.60 49.50 66.37 95.08 138.5 ")
        );
        assert_eq!(latency_summary(&t, 16 * 1024 * 1024), None);
    }

    #[test]
    fn latency_table_matches_tinymembench() {
        let t = LatencyTable {
            advice: Advice::HugePage,
            advised: true,
            huge_page_bytes: Some(64 * 1024 * 1024),
            rows: vec![
                LatencyRow {
                    block_bytes: 1024,
                    single_ns: 0.0,
                    dual_ns: 0.0,
                },
                LatencyRow {
                    block_bytes: 67_108_864,
                    single_ns: 153.64,
                    dual_ns: 196.91,
                },
            ],
        };
        // From corpus log 1ET4.txt.
        assert_eq!(
            render_latency_table(&t),
            "block size : single random read / dual random read, [MADV_HUGEPAGE]\n\
\x20     1024 :    0.0 ns          /     0.0 ns \n\
\x20 67108864 :  153.6 ns          /   196.9 ns \n"
        );
        let plain = LatencyTable {
            advice: Advice::Default,
            advised: false,
            ..t
        };
        assert!(
            render_latency_table(&plain)
                .starts_with("block size : single random read / dual random read\n")
        );
    }

    fn latency(rows: &[(u64, f64)]) -> MemlatResult {
        MemlatResult {
            plan: MemPlan {
                bytes: 64 * 1024 * 1024,
                wanted_bytes: 64 * 1024 * 1024,
                mem_available_bytes: None,
                thp_mode: None,
                advice: Advice::Default,
                note: None,
            },
            tinymembench: vec![LatencyTable {
                advice: Advice::Default,
                advised: false,
                huge_page_bytes: None,
                rows: rows
                    .iter()
                    .map(|&(block_bytes, ns)| LatencyRow {
                        block_bytes,
                        single_ns: ns,
                        dual_ns: ns * 1.3,
                    })
                    .collect(),
            }],
            ramlat: None,
            duration_s: 1.0,
            cancelled: false,
        }
    }

    /// `bench memlat --quick` printed 2 MiB at 13 ns under 1 MiB at 46 ns without a word.
    #[test]
    fn memlat_quick_values_that_run_backwards_get_a_note() {
        let backwards = latency(&[(512 << 10, 4.0), (1 << 20, 46.0), (2 << 20, 13.0)]);
        let n = backwards_note(&backwards).unwrap();
        assert!(
            n.starts_with("latency drops from 46.0 ns at 1 MiB to 13.0 ns at 2 MiB"),
            "{n}"
        );
        // Rising values, and jitter of a few per cent or under a ns, are left alone.
        let rising = latency(&[(4096, 1.5), (8192, 1.4), (1 << 20, 46.0), (2 << 20, 44.0)]);
        assert_eq!(backwards_note(&rising), None);
        let run = MemlatRun {
            target: Target {
                cpu: 0,
                core_type: None,
                cluster: None,
            },
            result: Some(backwards),
            error: None,
        };
        let runs = [run];
        assert!(render_memlat_with(&runs, &[], true).contains("\nNote: latency drops"));
        assert!(!render_memlat_with(&runs, &[], false).contains("Note:"));
        assert_eq!(
            render_memlat(&runs, &[]),
            render_memlat_with(&runs, &[], false)
        );
    }

    #[test]
    fn latency_section_with_note_and_huge_pages() {
        let r = MemlatResult {
            plan: MemPlan {
                bytes: 64 * 1024 * 1024,
                wanted_bytes: 128 * 1024 * 1024,
                mem_available_bytes: Some(300 * 1024 * 1024),
                thp_mode: Some("madvise".into()),
                advice: Advice::HugePage,
                note: Some("only 300 MiB memory available".into()),
            },
            tinymembench: vec![],
            ramlat: Some(RamlatTable {
                columns: vec![],
                advised: true,
                huge_page_bytes: Some(62 * 1024 * 1024),
                cell_ms: 25.0,
                rows: vec![],
            }),
            duration_s: 1.0,
            cancelled: false,
        };
        let s = render_memlat_result("cpu0", &r);
        assert!(s.starts_with("Note: only 300 MiB memory available\n\n"));
        assert!(s.contains("\nExecuting ramlat on cpu0, results in ns:\n\n"));
        assert!(s.ends_with(
            "Huge pages: 62 of 64 MiB backed by transparent huge pages (THP mode: madvise)\n"
        ));
    }
}
