//! Every process's CPU time from `/proc/<pid>/stat`, to name what else ran when a
//! benchmark saw background activity. `/proc`'s numeric entries are procfs, not sysfs:
//! listing them is safe, and the count read is bounded ([`MAX_PROCESSES`]).

use serde::{Deserialize, Serialize};

use crate::sys::root::SysRoot;

/// `/proc/<pid>/<leaf>` (`exe`, `stat`) of a live process.
pub fn pid_path(pid: u32, leaf: &str) -> String {
    format!("/proc/{pid}/{leaf}")
}

/// Most processes read in one snapshot (a busy desktop has a few hundred; a fork bomb
/// must not make one snapshot take seconds).
pub const MAX_PROCESSES: usize = 2048;

/// One process's CPU time since it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessTicks {
    /// Process id.
    pub pid: u32,
    /// Parent process id (field 4).
    pub ppid: u32,
    /// Command name (field 2, without its parentheses; at most 15 bytes in the kernel).
    pub comm: String,
    /// User plus system time of all its threads (fields 14 and 15), clock ticks
    /// (`USER_HZ`). In a [`ProcessTally`]'s snapshot: the time counted for the process
    /// since the tally first saw it, its children's once they exited included.
    pub ticks: u64,
    /// User plus system time of its children that exited and were waited for (fields
    /// 16 and 17, `cutime` and `cstime`): how a `make` or a shell running many short
    /// compilers shows their work. 0 in a [`ProcessTally`]'s snapshot (counted in
    /// `ticks`) and in recordings made before it was read.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub child_ticks: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Parse a `/proc/<pid>/stat` line. The command name may hold spaces and parentheses
/// (`(tmux: server)`, `((sd-pam))`), so fields are counted after its last `)`. `None`
/// for anything malformed.
pub fn parse_stat(text: &str) -> Option<ProcessTicks> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    if close < open {
        return None;
    }
    let pid = text[..open].trim().parse().ok()?;
    let comm = text[open + 1..close].to_string();
    let f: Vec<&str> = text[close + 1..].split_whitespace().collect();
    // f[0] is field 3 (state).
    let field = |n: usize| -> Option<u64> { f.get(n - 3)?.parse().ok() };
    let ppid = u32::try_from(field(4)?).ok()?;
    let ticks = field(14)?.checked_add(field(15)?)?;
    // cutime and cstime are signed in the kernel (`long`); a negative or missing pair
    // (truncated lines of very old kernels) counts as none.
    let child_ticks = field(16)
        .zip(field(17))
        .and_then(|(u, s)| u.checked_add(s))
        .unwrap_or(0);
    Some(ProcessTicks {
        pid,
        ppid,
        comm,
        ticks,
        child_ticks,
    })
}

/// Every process of the root's `/proc` (at most [`MAX_PROCESSES`], lowest pids first),
/// without `exclude` and its children (our own process and the benchmarks it started:
/// they are the measurement, not the background). Processes that ended while listing
/// are skipped.
pub fn read_all(root: &SysRoot, exclude: Option<u32>) -> Vec<ProcessTicks> {
    root.list("/proc")
        .iter()
        .filter_map(|name| name.parse::<u32>().ok())
        .take(MAX_PROCESSES)
        .filter_map(|pid| parse_stat(&root.read_opt(format!("/proc/{pid}/stat"))?))
        .filter(|p| exclude.is_none_or(|own| p.pid != own && p.ppid != own))
        .collect()
}

/// A process's share of the CPU between two snapshots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessShare {
    /// Process id.
    pub pid: u32,
    /// Command name.
    pub comm: String,
    /// Percent of one core (a process with several busy threads exceeds 100, as in `top`).
    pub cpu_pct: f64,
}

/// The `n` processes that used the most CPU between `before` and `after` (`elapsed_s`
/// apart, ticks at `ticks_per_s`: `USER_HZ`, passed in, not assumed), busiest first; processes idle throughout are left out. A process that started
/// in between counts from zero; a pid reused by another command counts from zero too.
pub fn busiest(
    before: &[ProcessTicks],
    after: &[ProcessTicks],
    elapsed_s: f64,
    ticks_per_s: f64,
    n: usize,
) -> Vec<ProcessShare> {
    if elapsed_s <= 0.0 || ticks_per_s <= 0.0 {
        return Vec::new();
    }
    let total = |p: &ProcessTicks| p.ticks.saturating_add(p.child_ticks);
    let mut v: Vec<ProcessShare> = after
        .iter()
        .filter_map(|a| {
            let was = before
                .iter()
                .find(|b| b.pid == a.pid && b.comm == a.comm)
                .map_or(0, total);
            let used = total(a).checked_sub(was)?;
            (used > 0).then(|| ProcessShare {
                pid: a.pid,
                comm: a.comm.clone(),
                cpu_pct: used as f64 / ticks_per_s / elapsed_s * 100.0,
            })
        })
        .collect();
    v.sort_by(|a, b| b.cpu_pct.total_cmp(&a.cpu_pct).then(a.pid.cmp(&b.pid)));
    v.truncate(n);
    v
}

