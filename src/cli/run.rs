//! `sbc-bench run` (and `sbc-bench` without a subcommand): the standard run.

use std::path::PathBuf;

use clap::Args;

use crate::cli::UsageError;
use crate::record::config::{DEFAULT_LOG, RunConfig, UNATTENDED_MAX_WAIT};
use crate::run::drive::ModeCommand;
use crate::run::standard::StandardCommand;

/// What reading a mode's arguments may ask of the machine, given by `app` (the CLI
/// itself touches nothing on the system).
pub struct LaunchEnv<'a> {
    /// An environment variable (`MODE`, `MaxKHz`, `ExecuteCommand` …).
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// How many CPUs are online (wrap's `--per-core`).
    pub online_cpus: &'a dyn Fn() -> usize,
    /// The first of these programs found on the `PATH` (wrap's tools).
    pub find_tool: &'a dyn Fn(&[&str]) -> Option<PathBuf>,
}

/// A mode's arguments on the run engine: the options every mode shares and, read once,
/// the run's config and the mode's own options for its command (`run::drive`).
/// `app::modes` runs every mode through this.
pub trait ModeArgs {
    /// Two or three examples of the mode's command: the end of its `--help`
    /// ("Examples:") and its man page's EXAMPLES (`cli::docs::examples_of`).
    const EXAMPLES: &'static [(&'static str, &'static str)];

    /// The mode's command.
    type Command: ModeCommand;

    /// The options every mode shares.
    fn shared(&self) -> &SharedArgs;

    /// The run's config and the mode's own options; a usage error otherwise.
    fn launch(
        &self,
        env: &LaunchEnv<'_>,
    ) -> Result<(RunConfig, <Self::Command as ModeCommand>::Options), UsageError>;
}

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

/// The standard run's settings from its flags and sbc-bench's environment variables
/// (`env` is passed in so tests do not depend on the process environment). A bad `MODE`,
/// `MaxKHz` or `MinKHz` is a usage error (the message), as `bench clock` refuses them.
pub fn run_config(
    args: &RunArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<RunConfig, String> {
    let modes = super::modes_from_env(env("MODE").as_deref())?;
    let mode = |m: &str| modes.iter().any(|x| x == m);
    let yes = |k: &str| super::yes_no_from_env(k, env(k).as_deref());
    let khz = |k: &str| super::khz_from_env(k, env(k).as_deref());
    let (max_khz, min_khz) = (khz("MaxKHz")?, khz("MinKHz")?);
    super::check_khz_range(max_khz, min_khz, ("MaxKHz", "MinKHz"))?;
    let unattended = args.shared.unattended || mode("unattended");
    Ok(RunConfig {
        stress: args.stress,
        quick: args.shared.quick,
        extensive: args.extensive || mode("extensive"),
        unattended,
        max_wait_s: args
            .shared
            .max_wait
            .or_else(|| unattended.then_some(UNATTENDED_MAX_WAIT.as_secs())),
        log: args
            .shared
            .log
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_LOG)),
        json: args.shared.json.clone(),
        markdown: args.shared.markdown.clone(),
        no_redact: args.shared.no_redact,
        fake_benchmarks: args.shared.fake_benchmarks,
        not_ready_yet: yes("NotReadyYet")?,
        no_tuning: yes("NOTUNING")?,
        max_khz,
        min_khz,
        power: super::power_spec(args.shared.power.as_deref(), env("Netio").as_deref())?,
        kind: crate::record::config::RunKind::Standard,
    })
}

impl ModeArgs for RunArgs {
    const EXAMPLES: &'static [(&'static str, &'static str)] = &[
        (
            "sudo sbc-bench run",
            "The standard run, log in /var/log/sbc-bench.log",
        ),
        (
            "sudo sbc-bench run -c --json run.json",
            "With 5 minutes of stress test, the whole run as JSON",
        ),
        (
            "sudo sbc-bench run --markdown review.md",
            "Also the Markdown review to paste (identifiers redacted)",
        ),
    ];

    type Command = StandardCommand;

    fn shared(&self) -> &SharedArgs {
        &self.shared
    }

    fn launch(&self, env: &LaunchEnv<'_>) -> Result<(RunConfig, ()), UsageError> {
        Ok((super::run_config(self, env.var)?, ()))
    }
}
