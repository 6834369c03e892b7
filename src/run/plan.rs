//! What a standard run will do, in order, and how long each step should take — computed
//! from the machine (clusters, OPPs, tools installed) and the settings, before anything
//! runs, so the user gets sbc-bench's "results will be available in 21-32 minutes".

use serde::Serialize;

use crate::record::config::RunConfig;
use crate::record::plan::{Plan, StandardStep, Step};
use crate::sys::cpu::Topology;
use crate::sys::cpufreq::Policy;
use crate::sys::root::SysRoot;

/// What the plan is computed from: facts about the machine.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PlanInput {
    /// Clusters benchmarked one after the other.
    pub clusters: usize,
    /// Online CPUs.
    pub cpus: usize,
    /// Groups of cores of one type (extensive mode's per-type compression runs; 0 when
    /// all cores are of one type).
    pub core_type_groups: usize,
    /// OPPs the clock walk will visit, over all policies (0 when it cannot walk).
    pub opps_to_walk: usize,
    /// `7z`/`7za`/`7zz` is installed.
    pub sevenzip: bool,
    /// `openssl` is installed.
    pub openssl: bool,
}

/// Seconds one native AES measurement (one algorithm, one buffer size) runs. Throughput
/// of a cipher loop is steady within a fraction of a percent after a few hundred ms;
/// `openssl speed` gets its minimum of one second.
pub fn aes_seconds_per_size(cfg: &RunConfig) -> f64 {
    if cfg.quick { 0.1 } else { 0.5 }
}

/// Number of AES algorithms the run measures.
pub fn aes_algorithms(cfg: &RunConfig) -> usize {
    if cfg.extensive { 4 } else { 3 }
}

/// Scrypt stress duration.
pub fn scrypt_seconds(cfg: &RunConfig) -> f64 {
    if cfg.quick { 10.0 } else { 300.0 }
}

/// The AES step's shortest time: per cluster, OpenSSL and (where it is missing, or in
/// extensive mode) the native suite, plus extensive mode's run on all cores.
fn aes_estimate_s(cfg: &RunConfig, m: &PlanInput) -> f64 {
    let clusters = m.clusters.max(1) as f64;
    // 6 buffer sizes per algorithm, per cluster, natively; openssl at 1 s each.
    let sizes = aes_algorithms(cfg) as f64 * 6.0;
    // Natively only where openssl is missing, or in extensive mode.
    let native = if m.openssl && !cfg.extensive {
        0.0
    } else {
        sizes * aes_seconds_per_size(cfg)
    };
    // On one cluster openssl runs each CBC key length twice (sbc-bench's rule).
    let twice = if m.clusters <= 1 { 3.0 * 6.0 } else { 0.0 };
    let openssl = if m.openssl { sizes + twice } else { 0.0 };
    let parallel = if cfg.extensive {
        sizes * aes_seconds_per_size(cfg)
    } else {
        0.0
    };
    clusters * (native + openssl) + parallel
}

