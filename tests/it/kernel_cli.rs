//! `sbc-bench kernel` (and sbc-bench's `-k`) as users run it, over the fixture boards, with
//! `--release`, `--soc`, `--eol-data` and `--json`; every judgement on a fixed day
//! (`--today`), so the end-of-life texts and the table's age do not move with the clock.

use std::fs;

use crate::common::{bin, copy_tree, sysroot};

fn kernel(args: &[&str]) -> (i32, String, String) {
    let out = bin().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn board(name: &str, extra: &[&str]) -> (i32, String, String) {
    let root = sysroot(name);
    let mut args = vec!["--sysroot", root.to_str().unwrap(), "kernel"];
    if !extra.contains(&"--today") {
        args.extend(["--today", "2026-09-01"]);
    }
    args.extend_from_slice(extra);
    kernel(&args)
}

#[test]
fn kernel_over_rock_5b_names_rockchip_bsp_and_the_table_date() {
    let (rc, out, err) = board("rock-5b", &[]);
    assert_eq!(rc, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "Linux rock-5b 5.10.66-11-rockchip-geee2b32138fd aarch64 GNU/Linux"
    );
    assert_eq!(lines[1], "");
    assert_eq!(
        lines[2],
        "Kernel 5.10.66 is not latest 5.10.265 LTS that was released on 2026-08-19."
    );
    assert!(out.contains("from kernel.org. This device runs a Rockchip vendor/BSP kernel.\n"));
    assert!(out.contains("thousands of patches to a clean 5.10.66 LTS.\n"));
    assert!(
        out.ends_with(
            "\nEOL data: endoflife.date release table of 2026-08-22, 10 days old (built in).\n"
        ),
        "{out}"
    );
    assert!(!out.contains("Warning"), "a 10-day-old table is not stale");
}

#[test]
fn legacy_k_is_the_kernel_command() {
    let root = sysroot("orangepi-pcplus");
    let r = root.to_str().unwrap();
    let (rc, legacy, _) = kernel(&["--sysroot", r, "-k", "--today", "2026-09-01"]);
    let (_, long, _) = kernel(&["--sysroot", r, "kernel", "--today", "2026-09-01"]);
    assert_eq!(rc, 0);
    assert_eq!(legacy, long);
    assert!(legacy.contains("This device runs an Allwinner vendor/BSP kernel."));
}

#[test]
fn every_fixture_board_is_judged_or_says_why_not() {
    for (b, want) in [
        ("rock-5b", "This device runs a Rockchip vendor/BSP kernel."),
        (
            "orangepi-pcplus",
            "This device runs an Allwinner vendor/BSP kernel.",
        ),
        (
            "visionfive2",
            "This device runs a StarFive vendor/BSP kernel.",
        ),
        ("rpi5", "Kernel 6.6.69 is not latest 6.6.152 LTS"),
        ("rpi4", "Kernel 5.15.84 is not latest 5.15.216 LTS"),
        ("odroid-n2plus", "Kernel 6.1.11 is not latest 6.1.183 LTS"),
        ("nanopi-r5s", "this is Rockchip's BSP kernel"),
        ("x86-vm", "Not checked against kernel.org: x86_64 machines"),
        ("x86-hybrid-meteorlake", "Not checked against kernel.org:"),
    ] {
        let (rc, out, err) = board(b, &[]);
        assert_eq!(rc, 0, "{b}: {err}");
        assert!(out.contains(want), "{b}: want {want:?} in\n{out}");
        assert!(out.contains("EOL data: endoflife.date release table of 2026-08-22"));
    }
}

/// The NanoPi R5S runs Rockchip's 5.10.160 BSP or a mainline 5.10 alike; only the BSP logs
/// its PVTM calibration. A writable copy of the fixture with a kernel log decides.
#[test]
fn pvtm_in_the_kernel_log_of_a_nanopi_r5s_copy() {
    let d = tempfile::tempdir().unwrap();
    copy_tree(&sysroot("nanopi-r5s"), d.path());
    fs::create_dir_all(d.path().join("dev")).unwrap();
    let kmsg = d.path().join("dev/kmsg");
    let root = d.path().to_str().unwrap();
    let run = || {
        kernel(&[
            "--sysroot",
            root,
            "--sysroot-writable",
            "kernel",
            "--today",
            "2026-09-01",
        ])
    };
    fs::write(
        &kmsg,
        "6,0,0,-;Booting Linux on physical CPU 0x0000000000 [0x412fd050]\n\
         6,412,1905123,-;cpu cpu0: pvtm=1505\n\
         6,413,1905200,-;cpu cpu0: pvtm-volt-sel=3\n",
    )
    .unwrap();
    let (rc, out, _) = run();
    assert_eq!(rc, 0);
    assert!(
        out.contains("from kernel.org. This device runs a Rockchip vendor/BSP kernel."),
        "{out}"
    );
    assert!(!out.contains("could not be read"));
    fs::write(
        &kmsg,
        "6,0,0,-;Booting Linux on physical CPU 0x0000000000 [0x412fd050]\n",
    )
    .unwrap();
    let (_, out, _) = run();
    assert!(!out.contains("vendor/BSP"), "{out}");
    assert!(!out.contains("could not be read"));
}

#[test]
fn release_checks_a_string_without_the_board() {
    let (rc, out, _) = kernel(&[
        "kernel",
        "--release",
        "4.4.194-rk322x",
        "--soc",
        "Rockchip RK3229",
        "--today",
        "2026-09-01",
    ]);
    assert_eq!(rc, 0);
    assert_eq!(
        out.lines().take(12).collect::<Vec<_>>(),
        [
            "Kernel release 4.4.194-rk322x (given with --release), SoC Rockchip RK3229",
            "",
            "Kernel version 4.4.194 is not covered by any active release cycle any more.",
            "",
            "See https://endoflife.date/linux for details. It is highly likely countless",
            "exploitable vulnerabilities do exist for this kernel as well as tons of bugs.",
            "",
            "This device runs a forward ported Rockchip vendor/BSP kernel.",
            "",
            "The 4.4 series has reached end-of-life on 2022-02-03 with version 4.4.302.",
            "",
            "EOL data: endoflife.date release table of 2026-08-22, 10 days old (built in).",
        ]
    );
    // Without a SoC the vendor rules cannot apply, and the output says so; this machine's
    // own SoC is not used for someone else's release.
    let (_, out, _) = kernel(&["kernel", "--release", "5.10.160", "--today", "2026-09-01"]);
    assert!(out.contains("No SoC known"), "{out}");
    assert!(!out.contains("vendor/BSP"));
    // With a tree, its SoC (an RK3588) judges the given release.
    let root = sysroot("rock-5b");
    let (_, out, _) = kernel(&[
        "--sysroot",
        root.to_str().unwrap(),
        "kernel",
        "--release",
        "6.1.75",
        "--today",
        "2026-09-01",
    ]);
    assert!(out.starts_with("Kernel release 6.1.75 (given with --release), SoC Rockchip RK3588"));
    assert!(out.contains("This device runs a Rockchip vendor/BSP kernel."));
    let (rc, _, err) = kernel(&["kernel", "--release", ""]);
    assert_eq!(rc, 2);
    assert!(err.contains("not a kernel release"), "{err}");
}

#[test]
fn a_stale_table_is_said_to_be_stale() {
    let (_, out, _) = kernel(&["kernel", "--release", "6.12.104", "--today", "2026-12-01"]);
    assert!(
        out.contains(
            "According to https://endoflife.date/linux this kernel version is up to date."
        )
    );
    assert!(out.contains("release table of 2026-08-22, 101 days old (built in)."));
    assert!(
        out.contains("Warning: the EOL data is older than 90 days"),
        "{out}"
    );
}

/// A table in the older endoflife.date layout whose newest series is 6.12: upstream
/// sbc-bench sorted 6.6 after 6.12 (as decimals), took the Pi 5's 6.6 kernel for a newer
/// series and said nothing. Ours judges it.
#[test]
fn eol_data_file_and_the_decimal_sort_regression() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("linux.json");
    fs::write(
        &file,
        r#"[
  {"cycle":"6.12","releaseDate":"2024-11-17","eol":"2026-12-31","latest":"6.12.10","latestReleaseDate":"2025-01-17","lts":true},
  {"cycle":"6.6","releaseDate":"2023-10-30","eol":"2026-12-31","latest":"6.6.80","latestReleaseDate":"2025-02-27","lts":true},
  {"cycle":"6.1","releaseDate":"2022-12-11","eol":"2027-12-31","latest":"6.1.125","latestReleaseDate":"2025-01-17","lts":true}
]"#,
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let (rc, out, err) = board("rpi5", &["--eol-data", f, "--today", "2025-03-01"]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        out.contains(
            "Kernel 6.6.69 is not latest 6.6.80 LTS that was released on 2025-02-27.\n\n\
             See https://endoflife.date/linux for details. Perhaps some kernel bugs have\n"
        ),
        "{out}"
    );
    // The line is wrapped at 80 columns; the temporary path makes it long.
    assert!(out.contains("EOL data: endoflife.date release table of 2025-02-27, 2 days old"));
    assert!(out.contains(&format!("{f}).\n")), "{out}");
    // 6.12 is the newest series of that table: not judged, as sbc-bench.
    let (_, out, _) = kernel(&["kernel", "--release", "6.12.3", "--eol-data", f]);
    assert!(
        out.contains("the 6.12 series is the newest in the EOL data"),
        "{out}"
    );
}

