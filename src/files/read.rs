//! The one way a file we read is opened: system files (through `sys::root::SysRoot`, which
//! confines the path to its root first) and the user's files alike (logs, run JSON,
//! `--scores`, `--eol-data`, `CPUINFOFILE`, the tuning journal).
//!
//! Opening a FIFO for reading blocks until a writer appears, and a read watchdog bounds
//! reads, not opens: every open here is non-blocking (`O_NONBLOCK`, so a FIFO answers at
//! once), never takes a terminal as ours (`O_NOCTTY`), and the file is kept only when it
//! is what the caller expects — a regular file, or where asked a character device. A FIFO,
//! socket, block device or directory is refused with an error naming what it is
//! ([`NotRegular`]). Reads are bounded: [`read_limited`] refuses a file larger than its
//! limit instead of filling the memory of a 1 GiB board.
//!
//! `clippy.toml` forbids `std::fs::File::open`, `std::fs::read` and
//! `std::fs::read_to_string` everywhere else (`disallowed-methods`), so no new reader can
//! bypass this module by accident.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What a caller accepts at a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accept {
    /// A regular file only.
    File,
    /// A regular file or a character device (`/dev/kmsg`, a hidraw meter).
    FileOrCharDevice,
    /// A directory (opened to fsync it after a rename in it; `O_DIRECTORY`).
    Directory,
}

/// How the last component of the path is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Followed, as `open(2)` does (the user's own paths, the live system's files).
    Follow,
    /// Refused (`O_NOFOLLOW`): a caller that resolved every link itself (a `--sysroot`
    /// tree) must not follow one swapped in since.
    NoFollow,
}

/// The node found where a file was expected, for the caller's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: not a regular file ({what})", path.display())]
pub struct NotRegular {
    /// The path as opened.
    pub path: PathBuf,
    /// `a FIFO`, `a socket`, `a block device`, `a directory`, `a character device`.
    pub what: &'static str,
}

/// A file larger than the caller's limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: larger than {max} bytes", path.display())]
pub struct TooLarge {
    /// The path as opened.
    pub path: PathBuf,
    /// The limit.
    pub max: u64,
}

/// The [`NotRegular`] inside an error from this module, if that is why it failed.
pub fn not_regular(e: &io::Error) -> Option<&NotRegular> {
    e.get_ref().and_then(|i| i.downcast_ref::<NotRegular>())
}

/// Was `e` a file over the caller's limit?
pub fn too_large(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|i| i.is::<TooLarge>())
}

fn what(ft: std::fs::FileType) -> &'static str {
    if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

/// Open `path` for reading without ever blocking, and keep it only when it is what
/// `accept` names; anything else is an `InvalidInput` error carrying [`NotRegular`].
pub fn open_read(path: &Path, accept: Accept, links: Links) -> io::Result<File> {
    let mut flags = libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
    if links == Links::NoFollow {
        flags |= libc::O_NOFOLLOW;
    }
    if accept == Accept::Directory {
        flags |= libc::O_DIRECTORY;
    }
    #[allow(clippy::disallowed_methods)]
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)?;
    let ft = file.metadata()?.file_type();
    let ok = match accept {
        Accept::File => ft.is_file(),
        Accept::FileOrCharDevice => ft.is_file() || ft.is_char_device(),
        Accept::Directory => ft.is_dir(),
    };
    if !ok {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            NotRegular {
                path: path.to_path_buf(),
                what: what(ft),
            },
        ));
    }
    Ok(file)
}

/// Read all of `r`, at most `max` bytes: one more is an `InvalidData` error carrying
/// [`TooLarge`] (a device such as `/dev/zero` never ends; a run JSON is a few MiB).
pub fn read_all_limited(r: impl Read, path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    r.take(max.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            TooLarge {
                path: path.to_path_buf(),
                max,
            },
        ));
    }
    Ok(buf)
}

/// The bytes of the regular file at `path`, at most `max` of them.
pub fn read_limited(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let f = open_read(path, Accept::File, Links::Follow)?;
    read_all_limited(f, path, max)
}

/// [`read_limited`] as text (invalid UTF-8 replaced: vendor kernels and old logs hold
/// Latin-1).
pub fn read_text(path: &Path, max: u64) -> io::Result<String> {
    let bytes = read_limited(path, max)?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// files::replace fsynced its directory through a plain `File::open`: a FIFO where the
    /// directory was expected would have blocked it. Opened as a directory now, refused.
    #[test]
    fn a_fifo_where_a_directory_is_synced_is_refused_not_waited_on() {
        let d = tempfile::tempdir().unwrap();
        assert!(open_read(d.path(), Accept::Directory, Links::Follow).is_ok());
        let fifo = d.path().join("fifo");
        mkfifo(&fifo);
        assert!(open_read(&fifo, Accept::Directory, Links::Follow).is_err());
        let file = d.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(open_read(&file, Accept::Directory, Links::Follow).is_err());
    }

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[test]
    fn a_fifo_is_refused_at_once_and_named() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("fifo");
        mkfifo(&p);
        let t0 = std::time::Instant::now();
        let e = read_text(&p, 1024).unwrap_err();
        assert!(t0.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(not_regular(&e).map(|n| n.what), Some("a FIFO"));
        assert!(e.to_string().contains("not a regular file (a FIFO)"), "{e}");
    }

    #[test]
    fn a_directory_and_a_device_are_not_files_but_a_device_may_be_asked_for() {
        let d = tempfile::tempdir().unwrap();
        let e = read_limited(d.path(), 10).unwrap_err();
        assert_eq!(not_regular(&e).map(|n| n.what), Some("a directory"));
        let e = read_limited(Path::new("/dev/zero"), 10).unwrap_err();
        assert_eq!(not_regular(&e).map(|n| n.what), Some("a character device"));
        let f = open_read(
            Path::new("/dev/zero"),
            Accept::FileOrCharDevice,
            Links::Follow,
        )
        .unwrap();
        let e = read_all_limited(f, Path::new("/dev/zero"), 4096).unwrap_err();
        assert!(too_large(&e), "{e}");
    }

    #[test]
    fn a_file_over_the_limit_is_refused_and_one_at_it_is_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, "12345").unwrap();
        assert_eq!(read_limited(&p, 5).unwrap(), b"12345");
        let e = read_limited(&p, 4).unwrap_err();
        assert!(too_large(&e));
        assert!(e.to_string().contains("larger than 4 bytes"), "{e}");
    }

    #[test]
    fn nofollow_refuses_a_link() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, "x").unwrap();
        std::os::unix::fs::symlink(&p, d.path().join("l")).unwrap();
        assert!(open_read(&d.path().join("l"), Accept::File, Links::NoFollow).is_err());
        assert!(open_read(&d.path().join("l"), Accept::File, Links::Follow).is_ok());
    }
}
