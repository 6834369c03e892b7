//! `sbc-bench monitor`.

use crate::app::Ctx;
use crate::cli::MonitorArgs;

/// Run the command.
pub fn run(_ctx: &Ctx, _args: &MonitorArgs) -> anyhow::Result<i32> {
    anyhow::bail!("`monitor` is not available in this build yet")
}
