//! The Results.md columns recomputed from a log's benchmark output, by the rules of the
//! sbc-bench version that wrote it (the rules changed; each change is dated below).

use crate::record::log_record::{LogAesLayout, LogRecord};
use crate::record::results_row::cpuminer_score;

/// An sbc-bench version, comparable (`0.9.4` < `0.9.16`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LogVersion(pub u32, pub u32, pub u32);

impl LogVersion {
    /// The newest rules (ours, and a version not stated).
    pub const NEWEST: LogVersion = LogVersion(99, 0, 0);

    /// `v0.9.72`, `0.4` (no third part: 0), `0.1.0-rs` (a suffix after `-` or `+` is
    /// not part of the number).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim_start_matches('v');
        let s = s.split(['-', '+']).next().unwrap_or(s);
        let mut it = s.split('.');
        let a = it.next()?.parse().ok()?;
        let b = it.next().map_or(Some(0), |x| x.parse().ok())?;
        let c = it.next().map_or(Some(0), |x| x.parse().ok())?;
        Some(Self(a, b, c))
    }
}

/// The row's figures by the rules of `v`, the cells the log's own row states, and what
/// is missing.
pub fn results_row(lines: &[String], v: LogVersion, out: &mut LogRecord) {
    if let Some(d) = &out.header.device {
        out.results_row.device.clone_from(d);
    }
    out.results_row.quick = out
        .header
        .mode
        .as_deref()
        .is_some_and(|m| m.split(' ').any(|w| w == "quick"));
    if let Some(k) = &out.host.kernel_release {
        out.results_row.kernel.clone_from(k);
    }
    memory(lines, v, out);
    sevenzip(lines, v, out);
    openssl(v, out);
    out.results_row.scrypt_khs = cpuminer(lines);
    out.stated_row = stated_row(lines);
    out.row_has_aes128 = v < LogVersion(0, 9, 9)
        || (v == LogVersion(0, 9, 9) && out.header.date.as_deref().is_some_and(before_2022_10_23));
    if let Some(cells) = &out.stated_row {
        if let Some(c) = cells.get(1) {
            let c = match c.strip_suffix("(quick)") {
                Some(c) => {
                    out.results_row.quick = true;
                    c.trim_end()
                }
                None => c.as_str(),
            };
            let (clock, throttled) = match c.strip_suffix("(throttled)") {
                Some(c) => (c.trim_end().to_string(), true),
                None => (c.to_string(), false),
            };
            out.results_row.clock = clock;
            out.results_row.throttled = throttled;
        }
        if let Some(d) = cells.get(3) {
            out.results_row.distro_arch.clone_from(d);
        }
    }
    for (what, missing) in [
        (
            "memory bandwidth (tinymembench)",
            out.results_row.memcpy_mb_s.is_none(),
        ),
        ("7-Zip", out.results_row.sevenzip_multi.is_none()),
        ("OpenSSL AES-256", out.results_row.aes256_16k.is_none()),
    ] {
        if missing {
            out.unread.push(format!("no {what} results"));
        }
    }
}

fn before_2022_10_23(date: &str) -> bool {
    // `Mon, 07 Nov 2022 ...`: day, month name, year.
    let mut it = date.split_whitespace().skip(1);
    let (Some(d), Some(m), Some(y)) = (it.next(), it.next(), it.next()) else {
        return false;
    };
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (Ok(d), Some(m), Ok(y)) = (
        d.parse::<u32>(),
        months.iter().position(|x| *x == m),
        y.parse::<u32>(),
    ) else {
        return false;
    };
    (y, m as u32 + 1, d) < (2022, 10, 23)
}

/// The n-th whitespace field of a line as a number (`1458356.22k` → 1458356.22).
fn field(line: &str, n: usize) -> Option<f64> {
    line.split_whitespace()
        .nth(n)?
        .trim_end_matches('k')
        .parse()
        .ok()
}

/// tinymembench: ` libc memcpy copy : 17507.8 MB/s` since v0.9.16, ` standard memcpy :
/// N MB/s` before. sbc-bench took the only value (v0.8.4), the last one (v0.8.5), the
/// highest (v0.9.4 on).
fn memory(lines: &[String], v: LogVersion, out: &mut LogRecord) {
    let pick = |name: &str| -> Option<f64> {
        let (prefix, col) = if v >= LogVersion(0, 9, 16) {
            (format!(" libc {name} "), 4)
        } else {
            (format!(" standard {name}"), 3)
        };
        let vals: Vec<f64> = lines
            .iter()
            .filter(|l| l.starts_with(&prefix))
            .filter_map(|l| field(l, col))
            .collect();
        if v >= LogVersion(0, 9, 4) {
            vals.into_iter().reduce(f64::max)
        } else {
            vals.last().copied()
        }
    };
    out.results_row.memcpy_mb_s = pick("memcpy");
    out.results_row.memset_mb_s = pick("memset");
}

