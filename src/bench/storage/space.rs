//! Is the run allowed and is there room for it: record sizes, the directory (not on one
//! of the kernel's virtual filesystems), free space (or RAM, on ramfs), and which record
//! sizes cover less than the file.

use std::io;
use std::path::Path;

use super::{ALIGN, MARGIN, MIN_MARGIN, StorageConfig, StorageError, size_words};

/// The kernel's virtual filesystems: nothing in them is storage, and what looks like a
/// file there is kernel state (writing to it as root can change the system). By the
/// `statfs` magic number (`linux/magic.h`) and the name the mount table gives.
/// devtmpfs reports tmpfs's magic, so only its name tells it apart.
/// (autofs is left out: a directory under an automount point that was not mounted yet
/// would be refused, though it holds a real filesystem once used.)
const PSEUDO: [(u32, &str); 21] = [
    (0x9fa0, "proc"),
    (0x6265_6572, "sysfs"),
    (0, "devtmpfs"),
    (0x1cd1, "devpts"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0xcafe_4a11, "bpf"),
    (0x6165_676c, "pstore"),
    (0xde5e_81e4, "efivarfs"),
    (0xf97c_ff8c, "selinuxfs"),
    (0x4341_5d53, "smackfs"),
    (0x6265_6570, "configfs"),
    (0x6573_5543, "fusectl"),
    (0x1980_0202, "mqueue"),
    (0x4249_4e4d, "binfmt_misc"),
    (0x6e73_6673, "nsfs"),
    (0x6759_6969, "rpc_pipefs"),
    (0x9584_58f6, "hugetlbfs"),
];

/// The name of the virtual filesystem a directory is on, from its mount table name
/// (`fstype`, when known) or its `statfs` magic; `None` for anything that can hold a
/// test file. Pure.
pub fn pseudo_filesystem(fstype: Option<&str>, magic: Option<u32>) -> Option<&'static str> {
    if let Some(name) = fstype {
        if let Some(&(_, n)) = PSEUDO.iter().find(|(_, n)| *n == name) {
            return Some(n);
        }
    }
    let m = magic.filter(|&m| m != 0)?;
    PSEUDO.iter().find(|(k, _)| *k == m).map(|&(_, n)| n)
}

/// The `statfs` magic number of the filesystem holding `dir`.
fn fs_magic(dir: &Path) -> Option<u32> {
    // `f_type` is signed on some ABIs; the magic numbers are 32-bit patterns.
    nix::sys::statfs::statfs(dir)
        .ok()
        .map(|s| s.filesystem_type().0 as u32)
}

