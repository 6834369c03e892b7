//! Orchestration of the standard run: plan, tune, benchmark while monitoring, restore.

pub mod bench;
pub mod console;
pub mod drive;
pub mod exec;
pub mod graph;
pub mod host;
pub mod net;
pub mod page;
pub mod plan;
pub mod power;
pub mod preflight;
pub mod review;
pub mod runner;
pub mod seam;
pub mod standard;
pub mod storage;
pub mod thermal;
pub mod tuning;
pub mod wrap;

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod sink_tests;
