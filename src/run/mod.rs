//! Orchestration of the standard run: plan, tune, benchmark while monitoring, restore.

pub mod config;
pub mod exec;
pub mod host;
pub mod plan;
pub mod preflight;
pub mod runner;
pub mod tuning;
pub mod validation;

/// The run report moved to the model layer; this old path is kept until every caller
/// names `crate::record::run`.
pub use crate::record::run as record;

#[cfg(test)]
mod sink_tests;
