//! The Prometheus text exposition format (version 0.0.4) of what the monitor sees and
//! node_exporter does not export (docs/PROMETHEUS.md lists every metric): the clock each
//! cpufreq policy reports against its highest OPP, time spent below the allowed maximum
//! (`stats/time_in_state`), devfreq devices, the Raspberry Pi firmware's throttling bits
//! and PMIC rails, the busiest core and its IRQ share, a power meter's watts, and the
//! scores of a finished run (a run JSON). Pure: readings in, text out.
//!
//! [`Exposition`] holds metric families and renders them: one `# HELP` and one `# TYPE`
//! line per family, label values escaped, no series twice (a second sample with the same
//! labels replaces the first).

use crate::bench::pin::Target;
use crate::monitor::Interval;
use crate::record::finding::{Finding, Severity};
use crate::record::results_row::ResultsRow;
use crate::record::run::{Results, RunReport};
use crate::sys::devfreq::Devfreq;
use crate::sys::meter::pmic::Rail;

/// The `Content-Type` of [`Exposition::render`]'s text.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Every metric name starts with this.
pub const PREFIX: &str = "sbc_bench_";

/// A metric family's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// A value that goes up and down.
    Gauge,
    /// A value that only grows (name ends in `_total`).
    Counter,
}

impl MetricKind {
    fn word(self) -> &'static str {
        match self {
            MetricKind::Gauge => "gauge",
            MetricKind::Counter => "counter",
        }
    }
}

/// One series: its labels (in order) and value.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSeries {
    /// `(name, value)` pairs.
    pub labels: Vec<(String, String)>,
    /// The value.
    pub value: f64,
}

/// One metric family.
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// Full name (`sbc_bench_…`).
    pub name: String,
    /// The `# HELP` text.
    pub help: String,
    /// Gauge or counter.
    pub kind: MetricKind,
    /// Its series, in the order first added.
    pub series: Vec<MetricSeries>,
}

/// Metric families in the order first added.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exposition {
    /// The families.
    pub families: Vec<Family>,
}

/// Is `s` a valid metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`)?
pub fn valid_metric_name(s: &str) -> bool {
    let mut it = s.chars();
    matches!(it.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == ':')
        && it.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// Is `s` a valid label name (`[a-zA-Z_][a-zA-Z0-9_]*`, not starting with `__`)?
pub fn valid_label_name(s: &str) -> bool {
    let mut it = s.chars();
    !s.starts_with("__")
        && matches!(it.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && it.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A label value as the format wants it: `\` → `\\`, `"` → `\"`, newline → `\n`.
pub fn escape_label_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// HELP text: `\` → `\\`, newline → `\n`.
pub fn escape_help(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A sample value: Go's float format for the specials, else Rust's shortest round-trip.
pub fn format_value(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v == f64::INFINITY {
        "+Inf".into()
    } else if v == f64::NEG_INFINITY {
        "-Inf".into()
    } else {
        format!("{v}")
    }
}

impl Exposition {
    /// Add a gauge sample.
    pub fn gauge(&mut self, name: &str, help: &str, labels: &[(&str, &str)], value: f64) {
        self.add(name, help, MetricKind::Gauge, labels, value);
    }

    /// Add a counter sample (`name` ends in `_total`).
    pub fn counter(&mut self, name: &str, help: &str, labels: &[(&str, &str)], value: f64) {
        debug_assert!(name.ends_with("_total"), "{name}");
        self.add(name, help, MetricKind::Counter, labels, value);
    }

    /// Add a sample. Invalid names are dropped (a bug of the caller, never of the board's
    /// data: label values may hold anything); a sample whose labels are already there
    /// replaces that one. A family's HELP and type are those of its first sample.
    pub fn add(
        &mut self,
        name: &str,
        help: &str,
        kind: MetricKind,
        labels: &[(&str, &str)],
        value: f64,
    ) {
        let names_ok = valid_metric_name(name) && labels.iter().all(|(k, _)| valid_label_name(k));
        debug_assert!(names_ok, "invalid name in {name} {labels:?}");
        if !names_ok {
            return;
        }
        let labels: Vec<(String, String)> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let i = match self.families.iter().position(|f| f.name == name) {
            Some(i) => i,
            None => {
                self.families.push(Family {
                    name: name.to_string(),
                    help: help.to_string(),
                    kind,
                    series: Vec::new(),
                });
                self.families.len() - 1
            }
        };
        let fam = &mut self.families[i];
        match fam
            .series
            .iter_mut()
            .find(|s| same_labels(&s.labels, &labels))
        {
            Some(s) => s.value = value,
            None => fam.series.push(MetricSeries { labels, value }),
        }
    }

    /// The family named `name`.
    pub fn family(&self, name: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.name == name)
    }

    /// The value of the series of `name` whose labels include all of `labels`.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.family(name)?
            .series
            .iter()
            .find(|s| {
                labels
                    .iter()
                    .all(|(k, v)| s.labels.iter().any(|(a, b)| a == k && b == v))
            })
            .map(|s| s.value)
    }

    /// The text: per family `# HELP`, `# TYPE`, then one line per series. Families
    /// without series are left out.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for f in self.families.iter().filter(|f| !f.series.is_empty()) {
            out.push_str(&format!("# HELP {} {}\n", f.name, escape_help(&f.help)));
            out.push_str(&format!("# TYPE {} {}\n", f.name, f.kind.word()));
            for s in &f.series {
                out.push_str(&f.name);
                if !s.labels.is_empty() {
                    let inner: Vec<String> = s
                        .labels
                        .iter()
                        .map(|(k, v)| format!("{k}=\"{}\"", escape_label_value(v)))
                        .collect();
                    out.push('{');
                    out.push_str(&inner.join(","));
                    out.push('}');
                }
                out.push(' ');
                out.push_str(&format_value(s.value));
                out.push('\n');
            }
        }
        out
    }
}

