//! `sbc-bench wrap` end to end: a fake benchmark script (tests/fixtures/wrap/fake-bench.sh)
//! run per cluster / core type over writable copies of fixture trees. The script writes
//! what it sees (its allowed CPUs, the tree's online files and governors) to a file, so
//! the confinement is observed from inside the command; the tree must be identical
//! after every kind of stop.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use crate::common::{copy_tree, sysroot};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wrap")
}

fn script() -> PathBuf {
    fixtures().join("fake-bench.sh")
}

/// Every file of a tree with its bytes, without the journal directory tuning creates.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(base: &Path, d: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_path_buf();
            if rel.starts_with("run") {
                continue;
            }
            let ty = e.file_type().unwrap();
            if ty.is_symlink() {
                out.insert(
                    rel,
                    fs::read_link(&p)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                );
            } else if ty.is_dir() {
                walk(base, &p, out);
            } else {
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

struct Setup {
    tmp: tempfile::TempDir,
    tree: PathBuf,
    before: BTreeMap<PathBuf, Vec<u8>>,
}

impl Setup {
    fn new(board: &str) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let tree = tmp.path().join("root");
        copy_tree(&sysroot(board), &tree);
        let before = files(&tree);
        Self { tmp, tree, before }
    }

    fn out(&self) -> PathBuf {
        self.tmp.path().join("seen.txt")
    }

    fn log(&self) -> PathBuf {
        self.tmp.path().join("wrap.log")
    }

    fn json(&self) -> PathBuf {
        self.tmp.path().join("wrap.json")
    }

    /// `sbc-bench --sysroot TREE --sysroot-writable wrap <args> --log L --json J …`, the
    /// fake script's settings in the environment.
    /// `args` up to `--`: the subcommand and its options; what follows `--` is the command.
    fn command(&self, mode: &str, status: i32, secs: u32, args: &[&str]) -> Std {
        let dd = args.iter().position(|a| *a == "--").unwrap_or(args.len());
        let (opts, cmd) = args.split_at(dd);
        let mut c = Std::new(assert_cmd::cargo::cargo_bin("sbc-bench"));
        c.env("NO_COLOR", "1")
            .env_remove("MODE")
            .env_remove("SBC_BENCH_SYSROOT")
            .env_remove("CPUINFOFILE")
            .env("FAKE_OUT", self.out())
            .env("FAKE_TREE", &self.tree)
            .env("FAKE_MODE", mode)
            .env("FAKE_STATUS", status.to_string())
            .env("FAKE_SECS", secs.to_string())
            .env("FAKE_FIXTURES", fixtures())
            .arg("--sysroot")
            .arg(&self.tree)
            // sbc-bench's -G must come first to be read as the mode; global options
            // may follow the subcommand.
            .args(opts)
            .arg("--sysroot-writable")
            .args(["--fake-benchmarks", "--unattended", "--log"])
            .arg(self.log())
            .arg("--json")
            .arg(self.json())
            .args(cmd)
            .stdin(Stdio::null());
        c
    }

    fn json_value(&self) -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(self.json()).unwrap()).unwrap()
    }

    /// What the script saw, one block per run.
    fn seen(&self) -> Vec<String> {
        fs::read_to_string(self.out())
            .unwrap_or_default()
            .split("BEGIN ")
            .filter(|b| !b.trim().is_empty())
            .map(str::to_string)
            .collect()
    }

    fn assert_tree_restored(&self) {
        let after = files(&self.tree);
        let changed: Vec<&PathBuf> = self
            .before
            .iter()
            .filter(|(p, b)| after.get(*p) != Some(*b))
            .map(|(p, _)| p)
            .collect();
        assert!(changed.is_empty(), "changed after the run: {changed:?}");
        assert_eq!(self.before.len(), after.len(), "files added or removed");
    }
}

fn host_cpus() -> Vec<u32> {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).unwrap();
    (0..nix::sched::CpuSet::count())
        .filter(|&i| set.is_set(i).unwrap_or(false))
        .map(|i| i as u32)
        .collect()
}

