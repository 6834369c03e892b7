//! `sbc-bench info` as text: what sbc-bench prints at the head of its log and of `-m`,
//! followed by what it scatters over the rest of the log (governors, swap, sensors).
//!
//! Byte-for-byte where sbc-bench's format is claimed: the `lsb_release` distro lines, the
//! `<SoC>, Kernel: <arch>, Userland: <arch>` line of `-m`, the topology table
//! ([`crate::report::text::topology`]), `Thermal source:`, the `SoC guess:`/`DT compat:`/
//! `Userland:`/`Page size:`/`Kernel:` block, governor lines (`cpufreq-policy0: ondemand /
//! 1008 MHz (…)`), swap lines, and lm-sensors' layout of `Hardware sensors:`. The rest
//! (memory, zones, DC-in, virtualisation, pstate) is our own and says `n/a` when unknown.

use std::fmt::Write;

use super::topology;
use crate::monitor::Setup;
use crate::monitor::render::Banner;
use crate::record::tuning::Governor;
use crate::sys::board::NameSource;
use crate::sys::cpu_list::format_list;
use crate::sys::cpufreq::Policy;
use crate::sys::devfreq::{Devfreq, hz_to_mhz};
use crate::sys::discover::SystemInfo;
use crate::sys::memory::{Memory, StorageKind, Swap, SwapKind};
use crate::sys::root::SysRoot;
use crate::sys::soc::{SocDevice, SocGuess};
use crate::sys::thermal::{Hwmon, Reading};
use crate::sys::{board, discover, soc};

/// sbc-bench's section separator.
pub const SEPARATOR: &str =
    "##########################################################################";

/// Longest sysfs string (governor, driver, zone type, sensor name) shown as is.
pub const MAX_FIELD_CHARS: usize = 64;

/// A string read from the system as the text shows it: `n/a` when it holds control
/// characters or bytes that are not UTF-8 (a corrupted or binary attribute), cut to
/// `max` characters with `...` when longer. Values that merely look implausible are
/// shown as read: they are what the kernel says.
pub fn shown_max(s: &str, max: usize) -> String {
    if s.chars()
        .any(|c| (c.is_control() && c != '\t') || c == char::REPLACEMENT_CHARACTER)
    {
        return "n/a".into();
    }
    if s.chars().count() > max {
        let mut t: String = s.chars().take(max.saturating_sub(3)).collect();
        t.push_str("...");
        return t;
    }
    s.to_string()
}

/// [`shown_max`] with [`MAX_FIELD_CHARS`].
pub fn shown(s: &str) -> String {
    shown_max(s, MAX_FIELD_CHARS)
}

/// Control characters other than newline and tab that reached the text anyway (a kernel
/// command line, a distro name) become `?`, so a hostile file cannot drive the terminal.
fn scrub(text: String) -> String {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return text;
    }
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                '?'
            } else {
                c
            }
        })
        .collect()
}

/// Render the whole `info` text.
pub fn render(i: &SystemInfo) -> String {
    scrub(render_raw(i))
}

fn render_raw(i: &SystemInfo) -> String {
    let mut s = String::new();
    match (&i.device.name, &i.hostname) {
        // Bare-metal x86 with DMI: sbc-bench appends the processor
        // (`GEEKOM GT1 Mega / Ultra 9 185H`, corpus log XRRi).
        (Some(n), _)
            if i.device.source == Some(NameSource::Dmi)
                && i.virtualization.systemd_name().is_none() =>
        {
            let n = shown_max(n, 2 * MAX_FIELD_CHARS);
            match &i.cpu_name {
                Some(c) => {
                    let _ = writeln!(s, "{n} / {c}");
                }
                None => {
                    let _ = writeln!(s, "{n}");
                }
            }
        }
        (Some(n), _) => {
            let _ = writeln!(s, "{}", shown_max(n, 2 * MAX_FIELD_CHARS));
        }
        (None, Some(h)) => {
            let _ = writeln!(s, "{} (hostname: no device-tree model, no DMI)", shown(h));
        }
        (None, None) => s.push_str("n/a (no device-tree model, no DMI, no hostname)\n"),
    }
    s.push('\n');
    let distro = distro_lines(i);
    if !distro.is_empty() {
        s.push_str(&distro);
        s.push('\n');
    }
    let _ = writeln!(s, "{}\n", summary_line(i));
    s.push_str(&topology::render(&i.topology));
    s.push_str(&topology::notes(&i.topology));
    s.push('\n');
    match &i.sensors.thermal_source {
        Some(t) => {
            let _ = writeln!(
                s,
                "Thermal source: {}\n",
                shown_max(&t.label(), 2 * MAX_FIELD_CHARS)
            );
        }
        None => s.push_str("Thermal source: n/a (no thermal zone or hwmon sensor found)\n\n"),
    }
    s.push_str(&environment_block(i));
    let _ = write!(s, "\n{SEPARATOR}\n\n");
    s.push_str(&governors_block(i));
    let _ = write!(s, "\n{SEPARATOR}\n\n");
    s.push_str(&memory_block(&i.memory, i.virtualization.vm.is_some()));
    let _ = write!(s, "\n{SEPARATOR}\n\n");
    s.push_str(&sensors_block(i));
    s
}

