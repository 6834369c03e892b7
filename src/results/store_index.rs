//! What the results store indexes of a record, and how `results list` filters and sorts:
//! the columns of `runs` made from a [`Parsed`] (one function for a new row and for a
//! row re-read by a migration), the run's identity across its documents, and the list
//! query. Pure, except [`refresh`], which re-reads stored documents inside the caller's
//! transaction.

use std::str::FromStr;

use rusqlite::types::Value;
use rusqlite::{Connection, params};

use crate::results::document::{self, Parsed};

/// The version of the record the rows hold (`runs.record_version`). A row of an older
/// one is read again from its document when the database is opened, so every stored run
/// carries what the newest reader finds in it.
pub const RECORD_VERSION: i64 = 1;

/// Schema 1 → 2: the figures under their unit names (the run JSON's keys), the
/// userland's architecture, the run's identity across documents, the record's version,
/// and an index on each column people filter or sort on. The rows are then re-read from
/// their documents ([`refresh`]): dates become RFC 3339 UTC, `record_json` the typed
/// record.
pub const MIGRATION_2: &str = "
    ALTER TABLE runs RENAME COLUMN aes256_16k TO aes256_16k_kb_per_s;
    ALTER TABLE runs RENAME COLUMN memcpy_mb_s TO memcpy_mb_per_s;
    ALTER TABLE runs RENAME COLUMN memset_mb_s TO memset_mb_per_s;
    ALTER TABLE runs RENAME COLUMN scrypt_khs TO scrypt_khash_per_s;
    ALTER TABLE runs ADD COLUMN arch TEXT;
    ALTER TABLE runs ADD COLUMN run_key TEXT;
    ALTER TABLE runs ADD COLUMN record_version INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX runs_core_types ON runs(core_types);
    CREATE INDEX runs_kernel ON runs(kernel);
    CREATE INDEX runs_distro ON runs(distro);
    CREATE INDEX runs_arch ON runs(arch);
    CREATE INDEX runs_machine ON runs(machine);
    CREATE INDEX runs_sevenzip_multi ON runs(sevenzip_multi);
    CREATE INDEX runs_sevenzip_single ON runs(sevenzip_single);
    CREATE INDEX runs_aes ON runs(aes256_16k_kb_per_s);
    CREATE INDEX runs_memcpy ON runs(memcpy_mb_per_s);
    CREATE INDEX runs_memset ON runs(memset_mb_per_s);
    CREATE INDEX runs_ramlat_16m ON runs(ramlat_16m_ns);
    CREATE INDEX runs_ramlat_128m ON runs(ramlat_128m_ns);
    CREATE INDEX runs_verdict ON runs(verdict);
    CREATE INDEX runs_run_key ON runs(run_key);
";

/// The run's identity across its documents (its log and its run JSON): who wrote it,
/// the version, the instant it started (to the second, as a log's header gives it), the
/// device and the Results.md row (two runs of two modes started in the same second are
/// two runs; a log and a JSON of one run state the same row). `None` without a date, a
/// device or a figure of the row (the oldest uploads, a thermal test, a review without
/// benchmarks): such a document is stored once by its bytes only.
pub fn run_key(p: &Parsed) -> Option<String> {
    let r = &p.record;
    let writer = serde_json::to_value(r.writer).ok()?;
    let date = p.log.date_utc.as_deref()?;
    let row = &p.log.results_row;
    let device = Some(row.device.trim()).filter(|d| !d.is_empty())?;
    let figures = row.sevenzip_multi.is_some()
        || row.sevenzip_single.is_some()
        || row.aes256_16k.is_some()
        || row.memcpy_mb_s.is_some()
        || row.memset_mb_s.is_some()
        || row.scrypt_khs.is_some();
    if !figures {
        return None;
    }
    Some(format!(
        "{}|{}|{date}|{device}|{}",
        writer.as_str().unwrap_or("unknown"),
        p.log.version.as_deref().unwrap_or(""),
        row.render()
    ))
}

