//! `sbc-bench run`.

use crate::app::Ctx;
use crate::cli::run::RunArgs;

/// Run the command.
pub fn run(_ctx: &Ctx, _args: &RunArgs) -> anyhow::Result<i32> {
    anyhow::bail!("`run` is not available in this build yet")
}