fn list(cpus: &[u32]) -> String {
    // Ranges as the kernel writes Cpus_allowed_list.
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

fn run_to_end(mut c: Std) -> (Option<i32>, String) {
    let out = c.output().unwrap();
    (
        out.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn online_of(block: &str, cpu: u32) -> Option<&str> {
    block
        .lines()
        .find_map(|l| l.strip_prefix(&format!("online cpu{cpu}=")))
}

#[test]
fn wrap_per_cluster_offline_others_on_rock_5b_is_applied_and_fully_undone() {
    let s = Setup::new("rock-5b");
    let sh = script();
    let (code, out) = run_to_end(s.command(
        "plain",
        0,
        0,
        &[
            "wrap",
            "--per-cluster",
            "--offline-others",
            "--",
            sh.to_str().unwrap(),
            "{cpus}",
            "{cluster}",
        ],
    ));
    assert_eq!(code, Some(0), "{out}");
    let seen = s.seen();
    assert_eq!(seen.len(), 4, "three clusters, then all cores: {seen:?}");
    assert!(seen[0].starts_with("args=0-3 cluster0"), "{}", seen[0]);
    assert!(seen[1].starts_with("args=4-5 cluster1"), "{}", seen[1]);
    assert!(seen[3].starts_with("args=0-7 all"), "{}", seen[3]);
    // On cores 4-5 every other CPU with an online file was offline (cpu0 has none, as on
    // the board), and the governors were tuned.
    for cpu in [1, 2, 3, 6, 7] {
        assert_eq!(online_of(&seen[1], cpu), Some("0"), "cpu{cpu}: {}", seen[1]);
    }
    for cpu in [4, 5] {
        assert_eq!(online_of(&seen[1], cpu), Some("1"), "{}", seen[1]);
    }
    assert!(
        seen[1].contains("governor policy4=performance"),
        "{}",
        seen[1]
    );
    // Every CPU back for the all-core run.
    for cpu in 1..8 {
        assert_eq!(online_of(&seen[3], cpu), Some("1"), "{}", seen[3]);
    }
    s.assert_tree_restored();
    let j = s.json_value();
    let runs = j["wrap"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    assert_eq!(
        runs[1]["confinement"]["offlined"],
        serde_json::json!([1, 2, 3, 6, 7])
    );
    assert_eq!(
        runs[1]["exit"],
        serde_json::json!({"kind": "code", "value": 0})
    );
    assert_eq!(j["status"], "complete");
    let log = fs::read_to_string(s.log()).unwrap();
    assert!(
        log.contains("System health while running fake-bench.sh on cores 4-5 (Cortex-A76):"),
        "{log}"
    );
    assert!(log.contains("Runs of fake-bench.sh (local time):"), "{log}");
    assert!(log.contains("fake output line"), "stderr tail in the log");
}

#[test]
fn wrap_per_core_type_sets_the_affinity_on_meteor_lake() {
    let s = Setup::new("x86-hybrid-meteorlake");
    let sh = script();
    let (code, out) = run_to_end(s.command(
        "plain",
        0,
        0,
        &[
            "wrap",
            "--per-core-type",
            "--",
            sh.to_str().unwrap(),
            "{cpus}",
        ],
    ));
    assert_eq!(code, Some(0), "{out}");
    let host = host_cpus();
    let j = s.json_value();
    let runs = j["wrap"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "P-cores, E-cores, all cores");
    let seen = s.seen();
    let mut seen_i = 0;
    for (r, group) in runs
        .iter()
        .zip([(0..12).collect::<Vec<u32>>(), (12..22).collect()])
    {
        let usable: Vec<u32> = group.iter().copied().filter(|c| host.contains(c)).collect();
        if usable.is_empty() {
            // CPUs this machine does not have: skipped, not run unpinned.
            assert_eq!(r["exit"]["kind"], "skipped", "{r}");
        } else {
            let b = &seen[seen_i];
            seen_i += 1;
            assert!(
                b.contains(&format!("Cpus_allowed_list:\t{}", list(&usable))),
                "{b} vs {usable:?}"
            );
            assert_eq!(r["confinement"]["affinity"], serde_json::json!(usable));
        }
    }
    // The all-core run is not pinned.
    assert!(
        seen.last()
            .unwrap()
            .contains(&format!("Cpus_allowed_list:\t{}", list(&host))),
        "{seen:?}"
    );
    s.assert_tree_restored();
}

/// Start a wrap whose command sleeps, wait until the command is running (it writes a
/// marker), signal sbc-bench, and return its exit status.
fn signalled_while_running(sig: nix::sys::signal::Signal) -> (Setup, Option<i32>, String) {
    let s = Setup::new("rock-5b");
    let sh = script();
    let mut c = s.command(
        "plain",
        0,
        30,
        &[
            "wrap",
            "--per-cluster",
            "--offline-others",
            "--",
            sh.to_str().unwrap(),
        ],
    );
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let marker = PathBuf::from(format!("{}.started", s.out().display()));
    let deadline = Instant::now() + Duration::from_secs(60);
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the command never started");
        if let Ok(Some(st)) = child.try_wait() {
            panic!("sbc-bench ended before the command ran: {st}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (s, out.status.code(), text)
}

fn assert_stopped_and_reported(s: &Setup, text: &str) {
    let seen = fs::read_to_string(s.out()).unwrap();
    assert!(
        seen.contains("TERM ignored once"),
        "the command got SIGTERM: {seen}"
    );
    let j = s.json_value();
    assert_eq!(j["status"], "interrupted", "{text}");
    let runs = j["wrap"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "stopped in the first run");
    assert_eq!(runs[0]["interrupted"], true);
    // It ignored SIGTERM, so SIGKILL ended it.
    assert_eq!(
        runs[0]["exit"],
        serde_json::json!({"kind": "signal", "value": 9})
    );
    let log = fs::read_to_string(s.log()).unwrap();
    assert!(
        log.contains("The run was interrupted: the command was stopped."),
        "{log}"
    );
    s.assert_tree_restored();
}

#[test]
fn sigterm_to_sbc_bench_stops_the_command_and_still_reports() {
    let (s, code, text) = signalled_while_running(nix::sys::signal::Signal::SIGTERM);
    assert_eq!(code, Some(143), "{text}");
    assert_stopped_and_reported(&s, &text);
}

#[test]
fn sigint_to_sbc_bench_stops_the_command_and_still_reports() {
    let (s, code, text) = signalled_while_running(nix::sys::signal::Signal::SIGINT);
    assert_eq!(code, Some(130), "{text}");
    assert_stopped_and_reported(&s, &text);
}

#[test]
fn sigkill_of_the_command_is_reported_and_every_cpu_comes_back() {
    let s = Setup::new("rock-5b");
    let sh = script();
    let (code, out) = run_to_end(s.command(
        "killself",
        0,
        0,
        &[
            "wrap",
            "--per-cluster",
            "--offline-others",
            "--",
            sh.to_str().unwrap(),
        ],
    ));
    // Reported, not fatal: every run ran, the results are not trusted (exit 3).
    assert_eq!(code, Some(3), "{out}");
    let j = s.json_value();
    let runs = j["wrap"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4);
    for r in runs {
        assert_eq!(
            r["exit"],
            serde_json::json!({"kind": "signal", "value": 9}),
            "{r}"
        );
    }
    // The runs after a killed one still found every CPU back online first.
    let seen = s.seen();
    for cpu in 1..8 {
        assert_eq!(online_of(&seen[3], cpu), Some("1"), "{}", seen[3]);
    }
    let findings = j["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["code"] == "benchmark-failed"
            && f["message"]
                .as_str()
                .unwrap()
                .contains("killed by signal 9")),
        "{findings:?}"
    );
    s.assert_tree_restored();
}

#[test]
fn a_failing_command_is_reported_and_the_other_runs_go_on() {
    let s = Setup::new("x86-vm");
    let sh = script();
    let (code, out) = run_to_end(s.command(
        "plain",
        7,
        0,
        &["wrap", "--repeat", "2", "--", sh.to_str().unwrap()],
    ));
    assert_eq!(code, Some(3), "{out}");
    let j = s.json_value();
    let runs = j["wrap"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1]["label"], "fake-bench.sh on all cores (2nd run)");
    assert_eq!(
        runs[0]["exit"],
        serde_json::json!({"kind": "code", "value": 7})
    );
    assert!(out.contains("exit 7"), "the table of runs: {out}");
    assert_eq!(j["results_row"], serde_json::Value::Null);
}

#[test]
fn geekbench_mode_per_core_type_scores_and_compare_url() {
    let s = Setup::new("rock-5b");
    // The fake script stands in for geekbench6 on the PATH.
    let bin = s.tmp.path().join("bin");
    fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(script(), bin.join("geekbench6")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut c = s.command("geekbench", 0, 0, &["-G"]);
    c.env("PATH", path);
    let (code, out) = run_to_end(c);
    assert_eq!(code, Some(0), "{out}");
    let j = s.json_value();
    let runs = j["wrap"]["runs"].as_array().unwrap();
    let labels: Vec<&str> = runs.iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "geekbench6 on cores 0-3 (Cortex-A55)",
            "geekbench6 on cores 4-7 (Cortex-A76)",
            "geekbench6 on all cores",
            "geekbench6 on all cores (2nd run)"
        ]
    );
    // sbc-bench's way: the other CPUs offline.
    assert_eq!(
        runs[0]["confinement"]["offlined"],
        serde_json::json!([4, 5, 6, 7])
    );
    assert_eq!(
        runs[2]["score"]["url"],
        "https://browser.geekbench.com/v6/cpu/3456789"
    );
    assert_eq!(
        j["wrap"]["compare_url"],
        "https://browser.geekbench.com/v6/cpu/compare/3456789?baseline=3456789"
    );
    let log = fs::read_to_string(s.log()).unwrap();
    assert!(log.contains("All Geekbench results:"), "{log}");
    assert!(log.contains("System health while running geekbench6 on all cores (2nd run):"));
    s.assert_tree_restored();
}

#[test]
fn geekbench_mode_without_geekbench_says_so() {
    let s = Setup::new("x86-vm");
    let mut c = s.command("plain", 0, 0, &["wrap", "--geekbench"]);
    c.env("PATH", "/nonexistent");
    let (code, out) = run_to_end(c);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("Geekbench is not installed") && out.contains("never downloads"),
        "{out}"
    );
    assert!(!s.log().exists());
}

/// A real `wrap --per-cluster -- stress-ng …` on this machine. It has one cluster (an x86
/// VM), so there is no per-cluster run: one run on all cores, scored from stress-ng's
/// metrics.
#[test]
fn real_stress_ng_per_cluster_on_this_machine() {
    if which("stress-ng").is_none() {
        eprintln!("stress-ng is not installed: skipped");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("w.json");
    let log = tmp.path().join("w.log");
    let out = crate::common::bin()
        .args([
            "wrap",
            "--per-cluster",
            "--fake-benchmarks",
            "--unattended",
            "--log",
        ])
        .arg(&log)
        .arg("--json")
        .arg(&json)
        .args([
            "--",
            "stress-ng",
            "--cpu",
            "1",
            "-t",
            "2",
            "--metrics-brief",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    let runs = j["wrap"]["runs"].as_array().unwrap();
    let clusters = j["system_before"]["clusters"].as_array().unwrap().len();
    assert_eq!(runs.len(), if clusters > 1 { clusters + 1 } else { 1 });
    let last = runs.last().unwrap();
    assert_eq!(last["label"], "stress-ng on all cores");
    assert_eq!(
        last["exit"],
        serde_json::json!({"kind": "code", "value": 0})
    );
    let v = &last["score"]["values"][0];
    assert_eq!(v["name"], "cpu bogo ops/s (real time)");
    assert!(v["value"].as_f64().unwrap() > 0.0, "{v}");
    assert!(last["duration_s"].as_f64().unwrap() >= 2.0);
    let log = fs::read_to_string(&log).unwrap();
    assert!(
        log.contains("System health while running stress-ng on all cores:"),
        "{log}"
    );
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// SIGKILL of sbc-bench itself while CPUs are offline: nothing can run then, but the
/// journal written before each change lets the next guard (here `sbc-bench restore`) put
/// every CPU and governor back.
#[test]
fn sigkill_of_sbc_bench_is_restored_from_the_journal() {
    let s = Setup::new("rock-5b");
    let sh = script();
    let mut child = s
        .command(
            "plain",
            0,
            30,
            &[
                "wrap",
                "--per-cluster",
                "--offline-others",
                "--",
                sh.to_str().unwrap(),
            ],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let marker = PathBuf::from(format!("{}.started", s.out().display()));
    let deadline = Instant::now() + Duration::from_secs(60);
    while fs::read_to_string(&marker)
        .unwrap_or_default()
        .trim()
        .is_empty()
    {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The command has its own process group and outlives us: stop it.
    let pid: i32 = fs::read_to_string(&marker).unwrap().trim().parse().unwrap();
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    );
    // The first run is on cores 0-3: cpu4 is offline.
    let cpu4 = s.tree.join("sys/devices/system/cpu/cpu4/online");
    assert_eq!(
        fs::read_to_string(&cpu4).unwrap().trim(),
        "0",
        "killed while offline"
    );
    let out = crate::common::bin()
        .arg("--sysroot")
        .arg(&s.tree)
        .args(["--sysroot-writable", "restore"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    s.assert_tree_restored();
}

/// The kernel logs `CPU4: shutdown` when `--offline-others` takes cpu4 down: that is no
/// CPU killed mid-run. A CPU we never took down (cpu0 here) still is.
#[test]
fn cpus_we_took_offline_are_not_reported_as_killed() {
    let s = Setup::new("rock-5b");
    let sh = script();
    let (code, out) = run_to_end(s.command(
        "kmsg",
        0,
        0,
        &[
            "wrap",
            "--per-cluster",
            "--offline-others",
            "--",
            sh.to_str().unwrap(),
        ],
    ));
    assert_eq!(code, Some(3), "cpu0 was killed: results not trusted: {out}");
    let j = s.json_value();
    let killed: Vec<&str> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "cpus-killed-mid-run")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(killed.len(), 1, "{killed:?}");
    assert!(killed[0].starts_with("CPU(s) 0 were killed"), "{killed:?}");
}
