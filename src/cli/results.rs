//! `sbc-bench results …` and `sbc-bench compare`: reading result logs and setting a run
//! beside the published ones.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::cli::UsageError;
use crate::results::compare::Metric;
use crate::results::lookup::{RunRef, db_path};
use crate::results::store_index::{ListQuery, RunSort};

/// `sbc-bench results`.
#[derive(Debug, Args)]
pub struct ResultsArgs {
    #[command(subcommand)]
    pub command: ResultsCommand,
    #[command(flatten)]
    pub db: DbArg,
}

/// The results database to use.
#[derive(Debug, Clone, Default, Args)]
pub struct DbArg {
    /// The results database [default: /var/lib/sbc-bench/results.db as root, else
    /// $XDG_DATA_HOME/sbc-bench/results.db] (docs/RESULTS-DB.md).
    #[arg(long, value_name = "PATH", env = "SBC_BENCH_DB", global = true)]
    pub db: Option<PathBuf>,
}

/// The export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Csv,
    Json,
    Yaml,
    /// Jeff Geerling's sbc-reviews `results.yml` items (his field names; what a run does
    /// not measure is null; ours follow under `sbc_bench:`).
    Geerling,
}

/// What to do with results.
#[derive(Debug, Subcommand)]
pub enum ResultsCommand {
    /// Read one result file and print what it holds, without storing it: a log of the
    /// bash sbc-bench (any version, v0.4 to v0.9.72; pasted, CRLF or coloured too), one
    /// of ours, or our run JSON (`run --json`).
    Parse(ParseArgs),
    /// Store result files in the database: logs of the bash sbc-bench (every run of an
    /// appended log), ours, our run JSON; a directory imports the files in it. A file
    /// stored before is not stored twice.
    Import(ImportArgs),
    /// The stored runs, a line each.
    List(ListArgs),
    /// One stored run: what was read from it, or the document itself.
    Show(ShowArgs),
    /// Every stored run's columns as CSV, JSON (`sbc-bench-results-export`) or YAML on
    /// standard output, with home paths redacted (docs/PRIVACY.md).
    Export(ExportArgs),
    /// Delete a stored run.
    Delete(DeleteArgs),
}

/// `sbc-bench results import PATH…`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files or directories.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,
}

/// `sbc-bench results list [--soc S] [--device D] [--since DATE] [--sort KEY] [--limit N] [--json]`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only runs of this SoC (`RK3588`; the `soc` column, case does not matter).
    #[arg(long, value_name = "SOC")]
    pub soc: Option<String>,
    /// Only runs whose device contains this text (`ROCK 5`).
    #[arg(long, value_name = "TEXT")]
    pub device: Option<String>,
    /// Only runs on or after this date (`2024-05-01`, or an RFC 3339 time).
    #[arg(long, value_name = "DATE", value_parser = parse_since)]
    pub since: Option<String>,
    /// Order: id (as stored), date (oldest first), device, soc, or a metric best first:
    /// 7zip-multi, 7zip-single, aes, memcpy, memset, khs, latency (ramlat at 128 MiB,
    /// lowest first).
    #[arg(long, value_name = "KEY", value_parser = parse_sort)]
    pub sort: Option<RunSort>,
    /// At most N runs.
    #[arg(long, value_name = "N")]
    pub limit: Option<u32>,
    /// Print the rows as JSON (`sbc-bench-results-list`, docs/schema/).
    #[arg(long)]
    pub json: bool,
}

impl ListArgs {
    /// The store's query.
    pub fn query(&self) -> ListQuery {
        ListQuery {
            soc: self.soc.clone(),
            device: self.device.clone(),
            since: self.since.clone(),
            sort: self.sort,
            limit: self.limit,
        }
    }
}

fn parse_since(s: &str) -> Result<String, String> {
    crate::results::store_index::since_utc(s)
}

fn parse_sort(s: &str) -> Result<RunSort, String> {
    s.parse()
}

/// `sbc-bench results show ID [--json | --document]`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The run's number (`results list`), with or without `#`.
    #[arg(value_name = "ID", value_parser = parse_id)]
    pub id: i64,
    /// Print the record read from the document as JSON.
    #[arg(long, conflicts_with = "document")]
    pub json: bool,
    /// Print the document as it was stored (the run JSON or the log).
    #[arg(long)]
    pub document: bool,
}

