//! PCIe links and payload sizes: what a reviewer checks by hand with `lspci -vv` (the
//! ROCK 5 ITX reviews in `shared/seeds`), judged from the config space discovery read.
//!
//! - **Link**: speed and width as trained against the function's own `LnkCap` (lspci's
//!   `(ok)`/`(downgraded)`) and against the port above it. A link narrower than the device
//!   but as wide as its port is the board's wiring (the ROCK 5 ITX's M.2 slot has two
//!   lanes for a x4 SSD): said, nothing to tune. A link below what *both* ends support
//!   trained badly (signal integrity, a bad riser, power saving) and costs bandwidth.
//! - **MaxPayload**: every TLP carries at most `DevCtl: MaxPayload` bytes of data and a
//!   fixed overhead, so a payload set below what the device and every port above it
//!   support (`DevCap: MaxPayload`) costs a share of the link's bandwidth.
//! - **MaxReadReq**: a DMA read is requested in pieces of at most `MaxReadReq` bytes; one
//!   below the payload size the link could use cuts reads into smaller TLPs.
//!
//! # The efficiency formula
//! `efficiency = payload / (payload + 26) × line coding`, with line coding 8/10 (8b/10b)
//! at 2.5 and 5 GT/s and 128/130 (128b/130b) from 8 GT/s. 26 bytes is the per-TLP
//! overhead of a memory write with a 64-bit address (a 4-DW header: 16 bytes), its
//! data-link framing (sequence number 2 bytes, LCRC 4 bytes) and physical framing (start
//! and end of packet, 2 bytes at Gen1/2; Gen3's 4-byte STP token replaces them and the
//! sequence number), plus the 2 bytes the 10GbE NAS review counts on top, for 26 in all.
//! With 26 the formula gives the review's figures exactly: 128 / 154 × 128/130 = 81.8 %,
//! 256 / 282 × 128/130 = 89.4 %. (Counting the TLP alone, 24 bytes, gives 82.9 % and
//! 90.1 %; the gain from 128 to 256 bytes is about 8 % either way.) DLLP traffic (ACKs,
//! flow-control updates) and read-completion splitting at the RCB are not counted: the
//! figure is an upper bound of the payload share, which is what the comparison needs.

use serde::Serialize;

use crate::record::finding::{Finding, FindingCode, Severity};
use crate::sys::pci::{self, PcieFunction, PciePortType, format_speed};

/// Per-TLP overhead in bytes used by the efficiency formula (see the module comment).
pub const TLP_OVERHEAD_BYTES: u32 = 26;

/// Share of the bits on the wire that are data after line coding: 8b/10b below 8 GT/s,
/// 128b/130b from 8 GT/s (PCIe 3.0 to 5.0).
pub fn line_coding(speed_gts: f64) -> f64 {
    if speed_gts < 8.0 {
        8.0 / 10.0
    } else {
        128.0 / 130.0
    }
}

/// Payload share of a link's raw bit rate when every TLP carries `payload_bytes`:
/// `payload / (payload + 26) × line coding`, as a fraction (0.818 for 128 bytes at
/// 8 GT/s). `None` for a zero payload.
pub fn tlp_efficiency(payload_bytes: u32, speed_gts: f64) -> Option<f64> {
    (payload_bytes > 0).then(|| {
        let p = f64::from(payload_bytes);
        p / (p + f64::from(TLP_OVERHEAD_BYTES)) * line_coding(speed_gts)
    })
}

/// The formula with the numbers filled in, for a sentence:
/// `128/(128+26)×128/130`.
pub fn efficiency_formula(payload_bytes: u32, speed_gts: f64) -> String {
    let coding = if speed_gts < 8.0 { "8/10" } else { "128/130" };
    format!("{payload_bytes}/({payload_bytes}+{TLP_OVERHEAD_BYTES})×{coding}")
}

/// Why a link runs below what the device can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkLimit {
    /// Trained at what the device supports.
    Full,
    /// Below the device, but at what the port above offers: the slot's wiring or the
    /// port's generation. Nothing to tune.
    Port,
    /// Below what both the device and its port support.
    Trained,
}

