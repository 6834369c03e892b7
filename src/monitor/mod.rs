//! Sampling: one layer reads raw counters into [`Sample`]s; [`Interval`]s are derived from
//! two samples (pure). A [`Recording`] of them, with phases, feeds the "System health while
//! running …" tables and the diagnoses.
//!
//! What is read is one mask, [`SampleSpec`] (bottom's `UsedWidgets`): the cheap default
//! (CPU times, load, clocks, temperature, DC-in) always; on top of it what the consumer
//! asks for — `swap`, `softirqs`, IRQ lines ([`IrqSelect`]: numbers, line labels, handler
//! names or `prefix*`), NIC counters (`nics`), disk counters (`disks`) and the CPU time and
//! last CPU of tasks (`tasks`, [`TaskId`]). [`SampleSpec::full`] is what `monitor --json`
//! and the standard run sample; [`SampleSpec::all_counters`] is everything (cost checks).
//! Two ways to take samples with it:
//! - on demand: a [`Sampler`] ([`Sampler::for_setup`] or [`Sampler::new`]), whose
//!   [`Sampler::sample`] reads the mask now — at a pass's start and end, or from a
//!   benchmark's own timer;
//! - in the background: a [`Monitor`] thread samples at a fixed rate into a [`Recording`];
//!   [`MonitorHandle::mark`] takes a boundary sample at once.
//!
//! [`Interval::new`] turns two samples into rates: [`Interval::irq_lines`] and
//! [`Interval::irqs_per_cpu`], [`Interval::nic`] (bytes/packets per second and every
//! counter's growth: drops, missed, errors), [`Interval::disk`] (bytes, requests, busy
//! share) and [`Interval::task`] (percent of one core and the CPU it ran on).
//!
//! The network client watches its interface, that interface's IRQ lines and its stream
//! threads; each thread hands over its id over a channel before the test starts:
//! ```no_run
//! use sbc_bench::monitor::{Interval, IrqSelect, SampleSpec, Sampler, Setup, TaskId};
//! let root = sbc_bench::sys::root::SysRoot::host();
//! let setup = Setup::discover(&root, true);
//! // `Interface::irq_names` (the interface and its virtio device) and its MSI vectors.
//! let spec = SampleSpec::full()
//!     .with_nic("eth0")
//!     .with_irqs(IrqSelect::handlers(&["eth0"]))
//!     .with_irqs(IrqSelect::numbers(&[224, 240]));
//! let mut sampler = Sampler::for_setup(&root, &setup, spec);
//! let streams: Vec<TaskId> = vec![TaskId::this_thread()]; // each stream's TaskId::this_thread()
//! sampler.set_tasks(&streams);
//! let before = sampler.sample();
//! // … one second of traffic …
//! let iv = Interval::new(&before, &sampler.sample());
//! let nic = iv.nic("eth0").map(|n| (n.rx_bytes_per_s, n.rx_lost()));
//! let irq_cpus = iv.irqs_per_cpu(); // the NIC's interrupts per CPU
//! let where_streams_ran: Vec<_> = iv.tasks.iter().map(|t| (t.cpu, t.cpu_pct)).collect();
//! # let _ = (nic, irq_cpus, where_streams_ran);
//! ```
//!
//! The storage benchmark watches its disk, the disk's IRQ lines and its I/O worker (or the
//! whole process), exactly at each pass's start and end:
//! ```no_run
//! use sbc_bench::monitor::{Interval, IrqSelect, SampleSpec, Sampler, Setup, TaskId};
//! let root = sbc_bench::sys::root::SysRoot::host();
//! let setup = Setup::discover(&root, true);
//! let irq_ids: Vec<String> = vec!["31".into()]; // sys::storage::irq_lines(&device, &ints)
//! let spec = SampleSpec::default()
//!     .with_disk("mmcblk0")
//!     .with_irqs(IrqSelect::ids(&irq_ids))
//!     .with_task(TaskId::this_process());
//! let mut sampler = Sampler::for_setup(&root, &setup, spec);
//! let start = sampler.sample();
//! // … one pass …
//! let pass = Interval::new(&start, &sampler.sample());
//! let disk = pass.disk("mmcblk0").map(|d| (d.write_bytes_per_s, d.busy_pct));
//! let storage_irqs: u64 = pass.irq_lines.iter().map(|l| l.total).sum();
//! let self_cpu = pass.task(TaskId::this_process()).and_then(|t| t.cpu_pct);
//! # let _ = (disk, storage_irqs, self_cpu);
//! ```
//!
//! The standard run (or a long test watched in the background):
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
//!
//! Layering: this module reads through [`crate::sys`] only (every path lives there) and
//! uses [`crate::shutdown`]; it knows nothing of benchmarks or reports.

pub mod handle;
pub mod interval;
pub mod layout;
pub mod recording;
pub mod render;
pub mod sample;
pub mod scaling;
pub mod stat;

pub use handle::{Monitor, MonitorConfig, MonitorHandle, Setup};
pub use interval::{
    Busiest, CoreUsage, DiskRates, Interval, IrqLineDelta, NicRates, SoftirqRates, TaskRates,
};
pub use layout::{ClockColumn, ClockColumns, Layout};
pub use recording::{ClockRange, Phase, PhaseSummary, Recording};
pub use render::{Banner, Table, TableOptions};
pub use sample::{
    DiskCounters, IrqLineCounts, IrqSelect, NicCounters, Sample, SampleSpec, Sampler, TaskCounters,
    TaskId,
};

#[cfg(test)]
mod layering {
    /// Every file of this module but this one (which must name what it forbids).
    const FILES: [(&str, &str); 8] = [
        ("handle.rs", include_str!("handle.rs")),
        ("interval.rs", include_str!("interval.rs")),
        ("layout.rs", include_str!("layout.rs")),
        ("recording.rs", include_str!("recording.rs")),
        ("render.rs", include_str!("render.rs")),
        ("sample.rs", include_str!("sample.rs")),
        ("scaling.rs", include_str!("scaling.rs")),
        ("stat.rs", include_str!("stat.rs")),
    ];

    #[test]
    fn monitor_imports_only_sys_shutdown_and_output() {
        for (name, text) in FILES {
            for (at, _) in text.match_indices("crate::") {
                let rest = &text[at + "crate::".len()..];
                let ok = ["monitor", "sys", "shutdown", "output"]
                    .iter()
                    .any(|m| rest.starts_with(m));
                let line = rest.lines().next().unwrap_or_default();
                assert!(ok, "{name}: crate::{line}");
            }
        }
    }

    #[test]
    fn monitor_names_no_system_path() {
        // Paths live in `sys/` (`sys::counters`); a string literal starting with one of
        // these is a path named here.
        for (name, text) in FILES {
            // Tests may hold labels copied from real output (`Thermal source: /sys/…`).
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for prefix in ["proc/", "sys/", "dev/"] {
                let literal = format!("\"/{prefix}");
                assert!(!code.contains(&literal), "{name} names {literal}…");
            }
        }
    }
}
