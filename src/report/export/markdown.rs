//! The Markdown review (`run --markdown FILE`): what a reviewer pastes into a forum post
//! or an issue — the Results.md row with its header, the validation verdict and findings,
//! and the console's summary — redacted by default (docs/PRIVACY.md).

use std::fmt::Write as _;

use super::Exporter;
use crate::record::finding::Severity;
use crate::record::run::{RunReport, RunStatus};
use crate::report::redact;

/// The Markdown review.
#[derive(Debug, Clone, Default)]
pub struct Markdown {
    /// Keep identifiers (`--no-redact`).
    pub no_redact: bool,
}

impl Exporter for Markdown {
    fn file_kind(&self) -> &'static str {
        "Markdown review"
    }

    fn render(&self, r: &RunReport) -> Vec<u8> {
        let text = render(r);
        let text = if self.no_redact {
            text
        } else {
            redact::redact(&text, &crate::report::page::known_of_run(r))
        };
        text.into_bytes()
    }
}

/// One line of verdict from the findings' worst severity.
fn verdict(r: &RunReport) -> &'static str {
    if r.status != RunStatus::Complete {
        return "the run did not finish: results are incomplete";
    }
    match r.findings.iter().map(|f| f.severity).max() {
        Some(Severity::Invalid) => "the results cannot be trusted (see the findings)",
        Some(Severity::Warning) => "results valid, with warnings",
        _ => "results valid",
    }
}

fn render(r: &RunReport) -> String {
    let mut s = String::new();
    let device = r
        .results_row
        .as_ref()
        .map(|row| row.device.clone())
        .unwrap_or_default();
    let _ = writeln!(s, "# sbc-bench results: {device}\n");
    let mut mode = Vec::new();
    if r.config.quick {
        mode.push("--quick: not comparable with full runs");
    }
    if r.config.extensive {
        mode.push("extensive");
    }
    let _ = writeln!(
        s,
        "sbc-bench {} (Rust), run started {}{}.\n",
        r.sbc_bench_version,
        r.started,
        if mode.is_empty() {
            String::new()
        } else {
            format!(" ({})", mode.join(", "))
        }
    );
    let _ = writeln!(s, "**Verdict:** {}.\n", verdict(r));
    if let Some(row) = &r.results_row {
        s.push_str("| Device / details | Clockspeed | Kernel | Distro | 7-zip multi | 7-zip single | AES | memcpy | memset | kH/s |\n");
        s.push_str("| ----- | :--------: | :----: | :----: | ----: | ------: | ------: | -----: | -----: | ---: |\n");
        s.push_str(&row.render());
        s.push_str("\n\n");
    }
    s.push_str("## System\n\n```\n");
    s.push_str(crate::report::text::info::environment_block(&r.system_before).trim_matches('\n'));
    s.push_str("\n```\n\n## Findings\n\n");
    if r.findings.is_empty() {
        s.push_str("None.\n");
    }
    for f in &r.findings {
        let sev = match f.severity {
            Severity::Invalid => "**invalid**",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Ok => "ok",
        };
        let _ = writeln!(s, "- {sev} (`{}`): {}", f.code, f.message);
    }
    s.push_str("\n## Summary\n\n```\n");
    s.push_str(crate::report::log::run::console_summary(r, None, false).trim_matches('\n'));
    s.push_str("\n```\n");
    s
}