/// The link of one function, judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkVerdict {
    /// Trained speed, GT/s.
    pub speed_gts: f64,
    /// Trained width.
    pub width: u32,
    /// What the function supports.
    pub cap_speed_gts: Option<f64>,
    /// See [`LinkVerdict::cap_speed_gts`].
    pub cap_width: Option<u32>,
    /// What the port above supports, when it can be read.
    pub port_speed_gts: Option<f64>,
    /// See [`LinkVerdict::port_speed_gts`].
    pub port_width: Option<u32>,
    /// Speed below the function's capability, and why.
    pub speed: LinkLimit,
    /// Width below the function's capability, and why.
    pub width_limit: LinkLimit,
}

/// MaxPayload and MaxReadReq of one function against what its path supports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PayloadVerdict {
    /// `DevCtl: MaxPayload`, bytes.
    pub max_payload_bytes: u32,
    /// `DevCap: MaxPayload` of the function, bytes.
    pub supported_bytes: u32,
    /// The smallest `DevCap: MaxPayload` of the ports above it, bytes; `None` when no
    /// port above could be read.
    pub port_supported_bytes: Option<u32>,
    /// What the whole path could use: the smaller of the two.
    pub possible_bytes: u32,
    /// `DevCtl: MaxReadReq`, bytes.
    pub max_read_request_bytes: u32,
    /// Trained speed the efficiencies are for, GT/s.
    pub speed_gts: f64,
    /// [`tlp_efficiency`] at the payload set.
    pub efficiency: Option<f64>,
    /// [`tlp_efficiency`] at the possible payload.
    pub possible_efficiency: Option<f64>,
}

impl PayloadVerdict {
    /// Is the payload set below what the path supports?
    pub fn payload_below(&self) -> bool {
        self.max_payload_bytes < self.possible_bytes
    }

    /// Are read requests smaller than the payload the path could carry?
    pub fn read_request_below(&self) -> bool {
        self.max_read_request_bytes < self.possible_bytes
    }
}

/// One endpoint with what the review says about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PcieCheck {
    /// `0001:11:00.0`.
    pub address: String,
    /// `ASMedia ASM1164 Serial ATA AHCI`, or `1b21:1164` without `pci.ids`.
    pub label: String,
    /// Driver bound to it.
    pub driver: Option<String>,
    /// The port above it.
    pub port: Option<String>,
    /// ASPM as configured and supported (`ASPM Disabled (supported: L1)`).
    pub aspm: Option<String>,
    /// The link; `None` without a trained link or without the capability.
    pub link: Option<LinkVerdict>,
    /// Payload sizes; `None` without the capability.
    pub payload: Option<PayloadVerdict>,
}

/// The name sbc-bench prints: the vendor's first word (`AMD` for "Advanced Micro
/// Devices,"), then the device name without ` SSD` and ` Controller`; the IDs without
/// `pci.ids`.
pub fn label(f: &PcieFunction) -> String {
    match (&f.vendor_name, &f.device_name) {
        (Some(v), Some(d)) => {
            let v = v.replace("Advanced Micro Devices,", "AMD");
            let vendor = v.split(' ').next().unwrap_or_default();
            let d = d.replacen(" SSD", "", 1).replacen(" Controller", "", 1);
            format!("{vendor} {d}")
        }
        _ => format!(
            "{}:{}",
            f.device.vendor_id.as_deref().unwrap_or("????"),
            f.device.device_id.as_deref().unwrap_or("????")
        ),
    }
}

fn limit(trained: f64, own: Option<f64>, port: Option<f64>) -> LinkLimit {
    match own {
        Some(c) if trained + 0.01 < c => match port {
            Some(p) if trained + 0.01 >= p.min(c) => LinkLimit::Port,
            _ => LinkLimit::Trained,
        },
        _ => LinkLimit::Full,
    }
}