/// `sbc-bench results export [--format F] [--no-redact]`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: ExportFormat,
    /// Keep home paths in the source paths.
    #[arg(long)]
    pub no_redact: bool,
}

/// `sbc-bench results delete ID`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The run's number (`results list`).
    #[arg(value_name = "ID", value_parser = parse_id)]
    pub id: i64,
}

/// A stored run's number: `12` or `#12`.
pub fn parse_id(s: &str) -> Result<i64, String> {
    s.trim_start_matches('#')
        .parse::<i64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| "not a run number (see `sbc-bench results list`)".to_string())
}

/// The run a command names: `#N` (or `N` when no such file exists) is a stored run's
/// number, anything else a file; nothing given is the default.
pub fn run_ref(run: Option<&Path>) -> RunRef {
    let Some(p) = run else {
        return RunRef::Default;
    };
    let g = p.to_string_lossy();
    let by_number = g.starts_with('#') || !p.exists();
    match by_number.then(|| parse_id(&g).ok()).flatten() {
        Some(id) => RunRef::Stored(id),
        None => RunRef::File(p.to_path_buf()),
    }
}

impl DbArg {
    /// The database to use: `--db`, else the default one; no default (HOME is not set)
    /// is a usage error.
    pub fn path(&self) -> Result<PathBuf, UsageError> {
        db_path(self.db.as_deref())
            .ok_or_else(|| "no results database: give --db PATH (HOME is not set)".into())
    }
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
    /// The run to compare: a stored run's number (`#12`), a log (the last run in it) or
    /// our run JSON [default: the last run stored in the results database, else the
    /// default log, /var/log/sbc-bench.log]. Runs imported into the database are compared
    /// beside the published rows.
    #[arg(value_name = "RUN")]
    pub run: Option<PathBuf>,
    #[command(flatten)]
    pub db: DbArg,
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
    /// Set RUN beside this run (a stored run's number, a log or a run JSON; repeatable):
    /// every metric at once, the better direction marked, the spread of repeats.
    #[arg(long = "with", value_name = "RUN", conflicts_with = "history")]
    pub with: Vec<PathBuf>,
    /// The stored runs of the run's SoC (or --soc, --device) in date order: when a metric
    /// moved beyond its run-to-run spread, and what changed between the runs.
    #[arg(long)]
    pub history: bool,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_metric(s: &str) -> Result<Metric, String> {
    s.parse()
}

/// `sbc-bench share [RUN] [--to URL] [--no-redact] [--dry-run]`.
#[derive(Debug, Args)]
pub struct ShareArgs {
    /// The run whose log to send: a stored run's number (`#12`) or a log (its last run)
    /// [default: the last run stored in the results database, else the default log].
    #[arg(value_name = "RUN")]
    pub run: Option<PathBuf>,
    /// The paste service: a 0x0.st-style endpoint taking a multipart `file` upload and
    /// answering with the URL.
    #[arg(long, value_name = "URL", default_value = crate::results::share::DEFAULT_SERVICE)]
    pub to: String,
    /// Send identifiers (hostname, addresses, serials…) as they are.
    #[arg(long)]
    pub no_redact: bool,
    /// Print what would be sent; send nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub db: DbArg,
}

/// Where a mode's run is stored (review, thermal, graph, wrap: as `run --db`/`--no-store`).
#[derive(Debug, Clone, Default, Args)]
pub struct StoreArgs {
    /// Store the run in this results database [default: /var/lib/sbc-bench/results.db
    /// as root, else $XDG_DATA_HOME/sbc-bench/results.db; runs over a --sysroot tree or
    /// with canned results are stored only when a database is named].
    #[arg(long, value_name = "PATH", env = "SBC_BENCH_DB")]
    pub db: Option<PathBuf>,

    /// Do not store the run in the results database (wins over --db).
    #[arg(long)]
    pub no_store: bool,
}

impl StoreArgs {
    /// Where the run goes, for `run::drive`.
    pub fn choice(&self) -> crate::run::seam::StoreChoice {
        crate::run::seam::StoreChoice {
            db: self.db.clone(),
            no_store: self.no_store,
        }
    }
}
