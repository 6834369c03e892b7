//! The board and the software on it: device name (device-tree `model` or DMI), the DT
//! `compatible` list, kernel release and configuration, userland architecture, distro,
//! virtualisation and container, page size.
//!
//! Facts that are not files (`uname -m`, the page size) come from the running system when
//! the root is `/`, and from `<sysroot>/host.json` in a fixture tree (see [`HostFacts`]).

use std::io::Read;

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// File in a fixture tree holding the host facts that are not files on a real system.
pub const HOST_FACTS_FILE: &str = "/host.json";

/// Host facts that are not files: `uname -m` and the page size.
///
/// On the live system they come from `uname(2)` and `sysconf(_SC_PAGESIZE)`; in a fixture
/// tree from `host.json` (`{"machine": "aarch64", "page_size": 16384}`). Unknown keys are
/// ignored so other parts can add their own facts to the same file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFacts {
    /// Kernel architecture as `uname -m` prints it (`aarch64`, `armv7l`, `x86_64`, `riscv64`).
    #[serde(default)]
    pub machine: Option<String>,
    /// Kernel page size in bytes (4096, 16384, 65536).
    #[serde(default)]
    pub page_size: Option<u64>,
}

impl HostFacts {
    /// Parse `host.json`; garbage gives empty facts.
    pub fn parse(text: &str) -> Self {
        serde_json::from_str(text).unwrap_or_default()
    }

    /// Read the host facts for `root`.
    pub fn read(root: &SysRoot) -> Self {
        if root.is_host() {
            Self {
                machine: live_machine(),
                page_size: live_page_size(),
            }
        } else {
            root.read_opt(HOST_FACTS_FILE)
                .map(|t| Self::parse(&t))
                .unwrap_or_default()
        }
    }
}

// `c_char` is i8 on x86 and u8 on Arm, so the cast below is needed on one and a no-op on the
// other.
#[allow(clippy::unnecessary_cast)]
fn live_machine() -> Option<String> {
    // SAFETY: `utsname` is plain old data, so all-zero is a valid value, and `uname` only
    // writes into the struct we own.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: see above; the pointer is valid for the duration of the call.
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    let bytes: Vec<u8> = u
        .machine
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8(bytes).ok().filter(|s| !s.is_empty())
}

fn live_page_size() -> Option<u64> {
    // SAFETY: sysconf has no preconditions.
    let v = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(v).ok().filter(|&v| v > 0)
}

/// Where the device name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NameSource {
    /// `/proc/device-tree/model`.
    DeviceTree,
    /// `/sys/class/dmi/id/*`.
    Dmi,
}

/// DMI (SMBIOS) identification, x86 and ACPI Arm machines.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dmi {
    /// `sys_vendor`.
    pub sys_vendor: Option<String>,
    /// `product_name`.
    pub product_name: Option<String>,
    /// `product_version`.
    pub product_version: Option<String>,
    /// `board_vendor`.
    pub board_vendor: Option<String>,
    /// `board_name`.
    pub board_name: Option<String>,
    /// `board_version`.
    pub board_version: Option<String>,
    /// `bios_vendor`.
    pub bios_vendor: Option<String>,
    /// `bios_version`.
    pub bios_version: Option<String>,
    /// `bios_date`.
    pub bios_date: Option<String>,
}

/// DMI attributes we read, in [`Dmi`] field order.
pub const DMI_FIELDS: &[&str] = &[
    "sys_vendor",
    "product_name",
    "product_version",
    "board_vendor",
    "board_name",
    "board_version",
    "bios_vendor",
    "bios_version",
    "bios_date",
];

/// Directory of the DMI attributes.
pub const DMI_DIR: &str = "/sys/class/dmi/id";

impl Dmi {
    /// Read the DMI attributes; `None` when the machine has no DMI.
    pub fn read(root: &SysRoot) -> Option<Self> {
        let v = |n: &str| root.value(format!("{DMI_DIR}/{n}"));
        let d = Self {
            sys_vendor: v("sys_vendor"),
            product_name: v("product_name"),
            product_version: v("product_version"),
            board_vendor: v("board_vendor"),
            board_name: v("board_name"),
            board_version: v("board_version"),
            bios_vendor: v("bios_vendor"),
            bios_version: v("bios_version"),
            bios_date: v("bios_date"),
        };
        (d != Self::default()).then_some(d)
    }

    /// `vendor product version`, leaving out the placeholders firmware vendors ship
    /// (`To Be Filled By O.E.M.`, `Default string`, `System Product Name`…).
    pub fn device_name(&self) -> Option<String> {
        let parts: Vec<&str> = [&self.sys_vendor, &self.product_name, &self.product_version]
            .into_iter()
            .filter_map(|s| s.as_deref())
            .filter(|s| !is_dmi_placeholder(s))
            .collect();
        let name = parts.join(" ");
        (!name.is_empty()).then_some(name)
    }
}

/// DMI strings that carry no information.
pub fn is_dmi_placeholder(s: &str) -> bool {
    let l = s.trim().to_ascii_lowercase();
    l.is_empty()
        || l.contains("o.e.m.")
        || l.contains("default string")
        || l.contains("system manufacturer")
        || l.contains("system product name")
        || l.contains("system version")
        || l.contains("product name")
        || l.contains("not applicable")
        || l.contains("not specified")
        || l.starts_with("not ")
        || l == "none"
        || l == "default"
        || l.contains("123456789")
        || l.contains("type1 - tbd")
}

/// The device as its firmware names it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardDevice {
    /// Name to show (`Radxa ROCK 5B`, `GEEKOM GT1 Mega`), `None` when nothing tells.
    pub name: Option<String>,
    /// Where [`BoardDevice::name`] came from.
    pub source: Option<NameSource>,
    /// Device-tree `model` as read.
    pub dt_model: Option<String>,
    /// DMI identification, when the machine has it.
    pub dmi: Option<Dmi>,
}

