//! The benchmarks' own output in a log: `openssl speed` (and our native AES table),
//! 7-Zip's benchmark, cpuminer and Stockfish.

use crate::record::log_record::{
    LogAes, LogAesLayout, LogAesRow, LogCpuminer, LogSevenZip, LogStockfish, LogZipRun,
};

use super::{after, cpu_and_type};

/// openssl's columns when the log shows no `type` line: 16 B … 16 KiB.
const OPENSSL_SIZES: [u64; 6] = [16, 64, 256, 1024, 8192, 16384];

/// `type  16 bytes  64 bytes …`: the buffer sizes.
fn openssl_sizes(line: &str) -> Option<Vec<u64>> {
    let rest = line.strip_prefix("type")?;
    let toks: Vec<&str> = rest.split_whitespace().collect();
    let sizes: Vec<u64> = toks
        .windows(2)
        .filter(|w| w[1] == "bytes")
        .filter_map(|w| w[0].parse().ok())
        .collect();
    (!sizes.is_empty()).then_some(sizes)
}

/// `aes-256-cbc  586960.55k  986284.44k … (Cortex-A76)`.
fn aes_row(line: &str, sizes: &[u64]) -> Option<LogAesRow> {
    let (algorithm, rest) = line.split_once(char::is_whitespace)?;
    if !algorithm.starts_with("aes-") {
        return None;
    }
    let (figures, tag) = match rest.split_once('(') {
        Some((f, t)) => (f, Some(t.trim().trim_end_matches(')').trim().to_string())),
        None => (rest, None),
    };
    let vals: Vec<f64> = figures
        .split_whitespace()
        .map_while(|t| t.strip_suffix('k')?.parse().ok())
        .collect();
    if vals.is_empty() {
        return None;
    }
    Some(LogAesRow {
        algorithm: algorithm.to_string(),
        tag: tag.filter(|t| !t.is_empty()),
        kb_per_s: sizes.iter().copied().zip(vals).collect(),
    })
}

/// The AES section: `openssl speed`'s rows (and, in our logs, the native rows printed
/// under `Native AES (…)` before them), with the heading that says how it ran.
pub fn aes(lines: &[String]) -> Option<LogAes> {
    let mut out = LogAes::default();
    let mut sizes: Vec<u64> = OPENSSL_SIZES.to_vec();
    let mut native = false;
    let mut twice = false;
    let mut each = false;
    for l in lines {
        if l.starts_with("Executing benchmark twice on cluster") {
            twice = true;
            native = false;
        } else if l.starts_with("Executing benchmark on each cluster individually") {
            each = true;
        } else if l.starts_with("Native AES") {
            native = true;
        } else if l.starts_with("####") {
            native = false;
        } else if l.starts_with("OpenSSL ") && (l.contains("built on") || l.contains("version")) {
            native = false;
            out.openssl_version
                .get_or_insert_with(|| l.trim().to_string());
        } else if let Some(s) = openssl_sizes(l) {
            sizes = s;
        } else if let Some(row) = aes_row(l, &sizes) {
            if native {
                out.native.push(row);
            } else {
                out.openssl.push(row);
            }
        }
    }
    if out.openssl.is_empty() && out.native.is_empty() {
        return None;
    }
    // Our log on one cluster prints both headings: `… twice on cluster 0` is the one that
    // says how openssl ran.
    out.layout = if twice {
        LogAesLayout::Twice
    } else if each {
        LogAesLayout::EachCluster
    } else {
        LogAesLayout::Unstated
    };
    Some(out)
}

/// Where a 7-Zip run belongs, by the heading above it.
#[derive(Clone, PartialEq)]
enum ZipContext {
    /// No heading (v0.4 … v0.6): placed by the `Total:` line and its CPU usage.
    Unheaded,
    /// `Executing benchmark single-threaded on cpu4 (Cortex-A76)`.
    Single(Option<u32>, Option<String>),
    /// `Executing benchmark 3 times multi-threaded on CPUs 0-7`.
    Multi(Option<String>),
    /// `… multi-threaded on CPUs 4-7 (Cortex-A76)` (`--extensive`).
    Cluster(Option<String>, Option<String>),
    /// Our native LZMA block, in 7-Zip's layout but not 7-Zip's.
    Native,
}

/// `Avr:  100  1341  1340  |  100  1870  1869`: compression and decompression ratings.
fn avr(line: &str) -> Option<(Option<u64>, Option<u64>)> {
    let rest = line.strip_prefix("Avr:")?;
    let (c, d) = rest.split_once('|')?;
    let last = |s: &str| s.split_whitespace().last().and_then(|t| t.parse().ok());
    Some((last(c), last(d)))
}

/// `Tot:  100  1605  1605`: usage and rating.
fn tot(line: &str) -> Option<(Option<u64>, u64)> {
    let f: Vec<&str> = line.strip_prefix("Tot:")?.split_whitespace().collect();
    let rating = f.get(2)?.parse().ok()?;
    Some((f.first().and_then(|u| u.parse().ok()), rating))
}

