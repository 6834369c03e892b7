//! Reads that a driver never answers must not hang the tool.
//!
//! Every [`SysRoot`](super::root::SysRoot) read of a regular file runs under a [`Watch`]:
//! a watchdog thread that wakes every `TICK` interrupts (with a no-op `SIGURG`, installed
//! without `SA_RESTART`) a read still waiting after its deadline, the read returns
//! `EINTR`, and the path is remembered as blocked for the rest of the process: later reads
//! of it fail at once, and the command can name it in a note ([`blocked`]). A driver that
//! sleeps uninterruptibly (`D` state) cannot be woken this way; nothing in user space can.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once};
use std::time::{Duration, Instant};

/// How long one read of a procfs/sysfs file may take. Slow I2C sensors answer in tens of
/// milliseconds; two seconds is a driver that is not going to answer.
pub const READ_DEADLINE: Duration = Duration::from_secs(2);

/// How often the watchdog looks.
const TICK: Duration = Duration::from_millis(100);

/// The signal that interrupts a stuck read: ignored by default, so a stray one is harmless.
const WAKE_SIGNAL: libc::c_int = libc::SIGURG;

/// A thread to interrupt. `pthread_t` is an integer on glibc and a pointer on musl.
struct Thread(libc::pthread_t);

// SAFETY: the handle is only passed to pthread_kill, under INFLIGHT's lock, while the
// thread is alive (a `Watch` deregisters before its thread can end).
unsafe impl Send for Thread {}

struct Inflight {
    thread: Thread,
    started: Instant,
    deadline: Duration,
    interrupted: bool,
}

static INFLIGHT: Mutex<Vec<(u64, Inflight)>> = Mutex::new(Vec::new());
static BLOCKED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static NEXT: AtomicU64 = AtomicU64::new(1);
static START: Once = Once::new();

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

extern "C" fn wake(_: libc::c_int) {}

fn start_watchdog() {
    START.call_once(|| {
        // SAFETY: installs a handler that does nothing (async-signal-safe) for a signal we
        // own; `sa_flags = 0` leaves out SA_RESTART so a blocked read returns EINTR.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = wake as *const () as libc::sighandler_t;
            sa.sa_flags = 0;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(WAKE_SIGNAL, &sa, std::ptr::null_mut());
        }
        let _ = std::thread::Builder::new()
            .name("read-watchdog".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(TICK);
                    for (_, r) in lock(&INFLIGHT).iter_mut() {
                        if !r.interrupted && r.started.elapsed() >= r.deadline {
                            r.interrupted = true;
                            // SAFETY: the thread is alive: a `Watch` deregisters (under this
                            // lock) before its thread can go away.
                            unsafe {
                                libc::pthread_kill(r.thread.0, WAKE_SIGNAL);
                            }
                        }
                    }
                }
            });
    });
}

/// A read in progress, watched until dropped.
pub struct Watch {
    id: u64,
}

impl Watch {
    /// Watch the calling thread's read for `deadline`.
    pub fn start(deadline: Duration) -> Self {
        start_watchdog();
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let entry = Inflight {
            // SAFETY: pthread_self has no preconditions.
            thread: Thread(unsafe { libc::pthread_self() }),
            started: Instant::now(),
            deadline,
            interrupted: false,
        };
        lock(&INFLIGHT).push((id, entry));
        Self { id }
    }

    /// Did the watchdog give up on this read?
    pub fn expired(&self) -> bool {
        lock(&INFLIGHT)
            .iter()
            .any(|(id, r)| *id == self.id && r.interrupted)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        lock(&INFLIGHT).retain(|(id, _)| *id != self.id);
    }
}

