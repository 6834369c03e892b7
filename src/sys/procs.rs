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
    /// (`USER_HZ`).
    pub ticks: u64,
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
    Some(ProcessTicks {
        pid,
        ppid,
        comm,
        ticks,
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
    let mut v: Vec<ProcessShare> = after
        .iter()
        .filter_map(|a| {
            let was = before
                .iter()
                .find(|b| b.pid == a.pid && b.comm == a.comm)
                .map_or(0, |b| b.ticks);
            let used = a.ticks.checked_sub(was)?;
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
                ticks: 249
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
}
