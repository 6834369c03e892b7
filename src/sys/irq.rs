//! Interrupts: pure parsers for `/proc/interrupts` and `/proc/softirqs`, and the affinity of
//! one IRQ line (`/proc/irq/N/smp_affinity_list`, `effective_affinity_list`).
//!
//! Network reviews of the ROCK 5 ITX and NanoPi R5S found their bottleneck here: all of a
//! 2.5GbE NIC's interrupts landed on one core, which then ran at 100 % in softirq while the
//! system-wide %cpu looked harmless.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::sys::cpu_list as list;
use crate::sys::root::SysRoot;

/// `/proc/interrupts`.
pub const INTERRUPTS: &str = "/proc/interrupts";
/// `/proc/softirqs`.
pub const SOFTIRQS: &str = "/proc/softirqs";

/// One line of `/proc/interrupts`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IrqLine {
    /// The label before the colon: `224`, `IPI0`, `LOC`, `ERR`.
    pub id: String,
    /// The IRQ number when the label is numeric.
    pub irq: Option<u32>,
    /// Count per CPU, in the order of [`Interrupts::cpus`]; lines with fewer columns
    /// (`ERR`, `MIS`) are padded with zeros.
    #[serde(default)]
    pub per_cpu: Vec<u64>,
    /// Everything after the counts: chip, hardware IRQ, trigger, handler names.
    pub desc: String,
    /// Handler names (`enP4p65s0-0`, `eth0`, `xhci-hcd:usb1`), comma-separated in the file.
    #[serde(default)]
    pub actions: Vec<String>,
}

impl IrqLine {
    /// Sum over all CPUs.
    pub fn total(&self) -> u64 {
        self.per_cpu.iter().fold(0u64, |a, &b| a.saturating_add(b))
    }
}

/// `/proc/interrupts`: the CPU columns and every line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interrupts {
    /// CPU numbers of the columns (`CPU0 CPU1 …`; offline CPUs have no column).
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// Lines in file order.
    #[serde(default)]
    pub lines: Vec<IrqLine>,
}

impl Interrupts {
    /// Count of `line` on CPU `cpu`; 0 when that CPU has no column.
    pub fn count(&self, line: &IrqLine, cpu: u32) -> u64 {
        self.cpus
            .iter()
            .position(|&c| c == cpu)
            .and_then(|i| line.per_cpu.get(i).copied())
            .unwrap_or(0)
    }

    /// The line with this numeric IRQ.
    pub fn by_irq(&self, irq: u32) -> Option<&IrqLine> {
        self.lines.iter().find(|l| l.irq == Some(irq))
    }

    /// Lines whose handler is the interface (`eth0`) or one of its queues (`eth1-0`,
    /// `enP4p65s0-16`, `eth0-rx-0`, `eth0-TxRx-1`), or whose IRQ number is in `irqs`
    /// (the MSI vectors the device owns).
    pub fn for_interface(&self, iface: &str, irqs: &[u32]) -> Vec<&IrqLine> {
        self.for_names(&[iface], irqs)
    }

    /// Lines whose handler is one of `names` or `name-<queue>`, or whose IRQ number is in
    /// `irqs`. virtio NICs name their vectors after the device (`virtio2-input.0`), so
    /// callers pass that name as well.
    pub fn for_names(&self, names: &[&str], irqs: &[u32]) -> Vec<&IrqLine> {
        self.lines
            .iter()
            .filter(|l| {
                l.irq.is_some_and(|n| irqs.contains(&n))
                    || l.actions.iter().any(|a| {
                        names.iter().any(|n| {
                            !n.is_empty()
                                && (a == n
                                    || (a.len() > n.len()
                                        && a.starts_with(n)
                                        && a.as_bytes()[n.len()] == b'-'))
                        })
                    })
            })
            .collect()
    }
}

