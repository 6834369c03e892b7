//! What sbc-bench's `iostat` call shows at the start and end of its log, read without
//! sysstat: the CPU time shares since boot (`avg-cpu:` from the `cpu` line of
//! `/proc/stat`) and per-disk throughput since boot (`Device` rows from `/proc/diskstats`,
//! whole disks only, known by `/sys/block/NAME`, disks never used left out as iostat
//! leaves them out).

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// The aggregate CPU time counters (`cpu  user nice system idle iowait irq softirq steal
/// guest guest_nice`), in USER_HZ ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IostatCpuTimes {
    /// user (guest time included, as the kernel counts it).
    pub user: u64,
    /// nice (guest_nice included).
    pub nice: u64,
    /// system.
    pub system: u64,
    /// idle.
    pub idle: u64,
    /// iowait.
    pub iowait: u64,
    /// irq.
    pub irq: u64,
    /// softirq.
    pub softirq: u64,
    /// steal.
    pub steal: u64,
    /// guest.
    pub guest: u64,
    /// guest_nice.
    pub guest_nice: u64,
}

/// iostat's `avg-cpu` percentages.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AvgCpu {
    /// %user (without guest time).
    pub user: f64,
    /// %nice (without guest nice time).
    pub nice: f64,
    /// %system (system, irq and softirq, as sysstat adds them).
    pub system: f64,
    /// %iowait.
    pub iowait: f64,
    /// %steal.
    pub steal: f64,
    /// %idle.
    pub idle: f64,
}

impl IostatCpuTimes {
    /// The shares since boot; `None` when every counter is zero.
    pub fn avg(&self) -> Option<AvgCpu> {
        let total = self.user
            + self.nice
            + self.system
            + self.idle
            + self.iowait
            + self.irq
            + self.softirq
            + self.steal;
        if total == 0 {
            return None;
        }
        let pct = |v: u64| v as f64 * 100.0 / total as f64;
        Some(AvgCpu {
            user: pct(self.user.saturating_sub(self.guest)),
            nice: pct(self.nice.saturating_sub(self.guest_nice)),
            system: pct(self.system + self.irq + self.softirq),
            iowait: pct(self.iowait),
            steal: pct(self.steal),
            idle: pct(self.idle),
        })
    }
}

/// The `cpu ` line of a `/proc/stat` text; missing trailing fields (old kernels) are 0.
pub fn parse_stat_cpu(text: &str) -> Option<IostatCpuTimes> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if v.len() < 4 {
        return None;
    }
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    Some(IostatCpuTimes {
        user: at(0),
        nice: at(1),
        system: at(2),
        idle: at(3),
        iowait: at(4),
        irq: at(5),
        softirq: at(6),
        steal: at(7),
        guest: at(8),
        guest_nice: at(9),
    })
}

/// One `/proc/diskstats` line's counters iostat uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskStat {
    /// Device name (`mmcblk1`, `nvme0n1`).
    pub name: String,
    /// Reads, writes and discards completed.
    pub ios: u64,
    /// Sectors (512 bytes) read.
    pub read_sectors: u64,
    /// Sectors written.
    pub written_sectors: u64,
    /// Sectors discarded; `None` before Linux 4.18 (no discard fields).
    pub discarded_sectors: Option<u64>,
}

/// Parse `/proc/diskstats`; malformed lines are skipped.
pub fn parse_diskstats(text: &str) -> Vec<DiskStat> {
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() < 14 {
                return None;
            }
            let n = |i: usize| -> Option<u64> { f.get(i)?.parse().ok() };
            let discard = if f.len() >= 18 { n(14) } else { None };
            Some(DiskStat {
                name: f[2].to_string(),
                ios: n(3)? + n(7)? + discard.unwrap_or(0),
                read_sectors: n(5)?,
                written_sectors: n(9)?,
                discarded_sectors: if f.len() >= 18 { n(16) } else { None },
            })
        })
        .collect()
}

/// Devices sbc-bench filters from iostat's output (`grep -E -v "^loop|boot0|boot1|mtdblock"`).
pub fn is_filtered_device(name: &str) -> bool {
    name.starts_with("loop")
        || name.contains("boot0")
        || name.contains("boot1")
        || name.contains("mtdblock")
}

/// What iostat shows since boot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IoStat {
    /// Seconds since boot (`/proc/uptime`).
    pub uptime_s: Option<f64>,
    /// CPU counters since boot.
    pub cpu: Option<IostatCpuTimes>,
    /// Whole disks with I/O since boot, in diskstats order, filtered as sbc-bench filters.
    #[serde(default)]
    pub disks: Vec<DiskStat>,
}

/// Read `/proc/stat`, `/proc/uptime`, `/proc/diskstats` and, per disk, whether
/// `/sys/block/NAME` exists.
pub fn read(root: &SysRoot) -> IoStat {
    let disks = root
        .read_opt("/proc/diskstats")
        .map(|t| parse_diskstats(&t))
        .unwrap_or_default()
        .into_iter()
        .filter(|d| d.ios + d.read_sectors + d.written_sectors > 0)
        .filter(|d| !is_filtered_device(&d.name) && !d.name.contains('/'))
        .filter(|d| root.exists(format!("/sys/block/{}", d.name)))
        .collect();
    IoStat {
        uptime_s: root
            .value("/proc/uptime")
            .and_then(|u| u.split_whitespace().next()?.parse().ok()),
        cpu: root.read_opt("/proc/stat").and_then(|t| parse_stat_cpu(&t)),
        disks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rock_5b_fixture_stat_gives_avg_cpu() {
        let t = include_str!("../../tests/fixtures/sysroots/rock-5b/proc/stat");
        let c = parse_stat_cpu(t).unwrap();
        assert_eq!(c.user, 47472);
        let a = c.avg().unwrap();
        assert!((a.user + a.nice + a.system + a.iowait + a.steal + a.idle - 100.0).abs() < 1e-9);
        assert_eq!(format!("{:.2}", a.user), "4.30");
        assert_eq!(format!("{:.2}", a.idle), "95.22");
    }

    #[test]
    fn guest_time_is_not_user_time_and_irq_is_system() {
        let c = parse_stat_cpu("cpu  100 10 50 800 10 20 10 0 40 5\n").unwrap();
        let a = c.avg().unwrap();
        assert_eq!(format!("{:.2}", a.user), "6.00");
        assert_eq!(format!("{:.2}", a.nice), "0.50");
        assert_eq!(format!("{:.2}", a.system), "8.00");
    }

    #[test]
    fn garbage_stat_is_none() {
        assert_eq!(parse_stat_cpu(""), None);
        assert_eq!(parse_stat_cpu("cpu  a b c d\n"), None);
        assert_eq!(parse_stat_cpu("cpu  0 0 0 0\n").and_then(|c| c.avg()), None);
    }

    #[test]
    fn diskstats_with_and_without_discard_fields() {
        let t = "\
 179       0 mmcblk1 8321 2101 665494 9133 11652 15214 3343850 41287 0 31392 56680 1057 0 116715088 6259 0 0
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0
   8       0 sda 10 0 80 5 2 0 16 1 0 4 6
 bad line
";
        let d = parse_diskstats(t);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].name, "mmcblk1");
        assert_eq!(d[0].ios, 8321 + 11652 + 1057);
        assert_eq!(d[0].read_sectors, 665494);
        assert_eq!(d[0].discarded_sectors, Some(116715088));
        assert_eq!(d[2].discarded_sectors, None);
        assert!(is_filtered_device("loop0"));
        assert!(is_filtered_device("mmcblk0boot0"));
        assert!(!is_filtered_device("nvme0n1"));
    }
}
