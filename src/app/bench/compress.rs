//! `sbc-bench bench compress`: 7-Zip's benchmark when installed, and the native LZMA score.

use serde::Serialize;

use super::aes::{cancelled_code, placement, warn_skipped};
use crate::app::Ctx;
use crate::bench::BenchError;
use crate::bench::external::sevenzip::SevenZip;
use crate::bench::lzma::{self, suite};
use crate::bench::pin::{Skipped, Target};
use crate::cli::bench::CompressArgs;
use crate::output;
use crate::report::crypto;
use crate::sys::meminfo;

/// sbc-bench limits 7-Zip's dictionary to 2 MiB below this much available memory.
const SEVENZIP_LOW_MEMORY: u64 = 350_000 * 1024;

/// Share of available memory the native benchmark may use.
const NATIVE_MEMORY_SHARE: f64 = 0.8;

#[derive(Serialize)]
struct Doc<'a> {
    benchmark: &'static str,
    targets: &'a [Target],
    all_cpus: &'a [u32],
    skipped: &'a [Skipped],
    available_memory_bytes: Option<u64>,
    notes: &'a [String],
    results: &'a suite::CompressResults,
}

fn dicts(v: &[u32]) -> String {
    v.iter()
        .map(|d| format!("2^{d}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Run the benchmark and print it.
pub fn run(ctx: &Ctx, args: &CompressArgs) -> anyhow::Result<i32> {
    let common = &args.common;
    let p = match placement(ctx, common) {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("Error: {msg}");
            return Ok(output::EXIT_USAGE);
        }
    };
    let explicit_skip = warn_skipped(&p);
    if p.targets.is_empty() {
        anyhow::bail!("none of the requested CPUs can run a benchmark");
    }
    let cancel = crate::shutdown::token();
    let mut notes = Vec::new();
    let available = meminfo::available_bytes(&ctx.root);

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
    let mut sevenzip_dict = common.quick.then(|| "22".to_string());
    if available.is_some_and(|a| a < SEVENZIP_LOW_MEMORY) && sevenzip.is_some() {
        sevenzip_dict = Some("2m".into());
        notes.push(
            "less than 350 MB available: 7-Zip limited to a 2 MiB dictionary, as sbc-bench does"
                .into(),
        );
    }

    let base = if common.quick {
        lzma::Options::quick()
    } else {
        lzma::Options::default()
    };
    let budget = available.map(|a| (a as f64 * NATIVE_MEMORY_SHARE) as u64);
    let fit = |threads: usize, what: &str, notes: &mut Vec<String>| -> Option<lzma::Options> {
        let mut o = base.clone();
        let Some(budget) = budget else {
            return Some(o);
        };
        let dropped = o.fit_memory(u32::try_from(threads).unwrap_or(u32::MAX), budget);
        if o.dict_log2.is_empty() {
            notes.push(format!(
                "not enough memory for the native {what} run ({} MiB available): skipped",
                available.unwrap_or(0) >> 20
            ));
            return None;
        }
        if !dropped.is_empty() {
            notes.push(format!(
                "native {what} run limited to dictionaries {} to fit in {} MiB of available memory (skipped {})",
                dicts(&o.dict_log2),
                available.unwrap_or(0) >> 20,
                dicts(&dropped)
            ));
        }
        Some(o)
    };
    let native_single = fit(1, "single-threaded", &mut notes);
    let native_multi = if p.all_cpus.len() > 1 {
        fit(p.all_cpus.len(), "multi-threaded", &mut notes)
    } else {
        None
    };
    let cfg = suite::Config {
        targets: &p.targets,
        all_cpus: &p.all_cpus,
        native_single,
        native_multi,
        sevenzip: sevenzip.as_ref(),
        sevenzip_dict,
        sevenzip_runs: if common.quick { 1 } else { 3 },
    };
    let pb = output::progress_bar(cfg.steps(), "compress");
    let result = suite::run(&cfg, cancel, &|| pb.inc(1));
    pb.finish_and_clear();
    let results = match result {
        Ok(r) => r,
        Err(BenchError::Cancelled) => return Ok(cancelled_code()),
        Err(e) => return Err(e.into()),
    };
    if common.json {
        let doc = Doc {
            benchmark: "compress",
            targets: &p.targets,
            all_cpus: &p.all_cpus,
            skipped: &p.skipped,
            available_memory_bytes: available,
            notes: &notes,
            results: &results,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
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
