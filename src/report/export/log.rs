//! The text log in sbc-bench's layout (see `report::log::run::log`).

use super::Exporter;
use crate::record::run::RunReport;

/// sbc-bench's log: its sections in its order, the Results.md row last.
#[derive(Debug, Clone, Copy, Default)]
pub struct Log;

impl Exporter for Log {
    fn file_kind(&self) -> &'static str {
        "the log file"
    }

    fn render(&self, report: &RunReport) -> Vec<u8> {
        crate::report::log::run::log(report).into_bytes()
    }
}
