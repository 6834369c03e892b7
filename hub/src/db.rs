//! The database under the hub: SQLite (one file, WAL) by default, PostgreSQL for more than
//! one machine. Both run the same schema and the same statements: every statement is
//! written once, with `$n` parameters (rewritten to SQLite's `?n`) and `{C}` where a text
//! ordering must be bytewise on both (PostgreSQL's `COLLATE "C"`, SQLite's default).
//! Parameters are always bound, never spliced into the text.
//!
//! Access is synchronous (rusqlite; the `postgres` client) behind r2d2 pools; the web layer
//! calls it from tokio's blocking threads.

use std::path::{Path, PathBuf};
use std::time::Duration;

use postgres::types::Type;
use r2d2_postgres::PostgresConnectionManager;

/// One bound value or one read cell. Typed even when null: PostgreSQL wants the type of
/// every parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    I(Option<i64>),
    F(Option<f64>),
    T(Option<String>),
}

impl Val {
    pub fn text(s: impl Into<String>) -> Self {
        Val::T(Some(s.into()))
    }
    pub fn opt_text(s: Option<impl Into<String>>) -> Self {
        Val::T(s.map(Into::into))
    }
    pub fn int(i: i64) -> Self {
        Val::I(Some(i))
    }
}

/// A row read: its cells in the order of the `SELECT`.
#[derive(Debug, Clone, PartialEq)]
pub struct DbRow(pub Vec<Val>);

impl DbRow {
    pub fn i(&self, n: usize) -> Option<i64> {
        match self.0.get(n)? {
            Val::I(v) => *v,
            Val::F(v) => v.map(|f| f as i64),
            Val::T(v) => v.as_deref()?.parse().ok(),
        }
    }
    pub fn f(&self, n: usize) -> Option<f64> {
        match self.0.get(n)? {
            Val::I(v) => v.map(|i| i as f64),
            Val::F(v) => *v,
            Val::T(v) => v.as_deref()?.parse().ok(),
        }
    }
    pub fn t(&self, n: usize) -> Option<String> {
        match self.0.get(n)? {
            Val::I(v) => v.map(|i| i.to_string()),
            Val::F(v) => v.map(|f| f.to_string()),
            Val::T(v) => v.clone(),
        }
    }
    /// A text cell that cannot be null (the schema says `NOT NULL`).
    pub fn s(&self, n: usize) -> String {
        self.t(n).unwrap_or_default()
    }
}

/// Why the database failed.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database: {0}")]
    Postgres(#[from] postgres::Error),
    #[error("database pool: {0}")]
    Pool(#[from] r2d2::Error),
    #[error("database: {0}")]
    Other(String),
}

impl DbError {
    /// A unique constraint stopped a write another writer made first: the transaction is
    /// worth repeating once.
    pub fn is_conflict(&self) -> bool {
        match self {
            DbError::Postgres(e) => e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION),
            DbError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.code == rusqlite::ErrorCode::ConstraintViolation
            }
            _ => false,
        }
    }
}

/// Statements on one connection or transaction, whichever the database.
pub trait Sql {
    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<DbRow>, DbError>;
    fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, DbError>;
    /// Which database this is.
    fn dialect(&self) -> Dialect;
}

/// The two databases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// A statement in this dialect: `$n` → `?n` for SQLite, `{C}` → bytewise collation.
    pub fn sql(self, s: &str) -> String {
        match self {
            Dialect::Sqlite => s.replace('$', "?").replace("{C}", ""),
            Dialect::Postgres => s.replace("{C}", " COLLATE \"C\""),
        }
    }
}

struct Lite<'a>(&'a rusqlite::Connection);

impl Sql for Lite<'_> {
    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<DbRow>, DbError> {
        let mut st = self.0.prepare_cached(&Dialect::Sqlite.sql(sql))?;
        let n = st.column_count();
        let mut rows = st.query(rusqlite::params_from_iter(params.iter().map(lite_param)))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut cells = Vec::with_capacity(n);
            for i in 0..n {
                use rusqlite::types::ValueRef;
                cells.push(match r.get_ref(i)? {
                    ValueRef::Null => Val::T(None),
                    ValueRef::Integer(v) => Val::I(Some(v)),
                    ValueRef::Real(v) => Val::F(Some(v)),
                    ValueRef::Text(t) => Val::T(Some(String::from_utf8_lossy(t).into_owned())),
                    ValueRef::Blob(b) => Val::T(Some(String::from_utf8_lossy(b).into_owned())),
                });
            }
            out.push(DbRow(cells));
        }
        Ok(out)
    }

    fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, DbError> {
        let mut st = self.0.prepare_cached(&Dialect::Sqlite.sql(sql))?;
        Ok(st.execute(rusqlite::params_from_iter(params.iter().map(lite_param)))? as u64)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
}

