//! The row interval sbc-bench (v0.9.72) uses for each "System health while running …"
//! table, so our tables have the same density. sbc-bench starts `sbc-bench -m N` in the
//! background for each phase; we record once and pick rows every N seconds
//! ([`crate::monitor::recording::Recording::health_table`]).

/// A phase of the standard run, with what its table interval depends on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PhaseKind {
    /// tinymembench (our memory bandwidth test): 10 s per cluster, 40 s in extensive mode.
    Tinymembench {
        /// Clusters benchmarked one after the other.
        clusters: usize,
        /// `MODE=extensive`.
        extensive: bool,
    },
    /// ramlat (memory latency): 3 s per cluster.
    Ramlat {
        /// Clusters benchmarked.
        clusters: usize,
    },
    /// 7-zip single-threaded, one run per cluster.
    SevenZipSingle {
        /// sbc-bench's estimate of the phase length in seconds
        /// (`SingleThreadedDuration`).
        expected_s: u64,
        /// `MemAvailable` in KiB (small boards get denser rows).
        mem_available_kib: u64,
    },
    /// 7-zip multi-threaded.
    SevenZipMulti {
        /// sbc-bench's estimate (`MultiThreadedDuration`).
        expected_s: u64,
        /// `MemAvailable` in KiB.
        mem_available_kib: u64,
    },
    /// 7-zip per cluster (extensive mode): the multi-threaded interval times the number of
    /// core types.
    SevenZipClusters {
        /// The multi-threaded phase's inputs.
        expected_s: u64,
        /// `MemAvailable` in KiB.
        mem_available_kib: u64,
        /// Distinct core types.
        core_types: usize,
    },
    /// OpenSSL speed (AES): 16 s.
    OpenSsl,
    /// Parallel OpenSSL on all clusters (extensive): 4 s.
    OpenSslParallel,
    /// The stress test (`-c`: cpuminer/stress-ng): 40 s.
    Stress,
    /// Idle/heat-up phases of the thermal test: 10 s.
    Thermal,
    /// The performance-graph idle period: 30 s.
    Idle,
}

/// sbc-bench's `MemAdjustment`: `(1250000 / MemAvailable_KiB) / 3` in integer arithmetic.
fn mem_adjustment(mem_available_kib: u64) -> u64 {
    (1_250_000 / mem_available_kib.max(1)) / 3
}

/// Row interval in whole seconds, as sbc-bench computes it.
pub fn interval_s(kind: PhaseKind) -> u64 {
    match kind {
        PhaseKind::Tinymembench {
            clusters,
            extensive,
        } => (if extensive { 40 } else { 10 }) * clusters.max(1) as u64,
        PhaseKind::Ramlat { clusters } => 3 * clusters.max(1) as u64,
        PhaseKind::SevenZipSingle {
            expected_s,
            mem_available_kib,
        } => {
            let adj = mem_adjustment(mem_available_kib);
            (expected_s / (8 * adj.max(1))).clamp(5, 15)
        }
        PhaseKind::SevenZipMulti {
            expected_s,
            mem_available_kib,
        } => multi(expected_s, mem_available_kib),
        PhaseKind::SevenZipClusters {
            expected_s,
            mem_available_kib,
            core_types,
        } => multi(expected_s, mem_available_kib) * core_types.max(1) as u64,
        PhaseKind::OpenSsl => 16,
        PhaseKind::OpenSslParallel => 4,
        PhaseKind::Stress => 40,
        PhaseKind::Thermal => 10,
        PhaseKind::Idle => 30,
    }
}

fn multi(expected_s: u64, mem_available_kib: u64) -> u64 {
    let adj = mem_adjustment(mem_available_kib);
    (expected_s / (3 * adj.max(1))).clamp(10, 30)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rk3588_standard_run() {
        assert_eq!(
            interval_s(PhaseKind::Tinymembench {
                clusters: 3,
                extensive: false
            }),
            30
        );
        assert_eq!(interval_s(PhaseKind::Ramlat { clusters: 3 }), 9);
        assert_eq!(interval_s(PhaseKind::OpenSsl), 16);
    }

    #[test]
    fn seven_zip_scales_with_length_and_memory() {
        // 8 GiB board: no adjustment, 120 s single-threaded estimate → 15 s (clamped).
        let big = 7_000_000;
        assert_eq!(
            interval_s(PhaseKind::SevenZipSingle {
                expected_s: 120,
                mem_available_kib: big
            }),
            15
        );
        assert_eq!(
            interval_s(PhaseKind::SevenZipSingle {
                expected_s: 56,
                mem_available_kib: big
            }),
            7
        );
        // 512 MiB board (≈ 300000 KiB available): adjustment 1.
        assert_eq!(
            interval_s(PhaseKind::SevenZipMulti {
                expected_s: 60,
                mem_available_kib: 300_000
            }),
            20
        );
        // Tiny board (100000 KiB): adjustment 4, short rows, clamped at 10.
        assert_eq!(
            interval_s(PhaseKind::SevenZipMulti {
                expected_s: 60,
                mem_available_kib: 100_000
            }),
            10
        );
        assert_eq!(
            interval_s(PhaseKind::SevenZipClusters {
                expected_s: 90,
                mem_available_kib: big,
                core_types: 2
            }),
            60
        );
        assert_eq!(
            interval_s(PhaseKind::SevenZipSingle {
                expected_s: 10,
                mem_available_kib: 0
            }),
            5
        );
    }
}