/// Same label set, whatever the order.
fn same_labels(a: &[(String, String)], b: &[(String, String)]) -> bool {
    a.len() == b.len() && a.iter().all(|l| b.contains(l))
}

/// One cpufreq policy as the exporter sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PolicyReading {
    /// N of `policyN`.
    pub policy: u32,
    /// The CPUs the policy clocks (`related_cpus`): `sbc_bench_cpu_info`'s `cpu` labels.
    pub cpus: Vec<u32>,
    /// Cluster index (as in `info` and the run JSON).
    pub cluster: Option<u32>,
    /// The cluster's core type (`Cortex-A76`).
    pub core_type: Option<String>,
    /// The clock the kernel reports now, kHz (`scaling_cur_freq`, else `cpuinfo_cur_freq`).
    pub reported_khz: Option<u64>,
    /// `cpuinfo_max_freq`, kHz.
    pub cpuinfo_max_khz: Option<u64>,
    /// `scaling_max_freq`, kHz.
    pub scaling_max_khz: Option<u64>,
    /// The highest OPP (`scaling_available_frequencies`, else `time_in_state`'s), kHz.
    pub opp_max_khz: Option<u64>,
    /// `stats/time_in_state` (kHz, 10 ms ticks since boot), when the kernel has it.
    pub time_in_state: Option<Vec<(u64, u64)>>,
}

impl PolicyReading {
    /// The clock the policy may run at: `scaling_max_freq`, else the hardware maximum,
    /// else the highest OPP.
    pub fn allowed_max_khz(&self) -> Option<u64> {
        self.scaling_max_khz
            .or(self.cpuinfo_max_khz)
            .or(self.opp_max_khz)
    }

    /// Seconds since boot spent at OPPs below [`Self::allowed_max_khz`].
    pub fn below_max_s(&self) -> Option<f64> {
        let tis = self.time_in_state.as_ref()?;
        let max = self.allowed_max_khz()?;
        Some(
            tis.iter()
                .filter(|(khz, _)| *khz < max)
                .map(|(_, t)| *t as f64 / 100.0)
                .sum(),
        )
    }
}

/// The power meter's latest figure.
#[derive(Debug, Clone, PartialEq)]
pub struct PowerNow {
    /// What the meter is (`Netio 192.168.1.5 socket 1`).
    pub meter: String,
    /// Watts, the monitor column's rolling mean.
    pub watts: f64,
}

/// What one refresh of the metrics shows.
#[derive(Debug, Clone, Default)]
pub struct Readings<'a> {
    /// sbc-bench's version.
    pub version: &'a str,
    /// The monitor's sampling interval, seconds.
    pub interval_s: f64,
    /// The latest interval, once there is one.
    pub interval: Option<&'a Interval>,
    /// Every cpufreq policy.
    pub policies: Vec<PolicyReading>,
    /// Every devfreq device.
    pub devfreq: Vec<Devfreq>,
    /// The Raspberry Pi firmware's throttling bits.
    pub pi_throttled: Option<u32>,
    /// The Raspberry Pi 5 PMIC's rails.
    pub pmic: Vec<Rail>,
    /// The power meter's reading.
    pub power: Option<PowerNow>,
    /// A finished run's scores.
    pub scores: Option<&'a RunScores>,
}

/// What kind of device a devfreq node is, from its name: `memory` (dmc, ddr), `gpu`
/// (gpu, mali, …), `npu` (npu, rknpu), else `other`.
pub fn devfreq_kind(d: &Devfreq) -> &'static str {
    let n = d.name.to_ascii_lowercase();
    if d.is_memory() {
        "memory"
    } else if ["gpu", "mali", "panfrost", "adreno", "pvr", "img-"]
        .iter()
        .any(|k| n.contains(k))
    {
        "gpu"
    } else if n.contains("npu") {
        "npu"
    } else {
        "other"
    }
}

/// The Raspberry Pi firmware's throttling bits, by name: (bit, condition, when).
pub const PI_THROTTLED_BITS: [(u32, &str, &str); 8] = [
    (0, "under_voltage", "now"),
    (1, "arm_frequency_capped", "now"),
    (2, "throttled", "now"),
    (3, "soft_temperature_limit", "now"),
    (16, "under_voltage", "since_boot"),
    (17, "arm_frequency_capped", "since_boot"),
    (18, "throttled", "since_boot"),
    (19, "soft_temperature_limit", "since_boot"),
];

/// The metrics of one refresh.
pub fn exposition(r: &Readings<'_>) -> Exposition {
    let mut e = Exposition::default();
    e.gauge(
        "sbc_bench_build_info",
        "sbc-bench's version (always 1).",
        &[("version", r.version)],
        1.0,
    );
    e.gauge(
        "sbc_bench_monitor_interval_seconds",
        "The monitor's sampling interval.",
        &[],
        r.interval_s,
    );
    if let Some(iv) = r.interval {
        interval_metrics(&mut e, iv);
    }
    for p in &r.policies {
        policy_metrics(&mut e, p);
    }
    for d in &r.devfreq {
        devfreq_metrics(&mut e, d);
    }
    if let Some(bits) = r.pi_throttled {
        e.gauge(
            "sbc_bench_rpi_throttled_flags",
            "The Raspberry Pi firmware's get_throttled bits as a number (0x50005 = 327685).",
            &[],
            bits as f64,
        );
        for (bit, condition, when) in PI_THROTTLED_BITS {
            e.gauge(
                "sbc_bench_rpi_throttled",
                "A Raspberry Pi firmware throttling condition: 1 when set (now, or since boot).",
                &[("condition", condition), ("when", when)],
                f64::from(u8::from(bits & (1 << bit) != 0)),
            );
        }
    }
    for rail in &r.pmic {
        if let Some(v) = rail.volts {
            e.gauge(
                "sbc_bench_pmic_rail_volts",
                "A Raspberry Pi 5 PMIC rail's voltage (vcgencmd pmic_read_adc).",
                &[("rail", &rail.name)],
                v,
            );
        }
        if let Some(a) = rail.amps {
            e.gauge(
                "sbc_bench_pmic_rail_amperes",
                "A Raspberry Pi 5 PMIC rail's current (vcgencmd pmic_read_adc).",
                &[("rail", &rail.name)],
                a,
            );
        }
    }
    if let Some(p) = &r.power {
        e.gauge(
            "sbc_bench_power_watts",
            "The power meter's reading (the monitor column's rolling mean).",
            &[("meter", &p.meter)],
            p.watts,
        );
    }
    if let Some(s) = r.scores {
        score_metrics(&mut e, s);
    }
    e
}

