//! Results validation that contradicted itself or said nothing: one throttling verdict
//! from every source, cores killed and back mid-run, background activity that names its
//! phase, row and processes, and a machine without cpufreq. Runs over writable copies of
//! fixture trees; where the tree must change while the run goes on (the kernel log, the
//! CPUs in `/proc/stat`, processes), an executor changes it from inside a step.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{bin, copy_tree, sysroot as fixture};
use sbc_bench::bench::BenchError;
use sbc_bench::record::config::RunConfig;
use sbc_bench::record::finding::Finding;
use sbc_bench::record::run::RunReport;
use sbc_bench::report::export::ExportSink;
use sbc_bench::run::exec::{Call, Env, Executor, Fake};
use sbc_bench::run::host::CannedHost;
use sbc_bench::run::runner::{RunContext, Ui};
use sbc_bench::run::standard::execute;
use sbc_bench::shutdown::CancellationToken;
use sbc_bench::sys::root::SysRoot;

const PI_GET_THROTTLED: &str = "sys/devices/platform/soc/soc:firmware/get_throttled";

/// The "Results validation" block of a log or console text.
fn validation_block(text: &str) -> String {
    let start = text.find("Results validation:").expect("validation block");
    text[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("  * "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A fake run (the CLI) over a writable copy of `board` after `prep` changed it:
/// (stdout, log).
fn fake_cli_run(board: &str, prep: impl FnOnce(&Path)) -> (String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture(board), &root);
    prep(&root);
    let log = tmp.path().join("sbc-bench.log");
    let out = bin()
        .env_remove("MODE")
        .env_remove("NotReadyYet")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0) | Some(3)),
        "{:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        fs::read_to_string(&log).unwrap(),
    )
}

/// Raspberry Pi 4 whose firmware says `0x50005` (under-voltage and throttled now, both
/// since boot) while cpufreq's time-in-state is clean: sbc-bench's run printed "No
/// throttling" beside "firmware reports: under-voltage, currently throttled". One verdict
/// now: throttled, and the Results.md row says so.
#[test]
fn pi_get_throttled_0x50005_gives_one_throttled_verdict() {
    let (stdout, log) = fake_cli_run("rpi4", |root| {
        let f = root.join(PI_GET_THROTTLED);
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(&f, "50005\n").unwrap();
    });
    for text in [&stdout, &log] {
        let v = validation_block(text);
        assert!(!v.contains("No throttling"), "{v}");
        let verdicts: Vec<&str> = v
            .lines()
            .filter(|l| l.contains("throttl") && !l.contains("since last reboot"))
            .collect();
        assert_eq!(
            verdicts,
            ["  * Raspberry Pi firmware reports: under-voltage, currently throttled"],
            "{v}"
        );
    }
    // The sticky bits were set before the run: a warning of their own, not a verdict.
    assert!(log.contains(
        "  * Raspberry Pi firmware: under-voltage has occurred since last reboot, throttling has occurred since last reboot\n"
    ));
    let row = log.trim_end().lines().last().unwrap();
    assert!(row.contains("(throttled)"), "{row}");
}

/// The x86 VM has no cpufreq: its validation said nothing about throttling at all
/// ("n/a (nothing to validate)"); now it says throttling could not be judged.
#[test]
fn no_cpufreq_says_throttling_could_not_be_judged() {
    let (stdout, log) = fake_cli_run("x86-vm", |_| {});
    for text in [&stdout, &log] {
        let v = validation_block(text);
        assert!(
            v.contains("  * Throttling could not be judged (no cpufreq)\n"),
            "{v}"
        );
        assert!(!v.contains("No throttling"), "{v}");
    }
    assert!(!log.contains("n/a (nothing to validate)"));
    // cpufreq without statistics (intel_pstate): said too, in its own words.
    let (_, log) = fake_cli_run("x86-hybrid-meteorlake", |_| {});
    assert!(
        validation_block(&log)
            .contains("  * Throttling could not be judged (no cpufreq statistics)\n"),
        "{log}"
    );
}

