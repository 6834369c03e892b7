//! The model of the log's last line: a row of sbc-bench's Results.md table,
//! `| <device> | <MHz> | <kernel x.y> | <distro> <arch> | <7-zip multi> | <7-zip single> | <AES-256 16K> | <memcpy> | <memset> | <kH/s or -> |`.
//!
//! Every column follows sbc-bench's own rules (`SummarizeResults` and the benchmark
//! functions of sbc-bench.sh), so a row pastes into Results.md next to published ones:
//! figures rounded to tens (half to even, as awk's `printf "%0.0f"`), the clock column from
//! cpufreq unless the measured clock is more than 2 % off, `(throttled)` appended. A
//! `--quick` run's row is marked `(quick)` after them: it is not to be pasted beside
//! published rows.

use serde::{Deserialize, Serialize};

/// The values of one Results.md row. Missing values print as `-`.
///
/// In JSON the figures carry their units by docs/RUN-JSON.md's rule (`memcpy_mb_per_s`);
/// the keys they had before (`memcpy_mb_s`, `memset_mb_s`, `aes256_16k`, `scrypt_khs`) are
/// written too, after the others, for one schema version, and either is read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(from = "RowIn")]
pub struct ResultsRow {
    /// Device name (`Radxa ROCK 5A`).
    pub device: String,
    /// The clock column as sbc-bench words it, see [`clock_column`]: `2400/1800 MHz`,
    /// `~3270` (measured, more than 2 % off cpufreq's maximum), `~1050 MHz` (measured, no
    /// cpufreq), `no cpufreq support`.
    pub clock: String,
    /// ` (throttled)` follows the clock: throttling was recorded, or the clock measured at
    /// the end was more than 3 % below the one at the start.
    pub throttled: bool,
    /// Kernel release (`5.10.66-rockchip-5.10`); the row shows `5.10`.
    pub kernel: String,
    /// Distro and architecture (`Debian GNU/Linux 11 (bullseye) arm64`,
    /// `Ubuntu 22.04.3 LTS x86_64/amd64` when kernel and userland differ).
    pub distro_arch: String,
    /// 7-Zip multi-threaded: average of the finished runs (printed rounded to tens).
    pub sevenzip_multi: Option<u64>,
    /// 7-Zip single-threaded (best cluster).
    pub sevenzip_single: Option<u64>,
    /// AES-256-CBC at 16 KiB, in openssl's 1000s of bytes/s (best cluster).
    pub aes256_16k: Option<f64>,
    /// libc memcpy MB/s (best cluster).
    pub memcpy_mb_s: Option<f64>,
    /// libc memset MB/s (best cluster).
    pub memset_mb_s: Option<f64>,
    /// scrypt (cpuminer) kH/s by sbc-bench's rule, see [`cpuminer_score`].
    pub scrypt_khs: Option<f64>,
    /// A `--quick` run: shortened benchmarks whose figures compare with no full run and
    /// not with the published table; ` (quick)` follows the clock (and ` (throttled)`),
    /// where sbc-bench puts its notes on how a row was measured.
    #[serde(default)]
    pub quick: bool,
}

/// A row as written: the keys by the unit rule, then the deprecated ones.
#[derive(Serialize, Deserialize)]
struct RowOut<'a> {
    device: &'a str,
    clock: &'a str,
    throttled: bool,
    kernel: &'a str,
    distro_arch: &'a str,
    sevenzip_multi: Option<u64>,
    sevenzip_single: Option<u64>,
    aes256_16k_kb_per_s: Option<f64>,
    memcpy_mb_per_s: Option<f64>,
    memset_mb_per_s: Option<f64>,
    scrypt_khash_per_s: Option<f64>,
    quick: bool,
    /// Deprecated: `aes256_16k_kb_per_s`.
    aes256_16k: Option<f64>,
    /// Deprecated: `memcpy_mb_per_s`.
    memcpy_mb_s: Option<f64>,
    /// Deprecated: `memset_mb_per_s`.
    memset_mb_s: Option<f64>,
    /// Deprecated: `scrypt_khash_per_s`.
    scrypt_khs: Option<f64>,
}

