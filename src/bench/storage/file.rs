//! The test file: created exclusively, opened with O_DIRECT where allowed, removed on
//! drop and on a signal; and the aligned buffer the passes move.
//!
//! The file is reopened by path before every pass (as iozone closes and opens it between
//! tests), and a path can be swapped under us: `O_NOFOLLOW` stops a symlink but not a hard
//! link to someone else's file renamed over ours. So the file is known by its device and
//! inode from the moment it is created ([`FileId`]): every reopen is checked against them
//! before a byte is written, and the file is only removed while it is still ours.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::ALIGN;

/// The file a run writes to, as the engine sees it. [`FileTarget`] is the real one;
/// tests wrap it to inject faults.
pub trait BenchFile {
    /// Write all of `buf` at `offset`.
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()>;
    /// Fill all of `buf` from `offset`.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// fsync.
    fn sync(&mut self) -> io::Result<()>;
    /// Cut the file to zero length (the next write pass allocates afresh).
    fn truncate(&mut self) -> io::Result<()>;
    /// Close and open again, as iozone does between tests.
    fn reopen(&mut self) -> io::Result<()>;
    /// Is O_DIRECT in effect?
    fn direct(&self) -> bool;
}

/// Which file: device and inode, as `stat` gives them. Two paths name the same file
/// exactly when these agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId {
    /// `st_dev`.
    pub dev: u64,
    /// `st_ino`.
    pub ino: u64,
}

impl FileId {
    fn of(md: &std::fs::Metadata) -> Self {
        Self {
            dev: md.dev(),
            ino: md.ino(),
        }
    }

    /// Is `path` (not following a symlink) still this file?
    pub fn is_at(self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|md| md.is_file() && FileId::of(&md) == self)
    }
}

/// The error an open gives when the path no longer names our file: carried inside an
/// `io::Error` so [`BenchFile::reopen`] keeps its signature; [`replaced`] finds it.
#[derive(Debug, thiserror::Error)]
#[error("the test file {} was replaced by another file", path.display())]
pub struct Replaced {
    /// Where our test file was.
    pub path: PathBuf,
}

impl Replaced {
    fn at(path: &Path) -> io::Error {
        io::Error::other(Replaced {
            path: path.to_path_buf(),
        })
    }
}

/// The [`Replaced`] inside this I/O error, if that is what it is.
pub fn replaced(e: &io::Error) -> Option<&Replaced> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<Replaced>())
}

/// The test file opened with O_DIRECT when the filesystem allows it.
#[derive(Debug)]
pub struct FileTarget {
    path: PathBuf,
    id: FileId,
    file: File,
    direct: bool,
}

impl FileTarget {
    /// Open our (already created) test file; falls back to buffered I/O when the
    /// filesystem refuses O_DIRECT. Refused with [`Replaced`] when the path no longer
    /// names the file `tmp` created.
    pub fn open(tmp: &TempFile) -> io::Result<Self> {
        let (path, id) = (tmp.path(), tmp.id());
        match open_ours(path, id, true) {
            Ok(file) => Ok(Self {
                path: path.to_path_buf(),
                id,
                file,
                direct: true,
            }),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(Self {
                path: path.to_path_buf(),
                id,
                file: open_ours(path, id, false)?,
                direct: false,
            }),
            Err(e) => Err(e),
        }
    }
}

/// Open `path` for reading and writing, only if it is still the file `id`: looked at
/// before the open (so a FIFO or device swapped in is never opened, which could block or
/// reach hardware) and checked again on the descriptor after it (closing the race between
/// the two). A descriptor of the wrong file is closed unused.
fn open_ours(path: &Path, id: FileId, direct: bool) -> io::Result<File> {
    if !id.is_at(path) {
        return Err(Replaced::at(path));
    }
    let file = open_rw(path, direct)?;
    if FileId::of(&file.metadata()?) != id {
        return Err(Replaced::at(path));
    }
    Ok(file)
}

fn open_rw(path: &Path, direct: bool) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(true);
    // Never follow a symlink someone swapped in for our file.
    let mut flags = libc::O_NOFOLLOW;
    if direct {
        flags |= libc::O_DIRECT;
    }
    o.custom_flags(flags);
    o.open(path)
}

fn full_write(f: &File, mut buf: &[u8], mut off: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match f.write_at(buf, off) {
            Ok(0) => return Err(io::Error::from_raw_os_error(libc::ENOSPC)),
            Ok(n) => {
                buf = &buf[n..];
                off += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn full_read(f: &File, mut buf: &mut [u8], mut off: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match f.read_at(buf, off) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::UnexpectedEof)),
            Ok(n) => {
                buf = &mut buf[n..];
                off += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

impl BenchFile for FileTarget {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        full_write(&self.file, buf, offset)
    }
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        full_read(&self.file, buf, offset)
    }
    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_all()
    }
    fn truncate(&mut self) -> io::Result<()> {
        self.file.set_len(0)
    }
    fn reopen(&mut self) -> io::Result<()> {
        self.file = open_ours(&self.path, self.id, self.direct)?;
        Ok(())
    }
    fn direct(&self) -> bool {
        self.direct
    }
}

/// Our test file: created exclusively, removed when dropped and — through a registered
/// shutdown cleanup — when the process is stopped by a signal; in both cases only while
/// its path still names the file created.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    id: FileId,
    _cleanup: crate::shutdown::CleanupHandle,
}

