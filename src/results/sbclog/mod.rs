//! Reading a result log of the bash sbc-bench (every version from v0.4 to v0.9.72) or one
//! of ours into the typed record, [`LogRecord`]: every section the log holds, and the
//! Results.md figures recomputed from the benchmark output by the rules of the version
//! that wrote it (`rules.rs`; each rule change is dated there), so a log without a row
//! still yields what it holds, and a log with one can be checked against it.
//!
//! One entry point for every reader (`results import/parse`, `report`, `compare`, the
//! results hub): [`read_log`], text in, a record or a [`LogError`] out; [`decode`] turns
//! the bytes of an upload into that text, refusing binary data and runaway lines by
//! their line number. Pasted logs are tolerated: CRLF line ends, ANSI colours, and a
//! prefix put before every line (a quote marker, a timestamp) are removed first
//! ([`normalise`]). A section the log lacks is absent from the record, never guessed.

mod bench;
mod clocks;
mod date;
mod health;
mod memory;
mod rules;
mod system;

use serde::{Deserialize, Serialize};

use crate::record::log_record::{LogRecord, LogWriter, NEWEST_RULES};
use crate::record::results_row::ResultsRow;

pub use date::to_utc;
pub use rules::LogVersion;

/// The longest line a result log has (7-Zip's `CPU Freq:` line of a 256-core server is
/// about 2 KiB): a longer one is not a log's.
pub const MAX_LINE: usize = 64 << 10;

/// Why a text is not a result log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    /// NUL or other control bytes: a binary file.
    #[error("line {line}: binary data (byte 0x{byte:02x}), not a text log")]
    Binary {
        /// The line it is on, from 1.
        line: usize,
        /// The byte.
        byte: u8,
    },
    /// A line longer than any log has.
    #[error("line {line}: {len} bytes long (a log's lines are under {} KiB), not a result log", MAX_LINE >> 10)]
    HugeLine {
        /// The line, from 1.
        line: usize,
        /// Its length in bytes.
        len: usize,
    },
    /// Text, but neither a header nor benchmark output.
    #[error("not a result log: no sbc-bench header and no benchmark output")]
    NotALog,
}

/// The bytes of a log as text: control bytes other than tab, CR, LF, backspace and the
/// escape of colour codes mean a binary file, a line over [`MAX_LINE`] a file that is no
/// log; bytes that are not UTF-8 (a log pasted through a Latin-1 terminal: `°C` as 0xB0)
/// are replaced, and the lines they were on returned.
pub fn decode(bytes: &[u8]) -> Result<(String, Vec<usize>), LogError> {
    let mut not_utf8 = Vec::new();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.len() > MAX_LINE {
            return Err(LogError::HugeLine {
                line: i + 1,
                len: line.len(),
            });
        }
        if let Some(&byte) = line
            .iter()
            .find(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\r' | 0x07 | 0x08 | 0x1b | 0x0c))
        {
            return Err(LogError::Binary { line: i + 1, byte });
        }
        if std::str::from_utf8(line).is_err() {
            not_utf8.push(i + 1);
        }
    }
    Ok((String::from_utf8_lossy(bytes).into_owned(), not_utf8))
}

/// Read one run of a log (a log appended run after run is split first:
/// [`crate::results::document::split_runs`]). Text that holds neither a header nor any
/// benchmark output is no log.
pub fn read_log(text: &str) -> Result<LogRecord, LogError> {
    if let Some((i, c)) = text.chars().enumerate().find(|(_, c)| *c == '\0') {
        let line = text.chars().take(i).filter(|c| *c == '\n').count() + 1;
        return Err(LogError::Binary {
            line,
            byte: c as u8,
        });
    }
    if let Some((i, l)) = text
        .split('\n')
        .enumerate()
        .find(|(_, l)| l.len() > MAX_LINE)
    {
        return Err(LogError::HugeLine {
            line: i + 1,
            len: l.len(),
        });
    }
    let r = read(text);
    let row = &r.results_row;
    let holds_nothing = r.header.version.is_none()
        && r.stated_row.is_none()
        && r.clocks.is_empty()
        && r.tinymembench.is_empty()
        && r.ramlat.is_empty()
        && r.aes.is_none()
        && r.sevenzip.is_none()
        && r.health.is_empty()
        && row.memcpy_mb_s.is_none()
        && row.sevenzip_multi.is_none()
        && row.aes256_16k.is_none();
    if holds_nothing {
        return Err(LogError::NotALog);
    }
    Ok(r)
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
        } else if c == '\x08' {
            // A backspace pasted from a terminal's progress line erases nothing here.
        } else {
            out.push(c);
        }
    }
    out
}

