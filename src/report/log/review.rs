//! Review mode's texts (`sbc-bench review`, sbc-bench's `-r`/`-j`/`-R`): the Markdown
//! review a reviewer pastes into the article, in the headings and line formats of
//! sbc-bench's `ProvideReviewInfo` (`../shared/corpus/sbc-bench/reviews/*.md`), and the
//! report at the stop (`FinalReporting`: clocks now, the `ATTENTION:` blocks, kernel
//! noise, Results validation). Pure functions of the run report.

use std::fmt::Write as _;

use crate::bench::clock::ClockCheck;
use crate::record::mode::review::{CommandRun, DeviceLines, ReviewRecord, Stop, Waiting};
use crate::record::run::{ModeResults, RunReport};
use crate::record::tuning::Governor;
use crate::report::log::{clock, crypto, memory};
use crate::report::text::topology;
use crate::report::text::{info, storage};
use crate::sys::cpu::Topology;
use crate::sys::cpu_list as list;
use crate::sys::pci::{self, PciDevice};
use crate::sys::review_state::{DeviceStates, NicLink};
use crate::sys::usb::{self, UsbDevice};

/// sbc-bench's closing lines after the review, when it then waits for Ctrl-C.
pub const READY: &str =
    "All known settings adjusted for performance. Device now ready for benchmarking.
Once finished stop with [ctrl]-[c] to get info about throttling, frequency cap
and too high background activity all potentially invalidating benchmark scores.
All changes with storage and PCIe devices as well as suspicious dmesg contents
will be reported too.";

/// The name in the review's title: the device, else the host name (sbc-bench's
/// `${DeviceName:-$HostName}`).
pub fn device_name(r: &RunReport) -> String {
    let i = &r.system_before;
    i.device
        .name
        .clone()
        .or_else(|| i.hostname.clone())
        .unwrap_or_else(|| "n/a".to_string())
}

/// `date -R` of an RFC 3339 time: `Thu, 09 Nov 2023 13:38:32 +0000`.
pub fn date_r(rfc3339: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .map(|d| d.format("%a, %d %b %Y %H:%M:%S %z").to_string())
        .unwrap_or_else(|_| rfc3339.to_string())
}

/// sbc-bench's sentence about clusters; `None` with one cluster.
pub fn cluster_sentence(topo: &Topology) -> Option<String> {
    let clusters = topo.clusters.len();
    if clusters < 2 {
        return None;
    }
    let mut types: Vec<&str> = topo
        .clusters
        .iter()
        .map(|c| c.core_type.as_deref().unwrap_or("n/a"))
        .collect();
    types.sort_unstable();
    types.dedup();
    Some(if types.len() == 1 {
        format!("The CPU features {clusters} clusters of same core type:")
    } else if types.len() == clusters {
        format!("The CPU features {clusters} clusters of different core types:")
    } else {
        format!(
            "The CPU features {clusters} clusters consisting of {} different core types:",
            types.len()
        )
    })
}

fn indented(s: &mut String, text: &str) {
    for l in text.trim_end_matches('\n').lines() {
        let _ = writeln!(s, "    {l}");
    }
}

/// sbc-bench's "Tuned governor settings:" line: the status line's first five words
/// (`cpufreq-policy0: performance / 1992 MHz`).
pub fn tuned_line(g: &Governor) -> String {
    info::governor_status_line(g)
        .split_whitespace()
        .take(5)
        .collect::<Vec<_>>()
        .join(" ")
}

/// "Original governor settings:" lines, sorted as sbc-bench's `sort -n` leaves them;
/// governors offering only themselves are left out, as sbc-bench does.
pub fn governor_lines(govs: &[Governor]) -> Vec<String> {
    let mut v: Vec<String> = govs
        .iter()
        .filter_map(|g| {
            info::governor_line(
                &g.name,
                g.governor.as_deref()?,
                g.cur_mhz,
                &g.available,
                &g.frequencies_mhz,
            )
        })
        .collect();
    v.sort();
    v
}

