//! `storage bench` hardened: a hard link swapped in for the test file is never written,
//! the file size limit (`ulimit -f`) ends the run with a message and no file left, small
//! filesystems are not refused by a fixed 32 MiB margin, bad input exits 2 and the
//! kernel's virtual filesystems are refused by name.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::bin;
use predicates::prelude::*;
use sbc_bench::bench::storage::{
    Event, StorageConfig, StorageError, StoragePhase, TEMP_PREFIX, run,
};
use sbc_bench::shutdown::CancellationToken;

/// The test files of runs in `dir`.
fn test_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
        .map(|e| e.path())
        .collect()
}

const PRECIOUS: &[u8] = b"someone else's data, not to be overwritten";

/// Rename a new hard link of `victim` over `target` (atomic: the path never disappears).
fn swap_in_hard_link(victim: &Path, target: &Path) {
    let link = victim.with_extension("link");
    std::fs::hard_link(victim, &link).unwrap();
    std::fs::rename(&link, target).unwrap();
}

/// The test file is swapped for a hard link to a victim file after the first pass; the
/// next reopen by path (O_NOFOLLOW does not stop hard links) used to open the victim and
/// the rewrite pass wrote 1 MiB into it. Now the device and inode are checked: the run
/// stops before the rewrite, the victim is untouched, and its link is left in place.
#[test]
fn hard_link_swapped_in_for_the_test_file_is_never_written() {
    let d = tempfile::tempdir().unwrap();
    let victim = d.path().join("victim.txt");
    std::fs::write(&victim, PRECIOUS).unwrap();
    let mut cfg = StorageConfig::new(d.path());
    cfg.size_bytes = 1 << 20;
    cfg.records = vec![64 << 10];
    let mut started = Vec::new();
    let mut swapped = None;
    let err = run(&cfg, &CancellationToken::new(), &mut |e| match e {
        Event::PassStarting { phase, .. } => started.push(phase),
        Event::PassDone { result, .. } if result.phase == StoragePhase::Write => {
            let files = test_files(d.path());
            assert_eq!(files.len(), 1, "{files:?}");
            swap_in_hard_link(&victim, &files[0]);
            swapped = Some(files[0].clone());
        }
        _ => {}
    })
    .unwrap_err();
    let swapped = swapped.expect("the write pass finished");
    assert!(
        matches!(&err, StorageError::Replaced { path } if *path == swapped),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("was replaced by another file during the run")
            && msg.contains("stopped without writing to it"),
        "{msg}"
    );
    assert_eq!(started, [StoragePhase::Write], "no pass after the swap");
    assert_eq!(std::fs::read(&victim).unwrap(), PRECIOUS);
    // The link swapped in is someone else's: not removed either.
    assert_eq!(std::fs::read(&swapped).unwrap(), PRECIOUS);
}

/// The same through the command line, with the swap done from outside while the binary
/// runs (as soon as its test file appears, long before its last reopen): exit status 1,
/// the message on stderr, the victim untouched.
#[test]
fn hard_link_swapped_in_mid_run_stops_the_cli() {
    let d = tempfile::tempdir().unwrap();
    let victim = d.path().join("victim.txt");
    std::fs::write(&victim, PRECIOUS).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("sbc-bench"))
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["--size", "64M", "-r", "4k", "--no-monitor"])
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let file = loop {
        if let Some(f) = test_files(d.path()).pop() {
            break f;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "test file never appeared"
        );
        if let Ok(Some(st)) = child.try_wait() {
            panic!("benchmark ended before its file could be swapped: {st}");
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    swap_in_hard_link(&victim, &file);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "Error: the test file {} was replaced by another file during the run",
            file.display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read(&victim).unwrap(), PRECIOUS);
    assert_eq!(std::fs::read(&file).unwrap(), PRECIOUS);
}

