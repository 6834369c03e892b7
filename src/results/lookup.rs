//! Finding the run a command is about (`compare`, `share`, `report`, `results import`):
//! a stored run's number, a file, or the default (the last stored run where a database
//! exists, else the default log), read back into the model. What the user typed becomes
//! a [`RunRef`] in `cli/`; everything here reads only the files and database it names.

use std::path::{Path, PathBuf};

use crate::record::config::DEFAULT_LOG;
use crate::results::compare::Selection;
use crate::results::document::{self, DocError, Parsed};
use crate::results::reference::Reference;
use crate::results::sbclog;
use crate::results::store::{self, Store};

/// The largest result file read (a log is tens of KiB, a run JSON a few MiB).
const MAX_FILE: u64 = 64 << 20;

/// The run a command names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunRef {
    /// A stored run's number (`#12`, or `12` when no such file exists).
    Stored(i64),
    /// A log or run JSON.
    File(PathBuf),
    /// Nothing given.
    Default,
}

/// The database `db` names, else the default one (`None`: HOME is not set).
pub fn db_path(db: Option<&Path>) -> Option<PathBuf> {
    db.map(Path::to_path_buf).or_else(|| {
        store::default_path(nix::unistd::geteuid().is_root(), &|k| std::env::var(k).ok())
    })
}

/// The files a path names: itself, or the regular files in a directory, sorted.
pub fn files_of(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect();
    out.sort();
    Ok(out)
}

/// The documents of one file: a run JSON, or each run of a log.
pub fn documents(text: &str) -> Vec<(String, Result<Parsed, DocError>)> {
    if document::is_run_json(text) {
        return vec![(text.to_string(), document::from_run_json(text))];
    }
    document::split_runs(text)
        .into_iter()
        .map(|run| (run.to_string(), document::parse_log_run(run)))
        .collect()
}

/// Why a file gave no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileError {
    /// It could not be read (permissions, I/O).
    #[error("{0}")]
    Unreadable(String),
    /// It was read, but it is no result file (a directory, FIFO or device, a file over
    /// 64 MiB, binary data, a line longer than any log's).
    #[error("{0}")]
    NotAResult(String),
}

impl From<FileError> for String {
    fn from(e: FileError) -> String {
        e.to_string()
    }
}

/// A result file's bytes, never blocking: a FIFO or device given by mistake is refused,
/// not waited on; a directory or a file over 64 MiB is not a result file.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, FileError> {
    use crate::files::read::{self, not_regular, too_large};
    read::read_limited(path, MAX_FILE).map_err(|e| match not_regular(&e) {
        Some(n) if n.what == "a directory" => FileError::NotAResult(format!(
            "{} is a directory, not a result file",
            path.display()
        )),
        Some(n) => FileError::NotAResult(format!(
            "{} is not a regular file ({} is not a result file)",
            path.display(),
            n.what
        )),
        None if too_large(&e) => FileError::NotAResult(format!(
            "{} is larger than {} MiB: not a result file",
            path.display(),
            MAX_FILE >> 20
        )),
        None => FileError::Unreadable(format!("cannot read {}: {e}", path.display())),
    })
}

