//! `sbc-bench report [RUN] [--html FILE] [--markdown FILE] [--no-redact]`: the HTML (or
//! Markdown) report of one run.

use std::path::PathBuf;

use clap::Args;

use crate::cli::results::DbArg;

/// Where `report` writes the page when neither `--html` nor `--markdown` is given.
pub const DEFAULT_HTML: &str = "sbc-bench-report.html";

/// `sbc-bench report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The run: a stored run's number (`#12`), our run JSON (`run --json`) or a log (the
    /// last run in it) [default: the last run stored in the results database].
    #[arg(value_name = "RUN")]
    pub run: Option<PathBuf>,
    /// Write the HTML page here (`-`: standard output) [default, when --markdown is not
    /// given either: ./sbc-bench-report.html].
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write the Markdown form here (`-`: standard output).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Keep identifiers (hostname, addresses, serials…; docs/PRIVACY.md).
    #[arg(long)]
    pub no_redact: bool,
    #[command(flatten)]
    pub db: DbArg,
}