fn interval_metrics(e: &mut Exposition, iv: &Interval) {
    e.gauge(
        "sbc_bench_monitor_sample_timestamp_seconds",
        "When the latest monitor sample was taken (Unix time).",
        &[],
        iv.end_unix_ms as f64 / 1000.0,
    );
    if let Some(b) = &iv.busiest {
        e.gauge(
            "sbc_bench_busiest_cpu",
            "The number of the busiest CPU over the latest interval.",
            &[],
            f64::from(b.cpu),
        );
        e.gauge(
            "sbc_bench_busiest_cpu_busy_ratio",
            "The busiest CPU's share of non-idle time over the latest interval (0-1).",
            &[],
            b.cpu_pct / 100.0,
        );
        e.gauge(
            "sbc_bench_busiest_cpu_irq_ratio",
            "The busiest CPU's share of time in hard and soft IRQs over the latest interval (0-1).",
            &[],
            b.irq_pct / 100.0,
        );
    }
    if let Some(v) = iv.dc_in_v {
        e.gauge(
            "sbc_bench_dc_in_volts",
            "The board's DC-in voltage, where the monitor finds a sensor for it.",
            &[],
            v,
        );
    }
}

fn policy_metrics(e: &mut Exposition, p: &PolicyReading) {
    let policy = p.policy.to_string();
    let cluster = p.cluster.map(|c| c.to_string()).unwrap_or_default();
    let core_type = p.core_type.clone().unwrap_or_default();
    let labels = [
        ("policy", policy.as_str()),
        ("cluster", cluster.as_str()),
        ("core_type", core_type.as_str()),
    ];
    // The kernel's clocks (scaling_cur_freq, cpuinfo_max_freq, scaling_max_freq) are
    // node_exporter's cpufreq series (`node_cpu_scaling_frequency_hertz` …, label `cpu`):
    // not repeated here (issue 29, item 6). This info metric joins them to the cluster
    // and core type: `node_cpu_scaling_frequency_hertz * on(cpu) group_left(cluster,
    // core_type) sbc_bench_cpu_info`.
    for cpu in &p.cpus {
        let cpu = cpu.to_string();
        e.gauge(
            "sbc_bench_cpu_info",
            "A CPU's cpufreq policy, cluster and core type (always 1), to join node_exporter's \
             per-CPU series on `cpu`.",
            &[
                ("cpu", cpu.as_str()),
                ("policy", policy.as_str()),
                ("cluster", cluster.as_str()),
                ("core_type", core_type.as_str()),
            ],
            1.0,
        );
    }
    if let Some(k) = p.opp_max_khz {
        e.gauge(
            "sbc_bench_cpu_opp_max_hertz",
            "The policy's highest OPP (scaling_available_frequencies or time_in_state).",
            &labels,
            k as f64 * 1000.0,
        );
    }
    if let Some(s) = p.below_max_s() {
        e.counter(
            "sbc_bench_cpu_below_max_seconds_total",
            "Time since boot the policy spent below its allowed maximum (time_in_state); \
             under full load this is throttling.",
            &labels,
            s,
        );
    }
    for (khz, ticks) in p.time_in_state.iter().flatten() {
        let hz = (khz * 1000).to_string();
        e.counter(
            "sbc_bench_cpu_time_in_state_seconds_total",
            "Time since boot the policy spent at each OPP (stats/time_in_state).",
            &[
                ("policy", policy.as_str()),
                ("cluster", cluster.as_str()),
                ("core_type", core_type.as_str()),
                ("frequency_hertz", hz.as_str()),
            ],
            *ticks as f64 / 100.0,
        );
    }
}

fn devfreq_metrics(e: &mut Exposition, d: &Devfreq) {
    let kind = devfreq_kind(d);
    let labels = [("device", d.name.as_str()), ("kind", kind)];
    for (name, help, v) in [
        (
            "sbc_bench_devfreq_frequency_hertz",
            "A devfreq device's current clock (cur_freq).",
            d.cur_hz,
        ),
        (
            "sbc_bench_devfreq_min_hertz",
            "A devfreq device's allowed minimum (min_freq).",
            d.min_hz,
        ),
        (
            "sbc_bench_devfreq_max_hertz",
            "A devfreq device's allowed maximum (max_freq).",
            d.max_hz,
        ),
        (
            "sbc_bench_devfreq_opp_max_hertz",
            "A devfreq device's highest available clock (available_frequencies).",
            d.available_frequencies_hz.iter().copied().max(),
        ),
    ] {
        if let Some(v) = v {
            e.gauge(name, help, &labels, v as f64);
        }
    }
    if let Some(g) = &d.governor {
        e.gauge(
            "sbc_bench_devfreq_governor",
            "A devfreq device's governor (1 for the one in use).",
            &[("device", d.name.as_str()), ("kind", kind), ("governor", g)],
            1.0,
        );
    }
}

