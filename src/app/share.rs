//! `sbc-bench share`: the redacted log of a run uploaded (docs/PRIVACY.md), the receipt
//! kept in the results database.

use crate::cli::UsageError;
use crate::cli::results::{ShareArgs, run_ref};
use crate::output::Outcome;
use crate::results::lookup;

/// Run `share`: the redacted log uploaded (or printed with `--dry-run`), the receipt
/// stored.
pub fn share(a: &ShareArgs) -> anyhow::Result<Outcome> {
    let db = a.db.db.as_deref();
    let (log, id, hostname) =
        lookup::share_source(&run_ref(a.run.as_deref()), db).map_err(UsageError::from)?;
    let text = lookup::share_text(log, hostname, !a.no_redact);
    if a.dry_run {
        print!("{text}");
        return Ok(Outcome::Ok);
    }
    let url = match crate::results::share::upload(&a.to, "sbc-bench.txt", text.as_bytes()) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("error: {e}; nothing was shared, the local files are as they were");
            return Ok(Outcome::Failed);
        }
    };
    println!("{url}");
    if let Err(e) = lookup::store_receipt(db, id, &url, &text) {
        eprintln!("warning: shared, but the receipt was not stored: {e}");
    }
    Ok(Outcome::Ok)
}
