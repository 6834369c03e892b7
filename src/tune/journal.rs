//! The crash journal: every original value the tuning guards of a run changed, and every
//! value the run wrote, in `/run/sbc-bench/tuning.json` (inside the root), written
//! *before* each change and removed once everything is restored. What cannot be caught —
//! SIGKILL, the OOM killer, a power cut — leaves the file behind; the next command that
//! tunes (and `sbc-bench restore`) finds it, puts back each original whose file still
//! holds a value that run wrote, and says so. Without it the next run would record
//! `performance` as the original and the change would become permanent.
//!
//! The journal holds one section per run ([`RunSection`]), each naming its process by id,
//! start time and executable ([`Owner`]): a run that ended leaves its unresolved entries
//! for the next recovery, a live run's entries are left to it, and a process that now
//! has a dead run's id does not keep that run's settings changed for ever. It is written
//! only while the board's lock is held ([`crate::tune::lock`]), read, merged and replaced
//! atomically ([`crate::files::replace`]); an entry is dropped only when it is resolved.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;
use crate::tune::known;
use crate::tune::owner::{Liveness, Owner};

/// Where the journal lives, as a system path (`/run` is a tmpfs: a reboot clears it,
/// and a reboot also resets every governor).
pub const JOURNAL: &str = "/run/sbc-bench/tuning.json";

/// Largest sysfs attribute a guard records (one page on every architecture we run on).
pub const MAX_ORIGINAL: u64 = 65536;

/// Largest journal read (a few KiB in practice).
const MAX_JOURNAL: u64 = 4 << 20;

/// The format this build writes. Format 1 (a `pid` and `changes` at the top, one value
/// written per entry) is read as one section.
pub const VERSION: u32 = 2;

/// One journalled change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// Absolute system path.
    pub path: PathBuf,
    /// The exact original contents (trailing newline included).
    pub original: String,
    /// What the run wrote last (or was about to write: the journal is written first).
    pub written: String,
    /// Every other value the run wrote there before, oldest first: a run killed between
    /// journalling a new value and writing it leaves the previous one in place (an OPP
    /// walk's inner clock), which is still the run's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier: Vec<String>,
}

impl JournalEntry {
    /// Did the run write `value` (trimmed) here?
    pub fn wrote(&self, value: &str) -> bool {
        let v = value.trim();
        self.written.trim() == v || self.earlier.iter().any(|e| e.trim() == v)
    }
}

/// One run's changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSection {
    /// The run's process.
    #[serde(flatten)]
    pub owner: Owner,
    /// Its changes, oldest first.
    pub changes: Vec<JournalEntry>,
}

/// The file's contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    /// Format version ([`VERSION`]).
    pub version: u32,
    /// One section per run with changes left.
    pub runs: Vec<RunSection>,
}

/// Format 1, as sbc-bench 0.9.0 wrote it.
#[derive(Deserialize)]
struct JournalV1 {
    pid: u32,
    changes: Vec<JournalEntry>,
}

/// Read a journal's text (format 1 or 2); the error says why it is not one.
pub fn parse(text: &str) -> Result<Journal, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match v.get("version").and_then(serde_json::Value::as_u64) {
        Some(1) => {
            let j: JournalV1 = serde_json::from_value(v).map_err(|e| e.to_string())?;
            Ok(Journal {
                version: VERSION,
                runs: vec![RunSection {
                    owner: Owner {
                        pid: j.pid,
                        start_time: None,
                        exe: None,
                    },
                    changes: j.changes,
                }],
            })
        }
        Some(2) => serde_json::from_value(v).map_err(|e| e.to_string()),
        Some(n) => Err(format!(
            "format {n}, made by a newer sbc-bench (this one reads up to {VERSION})"
        )),
        None => Err("no format version".to_string()),
    }
}

/// Every live guard's entries in this process, keyed by guard id, in change order.
/// Each root has its own journal file; a guard belongs to one root.
static LIVE: Mutex<Vec<(u64, PathBuf, JournalEntry)>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<(u64, PathBuf, JournalEntry)>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The journal's host path (links resolved inside the root).
fn file(root: &SysRoot) -> io::Result<PathBuf> {
    root.in_root(JOURNAL)
}