/// One score of a finished run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunScore {
    /// The metric family (`sbc_bench_run_clock_hertz`).
    pub metric: &'static str,
    /// `benchmark` label (`libc memcpy copy`, `aes-256-cbc`, `7zip multi`).
    pub benchmark: String,
    /// `cluster` label: the cluster index, or `all` for all cores at once.
    pub cluster: String,
    /// `core_type` label (`Cortex-A76`; `all` with `cluster="all"`).
    pub core_type: String,
    /// In the metric's base unit.
    pub value: f64,
}

/// A finished run's scores, from its run JSON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunScores {
    /// `sbc_bench_version`.
    pub version: String,
    /// The device (`Radxa ROCK 5B`), from the results row.
    pub device: String,
    /// `started`, RFC 3339.
    pub started: String,
    /// `--quick`: shortened benchmarks, scores not comparable with full runs.
    pub quick: bool,
    /// When it started, Unix seconds.
    pub started_unix_s: Option<f64>,
    /// `ok`, `warnings` or `invalid`: the findings' worst severity.
    pub verdict: String,
    /// The scores.
    pub scores: Vec<RunScore>,
}

/// HELP of each score family.
const SCORE_HELP: [(&str, &str); 6] = [
    (
        "sbc_bench_run_clock_hertz",
        "The clock measured at the highest OPP by the last run (phase cold: before, hot: after the benchmarks).",
    ),
    (
        "sbc_bench_run_clock_opp_hertz",
        "The OPP the last run measured the clock at.",
    ),
    (
        "sbc_bench_run_memory_bandwidth_bytes_per_second",
        "The last run's memory bandwidth (MB/s of 10^6 bytes).",
    ),
    (
        "sbc_bench_run_aes_bytes_per_second",
        "The last run's AES throughput on 16 KiB buffers.",
    ),
    (
        "sbc_bench_run_compression_mips",
        "The last run's 7-Zip / LZMA total rating (MIPS).",
    ),
    (
        "sbc_bench_run_scrypt_hashes_per_second",
        "The last run's scrypt hashes per second on all cores.",
    ),
];

/// The scores of a run JSON (`sbc-bench run --json FILE`), read by
/// [`crate::record::read::run_report`]: see [`RunScores::of`].
pub fn run_scores(text: &str) -> Result<RunScores, String> {
    crate::record::read::run_report(text)
        .map(|r| RunScores::of(&r))
        .map_err(|e| e.to_string())
}

/// `cluster` and `core_type` labels of every CPU and target a run names.
type Labels = (String, String);

/// The labels of all cores: the run's multi-threaded figures.
fn all_labels() -> Labels {
    ("all".into(), "all".into())
}

/// `cluster` and `core_type` labels of a benchmark target (`cluster` empty when the run
/// did not know it).
fn target_labels(t: &Target) -> Labels {
    let cluster = t.cluster.map(|c| c.to_string()).unwrap_or_default();
    (cluster, t.core_type.clone().unwrap_or_default())
}

/// The findings' worst severity: `invalid`, `warnings` or `ok`.
fn verdict(findings: &[Finding]) -> String {
    match findings.iter().map(|f| f.severity).max() {
        Some(Severity::Invalid) => "invalid",
        Some(Severity::Warning) => "warnings",
        _ => "ok",
    }
    .to_string()
}

impl RunScores {
    /// A run's scores: measured clocks, memory bandwidth, AES (native and OpenSSL),
    /// 7-Zip/LZMA ratings and scrypt, each with its cluster and core type.
    pub fn of(r: &RunReport) -> Self {
        let mut out = RunScores {
            version: r.sbc_bench_version.clone(),
            device: r
                .results_row
                .as_ref()
                .map(|row| row.device.clone())
                .unwrap_or_default(),
            started_unix_s: chrono::DateTime::parse_from_rfc3339(&r.started)
                .ok()
                .map(|t| t.timestamp_millis() as f64 / 1000.0),
            started: r.started.clone(),
            quick: r.config.quick,
            verdict: verdict(&r.findings),
            scores: Vec::new(),
        };
        let res = &r.results;
        let cpus = out.clock_scores(res);
        out.membw_scores(res);
        out.aes_scores(res, &cpus);
        out.compression_scores(res, r.results_row.as_ref());
        out
    }

    /// One score, where the value is a finite number.
    fn push(&mut self, metric: &'static str, bench: &str, labels: &Labels, value: Option<f64>) {
        let Some(value) = value.filter(|v| v.is_finite()) else {
            return;
        };
        self.scores.push(RunScore {
            metric,
            benchmark: bench.to_string(),
            cluster: labels.0.clone(),
            core_type: labels.1.clone(),
            value,
        });
    }

    /// The clock at the highest OPP, cold and hot; returns cpu → labels of every target.
    fn clock_scores(&mut self, res: &Results) -> Vec<(u32, Labels)> {
        let mut cpus = Vec::new();
        for (phase, checks) in [("cold", &res.clock_cold), ("hot", &res.clock_hot)] {
            for c in checks {
                let labels = target_labels(&c.target);
                cpus.push((c.target.cpu, labels.clone()));
                // The walk's highest OPP that measured, else the single measurement.
                let best = c
                    .walk
                    .iter()
                    .flat_map(|w| &w.opps)
                    .filter_map(|o| Some((o.opp_khz, o.measured.as_ref()?.mhz)))
                    .max_by_key(|o| o.0);
                let (mhz, opp_khz) = match best {
                    Some((khz, mhz)) => (Some(mhz), Some(khz)),
                    None => (c.measured.as_ref().map(|m| m.mhz), c.kernel_cur_khz),
                };
                let clock = mhz.map(|m| m * 1e6);
                self.push("sbc_bench_run_clock_hertz", phase, &labels, clock);
                let opp = opp_khz.map(|k| k as f64 * 1000.0);
                self.push("sbc_bench_run_clock_opp_hertz", phase, &labels, opp);
            }
        }
        cpus
    }

