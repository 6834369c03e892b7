//! One grammar for durations across the commands (issue 29, item 8), from `fundu`: a
//! number of seconds (`300`, `1.5`) or numbers with units `ms`, `s`, `m`, `h`, also
//! several (`1.5m`, `500ms`, `90s`, `1h30m`, `1m 30s`). Each option only sets its range.
//! The tools' own formats stay theirs: iozone's sizes (`storage bench --size 100M`, a bare
//! number in KiB), iperf3's bytes and seconds (`net client -n 1G -t 10`).

use std::time::Duration;

use fundu::TimeUnit::{Hour, MilliSecond, Minute, Second};
use fundu::{DurationParser, DurationParserBuilder};

/// The parser: seconds by default, ms/s/m/h, fractions, several parts; no exponents, no
/// infinity, no sign.
const PARSER: DurationParser<'static> = DurationParserBuilder::new()
    .time_units(&[MilliSecond, Second, Minute, Hour])
    .parse_multiple(None)
    .disable_exponent()
    .disable_infinity()
    .build();

/// What every refusal says the grammar is.
pub const DURATION_HINT: &str = "e.g. 300, 90s, 1.5m, 500ms, 1h30m";

/// The duration `s` says, within `min..=max` (named in the refusal as `what`).
pub fn parse_duration_in(s: &str, min: Duration, max: Duration) -> Result<Duration, String> {
    let d = PARSER
        .parse(s.trim())
        .ok()
        .and_then(|d| Duration::try_from(d).ok())
        .ok_or_else(|| format!("not a duration ({DURATION_HINT})"))?;
    if d < min || d > max {
        return Err(format!(
            "not between {} and {} ({DURATION_HINT})",
            show(min),
            show(max)
        ));
    }
    Ok(d)
}

/// `10ms`, `1s`, `24h`: a bound as the refusal names it.
fn show(d: Duration) -> String {
    let ms = d.as_millis();
    match ms {
        _ if ms % 3_600_000 == 0 => format!("{}h", ms / 3_600_000),
        _ if ms % 60_000 == 0 => format!("{}m", ms / 60_000),
        _ if ms % 1000 == 0 => format!("{}s", ms / 1000),
        _ => format!("{ms}ms"),
    }
}

/// A day: the longest any duration option takes.
pub const DAY: Duration = Duration::from_secs(86_400);

/// A whole number of seconds in the same grammar (`--max-wait 10m`, `--idle-seconds 4m`),
/// rounded up to the next second.
pub fn parse_whole_seconds(s: &str) -> Result<u64, String> {
    let d = parse_duration_in(s, Duration::ZERO, Duration::from_secs(u32::MAX as u64))?;
    Ok(d.as_secs() + u64::from(d.subsec_nanos() > 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// `thermal --duration 1.5m` was accepted while `bench scrypt --duration 1.5m` and
    /// `500ms` were refused: every command now reads the same grammar.
    #[test]
    fn one_grammar_for_every_duration() {
        let ok = |s: &str| parse_duration_in(s, MS, DAY).unwrap();
        assert_eq!(ok("300"), Duration::from_secs(300));
        assert_eq!(ok("1.5"), Duration::from_millis(1500));
        assert_eq!(ok("90s"), Duration::from_secs(90));
        assert_eq!(ok("1.5m"), Duration::from_secs(90));
        assert_eq!(ok("500ms"), Duration::from_millis(500));
        assert_eq!(ok("1h30m"), Duration::from_secs(5400));
        assert_eq!(ok("1m 30s"), Duration::from_secs(90));
        assert_eq!(ok(" 5m "), Duration::from_secs(300));
        for bad in ["", "m", "fast", "-5", "5x", "2d", "1e3", "inf", "5 minutes"] {
            let e = parse_duration_in(bad, MS, DAY).unwrap_err();
            assert!(e.contains("e.g. 300, 90s"), "{bad}: {e}");
        }
        assert_eq!(
            parse_duration_in("0", MS, DAY).unwrap_err(),
            "not between 1ms and 24h (e.g. 300, 90s, 1.5m, 500ms, 1h30m)"
        );
        assert!(parse_duration_in("25h", MS, DAY).is_err());
        assert_eq!(parse_whole_seconds("10m"), Ok(600));
        assert_eq!(parse_whole_seconds("1.2"), Ok(2));
        assert_eq!(parse_whole_seconds("0"), Ok(0));
    }
}