/// 7-Zip: single-threaded is the highest `Tot:` rating among the single-threaded runs;
/// multi-threaded the average of the runs the log's `Total: a,b,c` line lists (divided
/// by the announced number of runs before v0.9.7, by the finished ones after).
fn sevenzip(lines: &[String], v: LogVersion, out: &mut LogRecord) {
    let mut single: Vec<u64> = Vec::new();
    let mut in_single = false;
    let mut native = false;
    for l in lines {
        // Our own logs add a native LZMA block in 7-Zip's layout: not 7-Zip's score.
        if l.starts_with("Native LZMA benchmark") {
            native = true;
        } else if l.starts_with("####") {
            native = false;
        }
        if native {
            in_single = false;
        } else if l.starts_with("Executing benchmark single-threaded on") {
            in_single = true;
        } else if l.starts_with("Executing benchmark") || l.starts_with("####") {
            in_single = false;
        } else if in_single && l.starts_with("Tot:") {
            if let Some(t) = field(l, 3) {
                single.push(t as u64);
            }
        }
    }
    out.results_row.sevenzip_single = single.into_iter().max();
    let announced = lines.iter().find_map(|l| {
        l.strip_prefix("Executing benchmark ")?
            .split_once(" times multi-threaded")?
            .0
            .parse::<u64>()
            .ok()
    });
    let totals: Option<Vec<u64>> = lines.iter().find_map(|l| {
        let list = l.strip_prefix("Total: ")?;
        list.split(',')
            .map(|x| x.trim().parse().ok())
            .collect::<Option<Vec<u64>>>()
            .filter(|v| !v.is_empty())
    });
    out.results_row.sevenzip_multi = totals.map(|t| {
        let n = if v >= LogVersion(0, 9, 7) {
            t.len() as u64
        } else {
            announced.unwrap_or(3)
        };
        t.iter().sum::<u64>() / n.max(1)
    });
}

/// OpenSSL: AES-256-CBC at 16 KiB (and AES-128-CBC at 16 bytes). On one cluster sbc-bench
/// ran `openssl speed` twice and halved the sum; on several, from v0.9.4 on, it took the
/// best cluster (before, it halved the sum of all of them too). Parallel runs of
/// `--extensive` are not part of it. An openssl too old for a 16 KiB column gives none.
/// Our logs: openssl's rows where it ran, else our native ones (as the run's row); on
/// one cluster they print both headings, and `… twice on cluster 0` decides.
fn openssl(v: LogVersion, out: &mut LogRecord) {
    let Some(a) = &out.aes else {
        return;
    };
    let rows = if a.openssl.is_empty() {
        &a.native
    } else {
        &a.openssl
    };
    let layout = a.layout;
    let score = |name: &str, size: u64| -> Option<f64> {
        let vals: Vec<f64> = rows
            .iter()
            .filter(|r| r.algorithm == name && r.tag.as_deref() != Some("fully parallel"))
            .filter_map(|r| r.kb_per_s.iter().find(|(b, _)| *b == size))
            .map(|(_, k)| k.trunc())
            .collect();
        if vals.is_empty() {
            None
        } else if layout == LogAesLayout::EachCluster && v >= LogVersion(0, 9, 4) {
            vals.into_iter().reduce(f64::max)
        } else {
            Some((vals.iter().sum::<f64>() / 2.0).trunc())
        }
    };
    out.results_row.aes256_16k = score("aes-256-cbc", 16384);
    out.aes128_16b = score("aes-128-cbc", 16);
}

/// cpuminer: the log's `Total Scores:` line (deduplicated, highest first) gives the
/// second-highest; without it the `Total: N kH/s` lines are judged by sbc-bench's rule.
fn cpuminer(lines: &[String]) -> Option<f64> {
    if let Some(l) = lines.iter().rev().find(|l| l.starts_with("Total Scores:")) {
        let vals: Vec<&str> = l["Total Scores:".len()..].trim().split(',').collect();
        return vals.get(1).and_then(|x| x.trim().parse().ok());
    }
    let totals: Vec<f64> = lines
        .iter()
        .filter_map(|l| {
            let (_, t) = l.split_once("] Total: ")?;
            t.split_whitespace().next()?.parse().ok()
        })
        .collect();
    if totals.is_empty() {
        None
    } else {
        cpuminer_score(&totals)
    }
}

