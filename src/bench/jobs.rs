//! The jobs of a `bench …` command: each benchmark run in order behind its own progress
//! bar (on stderr, quiet when it is no terminal), and the `--json` document of the
//! per-target commands. The command's skeleton is `app/bench/driver.rs`.

use serde::Serialize;

use crate::bench::pin::Target;
use crate::bench::placement::Resolved;
use crate::bench::{BenchError, Benchmark, Progress};
use crate::output;
use crate::shutdown::CancellationToken;

/// One benchmark run behind its own progress bar.
pub struct Job<'a, B: Benchmark> {
    /// The bar's message (`Memory bandwidth on cpu0 (Cortex-A55)`); a step label that the
    /// benchmark reports is appended to it (`scrypt 3.98 kH/s`).
    pub label: String,
    /// What to run.
    pub bench: B,
    /// How.
    pub opts: &'a B::Options,
}

/// One job per target, labelled `{what} on {target}` (`Memory latency on cpu4 (Cortex-A76)`).
pub fn per_target<'a, B: Benchmark>(
    r: &'a Resolved,
    what: &str,
    opts: &'a B::Options,
    bench: impl Fn(&'a Target) -> B,
) -> Vec<Job<'a, B>> {
    r.targets
        .iter()
        .map(|t| Job {
            label: format!("{what} {}", t.label()),
            bench: bench(t),
            opts,
        })
        .collect()
}

/// The one job of a suite that runs over every target itself.
pub fn suite<'a, B: Benchmark>(label: &str, bench: B, opts: &'a B::Options) -> Vec<Job<'a, B>> {
    vec![Job {
        label: label.to_string(),
        bench,
        opts,
    }]
}

/// The `--json` document of a per-target command (`membw`, `memlat`).
pub fn runs_json(
    benchmark: &str,
    r: &Resolved,
    runs: &impl Serialize,
) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&serde_json::json!({
        "schema": output::schema::bench(benchmark).name,
        "schema_version": output::schema::bench(benchmark).version,
        "benchmark": benchmark,
        "skipped": r.skipped,
        "sysroot_note": r.sysroot_note,
        "runs": runs,
    }))
}

/// Run the jobs in order, each behind its own bar, until one fails or a signal comes.
pub fn run_jobs<B: Benchmark>(
    jobs: Vec<Job<'_, B>>,
    cancel: &CancellationToken,
) -> Result<Vec<B::Output>, BenchError> {
    let mut outs = Vec::new();
    let n = jobs.len();
    for (k, job) in jobs.into_iter().enumerate() {
        let label = output::step_label(k + 1, n, &job.label);
        let bar = output::step_bar(label.as_str());
        let forward = output::forward_only(bar.clone());
        let sink = |fraction: f64, step: Option<&str>| {
            forward(fraction);
            if let Some(s) = step {
                bar.set_message(format!("{label} {s}"));
            }
        };
        let r = job.bench.run(job.opts, &Progress::new(&sink), cancel);
        bar.finish_and_clear();
        outs.push(r?);
        if cancel.is_cancelled() {
            break;
        }
    }
    Ok(outs)
}
