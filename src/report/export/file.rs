//! The files a run writes (`--json`, `--log`). A regular file (or a new one) is written to
//! a temporary file in the same directory and renamed over the target, so a crash or
//! Ctrl-C at any moment leaves either the previous complete document or the new one —
//! never half of one. Anything else is never replaced: a symlink is followed to the regular
//! file it names (the link stays), a character device (`/dev/null`, a terminal) or a pipe
//! (`/dev/stdout`, `/proc/self/fd/1`, a FIFO with a reader) is written in place once, at
//! the end, `-` is standard output, and a FIFO without a reader, a socket, a block device
//! or a directory is refused with a message before the run starts.

use std::io::Write;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// How a target is written.
#[derive(Debug, Clone)]
enum Kind {
    /// A regular file, new or existing (symlinks resolved): temp file + rename.
    Replace(PathBuf),
    /// A character device or a pipe: opened when the CLI is read and kept open (closing a
    /// pipe would end its reader's input), written in place once, at the end.
    InPlace(Option<std::sync::Arc<std::fs::File>>),
    /// `-`: standard output, once, at the end.
    Stdout,
}

/// An output file of a run.
#[derive(Debug, Clone)]
pub struct AtomicFile {
    /// As the user named it.
    path: PathBuf,
    kind: Kind,
}

/// The largest file a run appends to (the default log after years of runs is a few MiB):
/// one larger is refused rather than read into memory.
const MAX_EARLIER: u64 = 256 << 20;

/// How many symlinks a target may go through (the kernel's limit).
const MAX_LINKS: usize = 40;

/// The file a chain of symlinks ends at, whether or not it exists yet.
fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let t = std::fs::read_link(&p)?;
                p = match p.parent() {
                    Some(d) if t.is_relative() => d.join(t),
                    _ => t,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(std::io::Error::from_raw_os_error(libc::ELOOP))
}

fn refused(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, why.to_string())
}

impl AtomicFile {
    /// Check that `path` can be written before a long run starts, so a typo fails in the
    /// first second, not after 30 minutes: the directory takes the temporary file, or
    /// (an existing file in a directory we may not write) the file itself opens for
    /// writing; a device or pipe opens for writing. Nothing is written to `path` itself:
    /// an existing file stays as it is until the run has something to put there (a run
    /// that never starts leaves it alone).
    pub fn create(path: impl Into<PathBuf>) -> anyhow::Result<Self> {
        let path = path.into();
        let kind = Self::kind(&path)?;
        let mut f = Self { path, kind };
        f.probe()?;
        if let Kind::InPlace(_) = f.kind {
            f.kind = Kind::InPlace(Some(std::sync::Arc::new(f.open_in_place()?)));
        }
        Ok(f)
    }

