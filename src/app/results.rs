//! `sbc-bench results parse` and `sbc-bench compare`: read a result file (a log of the
//! bash sbc-bench or ours, or our run JSON) and print it, or set it beside the published
//! Results.md rows.

use std::io::Read;
use std::path::Path;

use crate::cli::results::{
    CompareArgs, DbArg, DeleteArgs, ExportArgs, ExportFormat, ImportArgs, ListArgs, ParseArgs,
    ResultsArgs, ResultsCommand, ShareArgs, ShowArgs,
};
use crate::output::Outcome;
use crate::record::config::DEFAULT_LOG;
use crate::results::compare::{self, Selection};
use crate::results::document::{self, Parsed};
use crate::results::reference::{self, Reference};
use crate::results::store::{self, Entry, Inserted, NewRun, Source, Store};

/// The largest result file read (a log is tens of KiB, a run JSON a few MiB).
const MAX_FILE: u64 = 64 << 20;

pub fn run(a: &ResultsArgs) -> anyhow::Result<Outcome> {
    match &a.command {
        ResultsCommand::Parse(p) => parse(p),
        ResultsCommand::Import(i) => with_store(&a.db, |s| import(s, i)),
        ResultsCommand::List(l) => with_store(&a.db, |s| list(s, l)),
        ResultsCommand::Show(x) => with_store(&a.db, |s| show(s, x)),
        ResultsCommand::Export(e) => with_store(&a.db, |s| export(s, e)),
        ResultsCommand::Delete(d) => with_store(&a.db, |s| delete(s, d)),
    }
}

/// The database `--db` names, else the default one.
pub fn db_path(db: &DbArg) -> Option<std::path::PathBuf> {
    db.db.clone().or_else(|| {
        store::default_path(nix::unistd::geteuid().is_root(), &|k| std::env::var(k).ok())
    })
}

fn with_store(
    db: &DbArg,
    f: impl FnOnce(&Store) -> anyhow::Result<Outcome>,
) -> anyhow::Result<Outcome> {
    let Some(path) = db_path(db) else {
        eprintln!("error: no results database: give --db PATH (HOME is not set)");
        return Ok(Outcome::Usage);
    };
    match Store::open(&path) {
        Ok(s) => f(&s),
        Err(e) => {
            eprintln!("error: {e}");
            Ok(Outcome::Usage)
        }
    }
}

/// The files a path names: itself, or the regular files in a directory, sorted.
fn files_of(path: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out: Vec<std::path::PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect();
    out.sort();
    Ok(out)
}

/// The documents of one file: a run JSON, or each run of a log.
fn documents(text: &str) -> Vec<(String, Result<Parsed, String>)> {
    if document::is_run_json(text) {
        return vec![(text.to_string(), document::from_run_json(text))];
    }
    document::split_runs(text)
        .into_iter()
        .map(|run| (run.to_string(), document::parse_log_run(run)))
        .collect()
}

fn import(s: &Store, a: &ImportArgs) -> anyhow::Result<Outcome> {
    let (mut new, mut dup, mut bad) = (0, 0, 0);
    for p in &a.paths {
        let files = match files_of(p) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("error: {e}");
                bad += 1;
                continue;
            }
        };
        for f in files {
            let text = match read_file(&f) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: {e}");
                    bad += 1;
                    continue;
                }
            };
            let docs = documents(&text);
            let many = docs.len() > 1;
            for (i, (doc, parsed)) in docs.iter().enumerate() {
                let name = if many {
                    format!("{} (run {} of {})", f.display(), i + 1, docs.len())
                } else {
                    f.display().to_string()
                };
                let parsed = match parsed {
                    Ok(p) => p,
                    Err(e) => {
                        eprintln!("error: {name}: {e}");
                        bad += 1;
                        continue;
                    }
                };
                let path = f.display().to_string();
                let r = NewRun {
                    source: Source::Import,
                    source_path: Some(&path),
                    document: doc,
                    parsed,
                    log_text: None,
                    kernel_bsp: None,
                };
                match s.insert(&r)? {
                    Inserted::New(id) => {
                        new += 1;
                        let dev = &parsed.log.results_row.device;
                        println!(
                            "#{id}  {name}: {}",
                            if dev.is_empty() {
                                "device not named"
                            } else {
                                dev
                            }
                        );
                        if !parsed.log.unread.is_empty() {
                            println!("      not in the file: {}", parsed.log.unread.join("; "));
                        }
                    }
                    Inserted::Duplicate(id) => {
                        dup += 1;
                        println!("#{id}  {name}: stored before, not again");
                    }
                }
            }
        }
    }
    println!(
        "{new} stored, {dup} stored before, {bad} unreadable; database {}",
        s.path().display()
    );
    Ok(if bad > 0 { Outcome::Usage } else { Outcome::Ok })
}

