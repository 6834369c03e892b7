//! `sbc-bench report`: the HTML (and Markdown) report of one run, from the results
//! database, a run JSON or a log. Its data, with the comparison with known boards, is
//! `results::view::report_data`; the renderers are `report::page::html` and
//! `report::page::markdown`; the page written beside the log after every run is
//! `run::page`.

use std::path::{Path, PathBuf};

use crate::cli::UsageError;
use crate::cli::report::{DEFAULT_HTML, ReportArgs};
use crate::output::Outcome;
use crate::report::page::{html, markdown};
use crate::results::lookup;

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
    let (d, known) = crate::results::view::report_data(&t, a.db.db.as_deref());
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
