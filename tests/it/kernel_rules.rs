//! The kernel rules over real boards: release strings, SoC guesses and kernel-log PVTM lines
//! taken from the headers of corpus logs (`../shared/corpus/sbc-bench/logs/<id>.txt`),
//! judged against the built-in release table as on its own date (2026-08-22), with what
//! sbc-bench's `CheckKernelVersion` says for each.

use chrono::NaiveDate;
use sbc_bench::diagnose::kernel::{
    KernelAssessment, KernelFacts, Skip, Standing, assess, built_in_table,
};

/// One line: skip reason, or the standing, the vendor warning and the series' end.
fn describe(a: &KernelAssessment) -> String {
    if let Some(s) = &a.skip {
        return match s {
            Skip::Unparsable => "skip unparsable".into(),
            Skip::ReleaseCandidate => "skip rc".into(),
            Skip::Distro { scheme } => format!("skip distro {}", scheme.label()),
            Skip::X86 => "skip x86".into(),
            Skip::VirtualMachine { virt } => format!("skip vm {virt}"),
            Skip::NewestSeries { newest } => format!("skip newest {newest}"),
        };
    }
    let mut s = match &a.standing {
        Some(Standing::NotCovered) => "not covered".to_string(),
        Some(Standing::Latest { eol_reached, .. }) => {
            format!("latest{}", if *eol_reached { ", EOL" } else { "" })
        }
        Some(Standing::Behind {
            behind,
            eol_reached,
            lag,
            ..
        }) => format!(
            "behind {behind} {lag:?}{}",
            if *eol_reached { ", EOL" } else { "" }
        ),
        Some(Standing::Ahead { eol_reached, .. }) => {
            format!("ahead{}", if *eol_reached { ", EOL" } else { "" })
        }
        None => "?".into(),
    };
    if let Some(b) = &a.bsp {
        s.push_str(&format!(" + BSP {:?}", b.vendor));
    }
    if let Some(e) = &a.series_end {
        s.push_str(&format!(" + end {}", e.series));
    }
    s
}

/// Worth knowing, all as sbc-bench judges them: `1Ga0KBn`/`4Kau`/`4sNe` (Armbian's mainline
/// 6.1 on Rockchip) get the Rockchip BSP warning, since every 6.1 on a Rockchip does;
/// `8g-p`/`c9ZIGh` (`6.1.84-8-rk2410`) look like Debian numbering and are skipped; `4Ebd`/
/// `4vgu` (Jetson Orin NX) get no Nvidia warning, which only names the AGX Orin (our own
/// guess names both `Nvidia Orin (Tegra234)` and warns for both, see docs/FIDELITY.md);
/// `3MiR`/`8ENy` (`5.10.0-…`) are 150balbes-style versions sbc-bench stays silent on.
///
/// (corpus log, `uname -r`, `uname -m`, virtualisation, SoC guess as the log shows it,
/// whether the log holds Rockchip's `cpu cpu0: pvtm…` lines, judgement).
type Row = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    bool,
    &'static str,
);