/// One process as a [`ProcessTally`] follows it.
#[derive(Debug, Clone)]
struct Tracked {
    pid: u32,
    ppid: u32,
    comm: String,
    /// `ticks` and `child_ticks` when last read.
    own: u64,
    children: u64,
    /// Time counted for it so far.
    counted: u64,
    /// It exited since the last snapshot.
    gone: bool,
}

/// Every process's CPU time followed across many readings, so that what ran between two
/// snapshots is counted even when it did not live to the second: a process read once in
/// between keeps the time it was seen with, and the time of children that exited goes to
/// the parent that waited for them (its `cutime`/`cstime`), less what was already counted
/// for them. Snapshots ([`ProcessTally::snapshot`]) are lists [`busiest`] compares.
#[derive(Debug, Clone, Default)]
pub struct ProcessTally {
    seen: Vec<Tracked>,
}

impl ProcessTally {
    /// Take one reading of every process ([`read_all`]).
    pub fn update(&mut self, now: &[ProcessTicks]) {
        let mut present = vec![false; self.seen.len()];
        // (index in `seen`, own delta, children delta) of the processes read now.
        let mut deltas: Vec<(usize, u64, u64)> = Vec::with_capacity(now.len());
        for p in now {
            let known = self
                .seen
                .iter()
                .position(|t| !t.gone && t.pid == p.pid && t.comm == p.comm);
            match known {
                Some(i) => {
                    let t = &mut self.seen[i];
                    deltas.push((
                        i,
                        p.ticks.saturating_sub(t.own),
                        p.child_ticks.saturating_sub(t.children),
                    ));
                    t.own = p.ticks;
                    t.children = p.child_ticks;
                    t.ppid = p.ppid;
                    present[i] = true;
                }
                None => {
                    // New since the last reading (or the pid reused by another command):
                    // everything it used happened since.
                    self.seen.push(Tracked {
                        pid: p.pid,
                        ppid: p.ppid,
                        comm: p.comm.clone(),
                        own: p.ticks,
                        children: p.child_ticks,
                        counted: p.ticks.saturating_add(p.child_ticks),
                        gone: false,
                    });
                    present.push(true);
                }
            }
        }
        // Exited since the last reading: the children time of the nearest ancestor still
        // here now holds all of it, of which the part read before is counted for the
        // child already. A chain that ended in one interval (`bash` → `timeout` →
        // `cargo`) lands whole in the first survivor's (`bash`'s) `cutime`: what was
        // read of each of them is taken off there, not off a parent that is gone too.
        let newly_gone: Vec<usize> = present
            .iter()
            .enumerate()
            .filter(|(i, is_present)| !**is_present && !self.seen[*i].gone)
            .map(|(i, _)| i)
            .collect();
        for &i in &newly_gone {
            let known = self.seen[i].own.saturating_add(self.seen[i].children);
            let mut ppid = self.seen[i].ppid;
            // A chain is at most as long as the processes followed.
            for _ in 0..=newly_gone.len() {
                if let Some(d) = deltas.iter_mut().find(|d| self.seen[d.0].pid == ppid) {
                    d.2 = d.2.saturating_sub(known);
                    break;
                }
                match newly_gone.iter().find(|&&g| self.seen[g].pid == ppid) {
                    Some(&g) => ppid = self.seen[g].ppid,
                    None => break,
                }
            }
        }
        for &i in &newly_gone {
            self.seen[i].gone = true;
        }
        for (i, own, children) in deltas {
            let t = &mut self.seen[i];
            t.counted = t.counted.saturating_add(own).saturating_add(children);
        }
    }

