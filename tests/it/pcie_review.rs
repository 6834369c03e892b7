//! The review's hand-found checks over the ROCK 5 ITX fixture trees (`tests/fixtures/pcie`,
//! config space written from the reviewers' `lspci -vv`): PCIe links and payload sizes
//! with their efficiency, IRQ placement, governor advice. Clean trees give no finding;
//! garbage config space gives `n/a`, never a panic.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::copy_tree;
use sbc_bench::diagnose::{FindingCode, Severity, governor_advice, irq_placement, pcie};
use sbc_bench::report;
use sbc_bench::run::tuning::read_governors;
use sbc_bench::sys::pci::{self, PciePortType};
use sbc_bench::sys::root::SysRoot;
use sbc_bench::sys::{cpufreq, irq, net};

fn tree(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pcie")
        .join(name)
}

/// (address, port type, DevCap MaxPayload, MaxPayload, MaxReadReq, LnkCap GT/s, LnkCap
/// width, LnkSta GT/s, LnkSta width) as `lspci -vv` printed them (ASSUMED rows as in
/// make_fixtures.py).
type Facts = (
    &'static str,
    PciePortType,
    u32,
    u32,
    u32,
    f64,
    u32,
    f64,
    u32,
);

const ITX_COMMON: &[Facts] = &[
    (
        "0001:10:00.0",
        PciePortType::RootPort,
        256,
        128,
        512,
        8.0,
        2,
        8.0,
        2,
    ),
    (
        "0001:11:00.0",
        PciePortType::Endpoint,
        256,
        128,
        256,
        8.0,
        2,
        8.0,
        2,
    ),
    (
        "0003:30:00.0",
        PciePortType::RootPort,
        256,
        128,
        512,
        5.0,
        1,
        5.0,
        1,
    ),
    (
        "0003:31:00.0",
        PciePortType::Endpoint,
        256,
        128,
        4096,
        5.0,
        1,
        5.0,
        1,
    ),
    (
        "0004:40:00.0",
        PciePortType::RootPort,
        256,
        128,
        512,
        5.0,
        1,
        5.0,
        1,
    ),
    (
        "0004:41:00.0",
        PciePortType::Endpoint,
        256,
        128,
        4096,
        5.0,
        1,
        5.0,
        1,
    ),
];

fn check_facts(name: &str, extra: &[Facts]) {
    let root = SysRoot::new(tree(name));
    let funcs = pci::read_functions(&root);
    let want: Vec<&Facts> = extra.iter().chain(ITX_COMMON).collect();
    assert_eq!(funcs.len(), want.len(), "{name}");
    for w in want {
        let f = funcs
            .iter()
            .find(|f| f.device.address == w.0)
            .unwrap_or_else(|| panic!("{name}: {} missing", w.0));
        let c = f
            .pcie
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no capability", w.0));
        assert_eq!(c.port_type, w.1, "{}", w.0);
        assert_eq!(
            (
                c.max_payload_supported_bytes,
                c.max_payload_bytes,
                c.max_read_request_bytes
            ),
            (w.2, w.3, w.4),
            "{}",
            w.0
        );
        assert_eq!(
            (c.link_cap_speed_gts, c.link_cap_width),
            (Some(w.5), Some(w.6)),
            "{}",
            w.0
        );
        assert_eq!(
            (c.link_speed_gts, c.link_width),
            (Some(w.7), Some(w.8)),
            "{}",
            w.0
        );
        assert_eq!(c.aspm.describe(), "ASPM Disabled", "{}", w.0);
        // The sysfs link attributes the fixture also carries agree with the config space
        // (sysfs adds the port's capability, which the function's own registers lack).
        let own = f.device.link.clone().map(|l| sbc_bench::sys::pci::PciLink {
            port_max_speed_gts: None,
            port_max_width: None,
            ..l
        });
        assert_eq!(own.as_ref(), Some(&c.link()), "{}", w.0);
    }
}

