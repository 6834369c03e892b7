//! The published results: the rows of sbc-bench's Results.md, shipped in the binary
//! (`data/sbc-bench-results.md`), and a reader for any table in that format (a user's own
//! copy, a fork's).

use serde::Serialize;

use crate::record::results_row::ResultsRow;

/// The Results.md table as published (see the file's first line for its origin).
pub const PUBLISHED: &str = include_str!("../../data/sbc-bench-results.md");

/// The core types each linked log names (`scripts/reference-core-types.sh` makes it from
/// the sbc-bench corpus): `ID<TAB>Cortex-A55, Cortex-A76`.
pub const CORE_TYPES: &str = include_str!("../../data/reference-core-types.tsv");

/// One published row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reference {
    /// The row's values. `kernel` holds the column as printed (`5.10`), `distro_arch` the
    /// distro column without sbc-bench's bold marks.
    pub row: ResultsRow,
    /// The SoC or CPU the device cell names in parentheses (`RK3588`, `Amlogic S905`).
    pub soc: Option<String>,
    /// The log the row links to (`results/87lq.txt`).
    pub log: Option<String>,
    /// The core types that log names (empty when the log is not in the corpus).
    pub core_types: Vec<String>,
    /// The name of the file a stored run was imported from (`3XzI.txt`): a published
    /// log's copy has the name of the row's link (`results/3XzI.txt`). `None` for
    /// published rows and runs of our own.
    pub source_file: Option<String>,
}

impl Reference {
    /// The file name of the log a published row links to (`results/3XzI.txt` →
    /// `3XzI.txt`).
    pub fn linked_file(&self) -> Option<&str> {
        self.log
            .as_deref()
            .filter(|l| !l.starts_with("stored #"))
            .and_then(|l| l.rsplit('/').next())
            .filter(|f| !f.is_empty())
    }
}

/// Every published row, with the core types of its log where known.
pub fn published() -> Vec<Reference> {
    let types: Vec<(&str, Vec<String>)> = CORE_TYPES
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (id, t) = l.split_once('\t')?;
            Some((id, t.split(", ").map(str::to_string).collect()))
        })
        .collect();
    let mut rows = parse_table(PUBLISHED);
    for r in &mut rows {
        let id = r
            .log
            .as_deref()
            .and_then(|l| l.rsplit('/').next())
            .map(|f| f.trim_end_matches(".txt"));
        if let Some((_, t)) = types.iter().find(|(i, _)| Some(*i) == id) {
            r.core_types.clone_from(t);
        }
    }
    rows
}

