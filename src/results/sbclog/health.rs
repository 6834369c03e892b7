//! The "System health while running …" tables: sbc-bench's monitor, at the log's
//! resolution (time, clock per cluster, load, %cpu … %irq, temperature, core voltage,
//! the Raspberry Pi 5's PMIC, DC-in, a meter's mW).

use chrono::{Duration, NaiveTime, SecondsFormat, Utc};

use crate::record::log_record::{LogHealthRow, LogHealthTable};

use super::date;

/// The phase of the single row printed before the hot clock check.
pub const UNDER_LOAD: &str = "clock check under load";

/// `16:24:05:` at the start of a row: the time.
fn row_time(l: &str) -> Option<(&str, &str)> {
    let b = l.as_bytes();
    let ok = b.len() > 9
        && b[2] == b':'
        && b[5] == b':'
        && b[8] == b':'
        && [0, 1, 3, 4, 6, 7].iter().all(|&i| b[i].is_ascii_digit());
    ok.then(|| (&l[..8], &l[9..]))
}

/// A cell's number without its unit (`6%`, `41.6°C`, `0.8684V`, `5.8W`); `n/a°C` is none.
fn cell(t: &str) -> Option<f64> {
    let end = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(t.len());
    t[..end].parse().ok()
}

/// The names of the clock column's values: `cpu0/cpu4/cpu6`, `big.LITTLE`, `fake/real`,
/// `CPU`; `CPU n/a` names none.
fn clock_names(label: &str) -> Vec<String> {
    if label.contains("n/a") || label.is_empty() {
        return Vec::new();
    }
    let sep = if label.contains('/') { '/' } else { '.' };
    label.split(sep).map(|s| s.trim().to_string()).collect()
}

/// One row of a table with `columns` (after the clock column).
fn row(time: &str, rest: &str, columns: &[String]) -> LogHealthRow {
    let (clock, values) = match rest.find("MHz") {
        Some(i) => (&rest[..i], &rest[i + 3..]),
        None => {
            let t = rest.trim_start();
            let first = t.split_whitespace().next().unwrap_or("");
            ("", &t[first.len()..])
        }
    };
    let mut r = LogHealthRow {
        time: time.to_string(),
        clocks_mhz: if clock.trim().is_empty() {
            Vec::new()
        } else {
            clock.split('/').map(|c| c.trim().parse().ok()).collect()
        },
        ..LogHealthRow::default()
    };
    for (name, v) in columns.iter().zip(values.split_whitespace()) {
        let v = cell(v);
        match name.as_str() {
            "load" => r.load = v,
            "%cpu" => r.cpu_pct = v,
            "%sys" => r.sys_pct = v,
            "%usr" => r.usr_pct = v,
            "%nice" => r.nice_pct = v,
            "%io" => r.io_pct = v,
            "%irq" => r.irq_pct = v,
            "Temp" | "CPU" => r.temp_c = v,
            "VCore" => r.vcore_v = v,
            "PMIC" => r.pmic_w = v,
            "DC(V)" => r.dc_in_v = v,
            "mW" => r.power_mw = v,
            _ => {}
        }
    }
    r
}

/// `Time   cpu0/cpu4/cpu6   load %cpu …`: the clock column's label and the columns after
/// it.
fn header(l: &str) -> Option<(String, Vec<String>)> {
    let rest = l.strip_prefix("Time")?;
    let toks: Vec<&str> = rest.split_whitespace().collect();
    let load = toks.iter().position(|t| *t == "load")?;
    Some((
        toks[..load].join(" "),
        toks[load..].iter().map(|t| t.to_string()).collect(),
    ))
}

