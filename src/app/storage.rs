//! `sbc-bench storage`.

use crate::app::Ctx;
use crate::cli::storage::StorageArgs;

/// Run the command.
pub fn run(_ctx: &Ctx, _args: &StorageArgs) -> anyhow::Result<i32> {
    anyhow::bail!("`storage` is not available in this build yet")
}
