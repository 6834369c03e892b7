//! The text of the commands that are not a run on the engine: `info`, `kernel`, `net`,
//! `storage`, `results list/show/parse`, and the review's PCIe lines.

pub mod info;
pub mod kernel;
pub mod net;
pub mod pcie;
pub mod storage;
pub mod stored;
pub mod topology;
