//! The parts of the text log every mode's log shares (`report::log::run` for the standard run
//! and review, `report::log::wrap` for a wrap run): the section rule, the head, the sections
//! after the benchmarks with the health tables, validation and tuning. They sit below
//! both logs, so neither log needs the other's file (they used to live in `run.rs`,
//! which `wrap.rs` and `review.rs` imported while `run.rs` imported them back).

use std::fmt::Write as _;

use crate::monitor::render::TableOptions;
use crate::monitor::{Phase, Recording};
use crate::output::{Paint, paint};
use crate::record::finding::{Finding, Severity};
use crate::record::mode::thermal::ThermalStep;
use crate::record::plan::{StandardStep, StepKind};
use crate::record::run::{RunReport, table_every_s};
use crate::report::log::throttle;
use crate::report::text::info;
use crate::report::text::topology;

/// The line between two sections of sbc-bench's log.
const RULE: &str = "##########################################################################";

/// `  * No swapping`, coloured on a terminal.
pub fn finding_line(f: &Finding, color: bool) -> String {
    let text = format!("  * {}", f.message);
    if !color {
        return text;
    }
    match f.severity {
        Severity::Ok => paint(Paint::Green, &text),
        Severity::Info => text,
        Severity::Warning => paint(Paint::Yellow, &text),
        Severity::Invalid => paint(Paint::Red, &text),
    }
}

/// The "Results validation" block.
pub fn validation(r: &RunReport, color: bool) -> String {
    let mut s = String::from("Results validation:\n\n");
    if r.findings.is_empty() {
        s.push_str("  * n/a (nothing to validate)\n");
    }
    for f in &r.findings {
        s.push_str(&finding_line(f, color));
        s.push('\n');
    }
    s
}

/// The "System health while running …:" heading of a step's table: sbc-bench's own
/// where it has that phase (the tools that parse its logs key on them, and so does
/// sbc-bench's own background-activity check, `tinymembench` … ` 7-zip multi `), ours for
/// the steps it has no counterpart of. The AES step is sbc-bench's OpenSSL phase, native
/// or not: it fills the row's AES column either way; our scrypt stress is its cpuminer.
/// The 7-Zip step is split, see [`sevenzip_parts`].
fn health_heading(kind: StepKind) -> &'static str {
    use StandardStep as S;
    match kind {
        StepKind::Standard(S::MemBandwidth) => "tinymembench",
        StepKind::Standard(S::MemLatency) => "ramlat",
        StepKind::Standard(S::Aes) => "OpenSSL benchmark",
        StepKind::Standard(S::Scrypt) | StepKind::Thermal(ThermalStep::ThermalLoad) => "cpuminer",
        // The clock checks, the 7-Zip and LZMA steps (split or named as sbc-bench names
        // them already), and every step of the modes sbc-bench has no counterpart of.
        _ => kind.phase(),
    }
}

/// sbc-bench's three 7-Zip phases with how long each took by 7-Zip's own timing: the
/// single-threaded runs, the multi-threaded ones and (extensive mode) the runs on each
/// group of cores, in the order the step runs them. Empty when 7-Zip gave no results.
fn sevenzip_parts(r: &RunReport) -> Vec<(&'static str, f64)> {
    let Some(z) = r
        .results
        .sevenzip
        .as_ref()
        .and_then(|c| c.sevenzip.as_ref())
    else {
        return Vec::new();
    };
    let cluster_s: f64 = r
        .results
        .compress_per_cluster
        .iter()
        .filter(|g| g.tool == StandardStep::SevenZip)
        .filter_map(|g| g.result.sevenzip.as_ref())
        .flat_map(|z| z.multi.iter().map(|m| m.elapsed_s))
        .sum();
    let parts = [
        (
            "7-zip single core benchmark",
            z.single.iter().map(|o| o.result.elapsed_s).sum::<f64>(),
            !z.single.is_empty(),
        ),
        (
            "7-zip multi core benchmark",
            z.multi.iter().map(|m| m.elapsed_s).sum::<f64>(),
            !z.multi.is_empty(),
        ),
        (
            "7-zip cluster benchmarks",
            cluster_s,
            r.results
                .compress_per_cluster
                .iter()
                .any(|g| g.tool == StandardStep::SevenZip),
        ),
    ];
    parts
        .into_iter()
        .filter(|p| p.2)
        .map(|(label, secs, _)| (label, secs))
        .collect()
}

