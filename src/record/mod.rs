//! The model layer: plain serde data shared by orchestration, diagnosis and exporters
//! (findings, and as the engine grows the run record, step kinds and the Results.md row).
//! It computes nothing from the system and renders nothing.

pub mod finding;
pub mod net;
