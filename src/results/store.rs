//! The local results database: every run stored, logs and run JSON files imported, in one
//! SQLite file a user can open with the `sqlite3` shell (tables in docs/RESULTS-DB.md).
//!
//! One row per run in `runs`: the document as it came (the run JSON, or the log text of
//! that run), the typed record read from it (`record_json`, a [`Parsed`] holding the
//! [`crate::record::log_record::LogRecord`]), and indexed columns for what people filter
//! and compare (`results::store_index`). A document is stored once: its SHA-256 is
//! unique, and a second import says which row already holds it; a run is stored once too:
//! its log and its run JSON are one row (the JSON's where both came). The schema version
//! is SQLite's `user_version`; [`Store::open`] migrates an older file forward (and re-reads
//! rows whose record an older reader made) and refuses one made by a newer sbc-bench
//! rather than guess.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::results::document::{FORMAT_RUN_JSON, Parsed};
use crate::results::store_index;
pub use crate::results::store_index::{ListQuery, soc_of};

/// The schema this build writes.
pub const SCHEMA_VERSION: i64 = 2;

/// Forward migrations: entry `n` brings a file from version `n` to `n + 1`.
const MIGRATIONS: &[&str] = &[
    // 0 → 1: the first schema.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        stored_at TEXT NOT NULL,
        source TEXT NOT NULL,
        source_path TEXT,
        sha256 TEXT NOT NULL UNIQUE,
        document_kind TEXT NOT NULL,
        document TEXT NOT NULL,
        log_text TEXT,
        record_json TEXT NOT NULL,
        date TEXT,
        tool_version TEXT,
        mode TEXT,
        device TEXT,
        soc TEXT,
        core_types TEXT,
        kernel TEXT,
        kernel_bsp INTEGER,
        distro TEXT,
        machine TEXT,
        clock TEXT,
        clocks_measured TEXT,
        sevenzip_multi INTEGER,
        sevenzip_single INTEGER,
        aes256_16k REAL,
        memcpy_mb_s REAL,
        memset_mb_s REAL,
        scrypt_khs REAL,
        ramlat_16m_ns REAL,
        ramlat_128m_ns REAL,
        verdict TEXT,
        throttled INTEGER
    );
    CREATE INDEX runs_soc ON runs(soc);
    CREATE INDEX runs_device ON runs(device);
    CREATE INDEX runs_date ON runs(date);
    CREATE TABLE shares (
        id INTEGER PRIMARY KEY,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        url TEXT NOT NULL,
        shared_at TEXT NOT NULL,
        sha256 TEXT NOT NULL
    );",
    // 1 → 2: unit names, arch, the run's identity, the record's version, indexes.
    store_index::MIGRATION_2,
];

/// Why the database could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("results database {path}: {msg}")]
    Open { path: String, msg: String },
    /// SQLite's own words, once: not also a `source`, which a `{:#}` chain would print
    /// again (`database or disk is full: database or disk is full`).
    #[error("results database: {0}")]
    Sql(rusqlite::Error),
    #[error("results database: no stored run #{0}")]
    NoSuchRun(i64),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Sql(e)
    }
}

/// How long a writer waits for another (two imports at once, a run storing itself
/// while `results import` runs) before it gives up.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Where a stored run came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// A run of ours on this machine, stored when it finished.
    Run,
    /// `results import` of a file.
    Import,
}

impl Source {
    fn as_str(self) -> &'static str {
        match self {
            Source::Run => "run",
            Source::Import => "import",
        }
    }
}

/// What [`Store::insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    /// A new row.
    New(i64),
    /// The same document was already stored in this row.
    Duplicate(i64),
    /// The same run was stored in this row from its other document (its log or its run
    /// JSON): not stored again.
    SameRun(i64),
    /// The same run was stored in this row from its log; the run JSON (which holds more)
    /// replaced it there.
    Upgraded(i64),
}

