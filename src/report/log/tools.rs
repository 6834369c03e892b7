//! The log sections sbc-bench takes from `dmidecode`, `iostat`, `free`, `swapon`,
//! `lscpu` and `lshw`, rendered in their layouts from what `sys::logsec` read: the
//! `Device Info:`/`BIOS/UEFI:` blocks, the `iostat`/`free -h`/`swapon -s` block at the
//! start and end, the lscpu summary, `RAM configuration:` with the per-CPU cache list,
//! and the I2C supply voltages above the OPP tables.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::sys::discover::SystemInfo;
use crate::sys::dmi::{DmiInfo, MemoryDevice};
use crate::sys::iostat::IoStat;
use crate::sys::lscpu::Lscpu;
use crate::sys::meminfo::{FreeAndSwaps, FreeTable};
use crate::sys::regulator;

/// `Device Info:` and `BIOS/UEFI:` as sbc-bench prints them after the distro lines (each
/// after a blank line, values after a tab); empty without DMI.
pub fn dmi_blocks(d: &DmiInfo) -> String {
    let mut s = String::new();
    for (title, lines) in [("Device Info", &d.system), ("BIOS/UEFI", &d.bios)] {
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(s, "{title}:");
        for (k, v) in lines {
            let _ = writeln!(s, "\t{k}: {v}");
        }
        s.push('\n');
    }
    s
}

/// `free -h`'s human sizes (procps 4): bytes up to 4 characters (`0B`), else the
/// smallest binary unit whose value fits 5 characters with one decimal (`8.0Gi`) or
/// without (`125Gi`, truncated as procps truncates).
pub fn free_human(kib: u64) -> String {
    let bytes = kib.saturating_mul(1024);
    let b = format!("{bytes}B");
    if b.len() <= 4 {
        return b;
    }
    let mut div = 1.0f64;
    for unit in ["Ki", "Mi", "Gi", "Ti", "Pi"] {
        div *= 1024.0;
        let v = bytes as f64 / div;
        let one = format!("{v:.1}{unit}");
        if one.len() <= 5 {
            return one;
        }
        let int = format!("{}{unit}", v as u64);
        if int.len() <= 5 {
            return int;
        }
    }
    format!("{}Ei", bytes >> 60)
}

/// `free -h`'s table (procps 4 layout).
pub fn free_table(f: &FreeTable) -> String {
    let h = free_human;
    let mut s = String::from(
        "               total        used        free      shared  buff/cache   available\n",
    );
    let _ = writeln!(
        s,
        "{:<8}{:>12}{:>12}{:>12}{:>12}{:>12}{:>12}",
        "Mem:",
        h(f.total_kib),
        h(f.used_kib()),
        h(f.free_kib),
        h(f.shared_kib),
        h(f.buff_cache_kib),
        h(f.available_kib)
    );
    let _ = writeln!(
        s,
        "{:<8}{:>12}{:>12}{:>12}",
        "Swap:",
        h(f.swap_total_kib),
        h(f.swap_used_kib()),
        h(f.swap_total_kib.saturating_sub(f.swap_used_kib()))
    );
    s
}

/// The facts of iostat's first line.
pub struct IostatHead<'a> {
    /// Kernel release.
    pub release: Option<&'a str>,
    /// Host name.
    pub hostname: Option<&'a str>,
    /// `mm/dd/yy` of the run.
    pub date: String,
    /// `uname -m`.
    pub machine: Option<&'a str>,
    /// Online CPUs.
    pub cpus: usize,
}

/// `iostat`'s output since boot: its first line, `avg-cpu:` and the `Device` table.
pub fn iostat(io: &IoStat, head: &IostatHead) -> String {
    let mut s = String::new();
    if let (Some(rel), Some(m)) = (head.release, head.machine) {
        let _ = writeln!(
            s,
            "Linux {rel} ({}) \t{} \t_{m}_\t({} CPU)\n",
            head.hostname.unwrap_or("localhost"),
            head.date,
            head.cpus
        );
    }
    if let Some(a) = io.cpu.and_then(|c| c.avg()) {
        s.push_str("avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n");
        let _ = writeln!(
            s,
            "       {:>8.2}{:>8.2}{:>8.2}{:>8.2}{:>8.2}{:>8.2}\n",
            a.user, a.nice, a.system, a.iowait, a.steal, a.idle
        );
    }
    let up = io.uptime_s.filter(|u| *u > 0.0);
    if let (Some(up), false) = (up, io.disks.is_empty()) {
        let discard = io.disks.iter().all(|d| d.discarded_sectors.is_some());
        s.push_str("Device             tps    kB_read/s    kB_wrtn/s");
        s.push_str(if discard {
            "    kB_dscd/s    kB_read    kB_wrtn    kB_dscd\n"
        } else {
            "    kB_read    kB_wrtn\n"
        });
        for d in &io.disks {
            let kb = |sectors: u64| sectors / 2;
            let _ = write!(
                s,
                "{:<13}{:>9.2}{:>13.2}{:>13.2}",
                d.name,
                d.ios as f64 / up,
                kb(d.read_sectors) as f64 / up,
                kb(d.written_sectors) as f64 / up
            );
            match d.discarded_sectors.filter(|_| discard) {
                Some(dc) => {
                    let _ = writeln!(
                        s,
                        "{:>13.2}{:>11}{:>11}{:>11}",
                        kb(dc) as f64 / up,
                        kb(d.read_sectors),
                        kb(d.written_sectors),
                        kb(dc)
                    );
                }
                None => {
                    let _ = writeln!(s, "{:>11}{:>11}", kb(d.read_sectors), kb(d.written_sectors));
                }
            }
        }
        s.push('\n');
    }
    s
}

