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

/// `sbc-bench manpage [COMMAND…] [--dir DIR]`.
#[derive(Debug, Clone, Args)]
pub struct ManpageArgs {
    /// The command whose page to print (`monitor`, `bench clock`) [default: sbc-bench(1)].
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Write every page (sbc-bench.1, sbc-bench-monitor.1, sbc-bench-bench-clock.1 …) into
    /// DIR instead, and list them.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<std::path::PathBuf>,
}

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
    s.push('\n');
    s.push_str(DOCS_NOTE);
    s.push_str("\n\n");
    s.push_str(TESTING_NOTE);
    s
}

/// Two or three examples for each command, by its path (`monitor`, `bench clock`), but the
/// modes on the run engine, whose examples are their `cli::run::ModeArgs::EXAMPLES`: the end
/// of its `--help` ("Examples:") and its man page's EXAMPLES. Every one parses
/// (`tests::every_example_parses`).
pub const COMMAND_EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "info",
        &[
            (
                "sbc-bench info",
                "Device, SoC, CPU topology, governors, memory, sensors",
            ),
            (
                "sbc-bench info --json -z",
                "The same as JSON, hostname, serials and addresses redacted for pasting",
            ),
        ],
    ),
    (
        "monitor",
        &[
            (
                "sbc-bench monitor 2 --count 10",
                "Ten lines of clocks, load and temperature, 2 s apart",
            ),
            (
                "sbc-bench monitor 15 --quiet --prometheus 0.0.0.0:9101",
                "Serve /metrics for Prometheus (also as the sbc-bench-monitor service)",
            ),
            (
                "sbc-bench monitor 15 --quiet --textfile /var/lib/prometheus/node-exporter",
                "For node_exporter's textfile collector (the sbc-bench-textfile service)",
            ),
        ],
    ),
    (
        "bench",
        &[
            (
                "sbc-bench bench clock --quick",
                "Measure the real clock of every cluster",
            ),
            (
                "sbc-bench bench memlat --cpus 4-7",
                "Memory latency on CPUs 4 to 7",
            ),
        ],
    ),
    (
        "bench clock",
        &[
            (
                "sbc-bench bench clock --quick",
                "Measure the real clock of every cluster",
            ),
            (
                "sudo sbc-bench bench clock --json",
                "Walk every cpufreq OPP (root), as JSON",
            ),
        ],
    ),
    (
        "bench membw",
        &[
            (
                "sbc-bench bench membw",
                "tinymembench's rows on every cluster",
            ),
            (
                "sbc-bench bench membw --cpus 0 --quick",
                "Quickly, on CPU 0",
            ),
        ],
    ),
    (
        "bench memlat",
        &[
            (
                "sbc-bench bench memlat --quick",
                "Latency tables, shortened",
            ),
            (
                "sbc-bench bench memlat --extensive",
                "ramlat's 200 ms per cell, as sbc-bench",
            ),
        ],
    ),
    (
        "bench aes",
        &[
            (
                "sbc-bench bench aes",
                "AES-CBC per cluster, natively and with openssl speed",
            ),
            (
                "sbc-bench bench aes --extensive --json",
                "With GCM and the parallel rows, as JSON",
            ),
        ],
    ),
    (
        "bench compress",
        &[
            (
                "sbc-bench bench compress",
                "7-Zip's benchmark (the bundled 16.02 first) and native LZMA",
            ),
            (
                "sbc-bench bench compress --native-only --quick",
                "Our native LZMA score alone, shortened",
            ),
        ],
    ),
    (
        "bench scrypt",
        &[
            (
                "sbc-bench bench scrypt --duration 90s",
                "90 seconds of scrypt on every CPU",
            ),
            (
                "sbc-bench bench scrypt --cpus 4-7 --duration 1.5m",
                "A minute and a half on CPUs 4 to 7",
            ),
        ],
    ),
    (
        "net",
        &[
            ("sbc-bench net server", "Serve iperf3 clients and our own"),
            (
                "sbc-bench net client 192.168.1.10 -t 30",
                "30 s against an iperf3 server, with a diagnosis",
            ),
            (
                "sbc-bench net info",
                "Interfaces, drivers, links, IRQ affinity",
            ),
        ],
    ),
    (
        "net client",
        &[
            ("sbc-bench net client 192.168.1.10", "10 s to the server"),
            (
                "sbc-bench net client 192.168.1.10 -R -P 4",
                "The other way round, four streams",
            ),
            (
                "sbc-bench net client 192.168.1.10 -J",
                "iperf3's JSON, with our diagnosis in it",
            ),
        ],
    ),
    (
        "net server",
        &[
            (
                "sbc-bench net server",
                "Serve one test at a time on port 5201",
            ),
            (
                "sbc-bench net server -1 --max-duration 60",
                "One test of at most a minute, then exit",
            ),
        ],
    ),
    (
        "net info",
        &[
            ("sbc-bench net info", "Every interface"),
            ("sbc-bench net info eth0", "One interface"),
        ],
    ),
    (
        "storage",
        &[
            (
                "sbc-bench storage",
                "Every disk and what it sits behind (sbc-bench -S)",
            ),
            (
                "sbc-bench storage --json -z",
                "As JSON, serial numbers redacted",
            ),
            (
                "sbc-bench storage bench /mnt/nvme",
                "iozone's test on a filesystem",
            ),
        ],
    ),
    (
        "storage bench",
        &[
            (
                "sbc-bench storage bench /mnt/nvme",
                "100 MB file, 4k and 16M records, as sbc-bench",
            ),
            (
                "sbc-bench storage bench . --size 1G -r 1m",
                "A 1 GiB file with 1 MiB records here",
            ),
        ],
    ),
    (
        "restore",
        &[(
            "sudo sbc-bench restore",
            "Put back what a killed run left changed",
        )],
    ),
    (
        "results",
        &[
            (
                "sbc-bench results import /var/log/sbc-bench.log",
                "Store every run of a log",
            ),
            ("sbc-bench results list", "The stored runs"),
            (
                "sbc-bench results export --format csv > runs.csv",
                "Every stored run as CSV",
            ),
        ],
    ),
    (
        "results parse",
        &[
            (
                "sbc-bench results parse sbc-bench-results.txt",
                "What a bash sbc-bench log holds",
            ),
            ("sbc-bench results parse run.json --json", "As JSON"),
        ],
    ),
    (
        "results import",
        &[
            (
                "sbc-bench results import /var/log/sbc-bench.log",
                "Every run of the log",
            ),
            (
                "sbc-bench results import results/",
                "Every file of a directory (the Ansible playbook's)",
            ),
        ],
    ),
    (
        "results list",
        &[
            ("sbc-bench results list", "A line per stored run"),
            ("sbc-bench results list --json", "As JSON"),
        ],
    ),
    (
        "results show",
        &[
            ("sbc-bench results show 12", "Run #12"),
            (
                "sbc-bench results show 12 --document",
                "The log or JSON as stored",
            ),
        ],
    ),
    (
        "results export",
        &[
            (
                "sbc-bench results export --format csv",
                "CSV on standard output",
            ),
            ("sbc-bench results export --format yaml", "YAML"),
        ],
    ),
    (
        "results delete",
        &[("sbc-bench results delete 12", "Delete run #12")],
    ),
    (
        "compare",
        &[
            (
                "sbc-bench compare",
                "The last run beside the published rows of its SoC",
            ),
            (
                "sbc-bench compare '#12' --metric memcpy",
                "Run #12, sorted by memcpy",
            ),
            (
                "sbc-bench compare run.json --soc RK3588",
                "A run JSON beside RK3588 rows",
            ),
        ],
    ),
    (
        "share",
        &[
            (
                "sbc-bench share --dry-run",
                "Show the redacted log that would be sent",
            ),
            (
                "sbc-bench share",
                "Upload it (curl or wget) and print its URL",
            ),
            (
                "sbc-bench share '#12' --to http://hub.lan:8080/upload",
                "To your own results hub",
            ),
        ],
    ),
    (
        "kernel",
        &[
            (
                "sbc-bench kernel",
                "Is this kernel current, is it a vendor kernel? (sbc-bench -k)",
            ),
            (
                "sbc-bench kernel --release 5.10.160-rockchip --soc RK3588",
                "Judge another board's kernel",
            ),
        ],
    ),
    (
        "completions",
        &[
            (
                "sbc-bench completions bash > /etc/bash_completion.d/sbc-bench",
                "Install bash completion",
            ),
            (
                "sbc-bench completions zsh > ~/.zfunc/_sbc-bench",
                "zsh completion",
            ),
        ],
    ),
    (
        "manpage",
        &[
            ("sbc-bench manpage | man -l -", "Read the manual"),
            (
                "sbc-bench manpage monitor | man -l -",
                "The page of one command",
            ),
            (
                "sbc-bench manpage --dir /usr/local/share/man/man1",
                "Write every page",
            ),
        ],
    ),
    (
        "report",
        &[
            (
                "sbc-bench report",
                "The page of the last stored run: ./sbc-bench-report.html",
            ),
            ("sbc-bench report run.json --html run.html", "Of a run JSON"),
            (
                "sbc-bench report '#12' --markdown -",
                "Markdown on standard output",
            ),
        ],
    ),
];

