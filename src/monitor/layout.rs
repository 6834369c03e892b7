//! Which clocks the monitor shows, decided once from the topology the way sbc-bench picks
//! its columns: one `CPU` clock for a single cluster, `big.LITTLE` for two, `cpu0/cpu4/cpu6`
//! for three or more, ` n/a` without readable cpufreq.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::sys::cpu::Topology;
use crate::sys::cpufreq::Policy;

/// One clock column: a cpufreq policy, labelled by its first CPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockColumn {
    /// First CPU of the policy (`cpu4` in the header).
    pub first_cpu: u32,
    /// N of `policyN`.
    pub policy: u32,
}

/// The clock columns of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ClockColumns {
    /// No readable cpufreq (VMs, boards in bring-up): header `CPU n/a`, cells ` n/aMHz`.
    NotAvailable,
    /// One clock for all CPUs: header `CPU`.
    Single {
        /// The policy shown.
        column: ClockColumn,
    },
    /// Two clusters: header `big.LITTLE`, the faster cluster's clock first.
    BigLittle {
        /// The cluster with the higher maximum clock (the last one when equal).
        big: ClockColumn,
        /// The other one.
        little: ClockColumn,
    },
    /// Three or more clusters in CPU order: header `cpu0/cpu4/cpu6`.
    Clusters {
        /// The columns, in CPU order.
        columns: Vec<ClockColumn>,
    },
}

impl ClockColumns {
    /// The columns in display order.
    pub fn columns(&self) -> Vec<ClockColumn> {
        match self {
            Self::NotAvailable => Vec::new(),
            Self::Single { column } => vec![*column],
            Self::BigLittle { big, little } => vec![*big, *little],
            Self::Clusters { columns } => columns.clone(),
        }
    }
}

/// What the monitor reads and shows, fixed when it starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Clock columns.
    pub clocks: ClockColumns,
    /// cpufreq policy of every CPU that has one (for per-core clocks).
    pub cpu_policy: BTreeMap<u32, u32>,
    /// Read every policy, not only those of the columns (`--cores` shows each core's clock).
    pub all_policies: bool,
}

impl Layout {
    /// Choose the columns from the topology and policies. `readable(policy)` tells whether
    /// the policy's current clock can be read now (sbc-bench falls back to `CPU n/a` when
    /// it cannot).
    pub fn new(topo: &Topology, policies: &[Policy], readable: impl Fn(u32) -> bool) -> Self {
        Self::with_caches(topo, policies, readable, &BTreeMap::new())
    }

    /// As [`Layout::new`], with each CPU's cache sizes ([`crate::sys::cache::signature`]):
    /// where every CPU has its own policy (Intel hybrid), CPUs of one core type but with
    /// other caches get their own column, which is how Meteor Lake's low-power E-cores
    /// (no L3) show as `cpu20` next to `cpu0/cpu12`, as in sbc-bench.
    pub fn with_caches(
        topo: &Topology,
        policies: &[Policy],
        readable: impl Fn(u32) -> bool,
        caches: &BTreeMap<u32, String>,
    ) -> Self {
        let cpu_policy: BTreeMap<u32, u32> = topo
            .cpus
            .iter()
            .filter_map(|c| Some((c.cpu, c.policy?)))
            .collect();
        let groups = clock_groups(topo, caches);
        let max_khz = |p: u32| {
            policies
                .iter()
                .find(|x| x.id == p)
                .and_then(|x| x.cpuinfo_max_khz.or(x.scaling_max_khz))
        };
        let clocks = if groups.is_empty() || !groups.iter().all(|g| readable(g.policy)) {
            ClockColumns::NotAvailable
        } else {
            match groups.as_slice() {
                [one] => ClockColumns::Single { column: *one },
                [first, last] => {
                    // sbc-bench: the last cluster is big unless its maximum is lower.
                    if max_khz(last.policy).unwrap_or(0) >= max_khz(first.policy).unwrap_or(0) {
                        ClockColumns::BigLittle {
                            big: *last,
                            little: *first,
                        }
                    } else {
                        ClockColumns::BigLittle {
                            big: *first,
                            little: *last,
                        }
                    }
                }
                _ => ClockColumns::Clusters { columns: groups },
            }
        };
        Self {
            clocks,
            cpu_policy,
            all_policies: false,
        }
    }