/// Read one run of a log into the record: what it holds, whatever it is (see
/// [`read_log`] for the check that it is a log at all).
pub fn read(text: &str) -> LogRecord {
    let lines = normalise(text);
    let mut r = LogRecord::default();
    let header = lines.iter().find(|l| l.starts_with("sbc-bench v"));
    match header {
        Some(h) => system::header(h, &mut r),
        None => r
            .unread
            .push("no sbc-bench header line (`sbc-bench vX ...`)".to_string()),
    }
    let version = r.header.version.as_deref().and_then(LogVersion::parse);
    // Ours, and an unknown version: the newest rules (our log's layout follows the newest
    // bash sbc-bench).
    let v = match (r.writer, version) {
        (LogWriter::BashSbcBench, Some(v)) => v,
        _ => LogVersion::NEWEST,
    };
    r.rules = match (r.writer, &r.header.version) {
        (LogWriter::BashSbcBench, Some(ver)) if version.is_some() => ver.clone(),
        _ => NEWEST_RULES.to_string(),
    };
    system::host(&lines, &mut r);
    r.topology = system::topology(&lines);
    r.clocks = clocks::opp_tables(&lines);
    r.throttling = clocks::throttling(&lines);
    r.tinymembench = memory::tinymembench(&lines);
    r.ramlat = memory::ramlat(&lines);
    r.aes = bench::aes(&lines);
    r.sevenzip = bench::sevenzip(&lines);
    r.cpuminer = bench::cpuminer(&lines);
    r.stockfish = bench::stockfish(&lines);
    r.health = health::tables(&lines, r.header.date.as_deref());
    r.swap = system::swap(&lines);
    r.validation = system::validation(&lines);
    r.verdict = system::verdict(&r.validation);
    r.governors = system::governors(&lines);
    r.dmi = system::dmi(&lines);
    r.lscpu = system::lscpu(&lines);
    r.caches = system::caches(&lines);
    r.ram = system::ram(&lines);
    if r.host.firmware.is_none() {
        r.host.firmware = r
            .dmi
            .iter()
            .find(|b| b.name == "BIOS/UEFI")
            .and_then(|b| b.fields.iter().find(|(k, _)| k == "Version"))
            .map(|(_, v)| format!("BIOS {v}"));
    }
    rules::results_row(&lines, v, &mut r);
    r
}

/// What one log yields for the Results.md columns and the results store's index: a
/// summary of its [`LogRecord`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ParsedLog {
    /// `0.9.72`, from the first line (`None`: the first line is not sbc-bench's).
    pub version: Option<String>,
    /// The mode the header names after the device (`extensive`), if any.
    pub mode: Option<String>,
    /// The date of the header as printed (`Mon, 10 Nov 2025 23:46:00 +0800`), or a run
    /// JSON's start (RFC 3339).
    pub date: Option<String>,
    /// The same instant in UTC, RFC 3339 (`2025-11-10T15:46:00Z`).
    pub date_utc: Option<String>,
    /// The full kernel release (`6.6.10-cix-build-generic`).
    pub kernel_release: Option<String>,
    /// The log's `SoC guess:` (v0.9.1 on): `Rockchip RK3588/RK3588s (35881000)`, guessed
    /// again where its `DT compat:` lines contradict it ([`crate::results::reguess`]).
    pub soc_guess: Option<String>,
    /// The log's `DT compat:` strings, most specific first (v0.9.x): what the SoC guess
    /// is checked against.
    pub dt_compat: Vec<String>,
    /// The core types the log names, in order, once each: from `Checking cpufreq OPP for
    /// cpu0-cpu3 (Cortex-A55):` / `Executing benchmark on cpu0 (Cortex-A55):` lines, or
    /// in older logs the topology table or lscpu's `Model name:` lines.
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