/// A result file as text, with the lines that were not UTF-8 (a log pasted through a
/// Latin-1 terminal; read with replacement characters). A run JSON is taken whole; a log
/// with binary data or a runaway line is no result, named with the line.
pub fn read_text(path: &Path) -> Result<(String, Vec<usize>), FileError> {
    let bytes = read_bytes(path)?;
    let json = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{');
    if json {
        return Ok((String::from_utf8_lossy(&bytes).into_owned(), Vec::new()));
    }
    sbclog::decode(&bytes).map_err(|e| FileError::NotAResult(format!("{}: {e}", path.display())))
}

/// A result file's text (see [`read_text`]).
pub fn read_file(path: &Path) -> Result<String, FileError> {
    read_text(path).map(|(t, _)| t)
}

/// The note a record gets for lines that were not UTF-8.
fn encoding_note(lines: &[usize]) -> Option<String> {
    let shown: Vec<String> = lines.iter().take(5).map(usize::to_string).collect();
    let more = if lines.len() > 5 { ", …" } else { "" };
    (!lines.is_empty()).then(|| {
        format!(
            "line{} {}{more}: not UTF-8 (read with replacement characters)",
            if lines.len() > 1 { "s" } else { "" },
            shown.join(", ")
        )
    })
}

/// Read a result file: our run JSON, or a log (the last run in it: the default log
/// holds every run appended).
pub fn read_result(path: &Path) -> Result<Parsed, String> {
    let (text, not_utf8) = read_text(path)?;
    let mut p = document::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    p.log.unread.extend(encoding_note(&not_utf8));
    Ok(p)
}

/// How `compare` names a run: `#12` when stored, else its file's name.
pub fn run_label(run: &Path, id: Option<i64>) -> String {
    match id {
        Some(id) => format!("#{id}"),
        None => run.file_name().map_or_else(
            || run.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        ),
    }
}

/// The stored runs `q` selects, oldest first when it sorts by date, each labelled
/// `#12 2026-01-31` for `compare --history`.
pub fn stored_runs(
    s: &Store,
    q: &store::ListQuery,
) -> Result<Vec<(String, Parsed)>, store::StoreError> {
    let mut runs = Vec::new();
    for e in s.list(q)? {
        let (p, _) = s.record(e.id)?;
        runs.push((
            format!("#{} {}", e.id, e.date.as_deref().unwrap_or("(no date)")),
            p,
        ));
    }
    Ok(runs)
}

/// The run `compare` was asked about, with the id of the stored run (so that it is not
/// compared with itself). By default the last stored run with figures (when the
/// database exists: compare creates none), else the default log.
pub fn compare_target(run: &RunRef, db: Option<&Path>) -> Result<(Parsed, Option<i64>), String> {
    let path = db_path(db);
    let stored = |s: &Store, id: i64| {
        s.record(id)
            .map(|(mut p, doc)| {
                if !document::is_run_json(&doc) {
                    crate::results::sbclog::refresh_soc_guess(&mut p.log, &doc);
                }
                (p, Some(id))
            })
            .map_err(|e| e.to_string())
    };
    match run {
        RunRef::Stored(id) => {
            let path = path.ok_or("no results database: give --db PATH")?;
            return stored(&Store::open(&path).map_err(|e| e.to_string())?, *id);
        }
        RunRef::File(file) => {
            let text = read_file(file)?;
            let p = document::parse(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            // The same run imported before is this run, not another row beside it.
            let id = path
                .filter(|p| p.is_file())
                .and_then(|p| Store::open(&p).ok())
                .and_then(|s| s.find(this_document(&text)).ok().flatten());
            return Ok((p, id));
        }
        RunRef::Default => {}
    }
    if let Some(path) = path.filter(|p| p.is_file()) {
        let s = Store::open(&path).map_err(|e| e.to_string())?;
        if let Some(id) = s.last_with_figures().map_err(|e| e.to_string())? {
            return stored(&s, id);
        }
    }
    read_result(Path::new(DEFAULT_LOG))
        .map(|p| (p, None))
        .map_err(|e| {
            format!(
                "{e}\n(no run given: run `sbc-bench` first, or name a log, run JSON or stored run)"
            )
        })
}

/// The part of a result file that is stored as one run: a run JSON whole, else the
/// log's last run (what [`document::parse`] reads).
fn this_document(text: &str) -> &str {
    if document::is_run_json(text) {
        return text;
    }
    document::split_runs(text).pop().unwrap_or(text)
}

/// The runs in the database beside the published rows (all but `except`), each with
/// a name and figures.
pub fn stored_references(db: Option<&Path>, except: Option<i64>) -> Vec<Reference> {
    let Some(path) = db_path(db).filter(|p| p.is_file()) else {
        return Vec::new();
    };
    let Ok(s) = Store::open(&path) else {
        return Vec::new();
    };
    s.list(&store::ListQuery::default())
        .unwrap_or_default()
        .into_iter()
        .filter(|e| Some(e.id) != except)
        .filter_map(|e| stored_reference(&s, e.id, e.source_path.as_deref()))
        .collect()
}

fn stored_reference(s: &Store, id: i64, source_path: Option<&str>) -> Option<Reference> {
    let (mut p, doc) = s.record(id).ok()?;
    if !document::is_run_json(&doc) {
        crate::results::sbclog::refresh_soc_guess(&mut p.log, &doc);
    }
    let mut row = p.log.results_row.clone();
    let no_figures = row.sevenzip_multi.is_none()
        && row.sevenzip_single.is_none()
        && row.aes256_16k.is_none()
        && row.memcpy_mb_s.is_none()
        && row.memset_mb_s.is_none()
        && row.scrypt_khs.is_none();
    if row.device.is_empty() || no_figures {
        return None;
    }
    row.kernel = crate::record::results_row::kernel_major_minor(&row.kernel);
    Some(Reference {
        soc: store::soc_of(&p),
        row,
        log: Some(format!("stored #{id}")),
        core_types: p.log.core_types.clone(),
        source_file: source_path
            .and_then(|f| f.rsplit('/').next())
            .filter(|f| !f.is_empty())
            .map(str::to_string),
    })
}

/// `compare`'s default rows: those of the run's SoC, else of its core types.
pub fn default_selection(r: &Parsed, refs: &[Reference]) -> Option<Selection> {
    let soc = r
        .log
        .soc_guess
        .as_deref()
        .and_then(Selection::from_soc_guess)
        .filter(|s| s.matches_any(refs));
    let types =
        Some(Selection::CoreTypes(r.log.core_types.clone())).filter(|s| s.matches_any(refs));
    soc.or(types)
}

/// The log `share` sends: the run's log text, the stored run's number when it came from
/// the database, and the hostname to redact where the run JSON names it.
pub type ShareSource = (String, Option<i64>, Option<String>);

fn share_from_store(s: &Store, id: i64) -> Result<ShareSource, String> {
    let log = s
        .log_text(id)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("run #{id} was imported as a run JSON and has no log to share"))?;
    let host = s
        .record(id)
        .ok()
        .and_then(|(_, doc)| crate::record::read::run_report(&doc).ok())
        .and_then(|r| r.system_before.hostname);
    Ok((log, Some(id), host))
}

/// What `share` sends: a stored run's log, a log file's last run, or by default the
/// last stored run's log (else the default log). A run JSON is refused.
pub fn share_source(run: &RunRef, db: Option<&Path>) -> Result<ShareSource, String> {
    let file = match run {
        RunRef::Stored(id) => {
            let path = db_path(db).ok_or("no results database: give --db PATH")?;
            let s = Store::open(&path).map_err(|e| e.to_string())?;
            return share_from_store(&s, *id);
        }
        RunRef::File(f) => f.clone(),
        RunRef::Default => {
            if let Some(path) = db_path(db).filter(|p| p.is_file()) {
                let s = Store::open(&path).map_err(|e| e.to_string())?;
                if let Some(id) = s.last().map_err(|e| e.to_string())?
                    && let Ok(r) = share_from_store(&s, id)
                {
                    return Ok(r);
                }
            }
            PathBuf::from(DEFAULT_LOG)
        }
    };
    let text = read_file(&file)?;
    if document::is_run_json(&text) {
        return Err(format!(
            "{}: a run JSON; share the run's log instead",
            file.display()
        ));
    }
    let last = document::split_runs(&text)
        .pop()
        .ok_or_else(|| format!("{}: empty", file.display()))?
        .to_string();
    document::parse_log_run(&last).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok((last, None, None))
}

/// What an import says as it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// A file or run that could not be read (the sentence, without `error: `).
    Unreadable(String),
    /// A file or run that is no result (a README, a Geekbench page, a binary): named as
    /// such, with why.
    NotAResult(String),
    /// A line for stdout: what was stored, or stored before.
    Line(String),
}

