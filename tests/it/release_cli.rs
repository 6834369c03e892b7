//! CLI polish for releases: `--version`, `completions`, `manpage`, `help`, the global
//! options' heading, EXAMPLES and EXIT STATUS.

use crate::common::bin;
use predicates::prelude::*;

fn stdout_of(args: &[&str]) -> String {
    let out = bin()
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// `sbc-bench --version`: `sbc-bench 0.1.0 (git <commit or unknown>, <target triple>)`.
#[test]
fn version_names_the_commit_and_the_target() {
    let v = stdout_of(&["--version"]);
    let line = v.trim_end();
    let re = regex_lite::Regex::new(
        r"^sbc-bench \d+\.\d+\.\d+ \(git ([0-9a-f]{7,40}|unknown), [a-z0-9_]+-[a-z0-9_]+-[a-z0-9_-]+\)$",
    )
    .unwrap();
    assert!(re.is_match(line), "{line}");
    assert!(line.contains(env!("CARGO_PKG_VERSION")), "{line}");
    // The target is the one this test binary was built for, e.g. x86_64-unknown-linux-gnu.
    assert!(line.contains(std::env::consts::ARCH), "{line}");
    assert_eq!(stdout_of(&["-V"]), v);
}

/// Every shell's script is generated and names the subcommands and the global options.
#[test]
fn completions_for_every_shell_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let s = stdout_of(&["completions", shell]);
        for word in [
            "monitor",
            "bench",
            "storage",
            "completions",
            "manpage",
            "--sysroot",
        ] {
            assert!(s.contains(word), "{shell}: no {word}");
        }
        // The bench's own subcommands too.
        assert!(s.contains("scrypt"), "{shell}: no bench scrypt");
    }
    assert!(stdout_of(&["completions", "bash"]).contains("complete -F _sbc__bench"));
    assert!(stdout_of(&["completions", "zsh"]).starts_with("#compdef sbc-bench"));
    assert!(stdout_of(&["completions", "fish"]).contains("complete -c sbc-bench"));
}

#[test]
fn completions_for_an_unknown_shell_is_a_usage_error() {
    bin()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid value 'tcsh'"));
    bin().arg("completions").assert().code(2);
}

/// `sbc-bench manpage` is roff with the sections of a manual page, in order.
#[test]
fn manpage_is_roff_with_name_synopsis_examples_exit_status() {
    let p = stdout_of(&["manpage"]);
    assert!(p.contains(".TH sbc-bench 1"), "{p}");
    let mut at = 0;
    for s in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH OPTIONS",
        ".SH SUBCOMMANDS",
        ".SH EXAMPLES",
        ".SH \"EXIT STATUS\"",
        ".SH VERSION",
    ] {
        let i = p[at..]
            .find(s)
            .unwrap_or_else(|| panic!("no {s} after byte {at}"));
        at += i + s.len();
    }
    assert!(
        p.contains("sbc\\-bench \\- Benchmark a single"),
        "NAME line"
    );
    // The test options are listed in the top page (hidden only from --help).
    assert!(p.contains("\\-\\-sysroot"), "options");
    for s in [
        ".SH ENVIRONMENT",
        ".SH FILES",
        ".SH \"SEE ALSO\"",
        "SBC_BENCH_DB",
        "tuning.json",
    ] {
        assert!(p.contains(s), "no {s}");
    }
    // Exit status 3 and what it means.
    assert!(p.contains(".TP\n\\fB3\\fR\nA benchmark failed"), "{p}");
}

/// `sbc-bench help` and `sbc-bench help SUBCOMMAND` print the help.
#[test]
fn help_subcommand_prints_the_help() {
    let top = stdout_of(&["help"]);
    assert!(
        top.contains("Usage: sbc-bench [OPTIONS] [COMMAND]"),
        "{top}"
    );
    let monitor = stdout_of(&["help", "monitor"]);
    assert!(monitor.contains("Usage: sbc-bench monitor"), "{monitor}");
    let clock = stdout_of(&["help", "bench", "clock"]);
    assert!(clock.contains("Usage: sbc-bench bench clock"), "{clock}");
}

