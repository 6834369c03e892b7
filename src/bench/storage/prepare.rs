//! A storage run set up: the arguments validated against the directory (stale test
//! files of killed runs removed first). Where the test file lands and the monitor's
//! samplers watching each pass are `app/storage/watch.rs`.

use std::path::{Path, PathBuf};

use crate::bench::storage::{self as engine, StorageError};
use crate::sys::root::SysRoot;
use crate::sys::storage as inventory;

/// The benchmark's configuration from the arguments, validated, with the notes the
/// user must see (stale test files removed, a filesystem without a size limit, record
/// sizes covering less than the file).
///
/// `path` is the directory (`None`: the current one), `records` the record sizes asked
/// for (empty: iozone -a's that fit the file). The notes found before a refusal are in
/// `notes` too: the caller says them before the error.
pub fn configure(
    root: &SysRoot,
    path: Option<&Path>,
    size_bytes: u64,
    records: &[u64],
    notes: &mut Vec<String>,
) -> anyhow::Result<engine::StorageConfig> {
    let dir: PathBuf = match path {
        Some(p) => p.to_path_buf(),
        None => std::env::current_dir()?,
    };
    let dir = match std::fs::canonicalize(&dir) {
        Ok(d) => d,
        // A path that is not there is bad input; other reasons (EACCES on a parent) are not.
        Err(cause)
            if cause.kind() == std::io::ErrorKind::NotFound
                || cause.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            return Err(StorageError::NoSuchDirectory { path: dir, cause }.into());
        }
        Err(e) => anyhow::bail!("cannot use {}: {e}", dir.display()),
    };
    let mut cfg = engine::StorageConfig::new(&dir);
    cfg.size_bytes = size_bytes;
    if records.is_empty() {
        // Like iozone -a: default record sizes larger than the file are skipped.
        cfg.records.retain(|&r| r <= cfg.size_bytes);
        if cfg.records.is_empty() {
            return Err(
                StorageError::BadConfig("the file size must be at least 4 KiB".into()).into(),
            );
        }
    } else {
        cfg.records = records.to_vec();
    }
    if root.is_host() {
        cfg.mem_available_bytes = crate::sys::memory::available_bytes(root);
        // The mount table's name tells devtmpfs from tmpfs (statfs cannot).
        cfg.fstype = inventory::landing(root, &dir).fstype;
    }
    // Validate the arguments and the directory before touching anything in it.
    engine::preflight(&engine::StorageConfig {
        check_space: false,
        ..cfg.clone()
    })?;
    // Files of runs killed with SIGKILL take space the check below must count.
    notes.extend(
        engine::clean_stale(&dir)
            .iter()
            .map(engine::StaleFile::words),
    );
    notes.extend(engine::preflight(&cfg)?);
    notes.extend(engine::coverage_notes(&cfg));
    if !root.is_host() {
        notes.push(
            "--sysroot is set: the test file is on this machine's filesystem, so the \
             filesystem and device it landed on are not shown"
                .into(),
        );
    }
    Ok(cfg)
}
