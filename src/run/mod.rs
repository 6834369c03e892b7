//! Orchestration of the standard run: plan, tune, benchmark while monitoring, restore.

pub mod preflight;
pub mod tuning;
