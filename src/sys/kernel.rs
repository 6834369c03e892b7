//! The facts `uname -a` prints, read through the [`SysRoot`] (so a fixture tree describes
//! its board, not this machine), the CPU vulnerability states `lscpu` lists, and the
//! kernel log lines the vendor-kernel checks look for.
//!
//! `uname(2)` answers from the running kernel; the same strings are files under
//! `/proc/sys/kernel/` (`ostype`, `hostname`, `osrelease`, `version`), and `/proc/version`
//! holds release and version once more for trees captured without them. The machine
//! (`uname -m`) is a host fact ([`HostFacts`]).

use serde::{Deserialize, Serialize};

use crate::sys::board::{self, HostFacts};
use crate::sys::kmsg;
use crate::sys::root::SysRoot;

/// `/proc/sys/kernel/ostype`: `uname -s`.
pub const OSTYPE: &str = "/proc/sys/kernel/ostype";
/// `/proc/sys/kernel/hostname`: `uname -n`.
pub const HOSTNAME: &str = "/proc/sys/kernel/hostname";
/// `/proc/sys/kernel/osrelease`: `uname -r`.
pub const OSRELEASE: &str = "/proc/sys/kernel/osrelease";
/// `/proc/sys/kernel/version`: `uname -v`.
pub const VERSION: &str = "/proc/sys/kernel/version";
/// `/proc/version`: `Linux version <release> (<builder>) (<compiler>) <version>`.
pub const PROC_VERSION: &str = "/proc/version";
/// `/etc/hostname`, for trees captured without `/proc/sys/kernel/hostname`.
pub const ETC_HOSTNAME: &str = "/etc/hostname";
/// The directory of CPU vulnerability states (one file each), which `lscpu` lists.
pub const VULNERABILITIES: &str = "/sys/devices/system/cpu/vulnerabilities";

/// What `uname -a` prints, field by field; `None` where the tree does not tell.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Uname {
    /// `uname -s` (`Linux`).
    pub sysname: Option<String>,
    /// `uname -n` (the hostname).
    pub nodename: Option<String>,
    /// `uname -r` (`6.1.0-rpi7-rpi-2712`).
    pub release: Option<String>,
    /// `uname -v` (`#1 SMP PREEMPT Debian 1:6.1.63-1+rpt1 (2023-11-24)`).
    pub version: Option<String>,
    /// `uname -m` (`aarch64`, `armv7l`, `riscv64`, `x86_64`).
    pub machine: Option<String>,
}

impl Uname {
    /// Read the fields through `root`.
    pub fn read(root: &SysRoot, host: &HostFacts) -> Self {
        let proc_version = root
            .read_opt(PROC_VERSION)
            .map(|t| parse_proc_version(&t))
            .unwrap_or_default();
        Self {
            sysname: root.value(OSTYPE),
            nodename: root.value(HOSTNAME).or_else(|| root.value(ETC_HOSTNAME)),
            release: root.value(OSRELEASE).or(proc_version.0),
            version: root.value(VERSION).or(proc_version.1),
            machine: board::kernel_machine(root, host),
        }
    }

    /// The line `uname -a` prints (GNU coreutils on Linux: kernel name, node name, release,
    /// version, machine, operating system; the processor and platform fields it omits as
    /// `unknown`). A field the tree does not hold is left out; the kernel name is `Linux`
    /// when `ostype` is missing, as nothing else runs this tool.
    pub fn line(&self) -> String {
        let mut f: Vec<&str> = vec![self.sysname.as_deref().unwrap_or("Linux")];
        f.extend(
            [&self.nodename, &self.release, &self.version, &self.machine]
                .into_iter()
                .filter_map(|v| v.as_deref()),
        );
        f.push("GNU/Linux");
        f.join(" ")
    }
}

/// Release and version from `/proc/version`: `Linux version 6.6.20+rpt-rpi-2712
/// (serge@raspberrypi.com) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for
/// Debian) 2.40) #1 SMP PREEMPT Debian 1:6.6.20-1+rpt1 (2024-03-07)`. The version is what
/// follows the builder and compiler, from the first ` #`; either part is `None` when the
/// text does not have that shape.
pub fn parse_proc_version(text: &str) -> (Option<String>, Option<String>) {
    let line = text.lines().next().unwrap_or_default().trim();
    let Some(rest) = line.strip_prefix("Linux version ") else {
        return (None, None);
    };
    let release = rest
        .split_whitespace()
        .next()
        .filter(|r| !r.is_empty())
        .map(str::to_string);
    let version = rest
        .find(" #")
        .map(|i| rest[i + 1..].trim().to_string())
        .filter(|v| !v.is_empty());
    (release, version)
}

/// One CPU vulnerability state, as `lscpu` shows it (`Vulnerability Spectre v1:` …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vulnerability {
    /// The file name (`spectre_v1`, `spec_store_bypass`).
    pub name: String,
    /// Its content (`Mitigation; __user pointer sanitization`, `Not affected`).
    pub state: String,
}

impl Vulnerability {
    /// The name as `lscpu` prints it: underscores become spaces, the first letter is upper
    /// case (`spec_store_bypass` → `Spec store bypass`).
    pub fn label(&self) -> String {
        let spaced = self.name.replace('_', " ");
        let mut c = spaced.chars();
        match c.next() {
            Some(first) => first.to_uppercase().chain(c).collect(),
            None => String::new(),
        }
    }
}

