//! The standard run's text outputs, pure functions of a [`RunReport`]: the console summary
//! and the full log in sbc-bench's section order, ending with the Results.md row.

use std::fmt::Write as _;

use crate::monitor::render::TableOptions;
use crate::monitor::{Phase, Recording};
use crate::output::{Paint, paint};
use crate::record::finding::{Finding, FindingCode, Severity};
use crate::record::plan::StepKind;
use crate::record::run::{RunReport, RunStatus, StepStatus, table_every_s};
use crate::report::{bench_clock, bench_mem, crypto, info, throttle, topology};

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

/// `N CPU clusters measured individually` suffix, as sbc-bench words it.
fn clusters_suffix(n: usize) -> String {
    if n > 1 {
        format!(" (all {n} CPU clusters measured individually)")
    } else {
        String::new()
    }
}

/// sbc-bench's "Memory performance" block: libc memcpy and memset per cluster, suffixed
/// with the core type when there is more than one cluster.
fn memory_summary(r: &RunReport) -> String {
    let runs: Vec<_> = r
        .results
        .membw
        .iter()
        .filter_map(|m| m.result.as_ref().map(|res| (m.target.clone(), res)))
        .collect();
    if runs.is_empty() {
        return String::new();
    }
    let many = runs.len() > 1;
    let mut s = if many {
        format!("Memory performance{}:\n", clusters_suffix(runs.len()))
    } else {
        "Memory performance\n".to_string()
    };
    for (t, res) in runs {
        let tag = match (&t.core_type, many) {
            (Some(c), true) => format!(" ({c})"),
            _ => String::new(),
        };
        for (name, row) in [
            ("memcpy", res.libc_row(crate::bench::membw::ROW_MEMCPY)),
            ("memset", res.libc_row(crate::bench::membw::ROW_MEMSET)),
        ] {
            if let Some(row) = row {
                let dev = if row.stddev_pct > 0.1 {
                    format!(" ({:.1}%)", row.stddev_pct)
                } else {
                    String::new()
                };
                let _ = writeln!(s, "{name}: {:.1} MB/s{dev}{tag}", row.mb_per_s);
            }
        }
        if let Some(d) = crate::report::bench_mem::dram_summary(res) {
            let _ = writeln!(s, "{d}{tag}");
        }
    }
    s
}

/// sbc-bench's "OpenSSL results" block: `openssl speed`'s rows when it ran, else ours.
fn aes_summary(r: &RunReport) -> String {
    let Some(a) = &r.results.aes else {
        return String::new();
    };
    let clusters = r.results.membw.len().max(r.results.clock_cold.len());
    match &a.openssl {
        Some(o) if !o.rows.is_empty() => format!(
            "OpenSSL results{}:\n{}",
            clusters_suffix(clusters),
            crypto::table(&o.rows)
        ),
        _ => format!(
            "AES results (native, {}){}:\n{}",
            a.backend.label(),
            clusters_suffix(clusters),
            crypto::table(&a.native)
        ),
    }
}