    fn membw_scores(&mut self, res: &Results) {
        for m in &res.membw {
            let labels = target_labels(&m.target);
            for row in m.result.iter().flat_map(|x| &x.rows) {
                self.push(
                    "sbc_bench_run_memory_bandwidth_bytes_per_second",
                    &row.name,
                    &labels,
                    Some(row.mb_per_s * 1e6),
                );
            }
        }
    }

    /// AES at 16 KiB: the native rows (`aes-256-cbc`) and OpenSSL's (`aes-256-cbc
    /// openssl`; a row `openssl speed` ran twice counts once, averaged, as sbc-bench's AES
    /// column); the fully parallel rows on all cores.
    fn aes_scores(&mut self, res: &Results, cpus: &[(u32, Labels)]) {
        let Some(a) = &res.aes else {
            return;
        };
        let openssl = a.openssl.iter().flat_map(|o| &o.rows);
        let rows = a
            .native
            .iter()
            .map(|r| (r, ""))
            .chain(openssl.map(|r| (r, " openssl")));
        let mut seen: Vec<(String, Labels, Vec<f64>)> = Vec::new();
        for (row, tool) in rows {
            let labels = if row.tag == "fully parallel" {
                all_labels()
            } else {
                cpus.iter()
                    .find(|(c, _)| *c == row.cpu)
                    .map(|(_, l)| l.clone())
                    .unwrap_or_else(|| (String::new(), row.tag.clone()))
            };
            let Some(rate) = row.sizes.iter().find(|s| s.buffer_bytes == 16384) else {
                continue;
            };
            let bench = format!("{}{tool}", row.algorithm.name());
            match seen
                .iter_mut()
                .find(|(b, l, _)| *b == bench && *l == labels)
            {
                Some((_, _, rates)) => rates.push(rate.bytes_per_s),
                None => seen.push((bench, labels, vec![rate.bytes_per_s])),
            }
        }
        for (bench, labels, rates) in seen {
            let mean = rates.iter().sum::<f64>() / rates.len() as f64;
            self.push(
                "sbc_bench_run_aes_bytes_per_second",
                &bench,
                &labels,
                Some(mean),
            );
        }
    }

    /// Native single-threaded ratings per target; 7-Zip multi and scrypt from the row.
    fn compression_scores(&mut self, res: &Results, row: Option<&ResultsRow>) {
        for (suite, label) in [(&res.sevenzip, "7zip"), (&res.lzma, "lzma")] {
            for n in suite.iter().flat_map(|s| &s.native_single) {
                self.push(
                    "sbc_bench_run_compression_mips",
                    &format!("{label} native single"),
                    &target_labels(&n.target),
                    Some(n.result.total_rating_mips),
                );
            }
        }
        let multi = row.and_then(|r| r.sevenzip_multi).map(|m| m as f64);
        let all = all_labels();
        self.push("sbc_bench_run_compression_mips", "7zip multi", &all, multi);
        let scrypt = row.and_then(|r| r.scrypt_khs).map(|k| k * 1000.0);
        self.push(
            "sbc_bench_run_scrypt_hashes_per_second",
            "scrypt",
            &all,
            scrypt,
        );
    }
}

fn score_metrics(e: &mut Exposition, s: &RunScores) {
    let quick = if s.quick { "true" } else { "false" };
    e.gauge(
        "sbc_bench_run_info",
        "The run whose scores are exported (always 1).",
        // No timestamp among the labels: every run would make a new series (the start is
        // sbc_bench_run_started_timestamp_seconds).
        &[
            ("version", &s.version),
            ("device", &s.device),
            ("verdict", &s.verdict),
            ("quick", quick),
        ],
        1.0,
    );
    if let Some(t) = s.started_unix_s {
        e.gauge(
            "sbc_bench_run_started_timestamp_seconds",
            "When the run whose scores are exported started (Unix time).",
            &[],
            t,
        );
    }
    for sc in &s.scores {
        let help = SCORE_HELP
            .iter()
            .find(|(n, _)| *n == sc.metric)
            .map_or("", |(_, h)| *h);
        e.gauge(
            sc.metric,
            help,
            &[
                ("benchmark", &sc.benchmark),
                ("cluster", &sc.cluster),
                ("core_type", &sc.core_type),
                ("quick", quick),
            ],
            sc.value,
        );
    }
}