#[test]
fn fixture_config_space_decodes_to_the_lspci_facts() {
    check_facts(
        "rock-5-itx",
        &[
            (
                "0000:00:00.0",
                PciePortType::RootPort,
                256,
                128,
                512,
                8.0,
                2,
                8.0,
                2,
            ),
            (
                "0000:01:00.0",
                PciePortType::Endpoint,
                256,
                128,
                512,
                8.0,
                4,
                8.0,
                2,
            ),
        ],
    );
    check_facts(
        "rock-5-itx-nas",
        &[
            (
                "0000:00:00.0",
                PciePortType::RootPort,
                256,
                128,
                512,
                8.0,
                2,
                8.0,
                2,
            ),
            (
                "0000:01:00.0",
                PciePortType::Endpoint,
                512,
                128,
                512,
                8.0,
                4,
                8.0,
                2,
            ),
        ],
    );
}

#[test]
fn rock5_itx_controller_lines_match_the_published_review() {
    let funcs = pci::read_functions(&SysRoot::new(tree("rock-5-itx")));
    // corpus/sbc-bench/reviews/Radxa-Rock-5-ITX.md lines 94-96 (the NVMe on line 97 is a
    // storage line).
    assert_eq!(
        report::text::pcie::controller_lines(&funcs),
        vec![
            "  * ASMedia ASM1164 Serial ATA AHCI: Speed 8GT/s (ok), Width x2 (ok), driver in use: ahci, ASPM Disabled",
            "  * Realtek RTL8125 2.5GbE: Speed 5GT/s (ok), Width x1 (ok), driver in use: r8125, ASPM Disabled",
            "  * Realtek RTL8125 2.5GbE: Speed 5GT/s (ok), Width x1 (ok), driver in use: r8125, ASPM Disabled",
        ]
    );
    let checks = pcie::check(&funcs);
    let lines = report::text::pcie::check_lines(&checks);
    assert_eq!(lines.len(), 4, "{lines:#?}");
    assert_eq!(
        lines[0],
        "  * 0000:01:00.0 Toshiba XG5 NVMe: Speed 8GT/s (ok), Width x2 (downgraded) (port: 8GT/s x2), \
         MaxPayload 128 bytes (device 256, port 256): 81.8 % payload efficiency, 89.4 % at 256 bytes, \
         MaxReadReq 512 bytes, ASPM Disabled (supported: L1)"
    );
    assert!(report::text::pcie::efficiency_note(&checks).is_some());
}

#[test]
fn rock5_itx_findings() {
    let funcs = pci::read_functions(&SysRoot::new(tree("rock-5-itx")));
    let f = pcie::findings(&pcie::check(&funcs));
    let codes: Vec<FindingCode> = f.iter().map(|f| f.code).collect();
    assert_eq!(
        codes,
        vec![
            FindingCode::PcieLinkDowngraded,
            FindingCode::PcieMaxPayloadBelowCapability,
            FindingCode::PcieMaxPayloadBelowCapability,
            FindingCode::PcieMaxPayloadBelowCapability,
            FindingCode::PcieMaxPayloadBelowCapability,
        ],
        "{f:#?}"
    );
    // The x4 SSD in the two-lane M.2 slot: the wiring, said as information.
    assert_eq!(f[0].severity, Severity::Info);
    assert!(
        f[0].message.contains("Width x2 (downgraded)"),
        "{}",
        f[0].message
    );
    let sata = &f[2].message;
    assert!(
        sata.starts_with("PCIe 0001:11:00.0 (ASMedia ASM1164 Serial ATA AHCI)"),
        "{sata}"
    );
    assert!(
        sata.contains("81.8 % of the link carries data (128/(128+26)×128/130)"),
        "{sata}"
    );
    assert!(
        sata.contains("89.4 % at 256 bytes (256/(256+26)×128/130)"),
        "{sata}"
    );
    // Gen2 links: 8b/10b.
    assert!(
        f[3].message.contains("66.5 %") && f[3].message.contains("72.6 %"),
        "{}",
        f[3].message
    );
}

