//! What the user typed, validated into typed arguments. Touches nothing on the system.
//!
//! sbc-bench's short flags are accepted as aliases of the subcommands (`-m` = `monitor`,
//! `-S` = `storage`, `-c` = `run -c`), see [`legacy`].

pub mod bench;
pub mod docs;
pub mod graph;
pub mod kernel;
pub mod legacy;
pub mod manual;
pub mod monitor;
pub mod net;
pub mod report;
pub mod results;
pub mod review;
pub mod root;
pub mod run;
pub mod storage;
pub mod thermal;
pub mod units;
pub mod wrap;

/// A command line that cannot be carried out ([`crate::output::usage`]).
pub use crate::output::usage::UsageError;
pub use run::run_config;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::sys::root::SysRoot;

/// Benchmark a single-board computer or small server and explain the numbers.
#[derive(Debug, Parser)]
#[command(
    name = "sbc-bench",
    version = docs::VERSION,
    about = "Benchmark a single-board computer or small server, and explain the numbers.",
    long_about = "Benchmark a single-board computer or small server the way sbc-bench does: \
in a controlled environment, with measured (not advertised) clock speeds, monitoring while \
benchmarks run, and a report that says whether the numbers can be trusted and why.\n\n\
Without a subcommand, runs the standard benchmark (`sbc-bench run`).",
    after_help = LEGACY_HELP,
    after_long_help = docs::long_after_help()
)]
pub struct Cli {
    /// Read /proc, /sys and /etc from DIR instead of / (a fixture tree captured from a board).
    /// Without it, SBC_BENCH_SYSROOT=DIR does the same; an empty SBC_BENCH_SYSROOT counts as
    /// unset. The tree is only read: nothing is written there (governors stay as they are)
    /// unless --sysroot-writable is given.
    // Not clap's `env = …`: clap rejects an empty variable ("a value is required for
    // '--sysroot'") although the user never typed the option. See [`Cli::sysroot`].
    // Hidden from `--help` (a test option; every help ends with docs::TESTING_NOTE instead),
    // listed in the top man page's OPTIONS.
    #[arg(long, global = true, help_heading = GLOBAL, value_name = "DIR", hide_short_help = true, hide_long_help = true)]
    pub sysroot: Option<PathBuf>,

    /// Let tuning write to the --sysroot tree (tests of the restoring guard on a writable
    /// copy of a fixture). Without it a --sysroot tree is never written.
    #[arg(long, global = true, help_heading = GLOBAL, hide_short_help = true, hide_long_help = true)]
    pub sysroot_writable: bool,

    /// Hide identifiers in every output, JSON included (hostname, serial numbers, the
    /// unique part of chip IDs, MAC and IP addresses, home paths: docs/PRIVACY.md), for
    /// pasting into forums and issues (inxi's -z). The Markdown review and the report page
    /// are redacted without it.
    #[arg(short = 'z', long, global = true, help_heading = GLOBAL)]
    pub redact: bool,

    /// Never colour output (NO_COLOR in the environment does the same).
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub no_color: bool,

    /// What to do; without one, the standard run.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Options of the standard run when no subcommand is given.
    #[command(flatten)]
    pub run: run::RunArgs,
}

/// The heading of the options every command takes, in every `--help`.
pub const GLOBAL: &str = "Global options";

