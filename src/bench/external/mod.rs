//! Optional reference tools (`openssl`, `7z`, `smartctl`, `vcgencmd`): find the binary, run
//! it (pinned where asked, bounded in time, stoppable with Ctrl-C), parse what it prints.
//! Parsers are pure; nothing here is needed for a native run, and a missing tool is a note,
//! not a failure.

pub mod extract;
pub mod openssl;
pub mod sevenzip;
pub mod smartctl;
pub mod vcgencmd;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::bench::{BenchError, pin};
use crate::shutdown::CancellationToken;

/// The first of `names` found as an executable file in `path` (a `$PATH`-style list).
pub fn find_in(path: &std::ffi::OsStr, names: &[&str]) -> Option<PathBuf> {
    let dirs: Vec<PathBuf> = std::env::split_paths(path).collect();
    find_in_dirs(&dirs, names)
}

/// The first of `names` found as an executable file in one of `dirs`, names first: the
/// best-liked name wins wherever it is.
pub fn find_in_dirs(dirs: &[PathBuf], names: &[&str]) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    for name in names {
        for dir in dirs {
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

/// Why a tool gave no output.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The program could not be started (not there, not executable).
    #[error("cannot start {program}: {reason}")]
    Start {
        /// The program.
        program: String,
        /// The system's reason.
        reason: String,
    },
    /// It did not finish in time; it was killed and abandoned.
    #[error("{program} did not finish within {} s and was stopped", .timeout.as_secs())]
    TimedOut {
        /// The program.
        program: String,
        /// The bound it ran past.
        timeout: Duration,
    },
    /// The cancellation token fired; the child was killed and abandoned.
    #[error("cancelled")]
    Cancelled,
    /// Waiting for it or reading its output failed.
    #[error("{0}")]
    Io(String),
}

impl From<ToolError> for BenchError {
    fn from(e: ToolError) -> Self {
        match e {
            ToolError::Cancelled => BenchError::Cancelled,
            other => BenchError::Failed(other.to_string()),
        }
    }
}

/// How long a finished child's output may take to reach its end: a grandchild that
/// inherited the pipes (a wrapper script's background job) may keep them open for ever.
const OUTPUT_GRACE: Duration = Duration::from_secs(2);

/// How often a running child is polled.
const POLL: Duration = Duration::from_millis(20);

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
        None => Ok(run_bounded(program, args, timeout, cancel)?),
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
    let go = || run_bounded(program, args, timeout, cancel).map_err(BenchError::from);
    if cpus.is_empty() {
        return go();
    }
    pin::run_on_set(cpus, go)?
}

/// Run `program args…` (`LC_ALL=C`, no stdin) and capture stdout and stderr, for at most
/// `timeout` or until `cancel` fires. The one runner of every external tool.
///
/// A child that overstays is killed and then abandoned, not waited for: a process stuck in
/// the kernel (a USB bridge that hangs on a SMART command, a firmware mailbox that never
/// answers) dies only when the kernel lets go, and it is reaped in the background then.
pub fn run_bounded(
    program: &Path,
    args: &[impl AsRef<std::ffi::OsStr>],
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<Output, ToolError> {
    let start = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ToolError::Start {
            program: program.display().to_string(),
            reason: e.to_string(),
        })?;
    // Drain both pipes on their own threads so a chatty child never blocks on a full pipe.
    let drain = |r: Option<Box<dyn Read + Send>>| {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            let _ = tx.send(String::from_utf8_lossy(&buf).into_owned());
        });
        rx
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
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                abandon(child);
                return Err(ToolError::Io(format!(
                    "waiting for {}: {e}",
                    program.display()
                )));
            }
        }
        if cancel.is_cancelled() {
            abandon(child);
            return Err(ToolError::Cancelled);
        }
        if start.elapsed() > timeout {
            abandon(child);
            return Err(ToolError::TimedOut {
                program: program.display().to_string(),
                timeout,
            });
        }
        cancel.sleep(POLL);
    };
    let elapsed = start.elapsed();
    let deadline = Instant::now() + OUTPUT_GRACE;
    let collect = |rx: mpsc::Receiver<String>| {
        rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .map_err(|_| {
                ToolError::Io(format!(
                    "{} exited but its output did not end",
                    program.display()
                ))
            })
    };
    let stdout = collect(out)?;
    let stderr = collect(err)?;
    Ok(Output {
        status: status.code(),
        stdout,
        stderr,
        elapsed,
    })
}

/// Kill `child` and reap it on a background thread, without waiting here.
fn abandon(mut child: std::process::Child) {
    let _ = child.kill();
    std::thread::spawn(move || {
        let _ = child.wait();
    });
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

    #[test]
    fn a_child_that_overstays_is_abandoned_not_waited_for() {
        // The shell is killed at the timeout; its `sleep` lives on holding the pipes, as a
        // process stuck on a hung USB bridge would. We return at once all the same.
        let t = CancellationToken::new();
        let start = Instant::now();
        let r = run_bounded(
            Path::new("/bin/sh"),
            &["-c", "sleep 5; echo late"],
            Duration::from_millis(200),
            &t,
        );
        assert!(
            matches!(&r, Err(ToolError::TimedOut { timeout, .. }) if *timeout == Duration::from_millis(200)),
            "{r:?}"
        );
        assert!(start.elapsed() < Duration::from_secs(3));
        // A child that exits but leaves a background job holding its output: we give up
        // on the output after the grace period instead of waiting for the job.
        let start = Instant::now();
        let r = run_bounded(
            Path::new("/bin/sh"),
            &["-c", "sleep 6 & echo early"],
            Duration::from_secs(10),
            &t,
        );
        assert!(
            matches!(&r, Err(ToolError::Io(m)) if m.contains("did not end")),
            "{r:?}"
        );
        assert!(start.elapsed() < Duration::from_secs(5));
    }
}
