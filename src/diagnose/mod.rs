//! Validation and insight: pure functions from system state, results and recordings to
//! [`Finding`]s with a stable code, a severity and a sentence.

pub mod net;
pub mod review_diff;
pub mod storage;
pub mod throttle;
pub mod validate;

pub use crate::record::finding::{Finding, FindingCode, Severity, any_invalid};
