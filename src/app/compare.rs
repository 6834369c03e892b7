//! `sbc-bench compare`: a run beside the published Results.md rows (and the stored runs)
//! of its SoC or core types. Finding the run is `results::lookup`, the comparison and
//! its text `results::compare`.

use crate::cli::UsageError;
use crate::cli::results::{CompareArgs, run_ref};
use crate::output::Outcome;
use crate::output::schema::{self, stamp};
use crate::results::compare::{self, Selection};
use crate::results::{lookup, reference};

/// Run `compare`.
pub fn compare(a: &CompareArgs) -> anyhow::Result<Outcome> {
    let run = run_ref(a.run.as_deref());
    let db = a.db.db.as_deref();
    let (r, stored_id) = lookup::compare_target(&run, db).map_err(UsageError::from)?;
    let mut refs = reference::published();
    refs.extend(lookup::stored_references(db, stored_id));
    let selection = match (&a.soc, &a.device, &a.core_type) {
        (Some(s), _, _) => Selection::Soc(s.clone()),
        (None, Some(d), _) => Selection::Device(d.clone()),
        (None, None, Some(t)) => Selection::CoreType(t.clone()),
        (None, None, None) => lookup::default_selection(&r, &refs).ok_or(UsageError::new(
            "no published row has the run's SoC or core types: give --soc SOC, --device TEXT or --core-type TYPE",
        ))?,
    };
    let c = compare::compare(&r.log.results_row, &refs, selection, a.metric);
    if a.json {
        print!("{}", schema::pretty(&stamp(schema::RESULTS_COMPARE, &c))?);
    } else {
        print!("{}", crate::output::escape_controls(&compare::render(&c)));
    }
    Ok(Outcome::Ok)
}
