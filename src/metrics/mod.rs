//! METRICS FOR PROMETHEUS (above `results`, below `run`): what `monitor --prometheus` and
//! `--textfile` export. [`prometheus`] reads what node_exporter lacks after every monitor
//! interval and renders it with `report::prometheus` (the text format and the run's
//! scores), [`http`] is the `/metrics` server, and the textfile is written through
//! [`crate::files::replace`]. `app/monitor.rs` only wires them to the monitor.

pub mod http;
pub mod prometheus;
