//! Where every `bench …` command runs: `--cpus`, or the first usable CPU of every
//! cluster; and, for the all-cores runs of `aes`, `compress` and `scrypt`, every usable
//! CPU. The machine is read here; saying what was skipped is the command's.

use crate::bench::pin::{self, Skipped, Target};
use crate::output;
use crate::sys::cpu::{self, Topology};
use crate::sys::cpufreq::Policy;
use crate::sys::root::SysRoot;

/// What every bench command says when none of the CPUs can be used.
pub const NO_CPU: &str = "none of the requested CPUs can run a benchmark";

/// The machine as far as choosing CPUs needs it, and the choice.
#[derive(Debug)]
pub struct Resolved {
    /// cpufreq policies.
    pub policies: Vec<Policy>,
    /// CPUs and clusters.
    pub topo: Topology,
    /// Where to run, in order: one CPU per cluster, or the CPUs asked for.
    pub targets: Vec<Target>,
    /// Asked-for or cluster CPUs we will not run on, with the reason.
    pub skipped: Vec<Skipped>,
    /// Every CPU for the all-cores runs: online and allowed, or the usable CPUs asked for.
    pub all_cpus: Vec<u32>,
    /// The user named the CPUs (`--cpus`): skipping one of them is a failure.
    pub requested: bool,
    /// Where CPUs, core types and cpufreq are read for live measurements: the live system,
    /// also when `--sysroot` points at a fixture (its hardware is not what runs the code).
    pub live: SysRoot,
    /// Set when `--sysroot` is not the live system: the sentence saying what was measured.
    pub sysroot_note: Option<String>,
}

impl Resolved {
    /// sbc-bench tags summary lines with the CPU (`  * cpu4 (Cortex-A76) 16M latency: …`)
    /// only on machines with several clusters; we also tag when `--cpus` chose the CPUs.
    pub fn tag_summaries(&self) -> bool {
        self.topo.clusters.len() > 1 || self.requested
    }

    /// Members of the target's cluster (just the CPU when the topology does not know it).
    pub fn cluster_cpus(&self, t: &Target) -> Vec<u32> {
        self.topo
            .cluster_of(t.cpu)
            .map(|c| c.cpus.clone())
            .unwrap_or_else(|| vec![t.cpu])
    }

    /// Were the targets chosen per cluster (no `--cpus`)?
    pub fn by_cluster(&self) -> bool {
        !self.requested
    }

    /// Was a CPU the user asked for skipped? That makes the run fail.
    pub fn explicit_skip(&self) -> bool {
        self.requested && !self.skipped.is_empty()
    }
}

/// Read the topology and choose targets: the CPUs `requested` (`--cpus`, parsed), or the
/// first usable CPU of every cluster. `root` is `--sysroot`; the CPUs are read from the
/// live system whatever it says.
pub fn resolve(root: &SysRoot, requested: Option<Vec<u32>>) -> Resolved {
    // The code runs on this machine whatever `--sysroot` says: read its CPUs, not the
    // fixture's, so a measurement is never labelled with another board's core types.
    let (live, sysroot_note) = if root.is_host() {
        (root.clone(), None)
    } else {
        (
            SysRoot::host(),
            Some(format!(
                "--sysroot {} is not this machine: the benchmark measured this host's CPUs \
                 (the sysroot only supplies MemAvailable and cpufreq is not touched)",
                root.root().display()
            )),
        )
    };
    let (policies, topo) = cpu::read(&live);
    let allowed = pin::allowed_cpus();
    let (targets, mut skipped) = pin::targets(&topo, requested.as_deref(), &allowed);
    name_existing_cpus(&topo, &mut skipped);
    let all_cpus = match &requested {
        Some(_) => targets.iter().map(|t| t.cpu).collect(),
        None => all_usable(&topo, &allowed),
    };
    Resolved {
        policies,
        topo,
        targets,
        skipped,
        all_cpus,
        requested: requested.is_some(),
        live,
        sysroot_note,
    }
}

/// `--cpus 99` on a two-CPU machine said "no such CPU" and left the user guessing: the
/// reason of a CPU that does not exist also names those that do (`no such CPU; this
/// machine has cpu0-cpu1`).
fn name_existing_cpus(topo: &Topology, skipped: &mut [Skipped]) {
    let existing: Vec<u32> = topo.cpus.iter().map(|c| c.cpu).collect();
    if existing.is_empty() {
        return;
    }
    for s in skipped.iter_mut().filter(|s| !existing.contains(&s.cpu)) {
        s.reason = format!(
            "no such CPU; this machine has {}",
            crate::sys::cpu_list::format_cpu_range(&existing)
        );
    }
}

/// The `--json` document of a run that found no CPU to run on.
pub fn no_cpu_json(benchmark: &str, skipped: &[Skipped]) -> String {
    let schema = output::schema::bench(benchmark);
    let doc = serde_json::json!({
        "schema": schema.name,
        "schema_version": schema.version,
        "benchmark": benchmark,
        "error": NO_CPU,
        "skipped": skipped,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string())
}

/// Online CPUs within `allowed` (empty = no restriction known); CPU 0 when nothing is known.
fn all_usable(topo: &Topology, allowed: &[u32]) -> Vec<u32> {
    let online = topo.online();
    let v: Vec<u32> = if online.is_empty() {
        allowed.to_vec()
    } else {
        online
            .into_iter()
            .filter(|c| allowed.is_empty() || allowed.contains(c))
            .collect()
    };
    if v.is_empty() { vec![0] } else { v }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::cpu::Cpu;

    fn topo(online: &[bool]) -> Topology {
        Topology::from_cpus(
            online
                .iter()
                .enumerate()
                .map(|(n, &online)| Cpu {
                    cpu: n as u32,
                    online,
                    policy: Some(0),
                    ..Default::default()
                })
                .collect(),
        )
    }

    #[test]
    fn the_no_cpu_document_is_valid_json_with_the_error() {
        let skipped = [Skipped {
            cpu: 7,
            reason: "no such CPU".into(),
        }];
        let v: serde_json::Value = serde_json::from_str(&no_cpu_json("aes", &skipped)).unwrap();
        assert_eq!(v["benchmark"], "aes");
        assert_eq!(v["error"], NO_CPU);
        assert_eq!(v["skipped"][0]["cpu"], 7);
    }

    #[test]
    fn bench_clock_cpus_99_names_the_cpus_that_exist() {
        let t = topo(&[true, true]);
        let (_, mut skipped) = pin::targets(&t, Some(&[1, 99]), &[]);
        name_existing_cpus(&t, &mut skipped);
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].cpu, 99);
        assert_eq!(skipped[0].reason, "no such CPU; this machine has cpu0-cpu1");
    }

    #[test]
    fn all_cores_are_the_online_allowed_ones() {
        let t = topo(&[true, false, true, true]);
        assert_eq!(all_usable(&t, &[]), vec![0, 2, 3]);
        assert_eq!(all_usable(&t, &[0, 1, 3]), vec![0, 3]);
        // Nothing online and allowed (a cpuset outside the tree): CPU 0 still runs.
        assert_eq!(all_usable(&t, &[1]), vec![0]);
        // No topology at all: the affinity mask, else CPU 0.
        assert_eq!(all_usable(&Topology::default(), &[2, 5]), vec![2, 5]);
        assert_eq!(all_usable(&Topology::default(), &[]), vec![0]);
    }
}