/// The summary of a record.
pub fn summary(r: &LogRecord) -> ParsedLog {
    ParsedLog {
        version: r.header.version.clone(),
        mode: r.header.mode.clone(),
        date: r.header.date.clone(),
        date_utc: r.header.date_utc.clone(),
        kernel_release: r.host.kernel_release.clone(),
        soc_guess: crate::results::reguess::soc_guess(
            r.host.soc_guess.as_deref(),
            &r.host.dt_compat,
            &r.core_types(),
        ),
        dt_compat: r.host.dt_compat.clone(),
        core_types: r.core_types(),
        results_row: r.results_row.clone(),
        aes128_16b: r.aes128_16b,
        row_has_aes128: r.row_has_aes128,
        stated_row: r.stated_row.clone(),
        unread: r.unread.clone(),
    }
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

/// Read one log and summarise it ([`read`], [`summary`]).
pub fn parse(text: &str) -> ParsedLog {
    summary(&read(text))
}

/// A line's fields after `prefix` (trimmed), when it starts with it.
fn after<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    line.strip_prefix(prefix).map(str::trim)
}

/// `cpu4 (Cortex-A76)` / `cpu4` at the start of `s`: the CPU and the core type.
fn cpu_and_type(s: &str) -> (Option<u32>, Option<String>) {
    let s = s.trim().trim_end_matches(':').trim();
    let Some(rest) = s.strip_prefix("cpu") else {
        return (None, None);
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let cpu = digits.parse().ok();
    let core = rest[digits.len()..]
        .trim()
        .strip_prefix('(')
        .and_then(|t| t.rsplit_once(')'))
        .map(|(t, _)| t.trim().to_string())
        .filter(|t| !t.is_empty());
    (cpu, core)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(p.date_utc.as_deref(), Some("2025-11-10T15:46:00Z"));
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
        let none = parse("garbage\n\u{1}");
        assert!(none.unread[0].contains("no sbc-bench header"));
        assert_eq!(read_log("garbage\nmore garbage\n"), Err(LogError::NotALog));
    }

    #[test]
    fn binary_and_huge_lines_are_refused_by_line() {
        assert_eq!(
            decode(b"sbc-bench v0.9.72 X\nok\n\x00\x01\x02").unwrap_err(),
            LogError::Binary { line: 3, byte: 0 }
        );
        let long = format!("sbc-bench v0.9.72 X\n{}\n", "x".repeat(MAX_LINE + 1));
        assert_eq!(
            decode(long.as_bytes()).unwrap_err(),
            LogError::HugeLine {
                line: 2,
                len: MAX_LINE + 1
            }
        );
        assert!(matches!(
            read_log(&long),
            Err(LogError::HugeLine { line: 2, .. })
        ));
        assert_eq!(
            read_log("sbc-bench v0.9.72 X\n\0").unwrap_err().to_string(),
            "line 2: binary data (byte 0x00), not a text log"
        );
    }

    /// A log pasted through a Latin-1 terminal: `°C` as the single byte 0xB0.
    #[test]
    fn mixed_encoding_is_read_and_its_lines_named() {
        let mut bytes = b"sbc-bench v0.9.72 X (Mon, 10 Nov 2025 23:46:00 +0800)\n".to_vec();
        bytes.extend_from_slice(b"Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp\n");
        bytes.extend_from_slice(
            b"23:47:00:  1800MHz  1.00  12%   0%  12%   0%   0%   0%  41.6\xb0C\n",
        );
        let (text, bad) = decode(&bytes).unwrap();
        assert_eq!(bad, [3]);
        assert!(text.contains('\u{fffd}'));
    }

    #[test]
    fn cpu_and_core_type_of_a_heading() {
        assert_eq!(
            cpu_and_type("cpu4 (Cortex-A76):"),
            (Some(4), Some("Cortex-A76".into()))
        );
        assert_eq!(cpu_and_type("cpu0"), (Some(0), None));
        assert_eq!(cpu_and_type("a big core"), (None, None));
    }
}
