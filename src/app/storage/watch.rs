//! A storage run set up: a refusal of bad input is a usage error. What surrounds it and
//! the monitor's watch over its passes are `run::storage`'s.

use crate::app::Ctx;
use crate::bench::storage::{self as engine, StorageError, prepare};
use crate::cli::UsageError;
use crate::cli::storage::StorageBenchArgs;

/// The run set up: bad input (a path that is no directory or on a virtual filesystem,
/// sizes that cannot work) is a usage error (status 2), anything else an error; the
/// notes found before a refusal are said first.
pub(super) fn configure(
    ctx: &Ctx,
    args: &StorageBenchArgs,
) -> anyhow::Result<(engine::StorageConfig, Vec<String>)> {
    let mut notes = Vec::new();
    match prepare::configure(
        &ctx.root,
        args.path.as_deref(),
        args.size,
        &args.records(),
        &mut notes,
    ) {
        Ok(cfg) => Ok((cfg, notes)),
        Err(e) => {
            for n in &notes {
                eprintln!("Note: {n}");
            }
            match e.downcast_ref::<StorageError>() {
                Some(se) if se.is_usage() => Err(UsageError::new(se.to_string()).into()),
                _ => Err(e),
            }
        }
    }
}
