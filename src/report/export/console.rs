//! What the console shows at the end of a run (see `report::log::run::console_summary`).

use super::Exporter;
use crate::record::run::RunReport;

/// The console summary: validation, memory, scores, AES, where the log is.
#[derive(Debug, Clone, Default)]
pub struct ConsoleSummary {
    /// Where the full log went (`Full results in …`).
    pub log: Option<String>,
    /// Colour the findings.
    pub color: bool,
}

impl Exporter for ConsoleSummary {
    fn render(&self, report: &RunReport) -> Vec<u8> {
        crate::report::log::run::console_summary(report, self.log.as_deref(), self.color)
            .into_bytes()
    }
}
