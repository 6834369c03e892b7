//! Orchestration of the standard run: plan, tune, benchmark while monitoring, restore.

pub mod config;
pub mod plan;
pub mod preflight;
pub mod tuning;
