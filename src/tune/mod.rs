//! The only code that changes the system: cpufreq/devfreq governors, `scaling_max_freq`
//! and `scaling_min_freq` for OPP walks, `io_is_busy`, ASPM policy, CPUs taken offline.
//!
//! Every change goes through a [`Tuning`] guard that reads and records the original value
//! before writing, and puts it back when the guard is dropped, when [`Tuning::restore`] is
//! called, or when a signal stops the process (the guard registers itself with
//! [`crate::shutdown`]). Only the settings in [`known::TUNABLES`] are written. A process's
//! first guard takes the board ([`lock`]): a second tuning process is refused while one
//! runs. Writes go through [`SysRoot`], so tests prove the restore on a writable copy of
//! a fixture tree.

pub mod journal;
pub mod known;
pub mod lock;
pub mod oneshot;
pub mod owner;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::shutdown::{self, CleanupHandle};
use crate::sys::root::SysRoot;

/// One recorded change: the file, the value it had, and the value we wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Change {
    /// Absolute system path, e.g. `/sys/devices/system/cpu/cpufreq/policy0/scaling_governor`.
    pub path: PathBuf,
    /// The value found before we touched it (trimmed).
    pub original: String,
    /// The value we wrote last.
    pub written: String,
    /// The exact bytes found (trailing newline included): what a restore writes back.
    #[serde(skip)]
    pub original_bytes: Vec<u8>,
}

/// A failed restore: the system is left changed, which the user must be told about.
#[derive(Debug, thiserror::Error)]
#[error("could not restore {path} to {original:?}: {source}")]
pub struct RestoreError {
    /// File that kept our value.
    pub path: PathBuf,
    /// Value it should have had.
    pub original: String,
    /// Why the write failed.
    pub source: std::io::Error,
}

