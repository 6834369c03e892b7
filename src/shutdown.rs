//! Stopping cleanly: a process-wide cancellation token with interruptible sleeps, and a
//! registry of cleanups (restore governors, delete temp files) that runs on normal exit,
//! on error and on every terminating signal that can be caught ([`TERMINATING`]).
//!
//! Long benchmarks spend minutes in tight loops that cannot poll a flag on every
//! iteration, so a signal does not wait for them: the signal thread sets the token, runs
//! every registered cleanup at once, gives the main thread a short grace period to finish
//! on its own (the monitor stops within milliseconds and exits 0), then exits with
//! `128 + signal`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

type Cleanup = Box<dyn FnMut() + Send>;

/// How long the main thread gets to wind down after a signal before the process exits.
pub const GRACE: Duration = Duration::from_secs(3);

/// A cancellation flag with a sleep that wakes up as soon as it is set.
#[derive(Debug, Default)]
pub struct CancellationToken {
    cancelled: AtomicBool,
    lock: Mutex<()>,
    cv: Condvar,
}

impl CancellationToken {
    /// A fresh token (tests use their own; the process uses [`token`]).
    pub const fn new() -> Self {
        Self {
            cancelled: AtomicBool::new(false),
            lock: Mutex::new(()),
            cv: Condvar::new(),
        }
    }

    /// Set the flag and wake every sleeper.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        let _g = lock(&self.lock);
        self.cv.notify_all();
    }

    /// Has cancellation been requested?
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Sleep for `d` or until cancelled. Returns `true` when the full time passed,
    /// `false` when woken by cancellation.
    pub fn sleep(&self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        let mut g = lock(&self.lock);
        loop {
            if self.is_cancelled() {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            g = match self.cv.wait_timeout(g, deadline - now) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
    }
}

static TOKEN: CancellationToken = CancellationToken::new();
static SIGNAL: AtomicI32 = AtomicI32::new(0);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A set of cleanups, newest run first. The process has one ([`register`]); tests make
/// their own so they never run another test's cleanup.
#[derive(Default)]
pub struct Registry {
    map: Mutex<BTreeMap<u64, Cleanup>>,
}

impl Registry {
    /// An empty registry.
    pub const fn new() -> Self {
        Self {
            map: Mutex::new(BTreeMap::new()),
        }
    }

    /// Register a cleanup; see [`register`].
    pub fn register(&'static self, f: impl FnMut() + Send + 'static) -> CleanupHandle {
        let id = NEXT_ID.fetch_add(1, Ordering::SeqCst);
        lock(&self.map).insert(id, Box::new(f));
        CleanupHandle { id, registry: self }
    }

    /// Run (and remove) every registered cleanup, newest first.
    pub fn run_all(&self) {
        let all = std::mem::take(&mut *lock(&self.map));
        for (_, mut f) in all.into_iter().rev() {
            f();
        }
    }
}

static REGISTRY: Registry = Registry::new();

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere must never stop us from restoring a governor.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The process-wide token set by SIGINT/SIGTERM/SIGHUP.
pub fn token() -> &'static CancellationToken {
    &TOKEN
}

/// The signal that cancelled the process, if any.
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Handle of a registered cleanup. Dropping it *deregisters* the cleanup without running
/// it: the owner is expected to have cleaned up itself by then (RAII guards do it in their
/// own `Drop`).
#[must_use = "dropping the handle deregisters the cleanup"]
pub struct CleanupHandle {
    id: u64,
    registry: &'static Registry,
}

impl std::fmt::Debug for CleanupHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CleanupHandle({})", self.id)
    }
}

impl Drop for CleanupHandle {
    fn drop(&mut self) {
        lock(&self.registry.map).remove(&self.id);
    }
}

/// Register a cleanup to run if the process is stopped by a signal (or by
/// [`run_cleanups`]). It must be idempotent: its owner may also run it on the normal path.
pub fn register(f: impl FnMut() + Send + 'static) -> CleanupHandle {
    REGISTRY.register(f)
}

/// Run (and remove) every cleanup registered with [`register`], newest first.
pub fn run_cleanups() {
    REGISTRY.run_all();
}

/// Every signal whose default action ends the process and that can be caught: each one
/// restores the system before we go (SIGKILL cannot be caught; the tuning journal covers
/// it). SIGPIPE is ignored by Rust (writes fail with EPIPE instead) and SIGXFSZ by us.
pub const TERMINATING: [i32; 11] = [
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGXCPU,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGPWR,
];

/// Install the signal thread. Call once from `main`; later calls do nothing.
pub fn install() -> anyhow::Result<()> {
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    // A file-size limit (`ulimit -f`) must make writes fail with EFBIG, which the storage
    // benchmark reports, instead of killing us with the test file left behind.
    // SAFETY: setting a standard disposition for a signal, before any thread relies on it.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let mut signals = signal_hook::iterator::Signals::new(TERMINATING)?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                SIGNAL.store(sig, Ordering::SeqCst);
                TOKEN.cancel();
                run_cleanups();
                // Give the main thread the chance to finish (the monitor exits 0, a run
                // writes its partial report); then leave regardless.
                std::thread::sleep(GRACE);
                std::process::exit(128 + sig);
            }
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn sleep_wakes_on_cancel() {
        let t = Arc::new(CancellationToken::new());
        let t2 = Arc::clone(&t);
        let start = Instant::now();
        let h = std::thread::spawn(move || t2.sleep(Duration::from_secs(30)));
        std::thread::sleep(Duration::from_millis(20));
        t.cancel();
        assert!(!h.join().unwrap());
        assert!(start.elapsed() < Duration::from_secs(5));
        assert!(!t.sleep(Duration::from_secs(1)), "stays cancelled");
    }

    #[test]
    fn full_sleep_returns_true() {
        let t = CancellationToken::new();
        assert!(t.sleep(Duration::from_millis(5)));
    }

    #[test]
    fn cleanups_run_once_and_handles_deregister() {
        let n = Arc::new(AtomicUsize::new(0));
        let n1 = Arc::clone(&n);
        let reg: &'static Registry = Box::leak(Box::new(Registry::new()));
        let kept = reg.register(move || {
            n1.fetch_add(1, Ordering::SeqCst);
        });
        let n2 = Arc::clone(&n);
        let dropped = reg.register(move || {
            n2.fetch_add(100, Ordering::SeqCst);
        });
        drop(dropped);
        reg.run_all();
        reg.run_all();
        assert_eq!(n.load(Ordering::SeqCst), 1);
        drop(kept);
    }
}
