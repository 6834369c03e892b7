//! One tuning process per board: an exclusive `flock(2)` on `/run/sbc-bench/tuning.lock`
//! (inside the root), taken by a process's first guard and held until its last one is
//! gone; `restore` takes it too.
//!
//! Two runs tuning one board at once measured nothing right and, killed together, lost
//! each other's originals (the second rewrote the journal with its own entries only). A
//! second run is refused with the holder named; a run killed with SIGKILL loses the lock
//! with its last file descriptor, so a dead run never blocks the next one. While the lock
//! is held, every write of the journal (read, merged, replaced) is this process's alone.
//!
//! The lock file and the directory are removed when the last guard ends (and after a
//! catchable signal), so a fixture tree is left byte for byte as it was.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::shutdown::{self, CleanupHandle};
use crate::sys::root::SysRoot;
use crate::tune::owner::Owner;

/// The lock file, as a system path.
pub const LOCK: &str = "/run/sbc-bench/tuning.lock";
/// The directory of the lock and the journal.
pub const DIR: &str = "/run/sbc-bench";

/// How long a claim waits for a holder that is about to end.
const WAIT: Duration = Duration::from_secs(1);

/// Another process holds the board.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "another sbc-bench ({holder}) is tuning this machine; wait until it ends (a stopped run restores its settings) and try again"
)]
pub struct Busy {
    /// `process 4242 (/usr/bin/sbc-bench)`, or `a process` when the lock file does not say.
    pub holder: String,
}

struct Held {
    root: PathBuf,
    count: usize,
    file: File,
    path: PathBuf,
    _cleanup: CleanupHandle,
}

static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

fn held() -> std::sync::MutexGuard<'static, Vec<Held>> {
    HELD.lock().unwrap_or_else(|p| p.into_inner())
}

/// A share of this process's lock on one root; the lock is released with the last share.
#[derive(Debug)]
pub struct BoardLock {
    root: SysRoot,
}

impl Drop for BoardLock {
    fn drop(&mut self) {
        let mut h = held();
        if let Some(i) = h.iter().position(|x| x.root == self.root.root()) {
            h[i].count -= 1;
            if h[i].count == 0 {
                let gone = h.remove(i);
                drop(h);
                release(&self.root, gone);
            }
        }
    }
}

/// The host path of the lock's directory inside `root`.
fn dir_in(root: &SysRoot) -> io::Result<PathBuf> {
    root.in_root(DIR)
}

/// Take the board for this process: `Ok(Some(_))` holds it (shared with this process's
/// other guards), `Ok(None)` when no lock can be taken here and nothing can be tuned
/// either (a read-only tree, `/run` not ours to write: the journal cannot be written
/// and every change is refused), `Err(Busy)` when another process holds it.
pub fn claim(root: &SysRoot) -> Result<Option<BoardLock>, Busy> {
    if root.is_read_only() {
        return Ok(None);
    }
    let mut h = held();
    if let Some(x) = h.iter_mut().find(|x| x.root == root.root()) {
        x.count += 1;
        return Ok(Some(BoardLock { root: root.clone() }));
    }
    let Ok((file, path)) = acquire(root)? else {
        return Ok(None);
    };
    let for_signal = root.clone();
    let cleanup = shutdown::register(move || release_for_exit(&for_signal));
    h.push(Held {
        root: root.root().to_path_buf(),
        count: 1,
        file,
        path,
        _cleanup: cleanup,
    });
    Ok(Some(BoardLock { root: root.clone() }))
}

/// Open, lock and check the lock file. The outer error is "busy"; the inner one "no lock
/// here" (the directory or file cannot be made, flock is not supported).
#[allow(clippy::type_complexity)]
fn acquire(root: &SysRoot) -> Result<io::Result<(File, PathBuf)>, Busy> {
    let started = Instant::now();
    loop {
        match try_acquire(root) {
            Ok(Some(got)) => return Ok(Ok(got)),
            Ok(None) if started.elapsed() < WAIT => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) => {
                return Err(Busy {
                    holder: holder(root).unwrap_or_else(|| "a process".to_string()),
                });
            }
            Err(e) => return Ok(Err(e)),
        }
    }
}

