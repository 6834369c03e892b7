//! sbc-bench: benchmark a single-board computer or small server and explain the numbers.
//!
//! Layers, top to bottom (a module names only its own layer or those below it; the order
//! is written once, in `tests/it/layers.rs`, which enforces it; see `docs/ARCHITECTURE.md`):
//! [`app`] → [`cli`] → [`run`] → [`metrics`] → [`results`] → [`report`] → [`diagnose`] →
//! [`record`] → [`bench`](mod@bench) → [`monitor`] → [`tune`] → [`sys`] → [`shutdown`] / [`output`] /
//! [`files`].

pub mod app;
pub mod bench;
pub mod cli;
pub mod diagnose;
pub mod files;
pub mod metrics;
pub mod monitor;
pub mod output;
pub mod record;
pub mod report;
pub mod results;
pub mod run;
pub mod shutdown;
pub mod sys;
pub mod tune;
