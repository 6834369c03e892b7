//! Text of the AES, compression and scrypt benchmarks in the layout of sbc-bench's logs:
//! `openssl speed`'s table byte-for-byte (header, `%-13s` names, ` %11.2fk` columns, the
//! core-type tag sbc-bench appends), 7-Zip's output as 7-Zip printed it with sbc-bench's
//! `Compression:`/`Decompression:`/`Total:` lines, and the summary lines of its report.

use std::fmt::Write as _;

use crate::bench::Remark;
use crate::bench::aes::suite::{AesResults, AesSuiteRow};
use crate::bench::aes::{Algorithm, Backend};
use crate::bench::external::sevenzip::BenchRun;
use crate::bench::lzma::LzmaRun;
use crate::bench::lzma::suite::{CompressResults, SevenZipResults};
use crate::bench::pin::Target;
use crate::bench::scrypt::{ScryptRun, Stress};
use crate::sys::cpu_list::format_list;
use std::time::Duration;

/// sbc-bench's section separator.
pub const SEPARATOR: &str =
    "##########################################################################";

/// `type             16 bytes     64 bytes …`: OpenSSL's `type` plus eight spaces, then
/// `%7d bytes` per size.
pub fn openssl_header(sizes: &[usize]) -> String {
    let mut s = String::from("type        ");
    for n in sizes {
        let _ = write!(s, "{n:>7} bytes");
    }
    s
}

/// One `openssl speed` row: `%-13s`, then ` %11.2fk` per value in 1000s of bytes per
/// second (` %11.2f ` in bytes per second when at most 10000 B/s, as OpenSSL does), then
/// sbc-bench's ` (tag)`.
pub fn openssl_row(name: &str, bytes_per_s: &[f64], tag: Option<&str>) -> String {
    let mut s = format!("{name:<13}");
    for &v in bytes_per_s {
        if v > 10_000.0 {
            let _ = write!(s, " {:>11.2}k", v / 1000.0);
        } else {
            let _ = write!(s, " {v:>11.2} ");
        }
    }
    if let Some(t) = tag {
        let _ = write!(s, " ({t})");
    }
    s
}

/// `openssl speed`'s table: header and one row per entry, tagged with the core type.
pub fn table(rows: &[AesSuiteRow]) -> String {
    let mut s = String::new();
    let Some(first) = rows.first() else {
        return s;
    };
    let sizes: Vec<usize> = first.sizes.iter().map(|t| t.buffer_bytes).collect();
    s.push_str(&openssl_header(&sizes));
    s.push('\n');
    for r in rows {
        let v: Vec<f64> = r.sizes.iter().map(|t| t.bytes_per_s).collect();
        s.push_str(&openssl_row(r.algorithm.name(), &v, Some(&r.tag)));
        s.push('\n');
    }
    s
}

/// What the native backend means for a user asking "does this SoC have crypto
/// extensions?".
pub fn backend_sentence(b: Backend) -> &'static str {
    match b {
        Backend::AesNi => "AES-NI instructions",
        Backend::Armv8Ce => "ARMv8 Crypto Extensions",
        Backend::Soft if cfg!(target_arch = "arm") => {
            "software AES: this 32-bit Arm build has no Crypto Extensions backend, \
             OpenSSL's numbers show whether the SoC has them"
        }
        Backend::Soft => "software AES: no AES instructions on this CPU",
    }
}

/// The standard run's AES heading (sbc-bench's, over OpenSSL's runs on each cluster).
pub const EACH_CLUSTER: &str = "Executing benchmark on each cluster individually";