impl BoardDevice {
    /// Read the device name: device-tree model first (as sbc-bench), else DMI.
    pub fn read(root: &SysRoot) -> Self {
        let dt_model = root
            .read_opt("/proc/device-tree/model")
            .map(|s| clean_dt_string(&s))
            .filter(|s| !s.is_empty());
        let dmi = Dmi::read(root);
        let (name, source) = match (&dt_model, dmi.as_ref().and_then(Dmi::device_name)) {
            (Some(m), _) => (Some(m.clone()), Some(NameSource::DeviceTree)),
            (None, Some(d)) => (Some(d), Some(NameSource::Dmi)),
            (None, None) => (None, None),
        };
        Self {
            name,
            source,
            dt_model,
            dmi,
        }
    }
}

/// A device-tree string property: NUL-terminated, sometimes with stray whitespace.
pub fn clean_dt_string(raw: &str) -> String {
    raw.split('\0').next().unwrap_or("").trim().to_string()
}

/// Parse a device-tree string list (`compatible`): NUL-separated, most specific first.
pub fn parse_dt_string_list(raw: &str) -> Vec<String> {
    raw.split('\0')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// `/proc/device-tree/compatible` as a list.
pub fn read_compatible(root: &SysRoot) -> Vec<String> {
    root.read_opt("/proc/device-tree/compatible")
        .map(|s| parse_dt_string_list(&s))
        .unwrap_or_default()
}

/// The running kernel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kernel {
    /// `uname -r` (`/proc/sys/kernel/osrelease`).
    pub release: Option<String>,
    /// `uname -v` (`/proc/sys/kernel/version`).
    pub version: Option<String>,
    /// `uname -m` (host fact).
    pub machine: Option<String>,
    /// Where the configuration lines came from (`/boot/config-6.1.0`, `/proc/config.gz`).
    pub config_source: Option<String>,
    /// `CONFIG_HZ*` and `CONFIG_PREEMPT*` lines, sorted as sbc-bench prints them.
    #[serde(default)]
    pub config: Vec<String>,
    /// `/proc/cmdline`.
    pub cmdline: Option<String>,
}

/// `uname -r`: `/proc/sys/kernel/osrelease`.
pub fn kernel_release(root: &SysRoot) -> Option<String> {
    root.value("/proc/sys/kernel/osrelease")
}

/// `uname -m`: the host fact (`uname(2)` on the live system, a tree's `host.json`) first,
/// else `/proc/sys/kernel/arch` (kernels since 6.1) for trees without it.
pub fn kernel_machine(root: &SysRoot, host: &HostFacts) -> Option<String> {
    host.machine
        .clone()
        .or_else(|| root.value("/proc/sys/kernel/arch"))
}

impl Kernel {
    /// Read the kernel facts.
    pub fn read(root: &SysRoot, host: &HostFacts) -> Self {
        let release = kernel_release(root);
        let (config_source, config) = read_kernel_config(root, release.as_deref());
        Self {
            version: root.value("/proc/sys/kernel/version"),
            machine: kernel_machine(root, host),
            config_source,
            config,
            cmdline: root.value("/proc/cmdline"),
            release,
        }
    }

    /// `CONFIG_HZ` as a number, when the configuration tells.
    pub fn hz(&self) -> Option<u32> {
        self.config
            .iter()
            .find_map(|l| l.strip_prefix("CONFIG_HZ="))
            .and_then(|v| v.trim().parse().ok())
    }

    /// A kernel command line parameter (`root`, `console`): the last occurrence wins, as in
    /// the kernel.
    pub fn cmdline_param(&self, key: &str) -> Option<String> {
        cmdline_param(self.cmdline.as_deref()?, key)
    }
}

/// Value of `key=` on a kernel command line; the last occurrence wins.
pub fn cmdline_param(cmdline: &str, key: &str) -> Option<String> {
    cmdline
        .split_whitespace()
        .filter_map(|t| t.split_once('='))
        .filter(|(k, _)| *k == key)
        .map(|(_, v)| v.to_string())
        .next_back()
}

/// Largest decompressed kernel configuration we accept (real ones are 100–300 KiB).
const MAX_CONFIG: u64 = 4 * 1024 * 1024;

/// Kernel configuration lines sbc-bench reports: `/boot/config-$(uname -r)` first, else
/// `/proc/config.gz`.
pub fn read_kernel_config(root: &SysRoot, release: Option<&str>) -> (Option<String>, Vec<String>) {
    if let Some(r) = release {
        let p = format!("/boot/config-{r}");
        if let Some(text) = root.read_opt(&p) {
            return (Some(p), config_lines(&text));
        }
    }
    if let Some(text) = root
        .read_bytes("/proc/config.gz")
        .ok()
        .and_then(|gz| gunzip(&gz))
    {
        return (Some("/proc/config.gz".into()), config_lines(&text));
    }
    (None, Vec::new())
}

/// Decompress a gzip stream (pure Rust), at most `MAX_CONFIG` bytes; `None` when broken.
pub fn gunzip(gz: &[u8]) -> Option<String> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .take(MAX_CONFIG)
        .read_to_end(&mut out)
        .ok()?;
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// The `CONFIG_HZ*` and `CONFIG_PREEMPT*` lines of a kernel configuration, sorted the way
/// `sort -V` sorts them.
pub fn config_lines(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .lines()
        .map(|l| l.trim_end_matches('\r').trim())
        .filter(|l| l.starts_with("CONFIG_HZ") || l.starts_with("CONFIG_PREEMPT"))
        .map(str::to_string)
        .collect();
    v.sort_by(|a, b| version_cmp(a, b));
    v.dedup();
    v
}