/// The journal as it is now: `None` when there is none. A file that cannot be read
/// (a FIFO, too large, not a journal) is an error naming it: it is never overwritten.
fn read(root: &SysRoot) -> Result<Option<Journal>, String> {
    let path = file(root).map_err(|e| format!("{JOURNAL}: {e}"))?;
    let text = match crate::files::read::read_text(&path, MAX_JOURNAL) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(format!(
                "cannot read the tuning journal {}: {e}",
                path.display()
            ));
        }
    };
    parse(&text).map(Some).map_err(|e| {
        format!(
            "{} is not a tuning journal this sbc-bench can read ({e})",
            path.display()
        )
    })
}

/// Record (or update) guard `id`'s change of `path` to `value` (`original` the first
/// time), then rewrite the journal. Called before the system file is written.
pub fn record(root: &SysRoot, id: u64, path: &Path, original: &str, value: &str) -> io::Result<()> {
    let mut l = live();
    match l
        .iter_mut()
        .find(|(g, r, e)| *g == id && r == root.root() && e.path == path)
    {
        Some((_, _, e)) => {
            if e.written != value {
                let prev = std::mem::replace(&mut e.written, value.to_string());
                if !e.earlier.contains(&prev) {
                    e.earlier.push(prev);
                }
                e.earlier.retain(|v| v != value);
            }
        }
        None => l.push((
            id,
            root.root().to_path_buf(),
            JournalEntry {
                path: path.to_path_buf(),
                original: original.to_string(),
                written: value.to_string(),
                earlier: Vec::new(),
            },
        )),
    }
    sync(root, &l)
}

/// Guard `id` restored everything it changed: drop its entries and rewrite the journal
/// (removed when no entry is left).
pub fn forget(root: &SysRoot, id: u64) {
    let mut l = live();
    if !l.iter().any(|(g, _, _)| *g == id) {
        return;
    }
    l.retain(|(g, _, _)| *g != id);
    let _ = sync(root, &l);
}

/// Tests: forget guard `id`'s entries without touching the file (a killed process).
#[cfg(test)]
pub(crate) fn drop_live_for_test(id: u64) {
    live().retain(|(g, _, _)| *g != id);
}

/// This process's section: its live entries on `root`.
fn ours(root: &SysRoot, all: &[(u64, PathBuf, JournalEntry)]) -> Option<RunSection> {
    let changes: Vec<JournalEntry> = all
        .iter()
        .filter(|(_, r, _)| r == root.root())
        .map(|(_, _, e)| e.clone())
        .collect();
    (!changes.is_empty()).then(|| RunSection {
        owner: Owner::current().clone(),
        changes,
    })
}

/// The journal rewritten: every other run's section as it is, this process's from its
/// live entries.
fn sync(root: &SysRoot, all: &[(u64, PathBuf, JournalEntry)]) -> io::Result<()> {
    let others = match read(root) {
        Ok(j) => j.map(|j| j.runs).unwrap_or_default(),
        Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
    };
    let mut runs: Vec<RunSection> = others.into_iter().filter(|s| !s.owner.is_us()).collect();
    runs.extend(ours(root, all));
    write(root, runs)
}

/// Replace the journal with `runs`, or remove it when there are none.
fn write(root: &SysRoot, runs: Vec<RunSection>) -> io::Result<()> {
    let path = file(root)?;
    if runs.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    let j = Journal {
        version: VERSION,
        runs,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(&j).map_err(io::Error::other)?;
    // Synced, file and directory: a power cut right after tuning must find the journal
    // whole, not the empty file an unsynced rename can leave.
    crate::files::replace(&path, (text + "\n").as_bytes())?;
    Ok(())
}

/// What recovery did, one sentence each.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Recovery {
    /// Lines for the user.
    pub lines: Vec<String>,
    /// A journal was found.
    pub found: bool,
    /// Entries left changed and kept in the journal (could not be read or restored, or a
    /// live run owns them), or a journal that cannot be read.
    pub left: usize,
    /// Entries refused: they name no setting sbc-bench changes (dropped, never written).
    pub refused: usize,
}