/// The AES section: heading, native table, OpenSSL table, failures.
pub fn aes_section(heading: &str, r: &AesResults) -> String {
    // sbc-bench's heading over OpenSSL's runs on one cluster: in place of the usual one,
    // not beneath it (one step, one heading).
    let twice = r.openssl.as_ref().filter(|o| o.twice).map(|o| {
        let core = o
            .rows
            .first()
            .map(|r| r.tag.as_str())
            .filter(|t| !t.starts_with("cpu"))
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        format!("Executing benchmark twice on cluster 0{core}")
    });
    let heading = match &twice {
        Some(t) if heading == EACH_CLUSTER => t.as_str(),
        _ => heading,
    };
    let mut s = format!("{heading}\n\n");
    let gcm = r.native.iter().any(|x| x.algorithm == Algorithm::Aes256Gcm);
    let _ = write!(
        s,
        "Native AES (RustCrypto, {}: {}",
        r.backend.label(),
        backend_sentence(r.backend)
    );
    if gcm {
        let _ = write!(s, "; GCM's GHASH: {}", r.ghash_backend);
    }
    if r.native_skipped {
        s.push_str("): not measured beside OpenSSL (--extensive measures both)\n");
    } else {
        s.push_str(")\n");
        s.push_str(&table(&r.native));
    }
    if let Some(o) = &r.openssl {
        s.push('\n');
        s.push_str(&o.version_line);
        s.push('\n');
        s.push_str(&table(&o.rows));
    }
    for e in &r.errors {
        let _ = writeln!(s, "{}", error_line(e));
    }
    s
}

/// `5 minutes`, `1 minute`, `90 seconds`.
pub fn duration_phrase(secs: u64) -> String {
    match secs {
        60 => "1 minute".into(),
        s if s % 60 == 0 => format!("{} minutes", s / 60),
        1 => "1 second".into(),
        s => format!("{s} seconds"),
    }
}

/// sbc-bench's `Compression:`/`Decompression:`/`Total:` lines after the multi-threaded
/// 7-Zip runs.
fn sevenzip_score_lines(runs: &[BenchRun]) -> String {
    let join = |f: &dyn Fn(&BenchRun) -> Option<u64>| {
        runs.iter()
            .filter_map(f)
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "Compression: {}\nDecompression: {}\nTotal: {}\n",
        join(&|r| r.table.compress_rating_mips),
        join(&|r| r.table.decompress_rating_mips),
        join(&|r| Some(r.table.total_rating_mips)),
    )
}

/// Without leading and trailing blank lines.
pub fn trim_blank_lines(s: &str) -> &str {
    s.trim_matches(|c| c == '\n' || c == '\r')
}

fn sevenzip_section(z: &SevenZipResults, all_cpus: &[u32]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "7-Zip: {} ({})", z.version.label(z.bundled), z.path);
    if let Some(w) = &z.warning {
        let _ = writeln!(s, "Warning: {w}");
    }
    if let Some(d) = &z.dict {
        let _ = writeln!(s, "Dictionary limited with -md={d}");
    }
    for one in &z.single {
        let _ = write!(
            s,
            "\nExecuting benchmark single-threaded on {}\n\n{}\n",
            one.target.label(),
            trim_blank_lines(&one.result.output)
        );
    }
    if !z.multi.is_empty() {
        let _ = write!(
            s,
            "\n{SEPARATOR}\n\nExecuting benchmark {} multi-threaded on CPUs {}\n",
            match z.multi.len() {
                1 => "once".to_string(),
                2 => "twice".to_string(),
                n => format!("{n} times"),
            },
            format_list(all_cpus)
        );
        for r in &z.multi {
            let _ = write!(s, "\n{}\n", trim_blank_lines(&r.output));
        }
        s.push('\n');
        s.push_str(&sevenzip_score_lines(&z.multi));
    }
    s
}

