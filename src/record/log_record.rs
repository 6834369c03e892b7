//! The typed record of a result log: what a log of the bash sbc-bench (v0.4 … v0.9.72)
//! or one of ours holds, section by section, as plain data (docs/RESULTS-DB.md, "The
//! record").
//!
//! Why not [`crate::record::run::RunReport`] itself: the run report holds what a run of
//! ours measured in its own units and with its internals (every clock sample, the
//! benchmarks' buffer plans, iteration counts, the monitor's raw intervals, the run's
//! settings and plan), none of which a log holds; a log reader would have to invent them.
//! This record is the level where both meet: the tables a log prints, typed — the same
//! parts a run's log is rendered from (the Results.md row is the same
//! [`ResultsRow`]). A run JSON of ours becomes this record too
//! (`results::document::record_of_run`), so a run imported as its log and as its JSON is
//! one record.
//!
//! A section the log lacks is absent here (`None`, an empty list), never guessed; what a
//! section held that could not be read is named in [`LogRecord::unread`].

use serde::{Deserialize, Serialize};

use crate::record::results_row::ResultsRow;

/// The sbc-bench version whose rules the newest logs follow (and ours: our log's layout
/// follows the newest bash sbc-bench).
pub const NEWEST_RULES: &str = "0.9.72";

/// Which program wrote a log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogWriter {
    /// The bash sbc-bench (ThomasKaiser/sbc-bench).
    BashSbcBench,
    /// This program (its header's version carries the `-rs` marker; older ones of ours
    /// wrote `v0.1.x`–`v0.3.x` without it, below any bash version).
    Ours,
    /// No header line says (the v0.4 uploads that begin with lsb_release's output).
    #[default]
    Unknown,
}

/// The header line: `sbc-bench v0.9.72 Radxa ROCK 5B extensive (Mon, 10 Nov 2025 23:46:00 +0800)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogHeader {
    /// The version as printed, without `v` and without our `-rs` marker (`0.9.72`).
    pub version: Option<String>,
    /// The device after the version (`Radxa ROCK 5B`); v0.4's header names none.
    pub device: Option<String>,
    /// The mode words after the device (`extensive`, `unattended quick`).
    pub mode: Option<String>,
    /// The date as printed (`Mon, 10 Nov 2025 23:46:00 +0800`).
    pub date: Option<String>,
    /// The same instant in UTC, RFC 3339 (`2025-11-10T15:46:00Z`); `None` where the date
    /// is missing or in no format we know.
    pub date_utc: Option<String>,
}

/// What the log says about the machine and its software.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogHost {
    /// lsb_release's `Description:` (`Ubuntu 20.04.6 LTS`).
    pub distro: Option<String>,
    /// lsb_release's `Codename:` (`focal`).
    pub codename: Option<String>,
    /// The compiler line (`/usr/bin/gcc (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0`).
    pub compiler: Option<String>,
    /// `Uptime:` as printed.
    pub uptime: Option<String>,
    /// The kernel release (iostat's `Linux 5.10.0-odroid-arm64 (…)` or `Kernel: R/arch`).
    pub kernel_release: Option<String>,
    /// The kernel's machine (`aarch64`: iostat's `_aarch64_` or `Kernel: R/aarch64`).
    pub machine: Option<String>,
    /// The userland's architecture (`Userland: arm64`, or v0.4's `Architecture:`).
    pub userland: Option<String>,
    /// Online CPUs (iostat's `(8 CPU)`).
    pub cpus: Option<u32>,
    /// `Mem:` total of `free` as printed (`15Gi`, `976M`).
    pub mem_total: Option<String>,
    /// `SoC guess:` (v0.9.1 on).
    pub soc_guess: Option<String>,
    /// `DT compat:` lines.
    pub dt_compat: Vec<String>,
    /// Firmware: `Boot env:` (Rockchip), the Raspberry Pi's ThreadX version, the BIOS
    /// version (DMI) — whichever the log names, as printed.
    pub firmware: Option<String>,
    /// The kernel configuration lines under `Kernel:` (`CONFIG_HZ=300` …).
    pub kernel_config: Vec<String>,
    /// `DMC gov:` (the DRAM controller's governor and clock).
    pub dmc_governor: Option<String>,
}

