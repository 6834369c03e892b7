//! `sbc-bench kernel` (sbc-bench `-k`): is the kernel current, and is it a vendor kernel?

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use clap::Args;

use crate::cli::UsageError;
use crate::diagnose::kernel::{self as judge, ReleaseTable};

/// Largest release table we read (endoflife.date's is about 15 KiB).
const MAX_TABLE: u64 = 4 * 1024 * 1024;

/// `sbc-bench kernel [--release STRING] [--soc NAME] [--eol-data FILE] [--json]`.
#[derive(Debug, Clone, Args, Default)]
pub struct KernelArgs {
    /// Judge this kernel release (`uname -r` of another board, e.g. 5.10.160-rockchip)
    /// instead of the running one. The SoC then comes from --soc, or from --sysroot's tree,
    /// else none.
    #[arg(long, value_name = "STRING", value_parser = parse_release)]
    pub release: Option<String>,

    /// Name the SoC for the vendor kernel rules (`Rockchip RK3588`, `Allwinner H618`),
    /// instead of the guess from the board.
    #[arg(long, value_name = "NAME")]
    pub soc: Option<String>,

    // The doc comment is the --help text: its URLs stay bare there.
    #[allow(rustdoc::bare_urls)]
    /// Read the Linux release-cycle table from FILE (endoflife.date's JSON: the API v1
    /// document of https://endoflife.date/api/v1/products/linux, or the older
    /// https://endoflife.date/api/linux.json) instead of the built-in snapshot.
    #[arg(long, value_name = "FILE")]
    pub eol_data: Option<PathBuf>,

    /// Print one versioned JSON document instead of text.
    #[arg(long)]
    pub json: bool,

    /// Judge as on this day (YYYY-MM-DD) instead of today: end-of-life and the age of the
    /// table depend on it. For tests and for reading old results.
    #[arg(long, value_name = "DATE", value_parser = parse_day, hide = true)]
    pub today: Option<NaiveDate>,
}

/// A `--release` value: one word, as `uname -r` prints it.
pub fn parse_release(s: &str) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() || t.chars().any(char::is_whitespace) {
        return Err("not a kernel release like 6.1.0 or 5.10.160-rockchip".into());
    }
    Ok(t.to_string())
}

/// A `--today` value.
pub fn parse_day(s: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").map_err(|_| "not a date like 2026-08-22".into())
}

/// `--eol-data` become the release table: the built-in one, or the one in `file`, with the
/// name the output gives its source. A file that cannot be read or is not a table is a
/// usage error (status 2).
pub fn release_table(file: Option<&Path>) -> Result<(ReleaseTable, String), UsageError> {
    load_table(file).map_err(UsageError::from)
}

fn load_table(file: Option<&Path>) -> Result<(ReleaseTable, String), String> {
    match file {
        None => judge::built_in_table()
            .map(|t| (t, "built-in".to_string()))
            .map_err(|e| format!("the built-in EOL data is broken: {e}")),
        Some(p) => {
            let text = read_table_file(p)?;
            ReleaseTable::parse(&text)
                .map(|t| (t, p.display().to_string()))
                .map_err(|e| format!("--eol-data {}: {e}", p.display()))
        }
    }
}

/// Read a user's file without ever blocking: a FIFO or device is refused, not waited on.
fn read_table_file(path: &Path) -> Result<String, String> {
    use crate::files::read::{not_regular, read_limited, too_large};
    let buf = read_limited(path, MAX_TABLE).map_err(|e| {
        if not_regular(&e).is_some() {
            format!(
                "--eol-data {}: not a regular file (expected endoflife.date's JSON)",
                path.display()
            )
        } else if too_large(&e) {
            format!(
                "--eol-data {}: larger than {} MiB, not a release table",
                path.display(),
                MAX_TABLE / (1024 * 1024)
            )
        } else {
            format!("--eol-data {}: cannot read: {e}", path.display())
        }
    })?;
    String::from_utf8(buf).map_err(|_| format!("--eol-data {}: not UTF-8 text", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_and_day_values() {
        assert_eq!(parse_release(" 6.1.0 ").as_deref(), Ok("6.1.0"));
        assert!(parse_release("").is_err());
        assert!(parse_release("6.1 0").is_err());
        assert!(parse_day("2026-02-30").is_err());
        assert_eq!(
            parse_day("2026-08-22"),
            Ok(NaiveDate::from_ymd_opt(2026, 8, 22).unwrap())
        );
    }
}
