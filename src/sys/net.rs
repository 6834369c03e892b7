//! Network interfaces: driver, link speed/duplex, MTU, queues with their RPS/XPS masks, IRQ
//! lines with their affinity, counters (`/sys/class/net/IF/statistics`), and — on the live
//! system only — the driver's ethtool statistics, link modes and offloads ([`ethtool`]).
//!
//! Only the interface directories under `/sys/class/net` and their `queues/` are listed;
//! every other path read is named in `docs/SOURCES.md`.

pub mod ethtool;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::sys::cpu_list as list;
use crate::sys::irq::{self, Interrupts};
use crate::sys::root::SysRoot;

/// Where interfaces live.
pub const CLASS_NET: &str = "/sys/class/net";

/// `/sys/class/net/IFACE/queues/QUEUE/rps_cpus`: where a receive queue's RPS mask is set.
pub fn rps_cpus_path(iface: &str, queue: &str) -> String {
    format!("{CLASS_NET}/{iface}/queues/{queue}/rps_cpus")
}

/// What kind of interface this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IfaceKind {
    /// `lo`.
    Loopback,
    /// Backed by a device (`device` link present): PCIe, USB, SoC MAC, virtio.
    Physical,
    /// Bridges, bonds, VLANs, veth, tunnels.
    Virtual,
}

/// Counters of `/sys/class/net/IF/statistics/`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IfStats {
    /// Bytes received.
    pub rx_bytes: Option<u64>,
    /// Bytes sent.
    pub tx_bytes: Option<u64>,
    /// Packets received.
    pub rx_packets: Option<u64>,
    /// Packets sent.
    pub tx_packets: Option<u64>,
    /// Receive errors.
    pub rx_errors: Option<u64>,
    /// Transmit errors.
    pub tx_errors: Option<u64>,
    /// Packets dropped by the stack after the NIC delivered them (no buffer, RPS backlog).
    pub rx_dropped: Option<u64>,
    /// Packets dropped on transmit.
    pub tx_dropped: Option<u64>,
    /// Packets the NIC missed because its ring was full (the CPU did not keep up).
    pub rx_missed_errors: Option<u64>,
    /// Receive FIFO overruns.
    pub rx_fifo_errors: Option<u64>,
    /// Receive ring overruns.
    pub rx_over_errors: Option<u64>,
    /// Frames with a bad CRC (cable, connector, PHY).
    pub rx_crc_errors: Option<u64>,
}

impl IfStats {
    /// Names of the counters, in the order of the file names.
    pub const FILES: [&'static str; 12] = [
        "rx_bytes",
        "tx_bytes",
        "rx_packets",
        "tx_packets",
        "rx_errors",
        "tx_errors",
        "rx_dropped",
        "tx_dropped",
        "rx_missed_errors",
        "rx_fifo_errors",
        "rx_over_errors",
        "rx_crc_errors",
    ];

    fn slot(&mut self, name: &str) -> Option<&mut Option<u64>> {
        Some(match name {
            "rx_bytes" => &mut self.rx_bytes,
            "tx_bytes" => &mut self.tx_bytes,
            "rx_packets" => &mut self.rx_packets,
            "tx_packets" => &mut self.tx_packets,
            "rx_errors" => &mut self.rx_errors,
            "tx_errors" => &mut self.tx_errors,
            "rx_dropped" => &mut self.rx_dropped,
            "tx_dropped" => &mut self.tx_dropped,
            "rx_missed_errors" => &mut self.rx_missed_errors,
            "rx_fifo_errors" => &mut self.rx_fifo_errors,
            "rx_over_errors" => &mut self.rx_over_errors,
            "rx_crc_errors" => &mut self.rx_crc_errors,
            _ => return None,
        })
    }

    /// Set counter `name` (one of [`Self::FILES`]); other names are ignored.
    pub fn set(&mut self, name: &str, v: Option<u64>) {
        if let Some(slot) = self.slot(name) {
            *slot = v;
        }
    }

    /// Counters as (name, value) pairs, skipping missing ones.
    pub fn pairs(&self) -> Vec<(&'static str, u64)> {
        let mut copy = *self;
        Self::FILES
            .iter()
            .filter_map(|&n| copy.slot(n).and_then(|v| v.map(|v| (n, v))))
            .collect()
    }

    /// Growth of each counter from `before` to `self` (counters that went backwards, e.g.
    /// after a driver reload, give 0).
    pub fn delta(&self, before: &IfStats) -> BTreeMap<&'static str, u64> {
        let b: BTreeMap<_, _> = before.pairs().into_iter().collect();
        self.pairs()
            .into_iter()
            .filter_map(|(n, v)| b.get(n).map(|&old| (n, v.saturating_sub(old))))
            .collect()
    }
}