/// `lsb_release -a` lines (without `n/a` ones) and Armbian's `Build system:` line.
pub fn distro_lines(i: &SystemInfo) -> String {
    let mut s = String::new();
    let Some(d) = &i.distro else {
        return "Distribution: n/a (no /etc/os-release)\n".into();
    };
    for (k, v) in [
        ("Distributor ID", d.distributor_id()),
        ("Description", d.pretty_name.clone()),
        ("Release", d.version_id.clone()),
        ("Codename", d.codename.clone()),
    ] {
        if let Some(v) = v {
            let _ = writeln!(s, "{k}:\t{v}");
        }
    }
    if let Some(a) = &d.armbian {
        let parts: Vec<&str> = [
            &a.build_repository_url,
            &a.version,
            &a.board_name,
            &a.board_family,
            &a.linux_family,
        ]
        .into_iter()
        .filter_map(|x| x.as_deref())
        .collect();
        if !parts.is_empty() {
            let _ = writeln!(s, "Build system:   {}", parts.join(", "));
        }
    }
    s
}

/// sbc-bench `-m`'s first line: `Rockchip RK3568 (35682000), Kernel: aarch64, Userland:
/// arm64`, on x86 `Ultra 9 185H, Kernel: x86_64, Userland: amd64`, preceded by the SoC bus
/// device where the kernel has one (`Amlogic Meson G12B (S922X) rev 29:c - 40:2, …`).
pub fn summary_line(i: &SystemInfo) -> String {
    let mut s = String::new();
    if let Some(x) = i.soc0.as_ref().and_then(soc0_label) {
        let _ = write!(s, "{x}, ");
    }
    if let Some(x) = soc_label(i.cpu_name.as_deref(), &i.soc) {
        let _ = write!(s, "{x}, ");
    }
    let _ = write!(
        s,
        "Kernel: {}",
        i.kernel.machine.as_deref().unwrap_or("n/a")
    );
    if let Some(v) = i.virtualization.systemd_name() {
        let _ = write!(s, " / {v}");
    }
    if let Some(u) = &i.userland {
        let _ = write!(s, ", Userland: {}", u.arch);
    }
    s
}

/// `/sys/devices/soc0` as sbc-bench prints it before the SoC (`<family> <soc_id> rev
/// <revision>`): only with a revision, and not for Arm's SMCCC placeholder `jep106:091e`.
pub fn soc0_label(d: &SocDevice) -> Option<String> {
    let rev = d.revision.as_deref()?;
    let family = d.family.as_deref().unwrap_or("");
    if family == "jep106:091e" {
        return None;
    }
    Some(format!(
        "{family} {} rev {rev}",
        d.soc_id.as_deref().unwrap_or("")
    ))
}

/// What sbc-bench shows in place of the SoC: on x86 the processor name, elsewhere the SoC
/// guess with its detail (`Rockchip RK3588 (35880000 / 35 88 12 fe 21 41  32 38 4b 44 …)`,
/// `Broadcom BCM2711 (Rev B0)`), or the guess's own sbc-bench layout (`Rockchip RK3588 /
/// 35 88 12 fe 21 41  32 38 4b 44 …` without the kernel's chip ID).
pub fn soc_label(cpu_name: Option<&str>, soc: &SocGuess) -> Option<String> {
    if let Some(n) = cpu_name {
        return Some(n.to_string());
    }
    let g = soc.guess.as_deref()?;
    if let Some(l) = &soc.label {
        return Some(l.clone());
    }
    Some(match &soc.detail {
        Some(d) => format!("{g} ({d})"),
        None => g.to_string(),
    })
}