impl Serialize for ResultsRow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RowOut {
            device: &self.device,
            clock: &self.clock,
            throttled: self.throttled,
            kernel: &self.kernel,
            distro_arch: &self.distro_arch,
            sevenzip_multi: self.sevenzip_multi,
            sevenzip_single: self.sevenzip_single,
            aes256_16k_kb_per_s: self.aes256_16k,
            memcpy_mb_per_s: self.memcpy_mb_s,
            memset_mb_per_s: self.memset_mb_s,
            scrypt_khash_per_s: self.scrypt_khs,
            quick: self.quick,
            aes256_16k: self.aes256_16k,
            memcpy_mb_s: self.memcpy_mb_s,
            memset_mb_s: self.memset_mb_s,
            scrypt_khs: self.scrypt_khs,
        }
        .serialize(s)
    }
}

/// A row as read: either key of a renamed figure (the new one wins), so rows written
/// before the rename (stored runs, older JSON files) read as well as new ones.
#[derive(Deserialize)]
struct RowIn {
    device: String,
    clock: String,
    throttled: bool,
    kernel: String,
    distro_arch: String,
    sevenzip_multi: Option<u64>,
    sevenzip_single: Option<u64>,
    #[serde(default)]
    aes256_16k_kb_per_s: Option<f64>,
    #[serde(default)]
    memcpy_mb_per_s: Option<f64>,
    #[serde(default)]
    memset_mb_per_s: Option<f64>,
    #[serde(default)]
    scrypt_khash_per_s: Option<f64>,
    #[serde(default)]
    quick: bool,
    #[serde(default)]
    aes256_16k: Option<f64>,
    #[serde(default)]
    memcpy_mb_s: Option<f64>,
    #[serde(default)]
    memset_mb_s: Option<f64>,
    #[serde(default)]
    scrypt_khs: Option<f64>,
}

impl From<RowIn> for ResultsRow {
    fn from(r: RowIn) -> Self {
        Self {
            device: r.device,
            clock: r.clock,
            throttled: r.throttled,
            kernel: r.kernel,
            distro_arch: r.distro_arch,
            sevenzip_multi: r.sevenzip_multi,
            sevenzip_single: r.sevenzip_single,
            aes256_16k: r.aes256_16k_kb_per_s.or(r.aes256_16k),
            memcpy_mb_s: r.memcpy_mb_per_s.or(r.memcpy_mb_s),
            memset_mb_s: r.memset_mb_per_s.or(r.memset_mb_s),
            scrypt_khs: r.scrypt_khash_per_s.or(r.scrypt_khs),
            quick: r.quick,
        }
    }
}

/// `5.10.66-rockchip-5.10` → `5.10` (sbc-bench: the first two dot-separated fields).
pub fn kernel_major_minor(release: &str) -> String {
    let mut it = release.split('.');
    match (it.next(), it.next()) {
        (Some(a), Some(b)) => format!("{a}.{b}"),
        _ => release.to_string(),
    }
}

/// awk's `printf("%0.0f", v/10) * 10`: to tens, ties to even.
pub fn round_tens(v: f64) -> i64 {
    (v / 10.0).round_ties_even() as i64 * 10
}

/// `aarch64` → `arm64`, `armv7l` → `armhf` (sbc-bench's `KernelArch`).
pub fn kernel_arch(machine: &str) -> String {
    match machine {
        "aarch64" => "arm64".to_string(),
        "armv7l" => "armhf".to_string(),
        m => m.to_string(),
    }
}

/// `<distro> <arch>`, or `<distro> <kernel arch>/<userland arch>` when they differ
/// (`Ubuntu 22.04.3 LTS x86_64/amd64`, `Bullseye arm64/armhf`).
pub fn distro_arch(distro: &str, machine: Option<&str>, arch: &str) -> String {
    match machine.map(kernel_arch) {
        Some(k) if !k.is_empty() && k != arch => format!("{distro} {k}/{arch}"),
        _ => format!("{distro} {arch}"),
    }
}

