//! Validation and insight: pure functions from system state, results and recordings to
//! [`Finding`]s with a stable code, a severity and a sentence.

pub mod governor_advice;
pub mod irq_placement;
pub mod kernel;
pub mod net;
pub mod pcie;
pub mod review_diff;
pub mod run_validation;
pub mod sched_dt;
pub mod storage;
pub mod thermal;
pub mod throttle;
pub mod validate;

pub use crate::record::finding::{Finding, FindingCode, Severity, any_invalid};
