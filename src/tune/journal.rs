//! The crash journal: every original value the tuning guards of this process changed,
//! written to `/run/sbc-bench/tuning.json` (inside the root) *before* the change is
//! made, and removed once everything is restored. What cannot be caught — SIGKILL, the
//! OOM killer, a power cut — leaves the file behind; the next command that tunes (and
//! `sbc-bench restore`) finds it, puts back each original whose file still holds the
//! value we wrote, and says so. Without it the next run would record `performance` as
//! the original and the change would become permanent.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// Where the journal lives, as a system path (`/run` is a tmpfs: a reboot clears it,
/// and a reboot also resets every governor).
pub const JOURNAL: &str = "/run/sbc-bench/tuning.json";

/// Largest sysfs attribute a guard records (one page on every architecture we run on).
pub const MAX_ORIGINAL: u64 = 65536;

/// One journalled change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// Absolute system path.
    pub path: PathBuf,
    /// The exact original contents (trailing newline included).
    pub original: String,
    /// What we wrote last.
    pub written: String,
}

/// The file's contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    /// Format version.
    pub version: u32,
    /// The process that made the changes.
    pub pid: u32,
    /// Changes, oldest first.
    pub changes: Vec<JournalEntry>,
}

/// Every live guard's entries in this process, keyed by guard id, in change order.
/// Each root has its own journal file; a guard belongs to one root.
static LIVE: Mutex<Vec<(u64, PathBuf, JournalEntry)>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<(u64, PathBuf, JournalEntry)>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

fn file(root: &SysRoot) -> PathBuf {
    root.path(JOURNAL)
}

/// Record (or update) guard `id`'s change of `entry.path`, then rewrite the journal.
/// Called before the system file is written.
pub fn record(root: &SysRoot, id: u64, entry: JournalEntry) -> io::Result<()> {
    let mut l = live();
    match l
        .iter_mut()
        .find(|(g, _, e)| *g == id && e.path == entry.path)
    {
        Some((_, _, e)) => e.written = entry.written,
        None => l.push((id, root.root().to_path_buf(), entry)),
    }
    write(root, &l)
}

/// Guard `id` restored everything it changed: drop its entries; remove the file when no
/// guard of this process has changes left.
pub fn forget(root: &SysRoot, id: u64) {
    let mut l = live();
    if !l.iter().any(|(g, _, _)| *g == id) {
        return;
    }
    l.retain(|(g, _, _)| *g != id);
    let _ = write(root, &l);
}

/// Tests: forget guard `id`'s entries without touching the file (a killed process).
#[cfg(test)]
pub(crate) fn drop_live_for_test(id: u64) {
    live().retain(|(g, _, _)| *g != id);
}

fn write(root: &SysRoot, all: &[(u64, PathBuf, JournalEntry)]) -> io::Result<()> {
    let path = file(root);
    let l: Vec<&JournalEntry> = all
        .iter()
        .filter(|(_, r, _)| r == root.root())
        .map(|(_, _, e)| e)
        .collect();
    if l.is_empty() {
        return remove(&path);
    }
    let j = Journal {
        version: 1,
        pid: std::process::id(),
        changes: l.into_iter().cloned().collect(),
    };
    let dir = path.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(dir)?;
    let text = serde_json::to_string_pretty(&j).map_err(io::Error::other)?;
    // Synced, file and directory: a power cut right after tuning must find the journal
    // whole, not the empty file an unsynced rename can leave.
    crate::files::replace(&path, (text + "\n").as_bytes())?;
    Ok(())
}

/// Remove the journal, and its directory when that is left empty.
fn remove(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::remove_dir(dir);
    }
    Ok(())
}

/// What recovery did, one sentence each.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Recovery {
    /// Lines for the user.
    pub lines: Vec<String>,
    /// A journal was found.
    pub found: bool,
    /// Entries left changed (could not be restored, or another live process owns them).
    pub left: usize,
}

/// Is `pid` a live process other than us?
fn other_live_process(pid: u32) -> bool {
    if pid == std::process::id() || pid == 0 {
        return false;
    }
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Put back what a killed process left changed. Each original is written only when the
/// file still holds the value that process wrote (someone may have set another since).
pub fn recover(root: &SysRoot) -> Recovery {
    let mut out = Recovery::default();
    let path = file(root);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return out;
    };
    out.found = true;
    let j: Journal = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => {
            out.lines.push(format!(
                "{} is not a tuning journal ({e}); left as it is",
                path.display()
            ));
            out.left = 1;
            return out;
        }
    };
    // Our own journal while a guard of this process still holds changes on this tree: a
    // nested guard (the efficiency graph's, an OPP walk's, inside the run's) must not
    // take the outer guard's live changes for a killed process's and undo them.
    if j.pid == std::process::id() && live().iter().any(|(_, r, _)| r == root.root()) {
        return out;
    }
    if other_live_process(j.pid) {
        out.lines.push(format!(
            "process {} (another sbc-bench?) still holds tuned settings; not restoring them",
            j.pid
        ));
        out.left = j.changes.len();
        return out;
    }
    let mut left = Vec::new();
    for e in j.changes.iter().rev() {
        match root.read_bytes_max(&e.path, MAX_ORIGINAL) {
            Ok(now) if String::from_utf8_lossy(&now).trim() == e.written.trim() => {
                match root.write(&e.path, e.original.as_bytes()) {
                    Ok(()) => out.lines.push(format!(
                        "restored {} to {:?} (left at {:?} by process {}, which was killed)",
                        e.path.display(),
                        e.original.trim(),
                        e.written.trim(),
                        j.pid
                    )),
                    Err(err) => {
                        out.lines.push(format!(
                            "could not restore {} to {:?}: {err}",
                            e.path.display(),
                            e.original.trim()
                        ));
                        left.push(e.clone());
                    }
                }
            }
            Ok(now) => out.lines.push(format!(
                "{} now holds {:?}, not the {:?} process {} wrote: left as it is",
                e.path.display(),
                String::from_utf8_lossy(&now).trim(),
                e.written.trim(),
                j.pid
            )),
            Err(err) => out.lines.push(format!(
                "cannot read {}: {err}; left as it is",
                e.path.display()
            )),
        }
    }
    out.left = left.len();
    if left.is_empty() {
        let _ = remove(&path);
    } else {
        left.reverse();
        let j = Journal { changes: left, ..j };
        if let Ok(t) = serde_json::to_string_pretty(&j) {
            let _ = crate::files::replace(&path, (t + "\n").as_bytes());
        }
    }
    out
}