/// Page size as sbc-bench prints it (`16kB`, `64kB`).
pub fn page_size_label(bytes: u64) -> String {
    if bytes % 1024 == 0 {
        format!("{}kB", bytes / 1024)
    } else {
        format!("{bytes}B")
    }
}

/// The `SoC guess:` … `Kernel:` block of sbc-bench's log, plus virtualisation. On x86
/// sbc-bench prints no SoC guess (the processor name stands in the line above the
/// topology), and neither do we.
pub fn environment_block(i: &SystemInfo) -> String {
    let mut s = String::new();
    if i.cpu_name.is_none() {
        match soc_label(None, &i.soc) {
            Some(g) => {
                let _ = writeln!(s, "SoC guess: {g}");
            }
            None => s.push_str("SoC guess: n/a\n"),
        }
    }
    if let Some(d) = i.dmc().filter(|d| d.name == "dmc") {
        if let Some(g) = &d.governor {
            let detail = match g.as_str() {
                "userspace" | "powersave" | "performance" => d
                    .cur_hz
                    .map(|h| format!(" ({} MHz)", hz_to_mhz(h)))
                    .unwrap_or_default(),
                _ => match (d.upthreshold, d.downdifferential) {
                    (Some(u), Some(dd)) => {
                        format!(" (upthreshold: {u}, downdifferential: {dd})")
                    }
                    (Some(u), None) => format!(" (upthreshold: {u})"),
                    _ => String::new(),
                },
            };
            let _ = writeln!(s, "  DMC gov: {g}{detail}");
        }
    }
    let mut compat = i.dt_compatible.iter();
    if let Some(first) = compat.next() {
        let _ = writeln!(s, "DT compat: {first}");
        for c in compat {
            let _ = writeln!(s, "           {c}");
        }
    }
    let _ = writeln!(
        s,
        " Userland: {}",
        i.userland.as_ref().map_or("n/a", |u| u.arch.as_str())
    );
    if let Some(p) = i.page_size_bytes.filter(|&p| p != 4096) {
        let _ = writeln!(s, "Page size: {}", page_size_label(p));
    }
    let virt = i
        .virtualization
        .short()
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "   Kernel: {}/{}{virt}",
        i.kernel.release.as_deref().unwrap_or("n/a"),
        i.kernel.machine.as_deref().unwrap_or("n/a")
    );
    for l in &i.kernel.config {
        let _ = writeln!(s, "           {l}");
    }
    if i.kernel.config.is_empty() {
        s.push_str("           (kernel config n/a: no /boot/config-* or /proc/config.gz)\n");
    }
    if let Some(c) = &i.kernel.cmdline {
        let _ = writeln!(s, "  Cmdline: {c}");
    }
    let v = &i.virtualization;
    let virt_line = match (&v.vm, &v.container) {
        (None, None) => "none detected".to_string(),
        _ => format!(
            "VM: {}, container: {} ({})",
            v.vm.as_deref().unwrap_or("none"),
            v.container.as_deref().unwrap_or("none"),
            v.evidence.join("; ")
        ),
    };
    let _ = writeln!(s, "     Virt: {virt_line}");
    s
}

/// A governor line as sbc-bench's HandleGovernors prints it:
/// `name: gov / cur MHz (avail governors / freq freq …)`; `None` when the only available
/// governor is the current one (sbc-bench skips those).
pub fn governor_line(
    name: &str,
    governor: &str,
    cur_mhz: Option<u64>,
    available: &[String],
    freqs_mhz: &[u64],
) -> Option<String> {
    let cur = cur_mhz.map(|m| format!(" / {m} MHz")).unwrap_or_default();
    if available.is_empty() {
        return Some(format!("{name}: {governor}{cur}"));
    }
    let avail = available.join(" ");
    if avail == governor {
        return None;
    }
    let freqs = if freqs_mhz.is_empty() {
        String::new()
    } else {
        let f: Vec<String> = freqs_mhz.iter().map(u64::to_string).collect();
        format!(" / {}", f.join(" "))
    };
    Some(format!("{name}: {governor}{cur} ({avail}{freqs})"))
}

/// sbc-bench's status line of a governor the run may switch: `dmc: performance / 2112 MHz
/// (dmc_ondemand userspace powersave performance simple_ondemand / 528 1068 1560 2112)`.
pub fn governor_status_line(g: &Governor) -> String {
    governor_line(
        &g.name,
        g.governor.as_deref().unwrap_or("n/a"),
        g.cur_mhz,
        &g.available,
        &g.frequencies_mhz,
    )
    .unwrap_or_else(|| g.name.clone())
}