/// Check text against the exposition format's rules this module keeps: every sample's
/// family has one HELP and one TYPE line before its samples, names and label names are
/// valid, label values are properly quoted and escaped, values parse, and no series
/// (name and label set) appears twice. The reason of the first fault.
pub fn check_format(text: &str) -> Result<(), String> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut typed: BTreeMap<String, String> = BTreeMap::new();
    let mut helped: BTreeSet<String> = BTreeSet::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    if !text.is_empty() && !text.ends_with('\n') {
        return Err("does not end with a newline".into());
    }
    for (n, line) in text.lines().enumerate() {
        let at = |m: &str| format!("line {}: {m}: {line}", n + 1);
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let name = rest.split(' ').next().unwrap_or_default();
            if !valid_metric_name(name) || !helped.insert(name.to_string()) {
                return Err(at("bad or repeated HELP"));
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let mut it = rest.split(' ');
            let (name, kind) = (it.next().unwrap_or_default(), it.next().unwrap_or_default());
            if !valid_metric_name(name)
                || !["counter", "gauge", "untyped", "histogram", "summary"].contains(&kind)
                || typed.insert(name.to_string(), kind.to_string()).is_some()
            {
                return Err(at("bad or repeated TYPE"));
            }
            continue;
        }
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let (name, labels, value) = split_sample(line).ok_or_else(|| at("unparsable sample"))?;
        if !valid_metric_name(&name) || !typed.contains_key(&name) || !helped.contains(&name) {
            return Err(at("sample without HELP/TYPE"));
        }
        if typed[&name] == "counter" && !name.ends_with("_total") {
            return Err(at("counter not named _total"));
        }
        let mut keys = BTreeSet::new();
        for (k, _) in &labels {
            if !valid_label_name(k) || !keys.insert(k.clone()) {
                return Err(at("bad or repeated label name"));
            }
        }
        let mut sorted = labels.clone();
        sorted.sort();
        if !seen.insert(format!("{name}{sorted:?}")) {
            return Err(at("duplicate series"));
        }
        if !matches!(value.as_str(), "NaN" | "+Inf" | "-Inf") && value.parse::<f64>().is_err() {
            return Err(at("bad value"));
        }
    }
    Ok(())
}

/// A sample line split: name, labels (unescaped, in order) and the value's text.
pub type SampleLine = (String, Vec<(String, String)>, String);