/// Make the standard run's plan (the other modes plan their own steps). Pure: tests snapshot it for every fixture board.
pub fn plan(cfg: &RunConfig, m: &PlanInput) -> Plan {
    let clusters = m.clusters.max(1) as f64;
    let q = cfg.quick;
    let per_measure = if q { (0.05, 0.2) } else { (0.5, 1.2) };
    let clock_points = if m.opps_to_walk > 0 {
        m.opps_to_walk as f64
    } else {
        clusters
    };
    let mut steps = Vec::new();
    let mut skipped = Vec::new();
    let mut push = |kind: StandardStep, min_s: f64, max_s: f64| {
        steps.push(Step {
            kind: kind.into(),
            min_s,
            max_s,
        });
    };
    push(
        StandardStep::ClockCold,
        clock_points * per_measure.0,
        clock_points * per_measure.1,
    );
    let (bw, lat) = if q {
        ((0.5, 3.0), (0.5, 3.0))
    } else {
        ((12.0, 30.0), (12.0, 30.0))
    };
    // Extensive mode repeats each bandwidth test up to 10 times instead of 3.
    let bw = if cfg.extensive && !q {
        (bw.0 * 1.5, bw.1 * 3.3)
    } else {
        bw
    };
    push(StandardStep::MemBandwidth, clusters * bw.0, clusters * bw.1);
    push(StandardStep::MemLatency, clusters * lat.0, clusters * lat.1);
    // `NotReadyYet=yes` (sbc-bench): memory benchmarks and clocks only.
    let not_ready = |k: StandardStep| {
        (
            k.into(),
            "NotReadyYet=yes: OpenSSL, 7-Zip and cpuminer benchmarks are skipped".to_string(),
        )
    };
    if cfg.not_ready_yet {
        skipped.push(not_ready(StandardStep::Aes));
        if m.sevenzip {
            skipped.push(not_ready(StandardStep::SevenZip));
        }
    } else {
        let aes = aes_estimate_s(cfg, m);
        push(StandardStep::Aes, aes, aes * 1.2);
    }
    // Extensive mode adds multi-threaded runs on each group of cores of one type for
    // each compressor (three for 7-Zip, as sbc-bench; one native).
    let groups = if cfg.extensive {
        m.core_type_groups as f64
    } else {
        0.0
    };
    if !m.sevenzip {
        skipped.push((
            StandardStep::SevenZip.into(),
            "7-Zip is not installed (7z, 7za or 7zz); the native LZMA score stands in".to_string(),
        ));
    } else if !cfg.not_ready_yet {
        // One single-threaded run per cluster plus three multi-threaded runs.
        let run = if q { (3.0, 15.0) } else { (15.0, 60.0) };
        let runs = clusters + 3.0 + 3.0 * groups;
        push(StandardStep::SevenZip, runs * run.0, runs * run.1);
    }
    if cfg.not_ready_yet {
        skipped.push(not_ready(StandardStep::Lzma));
    } else if m.sevenzip && !cfg.extensive {
        // 7-Zip fills the Results.md columns; the native LZMA score is in no column.
        skipped.push((
            StandardStep::Lzma.into(),
            "7-Zip measures compression; the native LZMA benchmark runs with --extensive"
                .to_string(),
        ));
    } else {
        let lz = if q { (1.0, 5.0) } else { (8.0, 30.0) };
        // One single-threaded run per cluster and the multi-threaded one: it is left out
        // only where 7-Zip measures all cores outside extensive mode, and then this step
        // is skipped above (see `exec::Native::compress`).
        let runs = clusters + 1.0 + groups;
        push(StandardStep::Lzma, runs * lz.0, runs * lz.1);
    }
    if cfg.stress {
        if cfg.not_ready_yet {
            skipped.push(not_ready(StandardStep::Scrypt));
        } else {
            let s = scrypt_seconds(cfg);
            push(StandardStep::Scrypt, s, s + 5.0);
        }
    }
    // Extensive mode measures every core at the end, not one per cluster.
    let hot = if cfg.extensive {
        m.cpus.max(1) as f64
    } else {
        clusters
    };
    push(
        StandardStep::ClockHot,
        hot * per_measure.0,
        hot * per_measure.1,
    );
    Plan { steps, skipped }
}

/// Facts for the plan.
pub fn plan_input(
    root: &SysRoot,
    topo: &Topology,
    policies: &[Policy],
    has_7z: bool,
    has_openssl: bool,
) -> PlanInput {
    let walk = crate::bench::clock::walk_permission(root).is_ok();
    let w = crate::bench::clock::WalkOptions::default();
    let opps = if walk {
        topo.clusters
            .iter()
            .filter_map(|c| c.policy)
            .filter_map(|id| policies.iter().find(|p| p.id == id))
            .map(|p| crate::bench::clock::opps_to_check(p, &w).len())
            .sum()
    } else {
        0
    };
    let usable: Vec<u32> = topo.online();
    PlanInput {
        core_type_groups: groups_by_core_type(topo, &usable).len(),
        clusters: topo.clusters.len(),
        cpus: topo.online().len(),
        opps_to_walk: opps,
        sevenzip: has_7z,
        openssl: has_openssl,
    }
}