/// GNU `sort -V` (gnulib `filevercmp` without its file-suffix rules, which never apply to
/// `CONFIG_*=…` lines): runs of non-digits compare letter-first (`A-Za-z` sort before every
/// other byte, `~` before everything), runs of digits numerically; ties fall back to a byte
/// comparison. That is why sbc-bench lists `CONFIG_PREEMPTION=y` before `CONFIG_PREEMPT=y`
/// (ODROID-N2+ log 4rWn, Raspberry Pi 5 log 8-NK).
pub fn version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    verrevcmp(a.as_bytes(), b.as_bytes()).then_with(|| a.cmp(b))
}

fn verrevcmp(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    // Weight of a non-digit byte; the end of the string and digits weigh 0.
    fn order(c: Option<&u8>) -> i32 {
        match c {
            None => 0,
            Some(c) if c.is_ascii_digit() => 0,
            Some(c) if c.is_ascii_alphabetic() => i32::from(*c),
            Some(b'~') => -1,
            Some(c) => i32::from(*c) + 256,
        }
    }
    let is_digit = |s: &[u8], i: usize| s.get(i).is_some_and(u8::is_ascii_digit);
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        while (i < a.len() && !is_digit(a, i)) || (j < b.len() && !is_digit(b, j)) {
            let (x, y) = (order(a.get(i)), order(b.get(j)));
            if x != y {
                return x.cmp(&y);
            }
            i += 1;
            j += 1;
        }
        while a.get(i) == Some(&b'0') {
            i += 1;
        }
        while b.get(j) == Some(&b'0') {
            j += 1;
        }
        let mut first_diff = Ordering::Equal;
        while is_digit(a, i) && is_digit(b, j) {
            if first_diff == Ordering::Equal {
                first_diff = a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
        if is_digit(a, i) {
            return Ordering::Greater;
        }
        if is_digit(b, j) {
            return Ordering::Less;
        }
        if first_diff != Ordering::Equal {
            return first_diff;
        }
    }
    Ordering::Equal
}

/// The architecture of the userland (what `dpkg --print-architecture` would say), which can
/// differ from the kernel's: a 32-bit armhf Raspberry Pi OS on a 64-bit kernel is common.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Userland {
    /// Debian-style architecture name (`arm64`, `armhf`, `armel`, `amd64`, `i386`, `riscv64`).
    pub arch: String,
    /// The file whose ELF header told us (`/bin/sh`).
    pub source: String,
}

/// Executables whose ELF header tells the userland architecture, in order of preference.
/// `/bin/sh` exists on every distro we know (Debian, Alpine, OpenWrt, Buildroot); init
/// is a fallback for minimal images.
pub const USERLAND_PROBES: &[&str] = &["/bin/sh", "/sbin/init", "/usr/bin/env", "/bin/busybox"];

impl Userland {
    /// Read the ELF header of the first probe that has one.
    pub fn read(root: &SysRoot) -> Option<Self> {
        USERLAND_PROBES.iter().find_map(|p| {
            let mut head = [0u8; 64];
            // `open` follows `/bin/sh → dash` inside the root, as the system would.
            let n = root
                .open(p, crate::sys::root::NodeKind::File)
                .and_then(|mut f| read_up_to(&mut f, &mut head))
                .ok()?;
            Some(Self {
                arch: elf_userland_arch(&head[..n])?,
                source: p.to_string(),
            })
        })
    }
}

fn read_up_to(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// ELF `e_machine` values we name.
const EM_386: u16 = 3;
const EM_MIPS: u16 = 8;
const EM_PPC64: u16 = 21;
const EM_S390: u16 = 22;
const EM_ARM: u16 = 40;
const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;
const EM_RISCV: u16 = 243;
const EM_LOONGARCH: u16 = 258;
/// `EF_ARM_ABI_FLOAT_HARD`: the EABI5 hard-float flag that tells armhf from armel.
const EF_ARM_ABI_FLOAT_HARD: u32 = 0x400;

/// Debian-style architecture name from the first bytes of an ELF file; `None` when it is
/// not ELF or the machine is one we do not name.
pub fn elf_userland_arch(h: &[u8]) -> Option<String> {
    if h.len() < 52 || h[..4] != [0x7f, b'E', b'L', b'F'] {
        return None;
    }
    let is64 = match h[4] {
        1 => false,
        2 => true,
        _ => return None,
    };
    let le = match h[5] {
        1 => true,
        2 => false,
        _ => return None,
    };
    let u16_at = |o: usize| {
        let b = [h[o], h[o + 1]];
        if le {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        }
    };
    let u32_at = |o: usize| -> Option<u32> {
        let b: [u8; 4] = h.get(o..o + 4)?.try_into().ok()?;
        Some(if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    };
    let flags = u32_at(if is64 { 48 } else { 36 })?;
    let name = match (u16_at(18), is64) {
        (EM_X86_64, true) => "amd64",
        (EM_X86_64, false) => "x32",
        (EM_386, false) => "i386",
        (EM_AARCH64, true) => {
            if le {
                "arm64"
            } else {
                "arm64be"
            }
        }
        (EM_ARM, false) => {
            if flags & EF_ARM_ABI_FLOAT_HARD != 0 {
                "armhf"
            } else {
                "armel"
            }
        }
        (EM_RISCV, true) => "riscv64",
        (EM_RISCV, false) => "riscv32",
        (EM_LOONGARCH, true) => "loong64",
        (EM_MIPS, true) => {
            if le {
                "mips64el"
            } else {
                "mips64"
            }
        }
        (EM_MIPS, false) => {
            if le {
                "mipsel"
            } else {
                "mips"
            }
        }
        (EM_PPC64, true) => {
            if le {
                "ppc64el"
            } else {
                "ppc64"
            }
        }
        (EM_S390, true) => "s390x",
        _ => return None,
    };
    Some(name.to_string())
}

/// The distribution, from `/etc/os-release` (and Armbian's `/etc/armbian-release`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distro {
    /// `PRETTY_NAME` (`Debian GNU/Linux 12 (bookworm)`).
    pub pretty_name: Option<String>,
    /// `NAME` (`Debian GNU/Linux`).
    pub name: Option<String>,
    /// `ID` (`debian`).
    pub id: Option<String>,
    /// `VERSION_ID` (`12`).
    pub version_id: Option<String>,
    /// `VERSION_CODENAME`, else `UBUNTU_CODENAME` (`bookworm`).
    pub codename: Option<String>,
    /// Armbian build information, when the image was built by Armbian.
    pub armbian: Option<ArmbianRelease>,
}

/// `/etc/armbian-release`: which Armbian build made the image.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArmbianRelease {
    /// `BOARD` (`orangepipcplus`).
    pub board: Option<String>,
    /// `BOARD_NAME` (`Orange Pi PC +`).
    pub board_name: Option<String>,
    /// `BOARDFAMILY` (`sun8i`).
    pub board_family: Option<String>,
    /// `VERSION` (`23.02.2`).
    pub version: Option<String>,
    /// `LINUXFAMILY` (`meson64`).
    pub linux_family: Option<String>,
    /// `BRANCH` (`current`, `edge`, `legacy`).
    pub branch: Option<String>,
    /// `BUILD_REPOSITORY_URL`.
    pub build_repository_url: Option<String>,
}

