//! `sbc-bench restore`: put back what a killed run left changed, from the tuning journal.
//! Every command that tunes does the same on its own before it starts.

use crate::app::Ctx;
use crate::cli::RestoreArgs;
use crate::output::Outcome;
use crate::tune::{journal, lock};

/// Restore from the journal and say what was done. The machine's lock is taken first:
/// a running sbc-bench's settings are not restored behind its back (unless `--force`).
pub fn run(ctx: &Ctx, a: &RestoreArgs) -> Outcome {
    let board = match lock::claim(&ctx.root) {
        Ok(l) => l,
        Err(busy) if !a.force => {
            eprintln!("error: {busy}; `sbc-bench restore --force` restores its settings anyway");
            return Outcome::Failed;
        }
        Err(_) => None,
    };
    let r = journal::recover(&ctx.root, a.force);
    drop(board);
    if !r.found {
        println!(
            "Nothing to restore: no tuning journal at {} (every earlier run restored its settings).",
            journal::JOURNAL
        );
        return Outcome::Ok;
    }
    for l in &r.lines {
        println!("{l}");
    }
    if r.left == 0 && r.refused == 0 {
        Outcome::Ok
    } else {
        Outcome::Failed
    }
}