/// sbc-bench's mode flags in `-h`: `-c` is an option of the run and listed by clap; `-m`,
/// `-S`, `-G`, `-P` and `-s` are rewritten into subcommands before clap sees them ([`legacy`]), so clap
/// would not list them.
pub const LEGACY_HELP: &str = "\
sbc-bench's short modes:
  -c                        The standard run with the stress test (= run -c)
  -m [SECONDS]              Monitor clocks, load and temperature (= monitor [SECONDS])
  -S                        List storage devices and what they sit behind (= storage)
  -k                        Kernel info: version number and vendor/BSP check (= kernel)
  -t [°C]                   Thermal test: cool to °C (50), then 5 min of load (= thermal --cool-to)
  -T [°C]                   Thermal test: heat up to °C (50) first (= thermal --heat-to)
  -M                        Memory controller throttling test (= thermal --memory-controller)
  -r, -j                    Review mode (= review)
  -R                        Review mode without benchmarks (= review --no-benchmarks)
  -g [WHAT]                 Efficiency graph: MIPS, °C and mW per cpufreq OPP (= graph [WHAT])
  -G                        Geekbench per core type and twice on all cores (= wrap --geekbench)
  -P ARGS                   Phoronix Test Suite batch-run ARGS likewise (= wrap --pts ARGS)
  -s                        Stockfish bench three times (= wrap --stockfish)";

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The standard benchmark run: tune, benchmark, monitor, validate, report.
    Run(run::RunArgs),
    /// Describe the machine: device, SoC, CPU topology, cpufreq, memory, sensors.
    Info(InfoArgs),
    /// Watch clocks, load, temperature and the busiest core live (sbc-bench -m).
    Monitor(MonitorArgs),
    /// Run one native benchmark.
    Bench(bench::BenchArgs),
    /// iperf3-compatible network throughput test with bottleneck diagnosis.
    Net(net::NetArgs),
    /// List storage devices and what they sit behind (sbc-bench -S), or benchmark one.
    Storage(storage::StorageArgs),
    /// Put back settings a killed run left changed (from /run/sbc-bench/tuning.json).
    Restore(RestoreArgs),
    /// Read result logs of sbc-bench (every version) and of ours; the results database.
    Results(results::ResultsArgs),
    /// Set a run beside the published sbc-bench results of the same SoC, and say why the
    /// numbers differ.
    Compare(results::CompareArgs),
    /// Upload a run's log, redacted, to a paste service and print its URL.
    Share(results::ShareArgs),
    /// Is the kernel current (end of life, revisions behind) and is it a vendor/BSP kernel?
    /// (sbc-bench -k; offline, with a dated release table.)
    Kernel(kernel::KernelArgs),
    /// The modes on the run engine beside the standard run (thermal, review, graph, wrap).
    #[command(flatten)]
    Mode(ModeCmd),
    /// Print a completion script for SHELL (bash, zsh, fish, elvish, powershell).
    Completions(docs::CompletionsArgs),
    /// Print the manual page (roff): `sbc-bench manpage | man -l -`.
    Manpage(docs::ManpageArgs),
    /// A self-contained HTML report of one run (summary, findings, clocks, latency,
    /// bandwidth, AES, 7-Zip, the monitor's recording, known boards), or its Markdown form.
    Report(report::ReportArgs),
}

