//! sbc-bench's "CPU sysfs topology" table, byte-for-byte.

use crate::sys::cpu::{Cpu, Topology};

/// Header lines of the table.
pub const HEADER: &str = "CPU sysfs topology (clusters, cpufreq members, clockspeeds)\n                 cpufreq   min    max\n CPU    cluster  policy   speed  speed   core type\n";

/// Render the table as sbc-bench prints it, with `(offline)` after CPUs that are offline.
///
/// sbc-bench's `cluster` column is `topology/physical_package_id`, not a derived cluster:
/// all zeros on an ODROID-N2+ or a hybrid Intel, `0/1/2` on an RK3588 BSP kernel, `-1` on
/// a JH7110. A CPU without the file (offline CPUs have no `topology/`) repeats the value
/// of the CPU before it, as sbc-bench's loop does; only when no CPU has one does the
/// derived cluster index stand in.
pub fn render(topo: &Topology) -> String {
    let mut s = String::from(HEADER);
    let mut last: Option<i64> = None;
    for c in &topo.cpus {
        last = c.package_id.or(last);
        let cluster = last.map_or_else(|| c.cluster.to_string(), |p| p.to_string());
        s.push_str(&row_with_cluster(c, &cluster));
        s.push('\n');
    }
    s
}

/// The topology's notes (an absurd CPU list capped), one `Note:` line each; empty when
/// there are none, so the table above stays byte-identical to sbc-bench's.
pub fn notes(topo: &Topology) -> String {
    topo.topology_notes
        .iter()
        .map(|n| format!("Note: {n}\n"))
        .collect()
}

/// One row: `  4        1        4      408    2400   Cortex-A76 / r4p0`, the cluster
/// column being the CPU's package id (the derived cluster without one).
pub fn row(c: &Cpu) -> String {
    let cluster = c
        .package_id
        .map_or_else(|| c.cluster.to_string(), |p| p.to_string());
    row_with_cluster(c, &cluster)
}

fn row_with_cluster(c: &Cpu, cluster: &str) -> String {
    let policy = c.policy.map_or_else(|| "0".to_string(), |p| p.to_string());
    let speeds = match (c.min_mhz, c.max_mhz) {
        (Some(min), Some(max)) => format!("{min:>9}{max:>8}   "),
        // sbc-bench's layout without cpufreq: same total width, dashes.
        _ => format!("{:>8}{:>7}     ", "-", "-"),
    };
    let mut core = match (&c.core_type, &c.stepping) {
        (Some(t), Some(s)) => format!("{t} / {s}"),
        (Some(t), None) => t.clone(),
        (None, _) => "n/a".to_string(),
    };
    if !c.online {
        core.push_str(" (offline)");
    }
    format!("{:>3}{cluster:>9}{:>9}{speeds}{core}", c.cpu, policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_match_sbc_bench() {
        let c = Cpu {
            cpu: 4,
            online: true,
            core_type: Some("Cortex-A76".into()),
            stepping: Some("r4p0".into()),
            cluster: 1,
            policy: Some(4),
            package_id: Some(1),
            min_mhz: Some(408),
            max_mhz: Some(2400),
        };
        assert_eq!(
            row(&c),
            "  4        1        4      408    2400   Cortex-A76 / r4p0"
        );
        let v = Cpu {
            cpu: 0,
            online: true,
            core_type: Some("Cavium ThunderX 88XX".into()),
            stepping: Some("r1p1".into()),
            ..Default::default()
        };
        assert_eq!(
            row(&v),
            "  0        0        0       -      -     Cavium ThunderX 88XX / r1p1"
        );
    }

    #[test]
    fn cluster_column_is_the_package_id() {
        // ODROID-N2+ (corpus log 4rWn): A53 and A73 in one package, printed as cluster 0
        // although they are two clusters; JH7110 (4pBf) prints -1. The offline cpu3 has no
        // topology/ directory and repeats cpu2's value.
        let cpu = |n: u32, cluster: u32, pkg: Option<i64>| Cpu {
            cpu: n,
            online: pkg.is_some(),
            core_type: Some("Cortex-A53".into()),
            stepping: Some("r0p4".into()),
            cluster,
            policy: Some(0),
            package_id: pkg,
            min_mhz: Some(1000),
            max_mhz: Some(2016),
        };
        let t = Topology::from_cpus(vec![
            cpu(0, 0, Some(0)),
            cpu(1, 0, Some(-1)),
            cpu(2, 1, Some(0)),
            cpu(3, 1, None),
        ]);
        let rows: Vec<String> = render(&t).lines().skip(3).map(str::to_string).collect();
        assert_eq!(
            rows,
            [
                "  0        0        0     1000    2016   Cortex-A53 / r0p4",
                "  1       -1        0     1000    2016   Cortex-A53 / r0p4",
                "  2        0        0     1000    2016   Cortex-A53 / r0p4",
                "  3        0        0     1000    2016   Cortex-A53 / r0p4 (offline)",
            ]
        );
    }
}