struct Quiet;
impl Ui for Quiet {
    fn line(&mut self, _s: &str) {}
    fn step_started(&mut self, _what: &str) -> Box<dyn Fn(f64) + Sync> {
        Box::new(|_| {})
    }
    fn step_done(&mut self, _what: &str, _note: &str) {}
    fn confirm(&mut self, _warning: &str) -> bool {
        true
    }
}

/// A change to the tree made from inside a step.
type Change<'a> = Box<dyn FnMut(&Path) + 'a>;

/// Canned results; before the benchmark named `at` (`membw`, `memlat`…) returns, `change`
/// rewrites the tree. A change the monitor must see waits for its reads
/// ([`rewrite_and_wait_read`]): a fixed hold is a guess on a loaded machine (CI once saw
/// a 50 ms monitor miss 300 ms).
struct Meddling<'a> {
    root: PathBuf,
    changes: Vec<(&'static str, Change<'a>)>,
}

impl Executor for Meddling<'_> {
    fn run(&mut self, env: &Env<'_>, call: &mut dyn Call) -> Result<(), BenchError> {
        for (at, change) in &mut self.changes {
            if *at == call.name() {
                change(&self.root);
            }
        }
        Fake.run(env, call)
    }
}

/// Rewrite `path` in place with `text` (never empty on the way), then wait until something has read the new
/// contents `reads` times: the run's monitor, the only reader during a benchmark step.
/// In place, because the monitor keeps its counter files open and rereads them (a renamed
/// new file would never be seen). Gives up after 20 s, so a broken monitor fails the
/// assertion instead of hanging the test.
fn rewrite_and_wait_read(path: &Path, text: &str, reads: usize) {
    use std::os::unix::ffi::OsStrExt as _;
    use std::os::unix::fs::FileExt as _;
    // Never truncated to nothing first: a sample may read the file at any moment. A
    // shorter text leaves the old tail (the `intr`…`softirq` lines) for a moment, which
    // holds no `cpu` line.
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(text.as_bytes(), 0).unwrap();
    f.set_len(text.len() as u64).unwrap();
    drop(f);
    let cpath = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: plain inotify calls on a descriptor this function owns and closes.
    let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
    assert!(fd >= 0, "inotify_init1");
    let wd = unsafe { libc::inotify_add_watch(fd, cpath.as_ptr(), libc::IN_ACCESS) };
    assert!(wd >= 0, "inotify_add_watch");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut seen = 0;
    let mut buf = [0u8; 4096];
    let event = std::mem::size_of::<libc::inotify_event>();
    while seen < reads && std::time::Instant::now() < deadline {
        // SAFETY: reads into a buffer of the length given.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        // A watch on a file carries no name: every event is one read of it.
        seen += n as usize / event;
    }
    // SAFETY: closes the descriptor opened above.
    unsafe { libc::close(fd) };
}

fn library_run(root: &Path, exec: &mut dyn Executor) -> RunReport {
    let sysroot = SysRoot::new(root);
    let cfg = RunConfig {
        fake_benchmarks: true,
        unattended: true,
        ..Default::default()
    };
    let token = CancellationToken::new();
    let ctx = RunContext {
        root: &sysroot,
        cfg: &cfg,
        cancel: &token,
        sink: &ExportSink::new(),
        host: &CannedHost,
        monitor_interval: Duration::from_millis(50),
    };
    execute(&ctx, exec, &mut Quiet).unwrap()
}

fn append_kmsg(root: &Path, records: &[&str]) {
    let mut f = fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(root.join("dev/kmsg"))
        .unwrap();
    for r in records {
        writeln!(f, "{r}").unwrap();
    }
}

fn finding<'a>(r: &'a RunReport, code: &str) -> Option<&'a Finding> {
    r.findings.iter().find(|f| f.code == code)
}

