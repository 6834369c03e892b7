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
    /// What the user must know about the run: test files left by killed runs, a
    /// filesystem without a size limit, record sizes covering less than the file.
    pub notes: Vec<String>,
    /// The measurement.
    pub result: BenchResult,
    /// What the system did meanwhile.
    pub observation: StorageObservation,
    /// Why the numbers are what they are.
    pub findings: Vec<Finding>,
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
        cfg.records = dedup_records(&args.record);
    }
    if ctx.root.is_host() {
        cfg.mem_available_bytes = crate::sys::memory::available_bytes(&ctx.root);
    }
    // Validate the arguments and the directory before touching anything in it.
    engine::preflight(&engine::Config {
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
    let policy_ids: Vec<u32> = policies.iter().map(|p| p.id).collect();

    let monitor = !args.no_monitor && ctx.root.is_host();
    let irq_ids: Vec<String> = if monitor {
        crate::sys::irq::read_interrupts(&ctx.root)
            .map(|ints| {
                let mut ids: Vec<String> = devices
                    .iter()
                    .flat_map(|d| inventory::irq_lines(d, &ints))
                    .collect();
                ids.sort();
                ids.dedup();
                ids
            })
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    // Clocks change within a long pass: sample them in between. Everything else is read
    // exactly at each pass's start and end.
    let sampler = (monitor && !policy_ids.is_empty()).then(|| {
        engine::Sampler::start(
            ctx.root.clone(),
            policy_ids.clone(),
            Duration::from_millis(100),
        )
    });
    let t0 = sampler.as_ref().map_or_else(Instant::now, |s| s.started());
    cfg.epoch = Some(t0);

    let pb = output::progress_bar(cfg.total_bytes() >> 20, "storage bench (MiB)");
    let mut out = Streamer {
        on: !json,
        whole_rows: std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
        row: String::new(),
        closed: false,
        error: None,
    };
    let mut windows: Vec<engine::PassWindow> = Vec::new();
    let mut at_start: Option<engine::IoSample> = None;
    let result = engine::run(&cfg, crate::shutdown::token(), &mut |e| match e {
        engine::Event::Opened { direct } => {
            let head = header(&cfg, direct, &land, &devices, &notes);
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
            if phase == engine::Phase::Write {
                out.cell(
                    &pb,
                    &report::storage::iozone_row_start(cfg.size_bytes, record_bytes),
                );
            }
            if monitor {
                at_start = Some(engine::snapshot(&ctx.root, &policy_ids, &irq_ids, t0));
            }
        }
        engine::Event::PassDone {
            record_bytes,
            result,
        } => {
            if let Some(start) = at_start.take() {
                windows.push(engine::PassWindow {
                    record_bytes,
                    phase: result.phase,
                    start,
                    end: engine::snapshot(&ctx.root, &policy_ids, &irq_ids, t0),
                });
            }
            out.cell(&pb, &report::storage::iozone_cell(result.kib_per_s));
            if result.phase == engine::Phase::RandomWrite {
                out.cell(&pb, report::storage::IOZONE_ROW_END);
            }
        }
    });
    pb.finish_and_clear();
    let clocks = sampler.map(engine::Sampler::finish).unwrap_or_default();
    let result = match result {
        Ok(r) => r,
        Err(BenchError::Interrupted) => {
            out.cut(&pb);
            eprintln!("Interrupted: test file removed.");
            return Ok(128 + crate::shutdown::signal().unwrap_or(libc::SIGINT));
        }
        Err(e) => {
            out.cut(&pb);
            return Err(e.into());
        }
    };
    let observation = StorageObservation {
        fstype: land.fstype.clone(),
        direct_io: result.direct_io,
        policies,
        phases: engine::observe(&result, &windows, &clocks),
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
        notes,
        result,
        observation,
        findings,
    };
    if json {
        output::print_or_closed(&(serde_json::to_string_pretty(&rep)? + "\n"))?;
    } else {
        out.put(&pb, &bench_tail(&rep));
        if let Some(e) = out.error {
            return Err(e.into());
        }
    }
    Ok(output::EXIT_OK)
}

/// The lines before the table: what is tested and how, where the file lands, notes.
fn header(
    cfg: &engine::Config,
    direct: bool,
    land: &Landing,
    devices: &[Device],
    notes: &[String],
) -> String {
    let recs: Vec<String> = cfg
        .records
        .iter()
        .map(|&r| diagnose::storage::record_words(r))
        .collect();
    let mut s = format!(
        "Testing {} with a {} file, records {}, {}, fsync in write timings",
        cfg.dir.display(),
        diagnose::storage::record_words(cfg.size_bytes),
        recs.join(" and "),
        if direct {
            "O_DIRECT"
        } else {
            "buffered I/O (O_DIRECT refused by the filesystem: reads come from the page cache)"
        }
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
    for n in notes {
        s.push_str(&format!("\nNote: {n}"));
    }
    s
}

/// What follows the table once the run is over: MB/s and IOPS, the system during each
/// pass, findings.
fn bench_tail(rep: &BenchReport) -> String {
    let mut s = String::from("\n");
    s.push_str(&report::storage::summary_table(&rep.result));
    let obs: Vec<_> = rep
        .observation
        .phases
        .iter()
        .filter(|o| o.window_ticks.is_some())
        .collect();
    if !obs.is_empty() {
        s.push_str(&format!(
            "\nSystem while running:\n{:<24}{:>10}{:>14}{:>7}{:>7}{:>7}{:>12}{:>8}  {}\n",
            "pass", "MB/s", "busiest core", "%io", "%irq", "%self", "dev irq/s", "on", "avg clock"
        ));
        let mut short = false;
        for o in obs {
            let pass = format!(
                "{} {}",
                diagnose::storage::record_words(o.record_bytes),
                o.phase.map(|p| p.label()).unwrap_or_default()
            );
            let na = || "n/a".to_string();
            let pct = |v: Option<f64>| v.map(|p| format!("{p:.1}")).unwrap_or_else(na);
            let core = match (o.busiest_cpu, o.busiest_cpu_pct) {
                (Some(c), Some(p)) => format!("cpu{c} {p:.0}%"),
                _ => {
                    short = true;
                    "n/a*".to_string()
                }
            };
            let me = o.self_cpu_pct.map(|p| format!("{p:.0}")).unwrap_or_else(na);
            let irqs = o
                .storage_irqs_per_s
                .map(|r| format!("{r:.0}"))
                .unwrap_or_else(na);
            let irq_cpu = o
                .storage_irq_cpu
                .map(|c| format!("cpu{c}"))
                .unwrap_or_else(|| {
                    if o.storage_irqs.is_some() {
                        "-".into()
                    } else {
                        na()
                    }
                });
            let clocks: Vec<String> = o
                .avg_khz
                .iter()
                .map(|(id, k)| format!("policy{id} {:.0} MHz", k / 1000.0))
                .collect();
            s.push_str(&format!(
                "{pass:<24}{:>10.2}{core:>14}{:>7}{:>7}{me:>7}{irqs:>12}{irq_cpu:>8}  {}\n",
                o.mb_per_s,
                pct(o.io_pct),
                pct(o.irq_pct),
                if clocks.is_empty() {
                    "n/a".to_string()
                } else {
                    clocks.join(", ")
                }
            ));
        }
        if short {
            s.push_str(&format!(
                "* pass shorter than {} ms: /proc/stat counts CPU time in 10 ms ticks, too \
                 coarse for percentages; interrupt counts are exact\n",
                engine::MIN_WINDOW_TICKS * 10
            ));
        }
    }
    if !rep.findings.is_empty() {
        s.push_str("\nFindings:\n");
        for f in &rep.findings {
            s.push_str(&format!("  [{}] {}\n", severity_word(f), f.message));
        }
    }
    s
}

/// The whole text report, as the streamed pieces add up to.
#[cfg(test)]
fn bench_text(cfg: &engine::Config, rep: &BenchReport) -> String {
    let mut s = header(
        cfg,
        rep.result.direct_io,
        &rep.landing,
        &rep.devices,
        &rep.notes,
    );
    s.push_str("\n\n");
    s.push_str(&report::storage::iozone_table(&rep.result));
    s.push_str(&bench_tail(rep));
    s
}

fn severity_word(f: &Finding) -> &'static str {
    f.severity.word()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::storage::{Phase, PhaseObservation, PhaseResult, RecordResult};

    fn report(direct: bool) -> (engine::Config, BenchReport) {
        let mut cfg = engine::Config::new("/mnt/ramfs");
        cfg.size_bytes = 16 << 20;
        cfg.records = vec![4 << 10, 16 << 20];
        let records: Vec<RecordResult> = cfg
            .records
            .iter()
            .map(|&r| RecordResult {
                record_bytes: r,
                phases: Phase::ALL
                    .iter()
                    .map(|&p| PhaseResult {
                        phase: p,
                        started_s: 0.0,
                        seconds: 0.5,
                        bytes: 16 << 20,
                        ops: (16 << 20) / r,
                        kib_per_s: 32768.0,
                        mb_per_s: 33.55,
                        iops: 100.0,
                    })
                    .collect(),
            })
            .collect();
        let phases = records
            .iter()
            .flat_map(|r| {
                r.phases.iter().map(|p| PhaseObservation {
                    record_bytes: r.record_bytes,
                    phase: Some(p.phase),
                    mb_per_s: p.mb_per_s,
                    seconds: p.seconds,
                    window_ticks: Some(if r.record_bytes == 4096 { 50 } else { 1 }),
                    busiest_cpu: (r.record_bytes == 4096).then_some(1),
                    busiest_cpu_pct: (r.record_bytes == 4096).then_some(42.0),
                    storage_irqs: Some(10),
                    storage_irqs_per_s: Some(20.0),
                    storage_irq_cpu: Some(0),
                    ..Default::default()
                })
            })
            .collect();
        let rep = BenchReport {
            landing: Landing {
                fstype: Some("ramfs".into()),
                mount_point: Some("/mnt/ramfs".into()),
                source: Some("ramfs".into()),
                disks: vec![],
            },
            devices: vec![],
            notes: vec!["the filesystem reports no size (ramfs has no limit)".into()],
            result: BenchResult {
                dir: "/mnt/ramfs".into(),
                file_size_bytes: 16 << 20,
                direct_io: direct,
                fsync_in_write_timing: true,
                records,
                warnings: vec!["O_DIRECT is not supported on this filesystem".into()],
            },
            observation: StorageObservation {
                fstype: Some("ramfs".into()),
                direct_io: direct,
                policies: vec![],
                phases,
            },
            findings: diagnose::storage::diagnose(
                &StorageObservation {
                    fstype: Some("ramfs".into()),
                    direct_io: direct,
                    ..Default::default()
                },
                None,
            ),
        };
        (cfg, rep)
    }

    #[test]
    fn the_header_says_what_io_was_used_and_warnings_are_said_once() {
        let (cfg, rep) = report(false);
        let text = bench_text(&cfg, &rep);
        let first = text.lines().next().unwrap();
        assert_eq!(
            first,
            "Testing /mnt/ramfs with a 16 MiB file, records 4 KiB and 16 MiB, buffered I/O \
             (O_DIRECT refused by the filesystem: reads come from the page cache), fsync in \
             write timings"
        );
        assert!(!first.contains(", O_DIRECT,"));
        assert!(text.contains("\nNote: the filesystem reports no size (ramfs has no limit)\n"));
        // The fallback is explained once, by the finding; no extra Warning: line.
        assert_eq!(text.matches("O_DIRECT was refused").count(), 1, "{text}");
        assert!(!text.contains("Warning:"), "{text}");
        assert!(text.contains("this measures RAM"), "{text}");
        let (cfg, rep) = report(true);
        assert!(
            bench_text(&cfg, &rep)
                .lines()
                .next()
                .unwrap()
                .ends_with("records 4 KiB and 16 MiB, O_DIRECT, fsync in write timings")
        );
    }

    #[test]
    fn every_pass_has_a_row_and_short_ones_say_why_they_lack_percentages() {
        let (cfg, rep) = report(true);
        let text = bench_text(&cfg, &rep);
        let start = text.find("System while running:").unwrap();
        let rows: Vec<&str> = text[start..]
            .lines()
            .skip(2)
            .take_while(|l| !l.is_empty() && !l.starts_with('*'))
            .collect();
        assert_eq!(rows.len(), 12, "{text}");
        assert!(rows[0].starts_with("4 KiB write"), "{}", rows[0]);
        assert!(rows[0].contains("cpu1 42%"), "{}", rows[0]);
        assert!(rows[11].starts_with("16 MiB random write"), "{}", rows[11]);
        assert!(rows[11].contains("n/a*"), "{}", rows[11]);
        // Interrupt figures are there for the short passes too.
        assert!(rows[11].contains("      20    cpu0"), "{}", rows[11]);
        assert!(text.contains("* pass shorter than 50 ms"), "{text}");
    }

    #[test]
    fn repeated_record_sizes_run_once() {
        assert_eq!(
            dedup_records(&[4096, 16 << 20, 4096, 4096]),
            [4096, 16 << 20]
        );
    }
}
