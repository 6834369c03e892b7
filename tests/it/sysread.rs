//! Reads of system files that could hang: refused or given up, and named in a note.

use std::fs;

use crate::common::{bin, copy_tree, sysroot};

fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn info_over_a_fifo_in_the_sysroot_answers_and_names_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot("rock-5b"), &root);
    let stat = root.join("proc/meminfo");
    let _ = fs::remove_file(&stat);
    mkfifo(&stat);
    let out = bin()
        .arg("--sysroot")
        .arg(&root)
        .arg("info")
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Note: gave up on 1 system file, shown as n/a: /proc/meminfo (a FIFO, not a regular file)"),
        "{err}"
    );
    assert!(!out.stdout.is_empty());
}

#[test]
fn info_over_a_healthy_sysroot_prints_no_note() {
    let out = bin()
        .arg("--sysroot")
        .arg(sysroot("rock-5b"))
        .arg("info")
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("gave up on"), "{err}");
}
