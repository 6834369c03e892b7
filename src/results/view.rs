//! The plain views `report::stored` renders, made from the database's rows and the
//! parsed documents (report/ sits below results/ and cannot name their types).

use crate::report::stored::{ListRow, ParsedView};
use crate::results::document::Parsed;
use crate::results::export::{GeerlingExtra, geerling_yaml};
use crate::results::store::{Entry, Store};

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
