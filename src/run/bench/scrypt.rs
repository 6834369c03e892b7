//! `sbc-bench bench scrypt`: cpuminer's scrypt stress test, natively, on all cores.

use crate::output::Outcome;
use serde::Serialize;

use super::BenchCommon;
use super::driver::{self, Command, Job};
use super::pinning::Resolved;
use crate::bench::pin::Skipped;
use crate::bench::scrypt::{self, Scrypt, ScryptKernel, ScryptRun, Stress};
use crate::report::log::crypto;
use crate::sys::root::SysRoot;

/// `bench scrypt`, as `cli::bench` checked it.
#[derive(Debug, Clone)]
pub struct ScryptRequest {
    /// `--cpus` (default: every usable CPU), `--quick`, `--json`.
    pub common: BenchCommon,
    /// `--duration`: how long to hash.
    pub duration: Option<std::time::Duration>,
    /// `--kernel`: the hashing kernel; default the widest this CPU runs.
    pub kernel: Option<ScryptKernel>,
}

#[derive(Serialize)]
struct Doc<'a> {
    #[serde(flatten)]
    schema: crate::output::schema::Schema,
    benchmark: &'static str,
    cpus: &'a [u32],
    skipped: &'a [Skipped],
    duration_s: u64,
    /// Stopped by a signal: the intervals are those finished before it.
    cancelled: bool,
    sysroot_note: Option<&'a str>,
    results: Option<&'a ScryptRun>,
}

/// Run the benchmark and print it.
pub fn run(root: &SysRoot, req: ScryptRequest) -> anyhow::Result<Outcome> {
    driver::drive::<ScryptCommand>(root, req)
}

struct ScryptCommand {
    opts: scrypt::ScryptOptions,
}

impl Command for ScryptCommand {
    const NAME: &'static str = "scrypt";
    const LISTS_SKIPPED: bool = false;
    const SIGNAL_EXIT: bool = true;
    type Args = ScryptRequest;
    type Output = Stress;
    type Bench<'a> = Scrypt<'a>;

    fn common(args: &ScryptRequest) -> BenchCommon {
        args.common.clone()
    }

    fn prepare(args: ScryptRequest, _root: &SysRoot, _r: &Resolved) -> Result<Self, Outcome> {
        let mut opts = if args.common.quick {
            scrypt::ScryptOptions::quick()
        } else {
            scrypt::ScryptOptions::default()
        };
        if let Some(d) = args.duration {
            opts.duration = d;
        }
        if let Some(k) = args.kernel {
            if !k.runs_here() {
                eprintln!("Error: {}", scrypt::kernel::KernelUnavailable(k));
                return Err(Outcome::Usage);
            }
            opts.kernel = k;
        }
        Ok(Self { opts })
    }

    fn jobs<'a>(&'a self, _root: &'a SysRoot, r: &'a Resolved) -> Vec<Job<'a, Scrypt<'a>>> {
        driver::suite("scrypt", Scrypt { cpus: &r.all_cpus }, &self.opts)
    }

    fn json(&self, r: &Resolved, outs: &[Stress]) -> serde_json::Result<String> {
        serde_json::to_string_pretty(&Doc {
            schema: crate::output::schema::BENCH_SCRYPT,
            benchmark: "scrypt",
            cpus: &r.all_cpus,
            skipped: &r.skipped,
            duration_s: self.opts.duration.as_secs(),
            cancelled: outs.iter().any(|s| s.cancelled),
            sysroot_note: r.sysroot_note.as_deref(),
            results: outs.first().map(|s| &s.run),
        })
    }

    fn text(&self, _r: &Resolved, outs: &[Stress]) -> String {
        crypto::scrypt_report(outs, self.opts.duration, self.opts.interval)
    }

    fn failed(&self, outs: &[Stress]) -> bool {
        outs.iter()
            .any(|s| s.run.threads.iter().any(|t| t.error.is_some()))
    }
}