/// The modes on the run engine beside the standard run, each with its arguments
/// ([`run::ModeArgs`]), listed once: their subcommands (in this order, flattened into
/// [`Command`]), how `app` runs each ([`ModeCmd::visit`]) and their examples
/// ([`mode_examples`]). A new mode is one line here.
macro_rules! modes {
    ($($(#[doc = $doc:expr])* $variant:ident($args:ty),)*) => {
        /// The modes on the run engine beside the standard run.
        #[derive(Debug, Subcommand)]
        pub enum ModeCmd {
            $($(#[doc = $doc])* $variant($args),)*
        }

        impl ModeCmd {
            /// Hand the mode's arguments, as their own type, to `v`.
            pub fn visit<V: ModeVisit>(&self, v: V) -> V::Out {
                match self {
                    $(Self::$variant(a) => v.visit(a),)*
                }
            }
        }

        /// The examples of the mode on the engine named `name` (`run` and the others);
        /// `None` for any other command.
        pub fn mode_examples(name: &str) -> Option<&'static [(&'static str, &'static str)]> {
            use run::ModeArgs;
            if name == "run" {
                return Some(run::RunArgs::EXAMPLES);
            }
            $(if stringify!($variant).eq_ignore_ascii_case(name) {
                return Some(<$args>::EXAMPLES);
            })*
            None
        }
    };
}

modes! {
    /// Thermal test: cool the SoC down to a temperature (or heat it there), then minutes of
    /// scrypt on all cores while monitoring; or the memory-controller throttling test
    /// (sbc-bench -t, -T, -M).
    Thermal(thermal::ThermalArgs),
    /// The review a board reviewer publishes (sbc-bench -r, -j; -R = --no-benchmarks),
    /// then watch until Ctrl-C or until COMMAND exits, and report what changed.
    Review(review::ReviewArgs),
    /// Efficiency graph (sbc-bench -g): 7-Zip MIPS, temperature and mW at every cpufreq
    /// OPP, as sbc-bench's table, SVG charts and an HTML page.
    Graph(graph::GraphArgs),
    /// Run any command (Geekbench, PTS, stockfish, a script) under the run's controls:
    /// tuned, monitored, validated, per cluster or core type (sbc-bench -G, -P, -s).
    Wrap(wrap::WrapArgs),
}

/// What is done with a mode's arguments, whichever mode's they are (`app::modes` runs
/// them): a function generic over [`run::ModeArgs`], as a type.
pub trait ModeVisit {
    /// What the visit returns.
    type Out;

    /// Visit the arguments of one mode.
    fn visit<A: run::ModeArgs>(self, args: &A) -> Self::Out;
}

/// `sbc-bench info`.
#[derive(Debug, Clone, Args, Default)]
pub struct InfoArgs {
    /// Print one versioned JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `sbc-bench monitor [SECONDS]`.
#[derive(Debug, Clone, Args)]
pub struct MonitorArgs {
    /// Sampling interval in seconds (fractions allowed, e.g. 0.5).
    // `allow_negative_numbers`: `-1` reaches the parser, which says why it is wrong, instead
    // of clap's "unexpected argument" tip.
    #[arg(value_name = "SECONDS", default_value = "5", value_parser = parse_interval,
          allow_negative_numbers = true)]
    pub interval: f64,

    /// Stop after N samples (N lines; the first shows the averages since boot).
    #[arg(long, short = 'n', value_name = "N", value_parser = parse_count,
          allow_negative_numbers = true)]
    pub count: Option<u64>,

    /// Also show every core's utilisation and clock.
    #[arg(long)]
    pub cores: bool,

    /// Print one JSON object per sample (JSON lines) instead of the table; includes swap
    /// and per-core softirq rates.
    #[arg(long)]
    pub json: bool,

    /// Sample every counter the monitor can read (every IRQ line, interface and block
    /// device, this process and some of its threads) on top of `--json`'s: the worst case
    /// `scripts/monitor-cost.sh` measures. Hidden: not for users.
    #[arg(long, hide = true)]
    pub all_counters: bool,

    // The doc comment is the --help text: `rapl[:ZONE]` is a syntax, not a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    /// Read a power meter and add an mW column: netio:HOST/SOCKET, hwmon:NAME[/CHANNEL],
    /// rapl[:ZONE], pi5-pmic, fnirsi[:/dev/hidrawN] or auto (docs/POWER.md; also
    /// sbc-bench's Netio=HOST/SOCKET).
    #[arg(long, value_name = "SPEC")]
    pub power: Option<String>,

    /// Serve the readings node_exporter lacks at http://ADDR:PORT/metrics (Prometheus
    /// text format) while monitoring; a bare PORT listens on 127.0.0.1 only
    /// (docs/PROMETHEUS.md).
    #[arg(long, value_name = "[ADDR:]PORT")]
    pub prometheus: Option<String>,

    /// Write the same metrics to DIR/sbc-bench.prom after every sample, atomically, for
    /// node_exporter's textfile collector.
    #[arg(long, value_name = "DIR")]
    pub textfile: Option<std::path::PathBuf>,

    /// With --prometheus or --textfile: also export a finished run's scores from its
    /// run JSON (`run --json FILE`), read again whenever the file changes.
    #[arg(long, value_name = "FILE")]
    pub scores: Option<std::path::PathBuf>,

    /// Print no table (or JSON lines) on stdout: only export (--prometheus, --textfile).
    #[arg(long)]
    pub quiet: bool,
}

/// `sbc-bench restore [--force]`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RestoreArgs {
    /// Restore even what a run that still seems to be running changed (its process id,
    /// start time and executable match) and while another sbc-bench holds the machine.
    #[arg(long)]
    pub force: bool,
}

/// A bad value in the words clap uses for its own (`error: invalid value 'abc' for
/// '--max-wait <SECONDS>': not a whole number of seconds`), for the values clap does not
/// see: sbc-bench's environment variables (`MaxKHz`, `MODE`). Value parsers return only
/// the reason (`not a number of seconds`); clap puts the same words around it.
pub fn invalid_value(value: &str, name: &str, why: &str) -> String {
    format!("invalid value '{value}' for '{name}': {why}")
}

/// Parse `--count`: a whole number of samples, at least one.
pub fn parse_count(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("not a whole number of samples (1 or more)".into()),
    }
}

