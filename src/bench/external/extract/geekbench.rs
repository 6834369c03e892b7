//! Geekbench 5/6's console output: the version line (`Geekbench 6.2.2 : https://…`), the
//! result URL it uploaded to (`https://browser.geekbench.com/v6/cpu/3456789`; the claim
//! URL after it is not the result) and, where the build prints them, the scores
//! (`Single-Core Score   1234`). sbc-bench takes the first `browser.geekbench.com` URL of
//! a run and builds the compare URL between the two all-core runs the same way.

use super::{Score, Value, number, strip_ansi};

/// Version, scores and result URL of one Geekbench run.
pub fn parse(text: &str) -> Score {
    let text = strip_ansi(text);
    let mut s = Score::default();
    for line in text.lines() {
        let l = line.trim();
        if s.url.is_none()
            && let Some(i) = l.find("https://browser.geekbench.com/")
        {
            let url = l[i..].split_whitespace().next().unwrap_or_default();
            if !url.contains("/claim") {
                s.url = Some(url.to_string());
            }
        }
        for name in ["Single-Core Score", "Multi-Core Score"] {
            if let Some(v) = l.strip_prefix(name).and_then(number) {
                s.values.push(Value::new(name, v, "points"));
            }
        }
    }
    s
}

/// The major version from `Geekbench 6.2.2 : https://www.geekbench.com/` (5 or 6).
pub fn major_version(text: &str) -> Option<u32> {
    let text = strip_ansi(text);
    text.lines().find_map(|l| {
        let v = l.trim().strip_prefix("Geekbench ")?;
        v.split('.').next()?.trim().parse().ok()
    })
}

/// The result's ID: the last path segment of its URL (`…/v6/cpu/3456789` → `3456789`).
pub fn result_id(url: &str) -> Option<&str> {
    url.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()))
}

/// sbc-bench's compare URL of two runs: `https://browser.geekbench.com/v6/cpu/compare/<a>?baseline=<b>`.
pub fn compare_url(major: u32, first: &str, second: &str) -> Option<String> {
    Some(format!(
        "https://browser.geekbench.com/v{major}/cpu/compare/{}?baseline={}",
        result_id(first)?,
        result_id(second)?
    ))
}

/// sbc-bench's memory warning for Geekbench: below 1.2 GB available it may fail or swap.
pub const MIN_AVAILABLE_KIB: u64 = 1_200_000;

#[cfg(test)]
mod tests {
    use super::*;

    /// Geekbench 6's console output as the Linux build prints it (the published format;
    /// shortened workload list), with the upload and claim URLs at the end.
    pub const GB6: &str = include_str!("../../../../tests/fixtures/wrap/geekbench6.stdout");

    #[test]
    fn url_version_and_scores_of_geekbench_6() {
        let s = parse(GB6);
        assert_eq!(
            s.url.as_deref(),
            Some("https://browser.geekbench.com/v6/cpu/3456789")
        );
        assert_eq!(major_version(GB6), Some(6));
        assert_eq!(
            s.values,
            vec![
                Value::new("Single-Core Score", 1234.0, "points"),
                Value::new("Multi-Core Score", 4321.0, "points")
            ]
        );
    }

    #[test]
    fn compare_url_as_sbc_bench() {
        assert_eq!(
            compare_url(
                6,
                "https://browser.geekbench.com/v6/cpu/5424883",
                "https://browser.geekbench.com/v6/cpu/5768888"
            )
            .as_deref(),
            Some("https://browser.geekbench.com/v6/cpu/compare/5424883?baseline=5768888")
        );
        assert_eq!(compare_url(6, "https://x/claim?key=1", "b"), None);
    }

    #[test]
    fn a_failed_upload_has_no_url() {
        let s = parse("Geekbench 5.4.1 : https://www.geekbench.com/\nUpload failed\n");
        assert_eq!(s.url, None);
        assert_eq!(major_version("Geekbench 5.4.1 : x"), Some(5));
    }
}