/// One line of sbc-bench's cpufreq file: `cpu4-cpu5 (Cortex-A76): OPP: 2400, Measured:
/// 2302      (-4.1%)` (a trailing blank when within 1 %); the top OPP of the walk.
pub fn clock_line(c: &ClockCheck) -> Option<String> {
    let cpus = if c.only_cluster || c.cluster_cpus.is_empty() {
        format!("cpu{}", c.target.cpu)
    } else {
        list::format_cpu_range(&c.cluster_cpus)
    };
    let ty = c
        .target
        .core_type
        .as_ref()
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    let top = c
        .walk
        .as_ref()
        .and_then(|w| w.opps.iter().find(|o| o.measured.is_some()));
    match (top, &c.measured) {
        (Some(o), _) => {
            let m = o.measured.as_ref()?;
            let opp = o.opp_khz / 1000;
            let measured = clock::rounded_mhz(m);
            Some(format!(
                "{cpus}{ty}: OPP: {opp}, Measured: {measured} {}",
                clock::deviation_text(measured, opp)
            ))
        }
        (None, Some(m)) => Some(format!("{cpus}{ty}: Measured: {}", clock::rounded_mhz(m))),
        (None, None) => None,
    }
}

fn temp_label(t: Option<f64>) -> String {
    t.map(|t| format!(" at {t:.1}°C")).unwrap_or_default()
}

/// A PCI function's class as lspci names it, for the controllers sbc-bench lists
/// (`lspci -mm | grep controller`, without internal parts and NVMe, which the storage
/// lines show).
pub fn pci_class_name(class: &str) -> Option<&'static str> {
    let c = class.get(..4)?;
    Some(match c {
        "0100" => "SCSI storage controller",
        "0104" => "RAID bus controller",
        "0106" => "SATA controller",
        "0107" => "Serial Attached SCSI controller",
        "0200" => "Ethernet controller",
        "0280" => "Network controller",
        "0300" => "VGA compatible controller",
        "0302" => "3D controller",
        "0c03" => "USB controller",
        _ => return None,
    })
}

/// `  * Ethernet controller 10ec:8125: Speed 5GT/s (ok), Width x1 (ok), driver in use:
/// r8169, ASPM Disabled` — sbc-bench's line, with the IDs standing in for lspci's names.
pub fn pcie_line(d: &PciDevice) -> Option<String> {
    let class = pci_class_name(d.class.as_deref()?)?;
    let link = pci::format_link_status(d.link.as_ref()?)?;
    let mut s = format!(
        "  * {class} {}:{}: {link}",
        d.vendor_id.as_deref().unwrap_or("????"),
        d.device_id.as_deref().unwrap_or("????")
    );
    if let Some(drv) = &d.driver {
        let _ = write!(s, ", driver in use: {drv}");
    }
    if let Some(a) = &d.aspm {
        let _ = write!(s, ", {}", a.describe());
    }
    Some(s)
}

/// `  * USB 2-1 174c:55aa (ASM1153E): 5Gbps`.
pub fn usb_line(d: &UsbDevice) -> String {
    let name = usb::display_name(d)
        .or_else(|| d.product.clone())
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    format!(
        "  * USB {} {}{name}: {}",
        d.sysname,
        d.id().unwrap_or_else(|| "????:????".to_string()),
        d.speed_mbps
            .map_or_else(|| "n/a".to_string(), usb::format_speed)
    )
}

/// `  * eth0: up, 2500 Mbps full duplex`.
pub fn nic_line(n: &NicLink) -> String {
    let mut s = format!(
        "  * {}: {}",
        n.name,
        n.operstate.as_deref().unwrap_or("n/a")
    );
    if let Some(sp) = n.speed_mbps {
        let _ = write!(s, ", {sp} Mbps");
        if let Some(d) = &n.duplex {
            let _ = write!(s, " {d} duplex");
        }
    }
    s
}

/// The lines compared before and after: PCIe, USB, NICs, storage.
pub fn device_lines(
    states: &DeviceStates,
    storage_devices: &[crate::sys::storage::Device],
) -> DeviceLines {
    DeviceLines {
        pcie: states.pcie.iter().filter_map(pcie_line).collect(),
        usb: states.usb.iter().map(usb_line).collect(),
        nics: states.nics.iter().map(nic_line).collect(),
        storage: storage_devices
            .iter()
            .filter(|d| storage::listed(d))
            .map(|d| format!("  * {}", storage::device_line(d)))
            .collect(),
    }
}

