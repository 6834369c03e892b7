//! Is the run allowed and is there room for it: record sizes, the directory, free space
//! (or RAM, on ramfs), and which record sizes cover less than the file.

use std::io;
use std::path::Path;

use super::{ALIGN, Config, MARGIN, StorageError, size_words};

/// Size and free space of the filesystem holding a directory (statvfs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FsSpace {
    /// Bytes available to unprivileged users.
    pub avail_bytes: u64,
    /// Size of the filesystem; 0 for filesystems that report none (ramfs).
    pub total_bytes: u64,
}

/// [`FsSpace`] of the filesystem holding `dir`.
pub fn fs_space(dir: &Path) -> io::Result<FsSpace> {
    let s = nix::sys::statvfs::statvfs(dir).map_err(io::Error::from)?;
    let frag = s.fragment_size() as u64;
    Ok(FsSpace {
        avail_bytes: (s.blocks_available() as u64).saturating_mul(frag),
        total_bytes: (s.blocks() as u64).saturating_mul(frag),
    })
}

/// Bytes available to us on the filesystem holding `dir`.
pub fn available_bytes(dir: &Path) -> io::Result<u64> {
    fs_space(dir).map(|s| s.avail_bytes)
}

/// Is there room for the test file? Pure: the decision from the filesystem's figures and
/// (for ramfs, which reports no size and has no limit) the RAM available. Returns notes
/// the user must see.
pub fn check_space(cfg: &Config, space: FsSpace) -> Result<Vec<String>, StorageError> {
    let need = cfg.size_bytes.saturating_add(MARGIN);
    if space.total_bytes == 0 {
        // ramfs: statvfs says 0 of 0 blocks, yet writes succeed until RAM runs out.
        return match cfg.mem_available_bytes {
            Some(m) if m < need => Err(StorageError::NoRam {
                dir: cfg.dir.clone(),
                need: need.div_ceil(1 << 20),
                margin: MARGIN >> 20,
                avail: m >> 20,
            }),
            Some(m) => Ok(vec![format!(
                "the filesystem reports no size (ramfs has no limit): free space was not \
                 checked; the {} file lives in RAM while the test runs ({} MiB of RAM available)",
                size_words(cfg.size_bytes),
                m >> 20
            )]),
            None => Ok(vec![
                "the filesystem reports no size (ramfs has no limit): free space was not \
                 checked, and the test file lives in RAM while the test runs"
                    .to_string(),
            ]),
        };
    }
    if space.avail_bytes < need {
        return Err(StorageError::NoSpace {
            dir: cfg.dir.clone(),
            need: need.div_ceil(1 << 20),
            margin: MARGIN >> 20,
            avail: space.avail_bytes >> 20,
        });
    }
    Ok(Vec::new())
}

/// Record sizes that do not divide the file size: like iozone, only whole records are
/// moved, so those passes cover less than the file. One note per such record size.
pub fn coverage_notes(cfg: &Config) -> Vec<String> {
    cfg.records
        .iter()
        .filter(|&&r| r > 0 && cfg.size_bytes % r != 0)
        .map(|&r| {
            format!(
                "{} records cover {} of the {} file (whole records only, as iozone does; \
                 MB/s count the bytes moved)",
                size_words(r),
                size_words(cfg.size_bytes / r * r),
                size_words(cfg.size_bytes)
            )
        })
        .collect()
}

