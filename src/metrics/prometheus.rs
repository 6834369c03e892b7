//! `monitor --prometheus [ADDR:]PORT` and `--textfile DIR`: after every monitor interval
//! read what node_exporter does not have (time_in_state, devfreq, the Raspberry Pi's
//! throttling bits and PMIC rails, the allowed maximum clocks), render it
//! ([`crate::report::prometheus`]) and hand it to the `/metrics` server
//! ([`super::http`]) and/or node_exporter's textfile collector (`DIR/sbc-bench.prom`,
//! written atomically). `--scores FILE` adds a finished run's scores (its run JSON, read
//! again whenever the file changes).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::monitor::{Interval, Setup};
use crate::report::prometheus::{self, PolicyReading, PowerNow, Readings, RunScores};
use crate::sys::cpu::Topology;
use crate::sys::cpufreq::{self, Policy};
use crate::sys::meter::pmic;
use crate::sys::root::SysRoot;

/// The textfile collector's file name in `--textfile DIR`.
pub const TEXTFILE_NAME: &str = "sbc-bench.prom";

/// `--prometheus`'s value: `PORT` (on 127.0.0.1), `ADDR:PORT` or `[V6ADDR]:PORT`.
pub fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    let s = s.trim();
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    if let Some(port) = s
        .strip_prefix("localhost:")
        .and_then(|p| p.parse::<u16>().ok())
    {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    Err("not PORT, ADDR:PORT or [ADDR]:PORT (e.g. 9101, 0.0.0.0:9101, [::1]:9101)".into())
}

/// Write `text` to `DIR/sbc-bench.prom` atomically ([`crate::files::replace`]: a
/// temporary file in `DIR`, never through a symlink, synced, renamed over the file — a
/// symlink there is replaced, not followed — and the directory synced). The collector
/// reads only `*.prom`, so it never sees the temporary file.
pub fn write_textfile(dir: &Path, text: &str) -> std::io::Result<()> {
    crate::files::replace(&dir.join(TEXTFILE_NAME), text.as_bytes()).map_err(|e| e.source)
}

/// The largest run JSON `--scores` reads (a run's JSON is a few MiB).
pub const MAX_SCORES_FILE: u64 = 64 << 20;

/// `--scores FILE` read when it changes.
struct Scores {
    path: PathBuf,
    seen: Option<SystemTime>,
    scores: Option<RunScores>,
    warned: bool,
}

impl Scores {
    fn refresh(&mut self) {
        let mtime = std::fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .ok();
        if mtime.is_some() && mtime == self.seen {
            return;
        }
        self.seen = mtime;
        // Regular files only, never blocking, bounded (`--scores /dev/zero` grew to
        // 2.7 GB in 4 s).
        let got = crate::files::read::read_text(&self.path, MAX_SCORES_FILE)
            .map_err(|e| e.to_string())
            .and_then(|t| prometheus::run_scores(&t));
        match got {
            Ok(s) => {
                self.scores = Some(s);
                self.warned = false;
            }
            Err(e) => {
                // A run rewriting the file is read again at its next change.
                if !self.warned {
                    crate::output::warn(format!("--scores {}: {e}", self.path.display()));
                    self.warned = true;
                }
            }
        }
    }
}

/// The power reading the exporter publishes: `monitor --power`'s column, in watts.
pub fn power_now(p: &crate::sys::meter::sampler::PowerColumn) -> Option<PowerNow> {
    Some(PowerNow {
        meter: p.sampler.describe().to_string(),
        watts: p.mw()? / 1000.0,
    })
}

/// Reads and renders the metrics once per interval.
pub struct MetricsCollector {
    root: SysRoot,
    policies: Vec<Policy>,
    topology: Topology,
    interval_s: f64,
    pi_throttled: bool,
    pmic_exe: Option<PathBuf>,
    scores: Option<Scores>,
}