/// Put back what killed runs left changed. Each original is written only when the file
/// still holds a value that run wrote (someone may have set another since), only to a
/// setting the guard changes ([`known::check`]). A live run's section is left to it
/// unless `force`. Entries that could not be resolved stay in the journal.
pub fn recover(root: &SysRoot, force: bool) -> Recovery {
    let mut out = Recovery::default();
    remove_stale_temp_files(root);
    let j = match read(root) {
        Ok(None) => return out,
        Ok(Some(j)) => j,
        Err(e) => {
            out.found = true;
            out.lines.push(format!("{e}; left as it is"));
            out.left = 1;
            return out;
        }
    };
    out.found = true;
    let mut keep = Vec::new();
    for section in j.runs {
        if section.owner.is_us() {
            // A nested guard (the efficiency graph's inside the run's) must not take the
            // outer guard's live changes for a killed run's: rewritten from `LIVE` below.
            continue;
        }
        let gone = match section.owner.liveness() {
            Liveness::Gone(why) => why,
            Liveness::Running | Liveness::Us if !force => {
                out.lines.push(format!(
                    "{} is still running and holds tuned settings; not restoring them (`sbc-bench restore --force` restores them anyway)",
                    section.owner.describe()
                ));
                out.left += section.changes.len();
                keep.push(section);
                continue;
            }
            Liveness::Running | Liveness::Us => {
                format!("process {} may still run (--force)", section.owner.pid)
            }
        };
        let unresolved = restore_section(root, &section, &gone, &mut out);
        out.left += unresolved.len();
        if !unresolved.is_empty() {
            keep.push(RunSection {
                owner: section.owner,
                changes: unresolved,
            });
        }
    }
    let l = live();
    keep.extend(ours(root, &l));
    if let Err(e) = write(root, keep) {
        out.lines
            .push(format!("cannot rewrite the tuning journal {JOURNAL}: {e}"));
    }
    out
}

/// The temporary files of journal writes a killed process left (`.tuning.json.<pid>.tmp`,
/// killed between creating and renaming it): called while the board's lock is held, so no
/// other process is writing one.
fn remove_stale_temp_files(root: &SysRoot) {
    let Ok(path) = file(root) else {
        return;
    };
    let Some(dir) = path.parent() else {
        return;
    };
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mine = crate::files::temp_path(&path);
    for e in rd.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(".tuning.json.") && name.ends_with(".tmp") && e.path() != mine {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Restore one ended run's entries, newest first; the entries not resolved. Writes
/// that fail are tried once more after the others: `scaling_max_freq` below the current
/// `scaling_min_freq` is refused until the minimum is back, a CPU's files until it is
/// online again.
fn restore_section(
    root: &SysRoot,
    s: &RunSection,
    gone: &str,
    out: &mut Recovery,
) -> Vec<JournalEntry> {
    let pid = s.owner.pid;
    let mut pending: Vec<&JournalEntry> = Vec::new();
    for e in s.changes.iter().rev() {
        match known::check(root, &e.path) {
            Err(why) => {
                out.lines.push(format!(
                    "{}: {why}; not written (the journal may not name it)",
                    e.path.display()
                ));
                out.refused += 1;
            }
            Ok(()) if e.original.len() as u64 > MAX_ORIGINAL => {
                out.lines.push(format!(
                    "{}: the journalled original is larger than any setting; not written",
                    e.path.display()
                ));
                out.refused += 1;
            }
            Ok(()) => pending.push(e),
        }
    }
    for pass in 0..2 {
        let last = pass == 1;
        let mut failed = Vec::new();
        for e in pending {
            let now = match root.read_bytes_max(&e.path, MAX_ORIGINAL) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(err) if last => {
                    out.lines.push(format!(
                        "cannot read {}: {err}; kept in the journal",
                        e.path.display()
                    ));
                    failed.push(e);
                    continue;
                }
                Err(_) => {
                    failed.push(e);
                    continue;
                }
            };
            if now == e.original {
                out.lines.push(format!(
                    "{} already holds its original {:?}",
                    e.path.display(),
                    e.original.trim()
                ));
            } else if e.wrote(&now) || now.trim() == e.original.trim() {
                // A value the run wrote — also one equal to the original but for its
                // bytes (`408000` written over `408000\n`): the exact original goes back.
                match root.write(&e.path, e.original.as_bytes()) {
                    Ok(()) => out.lines.push(format!(
                        "restored {} to {:?} (left at {:?} by process {pid}, which was killed: {gone})",
                        e.path.display(),
                        e.original.trim(),
                        now.trim(),
                    )),
                    Err(err) if last => {
                        out.lines.push(format!(
                            "could not restore {} to {:?}: {err}; kept in the journal",
                            e.path.display(),
                            e.original.trim()
                        ));
                        failed.push(e);
                    }
                    Err(_) => failed.push(e),
                }
            } else {
                out.lines.push(format!(
                    "{} now holds {:?}, not a value process {pid} wrote: left as it is",
                    e.path.display(),
                    now.trim(),
                ));
            }
        }
        pending = failed;
        if pending.is_empty() {
            break;
        }
    }
    // Oldest first again, as journalled.
    pending.into_iter().rev().cloned().collect()
}
