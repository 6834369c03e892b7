//! Why a storage benchmark did not run or did not finish.

use std::io;
use std::path::PathBuf;

use super::size_words;

/// Why a run did not finish.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// Bad size or record size.
    #[error("{0}")]
    BadConfig(String),
    /// The target is not a directory.
    #[error("{0} is not a directory (give a directory on the filesystem to test)")]
    NotADirectory(PathBuf),
    /// Not enough free space.
    #[error(
        "not enough free space in {dir}: the test needs {need} MiB (file plus {margin} MiB margin), {avail} MiB are available"
    )]
    NoSpace {
        /// Directory.
        dir: PathBuf,
        /// MiB needed.
        need: u64,
        /// MiB margin included in `need`.
        margin: u64,
        /// MiB available.
        avail: u64,
    },
    /// A filesystem without any size limit (ramfs) and too little RAM for the file.
    #[error(
        "{dir} is on a filesystem without a size limit (ramfs): the test file would take {need} MiB \
         of RAM (file plus {margin} MiB margin), only {avail} MiB are available"
    )]
    NoRam {
        /// Directory.
        dir: PathBuf,
        /// MiB needed.
        need: u64,
        /// MiB margin included in `need`.
        margin: u64,
        /// MiB of RAM available.
        avail: u64,
    },
    /// The test file could not be created. The OS error is part of the message and
    /// deliberately not an error `source`, so a `{:#}` chain does not print it twice.
    #[error("cannot create a test file in {dir}: {cause}")]
    Create {
        /// Directory.
        dir: PathBuf,
        /// Cause.
        cause: io::Error,
    },
    /// An I/O error during a pass (ENOSPC, EIO…). The test file has been removed.
    #[error(
        "{phase} with {record} KiB records failed at offset {offset}: {cause} (test file removed)"
    )]
    Io {
        /// Pass.
        phase: &'static str,
        /// Record size in KiB.
        record: u64,
        /// Byte offset.
        offset: u64,
        /// Cause.
        cause: io::Error,
    },
    /// Ctrl-C or SIGTERM.
    #[error("interrupted (test file removed)")]
    Interrupted,
    /// The directory is on a filesystem the kernel makes up (proc, sysfs, devtmpfs,
    /// cgroup…): nothing there is storage.
    #[error(
        "{dir} is on {fstype}, a virtual filesystem of the kernel, not storage: give a directory \
         on the disk, card or USB drive to test"
    )]
    PseudoFilesystem {
        /// Directory.
        dir: PathBuf,
        /// Filesystem type, as the mount table names it.
        fstype: String,
    },
    /// The directory given does not exist (or a part of its path is not a directory).
    #[error("cannot use {}: {cause}", path.display())]
    NoSuchDirectory {
        /// As given.
        path: PathBuf,
        /// Cause.
        cause: io::Error,
    },
    /// A write went past the process's file size limit (`ulimit -f`, RLIMIT_FSIZE):
    /// EFBIG, as SIGXFSZ is ignored. The test file has been removed.
    #[error(
        "file size limit (ulimit -f) reached at {}: the test needs a {} file; raise the limit \
         (ulimit -f unlimited) or give a smaller --size (test file removed)",
        size_words(*at_bytes), size_words(*file_bytes)
    )]
    FileSizeLimit {
        /// Where the write that failed started (the limit lies between it and its end).
        at_bytes: u64,
        /// Size of the test file.
        file_bytes: u64,
    },
    /// The test file was swapped for another file (a hard link, a rename) while the run
    /// went on: the file now at its path is not written to, not even removed.
    #[error(
        "the test file {} was replaced by another file during the run (its device and inode \
         changed): stopped without writing to it; the file now at that path was left alone",
        path.display()
    )]
    Replaced {
        /// Where our test file was.
        path: PathBuf,
    },
}

impl StorageError {
    /// Bad input from the command line (exit status 2) rather than a failed run.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            StorageError::BadConfig(_)
                | StorageError::NotADirectory(_)
                | StorageError::PseudoFilesystem { .. }
                | StorageError::NoSuchDirectory { .. }
        )
    }
}