    /// Every process followed, with the time counted for it (those that exited since the
    /// last snapshot too, once), for [`busiest`]; exited ones are forgotten after.
    pub fn snapshot(&mut self) -> Vec<ProcessTicks> {
        let out = self
            .seen
            .iter()
            .map(|t| ProcessTicks {
                pid: t.pid,
                ppid: t.ppid,
                comm: t.comm.clone(),
                ticks: t.counted,
                child_ticks: 0,
            })
            .collect();
        self.seen.retain(|t| !t.gone);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// From a Raspberry Pi OS (Bookworm) `/proc/<pid>/stat`: a name with a space and a
    /// parenthesis, a kernel thread, and this machine's `cat`.
    const TMUX: &str = "1867 (tmux: server) S 1 1867 1867 0 -1 4194560 1843 0 0 0 153 96 0 0 20 0 1 0 3337 10113024 1100 18446744073709551615 1 1 0 0 0 0 0 3674112 134433283 0 0 0 17 1 0 0 0 0 0";
    const KWORKER: &str = "57 (kworker/1:1-events) I 2 0 0 0 -1 69238880 0 0 0 0 0 31 0 0 20 0 1 0 120 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 0 0 0 0";
    const CAT: &str = "23148 (cat) R 23142 23142 1867 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 1137530 3133440 360 18446744073709551615 93882764668928 93882764688809 140722302293472 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";

    #[test]
    fn parses_real_stat_lines() {
        assert_eq!(
            parse_stat(TMUX),
            Some(ProcessTicks {
                pid: 1867,
                ppid: 1,
                comm: "tmux: server".into(),
                ticks: 249,
                child_ticks: 0,
            })
        );
        let k = parse_stat(KWORKER).unwrap();
        assert_eq!(
            (k.comm.as_str(), k.ppid, k.ticks),
            ("kworker/1:1-events", 2, 31)
        );
        assert_eq!(parse_stat(CAT).unwrap().ppid, 23142);
        let odd = "5 ((sd-pam)) S 4 4 4 0 -1 0 0 0 0 0 7 3 0 0";
        assert_eq!(parse_stat(odd).unwrap().comm, "(sd-pam)");
        assert_eq!(parse_stat(odd).unwrap().ticks, 10);
        for bad in [
            "",
            "1 (x",
            "x (y) S 1",
            "1 (y) S",
            ") 1 (",
            "1 (y) S 1 1 1 0 -1 0 0 0 0 0 z 3",
        ] {
            assert_eq!(parse_stat(bad), None, "{bad:?}");
        }
    }

    fn write(root: &std::path::Path, pid: u32, line: &str) {
        let d = root.join(format!("proc/{pid}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("stat"), format!("{line}\n")).unwrap();
    }

    #[test]
    fn reads_a_trees_processes_without_ours_and_our_children() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), 1867, TMUX);
        write(d.path(), 57, KWORKER);
        write(d.path(), 23148, CAT);
        write(
            d.path(),
            23142,
            "23142 (sbc-bench) S 1867 0 0 0 -1 0 0 0 0 0 500 20 0 0",
        );
        std::fs::create_dir_all(d.path().join("proc/self")).unwrap();
        std::fs::create_dir_all(d.path().join("proc/4242")).unwrap(); // ended: no stat
        let root = SysRoot::new(d.path());
        let all: Vec<u32> = read_all(&root, None).iter().map(|p| p.pid).collect();
        assert_eq!(all, [57, 1867, 23142, 23148]);
        let others: Vec<u32> = read_all(&root, Some(23142)).iter().map(|p| p.pid).collect();
        assert_eq!(others, [57, 1867]);
        assert!(read_all(&SysRoot::new(d.path().join("none")), None).is_empty());
    }

    #[test]
    fn busiest_between_two_snapshots() {
        let p = |pid, comm: &str, ticks| ProcessTicks {
            pid,
            ppid: 1,
            comm: comm.into(),
            ticks,
            child_ticks: 0,
        };
        let before = [p(10, "stress", 100), p(11, "idle", 5), p(12, "old", 50)];
        let after = [
            p(10, "stress", 300),    // 200 ticks in 2 s: one core
            p(11, "idle", 5),        // nothing
            p(12, "new", 20),        // pid reused: 20 ticks from zero
            p(13, "kworker/0:1", 4), // started in between
        ];
        let top = busiest(&before, &after, 2.0, 100.0, 2);
        assert_eq!(top.len(), 2);
        assert_eq!((top[0].comm.as_str(), top[0].cpu_pct), ("stress", 100.0));
        assert_eq!((top[1].comm.as_str(), top[1].cpu_pct), ("new", 10.0));
        assert!(busiest(&before, &after, 0.0, 100.0, 3).is_empty());
    }

    fn stat(pid: u32, ppid: u32, comm: &str, ticks: u64, child_ticks: u64) -> ProcessTicks {
        ProcessTicks {
            pid,
            ppid,
            comm: comm.into(),
            ticks,
            child_ticks,
        }
    }

