//! Issue 17 item 6: the standard run's log holds the sections a published sbc-bench log
//! holds (DMI, iostat, free, swapon, lscpu, caches, regulators), and our own log reader
//! still reads that log: the row it rebuilds from the body equals the row the log states.

use std::fs;

use crate::common::{bin, copy_tree, sysroot as fixture};
use sbc_bench::results::sbclog;

fn fake_run_log(board: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture(board), &root);
    let log = tmp.path().join("sbc-bench.log");
    bin()
        .env("NO_COLOR", "1")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(&log)
        .assert()
        .code(predicates::ord::eq(0).or(predicates::ord::eq(3)));
    fs::read_to_string(&log).unwrap()
}

use predicates::prelude::PredicateBooleanExt;

#[test]
fn meteor_lake_log_has_dmi_iostat_free_swapon_lscpu_and_powercap() {
    let log = fake_run_log("x86-hybrid-meteorlake");
    for want in [
        "\nDevice Info:\n\tManufacturer: GEEKOM\n\tProduct Name: GT1 Mega\n",
        "\nBIOS/UEFI:\n\tVendor: American Megatrends International, LLC.\n",
        "\tBIOS Revision: 0.50\n\tFirmware Revision: 0.16\n",
        "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n",
        "               total        used        free      shared  buff/cache   available\n",
        "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swap.img ",
        "\nArchitecture:                         x86_64\n",
        "Vulnerability Spectre v1:             Mitigation; usercopy/swapgs barriers",
        "  * Powercap detected. Details: \"sudo powercap-info -p intel-rapl\"\n",
    ] {
        assert!(log.contains(want), "missing {want:?}");
    }
    // iostat and free at the start and again at the end, as sbc-bench prints them.
    assert_eq!(log.matches("avg-cpu:").count(), 2);
    assert_eq!(log.matches("\nMem: ").count(), 2);
    // One lscpu group per core type: the Meteor Lake's cpuinfo names one model.
    assert_eq!(log.matches("\nModel name:").count(), 1);
}

#[test]
fn rock_5b_log_has_caches_per_cpu_and_nanopi_r5s_its_voltages() {
    let log = fake_run_log("rock-5b");
    assert!(log.contains("\ncpu0/index0: 32K, level: 1, type: Data\n"));
    assert!(log.contains("\ncpu7/index3: 3072K, level: 3, type: Unified\n"));
    assert!(log.contains("L3 cache:                        3 MiB (1 instance)\n"));
    assert!(!log.contains("Device Info:"), "no DMI on this board");
    let r5s = fake_run_log("nanopi-r5s");
    let volts = "   vcc_ddr: 500 mV (0 mV max)\n   vdd_cpu: 1125 mV (1388 mV max)\n   \
                 vdd_gpu: 950 mV (1350 mV max)\n   vdd_npu: 925 mV (1350 mV max)\n\n   \
                 bus-npu-opp-table:\n";
    assert!(r5s.contains(volts), "{r5s}");
    assert!(!r5s.contains("vcc3v3_pmu"));
    // A single cluster: sbc-bench lists no per-CPU caches then.
    assert!(!r5s.contains("/index0: "));
}

#[test]
fn our_log_with_the_new_sections_still_parses_to_its_own_row() {
    for board in ["rock-5b", "x86-hybrid-meteorlake", "nanopi-r5s"] {
        let log = fake_run_log(board);
        let p = sbclog::parse(&log);
        let stated = p.stated_row.clone().expect("the log states its row");
        let rebuilt = p.results_row.render();
        let cells: Vec<String> = rebuilt
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect();
        // The benchmark columns (7-Zip, AES, memcpy, memset, scrypt) and the kernel.
        assert_eq!(cells.get(2..10), stated.get(2..10), "{board}");
        assert!(p.kernel_release.is_some(), "{board}");
    }
}
