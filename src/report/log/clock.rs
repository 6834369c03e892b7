//! sbc-bench's "Checking cpufreq OPP" section, byte-for-byte where sbc-bench has a line for
//! it (`Cpufreq OPP: 1800    Measured: 1827 (1827.227/1827.089/1827.021)     (+1.5%)`,
//! `No cpufreq support.  Measured: 1047 (1047.575/1047.470/1047.246)`).

use crate::bench::clock::{ClockCheck, ClockMeasurement};
use crate::bench::pin::Skipped;
use crate::sys::cpu_list as list;

/// sbc-bench's single number: the mean of the samples as printed (three decimals), cut
/// to whole MHz (`SpeedSum / 3000` in shell integer arithmetic).
pub fn rounded_mhz(m: &ClockMeasurement) -> u64 {
    if m.samples_mhz.is_empty() {
        return 0;
    }
    let milli: u64 = m
        .samples_mhz
        .iter()
        .map(|s| (s.max(0.0) * 1000.0).round() as u64)
        .sum();
    milli / (1000 * m.samples_mhz.len() as u64)
}

/// The samples, highest first, three decimals, joined by `/`.
pub fn samples_text(m: &ClockMeasurement) -> String {
    let mut v = m.samples_mhz.clone();
    v.sort_by(|a, b| b.total_cmp(a));
    v.iter()
        .map(|s| format!("{s:.3}"))
        .collect::<Vec<_>>()
        .join("/")
}

/// The deviation column: shown when the measured clock is more than 1 % off the OPP, in
/// sbc-bench's rounding (ratio to three decimals) and layout (`     (+1.5%)`).
pub fn deviation_text(measured_mhz: u64, opp_mhz: u64) -> String {
    if opp_mhz == 0 {
        return String::new();
    }
    let ratio = format!("{:.3}", measured_mhz as f64 / opp_mhz as f64);
    let Ok(permille) = ratio.replace('.', "").parse::<i64>() else {
        return String::new();
    };
    let (sign, diff) = if permille < 990 {
        ('-', 1000 - permille)
    } else if permille > 1010 {
        ('+', permille - 1000)
    } else {
        return String::new();
    };
    format!("{:>10}%)", format!("({sign}{:.1}", diff as f64 / 10.0))
}

/// `Cpufreq OPP: 1800    Measured: 1827 (1827.227/1827.089/1827.021)     (+1.5%)`.
pub fn opp_line(opp_khz: u64, m: &ClockMeasurement) -> String {
    let opp = opp_khz / 1000;
    let measured = rounded_mhz(m);
    format!(
        "Cpufreq OPP: {opp:>4}    Measured: {measured:>4} {:>27}){}",
        format!("({}", samples_text(m)),
        deviation_text(measured, opp)
    )
}

/// `No cpufreq support.  Measured: 1047 (1047.575/1047.470/1047.246)`.
pub fn no_cpufreq_line(m: &ClockMeasurement) -> String {
    format!(
        "No cpufreq support.  Measured: {} ({})",
        rounded_mhz(m),
        samples_text(m)
    )
}

/// The line after a measurement whose samples kept disagreeing (see
/// [`crate::bench::clock::steady`]); `None` for a steady one.
pub fn unreliable_note(cpu: u32, m: &ClockMeasurement) -> Option<String> {
    if !m.unreliable {
        return None;
    }
    let retried = m.attempts.saturating_sub(1);
    Some(format!(
        "Note: cpu{cpu} was busy, this reading is unreliable: its samples still differ by \
         {:.1}% after {} measurement{} ({retried} rejected, {} interrupted run{} discarded)",
        m.spread_pct(),
        m.attempts,
        if m.attempts == 1 { "" } else { "s" },
        m.rejected_runs,
        if m.rejected_runs == 1 { "" } else { "s" },
    ))
}

/// [`heading`], naming the CPU measured when the user chose it (`--cpus`): `Checking
/// cpufreq OPP for cpu0-cpu1 (EPYC), measured on cpu1:`.
pub fn heading_with(c: &ClockCheck, measured_on: bool) -> String {
    let h = heading(c);
    if !measured_on {
        return h;
    }
    let base = h.strip_suffix(':').unwrap_or(&h);
    format!("{base}, measured on cpu{}:", c.target.cpu)
}