/// The clock column. With cpufreq (`highest_khz`/`lowest_khz`: the largest and smallest
/// `cpuinfo_max_freq` over all policies) and `measured_mhz` (the clock measured at the
/// highest OPP of the last cluster at the start of the run): when the measurement is more
/// than 2 % off the highest maximum, `~N` (rounded to tens, no unit, as sbc-bench prints
/// it), else `H MHz` or `H/L MHz`. Without cpufreq: the first measured clock rounded up
/// to tens, `~N MHz`, or `no cpufreq support` when nothing was measured.
pub fn clock_column(
    highest_khz: Option<u64>,
    lowest_khz: Option<u64>,
    measured_mhz: Option<u64>,
) -> String {
    match (highest_khz, measured_mhz) {
        (Some(high), m) if high > 0 => {
            let low = lowest_khz.unwrap_or(high);
            if let Some(m) = m {
                // sbc-bench: 100000 * measured MHz / kHz, an integer percentage.
                let pct = 100_000 * m / high;
                if !(98..=102).contains(&pct) {
                    return format!("~{}", round_tens(m as f64));
                }
            }
            if high / 1000 == low / 1000 {
                format!("{} MHz", high / 1000)
            } else {
                format!("{}/{} MHz", high / 1000, low / 1000)
            }
        }
        (_, Some(m)) => format!(
            "~{} MHz",
            ((m as f64 / 10.0 + 0.5).round_ties_even() as u64) * 10
        ),
        (_, None) => "no cpufreq support".to_string(),
    }
}

/// sbc-bench's throttling rule on two clock measurements: the start more than 3 % above
/// the end (`100 * start / end > 103`, integer division).
pub fn clock_dropped(start_mhz: u64, end_mhz: u64) -> bool {
    end_mhz > 0 && 100 * start_mhz / end_mhz > 103
}

/// cpuminer's kH/s as sbc-bench reports it: the interval totals as printed (two decimals),
/// without the first one (the first two when there are ten or more: they start low), sorted
/// high to low, duplicates merged, and the *second* highest taken. `None` (`-`) when fewer
/// than two distinct values remain.
pub fn cpuminer_score(totals_khs: &[f64]) -> Option<f64> {
    let skip = if totals_khs.len() >= 10 { 2 } else { 1 };
    let mut v: Vec<i64> = totals_khs
        .iter()
        .skip(skip)
        .map(|x| (x * 100.0).round() as i64)
        .collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    v.dedup();
    v.get(1).map(|c| *c as f64 / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> ResultsRow {
        ResultsRow {
            device: "Radxa ROCK 5B".into(),
            clock: "2400/1800 MHz".into(),
            kernel: "6.1.43".into(),
            distro_arch: "Debian arm64".into(),
            sevenzip_multi: Some(16240),
            aes256_16k: Some(1_340_000.5),
            memcpy_mb_s: Some(5213.4),
            memset_mb_s: Some(15447.9),
            scrypt_khs: Some(9.87),
            ..ResultsRow::default()
        }
    }

    /// `memcpy_mb_s` beside `mb_per_s` elsewhere: one unit rule, the old keys kept (after
    /// the others) for one schema version, and either read back.
    #[test]
    fn renamed_unit_keys_are_written_both_ways_and_read_either_way() {
        let v = serde_json::to_value(row()).unwrap();
        for (new, old) in [
            ("memcpy_mb_per_s", "memcpy_mb_s"),
            ("memset_mb_per_s", "memset_mb_s"),
            ("aes256_16k_kb_per_s", "aes256_16k"),
            ("scrypt_khash_per_s", "scrypt_khs"),
        ] {
            assert_eq!(v[new], v[old], "{new}");
            assert!(v[new].is_number(), "{new}");
        }
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        let text = serde_json::to_string(&row()).unwrap();
        assert!(
            text.find("\"quick\"") < text.find("\"memcpy_mb_s\""),
            "{keys:?}"
        );
        // Both keys, as written now.
        assert_eq!(
            serde_json::from_value::<ResultsRow>(v.clone()).unwrap(),
            row()
        );
        // The old keys alone, as written before the rename.
        let mut old = v.clone();
        let m = old.as_object_mut().unwrap();
        for k in [
            "memcpy_mb_per_s",
            "memset_mb_per_s",
            "aes256_16k_kb_per_s",
            "scrypt_khash_per_s",
        ] {
            m.remove(k);
        }
        assert_eq!(serde_json::from_value::<ResultsRow>(old).unwrap(), row());
        // The new keys alone, as the next schema version will write them.
        let mut new = v;
        let m = new.as_object_mut().unwrap();
        for k in ["memcpy_mb_s", "memset_mb_s", "aes256_16k", "scrypt_khs"] {
            m.remove(k);
        }
        assert_eq!(serde_json::from_value::<ResultsRow>(new).unwrap(), row());
    }
}
