//! `sbc-bench bench membw`: memory bandwidth per cluster (tinymembench semantics).

use super::BenchCommon;
use super::driver::{self, Command, Job};
use super::pinning::Resolved;
use crate::bench::membw::{Membw, MembwOptions, MembwRun};
use crate::output::Outcome;
use crate::report::log::memory as memory_text;
use crate::sys::root::SysRoot;

/// Measure bandwidth on every target and print it.
pub fn run(root: &SysRoot, req: BenchCommon) -> anyhow::Result<Outcome> {
    driver::drive::<MembwCommand>(root, req)
}

struct MembwCommand {
    opts: MembwOptions,
}

impl Command for MembwCommand {
    const NAME: &'static str = "membw";
    const LISTS_SKIPPED: bool = true;
    type Args = BenchCommon;
    type Output = MembwRun;
    type Bench<'a>
        = Membw<'a>
    where
        Self: 'a;

    fn common(a: &BenchCommon) -> BenchCommon {
        a.clone()
    }

    fn prepare(a: BenchCommon, _root: &SysRoot, _r: &Resolved) -> Result<Self, Outcome> {
        let opts = if a.quick {
            MembwOptions::quick()
        } else {
            MembwOptions::standard()
        };
        Ok(Self { opts })
    }

    fn jobs<'a>(&'a self, root: &'a SysRoot, r: &'a Resolved) -> Vec<Job<'a, Membw<'a>>> {
        driver::per_target(r, "Memory bandwidth on", &self.opts, |target| Membw {
            root,
            target,
        })
    }

    fn json(&self, r: &Resolved, runs: &[MembwRun]) -> serde_json::Result<String> {
        driver::runs_json(Self::NAME, r, &runs)
    }

    fn text(&self, r: &Resolved, runs: &[MembwRun]) -> String {
        memory_text::membw_report(runs, &r.skipped, r.tag_summaries())
    }

    fn failed(&self, runs: &[MembwRun]) -> bool {
        runs.iter().any(|x| x.error.is_some())
    }
}
