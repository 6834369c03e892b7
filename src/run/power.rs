//! A run's power figures from a `--power` meter: its timestamped readings
//! ([`PowerSampler`]) laid over the monitor's phases after the run — idle before the first
//! benchmark, the mean and energy per phase, and MIPS per watt of the multi-threaded
//! 7-Zip and native LZMA runs (which come last in their phases).

use crate::record::plan::{StandardStep, StepKind};
use crate::record::power::{PhasePower, PowerRecord};
use crate::record::run::RunReport;
use crate::report::export::ExportSink;
use crate::sys::meter::sampler::{PowerSampler, Timed, mean_mw};

/// Open and start the meter of `spec`, sampling every `every`; the error is the sentence
/// for the user (the meter did not answer, or the spec is wrong).
pub fn start(
    spec: &str,
    root: &crate::sys::root::SysRoot,
    every: std::time::Duration,
) -> Result<PowerSampler, crate::sys::meter::MeterError> {
    let meter = crate::sys::meter::open(spec, root)?;
    let s = PowerSampler::start(meter, every);
    // The first reading is taken at once; wait for it so that idle has one.
    s.wait_for(1, std::time::Duration::from_secs(5));
    Ok(s)
}

/// The meter's readings laid over the run's phases (idle mW, mW and energy per phase,
/// MIPS per watt), and the files written once more with them.
pub fn attach(report: &mut RunReport, power: Option<PowerSampler>, sink: &ExportSink) {
    let Some(p) = power else {
        return;
    };
    let (failed, _) = p.failures();
    let history = p.history();
    report.power = Some(record(report, p.describe(), p.banner(), &history, failed));
    drop(p.stop());
    sink.finish(report);
}

/// The multi-threaded score of a phase and how long those runs took (they end the phase).
fn multi_score(r: &RunReport, kind: StepKind) -> Option<(f64, f64)> {
    match kind {
        StepKind::Standard(StandardStep::SevenZip) => {
            let z = r.results.sevenzip.as_ref()?.sevenzip.as_ref()?;
            if z.multi.is_empty() {
                return None;
            }
            let mips = z
                .multi
                .iter()
                .map(|m| m.table.total_rating_mips as f64)
                .sum::<f64>()
                / z.multi.len() as f64;
            Some((mips, z.multi.iter().map(|m| m.elapsed_s).sum()))
        }
        StepKind::Standard(StandardStep::Lzma) => {
            let m = r.results.lzma.as_ref()?.native_multi.as_ref()?;
            Some((m.total_rating_mips, m.elapsed_s))
        }
        _ => None,
    }
}

/// Mean mW of the readings in `[from, to]` ms, else the last reading before `to` (a window
/// shorter than the sampling interval); with the count of readings inside.
fn window(history: &[Timed], from: i64, to: i64) -> (Option<f64>, Option<f64>, usize) {
    let inside: Vec<&Timed> = history
        .iter()
        .filter(|t| t.unix_ms >= from && t.unix_ms <= to)
        .collect();
    if inside.is_empty() {
        let before = history.iter().rev().find(|t| t.unix_ms <= to);
        let mw = before.map(|t| t.reading.mw);
        return (mw, mw, 0);
    }
    let peak = inside.iter().map(|t| t.reading.mw).fold(f64::MIN, f64::max);
    (mean_mw(inside.iter().copied()), Some(peak), inside.len())
}

/// The run's power record from the meter's `history` (pure).
pub fn record(
    r: &RunReport,
    meter: &str,
    banner: Option<&str>,
    history: &[Timed],
    failed: u64,
) -> PowerRecord {
    let phases = r
        .monitor
        .as_ref()
        .map(|m| m.phases.as_slice())
        .unwrap_or(&[]);
    let first = phases.first().map(|p| p.start_unix_ms);
    let idle: Vec<&Timed> = history
        .iter()
        .filter(|t| first.is_none_or(|f| t.unix_ms < f))
        .collect();
    let mut out = Vec::new();
    for p in phases {
        let Some(end) = p.end_unix_ms else { continue };
        let (mean, peak, n) = window(history, p.start_unix_ms, end);
        let duration_s = (end - p.start_unix_ms).max(0) as f64 / 1000.0;
        let kind = r
            .steps
            .iter()
            .map(|s| s.kind)
            .find(|k| k.phase() == p.label);
        let score = kind.and_then(|k| multi_score(r, k));
        let loaded = score.and_then(|(_, secs)| {
            let from = (end - (secs * 1000.0) as i64).max(p.start_unix_ms);
            window(history, from, end).0
        });
        let mips_per_watt = match (score, loaded) {
            (Some((mips, _)), Some(mw)) if mw > 0.0 => Some(mips / (mw / 1000.0)),
            _ => None,
        };
        out.push(PhasePower {
            phase: p.label.clone(),
            duration_s,
            mean_mw: mean,
            peak_mw: peak,
            readings: n,
            energy_mwh: mean.map(|mw| mw * duration_s / 3600.0),
            mips: score.map(|(m, _)| m),
            loaded_mw: loaded,
            mips_per_watt,
        });
    }
    PowerRecord {
        meter: meter.to_string(),
        banner: banner.map(str::to_string),
        idle_mw: mean_mw(idle.iter().copied()),
        idle_readings: idle.len(),
        phases: out,
        readings: history.len(),
        failed_readings: failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::meter::PowerReading;

    fn t(ms: i64, mw: f64) -> Timed {
        Timed {
            unix_ms: ms,
            reading: PowerReading::mw(mw),
        }
    }

    #[test]
    fn window_means_inside_and_falls_back_to_the_last_reading_before() {
        let h = [t(0, 1000.0), t(100, 2000.0), t(200, 4000.0), t(900, 8000.0)];
        assert_eq!(window(&h, 100, 200), (Some(3000.0), Some(4000.0), 2));
        // Nothing between 300 and 400: the reading at 200 stands for it.
        assert_eq!(window(&h, 300, 400), (Some(4000.0), Some(4000.0), 0));
        assert_eq!(window(&h[3..], 0, 10), (None, None, 0));
    }
}