/// Usable CPUs grouped by core type in CPU order, as sbc-bench's extensive mode forms its
/// clusters (`ClusterConfigByCoreType`): RK3588 → 0-3 (Cortex-A55), 4-7 (Cortex-A76).
/// Empty when there is only one group (nothing to add to the all-core run). Cores of
/// unknown type group by cluster.
pub fn groups_by_core_type(topo: &Topology, usable: &[u32]) -> Vec<(Vec<u32>, Option<String>)> {
    let mut groups: Vec<(Vec<u32>, Option<String>, Option<u32>)> = Vec::new();
    for &cpu in usable {
        let c = topo.cpu(cpu);
        let ty = c.and_then(|c| c.core_type.clone());
        let key = if ty.is_some() {
            None
        } else {
            c.map(|c| c.cluster)
        };
        match groups.last_mut() {
            Some(g) if g.1 == ty && g.2 == key => g.0.push(cpu),
            _ => groups.push((vec![cpu], ty, key)),
        }
    }
    if groups.len() < 2 {
        return Vec::new();
    }
    groups.into_iter().map(|(c, t, _)| (c, t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::plan::StepKind;

    fn rk3588() -> PlanInput {
        PlanInput {
            clusters: 3,
            cpus: 8,
            core_type_groups: 2,
            opps_to_walk: 8 + 11 + 11,
            sevenzip: true,
            openssl: true,
        }
    }

    #[test]
    fn order_and_estimate_for_rk3588() {
        let p = plan(&RunConfig::default(), &rk3588());
        let kinds: Vec<StepKind> = p.steps.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                StandardStep::ClockCold,
                StandardStep::MemBandwidth,
                StandardStep::MemLatency,
                StandardStep::Aes,
                StandardStep::SevenZip,
                StandardStep::ClockHot
            ]
        );
        let (lo, hi) = p.estimate_s();
        assert!(lo < hi);
        assert!(lo > 3.0 * 60.0 && hi < 30.0 * 60.0, "{lo} {hi}");
    }

    #[test]
    fn native_lzma_is_single_threaded_only_beside_7zip() {
        let lzma = |cfg: &RunConfig, sevenzip: bool| {
            let mut m = rk3588();
            m.sevenzip = sevenzip;
            let p = plan(cfg, &m);
            p.steps
                .iter()
                .find(|s| s.kind == StandardStep::Lzma)
                .map(|s| s.min_s)
        };
        let std = RunConfig::default();
        // rk3588: three clusters, so three single-threaded runs, plus the all-core run
        // only where 7-Zip does not measure all cores; beside 7-Zip only in extensive mode.
        assert_eq!(lzma(&std, true), None);
        assert_eq!(lzma(&std, false), Some(4.0 * 8.0));
        let ext = RunConfig {
            extensive: true,
            ..Default::default()
        };
        assert!(lzma(&ext, true) > Some(4.0 * 8.0));
    }

    #[test]
    fn openssl_twice_on_one_cluster_is_in_the_estimate() {
        let aes = |clusters: usize| {
            let m = PlanInput {
                clusters,
                ..rk3588()
            };
            let p = plan(&RunConfig::default(), &m);
            p.steps
                .iter()
                .find(|s| s.kind == StandardStep::Aes)
                .unwrap()
                .min_s
        };
        // openssl 18 x 1 s, twice on one cluster; no native rows beside it.
        assert_eq!(aes(1), 36.0);
        assert_eq!(aes(3), 3.0 * 18.0);
    }

    #[test]
    fn native_lzma_only_with_extensive_when_7zip_ran() {
        let p = plan(&RunConfig::default(), &rk3588());
        assert!(!p.has(StandardStep::Lzma));
        let (kind, why) = p.skipped.last().unwrap();
        assert_eq!(*kind, StandardStep::Lzma);
        assert!(why.contains("--extensive"), "{why}");
        let ext = RunConfig {
            extensive: true,
            ..Default::default()
        };
        assert!(plan(&ext, &rk3588()).has(StandardStep::Lzma));
    }

    #[test]
    fn stress_not_ready_yet_and_missing_7zip() {
        let cfg = RunConfig {
            stress: true,
            ..Default::default()
        };
        let mut m = rk3588();
        m.sevenzip = false;
        let p = plan(&cfg, &m);
        assert!(p.has(StandardStep::Scrypt));
        assert!(!p.has(StandardStep::SevenZip));
        assert_eq!(p.skipped[0].0, StandardStep::SevenZip);
        // NotReadyYet=yes: as sbc-bench, the memory benchmarks still run; OpenSSL,
        // 7-Zip and cpuminer do not, and every skipped step is listed.
        let p = plan(
            &RunConfig {
                not_ready_yet: true,
                stress: true,
                ..Default::default()
            },
            &rk3588(),
        );
        let kinds: Vec<StepKind> = p.steps.iter().map(|s| s.kind).collect();
        assert_eq!(
            kinds,
            [
                StandardStep::ClockCold,
                StandardStep::MemBandwidth,
                StandardStep::MemLatency,
                StandardStep::ClockHot
            ]
        );
        let skipped: Vec<StepKind> = p.skipped.iter().map(|s| s.0).collect();
        assert_eq!(
            skipped,
            [
                StandardStep::Aes,
                StandardStep::SevenZip,
                StandardStep::Lzma,
                StandardStep::Scrypt
            ]
        );
        assert!(p.steps.iter().all(|s| {
            StandardStep::try_from(s.kind).is_ok_and(|k| !k.skipped_when_not_ready())
        }));
    }
}
