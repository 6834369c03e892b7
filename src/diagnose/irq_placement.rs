//! IRQ placement: which core serves each NIC, storage and USB interrupt, with the NICs'
//! RPS/XPS masks, and a finding when one core serves every interrupt of a fast NIC while
//! receive packet steering hands nothing on.
//!
//! The ROCK 5 ITX review found its 2.5GbE RX bottleneck on the cores taking the NIC's
//! interrupts; the NanoPi R5S review saw `%irq 25 %` on four cores (one core full) with
//! `mpstat` showing cpu0 taking most interrupts, and FriendlyElec's fix put each NIC's
//! IRQs on one core and RPS on the others (`seeds/nanopi-r5s-review-ru.txt`). Counts are
//! since boot (`/proc/interrupts`): where they are too few to say, the effective affinity
//! decides. Pure: the caller reads `/proc/interrupts`, the affinities and the interfaces.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::record::finding::{Finding, FindingCode, Severity};
use crate::sys::cpu_list as list;
use crate::sys::irq::{Interrupts, IrqAffinity};
use crate::sys::net::{IfaceKind, Interface};

/// Below this many interrupts since boot the counts do not say where a line is served.
pub const MIN_COUNTS: u64 = 1000;

/// What a device is to the review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IrqDeviceKind {
    /// A network interface.
    Nic,
    /// An AHCI, NVMe, MMC or UFS controller.
    Storage,
    /// A USB host controller.
    Usb,
}

/// One IRQ line of a device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IrqServe {
    /// IRQ number.
    pub irq: u32,
    /// Handler name (`enP4p65s0-0`, `ahci[0001:11:00.0]`).
    pub name: String,
    /// Interrupts since boot per CPU (CPUs with a count only).
    pub per_cpu: BTreeMap<u32, u64>,
    /// `smp_affinity_list`.
    pub affinity: Option<Vec<u32>>,
    /// `effective_affinity_list`.
    pub effective: Option<Vec<u32>>,
}

impl IrqServe {
    /// Sum of the counts.
    pub fn total(&self) -> u64 {
        self.per_cpu
            .values()
            .fold(0u64, |a, &b| a.saturating_add(b))
    }

    /// The CPUs serving this line: those with counts when there are enough, else the
    /// effective affinity, else the allowed one.
    pub fn serving(&self) -> Vec<u32> {
        if self.total() >= MIN_COUNTS {
            return self.per_cpu.keys().copied().collect();
        }
        self.effective
            .clone()
            .or_else(|| self.affinity.clone())
            .unwrap_or_default()
    }
}

/// Where one device's interrupts are served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IrqPlacement {
    /// Interface name, or the handler name without its queue suffix (`nvme0`,
    /// `ahci[0001:11:00.0]`, `xhci-hcd:usb1`, `mmc0`).
    pub device: String,
    /// NIC, storage or USB.
    pub kind: IrqDeviceKind,
    /// Link speed of a NIC, Mb/s.
    pub speed_mbps: Option<u32>,
    /// Its IRQ lines.
    pub irqs: Vec<IrqServe>,
    /// CPUs the NIC's RPS masks name (empty: RPS off); `None` for other devices or when
    /// the masks cannot be read.
    pub rps_cpus: Option<Vec<u32>>,
    /// CPUs the NIC's XPS masks name (empty: XPS off).
    pub xps_cpus: Option<Vec<u32>>,
    /// First RX queue's `rps_cpus` path, for the advice.
    pub rps_path: Option<String>,
}

