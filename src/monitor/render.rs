//! The monitor table as `sbc-bench -m` (v0.9.72) prints it, byte for byte, plus our own
//! columns appended at the right (busiest core, `--cores`), so that parsers which count
//! fields from the left — sbc-bench's own validation does — read the same values.
//!
//! sbc-bench formats with bash `printf`, which pads by *bytes*: `°` is two bytes in UTF-8,
//! so `%8s` of `41.6°C` adds one space, not two. Percentages are integer divisions
//! (truncated), clocks are kHz/1000 rounded half to even (awk `%0.0f`), temperatures
//! `%0.1f`, voltages `%0.2f`.

use chrono::TimeZone;

use crate::monitor::interval::Interval;
use crate::monitor::layout::{ClockColumns, Layout};
use crate::monitor::stat::Usage;

/// sbc-bench repeats the header after this many lines on a terminal.
pub const HEADER_EVERY: usize = 15;

/// What the table shows beyond sbc-bench's columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// The `DC(V)` column (only where a DC-in sensor exists).
    pub dc_in: bool,
    /// Append the busiest core (`cpu3 100%`).
    pub busiest: bool,
    /// Append these CPUs' utilisation (and clock, where cpufreq is readable): `--cores`.
    pub cores: Vec<u32>,
    /// The `monitor` command's own table, not a log's: a clock it cannot read is `n/a`,
    /// not sbc-bench's `n/aMHz` (which the logs keep).
    pub plain_na: bool,
}

impl TableOptions {
    /// Exactly sbc-bench's columns (for the log's "System health while running" tables).
    pub fn sbc_bench(dc_in: bool) -> Self {
        Self {
            dc_in,
            ..Default::default()
        }
    }
}

/// kHz to MHz as awk's `printf "%0.0f"` rounds `kHz/1000` (half to even).
pub fn khz_to_mhz(khz: u64) -> u64 {
    let (q, r) = (khz / 1000, khz % 1000);
    if r > 500 || (r == 500 && q % 2 == 1) {
        q + 1
    } else {
        q
    }
}

/// Right-align `s` to `width` *bytes*, as bash's `printf %Ns` does.
fn pad_bytes(s: &str, width: usize) -> String {
    let n = width.saturating_sub(s.len());
    format!("{}{s}", " ".repeat(n))
}

/// A percentage as bash integer arithmetic gives it (truncated).
fn pct(p: f64) -> i64 {
    if p.is_finite() { p.floor() as i64 } else { 0 }
}

fn mhz_cell(khz: Option<u64>) -> String {
    match khz {
        Some(k) => format!("{:>4}", khz_to_mhz(k)),
        None => " n/a".to_string(),
    }
}

/// The header line (no newline).
pub fn header(layout: &Layout, opts: &TableOptions) -> String {
    let clocks = match &layout.clocks {
        ClockColumns::NotAvailable => "Time      CPU n/a    load".to_string(),
        ClockColumns::Single { .. } => "Time        CPU    load".to_string(),
        ClockColumns::BigLittle { .. } => "Time       big.LITTLE   load".to_string(),
        ClockColumns::Clusters { columns } => {
            let names: Vec<String> = columns
                .iter()
                .map(|c| format!("cpu{}", c.first_cpu))
                .collect();
            format!("Time       {}    load", names.join("/"))
        }
    };
    let mut s = format!("{clocks} %cpu %sys %usr %nice %io %irq   Temp");
    if opts.dc_in {
        s.push_str("   DC(V)");
    }
    if opts.busiest {
        s.push_str(&extra_header_gap(opts));
        s.push_str("  busiest");
    }
    if !opts.cores.is_empty() {
        if !opts.busiest {
            s.push_str(&extra_header_gap(opts));
        }
        let with_clock = layout.clocks != ClockColumns::NotAvailable;
        for c in &opts.cores {
            let w = if with_clock { 11 } else { 6 };
            s.push_str(&format!("{:>w$}", format!("cpu{c}")));
        }
    }
    s
}

