//! Why a storage benchmark did not run or did not finish.

use std::io;
use std::path::PathBuf;

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
}
