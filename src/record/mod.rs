//! The model layer: plain serde data shared by orchestration, diagnosis and exporters —
//! findings, the run's settings, its plan, the run report and the Results.md row. It
//! computes nothing from the system and renders nothing; orchestration (`run/`) fills it
//! in, `diagnose/` judges it, `report/` renders it.

pub mod config;
pub mod finding;
pub mod log_record;
pub mod mode;
pub mod net;
pub mod plan;
pub mod power;
pub mod read;
pub mod results_row;
pub mod run;
pub mod storage;
pub mod throttle;
pub mod tuning;
