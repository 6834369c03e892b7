//! Exporters: pure functions from results to text that users already know how to read.

pub mod bench_clock;
pub mod bench_mem;
pub mod crypto;
pub mod export;
pub mod graph;
pub mod html;
pub mod info;
pub mod kernel;
pub mod log_sections;
pub mod logsec;
pub mod net;
pub mod page;
pub mod page_md;
pub mod page_table;
#[cfg(test)]
mod page_tests;
pub mod pcie;
pub mod power;
pub mod prometheus;
pub mod redact;
pub mod results_row;
pub mod review;
pub mod run;
pub mod storage;
pub mod stored;
pub mod svg;
pub mod thermal;
pub mod throttle;
pub mod topology;
pub mod wrap;