#[test]
fn nas_nic_capable_of_512_is_limited_by_its_port() {
    let funcs = pci::read_functions(&SysRoot::new(tree("rock-5-itx-nas")));
    let checks = pcie::check(&funcs);
    let nic = checks.iter().find(|c| c.address == "0000:01:00.0").unwrap();
    assert_eq!(
        nic.label,
        "Aquantia AQC107 NBase-T/IEEE 802.3bz Ethernet [AQtion]"
    );
    let p = nic.payload.as_ref().unwrap();
    assert_eq!(
        (p.supported_bytes, p.port_supported_bytes, p.possible_bytes),
        (512, Some(256), 256)
    );
    let f = pcie::findings(&checks);
    let msg = &f
        .iter()
        .find(|f| {
            f.code == FindingCode::PcieMaxPayloadBelowCapability
                && f.message.contains("0000:01:00.0")
        })
        .unwrap()
        .message;
    assert!(
        msg.contains("supports 512 and the ports above it 256"),
        "{msg}"
    );
    assert!(
        msg.contains("81.8 %") && msg.contains("89.4 % at 256 bytes"),
        "{msg}"
    );
}

/// Set MaxPayload of every config file in a tree to 256 (what pci=pcie_bus_perf does
/// here), returning the copy.
fn with_payload_256(name: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    copy_tree(&tree(name), d.path());
    let root = SysRoot::new(d.path());
    for a in pci::list_functions(&root) {
        let dir = root.resolve(format!("/sys/bus/pci/devices/{a}")).unwrap();
        let path = d.path().join(dir.strip_prefix("/").unwrap()).join("config");
        let mut b = fs::read(&path).unwrap();
        let at = pci::find_capability(&b, 0x10).unwrap();
        let ctl = u16::from_le_bytes([b[at + 8], b[at + 9]]);
        let ctl = (ctl & !(0x7 << 5)) | (1 << 5);
        b[at + 8..at + 10].copy_from_slice(&ctl.to_le_bytes());
        fs::write(&path, b).unwrap();
    }
    d
}

#[test]
fn clean_trees_give_no_pcie_finding() {
    let d = with_payload_256("rock-5-itx-nas");
    let funcs = pci::read_functions(&SysRoot::new(d.path()));
    let f = pcie::findings(&pcie::check(&funcs));
    // Only the AQC107's x2-of-x4 slot remains, as information.
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(
        (f[0].code, f[0].severity),
        (FindingCode::PcieLinkDowngraded, Severity::Info)
    );
    // Boards without PCIe (the fixture sysroots carry no /sys/bus/pci): nothing at all.
    for b in crate::common::BOARDS {
        let funcs = pci::read_functions(&SysRoot::new(crate::common::sysroot(b)));
        assert!(pcie::findings(&pcie::check(&funcs)).is_empty(), "{b}");
    }
}

#[test]
fn garbage_or_short_config_space_is_na() {
    let d = tempfile::tempdir().unwrap();
    copy_tree(&tree("rock-5-itx"), d.path());
    let root = SysRoot::new(d.path());
    let garbage: [&[u8]; 4] = [b"", &[0xff; 4096], b"not a config space\n", &[0x10; 64]];
    for (i, a) in pci::list_functions(&root).iter().enumerate() {
        let dir = root.resolve(format!("/sys/bus/pci/devices/{a}")).unwrap();
        let path = d.path().join(dir.strip_prefix("/").unwrap()).join("config");
        let orig = fs::read(&path).unwrap();
        // One file cut to the 64 bytes a non-root read returns, the others garbage.
        let bytes: Vec<u8> = if i == 0 {
            orig[..64].to_vec()
        } else {
            garbage[i % 4].to_vec()
        };
        fs::write(&path, bytes).unwrap();
    }
    let funcs = pci::read_functions(&root);
    assert_eq!(funcs.len(), 8);
    assert!(funcs.iter().all(|f| f.pcie.is_none()));
    let checks = pcie::check(&funcs);
    assert!(pcie::findings(&checks).is_empty());
    let lines = report::text::pcie::check_lines(&checks);
    assert!(!lines.is_empty());
    assert!(
        lines.iter().all(|l| l.contains("PCIe capability n/a")),
        "{lines:#?}"
    );
    assert_eq!(report::text::pcie::efficiency_note(&checks), None);
    // The sysfs link attributes still give sbc-bench's lines.
    assert_eq!(report::text::pcie::controller_lines(&funcs).len(), 3);
}