/// One row of the `CPU sysfs topology` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogCpu {
    /// CPU number.
    pub cpu: u32,
    /// Cluster id (`-1` on some RISC-V boards).
    pub cluster: Option<i32>,
    /// cpufreq policy (`-`: none).
    pub policy: Option<u32>,
    /// Lowest clock, MHz.
    pub min_mhz: Option<u32>,
    /// Highest clock, MHz.
    pub max_mhz: Option<u32>,
    /// Core type as printed (`Cortex-A55 / r2p0`).
    pub core_type: Option<String>,
}

/// Whether a clock table was measured before the benchmarks or under load at the end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogClockPhase {
    /// `Checking cpufreq OPP …` at the start.
    #[default]
    Cold,
    /// After `Testing maximum cpufreq again` / `Testing clockspeeds again`.
    Hot,
}

/// One `Checking cpufreq OPP …` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogOppTable {
    /// Cold or hot.
    pub phase: LogClockPhase,
    /// The CPUs the heading names (`cpu0-cpu3`), if it names any.
    pub cpus: Option<String>,
    /// The core type the heading names (`Cortex-A55`).
    pub core_type: Option<String>,
    /// One row per OPP, in the log's order.
    pub rows: Vec<LogOpp>,
}

/// One OPP: advertised and measured clock.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogOpp {
    /// cpufreq's OPP, MHz (`None`: `No cpufreq support`).
    pub opp_mhz: Option<u32>,
    /// What the Raspberry Pi firmware said, MHz.
    pub threadx_mhz: Option<u32>,
    /// Measured, MHz (sbc-bench's rounded figure, or the first sample in old logs).
    pub measured_mhz: Option<f64>,
    /// The individual measurements (`1814.832/1814.832/1814.742`).
    pub samples_mhz: Vec<f64>,
    /// The core voltage printed beside it (Raspberry Pi: `@ 0.8600V`), volts.
    pub vcore_v: Option<f64>,
}

/// One tinymembench run (one core, or the only one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogTinymembench {
    /// The CPU it ran on, where the heading names it.
    pub cpu: Option<u32>,
    /// Its core type, where the heading names it.
    pub core_type: Option<String>,
    /// Bandwidth rows, in the log's order (standard, SIMD, framebuffer).
    pub bandwidth: Vec<LogBandwidth>,
    /// Random-read latency tables (one, or one per page size).
    pub latency: Vec<LogLatencyTable>,
}

/// One bandwidth row: ` libc memcpy copy   :  17507.8 MB/s (3, 1.8%)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogBandwidth {
    /// The test (`libc memcpy copy`, `NEON LDP/STP copy (from framebuffer)`).
    pub name: String,
    /// MB/s (1 MB = 1000000 bytes).
    pub mb_per_s: f64,
    /// Repeats run, where printed.
    pub repeats: Option<u32>,
    /// Standard deviation, percent, where printed.
    pub stddev_pct: Option<f64>,
}

/// tinymembench's `block size : single random read / dual random read` table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogLatencyTable {
    /// What follows the heading (`[MADV_HUGEPAGE]`, `[MADV_NOHUGEPAGE]`).
    pub note: Option<String>,
    /// Rows by block size.
    pub rows: Vec<LogLatency>,
}

/// One row of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogLatency {
    /// Block size, bytes.
    pub block_bytes: u64,
    /// Single random read, ns.
    pub single_ns: f64,
    /// Dual random read, ns (`None` where the log cut it).
    pub dual_ns: Option<f64>,
}

/// One ramlat table: `Executing ramlat on cpu0 (Cortex-A55), results in ns:`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogRamlat {
    /// The CPU.
    pub cpu: Option<u32>,
    /// Its core type.
    pub core_type: Option<String>,
    /// The columns (`1x32`, `2x32`, `1x64`, `2x64`, `1xPTR`, `2xPTR`, `4xPTR`, `8xPTR`).
    pub columns: Vec<String>,
    /// Rows by size.
    pub rows: Vec<LogRamlatRow>,
}

