//! `openssl speed -elapsed -evp aes-…`, run as sbc-bench runs it, and its table parsed.
//!
//! OpenSSL 1.1 names the row `aes-128-cbc`, OpenSSL 3 `AES-128-CBC`; sbc-bench lowercases
//! both. Values are printed in 1000s of bytes per second with a `k` suffix, or in bytes
//! per second without one when below 10000 B/s.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::bench::{BenchError, external};
use crate::shutdown::CancellationToken;

/// An AES mode as `openssl speed -evp` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Algorithm {
    /// AES-128 in CBC mode.
    #[serde(rename = "aes-128-cbc")]
    Aes128Cbc,
    /// AES-192 in CBC mode.
    #[serde(rename = "aes-192-cbc")]
    Aes192Cbc,
    /// AES-256 in CBC mode.
    #[serde(rename = "aes-256-cbc")]
    Aes256Cbc,
    /// AES-256 in GCM mode (streamed, as `openssl speed -evp aes-256-gcm` does).
    #[serde(rename = "aes-256-gcm")]
    Aes256Gcm,
}

impl Algorithm {
    /// The three CBC variants sbc-bench's extensive mode runs.
    pub const CBC: [Algorithm; 3] = [Self::Aes128Cbc, Self::Aes192Cbc, Self::Aes256Cbc];

    /// OpenSSL's lowercase name (`aes-128-cbc`), as sbc-bench logs it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Aes128Cbc => "aes-128-cbc",
            Self::Aes192Cbc => "aes-192-cbc",
            Self::Aes256Cbc => "aes-256-cbc",
            Self::Aes256Gcm => "aes-256-gcm",
        }
    }

    /// Parse an OpenSSL name in either case (`AES-128-CBC` from OpenSSL 3).
    pub fn from_name(s: &str) -> Option<Self> {
        [
            Self::Aes128Cbc,
            Self::Aes192Cbc,
            Self::Aes256Cbc,
            Self::Aes256Gcm,
        ]
        .into_iter()
        .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
    }
}

/// An installed `openssl` binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Openssl {
    /// Where it is.
    pub path: PathBuf,
    /// `openssl version` as printed.
    pub version_raw: String,
    /// The version number (`3.0.19`, `1.1.1f`), if recognisable.
    pub version: Option<String>,
}

impl Openssl {
    /// Find `openssl` in `$PATH` and ask its version; `None` when not installed.
    pub fn find(cancel: &CancellationToken) -> Option<Self> {
        let path = external::find(&["openssl"])?;
        let out = external::run(
            &path,
            &["version".to_string()],
            None,
            Duration::from_secs(20),
            cancel,
        )
        .ok()?;
        let raw = out
            .stdout
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        Some(Self {
            version: parse_version(&raw),
            version_raw: raw,
            path,
        })
    }

    /// The version line sbc-bench writes above its table.
    pub fn version_line(&self) -> String {
        sbc_bench_version_line(&self.version_raw)
    }

    /// Run `openssl speed -elapsed -evp <alg>` (with `-seconds` when given), pinned to `cpu`.
    pub fn speed(
        &self,
        alg: Algorithm,
        cpu: Option<u32>,
        seconds: Option<u32>,
        cancel: &CancellationToken,
    ) -> Result<SpeedRun, BenchError> {
        speed_with(&self.path, alg, cpu, seconds, cancel)
    }
}

/// One `openssl speed` row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpeedRun {
    /// The algorithm measured.
    pub algorithm: Algorithm,
    /// The CPU it was pinned to, if any.
    pub cpu: Option<u32>,
    /// Throughput per buffer size, in the order OpenSSL printed them.
    #[serde(default)]
    pub sizes: Vec<Throughput>,
    /// Wall-clock duration of the `openssl` process, in seconds.
    pub elapsed_s: f64,
}

/// Throughput at one buffer size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Throughput {
    /// Buffer size in bytes.
    pub buffer_bytes: usize,
    /// Bytes per second.
    pub bytes_per_s: f64,
}