/// Read everything from `r` (at most `max + 1` bytes, so a caller can tell "larger"),
/// giving up after `deadline`: then `path` is remembered as blocked and a `TimedOut`
/// error names it.
pub fn read_all(
    mut r: impl Read,
    path: &Path,
    max: u64,
    deadline: Duration,
) -> io::Result<Vec<u8>> {
    let watch = Watch::start(deadline);
    let mut buf = Vec::new();
    loop {
        let len = buf.len();
        buf.resize(len + 8192, 0);
        match r.read(&mut buf[len..]) {
            Ok(0) => {
                buf.truncate(len);
                break;
            }
            Ok(n) => {
                buf.truncate(len + n);
                if buf.len() as u64 > max {
                    break;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                buf.truncate(len);
                if watch.expired() {
                    block(path);
                    return Err(blocked_error(path));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(buf)
}

/// Remember `path` as a node that does not answer.
pub fn block(path: &Path) {
    let mut b = lock(&BLOCKED);
    if !b.iter().any(|p| p == path) {
        b.push(path.to_path_buf());
    }
}

/// Has a read of `path` been given up before?
pub fn is_blocked(path: &Path) -> bool {
    lock(&BLOCKED).iter().any(|p| p == path)
}

/// The error a blocked path's reads return.
pub fn blocked_error(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        format!(
            "{}: no answer within {} s (treated as n/a)",
            path.display(),
            READ_DEADLINE.as_secs()
        ),
    )
}

/// Every system path given up so far (for a note at the end of a command).
pub fn blocked() -> Vec<PathBuf> {
    lock(&BLOCKED).clone()
}

static REFUSED: Mutex<Vec<(PathBuf, &'static str)>> = Mutex::new(Vec::new());

/// Remember `path` as a node refused because it is `what` (a FIFO, a socket, a block
/// device) where a regular file was expected: read, it could have hung the tool.
pub fn refuse(path: &Path, what: &'static str) {
    let mut r = lock(&REFUSED);
    if !r.iter().any(|(p, _)| p == path) {
        r.push((path.to_path_buf(), what));
    }
}

/// The note a command prints at its end when it gave up on system files: each path once,
/// with why, so an `n/a` in the output can be traced to the node that caused it.
pub fn note() -> Option<String> {
    note_for(&blocked(), &lock(&REFUSED))
}

fn note_for(blocked: &[PathBuf], refused: &[(PathBuf, &'static str)]) -> Option<String> {
    let mut why: Vec<String> = blocked
        .iter()
        .map(|p| {
            format!(
                "{} (no answer within {} s)",
                p.display(),
                READ_DEADLINE.as_secs()
            )
        })
        .collect();
    why.extend(
        refused
            .iter()
            .map(|(p, what)| format!("{} ({what}, not a regular file)", p.display())),
    );
    if why.is_empty() {
        return None;
    }
    let n = why.len();
    Some(format!(
        "gave up on {n} system file{}, shown as n/a: {}",
        if n == 1 { "" } else { "s" },
        why.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::FromRawFd;

    #[test]
    fn a_read_that_never_answers_is_given_up_and_remembered() {
        let mut fds = [0; 2];
        // SAFETY: a plain pipe(2); both ends are owned below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: fds come from pipe(2) above and are owned by these files only.
        let (rd, _wr) = unsafe {
            (
                std::fs::File::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        };
        let path = Path::new("/sys/test/never-answers");
        let t0 = Instant::now();
        let err = read_all(rd, path, 4096, Duration::from_millis(200)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(err.to_string().contains("/sys/test/never-answers"), "{err}");
        assert!(t0.elapsed() < Duration::from_secs(10));
        assert!(is_blocked(path));
        assert!(blocked().iter().any(|p| p == path));
    }

    #[test]
    fn blocked_and_refused_nodes_are_named_in_one_note() {
        assert_eq!(note_for(&[], &[]), None);
        let note = note_for(
            &[PathBuf::from("/sys/class/hwmon/hwmon0/temp1_input")],
            &[(PathBuf::from("/proc/stat"), "a FIFO")],
        )
        .unwrap();
        assert_eq!(
            note,
            "gave up on 2 system files, shown as n/a: /sys/class/hwmon/hwmon0/temp1_input \
             (no answer within 2 s), /proc/stat (a FIFO, not a regular file)"
        );
    }

    #[test]
    fn an_answering_read_is_untouched() {
        let data = vec![7u8; 20_000];
        let got = read_all(&data[..], Path::new("/x"), 1 << 20, READ_DEADLINE).unwrap();
        assert_eq!(got, data);
        let cut = read_all(&data[..], Path::new("/x"), 100, READ_DEADLINE).unwrap();
        assert!(cut.len() > 100);
    }
}