/// One stored run: its indexed columns (what `results list` and `export` show).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub id: i64,
    pub stored_at: String,
    pub source: String,
    pub source_path: Option<String>,
    pub document_kind: String,
    pub date: Option<String>,
    pub tool_version: Option<String>,
    pub mode: Option<String>,
    pub device: Option<String>,
    pub soc: Option<String>,
    pub core_types: Option<String>,
    pub kernel: Option<String>,
    pub kernel_bsp: Option<bool>,
    pub distro: Option<String>,
    pub arch: Option<String>,
    pub machine: Option<String>,
    pub clock: Option<String>,
    pub clocks_measured: Option<String>,
    pub sevenzip_multi: Option<i64>,
    pub sevenzip_single: Option<i64>,
    pub aes256_16k_kb_per_s: Option<f64>,
    pub memcpy_mb_per_s: Option<f64>,
    pub memset_mb_per_s: Option<f64>,
    pub scrypt_khash_per_s: Option<f64>,
    pub ramlat_16m_ns: Option<f64>,
    pub ramlat_128m_ns: Option<f64>,
    pub verdict: Option<String>,
    pub throttled: Option<bool>,
}

/// The columns of [`Entry`], in its order.
const ENTRY_COLUMNS: &str = "id, stored_at, source, source_path, document_kind, date, \
    tool_version, mode, device, soc, core_types, kernel, kernel_bsp, distro, arch, machine, \
    clock, clocks_measured, sevenzip_multi, sevenzip_single, aes256_16k_kb_per_s, \
    memcpy_mb_per_s, memset_mb_per_s, scrypt_khash_per_s, ramlat_16m_ns, ramlat_128m_ns, \
    verdict, throttled";

/// The names of [`Entry`]'s fields (and of the `runs` columns they come from), in order.
pub fn entry_fields() -> Vec<&'static str> {
    ENTRY_COLUMNS.split(',').map(str::trim).collect()
}

fn entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<Entry> {
    Ok(Entry {
        id: r.get(0)?,
        stored_at: r.get(1)?,
        source: r.get(2)?,
        source_path: r.get(3)?,
        document_kind: r.get(4)?,
        date: r.get(5)?,
        tool_version: r.get(6)?,
        mode: r.get(7)?,
        device: r.get(8)?,
        soc: r.get(9)?,
        core_types: r.get(10)?,
        kernel: r.get(11)?,
        kernel_bsp: r.get(12)?,
        distro: r.get(13)?,
        arch: r.get(14)?,
        machine: r.get(15)?,
        clock: r.get(16)?,
        clocks_measured: r.get(17)?,
        sevenzip_multi: r.get(18)?,
        sevenzip_single: r.get(19)?,
        aes256_16k_kb_per_s: r.get(20)?,
        memcpy_mb_per_s: r.get(21)?,
        memset_mb_per_s: r.get(22)?,
        scrypt_khash_per_s: r.get(23)?,
        ramlat_16m_ns: r.get(24)?,
        ramlat_128m_ns: r.get(25)?,
        verdict: r.get(26)?,
        throttled: r.get(27)?,
    })
}

/// A document to store.
#[derive(Debug, Clone)]
pub struct NewRun<'a> {
    pub source: Source,
    /// The file it was imported from (as given), or the run's log.
    pub source_path: Option<&'a str>,
    /// The document as it came: run JSON or the log text of this run.
    pub document: &'a str,
    /// What was read from it.
    pub parsed: &'a Parsed,
    /// The run's text log where the document is not one (our runs: what `share` sends).
    pub log_text: Option<&'a str>,
    /// A vendor/BSP kernel, where known.
    pub kernel_bsp: Option<bool>,
}