/// `Checking cpufreq OPP for cpu4-cpu5 (Cortex-A76):`, or without `for …` on machines with
/// one cluster, as sbc-bench prints it.
pub fn heading(c: &ClockCheck) -> String {
    let info = c
        .target
        .core_type
        .as_ref()
        .map(|t| format!(" ({t})"))
        .unwrap_or_default();
    if c.only_cluster {
        format!("Checking cpufreq OPP{info}:")
    } else {
        let cpus = if c.cluster_cpus.is_empty() {
            vec![c.target.cpu]
        } else {
            c.cluster_cpus.clone()
        };
        format!(
            "Checking cpufreq OPP for {}{info}:",
            list::format_cpu_range(&cpus)
        )
    }
}

/// One target's section: blank line, heading, blank line, result lines.
pub fn render_check(c: &ClockCheck) -> String {
    render_check_with(c, false)
}

/// [`render_check`], with the CPU named in the heading when `measured_on`.
pub fn render_check_with(c: &ClockCheck, measured_on: bool) -> String {
    let mut s = format!("\n{}\n\n", heading_with(c, measured_on));
    let note = |s: &mut String, m: &ClockMeasurement| {
        if let Some(n) = unreliable_note(c.target.cpu, m) {
            s.push('\n');
            s.push_str(&n);
        }
    };
    if let Some(w) = &c.walk {
        for o in &w.opps {
            match (&o.measured, &o.error) {
                (Some(m), _) => {
                    s.push_str(&opp_line(o.opp_khz, m));
                    note(&mut s, m);
                }
                (None, e) => s.push_str(&format!(
                    "Cpufreq OPP: {:>4}    not measured: {}",
                    o.opp_khz / 1000,
                    e.as_deref().unwrap_or("unknown error")
                )),
            }
            s.push('\n');
        }
        if w.cancelled {
            s.push_str("(cancelled)\n");
        }
        for e in &w.restore_errors {
            s.push_str(&format!("Warning: {e}\n"));
        }
        return s;
    }
    if let Some(reason) = &c.not_walked {
        s.push_str(&format!(
            "cpufreq OPPs not walked ({reason}), measured on cpu{} as it is:\n",
            c.target.cpu
        ));
    }
    match (&c.measured, &c.error) {
        (Some(m), _) if c.policy.is_none() => s.push_str(&no_cpufreq_line(m)),
        (Some(m), _) => match c.kernel_cur_khz {
            Some(k) => s.push_str(&opp_line(k, m).replacen("Cpufreq OPP:", "Cpufreq now:", 1)),
            None => s.push_str(&format!(
                "Measured: {} ({})",
                rounded_mhz(m),
                samples_text(m)
            )),
        },
        (None, e) => s.push_str(&format!(
            "Not measured on cpu{}: {}",
            c.target.cpu,
            e.as_deref().unwrap_or("unknown error")
        )),
    }
    if let Some(m) = &c.measured {
        note(&mut s, m);
    }
    s.push('\n');
    s
}

/// The whole `bench clock` text: skipped CPUs, then one section per target.
pub fn render(checks: &[ClockCheck], skipped: &[Skipped]) -> String {
    render_with(checks, skipped, false)
}

