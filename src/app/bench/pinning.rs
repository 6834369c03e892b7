//! Where `bench clock|membw|memlat` run: `--cpus` or the first usable CPU of every cluster.

use crate::app::Ctx;
use crate::bench::pin::{self, Skipped, Target};
use crate::cli::bench::CommonArgs;
use crate::sys::cpu::{self, Topology};
use crate::sys::cpufreq::Policy;

/// The machine as far as choosing CPUs needs it, and the choice.
#[derive(Debug)]
pub struct Resolved {
    /// cpufreq policies.
    pub policies: Vec<Policy>,
    /// CPUs and clusters.
    pub topo: Topology,
    /// Where to run, in order.
    pub targets: Vec<Target>,
    /// Asked-for or cluster CPUs we will not run on, with the reason.
    pub skipped: Vec<Skipped>,
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
}

/// Read the topology and choose targets. `Err` is a usage error (a bad `--cpus`).
pub fn resolve(ctx: &Ctx, common: &CommonArgs) -> Result<Resolved, String> {
    let requested = match &common.cpus {
        Some(s) => Some(pin::parse_cpus(s)?),
        None => None,
    };
    let (policies, topo) = cpu::read(&ctx.root);
    // Our affinity mask only describes the machine when reading the live system.
    let allowed = if ctx.root.is_host() {
        pin::allowed_cpus()
    } else {
        Vec::new()
    };
    let (targets, skipped) = pin::targets(&topo, requested.as_deref(), &allowed);
    Ok(Resolved {
        policies,
        topo,
        targets,
        skipped,
        requested: requested.is_some(),
    })
}
