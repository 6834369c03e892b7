//! Replacing a file atomically, the one way every writer of a file that must survive a
//! crash does it (the run's `--json`/`--log` targets in `report::export::file`, the
//! Prometheus textfile, the tuning journal in `tune::journal`): the new contents go to
//! a temporary file in the same directory — created exclusively, so a symlink planted
//! at its name is never followed — which is synced, renamed over the target, and then
//! the directory is synced so that the rename itself is on disk. A power cut at any
//! moment leaves the old file or the new one, never an empty or half-written one (ext4
//! and f2fs may otherwise commit the rename before the data: the empty tuning journal
//! after a power cut right after tuning).
//!
//! The reading side is [`read`]: the one way a file we read is opened (non-blocking,
//! regular files only, bounded).

pub mod read;

use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Which step of a replacement failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaceStep {
    /// Creating the temporary file (the directory takes none: read-only, full, no
    /// permission, or a name already there).
    CreateTemp,
    /// Writing or syncing the temporary file.
    Write,
    /// Renaming the temporary file over the target.
    Rename,
    /// Syncing the directory after the rename (the new contents are in place, but a
    /// power cut could still bring the old ones back).
    SyncDir,
}

/// A replacement that failed, with the path it failed on. The temporary file is gone;
/// before [`ReplaceStep::SyncDir`] the target still holds what it held.
#[derive(Debug, thiserror::Error)]
#[error("cannot {} {}: {source}", self.step.verb(), self.path.display())]
pub struct ReplaceError {
    /// The step.
    pub step: ReplaceStep,
    /// The temporary file (create, write, rename) or the directory (sync).
    pub path: PathBuf,
    /// What the system said.
    #[source]
    pub source: io::Error,
}

impl ReplaceStep {
    fn verb(self) -> &'static str {
        match self {
            ReplaceStep::CreateTemp => "create the temporary file",
            ReplaceStep::Write => "write the temporary file",
            ReplaceStep::Rename => "rename into place the temporary file",
            ReplaceStep::SyncDir => "sync the directory",
        }
    }
}

impl From<ReplaceError> for io::Error {
    /// The system's error kind kept (callers test for `NotFound`, `PermissionDenied`), the
    /// message naming the path.
    fn from(e: ReplaceError) -> Self {
        io::Error::new(e.source.kind(), e.to_string())
    }
}

/// The temporary name beside `target`: hidden, with our process id, ending in `.tmp`
/// (collectors reading `*.prom` or `*.json` never pick it up).
pub fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    dir_of(target).join(format!(".{name}.{}.tmp", std::process::id()))
}

/// The directory `target` is in (`.` for a bare name).
fn dir_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Replace `target` with `bytes` atomically and durably (new files get mode 0644 less
/// the umask). A rename replaces a symlink at `target` rather than following it; callers
/// that want to write through a link resolve it first.
pub fn replace(target: &Path, bytes: &[u8]) -> Result<(), ReplaceError> {
    let tmp = temp_path(target);
    let fail = |step, path: &Path| {
        let path = path.to_path_buf();
        move |source| ReplaceError { step, path, source }
    };
    // A leftover of a process with the same id (one killed, its pid reused): remove it,
    // the link and not its target.
    if std::fs::symlink_metadata(&tmp).is_ok() {
        std::fs::remove_file(&tmp).map_err(fail(ReplaceStep::CreateTemp, &tmp))?;
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)
        .map_err(fail(ReplaceStep::CreateTemp, &tmp))?;
    let written = f
        .write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(fail(ReplaceStep::Write, &tmp))
        .and_then(|()| {
            drop(f);
            std::fs::rename(&tmp, target).map_err(fail(ReplaceStep::Rename, &tmp))
        });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(&dir_of(target))
}

/// fsync a directory, so that a rename in it is on disk.
fn sync_dir(dir: &Path) -> Result<(), ReplaceError> {
    read::open_read(dir, read::Accept::Directory, read::Links::Follow)
        .and_then(|d| d.sync_all())
        .map_err(|source| ReplaceError {
            step: ReplaceStep::SyncDir,
            path: dir.to_path_buf(),
            source,
        })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temp_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.json");
        replace(&p, b"one").unwrap();
        replace(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(names(d.path()), ["a.json"]);
    }

    /// A symlink planted at the temporary name (another user's trick in a shared
    /// directory) is neither followed nor written through: its target stays as it was.
    #[test]
    fn a_symlinked_temp_name_is_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "keep").unwrap();
        let p = d.path().join("a.prom");
        std::os::unix::fs::symlink(&victim, temp_path(&p)).unwrap();
        replace(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(names(d.path()), ["a.prom", "victim"]);
    }

    /// A rename that cannot happen (the target is a non-empty directory) leaves what was
    /// there and no temporary file, and the error names the path.
    #[test]
    fn a_failed_replace_keeps_the_old_file_and_no_temp_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("busy");
        std::fs::create_dir(&p).unwrap();
        std::fs::write(p.join("inside"), "old").unwrap();
        let e = replace(&p, b"new").unwrap_err();
        assert_eq!(e.step, ReplaceStep::Rename);
        assert!(
            e.to_string().contains(&temp_path(&p).display().to_string()),
            "{e}"
        );
        assert_eq!(std::fs::read(p.join("inside")).unwrap(), b"old");
        assert_eq!(names(d.path()), ["busy"]);
    }

    #[test]
    fn a_missing_directory_says_which_path() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("no/such/dir/x");
        let e = replace(&p, b"x").unwrap_err();
        assert_eq!(e.step, ReplaceStep::CreateTemp);
        let io: io::Error = e.into();
        assert_eq!(io.kind(), io::ErrorKind::NotFound);
        assert!(io.to_string().contains("no/such/dir"), "{io}");
    }

    /// The journal, the textfile and the export sink each had their own temp-and-rename
    /// (the journal's never synced): no code outside this module renames a file into
    /// place any more (tests may).
    #[test]
    fn the_journal_textfile_and_export_sink_share_one_replace() {
        fn scan(dir: &Path, hits: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    scan(&p, hits);
                } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("files.rs") {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                    if code.contains("fs::rename(") {
                        hits.push(p.display().to_string());
                    }
                }
            }
        }
        let mut hits = Vec::new();
        scan(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut hits,
        );
        assert!(hits.is_empty(), "rename outside files::replace: {hits:?}");
        for f in [
            "tune/journal.rs",
            "metrics/prometheus.rs",
            "report/export/file.rs",
        ] {
            let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(f);
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(
                text.contains("files::replace"),
                "{f} does not use files::replace"
            );
        }
    }
}
