//! The completion scripts and the man page, generated from the same clap definition that
//! parses the command line, so they never disagree with `--help`.

use clap::CommandFactory;
use roff::{Roff, bold, roman};

use crate::cli::docs::{EXAMPLES, EXIT_STATUSES};
use crate::cli::{Cli, LEGACY_HELP};

/// The completion script for `shell`.
pub fn write_completions(shell: clap_complete::Shell, out: &mut Vec<u8>) {
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "sbc-bench", out);
}

/// sbc-bench(1) in roff: clap's NAME, SYNOPSIS, DESCRIPTION, OPTIONS and SUBCOMMANDS, then
/// sbc-bench's short modes, EXAMPLES, EXIT STATUS and VERSION.
pub fn render_manpage() -> std::io::Result<Vec<u8>> {
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd).manual("sbc-bench manual");
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    man.render_subcommands_section(&mut out)?;

    let mut roff = Roff::new();
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
        roff.control("TP", []);
        roff.text([bold(flag)]);
        roff.text([roman(what)]);
    }
    roff.control("SH", ["EXAMPLES"]);
    for (cmd, what) in EXAMPLES {
        roff.control("TP", []);
        roff.text([bold(*cmd)]);
        roff.text([roman(*what)]);
    }
    roff.control("SH", ["EXIT STATUS"]);
    for (code, what) in EXIT_STATUSES {
        roff.control("TP", []);
        roff.text([bold(*code)]);
        roff.text([roman(*what)]);
    }
    roff.to_writer(&mut out)?;
    man.render_version_section(&mut out)?;
    Ok(out)
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
        let names: Vec<String> = Cli::command()
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
