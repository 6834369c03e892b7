//! What the hub keeps and how it is read back: one row per result (`results`), the
//! documents it came as (`documents`: a run uploaded as log and as JSON is one result with
//! two documents), reviews, and the moderators' actions. Every write is one transaction.

use serde::Serialize;

use sbc_bench::record::results_row::ResultsRow;
use sbc_bench::results::document::Parsed;

use crate::accept::{Check, Status};
use crate::db::{Db, DbError, DbRow, Sql, Val};
use crate::ingest::{self, DocKind, Ingested};

/// The columns of [`Summary`], in its order.
const SUMMARY_COLUMNS: &str = "id, label, label_md, clock_md, distro_md, device, device_slug, \
    soc, soc_slug, core_types, arch, kernel, kernel_series, distro, distro_arch, run_date, \
    created_at, tool_version, mode, status, auto_status, override_reason, hidden, clock, \
    throttled, quick, sevenzip_multi, sevenzip_single, aes256_16k, memcpy, memset, scrypt, \
    ramlat_16m, ramlat_128m, has_log";

/// One result as the table and the lists show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub id: String,
    /// The name the table shows (`Radxa ROCK 5B (RK3588)`).
    pub label: String,
    /// The cells the maintainer's Results.md gives this result, where it is a published one.
    #[serde(skip)]
    pub label_md: Option<String>,
    #[serde(skip)]
    pub clock_md: Option<String>,
    #[serde(skip)]
    pub distro_md: Option<String>,
    pub device: String,
    pub device_slug: String,
    pub soc: Option<String>,
    pub soc_slug: Option<String>,
    pub core_types: Option<String>,
    pub arch: Option<String>,
    pub kernel: Option<String>,
    pub kernel_series: Option<String>,
    pub distro: Option<String>,
    #[serde(skip)]
    pub distro_arch: String,
    /// When the run started (UTC).
    pub run_date: Option<String>,
    /// When the hub stored it (UTC).
    pub created_at: String,
    pub tool_version: Option<String>,
    pub mode: Option<String>,
    pub status: Status,
    /// The tag the checks gave (`status` differs where a moderator retagged it).
    pub auto_status: Status,
    pub override_reason: Option<String>,
    pub hidden: bool,
    pub clock: String,
    pub throttled: bool,
    pub quick: bool,
    pub sevenzip_multi: Option<i64>,
    pub sevenzip_single: Option<i64>,
    pub aes256_16k: Option<f64>,
    pub memcpy: Option<f64>,
    pub memset: Option<f64>,
    pub scrypt: Option<f64>,
    pub ramlat_16m: Option<f64>,
    pub ramlat_128m: Option<f64>,
    /// Whether a text log is among its documents (else a run JSON only).
    pub has_log: bool,
}

fn status(s: Option<String>) -> Status {
    s.as_deref()
        .and_then(Status::from_word)
        .unwrap_or(Status::NotComparable)
}

fn summary(r: &DbRow) -> Summary {
    Summary {
        id: r.s(0),
        label: r.s(1),
        label_md: r.t(2),
        clock_md: r.t(3),
        distro_md: r.t(4),
        device: r.s(5),
        device_slug: r.s(6),
        soc: r.t(7),
        soc_slug: r.t(8),
        core_types: r.t(9),
        arch: r.t(10),
        kernel: r.t(11),
        kernel_series: r.t(12),
        distro: r.t(13),
        distro_arch: r.s(14),
        run_date: r.t(15),
        created_at: r.s(16),
        tool_version: r.t(17),
        mode: r.t(18),
        status: status(r.t(19)),
        auto_status: status(r.t(20)),
        override_reason: r.t(21),
        hidden: r.i(22).unwrap_or(0) != 0,
        clock: r.s(23),
        throttled: r.i(24).unwrap_or(0) != 0,
        quick: r.i(25).unwrap_or(0) != 0,
        sevenzip_multi: r.i(26),
        sevenzip_single: r.i(27),
        aes256_16k: r.f(28),
        memcpy: r.f(29),
        memset: r.f(30),
        scrypt: r.f(31),
        ramlat_16m: r.f(32),
        ramlat_128m: r.f(33),
        has_log: r.i(34).unwrap_or(0) != 0,
    }
}