/// The Markdown review.
pub fn markdown(r: &RunReport, rv: &ReviewRecord) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}\n", device_name(r));
    let _ = writeln!(
        s,
        "Tested with sbc-bench v{} (Rust) on {}.\n",
        r.sbc_bench_version,
        date_r(&r.started)
    );
    general(&mut s, r);
    governors(&mut s, r, rv);
    if rv.benchmarks {
        clockspeeds(&mut s, r, rv);
        baseline(&mut s, r);
    }
    devices(&mut s, &rv.devices, rv);
    challenging(&mut s, rv);
    swap(&mut s, r);
    software(&mut s, r);
    kernel(&mut s, r, rv);
    s
}

fn general(s: &mut String, r: &RunReport) {
    let i = &r.system_before;
    s.push_str("### General information:\n\n");
    if let Some(c) = cluster_sentence(&i.topology) {
        let _ = writeln!(s, "{c}\n");
    }
    let _ = writeln!(s, "    {}", info::summary_line(i));
    s.push_str("    \n");
    indented(s, &topology::render(&i.topology));
    if let Some(kib) = i.memory.meminfo.mem_total_kib {
        // sbc-bench's unit: MiB, labelled KB.
        let _ = writeln!(s, "\n{} KB available RAM", kib / 1024);
    }
}

fn is_x86(r: &RunReport) -> bool {
    r.system_before
        .kernel
        .machine
        .as_deref()
        .is_some_and(|m| m == "x86_64" || m.starts_with("i686") || m.starts_with("i386"))
}

fn governors(s: &mut String, r: &RunReport, rv: &ReviewRecord) {
    let policies = &rv.policies_tuned;
    if !r.system_before.cpufreq.is_empty() && !is_x86(r) {
        s.push_str("\n### Governors/policies (performance vs. idle consumption):\n\nOriginal governor settings:\n\n");
        for l in governor_lines(&r.governors_before) {
            let _ = writeln!(s, "    {l}");
        }
        if !rv.governors_tuned.is_empty() {
            s.push_str("\nTuned governor settings:\n\n");
            let mut tuned: Vec<String> = rv
                .governors_tuned
                .iter()
                .filter(|g| g.governor.is_some())
                .filter(|g| {
                    info::governor_line(
                        &g.name,
                        g.governor.as_deref().unwrap_or_default(),
                        None,
                        &g.available,
                        &[],
                    )
                    .is_some()
                })
                .map(tuned_line)
                .collect();
            tuned.sort();
            for l in tuned {
                let _ = writeln!(s, "    {l}");
            }
        }
    } else if !policies.is_empty() {
        s.push_str("\n### Policies (performance vs. idle consumption):\n");
    }
    if !policies.is_empty() {
        s.push_str("\nStatus of performance related policies found below /sys:\n\n");
        for p in policies {
            let _ = writeln!(s, "    {}: {}", p.path, p.value);
        }
    }
}

fn clockspeeds(s: &mut String, r: &RunReport, rv: &ReviewRecord) {
    let lines = |checks: &[ClockCheck]| {
        let mut t = String::new();
        for l in checks.iter().filter_map(clock_line) {
            let _ = writeln!(t, "    {l}");
        }
        t
    };
    let _ = write!(
        s,
        "\n### Clockspeeds (idle vs. heated up):\n\nBefore{}:\n\n{}\nAfter{}{}:\n\n{}",
        temp_label(rv.temp_before_c),
        lines(&r.results.clock_cold),
        temp_label(rv.temp_after_c),
        if rv.throttled_in_benchmarks {
            " (throttled)"
        } else {
            ""
        },
        lines(&r.results.clock_hot),
    );
}

fn baseline(s: &mut String, r: &RunReport) {
    let res = &r.results;
    let bw: Vec<_> = res
        .membw
        .iter()
        .filter_map(|m| m.result.as_ref().map(|x| (&m.target, x)))
        .collect();
    if bw.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n### Performance baseline{}\n",
        if r.config.no_tuning {
            " (NOTUNING=yes was set)"
        } else {
            ""
        }
    );
    let many = r.system_before.topology.clusters.len() > 1;
    let label = |t: &crate::bench::pin::Target| {
        if many {
            let ty = t
                .core_type
                .as_ref()
                .map(|c| format!(" ({c})"))
                .unwrap_or_default();
            format!("cpu{}{ty}", t.cpu)
        } else {
            String::new()
        }
    };
    for (t, x) in &bw {
        let l = label(t);
        let sep = if l.is_empty() { "" } else { ": " };
        let _ = writeln!(s, "  * {l}{sep}{}", memory::membw_summary(x));
    }
    for size in [16u64 << 20, 128 << 20] {
        for m in &res.memlat {
            let Some(t) = m.result.as_ref().and_then(|x| x.ramlat.as_ref()) else {
                continue;
            };
            if let Some(line) = memory::latency_summary(t, size) {
                let l = label(&m.target);
                let sep = if l.is_empty() { "" } else { " " };
                let _ = writeln!(s, "  * {l}{sep}{line}");
            }
        }
    }
    compression(s, r);
    aes(s, r);
}

