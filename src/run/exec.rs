//! Who runs the benchmarks of a standard run: the real native benchmarks, or canned
//! results for tests of orchestration and reports (`--fake-benchmarks`).

use crate::bench::clock::{self, CheckInput, ClockCheck, ClockMeasurement, WalkOptions};
use crate::bench::membw::{self, MembwRun};
use crate::bench::memlat::{self, MemlatRun};
use crate::bench::pin::Target;
use crate::run::config::RunConfig;
use crate::shutdown::CancellationToken;
use crate::sys::cpu::Topology;
use crate::sys::cpufreq::Policy;
use crate::sys::membench;
use crate::sys::root::SysRoot;

/// What every benchmark call gets.
pub struct Env<'a> {
    /// Where to read the system.
    pub root: &'a SysRoot,
    /// Settings.
    pub cfg: &'a RunConfig,
    /// cpufreq policies.
    pub policies: &'a [Policy],
    /// CPUs and clusters.
    pub topo: &'a Topology,
    /// Stop early when set.
    pub cancel: &'a CancellationToken,
    /// Progress of the current step, 0..=1 (drives the bar).
    pub progress: &'a (dyn Fn(f64) + Sync),
}

impl Env<'_> {
    fn cluster_cpus(&self, t: &Target) -> Vec<u32> {
        self.topo
            .cluster_of(t.cpu)
            .map(|c| c.cpus.clone())
            .unwrap_or_else(|| vec![t.cpu])
    }
}

