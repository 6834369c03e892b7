//! `sbc-bench storage` (inventory, sbc-bench -S) and `sbc-bench storage bench PATH`:
//! wiring only. The system is read in `sys/`, the benchmark is set up and runs in
//! `bench/storage`, findings come from `diagnose::storage`, every line printed from
//! `report::text::storage`, and the rows stream through `output::rows`.

use std::time::Instant;

mod watch;

use crate::app::Ctx;
use crate::bench::external::smartctl;
use crate::bench::storage::{self as engine, StorageError};
use crate::cli::storage::{StorageArgs, StorageBenchArgs, StorageCommand};
use crate::diagnose;
use crate::output::rows::RowStream;
use crate::output::{self, Outcome, schema};
use crate::record::storage::StorageReport;
use crate::report::text::storage as text;
use crate::sys::root::SysRoot;
use crate::sys::storage as inventory;
use watch::StorageWatch;

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
        smartctl::fill_health(root, &mut inv, &mut notes);
        if root.is_host() && !nix::unistd::geteuid().is_root() {
            let why = "not running as root: SMART data and SD/eMMC bus modes may be missing";
            notes.push(why.into());
        }
    }
    let findings = diagnose::storage::diagnose_inventory(&inv.devices);
    StorageReport {
        inventory: inv,
        findings,
        notes,
    }
}

fn list(ctx: &Ctx, json: bool) -> anyhow::Result<Outcome> {
    let rep = collect(&ctx.root);
    let doc = if json {
        schema::pretty(&schema::stamp(schema::STORAGE, &rep))?
    } else {
        text::inventory_text(&rep.inventory, &rep.findings, &rep.notes)
    };
    // -z: serial numbers, WWNs and addresses hidden (docs/PRIVACY.md).
    let doc = if !ctx.redact {
        doc
    } else if json {
        let mut v: serde_json::Value = serde_json::from_str(&doc)?;
        let known = crate::report::redact::Known::default();
        crate::report::redact_json::redact_json(&mut v, &known);
        let mut s = serde_json::to_string_pretty(&v)?;
        s.push('\n');
        s
    } else {
        crate::report::redact::redact(&doc, &crate::report::redact::Known::default())
    };
    output::print_or_closed(&doc)?;
    Ok(Outcome::Ok)
}

fn bench(ctx: &Ctx, args: &StorageBenchArgs, json: bool) -> anyhow::Result<Outcome> {
    let (mut cfg, notes) = watch::configure(ctx, args)?;
    let around = watch::surroundings(&ctx.root, &cfg);
    // Pass start times count from here, when monitoring begins.
    cfg.epoch = Some(Instant::now());
    let mut watch = StorageWatch::start(&ctx.root, !args.no_monitor && ctx.root.is_host(), &around);
    let pb = output::progress_bar(cfg.total_bytes() >> 20, "storage bench (MiB)");
    let mut out = RowStream::new(!json);
    let result = engine::run(&cfg, crate::shutdown::token(), &mut |e| match e {
        engine::Event::Opened { direct } => {
            let head = text::bench_header(&cfg, direct, &around.land, &around.devices, &notes);
            out.put(&pb, &format!("{head}\n\n{}", text::IOZONE_HEADER));
        }
        engine::Event::Progress(b) => pb.set_position(b >> 20),
        engine::Event::PassStarting {
            record_bytes,
            phase,
        } => {
            if phase == engine::StoragePhase::Write {
                out.cell(&pb, &text::iozone_row_start(cfg.size_bytes, record_bytes));
            }
            watch.pass_starting();
        }
        engine::Event::PassDone {
            record_bytes,
            result,
        } => {
            watch.pass_done(record_bytes, result.phase);
            out.cell(&pb, &text::iozone_cell(result.kib_per_s));
            if result.phase == engine::StoragePhase::RandomWrite {
                out.cell(&pb, text::IOZONE_ROW_END);
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
    let rep = diagnose::storage::bench_report(around, notes, watch.finish(&result), result);
    if json {
        let doc = schema::stamp(schema::STORAGE_BENCH, &rep);
        output::print_or_closed(&schema::pretty(&doc)?)?;
    } else {
        out.put(&pb, &text::bench_tail(&rep));
        if let Some(e) = out.error {
            return Err(e.into());
        }
    }
    Ok(Outcome::Ok)
}

/// A run that did not finish: Ctrl-C/SIGTERM is an outcome, anything else an error.
fn interrupted_or(e: StorageError) -> anyhow::Result<Outcome> {
    match e {
        StorageError::Interrupted => {
            eprintln!("Interrupted: test file removed.");
            let signal = crate::shutdown::signal().unwrap_or(libc::SIGINT);
            Ok(Outcome::Interrupted(signal))
        }
        e => Err(e.into()),
    }
}
