//! `sbc-bench storage` (inventory, sbc-bench -S) and `sbc-bench storage bench PATH`:
//! wiring only. The system is read in `sys/`, the benchmark runs in `bench/storage`,
//! the observation is `record::storage`, findings come from `diagnose::storage` and every
//! line printed from `report::storage`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::app::Ctx;
use crate::bench::external::smartctl::{self, SmartctlSource};
use crate::bench::storage::{self as engine, StorageError};
use crate::cli::storage::{StorageArgs, StorageBenchArgs, StorageCommand};
use crate::diagnose;
use crate::monitor;
use crate::output::{self, Outcome};
use crate::record::storage::{self as record, BenchReport, PolicyFacts, StorageObservation};
use crate::report;
use crate::sys::root::SysRoot;
use crate::sys::storage::{self as inventory, Device, Inventory, Landing};

pub use crate::record::storage::StorageReport;

/// Run the command.
pub fn run(ctx: &Ctx, args: &StorageArgs) -> anyhow::Result<Outcome> {
    match &args.which {
        None => list(ctx, args.json),
        Some(StorageCommand::Bench(b)) => bench(ctx, b, args.json || b.json),
    }
}

/// Discover storage and query health (bounded by smartctl's timeout per drive).
pub fn collect(root: &SysRoot) -> StorageReport {
    let mut inv = inventory::discover(root);
    let mut notes = Vec::new();
    if inv.devices.iter().any(smartctl::applies_to) {
        query_health(root, &mut inv, &mut notes);
        if root.is_host() && !nix::unistd::geteuid().is_root() {
            notes.push(
                "not running as root: SMART data and SD/eMMC bus modes may be missing".into(),
            );
        }
    }
    let findings = diagnose::storage::diagnose_inventory(&inv.devices);
    StorageReport {
        inventory: inv,
        findings,
        notes,
    }
}

/// Fill in each drive's health from smartctl, or say why it is missing.
fn query_health(root: &SysRoot, inv: &mut Inventory, notes: &mut Vec<String>) {
    let source = SmartctlSource::for_root(root);
    if let SmartctlSource::Unavailable(why) = &source {
        notes.push(why.clone());
        for d in inv.devices.iter_mut().filter(|d| smartctl::applies_to(d)) {
            d.health_note = Some(why.clone());
        }
        return;
    }
    let sp = output::spinner("Reading drive health (smartctl)");
    for d in inv.devices.iter_mut() {
        match smartctl::query(&source, d) {
            Some(smartctl::SmartctlOutcome::Health(h)) => d.health = Some(*h),
            Some(smartctl::SmartctlOutcome::NoData(m)) => d.health_note = Some(m),
            Some(smartctl::SmartctlOutcome::Timeout(t)) => {
                let m = format!(
                    "smartctl did not answer within {} s (a USB bridge that hangs on SMART commands?)",
                    t.as_secs()
                );
                notes.push(format!("{}: {m}", d.node));
                d.health_note = Some(m);
            }
            None => {}
        }
    }
    sp.finish_and_clear();
}

fn list(ctx: &Ctx, json: bool) -> anyhow::Result<Outcome> {
    let rep = collect(&ctx.root);
    if json {
        output::print_or_closed(
            &(serde_json::to_string_pretty(&output::schema::stamp(output::schema::STORAGE, &rep))?
                + "\n"),
        )?;
    } else {
        output::print_or_closed(&report::storage::inventory_text(
            &rep.inventory,
            &rep.findings,
            &rep.notes,
        ))?;
    }
    Ok(Outcome::Ok)
}