/// Cut `phase` into consecutive parts of the given lengths, each named for its table:
/// a part ends at the first sample at least its length (less half a sampling interval)
/// after it began, the last at the phase's end. A part that begins at the phase's end
/// (the timings add up to more than the recording saw) has no rows.
fn split_phase(rec: &Recording, phase: &Phase, parts: &[(&str, f64)]) -> Vec<Phase> {
    let last = rec.samples.len().saturating_sub(1);
    let end = phase.end.unwrap_or(last).min(last);
    let Some(t0) = rec.samples.get(phase.start).map(|s| s.mono_s) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut start, mut elapsed) = (phase.start.min(end), 0.0);
    for (i, (label, secs)) in parts.iter().enumerate() {
        elapsed += secs;
        let stop = if i + 1 == parts.len() {
            end
        } else {
            (start..=end)
                .find(|&j| rec.samples[j].mono_s - t0 >= elapsed - rec.interval_s / 2.0)
                .unwrap_or(end)
        };
        out.push(Phase {
            label: (*label).to_string(),
            start,
            end: Some(stop),
            start_unix_ms: rec.samples[start].unix_ms,
            end_unix_ms: Some(rec.samples[stop].unix_ms),
        });
        start = stop;
    }
    out
}

/// How a mode's log draws its `System health while running …:` tables from the
/// recording, in sbc-bench's layout (`opts`).
pub(crate) type HealthTables<'a> = &'a dyn Fn(&Recording, &TableOptions) -> String;

/// The tables in sbc-bench's layout, DC-in shown where the recording has it.
fn health_tables(rec: &Recording, tables: HealthTables<'_>) -> String {
    let dc = rec.intervals.iter().any(|i| i.dc_in_v.is_some());
    tables(rec, &TableOptions::sbc_bench(dc))
}

/// One table per step that ran (sbc-bench's phases; the 7-Zip step split as its
/// benchmarks ran).
fn step_health_tables(rec: &Recording, r: &RunReport, opts: &TableOptions) -> String {
    let mut s = String::new();
    let sevenzip = sevenzip_parts(r);
    for step in &r.steps {
        let Some(phase) = rec.phase(step.kind.phase()) else {
            continue;
        };
        let mut parts: Vec<(Phase, f64)> = Vec::new();
        if step.kind == StandardStep::SevenZip && !sevenzip.is_empty() {
            parts = split_phase(rec, phase, &sevenzip)
                .into_iter()
                .map(|p| {
                    let secs = p.duration_s(rec).unwrap_or(0.0);
                    (p, secs)
                })
                .collect();
        }
        if parts.is_empty() {
            let mut p = phase.clone();
            p.label = health_heading(step.kind).to_string();
            parts.push((p, step.duration_s));
        }
        for (p, secs) in parts {
            // Ten rows or so per table, never denser than the sampling: the interval
            // grows with the phase, as sbc-bench's does.
            let every = table_every_s(secs, rec.interval_s);
            s.push_str(&rec.health_table(&p, every, opts, &crate::monitor::render::local_hms));
            s.push('\n');
        }
    }
    s
}

/// `body` as one section of the log after the rule; nothing for an empty body.
pub(crate) fn section(s: &mut String, body: &str) {
    if body.trim().is_empty() {
        return;
    }
    s.push_str(RULE);
    s.push_str("\n\n");
    s.push_str(body.trim_start_matches('\n').trim_end());
    s.push_str("\n\n");
}

