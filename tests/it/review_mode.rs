//! Review mode (`sbc-bench review`, `-r`, `-j`, `-R`) over writable copies of fixture
//! trees with canned benchmarks: the tree afterwards equals the tree before byte for
//! byte, the Markdown review keeps the corpus reviews' headings and line formats, a
//! device change made by the reviewer's command gives sbc-bench's ATTENTION block,
//! SIGTERM in the waiting phase is a normal stop, and `ExecuteCommand`, `NOTUNING` and
//! `NotReadyYet` behave as in sbc-bench.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{bin, copy_tree, sysroot as fixture};

/// One entry of a tree, compared without following links.
#[derive(Debug, PartialEq, Eq)]
enum Node {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
}

/// Every path of a tree with its kind and content (files' bytes, links' targets).
fn tree(root: &Path) -> BTreeMap<PathBuf, Node> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Node>) {
        for e in fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let ty = e.file_type().unwrap();
            if ty.is_symlink() {
                out.insert(rel, Node::Link(fs::read_link(&p).unwrap()));
            } else if ty.is_dir() {
                out.insert(rel, Node::Dir);
                walk(root, &p, out);
            } else {
                out.insert(rel, Node::File(fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// The tree after equals the tree before, byte for byte. The one thing allowed to
/// appear is an empty `run/`: the crash journal's home (`/run/sbc-bench/tuning.json`,
/// removed once everything is restored), which every live system has.
fn assert_same_tree(before: &BTreeMap<PathBuf, Node>, root: &Path, what: &str) {
    let mut after = tree(root);
    if !before.contains_key(Path::new("run")) && after.get(Path::new("run")) == Some(&Node::Dir) {
        assert!(
            !after
                .keys()
                .any(|k| k.starts_with("run") && k != Path::new("run")),
            "{what}: the crash journal was left behind"
        );
        after.remove(Path::new("run"));
    }
    let changed: Vec<_> = before
        .iter()
        .filter(|(k, v)| after.get(*k) != Some(v))
        .map(|(k, _)| k.display().to_string())
        .chain(
            after
                .keys()
                .filter(|k| !before.contains_key(*k))
                .map(|k| format!("{} (new)", k.display())),
        )
        .collect();
    assert!(changed.is_empty(), "{what}: changed {changed:?}");
}

const PCI: &str = "sys/bus/pci/devices/0000:01:00.0";
const NIC: &str = "sys/class/net/eth0";

/// A writable copy of `board`; the ROCK 5B gets the ASM1164 SATA controller of the
/// ROCK 5 ITX review (`Speed 8GT/s (ok), Width x2 (ok), driver in use: ahci`) and a NIC.
fn board_copy(board: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture(board), &root);
    if board == "rock-5b" {
        let pci = root.join(PCI);
        fs::create_dir_all(&pci).unwrap();
        for (f, v) in [
            ("vendor", "0x1b21"),
            ("device", "0x1164"),
            ("class", "0x010601"),
            ("current_link_speed", "8.0 GT/s PCIe"),
            ("max_link_speed", "8.0 GT/s PCIe"),
            ("current_link_width", "2"),
            ("max_link_width", "2"),
        ] {
            fs::write(pci.join(f), format!("{v}\n")).unwrap();
        }
        fs::create_dir_all(root.join("sys/bus/pci/drivers/ahci")).unwrap();
        std::os::unix::fs::symlink("../../../bus/pci/drivers/ahci", pci.join("driver")).unwrap();
        let nic = root.join(NIC);
        fs::create_dir_all(&nic).unwrap();
        fs::write(nic.join("operstate"), "up\n").unwrap();
        fs::write(nic.join("speed"), "2500\n").unwrap();
        fs::write(nic.join("duplex"), "full\n").unwrap();
        let vul = root.join("sys/devices/system/cpu/vulnerabilities");
        fs::create_dir_all(&vul).unwrap();
        fs::write(vul.join("meltdown"), "Not affected\n").unwrap();
        fs::write(
            vul.join("spectre_v1"),
            "Mitigation; __user pointer sanitization\n",
        )
        .unwrap();
        fs::write(
            vul.join("spec_store_bypass"),
            "Mitigation; Speculative Store Bypass disabled via prctl\n",
        )
        .unwrap();
    }
    (tmp, root)
}

/// `sbc-bench --sysroot ROOT --sysroot-writable review --fake-benchmarks …` with the
/// output files in the temp dir.
fn review_cmd(tmp: &Path, root: &Path, extra: &[&str]) -> assert_cmd::Command {
    let mut c = bin();
    c.env_remove("MODE")
        .env_remove("NOTUNING")
        .env_remove("NotReadyYet")
        .env_remove("ExecuteCommand")
        .arg("--sysroot")
        .arg(root)
        .arg("--sysroot-writable")
        .args(["review", "--fake-benchmarks", "--unattended", "--log"])
        .arg(tmp.join("l.log"))
        .arg("--json")
        .arg(tmp.join("r.json"))
        .arg("--review")
        .arg(tmp.join("review.md"))
        .args(extra);
    c
}

struct Done {
    stdout: String,
    json: Value,
    markdown: String,
    log: String,
}

fn run_review(tmp: &Path, mut c: assert_cmd::Command) -> Done {
    let out = c.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Done {
        stdout,
        json: serde_json::from_str(&fs::read_to_string(tmp.join("r.json")).unwrap()).unwrap(),
        markdown: fs::read_to_string(tmp.join("review.md")).unwrap(),
        log: fs::read_to_string(tmp.join("l.log")).unwrap(),
    }
}

fn filtered() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(
        r"\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}",
        "DATE",
    );
    s.add_filter(
        r"sbc-bench v\d+\.\d+\.\d+ \(Rust\)",
        "sbc-bench vX.Y.Z (Rust)",
    );
    s
}

#[test]
fn review_over_boards_restores_the_tree_byte_for_byte_and_writes_the_review() {
    for board in ["rock-5b", "nanopi-r5s", "rpi5", "x86-vm"] {
        let (tmp, root) = board_copy(board);
        let before = tree(&root);
        let d = run_review(tmp.path(), review_cmd(tmp.path(), &root, &["--", "true"]));
        assert_same_tree(&before, &root, board);
        let rv = &d.json["review"];
        assert_eq!(d.json["status"], "complete", "{board}");
        assert!(
            d.json["results_row"].is_null(),
            "{board}: no Results.md row"
        );
        assert_eq!(rv["markdown"], d.markdown.as_str(), "{board}");
        let w = &rv["waiting"];
        assert_eq!(w["stopped_by"]["by"], "command_exited", "{board}");
        assert_eq!(w["command"]["exit_code"], 0, "{board}");
        assert_eq!(w["command"]["argv"][0], "true", "{board}");
        assert!(w["changed"].is_null(), "{board}: nothing changed");
        // The heat is a step of the run.
        let kinds: Vec<&str> = d.json["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["kind"].as_str())
            .collect();
        assert!(kinds.contains(&"scrypt"), "{board}: {kinds:?}");
        assert!(d.stdout.contains(&d.markdown), "{board}: printed");
        assert!(d.log.contains("Review (sbc-bench -r):"), "{board}");
        assert!(
            d.log.contains(&d.markdown),
            "{board}: the review is in the log"
        );
        filtered().bind(|| insta::assert_snapshot!(format!("review_md_{board}"), d.markdown));
    }
}

/// The headings of a review, in order.
fn headings(md: &str) -> Vec<&str> {
    md.lines().filter(|l| l.starts_with('#')).collect()
}

#[test]
fn headings_and_line_formats_match_the_corpus_reviews() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/sbc-bench/reviews");
    let itx = fs::read_to_string(corpus.join("Radxa-Rock-5-ITX.md")).unwrap();
    let (tmp, root) = board_copy("rock-5b");
    let d = run_review(tmp.path(), review_cmd(tmp.path(), &root, &["--", "true"]));
    let ours = headings(&d.markdown);
    // Every heading of ours is one a published review has.
    let mut all = std::collections::BTreeSet::new();
    let mut texts = Vec::new();
    for e in fs::read_dir(&corpus).unwrap().flatten() {
        let t = fs::read_to_string(e.path()).unwrap();
        texts.push(t);
    }
    for t in &texts {
        all.extend(
            headings(t)
                .into_iter()
                .filter(|h| h.starts_with("###"))
                .map(str::to_string),
        );
    }
    // sbc-bench's `ProvideReviewInfo` prints `### PCIe devices:` where no storage device
    // is listed; none of the corpus boards was reviewed without one.
    all.insert("### PCIe devices:".to_string());
    for h in ours.iter().skip(1) {
        assert!(all.contains(*h), "{h} is in no corpus review: {all:?}");
    }
    // In the ITX review's order (it has swap and storage, the fixture has not).
    let theirs = headings(&itx);
    let pos = |h: &str| {
        let h = if h == "### PCIe devices:" {
            "### PCIe and storage devices:"
        } else {
            h
        };
        theirs.iter().position(|t| *t == h)
    };
    let order: Vec<usize> = ours.iter().skip(1).filter_map(|h| pos(h)).collect();
    assert_eq!(
        order.len(),
        ours.len() - 1,
        "ours {ours:?}\ncorpus {theirs:?}"
    );
    assert!(order.windows(2).all(|w| w[0] < w[1]), "ours {ours:?}");
    for h in [
        "### General information:",
        "### Governors/policies (performance vs. idle consumption):",
        "### Clockspeeds (idle vs. heated up):",
        "### Performance baseline",
        "### PCIe devices:",
        "### Software versions:",
        "### Kernel info:",
    ] {
        assert!(ours.contains(&h), "{h} missing: {ours:?}");
    }
    // Each format matches lines of both the corpus review and ours.
    let formats = [
        r"^Tested with sbc-bench v\S+ .*on \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}\.",
        r"^The CPU features 3 clusters consisting of 2 different core types:$",
        r"^    cpufreq-policy\d: \S+ / \d+ MHz \([a-z_ ]+ / [\d ]+\)$",
        r"^    dmc: \S+ / \d+ MHz \([a-z_ ]+ / [\d ]+\)$",
        r"^    cpufreq-policy\d: performance / \d+ MHz$",
        r"^    /sys/module/pcie_aspm/parameters/policy: ",
        r"^Before at \d+\.\d°C:$",
        r"^After at \d+\.\d°C( \(throttled\))?:$",
        r"^    cpu\d-cpu\d \(Cortex-A\d+\): OPP: \d+, Measured: \d+ ( +\([+-]\d+\.\d%\))?$",
        r"^  \* cpu\d \(Cortex-A\d+\): memcpy: \d+\.\d MB/s, memchr: \d+\.\d MB/s, memset: \d+\.\d MB/s$",
        r"^  \* cpu\d \(Cortex-A\d+\) 16M latency: ([\d.]+ ){8}$",
        r"^  \* cpu\d \(Cortex-A\d+\) 128M latency: ([\d.]+ ){8}$",
        r"^  \* 7-zip MIPS \(3 consecutive runs\): \d+, \d+, \d+ \(\d+0 avg\), single-threaded: \d+$",
        r"^  \* `aes-256-cbc +(\d+\.\d\dk +){5}\d+\.\d\dk \(Cortex-A\d+\)`$",
        r"^  \* .*: Speed 8GT/s \(ok\), Width x2 \(ok\), driver in use: ahci",
        r"^  \* Vulnerability Spec store bypass: Mitigation; ",
        r"^  \* Vulnerability Spectre v1:        Mitigation; ",
        r"^  \* Kernel \S+ / CONFIG_HZ=\d+$",
    ];
    for f in formats {
        let re = regex_lite::Regex::new(f).unwrap();
        assert!(itx.lines().any(|l| re.is_match(l)), "corpus lacks {f}");
        assert!(
            d.markdown.lines().any(|l| re.is_match(l)),
            "ours lacks {f}:\n{}",
            d.markdown
        );
    }
    // Not-affected vulnerabilities are left out, as sbc-bench does.
    assert!(!d.markdown.contains("Meltdown"));
}

#[test]
fn a_device_change_during_the_command_gives_the_attention_block() {
    let (tmp, root) = board_copy("rock-5b");
    let script = format!(
        "echo 1 > {r}/{PCI}/current_link_width; echo down > {r}/{NIC}/operstate; \
         for f in {r}/sys/devices/system/cpu/cpufreq/policy0/scaling_governor \
         {r}/sys/class/devfreq/dmc/governor {r}/sys/module/pcie_aspm/parameters/policy; \
         do echo $(cat $f); done",
        r = root.display()
    );
    let d = run_review(
        tmp.path(),
        review_cmd(tmp.path(), &root, &["--", "sh", "-c", &script]),
    );
    let s = &d.stdout;
    let at = s
        .find("ATTENTION: status of PCIe devices has changed:")
        .unwrap_or_else(|| panic!("{s}"));
    let block = &s[at..];
    assert!(
        block.contains(
            "<   * SATA controller 1b21:1164: Speed 8GT/s (ok), Width x2 (ok), driver in use: ahci"
        ),
        "{block}"
    );
    assert!(
        block.contains(">   * SATA controller 1b21:1164: Speed 8GT/s (ok), Width x1 (downgraded), driver in use: ahci"),
        "{block}"
    );
    assert!(
        block.contains("<   * eth0: up, 2500 Mbps full duplex"),
        "{block}"
    );
    assert!(block.contains(">   * eth0: down"), "{block}");
    let w = &d.json["review"]["waiting"];
    assert_eq!(w["changed"], "pcie");
    // While the command ran, everything was tuned (cpufreq, devfreq, ASPM) …
    let tail: Vec<&str> = w["command"]["output_tail"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(tail, ["performance", "performance", "performance"]);
    // … and afterwards everything is back.
    let gov = |p: &str| fs::read_to_string(root.join(p)).unwrap();
    assert_eq!(
        gov("sys/devices/system/cpu/cpufreq/policy0/scaling_governor").trim(),
        fs::read_to_string(
            fixture("rock-5b").join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor")
        )
        .unwrap()
        .trim()
    );
    assert_eq!(
        gov("sys/module/pcie_aspm/parameters/policy"),
        fs::read_to_string(fixture("rock-5b").join("sys/module/pcie_aspm/parameters/policy"))
            .unwrap()
    );
    assert_eq!(
        gov("sys/class/devfreq/dmc/governor"),
        fs::read_to_string(fixture("rock-5b").join("sys/class/devfreq/dmc/governor")).unwrap()
    );
}

#[test]
fn sigterm_in_the_waiting_phase_restores_everything_and_writes_the_report() {
    let (tmp, root) = board_copy("rock-5b");
    let before = tree(&root);
    let json = tmp.path().join("r.json");
    let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
    let mut child = Std::new(exe)
        .env("NO_COLOR", "1")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .env_remove("ExecuteCommand")
        .env_remove("NOTUNING")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["review", "--fake-benchmarks", "--unattended", "--log"])
        .arg(tmp.path().join("l.log"))
        .arg("--json")
        .arg(&json)
        .arg("--review")
        .arg(tmp.path().join("review.md"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The waiting phase has begun once the JSON records it.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let waiting = fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|v| v["review"]["waiting"].is_object());
        if waiting {
            break;
        }
        if let Ok(Some(st)) = child.try_wait() {
            panic!("review ended before waiting: {st:?}");
        }
        assert!(Instant::now() < deadline, "no waiting phase within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_ne!(
        fs::read_to_string(root.join("sys/class/devfreq/dmc/governor")).unwrap(),
        fs::read_to_string(fixture("rock-5b").join("sys/class/devfreq/dmc/governor")).unwrap(),
        "tuned while waiting"
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The review's normal stop, as sbc-bench's trap: exit 0 (3 if validation objects).
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{:?}\n{stdout}",
        out.status
    );
    assert_same_tree(&before, &root, "after SIGTERM");
    let doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["status"], "complete");
    let w = &doc["review"]["waiting"];
    assert_eq!(w["stopped_by"]["by"], "signal");
    assert_eq!(w["stopped_by"]["signal"], 15);
    assert!(w["ended"].is_string());
    assert!(
        w["monitor"].is_object(),
        "the waiting phase's recording is kept"
    );
    assert!(stdout.contains("Results validation:"), "{stdout}");
    let log = fs::read_to_string(tmp.path().join("l.log")).unwrap();
    assert!(log.contains("At the stop:"), "{log}");
    assert!(
        fs::read_to_string(tmp.path().join("review.md"))
            .unwrap()
            .starts_with("# Radxa ROCK 5B\n")
    );
}

#[test]
fn execute_command_env_var_runs_instead_of_waiting() {
    let (tmp, root) = board_copy("nanopi-r5s");
    let mut c = review_cmd(tmp.path(), &root, &[]);
    c.env("ExecuteCommand", "echo from-env");
    let d = run_review(tmp.path(), c);
    assert!(
        d.stdout
            .contains("WARNING: ExecuteCommand is set to \"echo from-env\""),
        "{}",
        d.stdout
    );
    assert!(d.stdout.contains("Now executing \"echo from-env\""));
    let cmd = &d.json["review"]["waiting"]["command"];
    assert_eq!(cmd["argv"], serde_json::json!(["echo", "from-env"]));
    assert_eq!(cmd["output_tail"], serde_json::json!(["from-env"]));
    assert_eq!(cmd["exit_code"], 0);
    assert!(cmd["duration_s"].as_f64().is_some());
}

#[test]
fn a_failing_command_is_recorded_with_its_status() {
    let (tmp, root) = board_copy("x86-vm");
    let d = run_review(
        tmp.path(),
        review_cmd(
            tmp.path(),
            &root,
            &["--", "sh", "-c", "echo oops >&2; exit 7"],
        ),
    );
    let cmd = &d.json["review"]["waiting"]["command"];
    assert_eq!(cmd["exit_code"], 7);
    assert_eq!(cmd["output_tail"], serde_json::json!(["oops"]));
    assert!(
        d.stdout
            .contains("Command \"sh -c echo oops >&2; exit 7\" exited with status 7")
    );
}

#[test]
fn notuning_leaves_governors_alone() {
    let (tmp, root) = board_copy("rock-5b");
    let before = tree(&root);
    let script = format!(
        "cat {r}/sys/devices/system/cpu/cpufreq/policy0/scaling_governor {r}/sys/class/devfreq/dmc/governor",
        r = root.display()
    );
    let mut c = review_cmd(tmp.path(), &root, &["--", "sh", "-c", &script]);
    c.env("NOTUNING", "yes");
    let d = run_review(tmp.path(), c);
    assert_same_tree(&before, &root, "NOTUNING");
    let tail = &d.json["review"]["waiting"]["command"]["output_tail"];
    assert_eq!(tail, &serde_json::json!(["ondemand", "dmc_ondemand"]));
    assert_eq!(d.json["tuning"], serde_json::json!([]));
    assert!(
        d.markdown
            .contains("### Performance baseline (NOTUNING=yes was set)")
    );
    assert!(!d.markdown.contains("Tuned governor settings:"));
}

#[test]
fn not_ready_yet_keeps_only_memory_benchmarks() {
    let (tmp, root) = board_copy("rpi5");
    let mut c = review_cmd(tmp.path(), &root, &["--", "true"]);
    c.env("NotReadyYet", "yes");
    let d = run_review(tmp.path(), c);
    let kinds: Vec<&str> = d.json["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["kind"].as_str())
        .collect();
    assert_eq!(
        kinds,
        ["clock_cold", "mem_bandwidth", "mem_latency", "clock_hot"]
    );
    assert!(d.markdown.contains("memcpy: "));
    assert!(!d.markdown.contains("7-zip"));
    assert!(!d.markdown.contains("aes-256-cbc"));
}

#[test]
fn dash_r_upper_is_review_without_benchmarks() {
    let (tmp, root) = board_copy("rock-5b");
    let before = tree(&root);
    let mut c = bin();
    c.env_remove("ExecuteCommand")
        .env_remove("NOTUNING")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .arg("-R")
        .args(["--fake-benchmarks", "--unattended", "--log"])
        .arg(tmp.path().join("l.log"))
        .arg("--json")
        .arg(tmp.path().join("r.json"))
        .arg("--review")
        .arg(tmp.path().join("review.md"))
        .args(["--", "true"]);
    let d = run_review(tmp.path(), c);
    assert_same_tree(&before, &root, "-R");
    assert_eq!(d.json["steps"], serde_json::json!([]));
    assert_eq!(d.json["review"]["benchmarks"], false);
    assert!(d.markdown.contains("Original governor settings:"));
    assert!(d.markdown.contains("Tuned governor settings:"));
    assert!(!d.markdown.contains("### Clockspeeds"));
    assert!(!d.markdown.contains("### Performance baseline"));
}

#[test]
fn dash_j_is_review_mode() {
    let (tmp, root) = board_copy("x86-vm");
    let mut c = bin();
    c.env_remove("ExecuteCommand")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .arg("-j")
        .args(["--fake-benchmarks", "--unattended", "--log"])
        .arg(tmp.path().join("l.log"))
        .arg("--json")
        .arg(tmp.path().join("r.json"))
        .arg("--review")
        .arg(tmp.path().join("review.md"))
        .args(["--", "true"]);
    let d = run_review(tmp.path(), c);
    assert_eq!(d.json["review"]["benchmarks"], true);
    // x86: no governors section (sbc-bench's HandleGovernors skips x86_64).
    assert!(!d.markdown.contains("### Governors/policies"));
    assert!(d.markdown.contains("### Clockspeeds (idle vs. heated up):"));
}

#[test]
fn a_disk_gone_during_the_command_is_a_storage_change() {
    // The Pi 5's SD card disappears from /sys/block while the reviewer's command runs
    // (a card that lost contact).
    let (tmp, root) = board_copy("rpi5");
    let script = format!("rm {}/sys/block/mmcblk0", root.display());
    let d = run_review(
        tmp.path(),
        review_cmd(tmp.path(), &root, &["--", "sh", "-c", &script]),
    );
    let s = &d.stdout;
    let at = s
        .find("ATTENTION: status of storage devices has changed:")
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        s[at..].contains("1d0\n<   * SD card as /dev/mmcblk0\n"),
        "{}",
        &s[at..]
    );
    assert_eq!(d.json["review"]["waiting"]["changed"], "storage");
    assert!(
        d.markdown
            .contains("### Storage devices:\n\n  * SD card as /dev/mmcblk0\n")
    );
}

/// The ROCK 5 ITX's PCIe devices and interrupts (tests/fixtures/pcie, built from the
/// seeds' `lspci -vv`) laid over the ROCK 5B tree: the review's PCIe section names the
/// controllers as sbc-bench does, adds the payload sizes with their efficiency and the IRQ
/// placement, and the findings reviewers made by hand are the review's findings.
#[test]
fn review_shows_pcie_payload_irq_placement_and_their_findings() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture("rock-5b"), &root);
    overlay(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pcie/rock-5-itx"),
        &root,
    );
    let before = tree(&root);
    let d = run_review(tmp.path(), review_cmd(tmp.path(), &root, &["--", "true"]));
    assert_same_tree(&before, &root, "rock-5b + rock-5-itx PCIe");
    let md = &d.markdown;
    assert!(
        md.contains("  * ASMedia ASM1164 Serial ATA AHCI: Speed 8GT/s (ok), Width x2 (ok), driver in use: ahci"),
        "{md}"
    );
    assert!(md.contains("MaxPayload"), "{md}");
    let codes: Vec<&str> = d.json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    for want in ["pcie-max-payload-below-capability", "pcie-link-downgraded"] {
        assert!(codes.contains(&want), "{want} missing from {codes:?}");
    }
    // The governors as the review found them (rock-5b: schedutil, dmc_ondemand).
    assert!(
        codes.iter().any(|c| c.starts_with("governor-")),
        "no governor advice in {codes:?}"
    );
}

