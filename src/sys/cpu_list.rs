//! Kernel CPU lists (`0-3,6,8-11`) and affinity masks (`f`, `00000000,000000ff`).

/// No kernel numbers a CPU at or above this (`NR_CPUS` is at most 8192).
pub const MAX_CPU: u32 = 8192;

/// Parse a kernel CPU list such as `/sys/devices/system/cpu/online` (`0-3,6`).
/// Garbage yields `None`; an empty string is an empty list. CPU numbers of [`MAX_CPU`]
/// or more are garbage too; a range running past it is cut there.
pub fn parse_list(s: &str) -> Option<Vec<u32>> {
    let s = s.trim();
    let mut out = Vec::new();
    if s.is_empty() {
        return Some(out);
    }
    for part in s.split(',') {
        let part = part.trim();
        if let Some((a, b)) = part.split_once('-') {
            let (a, b): (u32, u32) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
            if b < a || a >= MAX_CPU {
                return None;
            }
            out.extend(a..=b.min(MAX_CPU - 1));
        } else {
            let n: u32 = part.parse().ok()?;
            if n >= MAX_CPU {
                return None;
            }
            out.push(n);
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// Parse a space-separated CPU list (`related_cpus`: `4 5 6 7`).
pub fn parse_spaced(s: &str) -> Option<Vec<u32>> {
    let mut v: Vec<u32> = s
        .split_whitespace()
        .map(|t| t.parse().ok())
        .collect::<Option<_>>()?;
    v.sort_unstable();
    v.dedup();
    Some(v)
}

/// Parse a hex affinity mask as in `/proc/irq/N/smp_affinity` or `rps_cpus`
/// (`f`, `00000000,000000ff`). Bit n set means CPU n.
pub fn parse_mask(s: &str) -> Option<Vec<u32>> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let mut cpus = Vec::new();
    let mut bit = 0u32;
    for word in s.rsplit(',') {
        let word = word.trim();
        if word.is_empty() || word.len() > 8 {
            return None;
        }
        let v = u32::from_str_radix(word, 16).ok()?;
        for i in 0..32 {
            if v & (1 << i) != 0 {
                cpus.push(bit + i);
            }
        }
        bit += 32;
    }
    Some(cpus)
}

/// Format CPUs the way sbc-bench names ranges: `cpu0-cpu3`, `cpu4`, `cpu0-cpu1,cpu4`.
pub fn format_cpu_range(cpus: &[u32]) -> String {
    format_ranges(cpus, "cpu", "-cpu", false)
}

/// Format CPUs as a kernel list: `0-3,6`.
pub fn format_list(cpus: &[u32]) -> String {
    format_ranges(cpus, "", "-", false)
}

/// Format CPUs as util-linux writes a list (lscpu): like [`format_list`], but a run of two
/// reads `0,1`, not `0-1`.
pub fn format_util_linux_list(cpus: &[u32]) -> String {
    format_ranges(cpus, "", "-", true)
}

fn format_ranges(cpus: &[u32], prefix: &str, sep: &str, pairs_apart: bool) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let start = v[i];
        let mut end = start;
        while i + 1 < v.len() && v[i + 1] == end + 1 {
            i += 1;
            end = v[i];
        }
        if start == end {
            parts.push(format!("{prefix}{start}"));
        } else if pairs_apart && end == start + 1 {
            parts.push(format!("{prefix}{start},{prefix}{end}"));
        } else {
            parts.push(format!("{prefix}{start}{sep}{end}"));
        }
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(parse_list("0-3,6\n"), Some(vec![0, 1, 2, 3, 6]));
        assert_eq!(parse_list(""), Some(vec![]));
        assert_eq!(parse_list("3-1"), None);
        assert_eq!(parse_list("x"), None);
        assert_eq!(parse_list("0-65535").map(|v| v.len()), Some(8192));
        assert_eq!(parse_list("9000"), None);
        assert_eq!(parse_spaced("4 5 6 7\n"), Some(vec![4, 5, 6, 7]));
    }

    #[test]
    fn masks() {
        assert_eq!(parse_mask("f"), Some(vec![0, 1, 2, 3]));
        assert_eq!(parse_mask("00000000,00000041"), Some(vec![0, 6]));
        assert_eq!(parse_mask("1,00000000"), Some(vec![32]));
        assert_eq!(parse_mask("zz"), None);
    }

    #[test]
    fn ranges() {
        assert_eq!(format_cpu_range(&[0, 1, 2, 3]), "cpu0-cpu3");
        assert_eq!(format_cpu_range(&[4]), "cpu4");
        assert_eq!(format_list(&[0, 1, 4, 6, 7]), "0-1,4,6-7");
    }
}
