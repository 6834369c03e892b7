//! `sbc-bench report`: the HTML (and Markdown) report of one run, from the results
//! database, a run JSON or a log; and the page written beside the log after every run.
//! Reading the database and the comparison with known boards are wiring here; the
//! renderers are `report::html` and `report::page_md`.

use std::path::{Path, PathBuf};

use crate::cli::report::{DEFAULT_HTML, ReportArgs};
use crate::cli::results::{DbArg, parse_id};
use crate::output::Outcome;
use crate::record::run::RunReport;
use crate::report::page::{self, Bar, ComparisonView, ReportData, Verdict};
use crate::report::redact::Known;
use crate::report::{html, page_md};
use crate::results::compare::{self, Metric, Selection};
use crate::results::document::{self, Parsed};
use crate::results::reference;
use crate::results::store::Store;

/// Why the charts of an imported sbc-bench log are empty.
const LOG_MISSING: &str = "the document is a text log, which is read for its Results.md \
figures only (make the report from the run JSON or the stored run for charts)";

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
        let path = crate::results::lookup::db_path(a.db.db.as_deref())
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
        let text = crate::results::lookup::read_file(file)?;
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

/// The report of a log of the bash sbc-bench (or an appended one of ours): what the
/// row and the header say.
fn from_log(p: &Parsed) -> ReportData {
    let l = &p.log;
    let row = &l.results_row;
    let mut summary = Vec::new();
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            summary.push((k.to_string(), v));
        }
    };
    push("Device", Some(row.device.clone()));
    push("SoC guess", l.soc_guess.clone());
    push(
        "Core types",
        (!l.core_types.is_empty()).then(|| l.core_types.join(", ")),
    );
    push("Kernel", l.kernel_release.clone());
    push("Distro", Some(row.distro_arch.clone()));
    push("Date", l.date.clone());
    push("Mode", l.mode.clone());
    push(
        "Measured clocks",
        (!p.extra.clocks_mhz.is_empty()).then(|| {
            p.extra
                .clocks_mhz
                .iter()
                .map(|c| format!("{c} MHz"))
                .collect::<Vec<_>>()
                .join(", ")
        }),
    );
    push(
        "ramlat 16 MiB / 128 MiB",
        p.extra.ramlat_16m_ns.map(|a| match p.extra.ramlat_128m_ns {
            Some(b) => format!("{a:.1} ns / {b:.1} ns"),
            None => format!("{a:.1} ns"),
        }),
    );
    push(
        "Not in the file",
        (!l.unread.is_empty()).then(|| l.unread.join("; ")),
    );
    ReportData {
        title: if row.device.is_empty() {
            "n/a".into()
        } else {
            row.device.clone()
        },
        source: format!(
            "{}, sbc-bench {}",
            p.format,
            l.version.as_deref().unwrap_or("(version not stated)")
        ),
        summary,
        verdict: Verdict::from_word(p.extra.verdict.as_deref()),
        results_row: Some(row.clone()),
        missing: LOG_MISSING.into(),
        ..ReportData::default()
    }
}

/// The run beside the published rows of its SoC (else its core types) and the stored
/// runs, by 7-Zip multi-core score.
fn comparison(p: &Parsed, db: &DbArg, except: Option<i64>) -> Option<ComparisonView> {
    let mut refs = reference::published();
    refs.extend(crate::results::lookup::stored_references(
        db.db.as_deref(),
        except,
    ));
    let selection = crate::results::lookup::default_selection(p, &refs)?;
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
    let json = (t.parsed.format == document::FORMAT_RUN_JSON)
        .then(|| serde_json::from_str::<serde_json::Value>(&t.document).ok())
        .flatten();
    let (mut d, known) = match &json {
        Some(v) => (ReportData::from_run_json(v), page::known_of_run_json(v)),
        None => {
            let device = t.parsed.log.results_row.device.clone();
            (
                from_log(&t.parsed),
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
    let json = serde_json::to_value(r).unwrap_or_default();
    if let Ok(parsed) = document::from_run_json(&json.to_string()) {
        let db = DbArg {
            db: db.map(Path::to_path_buf),
        };
        // Written before the run is stored: it is not among the stored rows.
        d.comparison = comparison(&parsed, &db, None);
    }
    let d = d.redacted(&page::known_of_run_json(&json));
    match std::fs::write(&path, html::render(&d)) {
        Ok(()) => println!("HTML report in {}", path.display()),
        Err(e) => eprintln!(
            "warning: the HTML report was not written to {}: {e}",
            path.display()
        ),
    }
}