/// [`render`], naming the measured CPU in each heading when `measured_on` (the user chose
/// the CPUs, so two of one cluster must be told apart).
pub fn render_with(checks: &[ClockCheck], skipped: &[Skipped], measured_on: bool) -> String {
    let mut s = String::new();
    for k in skipped {
        s.push_str(&format!("Skipping cpu{}: {}\n", k.cpu, k.reason));
    }
    for c in checks {
        s.push_str(&render_check_with(c, measured_on));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::clock::{OppCheck, PolicyWalk};
    use crate::bench::pin::Target;

    fn m(samples: &[f64]) -> ClockMeasurement {
        ClockMeasurement::from_samples(samples.to_vec(), 1, 0.5)
    }

    /// Lines copied from corpus logs, rebuilt from their numbers.
    #[test]
    fn opp_lines_match_the_corpus_byte_for_byte() {
        let cases: &[(u64, &[f64], &str)] = &[
            (
                1_800_000,
                &[1827.227, 1827.089, 1827.021],
                "Cpufreq OPP: 1800    Measured: 1827 (1827.227/1827.089/1827.021)     (+1.5%)",
            ),
            (
                816_000,
                &[819.047, 819.027, 818.842],
                "Cpufreq OPP:  816    Measured:  818    (819.047/819.027/818.842)",
            ),
            (
                408_000,
                &[393.409, 393.335, 393.301],
                "Cpufreq OPP:  408    Measured:  393    (393.409/393.335/393.301)     (-3.7%)",
            ),
            (
                115_000,
                &[103.305, 102.107, 98.843],
                "Cpufreq OPP:  115    Measured:  101     (103.305/102.107/98.843)    (-12.2%)",
            ),
            (
                1_104_000,
                &[1328.388, 1327.746, 1327.609],
                "Cpufreq OPP: 1104    Measured: 1327 (1328.388/1327.746/1327.609)    (+20.2%)",
            ),
            (
                2_400_000,
                &[2227.990, 2227.846, 2227.750],
                "Cpufreq OPP: 2400    Measured: 2227 (2227.990/2227.846/2227.750)     (-7.2%)",
            ),
            (
                1_512_000,
                &[1509.466, 1509.409, 1509.334],
                "Cpufreq OPP: 1512    Measured: 1509 (1509.466/1509.409/1509.334)",
            ),
        ];
        for (khz, samples, want) in cases {
            assert_eq!(opp_line(*khz, &m(samples)), *want);
        }
    }

    #[test]
    fn samples_are_printed_highest_first() {
        assert_eq!(
            opp_line(1_008_000, &m(&[1001.847, 536.590, 998.193])),
            "Cpufreq OPP: 1008    Measured:  845   (1001.847/998.193/536.590)    (-16.2%)"
        );
    }

    #[test]
    fn no_cpufreq_line_matches_the_corpus() {
        assert_eq!(
            no_cpufreq_line(&m(&[1047.575, 1047.470, 1047.246])),
            "No cpufreq support.  Measured: 1047 (1047.575/1047.470/1047.246)"
        );
    }

    #[test]
    fn deviation_threshold_is_one_percent_in_permille() {
        assert_eq!(deviation_text(1818, 1800), "");
        assert_eq!(deviation_text(1819, 1800), "     (+1.1%)");
        assert_eq!(deviation_text(1782, 1800), "");
        assert_eq!(deviation_text(1781, 1800), "     (-1.1%)");
        assert_eq!(deviation_text(1000, 0), "");
        assert_eq!(deviation_text(3600, 1800), "   (+100.0%)");
    }

    fn check(only: bool, core: Option<&str>) -> ClockCheck {
        ClockCheck {
            target: Target {
                cpu: 4,
                core_type: core.map(str::to_string),
                cluster: Some(1),
            },
            cluster_cpus: vec![4, 5],
            only_cluster: only,
            policy: Some(4),
            walk: None,
            measured: None,
            kernel_cur_khz: None,
            not_walked: None,
            error: None,
        }
    }

    #[test]
    fn chosen_cpus_are_named_in_the_heading() {
        let mut c = check(false, Some("EPYC"));
        c.target.cpu = 5;
        assert_eq!(
            heading_with(&c, true),
            "Checking cpufreq OPP for cpu4-cpu5 (EPYC), measured on cpu5:"
        );
        assert_eq!(
            heading_with(&check(true, None), true),
            "Checking cpufreq OPP, measured on cpu4:"
        );
        assert_eq!(heading_with(&c, false), heading(&c));
    }

    #[test]
    fn an_unreliable_reading_gets_a_note_after_its_line() {
        let mut c = check(true, None);
        c.policy = None;
        let mut meas = m(&[3611.950, 3530.822, 1265.598]);
        meas.unreliable = true;
        meas.attempts = 3;
        meas.rejected_runs = 12;
        c.measured = Some(meas);
        assert_eq!(
            render_check(&c),
            "\nChecking cpufreq OPP:\n\nNo cpufreq support.  Measured: 2802 \
(3611.950/3530.822/1265.598)\nNote: cpu4 was busy, this reading is unreliable: its samples \
still differ by 65.0% after 3 measurements (2 rejected, 12 interrupted runs discarded)\n"
        );
        // A steady reading has no note (and the corpus layout is unchanged).
        let mut c2 = c.clone();
        if let Some(x) = c2.measured.as_mut() {
            x.unreliable = false;
        }
        assert!(!render_check(&c2).contains("Note"));
    }

    #[test]
    fn headings_as_sbc_bench_prints_them() {
        assert_eq!(
            heading(&check(false, Some("Cortex-A76"))),
            "Checking cpufreq OPP for cpu4-cpu5 (Cortex-A76):"
        );
        assert_eq!(
            heading(&check(true, Some("Cortex-A53"))),
            "Checking cpufreq OPP (Cortex-A53):"
        );
        assert_eq!(heading(&check(true, None)), "Checking cpufreq OPP:");
        let mut c = check(false, None);
        c.cluster_cpus = vec![];
        assert_eq!(heading(&c), "Checking cpufreq OPP for cpu4:");
    }

    #[test]
    fn sections_for_walk_not_walked_no_cpufreq_and_errors() {
        let mut c = check(false, Some("Cortex-A76"));
        c.walk = Some(PolicyWalk {
            policy: 4,
            opps: vec![
                OppCheck {
                    opp_khz: 2_400_000,
                    measured: Some(m(&[2227.990, 2227.846, 2227.750])),
                    kernel_cur_khz: Some(2_400_000),
                    deviation_pct: Some(-7.2),
                    error: None,
                },
                OppCheck {
                    opp_khz: 408_000,
                    measured: None,
                    kernel_cur_khz: None,
                    deviation_pct: None,
                    error: Some("cannot write \"408000\"".into()),
                },
            ],
            restore_errors: vec!["could not restore x".into()],
            cancelled: false,
        });
        assert_eq!(
            render_check(&c),
            "\nChecking cpufreq OPP for cpu4-cpu5 (Cortex-A76):\n\n\
Cpufreq OPP: 2400    Measured: 2227 (2227.990/2227.846/2227.750)     (-7.2%)\n\
Cpufreq OPP:  408    not measured: cannot write \"408000\"\n\
Warning: could not restore x\n"
        );

        let mut c = check(false, Some("Cortex-A76"));
        c.not_walked = Some("walking cpufreq OPPs needs root".into());
        c.kernel_cur_khz = Some(2_208_000);
        c.measured = Some(m(&[2227.990, 2227.846, 2227.750]));
        assert_eq!(
            render_check(&c),
            "\nChecking cpufreq OPP for cpu4-cpu5 (Cortex-A76):\n\n\
cpufreq OPPs not walked (walking cpufreq OPPs needs root), measured on cpu4 as it is:\n\
Cpufreq now: 2208    Measured: 2227 (2227.990/2227.846/2227.750)\n"
        );

        let mut c = check(true, None);
        c.policy = None;
        c.measured = Some(m(&[2851.2, 2850.1, 2849.95]));
        assert_eq!(
            render_check(&c),
            "\nChecking cpufreq OPP:\n\nNo cpufreq support.  Measured: 2850 (2851.200/2850.100/2849.950)\n"
        );

        let mut c = check(true, None);
        c.error = Some("cannot run on cpu4: offline".into());
        assert!(render_check(&c).ends_with("Not measured on cpu4: cannot run on cpu4: offline\n"));

        let skipped = [Skipped {
            cpu: 9,
            reason: "no such CPU".into(),
        }];
        assert!(render(&[c], &skipped).starts_with("Skipping cpu9: no such CPU\n\nChecking"));
    }
}
