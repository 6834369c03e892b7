//! Acceptance as sbc-bench's maintainer does it by hand before a log goes into
//! Results.md: every upload is checked and tagged `verified`, `warnings` or
//! `not-comparable`, with the reasons shown. The checks read what the document says
//! (a log's "Results validation" lines, its 7-Zip banner, its header and row; a run JSON's
//! findings, configuration and virtualisation) and nothing else.

use serde::{Deserialize, Serialize};

use sbc_bench::record::finding::Severity as FindingSeverity;
use sbc_bench::record::results_row::{kernel_major_minor, round_tens};
use sbc_bench::record::run::RunReport;
use sbc_bench::results::document::{self, Parsed};
use sbc_bench::results::sbclog;

/// How much a check weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Weight {
    /// The figures stand, with a caveat the table shows.
    Warning,
    /// The figures cannot be set beside the published ones.
    NotComparable,
}

/// One finding of the acceptance check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Stable code (`throttling`, `7zip-version`, …).
    pub code: String,
    pub weight: Weight,
    /// The reason, one sentence.
    pub reason: String,
}

impl Check {
    fn new(code: &str, weight: Weight, reason: impl Into<String>) -> Self {
        Self {
            code: code.to_string(),
            weight,
            reason: reason.into(),
        }
    }
}

/// The tag of a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Verified,
    Warnings,
    NotComparable,
}

impl Status {
    /// Every tag, best first.
    pub const ALL: [Status; 3] = [Status::Verified, Status::Warnings, Status::NotComparable];

    /// As stored and in URLs.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::Warnings => "warnings",
            Status::NotComparable => "not-comparable",
        }
    }

    /// As the pages say it.
    pub fn label(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::Warnings => "with warnings",
            Status::NotComparable => "not comparable",
        }
    }

    pub fn from_word(w: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == w)
    }
}

/// The tag the checks give: the heaviest of them.
pub fn status_of(checks: &[Check]) -> Status {
    match checks.iter().map(|c| c.weight).max() {
        None => Status::Verified,
        Some(Weight::Warning) => Status::Warnings,
        Some(Weight::NotComparable) => Status::NotComparable,
    }
}

/// The 7-Zip version the published table was measured with.
const SEVENZIP: &str = "16.02";

/// The checks of a log (bash sbc-bench of any version, or ours).
pub fn log_checks(p: &Parsed, body: &str) -> Vec<Check> {
    let lines = sbclog::normalise(body);
    let mut out = Vec::new();
    validation(&lines, &mut out);
    if p.log.results_row.throttled && !out.iter().any(|c| c.code == "throttling") {
        out.push(Check::new(
            "throttling",
            Weight::Warning,
            "the row is marked (throttled): the clock measured at the end was lower than at the start",
        ));
    }
    if let Some(v) = sevenzip_version(&lines) {
        if v != SEVENZIP {
            out.push(Check::new(
                "7zip-version",
                Weight::NotComparable,
                format!(
                    "7-Zip {v} ran, not {SEVENZIP}: its scores do not compare with the published table"
                ),
            ));
        }
    }
    common(p, &mut out);
    if let Some(vm) = log_vm(&lines, p) {
        out.push(Check::new(
            "virtual-machine",
            Weight::Warning,
            format!("a virtual machine ({vm}): the hypervisor and other guests share the CPUs"),
        ));
    }
    out.extend(row_disagreements(p));
    out
}

/// The checks of our run JSON: its findings, its mode, its virtualisation.
pub fn run_checks(r: &RunReport, p: &Parsed) -> Vec<Check> {
    let mut out = Vec::new();
    if r.config.fake_benchmarks {
        out.push(Check::new(
            "fake-benchmarks",
            Weight::NotComparable,
            "canned results (--fake-benchmarks): nothing was measured on this board",
        ));
    }
    for f in &r.findings {
        let weight = match f.severity {
            FindingSeverity::Warning => Weight::Warning,
            FindingSeverity::Invalid => Weight::NotComparable,
            _ => continue,
        };
        let code = f.code.as_str();
        // A 7-Zip other than 16.02 (or none) makes the scores incomparable whatever the
        // finding's severity.
        let weight = if code == "7zip-version" {
            Weight::NotComparable
        } else {
            weight
        };
        out.push(Check::new(code, weight, f.message.clone()));
    }
    if r.results_row.is_none() {
        out.push(Check::new(
            "no-row",
            Weight::NotComparable,
            "the run wrote no Results.md row (it did not finish, or its mode measures none)",
        ));
    }
    common(p, &mut out);
    if let Some(vm) = &r.system_before.virtualization.vm {
        out.push(Check::new(
            "virtual-machine",
            Weight::Warning,
            format!("a virtual machine ({vm}): the hypervisor and other guests share the CPUs"),
        ));
    }
    out
}