    fn kind(path: &Path) -> std::io::Result<Kind> {
        if crate::output::stdout::is_stdout(path) {
            return Ok(Kind::Stdout);
        }
        // `metadata` follows every link the way the kernel will, magic `/proc/self/fd/N`
        // links included.
        let ft = match std::fs::metadata(path) {
            Ok(m) => m.file_type(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Kind::Replace(follow_links(path)?));
            }
            Err(e) => return Err(e),
        };
        if ft.is_file() {
            Ok(Kind::Replace(std::fs::canonicalize(path)?))
        } else if ft.is_dir() {
            Err(refused("is a directory"))
        } else if ft.is_char_device() || ft.is_fifo() {
            Ok(Kind::InPlace(None))
        } else if ft.is_block_device() {
            Err(refused(
                "is a block device: a report is never written onto a disk",
            ))
        } else {
            Err(refused("is a socket or another special file"))
        }
    }

    fn target(&self) -> &Path {
        match &self.kind {
            Kind::Replace(p) => p,
            _ => &self.path,
        }
    }

    fn tmp(&self) -> PathBuf {
        crate::files::temp_path(self.target())
    }

    /// Open a device or pipe for writing without blocking: a FIFO nobody reads answers
    /// ENXIO at once instead of hanging the run.
    fn open_in_place(&self) -> std::io::Result<std::fs::File> {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
            .open(&self.path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ENXIO) => refused("is a FIFO that nobody reads"),
                _ => e,
            })?;
        // Writes may block from here on (a reader that is slow, not absent).
        let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
        // SAFETY: fcntl on a descriptor we own; only clears O_NONBLOCK.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
        Ok(f)
    }

    /// Can the file be written? For a regular file the same temporary file
    /// [`write`](Self::write) uses is created and removed.
    fn probe(&self) -> std::io::Result<()> {
        match &self.kind {
            Kind::Stdout => Ok(()),
            // Opened (and kept) by `create`.
            Kind::InPlace(_) => Ok(()),
            Kind::Replace(target) => {
                let tmp = self.tmp();
                let in_dir = std::fs::File::create(&tmp).and_then(|_| std::fs::remove_file(&tmp));
                match in_dir {
                    Err(_) if target.exists() => std::fs::OpenOptions::new()
                        .append(true)
                        .open(target)
                        .map(|_| ()),
                    r => r,
                }
            }
        }
    }

    /// The target path, as the user named it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Is this a file that can be rewritten after every step? Devices, pipes and stdout
    /// get the document once, at the end (a pipe would otherwise receive many).
    pub fn rewritable(&self) -> bool {
        matches!(self.kind, Kind::Replace(_))
    }

    /// What a regular file holds now (the earlier runs of an appended log); `None` for a
    /// file that does not exist yet, a device, a pipe or stdout.
    pub fn existing(&self) -> std::io::Result<Option<Vec<u8>>> {
        match &self.kind {
            Kind::Replace(t) => match crate::files::read::read_limited(t, MAX_EARLIER) {
                Ok(b) => Ok(Some(b)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            },
            _ => Ok(None),
        }
    }

    /// Replace the file's content with `bytes`. Where the directory takes no temporary
    /// file (an existing log in a directory we may not write), the file is rewritten in
    /// place.
    pub fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        self.write_keeping(0, bytes)
    }

    /// [`write`](Self::write) for a file whose first `kept` bytes are already on disk
    /// and must survive a crash at any moment (the earlier runs of an appended log):
    /// `bytes` begins with those same bytes. The temporary file gets all of `bytes` and
    /// replaces the target at once; the in-place fallback truncates to `kept` and writes
    /// only what follows, so the first `kept` bytes are never rewritten. Devices, pipes
    /// and stdout get what follows the first `kept` bytes.
    pub fn write_keeping(&self, kept: usize, bytes: &[u8]) -> std::io::Result<()> {
        let kept = kept.min(bytes.len());
        let target = match &self.kind {
            Kind::Stdout => return crate::output::stdout::write_document(&bytes[kept..]),
            Kind::InPlace(Some(f)) => return (&**f).write_all(&bytes[kept..]),
            Kind::InPlace(None) => return self.open_in_place()?.write_all(&bytes[kept..]),
            Kind::Replace(t) => t,
        };
        match crate::files::replace(target, bytes) {
            Err(e) if e.step == crate::files::ReplaceStep::CreateTemp && target.exists() => {
                rewrite_after(target, kept, &bytes[kept..])
            }
            r => r.map_err(|e| e.source),
        }
    }
}

