//! `sbc-bench completions SHELL` and `sbc-bench manpage`: generated from the same clap
//! definition that parses the command line, so they never disagree with `--help`.

use std::io::Write;

use anyhow::Context;
use roff::{Roff, bold, roman};

use crate::cli::docs::{
    CompletionsArgs, ENVIRONMENT, EXAMPLES, EXIT_STATUSES, FILES, ManpageArgs, TESTING_NOTE,
    examples_of,
};
use crate::cli::{self, LEGACY_HELP};
use crate::output::Outcome;

/// Write the completion script for `a.shell` to stdout.
pub fn completions(a: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut out = Vec::new();
    write_completions(a.shell, &mut out);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&out)
        .context("writing the completion script")?;
    stdout.flush().context("writing the completion script")?;
    Ok(Outcome::Ok)
}

/// The completion script for `shell`. bash's is clap_complete's with its function made to
/// work for our hyphenated name ([`fix_bash_completion`]).
pub fn write_completions(shell: clap_complete::Shell, out: &mut Vec<u8>) {
    let mut cmd = cli::command();
    let mut raw = Vec::new();
    clap_complete::generate(shell, &mut cmd, "sbc-bench", &mut raw);
    if shell == clap_complete::Shell::Bash {
        out.extend_from_slice(fix_bash_completion(&String::from_utf8_lossy(&raw)).as_bytes());
    } else {
        out.extend_from_slice(&raw);
    }
}

/// clap_complete's bash script (clap #6421) walks the words typed into a state named
/// after the binary with `-` written as `__` (`sbc__bench__subcmd__monitor`), but names the
/// states it completes in with `-` written as `__subcmd__` (`sbc__subcmd__bench__subcmd__monitor)`):
/// for a hyphenated binary name no state past the first word matched, so `sbc-bench
/// monitor --p<TAB>` and `results export --format <TAB>` completed nothing. The completing
/// states are renamed to the walker's names (tested in a real bash:
/// tests/it/completion_bash.rs).
pub fn fix_bash_completion(script: &str) -> String {
    let name = "sbc-bench";
    let walker = name.replace('-', "__");
    let labels = name.replace('-', "__subcmd__");
    script.replace(&labels, &walker)
}

/// `sbc-bench manpage [COMMAND…] [--dir DIR]`: one page to stdout, or every page into DIR.
pub fn manpage(a: &ManpageArgs) -> anyhow::Result<Outcome> {
    if let Some(dir) = &a.dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for (name, page) in all_pages().context("rendering the man pages")? {
            let path = dir.join(&name);
            crate::files::replace(&path, &page)?;
            println!("{}", path.display());
        }
        return Ok(Outcome::Ok);
    }
    let path = a.command.join(" ");
    let Some(page) = render_page(&path).context("rendering the man page")? else {
        return Err(crate::cli::UsageError(format!(
            "no command `{path}`: sbc-bench manpage lists the pages with --dir"
        ))
        .into());
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&page).context("writing the man page")?;
    stdout.flush().context("writing the man page")?;
    Ok(Outcome::Ok)
}

/// sbc-bench(1): the top page.
pub fn render_manpage() -> std::io::Result<Vec<u8>> {
    Ok(render_page("")?.unwrap_or_default())
}

/// Every page: `(file name, roff)`, the top page first, then one per command in the
/// order of `--help` (nested ones too: `sbc-bench-bench-clock.1`).
pub fn all_pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut paths = vec![String::new()];
    fn walk(cmd: &clap::Command, path: &str, paths: &mut Vec<String>) {
        for sub in cmd
            .get_subcommands()
            .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        {
            let p = if path.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{path} {}", sub.get_name())
            };
            paths.push(p.clone());
            walk(sub, &p, paths);
        }
    }
    walk(&cli::command(), "", &mut paths);
    let mut pages = Vec::new();
    for p in paths {
        let name = page_name(&p);
        if let Some(page) = render_page(&p)? {
            pages.push((format!("{name}.1"), page));
        }
    }
    Ok(pages)
}

/// `sbc-bench-bench-clock` for `bench clock`; `sbc-bench` for the top page.
pub fn page_name(path: &str) -> String {
    std::iter::once("sbc-bench")
        .chain(path.split_whitespace())
        .collect::<Vec<_>>()
        .join("-")
}

