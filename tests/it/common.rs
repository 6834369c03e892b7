//! Helpers every part of the integration binary shares: the binary with a clean
//! environment, the fixture boards, and writable copies of fixture trees.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// Every fixture board under `tests/fixtures/sysroots/`.
pub const BOARDS: &[&str] = &[
    "rock-5b",
    "nanopi-r5s",
    "rpi4",
    "rpi5",
    "odroid-n2plus",
    "orangepi-pcplus",
    "visionfive2",
    "x86-vm",
    "x86-hybrid-meteorlake",
];

/// A fixture board's sysroot.
pub fn sysroot(board: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/sysroots")
        .join(board)
}

/// `sbc-bench` with none of the caller's environment that changes what it reads or
/// prints (sysroot, cpuinfo override, clock limits, results database, colour).
pub fn bin() -> Command {
    let mut c = Command::cargo_bin("sbc-bench").expect("binary built");
    c.env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .env_remove("MaxKHz")
        .env_remove("MinKHz")
        .env_remove("SBC_BENCH_DB")
        // No bundled 7-Zip from this machine's /usr/lib/sbc-bench: tests say which 7za runs.
        .env("SBC_BENCH_LIBDIR", "/nonexistent/sbc-bench-libdir")
        .env("NO_COLOR", "1");
    c
}

/// Run `sbc-bench ARGS`, expect success and parse its standard output as JSON.
pub fn json_of(args: &[&str]) -> serde_json::Value {
    let out = bin()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("JSON on standard output")
}

/// Copy a tree, keeping symlinks as symlinks (a writable fixture for governor changes).
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let ty = e.file_type().unwrap();
        let dst = to.join(e.file_name());
        if ty.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(e.path()).unwrap(), &dst).unwrap();
        } else if ty.is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// The published sbc-bench logs (`shared/corpus/sbc-bench/logs` beside the checkout, or
/// above a worktree; `SBC_BENCH_CORPUS` names another place), where present.
pub fn corpus_logs() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("SBC_BENCH_CORPUS") {
        return Some(PathBuf::from(d)).filter(|d| d.is_dir());
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .skip(1)
        .map(|a| a.join("shared/corpus/sbc-bench/logs"))
        .find(|d| d.is_dir())
}