/// Parse a positive interval (seconds, or [`units`]'s grammar: `0.5`, `500ms`, `1m`), at
/// least 10 ms and at most a day.
pub fn parse_interval(s: &str) -> Result<f64, String> {
    units::parse_duration_in(s, std::time::Duration::from_millis(10), units::DAY)
        .map(|d| d.as_secs_f64())
}

/// Parse a number of seconds (`--max-wait 600`, `--max-wait 10m`; [`units`]'s grammar),
/// rounded up to whole seconds.
pub fn parse_seconds(s: &str) -> Result<u64, String> {
    units::parse_whole_seconds(s)
}

/// Parse a clock in kHz (`--max-khz`, `MaxKHz`).
pub fn parse_khz(s: &str) -> Result<u64, String> {
    s.trim()
        .parse()
        .map_err(|_| "not a frequency in kHz (e.g. 1800000)".to_string())
}

/// sbc-bench's `MaxKHz`/`MinKHz`: unset or empty means no limit; anything else must be a
/// number of kHz, or it is refused in [`invalid_value`]'s words.
pub fn khz_from_env(name: &str, value: Option<&str>) -> Result<Option<u64>, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(v) => parse_khz(v)
            .map(Some)
            .map_err(|why| invalid_value(v, name, &why)),
    }
}

/// A yes/no variable of sbc-bench's (`NotReadyYet`, `NOTUNING`): unset, empty, `no`,
/// `0`, `false` or `off` is no; `yes`, `1`, `true` or `on` is yes (any case); anything
/// else is refused in [`invalid_value`]'s words, as `MODE` is (`NOTUNING=2` meant "no"
/// without a word).
pub fn yes_no_from_env(name: &str, value: Option<&str>) -> Result<bool, String> {
    let Some(v) = value.map(str::trim) else {
        return Ok(false);
    };
    match v.to_ascii_lowercase().as_str() {
        "" | "no" | "0" | "false" | "off" => Ok(false),
        "yes" | "1" | "true" | "on" => Ok(true),
        _ => Err(invalid_value(v, name, "not yes or no")),
    }
}

/// A clock range whose maximum is below its minimum walks no OPP at all: refused with
/// both values named (`MaxKHz` below `MinKHz` was taken without a word).
pub fn check_khz_range(
    max: Option<u64>,
    min: Option<u64>,
    (max_name, min_name): (&str, &str),
) -> Result<(), String> {
    match (max, min) {
        (Some(hi), Some(lo)) if hi < lo => Err(format!(
            "{max_name} ({hi}) is below {min_name} ({lo}): no clock is in that range"
        )),
        _ => Ok(()),
    }
}

/// The modes sbc-bench's `MODE` takes (comma-separated, any case).
pub const MODES: &[&str] = &["unattended", "extensive"];

/// sbc-bench's `MODE`: empty or a comma-separated list of [`MODES`]; anything else is
/// refused, as a mistyped `MODE=unatended` would otherwise run attended without a word.
pub fn modes_from_env(value: Option<&str>) -> Result<Vec<String>, String> {
    let v = value.unwrap_or_default();
    let modes: Vec<String> = v
        .split(',')
        .map(|m| m.trim().to_ascii_lowercase())
        .filter(|m| !m.is_empty())
        .collect();
    match modes.iter().find(|m| !MODES.contains(&m.as_str())) {
        Some(_) => Err(invalid_value(
            v.trim(),
            "MODE",
            &format!("not one of {}", MODES.join(", ")),
        )),
        None => Ok(modes),
    }
}

/// The command line's clap definition as users see it: [`Cli`]'s, with every subcommand's
/// `--help` ending in its examples and the testing note ([`docs::subcommand_after_help`]).
/// What parses the command line, `--help`, the man pages and the completions all use it.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    fn attach(cmd: clap::Command, path: &str) -> clap::Command {
        let names: Vec<String> = cmd
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .filter(|n| n != "help")
            .collect();
        let mut cmd = cmd;
        for n in names {
            let sub_path = if path.is_empty() {
                n.clone()
            } else {
                format!("{path} {n}")
            };
            cmd = cmd.mut_subcommand(&n, |sub| {
                let after = docs::subcommand_after_help(&sub_path);
                attach(sub, &sub_path)
                    .after_help(after.clone())
                    .after_long_help(after)
            });
        }
        cmd
    }
    attach(Cli::command(), "")
}