fn speed_with(
    program: &Path,
    alg: Algorithm,
    cpu: Option<u32>,
    seconds: Option<u32>,
    cancel: &CancellationToken,
) -> Result<SpeedRun, BenchError> {
    let mut args = vec!["speed".to_string(), "-elapsed".to_string()];
    if let Some(s) = seconds {
        args.push("-seconds".into());
        args.push(s.to_string());
    }
    args.push("-evp".into());
    args.push(alg.name().into());
    // Six sizes at 3 s each take 18 s; allow for a slow, loaded board.
    let per = u64::from(seconds.unwrap_or(3));
    let timeout = Duration::from_secs(60 + 12 * per);
    let out = external::run(program, &args, cpu, timeout, cancel)?;
    match parse_speed(&out.stdout, alg) {
        Some(sizes) => Ok(SpeedRun {
            algorithm: alg,
            cpu,
            sizes,
            elapsed_s: out.elapsed.as_secs_f64(),
        }),
        None => Err(BenchError::Failed(format!(
            "`openssl {}` printed no {} row{}",
            args.join(" "),
            alg.name(),
            first_line(&out.stderr)
                .map(|l| format!(": {l}"))
                .unwrap_or_default()
        ))),
    }
}

fn first_line(s: &str) -> Option<&str> {
    s.lines().map(str::trim).find(|l| !l.is_empty())
}

/// Parse the table of `openssl speed` for one algorithm: the sizes from the `type` header,
/// the values from the row named `alg` (either case). Anything after the numbers (a
/// `(Cortex-A76)` tag in sbc-bench logs) is ignored.
pub fn parse_speed(text: &str, alg: Algorithm) -> Option<Vec<Throughput>> {
    let mut sizes: Option<Vec<usize>> = None;
    for line in text.lines() {
        let mut tokens = line.split_whitespace();
        let Some(first) = tokens.next() else { continue };
        if first == "type" {
            let t: Vec<&str> = tokens.collect();
            let s: Vec<usize> = t
                .windows(2)
                .filter(|w| w[1] == "bytes")
                .filter_map(|w| w[0].parse().ok())
                .collect();
            if !s.is_empty() {
                sizes = Some(s);
            }
            continue;
        }
        if Algorithm::from_name(first) != Some(alg) {
            continue;
        }
        let sizes = sizes.as_ref()?;
        let values: Vec<f64> = tokens.map_while(parse_value).collect();
        if values.len() < sizes.len() {
            return None;
        }
        return Some(
            sizes
                .iter()
                .zip(values)
                .map(|(&buffer_bytes, bytes_per_s)| Throughput {
                    buffer_bytes,
                    bytes_per_s,
                })
                .collect(),
        );
    }
    None
}

/// `173609.37k` → 173609370.0 B/s; `9876.50` → 9876.5 B/s.
fn parse_value(tok: &str) -> Option<f64> {
    match tok.strip_suffix('k') {
        Some(k) => k.parse::<f64>().ok().map(|v| v * 1000.0),
        None => tok.parse::<f64>().ok(),
    }
    .filter(|v| v.is_finite() && *v >= 0.0)
}

/// The version number from `openssl version` (`OpenSSL 1.1.1f  31 Mar 2020` → `1.1.1f`).
pub fn parse_version(raw: &str) -> Option<String> {
    let mut t = raw.split_whitespace();
    let _name = t.next()?;
    let v = t.next()?;
    v.chars()
        .next()
        .filter(char::is_ascii_digit)
        .map(|_| v.to_string())
}

