//! Validation and insight: pure functions from system state, results and recordings to
//! `Finding`s with a stable code, a severity and a sentence.

pub mod storage;

use serde::Serialize;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Explains a number; nothing to fix.
    Info,
    /// Costs performance or trust in the numbers; worth fixing.
    Warning,
    /// Data at risk or results invalid.
    Error,
}

/// One insight: a stable machine code (`storage.link_bound`), a severity and a sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable code, `area.what`.
    pub code: String,
    /// How much it matters.
    pub severity: Severity,
    /// One or two sentences for the user.
    pub message: String,
}

impl Finding {
    /// A finding.
    pub fn new(code: &str, severity: Severity, message: impl Into<String>) -> Self {
        Self {
            code: code.to_string(),
            severity,
            message: message.into(),
        }
    }
}
