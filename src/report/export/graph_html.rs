//! The efficiency graph's HTML page (`sbc-bench graph --html FILE`) as an export target.
//! The page itself is drawn by `report::page::graph`; this file only puts it behind
//! [`Exporter`], so `report::page::graph` needs nothing from `export/` (it used to hold this
//! impl, and `Format::exporter` named it back: an import circle).

use super::Exporter;
use crate::record::run::RunReport;

/// The HTML page as an export target, rewritten after every group like the log.
#[derive(Debug, Clone, Copy, Default)]
pub struct GraphHtml;

impl Exporter for GraphHtml {
    fn file_kind(&self) -> &'static str {
        "the graph page"
    }

    fn render(&self, report: &RunReport) -> Vec<u8> {
        crate::report::page::graph::html(report).into_bytes()
    }
}
