//! `sbc-bench info`.

use anyhow::Context;

use crate::app::Ctx;
use crate::cli::InfoArgs;
use crate::output::{self, Outcome};
use crate::report;
use crate::sys::discover::SystemInfo;

/// Print what we know about the machine: text as sbc-bench lays it out, or one versioned
/// JSON document (`docs/INFO-JSON.md`).
pub fn run(ctx: &Ctx, args: &InfoArgs) -> anyhow::Result<Outcome> {
    let info = SystemInfo::read(&ctx.root);
    let known = report::redact_json::known_of_info(&info);
    let text = match (args.json, ctx.redact) {
        (true, true) => report::redact_json::redacted_pretty(&info, &known)?,
        (true, false) => {
            let mut s = serde_json::to_string_pretty(&info)?;
            s.push('\n');
            s
        }
        (false, true) => report::redact::redact(&report::text::info::render(&info), &known),
        (false, false) => report::text::info::render(&info),
    };
    // On a terminal, say how to hide identifiers before pasting (`-z`, inxi's flag).
    if !ctx.redact && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        eprintln!("{}", report::redact_json::HINT);
    }
    // `info | head` closes the pipe early: what was wanted has been read, status 0.
    output::print_or_closed(&text).context("writing to stdout")?;
    Ok(Outcome::Ok)
}
