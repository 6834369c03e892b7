//! The hub's schema, one text for SQLite and PostgreSQL (`{C}`: the bytewise order the
//! statements sort by, see [`crate::db::Dialect`]; types both read the same way:
//! `BIGINT` for integers and flags, `DOUBLE PRECISION` for figures, `TEXT` for the rest;
//! ids are text, so neither needs its own auto-increment). The version is a row of
//! `hub_meta`; [`migrate`] brings an older database forward and refuses a newer one.

use crate::db::{Db, DbError, Val};

/// The schema this build writes.
pub const VERSION: i64 = 1;

/// Forward migrations: entry `n` brings a database from version `n` to `n + 1`.
const MIGRATIONS: &[&str] = &["
CREATE TABLE results (
    id TEXT PRIMARY KEY,
    identity TEXT UNIQUE,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    hidden BIGINT NOT NULL DEFAULT 0,
    auto_status TEXT NOT NULL,
    status TEXT NOT NULL,
    status_override TEXT,
    override_reason TEXT,
    label TEXT NOT NULL,
    sort_label TEXT NOT NULL,
    label_md TEXT,
    clock_md TEXT,
    distro_md TEXT,
    device TEXT NOT NULL,
    device_slug TEXT NOT NULL,
    soc TEXT,
    soc_slug TEXT,
    core_types TEXT,
    arch TEXT,
    kernel TEXT,
    kernel_series TEXT,
    distro TEXT,
    distro_arch TEXT NOT NULL,
    run_date TEXT,
    tool_version TEXT,
    mode TEXT,
    clock TEXT,
    throttled BIGINT NOT NULL,
    quick BIGINT NOT NULL,
    sevenzip_multi BIGINT,
    sevenzip_single BIGINT,
    aes256_16k DOUBLE PRECISION,
    memcpy DOUBLE PRECISION,
    memset DOUBLE PRECISION,
    scrypt DOUBLE PRECISION,
    ramlat_16m DOUBLE PRECISION,
    ramlat_128m DOUBLE PRECISION,
    figures TEXT NOT NULL,
    checks TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX results_listing ON results(status, hidden, sort_label{C}, id{C});
CREATE INDEX results_soc ON results(soc_slug);
CREATE INDEX results_device ON results(device_slug);
CREATE INDEX results_run_date ON results(run_date);
CREATE INDEX results_created ON results(created_at);
CREATE TABLE documents (
    sha256 TEXT PRIMARY KEY,
    result_id TEXT NOT NULL REFERENCES results(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    stored_at TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX documents_result ON documents(result_id);
CREATE TABLE reviews (
    slug TEXT PRIMARY KEY,
    result_id TEXT REFERENCES results(id) ON DELETE SET NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    stored_at TEXT NOT NULL
);
CREATE INDEX reviews_result ON reviews(result_id);
CREATE TABLE moderation (
    at TEXT NOT NULL,
    result_id TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT
);
"];

/// Create or migrate the schema.
pub fn migrate(db: &Db) -> Result<(), DbError> {
    db.batch("CREATE TABLE IF NOT EXISTS hub_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")?;
    let version = current(db)?;
    if version > VERSION {
        return Err(DbError::Other(format!(
            "the database has schema version {version}, newer than this sbc-bench-hub's \
             {VERSION}: upgrade sbc-bench-hub"
        )));
    }
    for (n, m) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let next = n as i64 + 1;
        // Two hubs starting at once: one migrates, the other finds it done.
        let sql = format!(
            "{m};\nINSERT INTO hub_meta (key, value) VALUES ('schema_version', '{next}') \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        );
        if let Err(e) = db.batch(&sql) {
            if current(db)? >= next {
                continue;
            }
            return Err(e);
        }
    }
    Ok(())
}

/// The schema version of the database (0: empty).
pub fn current(db: &Db) -> Result<i64, DbError> {
    db.read(|s| {
        let rows = s.query(
            "SELECT value FROM hub_meta WHERE key = $1",
            &[Val::text("schema_version")],
        )?;
        Ok(rows.first().and_then(|r| r.i(0)).unwrap_or(0))
    })
}