/// Check the configuration and the directory. Returns notes for the user (a filesystem
/// without a size limit); refuses what cannot or must not run.
pub fn preflight(cfg: &Config) -> Result<Vec<String>, StorageError> {
    if cfg.records.is_empty() {
        return Err(StorageError::BadConfig("no record size given".into()));
    }
    for &r in &cfg.records {
        if r == 0 || r % ALIGN != 0 {
            return Err(StorageError::BadConfig(format!(
                "record size {} KiB is not a multiple of 4 KiB (needed for O_DIRECT)",
                r / 1024
            )));
        }
        if r > 1 << 30 {
            return Err(StorageError::BadConfig(format!(
                "record size {} KiB is larger than 1 GiB",
                r / 1024
            )));
        }
        if r > cfg.size_bytes {
            return Err(StorageError::BadConfig(format!(
                "record size {} KiB is larger than the file size {} KiB",
                r / 1024,
                cfg.size_bytes / 1024
            )));
        }
    }
    if !cfg.dir.is_dir() {
        return Err(StorageError::NotADirectory(cfg.dir.clone()));
    }
    // A read-only mount or a directory we may not write to fails here, before the free
    // space check can give a misleading reason.
    nix::unistd::access(&cfg.dir, nix::unistd::AccessFlags::W_OK).map_err(|e| {
        StorageError::Create {
            dir: cfg.dir.clone(),
            cause: io::Error::from(e),
        }
    })?;
    if !cfg.check_space {
        return Ok(Vec::new());
    }
    let space = fs_space(&cfg.dir).map_err(|cause| StorageError::Create {
        dir: cfg.dir.clone(),
        cause,
    })?;
    check_space(cfg, space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_configs_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let mut c = Config::new(d.path());
        c.records = vec![1000];
        assert!(matches!(preflight(&c), Err(StorageError::BadConfig(m)) if m.contains("4 KiB")));
        c.records = vec![];
        assert!(preflight(&c).is_err());
        c.records = vec![8 << 20];
        c.size_bytes = 4 << 20;
        assert!(matches!(preflight(&c), Err(StorageError::BadConfig(m)) if m.contains("larger")));
        let f = d.path().join("file");
        std::fs::write(&f, b"x").unwrap();
        let c = Config::new(&f);
        assert!(matches!(preflight(&c), Err(StorageError::NotADirectory(_))));
    }

    #[test]
    fn space_checks() {
        let mut c = Config::new("/x");
        c.size_bytes = 16 << 20;
        let full = FsSpace {
            avail_bytes: 8 << 20,
            total_bytes: 8 << 20,
        };
        let e = check_space(&c, full).unwrap_err().to_string();
        assert!(
            e.contains("needs 48 MiB") && e.contains("8 MiB are available"),
            "{e}"
        );
        let roomy = FsSpace {
            avail_bytes: 1 << 30,
            total_bytes: 2 << 30,
        };
        assert_eq!(check_space(&c, roomy).unwrap(), Vec::<String>::new());
        // ramfs reports 0 of 0 blocks and has no limit: not refused, said so, and RAM
        // is what must have room.
        let ramfs = FsSpace {
            avail_bytes: 0,
            total_bytes: 0,
        };
        let n = check_space(&c, ramfs).unwrap();
        assert!(n[0].contains("no size (ramfs has no limit)"), "{n:?}");
        c.mem_available_bytes = Some(1 << 30);
        assert!(check_space(&c, ramfs).unwrap()[0].contains("1024 MiB of RAM available"));
        c.mem_available_bytes = Some(20 << 20);
        let e = check_space(&c, ramfs).unwrap_err().to_string();
        assert!(
            e.contains("without a size limit") && e.contains("20 MiB"),
            "{e}"
        );
    }

    #[test]
    fn whole_records_only_is_said() {
        let mut c = Config::new("/x");
        assert_eq!(
            coverage_notes(&c),
            [
                "16 MiB records cover 96 MiB of the 100 MiB file (whole records only, as iozone does; MB/s count the bytes moved)"
            ]
        );
        c.size_bytes = 6 << 10;
        c.records = vec![4 << 10];
        assert!(coverage_notes(&c)[0].starts_with("4 KiB records cover 4 KiB of the 6 KiB file"));
        c.size_bytes = 64 << 20;
        c.records = vec![4 << 10, 16 << 20];
        assert!(coverage_notes(&c).is_empty());
    }
}
