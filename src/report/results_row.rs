//! The last line of the log: a row of sbc-bench's Results.md table,
//! `| <device> | <MHz> | <kernel x.y> | <distro> <arch> | <7-zip multi> | <7-zip single> | <AES-256 16K> | <memcpy> | <memset> | <kH/s or -> |`.

use serde::{Deserialize, Serialize};

/// The values of one Results.md row. Missing values print as `-`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultsRow {
    /// Device name (`Radxa ROCK 5A`).
    pub device: String,
    /// Maximum clock of each cluster, MHz (`2400/2400/1800` → printed highest first).
    pub max_mhz: Vec<u64>,
    /// Kernel release (`5.10.66-rockchip-5.10`); the row shows `5.10`.
    pub kernel: String,
    /// Distro and userland (`Debian GNU/Linux 11 (bullseye) arm64`).
    pub distro_arch: String,
    /// 7-Zip multi-threaded average of the three runs.
    pub sevenzip_multi: Option<u64>,
    /// 7-Zip single-threaded (best cluster).
    pub sevenzip_single: Option<u64>,
    /// AES-256-CBC at 16 KiB, in openssl's 1000s of bytes/s (best cluster).
    pub aes256_16k: Option<f64>,
    /// libc memcpy MB/s (best cluster).
    pub memcpy_mb_s: Option<f64>,
    /// libc memset MB/s (best cluster).
    pub memset_mb_s: Option<f64>,
    /// scrypt (cpuminer) kH/s, when the stress test ran.
    pub scrypt_khs: Option<f64>,
}

/// `5.10.66-rockchip-5.10` → `5.10`.
pub fn kernel_major_minor(release: &str) -> String {
    let mut it = release.split(|c: char| !c.is_ascii_digit());
    match (it.next(), it.next()) {
        (Some(a), Some(b)) if !a.is_empty() && !b.is_empty() => format!("{a}.{b}"),
        _ => release.to_string(),
    }
}

impl ResultsRow {
    /// Render the row as sbc-bench prints it.
    pub fn render(&self) -> String {
        let dash = || "-".to_string();
        let mut mhz = self.max_mhz.clone();
        mhz.sort_unstable_by(|a, b| b.cmp(a));
        mhz.dedup();
        let mhz = if mhz.is_empty() {
            dash()
        } else {
            mhz.iter().map(u64::to_string).collect::<Vec<_>>().join("/")
        };
        let int = |v: Option<u64>| v.map_or_else(dash, |v| v.to_string());
        // sbc-bench rounds bandwidth and AES figures to tens (`5210`, `1267790`).
        let f0 =
            |v: Option<f64>| v.map_or_else(dash, |v| format!("{:.0}", (v / 10.0).round() * 10.0));
        let f2 = |v: Option<f64>| v.map_or_else(dash, |v| format!("{v:.2}"));
        format!(
            "| {} | {} MHz | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.device,
            mhz,
            kernel_major_minor(&self.kernel),
            self.distro_arch,
            int(self.sevenzip_multi),
            int(self.sevenzip_single),
            f0(self.aes256_16k),
            f0(self.memcpy_mb_s),
            f0(self.memset_mb_s),
            f2(self.scrypt_khs),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rock_4d_row_as_published() {
        // From corpus log 8g-p.txt (RK3576: 4×A72 at 2208 MHz, 4×A53 at 2016 MHz).
        let r = ResultsRow {
            device: "Radxa ROCK 4D SPI".into(),
            max_mhz: vec![2016, 2208],
            kernel: "6.1.84-1-rk2410".into(),
            distro_arch: "Debian GNU/Linux 12 (bookworm) arm64".into(),
            sevenzip_multi: Some(10830),
            sevenzip_single: Some(1771),
            aes256_16k: Some(1267788.12),
            memcpy_mb_s: Some(5213.4),
            memset_mb_s: Some(15447.9),
            scrypt_khs: Some(18.27),
        };
        assert_eq!(
            r.render(),
            "| Radxa ROCK 4D SPI | 2208/2016 MHz | 6.1 | Debian GNU/Linux 12 (bookworm) arm64 | 10830 | 1771 | 1267790 | 5210 | 15450 | 18.27 |"
        );
        let empty = ResultsRow::default().render();
        assert!(empty.ends_with("| - | - | - | - | - | - |"), "{empty}");
    }
}
