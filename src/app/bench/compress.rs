//! `sbc-bench bench compress`: 7-Zip's benchmark when installed, and the native LZMA score.

use serde::Serialize;

use super::{cancelled_code, pinning, with_bar};
use crate::app::Ctx;
use crate::bench::external::sevenzip::SevenZip;
use crate::bench::lzma::suite;
use crate::bench::pin::{Skipped, Target};
use crate::cli::bench::CompressArgs;
use crate::output;
use crate::report::crypto;
use crate::sys::memory;

#[derive(Serialize)]
struct Doc<'a> {
    benchmark: &'static str,
    targets: &'a [Target],
    all_cpus: &'a [u32],
    skipped: &'a [Skipped],
    available_memory_bytes: Option<u64>,
    notes: &'a [String],
    sysroot_note: Option<&'a str>,
    results: &'a suite::CompressResults,
}

/// Run the benchmark and print it.
pub fn run(ctx: &Ctx, args: &CompressArgs) -> anyhow::Result<i32> {
    let common = &args.common;
    let p = match pinning::resolve_or_usage(ctx, common) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    if let Some(code) = p.refuse_if_empty("compress", common.json) {
        return Ok(code);
    }
    let explicit_skip = p.warn_skipped();
    let cancel = crate::shutdown::token();
    let mut notes = Vec::new();
    let available = memory::available_bytes(&ctx.root);

    let sevenzip = if args.native_only {
        None
    } else {
        let z = SevenZip::find(cancel);
        if z.is_none() {
            notes.push(format!(
                "7-Zip is not installed (looked for {}): native LZMA score only",
                crate::bench::external::sevenzip::NAMES.join(", ")
            ));
        }
        z
    };
    let planned = suite::plan_memory(
        common.quick,
        available,
        p.all_cpus.len(),
        sevenzip.is_some(),
    );
    notes.extend(planned.notes);
    let cfg = suite::Config {
        targets: &p.targets,
        all_cpus: &p.all_cpus,
        native_single: planned.native_single,
        native_multi: planned.native_multi,
        sevenzip: sevenzip.as_ref(),
        sevenzip_dict: planned.sevenzip_dict,
        sevenzip_runs: if common.quick { 1 } else { 3 },
    };
    let Some(results) = with_bar(cfg.steps(), "compress", |tick| {
        suite::run(&cfg, cancel, tick)
    })?
    else {
        return Ok(cancelled_code());
    };
    if common.json {
        let doc = Doc {
            benchmark: "compress",
            targets: &p.targets,
            all_cpus: &p.all_cpus,
            skipped: &p.skipped,
            available_memory_bytes: available,
            notes: &notes,
            sysroot_note: p.sysroot_note.as_deref(),
            results: &results,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        p.print_sysroot_note();
        print!("{}", crypto::compress_section(&results, &p.all_cpus));
        for n in &notes {
            println!("Note: {n}");
        }
    }
    Ok(if results.errors.is_empty() && !explicit_skip {
        output::EXIT_OK
    } else {
        output::EXIT_INVALID
    })
}
