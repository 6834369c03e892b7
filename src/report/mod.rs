//! Exporters: pure functions from results to text that users already know how to read.

pub mod crypto;
pub mod topology;