fn compression(s: &mut String, r: &RunReport) {
    let res = &r.results;
    if let Some(z) = res.sevenzip.as_ref().and_then(|c| c.sevenzip.as_ref()) {
        let totals: Vec<u64> = z.multi.iter().map(|m| m.table.total_rating_mips).collect();
        if !totals.is_empty() {
            let avg = totals.iter().sum::<u64>() as f64 / totals.len() as f64;
            // sbc-bench's ZipScore: the average rounded to tens.
            let avg = ((avg / 10.0).round() * 10.0) as u64;
            let list: Vec<String> = totals.iter().map(u64::to_string).collect();
            let single = z
                .single_threaded_score()
                .map(|v| format!(", single-threaded: {v}"))
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  * 7-zip MIPS ({} consecutive runs): {} ({avg} avg){single}",
                totals.len(),
                list.join(", ")
            );
            return;
        }
    }
    if let Some(line) = res.lzma.as_ref().and_then(crypto::native_summary) {
        let _ = writeln!(s, "  * {line}");
    }
}

fn aes(s: &mut String, r: &RunReport) {
    let Some(a) = &r.results.aes else {
        return;
    };
    let many = r.system_before.topology.clusters.len() > 1;
    let rows = a.openssl.as_ref().map_or(&a.native, |o| &o.rows);
    for row in rows.iter().filter(|x| x.algorithm.name() == "aes-256-cbc") {
        let v: Vec<f64> = row.sizes.iter().map(|t| t.bytes_per_s).collect();
        let tag = many.then_some(row.tag.as_str());
        let _ = writeln!(
            s,
            "  * `{}`",
            crypto::openssl_row(row.algorithm.name(), &v, tag)
        );
    }
}

fn devices(s: &mut String, d: &DeviceLines, rv: &ReviewRecord) {
    let pcie = !d.pcie.is_empty() || !rv.pcie_controllers.is_empty() || !rv.pcie_details.is_empty();
    let heading = match (!pcie, d.storage.is_empty()) {
        (false, false) => "PCIe and storage devices",
        (false, true) => "PCIe devices",
        (true, false) => "Storage devices",
        (true, true) => return,
    };
    let _ = writeln!(s, "\n### {heading}:\n");
    // sbc-bench's controller lines named from pci.ids where the tree has them, else the
    // link lines the before/after comparison uses; then what sbc-bench lacks (payload
    // sizes, IRQ placement), then the storage lines.
    let controllers = if rv.pcie_controllers.is_empty() {
        &d.pcie[..]
    } else {
        &rv.pcie_controllers[..]
    };
    for l in controllers.iter().chain(&rv.pcie_details).chain(&d.storage) {
        let _ = writeln!(s, "{l}");
    }
}

fn challenging(s: &mut String, rv: &ReviewRecord) {
    let pick = |f: &dyn Fn(&str) -> bool| {
        rv.challenging_mounts
            .iter()
            .filter(|m| f(&m.fstype))
            .map(|m| m.partition.clone())
            .collect::<Vec<_>>()
            .join(",")
    };
    let ntfs = pick(&|t| matches!(t, "ntfs" | "ntfs3" | "fuseblk"));
    let exfat = pick(&|t| t.contains("exfat"));
    if ntfs.is_empty() && exfat.is_empty() {
        return;
    }
    s.push_str("\n### Challenging filesystems:\n\n");
    if !ntfs.is_empty() {
        let _ = writeln!(
            s,
            "The following partitions are NTFS: {ntfs} -> https://tinyurl.com/mv7wvzct"
        );
    }
    if !exfat.is_empty() {
        let _ = writeln!(s, "The following partitions are exFAT: {exfat}");
    }
}