fn cell(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("-")
}

fn list(s: &Store, a: &ListArgs) -> anyhow::Result<Outcome> {
    let rows = s.list()?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(Outcome::Ok);
    }
    if rows.is_empty() {
        println!("No stored runs in {}.", s.path().display());
        return Ok(Outcome::Ok);
    }
    let num = |v: Option<f64>, d: usize| v.map_or_else(|| "-".into(), |v| format!("{v:.d$}"));
    println!(
        "{:>5}  {:<10}  {:<6}  {:<34}  {:<10}  {:>7}  {:>6}  {:>9}  {:>8}  verdict",
        "id", "date", "source", "device", "SoC", "7z", "7z 1T", "AES-256", "memcpy"
    );
    for e in &rows {
        println!(
            "{:>5}  {:<10}  {:<6}  {:<34}  {:<10}  {:>7}  {:>6}  {:>9}  {:>8}  {}",
            format!("#{}", e.id),
            short_date(e.date.as_deref()),
            e.source,
            truncate(cell(&e.device), 34),
            truncate(cell(&e.soc), 10),
            num(e.sevenzip_multi.map(|v| v as f64), 0),
            num(e.sevenzip_single.map(|v| v as f64), 0),
            num(e.aes256_16k, 0),
            num(e.memcpy_mb_s, 0),
            cell(&e.verdict),
        );
    }
    Ok(Outcome::Ok)
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

/// `2024-01-05` from an RFC 3339 date or a log's RFC 2822 one.
fn short_date(d: Option<&str>) -> String {
    let Some(d) = d else { return "-".into() };
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(d) {
        return t.format("%Y-%m-%d").to_string();
    }
    if let Ok(t) = chrono::DateTime::parse_from_rfc2822(d.trim()) {
        return t.format("%Y-%m-%d").to_string();
    }
    truncate(d, 10)
}

fn show(s: &Store, a: &ShowArgs) -> anyhow::Result<Outcome> {
    let (parsed, doc) = match s.record(a.id) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Usage);
        }
    };
    if a.document {
        print!("{doc}");
        if !doc.ends_with('\n') {
            println!();
        }
    } else if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&crate::output::schema::stamp(
                crate::output::schema::RESULTS_SHOW,
                &parsed
            ))?
        );
    } else {
        let e = s.entry(a.id)?;
        println!(
            "#{}: {} from {}, stored {}",
            e.id,
            e.source,
            cell(&e.source_path),
            e.stored_at
        );
        print!("{}", render_parsed(&parsed));
        for (url, when, sha) in s.shares(a.id)? {
            println!("Shared: {url} on {when} (SHA-256 {sha})");
        }
    }
    Ok(Outcome::Ok)
}

fn delete(s: &Store, a: &DeleteArgs) -> anyhow::Result<Outcome> {
    match s.delete(a.id) {
        Ok(()) => {
            println!("Deleted run #{}.", a.id);
            Ok(Outcome::Ok)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(Outcome::Usage)
        }
    }
}

/// An entry for sharing: home paths redacted unless asked.
fn shareable(mut e: Entry, redact: bool) -> Entry {
    if redact {
        let known = crate::report::redact::Known::default();
        e.source_path = e
            .source_path
            .map(|p| crate::report::redact::redact(&p, &known));
    }
    e
}

fn export(s: &Store, a: &ExportArgs) -> anyhow::Result<Outcome> {
    let rows: Vec<Entry> = s
        .list()?
        .into_iter()
        .map(|e| shareable(e, !a.no_redact))
        .collect();
    let out = match a.format {
        ExportFormat::Json => format!("{}\n", serde_json::to_string_pretty(&rows)?),
        ExportFormat::Csv => crate::results::export::csv(&rows)?,
        ExportFormat::Yaml => crate::results::export::yaml(&rows),
        ExportFormat::Geerling => {
            let items: Vec<_> = rows
                .into_iter()
                .map(|e| {
                    let link = s
                        .shares(e.id)
                        .ok()
                        .and_then(|v| v.last().map(|(url, _, _)| url.clone()));
                    let doc = s.record(e.id).map(|(_, d)| d).unwrap_or_default();
                    let x = crate::results::export::GeerlingExtra::from_document(&doc, link);
                    (e, x)
                })
                .collect();
            crate::results::export::geerling_yaml(&items)
        }
    };
    print!("{out}");
    Ok(Outcome::Ok)
}