/// Free space left on top of the test file: 1/32 of the filesystem (about 3 %) in whole
/// MiB, at least [`MIN_MARGIN`] and at most [`MARGIN`]; filesystems of 1 GiB and more
/// keep the full 32 MiB, a 64 MiB tmpfs or a small SD card 2 MiB. Pure.
pub fn margin_bytes(fs_total_bytes: u64) -> u64 {
    ((fs_total_bytes / 32).div_ceil(1 << 20) << 20).clamp(MIN_MARGIN, MARGIN)
}

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
pub fn check_space(cfg: &StorageConfig, space: FsSpace) -> Result<Vec<String>, StorageError> {
    if space.total_bytes == 0 {
        let need = cfg.size_bytes.saturating_add(MARGIN);
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
    let margin = margin_bytes(space.total_bytes);
    let need = cfg.size_bytes.saturating_add(margin);
    if space.avail_bytes < need {
        return Err(StorageError::NoSpace {
            dir: cfg.dir.clone(),
            need: need.div_ceil(1 << 20),
            margin: margin >> 20,
            avail: space.avail_bytes >> 20,
        });
    }
    Ok(Vec::new())
}

/// Record sizes that do not divide the file size: like iozone, only whole records are
/// moved, so those passes cover less than the file. One note per such record size.
pub fn coverage_notes(cfg: &StorageConfig) -> Vec<String> {
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
pub fn preflight(cfg: &StorageConfig) -> Result<Vec<String>, StorageError> {
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
    // Before the write check: /sys is read-only and would be refused as unwritable, /proc
    // as root is "writable" and would fail with a baffling ENOENT on create.
    if let Some(fs) = pseudo_filesystem(cfg.fstype.as_deref(), fs_magic(&cfg.dir)) {
        return Err(StorageError::PseudoFilesystem {
            dir: cfg.dir.clone(),
            fstype: fs.to_string(),
        });
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
        let mut c = StorageConfig::new(d.path());
        c.records = vec![1000];
        assert!(matches!(preflight(&c), Err(StorageError::BadConfig(m)) if m.contains("4 KiB")));
        c.records = vec![];
        assert!(preflight(&c).is_err());
        c.records = vec![8 << 20];
        c.size_bytes = 4 << 20;
        assert!(matches!(preflight(&c), Err(StorageError::BadConfig(m)) if m.contains("larger")));
        let f = d.path().join("file");
        std::fs::write(&f, b"x").unwrap();
        let c = StorageConfig::new(&f);
        assert!(matches!(preflight(&c), Err(StorageError::NotADirectory(_))));
    }

    #[test]
    fn space_checks() {
        let mut c = StorageConfig::new("/x");
        c.size_bytes = 16 << 20;
        let full = FsSpace {
            avail_bytes: 8 << 20,
            total_bytes: 8 << 20,
        };
        let e = check_space(&c, full).unwrap_err().to_string();
        // An 8 MiB filesystem keeps a 1 MiB margin, not 32.
        assert!(
            e.contains("needs 17 MiB (file plus 1 MiB margin)")
                && e.contains("8 MiB are available"),
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
    fn margin_scales_with_the_filesystem() {
        const MIB: u64 = 1 << 20;
        assert_eq!(margin_bytes(0), MIB);
        assert_eq!(margin_bytes(8 * MIB), MIB);
        assert_eq!(margin_bytes(64 * MIB), 2 * MIB);
        assert_eq!(margin_bytes(100 * MIB), 4 * MIB, "3.1 MiB rounded up");
        assert_eq!(margin_bytes(512 * MIB), 16 * MIB);
        assert_eq!(margin_bytes(1 << 30), 32 * MIB);
        assert_eq!(margin_bytes(64 << 30), 32 * MIB);
    }

    /// A 64 MiB tmpfs (or a small SD card) with 62 MiB free: a 56 MiB test used to be
    /// refused for wanting 88 MiB; it fits with the 2 MiB margin, 61 MiB does not.
    #[test]
    fn small_filesystem_with_a_small_margin() {
        let mut c = StorageConfig::new("/x");
        let tmpfs = FsSpace {
            avail_bytes: 62 << 20,
            total_bytes: 64 << 20,
        };
        c.size_bytes = 56 << 20;
        assert_eq!(check_space(&c, tmpfs).unwrap(), Vec::<String>::new());
        c.size_bytes = 61 << 20;
        let e = check_space(&c, tmpfs).unwrap_err().to_string();
        assert!(e.contains("needs 63 MiB (file plus 2 MiB margin)"), "{e}");
    }

    #[test]
    fn virtual_filesystems_by_name_or_magic() {
        assert_eq!(pseudo_filesystem(Some("proc"), None), Some("proc"));
        assert_eq!(pseudo_filesystem(None, Some(0x9fa0)), Some("proc"));
        assert_eq!(pseudo_filesystem(None, Some(0x6265_6572)), Some("sysfs"));
        assert_eq!(pseudo_filesystem(Some("cgroup2"), None), Some("cgroup2"));
        assert_eq!(pseudo_filesystem(None, Some(0x0027_e0eb)), Some("cgroup"));
        // efivarfs's magic has the top bit set: `f_type` is negative on 32-bit ABIs.
        assert_eq!(
            pseudo_filesystem(None, Some(0xde5e_81e4_u32 as i32 as u32)),
            Some("efivarfs")
        );
        // devtmpfs reports tmpfs's magic: only the mount table's name tells it apart.
        const TMPFS: u32 = 0x0102_1994;
        assert_eq!(
            pseudo_filesystem(Some("devtmpfs"), Some(TMPFS)),
            Some("devtmpfs")
        );
        assert_eq!(pseudo_filesystem(Some("tmpfs"), Some(TMPFS)), None);
        assert_eq!(pseudo_filesystem(None, Some(TMPFS)), None);
        // Storage, and what we cannot tell.
        assert_eq!(pseudo_filesystem(Some("ext4"), Some(0xef53)), None);
        assert_eq!(
            pseudo_filesystem(Some("fuse.sshfs"), Some(0x6573_5546)),
            None
        );
        assert_eq!(pseudo_filesystem(None, Some(0)), None);
        assert_eq!(pseudo_filesystem(None, None), None);
    }

    #[test]
    fn whole_records_only_is_said() {
        let mut c = StorageConfig::new("/x");
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
