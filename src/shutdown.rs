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
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
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

/// The process-wide token set by a terminating signal.
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

/// Every signal whose default action ends the process and that can be caught, besides
/// the real-time ones and [`FAULTS`]: each one restores the system before we go (SIGKILL
/// cannot be caught; the tuning journal covers it). SIGPIPE is ignored by Rust (writes
/// fail with EPIPE instead) and SIGXFSZ by us.
pub const TERMINATING: [i32; 13] = [
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
    libc::SIGSTKFLT,
    libc::SIGIO,
];

/// The signals a fault raises (their default action dumps core). Sent by another process
/// with kill(2) they are a request to stop like SIGTERM: restored, exit `128 + signal`
/// (ABRT, TRAP and SYS left the board tuned; SEGV and BUS were swallowed by Rust's
/// stack-overflow handler and the run went on). Raised by a real fault (or by our own
/// `abort()`), nothing is safe to run any more: the default action happens (after
/// Rust's own handler, which names a stack overflow) and the tuning journal is left for
/// the next run.
pub const FAULTS: [i32; 7] = [
    libc::SIGABRT,
    libc::SIGTRAP,
    libc::SIGSYS,
    libc::SIGFPE,
    libc::SIGILL,
    libc::SIGSEGV,
    libc::SIGBUS,
];

/// The write end of the pipe the fault handler wakes the signal thread with.
static FAULT_PIPE: AtomicI32 = AtomicI32::new(-1);
/// The handler each fault signal had before ours (Rust's for SEGV and BUS), and its flags.
static OLD_HANDLER: [AtomicUsize; 32] = [const { AtomicUsize::new(0) }; 32];
static OLD_FLAGS: [AtomicI32; 32] = [const { AtomicI32::new(0) }; 32];

/// The fault signals' handler: async-signal-safe calls only.
extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let (code, from) = unsafe { ((*info).si_code, (*info).si_pid()) };
    // SAFETY: getpid is async-signal-safe.
    let me = unsafe { libc::getpid() };
    if code <= 0 && from != me {
        // kill(2), tkill(2) or sigqueue(3) from another process: a request to stop.
        let fd = FAULT_PIPE.load(Ordering::SeqCst);
        if fd >= 0 {
            let b = sig as u8;
            // SAFETY: write(2) of one byte from the stack; async-signal-safe.
            unsafe {
                libc::write(fd, (&b as *const u8).cast(), 1);
            }
            return;
        }
    }
    let i = sig as usize;
    let old = OLD_HANDLER.get(i).map_or(0, |h| h.load(Ordering::SeqCst));
    let flags = OLD_FLAGS.get(i).map_or(0, |f| f.load(Ordering::SeqCst));
    if old != libc::SIG_DFL && old != libc::SIG_IGN && flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the handler installed before ours, with the signature SA_SIGINFO
        // promises; it resets the default action itself where the fault is not its own.
        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(old) };
        f(sig, info, ctx);
        return;
    }
    // SAFETY: sigaction and raise are async-signal-safe; the raised signal stays pending
    // (blocked while we run) and takes its default action when we return.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(sig, &sa, std::ptr::null_mut());
        libc::raise(sig);
    }
}

/// Install [`on_fault`] for every fault signal, and the thread that reads its pipe.
fn install_fault_handlers() -> anyhow::Result<()> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 into a two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    // SAFETY: the read end comes from pipe2 above and is owned by this file only.
    let mut read_end = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fds[0]) };
    FAULT_PIPE.store(fds[1], Ordering::SeqCst);
    std::thread::Builder::new()
        .name("fault-signals".into())
        .spawn(move || {
            use std::io::Read;
            let mut b = [0u8; 1];
            if matches!(read_end.read(&mut b), Ok(1)) {
                stop(i32::from(b[0]));
            }
        })?;
    for sig in FAULTS {
        // SAFETY: installing a handler that only makes async-signal-safe calls; the old
        // action is kept for chaining. SA_ONSTACK: a stack overflow is handled on the
        // alternate stack Rust sets up.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_fault as *const () as libc::sighandler_t;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, &sa, &mut old) == 0 {
                OLD_HANDLER[sig as usize].store(old.sa_sigaction, Ordering::SeqCst);
                OLD_FLAGS[sig as usize].store(old.sa_flags, Ordering::SeqCst);
            }
        }
    }
    Ok(())
}

/// Stop for `sig`: once, whichever thread gets there first (two signals at once must
/// not run the cleanups twice or exit with the second one's status mid-restore).
fn stop(sig: i32) -> ! {
    static STOPPING: AtomicBool = AtomicBool::new(false);
    if STOPPING.swap(true, Ordering::SeqCst) {
        // The first signal's thread restores and exits the process.
        loop {
            std::thread::park();
        }
    }
    SIGNAL.store(sig, Ordering::SeqCst);
    TOKEN.cancel();
    run_cleanups();
    // Give the main thread the chance to finish (the monitor exits 0, a run writes its
    // partial report); then leave regardless.
    std::thread::sleep(GRACE);
    std::process::exit(128 + sig);
}

/// Every signal the signal thread handles: [`TERMINATING`] and the real-time signals
/// (their default action ends the process too).
fn handled() -> Vec<i32> {
    let mut v = TERMINATING.to_vec();
    v.extend(libc::SIGRTMIN()..=libc::SIGRTMAX());
    v
}

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
    let mut signals = signal_hook::iterator::Signals::new(handled())?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                stop(sig);
            }
        })?;
    install_fault_handlers()
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