/// The rows end with sbc-bench's trailing blanks (two without DC-in, one after the
/// voltage) and their `°C` ends one column right of the header's `Temp`; the header does
/// not have those blanks. Extra columns start after them, so pad the header to match.
fn extra_header_gap(opts: &TableOptions) -> String {
    if opts.dc_in { "  " } else { "   " }.to_string()
}

/// `  4%   2%   1%   0%   0%   0%` (sbc-bench's `procStats`), ` n/a` each without data.
fn proc_stats(u: Option<&Usage>) -> String {
    match u {
        Some(u) => format!(
            "{:>3}%{:>4}%{:>4}%{:>4}%{:>4}%{:>4}%",
            pct(u.cpu_pct),
            pct(u.sys_pct),
            pct(u.usr_pct),
            pct(u.nice_pct),
            pct(u.io_pct),
            pct(u.irq_pct)
        ),
        None => format!(
            "{:>4}{:>5}{:>5}{:>5}{:>5}{:>5}",
            "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"
        ),
    }
}

/// `41.6` (or `n/a`) as sbc-bench prints the SoC temperature before `°C`.
fn temp(t: Option<f64>) -> String {
    match t {
        Some(t) => format!("{t:.1}"),
        None => "n/a".to_string(),
    }
}

/// One row (no newline). `time` is `HH:MM:SS`.
pub fn row(layout: &Layout, opts: &TableOptions, iv: &Interval, time: &str) -> String {
    let load = iv
        .loadavg
        .map(|l| format!("{:.2}", l[0]))
        .unwrap_or_else(|| "n/a".to_string());
    let clock = match &layout.clocks {
        ClockColumns::NotAvailable if opts.plain_na => format!("     n/a {load:>7}"),
        ClockColumns::NotAvailable => format!("  n/aMHz {load:>7}"),
        cols => {
            let cells: Vec<String> = cols
                .columns()
                .iter()
                .map(|c| mhz_cell(iv.policy_khz(c.policy)))
                .collect();
            format!(" {}MHz {load:>5}", cells.join("/"))
        }
    };
    let mut s = format!(
        "{time}:{clock} {} {} ",
        proc_stats(iv.usage.as_ref()),
        pad_bytes(&format!("{}°C", temp(iv.temp_c)), 8)
    );
    if opts.dc_in {
        let v = iv
            .dc_in_v
            .map(|v| format!("{v:.2}"))
            .unwrap_or_else(|| "n/a".to_string());
        s.push_str(&format!("  {v:>4}"));
        // sbc-bench's `%4s` lets `12.03` push the line one column further than `5.10`;
        // keep our own columns aligned whatever the voltage.
        if (opts.busiest || !opts.cores.is_empty()) && v.len() < 5 {
            s.push(' ');
        }
    }
    s.push(' ');
    if opts.busiest {
        let b = match &iv.busiest {
            Some(b) => format!("cpu{} {:>3}%", b.cpu, pct(b.cpu_pct)),
            None => "n/a".to_string(),
        };
        s.push_str(&format!("{b:>9}"));
    }
    let with_clock = layout.clocks != ClockColumns::NotAvailable;
    for &c in &opts.cores {
        let p = iv
            .core(c)
            .map(|u| format!("{}%", pct(u.cpu_pct)))
            .unwrap_or_else(|| "n/a".to_string());
        if with_clock {
            let khz = layout
                .cpu_policy
                .get(&c)
                .and_then(|&pol| iv.policy_khz(pol));
            s.push_str(&format!("  {p:>4}/{}", mhz_cell(khz)));
        } else {
            s.push_str(&format!("  {p:>4}"));
        }
    }
    s
}

/// A table printed row by row, repeating the header after every [`HEADER_EVERY`] lines
/// when `repeat` is set (sbc-bench does on a terminal): the first block has 14 rows, the
/// following ones 15, each after an empty line and the header.
#[derive(Debug, Clone)]
pub struct Table {
    layout: Layout,
    opts: TableOptions,
    repeat: bool,
    counter: usize,
}