/// The native LZMA result table (7-Zip's layout).
pub fn native_table(r: &LzmaRun) -> String {
    let mut s = String::from(
        "              Compressing  |        Decompressing\n\
         Dict      Speed    Rating  |      Speed    Rating   Packed\n          \
         KiB/s      MIPS  |      KiB/s      MIPS        %\n\n",
    );
    for d in &r.dicts {
        let packed = if d.input_bytes > 0 {
            d.packed_bytes as f64 * 100.0 / d.input_bytes as f64
        } else {
            0.0
        };
        let _ = writeln!(
            s,
            "{:>2}:{:>12.0}{:>10.0}  |{:>11.0}{:>10.0}{:>9.1}",
            d.dict_log2,
            d.compress_kib_per_s,
            d.compress_rating_mips,
            d.decompress_kib_per_s,
            d.decompress_rating_mips,
            packed
        );
    }
    let _ = write!(
        s,
        "-------------------------  | -----------------------------\n\
         Avr:{:>21.0}  |{:>21.0}\nTot:{:>21.0}\n",
        r.compress_rating_mips, r.decompress_rating_mips, r.total_rating_mips
    );
    s
}

/// The native LZMA half of `bench compress`.
fn native_section(r: &CompressResults, all_cpus: &[u32]) -> String {
    let mut s = String::from(
        "Native LZMA benchmark (lzma-rust2 encoder on 7-Zip's `b` method, rated with \
         7-Zip 16.02's formulas: our own score, not 7-Zip's)\n",
    );
    for one in &r.native_single {
        let _ = write!(
            s,
            "\nExecuting benchmark single-threaded on {}\n\n{}",
            one.target.label(),
            native_table(&one.result)
        );
    }
    if let Some(m) = &r.native_multi {
        let _ = write!(
            s,
            "\nExecuting benchmark multi-threaded on CPUs {} ({} threads)\n\n{}",
            format_list(if m.cpus.is_empty() { all_cpus } else { &m.cpus }),
            m.cpus.len(),
            native_table(m)
        );
    }
    s
}

/// One entry of a result's `errors`: a note (said as `Note: …`) or a failure.
fn error_line(e: &Remark) -> String {
    match e {
        Remark::Note(n) => format!("Note: {n}"),
        Remark::Failed(e) => format!("Failed: {e}"),
    }
}

/// sbc-bench's summary line: `7-zip total scores (3 consecutive runs): 14527,14540,14616,
/// single-threaded: 2558`.
pub fn sevenzip_summary(z: &SevenZipResults) -> Option<String> {
    let single = z.single_threaded_score();
    if z.multi.is_empty() {
        return single.map(|v| format!("7-zip total score, single-threaded: {v}"));
    }
    let totals: Vec<String> = z
        .multi
        .iter()
        .map(|r| r.table.total_rating_mips.to_string())
        .collect();
    let mut line = format!(
        "7-zip total scores ({} consecutive run{}): {}",
        z.multi.len(),
        if z.multi.len() == 1 { "" } else { "s" },
        totals.join(",")
    );
    if let Some(v) = single {
        let _ = write!(line, ", single-threaded: {v}");
    }
    Some(line)
}

/// Our summary line for the native score, in the same shape.
pub fn native_summary(r: &CompressResults) -> Option<String> {
    let single = r
        .native_single
        .iter()
        .map(|o| o.result.total_rating_mips)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    match (&r.native_multi, single) {
        (Some(m), Some(s)) => Some(format!(
            "native LZMA total score ({} threads): {:.0}, single-threaded: {s:.0}",
            m.cpus.len(),
            m.total_rating_mips
        )),
        (Some(m), None) => Some(format!(
            "native LZMA total score ({} threads): {:.0}",
            m.cpus.len(),
            m.total_rating_mips
        )),
        (None, Some(s)) => Some(format!("native LZMA total score, single-threaded: {s:.0}")),
        (None, None) => None,
    }
}

