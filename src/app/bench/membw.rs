//! `sbc-bench bench membw`: memory bandwidth per cluster (tinymembench semantics).

use crate::app::Ctx;
use crate::app::bench::pinning;
use crate::bench::membw::{self, Options};
use crate::cli::bench::CommonArgs;
use crate::output;
use crate::report::bench_mem;
use crate::shutdown;

/// Measure bandwidth on every target and print it.
pub fn run(ctx: &Ctx, a: &CommonArgs) -> anyhow::Result<i32> {
    let r = match pinning::resolve_or_usage(ctx, a) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    if let Some(code) = r.refuse_if_empty("membw", a.json) {
        return Ok(code);
    }
    let opts = if a.quick {
        Options::quick()
    } else {
        Options::standard()
    };
    let cancel = shutdown::token();
    let mut runs = Vec::new();
    for t in &r.targets {
        let bar = output::progress_bar(1, format!("Memory bandwidth on {}", t.label()));
        let bar2 = bar.clone();
        runs.push(membw::run_target(
            &ctx.root,
            t,
            &opts,
            cancel,
            &mut |done, total| {
                bar2.set_length(total as u64);
                bar2.set_position(done as u64);
            },
        ));
        bar.finish_and_clear();
        if cancel.is_cancelled() {
            break;
        }
    }
    if a.json {
        let doc = serde_json::json!({
            "benchmark": "membw",
            "skipped": r.skipped,
            "sysroot_note": r.sysroot_note,
            "runs": runs,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        r.print_sysroot_note();
        print!("{}", bench_mem::render_membw(&runs, &r.skipped));
        // sbc-bench tags the lines with the CPU only on machines with several clusters.
        let tagged = r.tag_summaries();
        let summaries: Vec<String> = runs
            .iter()
            .filter_map(|x| {
                x.result.as_ref().map(|m| {
                    bench_mem::tagged_summary(
                        &x.target.label(),
                        tagged,
                        ": ",
                        &bench_mem::membw_summary(m),
                    )
                })
            })
            .collect();
        if !summaries.is_empty() {
            println!("\nMemory performance:");
            for s in summaries {
                println!("  * {s}");
            }
        }
    }
    let failed = runs.iter().any(|x| x.error.is_some());
    Ok(if failed || r.explicit_skip() || runs.is_empty() {
        output::EXIT_INVALID
    } else {
        output::EXIT_OK
    })
}
