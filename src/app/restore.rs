//! `sbc-bench restore`: put back what a killed run left changed, from the tuning journal.
//! Every command that tunes does the same on its own before it starts.

use crate::app::Ctx;
use crate::output::Outcome;
use crate::tune::journal;

/// Restore from the journal and say what was done.
pub fn run(ctx: &Ctx) -> Outcome {
    let r = journal::recover(&ctx.root);
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
    if r.left == 0 {
        Outcome::Ok
    } else {
        Outcome::Failed
    }
}
