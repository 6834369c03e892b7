//! The efficiency graph (`sbc-bench graph`, `-g`) over writable copies of fixture boards
//! with cpufreq OPPs: every OPP from 600 MHz up is held while it is measured (an executor
//! that looks at the tree at each call proves it), governors and limits come back byte for
//! byte (also after SIGTERM), the table reads as sbc-bench's, the SVG charts parse with one
//! series per group, a fake power meter's mW reach the table and the MIPS/W chart, and a
//! machine without cpufreq is refused.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command as Std, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sbc_bench::bench::BenchError;
use sbc_bench::record::config::{RunConfig, RunKind};
use sbc_bench::record::mode::graph::{GraphConfig, GraphVariant, HoldMethod};
use sbc_bench::record::run::RunReport;
use sbc_bench::report::export::{ExportSink, Format};
use sbc_bench::run::exec::{Call, Env, Executor, Fake};
use sbc_bench::run::host::CannedHost;
use sbc_bench::run::runner::{RunContext, Ui};
use sbc_bench::shutdown::CancellationToken;
use sbc_bench::sys::meter::{MeterError, PowerMeter, PowerReading};
use sbc_bench::sys::root::SysRoot;
use serde_json::Value;

use crate::common::{bin, copy_tree, sysroot as fixture};

const CPUFREQ: &str = "sys/devices/system/cpu/cpufreq";

/// Every file of every policy (but `scaling_setspeed`, which the kernel resets itself
/// when the governor changes, and `stats/`), as bytes.
fn cpufreq_bytes(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in fs::read_dir(root.join(CPUFREQ)).unwrap().flatten() {
        for f in fs::read_dir(e.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().to_string();
            if name == "scaling_setspeed" || !f.path().is_file() {
                continue;
            }
            out.insert(
                format!("{}/{name}", e.file_name().to_string_lossy()),
                fs::read(f.path()).unwrap(),
            );
        }
    }
    out
}

/// A writable copy of `board` with an idle load; `setspeed` adds `scaling_setspeed` as a
/// kernel shows it while the governor is not `userspace`.
fn board(board: &str, setspeed: bool) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&fixture(board), &root);
    fs::write(root.join("proc/loadavg"), "0.02 0.10 0.20 1/200 4242\n").unwrap();
    if setspeed {
        for e in fs::read_dir(root.join(CPUFREQ)).unwrap().flatten() {
            fs::write(e.path().join("scaling_setspeed"), "<unsupported>\n").unwrap();
        }
    }
    (tmp, root)
}

fn read_khz(root: &SysRoot, policy: u32, attr: &str) -> Option<u64> {
    root.parse(format!("/{CPUFREQ}/policy{policy}/{attr}"))
}

/// What the tree held while each benchmark ran: (policy, governor, setspeed, min, max).
type Held = Vec<(u32, Option<String>, Option<u64>, Option<u64>, Option<u64>)>;

