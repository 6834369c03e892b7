//! `sbc-bench net`.

use crate::app::Ctx;
use crate::cli::net::NetArgs;

/// Run the command.
pub fn run(_ctx: &Ctx, _args: &NetArgs) -> anyhow::Result<i32> {
    anyhow::bail!("`net` is not available in this build yet")
}