/// `iostat`, `free -h` and `swapon -s` as sbc-bench prints them at the start and the end
/// of its log (blank lines squeezed as its `sed` squeezes them).
pub fn health_block(io: &IoStat, head: &IostatHead, mem: &FreeAndSwaps) -> String {
    let mut s = iostat(io, head);
    if let Some(f) = &mem.free {
        s.push_str(&free_table(f));
        s.push('\n');
    }
    if let Some(sw) = &mem.swaps {
        s.push_str(sw);
        s.push_str("\n\n");
    }
    s
}

/// [`health_block`] of one system picture, dated `date` (`mm/dd/yy`).
pub fn health_block_of(i: &SystemInfo, date: String) -> String {
    let inv = &i.log_inventory;
    let head = IostatHead {
        release: i.kernel.release.as_deref(),
        hostname: i.hostname.as_deref(),
        date,
        machine: i.kernel.machine.as_deref(),
        cpus: i.topology.online().len(),
    };
    health_block(&inv.iostat, &head, &inv.free)
}

/// `mm/dd/yy` (sysstat's date in the C locale) of an RFC 3339 time; `n/a` if garbled.
pub fn iostat_date(rfc3339: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .map(|d| d.format("%m/%d/%y").to_string())
        .unwrap_or_else(|_| "n/a".to_string())
}

/// lscpu's sizes (`768 KiB`, `16 MiB`, `1.5 MiB`).
pub fn lscpu_size(bytes: u64) -> String {
    let mut v = bytes as f64;
    let mut unit = "B";
    for u in ["KiB", "MiB", "GiB", "TiB"] {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    let r = (v * 10.0).round() / 10.0;
    if r.fract() == 0.0 {
        format!("{} {unit}", r as u64)
    } else {
        format!("{r:.1} {unit}")
    }
}

/// The cache lines of the lscpu summary: per level and type the sum over instances,
/// where an instance is one distinct `shared_cpu_list`. A level is left out when any of
/// its caches lacks that list (the instance count is unknown then).
fn lscpu_caches(l: &Lscpu) -> Vec<(String, String)> {
    let mut by: BTreeMap<(u32, u8), (BTreeMap<String, u64>, bool)> = BTreeMap::new();
    for c in &l.cpus {
        for cache in &c.caches {
            let order = match cache.kind.as_str() {
                "Data" => 0,
                "Instruction" => 1,
                _ => 2,
            };
            let e = by.entry((cache.level, order)).or_default();
            match &cache.shared {
                Some(list) => {
                    e.0.insert(list.clone(), cache.size_bytes);
                }
                None => e.1 = true,
            }
        }
    }
    by.into_iter()
        .filter(|(_, (_, unknown))| !unknown)
        .map(|((level, order), (inst, _))| {
            let label = match order {
                0 => format!("L{level}d cache:"),
                1 => format!("L{level}i cache:"),
                _ => format!("L{level} cache:"),
            };
            let n = inst.len();
            let total: u64 = inst.values().sum();
            let plural = if n == 1 { "instance" } else { "instances" };
            (label, format!("{} ({n} {plural})", lscpu_size(total)))
        })
        .collect()
}

/// A CPU list as util-linux writes it (`0,1`, `0-3`).
pub fn lscpu_list(cpus: &[u32]) -> String {
    crate::sys::cpu_list::format_util_linux_list(cpus)
}

/// lscpu's form of a vulnerability state: a mitigation reads `Mitigation; …` with every
/// other colon dropped (`Mitigation; Retpolines; STIBP disabled`); others stay as the
/// kernel writes them (`Vulnerable: Safe RET, no microcode`).
pub fn lscpu_vulnerability(state: &str) -> String {
    match state.strip_prefix("Mitigation") {
        Some(rest) => {
            // Already in lscpu's form (`Mitigation; …`, as fixture trees captured from
            // logs have it) stays as it is.
            let rest = rest
                .strip_prefix(':')
                .or_else(|| rest.strip_prefix(';'))
                .unwrap_or(rest);
            format!("Mitigation;{}", rest.replace(':', ""))
        }
        None => state.to_string(),
    }
}

/// lscpu's `Hypervisor vendor:` for a hypervisor named as systemd-detect-virt names it
/// (util-linux's vendor names), where lscpu tells one.
fn lscpu_hypervisor(vm: &str) -> Option<&'static str> {
    Some(match vm {
        "kvm" => "KVM",
        "xen" => "Xen",
        "microsoft" => "Microsoft",
        "vmware" => "VMware",
        "oracle" => "Oracle",
        "parallels" => "Parallels",
        _ => return None,
    })
}

/// Thread(s) per core, core(s) per socket and socket(s) of one core type, as lscpu counts
/// them: the type's CPUs over its distinct core sibling lists, those over its distinct
/// package lists. `None` where a CPU lacks either list.
fn lscpu_counts(cpus: &[&crate::sys::lscpu::LscpuCpu]) -> Option<(usize, usize, usize)> {
    let mut cores = std::collections::BTreeSet::new();
    let mut sockets = std::collections::BTreeSet::new();
    for c in cpus {
        cores.insert(c.thread_siblings.as_deref()?);
        sockets.insert(c.package_cpus.as_deref()?);
    }
    let (n, cores, sockets) = (cpus.len(), cores.len(), sockets.len());
    if n == 0 || cores == 0 || sockets == 0 {
        return None;
    }
    Some((n / cores, cores / sockets, sockets))
}

/// lscpu's x86 virtualization lines: `Virtualization: VT-x|AMD-V` from the flags and, in
/// a VM whose hypervisor lscpu names, `Hypervisor vendor:` and `Virtualization type:`.
fn lscpu_virtualization(
    first: Option<&crate::sys::lscpu::LscpuCpu>,
    x86: bool,
    hypervisor: Option<&str>,
) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    let flags: Vec<&str> = first
        .and_then(|c| c.flags.as_deref())
        .map(|f| f.split(' ').collect())
        .unwrap_or_default();
    if x86 {
        if flags.contains(&"svm") {
            rows.push(("Virtualization:".into(), "AMD-V".into()));
        } else if flags.contains(&"vmx") {
            rows.push(("Virtualization:".into(), "VT-x".into()));
        }
        if let Some(v) = hypervisor
            .filter(|_| flags.contains(&"hypervisor"))
            .and_then(lscpu_hypervisor)
        {
            rows.push(("Hypervisor vendor:".into(), v.into()));
            rows.push(("Virtualization type:".into(), "full".into()));
        }
    }
    rows
}

