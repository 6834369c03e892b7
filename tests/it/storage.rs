//! `sbc-bench storage` over fixture sysroots (ROCK 5 ITX with NVMe, SATA, eMMC, SD and
//! SPI NOR; the same board with seven USB storage devices; this VM's virtio disk), and
//! `sbc-bench storage bench` on real filesystems: results, safety on Ctrl-C, a full
//! filesystem and a directory we may not write to.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::bin;
use assert_cmd::Command;
use predicates::prelude::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/storage")
        .join(name)
}

fn inventory(name: &str) -> String {
    let out = bin()
        .args(["--sysroot"])
        .arg(fixture(name))
        .arg("storage")
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn device_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("  * ")).collect()
}

/// The ROCK 5 ITX review (corpus `reviews/Radxa-Rock-5-ITX.md`, lines 97–103): our
/// lines are sbc-bench's, byte for byte; the NVMe line also names the ASPM state, as
/// later sbc-bench versions do.
#[test]
fn rock5itx_review_lines() {
    let text = inventory("rock5itx");
    assert_eq!(
        device_lines(&text),
        [
            "  * 238.5GB \"KXG50ZNV256G NVMe TOSHIBA 256GB\" SSD as /dev/nvme0: Speed 8GT/s (ok), Width x2 (downgraded), 13% worn out, drive temp: 44°C, ASPM Disabled",
            "  * 111.8GB \"Samsung SSD 750 EVO 120GB\" SSD as /dev/sda: SATA 3.1, 6.0 Gb/s (current: 6.0 Gb/s), 3% worn out, drive temp: 25°C",
            "  * 111.8GB \"Samsung SSD 840 EVO 120GB\" SSD as /dev/sdb: SATA 3.1, 6.0 Gb/s (current: 6.0 Gb/s), 3% worn out, drive temp: 24°C",
            "  * 119.2GB \"SAMSUNG MZ7TE128HMGR-00004\" SSD as /dev/sdc: SATA 3.1, 6.0 Gb/s (current: 6.0 Gb/s), 3% worn out, drive temp: 25°C",
            "  * 29.1GB \"Samsung BJTD4R\" HS400 Enhanced strobe eMMC 5.1 card as /dev/mmcblk0: date 09/2023, manfid/oemid: 0x000015/0x0100, hw/fw rev: 0x0/0x0300000000000000",
            "  * 238.8GB \"Samsung EE4S5\" UHS SDR104 SDXC card as /dev/mmcblk1: date 05/2023, manfid/oemid: 0x00001b/0x534d, hw/fw rev: 0x3/0x0",
            "  * 16MB SPI NOR flash, drivers in use: spi-nor/rockchip-sfc",
        ]
    );
    assert!(text.contains(
        "/dev/nvme0: PCIe link of the SSD trained at 8GT/s x2 while it supports 8GT/s x4"
    ));
    insta::assert_snapshot!("rock5itx", text);
}

