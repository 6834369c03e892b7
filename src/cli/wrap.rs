//! `sbc-bench wrap [--per-cluster|--per-core-type] [--repeat N] [--offline-others] --
//! COMMAND [ARGS…]`, and the tools sbc-bench wraps itself: `--geekbench` (`-G`), `--pts
//! ARGS` (`-P ARGS`), `--stockfish` (`-s`).

use std::path::{Path, PathBuf};

use clap::Args;

use crate::bench::external::extract::Tool;
use crate::record::config::{RunConfig, RunKind};
use crate::record::mode::wrap::{Split, WrapSpec};

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

    /// The command and its arguments; `{cpus}` and `{cluster}` are replaced by the run's
    /// CPU list (`4-5`) and cluster name (`cluster1`, `Cortex-A76`, `all`).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,

    #[command(flatten)]
    pub shared: super::run::SharedArgs,
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

/// Where a tool is not installed: what to do, never a download.
fn missing(what: &str, names: &str, how: &str) -> String {
    format!("{what} is not installed ({names} on the PATH); {how}")
}

/// The spec for what the user asked; `Err` when the tool is not installed. `find` looks
/// a program up on the PATH (passed in: `cli/` touches nothing on the system).
pub fn spec(
    args: &WrapArgs,
    online_cpus: usize,
    find: &dyn Fn(&[&str]) -> Option<PathBuf>,
) -> Result<WrapSpec, String> {
    let name_of = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string()
    };
    let wrapped = args.wrapped()?;
    let mut s = match wrapped {
        Wrapped::Command(argv) => WrapSpec {
            tool: Tool::of_command(&argv),
            name: name_of(Path::new(&argv[0])),
            command: argv,
            ..Default::default()
        },
        Wrapped::Geekbench => {
            let gb = find(&["geekbench6", "geekbench5"]).ok_or_else(|| {
                missing(
                    "Geekbench",
                    "geekbench6 or geekbench5",
                    "this version never downloads it: get it from https://www.geekbench.com/download/linux/ and put its binary on the PATH",
                )
            })?;
            WrapSpec {
                name: name_of(&gb),
                command: vec![gb.display().to_string()],
                tool: Tool::Geekbench,
                split: Split::PerCoreType,
                offline_others: true,
                all_core_runs: 2,
                ..Default::default()
            }
        }
        Wrapped::Pts(pts_args) => {
            let pts = find(&["phoronix-test-suite"]).ok_or_else(|| {
                missing(
                    "Phoronix Test Suite",
                    "phoronix-test-suite",
                    "install it (apt install phoronix-test-suite) and the tests (phoronix-test-suite install ARGS)",
                )
            })?;
            let mut command = vec![pts.display().to_string(), "batch-run".to_string()];
            command.extend(pts_args);
            WrapSpec {
                name: "Phoronix Test Suite".to_string(),
                command,
                env: vec![("PTS_SILENT_MODE".to_string(), "1".to_string())],
                tool: Tool::Pts,
                split: Split::PerCoreType,
                offline_others: true,
                ..Default::default()
            }
        }
        Wrapped::Stockfish => {
            let sf = find(&["stockfish"]).ok_or_else(|| {
                missing(
                    "Stockfish",
                    "stockfish",
                    "install it (apt install stockfish)",
                )
            })?;
            WrapSpec {
                name: "stockfish".to_string(),
                command: vec![sf.display().to_string()],
                // sbc-bench's bench line: hash 128 MB, every core, depth 24.
                stdin: Some(format!(
                    "bench 128 {} 24 default depth\nquit\n",
                    online_cpus.max(1)
                )),
                tool: Tool::Stockfish,
                all_core_runs: 3,
                ..Default::default()
            }
        }
    };
    if args.per_cluster {
        s.split = Split::PerCluster;
    } else if args.per_core_type {
        s.split = Split::PerCoreType;
    }
    s.offline_others |= args.offline_others;
    s.repeat = args.repeat.max(1);
    s.all_core_runs = s.all_core_runs.max(1);
    Ok(s)
}

impl super::run::ModeArgs for WrapArgs {
    const EXAMPLES: &'static [(&'static str, &'static str)] = &[
        (
            "sudo sbc-bench wrap --per-cluster -- ./mybench",
            "Any command per cluster, tuned and monitored",
        ),
        (
            "sudo sbc-bench wrap --geekbench",
            "Geekbench per core type (sbc-bench -G)",
        ),
    ];

    type Command = crate::run::wrap::WrapCommand;

    fn shared(&self) -> &super::run::SharedArgs {
        &self.shared
    }

    fn launch(
        &self,
        env: &super::run::LaunchEnv<'_>,
    ) -> Result<(RunConfig, ()), super::UsageError> {
        let run_args = super::run::RunArgs {
            shared: self.shared.clone(),
            ..Default::default()
        };
        let mut cfg = super::run_config(&run_args, env.var)?;
        cfg.kind = RunKind::Wrap(spec(self, (env.online_cpus)(), env.find_tool)?);
        Ok((cfg, ()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command, ModeCmd};
    use clap::Parser;

    fn parse(v: &[&str]) -> Result<WrapArgs, String> {
        let c = Cli::try_parse_from(v).map_err(|e| e.to_string())?;
        match c.command {
            Some(Command::Mode(ModeCmd::Wrap(w))) => Ok(w),
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
