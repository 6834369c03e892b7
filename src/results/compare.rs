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
    /// Rows the selection matched that are not shown, each with the reason: a copy of
    /// this run (stored, or its own published row), a stored copy of a published row.
    pub left_out: Vec<String>,
}

/// The figures of a row as Results.md prints them (7-Zip multi, AES, memcpy and memset
/// to tens, kH/s to hundredths): two rows with the same fingerprint are the same run.
fn fingerprint(r: &ResultsRow) -> [Option<i64>; 6] {
    let tens = |v: Option<f64>| v.map(round_tens);
    [
        r.sevenzip_multi.map(|v| round_tens(v as f64)),
        r.sevenzip_single.map(|v| v as i64),
        tens(r.aes256_16k.map(f64::trunc)),
        tens(r.memcpy_mb_s),
        tens(r.memset_mb_s),
        r.scrypt_khs.map(|v| (v * 100.0).round() as i64),
    ]
}

/// Do two rows hold the same run? The same figures (at least three of them), as a
/// published row and the stored copy of its log have.
fn same_figures(a: &ResultsRow, b: &ResultsRow) -> bool {
    let (fa, fb) = (fingerprint(a), fingerprint(b));
    fa == fb && fa.iter().filter(|v| v.is_some()).count() >= 3
}

fn is_stored(r: &Reference) -> bool {
    r.log.as_deref().is_some_and(|l| l.starts_with("stored #"))
}

fn name(r: &Reference) -> String {
    match &r.log {
        Some(l) => format!("{} ({l})", r.row.device),
        None => r.row.device.clone(),
    }
}

/// The rows to show: not this run again (a stored copy has its figures), and a published
/// row once (a stored copy of its log — the imported file has the name of the row's
/// link, or the row's figures — is left out); what is left out, with why.
fn dedupe<'a>(mine: &ResultsRow, picked: Vec<&'a Reference>) -> (Vec<&'a Reference>, Vec<String>) {
    let mut left_out = Vec::new();
    let published: Vec<&Reference> = picked.iter().copied().filter(|r| !is_stored(r)).collect();
    let kept = picked
        .into_iter()
        .filter(|r| {
            if same_figures(&r.row, mine) {
                left_out.push(format!("{}: this run itself", name(r)));
                return false;
            }
            if !is_stored(r) {
                return true;
            }
            let copy_of = published.iter().find(|p| {
                let by_file =
                    p.linked_file().is_some() && p.linked_file() == r.source_file.as_deref();
                by_file || same_figures(&p.row, &r.row)
            });
            match copy_of {
                Some(p) => {
                    left_out.push(format!(
                        "{}: a copy of the published row {}",
                        name(r),
                        name(p)
                    ));
                    false
                }
                None => true,
            }
        })
        .collect();
    (kept, left_out)
}

