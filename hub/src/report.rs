//! The report of one stored result: the project's own report page
//! (`sbc_bench::report::page`), from the run JSON where the result has one, else from
//! what the log reader gives, set beside the published rows of its SoC and the hub's own
//! results of it.

use std::sync::OnceLock;

use sbc_bench::record::read::run_report;
use sbc_bench::record::results_row::kernel_major_minor;
use sbc_bench::report::page::{self, ComparisonView, ReportData};
use sbc_bench::results::compare;
use sbc_bench::results::reference::{self, Reference};

use crate::store::{Full, Summary};

/// The published Results.md rows, read once.
pub fn published() -> &'static [Reference] {
    static ROWS: OnceLock<Vec<Reference>> = OnceLock::new();
    ROWS.get_or_init(reference::published)
}

/// A stored result as a reference row for `compare`.
pub fn as_reference(s: &Summary) -> Reference {
    let mut row = s.results_row();
    row.kernel = kernel_major_minor(&row.kernel);
    Reference {
        row,
        soc: s.soc.clone(),
        log: Some(format!("results/{}.html", s.id)),
        core_types: s
            .core_types
            .as_deref()
            .map(|c| c.split(", ").map(str::to_string).collect())
            .unwrap_or_default(),
        // The hub dedupes uploads itself (by document and by run): its results are not
        // copies of published logs to be told apart by file name.
        source_file: None,
    }
}

/// The report data of a result; `run_json` is its run JSON document where it has one,
/// `peers` the hub's other comparable results.
pub fn report_data(full: &Full, run_json: Option<&str>, peers: &[Summary]) -> ReportData {
    let run = run_json.and_then(|t| run_report(t).ok());
    let mut d = match &run {
        Some(r) => ReportData::from_run(r).redacted(&page::known_of_run(r)),
        None => full.record.report_data(),
    };
    let mut refs: Vec<Reference> = published().to_vec();
    refs.extend(
        peers
            .iter()
            .filter(|p| p.id != full.summary.id)
            .map(as_reference),
    );
    d.comparison = comparison(full, &refs);
    d
}

fn comparison(full: &Full, refs: &[Reference]) -> Option<ComparisonView> {
    sbc_bench::results::view::comparison_among(&full.record, refs, &|selection| match selection {
        compare::Selection::Soc(s) => format!("Published rows and hub results of SoC {s}"),
        compare::Selection::Device(d) => format!("Rows of devices named {d}"),
        compare::Selection::CoreType(t) => format!("Rows with {t} cores"),
        compare::Selection::CoreTypes(t) => format!("Rows with {} cores", t.join(" + ")),
    })
}