#[test]
fn broken_eol_data_is_a_usage_error() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad.json");
    fs::write(&bad, "{\"releases\": ").unwrap();
    let wrong = d.path().join("wrong.json");
    fs::write(&wrong, r#"{"result": {"name": "linux"}}"#).unwrap();
    for (file, want) in [
        (bad.clone(), "not JSON"),
        (wrong, "not an endoflife.date release table"),
        (d.path().join("missing.json"), "cannot read"),
        (d.path().to_path_buf(), "not a regular file"),
    ] {
        let (rc, out, err) = kernel(&["kernel", "--eol-data", file.to_str().unwrap()]);
        assert_eq!(rc, 2, "{file:?}");
        assert!(out.is_empty());
        assert!(err.starts_with("error: --eol-data "), "{err}");
        assert!(err.contains(want), "{file:?}: {err}");
    }
    // A FIFO is refused at once, not waited on.
    let fifo = d.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let (rc, _, err) = kernel(&["kernel", "--eol-data", fifo.to_str().unwrap()]);
    assert_eq!(rc, 2);
    assert!(err.contains("not a regular file"), "{err}");
}

#[test]
fn json_is_one_versioned_document() {
    let (rc, out, _) = board("rock-5b", &["--json"]);
    assert_eq!(rc, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema"], "sbc-bench-kernel");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["uname"]["nodename"], "rock-5b");
    assert_eq!(v["release"], "5.10.66-11-rockchip-geee2b32138fd");
    assert_eq!(v["eol_data"]["snapshot"], "2026-08-22");
    assert_eq!(v["eol_data"]["age_days"], 10);
    assert_eq!(v["eol_data"]["stale"], false);
    let a = &v["assessment"];
    assert_eq!(a["version"]["series"], "5.10");
    assert_eq!(a["standing"]["standing"], "behind");
    assert_eq!(a["standing"]["behind"], 199);
    assert_eq!(a["standing"]["lag"], "lots");
    assert_eq!(a["standing"]["cycle"]["eol"], "2026-12-31");
    assert_eq!(a["bsp"]["vendor"], "RockchipGki");
    assert!(v["text"].as_array().unwrap().len() > 5);
    let (_, out, _) = board("x86-vm", &["--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["assessment"]["skip"]["reason"], "x86");
    assert_eq!(v["text"].as_array().unwrap().len(), 0);
}