/// Canned results, after writing down what every policy was held at.
struct Watching {
    seen: Arc<Mutex<Vec<(&'static str, Held)>>>,
}

impl Executor for Watching {
    fn run(&mut self, env: &Env<'_>, call: &mut dyn Call) -> Result<(), BenchError> {
        let held = env
            .policies
            .iter()
            .map(|p| {
                (
                    p.id,
                    env.root
                        .read_opt(format!("/{CPUFREQ}/policy{}/scaling_governor", p.id))
                        .map(|s| s.trim().to_string()),
                    read_khz(env.root, p.id, "scaling_setspeed"),
                    read_khz(env.root, p.id, "scaling_min_freq"),
                    read_khz(env.root, p.id, "scaling_max_freq"),
                )
            })
            .collect();
        self.seen.lock().unwrap().push((call.name(), held));
        Fake.run(env, call)
    }
}

struct Quiet;
impl Ui for Quiet {
    fn line(&mut self, _s: &str) {}
    fn step_started(&mut self, _what: &str) -> Box<dyn Fn(f64) + Sync> {
        Box::new(|_| {})
    }
    fn step_done(&mut self, _what: &str, _note: &str) {}
    fn confirm(&mut self, _warning: &str) -> bool {
        true
    }
}

/// A meter whose mW follow the clock policy 0 runs at (1000 mW + 2 mW per MHz), read from
/// the tree as a real meter would see the board react.
struct FollowsTheClock {
    root: SysRoot,
    reads: Arc<Mutex<usize>>,
}

impl PowerMeter for FollowsTheClock {
    fn describe(&self) -> String {
        "fake meter (follows policy 0)".to_string()
    }
    fn read(&mut self) -> Result<PowerReading, MeterError> {
        *self.reads.lock().unwrap() += 1;
        // As the kernel would run it: `powersave` at the minimum, `userspace` at
        // `scaling_setspeed`, else at the maximum the limits allow.
        let gov = self
            .root
            .read_opt(format!("/{CPUFREQ}/policy0/scaling_governor"))
            .unwrap_or_default();
        let khz = match gov.trim() {
            "powersave" => read_khz(&self.root, 0, "cpuinfo_min_freq"),
            "userspace" => read_khz(&self.root, 0, "scaling_setspeed"),
            _ => read_khz(&self.root, 0, "scaling_max_freq"),
        }
        .ok_or_else(|| MeterError::Unavailable("no clock".into()))?;
        Ok(PowerReading {
            mw: 1000.0 + 2.0 * khz as f64 / 1000.0,
            energy_mwh: None,
            volts: Some(5.1),
            amps: None,
        })
    }
}

/// A fake graph run through the library (the meter and the executor injected).
fn graph(
    root: &Path,
    variant: GraphVariant,
    exec: &mut dyn Executor,
    meter: Option<Box<dyn PowerMeter>>,
    html: &Path,
) -> RunReport {
    let cfg = RunConfig {
        fake_benchmarks: true,
        unattended: true,
        kind: RunKind::Graph(GraphConfig {
            variant,
            repetitions: 3,
            html: Some(html.to_path_buf()),
            power: meter.as_ref().map(|m| m.describe()),
            idle_s: 0,
        }),
        ..Default::default()
    };
    let sysroot = SysRoot::new(root);
    let mut sink = ExportSink::new();
    sink.add(Format::GraphHtml, html).unwrap();
    let token = CancellationToken::new();
    let ctx = RunContext {
        root: &sysroot,
        cfg: &cfg,
        cancel: &token,
        sink: &sink,
        host: &CannedHost,
        monitor_interval: Duration::from_millis(50),
    };
    sbc_bench::run::graph::execute(&ctx, exec, &mut Quiet, meter).unwrap()
}

/// The OPPs ≥ 600 MHz of a policy in the tree, lowest first.
fn opps_from_600(root: &Path, policy: u32) -> Vec<u64> {
    let t = fs::read_to_string(
        root.join(CPUFREQ)
            .join(format!("policy{policy}/scaling_available_frequencies")),
    )
    .unwrap();
    let mut v: Vec<u64> = t
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .filter(|&k| k >= 600_000)
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn graph_on_rock_5b_holds_every_opp_from_600_mhz_with_userspace_and_restores_byte_for_byte() {
    let (tmp, root) = board("rock-5b", true);
    let before = cpufreq_bytes(&root);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let html = tmp.path().join("graph.html");
    let r = graph(
        &root,
        GraphVariant::Clusters,
        &mut Watching { seen: seen.clone() },
        None,
        &html,
    );
    assert_eq!(
        cpufreq_bytes(&root),
        before,
        "governors and limits restored"
    );
    let g = r.mode.graph().unwrap();
    assert_eq!(g.method, HoldMethod::Userspace);
    let labels: Vec<&str> = g.runs.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, ["CPU 0-3", "CPU 4-5", "CPU 6-7"]);
    let seen = seen.lock().unwrap();
    // Each group: its policy's OPPs from 600 MHz up, each measured (one clock call and
    // three MIPS calls) while the tree held exactly that OPP there, the other policies at
    // their minimum, every governor `userspace`.
    let mut calls = seen.iter();
    for (run, policy) in g.runs.iter().zip([0u32, 4, 6]) {
        let want = opps_from_600(&root, policy);
        let got: Vec<u64> = run.points.iter().map(|p| p.sysfs_khz).collect();
        assert_eq!(got, want, "{}", run.label);
        for khz in &want {
            for expected in ["graph-clock", "graph-mips", "graph-mips", "graph-mips"] {
                let (name, held) = calls.next().expect("a call per measurement");
                assert_eq!(*name, expected);
                for (id, gov, setspeed, _, _) in held {
                    assert_eq!(gov.as_deref(), Some("userspace"), "policy{id}");
                    let want = if *id == policy { *khz } else { 408_000 };
                    assert_eq!(*setspeed, Some(want), "policy{id} at {khz}");
                }
            }
        }
    }
    assert!(calls.next().is_none());
    assert!(r.results_row.is_none(), "the graph makes no Results.md row");
}

#[test]
fn graph_on_odroid_n2plus_without_setspeed_holds_opps_with_min_and_max() {
    let (tmp, root) = board("odroid-n2plus", false);
    let before = cpufreq_bytes(&root);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let r = graph(
        &root,
        GraphVariant::AllCores,
        &mut Watching { seen: seen.clone() },
        None,
        &tmp.path().join("g.html"),
    );
    assert_eq!(
        cpufreq_bytes(&root),
        before,
        "limits restored byte for byte"
    );
    let g = r.mode.graph().unwrap();
    assert_eq!(g.method, HoldMethod::MinMax);
    // All cores: the OPPs of the highest policy (2: the A73s, up to 2.4 GHz); the A53s
    // follow, held at their own maximum (2016 MHz) where the A73s go higher.
    let run = &g.runs[0];
    assert_eq!(run.walked_policy, 2);
    let want = opps_from_600(&root, 2);
    assert_eq!(
        run.points.iter().map(|p| p.sysfs_khz).collect::<Vec<_>>(),
        want
    );
    let seen = seen.lock().unwrap();
    let clocks: Vec<&Held> = seen
        .iter()
        .filter(|(n, _)| *n == "graph-clock")
        .map(|(_, h)| h)
        .collect();
    assert_eq!(clocks.len(), want.len());
    for (held, khz) in clocks.iter().zip(&want) {
        for (id, _, _, min, max) in held.iter() {
            let cap = if *id == 0 { 2_016_000 } else { u64::MAX };
            let want = (*khz).min(cap);
            assert_eq!(
                (*min, *max),
                (Some(want), Some(want)),
                "policy{id} at {khz}"
            );
        }
    }
}

/// sbc-bench's rows (Efficiency_Graphing.md): `1600 / 1590 :  8033  45.0°C  9575mW`.
fn row_re(metered: bool) -> regex_lite::Regex {
    let mw = if metered { r" {0,5}\d{1,6}mW" } else { "" };
    regex_lite::Regex::new(&format!(
        r"^[ \d]{{4}} / [ \d]{{4}} : {{0,5}}\d{{1,6}} [ \d]{{2}}\d\.\d°C{mw}$"
    ))
    .unwrap()
}

/// Rows sbc-bench logged (Efficiency_Graphing.md: ODROID-HC2 all cores and cpu4-7,
/// NanoPi K1 Plus), as `row_re` must accept them: the pattern our rows are held to is
/// sbc-bench's.
#[test]
fn the_row_pattern_accepts_sbc_bench_s_own_rows() {
    for row in [
        " 500 /  500 :  3093  35.5°C  5510mW",
        "1600 / 1590 :  8033  45.0°C  9575mW",
        "1700 / 1700 :  8204  48.0°C 10265mW",
        "2000 / 1990 :  5522  63.5°C 12640mW",
        " 480 /  480 :   380  24.7°C  1906mW",
        "1104 / 1110 :   796  32.7°C  2696mW",
    ] {
        assert!(row_re(true).is_match(row), "{row}");
    }
    assert!(row_re(false).is_match("1600 / 1590 :  8033  45.0°C"));
    assert!(!row_re(true).is_match("1600 / 1590 : 8033 45.0°C 9575mW"));
}

#[test]
fn graph_on_rpi4_with_a_meter_logs_idle_and_mw_and_charts_mips_per_watt() {
    let (tmp, root) = board("rpi4", false);
    let before = cpufreq_bytes(&root);
    let reads = Arc::new(Mutex::new(0));
    let meter = FollowsTheClock {
        root: SysRoot::new(&root),
        reads: reads.clone(),
    };
    let html = tmp.path().join("g.html");
    let r = graph(
        &root,
        GraphVariant::AllCores,
        &mut Fake,
        Some(Box::new(meter)),
        &html,
    );
    assert_eq!(cpufreq_bytes(&root), before);
    assert!(*reads.lock().unwrap() > 0);
    let log = sbc_bench::report::log::run::log(&r);
    // Idle: powersave on a Pi's policy 0 is its 600 MHz minimum: 1000 + 2 × 600 mW.
    assert!(
        log.contains("\n\nIdle temperature: ") && log.contains("°C, idle consumption: 2200 mW\n"),
        "{log}"
    );
    assert!(log.contains(
        "Testing through all CPU cores 3 times:\n\nSysfs/Tested:  MIPS / Temp /  Watt\n"
    ));
    // Every row in sbc-bench's format, with the meter's mW for that OPP: 1500 MHz →
    // 1000 + 2 × 1500 = 4000 mW; canned clock 0.5 % below (1492.5 → 1490).
    let rows: Vec<&str> = log.lines().filter(|l| row_re(true).is_match(l)).collect();
    assert_eq!(rows.len(), 10, "{log}");
    assert!(
        rows.iter()
            .any(|l| l.starts_with("1500 / 1490 :") && l.ends_with("  4000mW")),
        "{rows:?}"
    );
    assert!(
        rows.iter()
            .any(|l| l.starts_with(" 600 /  600 :") && l.ends_with("  2200mW")),
        "{rows:?}"
    );
    let page = fs::read_to_string(&html).unwrap();
    let svgs = svgs(&page);
    assert_eq!(svgs.len(), 3, "MIPS, mW and MIPS per watt");
    for s in &svgs {
        check_well_formed(s).unwrap_or_else(|e| panic!("{e}\n{s}"));
    }
    assert!(svgs[2].contains("per watt"));
    // MIPS per watt at 1500 MHz: the canned MIPS over the meter's 4 W, in the page's table
    // and as the efficiency chart's last point.
    let top = r.mode.graph().unwrap().runs[0]
        .points
        .last()
        .unwrap()
        .clone();
    assert_eq!((top.sysfs_khz, top.mean_mw()), (1_500_000, Some(4000.0)));
    let eff = top.mean_mips().unwrap() / 4.0;
    assert!(
        page.contains(&format!("<td>4000</td><td>{eff:.0}</td></tr>")),
        "{page}"
    );
    assert!(
        svgs[2].contains(&format!("{eff:.0} at 1492")),
        "{}",
        svgs[2]
    );
}

/// The `<svg>…</svg>` elements of a page.
fn svgs(page: &str) -> Vec<&str> {
    page.match_indices("<svg ")
        .map(|(i, _)| {
            let end = page[i..].find("</svg>").unwrap() + i + "</svg>".len();
            &page[i..end]
        })
        .collect()
}

/// A small XML well-formedness check: tags nest and close, attributes are quoted, every
/// `&` starts a known entity, no `<` in text.
fn check_well_formed(doc: &str) -> Result<(), String> {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = doc;
    let entity = regex_lite::Regex::new(r"^&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);").unwrap();
    let attr = regex_lite::Regex::new(r#"^\s+[A-Za-z_:][-A-Za-z0-9_:.]*="[^"<]*""#).unwrap();
    let check_text = |t: &str| -> Result<(), String> {
        for (i, _) in t.match_indices('&') {
            if !entity.is_match(&t[i..]) {
                return Err(format!("bad entity at {:?}", &t[i..t.len().min(i + 12)]));
            }
        }
        Ok(())
    };
    while let Some(lt) = rest.find('<') {
        check_text(&rest[..lt])?;
        let gt = rest[lt..].find('>').ok_or("unclosed tag")? + lt;
        let tag = &rest[lt + 1..gt];
        if let Some(name) = tag.strip_prefix('/') {
            match stack.pop() {
                Some(open) if open == name.trim() => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
        } else {
            let self_closing = tag.ends_with('/');
            let body = tag.trim_end_matches('/');
            let name_end = body.find(|c: char| c.is_whitespace()).unwrap_or(body.len());
            let name = &body[..name_end];
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == ':' || c == '-')
            {
                return Err(format!("bad tag name {name:?}"));
            }
            let mut attrs = &body[name_end..];
            while let Some(m) = attr.find(attrs) {
                check_text(m.as_str())?;
                attrs = &attrs[m.end()..];
            }
            if !attrs.trim().is_empty() {
                return Err(format!("bad attributes in <{name}>: {attrs:?}"));
            }
            if !self_closing {
                stack.push(name.to_string());
            }
        }
        rest = &rest[gt + 1..];
    }
    check_text(rest)?;
    if stack.is_empty() {
        Ok(())
    } else {
        Err(format!("unclosed: {stack:?}"))
    }
}

#[test]
fn the_well_formedness_check_catches_broken_svg() {
    assert!(check_well_formed("<svg><g></g></svg>").is_ok());
    assert!(check_well_formed("<svg><g></svg>").is_err());
    assert!(check_well_formed("<svg a=b></svg>").is_err());
    assert!(check_well_formed("<svg>R&D</svg>").is_err());
}

fn fake_graph_cmd(root: &Path, tmp: &Path, what: &[&str]) -> assert_cmd::Command {
    let mut c = bin();
    c.arg("--sysroot")
        .arg(root)
        .arg("--sysroot-writable")
        .arg("graph")
        .args(what)
        .args([
            "--fake-benchmarks",
            "--unattended",
            "--max-wait",
            "0",
            "--log",
        ])
        .arg(tmp.join("l.log"))
        .arg("--json")
        .arg(tmp.join("g.json"))
        .arg("--html")
        .arg(tmp.join("g.html"));
    c
}

#[test]
fn sbc_bench_dash_g_coreclusters_on_rock_5b_logs_sbc_bench_s_table_and_one_series_per_group() {
    let (tmp, root) = board("rock-5b", true);
    let before = cpufreq_bytes(&root);
    let out = bin()
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["-g", "coreclusters"])
        .args([
            "--fake-benchmarks",
            "--unattended",
            "--max-wait",
            "0",
            "--log",
        ])
        .arg(tmp.path().join("l.log"))
        .arg("--html")
        .arg(tmp.path().join("g.html"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(cpufreq_bytes(&root), before);
    let log = fs::read_to_string(tmp.path().join("l.log")).unwrap();
    for label in ["CPU 0-3", "CPU 4-7"] {
        assert!(
            log.contains(&format!(
                "Testing through {label} 3 times:\n\nSysfs/Tested:  MIPS / Temp\n"
            )),
            "{log}"
        );
    }
    let rows: Vec<&str> = log.lines().filter(|l| row_re(false).is_match(l)).collect();
    // 0-3: 600…1800 (7 OPPs); 4-7: 600…2400 (10).
    assert_eq!(rows.len(), 17, "{log}");
    assert!(
        rows.contains(&"1608 / 1600 :  6400  36.9°C")
            || rows.iter().any(|r| r.starts_with("1608 / 1600 :")),
        "{rows:?}"
    );
    assert!(stdout.contains("Sysfs/Tested:  MIPS / Temp"), "{stdout}");
    assert!(stdout.contains("Please check "));
    // No Results.md row for a graph.
    assert!(!log.trim_end().lines().last().unwrap().starts_with("| "));
    let page = fs::read_to_string(tmp.path().join("g.html")).unwrap();
    let svgs = svgs(&page);
    assert_eq!(svgs.len(), 1, "no meter: the MIPS chart only");
    check_well_formed(svgs[0]).unwrap();
    // One MIPS and one temperature series per group.
    let names: Vec<&str> = svgs[0]
        .match_indices("class=\"series\" data-name=\"")
        .map(|(i, m)| {
            let s = &svgs[0][i + m.len()..];
            &s[..s.find('"').unwrap()]
        })
        .collect();
    assert_eq!(
        names,
        [
            "CPU 0-3 (Cortex-A55)",
            "CPU 4-7 (Cortex-A76)",
            "CPU 0-3 (Cortex-A55) SoC temp",
            "CPU 4-7 (Cortex-A76) SoC temp"
        ]
    );
}

#[test]
fn graph_on_x86_vm_without_cpufreq_is_refused_with_sbc_bench_s_words() {
    let (tmp, root) = board("x86-vm", false);
    let out = fake_graph_cmd(&root, tmp.path(), &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("No cpufreq support available. Not able to draw performance graph(s)"),
        "{err}"
    );
    assert!(
        !tmp.path().join("l.log").exists(),
        "refused before any file"
    );
}

#[test]
fn graph_refuses_a_read_only_tree_and_cpus_the_board_lacks() {
    let out = bin()
        .arg("--sysroot")
        .arg(fixture("rock-5b"))
        .args(["graph", "--fake-benchmarks"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--sysroot-writable"));
    let (tmp, root) = board("rock-5b", true);
    let out = fake_graph_cmd(&root, tmp.path(), &["9-11"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CPU 9 is not an online CPU"));
    let out = fake_graph_cmd(&root, tmp.path(), &["bigcores"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn graph_json_records_every_point_and_the_method() {
    let (tmp, root) = board("rpi4", true);
    fake_graph_cmd(&root, tmp.path(), &["cores"])
        .assert()
        .success();
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(tmp.path().join("g.json")).unwrap()).unwrap();
    let g = &doc["results"]["graph"];
    assert_eq!(g["method"], "userspace");
    assert_eq!(g["min_khz"], 600_000);
    let points = g["runs"][0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 10);
    assert_eq!(points[0]["mips"].as_array().unwrap().len(), 3);
    assert_eq!(doc["config"]["graph"]["variant"]["variant"], "cores");
}

/// A real (not canned) quick graph on CPU 0 of a rock-5b copy, stopped by SIGTERM while
/// an OPP is held: governors and limits come back byte for byte, exit 143.
#[test]
fn sigterm_during_the_graph_restores_governors_and_limits_byte_for_byte() {
    let (tmp, root) = board("rock-5b", true);
    let before = cpufreq_bytes(&root);
    let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
    let mut child = Std::new(exe)
        .env("NO_COLOR", "1")
        .env_remove("SBC_BENCH_SYSROOT")
        .env_remove("CPUINFOFILE")
        .env_remove("MinKHz")
        .env_remove("MaxKHz")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args([
            "graph",
            "0",
            "--quick",
            "--unattended",
            "--max-wait",
            "0",
            "--log",
        ])
        .arg(tmp.path().join("l.log"))
        .arg("--html")
        .arg(tmp.path().join("g.html"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the graph holds an OPP on policy 0 (scaling_setspeed written).
    let setspeed = root.join(CPUFREQ).join("policy0/scaling_setspeed");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let v = fs::read_to_string(&setspeed).unwrap_or_default();
        if v.trim().parse::<u64>().is_ok_and(|k| k >= 600_000) {
            break;
        }
        if let Ok(Some(st)) = child.try_wait() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            panic!("graph ended before it could be interrupted: {st:?}\n{err}");
        }
        assert!(Instant::now() < deadline, "no OPP held within 120 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_ne!(cpufreq_bytes(&root), before, "the graph changed governors");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert_eq!(cpufreq_bytes(&root), before, "restored after SIGTERM");
}
