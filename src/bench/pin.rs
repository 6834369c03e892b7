//! Where benchmarks run: choosing one CPU per cluster (as sbc-bench does) or the CPUs the
//! user asked for, and pinning threads there.
//!
//! A CPU that cannot be pinned (offline, hot-plugged away, outside our cgroup's cpuset) is
//! reported and skipped: a real Qualcomm board died in sbc-bench with "failed to set
//! affinity … division by 0".

use serde::{Deserialize, Serialize};

use crate::sys::cpu::Topology;
use crate::sys::cpu_list as list;

/// A CPU a benchmark runs on, with the names reports use for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// Logical CPU number.
    pub cpu: u32,
    /// Core type of that CPU (`Cortex-A76`), if known.
    pub core_type: Option<String>,
    /// Cluster index of that CPU, if known.
    pub cluster: Option<u32>,
}

impl Target {
    /// `cpu4 (Cortex-A76)` or `cpu4`.
    pub fn label(&self) -> String {
        match &self.core_type {
            Some(t) => format!("cpu{} ({t})", self.cpu),
            None => format!("cpu{}", self.cpu),
        }
    }
}

/// A requested CPU we will not run on, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The CPU asked for.
    pub cpu: u32,
    /// Why it was skipped, as a sentence.
    pub reason: String,
}

/// Errors pinning a thread.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    /// The kernel refused (CPU offline or outside our cpuset).
    #[error("cannot run on cpu{cpu}: {reason}")]
    Refused {
        /// CPU asked for.
        cpu: u32,
        /// Why.
        reason: String,
    },
    /// The benchmark thread panicked.
    #[error("benchmark thread on cpu{0} panicked")]
    Panicked(u32),
}

/// Parse `--cpus` (`1`, `0,4`, `0-3`). The error says what is wrong, not which option:
/// the caller words it as clap does (`invalid value 'x' for '--cpus <LIST>': …`).
pub fn parse_cpus(s: &str) -> Result<Vec<u32>, String> {
    if names_cpu_beyond_limit(s) {
        return Err(format!(
            "CPU numbers stop at {} (no kernel has more CPUs)",
            list::MAX_CPU - 1
        ));
    }
    match list::parse_list(s) {
        Some(v) if !v.is_empty() => Ok(v),
        _ => Err("not a CPU list (examples: 1, 0,4, 0-3)".to_string()),
    }
}

/// A well-formed list that only fails because it names a CPU at or above
/// [`list::MAX_CPU`] (which [`list::parse_list`] would refuse or cut).
fn names_cpu_beyond_limit(s: &str) -> bool {
    s.split(',').any(|part| {
        part.split('-').any(|n| {
            n.trim()
                .parse::<u64>()
                .is_ok_and(|n| n >= u64::from(list::MAX_CPU))
        })
    })
}

/// CPUs this process may run on (its affinity mask), ascending.
pub fn allowed_cpus() -> Vec<u32> {
    match nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)) {
        Ok(set) => (0..nix::sched::CpuSet::count())
            .filter(|&i| set.is_set(i).unwrap_or(false))
            .map(|i| i as u32)
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Choose where to run: the requested CPUs, or the first online CPU of every cluster.
/// `allowed` is this process's affinity mask (empty = unknown, allow all online CPUs).
pub fn targets(
    topo: &Topology,
    requested: Option<&[u32]>,
    allowed: &[u32],
) -> (Vec<Target>, Vec<Skipped>) {
    let usable = |cpu: u32| -> Result<(), String> {
        match topo.cpu(cpu) {
            None if topo.cpus.is_empty() => Ok(()),
            None => Err("no such CPU".to_string()),
            Some(c) if !c.online => Err("offline".to_string()),
            Some(_) if !allowed.is_empty() && !allowed.contains(&cpu) => {
                Err("not in this process's allowed CPUs (cgroup/cpuset or taskset)".to_string())
            }
            Some(_) => Ok(()),
        }
    };
    let make = |cpu: u32| {
        let c = topo.cpu(cpu);
        Target {
            cpu,
            core_type: c.and_then(|c| c.core_type.clone()),
            cluster: c.map(|c| c.cluster),
        }
    };
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    match requested {
        Some(cpus) => {
            for &cpu in cpus {
                match usable(cpu) {
                    Ok(()) => out.push(make(cpu)),
                    Err(reason) => skipped.push(Skipped { cpu, reason }),
                }
            }
        }
        None => {
            for cl in &topo.clusters {
                // The first usable member stands for the cluster; if none is usable, say so.
                match cl.cpus.iter().copied().find(|&c| usable(c).is_ok()) {
                    Some(cpu) => out.push(make(cpu)),
                    None => skipped.push(Skipped {
                        cpu: cl.first_cpu(),
                        reason: format!("no usable CPU in cluster {} ({})", cl.id, cl.label()),
                    }),
                }
            }
            if out.is_empty() && topo.clusters.is_empty() {
                out.push(make(allowed.first().copied().unwrap_or(0)));
            }
        }
    }
    (out, skipped)
}

/// Pin the calling thread to one CPU.
pub fn pin_current_thread(cpu: u32) -> Result<(), PinError> {
    let mut set = nix::sched::CpuSet::new();
    set.set(cpu as usize).map_err(|e| PinError::Refused {
        cpu,
        reason: e.to_string(),
    })?;
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).map_err(|e| {
        PinError::Refused {
            cpu,
            reason: match e {
                nix::errno::Errno::EINVAL => {
                    "offline or outside this process's allowed CPUs".to_string()
                }
                other => other.desc().to_string(),
            },
        }
    })
}