/// Errors when changing a value.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// The file does not exist or cannot be read, so there is nothing to restore to.
    #[error("cannot read {path} before changing it: {source}")]
    Read {
        /// File we wanted to change.
        path: PathBuf,
        /// Underlying error.
        source: std::io::Error,
    },
    /// The crash journal could not be written, so nothing was changed.
    #[error(
        "cannot journal the original before changing it ({}): {source}",
        journal::JOURNAL
    )]
    Journal {
        /// Why.
        source: std::io::Error,
    },
    /// The kernel refused the value (EINVAL for an unknown governor, EACCES without root).
    #[error("cannot write {value:?} to {path}: {source}")]
    Write {
        /// File we wanted to change.
        path: PathBuf,
        /// Value refused.
        value: String,
        /// Underlying error.
        source: std::io::Error,
    },
    /// Not a setting the guard changes ([`known::TUNABLES`]).
    #[error("will not write {path}: {why}")]
    Refused {
        /// The path asked for.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

/// Why a guard cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    /// Another process tunes this machine.
    #[error(transparent)]
    Busy(#[from] lock::Busy),
    /// A signal is stopping this process: nothing is changed any more.
    #[error("stopping: nothing is changed any more")]
    Stopping,
}

#[derive(Debug)]
struct Inner {
    root: SysRoot,
    changes: Vec<Change>,
    /// This guard's key in the crash journal.
    id: u64,
}

impl Inner {
    /// Put every original back, newest change first. Writes that fail are retried once
    /// after the others: restoring `scaling_max_freq` below the current `scaling_min_freq`
    /// fails with EINVAL until the minimum is restored as well.
    fn restore(&mut self) -> Vec<RestoreError> {
        let mut pending: Vec<Change> = std::mem::take(&mut self.changes);
        pending.reverse();
        let mut errors = Vec::new();
        for pass in 0..2 {
            let mut failed = Vec::new();
            for c in pending {
                if let Err(e) = self.root.write(&c.path, &c.original_bytes) {
                    if pass == 0 {
                        failed.push(c);
                    } else {
                        errors.push(RestoreError {
                            path: c.path,
                            original: c.original,
                            source: e,
                        });
                    }
                }
            }
            pending = failed;
            if pending.is_empty() {
                break;
            }
        }
        // A setting that could not be restored stays in the journal for the next run
        // (and `restore`) to try again.
        if errors.is_empty() {
            journal::forget(&self.root, self.id);
        }
        errors
    }
}

/// Is a signal stopping the process? Then no guard is made and nothing is changed: the
/// signal's cleanups restored every setting, and a change made now would outlive us.
fn stopping() -> bool {
    shutdown::signal().is_some()
}

/// A set of system changes that are undone together.
#[derive(Debug)]
pub struct Tuning {
    inner: Arc<Mutex<Inner>>,
    _cleanup: CleanupHandle,
    /// This process's share of the board's lock (released after the restore).
    _lock: Option<lock::BoardLock>,
}

impl Tuning {
    /// Start recording changes on `root`: take the board (refused while another process
    /// tunes it), then put back what a killed earlier run left changed, saying so.
    pub fn new(root: &SysRoot) -> Result<Self, ClaimError> {
        let (t, lines) = Self::claim(root)?;
        for line in lines {
            crate::output::warn(line);
        }
        Ok(t)
    }

    /// [`Tuning::new`] with the recovery's lines returned instead of printed.
    pub fn claim(root: &SysRoot) -> Result<(Self, Vec<String>), ClaimError> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        if stopping() {
            return Err(ClaimError::Stopping);
        }
        let board = lock::claim(root)?;
        // A killed earlier run may have left settings changed: put them back first, or
        // this guard would record them as the originals.
        let lines = if root.is_read_only() {
            Vec::new()
        } else {
            journal::recover(root, false).lines
        };
        let inner = Arc::new(Mutex::new(Inner {
            root: root.clone(),
            changes: Vec::new(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }));
        let for_signal = Arc::clone(&inner);
        let cleanup = shutdown::register(move || {
            let errs = lock(&for_signal).restore();
            for e in errs {
                eprintln!("Warning: {e}");
            }
        });
        Ok((
            Self {
                inner,
                _cleanup: cleanup,
                _lock: board,
            },
            lines,
        ))
    }

    /// Write `value` to `path`, recording the original the first time this path is touched.
    /// Writing the value a file already has is still recorded (and harmless to restore).
    pub fn set(&self, path: impl AsRef<Path>, value: &str) -> Result<(), TuneError> {
        let path = path.as_ref();
        let mut inner = lock(&self.inner);
        let seen = inner.changes.iter().position(|c| c.path == path);
        let read_err = |source| TuneError::Read {
            path: path.to_path_buf(),
            source,
        };
        let write_err = |source| TuneError::Write {
            path: path.to_path_buf(),
            value: value.to_string(),
            source,
        };
        may_write(&inner, path, value)?;
        let original_bytes = match seen {
            Some(i) => inner.changes[i].original_bytes.clone(),
            None => inner
                .root
                .read_bytes_max(path, journal::MAX_ORIGINAL)
                .map_err(read_err)?,
        };
        let Ok(original_text) = String::from_utf8(original_bytes.clone()) else {
            return Err(read_err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "not a text attribute",
            )));
        };
        // Journal before writing: a process killed between the two still gets restored
        // (every value written stays journalled, so the one in place is recognised).
        journal::record(&inner.root, inner.id, path, &original_text, value)
            .map_err(|source| TuneError::Journal { source })?;
        if seen.is_none() {
            // Record before writing: if the write half-succeeds we still restore.
            inner.changes.push(Change {
                path: path.to_path_buf(),
                original: original_text.trim().to_string(),
                written: value.to_string(),
                original_bytes,
            });
        }
        let res = inner.root.write(path, value.as_bytes()).map_err(write_err);
        if let Some(i) = seen {
            inner.changes[i].written = value.to_string();
        }
        res
    }

    /// Write `value` to `path` without recording an original to put back: for attributes
    /// whose value lasts only as long as a recorded setting does. `scaling_setspeed` holds
    /// a clock only while the `userspace` governor is selected; once the governor is
    /// restored the kernel shows `<unsupported>` there and refuses writes, so restoring it
    /// would fail and there is nothing to restore. Refused on a read-only tree like [`set`].
    ///
    /// [`set`]: Tuning::set
    pub fn set_volatile(&self, path: impl AsRef<Path>, value: &str) -> Result<(), TuneError> {
        let path = path.as_ref();
        let inner = lock(&self.inner);
        may_write(&inner, path, value)?;
        inner
            .root
            .write(path, value.as_bytes())
            .map_err(|source| TuneError::Write {
                path: path.to_path_buf(),
                value: value.to_string(),
                source,
            })
    }

    /// The value a path had before this guard first changed it.
    pub fn original(&self, path: impl AsRef<Path>) -> Option<String> {
        let path = path.as_ref();
        lock(&self.inner)
            .changes
            .iter()
            .find(|c| c.path == path)
            .map(|c| c.original.clone())
    }

    /// Every change made so far, oldest first.
    pub fn changes(&self) -> Vec<Change> {
        lock(&self.inner).changes.clone()
    }

    /// Undo all changes now and report those that could not be undone.
    pub fn restore(&self) -> Vec<RestoreError> {
        lock(&self.inner).restore()
    }
}