/// The CPU numbers of the column header (`           CPU0       CPU1 …`) that opens
/// `/proc/interrupts` and `/proc/softirqs`: the first non-blank line, which is consumed.
/// Offline CPUs have no column, so the numbers may have gaps.
fn cpu_header<'a>(lines: &mut impl Iterator<Item = &'a str>) -> Vec<u32> {
    lines
        .find(|l| !l.trim().is_empty())
        .map(|header| {
            header
                .split_whitespace()
                .filter_map(|t| t.strip_prefix("CPU").and_then(|n| n.parse().ok()))
                .collect()
        })
        .unwrap_or_default()
}

/// Parse `/proc/interrupts`. Lines that do not start with `label:` are skipped; counts stop
/// at the first non-number.
pub fn parse_interrupts(text: &str) -> Interrupts {
    let mut out = Interrupts::default();
    let mut lines = text.lines();
    out.cpus = cpu_header(&mut lines);
    let ncpu = out.cpus.len();
    for line in lines {
        let Some((label, rest)) = line.split_once(':') else {
            continue;
        };
        let id = label.trim();
        if id.is_empty() || id.contains(char::is_whitespace) {
            continue;
        }
        let mut per_cpu = Vec::with_capacity(ncpu);
        let mut remainder = rest;
        while per_cpu.len() < ncpu {
            let trimmed = remainder.trim_start();
            let end = trimmed
                .find(|c: char| c.is_whitespace())
                .unwrap_or(trimmed.len());
            let Ok(v) = trimmed[..end].parse::<u64>() else {
                break;
            };
            per_cpu.push(v);
            remainder = &trimmed[end..];
        }
        per_cpu.resize(ncpu, 0);
        let desc = remainder.trim().to_string();
        let actions = parse_actions(&desc, id);
        out.lines.push(IrqLine {
            id: id.to_string(),
            irq: id.parse().ok(),
            per_cpu,
            desc,
            actions,
        });
    }
    out
}

/// The handler names: what follows the trigger type (`Edge`, `Level`) in the description,
/// split at `, `; x86 writes the trigger as `2-edge`/`11-fasteoi`. Without a trigger word
/// (old kernels) the last word; IPI and other named lines have none.
fn parse_actions(desc: &str, id: &str) -> Vec<String> {
    if id.parse::<u32>().is_err() {
        return Vec::new();
    }
    let tokens: Vec<&str> = desc.split_whitespace().collect();
    let start = tokens
        .iter()
        .rposition(|t| {
            matches!(*t, "Edge" | "Level" | "edge" | "level")
                || t.ends_with("-edge")
                || t.ends_with("-level")
                || t.ends_with("-fasteoi")
        })
        .map(|i| i + 1);
    let names: String = match start {
        Some(i) if i < tokens.len() => tokens[i..].join(" "),
        Some(_) => return Vec::new(),
        None => match tokens.last() {
            Some(t) => (*t).to_string(),
            None => return Vec::new(),
        },
    };
    names
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// `/proc/softirqs`: counts per softirq type and CPU.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Softirqs {
    /// CPU numbers of the columns.
    #[serde(default)]
    pub cpus: Vec<u32>,
    /// `NET_RX` → count per CPU (same order as `cpus`). A row cut short (a truncated read)
    /// holds the counts it has, no made-up zeros.
    #[serde(default)]
    pub rows: BTreeMap<String, Vec<u64>>,
}

impl Softirqs {
    /// Count of softirq `name` on `cpu`.
    pub fn count(&self, name: &str, cpu: u32) -> Option<u64> {
        let i = self.cpus.iter().position(|&c| c == cpu)?;
        self.rows.get(name)?.get(i).copied()
    }

    /// Per-CPU map of one softirq type (the CPUs it has counts for).
    pub fn per_cpu(&self, name: &str) -> BTreeMap<u32, u64> {
        match self.rows.get(name) {
            Some(row) => self.cpus.iter().copied().zip(row.iter().copied()).collect(),
            None => BTreeMap::new(),
        }
    }
}