/// One receive queue (`queues/rx-N`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RxQueue {
    /// `rx-0`.
    pub name: String,
    /// CPUs that receive packet steering hands packets to (`rps_cpus`); empty = RPS off.
    pub rps_cpus: Option<Vec<u32>>,
    /// The mask as the kernel wrote it (`0f`, `00000000,000000ff`).
    pub rps_mask: Option<String>,
    /// `rps_flow_cnt` (receive flow steering table size).
    pub rps_flow_cnt: Option<u64>,
}

/// One transmit queue (`queues/tx-N`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxQueue {
    /// `tx-0`.
    pub name: String,
    /// CPUs mapped to this queue by transmit packet steering (`xps_cpus`).
    pub xps_cpus: Option<Vec<u32>>,
    /// The mask as the kernel wrote it.
    pub xps_mask: Option<String>,
}

/// An IRQ line serving the interface, with its counts and affinity.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IfaceIrq {
    /// IRQ number.
    pub irq: u32,
    /// Handler name (`enP4p65s0-0`).
    pub name: String,
    /// Interrupts so far per CPU (only CPUs with a count > 0).
    #[serde(default)]
    pub per_cpu: BTreeMap<u32, u64>,
    /// CPUs allowed (`smp_affinity_list`).
    pub affinity: Option<Vec<u32>>,
    /// CPUs it is delivered to (`effective_affinity_list`).
    pub effective: Option<Vec<u32>>,
}

/// One network interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interface {
    /// `eth0`, `enP4p65s0`.
    pub name: String,
    /// Loopback, backed by a device, or virtual.
    pub kind: IfaceKind,
    /// Driver behind `device/driver` (`r8125`, `r8169`, `rk_gmac-dwmac`, `virtio_net`).
    pub driver: Option<String>,
    /// Device name behind `device` (`0004:41:00.0`, `fe1c0000.ethernet`, `virtio2`).
    pub device: Option<String>,
    /// `up`, `down`, `unknown`, `dormant`…
    pub operstate: Option<String>,
    /// Link detected.
    pub carrier: Option<bool>,
    /// Negotiated speed in Mb/s; `None` when the link is down or the driver does not say.
    pub speed_mbps: Option<u32>,
    /// `full`, `half`.
    pub duplex: Option<String>,
    /// MTU in bytes.
    pub mtu: Option<u32>,
    /// MAC address.
    pub mac: Option<String>,
    /// `tx_queue_len`.
    pub tx_queue_len: Option<u32>,
    /// NAPI polling in kernel threads instead of softirq (`threaded`: 1 = on).
    pub napi_threaded: Option<bool>,
    /// `gro_flush_timeout` in ns.
    pub gro_flush_timeout_ns: Option<u64>,
    /// Receive queues with their RPS masks.
    #[serde(default)]
    pub rx_queues: Vec<RxQueue>,
    /// Transmit queues with their XPS masks.
    #[serde(default)]
    pub tx_queues: Vec<TxQueue>,
    /// IRQ lines serving this interface.
    #[serde(default)]
    pub irqs: Vec<IfaceIrq>,
    /// Counters.
    pub stats: IfStats,
    /// What the driver tells ethtool (live system only).
    pub ethtool: Option<ethtool::EthtoolInfo>,
}

impl Interface {
    /// Names `/proc/interrupts` may use for this interface's vectors.
    pub fn irq_names(&self) -> Vec<&str> {
        let mut v = vec![self.name.as_str()];
        if let Some(d) = self.device.as_deref().filter(|d| d.starts_with("virtio")) {
            v.push(d);
        }
        v
    }

    /// All CPUs any RPS mask of this interface names.
    pub fn rps_cpus(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .rx_queues
            .iter()
            .filter_map(|q| q.rps_cpus.clone())
            .flatten()
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Fastest speed the hardware supports (ethtool link modes), in Mb/s.
    pub fn max_speed_mbps(&self) -> Option<u32> {
        self.ethtool
            .as_ref()
            .and_then(|e| e.link.as_ref())
            .and_then(|l| l.supported_max_mbps)
    }
}

/// Is `name` something we may put into a path? (Interface names come from the user with
/// `--iface` and from directory listings.)
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 15
        && name != "."
        && name != ".."
        && !name.contains('/')
        && !name.contains('\0')
}

/// Interface names under `/sys/class/net`, naturally sorted.
pub fn list_interfaces(root: &SysRoot) -> Vec<String> {
    root.list(CLASS_NET)
        .into_iter()
        .filter(|n| valid_name(n))
        .collect()
}

fn attr(name: &str, a: &str) -> String {
    format!("{CLASS_NET}/{name}/{a}")
}

