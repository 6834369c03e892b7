//! The versioned JSON document (`--json FILE`): the whole report, pretty-printed.

use super::Exporter;
use crate::record::run::RunReport;

/// The report as one JSON document, with a final newline.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json;

impl Exporter for Json {
    fn file_kind(&self) -> &'static str {
        "JSON report"
    }

    fn render(&self, report: &RunReport) -> Vec<u8> {
        // Serialising plain data with string keys cannot fail; an empty document would
        // still be noticed by any reader.
        let mut v = serde_json::to_vec_pretty(report).unwrap_or_default();
        v.push(b'\n');
        v
    }
}

/// The same document with identifiers redacted (`--json FILE -z`; docs/PRIVACY.md).
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonRedacted;

impl Exporter for JsonRedacted {
    fn file_kind(&self) -> &'static str {
        "JSON report"
    }

    fn render(&self, report: &RunReport) -> Vec<u8> {
        let known = crate::report::page::known_of_run(report);
        crate::report::redact_json::redacted_pretty(report, &known)
            .unwrap_or_default()
            .into_bytes()
    }
}