/// lscpu's MHz from kHz: single precision, four decimals (`3801600` → `3801.6001`), as
/// util-linux stores and prints it.
fn lscpu_mhz(khz: u64) -> String {
    format!("{:.4}", khz as f32 / 1000.0)
}

/// lscpu's `CPU(s) scaling MHz:`: the CPUs' summed current clock over their summed
/// maximum (those with both), in single precision, rounded to a whole percent; `None`
/// when no CPU tells its current clock.
fn lscpu_scaling_percent(cpus: &[&crate::sys::lscpu::LscpuCpu]) -> Option<String> {
    let (mut fmax, mut fcur) = (0f32, 0f32);
    for c in cpus {
        if let (Some(max), Some(cur)) = (c.max_khz, c.cur_khz) {
            fmax += max as f32 / 1000.0;
            fcur += cur as f32 / 1000.0;
        }
    }
    (fcur > 0.0 && fmax > 0.0).then(|| format!("{:.0}%", fcur / fmax * 100.0))
}

/// One lscpu core type: a run of CPUs of one type in CPU order, with the widest cpufreq
/// limits among them (kHz).
struct LscpuType<'a> {
    members: Vec<&'a crate::sys::lscpu::LscpuCpu>,
    max_khz: Option<u64>,
    min_khz: Option<u64>,
}

/// The core types as util-linux forms them: it starts a type whenever a cpuinfo block's
/// model name, model or stepping differs from the block before, so the CIX P1's A720,
/// A520, A720 runs are three (logs `1ET4`, `8opg`).
fn lscpu_types(l: &Lscpu) -> Vec<LscpuType<'_>> {
    let mut types: Vec<LscpuType<'_>> = Vec::new();
    for c in &l.cpus {
        let same = |g: &crate::sys::lscpu::LscpuCpu| {
            g.model_name == c.model_name && g.model == c.model && g.stepping == c.stepping
        };
        match types.last_mut().filter(|t| same(t.members[0])) {
            Some(t) => {
                t.members.push(c);
                t.max_khz = t.max_khz.max(c.max_khz);
                t.min_khz = match (t.min_khz, c.min_khz) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            None => types.push(LscpuType {
                members: vec![c],
                max_khz: c.max_khz,
                min_khz: c.min_khz,
            }),
        }
    }
    types
}

/// `CPU op-mode(s):` as util-linux decides it: x86 always runs 32-bit code, 64-bit with
/// `lm`; aarch64 asks the kernel for AArch32 (only on the live system); other
/// architectures print no line.
fn lscpu_op_modes(l: &Lscpu, x86: bool) -> Option<&'static str> {
    if x86 {
        let lm = l
            .cpus
            .first()
            .and_then(|c| c.flags.as_deref())
            .is_some_and(|f| f.split(' ').any(|x| x == "lm"));
        Some(if lm { "32-bit, 64-bit" } else { "32-bit" })
    } else if l.arch.as_deref() == Some("aarch64") {
        l.aarch32
            .map(|a| if a { "32-bit, 64-bit" } else { "64-bit" })
    } else {
        None
    }
}

/// The rows of one core type. `first`: the boost state goes with the first type only, as
/// util-linux prints it; `cluster_form`: util-linux's counts for aarch64 without ACPI's
/// PPTT and one core type (clusters, and sockets only where SMBIOS lists processors).
fn lscpu_type_rows(
    l: &Lscpu,
    t: &LscpuType<'_>,
    first: bool,
    cluster_form: bool,
) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |k: &str, v: String| rows.push((format!("{k}:"), v));
    let c = t.members[0];
    if let Some(m) = &c.model_name {
        row("Model name", m.clone());
    }
    if let Some(p) = l.dmi_processors.first() {
        row("BIOS Model name", p.bios_model_name());
        row("BIOS CPU family", p.family.to_string());
    }
    if let Some(f) = &c.family {
        row("CPU family", f.clone());
    }
    if let Some(m) = &c.model {
        row("Model", m.clone());
    }
    if let Some((threads, cores, sockets)) = lscpu_counts(&t.members) {
        row("Thread(s) per core", threads.to_string());
        if cluster_form {
            row("Core(s) per cluster", cores.to_string());
            let smbios = l.dmi_processors.len();
            row(
                "Socket(s)",
                if smbios == 0 {
                    "-".into()
                } else {
                    smbios.to_string()
                },
            );
            row("Cluster(s)", sockets.to_string());
        } else {
            row("Core(s) per socket", cores.to_string());
            row("Socket(s)", sockets.to_string());
        }
    }
    if let Some(st) = &c.stepping {
        row("Stepping", st.clone());
    }
    if let Some(b) = l.freq_boost.filter(|_| first) {
        let state = if b { "enabled" } else { "disabled" };
        row("Frequency boost", state.into());
    }
    if t.max_khz.is_some() || t.min_khz.is_some() {
        if let Some(p) = lscpu_scaling_percent(&t.members) {
            row("CPU(s) scaling MHz", p);
        }
    }
    if let Some(k) = t.max_khz {
        row("CPU max MHz", lscpu_mhz(k));
    }
    if let Some(k) = t.min_khz {
        row("CPU min MHz", lscpu_mhz(k));
    }
    if let Some(b) = &c.bogomips {
        row("BogoMIPS", b.clone());
    }
    if let Some(f) = &c.flags {
        row("Flags", f.clone());
    }
    rows
}

