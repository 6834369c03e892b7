//! The parts of a log about the machine: the header, lsb_release, iostat, free, the
//! environment block (`SoC guess:`, `DT compat:`, `Kernel:` …), the topology table, swap,
//! DMI, lscpu, caches, RAM, the governors and the validation lines.

use crate::record::log_record::{LogCache, LogCpu, LogDmiBlock, LogRecord, LogSwap, LogWriter};

use super::{LogVersion, date};

/// Our header's marker after the version (`sbc-bench v0.1.0-rs …`): no reader orders
/// our `0.1.0` below the bash sbc-bench's `0.4`.
pub const OUR_MARKER: &str = "-rs";

/// The mode words sbc-bench (and our header) put after the device.
const MODES: &[&str] = &[
    "quick",
    "extensive",
    "unattended",
    "review",
    "graph",
    "pts",
    "gb",
];

/// `sbc-bench v0.9.72 Radxa ROCK 5B extensive (Mon, 10 Nov 2025 23:46:00 +0800)`, v0.4's
/// `sbc-bench v0.4 -- Sun, 29 Jul 2018 12:00:00 +0200`, or ours,
/// `sbc-bench v0.1.0-rs Radxa ROCK 5B unattended (…)`.
pub fn header(h: &str, out: &mut LogRecord) {
    let mut words = h.splitn(3, ' ');
    let _ = words.next();
    let token = words.next().unwrap_or("").trim_start_matches('v');
    let rest = words.next().unwrap_or("");
    let (version, ours) = match token.strip_suffix(OUR_MARKER) {
        Some(v) => (v, true),
        None => (token, false),
    };
    out.header.version = Some(version.to_string()).filter(|v| !v.is_empty());
    // The bash sbc-bench began at v0.4; our logs before the marker were v0.1–v0.3.
    out.writer = match LogVersion::parse(version) {
        _ if ours => LogWriter::Ours,
        Some(v) if v < LogVersion(0, 4, 0) => LogWriter::Ours,
        _ => LogWriter::BashSbcBench,
    };
    if let Some(d) = rest.strip_prefix("-- ") {
        set_date(out, d.trim());
        return;
    }
    // The date is the last parenthesised part that starts with a weekday.
    let open = rest
        .match_indices(" (")
        .map(|(i, _)| i)
        .filter(|&i| {
            rest[i + 2..]
                .chars()
                .take(3)
                .all(|c| c.is_ascii_alphabetic())
        })
        .last();
    let device = match open {
        Some(i) => {
            set_date(out, rest[i + 2..].trim_end_matches(')'));
            &rest[..i]
        }
        None => rest,
    };
    let mut device = device.trim().to_string();
    let mut modes = Vec::new();
    while let Some(mode) = MODES
        .iter()
        .find(|m| device.strip_suffix(**m).is_some_and(|d| d.ends_with(' ')))
    {
        device.truncate(device.len() - mode.len());
        device.truncate(device.trim_end().len());
        modes.insert(0, *mode);
    }
    if !modes.is_empty() {
        out.header.mode = Some(modes.join(" "));
    }
    out.header.device = Some(device).filter(|d| !d.is_empty());
}

fn set_date(out: &mut LogRecord, printed: &str) {
    out.header.date = Some(printed.to_string());
    out.header.date_utc = date::to_utc(printed);
}

/// A `Key: value` line's value, where the key (trimmed) is `key`.
fn keyed<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let (k, v) = line.split_once(':')?;
    (k.trim() == key).then(|| v.trim())
}

/// The lines indented under a `Key: value` line of the environment block (`DT compat:`,
/// `Kernel:`): their text, up to the next key.
fn continuation(lines: &[String], i: usize) -> Vec<String> {
    lines[i + 1..]
        .iter()
        .take_while(|l| l.starts_with("     ") && !l.trim().contains(": "))
        .map(|l| l.trim().to_string())
        .collect()
}

