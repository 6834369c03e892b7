//! The one seam every CPU benchmark sits behind: [`Benchmark`], its [`Progress`] and
//! [`BenchError`]. The `bench …` commands and the standard run both call
//! benchmarks through it; the standard run's canned results (`--fake-benchmarks`) stand in
//! behind the same trait.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use super::BenchError;
use crate::shutdown::CancellationToken;

/// One native benchmark. The value says *where* it runs (targets, CPUs, tools found); the
/// [`Benchmark::Options`] say *how* (durations, sizes). It returns typed results and never
/// prints.
pub trait Benchmark {
    /// Its name in JSON documents and messages (`clock`, `membw`, …).
    const NAME: &'static str;
    /// How to measure.
    type Options;
    /// What it measured.
    type Output: Serialize;

    /// Measure. Reports progress as it goes and stops early when `cancel` fires: then
    /// [`BenchError::Cancelled`], unless the output itself records what finished.
    fn run(
        &self,
        opts: &Self::Options,
        progress: &Progress<'_>,
        cancel: &CancellationToken,
    ) -> Result<Self::Output, BenchError>;
}

/// A receiver of `(fraction done 0..=1, optional step label)`.
type Sink<'a> = &'a (dyn Fn(f64, Option<&str>) + Sync);

/// Where a benchmark says how far it is: a fraction of the whole run, 0..=1, and an
/// optional label for the step it is in (scrypt's current kH/s). Callable from any thread.
#[derive(Clone, Copy)]
pub struct Progress<'a> {
    sink: Sink<'a>,
}

impl std::fmt::Debug for Progress<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

impl<'a> Progress<'a> {
    /// Progress that goes to `sink`.
    pub fn new(sink: Sink<'a>) -> Self {
        Self { sink }
    }

    /// Progress nobody watches.
    pub fn none() -> Progress<'static> {
        Progress { sink: &|_, _| {} }
    }

    /// `fraction` of the run is done (clamped to 0..=1).
    pub fn fraction(&self, fraction: f64) {
        (self.sink)(clamp(fraction), None);
    }

    /// `fraction` of the run is done, in the step called `label`.
    pub fn step(&self, fraction: f64, label: &str) {
        (self.sink)(clamp(fraction), Some(label));
    }

    /// `done` of `total` units are done.
    pub fn count(&self, done: usize, total: usize) {
        self.fraction(done as f64 / total.max(1) as f64);
    }
}

fn clamp(f: f64) -> f64 {
    if f.is_nan() { 0.0 } else { f.clamp(0.0, 1.0) }
}

/// Counts the finished steps of a suite (from any thread) into a [`Progress`] fraction.
#[derive(Debug)]
pub struct Steps<'a> {
    progress: Progress<'a>,
    total: u64,
    done: AtomicU64,
}

impl<'a> Steps<'a> {
    /// `total` steps to go.
    pub fn new(progress: Progress<'a>, total: u64) -> Self {
        Self {
            progress,
            total: total.max(1),
            done: AtomicU64::new(0),
        }
    }

    /// One more step is done.
    pub fn tick(&self) {
        let d = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        self.progress.fraction(d as f64 / self.total as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn progress_is_clamped_and_steps_count_into_fractions() {
        let seen = Mutex::new(Vec::new());
        let sink = |f: f64, l: Option<&str>| {
            seen.lock().unwrap().push((f, l.map(str::to_string)));
        };
        let p = Progress::new(&sink);
        p.fraction(1.5);
        p.fraction(f64::NAN);
        p.step(0.25, "3.98 kH/s");
        p.count(1, 0);
        let s = Steps::new(p, 4);
        s.tick();
        s.tick();
        Progress::none().fraction(0.5);
        let seen = seen.into_inner().unwrap();
        assert_eq!(
            seen,
            vec![
                (1.0, None),
                (0.0, None),
                (0.25, Some("3.98 kH/s".to_string())),
                (1.0, None),
                (0.25, None),
                (0.5, None),
            ]
        );
    }
}
