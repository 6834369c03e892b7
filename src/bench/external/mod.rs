//! Optional reference tools (`openssl`, `7z`, `smartctl`): find the binary, run it (pinned where
//! asked, stoppable with Ctrl-C), parse what it prints. Parsers are pure; nothing here is
//! needed for a native run, and a missing tool is a note, not a failure.

pub mod openssl;
pub mod sevenzip;
pub mod smartctl;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::bench::{BenchError, pin};
use crate::shutdown::CancellationToken;

/// The first of `names` found as an executable file in `path` (a `$PATH`-style list).
pub fn find_in(path: &std::ffi::OsStr, names: &[&str]) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    for name in names {
        for dir in std::env::split_paths(path) {
            let candidate = dir.join(name);
            if let Ok(meta) = std::fs::metadata(&candidate)
                && meta.is_file()
                && meta.permissions().mode() & 0o111 != 0
            {
                return Some(candidate);
            }
        }
    }
    None
}

/// The first of `names` found in `$PATH`.
pub fn find(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    find_in(&path, names)
}

/// What a finished child printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Exit status (`None` when killed by a signal).
    pub status: Option<i32>,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
    /// Wall-clock run time.
    pub elapsed: Duration,
}

/// Run `program args…` to completion and capture its output. With `cpu`, the child is
/// started from a thread pinned to that CPU and inherits the affinity (what `taskset -c`
/// does). The child is killed when `cancel` fires or after `timeout`.
pub fn run(
    program: &Path,
    args: &[String],
    cpu: Option<u32>,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<Output, BenchError> {
    match cpu {
        Some(cpu) => run_on_cpus(program, args, &[cpu], timeout, cancel),
        None => run_here(program, args, timeout, cancel),
    }
}

/// [`run`] restricted to a set of CPUs (`taskset -c 0-3`); an empty set means no
/// restriction.
pub fn run_on_cpus(
    program: &Path,
    args: &[String],
    cpus: &[u32],
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<Output, BenchError> {
    let go = || run_here(program, args, timeout, cancel);
    if cpus.is_empty() {
        return go();
    }
    pin::run_on_set(cpus, go)?
}

fn run_here(
    program: &Path,
    args: &[String],
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<Output, BenchError> {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| BenchError::Failed(format!("cannot start {}: {e}", program.display())))?;
    // Drain both pipes on their own threads so a chatty child never blocks on a full pipe.
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => break Err(format!("waiting for {}: {e}", program.display())),
        }
        if cancel.is_cancelled() || start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            let _ = out.join();
            let _ = err.join();
            if cancel.is_cancelled() {
                return Err(BenchError::Cancelled);
            }
            return Err(BenchError::Failed(format!(
                "{} did not finish within {} s and was stopped",
                program.display(),
                timeout.as_secs()
            )));
        }
        cancel.sleep(Duration::from_millis(50));
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let status = status.map_err(BenchError::Failed)?;
    Ok(Output {
        status: status.code(),
        stdout,
        stderr,
        elapsed: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_executables_in_a_path_list_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::create_dir(&a).unwrap();
        let tool = a.join("7za");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let not_exec = a.join("7z");
        std::fs::write(&not_exec, "").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([dir.path().join("missing"), a.clone()]).unwrap();
        assert_eq!(find_in(&path, &["7zz", "7z", "7za"]), Some(tool));
        assert_eq!(find_in(&path, &["openssl"]), None);
    }

    #[test]
    fn runs_a_child_pinned_and_captures_output() {
        let cpu = pin::allowed_cpus().first().copied().unwrap_or(0);
        let t = CancellationToken::new();
        let o = run(
            Path::new("/bin/sh"),
            &["-c".into(), "echo hello; echo oops >&2; exit 3".into()],
            Some(cpu),
            Duration::from_secs(10),
            &t,
        )
        .unwrap();
        assert_eq!(o.stdout, "hello\n");
        assert_eq!(o.stderr, "oops\n");
        assert_eq!(o.status, Some(3));
    }

    #[test]
    fn a_missing_program_is_an_error_not_a_panic() {
        let t = CancellationToken::new();
        let r = run(
            Path::new("/nonexistent/7z"),
            &[],
            None,
            Duration::from_secs(1),
            &t,
        );
        assert!(matches!(r, Err(BenchError::Failed(m)) if m.contains("cannot start")));
    }

    #[test]
    fn timeout_and_cancel_kill_the_child() {
        let t = CancellationToken::new();
        let start = Instant::now();
        let r = run(
            Path::new("/bin/sleep"),
            &["30".into()],
            None,
            Duration::from_millis(200),
            &t,
        );
        assert!(matches!(r, Err(BenchError::Failed(_))));
        t.cancel();
        let r = run(
            Path::new("/bin/sleep"),
            &["30".into()],
            None,
            Duration::from_secs(60),
            &t,
        );
        assert!(matches!(r, Err(BenchError::Cancelled)));
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
