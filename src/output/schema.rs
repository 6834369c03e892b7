//! The one JSON contract (docs/RUN-JSON.md): every JSON document this program prints or
//! writes opens with `schema` (a stable name) and `schema_version` (an integer, bumped only
//! on an incompatible change; added keys do not bump it). The names and versions live
//! here, in one table, so the tests can check that each has its schema file under
//! `docs/schema/`.

use serde::Serialize;

/// The name and version of one kind of JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Schema {
    /// `schema`: the document's stable name (`sbc-bench-run`).
    #[serde(rename = "schema")]
    pub name: &'static str,
    /// `schema_version`.
    #[serde(rename = "schema_version")]
    pub version: u32,
}

impl Schema {
    /// The file under `docs/schema/` that describes it (`sbc-bench-run.schema.json`).
    pub fn file_name(&self) -> String {
        format!("{}.schema.json", self.name)
    }
}

const fn v1(name: &'static str) -> Schema {
    Schema { name, version: 1 }
}

/// `run --json` (and the modes that write a run's document: review, thermal, graph, wrap).
pub const RUN: Schema = v1("sbc-bench-run");
/// `info --json`.
pub const INFO: Schema = v1("sbc-bench-info");
/// `kernel --json`.
pub const KERNEL: Schema = v1("sbc-bench-kernel");
/// One line of `monitor --json`.
pub const MONITOR: Schema = v1("sbc-bench-monitor");
/// `storage --json`.
pub const STORAGE: Schema = v1("sbc-bench-storage");
/// `storage bench --json`.
pub const STORAGE_BENCH: Schema = v1("sbc-bench-storage-bench");
/// `net --json` (a measurement, or `--server` ending).
pub const NET: Schema = v1("sbc-bench-net");
/// `net info --json`.
pub const NET_INFO: Schema = v1("sbc-bench-net-info");
/// `bench clock --json`.
pub const BENCH_CLOCK: Schema = v1("sbc-bench-bench-clock");
/// `bench membw --json`.
pub const BENCH_MEMBW: Schema = v1("sbc-bench-bench-membw");
/// `bench memlat --json`.
pub const BENCH_MEMLAT: Schema = v1("sbc-bench-bench-memlat");
/// `bench aes --json`.
pub const BENCH_AES: Schema = v1("sbc-bench-bench-aes");
/// `bench compress --json`.
pub const BENCH_COMPRESS: Schema = v1("sbc-bench-bench-compress");
/// `bench scrypt --json`.
pub const BENCH_SCRYPT: Schema = v1("sbc-bench-bench-scrypt");
/// `results parse --json`.
pub const RESULTS_PARSE: Schema = v1("sbc-bench-results-parse");
/// `results show --json`.
pub const RESULTS_SHOW: Schema = v1("sbc-bench-results-show");
/// `compare --json`.
pub const RESULTS_COMPARE: Schema = v1("sbc-bench-compare");
/// `compare --with … --json` and `compare --history --json`.
pub const RESULTS_COMPARE_RUNS: Schema = v1("sbc-bench-compare-runs");
/// `results list --json`.
pub const RESULTS_LIST: Schema = v1("sbc-bench-results-list");
/// `results export --format json`.
pub const RESULTS_EXPORT: Schema = v1("sbc-bench-results-export");

/// Every kind of document, once.
pub const ALL: &[Schema] = &[
    RUN,
    INFO,
    KERNEL,
    MONITOR,
    STORAGE,
    STORAGE_BENCH,
    NET,
    NET_INFO,
    BENCH_CLOCK,
    BENCH_MEMBW,
    BENCH_MEMLAT,
    BENCH_AES,
    BENCH_COMPRESS,
    BENCH_SCRYPT,
    RESULTS_PARSE,
    RESULTS_SHOW,
    RESULTS_COMPARE,
    RESULTS_COMPARE_RUNS,
    RESULTS_LIST,
    RESULTS_EXPORT,
];

/// The bench document of a `bench …` command by its benchmark's name (`membw`).
pub fn of_bench(benchmark: &str) -> Option<Schema> {
    ALL.iter()
        .copied()
        .find(|s| s.name.strip_prefix("sbc-bench-bench-") == Some(benchmark))
}

/// Pretty JSON with a final newline (what `println!` of it printed).
pub fn pretty(v: &impl Serialize) -> serde_json::Result<String> {
    Ok(serde_json::to_string_pretty(v)? + "\n")
}

/// [`of_bench`], or the generic `sbc-bench-bench` v1 for a benchmark without its own.
pub fn bench(benchmark: &str) -> Schema {
    of_bench(benchmark).unwrap_or(Schema {
        name: "sbc-bench-bench",
        version: 1,
    })
}

/// `doc` with `schema` and `schema_version` in front of its own keys (serialised through
/// serde's flatten, so the document's keys keep their order).
#[derive(Debug, Serialize)]
pub struct Stamped<'a, T: Serialize> {
    /// Name and version.
    #[serde(flatten)]
    pub schema: Schema,
    /// The document.
    #[serde(flatten)]
    pub doc: &'a T,
}

/// [`Stamped`] of `doc`.
pub fn stamp<T: Serialize>(schema: Schema, doc: &T) -> Stamped<'_, T> {
    Stamped { schema, doc }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_stamps_come_first() {
        for (i, a) in ALL.iter().enumerate() {
            assert!(a.name.starts_with("sbc-bench-"), "{}", a.name);
            assert!(ALL[i + 1..].iter().all(|b| b.name != a.name), "{}", a.name);
        }
        #[derive(Serialize)]
        struct Doc {
            zeta: u8,
            alpha: u8,
        }
        let s = serde_json::to_string(&stamp(MONITOR, &Doc { zeta: 1, alpha: 2 })).unwrap();
        assert_eq!(
            s,
            r#"{"schema":"sbc-bench-monitor","schema_version":1,"zeta":1,"alpha":2}"#
        );
        assert_eq!(of_bench("membw"), Some(BENCH_MEMBW));
        assert_eq!(of_bench("nonesuch"), None);
    }
}
