//! Sampling: a thread reads raw counters into [`Sample`]s; [`Interval`]s are derived from
//! two samples (pure). A [`Recording`] of them, with phases, feeds the "System health while
//! running …" tables and the diagnoses.
//!
//! Use from the standard run (or net/storage):
//! ```no_run
//! use std::time::Duration;
//! use sbc_bench::monitor::{Monitor, MonitorConfig, Setup, SampleSpec, TableOptions};
//! use sbc_bench::monitor::scaling::{interval_s, PhaseKind};
//! # fn main() -> std::io::Result<()> {
//! let root = sbc_bench::sys::root::SysRoot::host();
//! let setup = Setup::discover(&root, false);
//! let mut cfg = MonitorConfig::every(Duration::from_secs(1));
//! cfg.spec = SampleSpec::full();
//! let h = Monitor::start(&root, &setup, cfg)?;
//! h.mark("tinymembench");
//! // … run the benchmark …
//! h.end_phase();
//! let rec = h.stop();
//! let phase = rec.phase("tinymembench").expect("marked");
//! let every = interval_s(PhaseKind::Tinymembench { clusters: 3, extensive: false });
//! let table = rec.health_table(phase, every as f64,
//!     &TableOptions::sbc_bench(setup.dc_in.is_some()),
//!     &sbc_bench::monitor::render::local_hms);
//! # let _ = table; Ok(()) }
//! ```

pub mod handle;
pub mod interval;
pub mod layout;
pub mod recording;
pub mod render;
pub mod sample;
pub mod scaling;
pub mod stat;

pub use handle::{Monitor, MonitorConfig, MonitorHandle, Setup};
pub use interval::{Busiest, CoreUsage, Interval, SoftirqRates};
pub use layout::{ClockColumn, ClockColumns, Layout};
pub use recording::{ClockRange, Phase, PhaseSummary, Recording};
pub use render::{Banner, Table, TableOptions};
pub use sample::{Sample, SampleSpec, Sampler};