/// The ports above `f`, nearest first (a switch path has several), from the list.
fn ports_above<'a>(f: &PcieFunction, all: &'a [PcieFunction]) -> Vec<&'a PcieFunction> {
    let mut out: Vec<&PcieFunction> = Vec::new();
    let mut next = f.upstream.clone();
    while let Some(addr) = next {
        let Some(p) = all.iter().find(|x| x.device.address == addr) else {
            break;
        };
        if out.iter().any(|o| o.device.address == addr) || out.len() > 16 {
            break;
        }
        out.push(p);
        next = p.upstream.clone();
    }
    out
}

fn aspm_words(f: &PcieFunction) -> Option<String> {
    let aspm = f
        .device
        .aspm
        .as_ref()
        .or(f.pcie.as_ref().map(|c| &c.aspm))?;
    let mut s = aspm.describe();
    if let Some(c) = &f.pcie {
        let sup: Vec<&str> = [(c.aspm_l0s_supported, "L0s"), (c.aspm_l1_supported, "L1")]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
        if !sup.is_empty() {
            s.push_str(&format!(" (supported: {})", sup.join(" ")));
        }
    }
    Some(s)
}

/// Judge every endpoint of `all` (bridges and root ports are judged through the
/// endpoints below them). Functions without a readable PCI Express capability get a
/// check with `link`/`payload` `None` (shown as `n/a`).
pub fn check(all: &[PcieFunction]) -> Vec<PcieCheck> {
    all.iter()
        .filter(|f| {
            f.pcie.as_ref().is_none_or(|c| {
                !matches!(
                    c.port_type,
                    PciePortType::RootPort
                        | PciePortType::SwitchUpstream
                        | PciePortType::SwitchDownstream
                        | PciePortType::PcieToPciBridge
                        | PciePortType::PciToPcieBridge
                        | PciePortType::RootComplexEventCollector
                )
            })
        })
        .filter(|f| {
            // Without the capability, keep only what is not a bridge by class.
            f.pcie.is_some()
                || !f
                    .device
                    .class
                    .as_deref()
                    .is_some_and(|c| c.starts_with("06"))
        })
        .map(|f| check_one(f, all))
        .collect()
}

fn check_one(f: &PcieFunction, all: &[PcieFunction]) -> PcieCheck {
    let ports = ports_above(f, all);
    let port_cap = ports.first().and_then(|p| p.pcie.as_ref());
    let link = f.pcie.as_ref().filter(|c| c.has_link()).and_then(|c| {
        let speed = c.link_speed_gts?;
        let width = c.link_width?;
        let port_speed = port_cap.and_then(|p| p.link_cap_speed_gts);
        let port_width = port_cap.and_then(|p| p.link_cap_width);
        Some(LinkVerdict {
            speed_gts: speed,
            width,
            cap_speed_gts: c.link_cap_speed_gts,
            cap_width: c.link_cap_width,
            port_speed_gts: port_speed,
            port_width,
            speed: limit(speed, c.link_cap_speed_gts, port_speed),
            width_limit: limit(
                f64::from(width),
                c.link_cap_width.map(f64::from),
                port_width.map(f64::from),
            ),
        })
    });
    let payload = f.pcie.as_ref().map(|c| {
        let port_supported = ports
            .iter()
            .filter_map(|p| p.pcie.as_ref().map(|pc| pc.max_payload_supported_bytes))
            .min();
        let possible = port_supported.map_or(c.max_payload_supported_bytes, |p| {
            p.min(c.max_payload_supported_bytes)
        });
        let speed = c.link_speed_gts.unwrap_or(8.0);
        PayloadVerdict {
            max_payload_bytes: c.max_payload_bytes,
            supported_bytes: c.max_payload_supported_bytes,
            port_supported_bytes: port_supported,
            possible_bytes: possible,
            max_read_request_bytes: c.max_read_request_bytes,
            speed_gts: speed,
            efficiency: tlp_efficiency(c.max_payload_bytes, speed),
            possible_efficiency: tlp_efficiency(possible, speed),
        }
    });
    PcieCheck {
        address: f.device.address.clone(),
        label: label(f),
        driver: f.device.driver.clone(),
        port: f.upstream.clone(),
        aspm: aspm_words(f),
        link,
        payload,
    }
}