impl Table {
    /// A table; nothing printed yet.
    pub fn new(layout: Layout, opts: TableOptions, repeat: bool) -> Self {
        Self {
            layout,
            opts,
            repeat,
            counter: 0,
        }
    }

    /// The header line with its newline.
    pub fn header(&self) -> String {
        format!("{}\n", header(&self.layout, &self.opts))
    }

    /// The next row with its newline, preceded by an empty line and the header when due.
    pub fn row(&mut self, iv: &Interval, time: &str) -> String {
        let mut out = String::new();
        if self.repeat {
            self.counter += 1;
            if self.counter == HEADER_EVERY {
                out.push('\n');
                out.push_str(&self.header());
                self.counter = 0;
            }
        }
        out.push_str(&row(&self.layout, &self.opts, iv, time));
        out.push('\n');
        out
    }
}

/// `HH:MM:SS` of a Unix time in milliseconds in the given time zone.
pub fn hms<Tz: TimeZone>(tz: &Tz, unix_ms: i64) -> String
where
    Tz::Offset: std::fmt::Display,
{
    match tz.timestamp_millis_opt(unix_ms).earliest() {
        Some(t) => t.format("%H:%M:%S").to_string(),
        None => "??:??:??".to_string(),
    }
}

/// `HH:MM:SS` in local time.
pub fn local_hms(unix_ms: i64) -> String {
    hms(&chrono::Local, unix_ms)
}

/// What `sbc-bench -m` prints before its table. Fields other engineers' work provides
/// (SoC guess, userland, virtualisation) are optional; the lead passes them in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Banner {
    /// `/sys/devices/soc0` identification as sbc-bench prints it (`<family> <soc_id> rev
    /// <revision>`), when present and not Arm's SMCCC (`jep106:091e`).
    pub soc0: Option<String>,
    /// The SoC guess with its detail (`Rockchip RK3568 (35682000)`); `None` when unknown.
    pub soc: Option<String>,
    /// Kernel architecture (`aarch64`, `x86_64`).
    pub kernel_arch: Option<String>,
    /// Virtualisation or container kind (`kvm`, `docker`); `None` on bare metal.
    pub virt: Option<String>,
    /// Userland architecture (`arm64`, `armhf`); `None` when unknown.
    pub userland: Option<String>,
    /// The rendered topology table (the caller renders it: the report layer's topology
    /// table, as `info` prints it).
    pub topology: String,
    /// `Thermal source: …` label of the sensor (`/sys/devices/virtual/thermal/thermal_zone0/
    /// (soc-thermal)`); `None` without one.
    pub thermal_source: Option<String>,
}

