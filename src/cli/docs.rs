//! The texts every `--help` and the man page share (examples, exit statuses, the version
//! line), and the arguments of `sbc-bench completions` and `sbc-bench manpage`.

use clap::Args;

/// `sbc-bench completions SHELL`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

/// `sbc-bench manpage`.
#[derive(Debug, Clone, Args)]
pub struct ManpageArgs {}

/// The version line: `0.1.0 (git 1a2b3c4d5e6f, aarch64-unknown-linux-gnu)`. The commit is
/// the one built (not whether the tree had changes), or `unknown` when built from a
/// tarball or `cargo package` without `.git` (build.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (git ",
    env!("SBC_BENCH_GIT_COMMIT"),
    ", ",
    env!("SBC_BENCH_TARGET"),
    ")"
);

/// Commands worth knowing, with what they do: `--help`'s "Examples:" and the man page's
/// EXAMPLES.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "sbc-bench info",
        "Describe the machine: device, SoC, CPU topology, governors, sensors",
    ),
    (
        "sudo sbc-bench",
        "The standard run: tune, benchmark, monitor, validate, report",
    ),
    (
        "sudo sbc-bench -c",
        "The standard run with 5 minutes of stress test (= run -c)",
    ),
    (
        "sbc-bench monitor 2 --count 10",
        "Ten lines of clocks, load and temperature, 2 s apart",
    ),
    (
        "sbc-bench bench clock --quick",
        "Measure the real clock of every cluster",
    ),
    (
        "sbc-bench --sysroot DIR info",
        "Describe a board from a captured /proc, /sys tree",
    ),
    (
        "sbc-bench completions bash > /etc/bash_completion.d/sbc-bench",
        "Install bash completion",
    ),
    ("sbc-bench manpage | man -l -", "Read this manual"),
];

/// Every exit status the commands use (`output::Outcome`): `--help`'s "Exit status:" and the
/// man page's EXIT STATUS.
pub const EXIT_STATUSES: &[(&str, &str)] = &[
    (
        "0",
        "All good; also monitor and net client -t 0 stopped by Ctrl-C or SIGTERM, their normal end",
    ),
    ("1", "An error stopped the command"),
    ("2", "Bad command line or input"),
    (
        "3",
        "A benchmark failed, or validation found the results cannot be trusted",
    ),
    (
        "128+N",
        "Interrupted by signal N (130 Ctrl-C, 143 SIGTERM), after restoring the system",
    ),
    ("141", "The output pipe closed under a one-shot command"),
];

/// `--help`'s text after the options: sbc-bench's short modes (as `-h` shows them), then
/// examples and exit statuses.
pub fn long_after_help() -> String {
    let mut s = String::from(super::LEGACY_HELP);
    s.push_str("\n\nExamples:\n");
    for (cmd, what) in EXAMPLES {
        s.push_str(&format!("  {cmd}\n      {what}\n"));
    }
    s.push_str("\nExit status:\n");
    for (code, what) in EXIT_STATUSES {
        s.push_str(&format!("  {code:<6} {what}\n"));
    }
    s.truncate(s.trim_end().len());
    s
}
