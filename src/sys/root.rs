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
use std::io;

use super::deadline;
pub use super::deadline::READ_DEADLINE;
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
    read_only: bool,
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
            read_only: false,
        }
    }

    /// A tree that mirrors `/` (a fixture captured from a board, or a test's temp dir).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            cpuinfo: None,
            read_only: false,
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

    /// Refuse every write through this root (`SysRoot::write` fails with
    /// `PermissionDenied`). `--sysroot` trees are read-only unless the user passed
    /// `--sysroot-writable` (tests of the tuning guard on a writable copy).
    pub fn read_only(mut self) -> Self {
        self.read_only = true;
        self
    }

    /// True when writes through this root are refused.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The file standing for the absolute system path `abs` (e.g. `"/proc/stat"`), joined
    /// lexically. Symlinks in it are *not* resolved inside the root: open files through
    /// [`SysRoot::open`], [`SysRoot::read`] and friends, which do.
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

    /// The host path of `abs` with every symlink resolved as the kernel would with this
    /// root as `/`: absolute link targets and `..` never leave the tree. For the live
    /// system (root `/`) and the user's `CPUINFOFILE` this is [`SysRoot::path`].
    pub fn in_root(&self, abs: impl AsRef<Path>) -> io::Result<PathBuf> {
        let abs = abs.as_ref();
        if self.is_host() || (self.cpuinfo.is_some() && abs == Path::new("/proc/cpuinfo")) {
            return Ok(self.path(abs));
        }
        resolve_in_root(&self.root, abs, true)
    }

    /// Open a system file for reading: resolved inside the root, never blocking (FIFOs and
    /// devices answer at once), and only when it is what `kind` expects — a FIFO or socket
    /// planted in a fixture tree, or a device node where an attribute was expected, is
    /// refused instead of hanging the tool.
    pub fn open(&self, abs: impl AsRef<Path>, kind: NodeKind) -> io::Result<fs::File> {
        use crate::files::read::{self, Accept, Links};
        let abs = abs.as_ref();
        let path = self.in_root(abs)?;
        // `in_root` resolved every link in a tree; one swapped in since must not be
        // followed.
        let links = if self.is_host() {
            Links::Follow
        } else {
            Links::NoFollow
        };
        let accept = match kind {
            NodeKind::File => Accept::File,
            NodeKind::FileOrCharDevice => Accept::FileOrCharDevice,
        };
        read::open_read(&path, accept, links).map_err(|e| {
            let Some(n) = read::not_regular(&e) else {
                return e;
            };
            if matches!(n.what, "a FIFO" | "a socket" | "a block device") {
                deadline::refuse(abs, n.what);
            }
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a regular file", abs.display()),
            )
        })
    }

    /// Read a whole file as text (lossy UTF-8: vendor kernels put Latin-1 in model names).
    pub fn read(&self, abs: impl AsRef<Path>) -> io::Result<String> {
        let bytes = self.read_bytes(abs)?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// Read a whole regular file as bytes, up to `MAX_READ`; a read that does not
    /// answer within [`READ_DEADLINE`] is given up (see `sys::deadline`).
    pub fn read_bytes(&self, abs: impl AsRef<Path>) -> io::Result<Vec<u8>> {
        self.read_bytes_max(abs, MAX_READ)
    }

    /// Read a whole regular file as bytes, refusing one larger than `max` bytes (the
    /// tuning guard keeps originals of sysfs attributes only: one page at most).
    pub fn read_bytes_max(&self, abs: impl AsRef<Path>, max: u64) -> io::Result<Vec<u8>> {
        let abs = abs.as_ref();
        if deadline::is_blocked(abs) {
            return Err(deadline::blocked_error(abs));
        }
        let file = self.open(abs, NodeKind::File)?;
        let mut buf = deadline::read_all(&file, abs, max, deadline::READ_DEADLINE)?;
        if buf.len() as u64 > max {
            if max == MAX_READ {
                buf.truncate(MAX_READ as usize);
            } else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: larger than {max} bytes", abs.display()),
                ));
            }
        }
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

    /// Does the path exist (file, directory or symlink target inside the root)?
    pub fn exists(&self, abs: impl AsRef<Path>) -> bool {
        self.in_root(abs).is_ok_and(|p| p.exists())
    }

    /// Names of the entries of a known directory, sorted naturally (`cpu2` before `cpu10`).
    /// Missing or unreadable directories give an empty list.
    pub fn list(&self, abs: impl AsRef<Path>) -> Vec<String> {
        let Ok(dir) = self.in_root(abs) else {
            return Vec::new();
        };
        let Ok(rd) = fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect();
        names.sort_by(|a, b| natural_cmp(a, b));
        names
    }

    /// The host path of the link `abs` itself: its directory resolved inside the root, its
    /// last component not followed.
    fn link_path(&self, abs: &Path) -> io::Result<PathBuf> {
        if self.is_host() {
            return Ok(self.path(abs));
        }
        resolve_in_root(&self.root, abs, false)
    }

    /// The last component of a symlink's target, e.g. the driver name behind
    /// `/sys/class/net/eth0/device/driver`.
    pub fn link_name(&self, abs: impl AsRef<Path>) -> Option<String> {
        let target = fs::read_link(self.link_path(abs.as_ref()).ok()?).ok()?;
        target
            .file_name()
            .and_then(OsStr::to_str)
            .map(str::to_string)
    }

    /// The symlink target as written (relative paths stay relative), for sysfs topology
    /// (`/sys/block/sda` → `../devices/platform/.../ata1/...`).
    pub fn link_target(&self, abs: impl AsRef<Path>) -> Option<PathBuf> {
        fs::read_link(self.link_path(abs.as_ref()).ok()?).ok()
    }

    /// Resolve symlinks and return the absolute *system* path (inside the root), e.g.
    /// `/sys/class/hwmon/hwmon0` → `/sys/devices/virtual/thermal/thermal_zone0/hwmon0`.
    pub fn resolve(&self, abs: impl AsRef<Path>) -> Option<PathBuf> {
        let real = if self.is_host() {
            fs::canonicalize(self.path(abs)).ok()?
        } else {
            let p = resolve_in_root(&self.root, abs.as_ref(), true).ok()?;
            if !p.exists() {
                return None;
            }
            p
        };
        let root = if self.is_host() {
            PathBuf::from("/")
        } else {
            self.root.clone()
        };
        let rel = real.strip_prefix(&root).ok()?;
        Some(Path::new("/").join(rel))
    }

    /// Write a value to a system file. Only `tune` calls this, through its restoring guard.
    /// The target must be a regular file (sysfs attributes are): a device node, FIFO or a
    /// link out of a `--sysroot` tree is never opened for writing.
    pub(crate) fn write(&self, abs: impl AsRef<Path>, value: &[u8]) -> io::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let abs = abs.as_ref();
        if self.read_only {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{}: --sysroot trees are only read (pass --sysroot-writable to tune a copy)",
                    abs.display()
                ),
            ));
        }
        let path = self.in_root(abs)?;
        if !fs::symlink_metadata(&path)?.file_type().is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a regular file", abs.display()),
            ));
        }
        // sysfs wants the whole value in one write(2); O_TRUNC is ignored there and needed
        // for the regular files of a fixture tree.
        let mut f = fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC | libc::O_NOFOLLOW)
            .open(&path)?;
        f.write_all(value)?;
        Ok(())
    }
}

