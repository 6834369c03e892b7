//! Test files that earlier runs (killed with SIGKILL, a power cut) left behind.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The name prefix of our test files; the full name is
/// `.sbc-bench-iotest.<pid>.<9 digits of nanoseconds><attempt 0-15>`.
pub const TEMP_PREFIX: &str = ".sbc-bench-iotest.";

/// The PID in a name that is exactly one of our test files' names, `None` for anything
/// else.
pub fn test_file_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let (pid, tail) = rest.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || pid.len() > 10 || !digits(tail) || !(10..=11).contains(&tail.len()) {
        return None;
    }
    pid.parse().ok()
}

/// A test file an earlier run left behind (killed with SIGKILL, a power cut).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleFile {
    /// Where it is.
    pub path: PathBuf,
    /// The run that created it.
    pub pid: u32,
    /// Its size.
    pub size_bytes: u64,
    /// Removed now.
    pub removed: bool,
    /// Why it was left alone.
    pub kept_because: Option<String>,
}

impl StaleFile {
    /// One line for the user.
    pub fn words(&self) -> String {
        let what = format!(
            "a test file left by an earlier run (pid {}, {} MiB): {}",
            self.pid,
            self.size_bytes >> 20,
            self.path.display()
        );
        match &self.kept_because {
            None if self.removed => format!("removed {what}"),
            Some(why) => format!("found {what}; not removed: {why}"),
            None => format!("found {what}"),
        }
    }
}

/// Find our test files in `dir` that an earlier run could not remove, and remove each
/// one only when it is certainly ours and abandoned: exactly our name pattern, a regular
/// file with one link owned by us, its process gone, and no process holding it open
/// (a write lease is granted only when no one else has the file open).
pub fn clean_stale(dir: &Path) -> Vec<StaleFile> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let me = std::process::id();
    let mut out = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(test_file_pid) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let path = e.path();
        let Ok(md) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let mut f = StaleFile {
            path: path.clone(),
            pid,
            size_bytes: md.len(),
            removed: false,
            kept_because: None,
        };
        match abandoned(&path, &md, pid) {
            // Removed while our lease is held; closing `leased` afterwards releases it.
            Ok(leased) => {
                match std::fs::remove_file(&path) {
                    Ok(()) => f.removed = true,
                    Err(e) => f.kept_because = Some(format!("cannot remove it: {e}")),
                }
                drop(leased);
            }
            Err(why) => f.kept_because = Some(why),
        }
        out.push(f);
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The file, opened with a write lease (no one else has it open), when it may be
/// removed; the reason to keep it otherwise.
fn abandoned(path: &Path, md: &std::fs::Metadata, pid: u32) -> Result<File, String> {
    use std::os::unix::fs::MetadataExt;
    if !md.file_type().is_file() {
        return Err("not a regular file".into());
    }
    if md.nlink() != 1 {
        return Err("it has other hard links".into());
    }
    let euid = nix::unistd::geteuid().as_raw();
    if md.uid() != euid {
        return Err(format!("owned by uid {}, not by us", md.uid()));
    }
    let alive = i32::try_from(pid).is_ok_and(|p| {
        !matches!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(p), None),
            Err(nix::errno::Errno::ESRCH)
        )
    });
    if alive {
        return Err(format!(
            "process {pid} still exists (another benchmark running here?)"
        ));
    }
    let file = crate::files::read::open_read(
        path,
        crate::files::read::Accept::File,
        crate::files::read::Links::NoFollow,
    )
    .map_err(|e| format!("cannot open it: {e}"))?;
    if file
        .metadata()
        .map_or(true, |m| m.ino() != md.ino() || m.dev() != md.dev())
    {
        return Err("it changed while we looked at it".into());
    }
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is a valid descriptor owned by `file` for the duration of the calls;
    // F_SETLEASE takes an int argument and touches no memory.
    let rc = unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_WRLCK) };
    if rc != 0 {
        let e = io::Error::last_os_error();
        return Err(if e.raw_os_error() == Some(libc::EAGAIN) {
            "another process has it open".to_string()
        } else {
            format!("cannot tell whether another process has it open ({e})")
        });
    }
    // The lease lasts until `file` is closed.
    Ok(file)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::bench::storage::TempFile;

    #[test]
    fn test_file_names_and_stale_files() {
        assert_eq!(
            test_file_pid(".sbc-bench-iotest.23534.1234567890"),
            Some(23534)
        );
        assert_eq!(test_file_pid(".sbc-bench-iotest.1.12345678901"), Some(1));
        for bad in [
            ".sbc-bench-iotest.23534.123",
            ".sbc-bench-iotest.x.1234567890",
            ".sbc-bench-iotest.23534.1234567890.bak",
            "sbc-bench-iotest.23534.1234567890",
            ".sbc-bench-iotest..1234567890",
            ".sbc-bench-iotest.23534.123456789012",
        ] {
            assert_eq!(test_file_pid(bad), None, "{bad}");
        }
        // The name our own TempFile uses matches the pattern.
        let d = tempfile::tempdir().unwrap();
        let t = TempFile::create(d.path()).unwrap();
        let name = t.path().file_name().unwrap().to_str().unwrap().to_string();
        assert_eq!(test_file_pid(&name), Some(std::process::id()));
        // Our own live file is never touched.
        assert!(clean_stale(d.path()).is_empty());
        drop(t);

        // A dead process's file goes; one of a live process, one held open and one
        // with a name that merely looks similar stay.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let gone = d
            .path()
            .join(format!(".sbc-bench-iotest.{dead}.1234567890"));
        std::fs::write(&gone, vec![0u8; 8192]).unwrap();
        let live = d.path().join(".sbc-bench-iotest.1.1234567890");
        std::fs::write(&live, b"x").unwrap();
        let held = d
            .path()
            .join(format!(".sbc-bench-iotest.{dead}.9876543210"));
        std::fs::write(&held, b"x").unwrap();
        let _open = File::open(&held).unwrap();
        let similar = d.path().join(".sbc-bench-iotest.notes");
        std::fs::write(&similar, b"x").unwrap();
        let found = clean_stale(d.path());
        assert_eq!(found.len(), 3, "{found:?}");
        let by = |p: &Path| found.iter().find(|f| f.path == p).unwrap();
        assert!(by(&gone).removed);
        assert!(
            by(&gone)
                .words()
                .starts_with("removed a test file left by an earlier run")
        );
        assert!(!gone.exists());
        // PID 1 always exists (as root we could signal it; as a user we get EPERM).
        assert!(
            by(&live)
                .kept_because
                .as_deref()
                .unwrap()
                .contains("still exists")
        );
        assert!(live.exists());
        let h = by(&held);
        assert!(!h.removed && held.exists(), "{h:?}");
        assert!(h.kept_because.as_deref().unwrap().contains("open"), "{h:?}");
        assert!(similar.exists());
    }
}