#[cfg(test)]
impl Tuning {
    /// What SIGKILL does: the changes are forgotten, nothing is restored, the journal stays.
    fn restore_without_journal_for_test(&self) -> Vec<Change> {
        let mut inner = lock(&self.inner);
        journal::drop_live_for_test(inner.id);
        std::mem::take(&mut inner.changes)
    }
}

impl Drop for Tuning {
    fn drop(&mut self) {
        for e in self.restore() {
            eprintln!("Warning: {e}");
        }
    }
}

/// What every write checks first, under the guard's lock: a read-only `--sysroot` tree,
/// a signal stopping us (the signal's restore takes the same lock, so a change either
/// happens before that restore, and is undone by it, or not at all), and a path the guard
/// does not know.
fn may_write(inner: &Inner, path: &Path, value: &str) -> Result<(), TuneError> {
    let refuse = |kind, why: &str| TuneError::Write {
        path: path.to_path_buf(),
        value: value.to_string(),
        source: std::io::Error::new(kind, why),
    };
    if inner.root.is_read_only() {
        return Err(refuse(
            std::io::ErrorKind::PermissionDenied,
            "--sysroot trees are only read (pass --sysroot-writable to tune a copy)",
        ));
    }
    if stopping() {
        return Err(refuse(
            std::io::ErrorKind::Interrupted,
            "a signal is stopping sbc-bench; nothing is changed any more",
        ));
    }
    known::check(&inner.root, path).map_err(|why| TuneError::Refused {
        path: path.to_path_buf(),
        why,
    })
}

