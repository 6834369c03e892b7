//! `sbc-bench storage` (inventory, sbc-bench -S) and `sbc-bench storage bench PATH`.

use std::io::IsTerminal;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::app::Ctx;
use crate::bench::external::smartctl::{self, Outcome, Source};
use crate::bench::storage::{
    self as engine, BenchError, BenchResult, PolicyFacts, StorageObservation,
};
use crate::cli::storage::{StorageArgs, StorageBenchArgs, StorageCommand};
use crate::diagnose::{self, Finding};
use crate::output;
use crate::report;
use crate::sys::root::SysRoot;
use crate::sys::storage::{self as inventory, Device, Inventory};

/// Run the command.
pub fn run(ctx: &Ctx, args: &StorageArgs) -> anyhow::Result<i32> {
    match &args.which {
        None => list(ctx, args.json),
        Some(StorageCommand::Bench(b)) => bench(ctx, b, args.json || b.json),
    }
}

/// Inventory plus health, findings and notes: what `storage` prints.
#[derive(Debug, Clone, Serialize)]
pub struct StorageReport {
    /// Disks and flash.
    #[serde(flatten)]
    pub inventory: Inventory,
    /// What the inventory shows.
    pub findings: Vec<Finding>,
    /// Missing data and why.
    pub notes: Vec<String>,
}