    /// `cutime` and `cstime` (fields 16 and 17): this x86 VM's pid 1, the supervisor
    /// that started every shell of a working day.
    #[test]
    fn exited_childrens_time_is_read() {
        let init = "1 (process_api) S 0 0 0 0 -1 4194560 138596 44741923 0 3957 441 2732 310636 27589 10 -10 18 0 25 57708544 4304 18446744073709551615 1 1 0 0 0 0 0 4096 1256 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0";
        let p = parse_stat(init).unwrap();
        assert_eq!((p.ticks, p.child_ticks), (3173, 338_225));
        // A line cut after stime: no children's time, not no process.
        let cut = "5 ((sd-pam)) S 4 4 4 0 -1 0 0 0 0 0 7 3";
        assert_eq!(parse_stat(cut).unwrap().child_ticks, 0);
    }

    /// Issue 28: processes were diffed between a phase's first and last snapshot by
    /// their own time only, so one that started and ended inside the phase was invisible:
    /// a 100 %-busy core during a 10-s phase was blamed on a kworker at 2 %. Here
    /// `apt-get` (seen once in between) and the compilers `make` ran and waited for
    /// (never seen) take the core, and are named.
    #[test]
    fn a_core_busy_with_processes_that_ended_inside_the_phase_is_blamed_on_them() {
        let mut t = ProcessTally::default();
        t.update(&[
            stat(100, 1, "sh", 10, 0),
            stat(300, 1, "make", 50, 0),
            stat(57, 2, "kworker/1:1", 31, 0),
        ]);
        let before = t.snapshot();
        // 4 s in: apt-get (child of sh) has used 3.5 s; make's compilers, 2 s so far.
        t.update(&[
            stat(100, 1, "sh", 10, 0),
            stat(200, 100, "apt-get", 350, 0),
            stat(300, 1, "make", 50, 200),
            stat(57, 2, "kworker/1:1", 41, 0),
        ]);
        // 10 s in: apt-get exited after 5 s in all (sh waited for it), make's compilers
        // took 3 s more; the old way sees none of this in sh or apt-get.
        t.update(&[
            stat(100, 1, "sh", 10, 500),
            stat(300, 1, "make", 50, 500),
            stat(57, 2, "kworker/1:1", 51, 0),
        ]);
        let after = t.snapshot();
        let old_way = busiest(
            &before,
            &[stat(57, 2, "kworker/1:1", 51, 0)],
            10.0,
            100.0,
            3,
        );
        assert_eq!(old_way[0].comm, "kworker/1:1");
        let top = busiest(&before, &after, 10.0, 100.0, 4);
        let named: Vec<(&str, f64)> = top.iter().map(|p| (p.comm.as_str(), p.cpu_pct)).collect();
        assert_eq!(
            named,
            [
                ("make", 50.0),
                ("apt-get", 35.0),
                ("sh", 15.0),
                ("kworker/1:1", 2.0)
            ]
        );
        // apt-get is gone: the next phase neither sees nor counts it.
        let next = t.snapshot();
        assert!(next.iter().all(|p| p.comm != "apt-get"));
        assert!(busiest(&after, &next, 1.0, 100.0, 3).is_empty());
    }

    /// Issue 28, seen on this VM: "Too busy for benchmarking: … busiest: bash 1667 %" on
    /// two cores. `bash` ran `timeout` which ran `cargo`; both ended in one 5-s poll, and
    /// bash's `cutime` took cargo's whole build at once. What was read of cargo is taken
    /// off bash's, though its own parent (`timeout`) is gone too.
    #[test]
    fn bash_running_timeout_cargo_is_not_blamed_with_their_whole_lifetime() {
        let mut t = ProcessTally::default();
        // 10 minutes into a build: cargo's children (rustc) have used 1000 s.
        t.update(&[
            stat(100, 1, "bash", 10, 0),
            stat(200, 100, "timeout", 1, 0),
            stat(300, 200, "cargo", 500, 100_000),
        ]);
        let before = t.snapshot();
        // 5 s later both are gone, with 4 s more of rustc: bash's cutime holds it all.
        t.update(&[stat(100, 1, "bash", 10, 1 + 500 + 100_400)]);
        let after = t.snapshot();
        let top = busiest(&before, &after, 5.0, 100.0, 3);
        let named: Vec<(&str, f64)> = top.iter().map(|p| (p.comm.as_str(), p.cpu_pct)).collect();
        assert_eq!(named, [("bash", 80.0)]);
    }

    #[test]
    fn busiest_counts_the_time_of_children_waited_for() {
        let before = [stat(300, 1, "make", 50, 0)];
        let after = [stat(300, 1, "make", 50, 450)];
        let top = busiest(&before, &after, 5.0, 100.0, 1);
        assert_eq!((top[0].comm.as_str(), top[0].cpu_pct), ("make", 90.0));
    }
}