/// What both kinds share: `--quick`, the mode, the vendor kernel, missing figures.
fn common(p: &Parsed, out: &mut Vec<Check>) {
    let row = &p.log.results_row;
    let mode = p.log.mode.as_deref().unwrap_or_default();
    if row.quick || mode.split_whitespace().any(|m| m == "quick") {
        out.push(Check::new(
            "quick",
            Weight::NotComparable,
            "a --quick run: shortened benchmarks that compare with no full run",
        ));
    }
    for m in ["graph", "thermal", "wrap", "pts", "gb"] {
        if mode.split_whitespace().any(|w| w == m) {
            out.push(Check::new(
                "mode",
                Weight::NotComparable,
                format!("a {m} run, not the standard benchmark"),
            ));
        }
    }
    if document::kernel_bsp(p) == Some(true) {
        out.push(Check::new(
            "vendor-kernel",
            Weight::Warning,
            "a vendor/BSP kernel (sbc-bench's rules): its figures describe the vendor's forward-ported code, not mainline Linux",
        ));
    }
    if row.sevenzip_multi.is_none() && row.memcpy_mb_s.is_none() && row.aes256_16k.is_none() {
        out.push(Check::new(
            "no-figures",
            Weight::NotComparable,
            "no 7-Zip, memory or AES figures in the document",
        ));
    }
}

/// The lines of a "Results validation:" block, judged as sbc-bench words them.
fn validation(lines: &[String], out: &mut Vec<Check>) {
    let Some(start) = lines
        .iter()
        .position(|l| l.starts_with("Results validation"))
    else {
        return;
    };
    let items = lines[start + 1..]
        .iter()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with("  * "))
        .map(|l| l.trim_start_matches("  * ").trim());
    for item in items {
        // sbc-bench appends a link to its explanation (` -> https://…`).
        let text = item.split(" -> ").next().unwrap_or(item).trim();
        let check = if text.starts_with("Throttling") {
            Some(("throttling", Weight::Warning))
        } else if text.starts_with("Swapping") {
            Some(("swapping", Weight::Warning))
        } else if text.starts_with("Too much") && text.contains("background activity") {
            Some(("background-activity", Weight::Warning))
        } else if let Some(rest) = text.strip_prefix("Advertised vs. measured max CPU clockspeed:")
        {
            // sbc-bench prints it in red from a mismatch of 10 % on.
            let worst = rest
                .split(|c: char| !(c.is_ascii_digit() || c == '-'))
                .filter_map(|n| n.parse::<i64>().ok())
                .min()
                .unwrap_or(0);
            (worst <= -10).then_some(("clock-below-advertised", Weight::Warning))
        } else {
            None
        };
        if let Some((code, weight)) = check {
            if !out.iter().any(|c| c.code == code) {
                out.push(Check::new(
                    code,
                    weight,
                    format!("sbc-bench's validation: {text}"),
                ));
            }
        }
    }
}

