//! Orchestration of the standard run: plan, tune, benchmark while monitoring, restore.

pub mod exec;
pub mod host;
pub mod plan;
pub mod preflight;
pub mod runner;
pub mod tuning;
pub mod validation;
pub mod wrap;

#[cfg(test)]
mod sink_tests;
