//! `sbc-bench bench clock`: measured clock speeds, walking every cpufreq OPP with root.

use super::driver::{self, Command, Job};
use super::pinning::Resolved;
use crate::app::Ctx;
use crate::bench::clock::{self, CheckInput, ClockCheck, ClockOptions, WalkOptions};
use crate::cli::bench::{BenchCommonArgs, ClockArgs};
use crate::cli::khz_from_env;
use crate::output::Outcome;
use crate::report::log::clock as clock_text;

fn env_khz(name: &str) -> Result<Option<u64>, String> {
    let v = std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    khz_from_env(name, v.as_deref())
}

/// `--max-khz`/`--min-khz`, else `MaxKHz`/`MinKHz`.
type Limits = Result<(Option<u64>, Option<u64>), String>;

fn limits(a: &ClockArgs) -> Limits {
    let limit = |flag: Option<u64>, name: &str| match flag {
        Some(v) => Ok(Some(v)),
        None => env_khz(name),
    };
    let (max, min) = (limit(a.max_khz, "MaxKHz")?, limit(a.min_khz, "MinKHz")?);
    let names = match (a.max_khz, a.min_khz) {
        (Some(_), Some(_)) => ("--max-khz", "--min-khz"),
        (Some(_), None) => ("--max-khz", "MinKHz"),
        (None, Some(_)) => ("MaxKHz", "--min-khz"),
        (None, None) => ("MaxKHz", "MinKHz"),
    };
    crate::cli::check_khz_range(max, min, names)?;
    Ok((max, min))
}

/// Run the clock check on every target and print it.
pub fn run(ctx: &Ctx, a: &ClockArgs) -> anyhow::Result<Outcome> {
    driver::drive::<ClockCommand>(ctx, (a.clone(), limits(a)))
}

struct ClockCommand {
    opts: ClockOptions,
    walk: WalkOptions,
    permission: Result<(), String>,
}

impl Command for ClockCommand {
    const NAME: &'static str = "clock";
    const LISTS_SKIPPED: bool = true;
    type Args = (ClockArgs, Limits);
    type Output = ClockCheck;
    type Bench<'a> = CheckInput<'a>;

    fn common(args: &Self::Args) -> BenchCommonArgs {
        args.0.common.clone()
    }

    fn check(args: &Self::Args) -> Result<(), String> {
        args.1.as_ref().map(|_| ()).map_err(String::clone)
    }

    fn prepare((a, limits): Self::Args, ctx: &Ctx, _r: &Resolved) -> Result<Self, Outcome> {
        let (max_khz, min_khz) = limits.map_err(|_| Outcome::Usage)?;
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
            permission: clock::walk_permission(&ctx.root),
        })
    }

    fn jobs<'a>(&'a self, _ctx: &'a Ctx, r: &'a Resolved) -> Vec<Job<'a, CheckInput<'a>>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_khz_variables_are_unset_and_bad_ones_name_the_variable() {
        assert_eq!(khz_from_env("MaxKHz", None), Ok(None));
        assert_eq!(khz_from_env("MaxKHz", Some("")), Ok(None));
        assert_eq!(khz_from_env("MaxKHz", Some(" ")), Ok(None));
        assert_eq!(khz_from_env("MinKHz", Some("408000")), Ok(Some(408_000)));
        let e = khz_from_env("MaxKHz", Some("abc")).unwrap_err();
        assert!(
            e.contains("'abc' for 'MaxKHz'") && !e.contains("--max-khz"),
            "{e}"
        );
    }
}
