//! The standard run's settings; the model lives in `record::config` (re-exported here
//! for code that still names the old path).

pub use crate::record::config::{DEFAULT_LOG, RunConfig, UNATTENDED_MAX_WAIT};