/// One ramlat row.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogRamlatRow {
    /// Buffer size, bytes.
    pub size_bytes: u64,
    /// Latency per column, ns.
    pub ns: Vec<f64>,
}

/// How the log ran `openssl speed`: sbc-bench's rule for the Results.md column depends on
/// it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogAesLayout {
    /// `Executing benchmark twice on cluster 0`: the column is the mean of the two.
    Twice,
    /// `Executing benchmark on each cluster individually`: the best cluster (v0.9.4 on).
    EachCluster,
    /// No heading (before v0.6): the runs are summed and halved.
    #[default]
    Unstated,
}

/// The AES section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogAes {
    /// How `openssl speed` ran.
    pub layout: LogAesLayout,
    /// OpenSSL's version line (`OpenSSL 1.1.1f, built on 31 Mar 2020`).
    pub openssl_version: Option<String>,
    /// `openssl speed`'s rows, in the log's order.
    pub openssl: Vec<LogAesRow>,
    /// Our native AES rows (our logs only).
    pub native: Vec<LogAesRow>,
}

/// One row: `aes-256-cbc  586960.55k … (Cortex-A76)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogAesRow {
    /// `aes-256-cbc`.
    pub algorithm: String,
    /// What follows the figures (`Cortex-A76`, `fully parallel`), if anything.
    pub tag: Option<String>,
    /// (buffer bytes, 1000s of bytes per second), as openssl prints them.
    pub kb_per_s: Vec<(u64, f64)>,
}

/// One run of 7-Zip's benchmark.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogZipRun {
    /// The CPU a single-threaded run was pinned to.
    pub cpu: Option<u32>,
    /// Its core type.
    pub core_type: Option<String>,
    /// The CPUs a multi-threaded run used (`0-7`), where the heading names them.
    pub cpus: Option<String>,
    /// `Avr:` compression rating, MIPS.
    pub compress_mips: Option<u64>,
    /// `Avr:` decompression rating, MIPS.
    pub decompress_mips: Option<u64>,
    /// `Tot:` rating, MIPS.
    pub total_mips: u64,
    /// `Tot:` CPU usage, percent (100: one core busy).
    pub usage_pct: Option<u64>,
}

/// The 7-Zip section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogSevenZip {
    /// The version line (`7-Zip (a) [64] 16.02 : …`).
    pub version: Option<String>,
    /// Single-threaded runs, per core.
    pub single: Vec<LogZipRun>,
    /// The multi-threaded runs on all cores.
    pub multi: Vec<LogZipRun>,
    /// Multi-threaded runs confined to one cluster (`--extensive`).
    pub cluster: Vec<LogZipRun>,
    /// The `Total:` line's ratings (the runs the row averages).
    pub totals: Vec<u64>,
    /// How many multi-threaded runs the heading announced (`Executing benchmark 3 times`).
    pub announced: Option<u32>,
}

/// cpuminer's scrypt run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogCpuminer {
    /// `cpuminer-multi 1.3.7`.
    pub version: Option<String>,
    /// Every `Total: N kH/s` line, in order.
    pub totals_khs: Vec<f64>,
    /// The `Total Scores:` line (highest first), where printed.
    pub total_scores: Vec<f64>,
}

/// Stockfish's bench.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogStockfish {
    /// Every `Nodes/second` figure, in order.
    pub nodes_per_s: Vec<u64>,
}

/// One "System health while running …" table (or the single row of "System health now").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogHealthTable {
    /// What ran (`tinymembench`, `7-zip multi core benchmark`; `clock check under load`
    /// for the row printed before the hot clock check).
    pub phase: String,
    /// The header's columns after `Time` (`cpu0/cpu4/cpu6`, `load`, `%cpu` … `Temp`,
    /// `DC(V)`).
    pub columns: Vec<String>,
    /// The names of the clock column's values (`cpu0`, `cpu4`, `cpu6`; `big`, `LITTLE`;
    /// `cpufreq`, `ThreadX`).
    pub clock_names: Vec<String>,
    /// The rows.
    pub rows: Vec<LogHealthRow>,
}