/// The lscpu-style summary (util-linux 2.38's): architecture, CPUs, per core type (see
/// `lscpu_types`) its identity, SMBIOS names, topology, boost and cpufreq clocks,
/// virtualization, caches, NUMA nodes, vulnerabilities; labels padded to one column as
/// lscpu pads them. `hypervisor`: the VM we run in (systemd-detect-virt's name), for
/// lscpu's `Hypervisor vendor:` on x86.
pub fn lscpu_summary(l: &Lscpu, hypervisor: Option<&str>) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |k: &str, v: String| rows.push((format!("{k}:"), v));
    if let Some(a) = &l.arch {
        row("Architecture", a.clone());
    }
    let first = l.cpus.first();
    let x86 = first.is_some_and(|c| c.family.is_some());
    if let Some(m) = lscpu_op_modes(l, x86) {
        row("CPU op-mode(s)", m.into());
    }
    if let Some(a) = first.and_then(|c| c.address_sizes.clone()) {
        row("Address sizes", a);
    }
    if l.arch.as_deref().is_some_and(|a| {
        matches!(a, "aarch64" | "x86_64" | "riscv64" | "i686" | "loongarch64")
            || a.starts_with("armv")
    }) {
        row("Byte Order", "Little Endian".into());
    }
    if !l.cpus.is_empty() {
        row("CPU(s)", l.cpus.len().to_string());
    }
    if !l.online.is_empty() {
        row("On-line CPU(s) list", lscpu_list(&l.online));
    }
    if let Some(v) = first.and_then(|c| c.vendor.clone()) {
        row("Vendor ID", v);
        if let Some(b) = l
            .dmi_processors
            .first()
            .and_then(|p| p.manufacturer.clone())
        {
            row("BIOS Vendor ID", b);
        }
    }
    let types = lscpu_types(l);
    let cluster_form = l.arch.as_deref() == Some("aarch64") && !l.acpi_pptt && types.len() == 1;
    for (n, t) in types.iter().enumerate() {
        rows.extend(lscpu_type_rows(l, t, n == 0, cluster_form));
    }
    rows.extend(lscpu_virtualization(first, x86, hypervisor));
    for (k, v) in lscpu_caches(l) {
        rows.push((k, v));
    }
    if !l.numa_nodes.is_empty() {
        rows.push(("NUMA node(s):".into(), l.numa_nodes.len().to_string()));
        for n in &l.numa_nodes {
            let cpus = crate::sys::cpu_list::parse_list(&n.cpus)
                .map(|v| lscpu_list(&v))
                .unwrap_or_else(|| n.cpus.clone());
            rows.push((format!("NUMA node{} CPU(s):", n.node), cpus));
        }
    }
    for v in &l.vulnerabilities {
        rows.push((
            format!("Vulnerability {}:", v.label()),
            lscpu_vulnerability(&v.state),
        ));
    }
    let width = rows
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0)
        + 1;
    let mut s = String::new();
    for (k, v) in rows {
        let _ = writeln!(s, "{k:<width$}{v}");
    }
    s
}

/// lshw's memory type names (SMBIOS codes it knows; newer ones, LPDDR5 among them, it
/// leaves out of the description, as the CIX P1 and GB10 logs show).
fn memory_type(code: u8) -> Option<&'static str> {
    Some(match code {
        0x03 => "DRAM",
        0x04 => "EDRAM",
        0x05 => "VRAM",
        0x06 => "SRAM",
        0x07 => "RAM",
        0x08 => "ROM",
        0x09 => "FLASH",
        0x0A => "EEPROM",
        0x0B => "FEPROM",
        0x0C => "EPROM",
        0x0D => "CDRAM",
        0x0E => "3DRAM",
        0x0F => "SDRAM",
        0x10 => "SGRAM",
        0x11 => "RDRAM",
        0x12 => "DDR",
        0x13 => "DDR2",
        0x14 => "DDR2 FB-DIMM",
        0x18 => "DDR3",
        0x19 => "FBD2",
        0x1A => "DDR4",
        0x1B => "LPDDR",
        0x1C => "LPDDR2",
        0x1D => "LPDDR3",
        0x1E => "LPDDR4",
        _ => return None,
    })
}

fn form_factor(code: u8) -> Option<&'static str> {
    Some(match code {
        3 => "SIMM",
        4 => "SIP",
        5 => "Chip",
        6 => "DIP",
        7 => "ZIP",
        8 => "Proprietary Card",
        9 => "DIMM",
        10 => "TSOP",
        11 => "Row of chips",
        12 => "RIMM",
        13 => "SODIMM",
        14 => "SRIMM",
        15 => "FB-DIMM",
        16 => "Die",
        _ => return None,
    })
}

const TYPE_DETAIL: &[(u16, &str)] = &[
    (1 << 3, "Fast-paged"),
    (1 << 4, "Static column"),
    (1 << 5, "Pseudo-static"),
    (1 << 6, "RAMBUS"),
    (1 << 7, "Synchronous"),
    (1 << 8, "CMOS"),
    (1 << 9, "EDO"),
    (1 << 10, "Window DRAM"),
    (1 << 11, "Cache DRAM"),
    (1 << 12, "Non-volatile"),
    (1 << 13, "Registered (Buffered)"),
    (1 << 14, "Unbuffered (Unregistered)"),
    (1 << 15, "LRDIMM"),
];

/// lshw's sizes: whole GiB, else MiB, else KiB.
fn lshw_size(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes % (1 << 30) == 0 {
        format!("{}GiB", bytes >> 30)
    } else if bytes >= 1 << 20 && bytes % (1 << 20) == 0 {
        format!("{}MiB", bytes >> 20)
    } else {
        format!("{}KiB", bytes >> 10)
    }
}

