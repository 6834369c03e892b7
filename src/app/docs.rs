//! `sbc-bench completions SHELL` and `sbc-bench manpage` written to stdout (or the pages
//! into a directory); both are made by `cli::manual` from the clap definition that parses
//! the command line.

use std::io::Write;

use anyhow::Context;

use crate::cli::docs::{CompletionsArgs, ManpageArgs};
use crate::cli::manual::{all_pages, render_page, write_completions};
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
