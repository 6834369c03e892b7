//! Where every `bench …` command runs: `--cpus`, or the first usable CPU of every cluster;
//! and, for the all-cores runs of `aes`, `compress` and `scrypt`, every usable CPU.

use crate::app::Ctx;
use crate::bench::pin::{self, Skipped, Target};
use crate::cli::bench::CommonArgs;
use crate::output;
use crate::sys::cpu::{self, Topology};
use crate::sys::cpufreq::Policy;

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
}

impl Resolved {
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

    /// Warn about skipped CPUs on stderr (for commands whose report does not list them);
    /// returns [`Resolved::explicit_skip`].
    pub fn warn_skipped(&self) -> bool {
        for s in &self.skipped {
            output::warn(format!("skipping cpu{}: {}", s.cpu, s.reason));
        }
        self.explicit_skip()
    }
}

/// Read the topology and choose targets. `Err` is a usage error (a bad `--cpus`).
pub fn resolve(ctx: &Ctx, common: &CommonArgs) -> Result<Resolved, String> {
    let requested = common.cpus.as_deref().map(pin::parse_cpus).transpose()?;
    let (policies, topo) = cpu::read(&ctx.root);
    // Our affinity mask only describes the machine when reading the live system.
    let allowed = if ctx.root.is_host() {
        pin::allowed_cpus()
    } else {
        Vec::new()
    };
    let (targets, skipped) = pin::targets(&topo, requested.as_deref(), &allowed);
    let all_cpus = match &requested {
        Some(_) => targets.iter().map(|t| t.cpu).collect(),
        None => all_usable(&topo, &allowed),
    };
    Ok(Resolved {
        policies,
        topo,
        targets,
        skipped,
        all_cpus,
        requested: requested.is_some(),
    })
}

/// [`resolve`] for a command: a bad `--cpus` is printed as a usage error and becomes
/// `Err(exit status)`.
pub fn resolve_or_usage(ctx: &Ctx, common: &CommonArgs) -> Result<Resolved, i32> {
    resolve(ctx, common).map_err(|msg| {
        eprintln!("Error: {msg}");
        output::EXIT_USAGE
    })
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