impl Cli {
    /// Parse `argv` (sbc-bench's legacy flags already rewritten) with [`command`].
    pub fn try_parse_argv(argv: &[OsString]) -> Result<Self, clap::Error> {
        use clap::FromArgMatches;
        let mut m = command().try_get_matches_from(argv)?;
        Self::from_arg_matches_mut(&mut m)
    }

    /// Parse `std::env::args`, with sbc-bench's legacy flags rewritten first. Exits with a
    /// usage error (status 2) on bad input, as clap does.
    pub fn parse_env() -> Self {
        let argv = match legacy::rewrite(std::env::args_os().collect()) {
            Ok(argv) => argv,
            Err(msg) => {
                eprintln!("error: {msg}");
                std::process::exit(crate::output::Outcome::Usage.code());
            }
        };
        match Self::try_parse_argv(&argv) {
            Ok(cli) => cli,
            Err(e) if e.kind() == clap::error::ErrorKind::InvalidSubcommand => {
                eprint!(
                    "{}",
                    with_available_subcommands(&e.render().to_string(), &argv)
                );
                std::process::exit(crate::output::Outcome::Usage.code());
            }
            Err(e) => e.exit(),
        }
    }
}

/// What was typed names no subcommand (`sbc-bench bench foo`): clap's message, with the
/// subcommands the command does have after its first line (`available benchmarks: clock,
/// membw, …`), because clap only suggests names that look alike.
pub fn with_available_subcommands(message: &str, argv: &[OsString]) -> String {
    let mut cmd = command();
    for a in argv.iter().skip(1).filter_map(|a| a.to_str()) {
        if a.starts_with('-') {
            continue;
        }
        match cmd.find_subcommand(a) {
            Some(sub) => cmd = sub.clone(),
            None => break,
        }
    }
    let names: Vec<&str> = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name())
        .collect();
    if names.is_empty() {
        return message.to_string();
    }
    let what = if cmd.get_name() == "bench" {
        "benchmarks"
    } else {
        "commands"
    };
    let (first, rest) = message.split_once('\n').unwrap_or((message, ""));
    format!(
        "{first}\n\n  available {what}: {}\n{rest}",
        names.join(", ")
    )
}

impl Cli {
    /// The root to read the system from: `--sysroot`, else `SBC_BENCH_SYSROOT`, with
    /// `CPUINFOFILE` overriding only `/proc/cpuinfo`. Empty variables count as unset.
    pub fn sysroot(&self) -> SysRoot {
        let root = resolve_root(
            self.sysroot.as_deref(),
            std::env::var_os("SBC_BENCH_SYSROOT"),
            std::env::var_os("CPUINFOFILE"),
        );
        if root.is_host() || self.sysroot_writable {
            root
        } else {
            root.read_only()
        }
    }
}

/// The root from the `--sysroot` option and the `SBC_BENCH_SYSROOT` and `CPUINFOFILE`
/// variables: the option beats the variable, an empty variable is unset.
pub fn resolve_root(
    option: Option<&std::path::Path>,
    sysroot_env: Option<OsString>,
    cpuinfo_env: Option<OsString>,
) -> SysRoot {
    let dir = option
        .map(PathBuf::from)
        .or_else(|| sysroot_env.filter(|v| !v.is_empty()).map(PathBuf::from));
    let root = match dir {
        Some(d) => SysRoot::new(d),
        None => SysRoot::host(),
    };
    match cpuinfo_env.filter(|v| !v.is_empty()) {
        Some(f) => root.with_cpuinfo_file(f),
        None => root,
    }
}