/// Every file of [`VULNERABILITIES`] in name order (the one directory listed here);
/// empty on kernels without it.
pub fn read_vulnerabilities(root: &SysRoot) -> Vec<Vulnerability> {
    let mut names = root.list(VULNERABILITIES);
    names.sort();
    names
        .into_iter()
        .filter_map(|name| {
            let state = root.value(format!("{VULNERABILITIES}/{name}"))?;
            Some(Vulnerability { name, state })
        })
        .collect()
}

/// The kernel log's messages, `None` when it cannot be read (not root with
/// `kernel.dmesg_restrict=1`, containers, trees without a `dev/kmsg` capture).
pub fn read_kernel_log(root: &SysRoot) -> Option<Vec<String>> {
    kmsg::read(root).map(|records| records.into_iter().map(|r| r.message).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/proc/version` of a Raspberry Pi 5 running Raspberry Pi OS (corpus log `frdzAn`'s
    /// kernel, the text as the kernel formats it).
    const RPI5_PROC_VERSION: &str = "Linux version 6.6.20+rpt-rpi-2712 (serge@raspberrypi.com) \
(gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT \
Debian 1:6.6.20-1+rpt1 (2024-03-07)\n";

    #[test]
    fn proc_version_gives_release_and_version() {
        let (r, v) = parse_proc_version(RPI5_PROC_VERSION);
        assert_eq!(r.as_deref(), Some("6.6.20+rpt-rpi-2712"));
        assert_eq!(
            v.as_deref(),
            Some("#1 SMP PREEMPT Debian 1:6.6.20-1+rpt1 (2024-03-07)")
        );
        assert_eq!(parse_proc_version("garbage"), (None, None));
        assert_eq!(parse_proc_version(""), (None, None));
        assert_eq!(
            parse_proc_version("Linux version 6.1.0"),
            (Some("6.1.0".into()), None)
        );
    }

    #[test]
    fn uname_line_as_coreutils_prints_it() {
        let u = Uname {
            sysname: Some("Linux".into()),
            nodename: Some("pi5".into()),
            release: Some("6.6.20+rpt-rpi-2712".into()),
            version: Some("#1 SMP PREEMPT Debian 1:6.6.20-1+rpt1 (2024-03-07)".into()),
            machine: Some("aarch64".into()),
        };
        assert_eq!(
            u.line(),
            "Linux pi5 6.6.20+rpt-rpi-2712 #1 SMP PREEMPT Debian 1:6.6.20-1+rpt1 (2024-03-07) aarch64 GNU/Linux"
        );
        let partial = Uname {
            release: Some("5.10.160".into()),
            ..Default::default()
        };
        assert_eq!(partial.line(), "Linux 5.10.160 GNU/Linux");
    }

    #[test]
    fn reads_a_tree_with_fallbacks() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        std::fs::create_dir_all(p.join("proc/sys/kernel")).unwrap();
        std::fs::create_dir_all(p.join("etc")).unwrap();
        std::fs::write(p.join("proc/version"), RPI5_PROC_VERSION).unwrap();
        std::fs::write(p.join("etc/hostname"), "pi5\n").unwrap();
        std::fs::write(p.join("proc/sys/kernel/ostype"), "Linux\n").unwrap();
        std::fs::write(p.join("host.json"), r#"{"machine":"aarch64"}"#).unwrap();
        let root = SysRoot::new(p);
        let u = Uname::read(&root, &HostFacts::read(&root));
        assert_eq!(u.nodename.as_deref(), Some("pi5"));
        assert_eq!(u.release.as_deref(), Some("6.6.20+rpt-rpi-2712"));
        assert_eq!(u.machine.as_deref(), Some("aarch64"));
        // osrelease wins over /proc/version.
        std::fs::write(p.join("proc/sys/kernel/osrelease"), "6.6.21\n").unwrap();
        std::fs::write(p.join("proc/sys/kernel/hostname"), "other\n").unwrap();
        let u = Uname::read(&root, &HostFacts::read(&root));
        assert_eq!(u.release.as_deref(), Some("6.6.21"));
        assert_eq!(u.nodename.as_deref(), Some("other"));
    }

    #[test]
    fn vulnerabilities_in_name_order_with_lscpu_labels() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("sys/devices/system/cpu/vulnerabilities");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("spectre_v2"), "Mitigation; CSV2, but not BHB\n").unwrap();
        std::fs::write(
            dir.join("spec_store_bypass"),
            "Mitigation; Speculative Store Bypass disabled via prctl\n",
        )
        .unwrap();
        std::fs::write(dir.join("meltdown"), "Not affected\n").unwrap();
        let v = read_vulnerabilities(&SysRoot::new(d.path()));
        let labels: Vec<String> = v.iter().map(Vulnerability::label).collect();
        assert_eq!(labels, ["Meltdown", "Spec store bypass", "Spectre v2"]);
        assert_eq!(v[2].state, "Mitigation; CSV2, but not BHB");
    }

    #[test]
    fn missing_log_is_none() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(read_kernel_log(&SysRoot::new(d.path())), None);
    }
}