/// The benchmarks of a standard run, one method per step.
pub trait Executor {
    /// Clock check of one cluster (`only_max`: the hot check at the end).
    fn clock(&mut self, env: &Env<'_>, target: &Target, only_max: bool) -> ClockCheck;
    /// Memory bandwidth on one cluster.
    fn membw(&mut self, env: &Env<'_>, target: &Target) -> MembwRun;
    /// Memory latency on one cluster.
    fn memlat(&mut self, env: &Env<'_>, target: &Target) -> MemlatRun;
}

/// The real, native benchmarks.
#[derive(Debug, Default)]
pub struct Native;

impl Executor for Native {
    fn clock(&mut self, env: &Env<'_>, target: &Target, only_max: bool) -> ClockCheck {
        let opts = if env.cfg.quick {
            clock::Options::quick()
        } else {
            clock::Options::standard()
        };
        let cancel = env.cancel;
        clock::check(
            CheckInput {
                root: env.root,
                policies: env.policies,
                target,
                cluster_cpus: env.cluster_cpus(target),
                only_cluster: env.topo.clusters.len() <= 1,
                permission: clock::walk_permission(env.root),
                walk: WalkOptions {
                    max_khz: env.cfg.max_khz,
                    min_khz: env.cfg.min_khz,
                    only_max,
                },
            },
            cancel,
            &mut |cpu| clock::measure_on(cpu, &opts, cancel),
            &mut |done, total| (env.progress)(done as f64 / total.max(1) as f64),
        )
    }

    fn membw(&mut self, env: &Env<'_>, target: &Target) -> MembwRun {
        let opts = if env.cfg.quick {
            membw::Options::quick()
        } else {
            membw::Options::standard()
        };
        let progress = env.progress;
        membw::run_target(env.root, target, &opts, env.cancel, &mut |d, t| {
            progress(d as f64 / t.max(1) as f64)
        })
    }

    fn memlat(&mut self, env: &Env<'_>, target: &Target) -> MemlatRun {
        let opts = if env.cfg.quick {
            memlat::Options::quick()
        } else if env.cfg.extensive {
            memlat::Options::extensive()
        } else {
            memlat::Options::standard()
        };
        let plan = memlat::plan(
            opts.max_bytes,
            membench::mem_available(env.root),
            membench::thp_mode(env.root),
        );
        let progress = env.progress;
        memlat::run_target(env.root, target, &opts, &plan, env.cancel, &mut |d, t| {
            progress(d as f64 / t.max(1) as f64)
        })
    }
}

/// Canned results, instantly: derived from the machine's own OPPs so reports over a
/// fixture look like that board's.
#[derive(Debug, Default)]
pub struct Fake;

impl Fake {
    fn measurement(mhz: f64) -> ClockMeasurement {
        ClockMeasurement::from_samples(vec![mhz + 0.4, mhz, mhz - 0.3], 1_000_000, 0.5)
    }
}

impl Executor for Fake {
    fn clock(&mut self, env: &Env<'_>, target: &Target, only_max: bool) -> ClockCheck {
        let policy = env.policies.iter().find(|p| p.cpus.contains(&target.cpu));
        let mut c = ClockCheck {
            target: target.clone(),
            cluster_cpus: env.cluster_cpus(target),
            only_cluster: env.topo.clusters.len() <= 1,
            policy: policy.map(|p| p.id),
            walk: None,
            measured: None,
            kernel_cur_khz: None,
            not_walked: None,
            error: None,
        };
        match policy {
            Some(p) => {
                let w = WalkOptions {
                    max_khz: env.cfg.max_khz,
                    min_khz: env.cfg.min_khz,
                    only_max,
                };
                let opps = clock::opps_to_check(p, &w)
                    .into_iter()
                    .map(|khz| {
                        // A board that runs 2 % below its highest OPP, as many do.
                        let mhz = khz as f64 / 1000.0
                            * if khz == p.cpuinfo_max_khz.unwrap_or(0) {
                                0.98
                            } else {
                                1.0
                            };
                        let m = Self::measurement(mhz);
                        clock::OppCheck {
                            opp_khz: khz,
                            deviation_pct: Some((m.mhz * 1000.0 / khz as f64 - 1.0) * 100.0),
                            measured: Some(m),
                            kernel_cur_khz: Some(khz),
                            error: None,
                        }
                    })
                    .collect();
                c.walk = Some(clock::PolicyWalk {
                    policy: p.id,
                    opps,
                    restore_errors: Vec::new(),
                    cancelled: false,
                });
            }
            None => c.measured = Some(Self::measurement(2000.0)),
        }
        c
    }

    fn membw(&mut self, _env: &Env<'_>, target: &Target) -> MembwRun {
        MembwRun {
            target: target.clone(),
            result: Some(fake_membw()),
            error: None,
        }
    }

    fn memlat(&mut self, _env: &Env<'_>, target: &Target) -> MemlatRun {
        MemlatRun {
            target: target.clone(),
            result: Some(fake_memlat()),
            error: None,
        }
    }
}

/// Bandwidth figures of a Cortex-A76 on an RK3588 (corpus log 3XYo.txt).
fn fake_membw() -> membw::MembwResult {
    let row = |name: &str, imp: &str, kind: membw::Kind, v: f64| membw::Row {
        name: name.to_string(),
        implementation: imp.to_string(),
        kind,
        mb_per_s: v,
        stddev_pct: 0.0,
        samples_mb_per_s: vec![v, v * 0.999],
    };
    membw::MembwResult {
        libc: "glibc (fake)".to_string(),
        buffers: membw::BufferPlan {
            bytes: 32 << 20,
            wanted_bytes: 32 << 20,
            llc_bytes: Some(3 << 20),
            mem_available_bytes: Some(3 << 30),
            note: None,
        },
        rows: vec![
            row("standard memcpy", "libc", membw::Kind::Copy, 10743.6),
            row("standard memset", "libc", membw::Kind::Fill, 28154.1),
            row("standard memchr", "libc", membw::Kind::Scan, 21000.0),
            row("NEON LDP/STP copy", "neon", membw::Kind::Copy, 10761.5),
        ],
        duration_s: 0.0,
        cancelled: false,
    }
}

/// Latency figures of a Cortex-A76 on an RK3588 (corpus log 3XYo.txt).
fn fake_memlat() -> memlat::MemlatResult {
    let sizes: Vec<u64> = (12..=27).map(|b| 1u64 << b).collect();
    let ns = |bytes: u64| -> f64 {
        match bytes {
            b if b <= 64 << 10 => 1.7,
            b if b <= 512 << 10 => 4.0,
            b if b <= 2 << 20 => 13.0,
            b if b <= 16 << 20 => 38.0,
            _ => 110.0,
        }
    };
    memlat::MemlatResult {
        plan: memlat::MemPlan {
            bytes: 128 << 20,
            wanted_bytes: 128 << 20,
            mem_available_bytes: Some(3 << 30),
            thp_mode: Some("madvise".to_string()),
            advice: crate::bench::kernels::buffer::Advice::HugePage,
            note: None,
        },
        tinymembench: vec![memlat::LatencyTable {
            advice: crate::bench::kernels::buffer::Advice::HugePage,
            advised: true,
            huge_page_bytes: None,
            rows: sizes
                .iter()
                .filter(|&&b| b <= 64 << 20)
                .map(|&b| memlat::LatencyRow {
                    block_bytes: b,
                    single_ns: ns(b) * 0.9,
                    dual_ns: ns(b) * 1.2,
                })
                .collect(),
        }],
        ramlat: Some(memlat::RamlatTable {
            columns: memlat::RAMLAT_COLUMNS
                .iter()
                .map(|c| c.to_string())
                .collect(),
            advised: true,
            huge_page_bytes: None,
            rows: sizes
                .iter()
                .map(|&b| memlat::RamlatRow {
                    size_bytes: b,
                    ns: (0..memlat::RAMLAT_COLUMNS.len())
                        .map(|i| ns(b) * (1.0 + i as f64 * 0.1))
                        .collect(),
                })
                .collect(),
        }),
        duration_s: 0.0,
        cancelled: false,
    }
}