/// Parse `/proc/softirqs`.
pub fn parse_softirqs(text: &str) -> Softirqs {
    let mut out = Softirqs::default();
    let mut lines = text.lines();
    out.cpus = cpu_header(&mut lines);
    for line in lines {
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim();
        if name.is_empty() {
            continue;
        }
        let v: Vec<u64> = rest
            .split_whitespace()
            .take(out.cpus.len())
            .map_while(|t| t.parse().ok())
            .collect();
        out.rows.insert(name.to_string(), v);
    }
    out
}

/// Where one IRQ may run and where it does run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IrqAffinity {
    /// IRQ number.
    pub irq: u32,
    /// CPUs allowed (`smp_affinity_list`).
    pub affinity: Option<Vec<u32>>,
    /// CPUs the interrupt controller actually delivers to (`effective_affinity_list`,
    /// kernels ≥ 4.15; on Arm GICs usually one CPU whatever the allowed set is).
    pub effective: Option<Vec<u32>>,
}

/// Read `/proc/interrupts`.
pub fn read_interrupts(root: &SysRoot) -> Option<Interrupts> {
    root.read_opt(INTERRUPTS).map(|t| parse_interrupts(&t))
}

/// Read `/proc/softirqs`.
pub fn read_softirqs(root: &SysRoot) -> Option<Softirqs> {
    root.read_opt(SOFTIRQS).map(|t| parse_softirqs(&t))
}

/// Read the affinity of IRQ `irq`.
pub fn read_affinity(root: &SysRoot, irq: u32) -> IrqAffinity {
    let list = |name: &str| {
        root.value(format!("/proc/irq/{irq}/{name}"))
            .and_then(|s| list::parse_list(&s))
    };
    IrqAffinity {
        irq,
        affinity: list("smp_affinity_list"),
        effective: list("effective_affinity_list"),
    }
}

