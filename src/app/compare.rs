//! `sbc-bench compare`: a run beside the published Results.md rows (and the stored runs)
//! of its SoC or core types. Finding the run is `results::lookup`, the comparison and
//! its text `results::compare`.

use crate::cli::UsageError;
use crate::cli::results::{CompareArgs, run_ref};
use crate::output::Outcome;
use crate::output::schema::{self, stamp};
use crate::results::compare::{self, Selection};
use crate::results::document::Parsed;
use crate::results::history::{self, RunsDoc};
use crate::results::lookup::run_label;
use crate::results::store::{ListQuery, Store};
use crate::results::store_index::RunSort;
use crate::results::{lookup, reference};

/// `compare RUN --with RUN…`.
fn with(a: &CompareArgs, first: (Parsed, Option<i64>)) -> anyhow::Result<Outcome> {
    let db = a.db.db.as_deref();
    let first_label = match (&a.run, first.1) {
        (_, Some(id)) => format!("#{id}"),
        (Some(p), None) => run_label(p, None),
        (None, None) => "this run".into(),
    };
    let mut parsed = vec![(first_label, first.0)];
    for w in &a.with {
        let (p, id) = lookup::compare_target(&run_ref(Some(w)), db).map_err(UsageError::from)?;
        parsed.push((run_label(w, id), p));
    }
    let s = history::side_by_side(&history::labelled(&parsed));
    if a.json {
        let doc = RunsDoc {
            side: &s,
            moves: None,
        };
        print!(
            "{}",
            schema::pretty(&stamp(schema::RESULTS_COMPARE_RUNS, &doc))?
        );
    } else {
        print!("{}", history::render_side_by_side(&s));
    }
    Ok(Outcome::Ok)
}

/// `compare --history`: the stored runs of the SoC (or device), oldest first.
fn history(a: &CompareArgs) -> anyhow::Result<Outcome> {
    let db = a.db.db.as_deref();
    let path = lookup::db_path(db).filter(|p| p.is_file()).ok_or_else(|| {
        UsageError::new("--history follows stored runs: no results database (give --db PATH)")
    })?;
    let s = Store::open(&path).map_err(|e| UsageError::new(e.to_string()))?;
    let mut q = ListQuery {
        soc: a.soc.clone(),
        device: a.device.clone(),
        sort: Some(RunSort::Date),
        ..ListQuery::default()
    };
    if q.soc.is_none() && q.device.is_none() {
        let run = run_ref(a.run.as_deref());
        let (p, _) = lookup::compare_target(&run, db).map_err(UsageError::from)?;
        match crate::results::store::soc_of(&p) {
            Some(soc) => q.soc = Some(soc),
            None => q.device = Some(p.log.results_row.device.clone()),
        }
    }
    let parsed = lookup::stored_runs(&s, &q)?;
    if parsed.is_empty() {
        return Err(
            UsageError::new("no stored run matches: give --soc SOC or --device TEXT").into(),
        );
    }
    let runs = history::labelled(&parsed);
    let moves = history::history(&runs);
    if a.json {
        let side = history::side_by_side(&runs);
        let doc = RunsDoc {
            side: &side,
            moves: Some(&moves),
        };
        print!(
            "{}",
            schema::pretty(&stamp(schema::RESULTS_COMPARE_RUNS, &doc))?
        );
    } else {
        print!("{}", history::render_history(&runs, &moves));
    }
    Ok(Outcome::Ok)
}

/// Run `compare`.
pub fn compare(a: &CompareArgs) -> anyhow::Result<Outcome> {
    if a.history {
        return history(a);
    }
    let run = run_ref(a.run.as_deref());
    let db = a.db.db.as_deref();
    let (r, stored_id) = lookup::compare_target(&run, db).map_err(UsageError::from)?;
    if !a.with.is_empty() {
        return with(a, (r, stored_id));
    }
    let mut refs = reference::published();
    let stored = lookup::stored_references(db, stored_id);
    refs.extend(reference::without_copies(stored, &refs));
    let selection = match (&a.soc, &a.device, &a.core_type) {
        (Some(s), _, _) => Selection::Soc(s.clone()),
        (None, Some(d), _) => Selection::Device(d.clone()),
        (None, None, Some(t)) => Selection::CoreType(t.clone()),
        (None, None, None) => lookup::default_selection(&r, &refs).ok_or(UsageError::new(
            "no published row has the run's SoC or core types: give --soc SOC, --device TEXT or --core-type TYPE",
        ))?,
    };
    let mut c = compare::compare(
        &r.log.results_row,
        &r.extra.clocks_mhz,
        &refs,
        selection,
        a.metric,
    );
    // A file given that is stored too: the stored copy is this run, left out.
    if let (lookup::RunRef::File(_), Some(id)) = (&run, stored_id) {
        let device = &r.log.results_row.device;
        c.left_out
            .insert(0, format!("{device} (stored #{id}): this run itself"));
    }
    if a.json {
        print!("{}", schema::pretty(&stamp(schema::RESULTS_COMPARE, &c))?);
    } else {
        print!("{}", crate::output::escape_controls(&compare::render(&c)));
    }
    Ok(Outcome::Ok)
}