fn lock(m: &Mutex<Inner>) -> std::sync::MutexGuard<'_, Inner> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn restore_writes_back_the_exact_bytes_read() {
        let (d, r) = tree();
        let file = d.path().join(GOV.trim_start_matches('/'));
        fs::write(&file, "schedutil\n").unwrap();
        let t = Tuning::new(&r).unwrap();
        t.set(GOV, "performance").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"performance");
        assert!(t.restore().is_empty());
        assert_eq!(fs::read(&file).unwrap(), b"schedutil\n");
    }

    #[test]
    fn a_sysroot_binary_behind_an_attribute_is_not_tuned() {
        // The attack: a fixture's attribute is a symlink to a 9 MiB binary outside the
        // tree. It resolves inside the root (missing there), and a large file inside the
        // tree is no sysfs attribute: refused, never rewritten as lossy text.
        let (d, r) = tree();
        let big = d.path().join("big.bin");
        let bytes: Vec<u8> = (0..9 * 1024 * 1024).map(|i| (i % 251) as u8).collect();
        fs::write(&big, &bytes).unwrap();
        let file = d.path().join(GOV.trim_start_matches('/'));
        fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&big, &file).unwrap();
        let t = Tuning::new(&r).unwrap();
        assert!(matches!(
            t.set(GOV, "performance"),
            Err(TuneError::Read { .. })
        ));
        std::os::unix::fs::symlink("/big.bin", d.path().join("inroot")).unwrap();
        assert!(t.set("/inroot", "performance").is_err());
        drop(t);
        assert_eq!(fs::read(&big).unwrap(), bytes);
    }

    #[test]
    fn a_read_only_sysroot_is_never_written() {
        let (d, r) = tree();
        let r = r.read_only();
        let file = d.path().join(GOV.trim_start_matches('/'));
        let t = Tuning::new(&r).unwrap();
        assert!(matches!(
            t.set(GOV, "performance"),
            Err(TuneError::Write { .. })
        ));
        drop(t);
        assert_eq!(fs::read(&file).unwrap(), b"schedutil\n");
        assert!(
            !d.path().join("run").exists(),
            "no journal in a read-only tree"
        );
    }

    // The efficiency graph holds OPPs through its own guard inside the run's, which had set
    // `performance`: the inner guard's journal recovery undid the outer guard's live
    // change (schedutil back mid-run) and deleted the journal that still had to cover it.
    #[test]
    fn a_nested_guard_does_not_recover_the_outer_guards_live_changes() {
        let (d, r) = tree();
        let file = d.path().join(GOV.trim_start_matches('/'));
        let journal = d.path().join(journal::JOURNAL.trim_start_matches('/'));
        let outer = Tuning::new(&r).unwrap();
        outer.set(GOV, "performance").unwrap();
        let inner = Tuning::new(&r).unwrap();
        assert_eq!(
            fs::read(&file).unwrap(),
            b"performance",
            "outer change kept"
        );
        assert!(journal.exists(), "the outer change is still journalled");
        inner.set(GOV, "userspace").unwrap();
        assert_eq!(inner.original(GOV).as_deref(), Some("performance"));
        assert!(inner.restore().is_empty());
        assert_eq!(fs::read(&file).unwrap(), b"performance");
        assert!(journal.exists(), "the outer guard's entry stays");
        assert!(outer.restore().is_empty());
        assert_eq!(fs::read(&file).unwrap(), b"schedutil\n");
        assert!(!journal.exists());
    }

    // A power cut right after tuning left an empty journal: the temporary file was
    // renamed unsynced. The journal is now written by `files::replace` (file and
    // directory synced); what a test can see: no temporary file stays beside it, and a
    // symlink planted at the temporary name is not written through.
    #[test]
    fn a_power_cut_after_tuning_finds_the_journal_whole() {
        let (d, r) = tree();
        let journal = d.path().join(journal::JOURNAL.trim_start_matches('/'));
        let dir = journal.parent().unwrap().to_path_buf();
        fs::create_dir_all(&dir).unwrap();
        let victim = d.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, crate::files::temp_path(&journal)).unwrap();
        let t = Tuning::new(&r).unwrap();
        t.set(GOV, "performance").unwrap();
        let j = journal::parse(&fs::read_to_string(&journal).unwrap()).unwrap();
        assert_eq!(j.runs.len(), 1);
        assert_eq!(j.runs[0].changes.len(), 1);
        assert_eq!(fs::read(&victim).unwrap(), b"keep");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        let mut names: Vec<String> = names
            .into_iter()
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["tuning.json", "tuning.lock"]);
        assert!(t.restore().is_empty());
    }

    #[test]
    fn a_killed_run_is_restored_from_the_journal_by_the_next_guard() {
        let (d, r) = tree();
        let file = d.path().join(GOV.trim_start_matches('/'));
        let journal = d.path().join(journal::JOURNAL.trim_start_matches('/'));
        let t = Tuning::new(&r).unwrap();
        t.set(GOV, "performance").unwrap();
        assert!(journal.exists(), "journalled before the change");
        let text = fs::read_to_string(&journal).unwrap();
        assert!(text.contains("schedutil\\n"), "{text}");
        // SIGKILL: no Drop, no cleanup. Make the journal look like another, dead process's.
        let _ = t.restore_without_journal_for_test();
        fs::write(&file, "performance").unwrap();
        as_dead_process(&journal);
        let next = Tuning::new(&r).unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"schedutil\n");
        assert!(!journal.exists());
        assert_eq!(next.original(GOV), None);
    }

    /// The journal's sections rewritten as a killed process's (an id no process has).
    fn as_dead_process(journal: &Path) {
        let mut j = journal::parse(&fs::read_to_string(journal).unwrap()).unwrap();
        for s in &mut j.runs {
            s.owner = owner::Owner {
                pid: u32::MAX - 1,
                start_time: Some(1),
                exe: Some("/usr/bin/sbc-bench".into()),
            };
        }
        fs::write(journal, serde_json::to_string(&j).unwrap()).unwrap();
    }

    fn write_journal(d: &Path, j: &serde_json::Value) -> PathBuf {
        let journal = d.join(journal::JOURNAL.trim_start_matches('/'));
        fs::create_dir_all(journal.parent().unwrap()).unwrap();
        fs::write(&journal, j.to_string()).unwrap();
        journal
    }

    #[test]
    fn a_journalled_value_someone_changed_since_is_left_alone() {
        let (d, r) = tree();
        let file = d.path().join(GOV.trim_start_matches('/'));
        write_journal(
            d.path(),
            &serde_json::json!({"version": 1, "pid": u32::MAX - 1, "changes": [
                {"path": GOV, "original": "ondemand\n", "written": "performance"}]}),
        );
        let lines = journal::recover(&r, false).lines;
        assert_eq!(fs::read(&file).unwrap(), b"schedutil\n");
        assert!(lines[0].contains("left as it is"), "{lines:?}");
    }

    // Issue 27, item 1: `graph` killed in its OPP walk between the journal update and
    // the sysfs write left `scaling_max_freq` at an inner OPP: recovery saw a value the
    // run had written earlier (not the journalled last one), said "left as it is" and
    // deleted the journal (5 of 31 kills).
    #[test]
    fn a_run_killed_between_journalling_an_opp_and_writing_it_is_restored() {
        let (d, r) = tree();
        let file = d.path().join(MAX.trim_start_matches('/'));
        let journal = d.path().join(journal::JOURNAL.trim_start_matches('/'));
        let t = Tuning::new(&r).unwrap();
        t.set(MAX, "1200000").unwrap();
        t.set(MAX, "1000000").unwrap();
        // The next OPP journalled, then SIGKILL before its write.
        let id = lock(&t.inner).id;
        journal::record(&r, id, Path::new(MAX), "1800000\n", "600000").unwrap();
        let _ = t.restore_without_journal_for_test();
        assert_eq!(fs::read(&file).unwrap(), b"1000000");
        as_dead_process(&journal);
        let rec = journal::recover(&r, false);
        assert_eq!(fs::read(&file).unwrap(), b"1800000\n", "{:?}", rec.lines);
        assert!(rec.lines[0].starts_with("restored "), "{:?}", rec.lines);
        assert_eq!(rec.left, 0);
        assert!(!journal.exists());
    }

    // Issue 27, item 1: an entry that cannot be resolved now (its file unreadable) kept
    // the journal from nothing: it was deleted with the entry in it.
    #[test]
    fn a_journal_whose_entries_are_not_all_resolved_is_kept() {
        let (d, r) = tree();
        let gov1 = "/sys/devices/system/cpu/cpufreq/policy1/scaling_governor";
        let journal = write_journal(
            d.path(),
            &serde_json::json!({"version": 2, "runs": [{"pid": u32::MAX - 1, "start_time": 1,
                "changes": [
                    {"path": GOV, "original": "ondemand\n", "written": "schedutil"},
                    {"path": gov1, "original": "ondemand\n", "written": "performance"}]}]}),
        );
        let rec = journal::recover(&r, false);
        assert_eq!(rec.left, 1, "{:?}", rec.lines);
        assert_eq!(fs::read(d.path().join(&GOV[1..])).unwrap(), b"ondemand\n");
        let j = journal::parse(&fs::read_to_string(&journal).unwrap()).unwrap();
        assert_eq!(j.runs.len(), 1);
        assert_eq!(j.runs[0].changes.len(), 1);
        assert_eq!(j.runs[0].changes[0].path, Path::new(gov1));
        assert_eq!(
            j.runs[0].owner.pid,
            u32::MAX - 1,
            "the dead run's section, kept"
        );
    }

    // Issue 27, item 2: a second run rewrote `tuning.json` with only its own entries;
    // killed together, the first run's governors stayed at `performance` with no record.
    // Another run's section (here a live process that is not us) survives our writes.
    #[test]
    fn another_runs_entries_survive_this_runs_journal_writes() {
        let (d, r) = tree();
        let mut sleeper = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = sleeper.id();
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let other = serde_json::json!({"pid": pid,
            "start_time": owner::start_time_of(&stat).unwrap(),
            "exe": fs::read_link(format!("/proc/{pid}/exe")).unwrap(),
            "changes": [{"path": MAX, "original": "1800000\n", "written": "1200000"}]});
        fs::write(d.path().join(&MAX[1..]), "1200000").unwrap();
        let journal = write_journal(
            d.path(),
            &serde_json::json!({"version": 2, "runs": [other]}),
        );
        let t = Tuning::new(&r).unwrap();
        assert_eq!(
            fs::read(d.path().join(&MAX[1..])).unwrap(),
            b"1200000",
            "a live run's"
        );
        t.set(GOV, "performance").unwrap();
        let j = journal::parse(&fs::read_to_string(&journal).unwrap()).unwrap();
        assert_eq!(j.runs.len(), 2, "{j:?}");
        // Both killed: the next recovery restores both.
        let _ = t.restore_without_journal_for_test();
        sleeper.kill().unwrap();
        sleeper.wait().unwrap();
        as_dead_process(&journal);
        let rec = journal::recover(&r, false);
        assert_eq!(rec.left, 0, "{:?}", rec.lines);
        assert_eq!(fs::read(d.path().join(&MAX[1..])).unwrap(), b"1800000\n");
        assert_eq!(fs::read(d.path().join(&GOV[1..])).unwrap(), b"schedutil\n");
        assert!(!journal.exists());
    }

    // Issue 27, item 3: liveness was `kill(pid, 0)` only: once the crashed run's id
    // belonged to any process, every run and `restore` refused, with no override.
    #[test]
    fn a_reused_pid_does_not_block_recovery() {
        let (d, r) = tree();
        let mut sleeper = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        fs::write(d.path().join(&GOV[1..]), "performance").unwrap();
        // Format 1 (an id only) and format 2 with another start time.
        for j in [
            serde_json::json!({"version": 1, "pid": sleeper.id(), "changes": [
                {"path": GOV, "original": "schedutil\n", "written": "performance"}]}),
            serde_json::json!({"version": 2, "runs": [{"pid": sleeper.id(), "start_time": 1,
                "exe": "/usr/bin/sbc-bench", "changes": [
                {"path": GOV, "original": "schedutil\n", "written": "performance"}]}]}),
        ] {
            fs::write(d.path().join(&GOV[1..]), "performance").unwrap();
            let journal = write_journal(d.path(), &j);
            let rec = journal::recover(&r, false);
            assert_eq!(rec.left, 0, "{:?}", rec.lines);
            assert_eq!(fs::read(d.path().join(&GOV[1..])).unwrap(), b"schedutil\n");
            assert!(!journal.exists());
        }
        sleeper.kill().unwrap();
        sleeper.wait().unwrap();
    }

    // Issue 27, item 7: `restore` wrote wherever a journal pointed:
    // `/sys/../etc/os-release` was accepted, a tree's `/etc/hostname` rewritten.
    #[test]
    fn restore_writes_only_what_a_journal_may_name() {
        let (d, r) = tree();
        fs::create_dir_all(d.path().join("etc")).unwrap();
        fs::write(d.path().join("etc/hostname"), "board\n").unwrap();
        fs::write(d.path().join("etc/os-release"), "ID=debian\n").unwrap();
        write_journal(
            d.path(),
            &serde_json::json!({"version": 2, "runs": [{"pid": u32::MAX - 1, "changes": [
                {"path": "/sys/../etc/os-release", "original": "pwned\n", "written": "ID=debian"},
                {"path": "/etc/hostname", "original": "pwned\n", "written": "board"}]}]}),
        );
        let rec = journal::recover(&r, false);
        assert_eq!(rec.refused, 2, "{:?}", rec.lines);
        assert_eq!(fs::read(d.path().join("etc/hostname")).unwrap(), b"board\n");
        assert_eq!(
            fs::read(d.path().join("etc/os-release")).unwrap(),
            b"ID=debian\n"
        );
        // The guard itself writes nothing else either.
        let t = Tuning::new(&r).unwrap();
        assert!(matches!(
            t.set("/etc/hostname", "x"),
            Err(TuneError::Refused { .. })
        ));
        assert!(matches!(
            t.set("/sys/../etc/hostname", "x"),
            Err(TuneError::Refused { .. })
        ));
        assert_eq!(fs::read(d.path().join("etc/hostname")).unwrap(), b"board\n");
    }

    // Issue 27, item 5: a FIFO planted as the journal hung every run in `open(2)`.
    #[test]
    fn a_fifo_journal_is_refused_not_waited_on() {
        let (d, r) = tree();
        let journal = d.path().join(journal::JOURNAL.trim_start_matches('/'));
        fs::create_dir_all(journal.parent().unwrap()).unwrap();
        let c = std::ffi::CString::new(journal.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let t0 = std::time::Instant::now();
        let rec = journal::recover(&r, false);
        assert!(
            rec.lines[0].contains("not a regular file"),
            "{:?}",
            rec.lines
        );
        let t = Tuning::new(&r).unwrap();
        assert!(matches!(
            t.set(GOV, "performance"),
            Err(TuneError::Journal { .. })
        ));
        assert!(t0.elapsed() < std::time::Duration::from_secs(5));
        assert_eq!(fs::read(d.path().join(&GOV[1..])).unwrap(), b"schedutil\n");
    }

    fn tree() -> (tempfile::TempDir, SysRoot) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sys/devices/system/cpu/cpufreq/policy0");
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join("scaling_governor"), "schedutil\n").unwrap();
        fs::write(p.join("scaling_max_freq"), "1800000\n").unwrap();
        fs::write(p.join("scaling_min_freq"), "408000\n").unwrap();
        let r = SysRoot::new(d.path());
        (d, r)
    }

    const GOV: &str = "/sys/devices/system/cpu/cpufreq/policy0/scaling_governor";
    const MAX: &str = "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq";

    #[test]
    fn restores_on_drop() {
        let (_d, r) = tree();
        {
            let t = Tuning::new(&r).unwrap();
            t.set(GOV, "performance").unwrap();
            t.set(MAX, "1200000").unwrap();
            t.set(MAX, "600000").unwrap();
            assert_eq!(r.value(GOV).as_deref(), Some("performance"));
            assert_eq!(t.original(MAX).as_deref(), Some("1800000"));
            assert_eq!(t.changes().len(), 2);
        }
        assert_eq!(r.value(GOV).as_deref(), Some("schedutil"));
        assert_eq!(r.value(MAX).as_deref(), Some("1800000"));
    }

    #[test]
    fn restores_when_the_owner_panics() {
        let (_d, r) = tree();
        let r2 = r.clone();
        let res = std::panic::catch_unwind(move || {
            let t = Tuning::new(&r2).unwrap();
            t.set(GOV, "performance").unwrap();
            panic!("benchmark failed");
        });
        assert!(res.is_err());
        assert_eq!(r.value(GOV).as_deref(), Some("schedutil"));
    }

    #[test]
    fn missing_file_is_an_error_and_nothing_is_recorded() {
        let (_d, r) = tree();
        let t = Tuning::new(&r).unwrap();
        let e = t
            .set(
                "/sys/devices/system/cpu/cpufreq/policy9/scaling_governor",
                "performance",
            )
            .unwrap_err();
        assert!(matches!(e, TuneError::Read { .. }));
        assert!(t.changes().is_empty());
    }
}