/// Set `mine` beside the published rows `selection` picks. `measured_mhz`: the clocks
/// the run measured per cluster (its log's, where it has them), for the reasons.
pub fn compare(
    mine: &ResultsRow,
    measured_mhz: &[u32],
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
    let (picked, left_out) = dedupe(mine, refs.iter().filter(|r| selection.matches(r)).collect());
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
    let why = reasons(mine, measured_mhz, &picked, metric);
    Comparison {
        selection,
        metric,
        rows,
        why,
        left_out,
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

/// The userland architecture of a distro cell (`Focal arm64` → `arm64`); `None` when the
/// cell is empty (logs before sbc-bench printed the distro).
fn arch(distro_arch: &str) -> Option<&str> {
    distro_arch
        .rsplit(' ')
        .next()
        .filter(|a| !a.is_empty() && *a != "n/a")
}

/// A difference explains the faster rows only when most of them have it: more than
/// half, not one or two among many.
fn most(n: usize, of: usize) -> bool {
    of > 0 && 2 * n > of
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 0 {
        (v[m - 1] + v[m]) / 2.0
    } else {
        v[m]
    })
}

/// `6.1 (4 rows), 6.2 (1 row)`.
fn counted(values: &[String]) -> String {
    let mut uniq: Vec<(String, usize)> = Vec::new();
    for v in values {
        match uniq.iter_mut().find(|(u, _)| u == v) {
            Some(e) => e.1 += 1,
            None => uniq.push((v.clone(), 1)),
        }
    }
    uniq.sort();
    uniq.iter()
        .map(|(v, n)| format!("{v} ({n} row{})", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The reasons, judged against the rows that beat this run by more than 5 % in the
/// metric. A column is a reason only when it separates most of those rows from this
/// run; what this run's own columns say (no cpufreq, a single-threaded score far below
/// at the same clock) is said where the rows allow it.
fn reasons(
    mine: &ResultsRow,
    measured_mhz: &[u32],
    picked: &[&Reference],
    metric: Metric,
) -> Vec<String> {
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
    let rows = if picked.iter().any(|r| is_stored(r)) {
        "rows (published and stored)"
    } else {
        "published rows"
    };
    why.push(format!(
        "{} of {with} {rows} are more than 5 % faster in {}, {slower} more than 5 % slower",
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
    if faster.is_empty() {
        return why;
    }
    let n = faster.len();
    let before = why.len();
    why.extend(not_at_speed(mine, measured_mhz, &faster));
    if let Some(c) = clock_reason(mine, &faster) {
        why.push(c);
    }
    let my_kernel = kernel_major_minor(&mine.kernel);
    let other_kernel: Vec<String> = faster
        .iter()
        .map(|r| kernel_major_minor(&r.row.kernel))
        .filter(|k| !k.is_empty() && *k != my_kernel)
        .collect();
    if most(other_kernel.len(), n) {
        why.push(format!(
            "{} of the {n} faster rows ran another kernel: {} (this run: {my_kernel}); kernel \
             branch and BSP settings (DRAM clock, governors) change these figures",
            other_kernel.len(),
            counted(&other_kernel)
        ));
    }
    if let Some(my_arch) = arch(&mine.distro_arch) {
        let other: Vec<String> = faster
            .iter()
            .filter_map(|r| arch(&r.row.distro_arch))
            .filter(|a| *a != my_arch)
            .map(str::to_string)
            .collect();
        if most(other.len(), n) {
            why.push(format!(
                "{} of the {n} faster rows ran another userland: {} (this run: {my_arch}); \
                 compiler and 32/64-bit code change 7-Zip, AES and memset figures",
                other.len(),
                counted(&other)
            ));
        }
    }
    if why.len() == before {
        why.push(format!(
            "no column (clock, kernel, userland) separates most of the {n} faster rows \
             from this run"
        ));
    }
    why
}

/// The clock column as a reason: most of the faster rows ran more than 3 % faster clocks.
fn clock_reason(mine: &ResultsRow, faster: &[&&Reference]) -> Option<String> {
    let my_clock = clock_mhz(&mine.clock)?;
    let higher = faster
        .iter()
        .filter(|r| clock_mhz(&r.row.clock).is_some_and(|a| a > my_clock * 1.03))
        .count();
    most(higher, faster.len()).then(|| {
        format!(
            "{higher} of the {} faster rows ran at a higher clock than this run's {}",
            faster.len(),
            mine.clock
        )
    })
}

/// Below this share of the faster rows' single-threaded 7-Zip score, the cores were not
/// at speed: the same core type at the same clock scores within a few percent on any
/// kernel (the rows of one SoC in Results.md spread ±10 %).
const SINGLE_AT_SPEED: f64 = 0.75;

/// What this run's own columns diagnose: a single-threaded score far below the faster
/// rows', with no cpufreq (the clock column) or a lower clock, means the cores that count
/// did not run at their full clock.
fn not_at_speed(mine: &ResultsRow, measured_mhz: &[u32], faster: &[&&Reference]) -> Option<String> {
    let my = mine.sevenzip_single? as f64;
    let theirs = median(
        faster
            .iter()
            .filter_map(|r| r.row.sevenzip_single)
            .map(|v| v as f64)
            .collect(),
    )?;
    if my >= theirs * SINGLE_AT_SPEED {
        return None;
    }
    let share = format!(
        "its single-threaded 7-Zip score is {:.0} % of the faster rows' median ({} against {:.0})",
        my / theirs * 100.0,
        my,
        theirs
    );
    let measured = match measured_mhz {
        [] => String::new(),
        m => format!(
            "measured {} MHz",
            m.iter().map(u32::to_string).collect::<Vec<_>>().join("/")
        ),
    };
    Some(if mine.clock.contains("no cpufreq") {
        let measured = match measured.is_empty() {
            true => String::new(),
            false => format!("; {measured}"),
        };
        format!(
            "this run's kernel had no cpufreq support (its clock column{measured}) and \
             {share}: the big cores did not run at their full clock (a kernel or device \
             tree without cpufreq leaves them where the boot loader set them)"
        )
    } else {
        let measured = match measured.is_empty() {
            true => String::new(),
            false => format!(" ({measured})"),
        };
        format!(
            "{share}, at a clock column of {}{measured}: the cores that count did not run \
             at their full clock during the benchmarks (throttling, a capped governor or a \
             missing OPP)",
            mine.clock
        )
    })
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
    if !c.left_out.is_empty() {
        out.push_str("\nNot shown (the same run twice):\n");
        for l in &c.left_out {
            let _ = writeln!(out, "  * {l}");
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
            &[],
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
    /// sentence said "the faster rows ran kernel 6.1". A kernel is a reason only where it
    /// separates most of the faster rows (issue 28), and the sentence counts them.
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
            source_file: None,
        };
        let why = |refs: &[Reference]| {
            compare(
                &mine,
                &[],
                refs,
                Selection::Soc("RK3588".into()),
                Metric::SevenzipMulti,
            )
            .why
        };
        let half = [
            faster("6.1", 16000),
            faster("6.1", 16100),
            faster("6.6", 16200),
            faster("6.6", 16300),
        ];
        let w = why(&half);
        assert!(!w.iter().any(|w| w.contains("another kernel")), "{w:?}");
        let most = [
            faster("6.1", 16000),
            faster("6.1", 16100),
            faster("6.1", 16200),
            faster("6.6", 16300),
        ];
        let w = why(&most);
        let k = w.iter().find(|w| w.contains("another kernel")).unwrap();
        assert!(
            k.starts_with(
                "3 of the 4 faster rows ran another kernel: 6.1 (3 rows) (this run: 6.6)"
            ),
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
            &[],
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
            &[],
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
            &[],
            &refs,
            Selection::CoreType("cortex-a76".into()),
            Metric::Aes,
        );
        assert!(one.rows.len() > 5);
        let same = compare(
            &rock5b_run(),
            &[],
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

    /// A published-like row of an RK3588 board: kernel, distro cell and figures.
    fn rk3588(device: &str, kernel: &str, distro: &str, multi: u64, single: u64) -> Reference {
        Reference {
            row: ResultsRow {
                device: device.into(),
                clock: "2400/1800 MHz".into(),
                kernel: kernel.into(),
                distro_arch: distro.into(),
                sevenzip_multi: Some(multi),
                sevenzip_single: Some(single),
                aes256_16k: Some(1_300_000.0 + multi as f64),
                memcpy_mb_s: Some(11_000.0),
                memset_mb_s: Some(29_000.0),
                ..ResultsRow::default()
            },
            soc: Some("RK3588".into()),
            log: None,
            core_types: Vec::new(),
            source_file: None,
        }
    }

    /// The Firefly ITX-3588J (corpus log 3XzI.txt, a kernel without cpufreq): 7-Zip 8750
    /// against ~16,400, single-threaded 1537 against ~3100. Of its 15 faster rows 12 ran
    /// 5.10 like it, and 2 were stored runs of logs without a distro line. `compare` said
    /// "the faster rows ran kernel 6.1, 6.2 (this run: 5.10)" and "another userland ()";
    /// neither separates the faster rows from this run. What its own columns say does.
    #[test]
    fn itx_3588j_reasons_hold_for_most_of_the_faster_rows() {
        let mine = ResultsRow {
            device: "Firefly ITX-3588J HDMI(Linux)".into(),
            clock: "no cpufreq support".into(),
            kernel: "5.10.66".into(),
            distro_arch: "Focal arm64".into(),
            sevenzip_multi: Some(8750),
            sevenzip_single: Some(1537),
            aes256_16k: Some(560_200.0),
            memcpy_mb_s: Some(10_190.0),
            memset_mb_s: Some(15_080.0),
            ..ResultsRow::default()
        };
        let mut refs: Vec<Reference> = (0..12)
            .map(|i| {
                rk3588(
                    &format!("board {i}"),
                    "5.10",
                    "Focal arm64",
                    16_000 + i,
                    3100,
                )
            })
            .collect();
        refs.push(rk3588("ROCK 5C", "6.1", "Bookworm arm64", 16_400, 3174));
        refs.push(rk3588("stored A", "6.2", "", 16_060, 2989));
        refs.push(rk3588("stored B", "5.10", "", 16_740, 3158));
        let c = compare(
            &mine,
            &[915, 980, 985],
            &refs,
            Selection::Soc("RK3588".into()),
            Metric::SevenzipMulti,
        );
        let why = c.why.join("\n");
        assert!(
            why.contains("15 of 15 published rows are more than 5 % faster"),
            "{why}"
        );
        assert!(!why.contains("kernel 6"), "{why}");
        assert!(!why.contains("userland"), "{why}");
        assert!(
            why.contains(
                "this run's kernel had no cpufreq support (its clock column; measured \
                 915/980/985 MHz) and its single-threaded 7-Zip score is 50 % of the faster \
                 rows' median (1537 against 3100): the big cores did not run at their full clock"
            ),
            "{why}"
        );
        // When most faster rows do run another kernel or userland, that is said, with
        // the count, and rows without a distro never give `()`.
        let other: Vec<Reference> = (0..4)
            .map(|i| {
                rk3588(
                    &format!("new {i}"),
                    "6.1",
                    "Bookworm armhf",
                    16_000 + i,
                    1600,
                )
            })
            .chain([rk3588("no distro", "5.10", "", 16_500, 1600)])
            .collect();
        let c = compare(
            &mine,
            &[],
            &other,
            Selection::Soc("RK3588".into()),
            Metric::SevenzipMulti,
        );
        let why = c.why.join("\n");
        assert!(
            why.contains(
                "4 of the 5 faster rows ran another kernel: 6.1 (4 rows) (this run: 5.10)"
            ),
            "{why}"
        );
        assert!(
            why.contains(
                "4 of the 5 faster rows ran another userland: armhf (4 rows) (this run: arm64)"
            ),
            "{why}"
        );
        assert!(!why.contains("()"), "{why}");
        assert!(!why.contains("single-threaded"), "{why}");
    }

    /// An imported copy of a published log was listed beside its own published row
    /// (+0 %) and counted as another published row; this run's own stored copy too.
    #[test]
    fn a_stored_copy_of_a_published_row_and_of_this_run_are_shown_once() {
        let mine = rock5b_run();
        let published = {
            let mut r = rk3588(
                "Radxa ROCK 5B (RK3588)",
                "5.10",
                "Focal arm64",
                16_450,
                3146,
            );
            r.log = Some("results/41BH.txt".into());
            r
        };
        let copy = Reference {
            log: Some("stored #126".into()),
            source_file: Some("41BH.txt".into()),
            ..rk3588(
                "Radxa ROCK 5B",
                "5.10",
                "Ubuntu 20.04 LTS arm64",
                16_450,
                3146,
            )
        };
        // Another name, the same figures (a log saved under another name).
        let renamed = Reference {
            log: Some("stored #127".into()),
            source_file: Some("rock5b.txt".into()),
            ..copy.clone()
        };
        let itself = Reference {
            row: mine.clone(),
            soc: Some("RK3588".into()),
            log: Some("stored #3".into()),
            core_types: Vec::new(),
            source_file: Some("sbc-bench.log".into()),
        };
        let other = Reference {
            log: Some("stored #9".into()),
            ..rk3588("Radxa ROCK 5B", "6.1", "Bookworm arm64", 15_000, 3000)
        };
        let c = compare(
            &mine,
            &[],
            &[published, copy, renamed, itself, other],
            Selection::Soc("RK3588".into()),
            Metric::SevenzipMulti,
        );
        let shown: Vec<&str> = c.rows.iter().map(|r| r.row.device.as_str()).collect();
        assert_eq!(
            shown,
            ["Radxa ROCK 5B (RK3588)", "Radxa ROCK 5B", "Radxa ROCK 5B"]
        );
        assert_eq!(c.rows.iter().filter(|r| r.this_run).count(), 1);
        assert_eq!(c.rows[1].log.as_deref(), Some("stored #9"));
        assert_eq!(
            c.left_out,
            [
                "Radxa ROCK 5B (stored #126): a copy of the published row Radxa ROCK 5B (RK3588) (results/41BH.txt)",
                "Radxa ROCK 5B (stored #127): a copy of the published row Radxa ROCK 5B (RK3588) (results/41BH.txt)",
                "Radxa ROCK 5B (stored #3): this run itself",
            ]
        );
        assert!(
            c.why[0].starts_with("2 of 2 rows (published and stored)"),
            "{:?}",
            c.why
        );
        assert!(
            render(&c).contains("Not shown (the same run twice):\n  * Radxa ROCK 5B (stored #126)")
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