/// Seven USB storage devices, four of them behind one hub (seeds
/// `rock-5-itx-preview.txt`, `sbc-bench.sh -S` after `lsusb -t`): identical lines.
#[test]
fn rock5itx_seven_usb_devices() {
    let text = inventory("rock5itx-usb");
    let seed = [
        "  * 111.8GB \"Samsung SSD 750 EVO 120GB\" SSD as /dev/sda [SATA 3.1, 6.0 Gb/s (current: 6.0 Gb/s)]: behind ASMedia SATA 6Gb/s bridge (174c:55aa), 3% worn out, Driver=uas, 5Gbps (capable of 12Mbps, 480Mbps, 5Gbps), drive temp: 26°C",
        "  * 111.8GB \"Samsung SSD 840 EVO 120GB\" SSD as /dev/sdb [SATA 3.1, 6.0 Gb/s (current: 6.0 Gb/s)]: behind JMicron JMS567 SATA 6Gb/s bridge (152d:3562), 3% worn out, Driver=uas, 5Gbps (capable of 12Mbps, 480Mbps, 5Gbps), drive temp: 25°C",
        "  * 115.7GB \"SanDisk Corp. Ultra Fit\" as /dev/sdc: USB, Driver=usb-storage, 5Gbps (capable of 12Mbps, 480Mbps, 5Gbps)",
        "  * 7.3TB \"TOSHIBA HDWF180\" HDD as /dev/sdd [SATA 3.3, 6.0 Gb/s (current: 6.0 Gb/s)]: behind ASMedia SATA 6Gb/s bridge (174c:55aa), Driver=usb-storage, 5Gbps (capable of 12Mbps, 480Mbps, 5Gbps), drive temp: 21°C",
        "  * 115.7GB \"SanDisk Corp. Ultra Dual\" as /dev/sde: USB, Driver=usb-storage, 480Mbps (capable of 12Mbps, 480Mbps, 5Gbps)",
        "  * 7.5GB \"SanDisk Corp. Cruzer Slice\" as /dev/sdf: USB, Driver=usb-storage, 480Mbps",
        "  * 111.8GB \"Samsung SSD 840 EVO 120GB\" SSD as /dev/sdg [SATA 3.1, 6.0 Gb/s (current: 6.0 Gb/s)]: behind VIA Labs VL715/VL716 SATA 6Gb/s bridge (2109:0715), 5% worn out, Driver=uas, 5Gbps (capable of 12Mbps, 480Mbps, 5Gbps, 10Gb/s Symmetric RX SuperSpeedPlus, 10Gb/s Symmetric TX SuperSpeedPlus), drive temp: 23°C",
    ];
    assert_eq!(device_lines(&text), seed);
    assert!(text.contains(
        "/dev/sda, /dev/sdb, /dev/sdc, /dev/sdd share USB hub 6-1 05e3:0620 (\"USB3.2 Hub\", 5Gbps uplink)"
    ));
    assert!(text.contains("/dev/sde: USB device runs at 480Mbps but can do 5Gbps"));
    insta::assert_snapshot!("rock5itx_usb", text);
}

/// sbc-bench printed `* 256GB : ` and an error here (no udev); we name the disk.
#[test]
fn this_vms_virtio_disk() {
    let text = inventory("vm-virtio");
    assert_eq!(
        device_lines(&text),
        ["  * 256GB Virtual disk: /dev/vda, Driver=virtio-pci"]
    );
    assert!(
        !text.contains("loop"),
        "loop devices are not listed: {text}"
    );
    // No SMART for virtio, so no "smartctl" note either.
    assert!(!text.contains("smartctl"), "{text}");
}

#[test]
fn legacy_dash_s_and_json_carry_the_same_data() {
    let out = bin()
        .arg("--sysroot")
        .arg(fixture("rock5itx"))
        .args(["-S", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let devs = v["devices"].as_array().unwrap();
    assert_eq!(devs.len(), 6);
    assert_eq!(devs[0]["node"], "/dev/nvme0");
    assert_eq!(devs[0]["pci"]["link"]["width"], 2);
    assert_eq!(devs[0]["pci"]["link"]["max_width"], 4);
    assert_eq!(devs[0]["health"]["percentage_used"], 13);
    assert_eq!(devs[1]["ata"]["identify"]["sata_version"], "SATA 3.1");
    assert_eq!(devs[4]["mmc"]["bus_mode"], "hs400_es");
    assert_eq!(devs[5]["mmc"]["capacity_class"], "SDXC");
    assert_eq!(v["flash"][0]["size_bytes"], 16 << 20);
    assert_eq!(v["findings"][0]["code"], "storage-pcie-downgraded");
}

#[test]
fn without_recorded_health_it_says_what_is_missing() {
    // A copy of the ITX tree without the recorded smartctl output stands for a board
    // without smartmontools.
    let d = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(fixture("rock5itx"))
        .arg(d.path().join("t"))
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::remove_dir_all(d.path().join("t/.sbc-bench")).unwrap();
    let out = bin()
        .arg("--sysroot")
        .arg(d.path().join("t"))
        .arg("storage")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    // Model, SSD, SATA version and speeds come from IDENTIFY in sysfs without smartctl.
    assert!(text.contains(
        "  * 111.8GB \"Samsung SSD 750 EVO 120GB\" SSD as /dev/sda: SATA 3.1, 6.0 Gb/s (current: 6.0 Gb/s)\n"
    ), "{text}");
    assert!(text.contains(
        "\"KXG50ZNV256G NVMe TOSHIBA 256GB\" SSD as /dev/nvme0: Speed 8GT/s (ok), Width x2 (downgraded), ASPM Disabled\n"
    ), "{text}");
    assert!(
        text.contains("no smartctl data recorded in this sysroot"),
        "{text}"
    );
}

/// Board sysroots with sparse sysfs (no size, no CID files): no empty quotes, no
/// `?/?` fields, no dangling `: `.
#[test]
fn sparse_sysfs_gives_short_honest_lines() {
    let sysroot = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/sysroots")
            .join(name)
    };
    let line = |name: &str| {
        let out = bin()
            .arg("--sysroot")
            .arg(sysroot(name))
            .arg("storage")
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        device_lines(&text)[0].to_string()
    };
    assert_eq!(line("rpi4"), "  * SD card as /dev/mmcblk0");
    assert_eq!(
        line("x86-hybrid-meteorlake"),
        "  * \"NVMe SSD\" SSD as /dev/nvme0"
    );
}

// ---- benchmark ----------------------------------------------------------------------

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("readable dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".sbc-bench-iotest"))
        .collect()
}

#[test]
fn bench_prints_iozones_table_and_removes_its_file() {
    let d = tempfile::tempdir().unwrap();
    // An existing file must be left alone.
    std::fs::write(d.path().join("keep.txt"), b"precious").unwrap();
    let out = bin()
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["--size", "4M", "-r", "4k", "-r", "1024k", "--no-monitor"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(
        "              kB  reclen    write  rewrite    read    reread    read     write     read   rewrite      read   fwrite frewrite    fread  freread\n"
    ));
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("            4096"))
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].starts_with("            4096       4"), "{text}");
    assert!(rows[1].starts_with("            4096    1024"), "{text}");
    assert!(text.contains("4 KiB IOPS"), "{text}");
    assert!(text.contains("Filesystem: "), "{text}");
    assert!(leftovers(d.path()).is_empty());
    assert_eq!(
        std::fs::read(d.path().join("keep.txt")).unwrap(),
        b"precious"
    );
}