/// Every table, in the log's order.
pub fn tables(lines: &[String], header_date: Option<&str>) -> Vec<LogHealthTable> {
    let mut out: Vec<LogHealthTable> = Vec::new();
    let mut pending: Option<String> = None;
    let mut open = false;
    for l in lines {
        if let Some(p) = l
            .strip_prefix("System health while running ")
            .map(|p| p.trim_end().trim_end_matches(':'))
        {
            pending = Some(p.to_string());
            open = false;
            continue;
        }
        if l.contains("System health now:") {
            pending = Some(UNDER_LOAD.to_string());
            open = false;
            continue;
        }
        if let Some((label, columns)) = header(l) {
            if let Some(phase) = pending.take() {
                out.push(LogHealthTable {
                    phase,
                    clock_names: clock_names(&label),
                    columns: std::iter::once(label).chain(columns).collect(),
                    rows: Vec::new(),
                });
                open = true;
            }
            continue;
        }
        if !open {
            continue;
        }
        match (row_time(l), out.last_mut()) {
            (Some((time, rest)), Some(t)) => {
                let r = row(time, rest, &t.columns[1..]);
                t.rows.push(r);
            }
            _ if l.trim().is_empty() => {}
            _ => open = false,
        }
    }
    out.retain(|t| !t.rows.is_empty());
    if let Some(start) = header_date.and_then(date::parse) {
        for r in out.iter_mut().flat_map(|t| &mut t.rows) {
            r.utc = utc_of(start, &r.time);
        }
    }
    out
}

/// A row's time of day on the header's day (the next day when it is more than an hour
/// before the header's time: the run went past midnight), in UTC.
fn utc_of(start: chrono::DateTime<chrono::FixedOffset>, time: &str) -> Option<String> {
    let t = NaiveTime::parse_from_str(time, "%H:%M:%S").ok()?;
    let local = start.date_naive().and_time(t);
    let mut at = local.and_local_timezone(*start.offset()).single()?;
    if at < start - Duration::hours(1) {
        at += Duration::days(1);
    }
    Some(
        at.with_timezone(&Utc)
            .to_rfc3339_opts(SecondsFormat::Secs, true),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::sbclog::normalise;

    #[test]
    fn tables_of_every_header_layout() {
        let text = "System health while running tinymembench:\n\n\
Time       cpu0/cpu4/cpu6    load %cpu %sys %usr %nice %io %irq   Temp   DC(V)\n\
23:59:05: 1800/2256/2256MHz  1.20   6%   1%   4%   0%   0%   0%  41.6°C   5.14V\n\
00:00:35: 1800/2256/2256MHz  1.12  12%   0%  12%   0%   0%   0%  42.5°C   5.13V\n\n\
System health while running OpenSSL benchmark:\n\n\
Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp    VCore    PMIC   DC(V)     mW\n\
12:35:00:  900/ 900MHz  0.09  29%   1%  23%   1%   1%   0%  58.4°C  1.3125V   5.8W   5.14V   5710\n\n\
Testing maximum cpufreq again, still under full load. System health now:\n\n\
Time      CPU n/a    load %cpu %sys %usr %nice %io %irq   Temp\n\
16:59:24:   ---     31.97 100%   0%  99%   0%   0%   0%   n/a°C\n\n\
Checking cpufreq OPP:\n";
        let t = tables(&normalise(text), Some("Sun, 10 Nov 2024 23:58:00 +0100"));
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].phase, "tinymembench");
        assert_eq!(t[0].clock_names, ["cpu0", "cpu4", "cpu6"]);
        let r = &t[0].rows[0];
        assert_eq!(r.clocks_mhz, [Some(1800), Some(2256), Some(2256)]);
        assert_eq!(
            (r.load, r.cpu_pct, r.sys_pct),
            (Some(1.2), Some(6.0), Some(1.0))
        );
        assert_eq!((r.temp_c, r.dc_in_v), (Some(41.6), Some(5.14)));
        assert_eq!(r.utc.as_deref(), Some("2024-11-10T22:59:05Z"));
        // Past midnight: the next day.
        assert_eq!(t[0].rows[1].utc.as_deref(), Some("2024-11-10T23:00:35Z"));
        let p = &t[1].rows[0];
        assert_eq!(t[1].clock_names, ["fake", "real"]);
        assert_eq!(p.clocks_mhz, [Some(900), Some(900)]);
        assert_eq!(
            (p.vcore_v, p.pmic_w, p.power_mw),
            (Some(1.3125), Some(5.8), Some(5710.0))
        );
        assert_eq!(t[2].phase, UNDER_LOAD);
        assert!(t[2].clock_names.is_empty() && t[2].rows[0].clocks_mhz.is_empty());
        assert_eq!(
            (t[2].rows[0].load, t[2].rows[0].temp_c),
            (Some(31.97), None)
        );
    }
}