/// The first lines: version, device, mode and date; distro, uptime, summary, memory.
pub(crate) fn log_head(r: &RunReport) -> String {
    let i = &r.system_before;
    let mut s = String::new();
    // Machines without a device-tree model or DMI (VMs, containers) go by their hostname.
    let device = i
        .device
        .name
        .as_deref()
        .or(i.hostname.as_deref())
        .unwrap_or("n/a");
    let date = chrono::DateTime::parse_from_rfc3339(&r.started)
        .map(|d| d.to_rfc2822())
        .unwrap_or_else(|_| r.started.clone());
    // sbc-bench names the mode in the first line: `… Radxa ROCK 5B extensive (…)`. A
    // shortened run says so there too (`… unattended quick (…)`), as sbc-bench's
    // `NOTUNING review` adds a word: its figures compare with no full run.
    let mode = if r.config.extensive {
        " extensive"
    } else if r.config.unattended {
        " unattended"
    } else {
        ""
    };
    let quick = if r.config.quick { " quick" } else { "" };
    // `-rs` after the version tells our log from the bash sbc-bench's: no reader orders
    // our `0.1.0` below its `0.4` (results::sbclog reads the marker).
    let _ = writeln!(
        s,
        "sbc-bench v{}-rs {device}{mode}{quick} ({date})\n",
        r.sbc_bench_version
    );
    s.push_str(&info::distro_lines(i));
    s.push('\n');
    s.push_str(&crate::report::log::tools::dmi_blocks(&i.log_inventory.dmi));
    if let Some(u) = &r.preflight.uptime {
        let temp = i
            .sensors
            .thermal_source_temp_c
            .map(|t| format!(",  {t:.1}°C"))
            .unwrap_or_default();
        let _ = writeln!(s, "Uptime: {u}{temp}\n");
    }
    s.push_str(&crate::report::log::tools::health_block_of(
        i,
        crate::report::log::tools::iostat_date(&r.started),
    ));
    s.push_str(&info::summary_line(i));
    s.push_str("\n\n");
    s.push_str(&info::memory_block(
        &i.memory,
        i.virtualization.vm.is_some(),
    ));
    s.push('\n');
    s
}

/// After the benchmarks: sensors, health tables (one per step), throttling, kernel log,
/// environment.
pub(crate) fn after_sections(s: &mut String, r: &RunReport) {
    after_sections_with(s, r, &|rec, opts| step_health_tables(rec, r, opts));
}

/// [`after_sections`] with the health tables `tables` draws (a wrap run's: one per run
/// of its command).
pub(crate) fn after_sections_with(s: &mut String, r: &RunReport, tables: HealthTables<'_>) {
    let i = &r.system_before;
    if let Some(after) = &r.system_after {
        section(s, &info::sensors_block(after));
    }
    if let Some(rec) = &r.monitor {
        let mut h = String::new();
        if let Some(src) = &i.sensors.thermal_source {
            let _ = writeln!(h, "Thermal source: {}\n", src.label());
        }
        h.push_str(&health_tables(rec, tables));
        section(s, &h);
    }
    section(s, &throttle::residency_table(&r.throttling));
    if let Some(pi) = r
        .pi_throttled_after
        .as_deref()
        .and_then(crate::diagnose::throttle::PiThrottled::parse)
    {
        section(
            s,
            &format!(
                "Querying ThreadX on RPi for thermal or undervoltage issues:\n\n{}",
                throttle::pi_bits(pi)
            ),
        );
    }
    let mut dm = String::from("dmesg output while running the benchmarks:\n\n");
    if r.kernel_log.is_empty() {
        dm.push_str("(nothing logged)\n");
    }
    for k in &r.kernel_log {
        dm.push_str(&k.dmesg_line());
        dm.push('\n');
    }
    section(s, &dm);
    let end = r.system_after.as_ref().unwrap_or(i);
    let end_date =
        crate::report::log::tools::iostat_date(r.finished.as_deref().unwrap_or(&r.started));
    section(
        s,
        &crate::report::log::tools::health_block_of(end, end_date),
    );
    let mut env = topology::render(&i.topology);
    env.push('\n');
    let lscpu = crate::report::log::tools::lscpu_of(i);
    if !lscpu.is_empty() {
        env.push_str(&lscpu);
        env.push('\n');
    }
    env.push_str(&info::environment_block(i));
    section(s, &env);
    section(s, &crate::report::log::tools::cache_and_dimms(i));
    section(s, &crate::report::log::tools::opp_section(i));
}

