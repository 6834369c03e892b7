//! `bench clock`, `bench membw`, `bench memlat` as users run them: real quick runs on this
//! machine, and runs over a fixture sysroot of an RK3399 board (two clusters, cpufreq).

use std::fs;
use std::path::Path;

use crate::common::{bin, json_of};
use predicates::prelude::*;

/// An RK3399 (NanoPi NEO4, kernel 5.10.63): cpu0-cpu3 Cortex-A53 on policy0, cpu4-cpu5
/// Cortex-A72 on policy4. cpuinfo and OPPs from the sbc-bench corpus; `MemAvailable` set to
/// 40 MiB to exercise the small-memory path.
fn rk3399(dir: &Path) {
    let cpuinfo = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/bench-cpu/RK3399-5.10.63-rockchip64.cpuinfo"),
    )
    .expect("fixture cpuinfo");
    let w = |rel: &str, v: &str| {
        let p = dir.join(rel);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(p, format!("{v}\n")).expect("write fixture");
    };
    w("proc/cpuinfo", cpuinfo.trim_end());
    w(
        "proc/meminfo",
        "MemTotal:        3969436 kB\nMemFree:          180000 kB\nMemAvailable:      40960 kB",
    );
    w("sys/devices/system/cpu/present", "0-5");
    w("sys/devices/system/cpu/online", "0-5");
    for (policy, cpus, opps, max) in [
        (
            0,
            "0 1 2 3",
            "408000 600000 816000 1008000 1200000 1416000 1512000",
            "1512000",
        ),
        (
            4,
            "4 5",
            "408000 600000 816000 1008000 1200000 1416000 1608000 1800000 2016000",
            "2016000",
        ),
    ] {
        let p = format!("sys/devices/system/cpu/cpufreq/policy{policy}");
        w(&format!("{p}/related_cpus"), cpus);
        w(&format!("{p}/scaling_available_frequencies"), opps);
        w(&format!("{p}/cpuinfo_min_freq"), "408000");
        w(&format!("{p}/cpuinfo_max_freq"), max);
        w(&format!("{p}/scaling_min_freq"), "408000");
        w(&format!("{p}/scaling_max_freq"), max);
        w(&format!("{p}/scaling_cur_freq"), max);
        w(&format!("{p}/scaling_governor"), "performance");
    }
}