/// The banner: identification line, empty line, topology table, empty line, thermal
/// source and an empty line, as `sbc-bench -m` prints them on a terminal.
pub fn banner(b: &Banner) -> String {
    let mut s = String::new();
    if let Some(x) = &b.soc0 {
        s.push_str(&format!("{x}, "));
    }
    if let Some(x) = &b.soc {
        s.push_str(&format!("{x}, "));
    }
    s.push_str(&format!(
        "Kernel: {}",
        b.kernel_arch.as_deref().unwrap_or("n/a")
    ));
    if let Some(v) = b.virt.as_deref().filter(|v| !v.is_empty() && *v != "none") {
        s.push_str(&format!(" / {v}"));
    }
    if let Some(u) = &b.userland {
        s.push_str(&format!(", Userland: {u}"));
    }
    s.push_str("\n\n");
    s.push_str(b.topology.trim_end_matches('\n'));
    s.push_str("\n\n");
    if let Some(t) = &b.thermal_source {
        s.push_str(&format!("Thermal source: {t}\n\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::interval::Busiest;
    use crate::monitor::layout::ClockColumn;
    use crate::monitor::sample::PolicyClock;
    use std::collections::BTreeMap;

    fn col(n: u32) -> ClockColumn {
        ClockColumn {
            first_cpu: n,
            policy: n,
        }
    }

    fn layout(clocks: ClockColumns) -> Layout {
        Layout {
            clocks,
            cpu_policy: BTreeMap::new(),
            all_policies: false,
        }
    }

    fn usage(cpu: f64, sys: f64, usr: f64, io: f64, irq: f64) -> Usage {
        Usage {
            cpu_pct: cpu,
            sys_pct: sys,
            usr_pct: usr,
            io_pct: io,
            irq_pct: irq,
            ..Default::default()
        }
    }

    fn iv(clocks: &[(u32, u64)], load: f64, u: Usage, temp: Option<f64>) -> Interval {
        Interval {
            clocks: clocks
                .iter()
                .map(|&(p, k)| PolicyClock {
                    policy: p,
                    khz: Some(k),
                })
                .collect(),
            loadavg: Some([load, 0.0, 0.0]),
            usage: Some(u),
            temp_c: temp,
            ..Default::default()
        }
    }

    #[test]
    fn rounding_like_awk() {
        assert_eq!(khz_to_mhz(1_416_000), 1416);
        assert_eq!(khz_to_mhz(1_500_500), 1500);
        assert_eq!(khz_to_mhz(1_501_500), 1502);
        assert_eq!(khz_to_mhz(2_893_452), 2893);
        assert_eq!(khz_to_mhz(999_501), 1000);
        assert_eq!(pct(24.999), 24);
        assert_eq!(pct(100.0), 100);
    }

    #[test]
    fn rock_5_itx_three_clusters_with_dc_in() {
        // /work/shared/seeds/rock-5-itx-preview.txt, `sbc-bench -m` on RK3588.
        let l = layout(ClockColumns::Clusters {
            columns: vec![col(0), col(4), col(6)],
        });
        let o = TableOptions::sbc_bench(true);
        assert_eq!(
            header(&l, &o),
            "Time       cpu0/cpu4/cpu6    load %cpu %sys %usr %nice %io %irq   Temp   DC(V)"
        );
        let mut i = iv(
            &[(0, 1_416_000), (4, 408_000), (6, 408_000)],
            0.52,
            usage(4.9, 2.3, 1.7, 0.0, 0.0),
            Some(41.625),
        );
        i.dc_in_v = Some(12.03);
        assert_eq!(
            row(&l, &o, &i, "11:30:35"),
            "11:30:35: 1416/ 408/ 408MHz  0.52   4%   2%   1%   0%   0%   0%  41.6°C   12.03 "
        );
    }

    #[test]
    fn nanopi_r5s_single_cluster() {
        // /work/shared/seeds/nanopi-r5s-review-ru.txt (spacing restored from sbc-bench's
        // format strings, the article collapsed it).
        let l = layout(ClockColumns::Single { column: col(0) });
        let o = TableOptions::sbc_bench(false);
        assert_eq!(
            header(&l, &o),
            "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp"
        );
        let i = iv(
            &[(0, 1_992_000)],
            0.37,
            usage(35.2, 15.0, 0.4, 0.0, 20.9),
            Some(56.7),
        );
        assert_eq!(
            row(&l, &o, &i, "03:38:12"),
            "03:38:12: 1992MHz  0.37  35%  15%   0%   0%   0%  20%  56.7°C  "
        );
    }

    #[test]
    fn big_little_and_five_clusters_from_corpus_logs() {
        let l = layout(ClockColumns::BigLittle {
            big: col(4),
            little: col(0),
        });
        let o = TableOptions::sbc_bench(false);
        assert_eq!(
            header(&l, &o),
            "Time       big.LITTLE   load %cpu %sys %usr %nice %io %irq   Temp"
        );
        let i = iv(
            &[(0, 1_800_000), (4, 1_896_000)],
            7.03,
            usage(100.0, 0.0, 99.6, 0.0, 0.0),
            Some(50.2),
        );
        assert_eq!(
            row(&l, &o, &i, "16:34:45"),
            "16:34:45: 1896/1800MHz  7.03 100%   0%  99%   0%   0%   0%  50.2°C  "
        );
        // Cix CD8180 (logs: `cpu0/cpu1/cpu5/cpu7/cpu9`), load above 10 fills the column.
        let l = layout(ClockColumns::Clusters {
            columns: [0, 1, 5, 7, 9].map(col).to_vec(),
        });
        assert_eq!(
            header(&l, &o),
            "Time       cpu0/cpu1/cpu5/cpu7/cpu9    load %cpu %sys %usr %nice %io %irq   Temp"
        );
        let i = iv(
            &[
                (0, 2_600_000),
                (1, 1_800_000),
                (5, 2_300_000),
                (7, 2_200_000),
                (9, 2_500_000),
            ],
            16.05,
            usage(100.0, 0.0, 99.0, 0.0, 0.0),
            Some(46.0),
        );
        assert_eq!(
            row(&l, &o, &i, "18:11:47"),
            "18:11:47: 2600/1800/2300/2200/2500MHz 16.05 100%   0%  99%   0%   0%   0%  46.0°C  "
        );
    }

    #[test]
    fn no_cpufreq_no_thermal_like_this_vm() {
        // Milk-V DuoS log (8gl6.txt) for the `n/a` clock layout.
        let l = layout(ClockColumns::NotAvailable);
        let o = TableOptions::sbc_bench(false);
        assert_eq!(
            header(&l, &o),
            "Time      CPU n/a    load %cpu %sys %usr %nice %io %irq   Temp"
        );
        let i = iv(&[], 1.21, usage(100.0, 4.0, 95.0, 0.0, 0.0), Some(42.7));
        assert_eq!(
            row(&l, &o, &i, "18:32:42"),
            "18:32:42:  n/aMHz    1.21 100%   4%  95%   0%   0%   0%  42.7°C  "
        );
        let i = iv(&[], 0.57, usage(20.0, 0.0, 20.0, 0.0, 0.0), None);
        assert_eq!(
            row(&l, &o, &i, "16:12:12"),
            "16:12:12:  n/aMHz    0.57  20%   0%  20%   0%   0%   0%   n/a°C  "
        );
        let empty = Interval::default();
        assert_eq!(
            row(&l, &o, &empty, "00:00:00"),
            "00:00:00:  n/aMHz     n/a  n/a  n/a  n/a  n/a  n/a  n/a   n/a°C  "
        );
    }

    /// Issue 28: `monitor` on a machine without cpufreq printed `n/aMHz` (sbc-bench's
    /// log cell, kept in the logs): its own table says `n/a`, under the header's `n/a`.
    #[test]
    fn monitor_without_cpufreq_says_n_a_not_n_a_mhz() {
        let l = layout(ClockColumns::NotAvailable);
        let o = TableOptions {
            plain_na: true,
            ..TableOptions::default()
        };
        let i = iv(&[], 1.21, usage(100.0, 4.0, 95.0, 0.0, 0.0), Some(42.7));
        let (h, r) = (header(&l, &o), row(&l, &o, &i, "18:32:42"));
        assert_eq!(
            r,
            "18:32:42:     n/a    1.21 100%   4%  95%   0%   0%   0%  42.7°C  "
        );
        assert!(!r.contains("MHz"), "{r}");
        assert_eq!(h.find("n/a"), r.find("n/a"), "\n{h}\n{r}");
    }

    #[test]
    fn busiest_and_cores_columns_are_appended() {
        let mut l = layout(ClockColumns::Single { column: col(0) });
        l.cpu_policy = (0..4).map(|c| (c, 0)).collect();
        let o = TableOptions {
            dc_in: false,
            busiest: true,
            cores: vec![0, 1, 2, 3],
            plain_na: false,
        };
        let mut i = iv(
            &[(0, 1_992_000)],
            0.37,
            usage(25.0, 0.0, 0.0, 0.0, 25.0),
            Some(56.7),
        );
        i.busiest = Some(Busiest {
            cpu: 2,
            cpu_pct: 100.0,
            irq_pct: 97.0,
        });
        i.cores = (0..4)
            .map(|c| crate::monitor::interval::CoreUsage {
                cpu: c,
                usage: usage(if c == 2 { 100.0 } else { 0.0 }, 0.0, 0.0, 0.0, 0.0),
            })
            .collect();
        let h = header(&l, &o);
        let r = row(&l, &o, &i, "03:38:12");
        assert_eq!(
            h,
            "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp     busiest       cpu0       cpu1       cpu2       cpu3"
        );
        assert_eq!(
            r,
            "03:38:12: 1992MHz  0.37  25%   0%   0%   0%   0%  25%  56.7°C  cpu2 100%    0%/1992    0%/1992  100%/1992    0%/1992"
        );
        // Same display width: every header label ends above its value.
        assert_eq!(h.chars().count(), r.chars().count());
        // sbc-bench's fields, counted from the left, are untouched.
        let base = row(&l, &TableOptions::sbc_bench(false), &i, "03:38:12");
        assert!(r.starts_with(&base));
        // With DC-in, and without cpufreq (no clock after the core's percentage).
        i.dc_in_v = Some(5.1);
        let dc = TableOptions {
            dc_in: true,
            ..o.clone()
        };
        let (h, r) = (header(&l, &dc), row(&l, &dc, &i, "03:38:12"));
        assert_eq!(h.chars().count(), r.chars().count(), "\n{h}\n{r}");
        assert!(r.contains("°C   5.10  cpu2 100%"), "{r}");
        let na = layout(ClockColumns::NotAvailable);
        let (h, r) = (header(&na, &o), row(&na, &o, &i, "03:38:12"));
        assert_eq!(h.chars().count(), r.chars().count(), "\n{h}\n{r}");
        assert!(r.ends_with("cpu2 100%    0%    0%  100%    0%"), "{r}");
    }

    #[test]
    fn header_repeats_every_fifteen_lines() {
        let l = layout(ClockColumns::NotAvailable);
        let mut t = Table::new(l.clone(), TableOptions::default(), true);
        let mut out = t.header();
        for _ in 0..30 {
            out.push_str(&t.row(&Interval::default(), "00:00:00"));
        }
        let lines: Vec<&str> = out.lines().collect();
        let headers: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, s)| s.starts_with("Time"))
            .map(|(i, _)| i)
            .collect();
        // header, 14 rows, blank, header, 15 rows, blank, header, 1 row
        assert_eq!(headers, vec![0, 16, 33]);
        assert_eq!(lines[15], "");
        let mut quiet = Table::new(l, TableOptions::default(), false);
        let mut out = quiet.header();
        for _ in 0..30 {
            out.push_str(&quiet.row(&Interval::default(), "00:00:00"));
        }
        assert_eq!(out.lines().filter(|s| s.starts_with("Time")).count(), 1);
    }

    #[test]
    fn banner_like_sbc_bench() {
        let b = Banner {
            soc: Some("Rockchip RK3568 (35682000)".into()),
            kernel_arch: Some("aarch64".into()),
            userland: Some("arm64".into()),
            topology: "TOPOLOGY\n".into(),
            thermal_source: Some(
                "/sys/devices/virtual/thermal/thermal_zone0/ (soc-thermal)".into(),
            ),
            ..Default::default()
        };
        assert_eq!(
            banner(&b),
            "Rockchip RK3568 (35682000), Kernel: aarch64, Userland: arm64\n\nTOPOLOGY\n\n\
Thermal source: /sys/devices/virtual/thermal/thermal_zone0/ (soc-thermal)\n\n"
        );
        let vm = Banner {
            kernel_arch: Some("x86_64".into()),
            virt: Some("kvm".into()),
            topology: "T".into(),
            ..Default::default()
        };
        assert_eq!(banner(&vm), "Kernel: x86_64 / kvm\n\nT\n\n");
    }

    #[test]
    fn times_in_a_zone() {
        let utc = chrono::Utc;
        assert_eq!(hms(&utc, 0), "00:00:00");
        assert_eq!(hms(&utc, 41_435_000), "11:30:35");
    }
}