impl Summary {
    /// The Results.md row model of this result: the device cell is the label.
    pub fn results_row(&self) -> ResultsRow {
        ResultsRow {
            device: self.label.clone(),
            clock: self.clock.clone(),
            throttled: self.throttled,
            kernel: self.kernel.clone().unwrap_or_default(),
            distro_arch: self.distro_arch.clone(),
            sevenzip_multi: self.sevenzip_multi.map(|v| v as u64),
            sevenzip_single: self.sevenzip_single.map(|v| v as u64),
            aes256_16k: self.aes256_16k,
            memcpy_mb_s: self.memcpy,
            memset_mb_s: self.memset,
            scrypt_khs: self.scrypt,
            quick: self.quick,
        }
    }

    /// The extension of its raw document's URL: the log where there is one.
    pub fn raw_ext(&self) -> &'static str {
        if self.has_log { "txt" } else { "json" }
    }
}

/// A document of a result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocInfo {
    pub sha256: String,
    pub kind: String,
    pub stored_at: String,
}

/// A review attached to a result or standing alone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Review {
    pub slug: String,
    pub result_id: Option<String>,
    pub title: String,
    #[serde(skip)]
    pub body: String,
}

/// One result with everything its page shows.
#[derive(Debug, Clone)]
pub struct Full {
    pub summary: Summary,
    pub checks: Vec<Check>,
    pub record: Parsed,
    pub documents: Vec<DocInfo>,
    pub reviews: Vec<Review>,
}

/// What an upload did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// A new result.
    Created(String),
    /// The same document was stored before, as this result.
    Duplicate(String),
    /// Another document of a run stored before (its log and its JSON): added to it.
    SameRun(String),
}

impl Stored {
    pub fn id(&self) -> &str {
        match self {
            Stored::Created(i) | Stored::Duplicate(i) | Stored::SameRun(i) => i,
        }
    }
    pub fn word(&self) -> &'static str {
        match self {
            Stored::Created(_) => "created",
            Stored::Duplicate(_) => "duplicate",
            Stored::SameRun(_) => "same-run",
        }
    }
}

/// Why an upload was not stored.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another result holds this run's identity with other figures.
    #[error(
        "result {id} holds this run's identity (device, start time, kernel) with other figures"
    )]
    Conflict { id: String },
    #[error(transparent)]
    Db(#[from] DbError),
}

/// How a document is stored beyond what it says itself (the import of the published
/// corpus gives the maintainer's cells and acceptance).
#[derive(Debug, Clone, Default)]
pub struct Curation {
    /// The id to store it under (a corpus log's file name), if free.
    pub id: Option<String>,
    pub label_md: Option<String>,
    pub clock_md: Option<String>,
    pub distro_md: Option<String>,
    /// A tag given by a person, with the reason.
    pub status: Option<(Status, String)>,
    /// The table's name for it where the label cell says it.
    pub label: Option<String>,
}

/// A URL-safe name: lower case, letters and digits, `-` between words, at most 80 bytes.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.len() >= 80 {
            break;
        }
    }
    let t = out.trim_end_matches('-');
    if t.is_empty() { "n-a".into() } else { t.into() }
}

/// Whether `s` may be a result id: 1–40 of `A-Z a-z 0-9 - _`.
pub fn valid_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 40
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Store one document: a new result, a duplicate of a stored one, or the other document of
/// a stored run. One transaction.
pub fn insert(db: &Db, doc: &Ingested, cur: &Curation) -> Result<Stored, StoreError> {
    let mut conflict = None;
    let r = db.write(|s| {
        let (stored, c) = insert_in(s, doc, cur)?;
        conflict = c;
        Ok(stored)
    })?;
    match conflict {
        Some(id) => Err(StoreError::Conflict { id }),
        None => Ok(r),
    }
}

/// Store many documents, one transaction for them all (the benchmark's synthetic
/// results); conflicts are skipped. How many were created.
pub fn insert_many(db: &Db, docs: &[Ingested]) -> Result<u64, DbError> {
    db.write(|s| {
        let mut n = 0;
        for d in docs {
            if let (Stored::Created(_), None) = insert_in(s, d, &Curation::default())? {
                n += 1;
            }
        }
        Ok(n)
    })
}