/// One row of a health table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogHealthRow {
    /// The time as printed (`16:24:05`).
    pub time: String,
    /// The same as a UTC instant, RFC 3339, where the header's date gives the day and the
    /// offset (a row before the header's time of day is on the next day).
    pub utc: Option<String>,
    /// Clock per name of [`LogHealthTable::clock_names`], MHz.
    pub clocks_mhz: Vec<Option<u32>>,
    /// One-minute load average.
    pub load: Option<f64>,
    /// %cpu (all CPUs).
    pub cpu_pct: Option<f64>,
    /// %sys.
    pub sys_pct: Option<f64>,
    /// %usr.
    pub usr_pct: Option<f64>,
    /// %nice.
    pub nice_pct: Option<f64>,
    /// %io.
    pub io_pct: Option<f64>,
    /// %irq.
    pub irq_pct: Option<f64>,
    /// Temperature, °C.
    pub temp_c: Option<f64>,
    /// Core voltage, V.
    pub vcore_v: Option<f64>,
    /// The Raspberry Pi 5 PMIC's power, W.
    pub pmic_w: Option<f64>,
    /// DC-in, V.
    pub dc_in_v: Option<f64>,
    /// A power meter's reading, mW.
    pub power_mw: Option<f64>,
}

/// Time spent on each OPP (`Throttling statistics (time spent on each cpufreq OPP)`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogThrottling {
    /// The CPUs the heading names (`4-7`).
    pub cpus: Option<String>,
    /// Their core type.
    pub core_type: Option<String>,
    /// (OPP MHz, seconds), in the log's order.
    pub seconds_at_mhz: Vec<(u32, f64)>,
}

/// Swap and zram/zswap.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogSwap {
    /// `free`'s `Swap:` total as printed (`488M`, `0B`).
    pub total: Option<String>,
    /// `free`'s `Swap:` used as printed.
    pub used: Option<String>,
    /// The swap devices (`/proc/swaps` rows, or our `Swap configuration:` lines).
    pub devices: Vec<String>,
    /// `Zswap …` as printed.
    pub zswap: Option<String>,
}

/// One DMI block (`BIOS/UEFI:`, `Device Info:`, `Processor Information` …).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogDmiBlock {
    /// The block's heading without the colon.
    pub name: String,
    /// Its `Key: Value` lines.
    pub fields: Vec<(String, String)>,
}

/// One cache line: `cpu0/index2: 128K, level: 2, type: Unified`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LogCache {
    /// CPU.
    pub cpu: u32,
    /// Cache index.
    pub index: u32,
    /// Size, bytes.
    pub size_bytes: Option<u64>,
    /// Level.
    pub level: Option<u32>,
    /// `Data`, `Instruction`, `Unified`.
    pub kind: Option<String>,
}