impl IrqPlacement {
    /// CPUs serving any of its lines.
    pub fn serving(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.irqs.iter().flat_map(|i| i.serving()).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Interrupts since boot over all its lines.
    pub fn total(&self) -> u64 {
        self.irqs
            .iter()
            .fold(0u64, |a, i| a.saturating_add(i.total()))
    }
}

/// Storage or USB, by handler name; `None` for anything else.
pub fn classify(action: &str) -> Option<IrqDeviceKind> {
    let a = action.to_ascii_lowercase();
    let storage = [
        "ahci", "nvme", "mmc", "sdhci", "dw-mmc", "dw_mmc", "ufshcd", "sata", "ata_",
    ];
    let usb = ["xhci", "ehci", "ohci", "dwc2", "dwc3", "musb", "uhci"];
    if storage.iter().any(|p| a.starts_with(p)) {
        Some(IrqDeviceKind::Storage)
    } else if usb.iter().any(|p| a.starts_with(p)) {
        Some(IrqDeviceKind::Usb)
    } else {
        None
    }
}

/// The device a handler serves: NVMe queue vectors (`nvme0q3`) belong to `nvme0`.
fn device_of(action: &str) -> String {
    if let Some(rest) = action.strip_prefix("nvme")
        && let Some((ctrl, q)) = rest.split_once('q')
        && !ctrl.is_empty()
        && ctrl.chars().all(|c| c.is_ascii_digit())
        && q.chars().all(|c| c.is_ascii_digit())
    {
        return format!("nvme{ctrl}");
    }
    action.to_string()
}

fn union(sets: impl Iterator<Item = Option<Vec<u32>>>) -> Option<Vec<u32>> {
    let mut any = false;
    let mut v = Vec::new();
    for s in sets.flatten() {
        any = true;
        v.extend(s);
    }
    v.sort_unstable();
    v.dedup();
    any.then_some(v)
}

fn nic_placement(i: &Interface) -> IrqPlacement {
    IrqPlacement {
        device: i.name.clone(),
        kind: IrqDeviceKind::Nic,
        speed_mbps: i.speed_mbps,
        irqs: i
            .irqs
            .iter()
            .map(|q| IrqServe {
                irq: q.irq,
                name: q.name.clone(),
                per_cpu: q.per_cpu.clone(),
                affinity: q.affinity.clone(),
                effective: q.effective.clone(),
            })
            .collect(),
        rps_cpus: union(i.rx_queues.iter().map(|q| q.rps_cpus.clone())),
        xps_cpus: union(i.tx_queues.iter().map(|q| q.xps_cpus.clone())),
        rps_path: i
            .rx_queues
            .first()
            .map(|q| crate::sys::net::rps_cpus_path(&i.name, &q.name)),
    }
}

/// Every physical NIC with IRQ lines, then storage and USB controllers found by handler
/// name in `/proc/interrupts`, with the affinities of `affinities`.
pub fn placement(
    interrupts: &Interrupts,
    affinities: &[IrqAffinity],
    ifaces: &[Interface],
) -> Vec<IrqPlacement> {
    let mut out: Vec<IrqPlacement> = ifaces
        .iter()
        .filter(|i| i.kind == IfaceKind::Physical && !i.irqs.is_empty())
        .map(nic_placement)
        .collect();
    let mut others: Vec<IrqPlacement> = Vec::new();
    for line in &interrupts.lines {
        let Some(irq) = line.irq else { continue };
        for action in &line.actions {
            let Some(kind) = classify(action) else {
                continue;
            };
            let aff = affinities.iter().find(|a| a.irq == irq);
            let serve = IrqServe {
                irq,
                name: action.clone(),
                per_cpu: interrupts
                    .cpus
                    .iter()
                    .map(|&c| (c, interrupts.count(line, c)))
                    .filter(|&(_, n)| n > 0)
                    .collect(),
                affinity: aff.and_then(|a| a.affinity.clone()),
                effective: aff.and_then(|a| a.effective.clone()),
            };
            let dev = device_of(action);
            match others.iter_mut().find(|p| p.device == dev) {
                Some(p) => p.irqs.push(serve),
                None => others.push(IrqPlacement {
                    device: dev,
                    kind,
                    speed_mbps: None,
                    irqs: vec![serve],
                    rps_cpus: None,
                    xps_cpus: None,
                    rps_path: None,
                }),
            }
        }
    }
    others.sort_by_key(|p| p.kind);
    out.extend(others);
    out
}

/// A CPU mask (hex, as `rps_cpus` takes it) of `cpus`.
pub fn mask_hex(cpus: &[u32]) -> String {
    let mut words: Vec<u32> = Vec::new();
    for &c in cpus {
        let w = (c / 32) as usize;
        if words.len() <= w {
            words.resize(w + 1, 0);
        }
        words[w] |= 1 << (c % 32);
    }
    if words.is_empty() {
        return "0".into();
    }
    let mut s = format!("{:x}", words[words.len() - 1]);
    for w in words.iter().rev().skip(1) {
        s.push_str(&format!(",{w:08x}"));
    }
    s
}

/// A fast NIC (≥ 1 Gb/s) whose interrupts all land on one core while RPS hands no work
/// to another core. `cpus` are the CPUs there are (`/proc/interrupts` columns), for the
/// suggested RPS mask.
pub fn findings(placements: &[IrqPlacement], cpus: &[u32]) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in placements.iter().filter(|p| p.kind == IrqDeviceKind::Nic) {
        let Some(speed) = p.speed_mbps.filter(|&s| s >= 1000) else {
            continue;
        };
        let serving = p.serving();
        let [core] = serving[..] else {
            continue;
        };
        let rps_elsewhere = p
            .rps_cpus
            .as_ref()
            .is_some_and(|r| r.iter().any(|&c| c != core));
        if rps_elsewhere {
            continue;
        }
        let rps = match &p.rps_cpus {
            Some(r) if r.is_empty() => "RPS is off".to_string(),
            Some(_) => format!("RPS names only cpu{core}"),
            None => "RPS could not be read".to_string(),
        };
        let others: Vec<u32> = cpus.iter().copied().filter(|&c| c != core).collect();
        let advice = match (&p.rps_path, others.is_empty()) {
            (Some(path), false) => format!(
                "; hand receive work to the other cores (echo {} > {path}) or move IRQ {} \
                 elsewhere (/proc/irq/{}/smp_affinity_list)",
                mask_hex(&others),
                p.irqs[0].irq,
                p.irqs[0].irq
            ),
            _ => String::new(),
        };
        let counted = if p.total() >= MIN_COUNTS {
            format!("{} interrupts since boot", p.total())
        } else {
            "by effective affinity".to_string()
        };
        let lines = p.irqs.len();
        out.push(Finding::new(
            FindingCode::IrqNicOneCore,
            Severity::Warning,
            format!(
                "{} ({speed} Mb/s): cpu{core} serves all {lines} of its interrupt line{} ({counted}) \
                 and {rps}: under load that core saturates in softirq before the link does{advice}",
                p.device,
                if lines == 1 { "" } else { "s" },
            ),
        ));
    }
    out
}