/// Results validation, governors, and what tuning did.
pub(crate) fn validation_and_tuning(r: &RunReport) -> String {
    let mut v = validation(r, false);
    v.push('\n');
    v.push_str(&info::governors_block(&r.system_before));
    if !r.tuning.is_empty() {
        v.push_str("\nTuned governor settings (restored after the run):\n\n");
        for t in &r.tuning {
            let from = t.from.as_deref().unwrap_or("n/a");
            let _ = match &t.outcome {
                Ok(to) => writeln!(v, "  * {}: {from} -> {to}", t.name),
                Err(e) => writeln!(v, "  * {}: {from} (not changed: {e})", t.name),
            };
        }
    } else if r.config.no_tuning {
        v.push_str("\nNOTUNING=yes: governors left as they were.\n");
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::layout::{ClockColumn, ClockColumns, Layout};
    use crate::monitor::{Sample, SampleSpec};

    /// A recording with one sample at each of `secs`, all of them one phase.
    fn recording(secs: &[f64]) -> Recording {
        let layout = Layout {
            clocks: ClockColumns::Single {
                column: ClockColumn {
                    first_cpu: 0,
                    policy: 0,
                },
            },
            cpu_policy: std::collections::BTreeMap::from([(0, 0)]),
            all_policies: false,
        };
        let mut rec = Recording::new(1.0, layout, SampleSpec::default());
        for (i, &t) in secs.iter().enumerate() {
            rec.push(Sample {
                mono_s: t,
                unix_ms: 1_700_000_000_000 + (t * 1000.0) as i64,
                ..Default::default()
            });
            if i == 0 {
                rec.begin_phase(StandardStep::SevenZip.phase());
            }
        }
        rec.end_phase();
        rec
    }

    #[test]
    fn the_7zip_table_is_cut_where_its_single_threaded_runs_ended() {
        // Sampled every second for 10 s; the single-threaded runs took 3.9 s by 7-Zip's
        // timing, the multi-threaded ones 6 s.
        let secs: Vec<f64> = (0..=10).map(f64::from).collect();
        let rec = recording(&secs);
        let phase = rec.phase(StandardStep::SevenZip.phase()).unwrap().clone();
        let parts = split_phase(
            &rec,
            &phase,
            &[
                ("7-zip single core benchmark", 3.9),
                ("7-zip multi core benchmark", 6.0),
            ],
        );
        let cut: Vec<(&str, usize, Option<usize>)> = parts
            .iter()
            .map(|p| (p.label.as_str(), p.start, p.end))
            .collect();
        assert_eq!(
            cut,
            [
                ("7-zip single core benchmark", 0, Some(4)),
                ("7-zip multi core benchmark", 4, Some(10)),
            ]
        );
        assert_eq!(parts[1].start_unix_ms, 1_700_000_004_000);
        // Timings beyond what was recorded (canned results): the later part is empty.
        let parts = split_phase(&rec, &phase, &[("a", 30.0), ("b", 5.0)]);
        assert_eq!((parts[0].start, parts[0].end), (0, Some(10)));
        assert_eq!((parts[1].start, parts[1].end), (10, Some(10)));
    }

    #[test]
    fn health_headings_are_sbc_bench_s_where_it_has_the_phase() {
        assert_eq!(
            health_heading(StandardStep::MemBandwidth.into()),
            "tinymembench"
        );
        assert_eq!(health_heading(StandardStep::MemLatency.into()), "ramlat");
        assert_eq!(
            health_heading(StandardStep::Aes.into()),
            "OpenSSL benchmark"
        );
        assert_eq!(health_heading(StandardStep::Scrypt.into()), "cpuminer");
        assert_eq!(
            health_heading(StandardStep::Lzma.into()),
            "native LZMA benchmark"
        );
        assert_eq!(
            health_heading(StandardStep::ClockCold.into()),
            "clock check"
        );
    }
}
