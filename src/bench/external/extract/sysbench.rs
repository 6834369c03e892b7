//! `sysbench cpu run`: `events per second:  4439.65`.

use super::{Score, Value, number};

/// Events per second (and the total time) from sysbench's report.
pub fn parse(text: &str) -> Score {
    let mut s = Score::default();
    for line in text.lines() {
        let l = line.trim();
        if let Some(v) = l.strip_prefix("events per second:").and_then(number) {
            s.values.push(Value::new("events/s", v, "events/s"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recorded on the build machine: `sysbench cpu --time=2 run` (sysbench 1.0.20).
    const SAMPLE: &str = include_str!("../../../../tests/fixtures/wrap/sysbench-cpu.stdout");

    #[test]
    fn events_per_second_of_a_recorded_run() {
        let s = parse(SAMPLE);
        assert_eq!(s.values, vec![Value::new("events/s", 4439.65, "events/s")]);
        assert!(parse("events per second: lots").values.is_empty());
    }
}