/// The SoC a record names, short (`RK3588`), as the published rows name it.
pub fn soc_of(p: &Parsed) -> Option<String> {
    use crate::results::compare::Selection;
    match p
        .log
        .soc_guess
        .as_deref()
        .and_then(Selection::from_soc_guess)
    {
        Some(Selection::Soc(s)) => Some(s),
        _ => None,
    }
}

/// The userland's architecture (`arm64`, `armhf`, `amd64`): the log's `Userland:` line,
/// else the row's distro column's last word (after `/` where kernel and userland differ:
/// `x86_64/amd64`).
pub fn arch_of(p: &Parsed) -> Option<String> {
    if let Some(u) = &p.record.host.userland {
        return Some(u.clone());
    }
    let word = p.log.results_row.distro_arch.split_whitespace().last()?;
    let arch = word.rsplit('/').next().unwrap_or(word);
    let known = [
        "arm64", "armhf", "armel", "amd64", "i386", "riscv64", "aarch64", "x86_64", "armv7l",
    ];
    known.contains(&arch).then(|| arch.to_string())
}

fn text(s: &str) -> Value {
    if s.trim().is_empty() {
        Value::Null
    } else {
        Value::Text(s.to_string())
    }
}

fn opt_text(s: Option<&str>) -> Value {
    s.map_or(Value::Null, text)
}

fn real(v: Option<f64>) -> Value {
    v.filter(|x| x.is_finite()).map_or(Value::Null, Value::Real)
}

fn int(v: Option<i64>) -> Value {
    v.map_or(Value::Null, Value::Integer)
}

fn flag(v: Option<bool>) -> Value {
    v.map_or(Value::Null, |b| Value::Integer(i64::from(b)))
}

/// The indexed columns of a record, by name (the `runs` columns after the document's
/// own). `kernel_bsp`: what the run knew (a live run reads the kernel log), else judged
/// from the record.
pub fn columns(p: &Parsed, kernel_bsp: Option<bool>) -> Vec<(&'static str, Value)> {
    let row = &p.log.results_row;
    let clocks = (!p.extra.clocks_mhz.is_empty()).then(|| {
        p.extra
            .clocks_mhz
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join("/")
    });
    let kernel = p
        .log
        .kernel_release
        .clone()
        .filter(|k| !k.is_empty())
        .unwrap_or_else(|| row.kernel.clone());
    vec![
        ("date", opt_text(p.log.date_utc.as_deref())),
        ("tool_version", opt_text(p.log.version.as_deref())),
        ("mode", opt_text(p.log.mode.as_deref())),
        ("device", text(&row.device)),
        ("soc", opt_text(soc_of(p).as_deref())),
        ("core_types", text(&p.log.core_types.join(", "))),
        ("kernel", text(&kernel)),
        (
            "kernel_bsp",
            flag(kernel_bsp.or_else(|| document::kernel_bsp(p))),
        ),
        ("distro", text(&row.distro_arch)),
        ("arch", opt_text(arch_of(p).as_deref())),
        ("machine", opt_text(p.extra.machine.as_deref())),
        ("clock", text(&row.clock)),
        ("clocks_measured", opt_text(clocks.as_deref())),
        ("sevenzip_multi", int(row.sevenzip_multi.map(|v| v as i64))),
        (
            "sevenzip_single",
            int(row.sevenzip_single.map(|v| v as i64)),
        ),
        ("aes256_16k_kb_per_s", real(row.aes256_16k)),
        ("memcpy_mb_per_s", real(row.memcpy_mb_s)),
        ("memset_mb_per_s", real(row.memset_mb_s)),
        ("scrypt_khash_per_s", real(row.scrypt_khs)),
        ("ramlat_16m_ns", real(p.extra.ramlat_16m_ns)),
        ("ramlat_128m_ns", real(p.extra.ramlat_128m_ns)),
        ("verdict", opt_text(p.extra.verdict.as_deref())),
        ("throttled", flag(Some(row.throttled))),
        ("run_key", opt_text(run_key(p).as_deref())),
        ("record_version", Value::Integer(RECORD_VERSION)),
    ]
}

