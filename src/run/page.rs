//! The report page written beside the log after a standard run (`<log stem>.html`),
//! with the comparison with known boards (`results::view::comparison`).

use std::path::{Path, PathBuf};

use crate::record::run::RunReport;
use crate::report::page::{self, ReportData, html};
use crate::results::document;

/// `<log stem>.html` beside the log: where the page of a run goes.
pub fn beside(log: &Path) -> PathBuf {
    log.with_extension("html")
}

/// After a standard run, before it is stored in `db`: its page, redacted, beside the log
/// (a regular file: the caller checks). Written as a new file or over a regular one,
/// atomically ([`crate::files::replace`]); a symlink or anything else found at
/// `<log stem>.html` is left alone — the user named the log, not that link, which
/// `p.html → victim` would have overwritten. Where the page went (or why not) is said;
/// a page that cannot be written costs the run nothing but a warning.
pub fn write_beside_log(r: &RunReport, log: &Path, db: Option<&Path>) {
    let path = beside(log);
    if let Ok(m) = std::fs::symlink_metadata(&path)
        && !m.is_file()
    {
        let what = if m.file_type().is_symlink() {
            "a symbolic link"
        } else {
            "not a regular file"
        };
        eprintln!(
            "warning: the HTML report was not written: {} is {what} (left as it is)",
            path.display()
        );
        return;
    }
    let mut d = ReportData::from_run(r);
    // Written before the run is stored: it is not among the stored rows.
    d.comparison = crate::results::view::comparison(&document::from_run(r), db, None);
    let d = d.redacted(&page::known_of_run(r));
    match crate::files::replace(&path, html::render(&d).as_bytes()) {
        Ok(()) => println!("HTML report in {}", path.display()),
        Err(e) => eprintln!("warning: the HTML report was not written: {e}"),
    }
}