/// lsb_release, the compiler, `Uptime:`, iostat's first line, `free`'s `Mem:` line and the
/// environment block.
pub fn host(lines: &[String], out: &mut LogRecord) {
    let h = &mut out.host;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if let Some(v) = l.strip_prefix("Description:") {
            h.distro.get_or_insert_with(|| v.trim().to_string());
        } else if let Some(v) = l.strip_prefix("Codename:") {
            h.codename.get_or_insert_with(|| v.trim().to_string());
        } else if let Some(v) = l.strip_prefix("Architecture:\t") {
            // v0.4 prints dpkg's architecture under lsb_release's lines (lscpu's
            // `Architecture:` is padded with blanks).
            h.userland.get_or_insert_with(|| v.trim().to_string());
        } else if let Some(v) = l.strip_prefix("Uptime:") {
            h.uptime.get_or_insert_with(|| v.trim().to_string());
        } else if (l.starts_with("/usr/bin/gcc") || l.starts_with("gcc ")) && h.compiler.is_none() {
            h.compiler = Some(l.trim().to_string());
        } else if let Some(r) = l.strip_prefix("Linux ") {
            iostat_line(r, h);
        } else if let Some(v) = l.strip_prefix("Mem:") {
            h.mem_total
                .get_or_insert_with(|| v.split_whitespace().next().unwrap_or("").to_string());
        } else if let Some(v) = keyed(t, "SoC guess") {
            if !v.is_empty() {
                h.soc_guess.get_or_insert_with(|| v.to_string());
            }
        } else if let Some(v) = keyed(t, "DT compat") {
            if h.dt_compat.is_empty() {
                h.dt_compat.push(v.to_string());
                h.dt_compat.extend(continuation(lines, i));
            }
        } else if let Some(v) = keyed(t, "Boot env").or_else(|| keyed(t, "ThreadX")) {
            h.firmware.get_or_insert_with(|| v.to_string());
        } else if let Some(v) = keyed(t, "Compiler") {
            let c = v.split(" / ").next().unwrap_or(v);
            h.compiler.get_or_insert_with(|| c.to_string());
        } else if let Some(v) = keyed(t, "Userland") {
            h.userland = Some(v.to_string());
        } else if let Some(v) = keyed(t, "DMC gov") {
            h.dmc_governor.get_or_insert_with(|| v.to_string());
        } else if let Some(v) = keyed(t, "Kernel")
            && l.starts_with(' ')
        {
            if let Some((rel, machine)) = v.split_once('/') {
                if rel.starts_with(|c: char| c.is_ascii_digit()) {
                    h.kernel_release.get_or_insert_with(|| rel.to_string());
                    h.machine.get_or_insert_with(|| machine.trim().to_string());
                }
            }
            h.kernel_config = continuation(lines, i)
                .into_iter()
                .filter(|c| c.starts_with("CONFIG_"))
                .collect();
        } else if l.starts_with("Raspberry Pi ThreadX version") && h.firmware.is_none() {
            let v = lines[i + 1..]
                .iter()
                .take(4)
                .find_map(|x| x.strip_prefix("version "))
                .and_then(|x| x.split_whitespace().next());
            let when = lines.get(i + 1).map(|x| x.trim()).filter(|x| !x.is_empty());
            h.firmware = match (v, when) {
                (Some(v), Some(w)) => Some(format!("{v} / {w}")),
                (Some(v), None) => Some(v.to_string()),
                _ => None,
            };
        }
    }
}

