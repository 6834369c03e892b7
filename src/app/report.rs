//! `sbc-bench report`: the HTML (and Markdown) report of one run, from the results
//! database, a run JSON or a log; and the page written beside the log after every run.
//! Reading the database and the comparison with known boards are wiring here; the
//! renderers are `report::html` and `report::page_md`.

use std::path::{Path, PathBuf};

use crate::cli::report::{DEFAULT_HTML, ReportArgs};
use crate::cli::results::{DbArg, parse_id};
use crate::output::Outcome;
use crate::record::run::RunReport;
use crate::report::page::{self, Bar, ComparisonView, ReportData};
use crate::report::redact::Known;
use crate::report::{html, page_md};
use crate::results::compare::{self, Metric, Selection};
use crate::results::document::{self, Parsed};
use crate::results::reference;
use crate::results::store::Store;

/// One document to report on.
struct Target {
    /// What was read from it.
    parsed: Parsed,
    /// The document: our run JSON or a log.
    document: String,
    /// Its number in the database.
    stored_id: Option<i64>,
}

fn target(a: &ReportArgs) -> Result<Target, String> {
    let given = a.run.as_ref().map(|p| p.to_string_lossy().into_owned());
    let id = given.as_deref().and_then(|g| {
        (g.starts_with('#') || !Path::new(g).exists())
            .then(|| parse_id(g).ok())
            .flatten()
    });
    let open = || -> Result<Store, String> {
        let path = crate::app::results::db_path(&a.db)
            .ok_or("no results database: give --db PATH (HOME is not set)")?;
        if !path.is_file() {
            return Err(format!(
                "no results database at {} (run `sbc-bench` first, or name a run JSON or log)",
                path.display()
            ));
        }
        Store::open(&path).map_err(|e| e.to_string())
    };
    let stored = |s: &Store, id: i64| -> Result<Target, String> {
        let (parsed, document) = s.record(id).map_err(|e| e.to_string())?;
        Ok(Target {
            parsed,
            document,
            stored_id: Some(id),
        })
    };
    if let Some(id) = id {
        return stored(&open()?, id);
    }
    if let Some(file) = &a.run {
        let text = crate::app::results::read_file(file)?;
        let (document, parsed) = if document::is_run_json(&text) {
            let p = document::from_run_json(&text);
            (text, p)
        } else {
            let last = document::split_runs(&text)
                .pop()
                .unwrap_or(&text)
                .to_string();
            let p = document::parse_log_run(&last);
            (last, p)
        };
        let parsed = parsed.map_err(|e| format!("{}: {e}", file.display()))?;
        return Ok(Target {
            parsed,
            document,
            stored_id: None,
        });
    }
    let s = open()?;
    match s.last().map_err(|e| e.to_string())? {
        Some(id) => stored(&s, id),
        None => Err(format!(
            "no stored run in {}: run `sbc-bench` first, or name a run JSON or log",
            s.path().display()
        )),
    }
}

/// The run beside the published rows of its SoC (else its core types) and the stored
/// runs, by 7-Zip multi-core score.
fn comparison(p: &Parsed, db: &DbArg, except: Option<i64>) -> Option<ComparisonView> {
    let mut refs = reference::published();
    refs.extend(crate::app::results::stored_references(db, except));
    let selection = crate::app::results::default_selection(p, &refs)?;
    let label = match &selection {
        Selection::Soc(s) => format!("Published rows of SoC {s}"),
        Selection::Device(d) => format!("Published rows of devices named {d}"),
        Selection::CoreType(t) => format!("Published rows with {t} cores"),
        Selection::CoreTypes(t) => format!("Published rows with {} cores", t.join(" + ")),
    };
    let metric = Metric::SevenzipMulti;
    let c = compare::compare(&p.log.results_row, &refs, selection, metric);
    let bars = c
        .rows
        .iter()
        .filter_map(|r| {
            Some(Bar {
                label: r.row.device.clone(),
                value: metric.of(&r.row)?,
                this_run: r.this_run,
            })
        })
        .collect();
    Some(ComparisonView {
        metric: metric.name().into(),
        selection: label,
        bars,
        why: c.why,
    })
}

fn report_data(t: &Target, db: &DbArg) -> (ReportData, Known) {
    let run = (t.parsed.format == document::FORMAT_RUN_JSON)
        .then(|| crate::record::read::run_report(&t.document).ok())
        .flatten();
    let (mut d, known) = match &run {
        Some(r) => (ReportData::from_run(r), page::known_of_run(r)),
        None => {
            let device = t.parsed.log.results_row.device.clone();
            (
                document::log_report(&t.parsed),
                Known {
                    hostname: None,
                    hardware: vec![device],
                },
            )
        }
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
    let t = match target(a) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Usage);
        }
    };
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
        if let Err(e) = write(p, &page_md::render(&d), "Markdown report") {
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

/// After a standard run, before it is stored in `db`: its page, redacted, beside the log.
/// A page that cannot be written costs the run nothing but a warning.
pub fn write_beside_log(r: &RunReport, log: &Path, db: Option<&Path>) {
    let path = beside(log);
    let mut d = ReportData::from_run(r);
    let db = DbArg {
        db: db.map(Path::to_path_buf),
    };
    // Written before the run is stored: it is not among the stored rows.
    d.comparison = comparison(&document::from_run(r), &db, None);
    let d = d.redacted(&page::known_of_run(r));
    match std::fs::write(&path, html::render(&d)) {
        Ok(()) => println!("HTML report in {}", path.display()),
        Err(e) => eprintln!(
            "warning: the HTML report was not written to {}: {e}",
            path.display()
        ),
    }
}