/// kHz to MHz as sbc-bench's awk `%0.0f` does (round half to even is irrelevant here: OPPs
/// are whole kHz).
fn khz_to_mhz(khz: u64) -> u64 {
    (khz + 500) / 1000
}

fn policy_line(p: &Policy) -> String {
    let name = format!("cpufreq-policy{}", p.id);
    let freqs: Vec<u64> = p.opps_khz.iter().map(|&k| khz_to_mhz(k)).collect();
    let available: Vec<String> = p.available_governors.iter().map(|g| shown(g)).collect();
    let head = match p.governor.as_deref().map(shown) {
        Some(g) => governor_line(&name, &g, p.cur_khz.map(khz_to_mhz), &available, &freqs)
            .unwrap_or_else(|| format!("{name}: {g}")),
        None => format!("{name}: governor n/a"),
    };
    let mhz = |k: Option<u64>| k.map_or("n/a".to_string(), |k| khz_to_mhz(k).to_string());
    let mut detail = format!(
        "driver {}, cpus {}, {}-{} MHz (scaling {}-{}), time_in_state: {}",
        p.driver.as_deref().map_or_else(|| "n/a".to_string(), shown),
        format_list(&p.cpus),
        mhz(p.cpuinfo_min_khz),
        mhz(p.cpuinfo_max_khz),
        mhz(p.scaling_min_khz),
        mhz(p.scaling_max_khz),
        if p.has_time_in_state { "yes" } else { "no" },
    );
    if let Some(b) = p.base_khz {
        let _ = write!(detail, ", base {} MHz", khz_to_mhz(b));
    }
    if let Some(e) = &p.energy_performance_preference {
        let _ = write!(detail, ", EPP {}", shown(e));
    }
    format!("  * {head}\n      {detail}\n")
}

fn devfreq_line(d: &Devfreq) -> Option<String> {
    let g = shown(d.governor.as_deref()?);
    let freqs: Vec<u64> = d
        .available_frequencies_hz
        .iter()
        .map(|&h| hz_to_mhz(h))
        .collect();
    let available: Vec<String> = d.available_governors.iter().map(|g| shown(g)).collect();
    governor_line(
        &shown(&d.name),
        &g,
        d.cur_hz.map(hz_to_mhz),
        &available,
        &freqs,
    )
}

/// cpufreq policies, P-state status, devfreq governors.
pub fn governors_block(i: &SystemInfo) -> String {
    let mut s = String::from("cpufreq policies:\n\n");
    if i.cpufreq.is_empty() {
        s.push_str("  n/a (no cpufreq: clocks can neither be read nor set from Linux)\n");
    }
    for p in &i.cpufreq {
        s.push_str(&policy_line(p));
    }
    let ps = &i.pstate;
    if !ps.is_empty() {
        s.push('\n');
        if let Some(st) = &ps.intel_pstate_status {
            let _ = write!(s, "intel_pstate: {st}");
            if let Some(nt) = ps.intel_no_turbo {
                let _ = write!(s, ", turbo {}", if nt { "disabled" } else { "enabled" });
            }
            if let (Some(lo), Some(hi)) = (ps.intel_min_perf_pct, ps.intel_max_perf_pct) {
                let _ = write!(s, ", perf {lo}-{hi}%");
            }
            if let Some(b) = ps.intel_hwp_dynamic_boost {
                let _ = write!(s, ", hwp_dynamic_boost {}", u8::from(b));
            }
            s.push('\n');
        }
        if let Some(st) = &ps.amd_pstate_status {
            let _ = writeln!(s, "amd_pstate: {st}");
        }
        if let Some(b) = ps.boost {
            let _ = writeln!(
                s,
                "cpufreq boost: {}",
                if b { "enabled" } else { "disabled" }
            );
        }
    }
    let lines: Vec<String> = i.devfreq.iter().filter_map(devfreq_line).collect();
    s.push_str("\nStatus of performance related governors found below /sys (w/o cpufreq):\n\n");
    if lines.is_empty() {
        s.push_str("  n/a (no devfreq devices)\n");
    }
    for l in lines {
        let _ = writeln!(s, "  * {l}");
    }
    if !i.policies.is_empty() {
        s.push_str("\nStatus of performance related policies found below /sys:\n\n");
        for p in &i.policies {
            let _ = writeln!(s, "  * {}: {}", p.path, p.value);
        }
    }
    s
}