/// The whole `bench compress` text.
pub fn compress_section(r: &CompressResults, all_cpus: &[u32]) -> String {
    let mut parts = Vec::new();
    if let Some(z) = &r.sevenzip {
        parts.push(sevenzip_section(z, all_cpus));
    }
    if !r.native_single.is_empty() || r.native_multi.is_some() {
        parts.push(native_section(r, all_cpus));
    }
    let mut s = parts.join(&format!("\n{SEPARATOR}\n\n"));
    let mut summary = Vec::new();
    if let Some(z) = &r.sevenzip
        && let Some(l) = sevenzip_summary(z)
    {
        summary.push(l);
    }
    if let Some(l) = native_summary(r) {
        summary.push(l);
    }
    for e in &r.errors {
        summary.push(error_line(e));
    }
    if !summary.is_empty() {
        s.push('\n');
        for l in summary {
            s.push_str(&l);
            s.push('\n');
        }
    }
    s
}

/// `scrypt total scores (5 minutes execution): 25.32,25.31,… kH/s`, in time order.
pub fn scrypt_summary(r: &ScryptRun, duration_s: u64) -> String {
    let v: Vec<String> = r
        .intervals
        .iter()
        .map(|i| format!("{:.2}", i.khash_per_s))
        .collect();
    format!(
        "scrypt total scores ({} execution): {} kH/s",
        duration_phrase(duration_s),
        if v.is_empty() {
            "n/a".to_string()
        } else {
            v.join(",")
        }
    )
}

/// Notes after the `bench scrypt` text: a run stopped by a signal, and a last interval
/// shorter than the others (`--duration` not a multiple of the interval).
pub fn scrypt_notes(
    r: &ScryptRun,
    interval: std::time::Duration,
    cancelled: bool,
) -> Option<String> {
    let mut s = String::new();
    if cancelled {
        let _ = writeln!(
            s,
            "Note: stopped by a signal after {:.0} s: the {} interval{} finished before it",
            r.elapsed_s,
            r.intervals.len(),
            if r.intervals.len() == 1 { "" } else { "s" }
        );
    }
    if let Some(last) = r.intervals.last() {
        let full = interval.as_secs_f64();
        if r.intervals.len() > 1 && last.seconds < full * 0.9 {
            let _ = writeln!(
                s,
                "Note: the last interval lasted {:.1} s instead of {full:.0} s",
                last.seconds
            );
        }
    }
    (!s.is_empty()).then_some(s)
}

/// `bench scrypt`'s text: each run's section and notes; a run stopped by a signal says
/// the time it really ran, not the `duration` asked for.
pub fn scrypt_report(outs: &[Stress], duration: Duration, interval: Duration) -> String {
    let mut s = String::new();
    for Stress { run, cancelled } in outs {
        let shown_s = if *cancelled {
            run.elapsed_s.round() as u64
        } else {
            duration.as_secs()
        };
        s.push_str(&scrypt_section(run, shown_s));
        if let Some(n) = scrypt_notes(run, interval, *cancelled) {
            s.push_str(&n);
        }
    }
    s
}

/// The `bench scrypt` text.
pub fn scrypt_section(r: &ScryptRun, duration_s: u64) -> String {
    let running: Vec<u32> = r
        .threads
        .iter()
        .filter(|t| t.error.is_none())
        .map(|t| t.cpu)
        .collect();
    let on = match running.as_slice() {
        [one] => format!("cpu{one}"),
        many => format!("CPUs {}", format_list(many)),
    };
    let mut s = format!(
        "Executing scrypt (N={}, r=1, p=1: cpuminer's algorithm) on {on} ({} thread{}, \
         {} kernel) for {}\n\n",
        r.n,
        running.len(),
        if running.len() == 1 { "" } else { "s" },
        r.kernel,
        duration_phrase(duration_s)
    );
    for t in &r.threads {
        if let Some(e) = &t.error {
            let _ = writeln!(s, "Skipped cpu{}: {e}", t.cpu);
        }
    }
    s.push_str(&scrypt_summary(r, duration_s));
    s.push('\n');
    s
}