#[test]
fn bench_json() {
    let d = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["--size", "2M", "-r", "256k", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rec = &v["result"]["records"][0];
    assert_eq!(rec["record_bytes"], 256 << 10);
    assert_eq!(rec["phases"].as_array().unwrap().len(), 6);
    assert_eq!(rec["phases"][4]["phase"], "random_read");
    assert!(rec["phases"][0]["mb_per_s"].as_f64().unwrap() > 0.0);
    assert!(v["result"]["fsync_in_write_timing"].as_bool().unwrap());
    assert!(v["landing"]["fstype"].is_string(), "{v}");
    assert!(leftovers(d.path()).is_empty());
}

/// Every pass is read at its own start and end by the monitor's sampler: each has its
/// tick window (and, where the device's interrupt lines were found, its exact count);
/// with `--no-monitor` none has.
#[test]
fn bench_watches_every_pass_unless_told_not_to() {
    let d = tempfile::tempdir().unwrap();
    let phases = |extra: &[&str]| {
        let out = bin()
            .args(["storage", "bench"])
            .arg(d.path())
            .args(["--size", "1M", "-r", "256k", "--json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["observation"]["phases"].as_array().unwrap().clone()
    };
    let watched = phases(&[]);
    assert_eq!(watched.len(), 6);
    for p in &watched {
        assert!(p["window_ticks"].is_u64(), "{p}");
        if p["storage_irqs"].is_u64() {
            assert!(p["storage_irqs_per_s"].is_f64(), "{p}");
        }
    }
    for p in phases(&["--no-monitor"]) {
        assert!(p["window_ticks"].is_null(), "{p}");
        assert!(p["storage_irqs"].is_null(), "{p}");
    }
    assert!(leftovers(d.path()).is_empty());
}

#[test]
fn bench_refuses_bad_input_clearly() {
    bin()
        .args(["storage", "bench", "/nonexistent/dir"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot use /nonexistent/dir"));
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("file");
    std::fs::write(&f, b"x").unwrap();
    bin()
        .args(["storage", "bench"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a directory"));
    bin()
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["-r", "6k"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("multiple of 4 KiB"));
    bin()
        .args(["storage", "bench", "--size", "lots"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a size"));
    assert_eq!(std::fs::read(&f).unwrap(), b"x");
}

#[test]
fn ctrl_c_leaves_no_file_behind() {
    let d = tempfile::tempdir().unwrap();
    let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
    let mut child = std::process::Command::new(exe)
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["--size", "512M", "-r", "4k", "--no-monitor"])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while leftovers(d.path()).is_empty() {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "test file never appeared"
        );
        if let Ok(Some(st)) = child.try_wait() {
            panic!("benchmark ended before it could be interrupted: {st}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let t1 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t1.elapsed() < Duration::from_secs(15),
            "did not stop after SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    // What was printed before the interruption reached the pipe: the header, iozone's
    // column titles and the started row, ended with a newline.
    let mut text = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut text).unwrap();
    assert!(text.starts_with("Testing "), "{text:?}");
    assert!(
        text.contains("              kB  reclen    write"),
        "{text:?}"
    );
    assert!(text.contains("\n          524288       4"), "{text:?}");
    assert!(text.ends_with('\n'), "{text:?}");
}

/// A tmpfs of a given size, mounted for the test and unmounted after; `None` (and a
/// message) when we may not mount (not root, no CAP_SYS_ADMIN, a container).
struct TmpMount {
    dir: tempfile::TempDir,
}

impl TmpMount {
    fn new(opts: &str) -> Option<Self> {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipped: mounting a small tmpfs needs root");
            return None;
        }
        let dir = tempfile::tempdir().ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: cannot mount a tmpfs here");
            return None;
        }
        Some(Self { dir })
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for TmpMount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

#[test]
fn full_filesystem_is_refused_before_writing() {
    // The decision itself is unit-tested without a mount (`bench::storage::space_checks`).
    let Some(m) = TmpMount::new("size=8m") else {
        return;
    };
    bin()
        .args(["storage", "bench"])
        .arg(m.path())
        .args(["--size", "16M"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not enough free space"));
    assert_eq!(std::fs::read_dir(m.path()).unwrap().count(), 0);
}

#[test]
fn enospc_in_the_middle_removes_the_file() {
    // Without root, `io_error_in_the_middle_through_the_cli` covers the same path.
    use sbc_bench::bench::storage::{StorageConfig, StorageError, run};
    let Some(m) = TmpMount::new("size=8m") else {
        return;
    };
    let mut cfg = StorageConfig::new(m.path());
    cfg.size_bytes = 16 << 20;
    cfg.records = vec![1 << 20];
    cfg.check_space = false;
    let err = run(
        &cfg,
        &sbc_bench::shutdown::CancellationToken::new(),
        &mut |_| {},
    )
    .unwrap_err();
    match &err {
        StorageError::Io { cause, .. } => assert_eq!(cause.raw_os_error(), Some(libc::ENOSPC)),
        other => panic!("expected ENOSPC, got {other}"),
    }
    let msg = err.to_string();
    assert!(msg.contains("test file removed"));
    assert_eq!(msg.matches("os error 28").count(), 1, "{msg}");
    assert_eq!(std::fs::read_dir(m.path()).unwrap().count(), 0);
}

/// An I/O error mid-run through the command line, without root: a file size limit
/// (`ulimit -f`, SIGXFSZ ignored) makes the write pass fail with EFBIG.
#[test]
fn io_error_in_the_middle_through_the_cli() {
    let d = tempfile::tempdir().unwrap();
    let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(r#"trap '' XFSZ; ulimit -f 2048; exec "$0" storage bench "$1" --size 4M -r 64k --no-monitor"#)
        .arg(&exe)
        .arg(d.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    // EFBIG is named for what it is (`storage_harden::file_size_limit_is_named_…`).
    assert!(
        err.contains("file size limit (ulimit -f) reached at 2 MiB"),
        "{err}"
    );
    assert!(err.contains("(test file removed)"), "{err}");
    // The header and the started row came out before the error, the row ended cleanly.
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Testing "), "{text}");
    assert!(text.ends_with("            4096      64\n"), "{text:?}");
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}

fn assert_unwritable(cmd: std::process::Command, dir: &Path) {
    let out = Command::from_std(cmd)
        .args(["storage", "bench"])
        .arg(dir)
        .args(["--size", "4M"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("cannot create a test file in"), "{err}");
    // The OS error once ("Read-only file system (os error 30)" or "Permission denied
    // (os error 13)"), not repeated by the error chain.
    assert_eq!(err.matches("(os error").count(), 1, "{err}");
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0);
}

fn plain_cmd() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("sbc-bench"));
    c.env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .env("NO_COLOR", "1");
    c
}

#[test]
fn read_only_mount_is_a_clear_error() {
    let Some(m) = TmpMount::new("size=64m,ro") else {
        return;
    };
    assert_unwritable(plain_cmd(), m.path());
}

#[test]
fn directory_without_write_permission_is_a_clear_error() {
    // Root ignores permissions, so as root the command runs as nobody (65534).
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let d = tempfile::Builder::new()
        .prefix("sbc-bench-ro")
        .tempdir_in(std::env::temp_dir())
        .unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    let mut cmd = plain_cmd();
    if nix::unistd::geteuid().is_root() {
        cmd.uid(65534).gid(65534);
    }
    assert_unwritable(cmd, d.path());
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
}

/// ramfs reports no size at all: not refused as "0 MiB available", but said; its
/// O_DIRECT refusal shows in the header, and it measures RAM.
#[test]
fn ramfs_runs_and_says_it_measures_ram() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!(
            "skipped: mounting ramfs needs root (the decision is unit-tested in bench::storage::space_checks)"
        );
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "ramfs", "ramfs"])
        .arg(d.path())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount ramfs here");
        return;
    }
    let out = bin()
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["--size", "1M", "-r", "64k", "--no-monitor"])
        .output()
        .unwrap();
    let _ = std::process::Command::new("umount").arg(d.path()).status();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Note: the filesystem reports no size (ramfs has no limit)"),
        "{text}"
    );
    assert!(
        text.contains("the test file is on ramfs: this measures RAM"),
        "{text}"
    );
    let first = text.lines().next().unwrap();
    if text.contains("O_DIRECT was refused") {
        assert!(first.contains("buffered I/O"), "{first}");
    } else {
        assert!(first.contains(", O_DIRECT,"), "{first}");
    }
}

/// A test file left by a run killed with SIGKILL is named and removed by the next run
/// (its process is gone and no one has it open); a look-alike name stays.
#[test]
fn a_killed_runs_file_is_removed_by_the_next_run() {
    let d = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = d
        .path()
        .join(format!(".sbc-bench-iotest.{dead}.1234567890"));
    std::fs::write(&stale, vec![0u8; 1 << 20]).unwrap();
    let lookalike = d.path().join(".sbc-bench-iotest.mine");
    std::fs::write(&lookalike, b"keep").unwrap();
    let out = bin()
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["--size", "1M", "-r", "1m", "--no-monitor"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "Note: removed a test file left by an earlier run (pid {dead}, 1 MiB): {}",
            stale.display()
        )),
        "{text}"
    );
    assert!(!stale.exists());
    assert_eq!(std::fs::read(&lookalike).unwrap(), b"keep");
}

/// `-r 4k -r 4k` runs once; a size that is not a whole number of records says what the
/// passes cover.
#[test]
fn repeated_records_and_partial_records() {
    let d = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["--size", "10M", "-r", "4M", "-r", "4M", "--no-monitor"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("records 4 MiB, "), "{text}");
    assert_eq!(
        text.matches("\n           10240    4096").count(),
        1,
        "{text}"
    );
    assert!(
        text.contains("Note: 4 MiB records cover 8 MiB of the 10 MiB file"),
        "{text}"
    );
}

// Issue 27, item 15: ABRT, TRAP and SYS sent with kill(2) left the test file behind (the
// next run's cleaner removed it): removed at once, as for Ctrl-C, exit 128 + signal.
#[test]
fn abrt_trap_and_sys_sent_with_kill_leave_no_test_file_behind() {
    for sig in [libc::SIGABRT, libc::SIGTRAP, libc::SIGSYS] {
        let d = tempfile::tempdir().unwrap();
        let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
        let mut child = std::process::Command::new(exe)
            .args(["storage", "bench"])
            .arg(d.path())
            .args(["--size", "512M", "-r", "4k", "--no-monitor"])
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while leftovers(d.path()).is_empty() {
            assert!(t0.elapsed() < Duration::from_secs(20), "no test file");
            if let Ok(Some(st)) = child.try_wait() {
                panic!("benchmark ended before it could be signalled: {st}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(200));
        // SAFETY: kill(2) of our own child.
        unsafe {
            libc::kill(child.id() as i32, sig);
        }
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(128 + sig), "signal {sig}: {status}");
        assert!(
            leftovers(d.path()).is_empty(),
            "signal {sig}: {:?}",
            leftovers(d.path())
        );
    }
}