/// The power meter to read: `--power SPEC`, else sbc-bench's `Netio=HOST/SOCKET` (empty is
/// unset). A spec that names no meter is refused in [`invalid_value`]'s words; whether the
/// meter answers is for the command to find out.
pub fn power_spec(option: Option<&str>, netio: Option<&str>) -> Result<Option<String>, String> {
    let spec = match option {
        Some(o) => Some(o.trim().to_string()),
        None => netio.and_then(crate::sys::meter::MeterSpec::from_netio_env),
    };
    if let Some(s) = &spec {
        crate::sys::meter::MeterSpec::parse(s).map_err(|why| {
            let name = if option.is_some() {
                "--power <SPEC>"
            } else {
                "Netio"
            };
            let why = why
                .split_once("': ")
                .map_or(why.as_str(), |(_, w)| w)
                .to_string();
            invalid_value(s, name, &why)
        })?;
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
        command().debug_assert();
    }

    /// An example's words as the shell would pass them: `sudo` dropped, a redirection or
    /// pipe ends the command, '…' quotes kept together.
    fn example_argv(line: &str) -> Vec<OsString> {
        let mut words = Vec::new();
        let mut cur = String::new();
        let mut quoted = false;
        for c in line.chars() {
            match c {
                '\'' => quoted = !quoted,
                ' ' if !quoted => {
                    if !cur.is_empty() {
                        words.push(std::mem::take(&mut cur));
                    }
                }
                _ => cur.push(c),
            }
        }
        words.push(cur);
        words
            .into_iter()
            .skip_while(|w| w == "sudo")
            .take_while(|w| w != ">" && w != "|")
            .map(OsString::from)
            .collect()
    }

    /// Every example of every `--help` and man page is a command line that parses: a
    /// renamed option cannot leave a stale example behind.
    #[test]
    fn every_example_parses() {
        let all = docs::COMMAND_EXAMPLES
            .iter()
            .flat_map(|(_, e)| e.iter())
            .chain(docs::EXAMPLES.iter());
        for (line, _) in all {
            let argv = legacy::rewrite(example_argv(line)).unwrap();
            if let Err(e) = Cli::try_parse_argv(&argv) {
                panic!("example `{line}` does not parse: {e}");
            }
        }
    }

    /// Every subcommand (nested ones too) has two or three examples, or one where there is
    /// only one thing to do (`restore`, `results delete`).
    #[test]
    fn every_subcommand_has_examples() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for sub in cmd.get_subcommands().filter(|c| c.get_name() != "help") {
                let p = if path.is_empty() {
                    sub.get_name().to_string()
                } else {
                    format!("{path} {}", sub.get_name())
                };
                let n = docs::examples_of(&p).len();
                if n == 0 || n > 3 {
                    missing.push(format!("{p}: {n}"));
                }
                walk(sub, &p, missing);
            }
        }
        let mut missing = Vec::new();
        walk(&command(), "", &mut missing);
        assert!(missing.is_empty(), "examples: {missing:?}");
    }

    #[test]
    fn interval_parsing() {
        assert_eq!(parse_interval("0.5"), Ok(0.5));
        assert!(parse_interval("0").is_err());
        assert!(parse_interval("-1").is_err());
        assert!(parse_interval("abc").is_err());
        assert!(parse_interval("NaN").is_err());
        assert_eq!(parse_count("0"), parse_count("x"));
        assert_eq!(
            parse_seconds("abc").unwrap_err(),
            "not a duration (e.g. 300, 90s, 1.5m, 500ms, 1h30m)"
        );
        assert_eq!(parse_seconds("10m"), Ok(600));
        assert_eq!(parse_interval("500ms"), Ok(0.5));
    }

    #[test]
    fn empty_environment_variables_are_unset() {
        let os = |s: &str| Some(OsString::from(s));
        assert_eq!(resolve_root(None, os(""), os("")), SysRoot::host());
        assert_eq!(resolve_root(None, None, None), SysRoot::host());
        assert_eq!(resolve_root(None, os("/t"), None), SysRoot::new("/t"));
        let opt = std::path::Path::new("/opt");
        assert_eq!(
            resolve_root(Some(opt), os("/t"), None),
            SysRoot::new("/opt")
        );
        assert_eq!(
            resolve_root(None, None, os("/c")),
            SysRoot::host().with_cpuinfo_file("/c")
        );
    }

    /// sbc-bench's `Netio=HOST/SOCKET` is `--power netio:HOST/SOCKET`; the option wins, an
    /// empty variable is unset, and a spec naming no meter is refused before anything runs.
    #[test]
    fn netio_variable_maps_to_power_and_bad_specs_are_refused() {
        assert_eq!(
            power_spec(None, Some("powerbox-1.local/2")),
            Ok(Some("netio:powerbox-1.local/2".to_string()))
        );
        assert_eq!(
            power_spec(Some("rapl"), Some("powerbox-1.local/2")),
            Ok(Some("rapl".to_string()))
        );
        assert_eq!(power_spec(None, Some("")), Ok(None));
        assert_eq!(
            power_spec(None, Some("powerbox")).unwrap_err(),
            "invalid value 'netio:powerbox' for 'Netio': a Netio is netio:HOST/SOCKET (e.g. \
             netio:powerbox-1.local/2)"
        );
        let args = run::RunArgs {
            shared: run::SharedArgs {
                power: Some("hwmon:ina226".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let cfg = run_config(&args, &|_| None).unwrap();
        assert_eq!(cfg.power.as_deref(), Some("hwmon:ina226"));
    }

    /// `run` took `MaxKHz=abc` and `MODE=foo` silently (no clock limit, attended run)
    /// while `bench clock` refused them.
    #[test]
    fn run_refuses_bad_environment_values() {
        let with = |key: &'static str, v: &'static str| {
            run_config(&run::RunArgs::default(), &move |k| {
                (k == key).then(|| v.to_string())
            })
        };
        assert_eq!(
            with("MaxKHz", "abc").unwrap_err(),
            "invalid value 'abc' for 'MaxKHz': not a frequency in kHz (e.g. 1800000)"
        );
        assert!(with("MinKHz", "1.5GHz").is_err());
        assert_eq!(
            with("MODE", "foo").unwrap_err(),
            "invalid value 'foo' for 'MODE': not one of unattended, extensive"
        );
        assert!(with("MODE", "unattended,foo").is_err());
        assert!(with("MODE", "Unattended, extensive").is_ok_and(|c| c.unattended && c.extensive));
        assert!(with("MODE", "").is_ok());
        assert!(with("MaxKHz", " ").is_ok_and(|c| c.max_khz.is_none()));
    }

    #[test]
    fn monitor_defaults() {
        let c = Cli::parse_from(["sbc-bench", "monitor"]);
        match c.command {
            Some(Command::Monitor(m)) => assert_eq!(m.interval, 5.0),
            other => panic!("{other:?}"),
        }
    }

    // Issue 27, item 14: `NotReadyYet` and `NOTUNING` with `-1`, `2` or `garbage` meant
    // "no" without a word; `MaxKHz` below `MinKHz` was accepted.
    #[test]
    fn yes_no_variables_and_a_reversed_clock_range_are_refused() {
        let with = |k: &'static str, v: &'static str| {
            run_config(&run::RunArgs::default(), &move |x| {
                (x == k).then(|| v.to_string())
            })
        };
        for v in ["-1", "2", "garbage"] {
            for k in ["NotReadyYet", "NOTUNING"] {
                assert_eq!(
                    with(k, v).unwrap_err(),
                    format!("invalid value '{v}' for '{k}': not yes or no")
                );
            }
        }
        assert!(with("NOTUNING", "YES").is_ok_and(|c| c.no_tuning));
        assert!(with("NOTUNING", "no").is_ok_and(|c| !c.no_tuning));
        assert!(with("NotReadyYet", "").is_ok_and(|c| !c.not_ready_yet));
        let both = |x: &str| match x {
            "MaxKHz" => Some("600000".to_string()),
            "MinKHz" => Some("1200000".to_string()),
            _ => None,
        };
        assert_eq!(
            run_config(&run::RunArgs::default(), &both).unwrap_err(),
            "MaxKHz (600000) is below MinKHz (1200000): no clock is in that range"
        );
    }

    #[test]
    fn run_environment_like_sbc_bench() {
        let env = |k: &str| match k {
            "MODE" => Some("unattended".to_string()),
            "NotReadyYet" => Some("yes".to_string()),
            "MaxKHz" => Some("1800000".to_string()),
            _ => None,
        };
        let c = run_config(&run::RunArgs::default(), &env).unwrap();
        assert!(c.unattended && c.not_ready_yet && !c.extensive && !c.no_tuning);
        assert_eq!(c.max_wait_s, Some(600));
        assert_eq!(c.max_khz, Some(1_800_000));
        assert_eq!(c.log, PathBuf::from(crate::record::config::DEFAULT_LOG));
        let c = run_config(
            &run::RunArgs {
                shared: run::SharedArgs {
                    max_wait: Some(5),
                    ..Default::default()
                },
                ..Default::default()
            },
            &|k| (k == "MODE").then(|| "extensive".to_string()),
        )
        .unwrap();
        assert!(c.extensive && !c.unattended);
        assert_eq!(c.max_wait_s, Some(5));
    }
}