/// `Executing benchmark 3 times multi-threaded on CPUs 0-7 (Cortex-A76)`.
fn multi_heading(l: &str) -> Option<(Option<u32>, ZipContext)> {
    let rest = l.strip_prefix("Executing benchmark ")?;
    let (n, rest) = rest.split_once(" times multi-threaded")?;
    let n = n.parse().ok();
    let rest = rest.trim();
    let cpus_part = rest.strip_prefix("on CPUs ").map(str::trim);
    let (cpus, core) = match cpus_part {
        Some(p) => match p.split_once(" (") {
            Some((c, t)) => (
                Some(c.trim().to_string()),
                Some(t.trim_end_matches(')').to_string()),
            ),
            None => (Some(p.to_string()), None),
        },
        None => (None, None),
    };
    Some(match core {
        Some(t) => (n, ZipContext::Cluster(cpus, Some(t))),
        None => (n, ZipContext::Multi(cpus)),
    })
}

/// The 7-Zip section: each run's ratings, placed by its heading.
pub fn sevenzip(lines: &[String]) -> Option<LogSevenZip> {
    let mut out = LogSevenZip::default();
    let mut ctx = ZipContext::Unheaded;
    let mut pending_avr: (Option<u64>, Option<u64>) = (None, None);
    let mut unheaded: Vec<LogZipRun> = Vec::new();
    for l in lines {
        if l.starts_with("Native LZMA benchmark") {
            ctx = ZipContext::Native;
        } else if l.starts_with("####") {
            ctx = ZipContext::Unheaded;
        } else if let Some(rest) = l.strip_prefix("Executing benchmark single-threaded on ") {
            let (cpu, core) = cpu_and_type(rest);
            ctx = ZipContext::Single(cpu, core);
        } else if let Some((n, c)) = multi_heading(l) {
            if matches!(c, ZipContext::Multi(_)) {
                out.announced = n;
            }
            ctx = c;
        } else if l.starts_with("7-Zip (a)") || l.starts_with("7-Zip [") {
            if ctx != ZipContext::Native {
                out.version.get_or_insert_with(|| l.trim().to_string());
            }
        } else if let Some(a) = avr(l) {
            pending_avr = a;
        } else if let Some((usage, total)) = tot(l) {
            let (c, d) = std::mem::take(&mut pending_avr);
            let mut run = LogZipRun {
                compress_mips: c,
                decompress_mips: d,
                total_mips: total,
                usage_pct: usage,
                ..LogZipRun::default()
            };
            match &ctx {
                ZipContext::Native => {}
                ZipContext::Unheaded => unheaded.push(run),
                ZipContext::Single(cpu, core) => {
                    run.cpu = *cpu;
                    run.core_type.clone_from(core);
                    out.single.push(run);
                }
                ZipContext::Multi(cpus) => {
                    run.cpus.clone_from(cpus);
                    out.multi.push(run);
                }
                ZipContext::Cluster(cpus, core) => {
                    run.cpus.clone_from(cpus);
                    run.core_type.clone_from(core);
                    out.cluster.push(run);
                }
            }
        } else if let Some(list) = l.strip_prefix("Total: ") {
            let totals: Option<Vec<u64>> = list.split(',').map(|x| x.trim().parse().ok()).collect();
            if let Some(t) = totals.filter(|t| !t.is_empty())
                && out.totals.is_empty()
            {
                out.totals = t;
            }
        }
    }
    // Runs without a heading: those the `Total:` line lists are the multi-threaded ones;
    // the others ran on one core where 7-Zip's usage says so (100 %).
    let mut listed = out.totals.clone();
    for run in unheaded {
        if let Some(i) = listed.iter().position(|t| *t == run.total_mips) {
            listed.remove(i);
            out.multi.push(run);
        } else if run.usage_pct.is_some_and(|u| u <= 105) {
            out.single.push(run);
        } else {
            out.multi.push(run);
        }
    }
    let empty = out.single.is_empty()
        && out.multi.is_empty()
        && out.cluster.is_empty()
        && out.totals.is_empty();
    (!empty).then_some(out)
}

/// cpuminer: its version, every `Total: N kH/s` line, and the `Total Scores:` line.
pub fn cpuminer(lines: &[String]) -> Option<LogCpuminer> {
    let mut out = LogCpuminer::default();
    for l in lines {
        if let Some(v) = l.strip_prefix("** cpuminer-multi ") {
            out.version.get_or_insert_with(|| {
                format!("cpuminer-multi {}", v.split(' ').next().unwrap_or(""))
            });
        } else if let Some((_, t)) = l.split_once("] Total: ") {
            if let Some(v) = t.split_whitespace().next().and_then(|x| x.parse().ok()) {
                out.totals_khs.push(v);
            }
        } else if let Some(s) = after(l, "Total Scores:") {
            out.total_scores = s.split(',').filter_map(|x| x.trim().parse().ok()).collect();
        }
    }
    (!out.totals_khs.is_empty() || !out.total_scores.is_empty()).then_some(out)
}