#[rustfmt::skip]
const ROWS: &[Row] = &[
    ("1Ga0KBn", "6.1.63-current-rockchip64", "aarch64", None, Some("Rockchip RK3328"), false, "behind 120 Lots + BSP RockchipGki"),
    ("1ULtUe", "6.6.20+rpt-rpi-2712", "aarch64", None, Some("BCM2712"), false, "behind 132 Lots"),
    ("1Xuf1O1", "5.10.160-rockchip", "aarch64", None, Some("Rockchip RK3588/RK3588s (35881000)"), true, "behind 105 Lots + BSP RockchipGki"),
    ("3Lir", "4.4.213-rockchip", "armv7l", None, None, false, "not covered + end 4.4"),
    ("3M9F", "4.4.194-rk322x", "armv7l", None, None, false, "not covered + end 4.4"),
    ("3MGN", "5.10.63+", "armv6l", None, Some("BCM2835"), false, "behind 202 Lots"),
    ("3MQJ", "5.10.60-sunxi64", "aarch64", None, Some("Allwinner A64 or https://tinyurl.com/yyf3d7fg"), false, "behind 205 Lots + BSP Allwinner"),
    ("3MQV", "5.10.60-sunxi", "armv7l", None, Some("Allwinner H3/H2+"), false, "behind 205 Lots + BSP Allwinner"),
    ("3MiR", "5.10.0-aml-s812", "armv7l", None, None, false, "behind 265 Lots"),
    ("3N2z", "4.19.62-sunxi", "armv7l", None, Some("Allwinner H3/H2+"), false, "behind 263 Lots, EOL"),
    ("3N6Q", "5.10.81-meson64", "aarch64", None, Some("Amlogic S905"), false, "behind 184 Lots"),
    ("3OKN", "4.9.253-tegra", "aarch64", None, Some("Nvidia Jetson Nano"), false, "behind 84 Lots, EOL + BSP Nvidia"),
    ("3Owk", "5.16.0", "aarch64", None, Some("2 x ThunderX CN8890"), false, "behind 20 Many, EOL"),
    ("3PlT", "5.10.69-10-amlogic-g617a45dd0fce", "aarch64", None, Some("Amlogic S905X2/S905Y2/S905D2/T962X2"), false, "behind 196 Lots"),
    ("3QLN", "5.1.0-aml-s905", "aarch64", None, Some("Amlogic Meson GXL (S905X) Revision 21:c (84:2)"), false, "not covered"),
    ("3R3N", "5.10.0-aml-s812", "armv7l", None, Some("Amlogic Meson8m2 (S812) RevA (1d - 0:74E) detected"), false, "behind 265 Lots"),
    ("3Rsg", "4.19.219-station-p2", "aarch64", None, Some("Rockchip RK3568 (35681000)"), false, "behind 106 Lots, EOL + BSP Rockchip"),
    ("3Sl9", "5.4.18-35-generic", "aarch64", None, None, false, "skip distro Debian/Ubuntu"),
    ("3UXa", "5.15.32", "aarch64", None, Some("Rockchip RK3566 or RK3568"), false, "behind 184 Lots"),
    ("3VME", "5.15.0-1005-raspi", "armv7l", None, Some("BCM2711B0"), false, "skip distro Debian/Ubuntu"),
    ("3Wvv", "5.4.125", "aarch64", None, Some("Amlogic A311D2"), false, "behind 177 Lots, EOL + BSP Amlogic"),
    ("3XTA", "5.10.66-rockchip-5.10", "aarch64", None, Some("Rockchip RK3588/RK3588s"), false, "behind 199 Lots + BSP RockchipGki"),
    ("3XzI", "5.10.66", "aarch64", None, Some("Rockchip RK3588 (35880000)"), false, "behind 199 Lots + BSP RockchipGki"),
    ("3Y4f", "5.16.16-200.fc35.aarch64", "aarch64", None, None, false, "skip distro Fedora/Rocky Linux"),
    ("3YWp", "4.9.253-tegra", "aarch64", None, Some("Nvidia AGX Xavier"), false, "behind 84 Lots, EOL + BSP Nvidia"),
    ("40BJ", "5.4.61", "riscv64", None, Some("Allwinner D1"), false, "behind 241 Lots, EOL + BSP Allwinner"),
    ("4132", "5.15.48-imx6", "armv7l", None, Some("NXP i.MX6 Quad"), false, "behind 168 Lots"),
    ("41BH", "5.10.66-11-rockchip-geee2b32138fd", "aarch64", None, Some("Rockchip RK3588 (35880000)"), false, "behind 199 Lots + BSP RockchipGki"),
    ("41Kb", "5.4.0-120-generic", "x86_64", None, None, false, "skip distro Debian/Ubuntu"),
    ("41ML", "5.14.0-rc2-aml-s812", "armv7l", None, Some("Amlogic Meson8 (S802) RevC (19 - 0:27ED)"), false, "skip rc"),
    ("41Qa", "4.17.0", "riscv64", None, Some("Kendryte K510"), false, "not covered"),
    ("446h", "5.19.0-rc5-arm64", "aarch64", None, Some("Phytium D2000"), false, "skip rc"),
    ("461n", "4.19.0-13-686-pae", "i686", None, None, false, "behind 325 Lots, EOL"),
    ("46hs", "3.14.0-483125", "armv7l", None, Some("Not able to guess since these CPU cores are offline: 1-2"), false, "not covered + end 3.14"),
    ("49kx", "4.19.125-perf", "aarch64", None, Some("Qualcomm Snapdragon 865 / QRB5165"), false, "behind 200 Lots, EOL"),
    ("4Ebd", "5.10.120-tegra", "aarch64", None, Some("Nvidia Jetson Orin NX"), false, "behind 145 Lots"),
    ("4Hd0", "6.1.31-sun50iw9", "aarch64", None, Some("Allwinner H618"), false, "behind 152 Lots"),
    ("4HdL", "5.15.0-79-generic", "aarch64", Some("kvm"), Some("Ampere Altra / guessing impossible since running in kvm"), false, "skip distro Debian/Ubuntu"),
    ("4I1w", "6.1.0-rpi4-rpi-2712", "aarch64", None, Some("BCM2712"), false, "skip distro Raspberry Pi OS"),
    ("4I93", "5.10.160-rk35xx-flippy-2309a", "aarch64", None, Some("Rockchip RK3528 (35280000)"), true, "behind 105 Lots + BSP RockchipGki"),
    ("4IT1", "4.4.159", "aarch64", None, Some("Rockchip PX30/PX30S"), false, "not covered + BSP Rockchip + end 4.4"),
    ("4K7E", "5.15.0", "riscv64", None, Some("StarFive JH7110"), false, "behind 216 Lots + BSP StarFive"),
    ("4KDv", "5.10.160-rockchip-rk356x", "aarch64", None, Some("Rockchip RK3566 (35662000)"), true, "behind 105 Lots + BSP RockchipGki"),
    ("4Kau", "6.1.50-current-rockchip64", "aarch64", None, Some("Rockchip RK3399"), false, "behind 133 Lots + BSP RockchipGki"),
    ("4Kvg", "5.15.0-1018-mtk", "aarch64", None, Some("MediaTek Genio 1200"), false, "behind 216 Lots + BSP MediaTek"),
    ("4L4k", "5.10.160-15-rk356x", "aarch64", None, Some("Rockchip RK3566 (35662000)"), true, "behind 105 Lots + BSP RockchipGki"),
    ("4L4u", "5.10.160", "aarch64", None, Some("Rockchip RK3568 (35682000)"), true, "behind 105 Lots + BSP RockchipGki"),
    ("4Lyf", "6.6.1-jan2chromedts", "aarch64", None, Some("Qualcomm Snapdragon 7c"), false, "behind 151 Lots"),
    ("4M8N", "5.4.125", "aarch64", None, Some("Allwinner H616/H313/H618"), false, "behind 177 Lots, EOL + BSP Allwinner"),
    ("4MBc", "6.1.47-current-sunxi64", "aarch64", None, Some("Allwinner H6 (SID: 82c00001)"), false, "behind 136 Lots"),
    ("4a5U", "5.10.66", "aarch64", None, Some("Rockchip RK3588 (35880000)"), true, "behind 199 Lots + BSP RockchipGki"),
    ("4ax9", "5.10.65-tegra", "aarch64", None, Some("Nvidia Jetson AGX Orin"), false, "behind 200 Lots + BSP Nvidia"),
    ("4bbv", "5.4.125", "aarch64", None, Some("Amlogic S805X2/S905Y4/S905W2"), false, "behind 177 Lots, EOL + BSP Amlogic"),
    ("4cHh", "5.4.125", "aarch64", None, Some("Amlogic Meson T7 (A311D2) Revision 36:b (1:3)"), false, "behind 177 Lots, EOL + BSP Amlogic"),
    ("4d1U", "5.15.72-mvebu", "armv7l", None, Some("Marvell Armada 375/38x"), false, "behind 144 Lots"),
    ("4ebH", "4.9.140-tegra", "aarch64", None, Some("Nvidia Tegra Xavier"), false, "behind 197 Lots, EOL + BSP Nvidia"),
    ("4hx0", "5.15.5-lts-next+gc1084c2773fc", "aarch64", None, Some("NXP i.MX8M"), false, "behind 211 Lots"),
    ("4ju5", "5.10.35-00045-g8510b2d4996d", "aarch64", None, Some("NXP LS1028A"), false, "behind 230 Lots"),
    ("4kmM", "6.0.10-sunxi", "armv7l", None, Some("Allwinner R40/V40"), false, "behind 9 Some, EOL"),
    ("4o1A", "6.0.13-meson64", "aarch64", None, Some("Amlogic Meson G12B (A311D) Revision 29:b (10:2)"), false, "behind 6 Some, EOL"),
    ("4ozG", "5.10.12-rockchip64", "aarch64", None, Some("Rockchip RK3399"), false, "behind 253 Lots"),
    ("4pBf", "5.15.0-starfive", "riscv64", None, Some("StarFive JH7110"), false, "behind 216 Lots + BSP StarFive"),
    ("4pC7", "5.4.151-odroidxu4", "armv7l", None, Some("Exynos 5422"), false, "behind 151 Lots, EOL + BSP Samsung"),
    ("4pCK", "5.10.63-rockchip64", "aarch64", None, Some("Rockchip RK3399"), false, "behind 202 Lots"),
    ("4pMk", "4.14.180-s5p6818", "aarch64", None, Some("Nexell S5P6818"), false, "behind 156 Lots, EOL + BSP Nexell"),
    ("4pgq", "5.10.136-android12-9-25884040-abS906BXXU3CWAI", "aarch64", Some("proot"), Some("Qualcomm Snapdragon 8 Gen1 / guess flawed since running in proot"), false, "behind 129 Lots + BSP Qualcomm"),
    ("4pzf", "4.19.62-sunxi", "armv7l", None, Some("Allwinner H3"), false, "behind 263 Lots, EOL"),
    ("4qJG", "6.2.0-rc1-rockchip-rk3588", "aarch64", None, Some("Rockchip RK3588/RK3588s"), false, "skip rc"),
    ("4rWn", "6.1.11-meson64", "aarch64", None, Some("Amlogic Meson G12B (S922X) Revision 29:c (40:2)"), false, "behind 172 Lots"),
    ("4sNe", "6.1.11-rockchip64", "aarch64", None, Some("Rockchip RK3308"), false, "behind 172 Lots + BSP RockchipGki"),
    ("4sjK", "5.19.0-38-generic", "aarch64", Some("apple-hypervisor v1"), Some("Virtualized Apple M1 variant / guess flawed since running in apple-hypervisor v1"), false, "skip distro Debian/Ubuntu"),
    ("4tjq", "5.15.0-00002-g7fcebc6388b7-dirty", "riscv64", None, Some("StarFive JH7110"), false, "behind 216 Lots + BSP StarFive"),
    ("4vgu", "5.10.104-tegra", "aarch64", None, Some("Nvidia Jetson Orin NX"), false, "behind 161 Lots"),
    ("4wYE", "6.1.18", "riscv64", None, Some("Sophon SG2042"), false, "behind 165 Lots"),
    ("4x8j", "5.10.113-gbb4691fe5572", "riscv64", None, Some("T-Head TH1520"), false, "behind 152 Lots + BSP THead"),
    ("4yFl", "5.4.180", "aarch64", None, Some("Rockchip RK3588/RK3588s"), false, "behind 122 Lots, EOL"),
    ("8-NK", "6.6.69-v8-16k+", "aarch64", None, Some("BCM2712"), false, "behind 83 Lots"),
    ("84GG", "6.6.84-arm64-desktop-hwe", "aarch64", None, Some("Phytium D3000/8"), false, "behind 68 Lots"),
    ("87lq", "5.15.148-tegra", "aarch64", None, Some("Nvidia Jetson Orin NX"), false, "behind 68 Lots"),
    ("8ENy", "5.10.0-odroid-arm64", "aarch64", None, Some("Rockchip RK3588S2 (35881000 / 35 88 12 fe 53 41  32 5a 58 31 00 00 00 00)"), true, "behind 265 Lots"),
    ("8PA8", "6.6.21-9-premier", "riscv64", None, Some("Eswin EIC7700X"), false, "skip distro Debian/Ubuntu"),
    ("8Qwk", "6.1.75", "aarch64", None, Some("Rockchip RK3576 (35760000 / 35 76 22 00 ff 00  01 01 41 33 50 52 34 00)"), true, "behind 108 Lots + BSP RockchipGki"),
    ("8SWL", "6.14-rc6-0-qcom-x1e", "aarch64", None, Some("Qualcomm Snapdragon X Elite"), false, "skip rc"),
    ("8WlQ", "6.6.38", "aarch64", Some("vm-other"), Some("Qualcomm QCM6490/QCS6490 / guessing impossible since running in vm-other"), false, "behind 114 Lots"),
    ("8g-p", "6.1.84-8-rk2410-nocsf", "aarch64", None, Some("Rockchip RK3576 (35760000 / 35 76 22 00 ff 00  01 01 41 33 50 52 33 00)"), true, "skip distro Debian/Ubuntu"),
    ("8gl6", "5.10.4-20240527-2+", "riscv64", None, None, false, "behind 261 Lots"),
    ("8hUb", "6.17.0-0.rc0.250804gd2eedaa3909b.10.fc43.x86_64", "x86_64", None, None, false, "skip distro Fedora/Rocky Linux"),
    ("C6zgdP", "5.10.110-33-rockchip", "aarch64", None, Some("Rockchip RK3588s (35880000 / 35 88 12 fe 33 41  32 38 4b 44 00 00 00 00)"), true, "behind 155 Lots + BSP RockchipGki"),
    ("Kojb", "5.15.147", "aarch64", None, None, false, "behind 69 Lots"),
    ("XUSc", "5.4.217-bm1684-g18c6a7c915a2-dirty", "aarch64", None, None, false, "behind 85 Lots, EOL"),
    ("Xd38a", "7.1.0-rc1-gad296806eadf", "aarch64", None, Some("Rockchip RK3576 / 35 76 22 00 ff 00  01 01 4e 59 31 37 48 00"), false, "skip rc"),
    ("Xv06", "6.1.15", "riscv64", None, Some("SpacemiT K1"), false, "behind 168 Lots + BSP SpacemiT"),
    ("c9ZIGh", "6.1.43-7-rk2312", "aarch64", None, Some("Rockchip RK3582 (35821000 / 35 82 12 fe 21 41  32 47 41 31 00 00 00 00)"), true, "skip distro Debian/Ubuntu"),
    ("fUCnrY", "5.10.113+", "riscv64", None, Some("T-Head TH1520"), false, "behind 152 Lots + BSP THead"),
    ("fcm1253", "6.14.0-1013-nvidia", "aarch64", None, None, false, "behind 11 Some, EOL"),
    ("frdzAn", "6.6.20+rpt-rpi-2712", "aarch64", None, Some("BCM2712"), false, "behind 132 Lots"),
    ("rca7s", "6.6.98-vendor-sun60iw2", "aarch64", None, Some("Allwinner A733"), false, "behind 54 Lots + BSP Allwinner"),
    ("uHzXI6", "6.12.5-starfive", "riscv64", None, Some("StarFive JH7110"), false, "behind 99 Lots"),
];

#[test]
fn kernel_rules_over_corpus_boards() {
    let table = built_in_table().unwrap();
    let day = NaiveDate::from_ymd_opt(2026, 8, 22).unwrap();
    let pvtm_log = vec![
        "cpu cpu0: pvtm-volt-sel=2".to_string(),
        "cpu cpu4: pvtm=1711".to_string(),
    ];
    let quiet_log = vec!["Booting Linux on physical CPU 0x0000000000 [0x412fd050]".to_string()];
    assert!(ROWS.len() >= 40);
    let mut wrong = Vec::new();
    for &(log, release, machine, virt, soc, pvtm, expect) in ROWS {
        let a = assess(
            &KernelFacts {
                release,
                machine: Some(machine),
                virt,
                soc,
                kernel_log: Some(if pvtm { &pvtm_log } else { &quiet_log }),
            },
            &table,
            day,
        );
        let got = describe(&a);
        if got != expect {
            wrong.push(format!(
                "{log} {release} ({soc:?}): got {got:?}, want {expect:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}
