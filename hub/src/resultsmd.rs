//! `/Results.md`: the verified results as sbc-bench's Results.md table, in its format byte
//! for byte (its header and alignment lines, one row per result as sbc-bench prints rows,
//! the device cell a link to the raw log, rows ordered by device name without case).
//! A result imported from the published corpus keeps the maintainer's device, clock and
//! distro cells; its figures are always the ones the hub read from the log.

use crate::store::Summary;

/// The published table's header and alignment lines.
pub const HEADER: &str = "| Device / details | Clockspeed | Kernel | Distro | 7-zip multi | 7-zip single | AES | memcpy | memset | kH/s |\n| ----- | :--------: | :----: | :----: | ----: | ------: | ------: | -----: | -----: | ---: |\n";

/// Markdown's special characters in a cell that came from an upload, escaped so a device
/// name can neither break the table nor become a link or markup.
pub fn escape_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\|[]<>*_`".contains(c) {
            out.push('\\');
        }
        if c.is_control() {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// One result's row.
pub fn row(s: &Summary) -> String {
    let mut r = s.results_row();
    r.device = match &s.label_md {
        Some(md) => md.clone(),
        None => format!(
            "[{}](results/{}.{})",
            escape_cell(&s.label),
            s.id,
            s.raw_ext()
        ),
    };
    if let Some(c) = &s.clock_md {
        r.clock.clone_from(c);
        r.throttled = false;
        r.quick = false;
    } else {
        r.clock = escape_cell(&r.clock);
    }
    r.distro_arch = match &s.distro_md {
        Some(d) => d.clone(),
        None => escape_cell(&r.distro_arch),
    };
    r.kernel = escape_cell(&r.kernel);
    r.render()
}

/// The whole table.
pub fn table(rows: &[Summary]) -> String {
    let mut out = String::from(HEADER);
    for s in rows {
        out.push_str(&row(s));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_from_uploads_cannot_make_markup() {
        assert_eq!(
            escape_cell("[x](javascript:1) | <b>"),
            "\\[x\\](javascript:1) \\| \\<b\\>"
        );
        assert_eq!(
            escape_cell("Radxa ROCK 5B (RK3588)"),
            "Radxa ROCK 5B (RK3588)"
        );
    }

    #[test]
    fn the_header_is_the_published_one() {
        let published = sbc_bench::results::reference::PUBLISHED;
        let lines: Vec<&str> = published.lines().skip(1).take(2).collect();
        assert_eq!(HEADER, format!("{}\n{}\n", lines[0], lines[1]));
    }
}