/// Parse a shell-style `KEY=value` file (`os-release`, `armbian-release`): quotes removed,
/// comments and garbage lines skipped. Later keys win.
pub fn parse_key_values(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r').trim();
        if line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let k = k.trim();
        if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .or_else(|| v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
            .unwrap_or(v);
        out.retain(|(ok, _)| ok != k);
        out.push((k.to_string(), v.to_string()));
    }
    out
}

fn get(kv: &[(String, String)], key: &str) -> Option<String> {
    kv.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.clone())
        .filter(|v| !v.is_empty())
}

impl Distro {
    /// Parse `os-release` text.
    pub fn parse(os_release: &str) -> Self {
        let kv = parse_key_values(os_release);
        Self {
            pretty_name: get(&kv, "PRETTY_NAME"),
            name: get(&kv, "NAME"),
            id: get(&kv, "ID"),
            version_id: get(&kv, "VERSION_ID"),
            codename: get(&kv, "VERSION_CODENAME").or_else(|| get(&kv, "UBUNTU_CODENAME")),
            armbian: None,
        }
    }

    /// Read `/etc/os-release` (else `/usr/lib/os-release`) and `/etc/armbian-release`.
    pub fn read(root: &SysRoot) -> Option<Self> {
        let text = root
            .read_opt("/etc/os-release")
            .or_else(|| root.read_opt("/usr/lib/os-release"));
        let armbian = root
            .read_opt("/etc/armbian-release")
            .map(|t| ArmbianRelease::parse(&t));
        match (text, armbian) {
            (None, None) => None,
            (t, a) => {
                let mut d = t.map(|t| Self::parse(&t)).unwrap_or_default();
                d.armbian = a;
                Some(d)
            }
        }
    }

    /// `Distributor ID` as `lsb_release` prints it: the first word of `NAME`
    /// (`Debian`, `Ubuntu`, `Raspbian`).
    pub fn distributor_id(&self) -> Option<String> {
        self.name
            .as_deref()
            .and_then(|n| n.split_whitespace().next())
            .map(str::to_string)
    }
}

impl ArmbianRelease {
    /// Parse `/etc/armbian-release`.
    pub fn parse(text: &str) -> Self {
        let kv = parse_key_values(text);
        Self {
            board: get(&kv, "BOARD"),
            board_name: get(&kv, "BOARD_NAME"),
            board_family: get(&kv, "BOARDFAMILY"),
            version: get(&kv, "VERSION"),
            linux_family: get(&kv, "LINUXFAMILY"),
            branch: get(&kv, "BRANCH"),
            build_repository_url: get(&kv, "BUILD_REPOSITORY_URL"),
        }
    }
}

/// Whether we run in a virtual machine and/or a container, and which.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Virtualization {
    /// Hypervisor (`kvm`, `qemu`, `vmware`, `oracle`, `xen`, `microsoft`, `amazon`,
    /// `apple`…; systemd-detect-virt's names), `vm-other` when a VM is certain but the
    /// hypervisor unnamed, `None` on bare metal as far as we can tell.
    pub vm: Option<String>,
    /// Container manager (`docker`, `podman`, `lxc`, `systemd-nspawn`, `wsl`…), `None` when
    /// not in a container as far as we can tell.
    pub container: Option<String>,
    /// What the verdicts rest on, one phrase each.
    #[serde(default)]
    pub evidence: Vec<String>,
}

impl Virtualization {
    /// Short form as sbc-bench prints it after the kernel (`kvm`, `docker`, `kvm/docker`).
    pub fn short(&self) -> Option<String> {
        match (&self.vm, &self.container) {
            (None, None) => None,
            (Some(v), None) => Some(v.clone()),
            (None, Some(c)) => Some(c.clone()),
            (Some(v), Some(c)) => Some(format!("{v}/{c}")),
        }
    }

    /// What `systemd-detect-virt` prints, which is what sbc-bench shows after the kernel
    /// architecture: the container when there is one (it is checked first), else the VM.
    pub fn systemd_name(&self) -> Option<String> {
        self.container.clone().or_else(|| self.vm.clone())
    }
}

