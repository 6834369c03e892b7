//! `sbc-bench info`.

use crate::app::Ctx;
use crate::cli::InfoArgs;
use crate::report;
use crate::sys::discover::SystemInfo;

/// Print what we know about the machine: text as sbc-bench lays it out, or one versioned
/// JSON document (`docs/INFO-JSON.md`).
pub fn run(ctx: &Ctx, args: &InfoArgs) -> anyhow::Result<i32> {
    let info = SystemInfo::read(&ctx.root);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
    } else {
        print!("{}", report::info::render(&info));
    }
    Ok(0)
}