/// sbc-bench's rewrite of `openssl version`: the first two words, `, built on`, then the
/// rest (awk fields 3–15, single-spaced).
pub fn sbc_bench_version_line(raw: &str) -> String {
    let t: Vec<&str> = raw.split_whitespace().take(15).collect();
    match t.len() {
        0 => String::new(),
        1 | 2 => t.join(" "),
        _ => format!("{} {}, built on {}", t[0], t[1], t[2..].join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // OpenSSL 3.0.19 on this project's x86 VM (`openssl speed -elapsed -seconds 1 -evp
    // aes-128-cbc`, stdout).
    const OPENSSL3: &str = "\
version: 3.0.19
built on: Fri Apr  3 12:29:32 2026 UTC
options: bn(64,64)
CPUINFO: OPENSSL_ia32cap=0xfffa3203078bffff:0x405fc6f1bf07ab
The 'numbers' are in 1000s of bytes per second processed.
type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes
AES-128-CBC    1125695.36k  1333604.03k  1386716.93k  1425739.78k  1393311.74k  1431486.46k
";

    // OpenSSL 1.1.1f on a Rock 5B (RK3588), from a published sbc-bench log
    // (corpus logs/41BH.txt), with sbc-bench's core-type tags.
    const OPENSSL11_LOG: &str = "\
OpenSSL 1.1.1f, built on 31 Mar 2020
type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes
aes-128-cbc     173982.22k   502837.89k   966930.26k  1252319.91k  1372788.05k  1382421.85k (Cortex-A55)
aes-128-cbc     683353.77k  1301361.81k  1690707.20k  1815552.34k  1865894.57k  1871495.17k (Cortex-A76)
aes-256-gcm     348182.94k   930638.02k  1386505.98k  1576663.04k  1639997.44k  1648547.16k (Cortex-A55)
";

    #[test]
    fn parses_openssl3_capitals() {
        let r = parse_speed(OPENSSL3, Algorithm::Aes128Cbc).unwrap();
        assert_eq!(r.len(), 6);
        assert_eq!(r[0].buffer_bytes, 16);
        assert!((r[0].bytes_per_s - 1_125_695_360.0).abs() < 1.0);
        assert_eq!(r[5].buffer_bytes, 16384);
        assert!((r[5].bytes_per_s - 1_431_486_460.0).abs() < 1.0);
        assert!(parse_speed(OPENSSL3, Algorithm::Aes256Cbc).is_none());
    }

    #[test]
    fn parses_openssl11_lowercase_and_ignores_tags() {
        let r = parse_speed(OPENSSL11_LOG, Algorithm::Aes128Cbc).unwrap();
        assert!((r[2].bytes_per_s - 966_930_260.0).abs() < 1.0);
        let g = parse_speed(OPENSSL11_LOG, Algorithm::Aes256Gcm).unwrap();
        assert!((g[5].bytes_per_s - 1_648_547_160.0).abs() < 1.0);
    }

    #[test]
    fn small_values_without_k_are_bytes_per_second() {
        let t = "type 16 bytes 64 bytes\naes-128-cbc 9876.50 12345.67k\n";
        let r = parse_speed(t, Algorithm::Aes128Cbc).unwrap();
        assert_eq!(r[0].bytes_per_s, 9876.5);
        assert!((r[1].bytes_per_s - 12_345_670.0).abs() < 1e-3);
    }

    #[test]
    fn garbage_and_truncated_tables_give_none() {
        assert!(parse_speed("", Algorithm::Aes128Cbc).is_none());
        assert!(parse_speed("aes-128-cbc 1.00k\n", Algorithm::Aes128Cbc).is_none());
        let t = "type 16 bytes 64 bytes\naes-128-cbc 1.00k\n";
        assert!(parse_speed(t, Algorithm::Aes128Cbc).is_none());
        let t = "type 16 bytes\naes-128-cbc nank\n";
        assert!(parse_speed(t, Algorithm::Aes128Cbc).is_none());
    }

    #[test]
    fn version_lines_as_sbc_bench_prints_them() {
        // Compare with the corpus logs: `OpenSSL 1.1.1f, built on 31 Mar 2020` and
        // `OpenSSL 3.0.11, built on 19 Sep 2023 (Library: OpenSSL 3.0.11 19 Sep 2023)`.
        assert_eq!(
            sbc_bench_version_line("OpenSSL 1.1.1f  31 Mar 2020"),
            "OpenSSL 1.1.1f, built on 31 Mar 2020"
        );
        assert_eq!(
            sbc_bench_version_line(
                "OpenSSL 3.0.11 19 Sep 2023 (Library: OpenSSL 3.0.11 19 Sep 2023)"
            ),
            "OpenSSL 3.0.11, built on 19 Sep 2023 (Library: OpenSSL 3.0.11 19 Sep 2023)"
        );
        assert_eq!(sbc_bench_version_line("LibreSSL 3.8.2"), "LibreSSL 3.8.2");
        assert_eq!(
            parse_version("OpenSSL 1.1.1f  31 Mar 2020").as_deref(),
            Some("1.1.1f")
        );
        assert_eq!(parse_version("garbage"), None);
    }
}
