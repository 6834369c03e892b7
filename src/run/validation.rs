//! From a finished run to sbc-bench's "Results validation" list and the Results.md row.

use crate::diagnose::throttle::{self, PiThrottled};
use crate::diagnose::validate::{self, ClockCheck as AdvertisedCheck, SwapState};
use crate::diagnose::{Finding, Severity};
use crate::monitor::Recording;
use crate::report::results_row::ResultsRow;
use crate::run::plan::StepKind;
use crate::run::record::RunReport;

/// Seconds below the highest OPP that still count as "no throttling" (OPP switches at
/// the start of a benchmark, the kernel's 10 ms granularity).
const THROTTLE_TOLERANCE_S: f64 = 1.0;

/// Highest measured clock of a cluster at its highest walked OPP, MHz.
fn max_measured(c: &crate::bench::clock::ClockCheck) -> Option<(f64, Option<f64>)> {
    if let Some(w) = &c.walk {
        let top = w.opps.iter().max_by_key(|o| o.opp_khz)?;
        return Some((
            top.opp_khz as f64 / 1000.0,
            top.measured.as_ref().map(|m| m.mhz),
        ));
    }
    None
}

/// All validation findings of a run.
pub fn findings(
    r: &RunReport,
    rec: Option<&Recording>,
    swap_before: &SwapState,
    swap_after: &SwapState,
    online_before: &[u32],
    online_after: &[u32],
) -> Vec<Finding> {
    let mut out = Vec::new();
    // Advertised vs measured, before (cold) and after (hot).
    let checks: Vec<AdvertisedCheck> = r
        .results
        .clock_cold
        .iter()
        .filter_map(|c| {
            let (adv, before) = max_measured(c)?;
            let after = r
                .results
                .clock_hot
                .iter()
                .find(|h| h.target.cpu == c.target.cpu)
                .and_then(max_measured)
                .and_then(|(_, m)| m);
            Some(AdvertisedCheck {
                label: c.target.label(),
                advertised_mhz: adv,
                before_mhz: before,
                after_mhz: after,
            })
        })
        .collect();
    out.extend(validate::clock_findings(&checks));
    out.extend(validate::swap_findings(swap_before, swap_after));
    // Background activity: %sys during the memory benchmarks, total %cpu during the
    // single-threaded ones.
    if let Some(rec) = rec {
        let mut sys = Vec::new();
        let mut cpu = Vec::new();
        for kind in [StepKind::MemBandwidth, StepKind::MemLatency] {
            if let Some(p) = rec.phase(kind.phase()) {
                for iv in rec.phase_intervals(p) {
                    if let Some(u) = &iv.usage {
                        sys.push(u.sys_pct);
                        cpu.push(u.cpu_pct);
                    }
                }
            }
        }
        out.extend(validate::sys_activity_findings(&sys));
        out.extend(validate::other_activity_findings(&cpu, online_before.len()));
    }
    out.extend(throttle::findings(&r.throttling, THROTTLE_TOLERANCE_S));
    out.extend(validate::offline_findings(online_before, online_after));
    out.extend(validate::kernel_findings(&r.kernel_log));
    if let Some(after) = r.pi_throttled_after.as_deref().and_then(PiThrottled::parse) {
        let before = r
            .pi_throttled_before
            .as_deref()
            .and_then(PiThrottled::parse);
        out.extend(PiThrottled::findings(before, after));
    }
    for s in &r.steps {
        if let crate::run::record::StepStatus::Failed(e) = &s.status {
            out.push(Finding::new(
                "benchmark-failed",
                Severity::Invalid,
                format!("{} failed: {e}", s.kind.phase()),
            ));
        }
    }
    out
}

/// The Results.md row: best cluster's figures.
pub fn results_row(r: &RunReport) -> ResultsRow {
    let info = &r.system_before;
    let best = |v: Vec<f64>| {
        v.into_iter()
            .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
    };
    let membw = |f: &dyn Fn(&crate::bench::membw::MembwResult) -> Option<f64>| {
        best(
            r.results
                .membw
                .iter()
                .filter_map(|m| m.result.as_ref())
                .filter_map(f)
                .collect(),
        )
    };
    let distro = info
        .distro
        .as_ref()
        .and_then(|d| d.pretty_name.clone())
        .unwrap_or_else(|| "n/a".to_string());
    let arch = info
        .userland
        .as_ref()
        .map(|u| u.arch.clone())
        .unwrap_or_else(|| "n/a".to_string());
    ResultsRow {
        device: info
            .device
            .name
            .clone()
            .unwrap_or_else(|| "n/a".to_string()),
        max_mhz: info
            .topology
            .clusters
            .iter()
            .filter_map(|c| c.cpus.first())
            .filter_map(|&cpu| info.topology.cpu(cpu).and_then(|c| c.max_mhz))
            .collect(),
        kernel: info.kernel.release.clone().unwrap_or_default(),
        distro_arch: format!("{distro} {arch}"),
        memcpy_mb_s: membw(&|m| m.memcpy_mb_per_s()),
        memset_mb_s: membw(&|m| m.memset_mb_per_s()),
        ..Default::default()
    }
}
