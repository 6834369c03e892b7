//! stress-ng's metrics: the `--metrics-brief` table it logs on stderr
//! (`stress-ng: metrc: [6185] cpu  2938  2.00  1.69  0.00  1467.61  1739.20`; older
//! versions say `info:` instead of `metrc:`) and the `--yaml FILE` document.

use super::{Score, Value, number};

/// One stressor's bogo ops/s from the metrics table: real time and usr+sys time.
pub fn parse_metrics(text: &str) -> Score {
    let mut s = Score::default();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("stress-ng:") else {
            continue;
        };
        // `metrc: [pid] cpu 2938 2.00 1.69 0.00 1467.61 1739.20`
        let Some((_, after_pid)) = rest.split_once(']') else {
            continue;
        };
        let f: Vec<&str> = after_pid.split_whitespace().collect();
        if f.len() < 7 || number(f[1]).is_none() {
            continue;
        }
        let nums: Vec<f64> = f[1..7].iter().filter_map(|x| number(x)).collect();
        if nums.len() != 6 {
            continue;
        }
        let name = f[0];
        s.values.push(Value::new(
            format!("{name} bogo ops/s (real time)"),
            nums[4],
            "bogo ops/s",
        ));
        s.values.push(Value::new(
            format!("{name} bogo ops/s (usr+sys time)"),
            nums[5],
            "bogo ops/s",
        ));
    }
    s
}

/// The same from stress-ng's `--yaml` file: `metrics:` entries with `stressor:` and
/// `bogo-ops-per-second-real-time:`.
pub fn parse_yaml(text: &str) -> Score {
    let mut s = Score::default();
    let mut stressor: Option<String> = None;
    for line in text.lines() {
        let l = line.trim().trim_start_matches("- ");
        let Some((k, v)) = l.split_once(':') else {
            continue;
        };
        let v = v.trim();
        match k.trim() {
            "stressor" => stressor = Some(v.to_string()),
            "bogo-ops-per-second-real-time" => {
                if let (Some(n), Some(x)) = (&stressor, number(v)) {
                    s.values.push(Value::new(
                        format!("{n} bogo ops/s (real time)"),
                        x,
                        "bogo ops/s",
                    ));
                }
            }
            "bogo-ops-per-second-usr-sys-time" => {
                if let (Some(n), Some(x)) = (&stressor, number(v)) {
                    s.values.push(Value::new(
                        format!("{n} bogo ops/s (usr+sys time)"),
                        x,
                        "bogo ops/s",
                    ));
                }
            }
            _ => {}
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recorded on the build machine: `stress-ng --cpu 1 -t 2 --metrics-brief` (0.15.06).
    const BRIEF: &str =
        include_str!("../../../../tests/fixtures/wrap/stress-ng-metrics-brief.stderr");
    /// The same tool's `--yaml FILE` of another 2 s run.
    const YAML: &str = include_str!("../../../../tests/fixtures/wrap/stress-ng.yaml");

    #[test]
    fn metrics_brief_of_a_recorded_run() {
        let s = parse_metrics(BRIEF);
        assert_eq!(s.values.len(), 2, "{s:?}");
        assert_eq!(s.values[0].name, "cpu bogo ops/s (real time)");
        assert_eq!(s.values[0].value, 1467.61);
        assert_eq!(s.values[1].value, 1739.20);
        // The heading lines are no stressor.
        assert!(!s.values.iter().any(|v| v.name.starts_with("stressor")));
    }

    #[test]
    fn yaml_of_a_recorded_run() {
        let s = parse_yaml(YAML);
        assert_eq!(s.values.len(), 2, "{s:?}");
        assert_eq!(s.values[0].name, "cpu bogo ops/s (usr+sys time)");
        assert_eq!(s.values[0].value, 1739.787027);
        assert_eq!(s.values[1].value, 1454.712438);
    }

    #[test]
    fn truncated_lines_give_nothing() {
        assert!(
            parse_metrics("stress-ng: metrc: [1] cpu 12 2.0")
                .values
                .is_empty()
        );
        assert!(parse_metrics("stress-ng: info: [1").values.is_empty());
    }
}