/// Restrict the calling thread to a set of CPUs (what `taskset -c 0-3` does).
pub fn pin_current_thread_to(cpus: &[u32]) -> Result<(), PinError> {
    let first = cpus.first().copied().unwrap_or(0);
    let mut set = nix::sched::CpuSet::new();
    for &cpu in cpus {
        set.set(cpu as usize).map_err(|e| PinError::Refused {
            cpu,
            reason: e.to_string(),
        })?;
    }
    nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &set).map_err(|e| {
        PinError::Refused {
            cpu: first,
            reason: e.desc().to_string(),
        }
    })
}

/// Run `f` on a new thread restricted to `cpus` and return its result; child processes
/// started by `f` inherit the restriction.
pub fn run_on_set<T: Send>(cpus: &[u32], f: impl FnOnce() -> T + Send) -> Result<T, PinError> {
    let first = cpus.first().copied().unwrap_or(0);
    std::thread::scope(|s| {
        let h = s.spawn(move || -> Result<T, PinError> {
            pin_current_thread_to(cpus)?;
            Ok(f())
        });
        h.join().map_err(|_| PinError::Panicked(first))?
    })
}

/// Run `f` on a new thread pinned to `cpu` and return its result.
pub fn run_on<T: Send>(cpu: u32, f: impl FnOnce() -> T + Send) -> Result<T, PinError> {
    std::thread::scope(|s| {
        let h = s.spawn(move || -> Result<T, PinError> {
            pin_current_thread(cpu)?;
            Ok(f())
        });
        h.join().map_err(|_| PinError::Panicked(cpu))?
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::cpu::Cpu;

    fn topo() -> Topology {
        let mut v: Vec<Cpu> = (0..4)
            .map(|n| Cpu {
                cpu: n,
                online: n != 0,
                core_type: Some("Cortex-A55".into()),
                policy: Some(0),
                ..Default::default()
            })
            .collect();
        v.extend((4..6).map(|n| Cpu {
            cpu: n,
            online: true,
            core_type: Some("Cortex-A76".into()),
            policy: Some(4),
            ..Default::default()
        }));
        Topology::from_cpus(v)
    }

    #[test]
    fn default_is_first_online_cpu_per_cluster() {
        let (t, s) = targets(&topo(), None, &[]);
        assert_eq!(t.iter().map(|t| t.cpu).collect::<Vec<_>>(), vec![1, 4]);
        assert_eq!(t[1].label(), "cpu4 (Cortex-A76)");
        assert!(s.is_empty());
    }

    #[test]
    fn offline_and_unknown_cpus_are_skipped_with_a_reason() {
        let (t, s) = targets(&topo(), Some(&[0, 4, 9]), &[]);
        assert_eq!(t.len(), 1);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].reason, "offline");
        let (_, s) = targets(&topo(), Some(&[5]), &[1, 4]);
        assert!(s[0].reason.contains("allowed"));
    }

    #[test]
    fn pinning_to_an_allowed_cpu_works_and_a_bogus_one_fails() {
        let cpu = allowed_cpus().first().copied().unwrap_or(0);
        assert_eq!(run_on(cpu, || 42).unwrap(), 42);
        assert!(run_on(4000, || 0).is_err());
    }

    #[test]
    fn pinning_to_a_set() {
        let allowed = allowed_cpus();
        let got = run_on_set(&allowed, allowed_cpus).unwrap();
        assert_eq!(got, allowed);
        assert!(run_on_set(&[4000], || 0).is_err());
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpus("0,4"), Ok(vec![0, 4]));
        assert!(parse_cpus("").is_err());
        assert!(parse_cpus("a").is_err());
        // A valid range that is only too long names the cap, not the syntax.
        let e = parse_cpus("0-100000").unwrap_err();
        assert!(e.contains("CPU numbers stop at 8191"), "{e}");
        assert!(parse_cpus("9000").unwrap_err().contains("stop at 8191"));
        assert_eq!(parse_cpus("8191").map(|v| v.len()), Ok(1));
        assert!(parse_cpus("-1").unwrap_err().starts_with("not a CPU list"));
        assert!(parse_cpus("1-0").unwrap_err().starts_with("not a CPU list"));
    }
}
