//! `sbc-bench bench scrypt`: cpuminer's scrypt stress test, natively, on all cores.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::{cancelled_code, pinning};
use crate::app::Ctx;
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
    /// Stopped by a signal: the intervals are those finished before it.
    cancelled: bool,
    sysroot_note: Option<&'a str>,
    results: &'a ScryptRun,
}

/// Run the benchmark and print it.
pub fn run(ctx: &Ctx, args: &ScryptArgs) -> anyhow::Result<i32> {
    let common = args.common();
    let p = match pinning::resolve_or_usage(ctx, &common) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    if let Some(code) = p.refuse_if_empty("scrypt", common.json) {
        return Ok(code);
    }
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
    let cancel = crate::shutdown::token();
    let pb = output::progress_bar(duration_s, "scrypt");
    let done = std::sync::atomic::AtomicBool::new(false);
    let result = std::thread::scope(|s| {
        // The bar follows the clock, not the 5-second intervals, so its ETA shrinks steadily.
        let start = Instant::now();
        let (pb2, done2) = (pb.clone(), &done);
        s.spawn(move || {
            while !done2.load(std::sync::atomic::Ordering::Relaxed) && !cancel.is_cancelled() {
                pb2.set_position(start.elapsed().as_secs().min(duration_s));
                cancel.sleep(Duration::from_millis(250));
            }
        });
        let r = scrypt::run_partial(&p.all_cpus, &opts, cancel, &|iv| {
            pb.set_message(format!("scrypt {:.2} kH/s", iv.khash_per_s));
        });
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        r
    });
    pb.finish_and_clear();
    let (run, cancelled) = result?;
    if common.json {
        let doc = Doc {
            benchmark: "scrypt",
            cpus: &p.all_cpus,
            skipped: &p.skipped,
            duration_s,
            cancelled,
            sysroot_note: p.sysroot_note.as_deref(),
            results: &run,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        p.print_sysroot_note();
        // A cancelled run reports the time it really ran.
        let shown_s = if cancelled {
            run.elapsed_s.round() as u64
        } else {
            duration_s
        };
        print!("{}", crypto::scrypt_section(&run, shown_s));
        if let Some(n) = crypto::scrypt_notes(&run, opts.interval, cancelled) {
            print!("{n}");
        }
    }
    if cancelled {
        return Ok(cancelled_code());
    }
    let failed = run.threads.iter().any(|t| t.error.is_some());
    Ok(if failed || explicit_skip {
        output::EXIT_INVALID
    } else {
        output::EXIT_OK
    })
}
