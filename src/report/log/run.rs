//! The standard run's text outputs, pure functions of a [`RunReport`]: the console summary
//! and the full log in sbc-bench's section order, ending with the Results.md row.

use std::fmt::Write as _;

use crate::monitor::Recording;
use crate::monitor::render::TableOptions;
use crate::record::finding::FindingCode;
use crate::record::plan::{StandardStep, StepKind};
use crate::record::run::{ModeResults, RunReport, RunStatus, StepStatus};
use crate::report::log::common::{after_sections, log_head, section, validation_and_tuning};
pub use crate::report::log::common::{finding_line, validation};
use crate::report::log::{clock, crypto, memory};
use crate::report::text::info;

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
        if let Some(d) = crate::report::log::memory::dram_summary(res) {
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

/// The monitor's header and its last row before the hot clock check.
fn health_now(rec: &Recording) -> Option<String> {
    let hot = rec.phase(StandardStep::ClockHot.phase())?;
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

/// Why the row's kH/s is `-` although the scrypt test ran: sbc-bench's score leaves out
/// the first interval and takes the second highest of the rest
/// ([`crate::record::results_row::cpuminer_score`]), so it needs three intervals with two
/// different totals; a quick run's 10 s give two.
fn scrypt_column_note(r: &RunReport) -> Option<String> {
    let row = r.results_row.as_ref()?;
    let run = r.results.scrypt.as_ref()?;
    if row.scrypt_khs.is_some() {
        return None;
    }
    let n = run.intervals.len();
    Some(format!(
        "Note: kH/s is `-`: the scrypt test ran {:.0} s, {n} interval{}; sbc-bench's score \
         leaves out the first and takes the second highest of the rest, so it needs at \
         least three{}\n\n",
        run.elapsed_s,
        if n == 1 { "" } else { "s" },
        if r.config.quick {
            " (run without --quick for the 5-minute test)"
        } else {
            ""
        }
    ))
}

/// The full log, in sbc-bench's section order; the last line is the Results.md row.
pub fn log(r: &RunReport) -> String {
    if let Some(own) = super::own_log(r) {
        return own;
    }
    let mut s = log_head(r);
    benchmark_sections(&mut s, r);
    after_sections(&mut s, r);
    section(&mut s, &phases(r));
    section(&mut s, &crate::report::log::power::log_section(r));
    section(&mut s, &validation_and_tuning(r));
    section(&mut s, &crate::report::log::review::log_section(r));
    if let Some(row) = &r.results_row {
        if let Some(n) = scrypt_column_note(r) {
            s.push_str(&n);
        }
        s.push_str(&row.render());
        s.push('\n');
    } else if r.status == RunStatus::Interrupted {
        s.push_str("The run was interrupted: no Results.md row for incomplete results.\n");
    }
    s
}

/// The benchmarks' sections, cold clock check to hot clock check.
fn benchmark_sections(s: &mut String, r: &RunReport) {
    let i = &r.system_before;
    let cold = clock::render(&r.results.clock_cold, &r.results.skipped_cpus);
    section(s, &cold);
    section(s, &info::sensors_block(i));
    section(s, &memory::render_membw(&r.results.membw, &[]));
    section(s, &memory::render_memlat(&r.results.memlat, &[]));
    if let Some(a) = &r.results.aes {
        section(s, &crypto::aes_section(crypto::EACH_CLUSTER, a));
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
    section(s, &per_core_type(r, StandardStep::SevenZip));
    if let Some(c) = &r.results.lzma {
        section(s, &crypto::compress_section(c, &all_cpus));
    }
    section(s, &per_core_type(r, StandardStep::Lzma));
    if let Some(sc) = &r.results.scrypt {
        section(s, &crypto::scrypt_section(sc, sc.elapsed_s.round() as u64));
    }
    if let ModeResults::Thermal(_) = &r.mode {
        section(s, &crate::report::log::thermal::section(r));
    }
    if !r.results.clock_hot.is_empty() {
        let mut hot = String::from(
            "Testing maximum cpufreq again, still under full load. System health now:\n\n",
        );
        if let Some(now) = r.monitor.as_ref().and_then(health_now) {
            hot.push_str(&now);
        }
        hot.push_str(clock::render(&r.results.clock_hot, &[]).trim_start_matches('\n'));
        section(s, &hot);
    }
    if let ModeResults::Graph(g) = &r.mode {
        s.push_str(&crate::report::page::graph::log_sections(g));
    }
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

/// Extensive mode's compression runs on each group of cores of one type, as sbc-bench
/// prints its "7-zip cluster benchmarks": `Executing benchmark 3 times multi-threaded on
/// CPUs 0-3 (Cortex-A55)` and 7-Zip's output, one block per group in one section.
fn per_core_type(r: &RunReport, tool: StandardStep) -> String {
    let mut s = String::new();
    for g in r
        .results
        .compress_per_cluster
        .iter()
        .filter(|g| g.tool == tool)
    {
        let cpus = crate::sys::cpu_list::format_list(&g.cpus);
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
    use crate::bench::scrypt::{ScryptInterval, ScryptRun};

    fn scrypt(khs: &[f64]) -> ScryptRun {
        ScryptRun {
            n: 1024,
            kernel: "neon-4way".into(),
            threads: Vec::new(),
            intervals: khs
                .iter()
                .enumerate()
                .map(|(i, &v)| ScryptInterval {
                    end_s: 5.0 * (i + 1) as f64,
                    seconds: 5.0,
                    hashes: (v * 5000.0) as u64,
                    khash_per_s: v,
                })
                .collect(),
            mean_khash_per_s: 1.0,
            elapsed_s: 5.0 * khs.len() as f64,
        }
    }

    /// Issue 28: a quick `-c` run's Results.md row had `-` for kH/s and nothing said why.
    #[test]
    fn quick_stress_row_says_why_its_khs_is_a_dash() {
        let mut r = crate::record::read::fixture_rock5b();
        r.config.quick = true;
        r.results.scrypt = Some(scrypt(&[11.51, 12.22]));
        if let Some(row) = r.results_row.as_mut() {
            row.scrypt_khs = None;
        }
        let text = log(&r);
        let note = "Note: kH/s is `-`: the scrypt test ran 10 s, 2 intervals; sbc-bench's score \
                    leaves out the first and takes the second highest of the rest, so it needs \
                    at least three (run without --quick for the 5-minute test)\n\n";
        assert!(text.contains(note), "{text}");
        // The row stays the last line.
        let row = r
            .results_row
            .as_ref()
            .map(|x| x.render())
            .unwrap_or_default();
        assert!(text.ends_with(&format!("{note}{row}\n")), "{text}");
        // A score, or no scrypt test: no note.
        r.results.scrypt = Some(scrypt(&[11.5, 12.2, 12.3, 12.1]));
        if let Some(row) = r.results_row.as_mut() {
            row.scrypt_khs = Some(12.2);
        }
        assert!(!log(&r).contains("Note: kH/s"));
        r.results.scrypt = None;
        assert!(!log(&r).contains("Note: kH/s"));
    }
}
