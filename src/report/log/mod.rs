//! The text log in sbc-bench's section order and layouts, and the console summary: each
//! mode's log (`run` for the standard run, `review`, `thermal`, `wrap`), the parts they
//! share (`common`), and the sections and benchmark tables they are made of. A mode with
//! a layout of its own is named once, in `own_log`.

use crate::record::run::{ModeResults, RunReport};

pub mod clock;
pub mod common;
pub mod crypto;
pub mod memory;
pub mod power;
pub mod results_row;
pub mod review;
pub mod run;
pub mod thermal;
pub mod throttle;
pub mod tools;
pub mod wrap;

/// The log of a mode with a layout of its own (a wrap run's: its runs, then the standard
/// run's closing sections); `None` for the standard run's layout, which the thermal test,
/// the graph and review mode extend (`run::log`).
pub(crate) fn own_log(r: &RunReport) -> Option<String> {
    match &r.mode {
        ModeResults::Wrap(_) => Some(self::wrap::log(r)),
        _ => None,
    }
}