/// DMI strings that name a hypervisor, matched case-insensitively as substrings; first match
/// wins (systemd-detect-virt's vendor table, which is public behaviour).
const DMI_VM_VENDORS: &[(&str, &str)] = &[
    ("kvm", "kvm"),
    ("amazon ec2", "amazon"),
    ("qemu", "qemu"),
    ("vmware", "vmware"),
    ("vmw", "vmware"),
    ("innotek gmbh", "oracle"),
    ("virtualbox", "oracle"),
    ("oracle corporation", "oracle"),
    ("xen", "xen"),
    ("bochs", "bochs"),
    ("parallels", "parallels"),
    ("bhyve", "bhyve"),
    ("hyper-v", "microsoft"),
    ("apple virtualization", "apple"),
    ("google compute engine", "google"),
    ("alibaba cloud ecs", "alibaba"),
    ("openstack", "openstack"),
    ("rhev hypervisor", "kvm"),
];

/// Name the hypervisor from DMI fields.
pub fn vm_from_dmi(dmi: &Dmi) -> Option<(String, String)> {
    let fields = [
        ("sys_vendor", &dmi.sys_vendor),
        ("product_name", &dmi.product_name),
        ("board_vendor", &dmi.board_vendor),
        ("bios_vendor", &dmi.bios_vendor),
        ("product_version", &dmi.product_version),
    ];
    for (field, val) in fields {
        let Some(v) = val else { continue };
        let l = v.to_ascii_lowercase();
        if let Some((_, kind)) = DMI_VM_VENDORS.iter().find(|(pat, _)| l.contains(pat)) {
            return Some((kind.to_string(), format!("DMI {field} '{v}'")));
        }
        // Hyper-V guests say "Microsoft Corporation" / "Virtual Machine".
        if field == "product_name"
            && l == "virtual machine"
            && dmi
                .sys_vendor
                .as_deref()
                .is_some_and(|s| s.to_ascii_lowercase().contains("microsoft"))
        {
            return Some(("microsoft".into(), format!("DMI {field} '{v}'")));
        }
    }
    None
}

/// Container manager from `/proc/1/cgroup` text.
pub fn container_from_cgroup(text: &str) -> Option<String> {
    for line in text.lines() {
        let path = line.rsplit(':').next().unwrap_or("");
        if path.contains("/docker/") || path.contains("docker-") {
            return Some("docker".into());
        }
        if path.contains("/libpod") {
            return Some("podman".into());
        }
        if path.contains("kubepods") {
            return Some("kubernetes".into());
        }
        if path.contains("/lxc/") || path.contains("lxc.payload") {
            return Some("lxc".into());
        }
    }
    None
}

/// `container=` from a NUL-separated environment block (`/proc/1/environ`).
pub fn container_from_environ(env: &str) -> Option<String> {
    env.split('\0')
        .filter_map(|kv| kv.strip_prefix("container="))
        .map(str::trim)
        .find(|v| !v.is_empty())
        .map(|v| if v == "oci" { "container-other" } else { v }.to_string())
}

/// Hypervisor signatures of CPUID leaf 0x40000000 (EBX, ECX, EDX as 12 bytes) and the
/// names systemd-detect-virt gives them.
const CPUID_VM_SIGNATURES: &[(&[u8], &str)] = &[
    (b"KVMKVMKVM\0\0\0", "kvm"),
    (b"Linux KVM Hv", "kvm"),
    (b"Microsoft Hv", "microsoft"),
    (b"VMwareVMware", "vmware"),
    (b"XenVMMXenVMM", "xen"),
    (b"TCGTCGTCGTCG", "qemu"),
    (b"ACRNACRNACRN", "acrn"),
    (b"bhyve bhyve ", "bhyve"),
    (b"QNXQVMBSQG\0\0", "qnx"),
    (b"VBoxVBoxVBox", "oracle"),
];

/// Name the hypervisor from its CPUID signature; `None` for one we do not know.
pub fn vm_from_cpuid_signature(sig: &[u8; 12]) -> Option<&'static str> {
    CPUID_VM_SIGNATURES
        .iter()
        .find(|(s, _)| *s == sig.as_slice())
        .map(|(_, name)| *name)
}

/// The signature as text for the evidence line: printable ASCII kept, the rest `.`,
/// trailing NULs dropped.
fn signature_text(sig: &[u8; 12]) -> String {
    let end = sig.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    sig[..end]
        .iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '.'
            }
        })
        .collect()
}

/// CPUID leaf 0x40000000 of the CPU we run on, when leaf 1 says a hypervisor is present
/// (ECX bit 31; without it the leaf is undefined). `None` elsewhere and off x86.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
pub fn live_cpuid_hypervisor_signature() -> Option<[u8; 12]> {
    #[cfg(target_arch = "x86")]
    use core::arch::x86::{__cpuid, has_cpuid};
    #[cfg(target_arch = "x86_64")]
    use core::arch::x86_64::__cpuid;
    #[cfg(target_arch = "x86")]
    if !has_cpuid() {
        return None;
    }
    // SAFETY: CPUID exists on every x86_64 CPU (and was checked above on x86); it only
    // reads identification registers.
    #[allow(unused_unsafe)]
    let leaf1 = unsafe { __cpuid(1) };
    if leaf1.ecx & (1 << 31) == 0 {
        return None;
    }
    // SAFETY: as above; leaf 0x40000000 is defined whenever the hypervisor bit is set.
    #[allow(unused_unsafe)]
    let r = unsafe { __cpuid(0x4000_0000) };
    let mut sig = [0u8; 12];
    sig[..4].copy_from_slice(&r.ebx.to_le_bytes());
    sig[4..8].copy_from_slice(&r.ecx.to_le_bytes());
    sig[8..].copy_from_slice(&r.edx.to_le_bytes());
    Some(sig)
}

/// CPUID leaf 0x40000000 of the CPU we run on: never off x86.
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
pub fn live_cpuid_hypervisor_signature() -> Option<[u8; 12]> {
    None
}

