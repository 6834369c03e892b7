//! The plain views `report::text::stored` renders, made from the database's rows and the
//! parsed documents (report/ sits below results/ and cannot name their types).

use std::path::Path;

use crate::report::page::{Bar, ComparisonView, ReportData};
use crate::report::redact::Known;
use crate::report::text::stored::{ListRow, ParsedView};
use crate::results::compare::{self, Metric, Selection};
use crate::results::document::Parsed;
use crate::results::export::{GeerlingExtra, geerling_yaml};
use crate::results::reference::Reference;
use crate::results::store::{Entry, Store, StoreError};
use crate::results::{lookup, reference};

impl Entry {
    /// This run's line of `results list`.
    pub fn list_row(&self) -> ListRow<'_> {
        ListRow {
            id: self.id,
            date: self.date.as_deref(),
            source: &self.source,
            device: self.device.as_deref(),
            soc: self.soc.as_deref(),
            sevenzip_multi: self.sevenzip_multi,
            sevenzip_single: self.sevenzip_single,
            aes256_16k: self.aes256_16k_kb_per_s,
            memcpy_mb_s: self.memcpy_mb_per_s,
            verdict: self.verdict.as_deref(),
        }
    }
}

impl Parsed {
    /// What `results parse` and `results show` print of it.
    pub fn view(&self) -> ParsedView<'_> {
        let p = &self.log;
        ParsedView {
            format: &self.format,
            version: p.version.as_deref(),
            mode: p.mode.as_deref(),
            date: p.date.as_deref(),
            kernel_release: p.kernel_release.as_deref(),
            soc_guess: p.soc_guess.as_deref(),
            row: &p.results_row,
            row_has_aes128: p.row_has_aes128,
            aes128_16b: p.aes128_16b,
            stated_row: p.stated_row.as_deref(),
            unread: &p.unread,
        }
    }
}

impl Entry {
    /// The entry for sharing, redacted with what its document knows (`None`: kept as
    /// stored, `--no-redact`): home paths, and the hostname wherever it appears — in the
    /// device column too, which on a machine without DMI is the hostname.
    pub fn shareable(mut self, known: Option<&crate::report::redact::Known>) -> Self {
        use crate::report::redact::redact;
        if let Some(k) = known {
            self.source_path = self.source_path.map(|p| redact(&p, k));
            self.device = self.device.map(|d| redact(&d, k));
        }
        self
    }
}

/// The report page's data of the run `t` names — a run JSON read typed, else the log's
/// record — with the comparison with known boards (`db`'s stored runs among them, `t`
/// itself left out), and what to redact in it.
pub fn report_data(t: &lookup::ReportTarget, db: Option<&Path>) -> (ReportData, Known) {
    let run = (t.parsed.format == crate::results::document::FORMAT_RUN_JSON)
        .then(|| crate::record::read::run_report(&t.document).ok())
        .flatten();
    let (mut d, known) = match &run {
        Some(r) => (
            ReportData::from_run(r),
            crate::report::page::known_of_run(r),
        ),
        // A log names no hardware provably (its device may be its hostname); the
        // hostname it states itself is redacted wherever it appears.
        None => (
            t.parsed.report_data(),
            Known {
                hostname: crate::report::redact::stated_hostnames(&t.document)
                    .into_iter()
                    .next(),
                hardware: Vec::new(),
            },
        ),
    };
    d.comparison = comparison(&t.parsed, db, t.stored_id);
    (d, known)
}

/// Every stored run's row as `results export` writes it: shareable, and with `redact`
/// the identifiers its stored document knows it contains hidden.
pub fn shareable_entries(s: &Store, redact: bool) -> Result<Vec<Entry>, StoreError> {
    Ok(s.list(&Default::default())?
        .into_iter()
        .map(|e| {
            let known = redact.then(|| {
                let doc = s.record(e.id).map(|(_, d)| d).unwrap_or_default();
                known_of_document(&doc)
            });
            e.shareable(known.as_ref())
        })
        .collect())
}

/// What a stored document knows it contains, for redaction: a run JSON's hostname and
/// the names its hardware states; a log's own hostname (its sysstat header).
pub fn known_of_document(doc: &str) -> crate::report::redact::Known {
    match crate::record::read::run_report(doc) {
        Ok(r) => crate::report::page::known_of_run(&r),
        Err(_) => crate::report::redact::Known {
            hostname: crate::report::redact::stated_hostnames(doc)
                .into_iter()
                .next(),
            hardware: Vec::new(),
        },
    }
}

/// Jeff Geerling's results.yml items of `rows`, each with its last share link and the
/// figures its stored document holds.
pub fn geerling_yaml_of(s: &Store, rows: Vec<Entry>) -> String {
    let items: Vec<_> = rows
        .into_iter()
        .map(|e| {
            let link = s
                .shares(e.id)
                .ok()
                .and_then(|v| v.last().map(|(url, _, _)| url.clone()));
            let doc = s.record(e.id).map(|(_, d)| d).unwrap_or_default();
            (e, GeerlingExtra::from_document(&doc, link))
        })
        .collect();
    geerling_yaml(&items)
}

impl Parsed {
    /// The report of a log of the bash sbc-bench (or an appended one of ours): what the
    /// row and the header say.
    pub fn report_data(&self) -> ReportData {
        crate::results::document::log_report(self)
    }
}

/// The run beside the published rows of its SoC (else its core types) and the stored
/// runs, by 7-Zip multi-core score.
pub fn comparison(p: &Parsed, db: Option<&Path>, except: Option<i64>) -> Option<ComparisonView> {
    let mut refs = reference::published();
    let stored = lookup::stored_references(db, except);
    refs.extend(reference::without_copies(stored, &refs));
    comparison_among(p, &refs, &|selection| match selection {
        Selection::Soc(s) => format!("Published rows of SoC {s}"),
        Selection::Device(d) => format!("Published rows of devices named {d}"),
        Selection::CoreType(t) => format!("Published rows with {t} cores"),
        Selection::CoreTypes(t) => format!("Published rows with {} cores", t.join(" + ")),
    })
}

/// The run beside `refs` (the rows of its SoC, else of its core types), by 7-Zip
/// multi-core score, under the heading `label` gives the selection (the report page here,
/// the hub's result pages with its own results among the rows).
pub fn comparison_among(
    p: &Parsed,
    refs: &[Reference],
    label: &dyn Fn(&Selection) -> String,
) -> Option<ComparisonView> {
    let selection = lookup::default_selection(p, refs)?;
    let selection_label = label(&selection);
    let metric = Metric::SevenzipMulti;
    let c = compare::compare(
        &p.log.results_row,
        &p.extra.clocks_mhz,
        refs,
        selection,
        metric,
    );
    let bars = c
        .rows
        .iter()
        .filter_map(|r| {
            Some(Bar {
                label: r.row.device.clone(),
                value: metric.of(&r.row)?,
                this_run: r.this_run,
            })
        })
        .collect();
    Some(ComparisonView {
        metric: metric.name().into(),
        selection: selection_label,
        bars,
        why: c.why,
    })
}
