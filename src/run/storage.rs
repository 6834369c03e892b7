//! The storage benchmark's surroundings and watch: where the test file lands, the disks
//! under it, the cpufreq policies, and the monitor's samplers watching each pass (the
//! observation is `record::storage`'s, so this sits above `bench/`).

use std::time::Duration;

use crate::bench::storage as engine;
use crate::monitor;
use crate::record::storage::{self as record, PolicyFacts, Surroundings};
use crate::sys::root::SysRoot;
use crate::sys::storage::{self as inventory, Device, Inventory};

/// Read the surroundings of `cfg`'s test file.
pub fn surroundings(root: &SysRoot, cfg: &engine::StorageConfig) -> Surroundings {
    let land = inventory::landing(root, &cfg.dir);
    let inv = if root.is_host() {
        inventory::discover(root)
    } else {
        Inventory::default()
    };
    let devices: Vec<Device> = land
        .disks
        .iter()
        .filter_map(|n| inv.devices.iter().find(|d| &d.name == n).cloned())
        .collect();
    let policies = crate::sys::cpufreq::read_policies(root)
        .into_iter()
        .map(|p| PolicyFacts {
            id: p.id,
            cpus: p.cpus,
            governor: p.governor,
            max_khz: p.cpuinfo_max_khz.or(p.scaling_max_khz),
        })
        .collect();
    Surroundings {
        land,
        inv,
        devices,
        policies,
    }
}

/// The monitor's samplers watching the run (when monitoring): an on-demand one read
/// exactly at each pass's start and end (CPU times, clocks, the device's IRQ lines, this
/// process's CPU time), and a background one sampling clocks in between, since clocks
/// change within a long pass.
pub struct StorageWatch {
    passes: Option<monitor::Sampler>,
    clocks: Option<monitor::MonitorHandle>,
    at_start: Option<monitor::Sample>,
    windows: Vec<record::PassWindow>,
}

/// How often clocks are sampled during a pass.
const CLOCK_INTERVAL: Duration = Duration::from_millis(100);

impl StorageWatch {
    /// Start watching (`on`: monitoring asked for, on the live system).
    pub fn start(root: &SysRoot, on: bool, around: &Surroundings) -> Self {
        let mut w = Self {
            passes: None,
            clocks: None,
            at_start: None,
            windows: Vec::new(),
        };
        if !on {
            return w;
        }
        let setup = monitor::Setup::discover(root, true);
        let irq_ids = inventory::irq_ids(root, &around.devices);
        let spec = monitor::SampleSpec::default()
            .with_irqs(monitor::IrqSelect::ids(&irq_ids))
            .with_task(monitor::TaskId::this_process());
        w.passes = Some(monitor::Sampler::for_setup(root, &setup, spec));
        if !setup.layout.read_policies().is_empty() {
            let cfg = monitor::MonitorConfig {
                renice: false,
                ..monitor::MonitorConfig::every(CLOCK_INTERVAL)
            };
            w.clocks = monitor::Monitor::start(root, &setup, cfg).ok();
        }
        w
    }
    /// A pass starts.
    pub fn pass_starting(&mut self) {
        self.at_start = self.passes.as_mut().map(monitor::Sampler::sample);
    }
    /// A pass ended.
    pub fn pass_done(&mut self, record_bytes: u64, phase: engine::StoragePhase) {
        let (Some(start), Some(s)) = (self.at_start.take(), self.passes.as_mut()) else {
            return;
        };
        self.windows.push(record::PassWindow {
            record_bytes,
            phase,
            start,
            end: s.sample(),
        });
    }
    /// Stop sampling; what the system did during each pass of `result`.
    pub fn finish(self, result: &engine::BenchResult) -> Vec<record::PhaseObservation> {
        let clocks = self.clocks.map(|h| h.stop().samples).unwrap_or_default();
        record::observe(result, &self.windows, &clocks)
    }
}
