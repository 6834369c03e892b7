//! Reading a result log of the bash sbc-bench (every version from v0.4 to v0.9.72) back
//! into our model: the header, the benchmark figures behind each Results.md column, and
//! the row the log states itself.
//!
//! The figures are recomputed from the benchmark output in the log, by the rule of the
//! sbc-bench version that wrote it (the rules changed; each change is dated below), so a
//! log without a row still yields what it holds, and a log with one can be checked
//! against it. Pasted logs are tolerated: CRLF line ends, ANSI colours, and a prefix put
//! before every line (a quote marker, a timestamp) are removed first.

use serde::{Deserialize, Serialize};

use crate::record::results_row::{ResultsRow, cpuminer_score};

/// What one log yields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ParsedLog {
    /// `0.9.72`, from the first line (`None`: the first line is not sbc-bench's).
    pub version: Option<String>,
    /// The mode the header names after the device (`extensive`), if any.
    pub mode: Option<String>,
    /// The date of the header as printed (`Mon, 10 Nov 2025 23:46:00 +0800`).
    pub date: Option<String>,
    /// The full kernel release (`6.6.10-cix-build-generic`).
    pub kernel_release: Option<String>,
    /// The log's `SoC guess:` (v0.9.1 on): `Rockchip RK3588/RK3588s (35881000)`.
    pub soc_guess: Option<String>,
    /// The log's `DT compat:` strings, most specific first (v0.9.x): what the SoC guess
    /// is checked against ([`crate::results::reguess`]).
    pub dt_compat: Vec<String>,
    /// The core types the log names, in order, once each: from `Checking cpufreq OPP for
    /// cpu0-cpu3 (Cortex-A55):` / `Executing benchmark on cpu0 (Cortex-A55):` lines, or
    /// in older logs lscpu's `Model name:` lines.
    pub core_types: Vec<String>,
    /// The Results.md figures recomputed from the log's benchmark output. `clock` and
    /// `distro_arch` are only known from the log's own row (sbc-bench read them from
    /// sysfs and hostnamectl, which the log does not hold in every version).
    pub results_row: ResultsRow,
    /// AES-128-CBC at 16 bytes: what the sixth column held before 2022-10-23.
    pub aes128_16b: Option<f64>,
    /// Does this log's row put AES-128 at 16 bytes where later rows put 7-Zip single?
    pub row_has_aes128: bool,
    /// The Results.md row as the log prints it, split into cells.
    pub stated_row: Option<Vec<String>>,
    /// What could not be read, one sentence each.
    pub unread: Vec<String>,
}

/// An sbc-bench version, comparable (`0.9.4` < `0.9.16`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Version(u32, u32, u32);

impl Version {
    fn parse(s: &str) -> Option<Self> {
        let mut it = s.trim_start_matches('v').split('.');
        let a = it.next()?.parse().ok()?;
        let b = it.next().map_or(Some(0), |x| x.parse().ok())?;
        let c = it.next().map_or(Some(0), |x| x.parse().ok())?;
        Some(Self(a, b, c))
    }
}

/// Clean a pasted log: CRLF, ANSI escape sequences, and a prefix every line shares with
/// the header line (`> `, `2025-11-10 12:00:01 `) are removed.
pub fn normalise(text: &str) -> Vec<String> {
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| strip_ansi(l.trim_end_matches('\r')))
        .collect();
    let prefix = lines
        .iter()
        .find_map(|l| l.find("sbc-bench v").map(|i| l[..i].to_string()))
        .filter(|p| !p.is_empty() && p.trim().len() < 40);
    match prefix {
        Some(p) => lines
            .into_iter()
            .map(|l| match l.strip_prefix(&p) {
                Some(rest) => rest.to_string(),
                // A prefix of spaces or a quote marker may lose its trailing blank on an
                // empty line.
                None if p.trim_end().len() < p.len() && l == p.trim_end() => String::new(),
                None => l,
            })
            .collect(),
        None => lines,
    }
}

fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            // CSI: parameters up to the final letter.
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Parse one sbc-bench log.
pub fn parse(text: &str) -> ParsedLog {
    let lines = normalise(text);
    let mut out = ParsedLog::default();
    let header = lines.iter().find(|l| l.starts_with("sbc-bench v"));
    let version = header.and_then(|h| {
        let v = h.split_whitespace().nth(1)?;
        out.version = Some(v.trim_start_matches('v').to_string());
        Version::parse(v)
    });
    match header {
        Some(h) => header_fields(h, &mut out),
        None => out
            .unread
            .push("no sbc-bench header line (`sbc-bench vX ...`)".to_string()),
    }
    // Unknown version, or one of ours (the bash sbc-bench began at v0.4; our logs, whose
    // layout follows its newest one, are v0.1–v0.3 so far): the newest rules.
    let v = version
        .filter(|v| *v >= Version(0, 4, 0))
        .unwrap_or(Version(99, 0, 0));

    out.kernel_release = kernel_release(&lines);
    out.core_types = core_types(&lines);
    let stated_guess = lines.iter().find_map(|l| {
        let g = l.strip_prefix("SoC guess: ")?.trim();
        (!g.is_empty()).then(|| g.to_string())
    });
    out.dt_compat = crate::results::reguess::dt_compat(&lines);
    out.soc_guess = crate::results::reguess::soc_guess(
        stated_guess.as_deref(),
        &out.dt_compat,
        &out.core_types,
    );
    if let Some(k) = &out.kernel_release {
        out.results_row.kernel.clone_from(k);
    }
    memory(&lines, v, &mut out);
    sevenzip(&lines, v, &mut out);
    openssl(&lines, v, &mut out);
    out.results_row.scrypt_khs = cpuminer(&lines);
    out.stated_row = stated_row(&lines);
    out.row_has_aes128 = v < Version(0, 9, 9)
        || (v == Version(0, 9, 9) && out.date.as_deref().is_some_and(before_2022_10_23));
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
    out
}