/// sbc-bench's HumanReadableSize: KiB to `512.0M`, `7.7G`, `996K`.
pub fn human_kib(kib: u64) -> String {
    if kib > 1_273_741_824 {
        format!("{:.1}T", kib as f64 / 1_073_741_824.0)
    } else if kib > 1_248_576 {
        format!("{:.1}G", kib as f64 / 1_048_576.0)
    } else if kib > 1080 {
        format!("{:.1}M", kib as f64 / 1024.0)
    } else {
        format!("{kib}K")
    }
}

/// util-linux's one-letter human size (as `zramctl` prints it): `74B`, `4K`, `994.6M`.
pub fn human_bytes(bytes: u64) -> String {
    const LETTERS: &[u8] = b"BKMGTPE";
    let mut exp = 0u32;
    while exp < 60 && bytes >= 1u64 << (exp + 10) {
        exp += 10;
    }
    if exp == 0 {
        return format!("{bytes}B");
    }
    let unit = LETTERS[(exp / 10) as usize] as char;
    let mut dec = bytes >> exp;
    let rem = bytes & ((1u64 << exp) - 1);
    // One decimal: the remainder in 1/1024 units, rounded to tenths.
    let mut frac = ((rem >> (exp - 10)) + 50) / 100;
    if frac >= 10 {
        dec += 1;
        frac = 0;
    }
    if frac == 0 {
        format!("{dec}{unit}")
    } else {
        format!("{dec}.{frac}{unit}")
    }
}

fn storage_note(kind: Option<StorageKind>, in_vm: bool) -> &'static str {
    match kind {
        Some(StorageKind::Sd) => " on ultra slow SD card storage",
        Some(StorageKind::Mmc) => " on MMC storage",
        Some(StorageKind::Hdd) if !in_vm => " on ultra slow HDD storage",
        _ => "",
    }
}

/// One swap line as sbc-bench's ListSwapDevices prints it.
pub fn swap_line(sw: &Swap, zswap_on: bool, in_vm: bool) -> String {
    let e = &sw.entry;
    let size = human_kib(e.size_kib);
    let used = human_kib(e.used_kib);
    match sw.swap_kind {
        SwapKind::Zram => {
            let z = sw.zram.clone().unwrap_or_default();
            let b = |v: Option<u64>| v.map_or("n/a".to_string(), human_bytes);
            format!(
                "  * {}: {} ({used} used, {}, {} streams, {} data, {} compressed, {} total{})",
                e.path,
                z.disksize_bytes.map_or(size, human_bytes),
                z.algorithm.as_deref().unwrap_or("n/a"),
                z.streams.map_or("n/a".to_string(), |n| n.to_string()),
                b(z.orig_data_bytes),
                b(z.compr_data_bytes),
                b(z.mem_used_bytes),
                if zswap_on {
                    ", slowed down by zswap"
                } else {
                    ""
                }
            )
        }
        SwapKind::File => {
            let back = sw.backing.clone().unwrap_or_default();
            match &back.device {
                Some(d) => format!(
                    "  * {} on {d}: {size} ({used} used){}",
                    e.path,
                    storage_note(back.storage, in_vm)
                ),
                None => format!("  * {}: {size} ({used} used)", e.path),
            }
        }
        SwapKind::Partition => {
            let st = sw.backing.as_ref().and_then(|b| b.storage);
            format!(
                "  * {}: {size} ({used} used){}",
                e.path,
                storage_note(st, in_vm)
            )
        }
        SwapKind::Other => format!("  * {}: {size} ({used} used)", e.path),
    }
}

