//! Orchestration of the standard run: plan, tune, benchmark while monitoring, restore.

pub mod config;
pub mod exec;
pub mod plan;
pub mod preflight;
pub mod record;
pub mod runner;
pub mod tuning;
pub mod validation;
