//! `sbc-bench bench compress`: 7-Zip's benchmark when installed, and the native LZMA score.

use crate::output::Outcome;
use serde::Serialize;

use super::BenchCommon;
use super::driver::{self, Command, Job};
use super::pinning::Resolved;
use crate::bench::external::sevenzip::{self, SevenZip};
use crate::bench::lzma::suite::{self, Compress, CompressResults, LzmaSuiteOptions};
use crate::bench::pin::{Skipped, Target};
use crate::report::log::crypto;
use crate::sys::memory;
use crate::sys::root::SysRoot;

/// `bench compress`, as `cli::bench` checked it.
#[derive(Debug, Clone)]
pub struct CompressRequest {
    /// `--cpus`, `--quick`, `--json`.
    pub common: BenchCommon,
    /// `--native-only`: no 7-Zip benchmark even when it is installed.
    pub native_only: bool,
}

#[derive(Serialize)]
struct Doc<'a> {
    #[serde(flatten)]
    schema: crate::output::schema::Schema,
    benchmark: &'static str,
    targets: &'a [Target],
    all_cpus: &'a [u32],
    skipped: &'a [Skipped],
    available_memory_bytes: Option<u64>,
    notes: &'a [String],
    sysroot_note: Option<&'a str>,
    results: Option<&'a CompressResults>,
}

/// Run the benchmark and print it.
pub fn run(root: &SysRoot, req: CompressRequest) -> anyhow::Result<Outcome> {
    driver::drive::<CompressCommand>(root, req)
}

struct CompressCommand {
    opts: LzmaSuiteOptions,
    sevenzip: Option<SevenZip>,
    available: Option<u64>,
    notes: Vec<String>,
}

impl Command for CompressCommand {
    const NAME: &'static str = "compress";
    const LISTS_SKIPPED: bool = false;
    type Args = CompressRequest;
    type Output = CompressResults;
    type Bench<'a> = Compress<'a>;

    fn common(args: &CompressRequest) -> BenchCommon {
        args.common.clone()
    }

    fn prepare(args: CompressRequest, root: &SysRoot, r: &Resolved) -> Result<Self, Outcome> {
        let quick = args.common.quick;
        let mut notes = Vec::new();
        let available = memory::available_bytes(root);
        let sevenzip = if args.native_only {
            None
        } else {
            let z = SevenZip::find(crate::shutdown::token());
            if z.is_none() {
                notes.push(format!(
                    "7-Zip is not installed (looked for {}): native LZMA score only",
                    sevenzip::NAMES.join(", ")
                ));
            }
            z
        };
        let planned = suite::plan_memory(quick, available, r.all_cpus.len(), sevenzip.is_some());
        notes.extend(planned.notes);
        let opts = LzmaSuiteOptions {
            native_single: planned.native_single,
            native_multi: planned.native_multi,
            sevenzip_dict: planned.sevenzip_dict,
            sevenzip_runs: if quick { 1 } else { 3 },
        };
        Ok(Self {
            opts,
            sevenzip,
            available,
            notes,
        })
    }

    fn jobs<'a>(&'a self, _root: &'a SysRoot, r: &'a Resolved) -> Vec<Job<'a, Compress<'a>>> {
        let bench = Compress {
            targets: &r.targets,
            all_cpus: &r.all_cpus,
            sevenzip: self.sevenzip.as_ref(),
        };
        driver::suite("compress", bench, &self.opts)
    }

    fn json(&self, r: &Resolved, outs: &[CompressResults]) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&Doc {
            schema: crate::output::schema::BENCH_COMPRESS,
            benchmark: "compress",
            targets: &r.targets,
            all_cpus: &r.all_cpus,
            skipped: &r.skipped,
            available_memory_bytes: self.available,
            notes: &self.notes,
            sysroot_note: r.sysroot_note.as_deref(),
            results: outs.first(),
        })
    }

    fn text(&self, r: &Resolved, outs: &[CompressResults]) -> String {
        let mut s: String = outs
            .iter()
            .map(|x| crypto::compress_section(x, &r.all_cpus))
            .collect();
        s.extend(self.notes.iter().map(|n| format!("Note: {n}\n")));
        s
    }

    fn failed(&self, outs: &[CompressResults]) -> bool {
        outs.iter()
            .any(|x| x.errors.iter().any(crate::bench::Remark::is_failure))
    }
}
