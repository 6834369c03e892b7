//! `sbc-bench bench aes`: AES-CBC (and GCM) throughput natively and with `openssl speed`.

use crate::output::Outcome;
use serde::Serialize;

use super::BenchCommon;
use super::driver::{self, Command, Job};
use super::pinning::Resolved;
use crate::bench::aes::suite::{Aes, AesResults, AesSuiteOptions};
use crate::bench::external::openssl::Openssl;
use crate::bench::pin::{Skipped, Target};
use crate::report::log::crypto;
use crate::sys::root::SysRoot;

/// `bench aes`, as `cli::bench` checked it.
#[derive(Debug, Clone)]
pub struct AesRequest {
    /// `--cpus`, `--quick`, `--json`.
    pub common: BenchCommon,
    /// `--native-only`: no `openssl speed` even when it is installed.
    pub native_only: bool,
    /// The suite: the algorithms (`--algorithms`, `--extensive`) and their timing.
    pub suite: AesSuiteOptions,
}

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

/// Run the benchmark and print it.
pub fn run(root: &SysRoot, req: AesRequest) -> anyhow::Result<Outcome> {
    driver::drive::<AesCommand>(root, req)
}

struct AesCommand {
    opts: AesSuiteOptions,
    openssl: Option<Openssl>,
    notes: Vec<String>,
}

impl Command for AesCommand {
    const NAME: &'static str = "aes";
    const LISTS_SKIPPED: bool = false;
    type Args = AesRequest;
    type Output = AesResults;
    type Bench<'a> = Aes<'a>;

    fn common(args: &AesRequest) -> BenchCommon {
        args.common.clone()
    }

    fn prepare(args: AesRequest, _root: &SysRoot, _r: &Resolved) -> Result<Self, Outcome> {
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
        let opts = args.suite;
        Ok(Self {
            opts,
            openssl,
            notes,
        })
    }

    fn jobs<'a>(&'a self, _root: &'a SysRoot, r: &'a Resolved) -> Vec<Job<'a, Aes<'a>>> {
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
        let heading = crypto::heading(&r.targets, r.by_cluster());
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