pub(crate) fn read_file(path: &Path) -> Result<String, String> {
    use std::os::unix::fs::OpenOptionsExt;
    // Never blocks: a FIFO or device given by mistake is refused, not waited on.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let meta = f
        .metadata()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!(
            "{} is a directory, not a result file",
            path.display()
        ));
    }
    if !meta.is_file() {
        return Err(format!(
            "{} is not a regular file (a FIFO or device is not a result file)",
            path.display()
        ));
    }
    let mut buf = Vec::new();
    f.take(MAX_FILE + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if buf.len() as u64 > MAX_FILE {
        return Err(format!(
            "{} is larger than {} MiB: not a result file",
            path.display(),
            MAX_FILE >> 20
        ));
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Read a result file: our run JSON, or a log (the last run in it: the default log
/// holds every run appended).
fn read_result(path: &Path) -> Result<Parsed, String> {
    let text = read_file(path)?;
    document::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn parse(a: &ParseArgs) -> anyhow::Result<Outcome> {
    let r = match read_result(&a.file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Usage);
        }
    };
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&crate::output::schema::stamp(
                crate::output::schema::RESULTS_PARSE,
                &r
            ))?
        );
        return Ok(Outcome::Ok);
    }
    print!("{}", render_parsed(&r));
    Ok(Outcome::Ok)
}

fn render_parsed(r: &Parsed) -> String {
    use std::fmt::Write as _;
    let p = &r.log;
    let mut out = String::new();
    let na = |v: &Option<String>| v.clone().unwrap_or_else(|| "n/a".into());
    let _ = writeln!(
        out,
        "{} (version {}): {}",
        r.format,
        na(&p.version),
        if p.results_row.device.is_empty() {
            "device not named"
        } else {
            &p.results_row.device
        }
    );
    if let Some(m) = &p.mode {
        let _ = writeln!(out, "Mode:       {m}");
    }
    let _ = writeln!(out, "Date:       {}", na(&p.date));
    let _ = writeln!(out, "Kernel:     {}", na(&p.kernel_release));
    let _ = writeln!(out, "SoC guess:  {}", na(&p.soc_guess));
    let row = &p.results_row;
    let f = |v: Option<f64>, d: usize| v.map_or_else(|| "-".into(), |v| format!("{v:.d$}"));
    let _ = writeln!(
        out,
        "7-zip multi {}, single {}; AES-256 16 KiB {} k; memcpy {} MB/s, memset {} MB/s; cpuminer {} kH/s",
        f(row.sevenzip_multi.map(|v| v as f64), 0),
        f(row.sevenzip_single.map(|v| v as f64), 0),
        f(row.aes256_16k, 0),
        f(row.memcpy_mb_s, 1),
        f(row.memset_mb_s, 1),
        f(row.scrypt_khs, 2),
    );
    if p.row_has_aes128 {
        let _ = writeln!(
            out,
            "AES-128 16 B {} k (the sixth column of rows before 2022-10-23)",
            f(p.aes128_16b, 0)
        );
    }
    if let Some(cells) = &p.stated_row {
        let _ = writeln!(out, "Row the log states: | {} |", cells.join(" | "));
    }
    if !p.unread.is_empty() {
        let _ = writeln!(out, "Not in the file: {}", p.unread.join("; "));
    }
    out
}

