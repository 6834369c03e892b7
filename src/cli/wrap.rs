//! `sbc-bench wrap [--per-cluster|--per-core-type] [--repeat N] [--offline-others] --
//! COMMAND [ARGS…]`, and the tools sbc-bench wraps itself: `--geekbench` (`-G`), `--pts
//! ARGS` (`-P ARGS`), `--stockfish` (`-s`).

use std::path::PathBuf;

use clap::Args;

/// Options of `wrap`.
#[derive(Debug, Clone, Args, Default)]
pub struct WrapArgs {
    /// Run once on each cluster (pinned there), then on all cores.
    #[arg(long, conflicts_with = "per_core_type")]
    pub per_cluster: bool,

    /// Run once on each group of cores of one type (pinned there), then on all cores
    /// (sbc-bench's -G/-P; RK3588: 0-3, 4-7).
    #[arg(long)]
    pub per_core_type: bool,

    /// Do everything N times.
    #[arg(long, value_name = "N", default_value = "1", value_parser = parse_repeat)]
    pub repeat: u32,

    /// For a pinned run, take every other CPU offline (as sbc-bench's -G/-P do) and
    /// bring each back after it, on every stop; without it only the command's affinity
    /// is set.
    #[arg(long)]
    pub offline_others: bool,

    /// Geekbench 6 or 5 (installed as geekbench6/geekbench5; never downloaded), per core
    /// type with the other CPUs offline, then twice on all cores (sbc-bench -G).
    #[arg(long, conflicts_with_all = ["pts", "stockfish"])]
    pub geekbench: bool,

    /// `PTS_SILENT_MODE=1 phoronix-test-suite batch-run ARGS`, per core type with the other
    /// CPUs offline, then on all cores (sbc-bench -P ARGS).
    #[arg(long, value_name = "ARGS", conflicts_with = "stockfish")]
    pub pts: Option<String>,

    /// Stockfish's `bench` three times on all cores (sbc-bench -s).
    #[arg(long)]
    pub stockfish: bool,

    /// Never prompt; give up with an error when the system does not become idle.
    #[arg(long)]
    pub unattended: bool,

    /// Longest wait for the system to become idle, in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = super::parse_seconds)]
    pub max_wait: Option<u64>,

    /// Full log file [default: /var/log/sbc-bench.log].
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Write the whole run as one JSON document to FILE (rewritten after every run).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Read a power meter meanwhile: idle mW, mW and energy per phase (docs/POWER.md;
    /// also sbc-bench's Netio=HOST/SOCKET).
    #[arg(long, value_name = "SPEC")]
    pub power: Option<String>,

    /// Canned host (idle at once, sampled often): tests over fixture trees. The command
    /// itself still runs.
    #[arg(long, hide = true)]
    pub fake_benchmarks: bool,

    /// The command and its arguments; `{cpus}` and `{cluster}` are replaced by the run's
    /// CPU list (`4-5`) and cluster name (`cluster1`, `Cortex-A76`, `all`).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,

    #[command(flatten)]
    pub store: super::results::StoreArgs,
}

/// What to wrap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wrapped {
    /// `-- COMMAND ARGS…`
    Command(Vec<String>),
    /// `--geekbench`
    Geekbench,
    /// `--pts ARGS`
    Pts(Vec<String>),
    /// `--stockfish`
    Stockfish,
}

impl WrapArgs {
    /// The one thing to run, or why the arguments do not name one.
    pub fn wrapped(&self) -> Result<Wrapped, String> {
        let tools = usize::from(self.geekbench)
            + usize::from(self.pts.is_some())
            + usize::from(self.stockfish);
        match (tools, self.command.is_empty()) {
            (0, true) => Err(
                "nothing to run: give a command after -- (sbc-bench wrap -- stress-ng --cpu 4 -t 60), or --geekbench, --pts ARGS or --stockfish"
                    .to_string(),
            ),
            (0, false) => Ok(Wrapped::Command(self.command.clone())),
            (_, false) => Err(
                "a command after -- and --geekbench/--pts/--stockfish exclude each other"
                    .to_string(),
            ),
            _ if self.geekbench => Ok(Wrapped::Geekbench),
            _ if self.stockfish => Ok(Wrapped::Stockfish),
            _ => {
                let args: Vec<String> = self
                    .pts
                    .as_deref()
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_string)
                    .collect();
                if args.is_empty() {
                    return Err("--pts needs the test to run (e.g. --pts pts/c-ray)".to_string());
                }
                Ok(Wrapped::Pts(args))
            }
        }
    }
}

/// `--repeat`: a whole number, 1 to 1000.
pub fn parse_repeat(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if (1..=1000).contains(&n) => Ok(n),
        _ => Err("not a whole number from 1 to 1000".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn parse(v: &[&str]) -> Result<WrapArgs, String> {
        let c = Cli::try_parse_from(v).map_err(|e| e.to_string())?;
        match c.command {
            Some(Command::Wrap(w)) => Ok(w),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn a_command_after_the_double_dash_keeps_its_own_flags() {
        let w = parse(&[
            "sbc-bench",
            "wrap",
            "--per-cluster",
            "--repeat",
            "2",
            "--",
            "stress-ng",
            "--cpu",
            "1",
            "-t",
            "2",
        ])
        .unwrap();
        assert!(w.per_cluster && w.repeat == 2 && !w.offline_others);
        assert_eq!(
            w.wrapped().unwrap(),
            Wrapped::Command(
                ["stress-ng", "--cpu", "1", "-t", "2"]
                    .map(String::from)
                    .to_vec()
            )
        );
    }

    #[test]
    fn bad_wrap_arguments_are_refused() {
        assert!(
            parse(&[
                "sbc-bench",
                "wrap",
                "--per-cluster",
                "--per-core-type",
                "--",
                "x"
            ])
            .is_err()
        );
        assert!(parse(&["sbc-bench", "wrap", "--repeat", "0", "--", "x"]).is_err());
        assert!(parse(&["sbc-bench", "wrap"]).unwrap().wrapped().is_err());
        let both = parse(&["sbc-bench", "wrap", "--geekbench", "--", "x"]).unwrap();
        assert!(both.wrapped().is_err());
        let pts = parse(&["sbc-bench", "wrap", "--pts", "pts/c-ray pts/compress-7zip"]).unwrap();
        assert_eq!(
            pts.wrapped().unwrap(),
            Wrapped::Pts(vec!["pts/c-ray".into(), "pts/compress-7zip".into()])
        );
    }
}