fn lite_param(v: &Val) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match v {
        Val::I(Some(i)) => Value::Integer(*i),
        Val::F(Some(f)) => Value::Real(*f),
        Val::T(Some(s)) => Value::Text(s.clone()),
        _ => Value::Null,
    }
}

struct Pg<'a, C: postgres::GenericClient>(&'a mut C);

fn pg_params(params: &[Val]) -> Vec<(Box<dyn postgres::types::ToSql + Sync>, Type)> {
    params
        .iter()
        .map(|v| -> (Box<dyn postgres::types::ToSql + Sync>, Type) {
            match v {
                Val::I(i) => (Box::new(*i), Type::INT8),
                Val::F(f) => (Box::new(*f), Type::FLOAT8),
                Val::T(t) => (Box::new(t.clone()), Type::TEXT),
            }
        })
        .collect()
}

impl<C: postgres::GenericClient> Sql for Pg<'_, C> {
    fn query(&mut self, sql: &str, params: &[Val]) -> Result<Vec<DbRow>, DbError> {
        let owned = pg_params(params);
        let refs: Vec<(&(dyn postgres::types::ToSql + Sync), Type)> =
            owned.iter().map(|(b, t)| (b.as_ref(), t.clone())).collect();
        let rows = self.0.query_typed(&Dialect::Postgres.sql(sql), &refs)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let mut cells = Vec::with_capacity(r.len());
            for (i, c) in r.columns().iter().enumerate() {
                let t = c.type_();
                cells.push(if *t == Type::INT8 {
                    Val::I(r.try_get(i)?)
                } else if *t == Type::INT4 {
                    Val::I(r.try_get::<_, Option<i32>>(i)?.map(i64::from))
                } else if *t == Type::FLOAT8 {
                    Val::F(r.try_get(i)?)
                } else if *t == Type::FLOAT4 {
                    Val::F(r.try_get::<_, Option<f32>>(i)?.map(f64::from))
                } else {
                    Val::T(r.try_get(i)?)
                });
            }
            out.push(DbRow(cells));
        }
        Ok(out)
    }

    fn exec(&mut self, sql: &str, params: &[Val]) -> Result<u64, DbError> {
        let owned = pg_params(params);
        let refs: Vec<(&(dyn postgres::types::ToSql + Sync), Type)> =
            owned.iter().map(|(b, t)| (b.as_ref(), t.clone())).collect();
        Ok(self.0.execute_typed(&Dialect::Postgres.sql(sql), &refs)?)
    }

    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
}

/// Opens SQLite connections for the pool: WAL (readers never wait for the writer),
/// `synchronous=FULL` (a commit is on disk before the upload is answered), foreign keys,
/// and a busy timeout so writers queue instead of failing.
#[derive(Debug)]
struct LiteManager {
    path: PathBuf,
}

impl r2d2::ManageConnection for LiteManager {
    type Connection = rusqlite::Connection;
    type Error = rusqlite::Error;

    fn connect(&self) -> Result<rusqlite::Connection, rusqlite::Error> {
        let c = rusqlite::Connection::open(&self.path)?;
        c.busy_timeout(Duration::from_secs(30))?;
        c.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;",
        )?;
        Ok(c)
    }

    fn is_valid(&self, c: &mut rusqlite::Connection) -> Result<(), rusqlite::Error> {
        c.execute_batch("")
    }

    fn has_broken(&self, _: &mut rusqlite::Connection) -> bool {
        false
    }
}

enum Pool {
    Sqlite(r2d2::Pool<LiteManager>),
    Postgres(r2d2::Pool<PostgresConnectionManager<postgres::NoTls>>),
}

/// The hub's database.
pub struct Db {
    pool: Pool,
    /// The SQLite file, for `backup`.
    path: Option<PathBuf>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("dialect", &self.dialect())
            .field("path", &self.path)
            .finish()
    }
}

/// The SQLite file in a data directory.
pub const SQLITE_FILE: &str = "hub.sqlite3";

