//! `sbc-bench results …` and `sbc-bench compare`: reading result logs and setting a run
//! beside the published ones.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::results::compare::Metric;

/// `sbc-bench results`.
#[derive(Debug, Args)]
pub struct ResultsArgs {
    #[command(subcommand)]
    pub command: ResultsCommand,
}

/// What to do with results.
#[derive(Debug, Subcommand)]
pub enum ResultsCommand {
    /// Read one result file and print what it holds, without storing it: a log of the
    /// bash sbc-bench (any version, v0.4 to v0.9.72; pasted, CRLF or coloured too), one
    /// of ours, or our run JSON (`run --json`).
    Parse(ParseArgs),
}

/// `sbc-bench results parse FILE [--json]`.
#[derive(Debug, Args)]
pub struct ParseArgs {
    /// The file to read.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print the record as JSON (its `results_row` has the run JSON's keys).
    #[arg(long)]
    pub json: bool,
}

/// `sbc-bench compare [RUN] [--soc S | --device D] [--metric M] [--json]`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The run to compare: a log (the last run in it) or our run JSON [default: the
    /// default log, /var/log/sbc-bench.log].
    #[arg(value_name = "RUN")]
    pub run: Option<PathBuf>,
    /// Published rows of this SoC (`RK3588`) [default: the run's SoC guess; where no
    /// published row has it, the rows of the run's core types].
    #[arg(long, value_name = "SOC", conflicts_with = "device")]
    pub soc: Option<String>,
    /// Published rows whose device contains this text (`ROCK 5`).
    #[arg(long, value_name = "TEXT", conflicts_with = "core_type")]
    pub device: Option<String>,
    /// Published rows whose log names this core type (`Cortex-A76`).
    #[arg(long, value_name = "TYPE", conflicts_with = "soc")]
    pub core_type: Option<String>,
    /// The column to sort by: 7zip-multi, 7zip-single, aes, memcpy, memset, khs.
    #[arg(long, value_name = "M", default_value = "7zip-multi", value_parser = parse_metric)]
    pub metric: Metric,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_metric(s: &str) -> Result<Metric, String> {
    s.parse()
}
