//! The one skeleton of every `bench …` command: choose the CPUs (`--cpus` or one per
//! cluster), refuse when none is usable, run each [`Job`] behind a progress bar (quiet when
//! stderr is no terminal), print JSON or text, and pick the exit status. A [`Command`] adds
//! only what is its own: options, the benchmarks to run, and the rendering call.

use crate::output::Outcome;
use serde::Serialize;

use super::pinning::{self, Resolved};
use super::{BenchCommon, cancelled_code};
use crate::bench::BenchError;
use crate::bench::Benchmark;
use crate::bench::jobs::run_jobs;
pub(super) use crate::bench::jobs::{Job, per_target, runs_json, suite};
use crate::output::usage::UsageError;
use crate::shutdown;
use crate::sys::root::SysRoot;

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
    fn common(args: &Self::Args) -> BenchCommon;
    /// A usage error found once the CPUs are read, before they are judged (clock's
    /// `MaxKHz`): printed as `error: …` as clap prints its own, exit status 2.
    fn check(_args: &Self::Args) -> Result<(), String> {
        Ok(())
    }
    /// Options and tools, once there are CPUs to run on; `Err(exit status)` after saying why.
    fn prepare(args: Self::Args, root: &SysRoot, r: &Resolved) -> Result<Self, Outcome>;
    /// The benchmarks to run, in order.
    fn jobs<'a>(&'a self, root: &'a SysRoot, r: &'a Resolved) -> Vec<Job<'a, Self::Bench<'a>>>;
    /// The `--json` document.
    fn json(&self, r: &Resolved, outs: &[Self::Output]) -> serde_json::Result<String>;
    /// The text report (after the sysroot note).
    fn text(&self, r: &Resolved, outs: &[Self::Output]) -> String;
    /// Did a measurement fail (exit status 3)?
    fn failed(&self, outs: &[Self::Output]) -> bool;
}

/// Run a `bench …` command from start to exit status.
pub(super) fn drive<C: Command>(root: &SysRoot, args: C::Args) -> anyhow::Result<Outcome> {
    let common = C::common(&args);
    let r = pinning::resolve(root, &common);
    C::check(&args).map_err(UsageError::from)?;
    if let Some(code) = r.refuse_if_empty(C::NAME, common.json) {
        return Ok(code);
    }
    if !C::LISTS_SKIPPED {
        r.warn_skipped();
    }
    let cmd = match C::prepare(args, root, &r) {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let cancel = shutdown::token();
    let outs = match run_jobs(cmd.jobs(root, &r), cancel) {
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
