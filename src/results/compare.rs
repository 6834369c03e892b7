//! `sbc-bench compare`: one run set beside published rows of the same SoC (or device),
//! sorted by a metric, each figure with its difference to this run, and the reasons the
//! rows give for the difference (clock, throttling, kernel, distro, userland).

use std::fmt::Write as _;
use std::str::FromStr;

use serde::Serialize;

use super::reference::Reference;
use crate::record::results_row::{ResultsRow, kernel_major_minor, round_tens};

/// A Results.md column to sort by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    SevenzipMulti,
    SevenzipSingle,
    Aes,
    Memcpy,
    Memset,
    Khs,
}

impl Metric {
    pub const ALL: [Metric; 6] = [
        Metric::SevenzipMulti,
        Metric::SevenzipSingle,
        Metric::Aes,
        Metric::Memcpy,
        Metric::Memset,
        Metric::Khs,
    ];

    /// The name `--metric` takes.
    pub fn name(self) -> &'static str {
        match self {
            Metric::SevenzipMulti => "7zip-multi",
            Metric::SevenzipSingle => "7zip-single",
            Metric::Aes => "aes",
            Metric::Memcpy => "memcpy",
            Metric::Memset => "memset",
            Metric::Khs => "khs",
        }
    }

    /// This metric's value in a row.
    pub fn of(self, r: &ResultsRow) -> Option<f64> {
        match self {
            Metric::SevenzipMulti => r.sevenzip_multi.map(|v| v as f64),
            Metric::SevenzipSingle => r.sevenzip_single.map(|v| v as f64),
            Metric::Aes => r.aes256_16k,
            Metric::Memcpy => r.memcpy_mb_s,
            Metric::Memset => r.memset_mb_s,
            Metric::Khs => r.scrypt_khs,
        }
    }
}

impl FromStr for Metric {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Metric::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                let names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
                format!("not a metric (one of: {})", names.join(", "))
            })
    }
}

/// Which published rows to set beside the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "by", content = "value")]
pub enum Selection {
    /// Rows whose device cell names this SoC (`RK3588`; case does not matter).
    Soc(String),
    /// Rows whose device cell contains this text (`ROCK 5`).
    Device(String),
    /// Rows whose log names this core type (`Cortex-A76`; case does not matter).
    CoreType(String),
    /// Rows whose log names exactly these core types (the run's own, in any order).
    CoreTypes(Vec<String>),
}

impl Selection {
    fn matches(&self, r: &Reference) -> bool {
        let has = |hay: &str, needle: &str| {
            hay.to_ascii_lowercase()
                .contains(&needle.trim().to_ascii_lowercase())
        };
        match self {
            Selection::Soc(s) => has(r.soc.as_deref().unwrap_or(&r.row.device), s),
            Selection::Device(d) => has(&r.row.device, d),
            Selection::CoreType(t) => r
                .core_types
                .iter()
                .any(|c| c.eq_ignore_ascii_case(t.trim())),
            Selection::CoreTypes(ts) => {
                let mut a: Vec<String> = ts.iter().map(|t| t.to_ascii_lowercase()).collect();
                let mut b: Vec<String> = r
                    .core_types
                    .iter()
                    .map(|t| t.to_ascii_lowercase())
                    .collect();
                a.sort();
                a.dedup();
                b.sort();
                b.dedup();
                !a.is_empty() && a == b
            }
        }
    }

    /// Does any of `refs` match?
    pub fn matches_any(&self, refs: &[Reference]) -> bool {
        refs.iter().any(|r| self.matches(r))
    }

    /// The selection a SoC guess implies: its model number (`Rockchip RK3588/RK3588s`
    /// → `RK3588`), the first word that has both letters and digits.
    pub fn from_soc_guess(guess: &str) -> Option<Self> {
        guess
            .split(|c: char| c.is_whitespace() || c == '/' || c == ',' || c == '(' || c == ')')
            .find(|w| {
                w.len() >= 4
                    && w.chars().any(|c| c.is_ascii_digit())
                    && w.chars().any(|c| c.is_ascii_alphabetic())
            })
            .map(|w| Selection::Soc(w.to_string()))
    }
}

/// One row of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compared {
    /// This run (true) or a published row.
    pub this_run: bool,
    pub row: ResultsRow,
    /// The published log the row links to.
    pub log: Option<String>,
    /// Per metric (in [`Metric::ALL`] order): how much higher (+) or lower (−) than this
    /// run, in percent; `None` where either side has no figure.
    pub delta_pct: Vec<Option<f64>>,
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub selection: Selection,
    pub metric: Metric,
    /// Sorted by the metric, highest first; rows without it last.
    pub rows: Vec<Compared>,
    /// Why the published rows differ from this run, from what the rows state.
    pub why: Vec<String>,
}

