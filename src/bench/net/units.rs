//! Numbers as iperf3 reads and prints them: sizes with binary suffixes (`-l 128K` =
//! 131072), rates with decimal ones (`-b 100M` = 100 000 000 bit/s), and the adaptive
//! four-digit output (`2.98 GByte`, `25.6 Gbit`) that users and their scripts know.

/// Parse a size with an optional binary suffix: `K`/`M`/`G`/`T` = 1024^1…4 (either case).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let (num, mult) = split_suffix(s, 1024.0)?;
    let v = num * mult;
    if !v.is_finite() || !(0.0..1.8e19).contains(&v) {
        return Err(format!("'{s}' is out of range"));
    }
    Ok(v as u64)
}

/// Parse a rate in bit/s with an optional decimal suffix: `K`/`M`/`G`/`T` = 1000^1…4.
/// iperf3 also accepts `RATE/BURST`; the burst is returned separately.
pub fn parse_rate(s: &str) -> Result<(u64, Option<u32>), String> {
    let (rate, burst) = match s.split_once('/') {
        Some((r, b)) => (
            r,
            Some(
                b.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("'{b}' is not a burst count"))?,
            ),
        ),
        None => (s, None),
    };
    let (num, mult) = split_suffix(rate, 1000.0)?;
    let v = num * mult;
    if !v.is_finite() || !(0.0..1.8e19).contains(&v) {
        return Err(format!("'{s}' is out of range"));
    }
    Ok((v as u64, burst))
}

fn split_suffix(s: &str, base: f64) -> Result<(f64, f64), String> {
    let t = s.trim();
    let (num, mult) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], base),
        Some('m' | 'M') => (&t[..t.len() - 1], base * base),
        Some('g' | 'G') => (&t[..t.len() - 1], base * base * base),
        Some('t' | 'T') => (&t[..t.len() - 1], base * base * base * base),
        _ => (t, 1.0),
    };
    let n: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number (examples: 128K, 1M, 100M)"))?;
    if !n.is_finite() || n < 0.0 {
        return Err(format!("'{s}' must be a positive number"));
    }
    Ok((n, mult))
}

/// Four significant places the way iperf3 prints them: `%4.2f` below 9.995, `%4.1f`
/// below 99.95, `%4.0f` above.
fn four_places(v: f64) -> String {
    if v < 9.995 {
        format!("{v:4.2}")
    } else if v < 99.95 {
        format!("{v:4.1}")
    } else {
        format!("{v:4.0}")
    }
}

/// Bytes with an adaptive binary unit: `2.98 GByte`, `767 KByte` (iperf3 appends the `s`).
pub fn fmt_bytes(bytes: f64) -> String {
    const LABELS: [&str; 5] = ["Byte", "KByte", "MByte", "GByte", "TByte"];
    let mut v = bytes;
    let mut i = 0;
    while v >= 1024.0 && i < 4 {
        v /= 1024.0;
        i += 1;
    }
    format!("{} {}", four_places(v), LABELS[i])
}

/// A rate given in bytes per second, printed as bits with an adaptive decimal unit:
/// `25.6 Gbit`, `942 Mbit` (iperf3 appends `s/sec`).
pub fn fmt_bits(bytes_per_s: f64) -> String {
    const LABELS: [&str; 5] = ["bit", "Kbit", "Mbit", "Gbit", "Tbit"];
    let mut v = bytes_per_s * 8.0;
    let mut i = 0;
    while v >= 1000.0 && i < 4 {
        v /= 1000.0;
        i += 1;
    }
    format!("{} {}", four_places(v), LABELS[i])
}

/// C's `%.2g`: two significant digits, trailing zeros removed, exponent form when the
/// exponent is below -4 or at least 2 (iperf3's loss percentage: `0%`, `0.5%`, `12%`,
/// `1e+02%`).
pub fn fmt_g2(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    // Round to two significant digits first, then pick the form from the rounded value.
    let e = format!("{v:.1e}");
    let (mant, exp) = e.split_once('e').unwrap_or((e.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..2).contains(&exp) {
        let mant = mant.trim_end_matches('0').trim_end_matches('.');
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mant}e{sign}{:02}", exp.abs());
    }
    let decimals = (1 - exp).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_rates() {
        assert_eq!(parse_size("128K"), Ok(131072));
        assert_eq!(parse_size("1m"), Ok(1048576));
        assert_eq!(parse_size("1460"), Ok(1460));
        assert_eq!(parse_size("0.5K"), Ok(512));
        assert!(parse_size("abc").is_err());
        assert!(parse_size("-1K").is_err());
        assert!(parse_size("").is_err());
        assert_eq!(parse_rate("100M"), Ok((100_000_000, None)));
        assert_eq!(parse_rate("2.5G"), Ok((2_500_000_000, None)));
        assert_eq!(parse_rate("10M/100"), Ok((10_000_000, Some(100))));
        assert!(parse_rate("10M/x").is_err());
        assert!(parse_rate("1e400").is_err());
    }

    #[test]
    fn adaptive_units_match_iperf3_lines() {
        // From real iperf3 3.12 output on this project's seeds and loopback runs.
        assert_eq!(fmt_bytes(113.0 * 1048576.0), " 113 MByte");
        assert_eq!(fmt_bytes(1.10 * 1073741824.0), "1.10 GByte");
        assert_eq!(fmt_bytes(358.0 * 1024.0), " 358 KByte");
        assert_eq!(fmt_bytes(29.7 * 1024.0), "29.7 KByte");
        assert_eq!(fmt_bytes(0.0), "0.00 Byte");
        assert_eq!(fmt_bits(942e6 / 8.0), " 942 Mbit");
        assert_eq!(fmt_bits(94.6e6 / 8.0), "94.6 Mbit");
        assert_eq!(fmt_bits(2.35e9 / 8.0), "2.35 Gbit");
        assert_eq!(fmt_bits(0.0), "0.00 bit");
        // 1000-1023 KByte keep four digits (`1023 KBytes` in iperf3's Cwnd column).
        assert_eq!(fmt_bytes(1023.0 * 1024.0), "1023 KByte");
    }

    #[test]
    fn percent_g_format() {
        assert_eq!(fmt_g2(0.0), "0");
        assert_eq!(fmt_g2(0.5), "0.5");
        assert_eq!(fmt_g2(1.234), "1.2");
        assert_eq!(fmt_g2(12.0), "12");
        assert_eq!(fmt_g2(99.6), "1e+02");
        assert_eq!(fmt_g2(100.0), "1e+02");
        assert_eq!(fmt_g2(0.00012), "0.00012");
        assert_eq!(fmt_g2(0.000012), "1.2e-05");
        assert_eq!(fmt_g2(0.1), "0.1");
        assert_eq!(fmt_g2(5.0), "5");
    }
}
