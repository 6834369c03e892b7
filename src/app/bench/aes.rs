//! `sbc-bench bench aes`: AES-CBC (and GCM) throughput natively and with `openssl speed`.

use serde::Serialize;

use super::{cancelled_code, pinning};
use crate::app::Ctx;
use crate::bench::BenchError;
use crate::bench::aes::{self, Algorithm, suite};
use crate::bench::external::openssl::Openssl;
use crate::bench::pin::{Skipped, Target};
use crate::cli::bench::AesArgs;
use crate::output;
use crate::report::crypto;

#[derive(Serialize)]
struct Doc<'a> {
    benchmark: &'static str,
    targets: &'a [Target],
    skipped: &'a [Skipped],
    notes: &'a [String],
    results: &'a suite::AesResults,
}

/// Run the benchmark and print it.
pub fn run(ctx: &Ctx, args: &AesArgs) -> anyhow::Result<i32> {
    let common = &args.common;
    let p = match pinning::resolve_or_usage(ctx, common) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    let explicit_skip = p.warn_skipped();
    if p.targets.is_empty() {
        anyhow::bail!("none of the requested CPUs can run a benchmark");
    }
    let cancel = crate::shutdown::token();
    let mut notes = Vec::new();
    let openssl = if args.native_only {
        None
    } else {
        let o = Openssl::find(cancel);
        if o.is_none() {
            notes.push("openssl is not installed: native results only".to_string());
        }
        o
    };
    let mut algorithms = Algorithm::CBC.to_vec();
    let mut parallel = Vec::new();
    if common.extensive {
        algorithms.push(Algorithm::Aes256Gcm);
        parallel = vec![Algorithm::Aes256Cbc, Algorithm::Aes256Gcm];
    }
    if let Some(a) = &args.algorithms {
        algorithms = a.clone();
        algorithms.dedup();
    }
    let cfg = suite::Config {
        targets: &p.targets,
        all_cpus: &p.all_cpus,
        algorithms,
        parallel,
        opts: if common.quick {
            aes::Options::quick()
        } else {
            aes::Options::default()
        },
        openssl: openssl.as_ref(),
        openssl_seconds: common.quick.then_some(1),
    };
    let pb = output::progress_bar(cfg.steps(), "AES");
    let result = suite::run(&cfg, cancel, &|| pb.inc(1));
    pb.finish_and_clear();
    let results = match result {
        Ok(r) => r,
        Err(BenchError::Cancelled) => return Ok(cancelled_code()),
        Err(e) => return Err(e.into()),
    };
    if common.json {
        let doc = Doc {
            benchmark: "aes",
            targets: &p.targets,
            skipped: &p.skipped,
            notes: &notes,
            results: &results,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        let heading = if p.by_cluster() && p.targets.len() > 1 {
            "Executing benchmark on each cluster individually".to_string()
        } else {
            let labels: Vec<String> = p.targets.iter().map(Target::label).collect();
            format!("Executing benchmark on {}", labels.join(", "))
        };
        print!("{}", crypto::aes_section(&heading, &results));
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
