//! The injectable root every read of `/proc`, `/sys`, `/dev` and `/etc` goes through.
//!
//! `--sysroot DIR` (or `SBC_BENCH_SYSROOT`) makes all reads come from `DIR`, which is how
//! fixture trees captured from real boards are tested on any machine. `CPUINFOFILE`, as in
//! sbc-bench, overrides only `/proc/cpuinfo`.
//!
//! Callers pass absolute system paths (`"/proc/stat"`); the root maps them. Reads never
//! walk `/sys` blindly: [`SysRoot::list`] is only called on directories named in
//! `docs/SOURCES.md`, because reading the wrong sysfs node has hard-reset real boards.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Largest file we read in one go. `/proc/interrupts` on a 128-core server is ~1 MiB; anything
/// larger is not a sysfs attribute and would only waste memory on a 1 GiB board.
const MAX_READ: u64 = 8 * 1024 * 1024;

/// Where system files are read from (and, for the tuning guard, written to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SysRoot {
    root: PathBuf,
    cpuinfo: Option<PathBuf>,
}

impl Default for SysRoot {
    fn default() -> Self {
        Self::host()
    }
}

impl SysRoot {
    /// The running system (`/`).
    pub fn host() -> Self {
        Self {
            root: PathBuf::from("/"),
            cpuinfo: None,
        }
    }

    /// A tree that mirrors `/` (a fixture captured from a board, or a test's temp dir).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            cpuinfo: None,
        }
    }

    /// Read `/proc/cpuinfo` from `file` instead (sbc-bench's `CPUINFOFILE`).
    pub fn with_cpuinfo_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.cpuinfo = Some(file.into());
        self
    }

    /// True when `/proc/cpuinfo` is read from a file the user named (`CPUINFOFILE`): its
    /// CPUs then need not be this root's CPUs (sbc-bench's simulation of another board).
    pub fn cpuinfo_overridden(&self) -> bool {
        self.cpuinfo.is_some()
    }

    /// The directory standing for `/`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// True when this reads the live system: only then do process-local facts (our own
    /// affinity, `uname`, the page size of this process) describe the same machine.
    pub fn is_host(&self) -> bool {
        self.root == Path::new("/")
    }

    /// The file standing for the absolute system path `abs` (e.g. `"/proc/stat"`).
    pub fn path(&self, abs: impl AsRef<Path>) -> PathBuf {
        let abs = abs.as_ref();
        if let Some(cpuinfo) = &self.cpuinfo {
            if abs == Path::new("/proc/cpuinfo") {
                return cpuinfo.clone();
            }
        }
        let rel = abs.strip_prefix("/").unwrap_or(abs);
        self.root.join(rel)
    }

    /// Read a whole file as text (lossy UTF-8: vendor kernels put Latin-1 in model names).
    pub fn read(&self, abs: impl AsRef<Path>) -> io::Result<String> {
        let bytes = self.read_bytes(abs)?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// Read a whole file as bytes, up to [`MAX_READ`].
    pub fn read_bytes(&self, abs: impl AsRef<Path>) -> io::Result<Vec<u8>> {
        let file = fs::File::open(self.path(abs))?;
        let mut buf = Vec::new();
        file.take(MAX_READ).read_to_end(&mut buf)?;
        Ok(buf)
    }

    /// Read a file, treating every failure as "not there". Sysfs answers a missing sensor
    /// with ENOENT, ENODEV, ENXIO, EINVAL, EIO or EAGAIN depending on the driver; for discovery
    /// they all mean the same: no value.
    pub fn read_opt(&self, abs: impl AsRef<Path>) -> Option<String> {
        self.read(abs).ok()
    }

    /// A one-value attribute, trimmed; `None` when missing or empty.
    pub fn value(&self, abs: impl AsRef<Path>) -> Option<String> {
        let s = self.read_opt(abs)?;
        let t = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
        if t.is_empty() {
            None
        } else {
            Some(t.to_string())
        }
    }

    /// A one-value attribute parsed as `T`; `None` when missing, empty or not a `T`.
    pub fn parse<T: FromStr>(&self, abs: impl AsRef<Path>) -> Option<T> {
        self.value(abs)?.parse().ok()
    }

    /// Does the path exist (file, directory or symlink target)?
    pub fn exists(&self, abs: impl AsRef<Path>) -> bool {
        self.path(abs).exists()
    }

    /// Names of the entries of a known directory, sorted naturally (`cpu2` before `cpu10`).
    /// Missing or unreadable directories give an empty list.
    pub fn list(&self, abs: impl AsRef<Path>) -> Vec<String> {
        let Ok(rd) = fs::read_dir(self.path(abs)) else {
            return Vec::new();
        };
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect();
        names.sort_by(|a, b| natural_cmp(a, b));
        names
    }

    /// The last component of a symlink's target, e.g. the driver name behind
    /// `/sys/class/net/eth0/device/driver`.
    pub fn link_name(&self, abs: impl AsRef<Path>) -> Option<String> {
        let target = fs::read_link(self.path(abs)).ok()?;
        target
            .file_name()
            .and_then(OsStr::to_str)
            .map(str::to_string)
    }

    /// The symlink target as written (relative paths stay relative), for sysfs topology
    /// (`/sys/block/sda` → `../devices/platform/.../ata1/...`).
    pub fn link_target(&self, abs: impl AsRef<Path>) -> Option<PathBuf> {
        fs::read_link(self.path(abs)).ok()
    }

    /// Resolve symlinks and return the absolute *system* path (inside the root), e.g.
    /// `/sys/class/hwmon/hwmon0` → `/sys/devices/virtual/thermal/thermal_zone0/hwmon0`.
    pub fn resolve(&self, abs: impl AsRef<Path>) -> Option<PathBuf> {
        let real = fs::canonicalize(self.path(abs)).ok()?;
        let root = fs::canonicalize(&self.root).ok()?;
        let rel = real.strip_prefix(&root).ok()?;
        Some(Path::new("/").join(rel))
    }

    /// Write a value to a system file. Only `tune` calls this, through its restoring guard.
    pub(crate) fn write(&self, abs: impl AsRef<Path>, value: &str) -> io::Result<()> {
        use std::io::Write;
        // sysfs wants the whole value in one write(2); O_TRUNC is ignored there and needed
        // for the regular files of a fixture tree.
        let mut f = fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(self.path(abs))?;
        f.write_all(value.as_bytes())?;
        Ok(())
    }
}

