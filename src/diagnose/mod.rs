//! Validation and insight: pure functions from system state, results and recordings to
//! [`Finding`]s with a stable code, a severity and a sentence.

pub mod net;
pub mod storage;
pub mod throttle;
pub mod validate;

use serde::{Deserialize, Serialize};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// A check passed (sbc-bench lists these too: "No swapping").
    Ok,
    /// Worth knowing, does not affect the numbers.
    Info,
    /// The numbers may be affected; read the sentence.
    Warning,
    /// The numbers cannot be trusted (throttling, swapping, background activity).
    Invalid,
}

impl Severity {
    /// One word for text output (`[warning] …`).
    pub fn word(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Invalid => "error",
        }
    }
}

/// One diagnosis: a stable machine code, a severity and a sentence for humans.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable identifier (`throttling`, `clock-below-advertised`, `net-irq-bound-core`…).
    pub code: String,
    /// How much it matters.
    pub severity: Severity,
    /// The sentence shown to the user.
    pub message: String,
}

impl Finding {
    /// Build a finding.
    pub fn new(code: impl Into<String>, severity: Severity, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            severity,
            message: message.into(),
        }
    }

    /// A passed check.
    pub fn ok(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(code, Severity::Ok, message)
    }
}

/// Do these findings say the results cannot be trusted?
pub fn any_invalid(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Invalid)
}