/// What a caller expects to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A regular file: every procfs/sysfs attribute and every file of a fixture tree.
    File,
    /// A regular file or a character device (`/dev/kmsg`, which fixtures hold as a file).
    FileOrCharDevice,
}

/// How many symlinks one resolution follows before giving up (the kernel's limit).
const MAX_LINKS: usize = 40;

/// Resolve `abs` below `root` component by component, as the kernel would with `root` as
/// `/` (`openat2`'s `RESOLVE_IN_ROOT` semantics, done in user space so that it also works
/// on the 4.x/5.4 BSP kernels many boards run): `..` stops at the root, absolute link
/// targets start again at the root. `follow_last`: resolve a link in the last component
/// too. Components that do not exist are kept as they are (the open then fails).
fn resolve_in_root(root: &Path, abs: &Path, follow_last: bool) -> io::Result<PathBuf> {
    use std::ffi::OsString;
    use std::path::Component;
    fn push_components(stack: &mut Vec<OsString>, p: &Path) {
        for c in p.components().rev() {
            match c {
                Component::Normal(n) => stack.push(n.to_os_string()),
                Component::ParentDir => stack.push(OsString::from("..")),
                Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
            }
        }
    }
    let mut todo: Vec<OsString> = Vec::new();
    push_components(&mut todo, abs);
    let mut done: Vec<OsString> = Vec::new();
    let mut links = 0;
    let mut missing = false;
    while let Some(c) = todo.pop() {
        if c == ".." {
            done.pop();
            continue;
        }
        done.push(c);
        if missing || (!follow_last && todo.is_empty()) {
            continue;
        }
        let host: PathBuf = std::iter::once(root.as_os_str().to_os_string())
            .chain(done.iter().cloned())
            .collect();
        match fs::symlink_metadata(&host) {
            Ok(m) if m.file_type().is_symlink() => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(io::Error::from_raw_os_error(libc::ELOOP));
                }
                let target = fs::read_link(&host)?;
                done.pop();
                if target.is_absolute() {
                    done.clear();
                }
                push_components(&mut todo, &target);
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => missing = true,
            Err(e) => return Err(e),
        }
    }
    Ok(std::iter::once(root.as_os_str().to_os_string())
        .chain(done)
        .collect())
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
#[allow(clippy::disallowed_methods)]
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

    #[test]
    fn sysroot_links_out_of_the_tree_resolve_inside_it() {
        let d = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "host file\n").unwrap();
        std::fs::create_dir_all(d.path().join("sys/x")).unwrap();
        std::fs::create_dir_all(d.path().join("etc")).unwrap();
        std::fs::write(d.path().join("etc/hostname"), "fixture\n").unwrap();
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, d.path().join("sys/x").join(name)).unwrap()
        };
        link(&outside.path().join("secret"), "abs");
        link(Path::new("../../../../../../../../etc/hostname"), "dotdot");
        link(Path::new("/etc/hostname"), "abs_in_root");
        link(Path::new("loop"), "loop");
        let r = SysRoot::new(d.path());
        assert_eq!(r.value("/sys/x/abs"), None, "absolute link out of the tree");
        assert_eq!(r.value("/sys/x/dotdot").as_deref(), Some("fixture"));
        assert_eq!(r.value("/sys/x/abs_in_root").as_deref(), Some("fixture"));
        assert_eq!(r.value("/sys/x/loop"), None);
        assert_eq!(
            r.value("/sys/x/../../etc/hostname").as_deref(),
            Some("fixture")
        );
        assert_eq!(
            r.resolve("/sys/x/dotdot"),
            Some(PathBuf::from("/etc/hostname"))
        );
        assert!(!r.exists("/sys/x/abs"));
    }

    #[test]
    fn a_fifo_in_a_sysroot_does_not_hang_a_read() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        let fifo = d.path().join("proc/stat");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo on a NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let r = SysRoot::new(d.path());
        let t0 = std::time::Instant::now();
        let e = r.read("/proc/stat").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        assert_eq!(r.value("/proc/stat"), None);
        assert!(t0.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn a_read_only_root_refuses_writes() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a"), "1\n").unwrap();
        let r = SysRoot::new(d.path()).read_only();
        let e = r.write("/a", b"2").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert!(e.to_string().contains("--sysroot-writable"), "{e}");
        assert_eq!(std::fs::read(d.path().join("a")).unwrap(), b"1\n");
        let w = SysRoot::new(d.path());
        w.write("/a", b"2").unwrap();
        assert_eq!(std::fs::read(d.path().join("a")).unwrap(), b"2");
    }
}
