//! Stockfish's `bench`: `Nodes/second    : 1234567` after each run (sbc-bench reads the
//! same line, `awk -F": " '/^Nodes\/second/'`).

use super::{Score, Value, number};

/// Every `Nodes/second` line, in order (sbc-bench runs the bench three times).
pub fn parse(text: &str) -> Score {
    let mut s = Score::default();
    for line in text.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("Nodes/second")
            && let Some(v) = rest.trim().strip_prefix(':').and_then(number)
        {
            s.values.push(Value::new("nodes/s", v, "nodes/s"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary Stockfish 15 prints on stderr after `bench 128 4 24 default depth`
    /// (format of `benchmark.cpp`'s report: total time, nodes searched, nodes/second).
    const SAMPLE: &str = "\
===========================
Total time (ms) : 51234
Nodes searched  : 40123456
Nodes/second    : 783140
";

    #[test]
    fn nodes_per_second() {
        let s = parse(SAMPLE);
        assert_eq!(s.values, vec![Value::new("nodes/s", 783140.0, "nodes/s")]);
        assert!(parse("Nodes/second : fast").values.is_empty());
    }
}
