//! `sbc-bench info` over the fixture sysroots: text and JSON snapshots, key facts checked
//! explicitly, and garbage-in tests (no panics, honest `n/a`).

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use crate::common::{BOARDS, bin, sysroot as fixture};
use sbc_bench::report;
use sbc_bench::sys::board::{self, Distro, HostFacts};
use sbc_bench::sys::discover::SystemInfo;
use sbc_bench::sys::root::SysRoot;
use sbc_bench::sys::{cpufreq, memory, storage, thermal};

fn info_text(board: &str) -> String {
    let out = bin()
        .arg("--sysroot")
        .arg(fixture(board))
        .arg("info")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("utf-8")
}

fn info_json(board: &str) -> Value {
    let out = bin()
        .arg("--sysroot")
        .arg(fixture(board))
        .args(["info", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("valid JSON")
}

#[test]
fn snapshots_of_every_board() {
    for b in BOARDS {
        insta::assert_snapshot!(format!("info_text_{b}"), info_text(b));
        let json = serde_json::to_string_pretty(&info_json(b)).expect("json");
        insta::assert_snapshot!(format!("info_json_{b}"), json);
    }
}

#[test]
fn json_has_the_documented_per_cpu_fields_everywhere() {
    for b in BOARDS {
        let j = info_json(b);
        assert_eq!(j["schema"], "sbc-bench-info", "{b}");
        assert_eq!(j["schema_version"], 1, "{b}");
        assert!(
            j["soc"].get("guess").is_some(),
            "{b}: soc.guess present (null when unknown)"
        );
        let cpus = j["cpus"].as_array().expect("cpus");
        assert!(!cpus.is_empty(), "{b}");
        for c in cpus {
            for k in [
                "cpu",
                "core_type",
                "stepping",
                "cluster",
                "policy",
                "min_mhz",
                "max_mhz",
            ] {
                assert!(c.get(k).is_some(), "{b}: cpu field {k}");
            }
        }
    }
}

fn len(v: &Value) -> usize {
    v.as_array().map_or(0, Vec::len)
}

#[test]
fn rock_5b_rk3588() {
    let j = info_json("rock-5b");
    assert_eq!(j["device"]["name"], "Radxa ROCK 5B");
    assert_eq!(len(&j["clusters"]), 3);
    assert_eq!(len(&j["cpufreq"]), 3);
    assert_eq!(len(&j["cpufreq"][0]["opps_khz"]), 8);
    assert_eq!(len(&j["cpufreq"][1]["opps_khz"]), 11);
    assert_eq!(j["cpus"][7]["max_mhz"], 2400);
    assert_eq!(j["sensors"]["thermal_source"]["name"], "soc-thermal");
    assert_eq!(len(&j["sensors"]["thermal_zones"]), 7);
    assert_eq!(j["devfreq"][0]["name"], "dmc");
    assert_eq!(j["devfreq"][0]["governor"], "dmc_ondemand");
    assert_eq!(len(&j["devfreq"][0]["available_frequencies_hz"]), 4);
    let volts = j["sensors"]["power"]["dc_in_volts"]
        .as_f64()
        .expect("DC-in");
    assert!((volts - 9.0).abs() < 0.01, "{volts}");
    assert_eq!(len(&j["memory"]["swaps"]), 0);
    assert!(j["virtualization"]["vm"].is_null());
    assert_eq!(j["userland"]["arch"], "arm64");
    // The SARADC reading agrees with the 9 V USB-PD contract tcpm reports on this board.
    let tcpm = j["sensors"]["hwmon"]
        .as_array()
        .and_then(|h| h.iter().find(|c| c["name"] == "tcpm_source_psy_4_0022"))
        .map(|c| c["inputs"][0]["volts"].as_f64())
        .expect("tcpm hwmon")
        .expect("tcpm volts");
    assert!((volts - tcpm).abs() < 0.05, "{volts} vs {tcpm}");
    // The Rockchip OTP names the exact chip, as sbc-bench reads it.
    assert_eq!(j["soc"]["guess"], "Rockchip RK3588");
    assert_eq!(j["soc"]["basis"][0], "Rockchip OTP/eFuse chip ID");
    let text = info_text("rock-5b");
    // sbc-bench's layout of the OTP row without the kernel's chip ID (`Rockchip RK3588 /
    // <bytes 2-15 as hexdump -C spaces them>`).
    assert!(text.contains(
        "\nRockchip RK3588 / 35 88 12 fe 21 41  32 38 4b 44 00 00 00 00, Kernel: aarch64, Userland: arm64\n"
    ));
    assert!(
        text.contains(
            "\nSoC guess: Rockchip RK3588 / 35 88 12 fe 21 41  32 38 4b 44 00 00 00 00\n"
        )
    );
    assert!(text.contains("  DMC gov: dmc_ondemand (upthreshold: 40, downdifferential: 20)\n"));
    assert!(text.contains("DC-in: 9.00 V"));
    assert!(text.contains(
        "tcpm_source_psy_4_0022-i2c-4-22\nin0:           9.00 V  (min =  +9.00 V, max =  +9.00 V)\ncurr1:         3.00 A  (max =  +3.00 A)\n"
    ));
}

#[test]
fn nanopi_r5s_rk3568() {
    let j = info_json("nanopi-r5s");
    assert_eq!(len(&j["clusters"]), 1);
    assert_eq!(j["cpus"][0]["max_mhz"], 1992);
    assert_eq!(len(&j["cpufreq"][0]["opps_khz"]), 8);
    assert_eq!(j["cpufreq"][0]["governor"], "schedutil");
    assert_eq!(len(&j["devfreq"]), 4);
    assert_eq!(j["sensors"]["thermal_source"]["name"], "soc-thermal");
    assert_eq!(j["kernel"]["config"][0], "CONFIG_HZ=100");
    // As in the log's "Status of performance related policies" section.
    assert!(info_text("nanopi-r5s").contains(
        "Status of performance related policies found below /sys:\n\n  * /sys/devices/platform/fde60000.gpu/power_policy: [coarse_demand] always_on\n  * /sys/module/pcie_aspm/parameters/policy: default [performance] powersave powersupersave\n"
    ));
    assert_eq!(j["policies"][1]["selected"], "performance");
    assert!(info_text("nanopi-r5s").contains(
        "  * fde60000.gpu: simple_ondemand / 200 MHz (rknpu_ondemand vdec2_ondemand venc_ondemand userspace powersave performance simple_ondemand / 200 300 400 600 700 800)\n"
    ));
}

#[test]
fn rpi4_armhf_on_32bit_kernel_with_swap_file_and_zram() {
    let j = info_json("rpi4");
    assert_eq!(j["kernel"]["machine"], "armv7l");
    assert_eq!(j["userland"]["arch"], "armhf");
    assert_eq!(j["kernel"]["config_source"], "/proc/config.gz");
    let swaps = &j["memory"]["swaps"];
    assert_eq!(swaps[0]["swap_kind"], "file");
    assert_eq!(swaps[0]["backing"]["device"], "/dev/mmcblk0p2");
    assert_eq!(swaps[0]["backing"]["storage"], "sd");
    assert_eq!(swaps[1]["swap_kind"], "zram");
    assert_eq!(j["sensors"]["power"]["rpi_undervoltage"], false);
    // BCM2711 stepping from the eMMC2 bus DMA window, as sbc-bench reads it (log 4pzj:
    // `SoC guess: BCM2711B0`).
    assert_eq!(j["soc"]["detail"], "Rev B0");
    let text = info_text("rpi4");
    assert!(text.contains("\nBroadcom BCM2711 (Rev B0), Kernel: armv7l, Userland: armhf\n"));
    assert!(text.contains("\nSoC guess: Broadcom BCM2711 (Rev B0)\n"));
    // The line sbc-bench printed for this swap file in corpus logs.
    assert!(text.contains(
        "  * /var/swap on /dev/mmcblk0p2: 100.0M (0K used) on ultra slow SD card storage\n"
    ));
}

#[test]
fn rpi5_16k_pages() {
    let j = info_json("rpi5");
    assert_eq!(j["page_size_bytes"], 16384);
    assert_eq!(len(&j["cpufreq"][0]["opps_khz"]), 10);
    assert_eq!(j["sensors"]["thermal_source"]["name"], "cpu-thermal");
    assert!(j["sensors"]["power"]["dc_in"].is_null());
    let text = info_text("rpi5");
    assert!(text.contains("Page size: 16kB\n   Kernel: 6.6.69-v8-16k+/aarch64\n"));
    assert!(text.contains(
        "  * /var/swap on /dev/mmcblk0p2: 512.0M (249.5M used) on ultra slow SD card storage\n"
    ));
    assert!(text.contains("rp1_adc-isa-0000\nin1:           2.04 V  \n"));
}

#[test]
fn odroid_n2plus_armbian() {
    let j = info_json("odroid-n2plus");
    assert_eq!(len(&j["cpufreq"]), 2);
    assert_eq!(len(&j["cpufreq"][0]["opps_khz"]), 9);
    assert_eq!(len(&j["cpufreq"][1]["opps_khz"]), 13);
    // Armbian's soctemp link, as in the corpus log.
    assert_eq!(
        j["sensors"]["thermal_source"]["dir"],
        "/sys/class/hwmon/hwmon0/"
    );
    assert_eq!(j["memory"]["swaps"][0]["zram"]["algorithm"], "lzo-rle");
    let text = info_text("odroid-n2plus");
    assert!(text.contains(
        "Build system:   https://github.com/armbian/build, 23.02.2, Odroid N2, meson-g12b, meson64\n"
    ));
    assert!(text.contains("Thermal source: /sys/class/hwmon/hwmon0/ (cpu_thermal)\n"));
    assert!(text.contains("fan1:           0 RPM  (min =    0 RPM, max = 1600 RPM)\n"));
}

#[test]
fn orangepi_h3_with_offline_cpu() {
    let j = info_json("orangepi-pcplus");
    assert_eq!(j["kernel"]["machine"], "armv7l");
    assert_eq!(j["userland"]["arch"], "armhf");
    let online: Vec<bool> = j["cpus"]
        .as_array()
        .expect("cpus")
        .iter()
        .map(|c| c["online"].as_bool().unwrap_or(true))
        .collect();
    assert_eq!(online, [true, true, true, false]);
    assert!(info_text("orangepi-pcplus").contains("Cortex-A7 / r0p5 (offline)\n"));
}

#[test]
fn visionfive2_riscv_without_zones_or_distro() {
    let j = info_json("visionfive2");
    assert_eq!(j["userland"]["arch"], "riscv64");
    assert!(j["distro"].is_null());
    assert_eq!(j["cpus"][0]["package_id"], -1);
    assert_eq!(j["sensors"]["thermal_source"]["name"], "120e0000.tmon");
    assert!(info_text("visionfive2").contains("Distribution: n/a (no /etc/os-release)\n"));
}

/// The topology table as sbc-bench printed it for the same boards (corpus logs), rows
/// only. The `cluster` column is sbc-bench's `physical_package_id`.
#[test]
fn topology_tables_match_the_corpus_logs() {
    let rows = |board: &str| -> String {
        let t = info_text(board);
        let start = t.find(" CPU    cluster").expect("table");
        let body = &t[start..];
        body.lines()
            .skip(1)
            .take_while(|l| !l.is_empty())
            .map(|l| format!("{l}\n"))
            .collect()
    };
    // ODROID-N2+ (4rWn): A53 and A73 both in package 0.
    assert_eq!(
        rows("odroid-n2plus"),
        "  0        0        0     1000    2016   Cortex-A53 / r0p4
  1        0        0     1000    2016   Cortex-A53 / r0p4
  2        0        2     1000    2400   Cortex-A73 / r0p2
  3        0        2     1000    2400   Cortex-A73 / r0p2
  4        0        2     1000    2400   Cortex-A73 / r0p2
  5        0        2     1000    2400   Cortex-A73 / r0p2
"
    );
    // ROCK 5B (41BH): the BSP kernel's package ids 0/1/2.
    assert_eq!(
        rows("rock-5b"),
        "  0        0        0      408    1800   Cortex-A55 / r2p0
  1        0        0      408    1800   Cortex-A55 / r2p0
  2        0        0      408    1800   Cortex-A55 / r2p0
  3        0        0      408    1800   Cortex-A55 / r2p0
  4        1        4      408    2400   Cortex-A76 / r4p0
  5        1        4      408    2400   Cortex-A76 / r4p0
  6        2        6      408    2400   Cortex-A76 / r4p0
  7        2        6      408    2400   Cortex-A76 / r4p0
"
    );
    // VisionFive 2 (4pBf): package id -1. sbc-bench prints the raw `uarch`
    // (`sifive,u74-mc`); we name the core.
    assert_eq!(
        rows("visionfive2"),
        "  0       -1        0      375    1500   SiFive U74-MC
  1       -1        0      375    1500   SiFive U74-MC
  2       -1        0      375    1500   SiFive U74-MC
  3       -1        0      375    1500   SiFive U74-MC
"
    );
    // Core Ultra 9 185H (XRRi): all in package 0; we add the P/E class to the core type.
    let x = rows("x86-hybrid-meteorlake");
    assert!(x.starts_with("  0        0        0      400    4800   Redwood Cove (P-core)\n  1        0        1      400    5100   Redwood Cove (P-core)\n"), "{x}");
    assert!(x.ends_with(" 20        0       20      400    2500   Crestmont (E-core)\n 21        0       21      400    2500   Crestmont (E-core)\n"), "{x}");
    // The offline cpu3 of the Orange Pi has no topology/ directory: it repeats cpu2's id.
    assert!(
        rows("orangepi-pcplus")
            .ends_with("  3        0        0      480    1368   Cortex-A7 / r0p5 (offline)\n")
    );
}

/// Kernel configuration lines in `sort -V` order, as the logs show them.
#[test]
fn kernel_config_sorted_like_the_logs() {
    assert!(info_text("odroid-n2plus").contains(
        "           CONFIG_HZ_250=y\n           CONFIG_PREEMPTION=y\n           CONFIG_PREEMPT=y\n           CONFIG_PREEMPT_BUILD=y\n"
    ));
}

#[test]
fn odroid_soc_bus_device() {
    let j = info_json("odroid-n2plus");
    assert_eq!(j["soc0"]["soc_id"], "G12B (S922X)");
    assert_eq!(j["soc"]["guess"], "Amlogic S922X");
    assert!(j["cpu_name"].is_null());
    // sbc-bench -m puts /sys/devices/soc0 before the guess.
    assert!(info_text("odroid-n2plus").contains(
        "\nAmlogic Meson G12B (S922X) rev 29:c - 40:2, Amlogic S922X (revision 29:c - 40:2), Kernel: aarch64, Userland: arm64\n"
    ));
}

#[test]
fn rpi4_zram_as_the_log_summary() {
    // Corpus log 4pzj, "Swap configuration" of its summary, byte for byte.
    assert!(info_text("rpi4").contains(
        "  * /dev/zram0: 750M (114.9M used, lzo-rle, 4 streams, 114.6M data, 46.4M compressed, 65M total)\n"
    ));
}

/// On x86 sbc-bench shows the processor (`X86CPUName`) where other machines show the SoC,
/// and prints no `SoC guess:` line.
#[test]
fn x86_names_the_processor_not_a_soc() {
    let text = info_text("x86-hybrid-meteorlake");
    // Bare metal with DMI: the device line names the processor too, as sbc-bench's header.
    assert!(
        text.starts_with("GEEKOM GT1 Mega / Ultra 9 185H\n"),
        "{text}"
    );
    assert!(
        text.contains("\nUltra 9 185H, Kernel: x86_64, Userland: amd64\n"),
        "{text}"
    );
    assert!(!text.contains("SoC guess"), "{text}");
    assert_eq!(
        info_json("x86-hybrid-meteorlake")["cpu_name"],
        "Ultra 9 185H"
    );
    let text = info_text("x86-vm");
    // systemd-detect-virt names the container when there is one.
    assert!(
        text.contains("\nEPYC, Kernel: x86_64 / docker, Userland: amd64\n"),
        "{text}"
    );
    assert!(!text.contains("SoC guess"), "{text}");
    assert_eq!(info_json("x86-vm")["cpu_name"], "EPYC");
    assert!(info_json("rpi5")["cpu_name"].is_null());
}

#[test]
fn x86_vm_without_cpufreq_or_sensors() {
    let j = info_json("x86-vm");
    assert_eq!(len(&j["cpufreq"]), 0);
    assert!(j["sensors"]["thermal_source"].is_null());
    assert_eq!(j["virtualization"]["vm"], "vm-other");
    assert_eq!(j["virtualization"]["container"], "docker");
    assert_eq!(j["memory"]["zswap"]["enabled"], false);
    assert_eq!(j["kernel"]["config_source"], "/proc/config.gz");
    let text = info_text("x86-vm");
    assert!(text.contains("  0        0        0       -      -     "));
    assert!(text.contains("Thermal source: n/a"));
    assert!(text.contains("n/a (no cpufreq"));
}

#[test]
fn x86_hybrid_intel_pstate() {
    let j = info_json("x86-hybrid-meteorlake");
    assert_eq!(j["device"]["name"], "GEEKOM GT1 Mega");
    assert_eq!(j["device"]["source"], "dmi");
    assert_eq!(len(&j["cpufreq"]), 22);
    assert_eq!(j["cpufreq"][0]["driver"], "intel_pstate");
    assert_eq!(j["pstate"]["intel_pstate_status"], "active");
    assert_eq!(j["pstate"]["intel_no_turbo"], false);
    assert_eq!(j["sensors"]["thermal_source"]["name"], "x86_pkg_temp");
    assert_eq!(j["memory"]["swaps"][0]["backing"]["storage"], "nvme");
    let text = info_text("x86-hybrid-meteorlake");
    assert!(
        text.contains(
            "Thermal source: /sys/devices/virtual/thermal/thermal_zone2/ (x86_pkg_temp)\n"
        )
    );
    // lm-sensors' layout, as in the corpus log XRRi.
    assert!(text.contains(
        "coretemp-isa-0000\nPackage id 0:  +50.0 C  (high = +110.0 C, crit = +110.0 C)\nCore 0:        +48.0 C  (high = +110.0 C, crit = +110.0 C)\n"
    ));
    assert!(text.contains(
        "nvme-pci-0100\nComposite:    +38.9 C  (low  =  -0.1 C, high = +84.8 C)\n                       (crit = +94.8 C)\nSensor 1:     +38.9 C  (low  = -273.1 C, high = +65261.8 C)\n"
    ));
}

#[test]
fn live_system_info_runs() {
    // This machine (a VM without cpufreq or sensors): no panic, honest n/a, valid JSON.
    bin().arg("info").assert().success();
    let out = bin()
        .args(["info", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j: Value = serde_json::from_slice(&out).expect("valid JSON");
    assert!(len(&j["cpus"]) >= 1);
}

#[test]
fn empty_sysroot_is_all_na() {
    let d = tempfile::tempdir().expect("tempdir");
    fs::create_dir(d.path().join("proc")).expect("mkdir");
    let out = bin()
        .arg("--sysroot")
        .arg(d.path())
        .arg("info")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).expect("utf-8");
    assert!(text.contains("SoC guess: n/a"));
    assert!(text.contains("Thermal source: n/a"));
    assert!(text.contains("Memory: n/a total, n/a available"));
}

/// Copy a fixture tree, keeping symlinks, with every regular file replaced by `content`.
fn garbage_copy(src: &Path, dst: &Path, content: &[u8]) {
    fs::create_dir_all(dst).expect("mkdir");
    for e in fs::read_dir(src).expect("read_dir") {
        let e = e.expect("entry");
        let ty = e.file_type().expect("type");
        let to = dst.join(e.file_name());
        if ty.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(e.path()).expect("link"), &to)
                .expect("symlink");
        } else if ty.is_dir() {
            garbage_copy(&e.path(), &to, content);
        } else {
            fs::write(&to, content).expect("write");
        }
    }
}

#[test]
fn garbage_in_every_file_gives_na_not_a_panic() {
    let contents: &[&[u8]] = &[
        b"",
        b"garbage\r\n",
        b"\xff\xfe\x00\x01binary",
        b"-99999999999999999999999\n",
        b"1\r\n",
    ];
    for b in BOARDS {
        for c in contents {
            let d = tempfile::tempdir().expect("tempdir");
            garbage_copy(&fixture(b), d.path(), c);
            let info = SystemInfo::read(&SysRoot::new(d.path()));
            let text = report::text::info::render(&info);
            assert!(text.contains("SoC guess:"), "{b}");
            assert!(serde_json::to_string(&info).is_ok(), "{b}");
            // Nothing numeric survives garbage except the "1" case.
            if *c != b"1\r\n" {
                assert!(
                    info.cpufreq.iter().all(|p| p.cpuinfo_max_khz.is_none()),
                    "{b}"
                );
                assert_eq!(info.memory.meminfo.mem_total_kib, None, "{b}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn parsers_never_panic(s in "\\PC{0,200}", bytes in proptest::collection::vec(any::<u8>(), 0..128)) {
        let _ = memory::parse_meminfo(&s);
        let _ = memory::parse_swaps(&s);
        let _ = storage::parse_mountinfo(&s);
        let _ = memory::parse_comp_algorithm(&s);
        let _ = memory::parse_mm_stat(&s);
        let _ = storage::unescape_octal(&s);
        let _ = memory::disk_of_partition_name(&s);
        let _ = memory::parse_bool_param(&s);
        let _ = Distro::parse(&s);
        let _ = board::ArmbianRelease::parse(&s);
        let _ = board::config_lines(&s);
        let _ = board::cmdline_param(&s, "root");
        let _ = board::parse_dt_string_list(&s);
        let _ = board::container_from_cgroup(&s);
        let _ = board::container_from_environ(&s);
        let _ = HostFacts::parse(&s);
        let _ = board::elf_userland_arch(&bytes);
        let _ = board::gunzip(&bytes);
        let _ = thermal::parse_temp_c(&s);
        let _ = thermal::parse_hwmon_attr(&s);
        let _ = cpufreq::parse_freq_list(&s);
        let _ = cpufreq::parse_time_in_state(&s);
        let _ = cpufreq::parse_flag(&s);
    }

    #[test]
    fn octal_unescape_is_identity_without_backslashes(s in "[^\\\\]{0,100}") {
        prop_assert_eq!(storage::unescape_octal(&s), s);
    }
}

#[test]
fn sysroot_without_proc_or_sys_is_an_error() {
    let d = tempfile::tempdir().expect("tempdir");
    bin()
        .arg("--sysroot")
        .arg(d.path())
        .arg("info")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("holds neither proc/ nor sys/"));
    bin()
        .arg("--sysroot")
        .arg(fixture("rpi5").join("host.json"))
        .arg("info")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not a directory"));
}

/// `CPUINFOFILE` that cannot be read is a clear error, not an empty topology table.
#[test]
fn unreadable_cpuinfofile_is_an_error() {
    for (file, msg) in [
        (
            "/nonexistent/cpuinfo",
            "CPUINFOFILE=/nonexistent/cpuinfo: No such file",
        ),
        ("/", "is a directory"),
    ] {
        bin()
            .env("CPUINFOFILE", file)
            .arg("info")
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::contains(msg));
    }
    // A readable one decodes another board's CPUs on this machine.
    let out = bin()
        .env(
            "CPUINFOFILE",
            fixture("orangepi-pcplus").join("proc/cpuinfo"),
        )
        .arg("info")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("Cortex-A7 / r0p5"));
}

/// `CPUINFOFILE` overrides only `/proc/cpuinfo`: an empty or garbage file on the live
/// system gives this machine's CPUs (from sysfs) with core type `n/a`, not an empty table,
/// and another board's file does not add CPUs this machine lacks.
#[test]
fn cpuinfofile_keeps_this_machines_cpus() {
    let json = |cpuinfo: Option<&Path>| -> Value {
        let mut c = bin();
        if let Some(f) = cpuinfo {
            c.env("CPUINFOFILE", f);
        }
        let out = c
            .args(["info", "--json"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        serde_json::from_slice(&out).expect("valid JSON")
    };
    let cpu_numbers = |j: &Value| -> Vec<u64> {
        j["cpus"]
            .as_array()
            .expect("cpus")
            .iter()
            .filter_map(|c| c["cpu"].as_u64())
            .collect()
    };
    let live = cpu_numbers(&json(None));
    assert!(!live.is_empty());
    let d = tempfile::tempdir().expect("tempdir");
    let garbage: Vec<u8> = (0..3000u32).map(|i| (i * 7919 % 251) as u8).collect();
    for (name, content) in [("empty", &b""[..]), ("garbage", &garbage[..])] {
        let f = d.path().join(name);
        fs::write(&f, content).expect("write");
        let j = json(Some(&f));
        assert_eq!(cpu_numbers(&j), live, "{name}");
        assert!(
            j["cpus"]
                .as_array()
                .expect("cpus")
                .iter()
                .all(|c| c["core_type"].is_null()),
            "{name}"
        );
        let out = bin()
            .env("CPUINFOFILE", &f)
            .arg("info")
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8_lossy(&out);
        let rows: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with(" CPU    cluster"))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect();
        assert_eq!(rows.len(), live.len(), "{name}: {text}");
        assert!(rows.iter().all(|r| r.ends_with("   n/a")), "{name}: {text}");
    }
    // A 16-CPU Graviton file names the core type but does not make 16 CPUs here.
    let graviton = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cpuinfo/AWS-m6g.4xlarge-Graviton2.cpuinfo");
    let j = json(Some(&graviton));
    assert_eq!(cpu_numbers(&j), live);
    assert_eq!(j["cpus"][0]["core_type"], "Neoverse-N1");
}

/// `info | head` closes the pipe: no panic, status 0.
#[test]
fn closed_pipe_is_not_an_error() {
    use std::process::{Command as Std, Stdio};
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("sbc-bench"))
        .args(["--sysroot"])
        .arg(fixture("x86-hybrid-meteorlake"))
        .arg("info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Close the reading end before the child (still starting) writes its text.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "{:?}", out.status);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The device-tree OPP tables of three fixture boards render as those boards' sbc-bench
/// logs print them (corpus logs 4rWn, 4L4u, 4pBf; the fixtures' tables were built from them,
/// the ODROID-N2+'s GPU rates as the g12 device tree lists them, a hair below whole MHz).
#[test]
fn opp_tables_render_as_the_corpus_logs() {
    let odroid = "   opp-table-0:
      1000 MHz    761.0 mV
      1200 MHz    781.0 mV
      1398 MHz    811.0 mV
      1512 MHz    861.0 mV
      1608 MHz    901.0 mV
      1704 MHz    951.0 mV
      1800 MHz   1001.0 mV
      1908 MHz   1030.0 mV
      2016 MHz   1040.0 mV

   opp-table-1:
      1000 MHz    731.0 mV
      1200 MHz    751.0 mV
      1398 MHz    771.0 mV
      1512 MHz    771.0 mV
      1608 MHz    781.0 mV
      1704 MHz    791.0 mV
      1800 MHz    831.0 mV
      1908 MHz    861.0 mV
      2016 MHz    911.0 mV
      2108 MHz    951.0 mV
      2208 MHz   1011.0 mV
      2304 MHz   1030.0 mV
      2400 MHz   1040.0 mV

   opp-table-gpu:
       125 MHz    800.0 mV
       250 MHz    800.0 mV
       286 MHz    800.0 mV
       400 MHz    800.0 mV
       500 MHz    800.0 mV
       667 MHz    800.0 mV
       800 MHz    800.0 mV
";
    let vf2 = "   opp-table-0:
       375 MHz    800.0 mV
       500 MHz    800.0 mV
       750 MHz    800.0 mV
      1500 MHz   1040.0 mV
";
    for (board, want) in [("odroid-n2plus", odroid), ("visionfive2", vf2)] {
        let i = SystemInfo::read(&SysRoot::new(fixture(board)));
        assert_eq!(sbc_bench::sys::opp::render(&i.opp_tables), want, "{board}");
    }
    let r5s = SystemInfo::read(&SysRoot::new(fixture("nanopi-r5s")));
    let names: Vec<&str> = r5s.opp_tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "bus-npu-opp-table",
            "cpu0-opp-table",
            "dmc-opp-table",
            "npu-opp-table",
            "opp-table2",
            "rkvdec-opp-table",
            "rkvenc-opp-table"
        ]
    );
    assert!(sbc_bench::sys::opp::render(&r5s.opp_tables).contains(
        "   cpu0-opp-table:\n       408 MHz    850.0 mV\n       600 MHz    850.0 mV\n       816 MHz    850.0 mV\n      1104 MHz    900.0 mV\n      1416 MHz   1025.0 mV\n      1608 MHz   1100.0 mV\n      1800 MHz   1150.0 mV\n      1992 MHz   1150.0 mV\n\n   dmc-opp-table:\n      1560 MHz    900.0 mV\n"
    ));
    // No device tree, no tables.
    let vm = SystemInfo::read(&SysRoot::new(fixture("x86-vm")));
    assert!(vm.opp_tables.is_empty());
}