impl TempFile {
    /// Create a new file in `dir` that did not exist before.
    pub fn create(dir: &Path) -> io::Result<Self> {
        let pid = std::process::id();
        for attempt in 0..16u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = dir.join(format!(".sbc-bench-iotest.{pid}.{nanos:09}{attempt}"));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&path)
            {
                Ok(f) => {
                    let id = match f.metadata() {
                        Ok(md) => FileId::of(&md),
                        Err(e) => {
                            // Just created by us and still open: nothing else can be there.
                            let _ = std::fs::remove_file(&path);
                            return Err(e);
                        }
                    };
                    let p = path.clone();
                    let cleanup = crate::shutdown::register(move || remove_if_ours(&p, id));
                    return Ok(Self {
                        path,
                        id,
                        _cleanup: cleanup,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::from(io::ErrorKind::AlreadyExists))
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Which file it is.
    pub fn id(&self) -> FileId {
        self.id
    }

    /// Does its path still name the file created?
    pub fn is_intact(&self) -> bool {
        self.id.is_at(&self.path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        remove_if_ours(&self.path, self.id);
    }
}

/// Remove `path` if it is still the file `id`: a file swapped in for ours is someone
/// else's and stays.
fn remove_if_ours(path: &Path, id: FileId) {
    if id.is_at(path) {
        let _ = std::fs::remove_file(path);
    }
}

/// A buffer aligned for O_DIRECT.
pub(super) struct AlignedBuf {
    raw: Vec<u8>,
    off: usize,
    len: usize,
}

impl AlignedBuf {
    pub(super) fn new(len: usize) -> Self {
        let raw = vec![0u8; len + ALIGN as usize];
        let off = raw.as_ptr().align_offset(ALIGN as usize);
        let mut b = Self { raw, off, len };
        // Incompressible content: SSD controllers that compress or deduplicate would
        // otherwise report fantasy write speeds.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for c in b.as_mut().chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bytes = x.to_le_bytes();
            c.copy_from_slice(&bytes[..c.len()]);
        }
        b
    }
    pub(super) fn as_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.off..self.off + self.len]
    }
    pub(super) fn as_ref(&self) -> &[u8] {
        &self.raw[self.off..self.off + self.len]
    }
    /// Make every 4 KiB block of the next write unique (defeats deduplication).
    pub(super) fn stamp(&mut self, seq: u64) {
        for (i, c) in self.as_mut().chunks_mut(ALIGN as usize).enumerate() {
            c[..8].copy_from_slice(&(seq.wrapping_mul(0x1_0000) + i as u64).to_le_bytes());
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::bench::storage::{StorageConfig, run_on};
    use crate::shutdown::CancellationToken;

    /// Someone renames their own file over our test file: it is not opened, and not
    /// removed when our run ends (removing by path would delete their file).
    #[test]
    fn a_file_swapped_in_is_neither_opened_nor_removed() {
        let d = tempfile::tempdir().unwrap();
        let tmp = TempFile::create(d.path()).unwrap();
        assert!(tmp.is_intact());
        let theirs = d.path().join("theirs");
        std::fs::write(&theirs, b"theirs").unwrap();
        std::fs::rename(&theirs, tmp.path()).unwrap();
        assert!(!tmp.is_intact());
        let e = FileTarget::open(&tmp).unwrap_err();
        assert_eq!(replaced(&e).map(|r| r.path.as_path()), Some(tmp.path()));
        let path = tmp.path().to_path_buf();
        drop(tmp);
        assert_eq!(std::fs::read(&path).unwrap(), b"theirs");
    }

    /// A FIFO swapped in is refused before the open, which would block forever.
    #[test]
    fn a_fifo_swapped_in_is_not_opened() {
        let d = tempfile::tempdir().unwrap();
        let tmp = TempFile::create(d.path()).unwrap();
        let mut t = FileTarget::open(&tmp).unwrap();
        std::fs::remove_file(tmp.path()).unwrap();
        nix::unistd::mkfifo(tmp.path(), nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let e = t.reopen().unwrap_err();
        assert!(replaced(&e).is_some(), "{e}");
        // Still our file's descriptor, never the FIFO's.
        assert!(t.file.metadata().unwrap().is_file());
        let path = tmp.path().to_path_buf();
        drop(tmp);
        assert!(path.exists(), "not ours: left alone");
    }

    /// Our own file, reopened: accepted.
    #[test]
    fn reopening_our_file_is_accepted() {
        let d = tempfile::tempdir().unwrap();
        let tmp = TempFile::create(d.path()).unwrap();
        let mut t = FileTarget::open(&tmp).unwrap();
        t.reopen().unwrap();
        assert_eq!(FileId::of(&t.file.metadata().unwrap()), tmp.id());
        let path = tmp.path().to_path_buf();
        drop(t);
        drop(tmp);
        assert!(!path.exists());
    }

    #[test]
    fn buffered_fallback_is_flagged() {
        // What FileTarget::open does when a filesystem answers O_DIRECT with EINVAL.
        let d = tempfile::tempdir().unwrap();
        let tmp = TempFile::create(d.path()).unwrap();
        let mut t = FileTarget {
            path: tmp.path().to_path_buf(),
            id: tmp.id(),
            file: open_rw(tmp.path(), false).unwrap(),
            direct: false,
        };
        let mut c = StorageConfig::new(d.path());
        c.size_bytes = 64 << 10;
        c.records = vec![4 << 10];
        let r = run_on(&c, &mut t, &CancellationToken::new(), &mut |_| {}).unwrap();
        assert!(!r.direct_io);
        assert!(r.warnings[0].contains("page cache"), "{:?}", r.warnings);
    }
}