/// One attempt: `Ok(None)` when another process holds the lock.
fn try_acquire(root: &SysRoot) -> io::Result<Option<(File, PathBuf)>> {
    let dir = dir_in(root)?;
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("tuning.lock");
    #[allow(clippy::disallowed_methods)]
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(&path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: not a regular file", path.display()),
        ));
    }
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::EWOULDBLOCK) => Ok(None),
            _ => Err(e),
        };
    }
    // The holder before us may have removed the file between our open and our lock: a
    // lock on a file no longer at the path locks nothing. Try again.
    let same = std::fs::symlink_metadata(&path).is_ok_and(|m| {
        let f = file.metadata();
        f.is_ok_and(|f| f.ino() == m.ino() && f.dev() == m.dev())
    });
    if !same {
        drop(file);
        return try_acquire(root);
    }
    // Who holds it, for the message a second run gets.
    let me = serde_json::to_string(Owner::current()).unwrap_or_default();
    file.set_len(0)?;
    file.rewind()?;
    file.write_all(format!("{me}\n").as_bytes())?;
    Ok(Some((file, path)))
}

/// The holder the lock file names.
fn holder(root: &SysRoot) -> Option<String> {
    let path = dir_in(root).ok()?.join("tuning.lock");
    let mut text = String::new();
    crate::files::read::open_read(
        &path,
        crate::files::read::Accept::File,
        crate::files::read::Links::NoFollow,
    )
    .ok()?
    .take(4096)
    .read_to_string(&mut text)
    .ok()?;
    let o: Owner = serde_json::from_str(text.trim()).ok()?;
    Some(o.describe())
}

/// The lock released: the file removed while still held (a process that opened it
/// meanwhile finds the path gone and tries again), then the directory where the journal
/// is gone too, and in a `--sysroot` tree an empty `/run`.
fn release(root: &SysRoot, h: Held) {
    let same = std::fs::symlink_metadata(&h.path).is_ok_and(|m| {
        h.file
            .metadata()
            .is_ok_and(|f| f.ino() == m.ino() && f.dev() == m.dev())
    });
    if same {
        let _ = std::fs::remove_file(&h.path);
    }
    remove_empty_dirs(root);
    drop(h);
}

/// `/run/sbc-bench` when empty, and in a tree `/run` when empty (it was made for the
/// journal: a fixture has none).
pub fn remove_empty_dirs(root: &SysRoot) {
    if let Ok(dir) = dir_in(root) {
        let _ = std::fs::remove_dir(&dir);
    }
    if !root.is_host()
        && let Ok(run) = root.in_root("/run")
    {
        let _ = std::fs::remove_dir(run);
    }
}

/// After a signal: the guards restored their settings (their cleanups ran first), so
/// the lock goes, whatever still holds a share of it.
fn release_for_exit(root: &SysRoot) {
    let mut h = held();
    if let Some(i) = h.iter().position(|x| x.root == root.root()) {
        let gone = h.remove(i);
        drop(h);
        release(root, gone);
    }
}

/// Does this process hold the lock on `root`?
pub fn held_here(root: &Path) -> bool {
    held().iter().any(|x| x.root == root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, SysRoot) {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("sys")).unwrap();
        let r = SysRoot::new(d.path());
        (d, r)
    }

    #[test]
    fn shares_in_one_process_and_leaves_nothing_behind() {
        let (d, r) = tree();
        let a = claim(&r).unwrap().unwrap();
        assert!(d.path().join("run/sbc-bench/tuning.lock").is_file());
        let b = claim(&r).unwrap().unwrap();
        drop(a);
        assert!(held_here(d.path()));
        drop(b);
        assert!(!held_here(d.path()));
        assert!(!d.path().join("run").exists(), "nothing left in the tree");
    }

    #[test]
    fn another_process_holding_it_is_named() {
        let (d, r) = tree();
        std::fs::create_dir_all(d.path().join("run/sbc-bench")).unwrap();
        let p = d.path().join("run/sbc-bench/tuning.lock");
        let other = Owner {
            pid: 4242,
            start_time: Some(7),
            exe: Some("/usr/bin/sbc-bench".into()),
        };
        std::fs::write(&p, serde_json::to_string(&other).unwrap()).unwrap();
        // A second open file description stands for another process.
        #[allow(clippy::disallowed_methods)]
        let f = std::fs::File::open(&p).unwrap();
        // SAFETY: flock on a descriptor we own.
        assert_eq!(unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) }, 0);
        let e = claim(&r).unwrap_err();
        assert_eq!(e.holder, "process 4242 (/usr/bin/sbc-bench)");
        assert!(e.to_string().contains("is tuning this machine"), "{e}");
        drop(f);
        let got = claim(&r).unwrap();
        assert!(got.is_some());
    }

    #[test]
    fn a_read_only_tree_takes_no_lock() {
        let (d, r) = tree();
        assert!(claim(&r.read_only()).unwrap().is_none());
        assert!(!d.path().join("run").exists());
    }
}