/// Re-read every row whose record is older than [`RECORD_VERSION`] from its document,
/// inside the caller's transaction: its `record_json` and indexed columns become what the
/// newest reader finds. A document this build cannot read keeps its row as it was, its
/// date converted to UTC where it can be. Returns how many rows were re-read.
pub fn refresh(conn: &Connection) -> rusqlite::Result<usize> {
    let stale: Vec<(i64, String, Option<bool>, Option<String>)> = {
        let mut q = conn
            .prepare("SELECT id, document, kernel_bsp, date FROM runs WHERE record_version < ?1")?;
        q.query_map([RECORD_VERSION], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<Result<_, _>>()?
    };
    let mut n = 0;
    for (id, doc, bsp, date) in stale {
        match document::parse(&doc) {
            Ok(p) => {
                let record = serde_json::to_string(&p).unwrap_or_else(|_| "{}".into());
                let cols = columns(&p, bsp);
                let set: Vec<String> = cols
                    .iter()
                    .enumerate()
                    .map(|(i, (c, _))| format!("{c} = ?{}", i + 3))
                    .collect();
                let sql = format!(
                    "UPDATE runs SET record_json = ?2, {} WHERE id = ?1",
                    set.join(", ")
                );
                let mut values = vec![Value::Integer(id), Value::Text(record)];
                values.extend(cols.into_iter().map(|(_, v)| v));
                conn.execute(&sql, rusqlite::params_from_iter(values))?;
                n += 1;
            }
            Err(_) => {
                let utc = date.as_deref().and_then(crate::results::sbclog::to_utc);
                conn.execute(
                    "UPDATE runs SET date = coalesce(?2, date), record_version = ?3 WHERE id = ?1",
                    params![id, utc, RECORD_VERSION],
                )?;
            }
        }
    }
    Ok(n)
}

/// What `results list --sort` orders by: a metric best first (the higher the better,
/// latency the lower), a name alphabetically, the date oldest first; runs without the
/// value last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunSort {
    Id,
    Date,
    Device,
    Soc,
    SevenzipMulti,
    SevenzipSingle,
    Aes,
    Memcpy,
    Memset,
    Khs,
    Latency,
}

impl RunSort {
    /// Every key, as `--sort` takes it.
    pub const ALL: [(RunSort, &'static str); 11] = [
        (RunSort::Id, "id"),
        (RunSort::Date, "date"),
        (RunSort::Device, "device"),
        (RunSort::Soc, "soc"),
        (RunSort::SevenzipMulti, "7zip-multi"),
        (RunSort::SevenzipSingle, "7zip-single"),
        (RunSort::Aes, "aes"),
        (RunSort::Memcpy, "memcpy"),
        (RunSort::Memset, "memset"),
        (RunSort::Khs, "khs"),
        (RunSort::Latency, "latency"),
    ];

    /// `ORDER BY` of this key (the column and its direction; NULLs last, then by id).
    fn order_by(self) -> &'static str {
        match self {
            RunSort::Id => "id",
            RunSort::Date => "date IS NULL, date, id",
            RunSort::Device => "device IS NULL, device COLLATE NOCASE, id",
            RunSort::Soc => "soc IS NULL, soc COLLATE NOCASE, id",
            RunSort::SevenzipMulti => "sevenzip_multi IS NULL, sevenzip_multi DESC, id",
            RunSort::SevenzipSingle => "sevenzip_single IS NULL, sevenzip_single DESC, id",
            RunSort::Aes => "aes256_16k_kb_per_s IS NULL, aes256_16k_kb_per_s DESC, id",
            RunSort::Memcpy => "memcpy_mb_per_s IS NULL, memcpy_mb_per_s DESC, id",
            RunSort::Memset => "memset_mb_per_s IS NULL, memset_mb_per_s DESC, id",
            RunSort::Khs => "scrypt_khash_per_s IS NULL, scrypt_khash_per_s DESC, id",
            RunSort::Latency => "ramlat_128m_ns IS NULL, ramlat_128m_ns, id",
        }
    }
}