/// The page of the command at `path` (`""`: sbc-bench(1); `"monitor"`; `"bench clock"`):
/// clap's NAME, SYNOPSIS, DESCRIPTION, OPTIONS and SUBCOMMANDS, then (top page) sbc-bench's
/// short modes, EXAMPLES, ENVIRONMENT, FILES, EXIT STATUS, SEE ALSO and VERSION. `None`
/// for a path that names no command.
pub fn render_page(path: &str) -> std::io::Result<Option<Vec<u8>>> {
    let mut root = cli::command();
    root.build();
    let mut cmd = &root;
    for word in path.split_whitespace() {
        match cmd.find_subcommand(word) {
            Some(sub) => cmd = sub,
            None => return Ok(None),
        }
    }
    let top = path.is_empty();
    let mut man = clap_mangen::Man::new(cmd.clone())
        .manual("sbc-bench manual")
        .source(format!("sbc-bench {}", env!("CARGO_PKG_VERSION")));
    if !top {
        man = man.title(page_name(path));
    }
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    if cmd.get_subcommands().any(|c| !c.is_hide_set()) {
        man.render_subcommands_section(&mut out)?;
    }

    let mut roff = Roff::new();
    let tp = |roff: &mut Roff, head: &str, text: &str| {
        roff.control("TP", []);
        roff.text([bold(head)]);
        roff.text([roman(text)]);
    };
    if top {
        roff.control("SH", ["SBC-BENCH SHORT MODES"]);
        roff.text([roman(
            "The short flags of the bash sbc-bench are accepted and rewritten into subcommands:",
        )]);
        for line in LEGACY_HELP.lines().skip(1) {
            let line = line.trim_start();
            let (flag, what) = match line.find("  ") {
                Some(i) => (&line[..i], line[i..].trim()),
                None => (line, ""),
            };
            tp(&mut roff, flag, what);
        }
    }
    let examples = if top { EXAMPLES } else { examples_of(path) };
    if !examples.is_empty() {
        roff.control("SH", ["EXAMPLES"]);
        for (cmd, what) in examples {
            tp(&mut roff, cmd, what);
        }
    }
    roff.control("SH", ["ENVIRONMENT"]);
    for (name, what) in ENVIRONMENT {
        tp(&mut roff, name, what);
    }
    roff.control("SH", ["FILES"]);
    for (name, what) in FILES {
        tp(&mut roff, name, what);
    }
    roff.control("SH", ["EXIT STATUS"]);
    for (code, what) in EXIT_STATUSES {
        tp(&mut roff, code, what);
    }
    roff.control("SH", ["SEE ALSO"]);
    let mut see: Vec<String> = Vec::new();
    if !top {
        let words: Vec<&str> = path.split_whitespace().collect();
        see.push("sbc-bench(1)".into());
        if words.len() > 1 {
            see.push(format!(
                "{}(1)",
                page_name(&words[..words.len() - 1].join(" "))
            ));
        }
    }
    see.push("/usr/share/doc/sbc-bench/ (COMMANDS.md, POWER.md, PRIVACY.md, PROMETHEUS.md, RESULTS-DB.md, RUN-JSON.md)".into());
    roff.text([roman(see.join(", "))]);
    if !top {
        roff.control("SH", ["NOTES"]);
        roff.text([roman(TESTING_NOTE)]);
    }
    roff.to_writer(&mut out)?;
    if top {
        man.render_version_section(&mut out)?;
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> String {
        String::from_utf8(render_manpage().expect("renders")).expect("utf-8")
    }

    #[test]
    fn manpage_has_the_sections_of_a_manual() {
        let p = page();
        for s in [
            ".TH sbc-bench 1",
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH DESCRIPTION",
            ".SH OPTIONS",
            ".SH SUBCOMMANDS",
            ".SH \"SBC-BENCH SHORT MODES\"",
            ".SH EXAMPLES",
            ".SH \"EXIT STATUS\"",
            ".SH VERSION",
        ] {
            assert!(p.contains(s), "no {s} in:\n{p}");
        }
        let order: Vec<usize> = ["NAME", "SYNOPSIS", "EXAMPLES", "\"EXIT STATUS\"", "VERSION"]
            .iter()
            .map(|s| p.find(&format!(".SH {s}")).expect("section"))
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    }

    #[test]
    fn manpage_lists_every_exit_status_and_example() {
        let p = page();
        for (code, _) in EXIT_STATUSES {
            assert!(p.contains(&format!(".TP\n\\fB{code}\\fR")), "exit {code}");
        }
        assert!(p.contains("monitor 2 \\-\\-count 10"), "{p}");
        // The legacy modes, as `-h` lists them.
        assert!(p.contains("\\fB\\-m [SECONDS]\\fR"), "{p}");
    }

    #[test]
    fn completions_name_every_subcommand_in_every_shell() {
        use clap::ValueEnum;
        let names: Vec<String> = cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        assert!(names.iter().any(|n| n == "completions"));
        for shell in clap_complete::Shell::value_variants() {
            let mut out = Vec::new();
            write_completions(*shell, &mut out);
            let text = String::from_utf8(out).expect("utf-8");
            for n in &names {
                assert!(text.contains(n.as_str()), "{shell}: no {n}");
            }
            assert!(text.contains("--sysroot"), "{shell}: no --sysroot");
        }
    }
}