/// SIGXFSZ would kill the process silently at the file size limit and leave the test
/// file behind; it is ignored (no `trap` here: our own handling is what is tested), the
/// write fails with EFBIG, and the run says which limit stopped it, at which size, and
/// removes its file. bash counts `ulimit -f` in KiB: 2048 is 2 MiB.
#[test]
fn file_size_limit_is_named_and_the_file_removed() {
    let d = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(r#"ulimit -f 2048; exec "$0" storage bench "$1" --size 4M -r 64k --no-monitor"#)
        .arg(assert_cmd::cargo::cargo_bin("sbc-bench"))
        .arg(d.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "killed by a signal? {err}");
    assert_eq!(
        err,
        "Error: file size limit (ulimit -f) reached at 2 MiB: the test needs a 4 MiB file; \
         raise the limit (ulimit -f unlimited) or give a smaller --size (test file removed)\n"
    );
    assert!(test_files(d.path()).is_empty());
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}

/// A small tmpfs, mounted for the test; `None` where we may not mount.
struct SmallTmpfs {
    dir: tempfile::TempDir,
}

impl SmallTmpfs {
    fn new(size: &str) -> Option<Self> {
        if !nix::unistd::geteuid().is_root() {
            eprintln!(
                "skipped: mounting a tmpfs needs root (margin unit-tested in bench::storage)"
            );
            return None;
        }
        let dir = tempfile::tempdir().ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
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
}

impl Drop for SmallTmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

/// A 16 MiB tmpfs used to refuse an 8 MiB test (it wanted 8 + 32 MiB); the margin is
/// now 1/32 of the filesystem (1 MiB here), so it runs, and a file that leaves less
/// than that is still refused, saying the margin.
#[test]
fn small_tmpfs_is_not_refused_by_a_fixed_32_mib_margin() {
    let Some(m) = SmallTmpfs::new("16m") else {
        return;
    };
    bin()
        .args(["storage", "bench"])
        .arg(m.dir.path())
        .args(["--size", "8M", "-r", "1M", "--no-monitor"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Testing "));
    bin()
        .args(["storage", "bench"])
        .arg(m.dir.path())
        .args(["--size", "16M", "-r", "1M", "--no-monitor"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "the test needs 17 MiB (file plus 1 MiB margin)",
        ));
    assert_eq!(std::fs::read_dir(m.dir.path()).unwrap().count(), 0);
}

/// Usage errors exit 2 (README), printed as the CLI's other usage errors are.
#[test]
fn bad_paths_and_sizes_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("file");
    std::fs::write(&f, b"x").unwrap();
    bin()
        .args(["storage", "bench"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(format!(
            "error: {} is not a directory (give a directory on the filesystem to test)\n",
            f.display()
        ));
    bin()
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["--size", "1k"])
        .assert()
        .code(2)
        .stderr("error: the file size must be at least 4 KiB\n");
    bin()
        .args(["storage", "bench"])
        .arg(d.path())
        .args(["--size", "1k", "-r", "4k"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("larger than the file size 1 KiB"));
    bin()
        .args(["storage", "bench"])
        .arg(d.path().join("missing"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot use ").and(predicate::str::contains("missing")));
    assert_eq!(std::fs::read(&f).unwrap(), b"x");
}

/// `storage bench /proc` used to say "No such file or directory" (as root /proc looks
/// writable and has no size, then creating a file fails); the kernel's virtual
/// filesystems are refused naming their type.
#[test]
fn proc_and_sys_are_refused_as_virtual_filesystems() {
    for (dir, fs) in [("/proc", "proc"), ("/sys", "sysfs")] {
        if !Path::new(dir).is_dir() {
            continue;
        }
        bin()
            .args(["storage", "bench", dir, "--size", "1M"])
            .assert()
            .code(2)
            .stderr(format!(
                "error: {dir} is on {fs}, a virtual filesystem of the kernel, not storage: give a \
                 directory on the disk, card or USB drive to test\n"
            ));
    }
}