/// The examples of the command at `path` (`"bench clock"`); empty when it has none.
pub fn examples_of(path: &str) -> &'static [(&'static str, &'static str)] {
    COMMAND_EXAMPLES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, e)| *e)
        .or_else(|| super::mode_examples(path))
        .unwrap_or(&[])
}

/// The environment the commands read: the man pages' ENVIRONMENT.
pub const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "MODE",
        "unattended and/or extensive (comma-separated), as sbc-bench: run without prompts, run the extensive benchmarks",
    ),
    (
        "NOTUNING",
        "yes: leave governors and ASPM as they are (run, review)",
    ),
    (
        "MaxKHz, MinKHz",
        "Highest and lowest cpufreq OPP to test, in kHz (bench clock, run, graph); empty is unset",
    ),
    (
        "NotReadyYet",
        "yes: only the memory benchmarks and the clock checks (run, review)",
    ),
    (
        "ExecuteCommand",
        "The command review mode watches (as review -- COMMAND)",
    ),
    (
        "Netio",
        "HOST/SOCKET of a Netio power socket (as --power netio:HOST/SOCKET)",
    ),
    ("CPUINFOFILE", "Read this file instead of /proc/cpuinfo"),
    ("SBC_BENCH_DB", "The results database (as --db)"),
    (
        "SBC_BENCH_LIBDIR",
        "The directory to look for the bundled 7za in, instead of PREFIX/lib/sbc-bench beside the binary's bin/ and /usr/lib/sbc-bench (7za next to the binary is found first)",
    ),
    (
        "SBC_BENCH_SYSROOT",
        "Read /proc, /sys and /etc from this tree (as --sysroot; tests)",
    ),
    ("NO_COLOR", "Set (to anything): no colours"),
];