/// Everything one run of a log holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LogRecord {
    /// Who wrote the log.
    pub writer: LogWriter,
    /// The sbc-bench version whose rules read the figures (`0.9.8`): each version's
    /// column rules are applied to its logs; ours and unknown versions by the newest
    /// ([`NEWEST_RULES`]).
    pub rules: String,
    /// The header line.
    pub header: LogHeader,
    /// Distro, kernel, firmware, SoC.
    pub host: LogHost,
    /// The `CPU sysfs topology` table.
    pub topology: Vec<LogCpu>,
    /// The `Checking cpufreq OPP` tables, cold then hot.
    pub clocks: Vec<LogOppTable>,
    /// tinymembench, per core.
    pub tinymembench: Vec<LogTinymembench>,
    /// ramlat, per core.
    pub ramlat: Vec<LogRamlat>,
    /// OpenSSL (and our native) AES.
    pub aes: Option<LogAes>,
    /// 7-Zip.
    pub sevenzip: Option<LogSevenZip>,
    /// cpuminer.
    pub cpuminer: Option<LogCpuminer>,
    /// Stockfish.
    pub stockfish: Option<LogStockfish>,
    /// The "System health while running …" tables: the monitor recording at the log's
    /// resolution.
    pub health: Vec<LogHealthTable>,
    /// Time spent on each OPP.
    pub throttling: Vec<LogThrottling>,
    /// Swap, zram, zswap.
    pub swap: Option<LogSwap>,
    /// The `Results validation:` lines.
    pub validation: Vec<String>,
    /// `ok`, `warnings` or `invalid`: for a bash sbc-bench log, whether its validation
    /// lines are all of the good kind; for a run of ours, its findings' worst severity.
    pub verdict: Option<String>,
    /// The governor and policy lines (`Status of performance related governors …`).
    pub governors: Vec<String>,
    /// DMI blocks.
    pub dmi: Vec<LogDmiBlock>,
    /// lscpu's `Key: value` lines.
    pub lscpu: Vec<(String, String)>,
    /// Caches.
    pub caches: Vec<LogCache>,
    /// The `DIMM configuration:` / `RAM configuration:` lines.
    pub ram: Vec<String>,
    /// The Results.md figures recomputed from the benchmark output by the rules of
    /// [`LogRecord::rules`]; `clock` and `distro_arch` come from the log's own row.
    pub results_row: ResultsRow,
    /// AES-128-CBC at 16 bytes: what the sixth column held before 2022-10-23.
    pub aes128_16b: Option<f64>,
    /// Does this log's row put AES-128 at 16 bytes where later rows put 7-Zip single?
    pub row_has_aes128: bool,
    /// The Results.md row as the log prints it, split into cells.
    pub stated_row: Option<Vec<String>>,
    /// What a section held that could not be read, and the figures the log lacks.
    pub unread: Vec<String>,
}

impl LogRecord {
    /// The core types the log names, in order, once each (without the revision:
    /// `Cortex-A55`): from the OPP tables' and benchmarks' headings, else the topology
    /// table, else lscpu.
    pub fn core_types(&self) -> Vec<String> {
        fn add(out: &mut Vec<String>, t: &str) {
            let t = t.split(" / ").next().unwrap_or(t).trim();
            if !t.is_empty() && t != "-" && !out.iter().any(|x| x == t) {
                out.push(t.to_string());
            }
        }
        let mut out: Vec<String> = Vec::new();
        let named = self
            .clocks
            .iter()
            .filter_map(|c| c.core_type.as_deref())
            .chain(
                self.tinymembench
                    .iter()
                    .filter_map(|t| t.core_type.as_deref()),
            );
        for t in named {
            add(&mut out, t);
        }
        if out.is_empty() {
            for t in self.topology.iter().filter_map(|c| c.core_type.as_deref()) {
                add(&mut out, t);
            }
        }
        if out.is_empty() {
            for (_, v) in self.lscpu.iter().filter(|(k, _)| k == "Model name") {
                add(&mut out, v);
            }
        }
        out
    }

    /// The measured clock at each cold table's highest OPP, MHz, in the log's order.
    pub fn measured_clocks_mhz(&self) -> Vec<u32> {
        self.clocks
            .iter()
            .filter(|t| t.phase == LogClockPhase::Cold)
            .filter_map(|t| {
                t.rows
                    .iter()
                    .filter(|r| r.measured_mhz.is_some())
                    .max_by_key(|r| r.opp_mhz.unwrap_or(0))
                    .and_then(|r| r.measured_mhz)
            })
            .filter(|m| m.is_finite() && *m > 0.0)
            .map(|m| m.round() as u32)
            .collect()
    }

    /// ramlat's first column at `size_bytes`, ns: the lowest of the cores measured.
    pub fn ramlat_at(&self, size_bytes: u64) -> Option<f64> {
        self.ramlat
            .iter()
            .flat_map(|t| &t.rows)
            .filter(|r| r.size_bytes == size_bytes)
            .filter_map(|r| r.ns.first().copied())
            .filter(|n| n.is_finite() && *n > 0.0)
            .reduce(f64::min)
    }
}
