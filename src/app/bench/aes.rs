//! `sbc-bench bench aes`: AES-CBC (and GCM) throughput natively and with `openssl speed`.

use serde::Serialize;

use super::{cancelled_code, pinning, with_bar};
use crate::app::Ctx;
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
    sysroot_note: Option<&'a str>,
    results: &'a suite::AesResults,
}

/// sbc-bench's heading: `Executing benchmark on each cluster individually` (several
/// clusters), `… on cluster 0 (Cortex-A53)` (one), or the CPUs the user chose.
pub fn heading(targets: &[Target], by_cluster: bool) -> String {
    match targets {
        [] => "Executing benchmark".to_string(),
        [t] if by_cluster => match (t.cluster, &t.core_type) {
            (Some(c), Some(core)) => format!("Executing benchmark on cluster {c} ({core})"),
            (Some(c), None) => format!("Executing benchmark on cluster {c}"),
            _ => format!("Executing benchmark on {}", t.label()),
        },
        _ if by_cluster => "Executing benchmark on each cluster individually".to_string(),
        [t] => format!("Executing benchmark on {}", t.label()),
        _ => {
            let labels: Vec<String> = targets.iter().map(Target::label).collect();
            let rest = labels[..labels.len() - 1].join(", ");
            let last = labels.last().map(String::as_str).unwrap_or_default();
            format!("Executing benchmark on {rest} and {last} individually")
        }
    }
}

/// Run the benchmark and print it.
pub fn run(ctx: &Ctx, args: &AesArgs) -> anyhow::Result<i32> {
    let common = &args.common;
    let p = match pinning::resolve_or_usage(ctx, common) {
        Ok(p) => p,
        Err(code) => return Ok(code),
    };
    if let Some(code) = p.refuse_if_empty("aes", common.json) {
        return Ok(code);
    }
    let explicit_skip = p.warn_skipped();
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
    if args.extensive {
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
    let Some(results) = with_bar(cfg.steps(), "AES", |tick| suite::run(&cfg, cancel, tick))? else {
        return Ok(cancelled_code());
    };
    if common.json {
        let doc = Doc {
            benchmark: "aes",
            targets: &p.targets,
            skipped: &p.skipped,
            notes: &notes,
            sysroot_note: p.sysroot_note.as_deref(),
            results: &results,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        p.print_sysroot_note();
        print!(
            "{}",
            crypto::aes_section(&heading(&p.targets, p.by_cluster()), &results)
        );
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

#[cfg(test)]
mod tests {
    use super::*;

    fn t(cpu: u32, cluster: u32, core: &str) -> Target {
        Target {
            cpu,
            core_type: Some(core.into()),
            cluster: Some(cluster),
        }
    }

    #[test]
    fn headings_follow_sbc_bench() {
        assert_eq!(
            heading(&[t(0, 0, "Cortex-A53")], true),
            "Executing benchmark on cluster 0 (Cortex-A53)"
        );
        assert_eq!(
            heading(&[t(0, 0, "Cortex-A55"), t(4, 1, "Cortex-A76")], true),
            "Executing benchmark on each cluster individually"
        );
        assert_eq!(
            heading(&[t(1, 0, "EPYC")], false),
            "Executing benchmark on cpu1 (EPYC)"
        );
        assert_eq!(
            heading(&[t(0, 0, "EPYC"), t(1, 0, "EPYC")], false),
            "Executing benchmark on cpu0 (EPYC) and cpu1 (EPYC) individually"
        );
    }
}
