//! `sbc-bench report`: the HTML (and Markdown) report of one run, from the results
//! database, a run JSON or a log; and the page written beside the log after every run.
//! Reading the database and the comparison with known boards are wiring here; the
//! renderers are `report::page::html` and `report::page::markdown`.

use std::path::{Path, PathBuf};

use crate::cli::UsageError;
use crate::cli::report::{DEFAULT_HTML, ReportArgs};
use crate::cli::results::DbArg;
use crate::output::Outcome;
use crate::record::run::RunReport;
use crate::report::page::{self, ComparisonView, ReportData};
use crate::report::page::{html, markdown};
use crate::report::redact::Known;
use crate::results::document::{self, Parsed};
use crate::results::lookup::{self, ReportTarget};

/// The run beside the published rows of its SoC (else its core types) and the stored
/// runs, by 7-Zip multi-core score.
fn comparison(p: &Parsed, db: &DbArg, except: Option<i64>) -> Option<ComparisonView> {
    crate::results::view::comparison(p, db.db.as_deref(), except)
}

fn report_data(t: &ReportTarget, db: &DbArg) -> (ReportData, Known) {
    let run = (t.parsed.format == document::FORMAT_RUN_JSON)
        .then(|| crate::record::read::run_report(&t.document).ok())
        .flatten();
    let (mut d, known) = match &run {
        Some(r) => (ReportData::from_run(r), page::known_of_run(r)),
        // A log names no hardware provably (its device may be its hostname); the
        // hostname it states itself is redacted wherever it appears.
        None => (
            t.parsed.report_data(),
            Known {
                hostname: crate::report::redact::stated_hostnames(&t.document)
                    .into_iter()
                    .next(),
                hardware: Vec::new(),
            },
        ),
    };
    d.comparison = comparison(&t.parsed, db, t.stored_id);
    (d, known)
}

fn write(path: &Path, text: &str, what: &str) -> Result<(), String> {
    if path == Path::new("-") {
        print!("{text}");
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("{what} in {}", path.display());
    Ok(())
}

pub fn run(a: &ReportArgs) -> anyhow::Result<Outcome> {
    let run = crate::cli::results::run_ref(a.run.as_deref());
    let t = lookup::report_target(&run, a.db.db.as_deref()).map_err(UsageError::from)?;
    let (d, known) = report_data(&t, &a.db);
    let d = if a.no_redact { d } else { d.redacted(&known) };
    let html_path = match (&a.html, &a.markdown) {
        (None, None) => Some(PathBuf::from(DEFAULT_HTML)),
        (h, _) => h.clone(),
    };
    let mut failed = false;
    if let Some(p) = &html_path {
        if let Err(e) = write(p, &html::render(&d), "HTML report") {
            eprintln!("error: {e}");
            failed = true;
        }
    }
    if let Some(p) = &a.markdown {
        if let Err(e) = write(p, &markdown::render(&d), "Markdown report") {
            eprintln!("error: {e}");
            failed = true;
        }
    }
    Ok(if failed { Outcome::Failed } else { Outcome::Ok })
}

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
    let db = DbArg {
        db: db.map(Path::to_path_buf),
    };
    // Written before the run is stored: it is not among the stored rows.
    d.comparison = comparison(&document::from_run(r), &db, None);
    let d = d.redacted(&page::known_of_run(r));
    match crate::files::replace(&path, html::render(&d).as_bytes()) {
        Ok(()) => println!("HTML report in {}", path.display()),
        Err(e) => eprintln!("warning: the HTML report was not written: {e}"),
    }
}
