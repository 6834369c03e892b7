//! `sbc-bench bench aes`: AES-CBC (and GCM) throughput natively and with `openssl speed`.

use crate::output::Outcome;
use serde::Serialize;

use super::driver::{self, Command, Job};
use super::pinning::Resolved;
use crate::app::Ctx;
use crate::bench::aes::suite::{Aes, AesResults, AesSuiteOptions};
use crate::bench::aes::{self, Algorithm};
use crate::bench::external::openssl::Openssl;
use crate::bench::pin::{Skipped, Target};
use crate::cli::bench::{AesArgs, CommonArgs};
use crate::report::crypto;

#[derive(Serialize)]
struct Doc<'a> {
    #[serde(flatten)]
    schema: crate::output::schema::Schema,
    benchmark: &'static str,
    targets: &'a [Target],
    skipped: &'a [Skipped],
    notes: &'a [String],
    sysroot_note: Option<&'a str>,
    results: Option<&'a AesResults>,
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
pub fn run(ctx: &Ctx, args: &AesArgs) -> anyhow::Result<Outcome> {
    driver::drive::<AesCommand>(ctx, args.clone())
}

struct AesCommand {
    opts: AesSuiteOptions,
    openssl: Option<Openssl>,
    notes: Vec<String>,
}

impl Command for AesCommand {
    const NAME: &'static str = "aes";
    const LISTS_SKIPPED: bool = false;
    type Args = AesArgs;
    type Output = AesResults;
    type Bench<'a> = Aes<'a>;

    fn common(args: &AesArgs) -> CommonArgs {
        args.common.clone()
    }

    fn prepare(args: AesArgs, _ctx: &Ctx, _r: &Resolved) -> Result<Self, Outcome> {
        let mut notes = Vec::new();
        let openssl = if args.native_only {
            None
        } else {
            let o = Openssl::find(crate::shutdown::token());
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
        let quick = args.common.quick;
        let opts = AesSuiteOptions {
            algorithms,
            parallel,
            opts: if quick {
                aes::AesOptions::quick()
            } else {
                aes::AesOptions::default()
            },
            openssl_seconds: quick.then_some(1),
            outlier_retries: 0,
            openssl_twice: false,
            native_beside_openssl: true,
        };
        Ok(Self {
            opts,
            openssl,
            notes,
        })
    }

    fn jobs<'a>(&'a self, _ctx: &'a Ctx, r: &'a Resolved) -> Vec<Job<'a, Aes<'a>>> {
        let bench = Aes {
            targets: &r.targets,
            all_cpus: &r.all_cpus,
            openssl: self.openssl.as_ref(),
        };
        driver::suite("AES", bench, &self.opts)
    }

    fn json(&self, r: &Resolved, outs: &[AesResults]) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&Doc {
            schema: crate::output::schema::BENCH_AES,
            benchmark: "aes",
            targets: &r.targets,
            skipped: &r.skipped,
            notes: &self.notes,
            sysroot_note: r.sysroot_note.as_deref(),
            results: outs.first(),
        })
    }

    fn text(&self, r: &Resolved, outs: &[AesResults]) -> String {
        let heading = heading(&r.targets, r.by_cluster());
        let mut s: String = outs
            .iter()
            .map(|x| crypto::aes_section(&heading, x))
            .collect();
        s.extend(self.notes.iter().map(|n| format!("Note: {n}\n")));
        s
    }

    fn failed(&self, outs: &[AesResults]) -> bool {
        outs.iter()
            .any(|x| x.errors.iter().any(crate::bench::Remark::is_failure))
    }
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
