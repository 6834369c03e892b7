//! `sbc-bench bench memlat`: memory latency per cluster (tinymembench and ramlat tables).

use crate::app::Ctx;
use crate::app::bench::pinning;
use crate::bench::kernels::buffer::Advice;
use crate::bench::memlat::{self, Options};
use crate::cli::bench::MemlatArgs;
use crate::output;
use crate::report::bench_mem;
use crate::shutdown;
use crate::sys::{membench, memory};

/// Measure latency on every target and print it.
pub fn run(ctx: &Ctx, args: &MemlatArgs) -> anyhow::Result<i32> {
    let a = &args.common;
    let r = match pinning::resolve_or_usage(ctx, a) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    if let Some(code) = r.refuse_if_empty("memlat", a.json) {
        return Ok(code);
    }
    let opts = if a.quick {
        Options::quick()
    } else if args.extensive {
        Options::extensive()
    } else {
        Options::standard()
    };
    let mut plan = memlat::plan(
        opts.max_bytes,
        memory::available_bytes(&ctx.root),
        membench::thp_mode(&ctx.root),
    );
    if args.no_madvise {
        plan.advice = Advice::Default;
    }
    let cancel = shutdown::token();
    let mut runs = Vec::new();
    for t in &r.targets {
        let bar = output::progress_bar(
            memlat::steps(&opts, &plan) as u64,
            format!("Memory latency on {}", t.label()),
        );
        let bar2 = bar.clone();
        runs.push(memlat::run_target(
            &ctx.root,
            t,
            &opts,
            &plan,
            cancel,
            &mut |done, _| bar2.set_position(done as u64),
        ));
        bar.finish_and_clear();
        if cancel.is_cancelled() {
            break;
        }
    }
    if a.json {
        let doc = serde_json::json!({
            "benchmark": "memlat",
            "skipped": r.skipped,
            "sysroot_note": r.sysroot_note,
            "runs": runs,
        });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        r.print_sysroot_note();
        print!("{}", bench_mem::render_memlat(&runs, &r.skipped));
        // sbc-bench's summary: every CPU's 16M line, then every CPU's 128M line, tagged
        // only on machines with several clusters (`  * cpu0 (Cortex-A720) 16M latency: …`).
        let tagged = r.tag_summaries();
        let mut summary = Vec::new();
        for size in [16u64 << 20, 128 << 20] {
            for x in &runs {
                if let Some(t) = x.result.as_ref().and_then(|m| m.ramlat.as_ref()) {
                    if let Some(line) = bench_mem::latency_summary(t, size) {
                        summary.push(bench_mem::tagged_summary(
                            &x.target.label(),
                            tagged,
                            " ",
                            &line,
                        ));
                    }
                }
            }
        }
        if !summary.is_empty() {
            println!(
                "\nMemory latency (ramlat as sbc-bench runs it: the kernel's THP policy, ns):"
            );
            for s in summary {
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