/// Stockfish's bench: its `Nodes/second : N` lines.
pub fn stockfish(lines: &[String]) -> Option<LogStockfish> {
    let nodes: Vec<u64> = lines
        .iter()
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "Nodes/second").then(|| v.trim().parse().ok())?
        })
        .collect();
    (!nodes.is_empty()).then_some(LogStockfish { nodes_per_s: nodes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::sbclog::normalise;

    #[test]
    fn our_native_rows_are_not_openssls_and_twice_wins_over_each() {
        let text = "Executing benchmark on each cluster individually\n\n\
Native AES (RustCrypto, armv8-ce: ARMv8 Crypto Extensions)\n\
type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\n\
aes-256-cbc     662685.00k  1060296.00k  1232594.10k  1285608.90k  1312116.30k  672235.00k (Cortex-A55)\n\n\
Executing benchmark twice on cluster 0 (Cortex-A55)\n\n\
OpenSSL 3.0.13, built on 30 Jan 2024\n\
type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\n\
aes-256-cbc     1.00k  2.00k  3.00k  4.00k  5.00k  601750.00k (Cortex-A55)\n\
aes-256-cbc     1.00k  2.00k  3.00k  4.00k  5.00k  601750.00k (Cortex-A55)\n";
        let a = aes(&normalise(text)).unwrap();
        assert_eq!(a.layout, LogAesLayout::Twice);
        assert_eq!(a.native.len(), 1);
        assert_eq!(a.openssl.len(), 2);
        assert_eq!(a.openssl[0].kb_per_s[5], (16384, 601750.0));
        assert_eq!(a.openssl[0].tag.as_deref(), Some("Cortex-A55"));
        assert_eq!(
            a.openssl_version.as_deref(),
            Some("OpenSSL 3.0.13, built on 30 Jan 2024")
        );
    }

    #[test]
    fn an_old_openssl_without_the_16k_column() {
        let text = "OpenSSL 1.0.1t  3 May 2016 (version)\ntype 16 bytes 64 bytes 256 bytes 1024 bytes 8192 bytes\naes-128-cbc  1.00k 2.00k 3.00k 4.00k 5.00k\n";
        let a = aes(&normalise(text)).unwrap();
        assert_eq!(a.openssl[0].kb_per_s.len(), 5);
        assert_eq!(a.openssl[0].kb_per_s[4], (8192, 5.0));
    }

    #[test]
    fn sevenzip_runs_are_placed_by_heading_or_by_the_total_line() {
        let run = |tot: u64, usage: u64| {
            format!(
                "7-Zip (a) [32] 16.02 : Copyright\nAvr:  {usage}  1  2  |  {usage}  3  4\nTot:  {usage}  5  {tot}\n"
            )
        };
        // v0.4: no headings.
        let old = format!(
            "{}####\n{}{}{}Compression: 1,1,1\nTotal: 2075,2066,2063\n",
            run(593, 100),
            run(2075, 346),
            run(2066, 342),
            run(2063, 343)
        );
        let z = sevenzip(&normalise(&old)).unwrap();
        assert_eq!(z.single.len(), 1);
        assert_eq!(z.single[0].total_mips, 593);
        assert_eq!(z.single[0].compress_mips, Some(2));
        assert_eq!(z.single[0].decompress_mips, Some(4));
        assert_eq!(z.multi.len(), 3);
        assert_eq!(z.totals, [2075, 2066, 2063]);
        let new = format!(
            "Executing benchmark single-threaded on cpu4 (Cortex-A76)\n\n{}\n####\n\nExecuting benchmark 3 times multi-threaded on CPUs 0-7\n\n{}{}{}",
            run(2981, 100),
            run(15931, 710),
            run(15930, 710),
            run(15983, 710)
        );
        let z = sevenzip(&normalise(&new)).unwrap();
        assert_eq!(z.single[0].cpu, Some(4));
        assert_eq!(z.single[0].core_type.as_deref(), Some("Cortex-A76"));
        assert_eq!(z.multi.len(), 3);
        assert_eq!(z.multi[0].cpus.as_deref(), Some("0-7"));
        assert_eq!(z.announced, Some(3));
    }

    #[test]
    fn cpuminer_and_stockfish_lines() {
        let text = "** cpuminer-multi 1.3.7 by tpruvot@github **\n[2019-03-14 15:54:24] CPU #1: 1.36 kH/s\n[2019-03-14 15:54:24] Total: 5.45 kH/s\nTotal Scores: 5.49,5.48,5.47\nNodes/second    : 1234567\n";
        let l = normalise(text);
        let c = cpuminer(&l).unwrap();
        assert_eq!(c.version.as_deref(), Some("cpuminer-multi 1.3.7"));
        assert_eq!(c.totals_khs, [5.45]);
        assert_eq!(c.total_scores, [5.49, 5.48, 5.47]);
        assert_eq!(stockfish(&l).unwrap().nodes_per_s, [1234567]);
        assert_eq!(stockfish(&normalise("x\n")), None);
    }
}
