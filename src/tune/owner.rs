//! Who changed a setting: a process named by its id, its start time and its executable,
//! as the crash journal records it.
//!
//! A process id alone is not a process: after a crash the id is soon given to another
//! (a shell, a cron job), and `kill(pid, 0)` then says "alive" for ever. The start time
//! (`/proc/<pid>/stat`'s 22nd field, clock ticks since boot) and the executable
//! (`/proc/<pid>/exe`) tell the run that wrote the journal from whatever holds its id now.

use std::path::PathBuf;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// A process that changed settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    /// Its process id.
    pub pid: u32,
    /// When it started: clock ticks since boot (`/proc/<pid>/stat`, field 22). Missing in
    /// journals of sbc-bench versions before 0.9 (format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<u64>,
    /// Its executable (`/proc/<pid>/exe`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exe: Option<PathBuf>,
}

/// Is a journal's owner still running?
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Liveness {
    /// This process.
    Us,
    /// The sbc-bench run that wrote it is running.
    Running,
    /// It is gone; `why` for the user (`process 4242 is gone`, `process 4242 is now
    /// another program`).
    Gone(String),
}

/// The start time in a `/proc/<pid>/stat` line: field 22, counted after the command
/// name's last `)` (the name may hold spaces and parentheses).
pub fn start_time_of(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// The command name (field 2) of a `/proc/<pid>/stat` line.
fn comm_of(stat: &str) -> Option<&str> {
    Some(&stat[stat.find('(')? + 1..stat.rfind(')')?])
}

/// `/proc/<pid>/exe` of a live process, without the ` (deleted)` the kernel adds when
/// the binary was replaced since (an upgrade while it runs). `None` when it cannot be
/// read (another user's process, without root).
fn exe_of(pid: u32) -> Option<PathBuf> {
    let p = std::fs::read_link(format!("/proc/{pid}/exe")).ok()?;
    let s = p.to_string_lossy();
    Some(match s.strip_suffix(" (deleted)") {
        Some(t) => PathBuf::from(t),
        None => p,
    })
}

/// The live system's `/proc/<pid>/stat` (process ids are the host's, whatever tree the
/// settings live in).
fn stat_of(pid: u32) -> Option<String> {
    SysRoot::host().read(format!("/proc/{pid}/stat")).ok()
}

fn is_sbc_bench(name: &str) -> bool {
    name.starts_with("sbc-bench")
}

impl Owner {
    /// This process.
    pub fn current() -> &'static Owner {
        static ME: OnceLock<Owner> = OnceLock::new();
        ME.get_or_init(|| {
            let pid = std::process::id();
            Owner {
                pid,
                start_time: stat_of(pid).as_deref().and_then(start_time_of),
                exe: exe_of(pid).or_else(|| std::env::current_exe().ok()),
            }
        })
    }

    /// Is this the current process (the same id *and* start time)?
    pub fn is_us(&self) -> bool {
        let me = Owner::current();
        self.pid == me.pid && self.start_time == me.start_time
    }

    /// Is the run that wrote this still running? Its id must belong to a process that
    /// started at the recorded time and runs the recorded executable; a format-1 entry
    /// (an id only) to a process whose executable or name is sbc-bench's.
    pub fn liveness(&self) -> Liveness {
        if self.is_us() {
            return Liveness::Us;
        }
        let gone = |why: &str| Liveness::Gone(format!("process {} {why}", self.pid));
        let Some(stat) = stat_of(self.pid) else {
            return gone("is gone");
        };
        let exe_now = exe_of(self.pid);
        match self.start_time {
            Some(t) => {
                if start_time_of(&stat) != Some(t) {
                    return gone("is gone (its id now belongs to a later process)");
                }
                if let (Some(want), Some(now)) = (&self.exe, &exe_now)
                    && want != now
                {
                    return gone("is gone (its id now belongs to another program)");
                }
                Liveness::Running
            }
            None => {
                let name_is_ours = match &exe_now {
                    Some(e) => e
                        .file_name()
                        .is_some_and(|n| is_sbc_bench(&n.to_string_lossy())),
                    None => comm_of(&stat).is_some_and(is_sbc_bench),
                };
                if name_is_ours {
                    Liveness::Running
                } else {
                    gone("is gone (its id now belongs to another program)")
                }
            }
        }
    }

    /// `process 4242 (/usr/bin/sbc-bench)`.
    pub fn describe(&self) -> String {
        match &self.exe {
            Some(e) => format!("process {} ({})", self.pid, e.display()),
            None => format!("process {}", self.pid),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_time_is_field_22_after_the_name() {
        let stat = "4242 (sbc (bench) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 987654 1000 10";
        assert_eq!(start_time_of(stat), Some(987_654));
        assert_eq!(comm_of(stat), Some("sbc (bench) x"));
        assert_eq!(start_time_of("garbage"), None);
    }

    #[test]
    fn we_are_us_and_running_and_a_made_up_start_time_is_not() {
        let me = Owner::current();
        assert!(me.start_time.is_some());
        assert_eq!(me.liveness(), Liveness::Us);
        let earlier = Owner {
            start_time: me.start_time.map(|t| t.wrapping_sub(1)),
            ..me.clone()
        };
        assert!(!earlier.is_us());
        assert!(matches!(earlier.liveness(), Liveness::Gone(_)));
    }

    // The attack: the crashed run's id now belongs to another process (here a `sleep`):
    // `kill(pid, 0)` said alive, and every run and `restore` refused for ever.
    #[test]
    fn a_reused_pid_is_not_a_live_run() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let v2 = Owner {
            pid,
            start_time: Some(1),
            exe: Some(PathBuf::from("/usr/bin/sbc-bench")),
        };
        assert!(matches!(v2.liveness(), Liveness::Gone(_)), "{v2:?}");
        // The right start time, but another program.
        let t = stat_of(pid).as_deref().and_then(start_time_of);
        let other = Owner {
            start_time: t,
            ..v2.clone()
        };
        assert!(matches!(other.liveness(), Liveness::Gone(_)));
        // A format-1 journal (an id only): `sleep` is not sbc-bench.
        let v1 = Owner {
            pid,
            start_time: None,
            exe: None,
        };
        assert!(matches!(v1.liveness(), Liveness::Gone(_)));
        // The process itself, as recorded: running.
        let same = Owner {
            pid,
            start_time: t,
            exe: exe_of(pid),
        };
        assert_eq!(same.liveness(), Liveness::Running);
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(matches!(same.liveness(), Liveness::Gone(_)));
    }
}