/// iostat's `Linux 5.10.0-odroid-arm64 (host) \t06/10/25 \t_aarch64_\t(8 CPU)` (after
/// `Linux `).
fn iostat_line(r: &str, h: &mut crate::record::log_record::LogHost) {
    let Some((rel, rest)) = r.split_once(' ') else {
        return;
    };
    if !(rest.starts_with('(') && rel.starts_with(|c: char| c.is_ascii_digit())) {
        return;
    }
    h.kernel_release.get_or_insert_with(|| rel.to_string());
    for w in rest.split_whitespace() {
        if let Some(m) = w.strip_prefix('_').and_then(|x| x.strip_suffix('_')) {
            h.machine.get_or_insert_with(|| m.to_string());
        }
    }
    if let Some((n, _)) = rest.rsplit_once(" CPU)") {
        let n = n.rsplit('(').next().unwrap_or("");
        if let Ok(n) = n.trim().parse() {
            h.cpus.get_or_insert(n);
        }
    }
}

/// The `CPU sysfs topology (clusters, cpufreq members, clockspeeds)` table.
pub fn topology(lines: &[String]) -> Vec<LogCpu> {
    let Some(start) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("CPU sysfs topology"))
    else {
        return Vec::new();
    };
    let num = |t: &str| t.parse::<u32>().ok();
    let mut out = Vec::new();
    for l in lines[start + 1..].iter().skip_while(|l| {
        let t = l.trim_start();
        t.starts_with("cpufreq") || t.starts_with("CPU ")
    }) {
        let toks: Vec<&str> = l.split_whitespace().collect();
        let Some(cpu) = toks.first().and_then(|t| num(t)) else {
            break;
        };
        if toks.len() < 5 {
            break;
        }
        // The core type is the rest of the line after the five numbers, as printed.
        let mut rest = l.as_str();
        for t in &toks[..5] {
            rest = rest.trim_start().strip_prefix(*t).unwrap_or(rest);
        }
        out.push(LogCpu {
            cpu,
            cluster: toks[1].parse().ok(),
            policy: num(toks[2]),
            min_mhz: num(toks[3]),
            max_mhz: num(toks[4]),
            core_type: Some(rest.trim().to_string()).filter(|t| !t.is_empty() && t != "-"),
        });
    }
    out
}

/// `free`'s `Swap:` line, the swap devices and zswap.
pub fn swap(lines: &[String]) -> Option<LogSwap> {
    let mut out = LogSwap::default();
    let mut found = false;
    for (i, l) in lines.iter().enumerate() {
        if let Some(v) = l.strip_prefix("Swap:") {
            if !found {
                let f: Vec<&str> = v.split_whitespace().collect();
                out.total = f.first().map(|s| s.to_string());
                out.used = f.get(1).map(|s| s.to_string());
                found = true;
            }
        } else if l.starts_with("Filename") && l.contains("Priority") && out.devices.is_empty() {
            out.devices = lines[i + 1..]
                .iter()
                .take_while(|x| x.starts_with('/'))
                .map(|x| x.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect();
        } else if l.starts_with("Swap configuration:") && out.devices.is_empty() {
            out.devices = lines[i + 1..]
                .iter()
                .skip_while(|x| x.trim().is_empty())
                .map_while(|x| x.strip_prefix("  * "))
                .map(str::to_string)
                .collect();
            found = true;
        } else if l.starts_with("Zswap") && out.zswap.is_none() {
            out.zswap = Some(l.trim().to_string());
        }
    }
    (found || !out.devices.is_empty() || out.zswap.is_some()).then_some(out)
}

/// The `  * …` lines of the block under a heading line.
fn bullets(lines: &[String], start: usize) -> Vec<String> {
    lines[start + 1..]
        .iter()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with("  * ") || l.starts_with("    "))
        .filter_map(|l| l.strip_prefix("  * "))
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// The `Results validation:` lines.
pub fn validation(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .position(|l| l.starts_with("Results validation"))
        .map(|i| bullets(lines, i))
        .unwrap_or_default()
}

/// The lines of a "Results validation:" block that say all is well.
const GOOD_VALIDATION: &[&str] = &[
    "Measured clockspeed not lower than advertised",
    "No swapping",
    "No throttling",
    "Background activity (%system) OK",
    "No mismatch between advertised and measured",
];

/// `ok` when every validation line is of the good kind, else `warnings`.
pub fn verdict(validation: &[String]) -> Option<String> {
    if validation.is_empty() {
        return None;
    }
    let all_good = validation
        .iter()
        .all(|i| GOOD_VALIDATION.iter().any(|g| i.starts_with(g)));
    Some(if all_good { "ok" } else { "warnings" }.to_string())
}

/// The governor and policy lines (`Status of performance related governors …`,
/// `Original governor settings:`, `Tuned governor settings:`).
pub fn governors(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let heading = l.starts_with("Status of performance related")
            || l.starts_with("Original governor settings")
            || l.starts_with("Tuned governor settings");
        if heading {
            out.extend(bullets(lines, i));
            if !l.starts_with("Status") {
                out.extend(
                    lines[i + 1..]
                        .iter()
                        .skip_while(|x| x.trim().is_empty())
                        .take_while(|x| !x.trim().is_empty() && !x.starts_with("  * "))
                        .map(|x| x.trim().to_string()),
                );
            }
        }
    }
    out
}