/// Read the counters of one interface.
pub fn read_stats(root: &SysRoot, name: &str) -> IfStats {
    let mut s = IfStats::default();
    if !valid_name(name) {
        return s;
    }
    for f in IfStats::FILES {
        let v = root.parse::<u64>(attr(name, &format!("statistics/{f}")));
        if let Some(slot) = s.slot(f) {
            *slot = v;
        }
    }
    s
}

/// Parse the `speed` attribute: Mb/s, with `-1`/`4294967295`/garbage (link down, driver
/// does not know) as `None`.
pub fn parse_speed(s: &str) -> Option<u32> {
    let v: i64 = s.trim().parse().ok()?;
    if v <= 0 || v >= u32::MAX as i64 {
        None
    } else {
        Some(v as u32)
    }
}

/// Read one interface. Without `/proc/interrupts` the IRQ list is empty. Ethtool is only
/// asked on the live system (`root.is_host()`).
pub fn read_interface(root: &SysRoot, name: &str, interrupts: Option<&Interrupts>) -> Interface {
    let a = |x: &str| attr(name, x);
    let has_device = root.exists(a("device"));
    let kind = if name == "lo" {
        IfaceKind::Loopback
    } else if has_device {
        IfaceKind::Physical
    } else {
        IfaceKind::Virtual
    };
    let mut rx_queues = Vec::new();
    let mut tx_queues = Vec::new();
    for q in root.list(a("queues")) {
        if !valid_name(&q) {
            continue;
        }
        if q.starts_with("rx-") {
            let mask = root.value(a(&format!("queues/{q}/rps_cpus")));
            rx_queues.push(RxQueue {
                rps_cpus: mask.as_deref().and_then(list::parse_mask),
                rps_mask: mask,
                rps_flow_cnt: root.parse(a(&format!("queues/{q}/rps_flow_cnt"))),
                name: q,
            });
        } else if q.starts_with("tx-") {
            let mask = root.value(a(&format!("queues/{q}/xps_cpus")));
            tx_queues.push(TxQueue {
                xps_cpus: mask.as_deref().and_then(list::parse_mask),
                xps_mask: mask,
                name: q,
            });
        }
    }
    let msi: Vec<u32> = root
        .list(a("device/msi_irqs"))
        .iter()
        .filter_map(|n| n.parse().ok())
        .collect();
    let mut iface = Interface {
        name: name.to_string(),
        kind,
        driver: root.link_name(a("device/driver")),
        device: if has_device {
            root.link_name(a("device"))
        } else {
            None
        },
        operstate: root.value(a("operstate")),
        carrier: root.parse::<u8>(a("carrier")).map(|c| c == 1),
        speed_mbps: root.value(a("speed")).and_then(|s| parse_speed(&s)),
        duplex: root.value(a("duplex")).filter(|d| d != "unknown"),
        mtu: root.parse(a("mtu")),
        mac: root.value(a("address")),
        tx_queue_len: root.parse(a("tx_queue_len")),
        napi_threaded: root.parse::<u8>(a("threaded")).map(|t| t != 0),
        gro_flush_timeout_ns: root.parse(a("gro_flush_timeout")),
        rx_queues,
        tx_queues,
        irqs: Vec::new(),
        stats: read_stats(root, name),
        ethtool: None,
    };
    if let Some(ints) = interrupts {
        let names = iface.irq_names();
        let lines = ints.for_names(&names, &msi);
        let mut irqs = Vec::new();
        for l in lines {
            let Some(n) = l.irq else { continue };
            let aff = irq::read_affinity(root, n);
            let per_cpu = ints
                .cpus
                .iter()
                .map(|&c| (c, ints.count(l, c)))
                .filter(|&(_, v)| v > 0)
                .collect();
            irqs.push(IfaceIrq {
                irq: n,
                name: l.actions.join(","),
                per_cpu,
                affinity: aff.affinity,
                effective: aff.effective,
            });
        }
        iface.irqs = irqs;
    }
    if root.is_host() && kind != IfaceKind::Loopback {
        iface.ethtool = ethtool::query(name);
    }
    iface
}