impl Virtualization {
    /// Detect VM and container from files, plus — only when reading the live system, so
    /// fixtures tell the truth about the board they came from — the x86 CPUID hypervisor
    /// signature (leaf 0x40000000).
    pub fn detect(root: &SysRoot, dmi: Option<&Dmi>, kernel_release: Option<&str>) -> Self {
        let cpuid = if root.is_host() {
            live_cpuid_hypervisor_signature()
        } else {
            None
        };
        Self::detect_with_cpuid(root, dmi, kernel_release, cpuid)
    }

    /// [`Virtualization::detect`] with the CPUID signature given (tests, fixtures).
    pub fn detect_with_cpuid(
        root: &SysRoot,
        dmi: Option<&Dmi>,
        kernel_release: Option<&str>,
        cpuid_signature: Option<[u8; 12]>,
    ) -> Self {
        let mut v = Self::default();
        // Virtual machine.
        if let Some((kind, why)) = dmi.and_then(vm_from_dmi) {
            v.vm = Some(kind);
            v.evidence.push(why);
        }
        if v.vm.is_none() {
            if let Some(sig) = &cpuid_signature {
                let text = signature_text(sig);
                match vm_from_cpuid_signature(sig) {
                    Some(kind) => {
                        v.vm = Some(kind.into());
                        v.evidence
                            .push(format!("CPUID hypervisor signature '{text}'"));
                    }
                    None => {
                        v.vm = Some("vm-other".into());
                        v.evidence
                            .push(format!("CPUID hypervisor bit, unknown signature '{text}'"));
                    }
                }
            }
        }
        if v.vm.is_none() {
            if let Some(t) = root.value("/sys/hypervisor/type") {
                v.vm = Some(t.to_ascii_lowercase());
                v.evidence.push(format!("/sys/hypervisor/type '{t}'"));
            }
        }
        if v.vm.is_none() {
            if let Some(c) = root.read_opt("/proc/device-tree/hypervisor/compatible") {
                let list = parse_dt_string_list(&c);
                let kind = if list.iter().any(|s| s.starts_with("xen")) {
                    "xen"
                } else if list.iter().any(|s| s.contains("kvm")) {
                    "kvm"
                } else {
                    "vm-other"
                };
                v.vm = Some(kind.into());
                v.evidence
                    .push(format!("device-tree hypervisor node '{}'", list.join(",")));
            }
        }
        if v.vm.is_none()
            && read_compatible(root)
                .iter()
                .any(|c| c == "linux,dummy-virt")
        {
            v.vm = Some("qemu".into());
            v.evidence
                .push("device-tree compatible 'linux,dummy-virt'".into());
        }
        if v.vm.is_none()
            && cpuinfo_has_hypervisor_flag(&root.read_opt("/proc/cpuinfo").unwrap_or_default())
        {
            v.vm = Some("vm-other".into());
            v.evidence
                .push("cpuinfo flag 'hypervisor' (hypervisor not named)".into());
        }
        // Container.
        let wsl = kernel_release.is_some_and(|r| r.to_ascii_lowercase().contains("microsoft"));
        if wsl {
            v.container = Some("wsl".into());
            v.evidence
                .push("kernel release names Microsoft (WSL)".into());
        } else if root.exists("/.dockerenv") {
            v.container = Some("docker".into());
            v.evidence.push("/.dockerenv exists".into());
        } else if root.exists("/run/.containerenv") {
            v.container = Some("podman".into());
            v.evidence.push("/run/.containerenv exists".into());
        } else if let Some(c) = root.value("/run/systemd/container") {
            v.evidence.push(format!("/run/systemd/container '{c}'"));
            v.container = Some(c);
        } else if let Some(c) = root
            .read_opt("/proc/1/environ")
            .and_then(|e| container_from_environ(&e))
        {
            v.evidence.push(format!("/proc/1/environ container={c}"));
            v.container = Some(c);
        } else if let Some(c) = root
            .read_opt("/proc/1/cgroup")
            .and_then(|t| container_from_cgroup(&t))
        {
            v.evidence.push(format!("/proc/1/cgroup names {c}"));
            v.container = Some(c);
        } else if root.exists("/proc/vz") && !root.exists("/proc/bc") {
            v.container = Some("openvz".into());
            v.evidence.push("/proc/vz without /proc/bc".into());
        }
        v
    }
}