/// A fraction as a percentage with one decimal (`81.8 %`).
pub fn percent(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

fn link_finding(c: &PcieCheck, l: &LinkVerdict) -> Option<Finding> {
    let status = pci::format_link_status(&pci::PciLink {
        speed_gts: Some(l.speed_gts),
        width: Some(l.width),
        max_speed_gts: l.cap_speed_gts,
        max_width: l.cap_width,
        ..pci::PciLink::default()
    })?;
    let worst = match (l.speed, l.width_limit) {
        (LinkLimit::Trained, _) | (_, LinkLimit::Trained) => LinkLimit::Trained,
        (LinkLimit::Port, _) | (_, LinkLimit::Port) => LinkLimit::Port,
        _ => return None,
    };
    let cap = format!(
        "{} x{}",
        l.cap_speed_gts
            .map(format_speed)
            .unwrap_or_else(|| "?".into()),
        l.cap_width.map_or("?".into(), |w| w.to_string())
    );
    let port = c.port.as_deref().unwrap_or("its port");
    let port_cap = match (l.port_speed_gts, l.port_width) {
        (Some(s), Some(w)) => format!("{} x{w}", format_speed(s)),
        _ => "n/a".into(),
    };
    let (severity, why) = match worst {
        LinkLimit::Port => (
            Severity::Info,
            format!(
                "the port above ({port}) offers only {port_cap}: the slot's wiring, nothing to tune"
            ),
        ),
        _ => (
            Severity::Warning,
            format!(
                "its port {port} supports {port_cap}, so the link trained below what both ends can do \
                 (check the slot, riser or cable; a retrain or reboot may restore it)"
            ),
        ),
    };
    Some(Finding::new(
        FindingCode::PcieLinkDowngraded,
        severity,
        format!(
            "PCIe {} ({}): {status}; the device supports {cap}, {why}",
            c.address, c.label
        ),
    ))
}

fn payload_finding(c: &PcieCheck, p: &PayloadVerdict) -> Option<Finding> {
    if !p.payload_below() {
        return None;
    }
    let (now, possible) = (p.efficiency?, p.possible_efficiency?);
    let port = match p.port_supported_bytes {
        Some(b) => format!(" and the ports above it {b}"),
        None => String::new(),
    };
    Some(Finding::new(
        FindingCode::PcieMaxPayloadBelowCapability,
        Severity::Info,
        format!(
            "PCIe {} ({}): MaxPayload {} bytes while the device supports {}{port}: {} of the link \
             carries data ({}), {} at {} bytes ({}), {:+.1} % throughput where the link is the limit; \
             the kernel parameter pci=pcie_bus_perf sets the largest payload the path supports",
            c.address,
            c.label,
            p.max_payload_bytes,
            p.supported_bytes,
            percent(now),
            efficiency_formula(p.max_payload_bytes, p.speed_gts),
            percent(possible),
            p.possible_bytes,
            efficiency_formula(p.possible_bytes, p.speed_gts),
            (possible / now - 1.0) * 100.0
        ),
    ))
}

fn read_request_finding(c: &PcieCheck, p: &PayloadVerdict) -> Option<Finding> {
    if !p.read_request_below() {
        return None;
    }
    let now = tlp_efficiency(p.max_read_request_bytes, p.speed_gts)?;
    let possible = p.possible_efficiency?;
    Some(Finding::new(
        FindingCode::PcieMaxReadReqBelowPayload,
        Severity::Info,
        format!(
            "PCIe {} ({}): MaxReadReq {} bytes is below the {} bytes of payload the path supports: \
             DMA reads travel in {}-byte pieces, {} of the link ({}) instead of {}",
            c.address,
            c.label,
            p.max_read_request_bytes,
            p.possible_bytes,
            p.max_read_request_bytes,
            percent(now),
            efficiency_formula(p.max_read_request_bytes, p.speed_gts),
            percent(possible)
        ),
    ))
}

/// The findings of the checks: a downgraded link, MaxPayload below what the path
/// supports, MaxReadReq below the payload the path could carry. Nothing for a clean
/// board or for functions whose capability could not be read.
pub fn findings(checks: &[PcieCheck]) -> Vec<Finding> {
    let mut out = Vec::new();
    for c in checks {
        if let Some(l) = &c.link {
            out.extend(link_finding(c, l));
        }
        if let Some(p) = &c.payload {
            out.extend(payload_finding(c, p));
            out.extend(read_request_finding(c, p));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::pci::{PciDevice, PcieCap};

    #[test]
    fn nas_review_efficiency_figures() {
        // rock-5-itx-10gbe-nas.txt: "128 bytes cause an efficiency of 81.8%
        // (128/(128+26)*128/130), while 256 bytes would reach 89.4% (256/(256+26)*128/130)
        // and achieve a 9.2% performance increase".
        let e128 = tlp_efficiency(128, 8.0).unwrap();
        let e256 = tlp_efficiency(256, 8.0).unwrap();
        assert_eq!(percent(e128), "81.8 %");
        assert_eq!(percent(e256), "89.4 %");
        assert_eq!(efficiency_formula(128, 8.0), "128/(128+26)×128/130");
        // The review's 9.2 % is 89.4 − 81.8 rounded the other way; the ratio is +9.2 %
        // as well: 0.8938 / 0.8184 = 1.092.
        assert!(((e256 / e128 - 1.0) * 100.0 - 9.2).abs() < 0.05);
        // "the absolute maximum bandwidth with the SATA controller … is 81.8% of 2*8 GT/s
        // = 13.09 Gbps": 16 Gb/s × 0.8184.
        assert!((16.0 * e128 - 13.09).abs() < 0.01);
        // Gen2 (RTL8125) uses 8b/10b.
        assert_eq!(percent(tlp_efficiency(128, 5.0).unwrap()), "66.5 %");
        assert_eq!(tlp_efficiency(0, 8.0), None);
    }

    fn cap(port_type: PciePortType, sup: u32, mps: u32, mrrs: u32) -> PcieCap {
        PcieCap {
            offset: 0x70,
            version: 2,
            port_type,
            max_payload_supported_bytes: sup,
            max_payload_bytes: mps,
            max_read_request_bytes: mrrs,
            link_cap_speed_gts: Some(8.0),
            link_cap_width: Some(2),
            aspm_l0s_supported: false,
            aspm_l1_supported: true,
            aspm: Default::default(),
            link_speed_gts: Some(8.0),
            link_width: Some(2),
        }
    }

    fn func(addr: &str, up: Option<&str>, c: Option<PcieCap>) -> PcieFunction {
        PcieFunction {
            device: PciDevice {
                address: addr.into(),
                vendor_id: Some("1b21".into()),
                device_id: Some("1164".into()),
                class: Some("010601".into()),
                ..Default::default()
            },
            vendor_name: None,
            device_name: None,
            upstream: up.map(str::to_string),
            pcie: c,
        }
    }

    #[test]
    fn payload_below_both_ends_is_found_with_the_formula() {
        let all = vec![
            func(
                "0001:10:00.0",
                None,
                Some(cap(PciePortType::RootPort, 256, 128, 512)),
            ),
            func(
                "0001:11:00.0",
                Some("0001:10:00.0"),
                Some(cap(PciePortType::Endpoint, 256, 128, 256)),
            ),
        ];
        let checks = check(&all);
        assert_eq!(
            checks.len(),
            1,
            "the root port is judged through its endpoint"
        );
        let f = findings(&checks);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].code, FindingCode::PcieMaxPayloadBelowCapability);
        assert!(f[0].message.contains("81.8 %"), "{}", f[0].message);
        assert!(
            f[0].message.contains("89.4 % at 256 bytes"),
            "{}",
            f[0].message
        );
        assert!(f[0].message.contains("128/(128+26)×128/130"));
        assert!(f[0].message.starts_with("PCIe 0001:11:00.0 (1b21:1164)"));
    }

    #[test]
    fn port_limits_the_payload_a_bigger_device_could_use() {
        // The NAS seed's 10GbE NIC: DevCap 512 under a port of 256; at 256 it is fine.
        let all = vec![
            func(
                "0000:00:00.0",
                None,
                Some(cap(PciePortType::RootPort, 256, 256, 512)),
            ),
            func(
                "0000:01:00.0",
                Some("0000:00:00.0"),
                Some(cap(PciePortType::Endpoint, 512, 256, 512)),
            ),
        ];
        let c = check(&all);
        assert_eq!(c[0].payload.as_ref().unwrap().possible_bytes, 256);
        assert!(findings(&c).is_empty());
    }

    #[test]
    fn read_request_below_payload() {
        let all = vec![
            func(
                "0000:00:00.0",
                None,
                Some(cap(PciePortType::RootPort, 256, 256, 512)),
            ),
            func(
                "0000:01:00.0",
                Some("0000:00:00.0"),
                Some(cap(PciePortType::Endpoint, 256, 256, 128)),
            ),
        ];
        let f = findings(&check(&all));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, FindingCode::PcieMaxReadReqBelowPayload);
        assert!(f[0].message.contains("81.8 %") && f[0].message.contains("89.4 %"));
    }

    #[test]
    fn link_below_device_and_port() {
        let mut ep = cap(PciePortType::Endpoint, 256, 256, 512);
        ep.link_cap_width = Some(4);
        ep.link_width = Some(1);
        let mut rp = cap(PciePortType::RootPort, 256, 256, 512);
        rp.link_cap_width = Some(2);
        let mk = |ep: PcieCap, rp: PcieCap| {
            vec![
                func("0000:00:00.0", None, Some(rp)),
                func("0000:01:00.0", Some("0000:00:00.0"), Some(ep)),
            ]
        };
        let f = findings(&check(&mk(ep.clone(), rp.clone())));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].code, FindingCode::PcieLinkDowngraded);
        assert_eq!(f[0].severity, Severity::Warning, "x1 where both do x2");
        assert!(
            f[0].message.contains("Width x1 (downgraded)"),
            "{}",
            f[0].message
        );
        // x2 of x4 under a x2 port: the wiring (ROCK 5 ITX's M.2 slot), info only.
        ep.link_width = Some(2);
        let f = findings(&check(&mk(ep.clone(), rp.clone())));
        assert_eq!(f[0].severity, Severity::Info);
        assert!(f[0].message.contains("slot's wiring"), "{}", f[0].message);
        // Speed: Gen2 on a Gen3 device and port.
        ep.link_width = Some(4);
        rp.link_cap_width = Some(4);
        ep.link_speed_gts = Some(5.0);
        let c = check(&mk(ep, rp));
        assert_eq!(c[0].link.as_ref().unwrap().speed, LinkLimit::Trained);
        assert_eq!(findings(&c)[0].severity, Severity::Warning);
    }

    #[test]
    fn no_capability_is_na_not_a_finding() {
        let all = vec![func("0000:01:00.0", None, None)];
        let c = check(&all);
        assert_eq!(c.len(), 1);
        assert!(c[0].link.is_none() && c[0].payload.is_none());
        assert!(findings(&c).is_empty());
    }

    #[test]
    fn upstream_loop_does_not_hang() {
        let all = vec![
            func("0000:00:00.0", Some("0000:01:00.0"), None),
            func(
                "0000:01:00.0",
                Some("0000:00:00.0"),
                Some(cap(PciePortType::Endpoint, 256, 256, 512)),
            ),
        ];
        assert_eq!(check(&all).len(), 2);
    }

    #[test]
    fn labels_as_sbc_bench_prints_them() {
        let mut f = func("0001:11:00.0", None, None);
        f.vendor_name = Some("ASMedia Technology Inc.".into());
        f.device_name = Some("ASM1164 Serial ATA AHCI Controller".into());
        assert_eq!(label(&f), "ASMedia ASM1164 Serial ATA AHCI");
        f.vendor_name = Some("Realtek Semiconductor Co., Ltd.".into());
        f.device_name = Some("RTL8125 2.5GbE Controller".into());
        assert_eq!(label(&f), "Realtek RTL8125 2.5GbE");
        f.vendor_name = Some("Advanced Micro Devices, Inc. [AMD]".into());
        f.device_name = Some("Family 17h USB 3.1".into());
        assert_eq!(label(&f), "AMD Family 17h USB 3.1");
    }
}