/// Set `mine` beside the published rows `selection` picks.
pub fn compare(
    mine: &ResultsRow,
    refs: &[Reference],
    selection: Selection,
    metric: Metric,
) -> Comparison {
    let delta = |r: &ResultsRow| -> Vec<Option<f64>> {
        Metric::ALL
            .iter()
            .map(|m| match (m.of(r), m.of(mine)) {
                (Some(a), Some(b)) if b > 0.0 => Some((a - b) / b * 100.0),
                _ => None,
            })
            .collect()
    };
    let picked: Vec<&Reference> = refs.iter().filter(|r| selection.matches(r)).collect();
    let mut rows: Vec<Compared> = picked
        .iter()
        .map(|r| Compared {
            this_run: false,
            row: r.row.clone(),
            log: r.log.clone(),
            delta_pct: delta(&r.row),
        })
        .collect();
    rows.push(Compared {
        this_run: true,
        row: mine.clone(),
        log: None,
        delta_pct: vec![Some(0.0); Metric::ALL.len()],
    });
    rows.sort_by(|a, b| {
        let (x, y) = (metric.of(&a.row), metric.of(&b.row));
        match (x, y) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
    });
    let why = reasons(mine, &picked, metric);
    Comparison {
        selection,
        metric,
        rows,
        why,
    }
}