/// `sbc-bench v0.9.72 Radxa ROCK 5B extensive (Mon, 10 Nov 2025 23:46:00 +0800)`, or
/// v0.4's `sbc-bench v0.4 -- Sun, 29 Jul 2018 12:00:00 +0200`.
fn header_fields(h: &str, out: &mut ParsedLog) {
    let rest = h.split_once(' ').map_or("", |x| x.1);
    let rest = rest.split_once(' ').map_or("", |x| x.1);
    if let Some(date) = rest.strip_prefix("-- ") {
        out.date = Some(date.trim().to_string());
        return;
    }
    // The date is the last parenthesised part that starts with a weekday.
    let open = rest
        .match_indices(" (")
        .map(|(i, _)| i)
        .filter(|&i| {
            rest[i + 2..]
                .chars()
                .take(3)
                .all(|c| c.is_ascii_alphabetic())
        })
        .last();
    let (device, date) = match open {
        Some(i) => (
            &rest[..i],
            Some(rest[i + 2..].trim_end_matches(')').to_string()),
        ),
        None => (rest, None),
    };
    out.date = date;
    let mut device = device.trim().to_string();
    // sbc-bench puts its MODE after the device; our logs add `quick` after that.
    let mut modes = Vec::new();
    while let Some(mode) = [
        "quick",
        "extensive",
        "unattended",
        "review",
        "graph",
        "pts",
        "gb",
    ]
    .into_iter()
    .find(|m| device.strip_suffix(m).is_some_and(|d| d.ends_with(' ')))
    {
        device.truncate(device.len() - mode.len());
        device.truncate(device.trim_end().len());
        modes.insert(0, mode);
    }
    out.results_row.quick = modes.contains(&"quick");
    if !modes.is_empty() {
        out.mode = Some(modes.join(" "));
    }
    out.results_row.device = device;
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

fn core_types(lines: &[String]) -> Vec<String> {
    fn add(out: &mut Vec<String>, t: &str) {
        let t = t.trim();
        if !t.is_empty() && !out.iter().any(|x| x == t) {
            out.push(t.to_string());
        }
    }
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        let named = l.starts_with("Checking cpufreq OPP for cpu")
            || (l.starts_with("Executing benchmark on cpu") && l.ends_with("):"));
        if let Some(inner) = named
            .then(|| l.strip_suffix("):"))
            .flatten()
            .and_then(|x| x.rsplit_once(" (").map(|(_, t)| t))
        {
            add(&mut out, inner);
        }
    }
    if out.is_empty() {
        for l in lines {
            if let Some(m) = l.strip_prefix("Model name:") {
                add(&mut out, m);
            }
        }
    }
    out
}

