//! Threads that must start together: a network test's streams, a storage benchmark's
//! worker and the coordinator that samples the counters at the moment they start.
//!
//! Each thread does its own setup (connect, open the file, pin itself), then waits at one
//! [`StartLine`] (a [`std::sync::Barrier`]); all are released at once, the coordinator
//! among them, so its first sample sees none of the work. A thread that fails or panics
//! before the line still arrives there (its [`Ticket`] arrives when dropped), and a
//! thread that cannot be spawned aborts the start instead of leaving the others waiting:
//! they are only let to the barrier once every thread exists.
//!
//! ```
//! use sbc_bench::bench::start::run_together;
//! let (at_start, results) = run_together(
//!     2,
//!     "stream",
//!     |i, ticket| {
//!         // … connect, pin …
//!         ticket.wait().ok()?; // everyone starts here
//!         Some(i * 10) // … run …
//!     },
//!     |_released| "sampled at the start",
//! )
//! .expect("threads spawned");
//! assert_eq!(at_start, "sampled at the start");
//! assert_eq!(results.len(), 2);
//! ```

use std::sync::{Barrier, Mutex, MutexGuard};
use std::time::Instant;

/// The start was called off: a thread could not be spawned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the start was called off (a thread could not be spawned)")]
pub struct StartAborted;

/// Where `parties` threads meet before they start.
#[derive(Debug)]
pub struct StartLine {
    barrier: Barrier,
    /// Held by the coordinator while it spawns; `true` once the start is called off.
    gate: Mutex<bool>,
}

impl StartLine {
    /// A line for `parties` threads (every runner plus the coordinator, if it waits too).
    pub fn new(parties: usize) -> Self {
        Self {
            barrier: Barrier::new(parties),
            gate: Mutex::new(false),
        }
    }

    /// One thread's place at the line.
    pub fn ticket(&self) -> Ticket<'_> {
        Ticket {
            line: self,
            used: false,
        }
    }

    /// Hold the runners back (while spawning them): [`Ticket::wait`] blocks until the
    /// guard is dropped; [`StartLine::call_off`] through it aborts the start.
    fn hold(&self) -> MutexGuard<'_, bool> {
        self.gate.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn arrive(&self) -> Result<Instant, StartAborted> {
        let aborted = *self.hold();
        if aborted {
            return Err(StartAborted);
        }
        self.barrier.wait();
        Ok(Instant::now())
    }
}

/// One thread's place at a [`StartLine`]. Dropping it unused arrives at the line, so a
/// thread whose setup failed does not leave the others waiting.
#[derive(Debug)]
pub struct Ticket<'a> {
    line: &'a StartLine,
    used: bool,
}

impl Ticket<'_> {
    /// Wait until every party has arrived; all return together, with the instant this
    /// one was released. `Err` when the start was called off.
    pub fn wait(mut self) -> Result<Instant, StartAborted> {
        self.used = true;
        self.line.arrive()
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if !self.used {
            let _ = self.line.arrive();
        }
    }
}

/// Run `runners` threads named `name-<i>` that start together: each gets its index and a
/// [`Ticket`] to wait with after its setup. The calling thread waits at the same line and
/// then runs `at_start` (given the release instant) while the runners work — take the
/// first sample there, or sample until they finish. Returns what `at_start` returned and
/// each runner's result in index order (`Err` for a runner that panicked: one failed
/// stream does not lose the others' results). `Err` when a thread could not be spawned;
/// the runners already spawned then see [`StartAborted`] and are joined before it returns.
pub fn run_together<T, S, F, A>(
    runners: usize,
    name: &str,
    f: F,
    at_start: A,
) -> std::io::Result<(S, Vec<std::thread::Result<T>>)>
where
    T: Send,
    F: Fn(usize, Ticket<'_>) -> T + Sync,
    A: FnOnce(Instant) -> S,
{
    let line = StartLine::new(runners + 1);
    std::thread::scope(|scope| {
        let mut held = line.hold();
        let mut handles = Vec::with_capacity(runners);
        for i in 0..runners {
            let (line, f) = (&line, &f);
            let spawned = std::thread::Builder::new()
                .name(format!("{name}-{i}"))
                .spawn_scoped(scope, move || f(i, line.ticket()));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    *held = true;
                    drop(held);
                    for h in handles {
                        let _ = h.join();
                    }
                    return Err(e);
                }
            }
        }
        drop(held);
        // Never called off past this point: the coordinator is the only one who does.
        let released = line.arrive().unwrap_or_else(|_| Instant::now());
        let s = at_start(released);
        Ok((s, handles.into_iter().map(|h| h.join()).collect()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn nobody_starts_before_the_slowest_setup() {
        let ready = AtomicUsize::new(0);
        let (at_start, results) = run_together(
            3,
            "t",
            |i, ticket| {
                // The last runner's setup is slow: the others must wait for it.
                if i == 2 {
                    std::thread::sleep(Duration::from_millis(50));
                }
                ready.fetch_add(1, Ordering::SeqCst);
                ticket.wait().unwrap();
                ready.load(Ordering::SeqCst)
            },
            |_| ready.load(Ordering::SeqCst),
        )
        .unwrap();
        assert_eq!(at_start, 3, "the coordinator is released after every setup");
        let seen: Vec<usize> = results.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(seen, [3, 3, 3]);
    }

    #[test]
    fn a_failed_or_panicking_runner_does_not_strand_the_others() {
        let (_, results) = run_together(
            3,
            "t",
            |i, ticket| {
                match i {
                    0 => return Err("connect failed"), // ticket dropped unused
                    1 => panic!("runner 1 panicked before the line"),
                    _ => {}
                }
                ticket.wait().map_err(|_| "aborted")?;
                Ok(i)
            },
            |_| (),
        )
        .unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(*results[0].as_ref().unwrap(), Err("connect failed"));
        assert!(results[1].is_err(), "the panic is that runner's result");
        assert_eq!(*results[2].as_ref().unwrap(), Ok(2));
    }

    #[test]
    fn a_called_off_start_releases_the_runners() {
        let line = StartLine::new(3);
        let mut held = line.hold();
        std::thread::scope(|s| {
            let h = s.spawn(|| line.ticket().wait());
            std::thread::sleep(Duration::from_millis(10));
            *held = true;
            drop(held);
            assert_eq!(h.join().unwrap(), Err(StartAborted));
        });
    }

    #[test]
    fn zero_runners_still_runs_the_coordinator() {
        let (s, r) = run_together(0, "t", |_, _t| (), |_| 7).unwrap();
        assert_eq!((s, r.len()), (7, 0));
    }
}