/// `cpu6`, `cpu0-3`: the CPUs serving a line, for text.
pub fn cpu_words(cpus: &[u32]) -> String {
    if cpus.is_empty() {
        "n/a".into()
    } else {
        format!("cpu{}", list::format_list(cpus))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::irq::parse_interrupts;
    use crate::sys::net::{IfStats, IfaceIrq, RxQueue, TxQueue};

    fn iface(name: &str, speed: u32, irqs: Vec<IfaceIrq>, rps: &str) -> Interface {
        Interface {
            name: name.into(),
            kind: IfaceKind::Physical,
            driver: Some("r8125".into()),
            device: None,
            operstate: Some("up".into()),
            carrier: Some(true),
            speed_mbps: Some(speed),
            duplex: None,
            mtu: None,
            mac: None,
            tx_queue_len: None,
            napi_threaded: None,
            gro_flush_timeout_ns: None,
            rx_queues: vec![RxQueue {
                name: "rx-0".into(),
                rps_cpus: list::parse_mask(rps),
                rps_mask: Some(rps.into()),
                rps_flow_cnt: None,
            }],
            tx_queues: vec![TxQueue {
                name: "tx-0".into(),
                xps_cpus: Some(vec![]),
                xps_mask: Some("0".into()),
            }],
            irqs,
            stats: IfStats::default(),
            ethtool: None,
        }
    }

    fn irq(n: u32, cpu: u32, count: u64) -> IfaceIrq {
        IfaceIrq {
            irq: n,
            name: format!("eth-{n}"),
            per_cpu: BTreeMap::from([(cpu, count)]),
            affinity: Some((0..4).collect()),
            effective: Some(vec![cpu]),
        }
    }

    #[test]
    fn nanopi_r5s_untuned_all_on_cpu0() {
        // NanoPi R5S on FriendlyCore: mpstat shows cpu0 taking 174.5 of 226 intr/s and
        // sbc-bench -m 25 % irq (one of four cores full) during iperf3 on eth1.
        let i = iface(
            "eth1",
            2500,
            vec![irq(87, 0, 9568112), irq(88, 0, 215), irq(89, 0, 820)],
            "0",
        );
        let p = placement(&Default::default(), &[], &[i]);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].serving(), vec![0]);
        let f = findings(&p, &[0, 1, 2, 3]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].code, FindingCode::IrqNicOneCore);
        assert!(
            f[0].message.contains("cpu0 serves all 3"),
            "{}",
            f[0].message
        );
        assert!(
            f[0].message
                .contains("echo e > /sys/class/net/eth1/queues/rx-0/rps_cpus"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn nanopi_r5s_tuned_irqs_on_cpu2_rps_elsewhere() {
        // FriendlyWrt's 40-net-smp-affinity: eth1 IRQs on core 2 (mask 4), RPS b (0,1,3).
        let i = iface(
            "eth1",
            2500,
            vec![irq(87, 2, 9568112), irq(88, 2, 215)],
            "b",
        );
        let p = placement(&Default::default(), &[], &[i]);
        assert!(findings(&p, &[0, 1, 2, 3]).is_empty());
    }

    #[test]
    fn slow_nic_and_split_irqs_say_nothing() {
        let slow = iface("eth0", 100, vec![irq(38, 0, 50000)], "0");
        let split = iface(
            "enP4p65s0",
            2500,
            vec![irq(224, 6, 85905), irq(242, 0, 112560)],
            "00",
        );
        let p = placement(&Default::default(), &[], &[slow, split]);
        assert!(findings(&p, &[0, 1, 2, 3, 4, 5, 6, 7]).is_empty());
        assert_eq!(p[1].serving(), vec![0, 6]);
    }

    #[test]
    fn few_counts_use_the_effective_affinity() {
        let i = iface("eth1", 1000, vec![irq(87, 3, 12)], "0");
        let p = placement(&Default::default(), &[], &[i]);
        let f = findings(&p, &[0, 1, 2, 3]);
        assert!(
            f[0].message.contains("by effective affinity"),
            "{}",
            f[0].message
        );
        assert!(f[0].message.contains("cpu3"));
    }

    #[test]
    fn storage_and_usb_lines_from_interrupts() {
        let text = "           CPU0       CPU1       CPU2       CPU3\n\
 71:      16210          0          0          0     GICv3 237 Level     mmc0\n\
 76:       9201          0          0          0     GICv3 252 Level     xhci-hcd:usb1\n\
174:      71234          0          0          0   ITS-MSI 143130624 Edge      ahci[0001:11:00.0]\n\
180:         40          0          0          0   ITS-MSI 1 Edge      nvme0q0\n\
181:       5000          0          0          0   ITS-MSI 2 Edge      nvme0q1\n\
182:          0       4000          0          0   ITS-MSI 3 Edge      nvme0q2\n\
 18:     361822     121342      73301      69466     GICv3  30 Level     arch_timer\n";
        let ints = parse_interrupts(text);
        let aff = [IrqAffinity {
            irq: 174,
            affinity: Some(vec![0, 1, 2, 3]),
            effective: Some(vec![0]),
        }];
        let p = placement(&ints, &aff, &[]);
        let names: Vec<&str> = p.iter().map(|p| p.device.as_str()).collect();
        assert_eq!(
            names,
            vec!["mmc0", "ahci[0001:11:00.0]", "nvme0", "xhci-hcd:usb1"]
        );
        let nvme = &p[2];
        assert_eq!(nvme.irqs.len(), 3);
        assert_eq!(nvme.irqs[2].serving(), vec![1]);
        assert_eq!(p[1].irqs[0].effective, Some(vec![0]));
        assert!(
            findings(&p, &ints.cpus).is_empty(),
            "only NICs get the finding"
        );
    }

    #[test]
    fn masks() {
        assert_eq!(mask_hex(&[1, 2, 3]), "e");
        assert_eq!(mask_hex(&[1, 2, 3, 4, 5, 6, 7]), "fe");
        assert_eq!(mask_hex(&[0, 40]), "100,00000001");
        assert_eq!(mask_hex(&[]), "0");
        assert_eq!(cpu_words(&[0, 1, 2, 3]), "cpu0-3");
    }
}