impl Db {
    /// The SQLite database in `dir` (created with the directory when missing).
    pub fn open_sqlite(dir: &Path, pool_size: u32) -> Result<Self, DbError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| DbError::Other(format!("cannot create {}: {e}", dir.display())))?;
        let path = dir.join(SQLITE_FILE);
        if let Ok(m) = std::fs::symlink_metadata(&path) {
            if !m.is_file() {
                return Err(DbError::Other(format!(
                    "{} is not a regular file",
                    path.display()
                )));
            }
        }
        let pool = r2d2::Pool::builder()
            .max_size(pool_size.max(1))
            .connection_timeout(Duration::from_secs(30))
            .build(LiteManager { path: path.clone() })?;
        let db = Self {
            pool: Pool::Sqlite(pool),
            path: Some(path),
        };
        crate::schema::migrate(&db)?;
        Ok(db)
    }

    /// A PostgreSQL database (`postgres://user@host/db`; the schema is created or
    /// migrated).
    pub fn open_postgres(url: &str, pool_size: u32) -> Result<Self, DbError> {
        let config: postgres::Config = url
            .parse()
            .map_err(|e: postgres::Error| DbError::Other(format!("--database: {e}")))?;
        let manager = PostgresConnectionManager::new(config, postgres::NoTls);
        let pool = r2d2::Pool::builder()
            .max_size(pool_size.max(1))
            .connection_timeout(Duration::from_secs(30))
            .build(manager)?;
        let db = Self {
            pool: Pool::Postgres(pool),
            path: None,
        };
        crate::schema::migrate(&db)?;
        Ok(db)
    }

    pub fn dialect(&self) -> Dialect {
        match self.pool {
            Pool::Sqlite(_) => Dialect::Sqlite,
            Pool::Postgres(_) => Dialect::Postgres,
        }
    }

    /// The SQLite file, if this is SQLite.
    pub fn sqlite_path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Statements outside a transaction (reads).
    pub fn read<R>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, DbError>,
    ) -> Result<R, DbError> {
        match &self.pool {
            Pool::Sqlite(p) => {
                let c = p.get()?;
                f(&mut Lite(&c))
            }
            Pool::Postgres(p) => {
                let mut c = p.get()?;
                f(&mut Pg(&mut *c))
            }
        }
    }

    /// One transaction: committed when `f` returns `Ok`, rolled back otherwise. A write
    /// that lost a race on a unique key (two uploads of one document at once) is
    /// repeated, so it then finds the other's row.
    pub fn write<R>(
        &self,
        mut f: impl FnMut(&mut dyn Sql) -> Result<R, DbError>,
    ) -> Result<R, DbError> {
        let mut tries = 0;
        loop {
            tries += 1;
            match self.write_once(&mut f) {
                Err(e) if e.is_conflict() && tries < 3 => continue,
                other => return other,
            }
        }
    }

    fn write_once<R>(
        &self,
        f: &mut impl FnMut(&mut dyn Sql) -> Result<R, DbError>,
    ) -> Result<R, DbError> {
        match &self.pool {
            Pool::Sqlite(p) => {
                let mut c = p.get()?;
                // IMMEDIATE: the write lock is taken at the start, so two writers queue on
                // the busy timeout instead of one failing when it upgrades.
                let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                let r = f(&mut Lite(&tx))?;
                tx.commit()?;
                Ok(r)
            }
            Pool::Postgres(p) => {
                let mut c = p.get()?;
                let mut tx = c.transaction()?;
                let r = f(&mut Pg(&mut tx))?;
                tx.commit()?;
                Ok(r)
            }
        }
    }

    /// Several statements separated by `;` (the schema), in one transaction.
    pub fn batch(&self, sql: &str) -> Result<(), DbError> {
        match &self.pool {
            Pool::Sqlite(p) => {
                let mut c = p.get()?;
                let tx = c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                tx.execute_batch(&Dialect::Sqlite.sql(sql))?;
                tx.commit()?;
                Ok(())
            }
            Pool::Postgres(p) => {
                let mut c = p.get()?;
                let mut tx = c.transaction()?;
                tx.batch_execute(&Dialect::Postgres.sql(sql))?;
                tx.commit()?;
                Ok(())
            }
        }
    }

    /// A consistent copy of the SQLite database into `to` (SQLite's online backup: the hub
    /// may keep serving and writing meanwhile).
    pub fn backup_sqlite(&self, to: &Path) -> Result<(), DbError> {
        let Pool::Sqlite(p) = &self.pool else {
            return Err(DbError::Other(
                "backup copies the SQLite file; back PostgreSQL up with pg_dump".into(),
            ));
        };
        let c = p.get()?;
        let mut dst = rusqlite::Connection::open(to)?;
        let b = rusqlite::backup::Backup::new(&c, &mut dst)?;
        b.run_to_completion(256, Duration::from_millis(5), None)?;
        drop(b);
        // The copy is one self-contained file, not a WAL pair.
        dst.execute_batch("PRAGMA journal_mode=DELETE;")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_statement_text_for_both_databases() {
        let s = "SELECT id FROM results WHERE soc = $1 ORDER BY label{C} LIMIT $2";
        assert_eq!(
            Dialect::Sqlite.sql(s),
            "SELECT id FROM results WHERE soc = ?1 ORDER BY label LIMIT ?2"
        );
        assert_eq!(
            Dialect::Postgres.sql(s),
            "SELECT id FROM results WHERE soc = $1 ORDER BY label COLLATE \"C\" LIMIT $2"
        );
    }

    #[test]
    fn cells_read_leniently() {
        let r = DbRow(vec![Val::I(Some(3)), Val::F(Some(2.5)), Val::T(None)]);
        assert_eq!(r.i(0), Some(3));
        assert_eq!(r.f(0), Some(3.0));
        assert_eq!(r.f(1), Some(2.5));
        assert_eq!(r.t(2), None);
        assert_eq!(r.s(2), "");
        assert_eq!(r.i(9), None);
    }
}