fn placements(root: &SysRoot) -> (Vec<irq_placement::IrqPlacement>, Vec<u32>) {
    let ints = irq::read_interrupts(root).unwrap();
    let aff = irq::read_affinities(root, &ints);
    let ifaces = net::read_all(root);
    (irq_placement::placement(&ints, &aff, &ifaces), ints.cpus)
}

#[test]
fn rock5_itx_irq_placement() {
    let (p, cpus) = placements(&SysRoot::new(tree("rock-5-itx")));
    let lines = report::text::pcie::irq_lines(&p);
    assert_eq!(
        lines,
        vec![
            "  * IRQs of enP3p49s0 (NIC, 2500 Mb/s): 207 on cpu0 (183342), 208 on cpu0 (51), 209 on cpu0 (2210); RPS off, XPS off",
            // seeds/rock-5-itx-preview.txt, /proc/interrupts after the iperf3 RX test.
            "  * IRQs of enP4p65s0 (NIC, 2500 Mb/s): 224 on cpu6 (85905), 240 on cpu6 (51853), 242 on cpu0 (112560); RPS off, XPS off",
            "  * IRQs of mmc0 (storage): 71 on cpu0 (16210)",
            "  * IRQs of ahci[0001:11:00.0] (storage): 174 on cpu0 (71234)",
            "  * IRQs of xhci-hcd:usb1 (USB): 76 on cpu0 (9201)",
            "  * IRQs of xhci-hcd:usb3 (USB): 77 on cpu0 (340)",
        ]
    );
    let f = irq_placement::findings(&p, &cpus);
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].code, FindingCode::IrqNicOneCore);
    assert!(
        f[0].message
            .starts_with("enP3p49s0 (2500 Mb/s): cpu0 serves all 3"),
        "{}",
        f[0].message
    );
    assert!(
        f[0].message
            .contains("echo fe > /sys/class/net/enP3p49s0/queues/rx-0/rps_cpus"),
        "{}",
        f[0].message
    );
}

#[test]
fn nanopi_r5s_tuned_irqs_give_no_finding() {
    // FriendlyWrt's tuning (net fixture): each 2.5GbE NIC's IRQs on one core, RPS on
    // the others — the right way, so nothing to say.
    let root =
        SysRoot::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/net/nanopi-r5s"));
    let (p, cpus) = placements(&root);
    assert!(
        p.iter()
            .any(|p| p.device == "eth1" && p.serving() == vec![2])
    );
    assert!(irq_placement::findings(&p, &cpus).is_empty());
}

#[test]
fn governor_advice_over_the_trees() {
    let root = SysRoot::new(tree("rock-5-itx"));
    let g = read_governors(&root, &cpufreq::read_policies(&root));
    let f = governor_advice::advise(&g);
    let codes: Vec<FindingCode> = f.iter().map(|f| f.code).collect();
    assert_eq!(
        codes,
        vec![FindingCode::GovernorCpufreqIo, FindingCode::GovernorDmcIo]
    );
    assert!(
        f[0].message
            .contains("/sys/devices/system/cpu/cpufreq/policy6/scaling_governor")
    );
    assert!(
        f[1].message
            .contains("write performance to /sys/class/devfreq/dmc/governor")
    );
    // The NAS after tuning: ondemand with io_is_busy=1, dmc performance.
    let root = SysRoot::new(tree("rock-5-itx-nas"));
    let g = read_governors(&root, &cpufreq::read_policies(&root));
    assert_eq!(g[0].io_is_busy, Some(true));
    assert!(governor_advice::advise(&g).is_empty());
}