/// [`insert`]'s statements in a transaction; the id of a result whose identity the
/// document claims with other figures (nothing stored then).
fn insert_in(
    s: &mut dyn Sql,
    doc: &Ingested,
    cur: &Curation,
) -> Result<(Stored, Option<String>), DbError> {
    if let Some(id) = result_of_document(s, &doc.sha256)? {
        return Ok((Stored::Duplicate(id), None));
    }
    if let Some(identity) = &doc.identity {
        let rows = s.query(
            "SELECT id, figures FROM results WHERE identity = $1",
            &[Val::text(identity.clone())],
        )?;
        if let Some(r) = rows.first() {
            let id = r.s(0);
            if r.s(1) != doc.figures {
                return Ok((Stored::Duplicate(id.clone()), Some(id)));
            }
            add_document(s, &id, doc)?;
            if doc.kind == DocKind::RunJson {
                // The run JSON is the fuller record of the run (every finding, the
                // configuration): its checks and record replace those of the log.
                s.exec(
                    "UPDATE results SET checks = $1, auto_status = $2, \
                     status = COALESCE(status_override, $2), record = $3, ramlat_16m = $4, \
                     ramlat_128m = $5, updated_at = $6 WHERE id = $7",
                    &[
                        Val::text(to_json(&doc.checks)?),
                        Val::text(doc.status.as_str()),
                        Val::text(to_json(&doc.parsed)?),
                        Val::F(doc.parsed.extra.ramlat_16m_ns),
                        Val::F(doc.parsed.extra.ramlat_128m_ns),
                        Val::text(now()),
                        Val::text(id.clone()),
                    ],
                )?;
            } else {
                s.exec(
                    "UPDATE results SET updated_at = $1 WHERE id = $2",
                    &[Val::text(now()), Val::text(id.clone())],
                )?;
            }
            return Ok((Stored::SameRun(id), None));
        }
    }
    let id = free_id(s, doc, cur)?;
    insert_result(s, &id, doc, cur)?;
    add_document(s, &id, doc)?;
    Ok((Stored::Created(id), None))
}

fn result_of_document(s: &mut dyn Sql, sha: &str) -> Result<Option<String>, DbError> {
    let rows = s.query(
        "SELECT result_id FROM documents WHERE sha256 = $1",
        &[Val::text(sha)],
    )?;
    Ok(rows.first().map(|r| r.s(0)))
}

/// The id a new result gets: the curated one where free, else the first 16 hex digits of
/// its document's hash (longer on the rare collision).
fn free_id(s: &mut dyn Sql, doc: &Ingested, cur: &Curation) -> Result<String, DbError> {
    let taken = |s: &mut dyn Sql, id: &str| -> Result<bool, DbError> {
        Ok(!s
            .query("SELECT 1 FROM results WHERE id = $1", &[Val::text(id)])?
            .is_empty())
    };
    if let Some(id) = cur.id.as_deref().filter(|i| valid_id(i)) {
        if !taken(s, id)? {
            return Ok(id.to_string());
        }
    }
    for len in [16, 24, 32, 40] {
        let id = &doc.sha256[..len];
        if !taken(s, id)? {
            return Ok(id.to_string());
        }
    }
    Err(DbError::Other(format!(
        "no free id for document {}",
        doc.sha256
    )))
}

