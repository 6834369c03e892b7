//! `sbc-bench run` (and `sbc-bench` without a subcommand): the standard run.

use std::path::PathBuf;

use clap::Args;

/// The options every mode shares (run, thermal, graph, review, wrap), declared once and
/// flattened into each command's.
#[derive(Debug, Clone, Args, Default)]
pub struct SharedArgs {
    /// Shorten every benchmark (smoke tests, CI).
    #[arg(long)]
    pub quick: bool,

    /// Never prompt; give up with an error when the system does not become idle
    /// (MODE=unattended).
    #[arg(long)]
    pub unattended: bool,

    /// Longest wait for the system to become idle, in seconds.
    #[arg(long, value_name = "SECONDS", value_parser = super::parse_seconds)]
    pub max_wait: Option<u64>,

    /// Full log file [default: /var/log/sbc-bench.log].
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Write the whole run as one JSON document to FILE (rewritten after every step).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write a Markdown review to FILE (the row, the verdict, the findings and the
    /// summary: what a reviewer pastes), with hostnames, addresses, serials and chip IDs
    /// redacted (docs/PRIVACY.md).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Keep identifiers in the Markdown review.
    #[arg(long, requires = "markdown")]
    pub no_redact: bool,

    // The doc comment is the --help text: `rapl[:ZONE]` is a syntax, not a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    /// Read a power meter during the run: idle mW, mW and energy per benchmark, MIPS per
    /// watt. netio:HOST/SOCKET, hwmon:NAME[/CHANNEL], rapl[:ZONE], pi5-pmic,
    /// fnirsi[:/dev/hidrawN] or auto (docs/POWER.md; also sbc-bench's Netio=HOST/SOCKET).
    #[arg(long, value_name = "SPEC")]
    pub power: Option<String>,

    /// Return canned benchmark results instantly (tests of orchestration and reports;
    /// `wrap` still runs its command).
    #[arg(long, hide = true)]
    pub fake_benchmarks: bool,

    #[command(flatten)]
    pub store: super::results::StoreArgs,
}

/// Options of the standard run.
#[derive(Debug, Clone, Args, Default)]
pub struct RunArgs {
    /// Add the 5-minute scrypt stress test (cpuminer in sbc-bench), as sbc-bench -c.
    #[arg(short = 'c', long = "stress")]
    pub stress: bool,

    /// Add what sbc-bench's extensive mode adds (MODE=extensive).
    #[arg(long)]
    pub extensive: bool,

    #[command(flatten)]
    pub shared: SharedArgs,
}
