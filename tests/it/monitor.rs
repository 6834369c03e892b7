//! `sbc-bench monitor` over fixture sysroots (RK3588, NanoPi R5S, ODROID-N2+ built from the
//! corpus facts, see tests/fixtures/monitor/README.md) and on this VM.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::copy_tree;
use assert_cmd::Command;
use predicates::prelude::*;
use sbc_bench::monitor::render::{self, TableOptions};
use sbc_bench::monitor::{Interval, SampleSpec, Sampler, Setup};
use sbc_bench::sys::root::SysRoot;

fn bin() -> Command {
    let mut c = crate::common::bin();
    c.env("TZ", "UTC");
    c
}

fn fixture(board: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/monitor")
        .join(board)
}

fn table_lines(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .skip_while(|l| !l.starts_with("Time"))
        .map(str::to_string)
        .collect()
}

#[test]
fn rk3588_three_clusters_count() {
    let out = bin()
        .args(["--sysroot"])
        .arg(fixture("rk3588"))
        .args(["monitor", "0.05", "--count", "3"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.starts_with("Kernel: aarch64\n\nCPU sysfs topology"),
        "{text}"
    );
    assert!(text.contains(
        "\n\nThermal source: /sys/devices/virtual/thermal/thermal_zone0/ (soc-thermal)\n\n"
    ));
    let lines = table_lines(&out);
    assert_eq!(
        lines[0],
        "Time       cpu0/cpu4/cpu6    load %cpu %sys %usr %nice %io %irq   Temp     busiest"
    );
    assert_eq!(lines.len(), 4, "{lines:?}");
    // First line: averages since boot from the fixture's /proc/stat.
    assert!(
        lines[1].ends_with(
            ": 1416/ 408/ 408MHz  0.52   5%   0%   4%   0%   0%   0%  41.6°C  cpu7   6%"
        ),
        "{}",
        lines[1]
    );
    // The fixture's counters do not move: no tick elapsed, so no invented percentages.
    assert!(
        lines[2].ends_with(
            ": 1416/ 408/ 408MHz  0.52  n/a  n/a  n/a  n/a  n/a  n/a  41.6°C        n/a"
        ),
        "{}",
        lines[2]
    );
}

#[test]
fn single_cluster_and_big_little_headers() {
    for (board, header, clock) in [
        (
            "nanopi-r5s",
            "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp     busiest",
            ": 1992MHz  0.52",
        ),
        (
            "odroid-n2plus",
            "Time       big.LITTLE   load %cpu %sys %usr %nice %io %irq   Temp     busiest",
            ": 2400/2016MHz  0.52",
        ),
    ] {
        let out = bin()
            .arg("--sysroot")
            .arg(fixture(board))
            .args(["-m", "0.05", "-n", "2"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let lines = table_lines(&out);
        assert_eq!(lines[0], header, "{board}");
        assert_eq!(lines.len(), 3, "{board}: {lines:?}");
        assert!(lines[1].contains(clock), "{board}: {}", lines[1]);
    }
}

#[test]
fn cores_column_shows_every_core_with_its_clock() {
    let out = bin()
        .arg("--sysroot")
        .arg(fixture("rk3588"))
        .args(["monitor", "0.05", "-n", "1", "--cores"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let lines = table_lines(&out);
    assert!(lines[0].ends_with("busiest       cpu0       cpu1       cpu2       cpu3       cpu4       cpu5       cpu6       cpu7"), "{}", lines[0]);
    assert!(
        lines[1].ends_with(
            "5%/1416    5%/1416    5%/1416    5%/1416    6%/ 408    6%/ 408    6%/ 408    6%/ 408"
        ),
        "{}",
        lines[1]
    );
    assert_eq!(lines[0].chars().count(), lines[1].chars().count());
}

#[test]
fn json_lines_one_object_per_sample() {
    let out = bin()
        .arg("--sysroot")
        .arg(fixture("rk3588"))
        .args(["monitor", "0.05", "--count", "3", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let objs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 3);
    assert_eq!(objs[0]["since_boot"], true);
    assert_eq!(objs[1]["since_boot"], false);
    assert_eq!(objs[0]["temp_c"], 41.625);
    assert_eq!(objs[0]["busiest"]["cpu"], 7);
    assert_eq!(objs[0]["cores"].as_array().unwrap().len(), 8);
    assert_eq!(objs[0]["clocks"][0]["khz"], 1_416_000);
    assert_eq!(objs[0]["softirqs"].as_array().unwrap().len(), 8);
    assert!(objs[0]["swap_in_pages_per_s"].is_number());
    assert!(
        objs[1]["usage"].is_null(),
        "no tick elapsed in a static fixture"
    );
}

#[test]
fn this_vm_without_cpufreq_and_thermal() {
    let out = bin()
        .args(["monitor", "0.1", "-n", "2"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let lines = table_lines(&out);
    assert!(lines[0].starts_with("Time      CPU n/a    load %cpu %sys %usr %nice %io %irq   Temp"));
    assert_eq!(lines.len(), 3);
    for l in &lines[1..] {
        assert!(l.contains(":  n/aMHz "), "{l}");
        assert!(l.contains("   n/a°C  "), "{l}");
    }
}

#[test]
fn bad_intervals_and_counts_are_usage_errors() {
    for args in [
        &["monitor", "0"][..],
        &["monitor", "abc"],
        &["monitor", "-1"],
        &["monitor", "1", "--count", "0"],
        &["-m", "nan"],
    ] {
        bin().args(args).assert().code(2);
    }
}

#[test]
fn garbage_counters_are_not_available_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    copy_tree(&fixture("rk3588"), d.path());
    for (f, v) in [
        ("proc/stat", "cpu garbage\n\0\0\0"),
        ("proc/loadavg", ""),
        ("sys/devices/virtual/thermal/thermal_zone0/temp", "hot\n"),
        (
            "sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq",
            "-1\n",
        ),
    ] {
        std::fs::write(d.path().join(f), v).unwrap();
    }
    let out = bin()
        .arg("--sysroot")
        .arg(d.path())
        .args(["monitor", "0.05", "-n", "2"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let lines = table_lines(&out);
    // A clock unreadable at start means no clock columns at all, as sbc-bench decides.
    assert!(
        lines[0].starts_with("Time      CPU n/a    load"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with(":  n/aMHz     n/a  n/a  n/a  n/a  n/a  n/a  n/a   n/a°C        n/a"),
        "{}",
        lines[1]
    );
}

/// The architecture's monitor test: a temp tree whose counter files are rewritten
/// between two samples, read through the same open handles the monitor keeps.
#[test]
fn counters_rewritten_between_two_samples() {
    let d = tempfile::tempdir().unwrap();
    copy_tree(&fixture("rk3588"), d.path());
    let root = SysRoot::new(d.path());
    let setup = Setup::discover(&root, true);
    let mut sampler = Sampler::new(
        &root,
        &setup.layout,
        setup.thermal.as_ref(),
        setup.dc_in.clone(),
        SampleSpec::full(),
    );
    let a = sampler.sample();
    assert_eq!(a.policy_khz(4), Some(408_000));

    // 5 s of a NIC on cpu6: cpu6 all softirq, everyone else idle; cpu7 goes offline.
    let stat = std::fs::read_to_string(d.path().join("proc/stat")).unwrap();
    let mut out = String::new();
    for line in stat.lines() {
        let mut f: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let add = |f: &mut Vec<String>, i: usize, n: u64| {
            let v: u64 = f[i].parse().unwrap();
            f[i] = (v + n).to_string();
        };
        match f[0].as_str() {
            "cpu" => {
                add(&mut f, 4, 6 * 500);
                add(&mut f, 7, 500);
            }
            "cpu6" => add(&mut f, 7, 500),
            "cpu7" => continue,
            c if c.starts_with("cpu") => add(&mut f, 4, 500),
            _ => {}
        }
        out.push_str(&f.join(" "));
        out.push('\n');
    }
    let w = |rel: &str, v: &str| std::fs::write(d.path().join(rel), v).unwrap();
    w("proc/stat", &out);
    w("sys/devices/system/cpu/online", "0-6\n");
    w(
        "sys/devices/system/cpu/cpufreq/policy6/scaling_cur_freq",
        "2304000\n",
    );
    // A driver answering garbage mid-run: that column alone becomes n/a.
    w(
        "sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq",
        "garbage\n",
    );
    w("sys/devices/virtual/thermal/thermal_zone0/temp", "85100\n");
    w("proc/loadavg", "1.02 0.61 0.44 2/212 4243\n");
    w(
        "proc/vmstat",
        "nr_free_pages 1\npswpin 4294967290\npswpout 100\n",
    );
    std::thread::sleep(Duration::from_millis(20));
    let b = sampler.sample();

    let iv = Interval::new(&a, &b);
    assert!(iv.elapsed_s > 0.0);
    let u = iv.usage.unwrap();
    assert!((u.cpu_pct - 100.0 / 7.0).abs() < 1e-9, "{u:?}");
    assert_eq!(u.irq_pct, u.cpu_pct);
    let busy = iv.busiest.unwrap();
    assert_eq!((busy.cpu, busy.cpu_pct, busy.irq_pct), (6, 100.0, 100.0));
    assert_eq!(iv.cpus_gone, vec![7]);
    assert_eq!(iv.policy_khz(6), Some(2_304_000));
    assert_eq!(iv.temp_c, Some(85.1));
    assert_eq!(iv.swap_in_pages_per_s.map(|r| r > 0.0), Some(true));
    let row = render::row(
        &setup.layout,
        &TableOptions {
            busiest: true,
            ..Default::default()
        },
        &iv,
        "12:00:00",
    );
    assert_eq!(
        row,
        "12:00:00: 1416/ n/a/2304MHz  1.02  14%   0%   0%   0%   0%  14%  85.1°C  cpu6 100%"
    );
}

#[test]
fn sigint_exits_zero_promptly() {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sbc-bench"))
        .args(["monitor", "0.2"])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let sent = Instant::now();
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("monitor did not stop after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Well inside shutdown::GRACE (3 s), after which the signal thread would exit 130.
    assert!(took < Duration::from_millis(2500), "{took:?}");
    let lines = table_lines(&out.stdout);
    assert!(lines.len() >= 3, "{lines:?}");
}

#[test]
fn closed_pipe_ends_quietly() {
    // `sbc-bench -m | head -3`: the reader goes away; we stop with 0, no panic message.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sbc-bench"))
        .args(["monitor", "0.05"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(t0.elapsed() < Duration::from_secs(10), "still running");
        std::thread::sleep(Duration::from_millis(10));
    };
    let out = child.wait_with_output().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn help_mentions_the_options() {
    bin()
        .args(["monitor", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--count").and(predicate::str::contains("--cores")));
}

fn sysroot(board: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(board)
}

/// Every tree a user can point `--sysroot` at: the info boards and the monitor trees.
fn every_tree() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["tests/fixtures/sysroots", "tests/fixtures/monitor"] {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut trees: Vec<PathBuf> = std::fs::read_dir(&base)
            .expect("fixture dir")
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        trees.sort();
        v.extend(trees);
    }
    v
}

/// The since-boot line of each board's tree shows the figures of its corpus log's head
/// (iostat's averages since boot, uptime's load); the next line, with counters that did
/// not move, says `n/a` instead of inventing 0 %.
#[test]
fn sysroot_trees_show_since_boot_figures_then_na() {
    for (board, first) in [
        // 41BH: load 0.73, iostat 4.30 user 0.34 system 0.14 iowait; 9.00 V DC-in.
        (
            "rock-5b",
            ": 1008/ 816/ 816MHz  0.73   4%   0%   4%   0%   0%   0%  31.5°C   9.00  cpu0   4%",
        ),
        // 4pzj: 21.36 user, 4.40 system, 0.40 iowait.
        (
            "rpi4",
            ": 1100MHz  0.12  26%   4%  21%   0%   0%   0%  35.0°C  cpu0  26%",
        ),
        // XRRi: 2.53 user, 0.53 system, 0.41 iowait; three clock columns as sbc-bench.
        (
            "x86-hybrid-meteorlake",
            ": 4500/3287/ 400MHz  1.44   3%   0%   2%   0%   0%   0%  50.0°C  cpu0   3%",
        ),
        // The offline cpu3 has no line in /proc/stat, the total still counts its past.
        (
            "orangepi-pcplus",
            ": 1368MHz  0.16   2%   1%   1%   0%   0%   0%  31.6°C  cpu0   2%",
        ),
    ] {
        let out = bin()
            .arg("--sysroot")
            .arg(sysroot(board))
            .args(["monitor", "0.05", "-n", "2"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let lines = table_lines(&out);
        assert_eq!(lines.len(), 3, "{board}: {lines:?}");
        assert!(lines[1].ends_with(first), "{board}: {}", lines[1]);
        assert!(
            lines[2].contains("  n/a  n/a  n/a  n/a  n/a  n/a "),
            "{board}: {}",
            lines[2]
        );
        assert!(
            lines[2].trim_end().ends_with("n/a"),
            "{board}: {}",
            lines[2]
        );
    }
}

/// Meteor Lake: every CPU its own intel_pstate policy, two core types Linux names, three
/// classes the caches tell — sbc-bench's `cpu0/cpu12/cpu20` header (corpus log XRRi), and
/// the processor where a SoC would be.
#[test]
fn intel_hybrid_header_as_sbc_bench() {
    let out = bin()
        .arg("--sysroot")
        .arg(sysroot("x86-hybrid-meteorlake"))
        .args(["monitor", "0.05", "-n", "1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.starts_with("Ultra 9 185H, Kernel: x86_64, Userland: amd64\n"),
        "{text}"
    );
    let lines = table_lines(&out);
    assert!(
        lines[0].starts_with(
            "Time       cpu0/cpu12/cpu20    load %cpu %sys %usr %nice %io %irq   Temp"
        ),
        "{}",
        lines[0]
    );
}

/// Garbage in every file of every tree (counters, clocks, sensors, topology): the monitor
/// starts, prints its lines and exits 0, in table, `--cores` and `--json` form.
#[test]
fn garbage_in_every_file_of_every_tree_is_not_a_panic() {
    fn garbage_copy(src: &Path, dst: &Path, content: &[u8]) {
        std::fs::create_dir_all(dst).expect("mkdir");
        for e in std::fs::read_dir(src).expect("read_dir") {
            let e = e.expect("entry");
            let ty = e.file_type().expect("type");
            let to = dst.join(e.file_name());
            if ty.is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(e.path()).expect("link"), &to)
                    .expect("symlink");
            } else if ty.is_dir() {
                garbage_copy(&e.path(), &to, content);
            } else {
                std::fs::write(&to, content).expect("write");
            }
        }
    }
    let contents: &[&[u8]] = &[
        b"",
        b"garbage\r\n",
        b"\xff\xfe\x00\x01binary",
        b"cpu  1 2 3\ncpu0 18446744073709551615 1 1 1 1 1 1 1\n-99999999999999999999999\n",
    ];
    for tree in every_tree() {
        for (i, c) in contents.iter().enumerate() {
            let d = tempfile::tempdir().expect("tempdir");
            garbage_copy(&tree, d.path(), c);
            // Alternate the output form (each process costs start-up time on a slow CI).
            let extra: &[&[&str]] = if i % 2 == 0 {
                &[&["--cores"]]
            } else {
                &[&["--json"]]
            };
            for &extra in extra {
                let out = bin()
                    .arg("--sysroot")
                    .arg(d.path())
                    .args(["monitor", "0.02", "-n", "2"])
                    .args(extra)
                    .assert()
                    .success()
                    .get_output()
                    .clone();
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(!stderr.contains("panicked"), "{tree:?} {c:?}: {stderr}");
                let stdout = String::from_utf8_lossy(&out.stdout);
                if extra == ["--json"] {
                    assert_eq!(stdout.lines().count(), 2, "{tree:?} {c:?}: {stdout}");
                    for l in stdout.lines() {
                        serde_json::from_str::<serde_json::Value>(l)
                            .unwrap_or_else(|e| panic!("{tree:?} {c:?}: {e}: {l}"));
                    }
                } else {
                    assert_eq!(
                        table_lines(&out.stdout).len(),
                        3,
                        "{tree:?} {c:?}: {stdout}"
                    );
                }
            }
        }
    }
}

/// Each bad value gets a message that says what is wrong, not clap's generic tip.
#[test]
fn bad_values_say_what_is_wrong() {
    for (args, msg) in [
        (
            &["monitor", "0"][..],
            "invalid value '0' for '[SECONDS]': not between 10ms and 24h (e.g. 300, 90s",
        ),
        (
            &["monitor", "-1"],
            "invalid value '-1' for '[SECONDS]': not a duration (e.g. 300, 90s, 1.5m",
        ),
        (&["-m", "-0.5"], "invalid value '-0.5'"),
        (
            &["monitor", "abc"],
            "invalid value 'abc' for '[SECONDS]': not a duration (e.g. 300, 90s",
        ),
        (
            &["monitor", "--count", "0"],
            "invalid value '0' for '--count <N>': not a whole number of samples (1 or more)",
        ),
        (
            &["monitor", "-n", "-1"],
            "invalid value '-1' for '--count <N>': not a whole number of samples",
        ),
        (
            &["monitor", "1", "--count", "x"],
            "invalid value 'x' for '--count <N>': not a whole number of samples",
        ),
    ] {
        bin()
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(msg));
    }
}

/// A tree without proc/ and sys/ (a mistyped or unmounted capture) is refused before the
/// banner, and so is an unreadable CPUINFOFILE.
#[test]
fn bad_roots_are_refused_before_any_output() {
    let d = tempfile::tempdir().unwrap();
    bin()
        .arg("--sysroot")
        .arg(d.path())
        .args(["monitor", "0.1", "-n", "1"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("holds neither proc/ nor sys/"));
    bin()
        .env("CPUINFOFILE", d.path().join("missing"))
        .args(["-m", "0.1", "-n", "1"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("CPUINFOFILE="));
}