fn insert_result(s: &mut dyn Sql, id: &str, doc: &Ingested, cur: &Curation) -> Result<(), DbError> {
    let f = &doc.facts;
    let row = &f.row;
    let label = cur
        .label
        .clone()
        .unwrap_or_else(|| ingest::default_label(f));
    let status = cur.status.as_ref().map_or(doc.status, |s| s.0);
    let checks = to_json(&doc.checks)?;
    let record = to_json(&doc.parsed)?;
    let at = now();
    let soc_slug = f.soc.as_deref().map(slug);
    let flag = |b: bool| Val::int(i64::from(b));
    s.exec(
        "INSERT INTO results (id, identity, created_at, updated_at, hidden, auto_status, \
         status, status_override, override_reason, label, sort_label, label_md, clock_md, \
         distro_md, device, device_slug, soc, soc_slug, core_types, arch, kernel, \
         kernel_series, distro, distro_arch, run_date, tool_version, mode, clock, throttled, \
         quick, sevenzip_multi, sevenzip_single, aes256_16k, memcpy, memset, scrypt, \
         ramlat_16m, ramlat_128m, figures, checks, record) VALUES ($1, $2, $3, $3, 0, $4, \
         $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, \
         $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, \
         $39)",
        &[
            Val::text(id),
            Val::opt_text(doc.identity.clone()),
            Val::text(at),
            Val::text(doc.status.as_str()),
            Val::text(status.as_str()),
            Val::opt_text(cur.status.as_ref().map(|s| s.0.as_str())),
            Val::opt_text(cur.status.as_ref().map(|s| s.1.clone())),
            Val::text(label.clone()),
            Val::text(sort_key(&label)),
            Val::opt_text(cur.label_md.clone()),
            Val::opt_text(cur.clock_md.clone()),
            Val::opt_text(cur.distro_md.clone()),
            Val::text(f.device.clone()),
            Val::text(slug(&f.device)),
            Val::opt_text(f.soc.clone()),
            Val::opt_text(soc_slug),
            Val::opt_text(Some(f.core_types.join(", ")).filter(|c| !c.is_empty())),
            Val::opt_text(f.arch.clone()),
            Val::opt_text(f.kernel.clone()),
            Val::opt_text(ingest::kernel_series(f)),
            Val::opt_text(f.distro.clone()),
            Val::text(row.distro_arch.clone()),
            Val::opt_text(f.run_date.clone()),
            Val::opt_text(f.tool_version.clone()),
            Val::opt_text(f.mode.clone()),
            Val::text(row.clock.clone()),
            flag(row.throttled),
            flag(row.quick),
            Val::I(row.sevenzip_multi.map(|v| v as i64)),
            Val::I(row.sevenzip_single.map(|v| v as i64)),
            Val::F(row.aes256_16k),
            Val::F(row.memcpy_mb_s),
            Val::F(row.memset_mb_s),
            Val::F(row.scrypt_khs),
            Val::F(doc.parsed.extra.ramlat_16m_ns),
            Val::F(doc.parsed.extra.ramlat_128m_ns),
            Val::text(doc.figures.clone()),
            Val::text(checks),
            Val::text(record),
        ],
    )?;
    Ok(())
}

fn to_json(v: &impl Serialize) -> Result<String, DbError> {
    serde_json::to_string(v).map_err(|e| DbError::Other(e.to_string()))
}

/// The table's order: the label without case (as Results.md is sorted).
pub fn sort_key(label: &str) -> String {
    label
        .replace("<br />", " ")
        .replace("**", "")
        .to_lowercase()
}

fn add_document(s: &mut dyn Sql, id: &str, doc: &Ingested) -> Result<(), DbError> {
    s.exec(
        "INSERT INTO documents (sha256, result_id, kind, stored_at, body) VALUES ($1, $2, $3, $4, $5)",
        &[
            Val::text(doc.sha256.clone()),
            Val::text(id),
            Val::text(doc.kind.as_str()),
            Val::text(now()),
            Val::text(doc.body.clone()),
        ],
    )?;
    Ok(())
}

/// The summary columns, with `has_log` computed.
fn select_summary() -> String {
    let cols = SUMMARY_COLUMNS.replace(
        "has_log",
        "(SELECT COUNT(*) FROM documents d WHERE d.result_id = results.id AND d.kind = 'log') AS has_log",
    );
    format!("SELECT {cols} FROM results")
}