/// Read every interface.
pub fn read_all(root: &SysRoot) -> Vec<Interface> {
    let ints = irq::read_interrupts(root);
    list_interfaces(root)
        .iter()
        .map(|n| read_interface(root, n, ints.as_ref()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;

    fn w(root: &Path, rel: &str, v: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, v).unwrap();
    }

    #[test]
    fn speed_values() {
        assert_eq!(parse_speed("2500\n"), Some(2500));
        assert_eq!(parse_speed("-1"), None);
        assert_eq!(parse_speed("4294967295"), None);
        assert_eq!(parse_speed("fast"), None);
    }

    #[test]
    fn names_that_could_escape_are_refused() {
        assert!(valid_name("enP4p65s0"));
        assert!(!valid_name("../etc"));
        assert!(!valid_name(".."));
        assert!(!valid_name(""));
        assert!(!valid_name("a-name-that-is-too-long"));
    }

    #[test]
    fn nanopi_r5s_eth1_from_a_tree() {
        // NanoPi R5S (RK3568): eth1 is an RTL8125 on PCIe at 0000:01:00.0 (ethtool -i in
        // the review), RPS mask `b` as FriendlyWrt's 40-net-smp-affinity sets it.
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::create_dir_all(r.join("sys/devices/pci0000:00/0000:01:00.0/msi_irqs")).unwrap();
        fs::create_dir_all(r.join("sys/bus/pci/drivers/r8125")).unwrap();
        std::os::unix::fs::symlink(
            "../../../bus/pci/drivers/r8125",
            r.join("sys/devices/pci0000:00/0000:01:00.0/driver"),
        )
        .unwrap();
        fs::create_dir_all(r.join("sys/class/net/eth1")).unwrap();
        std::os::unix::fs::symlink(
            "../../../devices/pci0000:00/0000:01:00.0",
            r.join("sys/class/net/eth1/device"),
        )
        .unwrap();
        w(r, "sys/class/net/eth1/speed", "2500\n");
        w(r, "sys/class/net/eth1/duplex", "full\n");
        w(r, "sys/class/net/eth1/mtu", "1500\n");
        w(r, "sys/class/net/eth1/operstate", "up\n");
        w(r, "sys/class/net/eth1/carrier", "1\n");
        w(r, "sys/class/net/eth1/queues/rx-0/rps_cpus", "b\n");
        w(r, "sys/class/net/eth1/queues/tx-0/xps_cpus", "0\n");
        w(r, "sys/class/net/eth1/statistics/rx_packets", "9569147\n");
        w(r, "sys/class/net/eth1/statistics/rx_missed_errors", "31\n");
        w(r, "proc/irq/87/smp_affinity_list", "2\n");
        w(
            r,
            "proc/interrupts",
            "           CPU0       CPU1       CPU2       CPU3\n 87:          0          0     412345          0     ITS-MSI 524288 Edge      eth1-0\n 88:         12          0          0          0     ITS-MSI 0 Edge      eth10\n",
        );
        let root = SysRoot::new(r);
        let ints = irq::read_interrupts(&root).unwrap();
        let i = read_interface(&root, "eth1", Some(&ints));
        assert_eq!(i.kind, IfaceKind::Physical);
        assert_eq!(i.driver.as_deref(), Some("r8125"));
        assert_eq!(i.device.as_deref(), Some("0000:01:00.0"));
        assert_eq!(i.speed_mbps, Some(2500));
        assert_eq!(i.duplex.as_deref(), Some("full"));
        assert_eq!(i.carrier, Some(true));
        assert_eq!(i.rx_queues[0].rps_cpus, Some(vec![0, 1, 3]));
        assert_eq!(i.tx_queues[0].xps_cpus, Some(vec![]));
        assert_eq!(i.rps_cpus(), vec![0, 1, 3]);
        assert_eq!(i.irqs.len(), 1, "eth10 is another interface");
        assert_eq!(i.irqs[0].irq, 87);
        assert_eq!(i.irqs[0].per_cpu.get(&2), Some(&412345));
        assert_eq!(i.irqs[0].affinity, Some(vec![2]));
        assert_eq!(i.stats.rx_missed_errors, Some(31));
        assert_eq!(i.stats.tx_bytes, None);
        assert!(i.ethtool.is_none(), "never ask ethtool about a fixture");
        assert_eq!(list_interfaces(&root), vec!["eth1"]);
    }

    #[test]
    fn stats_delta_ignores_missing_and_backwards() {
        let a = IfStats {
            rx_dropped: Some(10),
            rx_missed_errors: Some(5),
            rx_bytes: Some(100),
            ..Default::default()
        };
        let b = IfStats {
            rx_dropped: Some(14),
            rx_missed_errors: Some(1),
            tx_bytes: Some(7),
            rx_bytes: Some(300),
            ..Default::default()
        };
        let d = b.delta(&a);
        assert_eq!(d.get("rx_dropped"), Some(&4));
        assert_eq!(d.get("rx_missed_errors"), Some(&0));
        assert_eq!(d.get("rx_bytes"), Some(&200));
        assert_eq!(d.get("tx_bytes"), None);
    }

    #[test]
    fn this_machine_degrades_gracefully() {
        // Whatever the host has (a VM with virtio_net, a container with only lo), reading
        // must not panic and lo must be a loopback.
        let all = read_all(&SysRoot::host());
        if let Some(lo) = all.iter().find(|i| i.name == "lo") {
            assert_eq!(lo.kind, IfaceKind::Loopback);
            assert!(lo.ethtool.is_none());
        }
    }
}