/// Does cpuinfo carry the x86 `hypervisor` CPUID flag?
pub fn cpuinfo_has_hypervisor_flag(cpuinfo: &str) -> bool {
    cpuinfo.lines().any(|l| {
        l.split_once(':').is_some_and(|(k, v)| {
            k.trim() == "flags" && v.split_whitespace().any(|f| f == "hypervisor")
        })
    })
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// `/etc/os-release` of Raspberry Pi OS (bullseye, armhf), as in corpus log 4pzj.
    const RASPBIAN: &str = "PRETTY_NAME=\"Raspbian GNU/Linux 11 (bullseye)\"\nNAME=\"Raspbian GNU/Linux\"\nVERSION_ID=\"11\"\nVERSION=\"11 (bullseye)\"\nVERSION_CODENAME=bullseye\nID=raspbian\nID_LIKE=debian\n";

    #[test]
    fn os_release_raspbian() {
        let d = Distro::parse(RASPBIAN);
        assert_eq!(
            d.pretty_name.as_deref(),
            Some("Raspbian GNU/Linux 11 (bullseye)")
        );
        assert_eq!(d.distributor_id().as_deref(), Some("Raspbian"));
        assert_eq!(d.version_id.as_deref(), Some("11"));
        assert_eq!(d.codename.as_deref(), Some("bullseye"));
    }

    #[test]
    fn os_release_crlf_and_garbage() {
        let d = Distro::parse("garbage\r\nNAME='Ubuntu'\r\nUBUNTU_CODENAME=focal\r\n=x\n#ID=no\n");
        assert_eq!(d.name.as_deref(), Some("Ubuntu"));
        assert_eq!(d.codename.as_deref(), Some("focal"));
        assert_eq!(d.id, None);
        assert_eq!(Distro::parse(""), Distro::default());
    }

    #[test]
    fn armbian_release() {
        let a = ArmbianRelease::parse(
            "BOARD=orangepipcplus\nBOARD_NAME=\"Orange Pi PC +\"\nBOARDFAMILY=sun8i\nBUILD_REPOSITORY_URL=https://github.com/armbian/build\nVERSION=21.08.2\nLINUXFAMILY=sunxi\nBRANCH=current\n",
        );
        assert_eq!(a.board_name.as_deref(), Some("Orange Pi PC +"));
        assert_eq!(a.linux_family.as_deref(), Some("sunxi"));
    }

    #[test]
    fn config_lines_sorted_like_sort_v() {
        // Order as in the ROCK 5B log 4qJG.
        let text = "CONFIG_PREEMPT_VOLUNTARY=y\n# CONFIG_PREEMPT_NONE is not set\nCONFIG_HZ_300=y\nCONFIG_PREEMPT_RCU=y\nCONFIG_HZ=300\nCONFIG_PREEMPTION=y\nCONFIG_PREEMPT_BUILD=y\nCONFIG_SMP=y\n";
        assert_eq!(
            config_lines(text),
            [
                "CONFIG_HZ=300",
                "CONFIG_HZ_300=y",
                "CONFIG_PREEMPTION=y",
                "CONFIG_PREEMPT_BUILD=y",
                "CONFIG_PREEMPT_RCU=y",
                "CONFIG_PREEMPT_VOLUNTARY=y",
            ]
        );
    }

    #[test]
    fn sort_v_puts_letters_before_punctuation() {
        // ODROID-N2+ (corpus log 4rWn) and Raspberry Pi 4 (4pzj), in the logs' order.
        let text = "CONFIG_PREEMPT=y\nCONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPTION=y\nCONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_PREEMPT_COUNT=y\n";
        assert_eq!(
            config_lines(text),
            [
                "CONFIG_HZ=250",
                "CONFIG_HZ_250=y",
                "CONFIG_PREEMPTION=y",
                "CONFIG_PREEMPT=y",
                "CONFIG_PREEMPT_BUILD=y",
                "CONFIG_PREEMPT_COUNT=y",
            ]
        );
        let pi4 = "CONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_HZ_FIXED=0\nCONFIG_PREEMPTIRQ_TRACEPOINTS=y\nCONFIG_HZ_100=y\nCONFIG_HZ=100\n";
        assert_eq!(
            config_lines(pi4),
            [
                "CONFIG_HZ=100",
                "CONFIG_HZ_100=y",
                "CONFIG_HZ_FIXED=0",
                "CONFIG_PREEMPTIRQ_TRACEPOINTS=y",
                "CONFIG_PREEMPT_VOLUNTARY=y",
            ]
        );
        // Numbers compare as numbers, `~` first, garbage does not panic.
        use std::cmp::Ordering::*;
        assert_eq!(version_cmp("CONFIG_HZ_1000=y", "CONFIG_HZ_250=y"), Greater);
        assert_eq!(version_cmp("a~", "a"), Less);
        assert_eq!(version_cmp("x007", "x7"), Less);
        assert_eq!(version_cmp("", "\u{ff}"), Less);
    }

    #[test]
    fn gunzip_roundtrip_and_garbage() {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b"CONFIG_HZ=250\nCONFIG_HZ_250=y\n").unwrap();
        let gz = e.finish().unwrap();
        assert_eq!(
            config_lines(&gunzip(&gz).unwrap()),
            ["CONFIG_HZ=250", "CONFIG_HZ_250=y"]
        );
        assert_eq!(gunzip(b"not gzip at all"), None);
        assert_eq!(gunzip(&gz[..10]), None);
    }

    #[test]
    fn cmdline_root() {
        // NanoPi R5S, corpus log 4L4u.
        let c = "storagemedia=sd console=ttyFIQ0 coherent_pool=1m rw root=/dev/mmcblk0p8 rootfstype=ext4 data=/dev/mmcblk0p9";
        assert_eq!(cmdline_param(c, "root").as_deref(), Some("/dev/mmcblk0p8"));
        assert_eq!(cmdline_param(c, "nope"), None);
        assert_eq!(cmdline_param("root=a root=b", "root").as_deref(), Some("b"));
    }

    fn elf(class: u8, data: u8, machine: u16, flags: u32) -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = class;
        h[5] = data;
        h[6] = 1;
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        let fo = if class == 2 { 48 } else { 36 };
        h[fo..fo + 4].copy_from_slice(&flags.to_le_bytes());
        h
    }

    #[test]
    fn elf_arches() {
        assert_eq!(
            elf_userland_arch(&elf(2, 1, 183, 0)).as_deref(),
            Some("arm64")
        );
        assert_eq!(
            elf_userland_arch(&elf(1, 1, 40, 0x0500_0400)).as_deref(),
            Some("armhf")
        );
        assert_eq!(
            elf_userland_arch(&elf(1, 1, 40, 0x0500_0200)).as_deref(),
            Some("armel")
        );
        assert_eq!(
            elf_userland_arch(&elf(2, 1, 62, 0)).as_deref(),
            Some("amd64")
        );
        assert_eq!(
            elf_userland_arch(&elf(2, 1, 243, 5)).as_deref(),
            Some("riscv64")
        );
        assert_eq!(elf_userland_arch(&elf(1, 1, 3, 0)).as_deref(), Some("i386"));
        assert_eq!(elf_userland_arch(b"#!/bin/sh\n"), None);
        assert_eq!(elf_userland_arch(&elf(2, 1, 183, 0)[..20]), None);
        assert_eq!(elf_userland_arch(&elf(3, 1, 183, 0)), None);
    }

    #[test]
    fn live_binary_is_elf() {
        // Our own test binary is an ELF file of the target architecture.
        let exe = std::env::current_exe().unwrap();
        let mut head = [0u8; 64];
        let n = read_up_to(&mut std::fs::File::open(exe).unwrap(), &mut head).unwrap();
        let arch = elf_userland_arch(&head[..n]).unwrap();
        let want = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            "arm" => "armhf",
            "riscv64" => "riscv64",
            other => other,
        };
        assert_eq!(arch, want);
    }

    #[test]
    fn dmi_names_and_vms() {
        let d = Dmi {
            sys_vendor: Some("GEEKOM".into()),
            product_name: Some("GT1 Mega".into()),
            product_version: Some("To Be Filled By O.E.M.".into()),
            ..Default::default()
        };
        assert_eq!(d.device_name().as_deref(), Some("GEEKOM GT1 Mega"));
        assert_eq!(vm_from_dmi(&d), None);
        let q = Dmi {
            sys_vendor: Some("QEMU".into()),
            product_name: Some("Standard PC (Q35 + ICH9, 2009)".into()),
            ..Default::default()
        };
        assert_eq!(vm_from_dmi(&q).map(|x| x.0).as_deref(), Some("qemu"));
        let h = Dmi {
            sys_vendor: Some("Microsoft Corporation".into()),
            product_name: Some("Virtual Machine".into()),
            ..Default::default()
        };
        assert_eq!(vm_from_dmi(&h).map(|x| x.0).as_deref(), Some("microsoft"));
    }

    #[test]
    fn containers() {
        assert_eq!(
            container_from_cgroup("12:pids:/docker/3f2a\n0::/\n").as_deref(),
            Some("docker")
        );
        // This VM's own /proc/1/cgroup: no container named there.
        assert_eq!(container_from_cgroup("9:name=systemd:/\n0::/\n"), None);
        assert_eq!(
            container_from_environ("PATH=/bin\0container=lxc\0").as_deref(),
            Some("lxc")
        );
        assert_eq!(container_from_environ("garbage"), None);
    }

    #[test]
    fn cpuid_signatures_name_the_hypervisor() {
        let sig = |s: &[u8]| -> [u8; 12] {
            let mut a = [0u8; 12];
            a[..s.len()].copy_from_slice(s);
            a
        };
        assert_eq!(vm_from_cpuid_signature(&sig(b"KVMKVMKVM")), Some("kvm"));
        assert_eq!(
            vm_from_cpuid_signature(&sig(b"Microsoft Hv")),
            Some("microsoft")
        );
        assert_eq!(vm_from_cpuid_signature(&sig(b"TCGTCGTCGTCG")), Some("qemu"));
        assert_eq!(vm_from_cpuid_signature(&sig(b"QNXQVMBSQG")), Some("qnx"));
        assert_eq!(
            vm_from_cpuid_signature(&sig(b"bhyve bhyve ")),
            Some("bhyve")
        );
        assert_eq!(vm_from_cpuid_signature(&sig(b"\x01garbage")), None);
        assert_eq!(signature_text(&sig(b"KVMKVMKVM")), "KVMKVMKVM");
        assert_eq!(signature_text(&sig(b"\x01ab")), ".ab");

        // This machine's tree (cpuinfo `hypervisor` flag, no DMI) with the KVM signature:
        // named; an unknown signature stays vm-other; DMI still comes first.
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::write(d.path().join("proc/cpuinfo"), "flags\t\t: fpu hypervisor\n").unwrap();
        let root = SysRoot::new(d.path());
        let v = Virtualization::detect_with_cpuid(&root, None, None, Some(sig(b"KVMKVMKVM")));
        assert_eq!(v.vm.as_deref(), Some("kvm"));
        assert_eq!(v.evidence, ["CPUID hypervisor signature 'KVMKVMKVM'"]);
        let v = Virtualization::detect_with_cpuid(&root, None, None, Some(sig(b"zzzz")));
        assert_eq!(v.vm.as_deref(), Some("vm-other"));
        let dmi = Dmi {
            sys_vendor: Some("QEMU".into()),
            ..Default::default()
        };
        let v = Virtualization::detect_with_cpuid(&root, Some(&dmi), None, Some(sig(b"KVMKVMKVM")));
        assert_eq!(v.vm.as_deref(), Some("qemu"));
        // A fixture tree is never given the live CPUID.
        let v = Virtualization::detect(&root, None, None);
        assert_eq!(v.vm.as_deref(), Some("vm-other"));
    }

    #[test]
    fn hypervisor_flag() {
        assert!(cpuinfo_has_hypervisor_flag(
            "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n"
        ));
        assert!(!cpuinfo_has_hypervisor_flag(
            "Features\t: fp asimd hypervisor_x\n"
        ));
    }

    #[test]
    fn host_facts_json() {
        let h = HostFacts::parse(r#"{"machine":"aarch64","page_size":16384,"other":1}"#);
        assert_eq!(h.machine.as_deref(), Some("aarch64"));
        assert_eq!(h.page_size, Some(16384));
        assert_eq!(HostFacts::parse("{garbage"), HostFacts::default());
        let live = HostFacts::read(&SysRoot::host());
        assert!(live.machine.is_some());
        assert!(live.page_size.unwrap_or(0) >= 4096);
    }

    #[test]
    fn dt_strings() {
        assert_eq!(
            parse_dt_string_list("radxa,rock-5b\0rockchip,rk3588\0"),
            ["radxa,rock-5b", "rockchip,rk3588"]
        );
        assert_eq!(clean_dt_string("Radxa ROCK 5B\0"), "Radxa ROCK 5B");
        assert!(parse_dt_string_list("\0\0").is_empty());
    }
}