/// One bank as `lshw -C memory` shows it (serial left out, as sbc-bench drops it).
fn bank(s: &mut String, d: &MemoryDevice, id: usize) {
    const IND: &str = "          ";
    if d.size_bytes == Some(0) {
        let _ = writeln!(s, "{IND}description: [empty]");
        let _ = writeln!(s, "{IND}physical id: {id:x}");
        if let Some(l) = &d.locator {
            let _ = writeln!(s, "{IND}slot: {l}");
        }
        return;
    }
    let mut desc: Vec<String> = Vec::new();
    desc.extend(form_factor(d.form_factor).map(str::to_string));
    desc.extend(memory_type(d.memory_type).map(str::to_string));
    for (bit, name) in TYPE_DETAIL {
        if d.type_detail & bit != 0 {
            desc.push((*name).to_string());
        }
    }
    if let Some(mts) = d.speed_mts {
        desc.push(format!("{mts} MHz ({:.1} ns)", 1000.0 / f64::from(mts)));
    }
    if !desc.is_empty() {
        let _ = writeln!(s, "{IND}description: {}", desc.join(" "));
    }
    if let Some(p) = &d.part_number {
        let _ = writeln!(s, "{IND}product: {p}");
    }
    if let Some(v) = &d.manufacturer {
        let _ = writeln!(s, "{IND}vendor: {v}");
    }
    let _ = writeln!(s, "{IND}physical id: {id:x}");
    // sbc-bench replaces the slot line with dmidecode's configured speed, matching the
    // locator with its spaces removed: only locators without spaces are ever replaced.
    match (&d.locator, d.configured_mts) {
        (Some(l), Some(c)) if !l.contains(' ') => {
            let _ = writeln!(s, "{IND}configured speed: {c}MT/s");
        }
        (Some(l), _) => {
            let _ = writeln!(s, "{IND}slot: {l}");
        }
        _ => {}
    }
    if let Some(b) = d.size_bytes {
        let _ = writeln!(s, "{IND}size: {}", lshw_size(b));
    }
    if let Some(w) = d.data_width_bits {
        let _ = writeln!(s, "{IND}width: {w} bits");
    }
    if let Some(mts) = d.speed_mts {
        // lshw keeps the clock in Hz in 32 bits: 5500 MT/s shows as 1205MHz.
        let hz = (u64::from(mts) * 1_000_000) as u32;
        if hz > 0 {
            let mhz = hz / 1_000_000;
            let _ = writeln!(s, "{IND}clock: {mhz}MHz ({:.1}ns)", 1e9 / f64::from(hz));
        }
    }
}

/// `RAM configuration:` (bare metal only, as sbc-bench shows it); empty without SMBIOS
/// memory devices. A single bank has no `*-bank` line (sbc-bench's grep keeps only
/// `-bank:N`).
pub fn ram_configuration(devs: &[MemoryDevice], in_vm: bool) -> String {
    if devs.is_empty() || in_vm {
        return String::new();
    }
    let mut s = String::from("RAM configuration:\n");
    let many = devs.len() > 1;
    for (n, d) in devs.iter().enumerate() {
        if many {
            let _ = writeln!(s, "     *-bank:{n}");
        }
        bank(&mut s, d, n);
    }
    s
}

/// sbc-bench's per-CPU cache list (`cpu0/index0: 64K, level: 1, type: Data`), shown only
/// with more than one cluster or on RISC-V; empty otherwise or without cacheinfo.
pub fn cache_list(l: &Lscpu, clusters: usize) -> String {
    let riscv = l.arch.as_deref() == Some("riscv64");
    if clusters <= 1 && !riscv {
        return String::new();
    }
    let mut s = String::new();
    for c in &l.cpus {
        for cache in &c.caches {
            let _ = writeln!(
                s,
                "cpu{}/index{}: {}, level: {}, type: {}",
                c.cpu, cache.index, cache.size, cache.level, cache.kind
            );
        }
    }
    s
}

/// The section after the kernel notes: `RAM configuration:` and the cache list.
pub fn cache_and_dimms(i: &SystemInfo) -> String {
    let inv = &i.log_inventory;
    let ram = ram_configuration(&inv.memory_devices, i.virtualization.vm.is_some());
    let caches = cache_list(&inv.lscpu, i.topology.clusters.len());
    match (ram.is_empty(), caches.is_empty()) {
        (true, true) => String::new(),
        (false, true) => ram,
        (true, false) => caches,
        (false, false) => format!("{ram}\n{caches}"),
    }
}

/// The lscpu summary of one system picture.
pub fn lscpu_of(i: &SystemInfo) -> String {
    lscpu_summary(&i.log_inventory.lscpu, i.virtualization.vm.as_deref())
}

