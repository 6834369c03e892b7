//! The last line of the log: a row of sbc-bench's Results.md table, rendered from
//! [`ResultsRow`] (the model and its column rules live in `record::results_row`).

use crate::record::results_row::{ResultsRow, kernel_major_minor, round_tens};

impl ResultsRow {
    /// Render the row as sbc-bench prints it.
    pub fn render(&self) -> String {
        let dash = || "-".to_string();
        let clock = if self.clock.is_empty() {
            dash()
        } else {
            self.clock.clone()
        };
        let throttled = if self.throttled { " (throttled)" } else { "" };
        let quick = if self.quick { " (quick)" } else { "" };
        let int = |v: Option<u64>| v.map_or_else(dash, |v| v.to_string());
        // sbc-bench rounds 7-zip, bandwidth and AES figures to tens (`5210`, `1267790`);
        // the AES figure loses its decimals first.
        let tens = |v: Option<f64>| v.map_or_else(dash, |v| round_tens(v).to_string());
        let f2 = |v: Option<f64>| v.map_or_else(dash, |v| format!("{v:.2}"));
        let row = format!(
            "| {} | {clock}{throttled}{quick} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.device,
            kernel_major_minor(&self.kernel),
            self.distro_arch,
            tens(self.sevenzip_multi.map(|v| v as f64)),
            int(self.sevenzip_single),
            tens(self.aes256_16k.map(f64::trunc)),
            tens(self.memcpy_mb_s),
            tens(self.memset_mb_s),
            f2(self.scrypt_khs),
        );
        // sbc-bench squeezes double spaces (`sed -e 's/  / /g'`).
        row.replace("  ", " ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::results_row::{clock_column, clock_dropped, cpuminer_score, distro_arch};

    #[test]
    fn rock_4d_row_as_published() {
        // From corpus log 8g-p.txt (RK3576: 4×A72 at 2208 MHz, 4×A53 at 2016 MHz).
        let r = ResultsRow {
            device: "Radxa ROCK 4D SPI".into(),
            clock: clock_column(Some(2_208_000), Some(2_016_000), Some(2203)),
            throttled: false,
            kernel: "6.1.84-1-rk2410".into(),
            distro_arch: distro_arch("Debian GNU/Linux 12 (bookworm)", Some("aarch64"), "arm64"),
            sevenzip_multi: Some(10833),
            sevenzip_single: Some(1771),
            aes256_16k: Some(1267788.12),
            memcpy_mb_s: Some(5213.4),
            memset_mb_s: Some(15447.9),
            scrypt_khs: Some(18.27),
            quick: false,
        };
        assert_eq!(
            r.render(),
            "| Radxa ROCK 4D SPI | 2208/2016 MHz | 6.1 | Debian GNU/Linux 12 (bookworm) arm64 | 10830 | 1771 | 1267790 | 5210 | 15450 | 18.27 |"
        );
        let empty = ResultsRow::default().render();
        assert!(empty.ends_with("| - | - | - | - | - | - |"), "{empty}");
    }

    /// Clock columns as they appear in published rows (corpus logs).
    #[test]
    fn clock_column_like_sbc_bench() {
        // Measured within 2 %: cpufreq's figures, highest/lowest only (RK3588: 2400, 2400, 1800).
        assert_eq!(
            clock_column(Some(2_400_000), Some(1_800_000), Some(2390)),
            "2400/1800 MHz"
        );
        assert_eq!(
            clock_column(Some(1_992_000), Some(1_992_000), Some(1990)),
            "1992 MHz"
        );
        // More than 2 % off: the measured clock, no unit ("Radxa ROCK 5A | ~2290 |").
        assert_eq!(
            clock_column(Some(2_400_000), Some(1_800_000), Some(2286)),
            "~2290"
        );
        // Raspberry Pi 5 at arm_freq=3000 reporting 2400 ("| ~3000 |").
        assert_eq!(clock_column(Some(2_400_000), None, Some(2997)), "~3000");
        // No cpufreq: measured, rounded up to tens ("Milk-V DuoS | ~1050 MHz").
        assert_eq!(clock_column(None, None, Some(1043)), "~1050 MHz");
        assert_eq!(clock_column(None, None, Some(3636)), "~3640 MHz");
        assert_eq!(clock_column(None, None, None), "no cpufreq support");
        // No measurement but cpufreq: cpufreq's figures.
        assert_eq!(clock_column(Some(1_500_000), None, None), "1500 MHz");
        let row = ResultsRow {
            device: "Flipper One rev. F0B0C1".into(),
            clock: "~2310".into(),
            throttled: true,
            ..Default::default()
        };
        assert!(
            row.render()
                .starts_with("| Flipper One rev. F0B0C1 | ~2310 (throttled) | "),
            "{}",
            row.render()
        );
    }

    #[test]
    fn quick_row_is_marked_after_the_clock_and_throttling() {
        let row = ResultsRow {
            device: "Radxa ROCK 5B".into(),
            clock: "2400/1800 MHz".into(),
            quick: true,
            ..Default::default()
        };
        assert!(
            row.render()
                .starts_with("| Radxa ROCK 5B | 2400/1800 MHz (quick) | "),
            "{}",
            row.render()
        );
        let both = ResultsRow {
            throttled: true,
            ..row
        };
        assert!(
            both.render()
                .contains(" | 2400/1800 MHz (throttled) (quick) | "),
            "{}",
            both.render()
        );
        // Still ten columns: tools that split the row keep working.
        assert_eq!(both.render().matches('|').count(), 11);
    }

    #[test]
    fn throttling_and_rounding_rules() {
        assert!(!clock_dropped(2400, 2340)); // 102
        assert!(!clock_dropped(2400, 2320)); // 103
        assert!(clock_dropped(2400, 2300)); // 104
        assert!(!clock_dropped(2400, 0));
        assert_eq!(round_tens(31192.0), 31190);
        assert_eq!(round_tens(4378.0), 4380);
        assert_eq!(round_tens(1235.0), 1240); // 123.5 → 124
        assert_eq!(round_tens(1245.0), 1240); // 124.5 → 124 (ties to even, as awk)
        assert_eq!(
            kernel_major_minor("6.14-rc6-0-qcom-x1e"),
            "6.14-rc6-0-qcom-x1e"
        );
        assert_eq!(kernel_major_minor("5.10.66-rockchip-5.10"), "5.10");
        assert_eq!(
            distro_arch("Ubuntu 22.04.3 LTS", Some("x86_64"), "amd64"),
            "Ubuntu 22.04.3 LTS x86_64/amd64"
        );
        assert_eq!(
            distro_arch("Bullseye", Some("aarch64"), "armhf"),
            "Bullseye arm64/armhf"
        );
        assert_eq!(
            distro_arch("Bookworm", Some("riscv64"), "riscv64"),
            "Bookworm riscv64"
        );
    }

    #[test]
    fn cpuminer_takes_the_second_highest_after_dropping_the_first() {
        // Fewer than ten: drop the first, sort, dedup, second highest.
        assert_eq!(
            cpuminer_score(&[10.0, 25.31, 25.32, 25.32, 25.12]),
            Some(25.31)
        );
        // Ten or more: drop the first two.
        let mut v = vec![1.0, 2.0];
        v.extend([18.20, 18.27, 18.30, 18.27, 18.25, 18.26, 18.24, 18.21]);
        assert_eq!(cpuminer_score(&v), Some(18.27));
        // One distinct value left: sbc-bench prints `-`.
        assert_eq!(cpuminer_score(&[5.0, 7.5, 7.5]), None);
        assert_eq!(cpuminer_score(&[]), None);
    }
}