/// The first number of a clock cell (`2400/1800 MHz` → 2400, `~2310` → 2310).
fn clock_mhz(cell: &str) -> Option<f64> {
    let digits: String = cell
        .trim_start_matches('~')
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

fn arch(distro_arch: &str) -> &str {
    distro_arch.rsplit(' ').next().unwrap_or("")
}

/// The reasons, judged against the published rows that beat this run by more than 5 %
/// in the metric (or that it beats by as much).
fn reasons(mine: &ResultsRow, picked: &[&Reference], metric: Metric) -> Vec<String> {
    let mut why = Vec::new();
    if picked.is_empty() {
        why.push("no published row matches the selection".to_string());
        return why;
    }
    let Some(my) = metric.of(mine) else {
        why.push(format!(
            "this run has no {} figure to compare",
            metric.name()
        ));
        return why;
    };
    let faster: Vec<&&Reference> = picked
        .iter()
        .filter(|r| metric.of(&r.row).is_some_and(|v| v > my * 1.05))
        .collect();
    let slower = picked
        .iter()
        .filter(|r| metric.of(&r.row).is_some_and(|v| v < my * 0.95))
        .count();
    let with = picked
        .iter()
        .filter(|r| metric.of(&r.row).is_some())
        .count();
    why.push(format!(
        "{} of {with} published rows are more than 5 % faster in {}, {slower} more than 5 % slower",
        faster.len(),
        metric.name()
    ));
    if mine.quick {
        why.push(
            "this is a --quick run: its shortened benchmarks do not compare with full runs".into(),
        );
    }
    if mine.throttled {
        why.push("this run was throttled: its figures are below what the board can do".into());
    }
    let my_clock = clock_mhz(&mine.clock);
    let my_kernel = kernel_major_minor(&mine.kernel);
    let mut higher_clock = 0;
    // Each other kernel with how many of the faster rows ran it.
    let mut other_kernel = Vec::<(String, usize)>::new();
    let mut other_arch = 0;
    let mut throttled = 0;
    for r in &faster {
        if let (Some(a), Some(b)) = (clock_mhz(&r.row.clock), my_clock) {
            if a > b * 1.03 {
                higher_clock += 1;
            }
        }
        if r.row.kernel != my_kernel {
            match other_kernel.iter_mut().find(|(k, _)| *k == r.row.kernel) {
                Some(k) => k.1 += 1,
                None => other_kernel.push((r.row.kernel.clone(), 1)),
            }
        }
        if arch(&r.row.distro_arch) != arch(&mine.distro_arch) {
            other_arch += 1;
        }
        if r.row.throttled {
            throttled += 1;
        }
    }
    if higher_clock > 0 {
        why.push(format!(
            "{higher_clock} of the faster rows ran at a higher clock than this run's {}",
            mine.clock
        ));
    }
    if !other_kernel.is_empty() {
        // Said of the rows it is true of: `2 of the 4 faster rows ran kernel 6.1`.
        other_kernel.sort();
        let n: usize = other_kernel.iter().map(|k| k.1).sum();
        let which = if n == faster.len() {
            "the faster rows".to_string()
        } else {
            format!("{n} of the {} faster rows", faster.len())
        };
        let kernels: Vec<String> = other_kernel
            .iter()
            .map(|(k, c)| {
                if other_kernel.len() > 1 {
                    format!("{k} ({c})")
                } else {
                    k.clone()
                }
            })
            .collect();
        why.push(format!(
            "{which} ran kernel {} (this run: {my_kernel}): kernel branch and BSP \
             settings (DRAM clock, governors) change these figures",
            kernels.join(", ")
        ));
    }
    if other_arch > 0 {
        why.push(format!(
            "{other_arch} of the faster rows ran another userland ({}): compiler and \
             32/64-bit code change 7-Zip, AES and memset figures",
            faster
                .iter()
                .map(|r| arch(&r.row.distro_arch))
                .filter(|a| *a != arch(&mine.distro_arch))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if throttled > 0 {
        why.push(format!(
            "{throttled} of the faster rows were throttled themselves"
        ));
    }
    why
}

/// The comparison as text: a Results.md-style table (this run in bold), each figure of a
/// published row followed by its difference to this run, then the reasons.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let sel = match &c.selection {
        Selection::Soc(s) => format!("SoC {s}"),
        Selection::Device(d) => format!("device \"{d}\""),
        Selection::CoreType(t) => format!("core type {t}"),
        Selection::CoreTypes(ts) => format!("core types {}", ts.join(" + ")),
    };
    let stored = c
        .rows
        .iter()
        .any(|r| r.log.as_deref().is_some_and(|l| l.starts_with("stored #")));
    let _ = writeln!(
        out,
        "{} sbc-bench results for {sel}, sorted by {}:\n",
        if stored {
            "Published and stored"
        } else {
            "Published"
        },
        c.metric.name()
    );
    out.push_str(
        "| Device / details | Clockspeed | Kernel | Distro | 7-zip multi | 7-zip single | AES | memcpy | memset | kH/s |\n",
    );
    out.push_str("| ----- | :--------: | :----: | :----: | ----: | ------: | ------: | -----: | -----: | ---: |\n");
    for r in &c.rows {
        let cell = |i: usize, v: Option<String>| -> String {
            match (v, r.this_run, r.delta_pct.get(i).copied().flatten()) {
                (None, _, _) => "-".into(),
                (Some(v), true, _) => format!("**{v}**"),
                // Rounded first, so a tiny difference reads `+0 %`, never `-0 %`.
                (Some(v), false, Some(d)) => format!("{v} ({:+} %)", d.round() as i64),
                (Some(v), false, None) => v,
            }
        };
        let tens = |v: Option<f64>| v.map(|v| round_tens(v).to_string());
        let row = &r.row;
        let device = match r.log.as_deref().filter(|l| l.starts_with("stored #")) {
            _ if r.this_run => format!("**this run: {}**", row.device),
            Some(l) => format!("{} ({l})", row.device),
            None => row.device.clone(),
        };
        let throttled = match (row.throttled, row.quick) {
            (true, true) => " (throttled) (quick)",
            (true, false) => " (throttled)",
            (false, true) => " (quick)",
            (false, false) => "",
        };
        let kernel = if r.this_run {
            kernel_major_minor(&row.kernel)
        } else {
            row.kernel.clone()
        };
        let _ = writeln!(
            out,
            "| {device} | {}{throttled} | {kernel} | {} | {} | {} | {} | {} | {} | {} |",
            row.clock,
            row.distro_arch,
            cell(0, tens(row.sevenzip_multi.map(|v| v as f64))),
            cell(1, row.sevenzip_single.map(|v| v.to_string())),
            cell(2, tens(row.aes256_16k.map(f64::trunc))),
            cell(3, tens(row.memcpy_mb_s)),
            cell(4, tens(row.memset_mb_s)),
            cell(5, row.scrypt_khs.map(|v| format!("{v:.2}"))),
        );
    }
    if !c.why.is_empty() {
        out.push_str("\nWhy the numbers differ:\n");
        for w in &c.why {
            let _ = writeln!(out, "  * {w}");
        }
    }
    out.push_str(
        "\nPublished rows: sbc-bench's Results.md (github.com/ThomasKaiser/sbc-bench, BSD-3).\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::reference::published;

    fn rock5b_run() -> ResultsRow {
        ResultsRow {
            device: "Radxa ROCK 5B".into(),
            clock: "2400/1800 MHz".into(),
            throttled: false,
            kernel: "6.1.43-rockchip".into(),
            distro_arch: "Debian GNU/Linux 12 (bookworm) arm64".into(),
            sevenzip_multi: Some(14000),
            sevenzip_single: Some(3300),
            aes256_16k: Some(1_300_000.0),
            memcpy_mb_s: Some(10_000.0),
            memset_mb_s: Some(28_000.0),
            scrypt_khs: None,
            quick: false,
        }
    }

    #[test]
    fn soc_model_is_taken_from_the_guess() {
        assert_eq!(
            Selection::from_soc_guess("Rockchip RK3588/RK3588s (35880000)"),
            Some(Selection::Soc("RK3588".into()))
        );
        assert_eq!(Selection::from_soc_guess("unknown"), None);
    }

    #[test]
    fn rk3588_rows_are_sorted_by_the_metric_with_this_run_among_them() {
        let c = compare(
            &rock5b_run(),
            &published(),
            Selection::Soc("RK3588".into()),
            Metric::SevenzipMulti,
        );
        assert!(c.rows.len() > 5, "{}", c.rows.len());
        assert_eq!(c.rows.iter().filter(|r| r.this_run).count(), 1);
        let vals: Vec<f64> = c
            .rows
            .iter()
            .filter_map(|r| Metric::SevenzipMulti.of(&r.row))
            .collect();
        assert!(vals.windows(2).all(|w| w[0] >= w[1]), "{vals:?}");
        for r in c.rows.iter().filter(|r| !r.this_run) {
            assert!(
                r.row.device.to_lowercase().contains("rk3588"),
                "{}",
                r.row.device
            );
            let want = (r.row.sevenzip_multi.unwrap() as f64 - 14000.0) / 14000.0 * 100.0;
            assert!((r.delta_pct[0].unwrap() - want).abs() < 1e-9);
        }
        assert!(
            c.why[0].contains("published rows are more than 5 % faster"),
            "{:?}",
            c.why
        );
        let text = render(&c);
        assert!(
            text.contains("| **this run: Radxa ROCK 5B** | 2400/1800 MHz | 6.1 |"),
            "{text}"
        );
    }

    /// Issue 31: with 4 faster rows of which 2 ran kernel 6.1 and 2 this run's 6.6, the
    /// sentence said "the faster rows ran kernel 6.1".
    #[test]
    fn the_kernel_sentence_counts_the_faster_rows_it_is_true_of() {
        let mut mine = rock5b_run();
        mine.kernel = "6.6.10".into();
        let faster = |k: &str, v: u64| Reference {
            row: ResultsRow {
                kernel: k.into(),
                sevenzip_multi: Some(v),
                ..rock5b_run()
            },
            soc: Some("RK3588".into()),
            log: None,
            core_types: Vec::new(),
        };
        let refs = [
            faster("6.1", 16000),
            faster("6.1", 16100),
            faster("6.6", 16200),
            faster("6.6", 16300),
        ];
        let c = compare(
            &mine,
            &refs,
            Selection::Soc("RK3588".into()),
            Metric::SevenzipMulti,
        );
        let k = c.why.iter().find(|w| w.contains("ran kernel")).unwrap();
        assert!(
            k.starts_with("2 of the 4 faster rows ran kernel 6.1 (this run: 6.6)"),
            "{k}"
        );
    }

    #[test]
    fn a_throttled_slow_run_is_told_why() {
        let mut mine = rock5b_run();
        mine.throttled = true;
        mine.clock = "~1800".into();
        mine.sevenzip_multi = Some(9000);
        let c = compare(
            &mine,
            &published(),
            Selection::Soc("rk3588".into()),
            Metric::SevenzipMulti,
        );
        assert!(
            c.why.iter().any(|w| w.contains("this run was throttled")),
            "{:?}",
            c.why
        );
        assert!(
            c.why.iter().any(|w| w.contains("higher clock")),
            "{:?}",
            c.why
        );
    }

    #[test]
    fn a_selection_nothing_matches_says_so() {
        let c = compare(
            &rock5b_run(),
            &published(),
            Selection::Device("no such board".into()),
            Metric::Aes,
        );
        assert_eq!(c.rows.len(), 1);
        assert_eq!(c.why, ["no published row matches the selection"]);
    }

    #[test]
    fn core_type_selections_use_the_logs_core_types() {
        let refs = published();
        let one = compare(
            &rock5b_run(),
            &refs,
            Selection::CoreType("cortex-a76".into()),
            Metric::Aes,
        );
        assert!(one.rows.len() > 5);
        let same = compare(
            &rock5b_run(),
            &refs,
            Selection::CoreTypes(vec!["Cortex-A76".into(), "Cortex-A55".into()]),
            Metric::Aes,
        );
        assert!(same.rows.len() > 3 && same.rows.len() < one.rows.len());
        assert!(same.rows.iter().any(|r| r.row.device.contains("RK3588")));
        let text = render(&same);
        assert!(
            text.starts_with("Published sbc-bench results for core types Cortex-A76 + Cortex-A55"),
            "{text}"
        );
    }

    #[test]
    fn metric_names_parse_and_a_wrong_one_lists_them() {
        assert_eq!("AES".parse::<Metric>(), Ok(Metric::Aes));
        let e = "speed".parse::<Metric>().unwrap_err();
        assert!(
            e.contains("7zip-multi, 7zip-single, aes, memcpy, memset, khs"),
            "{e}"
        );
    }
}