impl MetricsCollector {
    /// For the monitor's `setup`; `scores` is `--scores FILE`.
    pub fn new(root: &SysRoot, setup: &Setup, interval_s: f64, scores: Option<PathBuf>) -> Self {
        // The Pi 5's PMIC through vcgencmd, on the live system only and only where
        // `pmic_read_adc` gives rails (other Pis have no such ADCs).
        let pmic_exe = if root.is_host() {
            pmic::VCGENCMD
                .iter()
                .map(PathBuf::from)
                .find(|p| p.is_file())
                .filter(|exe| pmic::query(exe).is_ok_and(|t| !pmic::parse(&t).is_empty()))
        } else {
            None
        };
        MetricsCollector {
            root: root.clone(),
            policies: setup.policies.clone(),
            topology: setup.topology.clone(),
            interval_s,
            pi_throttled: true,
            pmic_exe,
            scores: scores.map(|path| Scores {
                path,
                seen: None,
                scores: None,
                warned: false,
            }),
        }
    }

    /// The metrics text now, with the latest interval and power reading.
    pub fn render(&mut self, iv: Option<&Interval>, power: Option<PowerNow>) -> String {
        let policies = self.policies.iter().map(|p| self.policy(p, iv)).collect();
        let pi_throttled = if self.pi_throttled {
            let v = crate::bench::external::vcgencmd::pi_throttled(&self.root)
                .and_then(|s| crate::diagnose::throttle::PiThrottled::parse(&s));
            // Not a Pi (or no firmware node): not asked again every interval.
            self.pi_throttled = v.is_some();
            v.map(|t| t.0)
        } else {
            None
        };
        let pmic = self
            .pmic_exe
            .as_ref()
            .and_then(|exe| pmic::query(exe).ok())
            .map(|t| pmic::parse(&t))
            .unwrap_or_default();
        if let Some(s) = &mut self.scores {
            s.refresh();
        }
        let readings = Readings {
            version: env!("CARGO_PKG_VERSION"),
            interval_s: self.interval_s,
            interval: iv,
            policies,
            devfreq: crate::sys::devfreq::read(&self.root),
            pi_throttled,
            pmic,
            power,
            scores: self.scores.as_ref().and_then(|s| s.scores.as_ref()),
        };
        prometheus::exposition(&readings).render()
    }

    fn policy(&self, p: &Policy, iv: Option<&Interval>) -> PolicyReading {
        let value = |name: &str| -> Option<u64> {
            self.root
                .value(cpufreq::policy_attr(p.id, name))
                .and_then(|v| v.trim().parse().ok())
        };
        let time_in_state = self
            .root
            .read_opt(cpufreq::policy_attr(p.id, "stats/time_in_state"))
            .map(|t| cpufreq::parse_time_in_state(&t))
            .filter(|t| !t.is_empty());
        let cluster = p.cpus.first().and_then(|&c| self.topology.cluster_of(c));
        PolicyReading {
            policy: p.id,
            cpus: p.cpus.clone(),
            cluster: cluster.map(|c| c.id),
            core_type: cluster.and_then(|c| c.core_type.clone()),
            reported_khz: iv
                .and_then(|iv| iv.policy_khz(p.id))
                .or_else(|| value("scaling_cur_freq")),
            cpuinfo_max_khz: p.cpuinfo_max_khz,
            scaling_max_khz: value("scaling_max_freq").or(p.scaling_max_khz),
            opp_max_khz: p.opps_khz.iter().copied().max().or_else(|| {
                time_in_state
                    .as_ref()
                    .and_then(|t| t.iter().map(|(k, _)| *k).max())
            }),
            time_in_state,
        }
    }
}

/// `monitor`'s exporting: the exporter, the server and the textfile directory.
pub struct Export {
    exporter: MetricsCollector,
    server: Option<super::http::MetricsServer>,
    textfile: Option<PathBuf>,
    textfile_failing: bool,
}

/// `--prometheus`, `--textfile`, `--scores` and `--quiet` checked before anything starts
/// (by `cli::monitor`).
#[derive(Debug, Clone)]
pub struct MetricsExportArgs {
    /// Where to listen.
    pub listen: Option<SocketAddr>,
    /// The textfile collector's directory.
    pub textfile: Option<PathBuf>,
    /// The run JSON whose scores are exported.
    pub scores: Option<PathBuf>,
}