/// The files the commands read and write: the man pages' FILES.
pub const FILES: &[(&str, &str)] = &[
    (
        "/var/log/sbc-bench.log",
        "The log of every run, appended (--log); the report page beside it as sbc-bench.html",
    ),
    (
        "/var/lib/sbc-bench/results.db",
        "The results database as root (else $XDG_DATA_HOME/sbc-bench/results.db; --db, SBC_BENCH_DB)",
    ),
    (
        "/run/sbc-bench/tuning.json",
        "The tuning journal: what a run changed, restored by the next run or sbc-bench restore after a crash",
    ),
    (
        "/usr/lib/sbc-bench/7za",
        "The bundled 7-Zip 16.02 (the .deb; the tarball keeps it beside the binary, install.sh in PREFIX/lib/sbc-bench)",
    ),
    (
        "/usr/share/doc/sbc-bench/",
        "The documents --help names (POWER.md, PRIVACY.md, PROMETHEUS.md, RESULTS-DB.md, COMMANDS.md …) and the JSON schemas; PREFIX/share/doc/sbc-bench/ with install.sh, doc/ in the tarball",
    ),
];

/// Where the documents `--help` names are: the end of the top `--help`.
pub const DOCS_NOTE: &str = "Documents named in the help (POWER.md, PRIVACY.md, PROMETHEUS.md, \
RESULTS-DB.md, …): /usr/share/doc/sbc-bench/ (the .deb), PREFIX/share/doc/sbc-bench/ \
(install.sh), doc/ of the release tarball, docs/ of the source. One man page per command: \
man sbc-bench-monitor.";

/// The trailing note of every `--help` instead of the test-only global options.
pub const TESTING_NOTE: &str = "Testing: --sysroot DIR reads /proc and /sys from a captured \
tree, --sysroot-writable lets tuning write there (see sbc-bench(1)).";

/// The end of a subcommand's `--help`: its examples, then the testing note.
pub fn subcommand_after_help(path: &str) -> String {
    let mut s = String::new();
    let ex = examples_of(path);
    if !ex.is_empty() {
        s.push_str("Examples:\n");
        for (cmd, what) in ex {
            s.push_str(&format!("  {cmd}\n      {what}\n"));
        }
        s.push('\n');
    }
    s.push_str(TESTING_NOTE);
    s
}
