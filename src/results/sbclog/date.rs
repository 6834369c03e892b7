//! Dates as logs and run JSON print them, to one form: RFC 3339 in UTC, so the results
//! store sorts by time and not by weekday.

use chrono::{DateTime, FixedOffset, NaiveDateTime, SecondsFormat, Utc};

/// A date as printed, with its offset: RFC 2822 (`date -R`, every sbc-bench header:
/// `Mon, 10 Nov 2025 23:46:00 +0800`), RFC 3339 (our run JSON), or `date`'s default in
/// UTC (`Tue Jun 10 16:21:47 UTC 2025`). A local time without its offset is not
/// converted: its instant is not known.
pub fn parse(printed: &str) -> Option<DateTime<FixedOffset>> {
    let s = printed.trim();
    if let Ok(d) = DateTime::parse_from_rfc2822(s) {
        return Some(d);
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d);
    }
    for zone in [" UTC ", " GMT "] {
        if let Some((a, year)) = s.split_once(zone) {
            let naive =
                NaiveDateTime::parse_from_str(&format!("{a} {year}"), "%a %b %e %H:%M:%S %Y")
                    .ok()?;
            return Some(naive.and_utc().fixed_offset());
        }
    }
    None
}

/// The date `parse` reads, as RFC 3339 in UTC to the second (`2025-11-10T15:46:00Z`).
pub fn to_utc(printed: &str) -> Option<String> {
    parse(printed).map(|d| {
        d.with_timezone(&Utc)
            .to_rfc3339_opts(SecondsFormat::Secs, true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_the_logs_and_run_json_use() {
        assert_eq!(
            to_utc("Mon, 10 Nov 2025 23:46:00 +0800").as_deref(),
            Some("2025-11-10T15:46:00Z")
        );
        // chrono's to_rfc2822 (our logs) writes a one-digit day.
        assert_eq!(
            to_utc("Thu, 3 Dec 2026 14:33:30 +0000").as_deref(),
            Some("2026-12-03T14:33:30Z")
        );
        assert_eq!(
            to_utc("2026-12-03T15:33:30.250+01:00").as_deref(),
            Some("2026-12-03T14:33:30Z")
        );
        assert_eq!(
            to_utc("Tue Jun 10 16:21:47 UTC 2025").as_deref(),
            Some("2025-06-10T16:21:47Z")
        );
        for bad in [
            "",
            "yesterday",
            "Tue Jun 10 16:21:47 CEST 2025",
            "Mon, 99 Nov 2025",
        ] {
            assert_eq!(to_utc(bad), None, "{bad}");
        }
    }

    /// RFC 2822 sorts by weekday as text; the UTC form sorts by time.
    #[test]
    fn utc_forms_sort_by_time() {
        let mut d = vec![
            to_utc("Mon, 10 Nov 2025 23:46:00 +0800").unwrap(),
            to_utc("Sun, 29 Jul 2018 12:34:58 +0000").unwrap(),
            to_utc("Fri, 14 Mar 2025 09:00:00 -0500").unwrap(),
        ];
        d.sort();
        assert_eq!(
            d,
            [
                "2018-07-29T12:34:58Z",
                "2025-03-14T14:00:00Z",
                "2025-11-10T15:46:00Z"
            ]
        );
    }
}