/// dmidecode's blocks the log prints: `Device Info:`, `BIOS/UEFI:` (sbc-bench's names) and
/// dmidecode's own headings.
const DMI_HEADINGS: &[&str] = &[
    "Device Info:",
    "BIOS/UEFI:",
    "Processor Information",
    "Memory Device",
    "Physical Memory Array",
    "System Information",
    "Base Board Information",
];

/// The DMI blocks.
pub fn dmi(lines: &[String]) -> Vec<LogDmiBlock> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !DMI_HEADINGS.contains(&l.trim_end()) {
            continue;
        }
        let fields: Vec<(String, String)> = lines[i + 1..]
            .iter()
            .take_while(|x| x.starts_with('\t'))
            .filter(|x| !x.starts_with("\t\t"))
            .filter_map(|x| {
                let (k, v) = x.trim().split_once(':')?;
                Some((k.trim().to_string(), v.trim().to_string()))
            })
            .collect();
        if !fields.is_empty() {
            out.push(LogDmiBlock {
                name: l.trim_end().trim_end_matches(':').to_string(),
                fields,
            });
        }
    }
    out
}

/// lscpu's summary: the block that begins with `Architecture:` padded with blanks.
pub fn lscpu(lines: &[String]) -> Vec<(String, String)> {
    for (i, l) in lines.iter().enumerate() {
        if !l.starts_with("Architecture:") || l.starts_with("Architecture:\t") {
            continue;
        }
        let block: Vec<(String, String)> = lines[i..]
            .iter()
            .take_while(|x| !x.trim().is_empty())
            .filter_map(|x| {
                let (k, v) = x.split_once(':')?;
                (!k.starts_with(' ')).then(|| (k.trim().to_string(), v.trim().to_string()))
            })
            .collect();
        let is_lscpu = block
            .iter()
            .any(|(k, _)| k == "Byte Order" || k == "CPU(s)" || k == "Model name");
        if is_lscpu {
            return block;
        }
    }
    Vec::new()
}

/// `128K` / `3072K` / `1M` in bytes.
fn size_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let (n, mult) = match s.chars().last()? {
        'K' => (&s[..s.len() - 1], 1u64 << 10),
        'M' => (&s[..s.len() - 1], 1 << 20),
        'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    n.parse::<u64>().ok().map(|n| n * mult)
}

