//! sbc-bench: benchmark a single-board computer or small server and explain the numbers.
//!
//! Layers, top to bottom (data flows down, never back up); see `docs/ARCHITECTURE.md`:
//! [`cli`] → [`app`] → [`sys`] (discovery) → [`run`] → [`tune`] / [`monitor`] / [`bench`]
//! → [`diagnose`] → [`report`] → [`output`].

pub mod app;
pub mod bench;
pub mod cli;
pub mod diagnose;
pub mod monitor;
pub mod output;
pub mod record;
pub mod report;
pub mod run;
pub mod shutdown;
pub mod sys;
pub mod tune;