/// One result, hidden or not.
pub fn get(db: &Db, id: &str) -> Result<Option<Full>, DbError> {
    db.read(|s| {
        let sql = format!(
            "{}, checks, record FROM results WHERE id = $1",
            select_summary().trim_end_matches(" FROM results")
        );
        let rows = s.query(&sql, &[Val::text(id)])?;
        let Some(r) = rows.first() else {
            return Ok(None);
        };
        let n = SUMMARY_COLUMNS.split(',').count();
        let checks: Vec<Check> = serde_json::from_str(&r.s(n)).unwrap_or_default();
        let record: Parsed = serde_json::from_str(&r.s(n + 1))
            .map_err(|e| DbError::Other(format!("result {id}: stored record: {e}")))?;
        let documents = s
            .query(
                "SELECT sha256, kind, stored_at FROM documents WHERE result_id = $1 ORDER BY stored_at, sha256",
                &[Val::text(id)],
            )?
            .iter()
            .map(|d| DocInfo {
                sha256: d.s(0),
                kind: d.s(1),
                stored_at: d.s(2),
            })
            .collect();
        let reviews = reviews_where(s, "result_id = $1", &[Val::text(id)])?;
        Ok(Some(Full {
            summary: summary(r),
            checks,
            record,
            documents,
            reviews,
        }))
    })
}

/// The body of a result's document of `kind` (the first stored).
pub fn document(db: &Db, id: &str, kind: DocKind) -> Result<Option<String>, DbError> {
    db.read(|s| {
        let rows = s.query(
            "SELECT body FROM documents WHERE result_id = $1 AND kind = $2 ORDER BY stored_at LIMIT 1",
            &[Val::text(id), Val::text(kind.as_str())],
        )?;
        Ok(rows.first().map(|r| r.s(0)))
    })
}

fn reviews_where(s: &mut dyn Sql, cond: &str, p: &[Val]) -> Result<Vec<Review>, DbError> {
    Ok(s.query(
        &format!(
            "SELECT slug, result_id, title, body FROM reviews WHERE {cond} ORDER BY slug{{C}}"
        ),
        p,
    )?
    .iter()
    .map(|r| Review {
        slug: r.s(0),
        result_id: r.t(1),
        title: r.s(2),
        body: r.s(3),
    })
    .collect())
}

/// A review by its slug.
pub fn review(db: &Db, slug: &str) -> Result<Option<Review>, DbError> {
    db.read(|s| Ok(reviews_where(s, "slug = $1", &[Val::text(slug)])?.pop()))
}

/// Every review.
pub fn reviews(db: &Db) -> Result<Vec<Review>, DbError> {
    db.read(|s| reviews_where(s, "1 = 1", &[]))
}

/// Store a review (by slug; a second import replaces nothing).
pub fn insert_review(db: &Db, r: &Review) -> Result<bool, DbError> {
    db.write(|s| {
        if !s
            .query("SELECT 1 FROM reviews WHERE slug = $1", &[Val::text(r.slug.clone())])?
            .is_empty()
        {
            return Ok(false);
        }
        let result = match &r.result_id {
            Some(id) if !s.query("SELECT 1 FROM results WHERE id = $1", &[Val::text(id.clone())])?.is_empty() => Some(id.clone()),
            _ => None,
        };
        s.exec(
            "INSERT INTO reviews (slug, result_id, title, body, stored_at) VALUES ($1, $2, $3, $4, $5)",
            &[
                Val::text(r.slug.clone()),
                Val::opt_text(result),
                Val::text(r.title.clone()),
                Val::text(r.body.clone()),
                Val::text(now()),
            ],
        )?;
        Ok(true)
    })
}

/// A column the table sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortColumn {
    /// The name in URLs (`7zip-multi`).
    pub key: &'static str,
    /// The header the table shows.
    pub head: &'static str,
    /// The SQL expression.
    expr: &'static str,
    /// Whether larger is better (the first click sorts that way).
    pub numeric: bool,
}