/// A Raspberry Pi 4 whose kernel kills cpu1 during the memory bandwidth benchmark and
/// brings it back during memory latency (thermal hot-unplug, as the corpus log `46hs`
/// shows `CPU2: shutdown` over and over): the online mask is the same before and after,
/// so only the kernel log and the monitor's samples tell. Both are named.
#[test]
fn core_killed_mid_run_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture("rpi4"), &root);
    fs::create_dir_all(root.join("dev")).unwrap();
    append_kmsg(
        &root,
        &[
            "6,0,0,-;Booting Linux on physical CPU 0x0000000000 [0x410fd083]",
            "6,1,1000,-;Linux version 6.1.0-rpi7-rpi-v8",
        ],
    );
    let stat = fs::read_to_string(root.join("proc/stat")).unwrap();
    let without_cpu1: String = stat
        .lines()
        .filter(|l| !l.starts_with("cpu1 "))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut exec = Meddling {
        root: root.clone(),
        changes: vec![
            (
                "membw",
                Box::new(|r: &Path| {
                    append_kmsg(
                        r,
                        &[
                            "6,2,500000000,-;CPU1: shutdown",
                            "6,3,500000100,-;psci: CPU1 killed (polled 0 ms)",
                        ],
                    );
                    // The monitor must see the core gone, whatever the load on the
                    // machine running the test: two of its reads of the new file.
                    rewrite_and_wait_read(&r.join("proc/stat"), &without_cpu1, 2);
                }),
            ),
            (
                "memlat",
                Box::new(|r: &Path| {
                    append_kmsg(
                        r,
                        &[
                            "6,4,501000000,-;CPU1: Booted secondary processor 0x0000000001 [0x410fd083]",
                        ],
                    );
                    rewrite_and_wait_read(&r.join("proc/stat"), &stat, 1);
                }),
            ),
        ],
    };
    let r = library_run(&root, &mut exec);
    let f = finding(&r, "cpus-killed-mid-run").unwrap_or_else(|| panic!("{:#?}", r.findings));
    assert_eq!(
        f.message,
        "CPU(s) 1 were killed during the run and came back (kernel log: cpu1 shut down once; monitor: CPU(s) 1 seen offline)"
    );
    assert_eq!(f.severity, sbc_bench::record::finding::Severity::Invalid);
    assert!(
        finding(&r, "cpus-offlined").is_none(),
        "cpu1 is back at the end"
    );
}

