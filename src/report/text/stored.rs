//! The text of `sbc-bench results list`, `results show` and `results parse`: pure
//! functions of plain views of a stored run or a read result (`results/view.rs` makes
//! them from the database's rows and the parsed documents).

use std::fmt::Write as _;

use crate::record::results_row::ResultsRow;

/// One line of `results list`: a stored run's index columns.
#[derive(Debug, Clone, Copy)]
pub struct ListRow<'a> {
    /// The run's number in the database.
    pub id: i64,
    /// When it ran (RFC 3339, or a log's RFC 2822 date).
    pub date: Option<&'a str>,
    /// How it came in (`run`, `import`…).
    pub source: &'a str,
    /// The device it names.
    pub device: Option<&'a str>,
    /// The SoC.
    pub soc: Option<&'a str>,
    /// 7-Zip, all cores.
    pub sevenzip_multi: Option<i64>,
    /// 7-Zip, one core.
    pub sevenzip_single: Option<i64>,
    /// AES-256-CBC at 16 KiB, kB/s.
    pub aes256_16k: Option<f64>,
    /// memcpy, MB/s.
    pub memcpy_mb_s: Option<f64>,
    /// `ok`, `warnings` or `invalid`.
    pub verdict: Option<&'a str>,
}

/// What `results parse` and `results show` print of a read result.
#[derive(Debug, Clone, Copy)]
pub struct ParsedView<'a> {
    /// `sbc-bench log` or `run JSON`.
    pub format: &'a str,
    /// The sbc-bench version.
    pub version: Option<&'a str>,
    /// The mode the header names.
    pub mode: Option<&'a str>,
    /// The header's date.
    pub date: Option<&'a str>,
    /// The kernel release.
    pub kernel_release: Option<&'a str>,
    /// The log's SoC guess.
    pub soc_guess: Option<&'a str>,
    /// The Results.md figures.
    pub row: &'a ResultsRow,
    /// The row's sixth column is AES-128 at 16 bytes (rows before 2022-10-23).
    pub row_has_aes128: bool,
    /// AES-128-CBC at 16 bytes.
    pub aes128_16b: Option<f64>,
    /// The row as the log states it.
    pub stated_row: Option<&'a [String]>,
    /// What could not be read.
    pub unread: &'a [String],
}

fn cell(v: Option<&str>) -> &str {
    v.unwrap_or("-")
}

/// A figure with `d` decimals, `-` when missing.
fn num(v: Option<f64>, d: usize) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.d$}"))
}

/// `s` cut to `n` characters, the last one `…` when cut.
pub fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

/// `2024-01-05` from an RFC 3339 date or a log's RFC 2822 one.
pub fn short_date(d: Option<&str>) -> String {
    let Some(d) = d else { return "-".into() };
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(d) {
        return t.format("%Y-%m-%d").to_string();
    }
    if let Ok(t) = chrono::DateTime::parse_from_rfc2822(d.trim()) {
        return t.format("%Y-%m-%d").to_string();
    }
    truncate(d, 10)
}

/// `results list`'s table: a header line, then one line per run.
pub fn list_table(rows: &[ListRow<'_>]) -> String {
    let mut out = format!(
        "{:>5}  {:<10}  {:<6}  {:<34}  {:<10}  {:>7}  {:>6}  {:>9}  {:>8}  verdict\n",
        "id", "date", "source", "device", "SoC", "7z", "7z 1T", "AES-256", "memcpy"
    );
    for e in rows {
        let _ = writeln!(
            out,
            "{:>5}  {:<10}  {:<6}  {:<34}  {:<10}  {:>7}  {:>6}  {:>9}  {:>8}  {}",
            format!("#{}", e.id),
            short_date(e.date),
            e.source,
            truncate(cell(e.device), 34),
            truncate(cell(e.soc), 10),
            num(e.sevenzip_multi.map(|v| v as f64), 0),
            num(e.sevenzip_single.map(|v| v as f64), 0),
            num(e.aes256_16k, 0),
            num(e.memcpy_mb_s, 0),
            cell(e.verdict),
        );
    }
    out
}

/// `results show`'s first line.
pub fn show_header(id: i64, source: &str, source_path: Option<&str>, stored_at: &str) -> String {
    format!(
        "#{id}: {source} from {}, stored {stored_at}\n",
        cell(source_path)
    )
}

/// `results show`'s line for each time the run was shared.
pub fn shared_lines(shares: &[(String, String, String)]) -> String {
    shares
        .iter()
        .map(|(url, when, sha)| format!("Shared: {url} on {when} (SHA-256 {sha})\n"))
        .collect()
}

/// The summary of a read result: format, version and device, the header's facts, the
/// Results.md figures, and what could not be read.
pub fn parsed_text(r: &ParsedView<'_>) -> String {
    let mut out = String::new();
    let na = |v: Option<&str>| v.unwrap_or("n/a").to_string();
    let device = match r.row.device.as_str() {
        "" => "device not named",
        d => d,
    };
    let _ = writeln!(out, "{} (version {}): {device}", r.format, na(r.version));
    if let Some(m) = r.mode {
        let _ = writeln!(out, "Mode:       {m}");
    }
    let _ = writeln!(out, "Date:       {}", na(r.date));
    let _ = writeln!(out, "Kernel:     {}", na(r.kernel_release));
    let _ = writeln!(out, "SoC guess:  {}", na(r.soc_guess));
    let row = r.row;
    let _ = writeln!(
        out,
        "7-zip multi {}, single {}; AES-256 16 KiB {} k; memcpy {} MB/s, memset {} MB/s; cpuminer {} kH/s",
        num(row.sevenzip_multi.map(|v| v as f64), 0),
        num(row.sevenzip_single.map(|v| v as f64), 0),
        num(row.aes256_16k, 0),
        num(row.memcpy_mb_s, 1),
        num(row.memset_mb_s, 1),
        num(row.scrypt_khs, 2),
    );
    if r.row_has_aes128 {
        let _ = writeln!(
            out,
            "AES-128 16 B {} k (the sixth column of rows before 2022-10-23)",
            num(r.aes128_16b, 0)
        );
    }
    if let Some(cells) = r.stated_row {
        let _ = writeln!(out, "Row the log states: | {} |", cells.join(" | "));
    }
    if !r.unread.is_empty() {
        let _ = writeln!(out, "Not in the file: {}", r.unread.join("; "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_with_an_ellipsis() {
        assert_eq!(truncate("Radxa ROCK 5B", 34), "Radxa ROCK 5B");
        assert_eq!(truncate("Rockchip RK3588", 10), "Rockchip …");
    }

    #[test]
    fn dates_are_shortened_from_either_format() {
        assert_eq!(short_date(Some("2024-01-05T10:00:00+01:00")), "2024-01-05");
        assert_eq!(
            short_date(Some("Mon, 10 Nov 2025 23:46:00 +0800")),
            "2025-11-10"
        );
        assert_eq!(short_date(None), "-");
    }
}
