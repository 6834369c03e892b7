//! `sbc-bench completions SHELL` and `sbc-bench manpage` written to stdout; both are
//! made by `cli::manual` from the clap definition that parses the command line.

use std::io::Write;

use anyhow::Context;

use crate::cli::docs::CompletionsArgs;
use crate::cli::manual::{render_manpage, write_completions};
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

/// Write the man page to stdout.
pub fn manpage() -> anyhow::Result<Outcome> {
    let page = render_manpage().context("rendering the man page")?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&page).context("writing the man page")?;
    stdout.flush().context("writing the man page")?;
    Ok(Outcome::Ok)
}