/// sbc-bench's heading: `Executing benchmark on each cluster individually` (several
/// clusters), `… on cluster 0 (Cortex-A53)` (one), or the CPUs the user chose.
pub fn heading(targets: &[Target], by_cluster: bool) -> String {
    match targets {
        [] => "Executing benchmark".to_string(),
        [t] if by_cluster => match (t.cluster, &t.core_type) {
            (Some(c), Some(core)) => format!("Executing benchmark on cluster {c} ({core})"),
            (Some(c), None) => format!("Executing benchmark on cluster {c}"),
            _ => format!("Executing benchmark on {}", t.label()),
        },
        _ if by_cluster => "Executing benchmark on each cluster individually".to_string(),
        [t] => format!("Executing benchmark on {}", t.label()),
        _ => {
            let labels: Vec<String> = targets.iter().map(Target::label).collect();
            let rest = labels[..labels.len() - 1].join(", ");
            let last = labels.last().map(String::as_str).unwrap_or_default();
            format!("Executing benchmark on {rest} and {last} individually")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::aes::suite::OpensslResults;
    use crate::bench::external::openssl::Throughput;
    use crate::bench::lzma::DictResult;
    use crate::bench::scrypt::{ScryptInterval, ThreadResult};

    const SIZES: [usize; 6] = [16, 64, 256, 1024, 8192, 16384];

    // Published log 41BH.txt (Rock 5B, OpenSSL 1.1.1f), header and first row, verbatim.
    const LOG_HEADER: &str = "type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes";
    const LOG_ROW: &str = "aes-128-cbc     173982.22k   502837.89k   966930.26k  1252319.91k  1372788.05k  1382421.85k (Cortex-A55)";

    fn row(alg: Algorithm, k: [f64; 6], tag: &str) -> AesSuiteRow {
        AesSuiteRow {
            algorithm: alg,
            cpu: 0,
            tag: tag.into(),
            sizes: SIZES
                .iter()
                .zip(k)
                .map(|(&b, v)| Throughput {
                    buffer_bytes: b,
                    bytes_per_s: v * 1000.0,
                })
                .collect(),
            elapsed_s: 18.0,
        }
    }

    #[test]
    fn openssl_table_is_byte_for_byte() {
        assert_eq!(openssl_header(&SIZES), LOG_HEADER);
        let r = row(
            Algorithm::Aes128Cbc,
            [
                173982.22, 502837.89, 966930.26, 1252319.91, 1372788.05, 1382421.85,
            ],
            "Cortex-A55",
        );
        let v: Vec<f64> = r.sizes.iter().map(|t| t.bytes_per_s).collect();
        assert_eq!(openssl_row("aes-128-cbc", &v, Some("Cortex-A55")), LOG_ROW);
        // OpenSSL 3 on this VM: a 10-digit value leaves 4 spaces after the 11-char name.
        assert_eq!(
            openssl_row("AES-128-CBC", &[1_125_695_360.0], None),
            "AES-128-CBC    1125695.36k"
        );
        assert_eq!(
            openssl_row("x", &[9876.5], None),
            "x                 9876.50 "
        );
    }

    #[test]
    fn aes_section_has_native_and_openssl_tables() {
        let r = AesResults {
            backend: Backend::AesNi,
            ghash_backend: "pclmulqdq".into(),
            native: vec![row(Algorithm::Aes256Cbc, [1.0e5; 6], "Cortex-A76")],
            openssl: Some(OpensslResults {
                version_raw: "OpenSSL 3.0.19 27 Jan 2026".into(),
                version_line: "OpenSSL 3.0.19, built on 27 Jan 2026".into(),
                rows: vec![row(Algorithm::Aes256Cbc, [2.0e5; 6], "Cortex-A76")],
                twice: false,
            }),
            errors: vec![Remark::Failed("cannot run on cpu9: offline".into())],
            native_skipped: false,
        };
        let s = aes_section(EACH_CLUSTER, &r);
        assert!(!s.contains("twice"));
        assert!(s.starts_with("Executing benchmark on each cluster individually\n\n"));
        assert!(s.contains("Native AES (RustCrypto, aes-ni: AES-NI instructions)\n"));
        assert!(s.contains("\nOpenSSL 3.0.19, built on 27 Jan 2026\ntype  "));
        assert!(s.contains(
            "aes-256-cbc     100000.00k   100000.00k   100000.00k   100000.00k   100000.00k   100000.00k (Cortex-A76)\n"
        ));
        assert!(s.ends_with("Failed: cannot run on cpu9: offline\n"));
    }

    #[test]
    fn openssl_twice_on_one_cluster_has_one_heading_and_both_rows() {
        let r = AesResults {
            backend: Backend::Armv8Ce,
            ghash_backend: "pmull".into(),
            native: vec![row(Algorithm::Aes256Cbc, [1.0e5; 6], "Cortex-A53")],
            openssl: Some(OpensslResults {
                version_raw: "OpenSSL 3.0.11 19 Sep 2023".into(),
                version_line: "OpenSSL 3.0.11, built on 19 Sep 2023".into(),
                rows: vec![
                    row(Algorithm::Aes256Cbc, [7.04e8; 6], "Cortex-A53"),
                    row(Algorithm::Aes256Cbc, [7.05e8; 6], "Cortex-A53"),
                ],
                twice: true,
            }),
            errors: Vec::new(),
            native_skipped: false,
        };
        // Corpus log 1Ga0KBn.txt's heading, in place of the usual one (issue 28: the log
        // had both, two headings for one AES step).
        let s = aes_section(EACH_CLUSTER, &r);
        assert!(
            s.starts_with("Executing benchmark twice on cluster 0 (Cortex-A53)\n\nNative AES"),
            "{s}"
        );
        assert!(!s.contains("each cluster individually"), "{s}");
        assert_eq!(s.matches("Executing").count(), 1, "{s}");
        assert!(
            s.contains("\nOpenSSL 3.0.11, built on 19 Sep 2023\ntype"),
            "{s}"
        );
        assert_eq!(s.matches("\naes-256-cbc ").count(), 3, "{s}");
        // Under another heading (the thermal test's second run) that heading alone.
        let s = aes_section("AES", &r);
        assert!(s.starts_with("AES\n\n"), "{s}");
        assert_eq!(s.matches("Executing").count(), 0, "{s}");
    }

    #[test]
    fn native_rows_skipped_beside_openssl_are_said_not_measured() {
        let r = AesResults {
            backend: Backend::AesNi,
            ghash_backend: "pclmulqdq".into(),
            native: Vec::new(),
            openssl: Some(OpensslResults {
                version_raw: "OpenSSL 3.0.19 27 Jan 2026".into(),
                version_line: "OpenSSL 3.0.19, built on 27 Jan 2026".into(),
                rows: vec![row(Algorithm::Aes256Cbc, [2.0e5; 6], "Cortex-A76")],
                twice: false,
            }),
            errors: Vec::new(),
            native_skipped: true,
        };
        let s = aes_section("AES", &r);
        assert!(s.contains(
            "Native AES (RustCrypto, aes-ni: AES-NI instructions): not measured beside OpenSSL (--extensive measures both)\n\nOpenSSL 3.0.19"
        ), "{s}");
        assert_eq!(s.matches("\naes-256-cbc ").count(), 1, "{s}");
    }

    #[test]
    fn durations_read_like_sbc_bench() {
        assert_eq!(duration_phrase(300), "5 minutes");
        assert_eq!(duration_phrase(60), "1 minute");
        assert_eq!(duration_phrase(10), "10 seconds");
        assert_eq!(duration_phrase(90), "90 seconds");
    }

    fn scrypt_run(k: &[f64]) -> ScryptRun {
        ScryptRun {
            n: 1024,
            kernel: "neon-4way".into(),
            threads: vec![
                ThreadResult {
                    cpu: 0,
                    hashes: 100,
                    error: None,
                },
                ThreadResult {
                    cpu: 1,
                    hashes: 100,
                    error: None,
                },
                ThreadResult {
                    cpu: 3,
                    hashes: 0,
                    error: Some("cannot run on cpu3: offline".into()),
                },
            ],
            intervals: k
                .iter()
                .enumerate()
                .map(|(i, &v)| ScryptInterval {
                    end_s: 5.0 * (i + 1) as f64,
                    seconds: 5.0,
                    hashes: (v * 5000.0) as u64,
                    khash_per_s: v,
                })
                .collect(),
            mean_khash_per_s: 1.0,
            elapsed_s: 300.0,
        }
    }

    #[test]
    fn scrypt_notes_mark_a_short_last_interval_and_a_cancelled_run() {
        let five = std::time::Duration::from_secs(5);
        let mut r = scrypt_run(&[11.51, 12.22]);
        assert_eq!(scrypt_notes(&r, five, false), None);
        r.intervals[1].seconds = 2.0;
        assert_eq!(
            scrypt_notes(&r, five, false).as_deref(),
            Some("Note: the last interval lasted 2.0 s instead of 5 s\n")
        );
        r.intervals[1].seconds = 5.0;
        r.elapsed_s = 11.2;
        assert_eq!(
            scrypt_notes(&r, five, true).as_deref(),
            Some("Note: stopped by a signal after 11 s: the 2 intervals finished before it\n")
        );
    }

    #[test]
    fn scrypt_summary_line() {
        let r = scrypt_run(&[25.32, 25.31, 25.12]);
        assert_eq!(
            scrypt_summary(&r, 300),
            "scrypt total scores (5 minutes execution): 25.32,25.31,25.12 kH/s"
        );
        let s = scrypt_section(&r, 300);
        assert!(s.starts_with(
            "Executing scrypt (N=1024, r=1, p=1: cpuminer's algorithm) on CPUs 0-1 (2 threads, neon-4way kernel) for 5 minutes\n"
        ));
        assert!(s.contains("Skipped cpu3: cannot run on cpu3: offline\n"));
        assert_eq!(
            scrypt_summary(&scrypt_run(&[]), 10),
            "scrypt total scores (10 seconds execution): n/a kH/s"
        );
    }

    fn bench_run(total: u64, c: u64, d: u64) -> BenchRun {
        BenchRun {
            cpu: None,
            threads: 8,
            table: crate::bench::external::sevenzip::BenchTable {
                threads: Some(8),
                dicts: vec![],
                compress_rating_mips: Some(c),
                decompress_rating_mips: Some(d),
                total_rating_mips: total,
                total_usage_pct: Some(700),
            },
            elapsed_s: 40.0,
            output: "\n7-Zip (a) [64] 16.02 : Copyright\n\nTot:  1 2 3\n\n".into(),
        }
    }

    #[test]
    fn sevenzip_summary_and_score_lines() {
        use crate::bench::external::sevenzip::Version;
        use crate::bench::lzma::suite::OnTarget;
        use crate::bench::pin::Target;
        let z = SevenZipResults {
            path: "/usr/bin/7za".into(),
            version: Version {
                banner: Some("7-Zip (a) [64] 16.02".into()),
                engine: Some("16.02".into()),
                p7zip: Some("16.02".into()),
            },
            warning: None,
            bundled: false,
            label: None,
            dict: None,
            single: vec![OnTarget {
                target: Target {
                    cpu: 4,
                    core_type: Some("Cortex-A76".into()),
                    cluster: Some(1),
                },
                result: bench_run(2558, 2400, 2700),
            }],
            multi: vec![
                bench_run(14527, 13000, 16000),
                bench_run(14540, 13100, 16100),
                bench_run(14616, 13200, 16200),
            ],
        };
        assert_eq!(
            sevenzip_summary(&z).unwrap(),
            "7-zip total scores (3 consecutive runs): 14527,14540,14616, single-threaded: 2558"
        );
        let r = CompressResults {
            sevenzip: Some(z),
            native_single: vec![],
            native_multi: None,
            errors: vec![],
        };
        let s = compress_section(&r, &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert!(
            s.contains("\nExecuting benchmark single-threaded on cpu4 (Cortex-A76)\n\n7-Zip (a)")
        );
        assert!(s.contains("Executing benchmark 3 times multi-threaded on CPUs 0-7\n"));
        assert!(s.contains(
            "\nCompression: 13000,13100,13200\nDecompression: 16000,16100,16200\nTotal: 14527,14540,14616\n"
        ));
        assert!(!s.contains("Native LZMA"));
    }

    #[test]
    fn native_lzma_table_and_summary() {
        use crate::bench::lzma::suite::OnTarget;
        use crate::bench::pin::Target;
        let run = |cpus: Vec<u32>, total: f64| LzmaRun {
            cpus,
            dicts: vec![DictResult {
                dict_log2: 22,
                input_bytes: 100,
                packed_bytes: 41,
                compress_passes: 2,
                compress_kib_per_s: 3409.4,
                compress_rating_mips: 3316.2,
                decompress_passes: 30,
                decompress_kib_per_s: 61065.0,
                decompress_rating_mips: 5331.0,
            }],
            compress_rating_mips: 3316.2,
            decompress_rating_mips: 5331.0,
            total_rating_mips: total,
            elapsed_s: 9.0,
        };
        let r = CompressResults {
            sevenzip: None,
            native_single: vec![OnTarget {
                target: Target {
                    cpu: 0,
                    core_type: None,
                    cluster: None,
                },
                result: run(vec![0], 4323.6),
            }],
            native_multi: Some(run(vec![0, 1], 8000.4)),
            errors: vec![Remark::Failed("7z was killed".into())],
        };
        let s = compress_section(&r, &[0, 1]);
        assert!(
            s.contains("22:        3409      3316  |      61065      5331     41.0\n"),
            "{s}"
        );
        assert!(s.contains("\nTot:                 4324\n"), "{s}");
        // Every bar of the table lines up with the header's.
        let bars: Vec<usize> = s
            .lines()
            .filter(|l| l.contains('|'))
            .filter_map(|l| l.find('|'))
            .collect();
        assert!(
            bars.len() >= 7 && bars.iter().all(|&b| b == 27),
            "{bars:?}\n{s}"
        );
        assert!(s.contains("Executing benchmark multi-threaded on CPUs 0-1 (2 threads)"));
        assert!(s.contains(
            "native LZMA total score (2 threads): 8000, single-threaded: 4324\nFailed: 7z was killed\n"
        ));
    }

    #[test]
    fn notes_are_not_failures() {
        assert_eq!(
            error_line(&Remark::Note("left out".into())),
            "Note: left out"
        );
        assert_eq!(
            error_line(&Remark::Failed("7z exited with 2".into())),
            "Failed: 7z exited with 2"
        );
    }

    fn t(cpu: u32, cluster: u32, core: &str) -> Target {
        Target {
            cpu,
            core_type: Some(core.into()),
            cluster: Some(cluster),
        }
    }

    #[test]
    fn headings_follow_sbc_bench() {
        assert_eq!(
            heading(&[t(0, 0, "Cortex-A53")], true),
            "Executing benchmark on cluster 0 (Cortex-A53)"
        );
        assert_eq!(
            heading(&[t(0, 0, "Cortex-A55"), t(4, 1, "Cortex-A76")], true),
            "Executing benchmark on each cluster individually"
        );
        assert_eq!(
            heading(&[t(1, 0, "EPYC")], false),
            "Executing benchmark on cpu1 (EPYC)"
        );
        assert_eq!(
            heading(&[t(0, 0, "EPYC"), t(1, 0, "EPYC")], false),
            "Executing benchmark on cpu0 (EPYC) and cpu1 (EPYC) individually"
        );
    }
}