/// Memory, swap devices and zswap.
pub fn memory_block(m: &Memory, in_vm: bool) -> String {
    let mut s = String::new();
    let k = |v: Option<u64>| v.map_or("n/a".to_string(), human_kib);
    let _ = writeln!(
        s,
        "Memory: {} total, {} available",
        k(m.meminfo.mem_total_kib),
        k(m.meminfo.mem_available_kib)
    );
    s.push_str("\nSwap configuration:\n\n");
    let zswap_on = m.zswap.as_ref().and_then(|z| z.enabled) == Some(true);
    if m.swaps.is_empty() {
        s.push_str("  * none\n");
    }
    for sw in &m.swaps {
        let _ = writeln!(s, "{}", swap_line(sw, zswap_on, in_vm));
    }
    s.push('\n');
    match &m.zswap {
        None => s.push_str("Zswap: n/a (not in this kernel)\n"),
        Some(z) if z.enabled == Some(true) => {
            if m.zswap_on_zram() {
                s.push_str("WARNING: ZSWAP ON TOP OF ZRAM HAS BEEN CONFIGURED ON THIS SYSTEM!\nTHIS WILL SEVERELY HARM PERFORMANCE IN CASE SWAPPING OCCURS!\n\n");
            }
            match (&z.compressor, &z.zpool, z.max_pool_percent) {
                (Some(c), Some(p), Some(m)) => {
                    let _ = writeln!(s, "Zswap active using {c}/{p}, max pool occupation: {m}%");
                }
                (Some(c), Some(p), None) => {
                    let _ = writeln!(s, "Zswap active using {c}/{p}");
                }
                (Some(c), None, Some(m)) => {
                    let _ = writeln!(s, "Zswap active using {c}, max pool occupation: {m}%");
                }
                _ => s.push_str("Zswap active\n"),
            }
        }
        Some(z) => {
            let _ = writeln!(
                s,
                "Zswap: {} (compressor {}, max pool {})",
                if z.enabled == Some(false) {
                    "disabled"
                } else {
                    "state n/a"
                },
                z.compressor.as_deref().unwrap_or("n/a"),
                z.max_pool_percent
                    .map_or("n/a".to_string(), |p| format!("{p}%"))
            );
        }
    }
    s
}

/// lm-sensors' label column: `label:` padded to the chip's widest label (at least 11) + 2.
fn label_cell(label: &str, width: usize) -> String {
    let l = format!("{label}:");
    format!("{l:<width$}")
}

fn limits(items: &[(&str, Option<f64>)], indent: usize, fmt: impl Fn(f64) -> String) -> String {
    let parts: Vec<String> = items
        .iter()
        .filter_map(|(n, v)| v.map(|v| format!("{n} = {}", fmt(v))))
        .collect();
    if parts.is_empty() {
        return String::new();
    }
    // lm-sensors puts at most two limits on a line and continues on the next, indented by
    // the label width + 10.
    let lines: Vec<String> = parts
        .chunks(2)
        .map(|c| format!("({})", c.join(", ")))
        .collect();
    lines.join(&format!("\n{:indent$}", ""))
}

/// One chip in the layout of `sensors -A` (what sbc-bench logs as "Hardware sensors").
pub fn render_chip(h: &Hwmon) -> String {
    let mut s = format!("{}\n", shown(&h.chip));
    let label_of = |i: &crate::sys::thermal::HwmonInput| {
        i.label.as_deref().map_or_else(|| i.attr.clone(), shown)
    };
    let width = h
        .inputs
        .iter()
        .map(|i| label_of(i).chars().count())
        .max()
        .unwrap_or(0)
        .max(11)
        + 2;
    for inp in &h.inputs {
        let cell = label_cell(&label_of(inp), width);
        let line = match &inp.reading {
            Reading::Temp {
                temp_c,
                min_c,
                max_c,
                crit_c,
            } => {
                let v = temp_c.map_or("   N/A  ".to_string(), |t| format!("{t:+6.1} C"));
                let l = limits(
                    &[("low ", *min_c), ("high", *max_c), ("crit", *crit_c)],
                    width + 10,
                    |x| format!("{x:+5.1} C"),
                );
                format!("{cell}{v}  {l}")
            }
            Reading::Voltage {
                volts,
                min_volts,
                max_volts,
            } => {
                let v = volts.map_or("   N/A  ".to_string(), |x| format!("{x:6.2} V"));
                let l = limits(
                    &[("min", *min_volts), ("max", *max_volts)],
                    width + 10,
                    |x| format!("{x:+6.2} V"),
                );
                format!("{cell}{v}  {l}")
            }
            Reading::Current {
                amps,
                min_amps,
                max_amps,
            } => {
                let v = amps.map_or("   N/A  ".to_string(), |x| format!("{x:6.2} A"));
                let l = limits(&[("min", *min_amps), ("max", *max_amps)], width + 10, |x| {
                    format!("{x:+6.2} A")
                });
                format!("{cell}{v}  {l}")
            }
            Reading::Power { watts, max_watts } => {
                let v = watts.map_or("   N/A  ".to_string(), |x| format!("{x:6.2} W"));
                let l = limits(&[("max", *max_watts)], width + 10, |x| format!("{x:6.2} W"));
                format!("{cell}{v}  {l}")
            }
            Reading::Fan {
                rpm,
                min_rpm,
                max_rpm,
            } => {
                let v = rpm.map_or(" N/A".to_string(), |x| format!("{x:4.0} RPM"));
                let l = limits(&[("min", *min_rpm), ("max", *max_rpm)], width + 10, |x| {
                    format!("{x:4.0} RPM")
                });
                if l.is_empty() {
                    format!("{cell}{v}")
                } else {
                    format!("{cell}{v}  {l}")
                }
            }
            Reading::UndervoltageAlarm { active } => format!(
                "{cell}   N/A  (under-voltage alarm: {})",
                match active {
                    Some(true) => "ACTIVE",
                    Some(false) => "no",
                    None => "n/a",
                }
            ),
        };
        let _ = writeln!(s, "{line}");
    }
    s
}

