//! A storage run set up: the arguments validated against the directory (stale test
//! files of killed runs removed first), where the test file lands, and the monitor's
//! samplers watching each pass.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::bench::storage::{self as engine, StorageError};
use crate::monitor;
use crate::record::storage::{self as record, PolicyFacts};
use crate::sys::root::SysRoot;
use crate::sys::storage::{self as inventory, Device, Inventory, Landing};

/// The benchmark's configuration from the arguments, validated, with the notes the
/// user must see (stale test files removed, a filesystem without a size limit, record
/// sizes covering less than the file).
///
/// `path` is the directory (`None`: the current one), `records` the record sizes asked
/// for (empty: iozone -a's that fit the file). The notes found before a refusal are in
/// `notes` too: the caller says them before the error.
pub fn configure(
    root: &SysRoot,
    path: Option<&Path>,
    size_bytes: u64,
    records: &[u64],
    notes: &mut Vec<String>,
) -> anyhow::Result<engine::Config> {
    let dir: PathBuf = match path {
        Some(p) => p.to_path_buf(),
        None => std::env::current_dir()?,
    };
    let dir = match std::fs::canonicalize(&dir) {
        Ok(d) => d,
        // A path that is not there is bad input; other reasons (EACCES on a parent) are not.
        Err(cause)
            if cause.kind() == std::io::ErrorKind::NotFound
                || cause.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            return Err(StorageError::NoSuchDirectory { path: dir, cause }.into());
        }
        Err(e) => anyhow::bail!("cannot use {}: {e}", dir.display()),
    };
    let mut cfg = engine::Config::new(&dir);
    cfg.size_bytes = size_bytes;
    if records.is_empty() {
        // Like iozone -a: default record sizes larger than the file are skipped.
        cfg.records.retain(|&r| r <= cfg.size_bytes);
        if cfg.records.is_empty() {
            return Err(
                StorageError::BadConfig("the file size must be at least 4 KiB".into()).into(),
            );
        }
    } else {
        cfg.records = records.to_vec();
    }
    if root.is_host() {
        cfg.mem_available_bytes = crate::sys::memory::available_bytes(&root);
        // The mount table's name tells devtmpfs from tmpfs (statfs cannot).
        cfg.fstype = inventory::landing(&root, &dir).fstype;
    }
    // Validate the arguments and the directory before touching anything in it.
    engine::preflight(&engine::Config {
        check_space: false,
        ..cfg.clone()
    })?;
    // Files of runs killed with SIGKILL take space the check below must count.
    notes.extend(
        engine::clean_stale(&dir)
            .iter()
            .map(engine::StaleFile::words),
    );
    notes.extend(engine::preflight(&cfg)?);
    notes.extend(engine::coverage_notes(&cfg));
    if !root.is_host() {
        notes.push(
            "--sysroot is set: the test file is on this machine's filesystem, so the \
             filesystem and device it landed on are not shown"
                .into(),
        );
    }
    Ok(cfg)
}

/// Where the test file lands and what the system looks like around it.
pub struct Surroundings {
    /// The filesystem and disks under the test file.
    pub land: Landing,
    /// The whole inventory (for hubs shared with other disks).
    pub inv: Inventory,
    /// The disks under the test file.
    pub devices: Vec<Device>,
    /// The cpufreq policies, for the diagnosis.
    pub policies: Vec<PolicyFacts>,
}

/// Read the surroundings of `cfg`'s test file.
pub fn surroundings(root: &SysRoot, cfg: &engine::Config) -> Surroundings {
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
pub struct Watch {
    passes: Option<monitor::Sampler>,
    clocks: Option<monitor::MonitorHandle>,
    at_start: Option<monitor::Sample>,
    windows: Vec<record::PassWindow>,
}

/// How often clocks are sampled during a pass.
const CLOCK_INTERVAL: Duration = Duration::from_millis(100);

impl Watch {
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
    pub fn pass_done(&mut self, record_bytes: u64, phase: engine::Phase) {
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