#[test]
fn clock_on_this_machine() {
    let out = bin()
        .args(["bench", "clock", "--quick", "--cpus", "0"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // `--cpus` chose the CPU, so the heading names it.
    let heading = text
        .lines()
        .find(|l| l.starts_with("Checking cpufreq OPP"))
        .expect("heading");
    assert!(heading.ends_with(", measured on cpu0:"), "{text}");
    // Without cpufreq (this VM, CI runners): sbc-bench's line; with cpufreq and no root:
    // the current clock measured and the reason the OPPs were not walked.
    assert!(
        text.contains("No cpufreq support.  Measured: ")
            || text.contains("cpufreq OPPs not walked")
            || text.contains("Cpufreq OPP: "),
        "{text}"
    );
}

#[test]
fn clock_json_has_three_samples() {
    let v = json_of(&["bench", "clock", "--quick", "--json", "--cpus", "0"]);
    assert_eq!(v["benchmark"], "clock");
    let c = &v["checks"][0];
    assert_eq!(c["target"]["cpu"], 0);
    let samples = if c["walk"].is_object() {
        c["walk"]["opps"][0]["measured"]["samples_mhz"].clone()
    } else {
        c["measured"]["samples_mhz"].clone()
    };
    let samples = samples.as_array().expect("samples").clone();
    assert_eq!(samples.len(), 3);
    assert!(samples.iter().all(|s| s.as_f64().unwrap() > 0.0));
}

#[test]
fn bad_cpu_lists_are_usage_errors_and_missing_cpus_are_skipped() {
    for cmd in ["clock", "membw", "memlat"] {
        bin()
            .args(["bench", cmd, "--quick", "--cpus", "zero"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("not a CPU list"));
        bin()
            .args(["bench", cmd, "--quick", "--cpus", "-1"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "error: invalid value '-1' for '--cpus <LIST>': not a CPU list",
            ));
    }
    bin()
        .args(["bench", "clock", "--quick", "--cpus", "0-100000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("CPU numbers stop at 8191"));
}

/// The same input gives the same behaviour in all six commands: no CPU left → the reason
/// and an error on stderr, exit 1; with `--json` a valid document carrying the error.
#[test]
fn no_usable_cpu_is_one_error_for_every_command() {
    for cmd in ["clock", "membw", "memlat", "aes", "compress", "scrypt"] {
        bin()
            .args(["bench", cmd, "--quick", "--cpus", "4000"])
            .assert()
            .code(1)
            .stdout("")
            .stderr(
                predicate::str::contains("skipping cpu4000: no such CPU").and(
                    predicate::str::contains(
                        "Error: none of the requested CPUs can run a benchmark",
                    ),
                ),
            );
        let out = bin()
            .args(["bench", cmd, "--quick", "--json", "--cpus", "4000"])
            .assert()
            .code(1)
            .get_output()
            .stdout
            .clone();
        let v: serde_json::Value = serde_json::from_slice(&out).expect(cmd);
        assert_eq!(v["benchmark"], cmd);
        assert_eq!(
            v["error"], "none of the requested CPUs can run a benchmark",
            "{cmd}"
        );
        assert_eq!(v["skipped"][0]["cpu"], 4000, "{cmd}");
    }
}

#[test]
fn empty_khz_variables_are_unset_and_bad_ones_name_the_variable() {
    bin()
        .env("MaxKHz", "")
        .env("MinKHz", "")
        .args(["bench", "clock", "--quick", "--cpus", "0"])
        .assert()
        .success();
    bin()
        .env("MaxKHz", "abc")
        .args(["bench", "clock", "--quick", "--cpus", "0"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("invalid value 'abc' for 'MaxKHz'")
                .and(predicate::str::contains("--max-khz").not()),
        );
}

/// `--sysroot` describes another board; the code still runs here: the measurement must be
/// labelled as this host's, never with the fixture's core types or compared with its
/// cpufreq, and the fixture is never written.
#[test]
fn clock_over_a_fixture_board_measures_this_host_and_never_writes_to_it() {
    let d = tempfile::tempdir().unwrap();
    rk3399(d.path());
    let out = bin()
        .args([
            "--sysroot",
            d.path().to_str().unwrap(),
            "bench",
            "clock",
            "--quick",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("is not this machine: the benchmark measured this host's CPUs"),
        "{text}"
    );
    assert!(
        !text.contains("Cortex-A53") && !text.contains("Cortex-A72"),
        "{text}"
    );
    assert!(!text.contains("Cpufreq now: 1512"), "{text}");
    // The fixture's limits are untouched.
    let max = fs::read_to_string(
        d.path()
            .join("sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq"),
    )
    .unwrap();
    assert_eq!(max.trim(), "2016000");
}

#[test]
fn membw_quick_prints_tinymembench_lines_and_a_summary() {
    bin()
        .args(["bench", "membw", "--quick", "--cpus", "0"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("\nExecuting benchmark on cpu0")
                .and(predicate::str::contains(
                    "\n libc memcpy copy                                 : ",
                ))
                .and(predicate::str::contains("\n libc memchr scan "))
                .and(predicate::str::contains("\n libc memset fill "))
                .and(predicate::str::contains("libc: "))
                .and(predicate::str::contains("Memory performance:\n  * cpu0"))
                .and(predicate::str::contains("memcpy: ")),
        );
}

#[test]
fn membw_with_little_memory_uses_smaller_buffers_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    rk3399(d.path());
    let v = json_of(&[
        "--sysroot",
        d.path().to_str().unwrap(),
        "bench",
        "membw",
        "--quick",
        "--json",
        "--cpus",
        "0",
    ]);
    let r = &v["runs"][0]["result"];
    // 40 MiB available: both buffers together get a quarter, 5 MiB each.
    assert_eq!(r["buffers"]["bytes"], 5 * 1024 * 1024);
    let note = r["buffers"]["note"].as_str().unwrap();
    assert!(note.contains("only 40 MiB memory available"), "{note}");
    assert!(r["rows"].as_array().unwrap().len() >= 5);
}

#[test]
fn memlat_quick_prints_both_tables() {
    bin()
        .args(["bench", "memlat", "--quick", "--cpus", "0"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("block size : single random read / dual random read")
                .and(predicate::str::contains("      1024 : "))
                .and(predicate::str::contains("Executing ramlat on cpu0"))
                .and(predicate::str::contains(
                    "       size:  1x32  2x32  1x64  2x64 1xPTR 2xPTR 4xPTR 8xPTR\n",
                ))
                .and(predicate::str::contains("      8192k: "))
                .and(predicate::str::contains("Huge pages: ")),
        );
}

#[test]
fn memlat_json_is_typed() {
    let v = json_of(&["bench", "memlat", "--quick", "--json", "--cpus", "0"]);
    let r = &v["runs"][0]["result"];
    let rows = r["ramlat"]["rows"].as_array().unwrap();
    assert_eq!(rows[0]["size_bytes"], 4096);
    assert_eq!(rows[0]["ns"].as_array().unwrap().len(), 8);
    assert!(r["tinymembench"][0]["rows"][0]["single_ns"].is_number());
    // The JSON says how long each ramlat cell was measured (`--quick`: 3 ms).
    assert_eq!(r["ramlat"]["cell_ms"], 3.0);
}

#[test]
fn memlat_ramlat_ms_sets_the_cell_time_and_refuses_zero() {
    let v = json_of(&[
        "bench",
        "memlat",
        "--quick",
        "--json",
        "--cpus",
        "0",
        "--ramlat-ms",
        "1",
    ]);
    assert_eq!(v["runs"][0]["result"]["ramlat"]["cell_ms"], 1.0);
    bin()
        .args(["bench", "memlat", "--ramlat-ms", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--ramlat-ms"));
}

/// The OPP walk end to end through the library, on a writable copy of the Rock 5B fixture
/// with a fake measurement that reads back the limit the walk set (a board running 7 %
/// slow): every OPP is held, highest first, the `Cpufreq OPP:` lines are sbc-bench's, and
/// the limits and governor are as before afterwards.
#[test]
fn opp_walk_on_a_writable_fixture_copy_restores_everything() {
    use sbc_bench::bench::clock::{self, CheckInput, ClockMeasurement, WalkOptions};
    use sbc_bench::sys::root::SysRoot;

    let d = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysroots/rock-5b");
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", src.display()))
        .arg(d.path())
        .status()
        .expect("cp")
        .success();
    assert!(ok);
    let root = SysRoot::new(d.path());
    let pdir = |p: u32| {
        d.path()
            .join(format!("sys/devices/system/cpu/cpufreq/policy{p}"))
    };
    let snapshot = |p: u32| {
        ["scaling_min_freq", "scaling_max_freq", "scaling_governor"].map(|f| {
            fs::read_to_string(pdir(p).join(f))
                .unwrap_or_default()
                .trim()
                .to_string()
        })
    };
    let before: Vec<_> = [0, 4, 6].map(snapshot).to_vec();

    let (policies, topo) = sbc_bench::sys::cpu::read(&root);
    let (targets, _) = sbc_bench::bench::pin::targets(&topo, None, &[]);
    assert_eq!(
        targets.iter().map(|t| t.cpu).collect::<Vec<_>>(),
        vec![0, 4, 6]
    );
    let cancel = sbc_bench::shutdown::CancellationToken::new();
    let mut checks = Vec::new();
    for t in &targets {
        let policy = policies
            .iter()
            .find(|p| p.cpus.contains(&t.cpu))
            .unwrap()
            .id;
        let c = clock::check(
            CheckInput {
                root: &root,
                policies: &policies,
                target: t,
                cluster_cpus: topo.cluster_of(t.cpu).map(|c| c.cpus.clone()).unwrap(),
                only_cluster: false,
                permission: Ok(()),
                walk: WalkOptions::default(),
            },
            &cancel,
            &mut |_cpu| {
                let min: f64 = fs::read_to_string(pdir(policy).join("scaling_min_freq"))
                    .unwrap()
                    .trim()
                    .parse()
                    .unwrap();
                let max: f64 = fs::read_to_string(pdir(policy).join("scaling_max_freq"))
                    .unwrap()
                    .trim()
                    .parse()
                    .unwrap();
                assert_eq!(min, max, "the policy is held at one OPP while measuring");
                let mhz = max / 1000.0 * 0.93;
                Ok(ClockMeasurement::from_samples(
                    vec![mhz + 0.2, mhz, mhz - 0.2],
                    1,
                    0.01,
                ))
            },
            &mut |_, _| {},
        );
        checks.push(c);
    }
    let text = sbc_bench::report::log::clock::render(&checks, &[]);
    assert!(
        text.contains("\nChecking cpufreq OPP for cpu4-cpu5 (Cortex-A76):\n\nCpufreq OPP: 2400    Measured: 2232 (2232.200/2232.000/2231.800)     (-7.0%)\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "Cpufreq OPP:  408    Measured:  379    (379.640/379.440/379.240)     (-7.1%)\n"
        ),
        "{text}"
    );
    let walked: usize = checks
        .iter()
        .map(|c| c.walk.as_ref().map_or(0, |w| w.opps.len()))
        .sum();
    assert_eq!(walked, text.matches("Cpufreq OPP: ").count());
    assert!(
        checks
            .iter()
            .all(|c| c.walk.as_ref().is_some_and(|w| w.restore_errors.is_empty()))
    );
    let after: Vec<_> = [0, 4, 6].map(snapshot).to_vec();
    assert_eq!(before, after, "limits and governor restored");
}
