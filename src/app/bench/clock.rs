//! `sbc-bench bench clock`: measured clock speeds, walking every cpufreq OPP with root.

use crate::app::Ctx;
use crate::app::bench::pinning;
use crate::bench::clock::{self, CheckInput, ClockCheck, Options, WalkOptions};
use crate::cli::bench::ClockArgs;
use crate::output;
use crate::report::bench_clock;
use crate::shutdown;

/// Run the clock check on every target and print it.
pub fn run(ctx: &Ctx, a: &ClockArgs) -> anyhow::Result<i32> {
    let r = match pinning::resolve_or_usage(ctx, &a.common) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    let opts = if a.common.quick {
        Options::quick()
    } else {
        Options::standard()
    };
    let walk = WalkOptions {
        max_khz: a.max_khz,
        min_khz: a.min_khz,
        only_max: a.only_max,
    };
    let permission = clock::walk_permission(&ctx.root);
    let only_cluster = r.topo.clusters.len() <= 1 && !r.requested;
    let cancel = shutdown::token();
    let mut checks: Vec<ClockCheck> = Vec::new();
    for t in &r.targets {
        let bar = output::progress_bar(1, format!("Checking clock of {}", t.label()));
        let opts = &opts;
        let c = clock::check(
            CheckInput {
                root: &ctx.root,
                policies: &r.policies,
                target: t,
                cluster_cpus: r.cluster_cpus(t),
                only_cluster,
                permission: permission.clone(),
                walk: walk.clone(),
            },
            cancel,
            &mut |cpu| clock::measure_on(cpu, opts, cancel),
            &mut |done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            },
        );
        bar.finish_and_clear();
        checks.push(c);
        if cancel.is_cancelled() {
            break;
        }
    }
    if a.common.json {
        let doc = serde_json::json!({
            "benchmark": "clock",
            "walk": walk,
            "skipped": r.skipped,
            "checks": checks,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        print!("{}", bench_clock::render(&checks, &r.skipped));
    }
    let failed = checks.iter().any(|c| {
        c.error.is_some()
            || c.walk.as_ref().is_some_and(|w| {
                !w.restore_errors.is_empty() || w.opps.iter().any(|o| o.error.is_some())
            })
    });
    Ok(if failed || r.explicit_skip() || checks.is_empty() {
        output::EXIT_INVALID
    } else {
        output::EXIT_OK
    })
}
