//! Our run JSON read back as the type that wrote it: one reader, which checks the
//! document's `schema` and `schema_version` once (docs/RUN-JSON.md) and then deserialises
//! [`RunReport`], so a field renamed in `record/` fails to compile where it is read
//! instead of silently emptying a chart, a column or a metric.

use serde::Deserialize;

use crate::record::run::{RunReport, SCHEMA, SCHEMA_VERSION};

/// Why a text is not a run report this build can read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The text is not JSON at all.
    #[error("not valid JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// JSON, but another document (`sbc-bench-info`, iperf3's, none stated).
    #[error("not a run JSON of ours (schema {}, not {SCHEMA:?})", found.as_deref().map_or("null".to_string(), |f| format!("{f:?}")))]
    OtherSchema {
        /// The `schema` it states, if any.
        found: Option<String>,
    },
    /// A run JSON written by a newer build, in a layout this one does not know.
    #[error("run JSON version {found} is newer than this build reads (version {supported})")]
    NewerVersion {
        /// Its `schema_version`.
        found: u64,
        /// The newest this build reads ([`SCHEMA_VERSION`]).
        supported: u32,
    },
    /// A run JSON of ours that does not fit the type (a damaged or hand-edited file).
    #[error("run JSON does not fit at `{path}`: {what}")]
    Invalid {
        /// Where, as a path of keys and indices (`results.aes.native[0].sizes`).
        path: String,
        /// What was wrong there.
        what: String,
    },
}

/// What every document of ours opens with.
#[derive(Deserialize)]
struct Head {
    schema: Option<String>,
    schema_version: Option<u64>,
}

/// Read a run JSON (`run --json`, and the document the results database keeps).
pub fn run_report(text: &str) -> Result<RunReport, ReadError> {
    check_head(text)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let mut report: RunReport =
        serde_path_to_error::deserialize(&mut de).map_err(|e| ReadError::Invalid {
            path: e.path().to_string(),
            what: e.inner().to_string(),
        })?;
    // Review mode has no settings of its own in `config`: its document says what it is by
    // the top-level `review`.
    crate::record::mode::kind_of_results(&mut report.config.kind, &report.mode);
    Ok(report)
}

/// The schema and version, checked once, before the body is read.
fn check_head(text: &str) -> Result<(), ReadError> {
    let head: Head = match serde_json::from_str(text) {
        Ok(h) => h,
        // Valid JSON that is not an object (an array, a number) names no schema.
        Err(e) if e.is_data() => return Err(ReadError::OtherSchema { found: None }),
        Err(e) => return Err(ReadError::NotJson(e)),
    };
    if head.schema.as_deref() != Some(SCHEMA) {
        return Err(ReadError::OtherSchema { found: head.schema });
    }
    match head.schema_version {
        Some(v) if v > u64::from(SCHEMA_VERSION) => Err(ReadError::NewerVersion {
            found: v,
            supported: SCHEMA_VERSION,
        }),
        _ => Ok(()),
    }
}

/// The run JSON of a fake standard run on the ROCK 5B fixture tree, for the tests of
/// every reader of the record.
#[cfg(test)]
pub(crate) const FIXTURE_ROCK5B: &str = include_str!("../../tests/fixtures/run/rock-5b.json");

/// [`FIXTURE_ROCK5B`] read.
#[cfg(test)]
pub(crate) fn fixture_rock5b() -> RunReport {
    match run_report(FIXTURE_ROCK5B) {
        Ok(r) => r,
        Err(e) => panic!("the fixture run JSON: {e}"),
    }
}