impl FromStr for RunSort {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(s.trim()))
            .map(|(k, _)| *k)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|(_, n)| *n).collect();
                format!("not a sort key (one of: {})", names.join(", "))
            })
    }
}

/// `results list`'s filters: every one given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// The SoC column equals this (`RK3588`; case does not matter).
    pub soc: Option<String>,
    /// The device contains this text (case does not matter).
    pub device: Option<String>,
    /// Runs on or after this instant (RFC 3339 UTC, or a day `2024-05-01`).
    pub since: Option<String>,
    /// The order (default: as stored).
    pub sort: Option<RunSort>,
    /// At most this many rows.
    pub limit: Option<u32>,
}

/// `2024-05-01`, `2024-05-01T12:00:00+02:00` or an RFC 2822 date as the UTC text the
/// `date` column compares with.
pub fn since_utc(s: &str) -> Result<String, String> {
    let t = s.trim();
    if let Ok(d) = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return Ok(format!("{d}T00:00:00Z"));
    }
    crate::results::sbclog::to_utc(t)
        .ok_or_else(|| format!("not a date: {t:?} (give 2024-05-01 or an RFC 3339 time)"))
}

impl ListQuery {
    /// The `WHERE … ORDER BY … LIMIT …` after `SELECT … FROM runs`, with its values.
    pub fn sql(&self) -> (String, Vec<Value>) {
        let mut cond = Vec::new();
        let mut values = Vec::new();
        if let Some(s) = &self.soc {
            values.push(Value::Text(s.trim().to_string()));
            cond.push(format!("soc = ?{} COLLATE NOCASE", values.len()));
        }
        if let Some(d) = &self.device {
            // LIKE's wildcards in the text are matched as themselves.
            let esc = d
                .trim()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            values.push(Value::Text(format!("%{esc}%")));
            cond.push(format!("device LIKE ?{} ESCAPE '\\'", values.len()));
        }
        if let Some(s) = &self.since {
            values.push(Value::Text(s.clone()));
            cond.push(format!("date >= ?{}", values.len()));
        }
        let mut sql = String::new();
        if !cond.is_empty() {
            sql.push_str(" WHERE ");
            sql.push_str(&cond.join(" AND "));
        }
        sql.push_str(" ORDER BY ");
        sql.push_str(self.sort.unwrap_or(RunSort::Id).order_by());
        if let Some(n) = self.limit {
            sql.push_str(&format!(" LIMIT {n}"));
        }
        (sql, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_parse_and_a_wrong_one_lists_them() {
        assert_eq!("7zip-multi".parse::<RunSort>(), Ok(RunSort::SevenzipMulti));
        assert_eq!("Latency".parse::<RunSort>(), Ok(RunSort::Latency));
        let e = "speed".parse::<RunSort>().unwrap_err();
        assert!(e.contains("id, date, device, soc, 7zip-multi"), "{e}");
    }

    #[test]
    fn since_takes_a_day_or_a_time() {
        assert_eq!(since_utc("2024-05-01").unwrap(), "2024-05-01T00:00:00Z");
        assert_eq!(
            since_utc("2024-05-01T02:00:00+02:00").unwrap(),
            "2024-05-01T00:00:00Z"
        );
        assert!(since_utc("last week").is_err());
    }

    #[test]
    fn a_query_escapes_like_wildcards_and_binds_values() {
        let q = ListQuery {
            soc: Some("rk3588".into()),
            device: Some("50%_off".into()),
            since: Some("2024-05-01T00:00:00Z".into()),
            sort: Some(RunSort::Latency),
            limit: Some(3),
        };
        let (sql, v) = q.sql();
        assert_eq!(
            sql,
            " WHERE soc = ?1 COLLATE NOCASE AND device LIKE ?2 ESCAPE '\\' AND date >= ?3 ORDER BY ramlat_128m_ns IS NULL, ramlat_128m_ns, id LIMIT 3"
        );
        assert_eq!(v[1], Value::Text("%50\\%\\_off%".into()));
    }
}
