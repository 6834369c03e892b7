//! `monitor`'s arguments become its config: the exporting options checked (`--prometheus`,
//! `--textfile`, `--scores`, `--quiet`) and the power meter's spec chosen, before anything
//! is sampled. Opening the meter is left to the command (it touches the system).

use std::time::Duration;

use crate::cli::{MonitorArgs, UsageError, invalid_value, power_spec};
use crate::metrics::prometheus::{MetricsExportArgs, parse_listen};
use crate::monitor::{MonitorConfig, SampleSpec};
use crate::sys::root::SysRoot;

/// `sbc-bench monitor`, validated.
#[derive(Debug, Clone)]
pub struct MonitorOptions {
    /// The arguments as given (interval, count, table and JSON switches).
    pub args: MonitorArgs,
    /// What to export, `None` without `--prometheus` and `--textfile`.
    pub export: Option<MetricsExportArgs>,
    /// The power meter to open (`--power`, else sbc-bench's `Netio=HOST/SOCKET`).
    pub power: Option<String>,
}

impl MonitorOptions {
    /// Check `args`; `netio` is the `Netio` environment variable.
    pub fn new(args: &MonitorArgs, netio: Option<&str>) -> Result<Self, UsageError> {
        let power = power_spec(args.power.as_deref(), netio)?;
        let export = export_args(args)?;
        Ok(Self {
            args: args.clone(),
            export,
            power,
        })
    }
}

impl MonitorOptions {
    /// How to sample: every interval, live, the first line the averages since boot;
    /// `--json` reads everything (scripts get it all, the table stays cheap),
    /// `--all-counters` every counter of the machine under `root`.
    pub fn sampling(&self, root: &SysRoot) -> MonitorConfig {
        let mut cfg = MonitorConfig::every(Duration::from_secs_f64(self.args.interval));
        cfg.count = self.args.count;
        cfg.live = true;
        cfg.since_boot_first = true;
        if self.args.json {
            cfg.spec = SampleSpec::full();
        }
        if self.args.all_counters {
            cfg.spec = SampleSpec::all_counters(root);
        }
        cfg
    }
}

/// `--prometheus`, `--textfile`, `--scores` and `--quiet` checked (the reason in clap's
/// words on a bad one); `None` when neither `--prometheus` nor `--textfile` is given.
pub fn export_args(args: &MonitorArgs) -> Result<Option<MetricsExportArgs>, UsageError> {
    let listen = match &args.prometheus {
        Some(v) => Some(
            parse_listen(v).map_err(|why| invalid_value(v, "--prometheus <[ADDR:]PORT>", &why))?,
        ),
        None => None,
    };
    if let Some(dir) = &args.textfile
        && !dir.is_dir()
    {
        return Err(invalid_value(
            &dir.display().to_string(),
            "--textfile <DIR>",
            "not a directory",
        )
        .into());
    }
    if listen.is_none() && args.textfile.is_none() {
        for (given, name) in [(args.scores.is_some(), "--scores"), (args.quiet, "--quiet")] {
            if given {
                return Err(format!("{name} needs --prometheus or --textfile").into());
            }
        }
        return Ok(None);
    }
    // A run JSON is a regular file: `/dev/zero` or a FIFO would be read for ever (the
    // exporter reads it again whenever it changes). One that does not exist yet is
    // read once a run writes it.
    if let Some(f) = &args.scores
        && let Ok(m) = std::fs::metadata(f)
        && !m.is_file()
    {
        return Err(invalid_value(
            &f.display().to_string(),
            "--scores <FILE>",
            "not a regular file (a run JSON written by `run --json FILE`)",
        )
        .into());
    }
    Ok(Some(MetricsExportArgs {
        listen,
        textfile: args.textfile.clone(),
        scores: args.scores.clone(),
    }))
}