/// How an import went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Runs stored.
    pub new: usize,
    /// Runs stored before (the same document, or the same run in another document).
    pub dup: usize,
    /// Files or runs that are no results.
    pub not_results: usize,
    /// Files or runs that could not be read.
    pub bad: usize,
}

/// Import every run of every file `paths` name (a directory: its regular files), saying
/// each as it is stored; each file's runs in one transaction. A database error stops the
/// import (the file being stored is not half-stored).
pub fn import(
    s: &Store,
    paths: &[PathBuf],
    say: &mut dyn FnMut(Said),
) -> Result<Tally, store::StoreError> {
    let mut t = Tally::default();
    for p in paths {
        let files = files_of(p).unwrap_or_else(|e| {
            say(Said::Unreadable(e));
            t.bad += 1;
            Vec::new()
        });
        for f in files {
            match read_text(&f) {
                Ok((text, not_utf8)) => import_text(s, &f, &text, &not_utf8, &mut t, say)?,
                Err(FileError::NotAResult(e)) => {
                    say(Said::NotAResult(e));
                    t.not_results += 1;
                }
                Err(FileError::Unreadable(e)) => {
                    say(Said::Unreadable(e));
                    t.bad += 1;
                }
            }
        }
    }
    Ok(t)
}

/// Import the runs of one file's text.
fn import_text(
    s: &Store,
    f: &Path,
    text: &str,
    not_utf8: &[usize],
    t: &mut Tally,
    say: &mut dyn FnMut(Said),
) -> Result<(), store::StoreError> {
    let mut docs = documents(text);
    if docs.is_empty() {
        say(Said::NotAResult(format!("{}: empty", f.display())));
        t.not_results += 1;
        return Ok(());
    }
    let path = f.display().to_string();
    let name = |i: usize, n: usize| match n {
        1 => path.clone(),
        n => format!("{path} (run {} of {n})", i + 1),
    };
    let n = docs.len();
    let mut runs = Vec::new();
    let mut names = Vec::new();
    for (i, (_, parsed)) in docs.iter_mut().enumerate() {
        match parsed {
            Ok(p) => {
                p.log.unread.extend(encoding_note(not_utf8));
                names.push(name(i, n));
            }
            Err(e) if e.is_not_a_result() => {
                say(Said::NotAResult(format!("{}: {e}", name(i, n))));
                t.not_results += 1;
            }
            Err(e) => {
                say(Said::Unreadable(format!("{}: {e}", name(i, n))));
                t.bad += 1;
            }
        }
    }
    for (doc, parsed) in &docs {
        if let Ok(parsed) = parsed {
            runs.push(store::NewRun {
                source: store::Source::Import,
                source_path: Some(&path),
                document: doc,
                parsed,
                log_text: None,
                kernel_bsp: None,
            });
        }
    }
    let done = s.insert_all(&runs)?;
    for ((r, inserted), name) in runs.iter().zip(done).zip(names) {
        let parsed = r.parsed;
        match inserted {
            store::Inserted::New(id) => {
                t.new += 1;
                let dev = parsed.log.results_row.device.as_str();
                let dev = if dev.is_empty() {
                    "device not named"
                } else {
                    dev
                };
                say(Said::Line(format!("#{id}  {name}: {dev}")));
                if !parsed.log.unread.is_empty() {
                    let unread = parsed.log.unread.join("; ");
                    say(Said::Line(format!("      not in the file: {unread}")));
                }
            }
            store::Inserted::Duplicate(id) => {
                t.dup += 1;
                say(Said::Line(format!(
                    "#{id}  {name}: stored before, not again"
                )));
            }
            store::Inserted::SameRun(id) => {
                t.dup += 1;
                say(Said::Line(format!(
                    "#{id}  {name}: the same run is stored (from its other document), not again"
                )));
            }
            store::Inserted::Upgraded(id) => {
                t.dup += 1;
                say(Said::Line(format!(
                    "#{id}  {name}: the same run was stored from its log; its run JSON replaces it there"
                )));
            }
        }
    }
    Ok(())
}