/// Something else eats 15 % of a Raspberry Pi 4 during the single-threaded memory
/// latency benchmark: the finding used to give only "N% avg, N% max". It names the phase,
/// the worst row's time and utilisation, and the busiest other processes of the phase.
#[test]
fn background_activity_names_phase_interval_and_processes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture("rpi4"), &root);
    let proc_stat = |pid: u32, comm: &str, ticks: u64| {
        let d = root.join(format!("proc/{pid}"));
        fs::create_dir_all(&d).unwrap();
        fs::write(
            d.join("stat"),
            format!(
                "{pid} ({comm}) R 1 {pid} {pid} 0 -1 0 0 0 0 0 {ticks} 0 0 0 20 0 1 0 100 0 0\n"
            ),
        )
        .unwrap();
    };
    proc_stat(4242, "stress-ng", 100);
    proc_stat(77, "kworker/0:1", 10);
    proc_stat(1, "systemd", 500);
    let stat = fs::read_to_string(root.join("proc/stat")).unwrap();
    // Ten seconds of ticks on each of 4 CPUs: cpu0 all busy (the benchmark), cpu1 60 %
    // busy (the background), cpu2 and cpu3 idle: 40 % of all CPUs, 15 % over one core's
    // share (sbc-bench tolerates 5 % peak on four cores).
    let busier: String = stat
        .lines()
        .map(|l| {
            let mut f: Vec<u64> = l
                .split_whitespace()
                .skip(1)
                .map(|v| v.parse().unwrap_or(0))
                .collect();
            let (user, idle) = match l.split_whitespace().next() {
                Some("cpu") => (1600, 2400),
                Some("cpu0") => (1000, 0),
                Some("cpu1") => (600, 400),
                Some("cpu2" | "cpu3") => (0, 1000),
                _ => return format!("{l}\n"),
            };
            f[0] += user;
            f[3] += idle;
            let name = l.split_whitespace().next().unwrap_or_default();
            let nums: Vec<String> = f.iter().map(u64::to_string).collect();
            format!("{name} {}\n", nums.join(" "))
        })
        .collect();
    let proc_dir = root.join("proc");
    let mut exec = Meddling {
        root: root.clone(),
        changes: vec![(
            "memlat",
            Box::new(move |r: &Path| {
                for (pid, comm, ticks) in [(4242, "stress-ng", 160), (77, "kworker/0:1", 11)] {
                    fs::write(
                        proc_dir.join(format!("{pid}/stat")),
                        format!("{pid} ({comm}) R 1 {pid} {pid} 0 -1 0 0 0 0 0 {ticks} 0 0 0 20 0 1 0 100 0 0\n"),
                    )
                    .unwrap();
                }
                // Two monitor reads of the busier counters, however loaded the machine.
                rewrite_and_wait_read(&r.join("proc/stat"), &busier, 2);
            }),
        )],
    };
    let r = library_run(&root, &mut exec);
    let f = finding(&r, "background-other").unwrap_or_else(|| panic!("{:#?}", r.findings));
    let m = &f.message;
    assert!(
        m.starts_with("Too much other background activity: 15% avg, 15% max (worst during memory latency benchmark, "),
        "{m}"
    );
    assert!(
        m.contains(
            ": 40% cpu; busiest other processes of the phase (% of one core): stress-ng (4242) "
        ),
        "{m}"
    );
    assert!(m.contains(", kworker/0:1 (77) "), "{m}");
    assert!(!m.contains("systemd"), "idle all along: {m}");
    // The row's times are the health table's (HH:MM:SS-HH:MM:SS).
    let times: Vec<u8> = m
        .split("memory latency benchmark, ")
        .nth(1)
        .unwrap_or_default()
        .bytes()
        .take(17)
        .collect();
    let shape: String = times
        .iter()
        .map(|b| if b.is_ascii_digit() { 'N' } else { *b as char })
        .collect();
    assert_eq!(shape, "NN:NN:NN-NN:NN:NN", "{m}");
    // The monitor's process snapshots are in the report's recording, at phase boundaries.
    let rec = r.monitor.as_ref().unwrap();
    let p = rec.phase("memory latency benchmark").unwrap();
    assert!(rec.samples[p.start].processes.is_some());
    assert!(
        rec.samples[p.start + 1..p.end.unwrap()]
            .iter()
            .all(|s| s.processes.is_none())
    );
}

/// A board whose cpufreq keeps no `stats/time_in_state` (a Raspberry Pi 4 tree without
/// it): the monitor's clock samples judge instead of nothing. Clocks at the maximum
/// throughout give "No throttling"; a clock sampled at 600 of 1500 MHz during the memory
/// bandwidth benchmark is throttling, named with its phase.
#[test]
fn monitor_clock_drops_judge_throttling_without_cpufreq_statistics() {
    let policy = "sys/devices/system/cpu/cpufreq/policy0";
    let prep = |root: &Path| {
        copy_tree(&fixture("rpi4"), root);
        fs::remove_dir_all(root.join(policy).join("stats")).unwrap();
        fs::write(root.join(policy).join("scaling_cur_freq"), "1500000\n").unwrap();
    };
    let tmp = tempfile::tempdir().unwrap();
    let clean = tmp.path().join("clean");
    prep(&clean);
    let r = library_run(&clean, &mut Fake);
    let v: Vec<&str> = r.findings.iter().map(|f| f.message.as_str()).collect();
    assert!(v.contains(&"No throttling"), "{v:?}");
    let hot = tmp.path().join("hot");
    prep(&hot);
    let cur = hot.join(policy).join("scaling_cur_freq");
    let mut exec = Meddling {
        root: hot.clone(),
        changes: vec![(
            "membw",
            Box::new(move |_: &Path| fs::write(&cur, "600000\n").unwrap()),
        )],
    };
    let r = library_run(&hot, &mut exec);
    let f = finding(&r, "throttling").unwrap_or_else(|| panic!("{:#?}", r.findings));
    assert_eq!(
        f.message,
        "Throttling occured: cpu0 sampled at 600 MHz below 1500 MHz during memory bandwidth benchmark"
    );
    assert!(finding(&r, "no-throttling").is_none());
}
