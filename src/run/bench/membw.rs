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
        let out = memory_text::render_membw(runs, &r.skipped);
        // sbc-bench tags the lines with the CPU only on machines with several clusters.
        let tagged = r.tag_summaries();
        let summaries: Vec<String> = runs
            .iter()
            .filter_map(|x| {
                x.result.as_ref().map(|m| {
                    memory_text::tagged_summary(
                        &x.target.label(),
                        tagged,
                        ": ",
                        &memory_text::membw_summary(m),
                    )
                })
            })
            .collect();
        out + &memory_text::summary_block("Memory performance:", &summaries)
    }

    fn failed(&self, runs: &[MembwRun]) -> bool {
        runs.iter().any(|x| x.error.is_some())
    }
}