/// [`fixture_rock5b`] with its native AES rows measured by OpenSSL instead (as a
/// standard run with `openssl` installed measures), keeping the native rows too when
/// `both` (extensive mode).
#[cfg(test)]
pub(crate) fn fixture_rock5b_openssl(both: bool) -> RunReport {
    let mut r = fixture_rock5b();
    if let Some(aes) = r.results.aes.as_mut() {
        aes.openssl = Some(crate::bench::aes::suite::OpensslResults {
            version_raw: "OpenSSL 3.0.13 30 Jan 2024".into(),
            version_line: "OpenSSL 3.0.13, built on 30 Jan 2024".into(),
            rows: aes.native.clone(),
            twice: false,
        });
        if !both {
            aes.native.clear();
            aes.native_skipped = true;
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn fixture_value() -> Value {
        serde_json::from_str(FIXTURE_ROCK5B).unwrap()
    }

    #[test]
    fn the_fixture_reads_and_writes_back_byte_for_byte() {
        let r = fixture_rock5b();
        assert_eq!(r.schema, SCHEMA);
        let again = serde_json::to_string_pretty(&r).unwrap() + "\n";
        assert_eq!(again, FIXTURE_ROCK5B);
    }

    #[test]
    fn text_that_is_not_json_is_not_json() {
        for t in [
            "",
            "{",
            "Testing clockspeeds",
            "{\"schema\": \"sbc-bench-run\",",
        ] {
            assert!(matches!(run_report(t), Err(ReadError::NotJson(_))), "{t:?}");
        }
    }

    #[test]
    fn another_document_is_another_schema() {
        let e = run_report(r#"{"schema":"sbc-bench-info","schema_version":1}"#);
        assert!(
            matches!(&e, Err(ReadError::OtherSchema { found: Some(f) }) if f == "sbc-bench-info"),
            "{e:?}"
        );
        // iperf3's JSON names no schema; an array or a number is no document of ours.
        for t in [r#"{"start":{},"end":{}}"#, "[]", "42"] {
            let e = run_report(t);
            assert!(
                matches!(e, Err(ReadError::OtherSchema { found: None })),
                "{t}: {e:?}"
            );
        }
        let msg = run_report("[]").unwrap_err().to_string();
        assert_eq!(
            msg,
            "not a run JSON of ours (schema null, not \"sbc-bench-run\")"
        );
    }

    #[test]
    fn a_newer_version_is_refused_before_its_body_is_read() {
        let mut v = fixture_value();
        v["schema_version"] = (SCHEMA_VERSION + 1).into();
        // A newer layout may change anything: its body is not even looked at.
        v["results"] = "a layout of the future".into();
        let e = run_report(&v.to_string());
        assert!(
            matches!(e, Err(ReadError::NewerVersion { found, supported })
                if found == u64::from(SCHEMA_VERSION) + 1 && supported == SCHEMA_VERSION),
            "{e:?}"
        );
    }

    #[test]
    fn a_damaged_document_says_where() {
        let mut v = fixture_value();
        v["results"]["aes"]["native"][1]["sizes"] = "fast".into();
        match run_report(&v.to_string()) {
            Err(ReadError::Invalid { path, what }) => {
                assert_eq!(path, "results.aes.native[1].sizes");
                assert!(what.contains("invalid type"), "{what}");
            }
            other => panic!("{other:?}"),
        }
        let mut v = fixture_value();
        v.as_object_mut().unwrap().remove("started");
        let e = run_report(&v.to_string());
        assert!(
            matches!(&e, Err(ReadError::Invalid { what, .. }) if what.contains("started")),
            "{e:?}"
        );
    }

    /// Each mode's results sit where the run JSON has them (`results.thermal`,
    /// `results.graph`, top-level `review` and `wrap`) and read back as that mode's.
    #[test]
    fn mode_results_are_written_in_the_json_layout_and_read_back() {
        use crate::record::run::ModeResults;
        let base = fixture_rock5b();
        let cases = [
            (ModeResults::Thermal(Default::default()), "/results/thermal"),
            (ModeResults::Wrap(Default::default()), "/wrap"),
        ];
        for (mode, pointer) in cases {
            let mut r = base.clone();
            r.mode = mode.clone();
            let v = serde_json::to_value(&r).unwrap();
            assert!(v.pointer(pointer).is_some(), "{pointer}");
            let keys = ["/results/thermal", "/results/graph", "/review", "/wrap"];
            let present = keys.iter().filter(|k| v.pointer(k).is_some()).count();
            assert_eq!(present, 1, "{pointer}: one mode's key, no other");
            let back = run_report(&v.to_string()).unwrap();
            assert_eq!(back.mode, mode);
        }
        let v = serde_json::to_value(&base).unwrap();
        assert!(v["results"].get("thermal").is_none() && v.get("wrap").is_none());
        assert_eq!(base.mode, ModeResults::Standard);
    }

    /// Two modes' results in one document (`results.thermal` and `wrap`) cannot both be
    /// one run's: refused, naming them, instead of one of them silently dropped.
    #[test]
    fn two_modes_results_in_one_document_are_refused() {
        let mut v = fixture_value();
        v["results"]["thermal"] =
            serde_json::to_value(crate::record::mode::thermal::ThermalResults::default()).unwrap();
        v["wrap"] =
            serde_json::to_value(crate::record::mode::wrap::WrapResults::default()).unwrap();
        match run_report(&v.to_string()) {
            Err(ReadError::Invalid { what, .. }) => {
                assert!(
                    what.contains("more than one mode (thermal, wrap)"),
                    "{what}"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// Documents of earlier builds of schema version 1: the Results.md row's figures
    /// under their deprecated keys only (docs/RUN-JSON.md, Deprecations), and without the
    /// keys added since (`power`, `review`, `wrap`, the thermal and graph results, lists
    /// that were not written yet).
    #[test]
    fn an_earlier_version_1_document_reads() {
        let mut v = fixture_value();
        let row = v["results_row"].as_object_mut().unwrap();
        let memcpy = row["memcpy_mb_per_s"].clone();
        for k in [
            "aes256_16k_kb_per_s",
            "memcpy_mb_per_s",
            "memset_mb_per_s",
            "scrypt_khash_per_s",
            "quick",
        ] {
            row.remove(k);
        }
        for k in ["skipped_cpus", "compress_per_cluster"] {
            v["results"].as_object_mut().unwrap().remove(k);
        }
        for k in ["kernel_log", "throttling", "tuning"] {
            v.as_object_mut().unwrap().remove(k);
        }
        let r = run_report(&v.to_string()).unwrap();
        let row = r.results_row.unwrap();
        assert_eq!(row.memcpy_mb_s, memcpy.as_f64());
        assert!(!row.quick);
        assert!(r.results.skipped_cpus.is_empty() && r.kernel_log.is_empty());
    }
}
