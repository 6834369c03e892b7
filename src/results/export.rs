//! `results export`: the stored runs' columns as CSV or YAML (JSON is serde's). Every
//! field of [`Entry`], in the order of [`entry_fields`]; a missing value is an empty CSV
//! cell and a YAML `null`.

use crate::record::mode::wrap::WrapRun;
use crate::record::run::RunReport;
use crate::results::store::{Entry, entry_fields};

/// CSV with a header line (RFC 4180 quoting, by the csv crate).
pub fn csv(rows: &[Entry]) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    // The header is written from the field names, so an empty database still says what
    // its columns are.
    w.write_record(entry_fields())?;
    let mut w = {
        let bytes = w.into_inner().map_err(|e| e.into_error())?;
        csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(bytes)
    };
    for r in rows {
        w.serialize(r)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A YAML sequence of mappings, one per run. Strings are double-quoted with JSON's
/// escapes (valid YAML double-quoted scalars), so no value can be read as another type
/// (`no`, `1.10`, `~`) or break the structure.
pub fn yaml(rows: &[Entry]) -> String {
    let fields = entry_fields();
    if rows.is_empty() {
        return "[]\n".to_string();
    }
    let mut out = String::new();
    for r in rows {
        let v = serde_json::to_value(r).unwrap_or_default();
        for (i, f) in fields.iter().enumerate() {
            let value = match &v[*f] {
                serde_json::Value::Null => "null".to_string(),
                serde_json::Value::String(s) => {
                    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
                }
                other => other.to_string(),
            };
            out.push_str(if i == 0 { "- " } else { "  " });
            out.push_str(f);
            out.push_str(": ");
            out.push_str(&value);
            out.push('\n');
        }
    }
    out
}

/// What a `results.yml` item (Jeff Geerling's sbc-reviews) takes from one stored run
/// beyond its columns: read from the stored document (a run JSON of ours; sbc-bench logs
/// hold neither), and the newest share receipt's URL.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GeerlingExtra {
    /// Idle power from a power meter, W.
    pub idle_watts: Option<f64>,
    /// Geekbench (from `wrap` of Geekbench): major version, single-core, multi-core.
    pub geekbench: Option<(u32, Option<f64>, Option<f64>)>,
    /// Where the run was shared (`share`).
    pub link: Option<String>,
}

impl GeerlingExtra {
    /// Read from a stored document (our run JSON; anything else yields nothing).
    pub fn from_document(document: &str, link: Option<String>) -> Self {
        match crate::record::read::run_report(document) {
            Ok(r) => Self::from_run(&r, link),
            Err(_) => Self {
                link,
                ..Self::default()
            },
        }
    }

    /// What a run adds to its items: idle power and Geekbench under `wrap`.
    pub fn from_run(r: &RunReport, link: Option<String>) -> Self {
        Self {
            idle_watts: r
                .power
                .as_ref()
                .and_then(|p| p.idle_mw)
                .map(|mw| mw / 1000.0),
            geekbench: r.mode.wrap().and_then(|w| geekbench(&w.runs)),
            link,
        }
    }
}

/// Geekbench's version and scores of the whole-system run (cluster `all`) when there is
/// one, else of the last scored run.
fn geekbench(runs: &[WrapRun]) -> Option<(u32, Option<f64>, Option<f64>)> {
    let scored = |r: &&WrapRun| r.score.is_some();
    let run = runs
        .iter()
        .filter(scored)
        .find(|r| r.cluster == "all")
        .or_else(|| runs.iter().rfind(scored))?;
    let score = run.score.as_ref()?;
    let value = |name: &str| {
        score
            .values
            .iter()
            .find(|x| x.name == name)
            .map(|x| x.value)
    };
    // The version is the Geekbench Browser's path (`/v6/cpu/…`); without it the scores
    // cannot be told 5 from 6 and are left out.
    let version = score.url.as_deref().and_then(|u| {
        let i = u.find("browser.geekbench.com/v")? + "browser.geekbench.com/v".len();
        u[i..].split('/').next()?.parse::<u32>().ok()
    })?;
    let (single, multi) = (value("Single-Core Score"), value("Multi-Core Score"));
    (single.is_some() || multi.is_some()).then_some((version, single, multi))
}