/// The last Results.md row in the log, split into its cells (sbc-bench's own row is the
/// log's last line; a header row is skipped).
fn stated_row(lines: &[String]) -> Option<Vec<String>> {
    let row = lines.iter().rev().find(|l| {
        l.starts_with("| ") && !l.starts_with("| Device") && l.matches('|').count() >= 6
    })?;
    let inner = row.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    Some(inner.split('|').map(|c| c.trim().to_string()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::sbclog::parse;

    #[test]
    fn versions_compare_numerically() {
        assert!(LogVersion::parse("0.9.4").unwrap() < LogVersion::parse("0.9.16").unwrap());
        assert!(LogVersion::parse("v0.4").unwrap() < LogVersion::parse("0.4.3").unwrap());
        assert_eq!(LogVersion::parse("v0.1.0-rs"), Some(LogVersion(0, 1, 0)));
        assert_eq!(LogVersion::parse("x"), None);
    }

    #[test]
    fn header_gives_device_mode_and_date() {
        let p =
            parse("sbc-bench v0.9.8 Radxa ROCK 5B extensive (Mon, 11 Jul 2022 10:00:00 +0200)\n");
        assert_eq!(p.version.as_deref(), Some("0.9.8"));
        assert_eq!(p.results_row.device, "Radxa ROCK 5B");
        assert_eq!(p.mode.as_deref(), Some("extensive"));
        assert_eq!(p.date.as_deref(), Some("Mon, 11 Jul 2022 10:00:00 +0200"));
        assert_eq!(p.date_utc.as_deref(), Some("2022-07-11T08:00:00Z"));
        assert!(p.row_has_aes128);
        let quick = parse(
            "sbc-bench v0.1.0 Radxa ROCK 5B unattended quick (Mon, 11 Jul 2022 10:00:00 +0200)\n",
        );
        assert_eq!(quick.results_row.device, "Radxa ROCK 5B");
        assert_eq!(quick.mode.as_deref(), Some("unattended quick"));
        assert!(quick.results_row.quick);
        let old = parse("sbc-bench v0.4 -- Sun, 29 Jul 2018 12:00:00 +0200\n");
        assert_eq!(old.date.as_deref(), Some("Sun, 29 Jul 2018 12:00:00 +0200"));
        assert_eq!(old.results_row.device, "");
    }

    /// Issue 31: our log of a single-cluster board prints `Executing benchmark on each
    /// cluster individually` before `… twice on cluster 0`; the row is the mean of the
    /// two openssl runs (601750), not the highest row (672235, our native figure).
    #[test]
    fn our_single_cluster_log_takes_the_mean_of_openssl_run_twice() {
        let text = "sbc-bench v0.1.0-rs FriendlyElec NanoPi R5S (Mon, 10 Nov 2025 23:46:00 +0800)\n\n\
Executing benchmark on each cluster individually\n\n\
Native AES (RustCrypto, armv8-ce: ARMv8 Crypto Extensions)\n\
type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\n\
aes-256-cbc     1.00k  1.00k  1.00k  1.00k  1.00k  672235.00k (Cortex-A55)\n\n\
Executing benchmark twice on cluster 0 (Cortex-A55)\n\n\
OpenSSL 3.0.13, built on 30 Jan 2024\n\
type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\n\
aes-256-cbc     1.00k  1.00k  1.00k  1.00k  1.00k  601700.50k (Cortex-A55)\n\
aes-256-cbc     1.00k  1.00k  1.00k  1.00k  1.00k  601800.50k (Cortex-A55)\n";
        assert_eq!(parse(text).results_row.aes256_16k, Some(601750.0));
    }

    #[test]
    fn openssl_twice_on_one_cluster_is_averaged_and_best_cluster_is_taken() {
        let twice = "sbc-bench v0.9.65 X (Mon, 10 Nov 2025 23:46:00 +0800)\n\
            aes-256-cbc     590484.01k  1049678.02k  1272207.02k  1338341.72k  1365453.48k  1367818.24k\n\
            aes-256-cbc     590456.58k  1051340.16k  1273855.74k  1339012.78k  1365456.21k  1368184.15k\n";
        assert_eq!(parse(twice).results_row.aes256_16k, Some(1368001.0));
        let each = format!(
            "{}Executing benchmark on each cluster individually\n{}",
            twice.lines().next().unwrap().to_string() + "\n",
            twice.lines().skip(1).collect::<Vec<_>>().join("\n")
        );
        assert_eq!(parse(&each).results_row.aes256_16k, Some(1368184.0));
    }
}