/// The text `share` sends: the log redacted (docs/PRIVACY.md, the run's hostname too)
/// unless `redact` is false.
pub fn share_text(log: String, hostname: Option<String>, redact: bool) -> String {
    if !redact {
        return log;
    }
    let known = crate::report::redact::Known {
        hostname,
        hardware: Vec::new(),
    };
    crate::report::redact::redact(&log, &known)
}

/// Store the receipt of a share (`results show` lists it): the URL and the SHA-256 of
/// what was sent, with the stored run's number when it came from the database.
pub fn store_receipt(
    db: Option<&Path>,
    id: Option<i64>,
    url: &str,
    text: &str,
) -> Result<(), String> {
    let sha = store::sha256_hex(text.as_bytes());
    let path = db_path(db).ok_or_else(|| "no results database".to_string())?;
    let s = Store::open(&path).map_err(|e| e.to_string())?;
    s.add_share(id, url, &sha).map_err(|e| e.to_string())
}

/// One document to report on.
pub struct ReportTarget {
    /// What was read from it.
    pub parsed: Parsed,
    /// The document: our run JSON or a log.
    pub document: String,
    /// Its number in the database.
    pub stored_id: Option<i64>,
}

/// The document `report` is about: a stored run, a run JSON or log (its last run), or
/// by default the last stored run.
pub fn report_target(run: &RunRef, db: Option<&Path>) -> Result<ReportTarget, String> {
    let open = || -> Result<Store, String> {
        let path = db_path(db).ok_or("no results database: give --db PATH (HOME is not set)")?;
        if !path.is_file() {
            return Err(format!(
                "no results database at {} (run `sbc-bench` first, or name a run JSON or log)",
                path.display()
            ));
        }
        Store::open(&path).map_err(|e| e.to_string())
    };
    let stored = |s: &Store, id: i64| -> Result<ReportTarget, String> {
        let (parsed, document) = s.record(id).map_err(|e| e.to_string())?;
        Ok(ReportTarget {
            parsed,
            document,
            stored_id: Some(id),
        })
    };
    if let RunRef::Stored(id) = run {
        return stored(&open()?, *id);
    }
    if let RunRef::File(file) = run {
        let text = read_file(file)?;
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
        return Ok(ReportTarget {
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