/// Read the rows of a Results.md table; header, alignment and malformed lines are skipped.
pub fn parse_table(md: &str) -> Vec<Reference> {
    md.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Reference> {
    let line = line.trim();
    let inner = line.strip_prefix('|')?;
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let cells: Vec<String> = inner.split('|').map(|c| unbold(c.trim())).collect();
    if cells.len() < 10 || cells[0].starts_with("Device") || cells[0].starts_with("---") {
        return None;
    }
    let (label, log) = link(&cells[0]);
    let soc = label
        .rfind(" (")
        .filter(|_| label.ends_with(')'))
        .map(|i| label[i + 2..label.len() - 1].to_string());
    let (clock, throttled) = match cells[1].strip_suffix("(throttled)") {
        Some(c) => (c.trim_end().to_string(), true),
        None => (cells[1].clone(), false),
    };
    let num = |s: &str| -> Option<f64> { s.trim_start_matches('~').parse().ok() };
    Some(Reference {
        row: ResultsRow {
            device: label,
            clock,
            throttled,
            kernel: cells[2].clone(),
            distro_arch: cells[3].clone(),
            sevenzip_multi: num(&cells[4]).map(|v| v as u64),
            sevenzip_single: num(&cells[5]).map(|v| v as u64),
            aes256_16k: num(&cells[6]),
            memcpy_mb_s: num(&cells[7]),
            memset_mb_s: num(&cells[8]),
            scrypt_khs: num(&cells[9]),
            quick: false,
        },
        soc,
        log,
        core_types: Vec::new(),
        source_file: None,
    })
}

/// `**Xenial** arm64` → `Xenial arm64`.
fn unbold(s: &str) -> String {
    s.replace("**", "")
}

/// `[Name (SoC)](results/ID.txt)` → (`Name (SoC)`, `results/ID.txt`).
fn link(cell: &str) -> (String, Option<String>) {
    if let Some(rest) = cell.strip_prefix('[') {
        if let Some((label, url)) = rest.split_once("](") {
            return (
                label.to_string(),
                Some(url.trim_end_matches(')').to_string()).filter(|u| !u.is_empty()),
            );
        }
    }
    (cell.to_string(), None)
}

/// Is `stored` a copy of the published row `published` (the same run, imported from its
/// log): every figure both rows hold equal as Results.md rounds it, and at least two of
/// them. Two runs agreeing in two rounded figures by chance is not a case seen in the
/// corpus; a stored copy is then not listed beside its published row as a second board.
pub fn is_copy_of(stored: &ResultsRow, published: &ResultsRow) -> bool {
    use crate::record::results_row::round_tens;
    let tens = |v: Option<f64>| v.map(round_tens);
    let pairs = [
        (
            tens(stored.sevenzip_multi.map(|v| v as f64)),
            tens(published.sevenzip_multi.map(|v| v as f64)),
        ),
        (
            stored.sevenzip_single.map(|v| v as i64),
            published.sevenzip_single.map(|v| v as i64),
        ),
        (
            tens(stored.aes256_16k.map(f64::trunc)),
            tens(published.aes256_16k.map(f64::trunc)),
        ),
        (tens(stored.memcpy_mb_s), tens(published.memcpy_mb_s)),
        (tens(stored.memset_mb_s), tens(published.memset_mb_s)),
    ];
    let both: Vec<_> = pairs
        .iter()
        .filter_map(|(a, b)| Some(((*a)?, (*b)?)))
        .collect();
    both.len() >= 2 && both.iter().all(|(a, b)| a == b)
}

/// The stored references that are not copies of a published one.
pub fn without_copies(stored: Vec<Reference>, published: &[Reference]) -> Vec<Reference> {
    stored
        .into_iter()
        .filter(|s| !published.iter().any(|p| is_copy_of(&s.row, &p.row)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_table_has_all_its_rows() {
        let rows = published();
        assert_eq!(rows.len(), 258);
        let orin = &rows[0];
        assert_eq!(orin.row.device, "AAEON BOXER-8654AI (Orin NX)");
        assert_eq!(orin.soc.as_deref(), Some("Orin NX"));
        assert_eq!(orin.log.as_deref(), Some("results/87lq.txt"));
        assert_eq!(orin.row.clock, "1730 MHz");
        assert_eq!(orin.row.sevenzip_multi, Some(14820));
        assert_eq!(orin.row.sevenzip_single, Some(2379));
        assert_eq!(orin.row.aes256_16k, Some(973830.0));
        assert_eq!(orin.row.scrypt_khs, None);
        assert!(rows.iter().all(|r| !r.row.device.is_empty()));
        assert_eq!(orin.core_types, ["Cortex-A78AE"]);
        assert!(rows.iter().filter(|r| !r.core_types.is_empty()).count() >= 150);
    }

    /// Issue 31: a published log imported into the database was listed beside its own
    /// published row as a second board.
    #[test]
    fn a_stored_copy_of_a_published_row_is_not_a_second_board() {
        let rows = published();
        let orin = &rows[0];
        let mut copy = orin.row.clone();
        // The log's own figures, before Results.md rounds them.
        copy.sevenzip_multi = Some(14823);
        copy.aes256_16k = Some(973_826.4);
        let stored = Reference {
            row: copy.clone(),
            soc: orin.soc.clone(),
            log: Some("stored #1".into()),
            core_types: Vec::new(),
            source_file: None,
        };
        assert!(is_copy_of(&copy, &orin.row));
        assert!(without_copies(vec![stored.clone()], &rows).is_empty());
        let mut other = stored;
        other.row.sevenzip_multi = Some(15800);
        assert_eq!(without_copies(vec![other], &rows).len(), 1);
    }

    #[test]
    fn bold_marks_and_missing_cells_are_read() {
        let r = parse_line(
            "| [ODROID-XU4 (Exynos 5422)](results/1ixL.txt) | 1900/1400 MHz | 3.10 | **Jessie** armhf | 6750 | - | 68200 | 2200 | 4800 | - |",
        )
        .unwrap();
        assert_eq!(r.row.distro_arch, "Jessie armhf");
        assert_eq!(r.row.sevenzip_single, None);
        assert_eq!(r.soc.as_deref(), Some("Exynos 5422"));
        assert_eq!(parse_line("| Device / details | Clockspeed |"), None);
        assert_eq!(parse_line("garbage"), None);
    }
}