/// `7-Zip (a) [64] 16.02 : Copyright …`, `7-Zip (A) 9.20  Copyright …`: the version.
fn sevenzip_version(lines: &[String]) -> Option<String> {
    let l = lines
        .iter()
        .find(|l| l.starts_with("7-Zip ") || l.starts_with("p7zip Version "))?;
    l.split_whitespace()
        .find(|w| {
            w.contains('.')
                && w.chars().next().is_some_and(|c| c.is_ascii_digit())
                && w.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
        .map(str::to_string)
}

/// A log's sign of a virtual machine: lscpu's `Hypervisor vendor:`, a kernel or device
/// that names a hypervisor.
fn log_vm(lines: &[String], p: &Parsed) -> Option<String> {
    for l in lines {
        let t = l.trim();
        if let Some(v) = t.strip_prefix("Hypervisor vendor:") {
            return Some(v.trim().to_string());
        }
        if t.starts_with("Kernel: ") && t.contains("hypervisor") {
            return Some(t.trim_start_matches("Kernel: ").to_string());
        }
    }
    let device = p.log.results_row.device.to_lowercase();
    ["virtual machine", "kvm", "qemu", "vmware", "virtualbox"]
        .iter()
        .find(|w| {
            device
                .split(|c: char| !c.is_alphanumeric())
                .any(|x| x == **w)
                || device.contains(*w)
        })
        .map(|w| (*w).to_string())
}

fn tens(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| round_tens(v).to_string())
}

/// A row the log states that its own benchmark output does not give, cell by cell (after
/// sbc-bench's rounding; the device's blanks squeezed, a cut row's empty cells and
/// `0` for a missing AES column read as `-`).
fn row_disagreements(p: &Parsed) -> Vec<Check> {
    let Some(cells) = &p.log.stated_row else {
        return Vec::new();
    };
    let r = &p.log.results_row;
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let col6 = if p.log.row_has_aes128 {
        tens(p.log.aes128_16b)
    } else {
        r.sevenzip_single.map_or("-".into(), |v| v.to_string())
    };
    let want = [
        (0, "device", squeeze(&r.device)),
        (2, "kernel", kernel_major_minor(&r.kernel)),
        (4, "7-zip multi", tens(r.sevenzip_multi.map(|v| v as f64))),
        (5, "column 6", col6),
        (6, "AES", tens(r.aes256_16k)),
        (7, "memcpy", tens(r.memcpy_mb_s)),
        (8, "memset", tens(r.memset_mb_s)),
        (
            9,
            "kH/s",
            r.scrypt_khs.map_or("-".into(), |v| format!("{v:.2}")),
        ),
    ];
    let mut bad = Vec::new();
    for (i, name, got) in want {
        let mut stated = cells.get(i).map_or("-", String::as_str).to_string();
        if i == 0 {
            stated = squeeze(&stated);
        }
        if stated.is_empty() || (i == 6 && stated == "0") {
            stated = "-".into();
        }
        // A log cut before the benchmark's output cannot contradict its row.
        if got == "-" && i >= 4 {
            continue;
        }
        if stated != got {
            bad.push(format!(
                "{name}: the row says {stated}, the log gives {got}"
            ));
        }
    }
    if bad.is_empty() {
        return Vec::new();
    }
    vec![Check::new(
        "row-disagrees",
        Weight::NotComparable,
        format!(
            "the Results.md row the log states disagrees with its benchmark output ({})",
            bad.join("; ")
        ),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(t: &str) -> Vec<String> {
        sbclog::normalise(t)
    }

    #[test]
    fn validation_lines_become_checks() {
        let mut out = Vec::new();
        validation(
            &lines(
                "Results validation:\n\n  * Advertised vs. measured max CPU clockspeed: -12% before, -11% after -> https://x\n  * Throttling occured -> https://t.ly/RGrGZ\n  * Swapping (ZRAM) occured\n  * Too much other background activity: 12% avg, 40% max\n  * No throttling\n\nnext\n",
            ),
            &mut out,
        );
        let codes: Vec<&str> = out.iter().map(|c| c.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "clock-below-advertised",
                "throttling",
                "swapping",
                "background-activity"
            ]
        );
        assert!(out[1].reason.ends_with("Throttling occured"), "{out:?}");
        let mut ok = Vec::new();
        validation(
            &lines(
                "Results validation:\n\n  * Advertised vs. measured max CPU clockspeed: -3% before, -2% after\n  * No swapping\n",
            ),
            &mut ok,
        );
        assert!(ok.is_empty(), "{ok:?}");
    }

    #[test]
    fn sevenzip_banner_versions() {
        let v = |t: &str| sevenzip_version(&lines(t));
        assert_eq!(
            v("7-Zip (a) [64] 16.02 : Copyright (c) 1999-2016 Igor Pavlov : 2016-05-21\n")
                .as_deref(),
            Some("16.02")
        );
        assert_eq!(
            v("7-Zip (A) 9.20  Copyright (c) 1999-2010 Igor Pavlov  2010-11-18\n").as_deref(),
            Some("9.20")
        );
        assert_eq!(v("nothing\n"), None);
    }

    #[test]
    fn the_tag_is_the_heaviest_check() {
        assert_eq!(status_of(&[]), Status::Verified);
        let w = Check::new("a", Weight::Warning, "x");
        let n = Check::new("b", Weight::NotComparable, "y");
        assert_eq!(status_of(std::slice::from_ref(&w)), Status::Warnings);
        assert_eq!(status_of(&[w, n]), Status::NotComparable);
        for s in Status::ALL {
            assert_eq!(Status::from_word(s.as_str()), Some(s));
        }
    }
}