/// The table's columns: Results.md's, then the filters'.
pub const COLUMNS: &[SortColumn] = &[
    SortColumn {
        key: "device",
        head: "Device / details",
        expr: "sort_label{C}",
        numeric: false,
    },
    SortColumn {
        key: "clock",
        head: "Clockspeed",
        expr: "clock{C}",
        numeric: false,
    },
    SortColumn {
        key: "kernel",
        head: "Kernel",
        expr: "kernel_series{C}",
        numeric: false,
    },
    SortColumn {
        key: "distro",
        head: "Distro",
        expr: "distro_arch{C}",
        numeric: false,
    },
    SortColumn {
        key: "7zip-multi",
        head: "7-zip multi",
        expr: "sevenzip_multi",
        numeric: true,
    },
    SortColumn {
        key: "7zip-single",
        head: "7-zip single",
        expr: "sevenzip_single",
        numeric: true,
    },
    SortColumn {
        key: "aes",
        head: "AES",
        expr: "aes256_16k",
        numeric: true,
    },
    SortColumn {
        key: "memcpy",
        head: "memcpy",
        expr: "memcpy",
        numeric: true,
    },
    SortColumn {
        key: "memset",
        head: "memset",
        expr: "memset",
        numeric: true,
    },
    SortColumn {
        key: "khs",
        head: "kH/s",
        expr: "scrypt",
        numeric: true,
    },
    SortColumn {
        key: "soc",
        head: "SoC",
        expr: "soc{C}",
        numeric: false,
    },
    SortColumn {
        key: "date",
        head: "Date",
        expr: "run_date{C}",
        numeric: false,
    },
];

/// The column named `key`.
pub fn column(key: &str) -> Option<&'static SortColumn> {
    COLUMNS.iter().find(|c| c.key == key)
}

/// What the table lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Tags shown (empty: verified only).
    pub statuses: Vec<Status>,
    pub soc: Option<String>,
    pub core_type: Option<String>,
    pub arch: Option<String>,
    /// Kernel series (`6.1`) or a prefix of the release.
    pub kernel: Option<String>,
    pub distro: Option<String>,
    /// Runs from this day on (`2024-01-01`).
    pub since: Option<String>,
    /// Runs up to this day.
    pub until: Option<String>,
    pub device_slug: Option<String>,
    pub soc_slug: Option<String>,
    /// Hidden results too (moderators).
    pub include_hidden: bool,
}

/// How the table is ordered and cut.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Order {
    pub column: &'static SortColumn,
    pub descending: bool,
    pub offset: u64,
    pub limit: u64,
}

impl Default for Order {
    fn default() -> Self {
        Self {
            column: &COLUMNS[0],
            descending: false,
            offset: 0,
            limit: 100,
        }
    }
}

fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// The `WHERE` clause and its parameters.
fn where_clause(f: &Filter) -> (String, Vec<Val>) {
    let mut cond: Vec<String> = Vec::new();
    let mut p: Vec<Val> = Vec::new();
    // `#` in a condition is its parameter's number.
    fn add(cond: &mut Vec<String>, p: &mut Vec<Val>, c: &str, v: Val) {
        p.push(v);
        cond.push(c.replace('#', &format!("${}", p.len())));
    }
    let statuses = if f.statuses.is_empty() {
        vec![Status::Verified]
    } else {
        f.statuses.clone()
    };
    let mut alt = Vec::new();
    for s in &statuses {
        p.push(Val::text(s.as_str()));
        alt.push(format!("status = ${}", p.len()));
    }
    cond.push(format!("({})", alt.join(" OR ")));
    if !f.include_hidden {
        cond.push("hidden = 0".into());
    }
    if let Some(v) = &f.soc {
        add(
            &mut cond,
            &mut p,
            "lower(soc) = lower(#)",
            Val::text(v.clone()),
        );
    }
    if let Some(v) = &f.soc_slug {
        add(&mut cond, &mut p, "soc_slug = #", Val::text(v.clone()));
    }
    if let Some(v) = &f.device_slug {
        add(&mut cond, &mut p, "device_slug = #", Val::text(v.clone()));
    }
    if let Some(v) = &f.core_type {
        add(
            &mut cond,
            &mut p,
            "lower(core_types) LIKE '%' || lower(#) || '%' ESCAPE '\\'",
            Val::text(like_escape(v)),
        );
    }
    if let Some(v) = &f.arch {
        add(&mut cond, &mut p, "arch = #", Val::text(v.clone()));
    }
    if let Some(v) = &f.kernel {
        p.push(Val::text(v.clone()));
        p.push(Val::text(like_escape(v)));
        cond.push(format!(
            "(kernel_series = ${} OR kernel LIKE ${} || '%' ESCAPE '\\')",
            p.len() - 1,
            p.len()
        ));
    }
    if let Some(v) = &f.distro {
        add(
            &mut cond,
            &mut p,
            "lower(distro_arch) LIKE '%' || lower(#) || '%' ESCAPE '\\'",
            Val::text(like_escape(v)),
        );
    }
    if let Some(v) = &f.since {
        add(&mut cond, &mut p, "run_date >= #", Val::text(v.clone()));
    }
    if let Some(v) = &f.until {
        // A day given: the whole day.
        let end = if v.len() == 10 {
            format!("{v}T99")
        } else {
            v.clone()
        };
        add(&mut cond, &mut p, "run_date <= #", Val::text(end));
    }
    (format!(" WHERE {}", cond.join(" AND ")), p)
}

