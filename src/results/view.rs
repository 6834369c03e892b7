//! The plain views `report::stored` renders, made from the database's rows and the
//! parsed documents (report/ sits below results/ and cannot name their types).

use std::path::Path;

use crate::report::page::{Bar, ComparisonView, ReportData, Verdict};
use crate::report::stored::{ListRow, ParsedView};
use crate::results::compare::{self, Metric, Selection};
use crate::results::document::Parsed;
use crate::results::export::{GeerlingExtra, geerling_yaml};
use crate::results::store::{Entry, Store};
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
            aes256_16k: self.aes256_16k,
            memcpy_mb_s: self.memcpy_mb_s,
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
    /// The entry for sharing: home paths redacted unless `redact` is false.
    pub fn shareable(mut self, redact: bool) -> Self {
        if redact {
            let known = crate::report::redact::Known::default();
            self.source_path = self
                .source_path
                .map(|p| crate::report::redact::redact(&p, &known));
        }
        self
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

/// Why the charts of an imported sbc-bench log are empty.
const LOG_MISSING: &str = "the document is a text log, which is read for its Results.md \
figures only (make the report from the run JSON or the stored run for charts)";

impl Parsed {
    /// The report of a log of the bash sbc-bench (or an appended one of ours): what the
    /// row and the header say.
    pub fn report_data(&self) -> ReportData {
        from_log(self)
    }
}

fn from_log(p: &Parsed) -> ReportData {
    let l = &p.log;
    let row = &l.results_row;
    let mut summary = Vec::new();
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            summary.push((k.to_string(), v));
        }
    };
    push("Device", Some(row.device.clone()));
    push("SoC guess", l.soc_guess.clone());
    push(
        "Core types",
        (!l.core_types.is_empty()).then(|| l.core_types.join(", ")),
    );
    push("Kernel", l.kernel_release.clone());
    push("Distro", Some(row.distro_arch.clone()));
    push("Date", l.date.clone());
    push("Mode", l.mode.clone());
    push(
        "Measured clocks",
        (!p.extra.clocks_mhz.is_empty()).then(|| {
            p.extra
                .clocks_mhz
                .iter()
                .map(|c| format!("{c} MHz"))
                .collect::<Vec<_>>()
                .join(", ")
        }),
    );
    push(
        "ramlat 16 MiB / 128 MiB",
        p.extra.ramlat_16m_ns.map(|a| match p.extra.ramlat_128m_ns {
            Some(b) => format!("{a:.1} ns / {b:.1} ns"),
            None => format!("{a:.1} ns"),
        }),
    );
    push(
        "Not in the file",
        (!l.unread.is_empty()).then(|| l.unread.join("; ")),
    );
    ReportData {
        title: if row.device.is_empty() {
            "n/a".into()
        } else {
            row.device.clone()
        },
        source: format!(
            "{}, sbc-bench {}",
            p.format,
            l.version.as_deref().unwrap_or("(version not stated)")
        ),
        summary,
        verdict: Verdict::from_word(p.extra.verdict.as_deref()),
        results_row: Some(row.clone()),
        missing: LOG_MISSING.into(),
        ..ReportData::default()
    }
}

/// The run beside the published rows of its SoC (else its core types) and the stored
/// runs, by 7-Zip multi-core score.
pub fn comparison(p: &Parsed, db: Option<&Path>, except: Option<i64>) -> Option<ComparisonView> {
    let mut refs = reference::published();
    refs.extend(lookup::stored_references(db, except));
    let selection = lookup::default_selection(p, &refs)?;
    let label = match &selection {
        Selection::Soc(s) => format!("Published rows of SoC {s}"),
        Selection::Device(d) => format!("Published rows of devices named {d}"),
        Selection::CoreType(t) => format!("Published rows with {t} cores"),
        Selection::CoreTypes(t) => format!("Published rows with {} cores", t.join(" + ")),
    };
    let metric = Metric::SevenzipMulti;
    let c = compare::compare(&p.log.results_row, &refs, selection, metric);
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
        selection: label,
        bars,
        why: c.why,
    })
}
