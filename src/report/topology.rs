//! sbc-bench's "CPU sysfs topology" table, byte-for-byte.

use crate::sys::cpu::{Cpu, Topology};

/// Header lines of the table.
pub const HEADER: &str = "CPU sysfs topology (clusters, cpufreq members, clockspeeds)\n                 cpufreq   min    max\n CPU    cluster  policy   speed  speed   core type\n";

/// Render the table as sbc-bench prints it, with `(offline)` after CPUs that are offline.
pub fn render(topo: &Topology) -> String {
    let mut s = String::from(HEADER);
    for c in &topo.cpus {
        s.push_str(&row(c));
        s.push('\n');
    }
    s
}

/// One row: `  4        1        4      408    2400   Cortex-A76 / r4p0`.
pub fn row(c: &Cpu) -> String {
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
    format!("{:>3}{:>9}{:>9}{speeds}{core}", c.cpu, c.cluster, policy)
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
}