/// Hardware sensors, thermal zones and DC-in.
pub fn sensors_block(i: &SystemInfo) -> String {
    let mut s = String::from("Hardware sensors:\n\n");
    if i.sensors.hwmon.is_empty() {
        s.push_str("n/a (no hwmon devices)\n\n");
    }
    for h in &i.sensors.hwmon {
        s.push_str(&render_chip(h));
        s.push('\n');
    }
    s.push_str("Thermal zones:\n\n");
    if i.sensors.thermal_zones.is_empty() {
        s.push_str("  n/a (no thermal zones)\n");
    }
    for z in &i.sensors.thermal_zones {
        let t = z.temp_c.map_or("n/a".to_string(), |t| format!("{t:.1}°C"));
        let crit = z
            .crit_c()
            .map(|c| format!("  (crit {c:.1}°C)"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  {:<15}{:<24}{t:>8}{crit}",
            z.zone,
            z.zone_type
                .as_deref()
                .map_or_else(|| "n/a".to_string(), shown)
        );
    }
    s.push('\n');
    let p = &i.sensors.power;
    match (&p.dc_in, p.dc_in_volts) {
        (Some(d), Some(v)) => {
            let _ = writeln!(s, "DC-in: {v:.2} V ({}, {})", d.path.display(), d.label);
        }
        (Some(d), None) => {
            let _ = writeln!(s, "DC-in: n/a ({} unreadable)", d.path.display());
        }
        (None, _) => s.push_str("DC-in: n/a (no known supply voltage sensor on this board)\n"),
    }
    if let Some(u) = p.rpi_undervoltage {
        let _ = writeln!(
            s,
            "Under-voltage (rpi_volt): {}",
            if u { "ACTIVE" } else { "no" }
        );
    }
    s
}

/// `monitor`'s identification line's inputs, the same as `info`'s summary line: the SoC bus
/// device, the SoC guess (on x86 the processor name), virtualisation as
/// `systemd-detect-virt` names it, the userland.
pub fn monitor_banner(root: &SysRoot, setup: &Setup) -> Banner {
    let inputs = soc::read_inputs(root, &setup.topology);
    let g = soc::guess(&inputs);
    let cpu_name = discover::x86_cpu_name(&inputs);
    Banner {
        soc0: inputs.soc0.as_ref().and_then(soc0_label),
        soc: soc_label(cpu_name.as_deref(), &g),
        // `uname -m`, as `info` reads it.
        kernel_arch: board::kernel_machine(root, &board::HostFacts::read(root)),
        virt: board::Virtualization::detect(
            root,
            board::BoardDevice::read(root).dmi.as_ref(),
            board::kernel_release(root).as_deref(),
        )
        .systemd_name(),
        userland: board::Userland::read(root).map(|u| u.arch),
        topology: topology::render(&setup.topology) + &topology::notes(&setup.topology),
        thermal_source: setup.thermal.as_ref().map(|t| t.label()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::thermal::HwmonInput;

    #[test]
    fn sysfs_strings_are_sanitized() {
        assert_eq!(shown("schedutil"), "schedutil");
        assert_eq!(shown("sched\u{1b}[2Jutil"), "n/a");
        assert_eq!(shown("bad\u{fffd}bytes"), "n/a");
        assert_eq!(shown("a\tb"), "a\tb");
        let long = "x".repeat(200);
        let cut = shown(&long);
        assert_eq!(cut.chars().count(), MAX_FIELD_CHARS);
        assert!(cut.ends_with("..."));
        assert_eq!(scrub("ok\n\u{1b}[31mred\n".into()), "ok\n?[31mred\n");
        // A policy whose driver and governor files hold garbage: n/a and a cut string, and
        // no control character reaches the rendered line.
        let p = Policy {
            id: 0,
            cpus: vec![0, 1],
            driver: Some("cpufreq-dt\u{7}\u{1b}]0;pwned\u{7}".into()),
            governor: Some("g".repeat(500)),
            ..Default::default()
        };
        let line = policy_line(&p);
        assert!(line.contains("driver n/a,"), "{line}");
        assert!(line.contains(&format!("{}...", "g".repeat(61))), "{line}");
        assert!(!line.chars().any(|c| c.is_control() && c != '\n'), "{line}");
    }

    #[test]
    fn human_sizes_like_sbc_bench_and_zramctl() {
        // /proc/swaps KiB values from corpus logs and the lines sbc-bench printed for them.
        assert_eq!(human_kib(524_272), "512.0M");
        assert_eq!(human_kib(255_520), "249.5M");
        assert_eq!(human_kib(8_388_604), "8.0G");
        assert_eq!(human_kib(0), "0K");
        assert_eq!(human_bytes(74), "74B");
        assert_eq!(human_bytes(4096), "4K");
        assert_eq!(human_bytes(12_288), "12K");
        assert_eq!(human_bytes(14_848), "14.5K");
        assert_eq!(human_bytes(665_845_760), "635M");
    }

    #[test]
    fn governor_lines() {
        let g: Vec<String> =
            "rknpu_ondemand dmc_ondemand userspace powersave performance simple_ondemand"
                .split(' ')
                .map(str::to_string)
                .collect();
        assert_eq!(
            governor_line(
                "dmc",
                "dmc_ondemand",
                Some(528),
                &g,
                &[528, 1068, 1560, 2112]
            )
            .as_deref(),
            Some(
                "dmc: dmc_ondemand / 528 MHz (rknpu_ondemand dmc_ondemand userspace powersave performance simple_ondemand / 528 1068 1560 2112)"
            )
        );
        assert_eq!(
            governor_line("x", "only", None, &["only".into()], &[]),
            None
        );
        assert_eq!(
            governor_line("x", "gov", Some(5), &[], &[]).as_deref(),
            Some("x: gov / 5 MHz")
        );
    }

    #[test]
    fn lm_sensors_layout() {
        // tcpm hwmon of the ROCK 5B (corpus log 41BH) and an RK3588 thermal hwmon.
        let h = Hwmon {
            hwmon: "hwmon7".into(),
            name: Some("tcpm_source_psy_4_0022".into()),
            chip: "tcpm_source_psy_4_0022-i2c-4-22".into(),
            inputs: vec![
                HwmonInput {
                    attr: "in0".into(),
                    label: None,
                    reading: Reading::Voltage {
                        volts: Some(9.0),
                        min_volts: Some(9.0),
                        max_volts: Some(9.0),
                    },
                },
                HwmonInput {
                    attr: "curr1".into(),
                    label: None,
                    reading: Reading::Current {
                        amps: Some(3.0),
                        min_amps: None,
                        max_amps: Some(3.0),
                    },
                },
            ],
        };
        assert_eq!(
            render_chip(&h),
            "tcpm_source_psy_4_0022-i2c-4-22\nin0:           9.00 V  (min =  +9.00 V, max =  +9.00 V)\ncurr1:         3.00 A  (max =  +3.00 A)\n"
        );
        let t = Hwmon {
            hwmon: "hwmon0".into(),
            name: Some("soc_thermal".into()),
            chip: "soc_thermal-virtual-0".into(),
            inputs: vec![HwmonInput {
                attr: "temp1".into(),
                label: None,
                reading: Reading::Temp {
                    temp_c: Some(31.5),
                    min_c: None,
                    max_c: None,
                    crit_c: Some(115.0),
                },
            }],
        };
        assert_eq!(
            render_chip(&t),
            "soc_thermal-virtual-0\ntemp1:        +31.5 C  (crit = +115.0 C)\n"
        );
    }

    #[test]
    fn page_sizes() {
        assert_eq!(page_size_label(16384), "16kB");
        assert_eq!(page_size_label(65536), "64kB");
    }
}