/// The run `compare` was asked about: a stored run's number, a file, or by default the
/// last stored run (when the database exists) and else the default log. With it the id
/// of the stored run, so that it is not compared with itself.
fn compare_target(a: &CompareArgs) -> Result<(Parsed, Option<i64>), String> {
    let given = a.run.as_ref().map(|p| p.to_string_lossy().into_owned());
    let id = given.as_deref().and_then(|g| {
        let by_number = g.starts_with('#') || !Path::new(g).exists();
        by_number
            .then(|| crate::cli::results::parse_id(g).ok())
            .flatten()
    });
    let path = db_path(&a.db);
    if let Some(id) = id {
        let Some(path) = path else {
            return Err("no results database: give --db PATH".into());
        };
        let s = Store::open(&path).map_err(|e| e.to_string())?;
        return s
            .record(id)
            .map(|(p, _)| (p, Some(id)))
            .map_err(|e| e.to_string());
    }
    if let Some(file) = &a.run {
        return read_result(file).map(|p| (p, None));
    }
    // The default: the last stored run, where a database already exists (compare does
    // not create one).
    if let Some(path) = path.filter(|p| p.is_file()) {
        let s = Store::open(&path).map_err(|e| e.to_string())?;
        if let Some(id) = s.last_with_figures().map_err(|e| e.to_string())? {
            return s
                .record(id)
                .map(|(p, _)| (p, Some(id)))
                .map_err(|e| e.to_string());
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

/// The runs in the database beside the published rows (all but `except`).
pub(crate) fn stored_references(db: &DbArg, except: Option<i64>) -> Vec<Reference> {
    let Some(path) = db_path(db).filter(|p| p.is_file()) else {
        return Vec::new();
    };
    let Ok(s) = Store::open(&path) else {
        return Vec::new();
    };
    let ids: Vec<i64> = s
        .list()
        .unwrap_or_default()
        .into_iter()
        .map(|e| e.id)
        .filter(|id| Some(*id) != except)
        .collect();
    ids.into_iter()
        .filter_map(|id| {
            let (p, _) = s.record(id).ok()?;
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
            })
        })
        .collect()
}

/// `compare`'s default rows: those of the run's SoC, else of its core types.
pub(crate) fn default_selection(r: &Parsed, refs: &[Reference]) -> Option<Selection> {
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

pub fn compare(a: &CompareArgs) -> anyhow::Result<Outcome> {
    let (r, stored_id) = match compare_target(a) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Usage);
        }
    };
    let mut refs = reference::published();
    refs.extend(stored_references(&a.db, stored_id));
    let selection = match (&a.soc, &a.device, &a.core_type) {
        (Some(s), _, _) => Selection::Soc(s.clone()),
        (None, Some(d), _) => Selection::Device(d.clone()),
        (None, None, Some(t)) => Selection::CoreType(t.clone()),
        (None, None, None) => match default_selection(&r, &refs) {
            Some(s) => s,
            None => {
                eprintln!(
                    "error: no published row has the run's SoC or core types: give --soc SOC, --device TEXT or --core-type TYPE"
                );
                return Ok(Outcome::Usage);
            }
        },
    };
    let c = compare::compare(&r.log.results_row, &refs, selection, a.metric);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&crate::output::schema::stamp(
                crate::output::schema::RESULTS_COMPARE,
                &c
            ))?
        );
    } else {
        print!("{}", compare::render(&c));
    }
    Ok(Outcome::Ok)
}

/// The log `share` sends, with the stored run's number when it came from the database and
/// the hostname to redact where the run JSON names it.
fn share_source(a: &ShareArgs) -> Result<(String, Option<i64>, Option<String>), String> {
    let given = a.run.as_ref().map(|p| p.to_string_lossy().into_owned());
    let id = given.as_deref().and_then(|g| {
        (g.starts_with('#') || !Path::new(g).exists())
            .then(|| crate::cli::results::parse_id(g).ok())
            .flatten()
    });
    let from_store =
        |s: &Store, id: i64| -> Result<(String, Option<i64>, Option<String>), String> {
            let log = s.log_text(id).map_err(|e| e.to_string())?.ok_or_else(|| {
                format!("run #{id} was imported as a run JSON and has no log to share")
            })?;
            let host = s
                .record(id)
                .ok()
                .and_then(|(_, doc)| crate::record::read::run_report(&doc).ok())
                .and_then(|r| r.system_before.hostname);
            Ok((log, Some(id), host))
        };
    if let Some(id) = id {
        let path = db_path(&a.db).ok_or("no results database: give --db PATH")?;
        let s = Store::open(&path).map_err(|e| e.to_string())?;
        return from_store(&s, id);
    }
    let file = match &a.run {
        Some(f) => f.clone(),
        None => {
            if let Some(path) = db_path(&a.db).filter(|p| p.is_file()) {
                let s = Store::open(&path).map_err(|e| e.to_string())?;
                if let Some(id) = s.last().map_err(|e| e.to_string())? {
                    if let Ok(r) = from_store(&s, id) {
                        return Ok(r);
                    }
                }
            }
            std::path::PathBuf::from(DEFAULT_LOG)
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

pub fn share(a: &ShareArgs) -> anyhow::Result<Outcome> {
    let (log, id, hostname) = match share_source(a) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Usage);
        }
    };
    let text = if a.no_redact {
        log
    } else {
        let known = crate::report::redact::Known {
            hostname,
            hardware: Vec::new(),
        };
        crate::report::redact::redact(&log, &known)
    };
    if a.dry_run {
        print!("{text}");
        return Ok(Outcome::Ok);
    }
    let url = match crate::results::share::upload(&a.to, "sbc-bench.txt", text.as_bytes()) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("error: {e}; nothing was shared, the local files are as they were");
            return Ok(Outcome::Failed);
        }
    };
    println!("{url}");
    let sha = store::sha256_hex(text.as_bytes());
    let receipt = db_path(&a.db)
        .ok_or_else(|| "no results database".to_string())
        .and_then(|p| Store::open(&p).map_err(|e| e.to_string()))
        .and_then(|s| s.add_share(id, &url, &sha).map_err(|e| e.to_string()));
    if let Err(e) = receipt {
        eprintln!("warning: shared, but the receipt was not stored: {e}");
    }
    Ok(Outcome::Ok)
}
