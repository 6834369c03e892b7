//! `sbc-bench results …`: wiring. Reading files and importing is `results::lookup`, the
//! database `results::store`, the text `report::text::stored`.

use crate::cli::UsageError;
use crate::cli::results::{
    DbArg, DeleteArgs, ExportArgs, ExportFormat, ImportArgs, ListArgs, ParseArgs, ResultsArgs,
    ResultsCommand, ShowArgs,
};
use crate::output::schema::{self, stamp};
use crate::output::{Outcome, escape_controls};
use crate::report::text::stored;
use crate::results::lookup::{self, Said};
use crate::results::store::{Entry, Store, StoreError};

/// Run `results …`.
pub fn run(a: &ResultsArgs) -> anyhow::Result<Outcome> {
    match &a.command {
        ResultsCommand::Parse(p) => parse(p),
        ResultsCommand::Import(i) => import(&open(&a.db)?, i),
        ResultsCommand::List(l) => list(&open(&a.db)?, l),
        ResultsCommand::Show(x) => show(&open(&a.db)?, x),
        ResultsCommand::Export(e) => export(&open(&a.db)?, e),
        ResultsCommand::Delete(d) => delete(&open(&a.db)?, d),
    }
}

/// The database; one that cannot be opened is a usage error.
fn open(db: &DbArg) -> Result<Store, UsageError> {
    Store::open(&db.path()?).map_err(|e| e.to_string().into())
}

/// A run that is not there is a usage error (status 2); the database failing (read-only,
/// full, damaged) is an error (1), as `import` says it.
fn by_kind(e: StoreError) -> anyhow::Error {
    match e {
        StoreError::NoSuchRun(_) => UsageError::new(e.to_string()).into(),
        e => e.into(),
    }
}

/// The exit status of an import: 1 when a file could not be read (it may hold results
/// that were not stored), else 2 when some files were no results, else 0.
fn import(s: &Store, a: &ImportArgs) -> anyhow::Result<Outcome> {
    let t = lookup::import(s, &a.paths, &mut |said| match said {
        Said::Unreadable(e) => eprintln!("error: {}", escape_controls(&e)),
        Said::NotAResult(e) => eprintln!("not a result: {}", escape_controls(&e)),
        Said::Line(l) => println!("{}", escape_controls(&l)),
    })?;
    let db = s.path().display();
    println!(
        "{} stored, {} stored before, {} not results, {} unreadable; database {db}",
        t.new, t.dup, t.not_results, t.bad
    );
    Ok(if t.bad > 0 {
        Outcome::Failed
    } else if t.not_results > 0 {
        Outcome::Usage
    } else {
        Outcome::Ok
    })
}

/// `results list --json` and `results export --format json`: the rows, under a name and
/// version.
#[derive(serde::Serialize)]
struct Runs<'a> {
    runs: &'a [Entry],
}

fn list(s: &Store, a: &ListArgs) -> anyhow::Result<Outcome> {
    let rows = s.list(&a.query())?;
    if a.json {
        let doc = Runs { runs: &rows };
        print!("{}", schema::pretty(&stamp(schema::RESULTS_LIST, &doc))?);
    } else if rows.is_empty() {
        println!("No stored runs in {}.", s.path().display());
    } else {
        let lines: Vec<_> = rows.iter().map(Entry::list_row).collect();
        print!("{}", escape_controls(&stored::list_table(&lines)));
    }
    Ok(Outcome::Ok)
}

fn show(s: &Store, a: &ShowArgs) -> anyhow::Result<Outcome> {
    let (parsed, doc) = s.record(a.id).map_err(by_kind)?;
    if a.document {
        // The document as stored, byte for byte, into a file or pipe; on a terminal its
        // control characters are shown, not obeyed.
        if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            print!("{}", escape_controls(&doc));
        } else {
            print!("{doc}");
        }
        if !doc.ends_with('\n') {
            println!();
        }
    } else if a.json {
        print!("{}", schema::pretty(&stamp(schema::RESULTS_SHOW, &parsed))?);
    } else {
        let e = s.entry(a.id)?;
        let head = stored::show_header(e.id, &e.source, e.source_path.as_deref(), &e.stored_at);
        let text = format!(
            "{head}{}{}",
            stored::parsed_text(&parsed.view()),
            stored::shared_lines(&s.shares(a.id)?)
        );
        print!("{}", escape_controls(&text));
    }
    Ok(Outcome::Ok)
}

fn delete(s: &Store, a: &DeleteArgs) -> anyhow::Result<Outcome> {
    s.delete(a.id).map_err(by_kind)?;
    println!("Deleted run #{}.", a.id);
    Ok(Outcome::Ok)
}

fn export(s: &Store, a: &ExportArgs) -> anyhow::Result<Outcome> {
    let rows = crate::results::view::shareable_entries(s, !a.no_redact)?;
    let out = match a.format {
        ExportFormat::Json => {
            schema::pretty(&stamp(schema::RESULTS_EXPORT, &Runs { runs: &rows }))?
        }
        ExportFormat::Csv => crate::results::export::csv(&rows)?,
        ExportFormat::Yaml => crate::results::export::yaml(&rows),
        ExportFormat::Geerling => crate::results::view::geerling_yaml_of(s, rows),
    };
    print!("{out}");
    Ok(Outcome::Ok)
}

fn parse(a: &ParseArgs) -> anyhow::Result<Outcome> {
    let r = lookup::read_result(&a.file).map_err(UsageError::from)?;
    if a.json {
        print!("{}", schema::pretty(&stamp(schema::RESULTS_PARSE, &r))?);
    } else {
        print!("{}", escape_controls(&stored::parsed_text(&r.view())));
    }
    Ok(Outcome::Ok)
}