    /// Also read every policy (for per-core clocks).
    pub fn with_all_policies(mut self, on: bool) -> Self {
        self.all_policies = on;
        self
    }

    /// The policies a sample reads, ascending.
    pub fn read_policies(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.clocks.columns().iter().map(|c| c.policy).collect();
        if self.all_policies && self.clocks != ClockColumns::NotAvailable {
            v.extend(self.cpu_policy.values().copied());
        }
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// One column per cpufreq policy, in CPU order, reduced as sbc-bench does: CPUs of one
/// core type show a single clock unless there are exactly two policies (Amlogic S912:
/// eight A53 in two clusters); where every CPU has its own policy (x86 `intel_pstate`,
/// hybrid Intel P/E cores) one column per core type.
fn clock_groups(topo: &Topology, caches: &BTreeMap<u32, String>) -> Vec<ClockColumn> {
    let mut cpus: Vec<_> = topo.cpus.iter().collect();
    cpus.sort_by_key(|c| c.cpu);
    type Key<'a> = (Option<&'a str>, Option<&'a str>);
    let mut groups: Vec<(ClockColumn, Key)> = Vec::new();
    for c in &cpus {
        let Some(p) = c.policy else { continue };
        if !groups.iter().any(|(g, _)| g.policy == p) {
            groups.push((
                ClockColumn {
                    first_cpu: c.cpu,
                    policy: p,
                },
                (
                    c.core_type.as_deref(),
                    caches.get(&c.cpu).map(String::as_str),
                ),
            ));
        }
    }
    let with_policy = cpus.iter().filter(|c| c.policy.is_some()).count();
    let mut types: Vec<Option<&str>> = cpus.iter().map(|c| c.core_type.as_deref()).collect();
    types.sort_unstable();
    types.dedup();
    if groups.len() > 2 && groups.len() == with_policy {
        let mut seen: Vec<Key> = Vec::new();
        groups.retain(|(_, t)| {
            let new = !seen.contains(t);
            seen.push(*t);
            new
        });
    } else if types.len() <= 1 && groups.len() != 2 {
        groups.truncate(1);
    }
    groups.into_iter().map(|(g, _)| g).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::cpu::Cpu;

    pub(crate) fn topo(spec: &[(u32, &str, u32)]) -> Topology {
        Topology::from_cpus(
            spec.iter()
                .map(|&(n, t, p)| Cpu {
                    cpu: n,
                    online: true,
                    core_type: Some(t.into()),
                    policy: Some(p),
                    package_id: Some(0),
                    ..Default::default()
                })
                .collect(),
        )
    }

    fn policy(id: u32, max: u64) -> Policy {
        Policy {
            id,
            cpuinfo_max_khz: Some(max),
            ..Default::default()
        }
    }

    #[test]
    fn rk3588_three_clusters() {
        let mut spec: Vec<(u32, &str, u32)> = (0..4).map(|n| (n, "Cortex-A55", 0)).collect();
        spec.extend((4..6).map(|n| (n, "Cortex-A76", 4)));
        spec.extend((6..8).map(|n| (n, "Cortex-A76", 6)));
        let l = Layout::new(&topo(&spec), &[], |_| true);
        let cols: Vec<u32> = l.clocks.columns().iter().map(|c| c.first_cpu).collect();
        assert_eq!(cols, vec![0, 4, 6]);
        assert_eq!(l.read_policies(), vec![0, 4, 6]);
    }

    #[test]
    fn big_little_puts_the_faster_cluster_first() {
        let t = topo(&[
            (0, "Cortex-A53", 0),
            (1, "Cortex-A53", 0),
            (2, "Cortex-A73", 2),
        ]);
        let l = Layout::new(&t, &[policy(0, 1_800_000), policy(2, 2_208_000)], |_| true);
        assert!(matches!(l.clocks, ClockColumns::BigLittle { big, .. } if big.policy == 2));
        // Amlogic S922X numbers its big cluster first on some kernels: still big first.
        let t = topo(&[
            (0, "Cortex-A73", 0),
            (1, "Cortex-A73", 0),
            (2, "Cortex-A53", 2),
        ]);
        let l = Layout::new(&t, &[policy(0, 2_208_000), policy(2, 1_800_000)], |_| true);
        assert!(matches!(l.clocks, ClockColumns::BigLittle { big, .. } if big.policy == 0));
    }

    #[test]
    fn s912_same_cores_two_policies_is_big_little() {
        let spec: Vec<(u32, &str, u32)> = (0..8)
            .map(|n| (n, "Cortex-A53", if n < 4 { 0 } else { 4 }))
            .collect();
        let l = Layout::new(&topo(&spec), &[], |_| true);
        assert!(matches!(l.clocks, ClockColumns::BigLittle { .. }));
    }

    #[test]
    fn per_cpu_policies_group_by_core_type() {
        let x86: Vec<(u32, &str, u32)> = (0..8).map(|n| (n, "Xeon", n)).collect();
        let l = Layout::new(&topo(&x86), &[], |_| true);
        assert_eq!(
            l.clocks,
            ClockColumns::Single {
                column: ClockColumn {
                    first_cpu: 0,
                    policy: 0
                }
            }
        );
        assert_eq!(l.with_all_policies(true).read_policies().len(), 8);
        let mut hybrid: Vec<(u32, &str, u32)> = (0..4).map(|n| (n, "P-core", n)).collect();
        hybrid.extend((4..12).map(|n| (n, "E-core", n)));
        hybrid.extend((12..14).map(|n| (n, "LP E-core", n)));
        let l = Layout::new(&topo(&hybrid), &[], |_| true);
        let cols: Vec<u32> = l.clocks.columns().iter().map(|c| c.first_cpu).collect();
        assert_eq!(cols, vec![0, 4, 12]);
    }

    #[test]
    fn meteor_lake_low_power_e_cores_by_their_caches() {
        // Core Ultra 9 185H (corpus log XRRi): Linux names two core types, the caches
        // tell three classes; sbc-bench's table header is `cpu0/cpu12/cpu20`.
        let mut spec: Vec<(u32, &str, u32)> = (0..12).map(|n| (n, "Redwood Cove", n)).collect();
        spec.extend((12..22).map(|n| (n, "Crestmont", n)));
        let caches: BTreeMap<u32, String> = (0..22)
            .map(|n| {
                let s = match n {
                    0..12 => "48K/64K/2048K/24576K",
                    12..20 => "32K/64K/2048K/24576K",
                    _ => "32K/64K/2048K",
                };
                (n, s.to_string())
            })
            .collect();
        let l = Layout::with_caches(&topo(&spec), &[], |_| true, &caches);
        let cols: Vec<u32> = l.clocks.columns().iter().map(|c| c.first_cpu).collect();
        assert_eq!(cols, vec![0, 12, 20]);
        // Without cacheinfo: one column per core type, still per-CPU policies.
        let l = Layout::new(&topo(&spec), &[], |_| true);
        assert!(matches!(l.clocks, ClockColumns::BigLittle { .. }));
        // A plain x86 with per-CPU policies and equal caches stays one column.
        let x86: Vec<(u32, &str, u32)> = (0..4).map(|n| (n, "Zen 4", n)).collect();
        let same: BTreeMap<u32, String> = (0..4).map(|n| (n, "32K/32K/1024K".into())).collect();
        let l = Layout::with_caches(&topo(&x86), &[], |_| true, &same);
        assert!(matches!(l.clocks, ClockColumns::Single { .. }));
    }

    #[test]
    fn unreadable_or_missing_cpufreq_is_not_available() {
        let t = topo(&[(0, "Cortex-A55", 0), (1, "Cortex-A55", 0)]);
        let l = Layout::new(&t, &[], |_| false);
        assert_eq!(l.clocks, ClockColumns::NotAvailable);
        assert!(l.read_policies().is_empty());
        let vm = Topology::from_cpus(vec![Cpu::default()]);
        assert_eq!(
            Layout::new(&vm, &[], |_| true).clocks,
            ClockColumns::NotAvailable
        );
    }
}
