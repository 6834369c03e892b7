//! `sbc-bench bench clock`: measured clock speeds, walking every cpufreq OPP with root.

use crate::app::Ctx;
use crate::app::bench::pinning;
use crate::bench::clock::{self, CheckInput, ClockCheck, Options, WalkOptions};
use crate::cli::bench::ClockArgs;
use crate::output;
use crate::report::bench_clock;
use crate::shutdown;

/// sbc-bench's `MaxKHz`/`MinKHz`: unset or empty means no limit; anything else must be a
/// number of kHz.
pub fn khz_from_env(name: &str, value: Option<&str>) -> Result<Option<u64>, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| {
            format!(
                "the environment variable {name}='{v}' is not a frequency in kHz (e.g. 1800000)"
            )
        }),
    }
}

fn env_khz(name: &str) -> Result<Option<u64>, String> {
    let v = std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    khz_from_env(name, v.as_deref())
}

/// Run the clock check on every target and print it.
pub fn run(ctx: &Ctx, a: &ClockArgs) -> anyhow::Result<i32> {
    let r = match pinning::resolve_or_usage(ctx, &a.common) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    let limit = |flag: Option<u64>, name: &str| match flag {
        Some(v) => Ok(Some(v)),
        None => env_khz(name),
    };
    let (max_khz, min_khz) = match (limit(a.max_khz, "MaxKHz"), limit(a.min_khz, "MinKHz")) {
        (Ok(max), Ok(min)) => (max, min),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("Error: {e}");
            return Ok(output::EXIT_USAGE);
        }
    };
    if let Some(code) = r.refuse_if_empty("clock", a.common.json) {
        return Ok(code);
    }
    let opts = if a.common.quick {
        Options::quick()
    } else {
        Options::standard()
    };
    let walk = WalkOptions {
        max_khz,
        min_khz,
        only_max: a.only_max,
    };
    // OPPs are walked only when the sysroot is the live system (never on a fixture).
    let permission = clock::walk_permission(&ctx.root);
    let only_cluster = r.topo.clusters.len() <= 1 && !r.requested;
    let cancel = shutdown::token();
    let mut checks: Vec<ClockCheck> = Vec::new();
    for t in &r.targets {
        let bar = output::progress_bar(1, format!("Checking clock of {}", t.label()));
        let opts = &opts;
        let c = clock::check(
            CheckInput {
                root: &r.live,
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
            "sysroot_note": r.sysroot_note,
            "checks": checks,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        r.print_sysroot_note();
        print!(
            "{}",
            bench_clock::render_with(&checks, &r.skipped, r.requested)
        );
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
            e.contains("MaxKHz='abc'") && !e.contains("--max-khz"),
            "{e}"
        );
    }
}