/// The affinities of every numbered line of `interrupts` (the IRQ placement review
/// reads them all; each is two small files under `/proc/irq/N/`).
pub fn read_affinities(root: &SysRoot, interrupts: &Interrupts) -> Vec<IrqAffinity> {
    interrupts
        .lines
        .iter()
        .filter_map(|l| l.irq)
        .map(|n| read_affinity(root, n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ROCK 5 ITX (RK3588), `grep -E "CPU0|^224|^240|^242" /proc/interrupts` after an
    /// iperf3 RX test, from the review in `seeds/rock-5-itx-preview.txt`.
    pub const ROCK5_ITX_AFTER: &str = "           CPU0       CPU1       CPU2       CPU3       CPU4       CPU5       CPU6       CPU7       
224:          0          0          0          0          0          0      85905          0   ITS-MSI 570949632 Edge      enP4p65s0-0
240:          0          0          0          0          0          0      51853          0   ITS-MSI 570949648 Edge      enP4p65s0-16
242:     112560          0          0          0          0          0          0          0   ITS-MSI 570949650 Edge      enP4p65s0-18
";

    #[test]
    fn rock5_itx_nic_lines() {
        let i = parse_interrupts(ROCK5_ITX_AFTER);
        assert_eq!(i.cpus, (0..8).collect::<Vec<_>>());
        assert_eq!(i.lines.len(), 3);
        let l = &i.lines[0];
        assert_eq!(l.irq, Some(224));
        assert_eq!(l.actions, vec!["enP4p65s0-0"]);
        assert_eq!(i.count(l, 6), 85905);
        assert_eq!(i.count(l, 0), 0);
        assert_eq!(i.count(l, 42), 0, "no such CPU column");
        let nic = i.for_interface("enP4p65s0", &[]);
        assert_eq!(nic.len(), 3);
        assert_eq!(
            nic.iter().map(|l| l.total()).sum::<u64>(),
            85905 + 51853 + 112560
        );
        assert!(
            i.for_interface("enP4p65s", &[]).is_empty(),
            "prefix of a name"
        );
        assert_eq!(i.for_interface("eth9", &[240]).len(), 1, "by MSI vector");
    }

    #[test]
    fn ipis_short_lines_and_offline_cpus() {
        // x86 VM (this project's CI machine) and an Arm board with CPU1 offline.
        let text = "            CPU0       CPU2\n\
  0:         44          0   IO-APIC   2-edge      timer\n\
 11:      10510       9983   IO-APIC  11-fasteoi   virtio0, uhci_hcd:usb1\n\
NMI:          0          0   Non-maskable interrupts\n\
IPI0:      1234        567       Rescheduling interrupts\n\
ERR:          0\n\
MIS:          0\n\
garbage without colon\n";
        let i = parse_interrupts(text);
        assert_eq!(i.cpus, vec![0, 2]);
        let virtio = i.by_irq(11).unwrap();
        assert_eq!(virtio.actions, vec!["virtio0", "uhci_hcd:usb1"]);
        assert_eq!(i.count(virtio, 2), 9983);
        let err = i.lines.iter().find(|l| l.id == "ERR").unwrap();
        assert_eq!(err.per_cpu, vec![0, 0]);
        let ipi = i.lines.iter().find(|l| l.id == "IPI0").unwrap();
        assert!(ipi.actions.is_empty());
        assert_eq!(ipi.total(), 1801);
        assert_eq!(parse_interrupts(""), Interrupts::default());
    }

    #[test]
    fn gic_level_lines() {
        // Raspberry Pi style: `GICv2  29 Level     arch_timer`, and an rk_gmac NIC.
        let text = "           CPU0       CPU1       CPU2       CPU3\n\
 11:      28173      19845      16570      15431     GICv2  30 Level     arch_timer\n\
 38:    1805393          0          0          0     GICv3  59 Level     eth0\n";
        let i = parse_interrupts(text);
        assert_eq!(i.for_interface("eth0", &[]).len(), 1);
        assert_eq!(i.lines[0].actions, vec!["arch_timer"]);
    }

    #[test]
    fn softirqs() {
        let text = "                    CPU0       CPU1       CPU2       CPU3
          HI:          1          0          0          0
       TIMER:     272011     227376     220651     220118
      NET_TX:        447         22         45         11
      NET_RX:    1963420       1062       1329        876
       BLOCK:      11045       9416       9766       6867
";
        let s = parse_softirqs(text);
        assert_eq!(s.cpus, vec![0, 1, 2, 3]);
        assert_eq!(s.count("NET_RX", 0), Some(1963420));
        assert_eq!(s.count("NET_TX", 3), Some(11));
        assert_eq!(s.count("NET_RX", 9), None);
        assert_eq!(s.per_cpu("NET_RX").len(), 4);
        assert!(s.per_cpu("NOPE").is_empty());
        assert_eq!(parse_softirqs("junk"), Softirqs::default());
        // A truncated read: the counts there are, nothing invented for the rest.
        let t = parse_softirqs("  CPU0 CPU1 CPU2\n NET_RX: 5 6\n");
        assert_eq!(t.per_cpu("NET_RX"), BTreeMap::from([(0, 5), (1, 6)]));
        assert_eq!(t.count("NET_RX", 2), None);
    }

    #[test]
    fn affinity_from_a_tree() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc/irq/224")).unwrap();
        std::fs::write(d.path().join("proc/irq/224/smp_affinity_list"), "0-7\n").unwrap();
        std::fs::write(d.path().join("proc/irq/224/effective_affinity_list"), "6\n").unwrap();
        let r = SysRoot::new(d.path());
        let a = read_affinity(&r, 224);
        assert_eq!(a.affinity, Some((0..8).collect()));
        assert_eq!(a.effective, Some(vec![6]));
        assert_eq!(read_affinity(&r, 1).affinity, None);
        assert!(read_interrupts(&r).is_none());
    }
}