/// The OPP tables' section: the I2C supply voltages first, then the tables (sbc-bench
/// shows neither without device-tree OPP tables).
pub fn opp_section(i: &SystemInfo) -> String {
    if i.opp_tables.is_empty() {
        return String::new();
    }
    let mut s = String::new();
    let regs = &i.log_inventory.regulators;
    if !regs.is_empty() {
        for r in regs {
            s.push_str(&regulator::line(r));
            s.push('\n');
        }
        s.push('\n');
    }
    s.push_str(&crate::sys::opp::render(&i.opp_tables));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::dmi::parse_type17;

    #[test]
    fn free_h_sizes_as_procps_4_prints_them() {
        // Corpus log 8hUb (Framework Desktop): 125Gi 2.6Gi 123Gi 3.4Mi 430Mi 122Gi, 8.0Gi.
        assert_eq!(free_human(131_149_000), "125Gi");
        assert_eq!(free_human(2_726_297), "2.6Gi");
        assert_eq!(free_human(3_482), "3.4Mi");
        assert_eq!(free_human(440_320), "430Mi");
        assert_eq!(free_human(8_388_604), "8.0Gi");
        assert_eq!(free_human(0), "0B");
        assert_eq!(free_human(16_100_352), "15Gi");
    }

    #[test]
    fn free_table_layout_matches_a_published_log() {
        let f = FreeTable {
            total_kib: 131_149_000,
            free_kib: 129_000_000,
            available_kib: 128_422_703,
            shared_kib: 3_482,
            buff_cache_kib: 440_320,
            swap_total_kib: 8_388_604,
            swap_free_kib: 8_388_604,
        };
        assert_eq!(
            free_table(&f),
            "               total        used        free      shared  buff/cache   available\n\
             Mem:           125Gi       2.6Gi       123Gi       3.4Mi       430Mi       122Gi\n\
             Swap:          8.0Gi          0B       8.0Gi\n"
        );
    }

    #[test]
    fn iostat_layout_matches_the_rock_5b_log() {
        // Corpus log 41BH (ROCK 5B): avg-cpu 4.30 0.00 0.34 0.14 0.00 95.21 and mmcblk1.
        let io = IoStat {
            uptime_s: Some(1419.61),
            cpu: crate::sys::iostat::parse_stat_cpu("cpu  43040 0 3420 952100 1440 0 0 0 0 0\n"),
            disks: vec![crate::sys::iostat::DiskStat {
                name: "mmcblk1".into(),
                ios: 33545,
                read_sectors: 665_494,
                written_sectors: 3_343_850,
                discarded_sectors: Some(116_715_088),
            }],
        };
        let head = IostatHead {
            release: Some("5.10.66-11-rockchip-geee2b32138fd"),
            hostname: Some("rock-5b"),
            date: "07/04/22".into(),
            machine: Some("aarch64"),
            cpus: 8,
        };
        let s = iostat(&io, &head);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(
            lines[0],
            "Linux 5.10.66-11-rockchip-geee2b32138fd (rock-5b) \t07/04/22 \t_aarch64_\t(8 CPU)"
        );
        assert_eq!(
            lines[2],
            "avg-cpu:  %user   %nice %system %iowait  %steal   %idle"
        );
        assert_eq!(
            lines[3],
            "           4.30    0.00    0.34    0.14    0.00   95.21"
        );
        assert_eq!(
            lines[5],
            "Device             tps    kB_read/s    kB_wrtn/s    kB_dscd/s    kB_read    kB_wrtn    kB_dscd"
        );
        assert_eq!(
            lines[6],
            "mmcblk1          23.63       234.39      1177.74     41108.15     332747    1671925   58357544"
        );
    }

    #[test]
    fn missing_data_gives_no_iostat_lines_not_a_panic() {
        let head = IostatHead {
            release: None,
            hostname: None,
            date: "n/a".into(),
            machine: None,
            cpus: 0,
        };
        assert_eq!(
            health_block(&IoStat::default(), &head, &FreeAndSwaps::default()),
            ""
        );
        assert_eq!(iostat_date("garbage"), "n/a");
        assert_eq!(iostat_date("2022-07-04T17:51:16+00:00"), "07/04/22");
    }

    #[test]
    fn ms_r1_ram_configuration_as_lshw_shows_it() {
        let raw = crate::sys::dmi::tests::ms_r1_bank();
        let d = parse_type17(&raw).unwrap();
        let s = ram_configuration(&[d.clone(), d], false);
        // Corpus log 1ET4 (MS-R1).
        assert!(s.starts_with(
            "RAM configuration:\n     *-bank:0\n          description: Row of chips 5500 MHz (0.2 ns)\n          physical id: 0\n          slot: Top - on board\n          size: 16GiB\n          width: 32 bits\n          clock: 1205MHz (0.8ns)\n     *-bank:1\n"
        ), "{s}");
        assert_eq!(ram_configuration(&[], false), "");
    }

    /// This 2-core AMD EPYC KVM guest, as `lscpu` (util-linux 2.38.1) printed it
    /// (flags cut to three, vulnerabilities to three).
    #[test]
    #[allow(
        clippy::too_many_lines,
        reason = "the fixture is one lscpu capture, field by field"
    )]
    fn lscpu_summary_of_a_kvm_guest_reads_like_lscpu() {
        use crate::sys::kernel::Vulnerability;
        use crate::sys::lscpu::{CacheIndex, LscpuCpu, NumaNode};
        let cache = |index, level, kind: &str, size: &str, bytes, shared: &str| CacheIndex {
            index,
            level,
            kind: kind.into(),
            size: size.into(),
            size_bytes: bytes,
            shared: Some(shared.into()),
        };
        let cpu = |n: u32| LscpuCpu {
            cpu: n,
            vendor: Some("AuthenticAMD".into()),
            model_name: Some("AMD EPYC".into()),
            family: Some("25".into()),
            model: Some("17".into()),
            stepping: Some("1".into()),
            bogomips: Some("5192.26".into()),
            flags: Some("fpu lm hypervisor".into()),
            max_khz: None,
            min_khz: None,
            cur_khz: None,
            caches: vec![
                cache(0, 1, "Data", "32K", 32 << 10, &n.to_string()),
                cache(1, 1, "Instruction", "32K", 32 << 10, &n.to_string()),
                cache(2, 2, "Unified", "1024K", 1 << 20, &n.to_string()),
                cache(3, 3, "Unified", "32768K", 32 << 20, "0-1"),
            ],
            address_sizes: Some("48 bits physical, 48 bits virtual".into()),
            thread_siblings: Some(n.to_string()),
            package_cpus: Some("0-1".into()),
        };
        let vuln = |name: &str, state: &str| Vulnerability {
            name: name.into(),
            state: state.into(),
        };
        let l = Lscpu {
            arch: Some("x86_64".into()),
            cpus: vec![cpu(0), cpu(1)],
            online: vec![0, 1],
            vulnerabilities: vec![
                vuln("spec_rstack_overflow", "Vulnerable: Safe RET, no microcode"),
                vuln(
                    "spectre_v1",
                    "Mitigation: usercopy/swapgs barriers and __user pointer sanitization",
                ),
                vuln(
                    "spectre_v2",
                    "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected",
                ),
            ],
            numa_nodes: vec![NumaNode {
                node: 0,
                cpus: "0-1".into(),
            }],
            ..Lscpu::default()
        };
        let want = "\
Architecture:                    x86_64
CPU op-mode(s):                  32-bit, 64-bit
Address sizes:                   48 bits physical, 48 bits virtual
Byte Order:                      Little Endian
CPU(s):                          2
On-line CPU(s) list:             0,1
Vendor ID:                       AuthenticAMD
Model name:                      AMD EPYC
CPU family:                      25
Model:                           17
Thread(s) per core:              1
Core(s) per socket:              2
Socket(s):                       1
Stepping:                        1
BogoMIPS:                        5192.26
Flags:                           fpu lm hypervisor
Hypervisor vendor:               KVM
Virtualization type:             full
L1d cache:                       64 KiB (2 instances)
L1i cache:                       64 KiB (2 instances)
L2 cache:                        2 MiB (2 instances)
L3 cache:                        32 MiB (1 instance)
NUMA node(s):                    1
NUMA node0 CPU(s):               0,1
Vulnerability Spec rstack overflow: Vulnerable: Safe RET, no microcode
";
        let got = lscpu_summary(&l, Some("kvm"));
        // The label column is as wide as the longest label (here a vulnerability's).
        let width = "Vulnerability Spec rstack overflow: ".len();
        let want: String = want
            .lines()
            .map(|line| {
                let (k, v) = line.split_once(": ").unwrap();
                let k = format!("{}:", k.trim_end_matches(':'));
                format!("{k:<width$}{}\n", v.trim_start())
            })
            .collect();
        assert!(got.starts_with(&want), "{got}");
        assert!(got.ends_with(
            "Vulnerability Spectre v1:           Mitigation; usercopy/swapgs barriers and __user pointer sanitization\n\
             Vulnerability Spectre v2:           Mitigation; Retpolines; STIBP disabled; RSB filling; PBRSB-eIBRS Not affected; BHI Not affected\n"
        ), "{got}");
        // Without the topology lists (older kernels, fixture trees) the three counts are
        // left out rather than guessed; on bare metal no hypervisor lines.
        let mut bare = l.clone();
        for c in &mut bare.cpus {
            c.thread_siblings = None;
            c.flags = Some("fpu lm svm".into());
        }
        let got = lscpu_summary(&bare, None);
        assert!(!got.contains("Thread(s) per core"), "{got}");
        assert!(!got.contains("Hypervisor"), "{got}");
        assert!(
            got.contains("\nVirtualization:                     AMD-V\n"),
            "{got}"
        );
    }

    /// The lscpu block of a published log, `Architecture:` through the last
    /// `Vulnerability` line, and its vulnerabilities in the kernel's naming.
    fn lscpu_block_of(log: &str) -> (String, Vec<crate::sys::kernel::Vulnerability>) {
        let start = log.find("\nArchitecture:").unwrap() + 1;
        let block: Vec<&str> = log[start..].lines().take_while(|l| !l.is_empty()).collect();
        let vulns = block
            .iter()
            .filter_map(|l| l.strip_prefix("Vulnerability "))
            .map(|l| {
                let (k, v) = l.split_once(':').unwrap();
                crate::sys::kernel::Vulnerability {
                    name: k.to_lowercase().replace(' ', "_"),
                    state: v.trim().into(),
                }
            })
            .collect();
        (block.join("\n") + "\n", vulns)
    }

    /// The value of the `n`-th line labelled `label` in an lscpu block.
    fn lscpu_value<'a>(block: &'a str, label: &str, n: usize) -> &'a str {
        block
            .lines()
            .filter_map(|l| l.strip_prefix(label))
            .map(|v| v.trim_start_matches(':').trim())
            .nth(n)
            .unwrap()
    }

    /// An Arm CPU as the lscpu facts hold it, alone in its core and package `pkg`.
    fn arm_cpu(
        cpu: u32,
        name: &str,
        stepping: &str,
        khz: (u64, u64, u64),
        pkg: &str,
    ) -> crate::sys::lscpu::LscpuCpu {
        crate::sys::lscpu::LscpuCpu {
            cpu,
            model_name: Some(name.into()),
            stepping: Some(stepping.into()),
            max_khz: Some(khz.0),
            min_khz: Some(khz.1),
            cur_khz: Some(khz.2),
            thread_siblings: Some(cpu.to_string()),
            package_cpus: Some(pkg.into()),
            ..Default::default()
        }
    }

    /// Raspberry Pi 5 (log `1ULtUe`, util-linux 2.38.1): one core type on aarch64
    /// without ACPI gives lscpu's cluster form, `Socket(s): -` without SMBIOS, and
    /// `CPU(s) scaling MHz:` at the performance governor.
    #[test]
    fn lscpu_summary_of_the_rpi5_is_its_log_block_byte_for_byte() {
        let log = include_str!("../../../tests/fixtures/logs/1ULtUe.txt");
        let (want, vulnerabilities) = lscpu_block_of(log);
        let cpus = (0..4)
            .map(|n| crate::sys::lscpu::LscpuCpu {
                vendor: Some("ARM".into()),
                model: Some("1".into()),
                bogomips: Some("108.00".into()),
                flags: Some(lscpu_value(&want, "Flags", 0).into()),
                ..arm_cpu(
                    n,
                    "Cortex-A76",
                    "r4p1",
                    (2_400_000, 1_500_000, 2_400_000),
                    "0-3",
                )
            })
            .collect();
        let l = Lscpu {
            arch: Some("aarch64".into()),
            cpus,
            online: vec![0, 1, 2, 3],
            vulnerabilities,
            aarch32: Some(true),
            ..Lscpu::default()
        };
        assert_eq!(lscpu_summary(&l, None), want);
        // On the SMBIOS of a UEFI board lscpu counts its processors as sockets; with
        // ACPI's PPTT it keeps the socket form; without AArch32, `64-bit`.
        let mut uefi = l.clone();
        uefi.dmi_processors = vec![crate::sys::dmi::Processor::default()];
        assert!(lscpu_summary(&uefi, None).contains(
            "\nCore(s) per cluster:                4\n\
             Socket(s):                          1\n\
             Cluster(s):                         1\n"
        ));
        let mut acpi = l.clone();
        acpi.acpi_pptt = true;
        acpi.aarch32 = Some(false);
        let got = lscpu_summary(&acpi, None);
        assert!(
            got.contains(
                "\nCore(s) per socket:                 4\n\
             Socket(s):                          1\n\
             Stepping:"
            ),
            "{got}"
        );
        assert!(got.contains("\nCPU op-mode(s):                     64-bit\n"));
        // Read through a sysroot, where this process cannot ask the kernel: no line.
        let mut sysroot = l;
        sysroot.aarch32 = None;
        assert!(!lscpu_summary(&sysroot, None).contains("op-mode"));
    }

    /// Snapdragon X Elite (log `8SWL`, Ubuntu's util-linux): two runs of CPUs, SMBIOS
    /// type 4's `BIOS` lines with each, `Frequency boost:` with the first only, and the
    /// single-precision MHz (`3801.6001`). The names are the log's (lscpu did not know
    /// the part: `-`, raw variant); ours print the decoded ones.
    #[test]
    fn lscpu_summary_of_the_snapdragon_x_elite_is_its_log_block_byte_for_byte() {
        let log = include_str!("../../../tests/fixtures/logs/8SWL.txt");
        let (want, vulnerabilities) = lscpu_block_of(log);
        let cpus = (0..12)
            .map(|n| {
                let (stepping, max, flags) = if n < 4 {
                    ("0x2", 3_801_600, lscpu_value(&want, "Flags", 0))
                } else {
                    ("0x1", 4_300_800, lscpu_value(&want, "Flags", 1))
                };
                crate::sys::lscpu::LscpuCpu {
                    vendor: Some("Qualcomm".into()),
                    model: Some("1".into()),
                    bogomips: Some("38.40".into()),
                    flags: Some(flags.into()),
                    ..arm_cpu(n, "-", stepping, (max, 710_400, max), "0-11")
                }
            })
            .collect();
        let l = Lscpu {
            arch: Some("aarch64".into()),
            cpus,
            online: (0..12).collect(),
            vulnerabilities,
            numa_nodes: vec![crate::sys::lscpu::NumaNode {
                node: 0,
                cpus: "0-11".into(),
            }],
            freq_boost: Some(true),
            aarch32: Some(false),
            dmi_processors: vec![crate::sys::dmi::Processor {
                family: 280,
                manufacturer: Some("Qualcomm Technologies Inc".into()),
                version: Some(
                    "Snapdragon(R) X Elite - X1E001DE - Qualcomm(R) Oryon(TM) CPU".into(),
                ),
                current_mhz: 4200,
                part_number: Some("446".into()),
            }],
            ..Lscpu::default()
        };
        assert_eq!(lscpu_summary(&l, None), want);
    }

    /// util-linux keeps MHz in single precision and prints four decimals: the values of
    /// published logs (Snapdragon X Elite, Jetson Orin, a Celeron, an Allwinner H616).
    #[test]
    fn lscpu_mhz_is_single_precision_as_util_linux_prints_it() {
        assert_eq!(lscpu_mhz(3_801_600), "3801.6001");
        assert_eq!(lscpu_mhz(4_300_800), "4300.7998");
        assert_eq!(lscpu_mhz(115_200), "115.2000");
        assert_eq!(lscpu_mhz(2_165_800), "2165.8000");
        assert_eq!(lscpu_mhz(1_799_998), "1799.9980");
        assert_eq!(lscpu_mhz(1_800_000), "1800.0000");
    }

    /// A Celeron N2830 at ondemand (log `4HYd`: `CPU(s) scaling MHz: 61%`): the summed
    /// current clocks over the summed maxima; CPUs without a current clock are left out
    /// of both sums, and none at all leaves the line out.
    #[test]
    fn lscpu_scaling_percent_sums_current_over_maximum() {
        let c = |cur| crate::sys::lscpu::LscpuCpu {
            max_khz: Some(2_165_800),
            cur_khz: cur,
            ..Default::default()
        };
        let (a, b, off) = (c(Some(1_330_000)), c(Some(1_330_000)), c(None));
        assert_eq!(
            lscpu_scaling_percent(&[&a, &b, &off]).as_deref(),
            Some("61%")
        );
        assert_eq!(lscpu_scaling_percent(&[&off]), None);
        assert_eq!(lscpu_scaling_percent(&[]), None);
    }

    #[test]
    fn lscpu_vulnerability_form_from_the_kernel_and_already_converted() {
        assert_eq!(
            lscpu_vulnerability("Mitigation: Retpolines; STIBP: disabled"),
            "Mitigation; Retpolines; STIBP disabled"
        );
        assert_eq!(
            lscpu_vulnerability("Mitigation; __user pointer sanitization"),
            "Mitigation; __user pointer sanitization"
        );
        assert_eq!(lscpu_vulnerability("Not affected"), "Not affected");
        assert_eq!(
            lscpu_vulnerability("Vulnerable: Safe RET, no microcode"),
            "Vulnerable: Safe RET, no microcode"
        );
    }

    #[test]
    fn lscpu_lists_pairs_with_a_comma_and_runs_with_a_dash() {
        assert_eq!(lscpu_list(&[0, 1]), "0,1");
        assert_eq!(lscpu_list(&[0, 1, 2, 3]), "0-3");
        assert_eq!(lscpu_list(&[0, 2, 3, 5, 6, 7]), "0,2,3,5-7");
        assert_eq!(lscpu_list(&[4]), "4");
        assert_eq!(lscpu_list(&[]), "");
    }

    #[test]
    fn lscpu_sizes() {
        assert_eq!(lscpu_size(768 << 10), "768 KiB");
        assert_eq!(lscpu_size(16 << 20), "16 MiB");
        assert_eq!(lscpu_size(3 << 19), "1.5 MiB");
    }
}