impl Export {
    /// Start exporting: the first text (before the first sample), the server bound.
    pub fn start(
        root: &SysRoot,
        setup: &Setup,
        interval_s: f64,
        args: MetricsExportArgs,
        power: Option<PowerNow>,
    ) -> anyhow::Result<Self> {
        use anyhow::Context;
        let mut exporter = MetricsCollector::new(root, setup, interval_s, args.scores);
        let text = exporter.render(None, power);
        let server = match args.listen {
            Some(addr) => {
                let s = super::http::MetricsServer::start(
                    addr,
                    super::http::Limits::default(),
                    text.clone(),
                )
                .with_context(|| format!("cannot listen on {addr}"))?;
                eprintln!(
                    "sbc-bench: serving metrics on http://{}/metrics",
                    s.local_addr()
                );
                Some(s)
            }
            None => None,
        };
        let mut e = Export {
            exporter,
            server,
            textfile: args.textfile,
            textfile_failing: false,
        };
        e.publish(text);
        Ok(e)
    }

    /// After every interval.
    pub fn update(&mut self, iv: &Interval, power: Option<PowerNow>) {
        let text = self.exporter.render(Some(iv), power);
        self.publish(text);
    }

    fn publish(&mut self, text: String) {
        if let Some(dir) = &self.textfile {
            match write_textfile(dir, &text) {
                Ok(()) => self.textfile_failing = false,
                Err(e) => {
                    if !self.textfile_failing {
                        crate::output::warn(format!(
                            "cannot write {}: {e}",
                            dir.join(TEXTFILE_NAME).display()
                        ));
                    }
                    self.textfile_failing = true;
                }
            }
        }
        if let Some(s) = &self.server {
            s.set_body(text);
        }
    }

    /// Stop the server (the textfile stays: node_exporter shows its age).
    pub fn stop(self) {
        if let Some(s) = self.server {
            s.stop();
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses_default_to_loopback() {
        assert_eq!(
            parse_listen("9101").unwrap(),
            "127.0.0.1:9101".parse().unwrap()
        );
        assert_eq!(
            parse_listen("localhost:9101").unwrap(),
            "127.0.0.1:9101".parse().unwrap()
        );
        assert_eq!(
            parse_listen("0.0.0.0:9101").unwrap(),
            "0.0.0.0:9101".parse().unwrap()
        );
        assert_eq!(
            parse_listen("[::1]:9101").unwrap(),
            "[::1]:9101".parse().unwrap()
        );
        for bad in ["", "x", "99999", "1.2.3.4", "host:9101", "1.2.3.4:x"] {
            assert!(parse_listen(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn textfile_is_replaced_atomically_and_a_symlink_is_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        let target = d.path().join(TEXTFILE_NAME);
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        write_textfile(d.path(), "a 1\n").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert!(
            !std::fs::symlink_metadata(&target)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "a 1\n");
        write_textfile(d.path(), "a 2\n").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "a 2\n");
        // Nothing but the file and the untouched victim is left.
        let mut names: Vec<String> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, vec![TEXTFILE_NAME.to_string(), "victim".to_string()]);
    }

    #[test]
    fn textfile_temp_name_planted_as_symlink_is_not_followed() {
        let d = tempfile::tempdir().unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        let tmp = d
            .path()
            .join(format!(".{TEXTFILE_NAME}.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &tmp).unwrap();
        write_textfile(d.path(), "b 1\n").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert_eq!(
            std::fs::read_to_string(d.path().join(TEXTFILE_NAME)).unwrap(),
            "b 1\n"
        );
    }

    #[test]
    fn textfile_into_a_missing_dir_fails_and_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        assert!(write_textfile(&d.path().join("nope"), "x 1\n").is_err());
    }

    #[test]
    fn rock5b_fixture_exports_devfreq_and_policies() {
        let root = SysRoot::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/sysroots/rock-5b"
        ));
        let setup = Setup::discover(&root, false);
        let mut ex = MetricsCollector::new(&root, &setup, 5.0, None);
        let text = ex.render(None, None);
        prometheus::check_format(&text).unwrap();
        assert!(
            text.contains("sbc_bench_cpu_opp_max_hertz{policy=\"4\""),
            "{text}"
        );
        assert!(text.contains("sbc_bench_devfreq_governor{"), "{text}");
    }
}
