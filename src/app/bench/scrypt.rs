//! `sbc-bench bench scrypt`: cpuminer's scrypt stress test, natively, on all cores.

use serde::Serialize;

use super::{cancelled_code, pinning};
use crate::app::Ctx;
use crate::bench::BenchError;
use crate::bench::pin::Skipped;
use crate::bench::scrypt::{self, ScryptRun};
use crate::cli::bench::ScryptArgs;
use crate::output;
use crate::report::crypto;

#[derive(Serialize)]
struct Doc<'a> {
    benchmark: &'static str,
    cpus: &'a [u32],
    skipped: &'a [Skipped],
    duration_s: u64,
    results: &'a ScryptRun,
}

/// Run the benchmark and print it.
pub fn run(ctx: &Ctx, args: &ScryptArgs) -> anyhow::Result<i32> {
    let common = &args.common;
    let p = match pinning::resolve_or_usage(ctx, common) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    let explicit_skip = p.warn_skipped();
    let mut opts = if common.quick {
        scrypt::Options::quick()
    } else {
        scrypt::Options::default()
    };
    if let Some(d) = args.duration {
        opts.duration = d;
    }
    if let Some(k) = args.kernel {
        if !scrypt::Kernel::available().contains(&k) {
            eprintln!(
                "Error: the {} kernel does not run on this CPU (available: {})",
                k.label(),
                scrypt::Kernel::available()
                    .iter()
                    .map(|k| k.label())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            return Ok(output::EXIT_USAGE);
        }
        opts.kernel = k;
    }
    let duration_s = opts.duration.as_secs();
    let pb = output::progress_bar(duration_s, "scrypt");
    let result = scrypt::run(&p.all_cpus, &opts, crate::shutdown::token(), &|iv| {
        pb.set_position(iv.end_s as u64);
        pb.set_message(format!("scrypt {:.2} kH/s", iv.khash_per_s));
    });
    pb.finish_and_clear();
    let run = match result {
        Ok(r) => r,
        Err(BenchError::Cancelled) => return Ok(cancelled_code()),
        Err(e) => return Err(e.into()),
    };
    if common.json {
        let doc = Doc {
            benchmark: "scrypt",
            cpus: &p.all_cpus,
            skipped: &p.skipped,
            duration_s,
            results: &run,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", crypto::scrypt_section(&run, duration_s));
    }
    let failed = run.threads.iter().any(|t| t.error.is_some());
    Ok(if failed || explicit_skip {
        output::EXIT_INVALID
    } else {
        output::EXIT_OK
    })
}
