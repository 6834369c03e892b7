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
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&info)?;
        s.push('\n');
        s
    } else {
        report::text::info::render(&info)
    };
    // `info | head` closes the pipe early: what was wanted has been read, status 0.
    output::print_or_closed(&text).context("writing to stdout")?;
    Ok(Outcome::Ok)
}