/// An open results database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// The default database: `/var/lib/sbc-bench/results.db` as root, else
/// `$XDG_DATA_HOME/sbc-bench/results.db` (`~/.local/share/sbc-bench/results.db`).
pub fn default_path(is_root: bool, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if is_root {
        return Some(PathBuf::from("/var/lib/sbc-bench/results.db"));
    }
    let data = env("XDG_DATA_HOME")
        .filter(|d| d.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| {
            env("HOME")
                .filter(|h| h.starts_with('/'))
                .map(|h| Path::new(&h).join(".local/share"))
        })?;
    Some(data.join("sbc-bench/results.db"))
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl Store {
    /// Open (creating it and its directory when missing) and migrate. A path that is not
    /// a regular file (a FIFO, a device, a directory) is refused before SQLite opens it:
    /// SQLite would wait on a FIFO for ever.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let err = |msg: String| StoreError::Open {
            path: path.display().to_string(),
            msg,
        };
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(err("is a symbolic link; give the file itself".into()));
            }
            Ok(m) if !m.is_file() => {
                return Err(err(
                    "is not a regular file (a directory, FIFO or device is not a database)".into(),
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| err(format!("cannot create {}: {e}", dir.display())))?;
                }
            }
            Err(e) => return Err(err(e.to_string())),
        }
        let conn = Connection::open(path).map_err(|e| err(e.to_string()))?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| err(e.to_string()))?;
        // A damaged file is refused before anything is written on top of it (an import
        // into a database with a corrupt page exited 0 and wrote there).
        quick_check(&conn).map_err(err)?;
        let mut s = Self {
            conn,
            path: path.to_path_buf(),
        };
        s.migrate().map_err(|e| match e {
            StoreError::Sql(q) => err(q.to_string()),
            other => other,
        })?;
        Ok(s)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        // Up to date: nothing to write (a read-only file is read as it is).
        let now: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if now == SCHEMA_VERSION {
            return Ok(());
        }
        // One writer at a time from the first read on: two imports creating a new
        // database at once both saw version 0 and the second failed on `CREATE TABLE`.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Open {
                path: self.path.display().to_string(),
                msg: format!(
                    "made by a newer sbc-bench (schema {version}, this one knows up to {SCHEMA_VERSION}); left alone"
                ),
            });
        }
        if version == 0 {
            // A file of someone else's (tables of its own) is not ours to add to.
            let tables: i64 = tx.query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                [],
                |r| r.get(0),
            )?;
            if tables > 0 {
                return Err(StoreError::Open {
                    path: self.path.display().to_string(),
                    msg: "is an SQLite database of something else (it has tables, but no sbc-bench schema); left alone".into(),
                });
            }
        }
        for (v, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", v as i64 + 1)?;
        }
        // Rows an older reader made are read again from their documents.
        store_index::refresh(&tx)?;
        tx.commit()?;
        Ok(())
    }

    /// Store one run; a document stored before is not stored twice, nor a run stored
    /// before from its other document.
    pub fn insert(&self, r: &NewRun<'_>) -> Result<Inserted, StoreError> {
        Ok(self.insert_all(std::slice::from_ref(r))?[0])
    }

    /// The row that holds this very document (its SHA-256), if stored.
    pub fn find(&self, document: &str) -> Result<Option<i64>, StoreError> {
        let sha = hex(&Sha256::digest(document.as_bytes()));
        Ok(self
            .conn
            .query_row("SELECT id FROM runs WHERE sha256 = ?1", [&sha], |row| {
                row.get::<_, i64>(0)
            })
            .optional()?)
    }

    /// Store the runs of one file in one transaction: all of them, or (on an error)
    /// none.
    pub fn insert_all(&self, runs: &[NewRun<'_>]) -> Result<Vec<Inserted>, StoreError> {
        // IMMEDIATE: concurrent imports take turns (the busy timeout waits), so the
        // looks for a stored document or run see what the other one stored.
        let tx = rusqlite::Transaction::new_unchecked(
            &self.conn,
            rusqlite::TransactionBehavior::Immediate,
        )?;
        let mut out = Vec::with_capacity(runs.len());
        for r in runs {
            out.push(insert_one(&tx, r)?);
        }
        tx.commit()?;
        Ok(out)
    }

    /// The stored runs `q` selects, in its order (by default oldest first).
    pub fn list(&self, q: &ListQuery) -> Result<Vec<Entry>, StoreError> {
        let (tail, values) = q.sql();
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {ENTRY_COLUMNS} FROM runs{tail}"))?;
        let rows = stmt.query_map(rusqlite::params_from_iter(values), entry)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// One stored run's columns.
    pub fn entry(&self, id: i64) -> Result<Entry, StoreError> {
        self.conn
            .query_row(
                &format!("SELECT {ENTRY_COLUMNS} FROM runs WHERE id = ?1"),
                [id],
                entry,
            )
            .optional()?
            .ok_or(StoreError::NoSuchRun(id))
    }

    /// One stored run's record and document.
    pub fn record(&self, id: i64) -> Result<(Parsed, String), StoreError> {
        let (json, doc): (String, String) = self
            .conn
            .query_row(
                "SELECT record_json, document FROM runs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .ok_or(StoreError::NoSuchRun(id))?;
        let parsed = serde_json::from_str(&json).map_err(|e| StoreError::Open {
            path: self.path.display().to_string(),
            msg: format!("run #{id}: unreadable record: {e}"),
        })?;
        Ok((parsed, doc))
    }

    /// The run's text log: the log stored with a run of ours, or an imported log itself;
    /// `None` for an imported run JSON.
    pub fn log_text(&self, id: i64) -> Result<Option<String>, StoreError> {
        let (kind, doc, log): (String, String, Option<String>) = self
            .conn
            .query_row(
                "SELECT document_kind, document, log_text FROM runs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?
            .ok_or(StoreError::NoSuchRun(id))?;
        Ok(log.or((kind == crate::results::document::FORMAT_LOG).then_some(doc)))
    }

    /// Keep the receipt of an upload.
    pub fn add_share(&self, run: Option<i64>, url: &str, sha256: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "INSERT INTO shares (run_id, url, shared_at, sha256) VALUES (?1, ?2, ?3, ?4)",
            params![run, url, now(), sha256],
        )?;
        Ok(())
    }

    /// The receipts of a run's uploads, oldest first: (URL, when, SHA-256 of what was sent).
    pub fn shares(&self, run: i64) -> Result<Vec<(String, String, String)>, StoreError> {
        let mut q = self
            .conn
            .prepare("SELECT url, shared_at, sha256 FROM shares WHERE run_id = ?1 ORDER BY id")?;
        let rows = q.query_map([run], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// As [`Store::last`], among the runs with a benchmark figure of the Results.md row
    /// (a thermal test or a review without benchmarks has none to compare).
    pub fn last_with_figures(&self) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id FROM runs WHERE sevenzip_multi IS NOT NULL OR sevenzip_single IS NOT NULL
                    OR aes256_16k_kb_per_s IS NOT NULL OR memcpy_mb_per_s IS NOT NULL
                    OR memset_mb_per_s IS NOT NULL OR scrypt_khash_per_s IS NOT NULL
                 ORDER BY source = 'run' DESC, id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The newest run of ours stored on this machine (`source = run`), or else the newest
    /// row of any source.
    pub fn last(&self) -> Result<Option<i64>, StoreError> {
        Ok(self
            .conn
            .query_row(
                "SELECT id FROM runs ORDER BY source = 'run' DESC, id DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Delete a run; its share receipts stay, pointing nowhere.
    pub fn delete(&self, id: i64) -> Result<(), StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        tx.execute("UPDATE shares SET run_id = NULL WHERE run_id = ?1", [id])?;
        match tx.execute("DELETE FROM runs WHERE id = ?1", [id])? {
            0 => Err(StoreError::NoSuchRun(id)),
            _ => Ok(tx.commit()?),
        }
    }
}

/// One run into `runs`, inside the caller's transaction.
fn insert_one(tx: &Connection, r: &NewRun<'_>) -> Result<Inserted, StoreError> {
    let sha = hex(&Sha256::digest(r.document.as_bytes()));
    let by_sha = tx
        .query_row("SELECT id FROM runs WHERE sha256 = ?1", [&sha], |row| {
            row.get::<_, i64>(0)
        })
        .optional()?;
    if let Some(id) = by_sha {
        return Ok(Inserted::Duplicate(id));
    }
    let sha_again = sha.clone();
    let p = r.parsed;
    let record_json = serde_json::to_string(p).unwrap_or_else(|_| "{}".into());
    let cols = store_index::columns(p, r.kernel_bsp);
    if let Some(key) = store_index::run_key(p) {
        let same: Option<(i64, String)> = tx
            .query_row(
                "SELECT id, document_kind FROM runs WHERE run_key = ?1 ORDER BY id LIMIT 1",
                [&key],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        if let Some((id, kind)) = same {
            if p.format == FORMAT_RUN_JSON && kind != FORMAT_RUN_JSON {
                // The run JSON holds what the log holds and more: it takes the row.
                let set: Vec<String> = cols
                    .iter()
                    .enumerate()
                    .map(|(i, (c, _))| format!("{c} = ?{}", i + 6))
                    .collect();
                let sql = format!(
                    "UPDATE runs SET sha256 = ?2, document_kind = ?3, document = ?4, \
                     record_json = ?5, {} WHERE id = ?1",
                    set.join(", ")
                );
                let mut values: Vec<rusqlite::types::Value> = vec![
                    id.into(),
                    sha.into(),
                    p.format.clone().into(),
                    r.document.to_string().into(),
                    record_json.into(),
                ];
                values.extend(cols.into_iter().map(|(_, v)| v));
                tx.execute(&sql, rusqlite::params_from_iter(values))?;
                return Ok(Inserted::Upgraded(id));
            }
            return Ok(Inserted::SameRun(id));
        }
    }
    let names: Vec<&str> = cols.iter().map(|(c, _)| *c).collect();
    let marks: Vec<String> = (1..=names.len() + 8).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO runs (stored_at, source, source_path, sha256, document_kind, document, \
         log_text, record_json, {}) VALUES ({}) ON CONFLICT(sha256) DO NOTHING",
        names.join(", "),
        marks.join(", ")
    );
    let mut values: Vec<rusqlite::types::Value> = vec![
        now().into(),
        r.source.as_str().to_string().into(),
        r.source_path.map(str::to_string).into(),
        sha.into(),
        p.format.clone().into(),
        r.document.to_string().into(),
        r.log_text.map(str::to_string).into(),
        record_json.into(),
    ];
    values.extend(cols.into_iter().map(|(_, v)| v));
    if tx.execute(&sql, rusqlite::params_from_iter(values))? == 0 {
        // Stored by another import since the look above (the transaction is IMMEDIATE,
        // so only by a writer that does not take the lock first).
        let id = tx.query_row(
            "SELECT id FROM runs WHERE sha256 = ?1",
            [&sha_again],
            |row| row.get::<_, i64>(0),
        )?;
        return Ok(Inserted::Duplicate(id));
    }
    Ok(Inserted::New(tx.last_insert_rowid()))
}

/// SQLite's `quick_check` of an open file: `Err` with what it found when the file is
/// damaged (or not a database at all).
fn quick_check(conn: &Connection) -> Result<(), String> {
    let found: Vec<String> = conn
        .prepare("PRAGMA quick_check(5)")
        .and_then(|mut q| {
            q.query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<_, _>>()
        })
        .map_err(|e| format!("cannot be checked ({e}); left alone"))?;
    if found.len() == 1 && found[0] == "ok" {
        return Ok(());
    }
    Err(format!(
        "is damaged (SQLite's quick_check: {}); left alone: move it away (or put back a copy) and the next command starts a new one",
        found.join("; ")
    ))
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(b: &[u8]) -> String {
    use std::fmt::Write as _;
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::results::document;

    fn parsed_run(device: &str, multi: u64) -> (String, Parsed) {
        let text = format!("sbc-bench v0.9.72 {device}\n");
        let mut p = Parsed {
            format: document::FORMAT_LOG.into(),
            log: Default::default(),
            extra: Default::default(),
            record: Default::default(),
        };
        p.log.version = Some("0.9.72".into());
        p.log.results_row.device = device.into();
        p.log.results_row.sevenzip_multi = Some(multi);
        p.log.soc_guess = Some("Rockchip RK3588/RK3588s (35881000)".into());
        p.extra.clocks_mhz = vec![1800, 2350];
        (text, p)
    }

    fn new_run<'a>(doc: &'a str, p: &'a Parsed) -> NewRun<'a> {
        NewRun {
            source: Source::Import,
            source_path: Some("/home/alice/x.txt"),
            document: doc,
            parsed: p,
            log_text: None,
            kernel_bsp: None,
        }
    }

    #[test]
    fn stores_lists_dedups_and_deletes() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("sub/dir/results.db");
        let s = Store::open(&path).unwrap();
        let (doc, p) = parsed_run("Radxa ROCK 5B", 16000);
        assert_eq!(s.insert(&new_run(&doc, &p)).unwrap(), Inserted::New(1));
        assert_eq!(
            s.insert(&new_run(&doc, &p)).unwrap(),
            Inserted::Duplicate(1)
        );
        let (doc2, p2) = parsed_run("Orange Pi 5", 15000);
        assert_eq!(s.insert(&new_run(&doc2, &p2)).unwrap(), Inserted::New(2));
        let l = s.list(&ListQuery::default()).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].device.as_deref(), Some("Radxa ROCK 5B"));
        assert_eq!(l[0].soc.as_deref(), Some("RK3588"));
        assert_eq!(l[0].clocks_measured.as_deref(), Some("1800/2350"));
        assert_eq!(l[1].sevenzip_multi, Some(15000));
        let (back, stored) = s.record(2).unwrap();
        assert_eq!(back, p2);
        assert_eq!(stored, doc2);
        assert_eq!(s.last().unwrap(), Some(2));
        s.delete(1).unwrap();
        assert!(matches!(s.delete(1), Err(StoreError::NoSuchRun(1))));
        assert!(matches!(s.entry(1), Err(StoreError::NoSuchRun(1))));
        drop(s);
        // Reopened: the schema is there once, the rows stay.
        let s = Store::open(&path).unwrap();
        assert_eq!(s.list(&ListQuery::default()).unwrap().len(), 1);
    }

    #[test]
    fn a_run_of_ours_is_the_last_before_newer_imports() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(&d.path().join("r.db")).unwrap();
        let (doc, p) = parsed_run("A", 1);
        let mut mine = new_run(&doc, &p);
        mine.source = Source::Run;
        s.insert(&mine).unwrap();
        let (doc2, p2) = parsed_run("B", 2);
        s.insert(&new_run(&doc2, &p2)).unwrap();
        assert_eq!(s.last().unwrap(), Some(1));
    }

    #[test]
    fn a_newer_schema_is_refused_and_left_alone() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("r.db");
        {
            let c = Connection::open(&path).unwrap();
            c.pragma_update(None, "user_version", 99).unwrap();
        }
        let e = Store::open(&path).unwrap_err().to_string();
        assert!(e.contains("newer sbc-bench"), "{e}");
        let c = Connection::open(&path).unwrap();
        let v: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 99);
    }

    #[test]
    fn a_database_of_something_else_is_not_written() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("other.db");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch("CREATE TABLE photos (id INTEGER);")
                .unwrap();
        }
        let e = Store::open(&path).unwrap_err().to_string();
        assert!(e.contains("something else"), "{e}");
        let c = Connection::open(&path).unwrap();
        let n: i64 = c
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn a_text_file_given_as_database_is_refused_and_kept() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("notes.txt");
        std::fs::write(&path, "my notes, not a database\n".repeat(100)).unwrap();
        let e = Store::open(&path).unwrap_err().to_string();
        assert!(e.contains("notes.txt"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "my notes, not a database\n".repeat(100)
        );
    }

    #[test]
    fn a_fifo_or_directory_as_database_is_refused_not_waited_on() {
        use std::os::unix::ffi::OsStrExt as _;
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("db.fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let e = Store::open(&fifo).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        let e = Store::open(d.path()).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
    }

    #[test]
    fn default_paths() {
        let env = |k: &str| match k {
            "HOME" => Some("/home/alice".to_string()),
            _ => None,
        };
        assert_eq!(
            default_path(true, &env).unwrap(),
            PathBuf::from("/var/lib/sbc-bench/results.db")
        );
        assert_eq!(
            default_path(false, &env).unwrap(),
            PathBuf::from("/home/alice/.local/share/sbc-bench/results.db")
        );
        let xdg = |k: &str| match k {
            "XDG_DATA_HOME" => Some("/data".to_string()),
            _ => None,
        };
        assert_eq!(
            default_path(false, &xdg).unwrap(),
            PathBuf::from("/data/sbc-bench/results.db")
        );
        assert_eq!(default_path(false, &|_| None), None);
    }

    fn fixture_log(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/tests/fixtures/logs/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// A database of schema 1, as the previous build wrote it: RFC 2822 dates from logs,
    /// the old column names, a record without the typed record.
    #[test]
    fn a_schema_1_database_is_migrated_forward_and_its_rows_read_again() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("old.db");
        let log = fixture_log("41BH.txt");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(MIGRATIONS[0]).unwrap();
            c.pragma_update(None, "user_version", 1).unwrap();
            c.execute(
                "INSERT INTO runs (stored_at, source, sha256, document_kind, document, record_json,
                    date, device, aes256_16k, memcpy_mb_s)
                 VALUES ('2025-01-01T00:00:00Z', 'import', ?1, 'sbc-bench log', ?2, '{\"format\":\"sbc-bench log\"}',
                    'Mon, 11 Jul 2022 10:00:00 +0200', 'Radxa ROCK 5B', 1.0, 2.0)",
                params![sha256_hex(log.as_bytes()), log],
            )
            .unwrap();
        }
        let s = Store::open(&path).unwrap();
        let v: i64 = s
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let e = s.entry(1).unwrap();
        // Re-read from the document: the date in UTC, the figures the reader finds.
        assert_eq!(e.date.as_deref(), Some("2022-07-04T17:51:16Z"), "{e:?}");
        assert_eq!(e.sevenzip_multi, Some(16447));
        assert!(e.memcpy_mb_per_s.is_some_and(|m| m > 100.0), "{e:?}");
        assert_eq!(e.arch.as_deref(), Some("arm64"));
        let (p, _) = s.record(1).unwrap();
        assert_eq!(p.record.header.device.as_deref(), Some("Radxa ROCK 5B"));
        assert!(!p.record.tinymembench.is_empty());
        let indexes: i64 = s
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(indexes >= 17, "{indexes}");
        drop(s);
        // Opened again: nothing left to migrate or re-read.
        assert_eq!(Store::open(&path).unwrap().entry(1).unwrap(), e);
    }

    /// Issue 31: the same run imported as its log and as its run JSON is stored once;
    /// the JSON takes the row where the log came first.
    #[test]
    fn one_run_as_log_and_as_run_json_is_one_row() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(&d.path().join("r.db")).unwrap();
        let r = crate::record::read::fixture_rock5b();
        let json = crate::record::read::FIXTURE_ROCK5B;
        let log = crate::report::log::run::log(&r);
        let from_log = document::parse_log_run(&log).unwrap();
        let from_json = document::from_run_json(json).unwrap();
        assert_eq!(
            store_index::run_key(&from_log),
            store_index::run_key(&from_json)
        );
        assert!(store_index::run_key(&from_log).is_some());
        assert_eq!(
            s.insert(&new_run(&log, &from_log)).unwrap(),
            Inserted::New(1)
        );
        assert_eq!(
            s.insert(&new_run(json, &from_json)).unwrap(),
            Inserted::Upgraded(1)
        );
        assert_eq!(
            s.insert(&new_run(&log, &from_log)).unwrap(),
            Inserted::SameRun(1)
        );
        let all = s.list(&ListQuery::default()).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].document_kind, document::FORMAT_RUN_JSON);
        let (_, doc) = s.record(1).unwrap();
        assert_eq!(doc, json);
    }

    /// A file's runs go in one transaction: a failure at its second run leaves its
    /// first unstored too.
    #[test]
    fn a_file_is_stored_whole_or_not_at_all() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(&d.path().join("r.db")).unwrap();
        s.conn
            .execute_batch(
                "CREATE TRIGGER no_b BEFORE INSERT ON runs WHEN NEW.device = 'B'
                 BEGIN SELECT RAISE(ABORT, 'refused'); END;",
            )
            .unwrap();
        let (a, pa) = parsed_run("A", 1);
        let (b, pb) = parsed_run("B", 2);
        let e = s.insert_all(&[new_run(&a, &pa), new_run(&b, &pb)]);
        assert!(e.is_err());
        assert!(s.list(&ListQuery::default()).unwrap().is_empty());
    }

    #[test]
    fn list_filters_sorts_and_limits() {
        let d = tempfile::tempdir().unwrap();
        let s = Store::open(&d.path().join("r.db")).unwrap();
        for (dev, multi, date) in [
            ("Radxa ROCK 5B", 16000, "2024-01-01T00:00:00Z"),
            ("Orange Pi 5", 15000, "2024-06-01T00:00:00Z"),
            ("Radxa ROCK 5A", 17000, "2025-01-01T00:00:00Z"),
        ] {
            let (doc, mut p) = parsed_run(dev, multi);
            p.log.date_utc = Some(date.into());
            s.insert(&new_run(&doc, &p)).unwrap();
        }
        let q = |q: ListQuery| -> Vec<String> {
            s.list(&q)
                .unwrap()
                .into_iter()
                .filter_map(|e| e.device)
                .collect()
        };
        assert_eq!(
            q(ListQuery {
                device: Some("rock 5".into()),
                ..ListQuery::default()
            }),
            ["Radxa ROCK 5B", "Radxa ROCK 5A"]
        );
        assert_eq!(
            q(ListQuery {
                since: Some("2024-06-01T00:00:00Z".into()),
                sort: Some(store_index::RunSort::SevenzipMulti),
                ..ListQuery::default()
            }),
            ["Radxa ROCK 5A", "Orange Pi 5"]
        );
        assert_eq!(
            q(ListQuery {
                soc: Some("rk3588".into()),
                sort: Some(store_index::RunSort::Date),
                limit: Some(1),
                ..ListQuery::default()
            }),
            ["Radxa ROCK 5B"]
        );
    }
}