/// iostat's `Linux 6.6.10-cix (host) ...` line, or the environment's `Kernel: R/arch`.
fn kernel_release(lines: &[String]) -> Option<String> {
    lines.iter().find_map(|l| {
        if let Some(r) = l.strip_prefix("Linux ") {
            let (rel, rest) = r.split_once(' ')?;
            return (rest.starts_with('(') && rel.starts_with(|c: char| c.is_ascii_digit()))
                .then(|| rel.to_string());
        }
        let r = l.trim_start().strip_prefix("Kernel: ")?;
        let (rel, _) = r.split_once('/')?;
        rel.starts_with(|c: char| c.is_ascii_digit())
            .then(|| rel.to_string())
    })
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
fn memory(lines: &[String], v: Version, out: &mut ParsedLog) {
    let pick = |name: &str| -> Option<f64> {
        let (prefix, col) = if v >= Version(0, 9, 16) {
            (format!(" libc {name} "), 4)
        } else {
            (format!(" standard {name}"), 3)
        };
        let vals: Vec<f64> = lines
            .iter()
            .filter(|l| l.starts_with(&prefix))
            .filter_map(|l| field(l, col))
            .collect();
        if v >= Version(0, 9, 4) {
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
fn sevenzip(lines: &[String], v: Version, out: &mut ParsedLog) {
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
        let n = if v >= Version(0, 9, 7) {
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
fn openssl(lines: &[String], v: Version, out: &mut ParsedLog) {
    let each = lines
        .iter()
        .any(|l| l.starts_with("Executing benchmark on each cluster individually"));
    let score = |name: &str, col: usize| -> Option<f64> {
        let vals: Vec<f64> = lines
            .iter()
            .filter(|l| l.starts_with(name) && !l.contains("(fully parallel)"))
            .filter_map(|l| field(l, col).map(f64::trunc))
            .collect();
        if vals.is_empty() {
            None
        } else if each && v >= Version(0, 9, 4) {
            vals.into_iter().reduce(f64::max)
        } else {
            Some((vals.iter().sum::<f64>() / 2.0).trunc())
        }
    };
    out.results_row.aes256_16k = score("aes-256-cbc", 6);
    out.aes128_16b = score("aes-128-cbc", 1);
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

/// Guess the SoC again for a log read before its `DT compat:` lines were kept (a record
/// stored by an earlier version), from the stored log itself (the caller leaves run JSONs
/// out; [`crate::results::reguess`]). A log without those lines is left as it is.
pub fn refresh_soc_guess(log: &mut ParsedLog, document: &str) {
    if !log.dt_compat.is_empty() {
        return;
    }
    let compat = crate::results::reguess::dt_compat(&normalise(document));
    if compat.is_empty() {
        return;
    }
    log.soc_guess =
        crate::results::reguess::soc_guess(log.soc_guess.as_deref(), &compat, &log.core_types);
    log.dt_compat = compat;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_numerically() {
        assert!(Version::parse("0.9.4").unwrap() < Version::parse("0.9.16").unwrap());
        assert!(Version::parse("v0.4").unwrap() < Version::parse("0.4.3").unwrap());
        assert_eq!(Version::parse("x"), None);
    }

    #[test]
    fn crlf_ansi_and_a_quote_prefix_are_removed() {
        let text = "> sbc-bench v0.9.72 Radxa ROCK 5B (Mon, 10 Nov 2025 23:46:00 +0800)\r\n>\r\n> \x1b[1m libc memcpy copy          :  17507.8 MB/s (3, 1.8%)\x1b[0m\r\n";
        let lines = normalise(text);
        assert_eq!(
            lines[0],
            "sbc-bench v0.9.72 Radxa ROCK 5B (Mon, 10 Nov 2025 23:46:00 +0800)"
        );
        assert_eq!(lines[1], "");
        assert!(lines[2].starts_with(" libc memcpy copy"), "{:?}", lines[2]);
        let p = parse(text);
        assert_eq!(p.results_row.device, "Radxa ROCK 5B");
        assert_eq!(p.results_row.memcpy_mb_s, Some(17507.8));
    }

    #[test]
    fn header_gives_device_mode_and_date() {
        let p =
            parse("sbc-bench v0.9.8 Radxa ROCK 5B extensive (Mon, 11 Jul 2022 10:00:00 +0200)\n");
        assert_eq!(p.version.as_deref(), Some("0.9.8"));
        assert_eq!(p.results_row.device, "Radxa ROCK 5B");
        assert_eq!(p.mode.as_deref(), Some("extensive"));
        assert_eq!(p.date.as_deref(), Some("Mon, 11 Jul 2022 10:00:00 +0200"));
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

    #[test]
    fn a_truncated_log_says_what_it_lacks() {
        let p = parse("sbc-bench v0.9.72 Some Board (Mon, 10 Nov 2025 23:46:00 +0800)\n\nDistri");
        assert!(
            p.unread.iter().any(|u| u.contains("7-Zip")),
            "{:?}",
            p.unread
        );
        assert_eq!(p.stated_row, None);
        let none = parse("garbage\n\u{0}\u{1}");
        assert!(none.unread[0].contains("no sbc-bench header"));
    }

    #[test]
    fn our_own_log_reads_by_the_newest_rules_and_reproduces_its_row() {
        let snap = include_str!("../../tests/it/snapshots/it__run__run_log_rock-5b.snap");
        let log = snap.splitn(3, "---\n").nth(2).unwrap();
        let log = log.replace("sbc-bench vX.Y.Z", "sbc-bench v0.1.0");
        let p = parse(&log);
        let r = &p.results_row;
        assert_eq!(r.device, "Radxa ROCK 5B");
        assert_eq!(p.mode.as_deref(), Some("unattended"));
        assert!(p.soc_guess.unwrap().starts_with("Rockchip RK3588 / 35 88"));
        assert_eq!(p.core_types, ["Cortex-A55", "Cortex-A76"]);
        assert_eq!(r.sevenzip_multi, Some(31192));
        assert_eq!(
            r.sevenzip_single,
            Some(3899),
            "the native LZMA block is not 7-Zip's"
        );
        assert_eq!(r.aes256_16k, Some(1325370.0));
        assert_eq!(r.memcpy_mb_s, Some(10743.6));
        assert!(!p.row_has_aes128);
        let row = p.stated_row.unwrap();
        assert_eq!(row[4], "31190");
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
