//! `sbc-bench info`.

use std::io::Write;

use crate::app::Ctx;
use crate::cli::InfoArgs;
use crate::report;
use crate::sys::discover::SystemInfo;

/// Print what we know about the machine: text as sbc-bench lays it out, or one versioned
/// JSON document (`docs/INFO-JSON.md`).
pub fn run(ctx: &Ctx, args: &InfoArgs) -> anyhow::Result<i32> {
    let info = SystemInfo::read(&ctx.root);
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&info)?;
        s.push('\n');
        s
    } else {
        report::info::render(&info)
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(0),
        // `info | head` closes the pipe early: what was wanted has been read.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(0),
        Err(e) => Err(anyhow::Error::new(e).context("writing to stdout")),
    }
}