fn swap(s: &mut String, r: &RunReport) {
    let i = &r.system_before;
    if i.memory.swaps.is_empty() {
        return;
    }
    s.push_str("\n### Swap configuration:\n\n");
    let zswap = i.memory.zswap.as_ref().and_then(|z| z.enabled) == Some(true);
    let vm = i.virtualization.vm.is_some();
    for sw in &i.memory.swaps {
        let _ = writeln!(s, "{}", info::swap_line(sw, zswap, vm));
    }
}

fn software(s: &mut String, r: &RunReport) {
    let i = &r.system_before;
    s.push_str("\n### Software versions:\n\n");
    match i.distro.as_ref().and_then(|d| d.pretty_name.clone()) {
        Some(p) => {
            let _ = writeln!(s, "  * {p}");
        }
        None => s.push_str("  * n/a (no /etc/os-release)\n"),
    }
    if let Some(b) = info::distro_lines(i)
        .lines()
        .find_map(|l| l.strip_prefix("Build system:   "))
    {
        let _ = writeln!(s, "  * Build scripts: {b}");
    }
    if let Some(o) = r.results.aes.as_ref().and_then(|a| a.openssl.as_ref()) {
        let _ = writeln!(s, "  * {}", o.version_line);
    }
}

fn kernel(s: &mut String, r: &RunReport, rv: &ReviewRecord) {
    let k = &r.system_before.kernel;
    s.push_str("\n### Kernel info:\n\n");
    if !rv.kernel_info.is_empty() {
        for l in &rv.kernel_info {
            let _ = writeln!(s, "{l}");
        }
        return;
    }
    if let Some(c) = &k.cmdline {
        let _ = writeln!(s, "  * `/proc/cmdline: {c}`");
    }
    for (name, v) in rv
        .vulnerabilities
        .iter()
        .filter(|(_, v)| !v.contains("Not affected"))
    {
        let key = format!("Vulnerability {name}:");
        let _ = writeln!(s, "  * {key:<32} {v}");
    }
    let hz = k.config.iter().find(|l| l.starts_with("CONFIG_HZ="));
    let release = k.release.as_deref().unwrap_or("n/a");
    match hz {
        Some(hz) => {
            let _ = writeln!(s, "  * Kernel {release} / {hz}");
        }
        None => {
            let _ = writeln!(s, "  * Kernel {release}");
        }
    }
}

/// What sbc-bench prints at the stop, from the waiting phase's record and the findings.
pub fn final_report(r: &RunReport, rv: &ReviewRecord) -> String {
    let mut s = String::new();
    let Some(w) = &rv.waiting else {
        return s;
    };
    if let Some(c) = &w.command {
        command_block(&mut s, c);
    }
    if rv.benchmarks && !w.clocks_now.is_empty() {
        let _ = writeln!(s, "Clockspeeds now{}:\n", temp_label(w.temp_now_c));
        for l in w.clocks_now.iter().filter_map(clock_line) {
            let _ = writeln!(s, "    {l}");
        }
        s.push('\n');
    }
    swap_and_throttling(&mut s, w);
    if let Some(c) = w.changed {
        let _ = writeln!(s, "ATTENTION: {}\n", c.heading());
        for l in w.pcie_diff.iter().chain(&w.storage_diff) {
            let _ = writeln!(s, "{l}");
        }
        s.push('\n');
    }
    if let Some(n) = w.noise {
        let _ = writeln!(s, "ATTENTION: {}\n", n.sentence());
        for m in &w.kernel_messages {
            let _ = writeln!(s, "{}", m.dmesg_line());
        }
        s.push('\n');
    }
    s.push_str(&crate::report::log::common::validation(r, false));
    s.push('\n');
    s.push_str(&crate::report::log::throttle::residency_table(
        &w.throttling,
    ));
    s
}

fn command_block(s: &mut String, c: &CommandRun) {
    let cmd = c.argv.join(" ");
    let how = match (&c.error, c.exit_code, c.signal) {
        (Some(e), _, _) => format!("could not be started: {e}"),
        (None, Some(code), _) => format!("exited with status {code}"),
        (None, None, Some(sig)) => format!("was ended by signal {sig}"),
        (None, None, None) => "was stopped".to_string(),
    };
    let _ = writeln!(s, "Command \"{cmd}\" {how} after {:.1} s.\n", c.duration_s);
    if !c.output_tail.is_empty() {
        let _ = writeln!(s, "Last lines of its output:\n");
        for l in &c.output_tail {
            let _ = writeln!(s, "    {l}");
        }
        s.push('\n');
    }
}