/// Record sizes in the order given, each once.
fn dedup_records(records: &[u64]) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for &r in records {
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// Prints the report while the benchmark runs: the header once the test file is open
/// (so it can say whether O_DIRECT was accepted), then each iozone row piece by piece as
/// its passes finish, as iozone does; into a pipe or file every piece is flushed at once,
/// so an interrupted run keeps what it measured. With a progress bar on the terminal,
/// whole rows are printed around it instead.
struct Streamer {
    on: bool,
    whole_rows: bool,
    row: String,
    closed: bool,
    error: Option<std::io::Error>,
}

impl Streamer {
    fn new(on: bool) -> Self {
        Self {
            on,
            whole_rows: std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
            row: String::new(),
            closed: false,
            error: None,
        }
    }
    fn put(&mut self, pb: &indicatif::ProgressBar, text: &str) {
        if !self.on || self.closed || self.error.is_some() {
            return;
        }
        match pb.suspend(|| output::print_or_closed(text)) {
            Ok(true) => {}
            Ok(false) => self.closed = true,
            Err(e) => self.error = Some(e),
        }
    }
    /// Part of a row: held back until the row is complete when whole rows are wanted.
    fn cell(&mut self, pb: &indicatif::ProgressBar, text: &str) {
        if self.whole_rows {
            self.row.push_str(text);
            if text.ends_with('\n') {
                let row = std::mem::take(&mut self.row);
                self.put(pb, &row);
            }
        } else {
            self.row.push_str(text);
            if text.ends_with('\n') {
                self.row.clear();
            }
            self.put(pb, text);
        }
    }
    /// End a row cut short (error, Ctrl-C) so the terminal or file ends with a newline.
    fn cut(&mut self, pb: &indicatif::ProgressBar) {
        if self.row.is_empty() {
            return;
        }
        let rest = if self.whole_rows {
            std::mem::take(&mut self.row)
        } else {
            self.row.clear();
            String::new()
        };
        self.put(pb, &(rest + "\n"));
    }
}

/// The benchmark's configuration from the arguments, validated, with the notes the
/// user must see (stale test files removed, a filesystem without a size limit, record
/// sizes covering less than the file).
fn configure(
    ctx: &Ctx,
    args: &StorageBenchArgs,
) -> anyhow::Result<(engine::StorageConfig, Vec<String>)> {
    let dir: PathBuf = match &args.path {
        Some(p) => p.clone(),
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
    let mut cfg = engine::StorageConfig::new(&dir);
    cfg.size_bytes = args.size;
    if args.record.is_empty() {
        // Like iozone -a: default record sizes larger than the file are skipped.
        cfg.records.retain(|&r| r <= cfg.size_bytes);
        if cfg.records.is_empty() {
            return Err(
                StorageError::BadConfig("the file size must be at least 4 KiB".into()).into(),
            );
        }
    } else {
        cfg.records = dedup_records(&args.record);
    }
    if ctx.root.is_host() {
        cfg.mem_available_bytes = crate::sys::memory::available_bytes(&ctx.root);
        // The mount table's name tells devtmpfs from tmpfs (statfs cannot).
        cfg.fstype = inventory::landing(&ctx.root, &dir).fstype;
    }
    // Validate the arguments and the directory before touching anything in it.
    engine::preflight(&engine::StorageConfig {
        check_space: false,
        ..cfg.clone()
    })?;
    // Files of runs killed with SIGKILL take space the check below must count.
    let mut notes: Vec<String> = engine::clean_stale(&dir)
        .iter()
        .map(engine::StaleFile::words)
        .collect();
    match engine::preflight(&cfg) {
        Ok(n) => notes.extend(n),
        Err(e) => {
            for n in &notes {
                eprintln!("Note: {n}");
            }
            return Err(e.into());
        }
    }
    notes.extend(engine::coverage_notes(&cfg));
    if !ctx.root.is_host() {
        notes.push(
            "--sysroot is set: the test file is on this machine's filesystem, so the \
             filesystem and device it landed on are not shown"
                .into(),
        );
    }
    Ok((cfg, notes))
}

/// Where the test file lands and what the system looks like around it.
struct Surroundings {
    land: Landing,
    /// The whole inventory (for hubs shared with other disks).
    inv: Inventory,
    /// The disks under the test file.
    devices: Vec<Device>,
    policies: Vec<PolicyFacts>,
}

fn surroundings(root: &SysRoot, cfg: &engine::StorageConfig) -> Surroundings {
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
struct Watch {
    passes: Option<monitor::Sampler>,
    clocks: Option<monitor::MonitorHandle>,
    at_start: Option<monitor::Sample>,
    windows: Vec<record::PassWindow>,
}

/// How often clocks are sampled during a pass.
const CLOCK_INTERVAL: Duration = Duration::from_millis(100);

impl Watch {
    fn start(root: &SysRoot, on: bool, around: &Surroundings) -> Self {
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
    fn pass_starting(&mut self) {
        self.at_start = self.passes.as_mut().map(monitor::Sampler::sample);
    }
    fn pass_done(&mut self, record_bytes: u64, phase: engine::StoragePhase) {
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
    fn finish(self, result: &engine::BenchResult) -> Vec<record::PhaseObservation> {
        let clocks = self.clocks.map(|h| h.stop().samples).unwrap_or_default();
        record::observe(result, &self.windows, &clocks)
    }
}

fn bench(ctx: &Ctx, args: &StorageBenchArgs, json: bool) -> anyhow::Result<Outcome> {
    let (mut cfg, notes) = match configure(ctx, args) {
        Ok(c) => c,
        Err(e) => return usage_or(e),
    };
    let around = surroundings(&ctx.root, &cfg);
    // Pass start times count from here, when monitoring begins.
    cfg.epoch = Some(Instant::now());
    let mut watch = Watch::start(&ctx.root, !args.no_monitor && ctx.root.is_host(), &around);

    let pb = output::progress_bar(cfg.total_bytes() >> 20, "storage bench (MiB)");
    let mut out = Streamer::new(!json);
    let result = engine::run(&cfg, crate::shutdown::token(), &mut |e| match e {
        engine::Event::Opened { direct } => {
            let head =
                report::storage::bench_header(&cfg, direct, &around.land, &around.devices, &notes);
            out.put(
                &pb,
                &format!("{head}\n\n{}", report::storage::IOZONE_HEADER),
            );
        }
        engine::Event::Progress(b) => pb.set_position(b >> 20),
        engine::Event::PassStarting {
            record_bytes,
            phase,
        } => {
            if phase == engine::StoragePhase::Write {
                out.cell(
                    &pb,
                    &report::storage::iozone_row_start(cfg.size_bytes, record_bytes),
                );
            }
            watch.pass_starting();
        }
        engine::Event::PassDone {
            record_bytes,
            result,
        } => {
            watch.pass_done(record_bytes, result.phase);
            out.cell(&pb, &report::storage::iozone_cell(result.kib_per_s));
            if result.phase == engine::StoragePhase::RandomWrite {
                out.cell(&pb, report::storage::IOZONE_ROW_END);
            }
        }
    });
    pb.finish_and_clear();
    let result = match result {
        Ok(r) => r,
        Err(e) => {
            drop(watch);
            out.cut(&pb);
            return interrupted_or(e);
        }
    };
    let rep = bench_report(around, notes, watch.finish(&result), result);
    if json {
        output::print_or_closed(
            &(serde_json::to_string_pretty(&output::schema::stamp(
                output::schema::STORAGE_BENCH,
                &rep,
            ))? + "\n"),
        )?;
    } else {
        out.put(&pb, &report::storage::bench_tail(&rep));
        if let Some(e) = out.error {
            return Err(e.into());
        }
    }
    Ok(Outcome::Ok)
}

/// A run refused before it started: bad input (a path that is no directory or on a
/// virtual filesystem, sizes that cannot work) is a usage error, printed like the CLI's
/// others (exit status 2); anything else an error.
fn usage_or(e: anyhow::Error) -> anyhow::Result<Outcome> {
    match e.downcast_ref::<StorageError>() {
        Some(se) if se.is_usage() => {
            eprintln!("error: {se}");
            Ok(Outcome::Usage)
        }
        _ => Err(e),
    }
}

/// A run that did not finish: Ctrl-C/SIGTERM is an outcome, anything else an error.
fn interrupted_or(e: StorageError) -> anyhow::Result<Outcome> {
    match e {
        StorageError::Interrupted => {
            eprintln!("Interrupted: test file removed.");
            Ok(Outcome::Interrupted(
                crate::shutdown::signal().unwrap_or(libc::SIGINT),
            ))
        }
        e => Err(e.into()),
    }
}

/// The report of a finished run, with the findings of the run and of its devices.
fn bench_report(
    around: Surroundings,
    notes: Vec<String>,
    phases: Vec<record::PhaseObservation>,
    result: engine::BenchResult,
) -> BenchReport {
    let observation = StorageObservation {
        fstype: around.land.fstype.clone(),
        direct_io: result.direct_io,
        policies: around.policies,
        phases,
    };
    let mut findings = diagnose::storage::diagnose(&observation, around.devices.first());
    for d in &around.devices {
        findings.extend(diagnose::storage::diagnose_device(d));
        findings.extend(diagnose::storage::shared_hub_findings(
            &around.inv.devices,
            Some(&d.node),
        ));
    }
    BenchReport {
        landing: around.land,
        devices: around.devices,
        notes,
        result,
        observation,
        findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_record_sizes_run_once() {
        assert_eq!(
            dedup_records(&[4096, 16 << 20, 4096, 4096]),
            [4096, 16 << 20]
        );
    }
}