/// Every `--help` (each subcommand, nested ones too) lists -z/--redact and --no-color under
/// "Global options:", after the command's own options; the test-only --sysroot and
/// --sysroot-writable are a one-line note at the end instead of nine lines in every command
/// (issue 29), and every subcommand's help ends with its examples.
#[test]
fn global_options_have_their_own_heading_in_every_help() {
    let top = stdout_of(&["--help"]);
    let subs: Vec<String> = top
        .split("Commands:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|n| n != "help")
        .collect();
    assert!(subs.len() >= 15, "{subs:?}");
    let mut paths: Vec<Vec<String>> = vec![vec![]];
    for s in &subs {
        paths.push(vec![s.clone()]);
    }
    for nested in ["bench", "net", "storage", "results"] {
        let h = stdout_of(&[nested, "--help"]);
        if let Some(cmds) = h.split("Commands:\n").nth(1) {
            for l in cmds.lines().take_while(|l| !l.trim().is_empty()) {
                if let Some(n) = l
                    .strip_prefix("  ")
                    .and_then(|l| l.split_whitespace().next())
                {
                    if n != "help" && !l.starts_with("   ") {
                        paths.push(vec![nested.to_string(), n.to_string()]);
                    }
                }
            }
        }
    }
    assert!(paths.iter().any(|p| p == &["bench", "clock"]), "{paths:?}");
    for p in &paths {
        let mut args: Vec<&str> = p.iter().map(String::as_str).collect();
        args.push("--help");
        let h = stdout_of(&args);
        let g = h
            .find("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{args:?}: no Global options heading:\n{h}"));
        let globals = &h[g..];
        for o in ["-z, --redact", "--no-color"] {
            assert!(globals.contains(o), "{args:?}: {o} not under the heading");
            let listed = h.lines().filter(|l| l.contains(&format!("  {o}"))).count();
            assert_eq!(listed, 1, "{args:?}: {o} listed {listed} times");
        }
        for o in ["--sysroot <DIR>", "--sysroot-writable  "] {
            assert!(!h.contains(o), "{args:?}: {o} listed in --help");
        }
        // clap wraps the text: compare words.
        let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words(&h).ends_with(&words(sbc_bench::cli::docs::TESTING_NOTE)),
            "{args:?}: no testing note at the end:\n{h}"
        );
        if !args[0].starts_with('-') {
            let ex = h
                .find("\nExamples:\n")
                .unwrap_or_else(|| panic!("{args:?}: no examples"));
            assert!(ex > g, "{args:?}: the examples come after the options");
        }
    }
}

/// `--help` ends with examples and exit statuses; `-h` keeps sbc-bench's short modes.
#[test]
fn long_help_has_examples_and_exit_status() {
    let long = stdout_of(&["--help"]);
    let modes = long.find("sbc-bench's short modes:").unwrap();
    let ex = long.find("\nExamples:\n").unwrap();
    let st = long.find("\nExit status:\n").unwrap();
    assert!(modes < ex && ex < st, "{long}");
    assert!(long.contains("  3      A benchmark failed"), "{long}");
    let short = stdout_of(&["-h"]);
    assert!(
        short.trim_end().ends_with(sbc_bench::cli::LEGACY_HELP),
        "{short}"
    );
    assert!(!short.contains("Exit status:"), "{short}");
}

/// One man page per command: `manpage --dir` writes sbc-bench-monitor.1 (the top page lists
/// it, and `man sbc-bench-monitor` found nothing, issue 29) and the nested ones, each with
/// NAME, SYNOPSIS, its own EXAMPLES, ENVIRONMENT, FILES and EXIT STATUS; `manpage monitor`
/// prints one; an unknown command is a usage error.
#[test]
fn manpage_dir_writes_a_page_per_command() {
    let t = tempfile::tempdir().unwrap();
    let listed = stdout_of(&["manpage", "--dir", t.path().to_str().unwrap()]);
    for name in [
        "sbc-bench.1",
        "sbc-bench-monitor.1",
        "sbc-bench-run.1",
        "sbc-bench-bench-clock.1",
        "sbc-bench-net-client.1",
        "sbc-bench-results-export.1",
    ] {
        let p = t.path().join(name);
        assert!(
            listed.contains(&p.display().to_string()),
            "{name} not listed"
        );
        let page = std::fs::read_to_string(&p).unwrap();
        for s in [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH ENVIRONMENT",
            ".SH FILES",
            ".SH \"EXIT STATUS\"",
        ] {
            assert!(page.contains(s), "{name}: no {s}");
        }
        if name != "sbc-bench.1" {
            assert!(page.contains(".SH EXAMPLES"), "{name}: no EXAMPLES");
        }
    }
    let monitor = std::fs::read_to_string(t.path().join("sbc-bench-monitor.1")).unwrap();
    assert!(
        monitor.starts_with(".ie") || monitor.contains(".TH sbc-bench-monitor 1"),
        "{monitor}"
    );
    assert!(
        monitor.contains("\\-\\-prometheus"),
        "the monitor's options"
    );
    assert!(
        monitor.contains("sbc\\-bench monitor 15 \\-\\-quiet"),
        "the monitor's examples"
    );
    assert_eq!(stdout_of(&["manpage", "monitor"]), monitor);
    bin()
        .args(["manpage", "nosuch"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no command `nosuch`"));
}
