//! `sbc-bench bench memlat`: memory latency per cluster (tinymembench and ramlat tables).

use super::BenchCommon;
use super::driver::{self, Command, Job};
use super::pinning::Resolved;
use crate::bench::kernels::buffer::Advice;
use crate::bench::memlat::{self, MemPlan, Memlat, MemlatOptions, MemlatRun};
use crate::output::Outcome;
use crate::report::log::memory as memory_text;
use crate::sys::root::SysRoot;
use crate::sys::{membench, memory};

/// `bench memlat`, as `cli::bench` checked it.
#[derive(Debug, Clone)]
pub struct MemlatRequest {
    /// `--cpus`, `--quick`, `--json`.
    pub common: BenchCommon,
    /// `--no-madvise`: no huge pages asked for at all (one tinymembench table).
    pub no_madvise: bool,
    /// `--extensive`: sbc-bench's extensive mode (ramlat with 200 ms per cell).
    pub extensive: bool,
    /// `--ramlat-ms`: time per ramlat cell in milliseconds.
    pub ramlat_ms: Option<u64>,
}

/// Measure latency on every target and print it.
pub fn run(root: &SysRoot, req: MemlatRequest) -> anyhow::Result<Outcome> {
    driver::drive::<MemlatCommand>(root, req)
}

struct MemlatCommand {
    opts: MemlatOptions,
    plan: MemPlan,
    quick: bool,
}

impl Command for MemlatCommand {
    const NAME: &'static str = "memlat";
    const LISTS_SKIPPED: bool = true;
    type Args = MemlatRequest;
    type Output = MemlatRun;
    type Bench<'a> = Memlat<'a>;

    fn common(args: &MemlatRequest) -> BenchCommon {
        args.common.clone()
    }

    fn prepare(args: MemlatRequest, root: &SysRoot, _r: &Resolved) -> Result<Self, Outcome> {
        let mut opts = if args.common.quick {
            MemlatOptions::quick()
        } else if args.extensive {
            MemlatOptions::extensive()
        } else {
            MemlatOptions::standard()
        };
        if let Some(ms) = args.ramlat_ms {
            opts.ramlat_cell = std::time::Duration::from_millis(ms);
        }
        let mut plan = memlat::plan(
            opts.max_bytes,
            memory::available_bytes(root),
            membench::thp_mode(root),
        );
        if args.no_madvise {
            plan.advice = Advice::Default;
        }
        Ok(Self {
            opts,
            plan,
            quick: args.common.quick,
        })
    }

    fn jobs<'a>(&'a self, root: &'a SysRoot, r: &'a Resolved) -> Vec<Job<'a, Memlat<'a>>> {
        driver::per_target(r, "Memory latency on", &self.opts, |target| Memlat {
            root,
            target,
            plan: self.plan.clone(),
        })
    }

    fn json(&self, r: &Resolved, runs: &[MemlatRun]) -> serde_json::Result<String> {
        driver::runs_json(Self::NAME, r, &runs)
    }

    fn text(&self, r: &Resolved, runs: &[MemlatRun]) -> String {
        memory_text::memlat_report(runs, &r.skipped, self.quick, r.tag_summaries())
    }

    fn failed(&self, runs: &[MemlatRun]) -> bool {
        runs.iter().any(|x| x.error.is_some())
    }
}