/// Compression and scrypt score lines (`7-zip total scores (3 consecutive runs): …`).
fn score_lines(r: &RunReport) -> String {
    let mut blocks = Vec::new();
    if let Some(sc) = &r.results.scrypt {
        blocks.push(crypto::scrypt_summary(sc, sc.elapsed_s.round() as u64));
    }
    if let Some(l) = r
        .results
        .sevenzip
        .as_ref()
        .and_then(|c| c.sevenzip.as_ref())
        .and_then(crypto::sevenzip_summary)
    {
        blocks.push(l);
    }
    if let Some(l) = r.results.lzma.as_ref().and_then(crypto::native_summary) {
        blocks.push(l);
    }
    blocks
        .into_iter()
        .map(|b| format!("{b}\n"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the console shows at the end of a run.
pub fn console_summary(r: &RunReport, log: Option<&str>, color: bool) -> String {
    let mut s = String::new();
    s.push('\n');
    s.push_str(&validation(r, color));
    let mem = memory_summary(r);
    if !mem.is_empty() {
        s.push('\n');
        s.push_str(&mem);
    }
    let scores = score_lines(r);
    if !scores.is_empty() {
        s.push('\n');
        s.push_str(&scores);
    }
    let aes = aes_summary(r);
    if !aes.is_empty() {
        s.push('\n');
        s.push_str(&aes);
    }
    if r.status == RunStatus::Interrupted {
        s.push_str("\nThe run was interrupted: results are incomplete.\n");
    }
    if let Some(l) = log {
        let _ = write!(s, "\nFull results in {l}\n");
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
    match kind {
        StepKind::MemBandwidth => "tinymembench",
        StepKind::MemLatency => "ramlat",
        StepKind::Aes => "OpenSSL benchmark",
        StepKind::Scrypt | StepKind::ThermalLoad => "cpuminer",
        StepKind::ClockCold
        | StepKind::SevenZip
        | StepKind::Lzma
        | StepKind::ClockHot
        | StepKind::Aes256Before
        | StepKind::Aes256After
        | StepKind::CoolDown
        | StepKind::HeatUp
        | StepKind::GraphIdle
        | StepKind::Graph
        | StepKind::Wrap => kind.phase(),
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
        .filter(|g| g.tool == StepKind::SevenZip)
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
                .any(|g| g.tool == StepKind::SevenZip),
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

fn health_tables(rec: &Recording, r: &RunReport) -> String {
    let mut s = String::new();
    let dc = rec.intervals.iter().any(|i| i.dc_in_v.is_some());
    let opts = TableOptions::sbc_bench(dc);
    if let Some(w) = &r.wrap {
        return crate::report::wrap::health_tables(rec, w, &opts);
    }
    let sevenzip = sevenzip_parts(r);
    for step in &r.steps {
        let Some(phase) = rec.phase(step.kind.phase()) else {
            continue;
        };
        let mut parts: Vec<(Phase, f64)> = Vec::new();
        if step.kind == StepKind::SevenZip && !sevenzip.is_empty() {
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
            s.push_str(&rec.health_table(&p, every, &opts, &crate::monitor::render::local_hms));
            s.push('\n');
        }
    }
    s
}

/// The monitor's header and its last row before the hot clock check.
fn health_now(rec: &Recording) -> Option<String> {
    let hot = rec.phase(StepKind::ClockHot.phase())?;
    let iv = rec
        .intervals
        .iter()
        .rev()
        .find(|iv| iv.end_unix_ms <= hot.start_unix_ms && iv.usage.is_some())?;
    let dc = rec.intervals.iter().any(|i| i.dc_in_v.is_some());
    let opts = TableOptions::sbc_bench(dc);
    Some(format!(
        "{}\n{}\n",
        crate::monitor::render::header(&rec.layout, &opts),
        crate::monitor::render::row(
            &rec.layout,
            &opts,
            iv,
            &crate::monitor::render::local_hms(iv.end_unix_ms)
        )
    ))
}

pub(crate) fn section(s: &mut String, body: &str) {
    if body.trim().is_empty() {
        return;
    }
    s.push_str(RULE);
    s.push_str("\n\n");
    s.push_str(body.trim_start_matches('\n').trim_end());
    s.push_str("\n\n");
}

/// The full log, in sbc-bench's section order; the last line is the Results.md row.
pub fn log(r: &RunReport) -> String {
    if r.wrap.is_some() {
        return crate::report::wrap::log(r);
    }
    let mut s = log_head(r);
    benchmark_sections(&mut s, r);
    after_sections(&mut s, r);
    section(&mut s, &phases(r));
    section(&mut s, &crate::report::power::log_section(r));
    section(&mut s, &validation_and_tuning(r));
    section(&mut s, &crate::report::review::log_section(r));
    if let Some(row) = &r.results_row {
        s.push_str(&row.render());
        s.push('\n');
    } else if r.status == RunStatus::Interrupted {
        s.push_str("The run was interrupted: no Results.md row for incomplete results.\n");
    }
    s
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
    let _ = writeln!(
        s,
        "sbc-bench v{} {device}{mode}{quick} ({date})\n",
        r.sbc_bench_version
    );
    s.push_str(&info::distro_lines(i));
    s.push('\n');
    s.push_str(&crate::report::logsec::dmi_blocks(&i.log_inventory.dmi));
    if let Some(u) = &r.preflight.uptime {
        let temp = i
            .sensors
            .thermal_source_temp_c
            .map(|t| format!(",  {t:.1}°C"))
            .unwrap_or_default();
        let _ = writeln!(s, "Uptime: {u}{temp}\n");
    }
    s.push_str(&crate::report::logsec::health_block_of(
        i,
        crate::report::logsec::iostat_date(&r.started),
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

/// The benchmarks' sections, cold clock check to hot clock check.
fn benchmark_sections(s: &mut String, r: &RunReport) {
    let i = &r.system_before;
    let cold = bench_clock::render(&r.results.clock_cold, &r.results.skipped_cpus);
    section(s, &cold);
    section(s, &info::sensors_block(i));
    section(s, &bench_mem::render_membw(&r.results.membw, &[]));
    section(s, &bench_mem::render_memlat(&r.results.memlat, &[]));
    if let Some(a) = &r.results.aes {
        section(
            s,
            &crypto::aes_section("Executing benchmark on each cluster individually", a),
        );
    }
    let all_cpus: Vec<u32> = r.system_before.topology.online();
    if let Some(c) = &r.results.sevenzip {
        // Once validation says what a 7-Zip other than 16.02 does to the row, the 7-Zip
        // section does not say it again (console and log say it once).
        let said = r
            .findings
            .iter()
            .any(|f| f.code == FindingCode::SevenZipVersion);
        if said {
            let mut c = c.clone();
            if let Some(z) = c.sevenzip.as_mut() {
                z.warning = None;
            }
            section(s, &crypto::compress_section(&c, &all_cpus));
        } else {
            section(s, &crypto::compress_section(c, &all_cpus));
        }
    }
    section(s, &per_core_type(r, StepKind::SevenZip));
    if let Some(c) = &r.results.lzma {
        section(s, &crypto::compress_section(c, &all_cpus));
    }
    section(s, &per_core_type(r, StepKind::Lzma));
    if let Some(sc) = &r.results.scrypt {
        section(s, &crypto::scrypt_section(sc, sc.elapsed_s.round() as u64));
    }
    if r.results.thermal.is_some() {
        section(s, &crate::report::thermal::section(r));
    }
    if !r.results.clock_hot.is_empty() {
        let mut hot = String::from(
            "Testing maximum cpufreq again, still under full load. System health now:\n\n",
        );
        if let Some(now) = r.monitor.as_ref().and_then(health_now) {
            hot.push_str(&now);
        }
        hot.push_str(bench_clock::render(&r.results.clock_hot, &[]).trim_start_matches('\n'));
        section(s, &hot);
    }
    if let Some(g) = &r.results.graph {
        s.push_str(&crate::report::graph::log_sections(g));
    }
}

/// After the benchmarks: sensors, health tables, throttling, kernel log, environment.
pub(crate) fn after_sections(s: &mut String, r: &RunReport) {
    let i = &r.system_before;
    if let Some(after) = &r.system_after {
        section(s, &info::sensors_block(after));
    }
    if let Some(rec) = &r.monitor {
        let mut h = String::new();
        if let Some(src) = &i.sensors.thermal_source {
            let _ = writeln!(h, "Thermal source: {}\n", src.label());
        }
        h.push_str(&health_tables(rec, r));
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
    let end_date = crate::report::logsec::iostat_date(r.finished.as_deref().unwrap_or(&r.started));
    section(s, &crate::report::logsec::health_block_of(end, end_date));
    let mut env = topology::render(&i.topology);
    env.push('\n');
    let lscpu = crate::report::logsec::lscpu_of(i);
    if !lscpu.is_empty() {
        env.push_str(&lscpu);
        env.push('\n');
    }
    env.push_str(&info::environment_block(i));
    section(s, &env);
    section(s, &crate::report::logsec::cache_and_dimms(i));
    section(s, &crate::report::logsec::opp_section(i));
}

/// `Benchmark phases (local time):`, with the skipped steps.
fn phases(r: &RunReport) -> String {
    let mut steps = String::from("Benchmark phases (local time):\n\n");
    for st in &r.steps {
        let status = match &st.status {
            StepStatus::Ok => String::new(),
            StepStatus::Failed(e) => format!("  FAILED: {e}"),
            StepStatus::Cancelled => "  interrupted".to_string(),
        };
        let _ = writeln!(
            steps,
            "  {:<28} {} - {} ({:.1} s){status}",
            st.kind.phase(),
            st.started,
            st.ended,
            st.duration_s
        );
    }
    for (k, why) in &r.plan.skipped {
        let _ = writeln!(steps, "  {:<28} skipped: {why}", skipped_name(*k));
    }
    steps
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

/// Extensive mode's compression runs on each group of cores of one type, as sbc-bench
/// prints its "7-zip cluster benchmarks": `Executing benchmark 3 times multi-threaded on
/// CPUs 0-3 (Cortex-A55)` and 7-Zip's output, one block per group in one section.
fn per_core_type(r: &RunReport, tool: StepKind) -> String {
    let mut s = String::new();
    for g in r
        .results
        .compress_per_cluster
        .iter()
        .filter(|g| g.tool == tool)
    {
        let cpus = crate::sys::cpu::list::format_list(&g.cpus);
        let ty = g
            .core_type
            .as_ref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        if let Some(z) = &g.result.sevenzip {
            let times = match z.multi.len() {
                1 => "once".to_string(),
                2 => "twice".to_string(),
                n => format!("{n} times"),
            };
            let how = if g.cpus.len() == 1 {
                format!("single-threaded on CPU {cpus}")
            } else {
                format!("multi-threaded on CPUs {cpus}")
            };
            let _ = writeln!(s, "\nExecuting benchmark {times} {how}{ty}");
            for run in &z.multi {
                let _ = write!(s, "\n{}\n", crypto::trim_blank_lines(&run.output));
            }
        }
        if let Some(m) = &g.result.native_multi {
            let _ = write!(
                s,
                "\nExecuting native LZMA benchmark multi-threaded on CPUs {cpus}{ty} ({} threads)\n\n{}",
                m.cpus.len(),
                crypto::native_table(m)
            );
        }
        for e in &g.result.errors {
            let _ = writeln!(s, "Failed on CPUs {cpus}{ty}: {e}");
        }
    }
    s
}

fn skipped_name(k: StepKind) -> &'static str {
    k.phase()
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
                rec.begin_phase(StepKind::SevenZip.phase());
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
        let phase = rec.phase(StepKind::SevenZip.phase()).unwrap().clone();
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
        assert_eq!(health_heading(StepKind::MemBandwidth), "tinymembench");
        assert_eq!(health_heading(StepKind::MemLatency), "ramlat");
        assert_eq!(health_heading(StepKind::Aes), "OpenSSL benchmark");
        assert_eq!(health_heading(StepKind::Scrypt), "cpuminer");
        assert_eq!(health_heading(StepKind::Lzma), "native LZMA benchmark");
        assert_eq!(health_heading(StepKind::ClockCold), "clock check");
    }
}