/// The `results.yml` architecture name for `uname -m` (sbc-reviews uses `aarch64`,
/// `x86_64`, `riscv64`), from the machine column or the distro's architecture word.
fn geerling_arch(e: &Entry) -> Option<&'static str> {
    let m = e.machine.as_deref().unwrap_or_default();
    let d = e.distro.as_deref().unwrap_or_default();
    let has = |w: &str| m == w || d.split([' ', '/']).any(|x| x == w);
    if has("aarch64") || has("arm64") {
        Some("aarch64")
    } else if has("x86_64") || has("amd64") {
        Some("x86_64")
    } else if has("riscv64") {
        Some("riscv64")
    } else if has("armv7l") || has("armhf") {
        Some("armv7l")
    } else {
        None
    }
}

/// The year of a stored date: `2026-…` (RFC 3339 UTC, as the store keeps dates since
/// schema 2), or sbc-bench's `Mon, 10 Nov 2025 23:46:00` as schema 1 kept them.
fn year(date: Option<&str>) -> Option<u32> {
    let d = date?;
    d.split(|c: char| !c.is_ascii_digit())
        .find(|w| w.len() == 4)
        .and_then(|w| w.parse().ok())
        .filter(|y| (1990..=2200).contains(y))
}

/// Jeff Geerling's sbc-reviews `results.yml` layout (`items:`, one mapping per board),
/// with the fields our records fill: `name`, `arch`, `link`, `year`, `geekbench_5`/`_6`
/// (from `wrap` runs of Geekbench), `power_watts.idle` (from a power meter) and
/// `memory_mb_sec` (tinymembench's memcpy/memset, as his table takes them). Everything
/// else his table holds (price, HPL, GPU, AI, Phoronix, network) is not measured by a run
/// and stays `null`. Our figures beyond his fields follow under `sbc_bench:`.
pub fn geerling_yaml(rows: &[(Entry, GeerlingExtra)]) -> String {
    fn q(s: &str) -> String {
        serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
    }
    fn num(v: Option<f64>) -> String {
        v.map_or_else(
            || "null".into(),
            |x| format!("{}", (x * 10.0).round() / 10.0),
        )
    }
    fn int(v: Option<i64>) -> String {
        v.map_or_else(|| "null".into(), |x| x.to_string())
    }
    fn text(v: Option<&str>) -> String {
        v.map_or_else(|| "null".into(), q)
    }
    let mut out = String::from("items:\n");
    for (e, x) in rows {
        let gb = |major: u32| match x.geekbench {
            Some((v, s, m)) if v == major => (num(s), num(m)),
            _ => ("null".into(), "null".into()),
        };
        let (gb6s, gb6m) = gb(6);
        let (gb5s, gb5m) = gb(5);
        let lines = [
            format!("\n- name: {}", text(e.device.as_deref())),
            format!("  arch: {}", text(geerling_arch(e))),
            format!("  link: {}", text(x.link.as_deref())),
            "  price_as_tested: null".into(),
            format!(
                "  year: {}",
                year(e.date.as_deref()).map_or("null".into(), |y| y.to_string())
            ),
            "  geekbench_6:".into(),
            format!("    single: {gb6s}"),
            format!("    multi: {gb6m}"),
            "  geekbench_5:".into(),
            format!("    single: {gb5s}"),
            format!("    multi: {gb5m}"),
            "  hpl_gflops: null".into(),
            "  power_watts:".into(),
            format!("    idle: {}", num(x.idle_watts)),
            "    stress: null".into(),
            "    geekbench: null".into(),
            "    hpl: null".into(),
            "  network_mbps:".into(),
            "    primary: null".into(),
            "    wifi: null".into(),
            "  gpu:".into(),
            "    glmark2: null".into(),
            "    vkmark: null".into(),
            "    gravitymark: null".into(),
            "  ai_cpu:".into(),
            "    llama3.2_3b: null".into(),
            "  memory_mb_sec:".into(),
            format!("    memcpy: {}", num(e.memcpy_mb_per_s)),
            format!("    memset: {}", num(e.memset_mb_per_s)),
            "  phoronix:".into(),
            "    encode_mp3_sec: null".into(),
            "    x264_1080p_fps: null".into(),
            "    x264_4k_fps: null".into(),
            "    phpbench: null".into(),
            "    linux_recompile_sec: null".into(),
            "  sbc_bench:".into(),
            format!("    run: {}", e.id),
            format!("    soc: {}", text(e.soc.as_deref())),
            format!("    kernel: {}", text(e.kernel.as_deref())),
            format!(
                "    kernel_bsp: {}",
                e.kernel_bsp.map_or("null".into(), |b| b.to_string())
            ),
            format!("    clock: {}", text(e.clock.as_deref())),
            format!("    sevenzip_multi: {}", int(e.sevenzip_multi)),
            format!("    sevenzip_single: {}", int(e.sevenzip_single)),
            format!("    aes256_16k_kb_per_s: {}", num(e.aes256_16k_kb_per_s)),
            format!("    scrypt_khash_per_s: {}", num(e.scrypt_khash_per_s)),
            format!("    verdict: {}", text(e.verdict.as_deref())),
        ];
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            id: 3,
            stored_at: "2026-12-01T10:00:00Z".into(),
            source: "import".into(),
            source_path: Some("~/logs/a,b\"c.txt".into()),
            document_kind: "sbc-bench log".into(),
            date: None,
            tool_version: Some("0.9.72".into()),
            mode: None,
            device: Some("Radxa ROCK 5B".into()),
            soc: Some("RK3588".into()),
            core_types: Some("Cortex-A55, Cortex-A76".into()),
            kernel: Some("no".into()),
            kernel_bsp: Some(true),
            distro: None,
            arch: None,
            machine: None,
            clock: Some("2400/1800 MHz".into()),
            clocks_measured: Some("1794/2350".into()),
            sevenzip_multi: Some(16280),
            sevenzip_single: None,
            aes256_16k_kb_per_s: Some(1_337_000.5),
            memcpy_mb_per_s: None,
            memset_mb_per_s: None,
            scrypt_khash_per_s: None,
            ramlat_16m_ns: None,
            ramlat_128m_ns: Some(120.5),
            verdict: Some("ok".into()),
            throttled: Some(false),
        }
    }

    #[test]
    fn csv_quotes_and_keeps_the_column_order() {
        let t = csv(&[entry()]).unwrap();
        let mut r = ::csv::Reader::from_reader(t.as_bytes());
        let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(head, entry_fields());
        let row = r.records().next().unwrap().unwrap();
        assert_eq!(&row[0], "3");
        assert_eq!(&row[3], "~/logs/a,b\"c.txt");
        assert_eq!(&row[5], "");
        assert_eq!(&row[18], "16280");
        // An empty database still has its header.
        assert_eq!(csv(&[]).unwrap().lines().count(), 1);
    }

    #[test]
    fn yaml_strings_are_quoted_so_nothing_changes_type() {
        let y = yaml(&[entry()]);
        assert!(
            y.starts_with("- id: 3\n  stored_at: \"2026-12-01T10:00:00Z\"\n"),
            "{y}"
        );
        assert!(y.contains("\n  kernel: \"no\"\n"), "{y}");
        assert!(y.contains("\n  kernel_bsp: true\n"), "{y}");
        assert!(y.contains("\n  date: null\n"), "{y}");
        assert!(
            y.contains("\n  source_path: \"~/logs/a,b\\\"c.txt\"\n"),
            "{y}"
        );
        assert!(y.contains("\n  aes256_16k_kb_per_s: 1337000.5\n"), "{y}");
        assert_eq!(y.lines().count(), entry_fields().len());
        assert_eq!(yaml(&[]), "[]\n");
    }

    #[test]
    fn geerling_items_take_his_field_names_and_null_what_a_run_does_not_measure() {
        let mut e = entry();
        e.machine = Some("aarch64".into());
        e.date = Some("2025-11-10T15:46:00Z".into());
        e.memcpy_mb_per_s = Some(12093.24);
        e.memset_mb_per_s = Some(28018.2);
        let doc = geekbench_run(&[
            (
                "cluster0",
                &[("Single-Core Score", 300.0)],
                Some("https://browser.geekbench.com/v6/cpu/1"),
            ),
            (
                "all",
                &[("Single-Core Score", 743.0), ("Multi-Core Score", 2792.0)],
                Some("https://browser.geekbench.com/v6/cpu/2"),
            ),
        ]);
        let x = GeerlingExtra::from_document(&doc, Some("https://0x0.st/abc.txt".into()));
        assert_eq!(x.idle_watts, Some(1.4));
        assert_eq!(x.geekbench, Some((6, Some(743.0), Some(2792.0))));
        let y = geerling_yaml(&[(e, x)]);
        assert!(y.starts_with("items:\n\n- name: \"Radxa ROCK 5B\"\n  arch: \"aarch64\"\n  link: \"https://0x0.st/abc.txt\"\n  price_as_tested: null\n  year: 2025\n  geekbench_6:\n    single: 743\n    multi: 2792\n  geekbench_5:\n    single: null\n"), "{y}");
        assert!(
            y.contains("\n  power_watts:\n    idle: 1.4\n    stress: null\n"),
            "{y}"
        );
        assert!(
            y.contains("\n  memory_mb_sec:\n    memcpy: 12093.2\n    memset: 28018.2\n"),
            "{y}"
        );
        assert!(y.contains("\n    kernel_bsp: true\n"), "{y}");
        assert!(y.contains("\n    sevenzip_multi: 16280\n"), "{y}");
        // A log, or Geekbench without its browser URL, gives no version: nothing guessed.
        let none = GeerlingExtra::from_document("sbc-bench v0.9.72 …", None);
        assert_eq!(none, GeerlingExtra::default());
        let unversioned = GeerlingExtra::from_document(
            &geekbench_run(&[("all", &[("Single-Core Score", 1.0)], None)]),
            None,
        );
        assert_eq!(unversioned.geekbench, None);
    }

    /// A wrap run of Geekbench: its cluster, (score name, value) and browser URL.
    type GeekbenchRun<'a> = (&'a str, &'a [(&'a str, f64)], Option<&'a str>);

    /// The fixture run as `wrap` of Geekbench with a meter; idle 1.4 W.
    fn geekbench_run(runs: &[GeekbenchRun]) -> String {
        use crate::record::mode::wrap::{Confinement, Exit, WrapResults, WrapRun};
        use crate::record::run::ModeResults;
        let mut r = crate::record::read::fixture_rock5b();
        r.power = Some(crate::record::power::PowerRecord {
            meter: "netio".into(),
            banner: None,
            idle_mw: Some(1400.0),
            idle_readings: 10,
            phases: Vec::new(),
            readings: 10,
            failed_readings: 0,
        });
        let run = |&(cluster, values, url): &GeekbenchRun| WrapRun {
            label: cluster.into(),
            cluster: cluster.into(),
            cpus: Vec::new(),
            command: vec!["geekbench6".into()],
            confinement: Confinement::default(),
            started: String::new(),
            ended: String::new(),
            duration_s: 1.0,
            exit: Exit::Code(0),
            interrupted: false,
            stdout_tail: String::new(),
            stderr_tail: String::new(),
            clocks_before_mhz: Vec::new(),
            clocks_after_mhz: Vec::new(),
            score: Some(crate::bench::external::extract::Score {
                values: values
                    .iter()
                    .map(|&(name, value)| crate::bench::external::extract::Value {
                        name: name.into(),
                        value,
                        unit: "points".into(),
                    })
                    .collect(),
                url: url.map(str::to_string),
            }),
        };
        r.mode = ModeResults::Wrap(WrapResults {
            spec: Default::default(),
            runs: runs.iter().map(run).collect(),
            compare_url: None,
        });
        serde_json::to_string(&r).unwrap()
    }
}
