//! The one skeleton of every `bench …` command: choose the CPUs (`--cpus` or one per
//! cluster), refuse when none is usable, run each [`Job`] behind a progress bar (quiet when
//! stderr is no terminal), print JSON or text, and pick the exit status. A [`Command`] adds
//! only what is its own: options, the benchmarks to run, and the rendering call.

use crate::output::Outcome;
use serde::Serialize;

use super::cancelled_code;
use super::pinning::{self, Resolved};
use crate::app::Ctx;
use crate::bench::pin::Target;
use crate::bench::{BenchError, Benchmark, Progress};
use crate::cli::UsageError;
use crate::cli::bench::CommonArgs;
use crate::output;
use crate::shutdown::{self, CancellationToken};

/// One benchmark run behind its own progress bar.
pub(super) struct Job<'a, B: Benchmark> {
    /// The bar's message (`Memory bandwidth on cpu0 (Cortex-A55)`); a step label that the
    /// benchmark reports is appended to it (`scrypt 3.98 kH/s`).
    pub label: String,
    /// What to run.
    pub bench: B,
    /// How.
    pub opts: &'a B::Options,
}

/// What one `bench …` command adds to the skeleton of [`drive`].
pub(super) trait Command: Sized {
    /// The benchmark's name in the refusal document (`"benchmark": "membw"`).
    const NAME: &'static str;
    /// The report lists skipped CPUs itself; otherwise they are warned about on stderr.
    const LISTS_SKIPPED: bool;
    /// A run stopped by a signal still prints its report, then ends with 128 + signal
    /// (scrypt). Otherwise the report's own failures decide the status.
    const SIGNAL_EXIT: bool = false;
    /// What the user typed (and what was checked of it beforehand).
    type Args;
    /// What each job measured.
    type Output: Serialize;
    /// The benchmark each job runs.
    type Bench<'a>: Benchmark<Output = Self::Output>
    where
        Self: 'a;

    /// `--cpus`, `--quick`, `--json`.
    fn common(args: &Self::Args) -> CommonArgs;
    /// A usage error found once the CPUs are read, before they are judged (clock's
    /// `MaxKHz`): printed as `error: …` as clap prints its own, exit status 2.
    fn check(_args: &Self::Args) -> Result<(), String> {
        Ok(())
    }
    /// Options and tools, once there are CPUs to run on; `Err(exit status)` after saying why.
    fn prepare(args: Self::Args, ctx: &Ctx, r: &Resolved) -> Result<Self, Outcome>;
    /// The benchmarks to run, in order.
    fn jobs<'a>(&'a self, ctx: &'a Ctx, r: &'a Resolved) -> Vec<Job<'a, Self::Bench<'a>>>;
    /// The `--json` document.
    fn json(&self, r: &Resolved, outs: &[Self::Output]) -> serde_json::Result<String>;
    /// The text report (after the sysroot note).
    fn text(&self, r: &Resolved, outs: &[Self::Output]) -> String;
    /// Did a measurement fail (exit status 3)?
    fn failed(&self, outs: &[Self::Output]) -> bool;
}

/// One job per target, labelled `{what} on {target}` (`Memory latency on cpu4 (Cortex-A76)`).
pub(super) fn per_target<'a, B: Benchmark>(
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
pub(super) fn suite<'a, B: Benchmark>(
    label: &str,
    bench: B,
    opts: &'a B::Options,
) -> Vec<Job<'a, B>> {
    vec![Job {
        label: label.to_string(),
        bench,
        opts,
    }]
}

/// The `--json` document of a per-target command (`membw`, `memlat`).
pub(super) fn runs_json(
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

/// Run a `bench …` command from start to exit status.
pub(super) fn drive<C: Command>(ctx: &Ctx, args: C::Args) -> anyhow::Result<Outcome> {
    let common = C::common(&args);
    let r = pinning::resolve(ctx, &common)?;
    C::check(&args).map_err(UsageError::from)?;
    if let Some(code) = r.refuse_if_empty(C::NAME, common.json) {
        return Ok(code);
    }
    if !C::LISTS_SKIPPED {
        r.warn_skipped();
    }
    let cmd = match C::prepare(args, ctx, &r) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let cancel = shutdown::token();
    let outs = match run_jobs(cmd.jobs(ctx, &r), cancel) {
        Ok(outs) => outs,
        Err(BenchError::Cancelled) => return Ok(cancelled_code()),
        Err(e) => return Err(e.into()),
    };
    if common.json {
        println!("{}", cmd.json(&r, &outs)?);
    } else {
        r.print_sysroot_note();
        print!("{}", cmd.text(&r, &outs));
    }
    if C::SIGNAL_EXIT && cancel.is_cancelled() {
        return Ok(cancelled_code());
    }
    Ok(
        if cmd.failed(&outs) || r.explicit_skip() || outs.is_empty() {
            Outcome::Untrusted
        } else {
            Outcome::Ok
        },
    )
}

/// Run the jobs in order, each behind its own bar, until one fails or a signal comes.
fn run_jobs<B: Benchmark>(
    jobs: Vec<Job<'_, B>>,
    cancel: &CancellationToken,
) -> Result<Vec<B::Output>, BenchError> {
    let mut outs = Vec::new();
    let n = jobs.len();
    for (k, job) in jobs.into_iter().enumerate() {
        let label = output::step_label(k + 1, n, &job.label);
        let bar = output::step_bar(label.as_str());
        let len = output::STEP_BAR_LEN as f64;
        let sink = |fraction: f64, step: Option<&str>| {
            bar.set_position((fraction.clamp(0.0, 1.0) * len).round() as u64);
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
