//! Phoronix Test Suite: the OpenBenchmarking.org URL of `batch-run` (sbc-bench takes the
//! line `Results Uploaded To: https://openbenchmarking.org/result/…`) and the values of
//! its result file `~/.phoronix-test-suite/test-results/<name>/composite.xml`
//! (`<Result>` with `<Title>`, `<Description>`, `<Scale>` and `<Data><Entry><Value>`).

use super::{Score, Value, number, strip_ansi};

/// The upload URL from PTS's console output.
pub fn parse_stdout(text: &str) -> Score {
    let text = strip_ansi(text);
    let url = text.lines().find_map(|l| {
        let (_, rest) = l.split_once("Results Uploaded To")?;
        let i = rest.find("https://")?;
        Some(rest[i..].split_whitespace().next()?.to_string())
    });
    Score {
        values: Vec::new(),
        url,
    }
}

/// The text of every `<tag>…</tag>` inside `xml`, in order (no attributes, no nesting
/// of the same tag: what PTS writes).
fn elements<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        let Some(j) = after.find(&close) else { break };
        out.push(&after[..j]);
        rest = &after[j + close.len()..];
    }
    out
}

fn unescape(s: &str) -> String {
    s.trim()
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Every result of a `composite.xml`: `Title: Description` with its first entry's value
/// and the scale as unit (`C-Ray: Total Time - 4K, 16 Rays Per Pixel` 123.4 `Seconds`).
pub fn parse_composite(xml: &str) -> Score {
    let mut s = Score::default();
    for result in elements(xml, "Result") {
        let first = |t: &str| elements(result, t).first().map(|v| unescape(v));
        let title = first("Title").unwrap_or_default();
        let desc = first("Description").unwrap_or_default();
        let scale = first("Scale").unwrap_or_default();
        let Some(value) = elements(result, "Entry")
            .first()
            .and_then(|e| elements(e, "Value").first().copied())
            .and_then(|v| number(&unescape(v)))
        else {
            continue;
        };
        let name = if desc.is_empty() {
            title
        } else {
            format!("{title}: {desc}")
        };
        s.values.push(Value::new(name, value, scale));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const STDOUT: &str = include_str!("../../../../tests/fixtures/wrap/pts-batch-run.stdout");
    const COMPOSITE: &str = include_str!("../../../../tests/fixtures/wrap/pts-composite.xml");

    #[test]
    fn openbenchmarking_url_from_batch_run() {
        assert_eq!(
            parse_stdout(STDOUT).url.as_deref(),
            Some("https://openbenchmarking.org/result/2312011-NE-ROCK5BCRA45")
        );
        assert_eq!(parse_stdout("no upload").url, None);
    }

    #[test]
    fn values_from_composite_xml() {
        let s = parse_composite(COMPOSITE);
        assert_eq!(s.values.len(), 2, "{s:?}");
        assert_eq!(
            s.values[0].name,
            "C-Ray: Total Time - 4K, 16 Rays Per Pixel"
        );
        assert_eq!(s.values[0].value, 123.456);
        assert_eq!(s.values[0].unit, "Seconds");
        assert_eq!(
            s.values[1].name,
            "7-Zip Compression: Test: Compression Rating"
        );
        assert_eq!(s.values[1].unit, "MIPS");
        assert!(
            parse_composite("<Result><Title>x</Title>")
                .values
                .is_empty()
        );
    }
}
