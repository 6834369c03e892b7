//! `sbc-bench bench clock`: measured clock speeds, walking every cpufreq OPP with root.

use super::BenchCommon;
use super::driver::{self, Command, Job};
use super::pinning::Resolved;
use crate::bench::clock::{self, CheckInput, ClockCheck, ClockOptions, WalkOptions};
use crate::output::Outcome;
use crate::report::log::clock as clock_text;
use crate::sys::root::SysRoot;

/// `bench clock`, as `cli::bench` checked it.
#[derive(Debug, Clone)]
pub struct ClockRequest {
    /// `--cpus`, `--quick`, `--json`.
    pub common: BenchCommon,
    /// `--max-khz`/`--min-khz`, else `MaxKHz`/`MinKHz` (kHz); a bad value is the
    /// sentence, said as a usage error once the CPUs are read.
    pub limits: Result<(Option<u64>, Option<u64>), String>,
    /// `--only-max`: measure the highest OPP only.
    pub only_max: bool,
}

/// Run the clock check on every target and print it.
pub fn run(root: &SysRoot, req: ClockRequest) -> anyhow::Result<Outcome> {
    driver::drive::<ClockCommand>(root, req)
}

struct ClockCommand {
    opts: ClockOptions,
    walk: WalkOptions,
    permission: Result<(), String>,
}

impl Command for ClockCommand {
    const NAME: &'static str = "clock";
    const LISTS_SKIPPED: bool = true;
    type Args = ClockRequest;
    type Output = ClockCheck;
    type Bench<'a> = CheckInput<'a>;

    fn common(args: &ClockRequest) -> BenchCommon {
        args.common.clone()
    }

    fn check(args: &ClockRequest) -> Result<(), String> {
        args.limits.as_ref().map(|_| ()).map_err(String::clone)
    }

    fn prepare(a: ClockRequest, root: &SysRoot, _r: &Resolved) -> Result<Self, Outcome> {
        let (max_khz, min_khz) = a.limits.map_err(|_| Outcome::Usage)?;
        let opts = if a.common.quick {
            ClockOptions::quick()
        } else {
            ClockOptions::standard()
        };
        Ok(Self {
            opts,
            walk: WalkOptions {
                max_khz,
                min_khz,
                only_max: a.only_max,
            },
            // OPPs are walked only when the sysroot is the live system (never on a fixture).
            permission: clock::walk_permission(root),
        })
    }

    fn jobs<'a>(&'a self, _root: &'a SysRoot, r: &'a Resolved) -> Vec<Job<'a, CheckInput<'a>>> {
        let only_cluster = r.topo.clusters.len() <= 1 && !r.requested;
        driver::per_target(r, "Checking clock of", &self.opts, |target| CheckInput {
            root: &r.live,
            policies: &r.policies,
            target,
            cluster_cpus: r.cluster_cpus(target),
            only_cluster,
            permission: self.permission.clone(),
            walk: self.walk.clone(),
        })
    }

    fn json(&self, r: &Resolved, checks: &[ClockCheck]) -> serde_json::Result<String> {
        let schema = crate::output::schema::BENCH_CLOCK;
        serde_json::to_string_pretty(&serde_json::json!({
            "schema": schema.name,
            "schema_version": schema.version,
            "benchmark": "clock",
            "walk": self.walk,
            "skipped": r.skipped,
            "sysroot_note": r.sysroot_note,
            "checks": checks,
        }))
    }

    fn text(&self, r: &Resolved, checks: &[ClockCheck]) -> String {
        clock_text::render_with(checks, &r.skipped, r.requested)
    }

    fn failed(&self, checks: &[ClockCheck]) -> bool {
        checks.iter().any(|c| {
            c.error.is_some()
                || c.walk.as_ref().is_some_and(|w| {
                    !w.restore_errors.is_empty() || w.opps.iter().any(|o| o.error.is_some())
                })
        })
    }
}