/// A sample line's name, labels (unescaped) and value text; `None` when malformed.
pub fn split_sample(line: &str) -> Option<SampleLine> {
    let name_end = line.find(['{', ' '])?;
    let name = line[..name_end].to_string();
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(r) = rest.strip_prefix('{') {
        rest = r;
        loop {
            if let Some(r) = rest.strip_prefix('}') {
                rest = r;
                break;
            }
            let eq = rest.find('=')?;
            let key = rest[..eq].to_string();
            rest = rest[eq + 1..].strip_prefix('"')?;
            let mut val = String::new();
            let mut chars = rest.char_indices();
            let end = loop {
                let (i, c) = chars.next()?;
                match c {
                    '\\' => match chars.next()?.1 {
                        '\\' => val.push('\\'),
                        '"' => val.push('"'),
                        'n' => val.push('\n'),
                        _ => return None,
                    },
                    '"' => break i,
                    '\n' => return None,
                    c => val.push(c),
                }
            };
            labels.push((key, val));
            rest = &rest[end + 1..];
            if let Some(r) = rest.strip_prefix(',') {
                rest = r;
            } else if !rest.starts_with('}') {
                return None;
            }
        }
    }
    let mut parts = rest.strip_prefix(' ')?.split(' ');
    let value = parts.next()?.to_string();
    // An optional timestamp (milliseconds).
    if let Some(ts) = parts.next() {
        ts.parse::<i64>().ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some((name, labels, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn devfreq(name: &str, gov: &str, cur: u64) -> Devfreq {
        Devfreq {
            name: name.into(),
            governor: Some(gov.into()),
            available_governors: vec![],
            available_frequencies_hz: vec![528_000_000, 2_112_000_000],
            cur_hz: Some(cur),
            min_hz: Some(528_000_000),
            max_hz: Some(2_112_000_000),
            upthreshold: None,
            downdifferential: None,
            has_trans_stat: false,
        }
    }

    #[test]
    fn label_values_are_escaped_and_read_back() {
        let mut e = Exposition::default();
        let nasty = "a\\b\"c\nd}{,=";
        e.gauge(
            "sbc_bench_x",
            "help with \\ and\nnewline",
            &[("l", nasty)],
            1.5,
        );
        let t = e.render();
        assert_eq!(
            t,
            "# HELP sbc_bench_x help with \\\\ and\\nnewline\n# TYPE sbc_bench_x gauge\n\
             sbc_bench_x{l=\"a\\\\b\\\"c\\nd}{,=\"} 1.5\n"
        );
        check_format(&t).unwrap();
        let line = t.lines().nth(2).unwrap();
        let (name, labels, value) = split_sample(line).unwrap();
        assert_eq!((name.as_str(), value.as_str()), ("sbc_bench_x", "1.5"));
        assert_eq!(labels, vec![("l".to_string(), nasty.to_string())]);
    }

    #[test]
    fn a_series_added_twice_is_one_series_with_the_last_value() {
        let mut e = Exposition::default();
        e.gauge("sbc_bench_y", "h", &[("a", "1"), ("b", "2")], 1.0);
        e.gauge("sbc_bench_y", "other help", &[("b", "2"), ("a", "1")], 2.0);
        e.gauge("sbc_bench_y", "h", &[("a", "2"), ("b", "2")], 3.0);
        let t = e.render();
        check_format(&t).unwrap();
        assert_eq!(t.matches("# HELP sbc_bench_y").count(), 1);
        assert_eq!(t.matches("# TYPE").count(), 1);
        assert!(t.contains("sbc_bench_y{a=\"1\",b=\"2\"} 2\n"), "{t}");
        assert_eq!(t.lines().filter(|l| !l.starts_with('#')).count(), 2);
    }

    #[test]
    fn invalid_names_never_reach_the_text() {
        assert!(valid_metric_name("sbc_bench_a:b_1"));
        assert!(!valid_metric_name("1abc"));
        assert!(!valid_metric_name("a-b"));
        assert!(!valid_metric_name(""));
        assert!(valid_label_name("core_type"));
        assert!(!valid_label_name("__name"));
        assert!(!valid_label_name("core-type"));
    }

    #[test]
    fn special_values_in_go_spelling() {
        assert_eq!(format_value(f64::NAN), "NaN");
        assert_eq!(format_value(f64::INFINITY), "+Inf");
        assert_eq!(format_value(f64::NEG_INFINITY), "-Inf");
        assert_eq!(format_value(2_400_000_000.0), "2400000000");
        assert_eq!(format_value(0.25), "0.25");
    }

    #[test]
    fn check_format_catches_what_prometheus_refuses() {
        let ok = "# HELP a_total h\n# TYPE a_total counter\na_total{x=\"1\"} 3\n";
        check_format(ok).unwrap();
        for bad in [
            "a 1\n",
            "# HELP a h\n# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n",
            "# HELP a h\n# TYPE a counter\na 1\n",
            "# HELP a h\n# TYPE a gauge\na{x=\"1} 1\n",
            "# HELP a h\n# TYPE a gauge\na{x=\"\\q\"} 1\n",
            "# HELP a h\n# TYPE a gauge\na one\n",
            "# HELP a h\n# TYPE a gauge\n# TYPE a gauge\na 1\n",
            "# HELP a h\n# TYPE a gauge\na 1",
        ] {
            assert!(check_format(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn policy_metrics_in_hertz_with_time_below_max() {
        let p = PolicyReading {
            cpus: vec![4, 5],
            policy: 4,
            cluster: Some(1),
            core_type: Some("Cortex-A76".into()),
            reported_khz: Some(2_256_000),
            cpuinfo_max_khz: Some(2_400_000),
            scaling_max_khz: Some(2_256_000),
            opp_max_khz: Some(2_400_000),
            // 12.34 s at 408 MHz, 5 s at 1.8 GHz, 100 s at the allowed maximum.
            time_in_state: Some(vec![(408_000, 1234), (1_800_000, 500), (2_256_000, 10_000)]),
        };
        let e = exposition(&Readings {
            version: "0.1.0",
            interval_s: 5.0,
            policies: vec![p],
            ..Readings::default()
        });
        let t = e.render();
        check_format(&t).unwrap();
        let l = [
            ("policy", "4"),
            ("cluster", "1"),
            ("core_type", "Cortex-A76"),
        ];
        // node_exporter's clocks are not repeated; the info metric joins them on `cpu`.
        assert!(!t.contains("sbc_bench_cpu_reported_frequency_hertz"), "{t}");
        assert!(!t.contains("sbc_bench_cpu_scaling_max_hertz"), "{t}");
        assert!(!t.contains("sbc_bench_cpu_hardware_max_hertz"), "{t}");
        assert_eq!(
            e.value("sbc_bench_cpu_info", &[("cpu", "5"), ("cluster", "1")]),
            Some(1.0)
        );
        assert_eq!(e.value("sbc_bench_cpu_opp_max_hertz", &l), Some(2.4e9));
        let below = e
            .value("sbc_bench_cpu_below_max_seconds_total", &l)
            .unwrap();
        assert!((below - 17.34).abs() < 1e-9, "{below}");
        assert_eq!(
            e.value(
                "sbc_bench_cpu_time_in_state_seconds_total",
                &[("frequency_hertz", "408000000")]
            ),
            Some(12.34)
        );
        assert_eq!(
            e.family("sbc_bench_cpu_below_max_seconds_total")
                .unwrap()
                .kind,
            MetricKind::Counter
        );
    }

    #[test]
    fn devfreq_governor_kind_and_clocks() {
        let e = exposition(&Readings {
            devfreq: vec![
                devfreq("dmc", "dmc_ondemand", 528_000_000),
                devfreq("fb000000.gpu", "simple_ondemand", 300_000_000),
                devfreq("fdab0000.npu", "userspace", 1_000_000_000),
            ],
            ..Readings::default()
        });
        check_format(&e.render()).unwrap();
        assert_eq!(
            e.value(
                "sbc_bench_devfreq_governor",
                &[
                    ("device", "dmc"),
                    ("kind", "memory"),
                    ("governor", "dmc_ondemand")
                ]
            ),
            Some(1.0)
        );
        assert_eq!(
            e.value("sbc_bench_devfreq_frequency_hertz", &[("kind", "gpu")]),
            Some(3e8)
        );
        assert_eq!(
            e.value("sbc_bench_devfreq_opp_max_hertz", &[("kind", "npu")]),
            Some(2_112_000_000.0)
        );
    }

    #[test]
    fn pi_throttled_0x50005_and_pmic_rails() {
        let rails = crate::sys::meter::pmic::parse(include_str!(
            "../../tests/fixtures/power/pi5-pmic_read_adc.txt"
        ));
        let e = exposition(&Readings {
            pi_throttled: Some(0x50005),
            pmic: rails,
            power: Some(PowerNow {
                meter: "Raspberry Pi 5 PMIC (Σ rails)".into(),
                watts: 3.25,
            }),
            ..Readings::default()
        });
        check_format(&e.render()).unwrap();
        let bit =
            |c: &str, w: &str| e.value("sbc_bench_rpi_throttled", &[("condition", c), ("when", w)]);
        assert_eq!(bit("under_voltage", "now"), Some(1.0));
        assert_eq!(bit("throttled", "now"), Some(1.0));
        assert_eq!(bit("arm_frequency_capped", "now"), Some(0.0));
        assert_eq!(bit("under_voltage", "since_boot"), Some(1.0));
        assert_eq!(bit("throttled", "since_boot"), Some(1.0));
        assert_eq!(bit("soft_temperature_limit", "since_boot"), Some(0.0));
        assert_eq!(
            e.value("sbc_bench_rpi_throttled_flags", &[]),
            Some(327_685.0)
        );
        assert_eq!(
            e.value("sbc_bench_pmic_rail_amperes", &[("rail", "VDD_CORE")]),
            Some(1.4288)
        );
        assert_eq!(
            e.value("sbc_bench_pmic_rail_volts", &[("rail", "VDD_CORE")]),
            Some(0.9065925)
        );
        assert_eq!(e.value("sbc_bench_power_watts", &[]), Some(3.25));
    }

    #[test]
    fn busiest_core_and_its_irq_share() {
        let iv = Interval {
            end_unix_ms: 1_700_000_000_500,
            busiest: Some(crate::monitor::Busiest {
                cpu: 3,
                cpu_pct: 87.5,
                irq_pct: 25.0,
            }),
            ..Interval::default()
        };
        let e = exposition(&Readings {
            interval: Some(&iv),
            ..Readings::default()
        });
        check_format(&e.render()).unwrap();
        assert_eq!(e.value("sbc_bench_busiest_cpu", &[]), Some(3.0));
        assert_eq!(
            e.value("sbc_bench_busiest_cpu_busy_ratio", &[]),
            Some(0.875)
        );
        assert_eq!(e.value("sbc_bench_busiest_cpu_irq_ratio", &[]), Some(0.25));
        assert_eq!(
            e.value("sbc_bench_monitor_sample_timestamp_seconds", &[]),
            Some(1_700_000_000.5)
        );
    }

    #[test]
    fn run_json_that_is_not_one_is_refused() {
        assert!(run_scores("{").is_err());
        assert!(run_scores("{\"schema\":\"sbc-bench-info\"}").is_err());
        assert!(run_scores("[]").is_err());
    }

    #[test]
    fn run_scores_with_cluster_and_core_type() {
        let r = crate::record::read::fixture_rock5b();
        let s = run_scores(crate::record::read::FIXTURE_ROCK5B).unwrap();
        assert_eq!(s, RunScores::of(&r));
        assert_eq!(s.device, "Radxa ROCK 5B");
        let e = exposition(&Readings {
            scores: Some(&s),
            ..Readings::default()
        });
        let t = e.render();
        check_format(&t).unwrap();
        let a76 = [("cluster", "1"), ("core_type", "Cortex-A76")];
        let with = |b: &'static str| {
            let mut v = vec![("benchmark", b)];
            v.extend(a76);
            v
        };
        let cold = &r.results.clock_cold[1];
        assert_eq!(cold.target.cluster, Some(1));
        let top = cold
            .walk
            .as_ref()
            .unwrap()
            .opps
            .iter()
            .max_by_key(|o| o.opp_khz)
            .unwrap();
        assert_eq!(
            e.value("sbc_bench_run_clock_hertz", &with("cold")),
            top.measured.as_ref().map(|m| m.mhz * 1e6)
        );
        assert_eq!(
            e.value("sbc_bench_run_clock_opp_hertz", &with("cold")),
            Some(top.opp_khz as f64 * 1000.0)
        );
        assert!(
            e.value(
                "sbc_bench_run_memory_bandwidth_bytes_per_second",
                &with("libc memcpy copy")
            )
            .is_some()
        );
        let row = r.results_row.as_ref().unwrap();
        assert_eq!(
            e.value(
                "sbc_bench_run_compression_mips",
                &[("benchmark", "7zip multi"), ("cluster", "all")]
            ),
            row.sevenzip_multi.map(|m| m as f64)
        );
        assert!(t.contains("sbc_bench_run_info{version=\""));
    }

    /// The fixture run's 16 KiB AES series: (benchmark, cluster, value).
    fn aes_series(r: &RunReport) -> Vec<(String, String, f64)> {
        RunScores::of(r)
            .scores
            .into_iter()
            .filter(|s| s.metric == "sbc_bench_run_aes_bytes_per_second")
            .map(|s| (s.benchmark, s.cluster, s.value))
            .collect()
    }

    /// Issue 28: the run scores read only the native AES rows, so a run that measured
    /// with OpenSSL (every standard run where it is installed) exported no AES series.
    #[test]
    fn run_scores_export_openssl_aes_rows() {
        let native = aes_series(&crate::record::read::fixture_rock5b());
        assert_eq!(native.len(), 9);
        assert!(native.iter().all(|(b, _, _)| !b.contains("openssl")));
        let a = native
            .iter()
            .find(|(b, c, _)| b == "aes-256-cbc" && c == "1");
        assert_eq!(a.map(|x| x.2), Some(1_325_370_000.0));
        let only = aes_series(&crate::record::read::fixture_rock5b_openssl(false));
        assert_eq!(only.len(), 9);
        let a = only
            .iter()
            .find(|(b, c, _)| b == "aes-256-cbc openssl" && c == "1");
        assert_eq!(a.map(|x| x.2), Some(1_325_370_000.0));
        let both = aes_series(&crate::record::read::fixture_rock5b_openssl(true));
        assert_eq!(both.len(), 18, "no series twice: {both:?}");
    }

    /// A CBC row `openssl speed` ran twice (one cluster) is one series: their mean.
    #[test]
    fn an_openssl_row_run_twice_is_one_averaged_series() {
        let mut r = crate::record::read::fixture_rock5b_openssl(false);
        let rows = &mut r
            .results
            .aes
            .as_mut()
            .unwrap()
            .openssl
            .as_mut()
            .unwrap()
            .rows;
        let mut again = rows[0].clone();
        for s in &mut again.sizes {
            s.bytes_per_s += 2000.0;
        }
        let first = rows[0]
            .sizes
            .iter()
            .find(|s| s.buffer_bytes == 16384)
            .unwrap()
            .bytes_per_s;
        rows.insert(1, again);
        let s = aes_series(&r);
        assert_eq!(s.len(), 9);
        assert_eq!(s[0].2, first + 1000.0);
    }
}