/// `cpu0/index2: 128K, level: 2, type: Unified`.
pub fn caches(lines: &[String]) -> Vec<LogCache> {
    lines
        .iter()
        .filter_map(|l| {
            let (id, rest) = l.trim().split_once(": ")?;
            let (cpu, index) = id.strip_prefix("cpu")?.split_once("/index")?;
            let mut c = LogCache {
                cpu: cpu.parse().ok()?,
                index: index.parse().ok()?,
                ..LogCache::default()
            };
            for (i, part) in rest.split(", ").enumerate() {
                match part.split_once(": ") {
                    Some(("level", v)) => c.level = v.trim().parse().ok(),
                    Some(("type", v)) => c.kind = Some(v.trim().to_string()),
                    None if i == 0 => c.size_bytes = size_bytes(part),
                    _ => {}
                }
            }
            Some(c)
        })
        .collect()
}

/// `DIMM configuration:` / `RAM configuration:` (lshw's banks).
pub fn ram(lines: &[String]) -> Vec<String> {
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("DIMM configuration:") || l.starts_with("RAM configuration:") {
            return lines[i + 1..]
                .iter()
                .take_while(|x| x.starts_with("  ") || x.starts_with('\t'))
                .map(|x| x.trim().to_string())
                .collect();
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::sbclog::normalise;

    const ENV: &str = "sbc-bench v0.9.71 Hardkernel ODROID-M2 (Tue, 10 Jun 2025 16:21:47 +0000)

Distributor ID:\tUbuntu
Description:\tUbuntu 20.04.6 LTS
Release:\t20.04
Codename:\tfocal

/usr/bin/gcc (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0

Uptime: 16:21:47 up 12 min,  1 user,  load average: 0.58, 0.31, 0.22,  39.8°C,  98541397

Linux 5.10.0-odroid-arm64 (gnome-desktop) \t06/10/25 \t_aarch64_\t(8 CPU)

              total        used        free      shared  buff/cache   available
Mem:           15Gi       478Mi        14Gi        37Mi       363Mi        14Gi
Swap:            0B          0B          0B

CPU sysfs topology (clusters, cpufreq members, clockspeeds)
                 cpufreq   min    max
 CPU    cluster  policy   speed  speed   core type
  0        0        0      408    1800   Cortex-A55 / r2p0
  4        1        4      408    2256   Cortex-A76 / r4p0
  8       -1        -       -       -    sifive,u74-mc

Architecture:                       aarch64
Byte Order:                         Little Endian
Model name:                         Cortex-A55

SoC guess: Rockchip RK3588S2 (35881000 / 35 88 12 fe 53 41  32 5a 58 31 00 00 00 00)
  DMC gov: performance (2736 MHz)
DT compat: hardkernel,odroid-m2
           rockchip,rk3588
 Boot env: ddr-v1.15-d5483af87d, bl31-v1.44
 Compiler: /usr/bin/gcc (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0 / aarch64-linux-gnu
 Userland: arm64
   Kernel: 5.10.0-odroid-arm64/aarch64
           CONFIG_HZ=300
           CONFIG_HZ_300=y
           cpu cpu0: leakage=10

cpu0/index2: 128K, level: 2, type: Unified

Results validation:

  * Measured clockspeed not lower than advertised max CPU clockspeed
  * No throttling

Status of performance related governors found below /sys (w/o cpufreq):

  * dmc: performance / 2736 MHz
";

    #[test]
    fn the_environment_of_a_recent_log() {
        let mut r = LogRecord::default();
        let lines = normalise(ENV);
        header(&lines[0], &mut r);
        host(&lines, &mut r);
        assert_eq!(r.writer, LogWriter::BashSbcBench);
        assert_eq!(r.header.device.as_deref(), Some("Hardkernel ODROID-M2"));
        assert_eq!(r.header.date_utc.as_deref(), Some("2025-06-10T16:21:47Z"));
        let h = &r.host;
        assert_eq!(h.distro.as_deref(), Some("Ubuntu 20.04.6 LTS"));
        assert_eq!(h.codename.as_deref(), Some("focal"));
        assert_eq!(h.kernel_release.as_deref(), Some("5.10.0-odroid-arm64"));
        assert_eq!(h.machine.as_deref(), Some("aarch64"));
        assert_eq!(h.cpus, Some(8));
        assert_eq!(h.mem_total.as_deref(), Some("15Gi"));
        assert!(
            h.soc_guess
                .as_deref()
                .unwrap()
                .starts_with("Rockchip RK3588S2")
        );
        assert_eq!(h.dt_compat, ["hardkernel,odroid-m2", "rockchip,rk3588"]);
        assert_eq!(
            h.firmware.as_deref(),
            Some("ddr-v1.15-d5483af87d, bl31-v1.44")
        );
        assert_eq!(
            h.compiler.as_deref(),
            Some("/usr/bin/gcc (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0")
        );
        assert_eq!(h.userland.as_deref(), Some("arm64"));
        assert_eq!(h.kernel_config, ["CONFIG_HZ=300", "CONFIG_HZ_300=y"]);
        assert_eq!(h.dmc_governor.as_deref(), Some("performance (2736 MHz)"));
        let t = topology(&lines);
        assert_eq!(t.len(), 3);
        assert_eq!(t[1].policy, Some(4));
        assert_eq!(t[1].core_type.as_deref(), Some("Cortex-A76 / r4p0"));
        assert_eq!(t[2].cluster, Some(-1));
        assert_eq!((t[2].policy, t[2].max_mhz), (None, None));
        assert_eq!(lscpu(&lines).len(), 3);
        assert_eq!(caches(&lines)[0].size_bytes, Some(128 << 10));
        let s = swap(&lines).unwrap();
        assert_eq!(s.total.as_deref(), Some("0B"));
        let v = validation(&lines);
        assert_eq!(v.len(), 2);
        assert_eq!(verdict(&v).as_deref(), Some("ok"));
        assert_eq!(governors(&lines), ["dmc: performance / 2736 MHz"]);
    }

    #[test]
    fn our_marker_and_old_versions_of_ours() {
        let mut r = LogRecord::default();
        header(
            "sbc-bench v0.1.0-rs Radxa ROCK 5B unattended quick (Thu, 3 Dec 2026 14:33:30 +0000)",
            &mut r,
        );
        assert_eq!(r.writer, LogWriter::Ours);
        assert_eq!(r.header.version.as_deref(), Some("0.1.0"));
        assert_eq!(r.header.mode.as_deref(), Some("unattended quick"));
        let mut old = LogRecord::default();
        header(
            "sbc-bench v0.2.1 Radxa ROCK 5B (Thu, 3 Dec 2026 14:33:30 +0000)",
            &mut old,
        );
        assert_eq!(old.writer, LogWriter::Ours);
        let mut bash = LogRecord::default();
        header(
            "sbc-bench v0.4 -- Sun, 29 Jul 2018 12:34:58 +0000",
            &mut bash,
        );
        assert_eq!(bash.writer, LogWriter::BashSbcBench);
        assert_eq!(bash.header.device, None);
    }

    #[test]
    fn raspberry_pi_firmware_and_zram_swap_of_v0_4() {
        let text = "Raspberry Pi ThreadX version:\nApr 16 2018 18:18:00 \nCopyright (c) 2012 Broadcom\nversion af8084725947aa2c7314172068f79dad9be1c8b4 (clean) (release)\n\nSwap:          488M        5.8M        482M\n\nFilename\t\t\t\tType\t\tSize\tUsed\tPriority\n/dev/zram0                             \tpartition\t125020\t1536\t5\n\n";
        let lines = normalise(text);
        let mut r = LogRecord::default();
        host(&lines, &mut r);
        assert_eq!(
            r.host.firmware.as_deref(),
            Some("af8084725947aa2c7314172068f79dad9be1c8b4 / Apr 16 2018 18:18:00")
        );
        let s = swap(&lines).unwrap();
        assert_eq!(s.total.as_deref(), Some("488M"));
        assert_eq!(s.devices, ["/dev/zram0 partition 125020 1536 5"]);
    }
}