/// Rewrite `target` in place from byte `kept` on: what comes before stays untouched.
fn rewrite_after(target: &Path, kept: usize, rest: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(target)?;
    let at = kept as u64;
    f.set_len(at)?;
    f.write_all_at(rest, at)
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_atomically_and_leaves_no_temp_files() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("run.json");
        let f = AtomicFile::create(&p).unwrap();
        f.write(b"{\"a\": 1}").unwrap();
        f.write(b"{\"a\": 2}").unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["a"], 2);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn rewriting_in_place_never_touches_the_kept_bytes() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sbc-bench.log");
        std::fs::write(&p, "earlier run\n\n\n\n\nthis run, step 1 and more\n").unwrap();
        // Where the directory takes no temp file, the log is rewritten after the earlier
        // runs only: shorter this time, the old tail is cut off.
        rewrite_after(&p, 16, b"this run, step 2\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "earlier run\n\n\n\n\nthis run, step 2\n"
        );
        // The atomic path writes the whole document.
        let f = AtomicFile::create(&p).unwrap();
        f.write_keeping(16, b"earlier run\n\n\n\n\nthis run, done\n")
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "earlier run\n\n\n\n\nthis run, done\n"
        );
        assert_eq!(f.existing().unwrap().map(|b| b.len()), Some(31));
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn unwritable_target_fails_early() {
        assert!(AtomicFile::create("/nonexistent-dir/x.json").is_err());
        let d = tempfile::tempdir().unwrap();
        assert!(AtomicFile::create(d.path()).is_err(), "a directory");
    }

    #[test]
    fn create_leaves_an_existing_report_alone() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("run.json");
        std::fs::write(&p, "{\"previous\": true}\n").unwrap();
        let _f = AtomicFile::create(&p).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "{\"previous\": true}\n"
        );
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "no temp file left"
        );
        // A new target is not created either.
        let q = d.path().join("new.json");
        let _g = AtomicFile::create(&q).unwrap();
        assert!(!q.exists());
    }

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[test]
    fn json_to_dev_null_stays_a_device() {
        // The attack replaced a machine's /dev/full with a regular file.
        let f = AtomicFile::create("/dev/null").unwrap();
        assert!(!f.rewritable());
        f.write(b"{}").unwrap();
        let m = std::fs::metadata("/dev/null").unwrap();
        assert!(m.file_type().is_char_device());
        let full = AtomicFile::create("/dev/full").unwrap();
        assert!(full.write(b"{}").is_err(), "ENOSPC is reported, not hidden");
        assert!(
            std::fs::metadata("/dev/full")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }

    #[test]
    fn a_symlink_target_is_replaced_and_the_link_kept() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("real")).unwrap();
        let real = d.path().join("real/run.json");
        std::fs::write(&real, "old").unwrap();
        let link = d.path().join("link.json");
        std::os::unix::fs::symlink("real/run.json", &link).unwrap();
        let f = AtomicFile::create(&link).unwrap();
        assert!(f.rewritable());
        f.write(b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(std::fs::read_dir(d.path().join("real")).unwrap().count(), 1);
        // A dangling link: the file it names is created.
        let dangling = d.path().join("dangling.json");
        std::os::unix::fs::symlink("real/new.json", &dangling).unwrap();
        AtomicFile::create(&dangling).unwrap().write(b"x").unwrap();
        assert_eq!(
            std::fs::read_to_string(d.path().join("real/new.json")).unwrap(),
            "x"
        );
        assert!(
            std::fs::symlink_metadata(&dangling)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn a_fifo_without_reader_is_refused_at_once_not_hung_on() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("log.fifo");
        mkfifo(&fifo);
        let t0 = std::time::Instant::now();
        let e = AtomicFile::create(&fifo).unwrap_err();
        assert!(format!("{e:#}").contains("nobody reads"), "{e:#}");
        assert!(t0.elapsed() < std::time::Duration::from_secs(2));
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[test]
    fn a_fifo_with_a_reader_gets_the_document_in_place() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("json.fifo");
        mkfifo(&fifo);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(&fifo).unwrap())
        };
        // Wait until the reader has the FIFO open.
        let f = loop {
            match AtomicFile::create(&fifo) {
                Ok(f) => break f,
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        };
        assert!(!f.rewritable());
        let doc = vec![b'x'; 200_000];
        f.write(&doc).unwrap();
        // The reader sees the end when the run lets go of the target.
        drop(f);
        assert_eq!(reader.join().unwrap().len(), doc.len());
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }

    #[test]
    fn dash_is_stdout_and_block_devices_are_refused() {
        let f = AtomicFile::create("-").unwrap();
        assert!(!f.rewritable());
        assert_eq!(f.path(), Path::new("-"));
        let disk = [
            "/dev/loop0",
            "/dev/vda",
            "/dev/sda",
            "/dev/mmcblk0",
            "/dev/nvme0n1",
        ]
        .into_iter()
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device()));
        if let Some(disk) = disk {
            let e = AtomicFile::create(disk).unwrap_err();
            assert!(format!("{e:#}").contains("block device"), "{e:#}");
        }
    }
}