/// Compare strings so that embedded numbers sort by value: `cpu2` < `cpu10`,
/// `thermal_zone9` < `thermal_zone10`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let na = a.iter().take_while(|c| c.is_ascii_digit()).count();
                let nb = b.iter().take_while(|c| c.is_ascii_digit()).count();
                let (da, db) = (&a[..na], &b[..nb]);
                let ta = trim_zeros(da);
                let tb = trim_zeros(db);
                let ord = ta.len().cmp(&tb.len()).then_with(|| ta.cmp(tb));
                if ord != Ordering::Equal {
                    return ord;
                }
                a = &a[na..];
                b = &b[nb..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                a = &a[1..];
                b = &b[1..];
            }
        }
    }
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|&&c| c == b'0').count();
    &d[n.min(d.len().saturating_sub(1))..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_absolute_paths_into_the_root() {
        let r = SysRoot::new("/tmp/fx");
        assert_eq!(r.path("/proc/stat"), PathBuf::from("/tmp/fx/proc/stat"));
        assert_eq!(r.path("proc/stat"), PathBuf::from("/tmp/fx/proc/stat"));
        assert!(!r.is_host());
        assert!(SysRoot::host().is_host());
    }

    #[test]
    fn cpuinfo_override_only_touches_cpuinfo() {
        let r = SysRoot::host().with_cpuinfo_file("/x/board.cpuinfo");
        assert_eq!(r.path("/proc/cpuinfo"), PathBuf::from("/x/board.cpuinfo"));
        assert_eq!(r.path("/proc/stat"), PathBuf::from("/proc/stat"));
    }

    #[test]
    fn missing_and_garbage_values_are_none() {
        let d = tempfile::tempdir().unwrap();
        let r = SysRoot::new(d.path());
        std::fs::create_dir_all(d.path().join("sys/x")).unwrap();
        std::fs::write(d.path().join("sys/x/a"), "  1800000\n").unwrap();
        std::fs::write(d.path().join("sys/x/b"), "garbage\n").unwrap();
        std::fs::write(d.path().join("sys/x/c"), "\n").unwrap();
        assert_eq!(r.parse::<u64>("/sys/x/a"), Some(1_800_000));
        assert_eq!(r.parse::<u64>("/sys/x/b"), None);
        assert_eq!(r.value("/sys/x/c"), None);
        assert_eq!(r.value("/sys/x/missing"), None);
        assert_eq!(r.list("/sys/x"), vec!["a", "b", "c"]);
        assert!(r.list("/sys/nope").is_empty());
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["cpu10", "cpu2", "cpu1", "cpufreq", "cpu0"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["cpu0", "cpu1", "cpu2", "cpu10", "cpufreq"]);
    }

    #[test]
    fn resolve_follows_links_inside_root() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("sys/devices/virtual/hwmon/hwmon0")).unwrap();
        std::fs::create_dir_all(d.path().join("sys/class/hwmon")).unwrap();
        std::os::unix::fs::symlink(
            "../../devices/virtual/hwmon/hwmon0",
            d.path().join("sys/class/hwmon/hwmon0"),
        )
        .unwrap();
        let r = SysRoot::new(d.path());
        assert_eq!(
            r.resolve("/sys/class/hwmon/hwmon0"),
            Some(PathBuf::from("/sys/devices/virtual/hwmon/hwmon0"))
        );
        assert_eq!(
            r.link_name("/sys/class/hwmon/hwmon0").as_deref(),
            Some("hwmon0")
        );
    }
}