/// Copy `from` over `to`: files replace files, links replace whatever was there.
fn overlay(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let ty = e.file_type().unwrap();
        let dst = to.join(e.file_name());
        if ty.is_dir() {
            overlay(&e.path(), &dst);
            continue;
        }
        if fs::symlink_metadata(&dst).is_ok_and(|m| !m.is_dir()) {
            fs::remove_file(&dst).unwrap();
        }
        if ty.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(e.path()).unwrap(), &dst).unwrap();
        } else {
            fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// Issue 28: `review --no-benchmarks` (sbc-bench's `-R`) waited for the machine to
/// become idle and gave up with "benchmark results would not be meaningful" although it
/// runs none: watching a loaded NAS or router is what it is for. sbc-bench waits only
/// when it benchmarks. The host's idle wait (not the canned one) over a tree whose load
/// is 3.00.
#[test]
fn review_without_benchmarks_starts_on_a_busy_machine() {
    let (tmp, root) = board_copy("rock-5b");
    fs::write(root.join("proc/loadavg"), "3.00 2.00 1.00 1/79 1\n").unwrap();
    let review = |extra: &[&str]| {
        let mut c = bin();
        c.env_remove("MODE")
            .env_remove("NOTUNING")
            .env_remove("NotReadyYet")
            .env_remove("ExecuteCommand")
            .arg("--sysroot")
            .arg(&root)
            .arg("--sysroot-writable")
            .args([
                "review",
                "--unattended",
                "--max-wait",
                "1",
                "--no-store",
                "--log",
            ])
            .arg(tmp.path().join("l.log"))
            .arg("--review")
            .arg(tmp.path().join("review.md"))
            .args(extra)
            .args(["--", "true"]);
        c.output().unwrap()
    };
    let out = review(&["--no-benchmarks"]);
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("Too busy for benchmarking"), "{text}");
    assert!(!text.contains("would not be meaningful"), "{text}");
    assert!(tmp.path().join("review.md").is_file(), "{text}");
    // With its benchmarks, review mode still waits, and gives up as the run does.
    let out = review(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("did not become idle within 1 s"), "{err}");
}