/// Discover storage and query health (bounded by smartctl's timeout per drive).
pub fn collect(root: &SysRoot) -> StorageReport {
    let mut inv = inventory::discover(root);
    let mut notes = Vec::new();
    let source = Source::for_root(root);
    let wants_health = inv.devices.iter().any(smartctl::applies_to);
    if wants_health {
        match &source {
            Source::Unavailable(why) => {
                notes.push(why.clone());
                for d in inv.devices.iter_mut().filter(|d| smartctl::applies_to(d)) {
                    d.health_note = Some(why.clone());
                }
            }
            _ => {
                let sp = output::spinner("Reading drive health (smartctl)");
                for d in inv.devices.iter_mut() {
                    match smartctl::query(&source, d) {
                        Some(Outcome::Health(h)) => d.health = Some(*h),
                        Some(Outcome::NoData(m)) => d.health_note = Some(m),
                        Some(Outcome::Timeout(t)) => {
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
        }
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

fn list(ctx: &Ctx, json: bool) -> anyhow::Result<i32> {
    let rep = collect(&ctx.root);
    if json {
        output::print_or_closed(&(serde_json::to_string_pretty(&rep)? + "\n"))?;
    } else {
        output::print_or_closed(&report::storage::inventory_text(
            &rep.inventory,
            &rep.findings,
            &rep.notes,
        ))?;
    }
    Ok(output::EXIT_OK)
}

/// Where the test file lands.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Landing {
    /// Filesystem type.
    pub fstype: Option<String>,
    /// Mount point.
    pub mount_point: Option<String>,
    /// Mount source (`/dev/mmcblk0p2`).
    pub source: Option<String>,
    /// Whole disks underneath (several for RAID).
    pub disks: Vec<String>,
}

fn landing(root: &SysRoot, dir: &Path) -> Landing {
    // The test file lands on this machine's filesystems: only the live system's mount table
    // (our own process's view, `/proc/self/mountinfo`) and devices describe where.
    if !root.is_host() {
        return Landing::default();
    }
    let mounts = root
        .read_opt("/proc/self/mountinfo")
        .map(|t| inventory::parse_mountinfo(&t))
        .unwrap_or_default();
    let m = inventory::mount_of(&mounts, dir);
    let mut disks = std::fs::metadata(dir)
        .map(|md| {
            let (ma, mi) = inventory::split_dev(md.dev());
            inventory::disks_of_devnum(root, ma, mi)
        })
        .unwrap_or_default();
    if disks.is_empty() {
        if let Some(m) = m {
            disks = inventory::disks_of_source(root, &m.source);
        }
    }
    Landing {
        fstype: m.map(|m| m.fstype.clone()),
        mount_point: m.map(|m| m.mount_point.clone()),
        source: m.map(|m| m.source.clone()),
        disks,
    }
}

/// Everything `storage bench --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// Where the file was.
    pub landing: Landing,
    /// The device(s) underneath, from the inventory.
    pub devices: Vec<Device>,
    /// The measurement.
    pub result: BenchResult,
    /// What the system did meanwhile.
    pub observation: StorageObservation,
    /// Why the numbers are what they are.
    pub findings: Vec<Finding>,
}

fn bench(ctx: &Ctx, args: &StorageBenchArgs, json: bool) -> anyhow::Result<i32> {
    let dir: PathBuf = match &args.path {
        Some(p) => p.clone(),
        None => std::env::current_dir()?,
    };
    let dir = match std::fs::canonicalize(&dir) {
        Ok(d) => d,
        Err(e) => anyhow::bail!("cannot use {}: {e}", dir.display()),
    };
    let mut cfg = engine::Config::new(&dir);
    cfg.size_bytes = args.size;
    if args.record.is_empty() {
        // Like iozone -a: default record sizes larger than the file are skipped.
        cfg.records.retain(|&r| r <= cfg.size_bytes);
        if cfg.records.is_empty() {
            anyhow::bail!("the file size must be at least 4 KiB");
        }
    } else {
        cfg.records = args.record.clone();
    }
    engine::preflight(&cfg)?;

    let land = landing(&ctx.root, &dir);
    let inv = if ctx.root.is_host() {
        inventory::discover(&ctx.root)
    } else {
        Inventory::default()
    };
    let devices: Vec<Device> = land
        .disks
        .iter()
        .filter_map(|n| inv.devices.iter().find(|d| &d.name == n).cloned())
        .collect();
    let policies: Vec<PolicyFacts> = crate::sys::cpufreq::read_policies(&ctx.root)
        .into_iter()
        .map(|p| PolicyFacts {
            id: p.id,
            cpus: p.cpus,
            governor: p.governor,
            max_khz: p.cpuinfo_max_khz.or(p.scaling_max_khz),
        })
        .collect();

    if !json && std::io::stderr().is_terminal() {
        eprintln!("{}", header(&cfg, &land, &devices));
    }
    let sampler = (!args.no_monitor && ctx.root.is_host())
        .then(|| engine::Sampler::start(ctx.root.clone(), Duration::from_millis(100)));
    cfg.epoch = Some(sampler.as_ref().map_or_else(Instant::now, |s| s.started()));
    let pb = output::progress_bar(cfg.total_bytes() >> 20, "storage bench (MiB)");
    let result = engine::run(&cfg, crate::shutdown::token(), &mut |b| {
        pb.set_position(b >> 20)
    });
    pb.finish_and_clear();
    let samples = sampler.map(engine::Sampler::finish).unwrap_or_default();
    let result = match result {
        Ok(r) => r,
        Err(BenchError::Interrupted) => {
            eprintln!("Interrupted: test file removed.");
            return Ok(128 + crate::shutdown::signal().unwrap_or(libc::SIGINT));
        }
        Err(e) => return Err(e.into()),
    };
    let observation = StorageObservation {
        fstype: land.fstype.clone(),
        direct_io: result.direct_io,
        policies,
        phases: engine::observe(&result, &samples, 0.0),
    };
    let mut findings = diagnose::storage::diagnose(&observation, devices.first());
    for d in &devices {
        findings.extend(diagnose::storage::diagnose_device(d));
        findings.extend(diagnose::storage::shared_hub_findings(
            &inv.devices,
            Some(&d.node),
        ));
    }
    let rep = BenchReport {
        landing: land,
        devices,
        result,
        observation,
        findings,
    };
    if json {
        output::print_or_closed(&(serde_json::to_string_pretty(&rep)? + "\n"))?;
    } else {
        output::print_or_closed(&bench_text(&cfg, &rep))?;
    }
    Ok(output::EXIT_OK)
}

fn header(cfg: &engine::Config, land: &Landing, devices: &[Device]) -> String {
    let recs: Vec<String> = cfg
        .records
        .iter()
        .map(|&r| diagnose::storage::record_words(r))
        .collect();
    let mut s = format!(
        "Testing {} with a {} file, records {}, O_DIRECT, fsync in write timings",
        cfg.dir.display(),
        diagnose::storage::record_words(cfg.size_bytes),
        recs.join(" and ")
    );
    if let Some(fs) = &land.fstype {
        s.push_str(&format!(
            "\nFilesystem: {fs} on {} (mounted at {})",
            land.source.as_deref().unwrap_or("?"),
            land.mount_point.as_deref().unwrap_or("?")
        ));
    }
    for d in devices {
        s.push_str(&format!("\nDevice: {}", report::storage::device_line(d)));
    }
    s
}

fn bench_text(cfg: &engine::Config, rep: &BenchReport) -> String {
    let mut s = header(cfg, &rep.landing, &rep.devices);
    s.push_str("\n\n");
    s.push_str(&report::storage::iozone_table(&rep.result));
    s.push('\n');
    s.push_str(&report::storage::summary_table(&rep.result));
    let obs: Vec<_> = rep
        .observation
        .phases
        .iter()
        .filter(|o| o.busiest_cpu.is_some())
        .collect();
    if !obs.is_empty() {
        s.push_str(&format!(
            "\nSystem while running:\n{:<24}{:>10}{:>14}{:>7}{:>7}{:>7}  {}\n",
            "pass", "MB/s", "busiest core", "%io", "%irq", "%self", "avg clock"
        ));
        for o in obs {
            let pass = format!(
                "{} {}",
                diagnose::storage::record_words(o.record_bytes),
                o.phase.map(|p| p.label()).unwrap_or_default()
            );
            let core = format!(
                "cpu{} {:.0}%",
                o.busiest_cpu.unwrap_or_default(),
                o.busiest_cpu_pct.unwrap_or_default()
            );
            let clocks: Vec<String> = o
                .avg_khz
                .iter()
                .map(|(id, k)| format!("policy{id} {:.0} MHz", k / 1000.0))
                .collect();
            let me = o
                .self_cpu_pct
                .map(|p| format!("{p:.0}"))
                .unwrap_or_else(|| "n/a".into());
            s.push_str(&format!(
                "{pass:<24}{:>10.2}{core:>14}{:>7.1}{:>7.1}{me:>7}  {}\n",
                o.mb_per_s,
                o.io_pct.unwrap_or_default(),
                o.irq_pct.unwrap_or_default(),
                if clocks.is_empty() {
                    "n/a".to_string()
                } else {
                    clocks.join(", ")
                }
            ));
        }
    }
    for w in &rep.result.warnings {
        s.push_str(&format!("\nWarning: {w}\n"));
    }
    if !rep.findings.is_empty() {
        s.push_str("\nFindings:\n");
        for f in &rep.findings {
            s.push_str(&format!("  [{}] {}\n", severity_word(f), f.message));
        }
    }
    s
}

fn severity_word(f: &Finding) -> &'static str {
    f.severity.word()
}
