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
    #[error("not a run JSON of ours (schema {}, not {SCHEMA:?})", found.as_deref().map_or("missing".to_string(), |f| format!("{f:?}")))]
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
    serde_path_to_error::deserialize(&mut de).map_err(|e| ReadError::Invalid {
        path: e.path().to_string(),
        what: e.inner().to_string(),
    })
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
