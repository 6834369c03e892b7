//! Two to four results side by side on every metric, the best of each marked, and the
//! reasons they differ: every fact that sets them apart (SoC, core types, clocks, kernel,
//! distro, architecture, sbc-bench version, mode, the acceptance checks).

use serde::Serialize;

use crate::history::{METRICS, fmt_num};
use crate::store::Full;

/// The most results one comparison sets side by side.
pub const MAX: usize = 4;

/// One metric's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricRow {
    pub key: String,
    pub name: String,
    pub unit: String,
    pub higher_is_better: bool,
    pub values: Vec<Option<f64>>,
    /// Index of the best value (none when fewer than two have one).
    pub best: Option<usize>,
    /// Each value against the best, percent (0 for the best).
    pub vs_best_pct: Vec<Option<f64>>,
}

/// One fact's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FactRow {
    pub name: String,
    pub values: Vec<String>,
    /// Whether the results differ in it.
    pub differs: bool,
}

/// The comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub ids: Vec<String>,
    pub facts: Vec<FactRow>,
    pub metrics: Vec<MetricRow>,
    /// Why the figures may differ, one sentence per fact that differs.
    pub reasons: Vec<String>,
}

fn or_na(v: Option<&str>) -> String {
    v.filter(|s| !s.is_empty()).unwrap_or("n/a").to_string()
}

/// Set `results` side by side.
pub fn compare(results: &[Full]) -> Comparison {
    let s: Vec<_> = results.iter().map(|f| &f.summary).collect();
    let fact = |name: &str, f: &dyn Fn(usize) -> String| {
        let values: Vec<String> = (0..s.len()).map(f).collect();
        let differs = values.windows(2).any(|w| w[0] != w[1]);
        FactRow {
            name: name.into(),
            values,
            differs,
        }
    };
    let facts = vec![
        fact("Device", &|i| s[i].device.clone()),
        fact("SoC", &|i| or_na(s[i].soc.as_deref())),
        fact("Core types", &|i| or_na(s[i].core_types.as_deref())),
        fact("Clockspeed", &|i| {
            let mut c = or_na(Some(&s[i].clock));
            if s[i].throttled {
                c.push_str(" (throttled)");
            }
            c
        }),
        fact("Measured clocks", &|i| {
            let c = &results[i].record.extra.clocks_mhz;
            if c.is_empty() {
                "n/a".into()
            } else {
                c.iter()
                    .map(|m| format!("{m} MHz"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        }),
        fact("Kernel", &|i| or_na(s[i].kernel.as_deref())),
        fact("Kernel series", &|i| or_na(s[i].kernel_series.as_deref())),
        fact("Distro", &|i| or_na(s[i].distro.as_deref())),
        fact("Architecture", &|i| or_na(s[i].arch.as_deref())),
        fact("sbc-bench version", &|i| {
            or_na(s[i].tool_version.as_deref())
        }),
        fact("Mode", &|i| {
            or_na(s[i].mode.as_deref()).replace("n/a", "standard")
        }),
        fact("Run date", &|i| or_na(s[i].run_date.as_deref())),
        fact("Tag", &|i| s[i].status.label().to_string()),
        fact("Checks", &|i| {
            let c: Vec<&str> = results[i].checks.iter().map(|c| c.code.as_str()).collect();
            if c.is_empty() {
                "none".into()
            } else {
                c.join(", ")
            }
        }),
    ];
    let metrics = METRICS
        .iter()
        .map(|m| {
            let values: Vec<Option<f64>> = s.iter().map(|x| (m.get)(x)).collect();
            let present: Vec<(usize, f64)> = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| Some((i, (*v)?)))
                .collect();
            let best = if present.len() >= 2 {
                present
                    .iter()
                    .copied()
                    .reduce(|a, b| {
                        let better = if m.higher_is_better {
                            b.1 > a.1
                        } else {
                            b.1 < a.1
                        };
                        if better { b } else { a }
                    })
                    .map(|b| b.0)
            } else {
                None
            };
            let vs_best_pct = values
                .iter()
                .map(|v| {
                    let b = values[best?]?;
                    let v = (*v)?;
                    (b != 0.0).then(|| (v - b) / b * 100.0)
                })
                .collect();
            MetricRow {
                key: m.key.into(),
                name: m.name.into(),
                unit: m.unit.into(),
                higher_is_better: m.higher_is_better,
                values,
                best,
                vs_best_pct,
            }
        })
        .collect();
    let reasons = reasons(&facts, results);
    Comparison {
        ids: s.iter().map(|x| x.id.clone()).collect(),
        facts,
        metrics,
        reasons,
    }
}

/// What each differing fact means for the figures.
fn reasons(facts: &[FactRow], results: &[Full]) -> Vec<String> {
    let why = |name: &str| -> Option<&'static str> {
        Some(match name {
            "SoC" => "different SoCs: a different chip, not only different settings",
            "Core types" => "different CPU cores",
            "Clockspeed" => "different clocks: 7-Zip, AES and scrypt scale with them",
            "Measured clocks" => "the clocks measured at the highest OPP differ",
            "Kernel series" => {
                "different kernels: cpufreq, memory controller and scheduler code differ between them"
            }
            "Distro" => {
                "different distros: compiler and library versions (tinymembench's memcpy is libc's) differ"
            }
            "Architecture" => {
                "different architectures (a 32-bit userland on 64-bit cores is slower)"
            }
            "sbc-bench version" => {
                "different sbc-bench versions: some columns' rules changed between versions"
            }
            "Mode" => "different modes",
            "Checks" => {
                "the acceptance checks differ (throttling, swapping, background activity, …)"
            }
            _ => return None,
        })
    };
    let names: Vec<String> = results.iter().map(|f| f.summary.id.clone()).collect();
    facts
        .iter()
        .filter(|f| f.differs)
        .filter_map(|f| {
            let w = why(&f.name)?;
            let vals: Vec<String> = f
                .values
                .iter()
                .zip(&names)
                .map(|(v, n)| format!("{n}: {v}"))
                .collect();
            Some(format!("{} — {w} ({}).", f.name, vals.join("; ")))
        })
        .collect()
}

/// A metric cell as the page prints it.
pub fn cell(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), fmt_num)
}