/// A page of the table and how many results the filter matches.
pub fn list(db: &Db, f: &Filter, o: &Order) -> Result<(Vec<Summary>, u64), DbError> {
    let (cond, mut p) = where_clause(f);
    let dir = if o.descending { "DESC" } else { "ASC" };
    db.read(|s| {
        let total = s
            .query(&format!("SELECT COUNT(*) FROM results{cond}"), &p)?
            .first()
            .and_then(|r| r.i(0))
            .unwrap_or(0) as u64;
        let n = p.len();
        let sql = format!(
            "{}{cond} ORDER BY {} {dir} NULLS LAST, sort_label{{C}} ASC, id{{C}} ASC LIMIT ${} OFFSET ${}",
            select_summary(),
            o.column.expr,
            n + 1,
            n + 2
        );
        let mut params = std::mem::take(&mut p);
        params.push(Val::int(o.limit as i64));
        params.push(Val::int(o.offset as i64));
        let rows = s.query(&sql, &params)?;
        Ok((rows.iter().map(summary).collect(), total))
    })
}

/// Every result the filter matches, in the table's default order (exports, Results.md,
/// the history pages).
pub fn all(db: &Db, f: &Filter) -> Result<Vec<Summary>, DbError> {
    let (cond, p) = where_clause(f);
    db.read(|s| {
        let sql = format!(
            "{}{cond} ORDER BY sort_label{{C}} ASC, id{{C}} ASC",
            select_summary()
        );
        Ok(s.query(&sql, &p)?.iter().map(summary).collect())
    })
}

/// The SoCs, devices or other facets with how many results of the filter's tags each has.
pub fn facet(db: &Db, column: Facet, f: &Filter) -> Result<Vec<(String, String, u64)>, DbError> {
    let (cond, p) = where_clause(f);
    let (name, slug) = match column {
        Facet::Soc => ("soc", "soc_slug"),
        Facet::Device => ("device", "device_slug"),
        Facet::Arch => ("arch", "arch"),
        Facet::Kernel => ("kernel_series", "kernel_series"),
    };
    db.read(|s| {
        let sql = format!(
            "SELECT MIN({name}), {slug}, COUNT(*) FROM results{cond} AND {slug} IS NOT NULL \
             GROUP BY {slug} ORDER BY {slug}{{C}}"
        );
        Ok(s.query(&sql, &p)?
            .iter()
            .map(|r| (r.s(0), r.s(1), r.i(2).unwrap_or(0) as u64))
            .collect())
    })
}

/// What [`facet`] groups by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Facet {
    Soc,
    Device,
    Arch,
    Kernel,
}

/// How many results there are of each tag (hidden ones apart).
pub fn counts(db: &Db) -> Result<Vec<(Status, u64)>, DbError> {
    db.read(|s| {
        let rows = s.query(
            "SELECT status, COUNT(*) FROM results WHERE hidden = 0 GROUP BY status",
            &[],
        )?;
        Ok(Status::ALL
            .iter()
            .map(|st| {
                let n = rows
                    .iter()
                    .find(|r| r.t(0).as_deref() == Some(st.as_str()))
                    .and_then(|r| r.i(1))
                    .unwrap_or(0);
                (*st, n as u64)
            })
            .collect())
    })
}