fn swap_and_throttling(s: &mut String, w: &Waiting) {
    let swapped = w
        .swap_used_after_kib
        .is_some_and(|a| a > w.swap_used_before_kib);
    let what = match (w.throttled, swapped) {
        (true, true) => Some("throttling and swapping"),
        (true, false) => Some("throttling"),
        (false, true) => Some("swapping"),
        (false, false) => None,
    };
    if let Some(what) = what {
        let _ = writeln!(
            s,
            "ATTENTION: {what} occurred while the review was waiting{}.\n",
            match w.stopped_by {
                Some(Stop::Signal(_)) | None => "",
                Some(Stop::CommandExited | Stop::CommandFailed) => " for the command",
            }
        );
    }
}

/// The review's part of the text log: the Markdown review, then the stop report.
pub fn log_section(r: &RunReport) -> String {
    let ModeResults::Review(rv) = &r.mode else {
        return String::new();
    };
    let mut s = String::from("Review (sbc-bench -r):\n\n");
    s.push_str(&rv.markdown);
    let fin = final_report(r, rv);
    if !fin.is_empty() {
        s.push_str("\nAt the stop:\n\n");
        s.push_str(&fin);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::pci::{Aspm, PciLink};

    #[test]
    fn pcie_line_of_the_rock_5_itx_sata_controller_at_half_width() {
        // The ROCK 5 ITX seed: ASM1164 at `LnkSta: Speed 8GT/s (ok), Width x2
        // (downgraded)` of a x4 capability, ahci, ASPM off.
        let d = PciDevice {
            address: "0000:01:00.0".into(),
            vendor_id: Some("1b21".into()),
            device_id: Some("1164".into()),
            class: Some("010601".into()),
            driver: Some("ahci".into()),
            link: Some(PciLink {
                speed_gts: Some(8.0),
                width: Some(2),
                max_speed_gts: Some(8.0),
                max_width: Some(4),
                ..Default::default()
            }),
            aspm: Some(Aspm {
                l0s: false,
                l1: false,
                l1_1: false,
                l1_2: false,
                source: "sysfs".into(),
            }),
        };
        assert_eq!(
            pcie_line(&d).as_deref(),
            Some(
                "  * SATA controller 1b21:1164: Speed 8GT/s (ok), Width x2 (downgraded), driver in use: ahci, ASPM Disabled"
            )
        );
        // Bridges are not listed, as sbc-bench's `lspci | grep controller`.
        let bridge = PciDevice {
            class: Some("060400".into()),
            ..d
        };
        assert_eq!(pcie_line(&bridge), None);
    }

    #[test]
    fn tuned_line_keeps_the_first_five_words() {
        // NanoPi R5S review: `fde60000.gpu: performance / 800 MHz`.
        let g = Governor {
            name: "fde60000.gpu".into(),
            path: "/sys/class/devfreq/fde60000.gpu/governor".into(),
            governor: Some("performance".into()),
            available: vec!["simple_ondemand".into(), "performance".into()],
            cur_mhz: Some(800),
            frequencies_mhz: vec![200, 800],
            io_is_busy: None,
        };
        assert_eq!(tuned_line(&g), "fde60000.gpu: performance / 800 MHz");
    }

    #[test]
    fn nic_lines_up_and_down() {
        let up = NicLink {
            name: "eth0".into(),
            operstate: Some("up".into()),
            speed_mbps: Some(2500),
            duplex: Some("full".into()),
        };
        assert_eq!(nic_line(&up), "  * eth0: up, 2500 Mbps full duplex");
        let down = NicLink {
            operstate: Some("down".into()),
            speed_mbps: None,
            ..up
        };
        assert_eq!(nic_line(&down), "  * eth0: down");
    }

    #[test]
    fn date_as_date_r() {
        assert_eq!(
            date_r("2023-11-09T13:38:32+00:00"),
            "Thu, 09 Nov 2023 13:38:32 +0000"
        );
        assert_eq!(date_r("garbage"), "garbage");
    }
}