/// A moderator's action on a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moderation {
    Hide,
    Unhide,
    /// A tag by hand (`None`: back to the checks' tag), with the reason.
    Retag(Option<Status>, String),
    Delete,
}

/// Apply a moderator's action; `false` when there is no such result.
pub fn moderate(db: &Db, id: &str, m: &Moderation) -> Result<bool, DbError> {
    db.write(|s| {
        let exists = !s
            .query("SELECT 1 FROM results WHERE id = $1", &[Val::text(id)])?
            .is_empty();
        if !exists {
            return Ok(false);
        }
        let at = now();
        let (action, detail) = match m {
            Moderation::Hide | Moderation::Unhide => {
                let hide = *m == Moderation::Hide;
                s.exec(
                    "UPDATE results SET hidden = $1, updated_at = $2 WHERE id = $3",
                    &[
                        Val::int(i64::from(hide)),
                        Val::text(at.clone()),
                        Val::text(id),
                    ],
                )?;
                (if hide { "hide" } else { "unhide" }, None)
            }
            Moderation::Retag(st, reason) => {
                s.exec(
                    "UPDATE results SET status_override = $1, override_reason = $2, \
                     status = COALESCE($1, auto_status), updated_at = $3 WHERE id = $4",
                    &[
                        Val::opt_text(st.map(|x| x.as_str())),
                        Val::opt_text(st.map(|_| reason.clone())),
                        Val::text(at.clone()),
                        Val::text(id),
                    ],
                )?;
                (
                    "retag",
                    Some(format!(
                        "{}: {reason}",
                        st.map_or("automatic", |x| x.as_str())
                    )),
                )
            }
            Moderation::Delete => {
                // Documents go with it (ON DELETE CASCADE); reviews stay, detached.
                s.exec(
                    "DELETE FROM documents WHERE result_id = $1",
                    &[Val::text(id)],
                )?;
                s.exec(
                    "UPDATE reviews SET result_id = NULL WHERE result_id = $1",
                    &[Val::text(id)],
                )?;
                s.exec("DELETE FROM results WHERE id = $1", &[Val::text(id)])?;
                ("delete", None)
            }
        };
        s.exec(
            "INSERT INTO moderation (at, result_id, action, detail) VALUES ($1, $2, $3, $4)",
            &[
                Val::text(at),
                Val::text(id),
                Val::text(action),
                Val::opt_text(detail),
            ],
        )?;
        Ok(true)
    })
}

/// How many results and documents are stored (tests and the benchmark count these
/// against the answers they got).
pub fn totals(db: &Db) -> Result<(u64, u64), DbError> {
    db.read(|s| {
        let r = s.query("SELECT COUNT(*) FROM results", &[])?;
        let d = s.query("SELECT COUNT(*) FROM documents", &[])?;
        Ok((
            r.first().and_then(|x| x.i(0)).unwrap_or(0) as u64,
            d.first().and_then(|x| x.i(0)).unwrap_or(0) as u64,
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_and_ids() {
        assert_eq!(slug("Radxa ROCK 5B"), "radxa-rock-5b");
        assert_eq!(slug("  Orin NX / (A78AE) "), "orin-nx-a78ae");
        assert_eq!(slug("../../etc"), "etc");
        assert_eq!(slug("///"), "n-a");
        assert!(valid_id("87lq"));
        assert!(valid_id("0123456789abcdef"));
        assert!(!valid_id("../x"));
        assert!(!valid_id(""));
        assert!(!valid_id(&"a".repeat(41)));
    }

    #[test]
    fn filters_bind_every_value() {
        let f = Filter {
            soc: Some("RK3588' OR 1=1 --".into()),
            kernel: Some("6.1".into()),
            core_type: Some("A55%".into()),
            ..Filter::default()
        };
        let (sql, p) = where_clause(&f);
        assert!(!sql.contains("RK3588"), "{sql}");
        assert!(!sql.contains("A55"), "{sql}");
        assert_eq!(p.len(), 5, "{p:?}");
        assert!(
            sql.contains("kernel_series = $4 OR kernel LIKE $5 ||"),
            "{sql}"
        );
        assert_eq!(p[2], Val::text("A55\\%"));
    }
}
