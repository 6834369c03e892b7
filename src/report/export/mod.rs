//! Exporters: one trait that renders a [`RunReport`] to bytes, one file per format, and a
//! sink that owns the target files. The sink's targets are checked while the command line
//! is read (a bad path fails before a long run) and rewritten after every step, so a run
//! killed late keeps the log and the JSON of everything that finished. The default log
//! keeps earlier runs, as sbc-bench's does ([`ExportSink::add_appending`]).
//!
//! Adding a format (a Markdown review, an HTML report) is a new file here with a type
//! implementing [`Exporter`], a [`Format`] variant with its lines in [`Format::exporter`]
//! and [`Format::requested`], the flag that asks for it (`cli::run`, where the run's
//! config is made) and the config's field that holds its path (`record::config`).

mod console;
pub mod file;
mod graph_html;
mod json;
mod log;
mod markdown;
mod run_files;

use std::cell::Cell;
use std::path::Path;

use anyhow::Context;

pub use self::console::ConsoleSummary;
pub use self::file::AtomicFile;
pub use self::graph_html::GraphHtml;
pub use self::json::{Json, JsonRedacted};
pub use self::log::Log;
pub use self::markdown::Markdown;
pub use self::run_files::run_sink;
use crate::record::config::RunConfig;
use crate::record::run::RunReport;

/// Renders one run report to bytes.
pub trait Exporter {
    /// How a file of this format is named in errors (`JSON report` in
    /// `cannot write JSON report x.json`).
    fn file_kind(&self) -> &'static str {
        "report"
    }

    /// The document for `report` as it stands (a snapshot while the run goes on).
    fn render(&self, report: &RunReport) -> Vec<u8>;
}

/// The file formats a run can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// sbc-bench's text log; its last line is the Results.md row.
    Log,
    /// The versioned JSON document (`--json`).
    Json,
    /// The same, identifiers redacted (`--json` with `-z/--redact`).
    JsonRedacted,
    /// The Markdown review (`--markdown`), redacted (docs/PRIVACY.md).
    Markdown,
    /// The Markdown review with every identifier kept (`--markdown` with `--no-redact`).
    MarkdownUnredacted,
    /// The efficiency graph's HTML page with its SVG charts (`sbc-bench graph --html`).
    GraphHtml,
}

impl Format {
    /// The exporter of this format.
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Format::Log => Box::new(Log),
            Format::Json => Box::new(Json),
            Format::JsonRedacted => Box::new(JsonRedacted),
            Format::Markdown => Box::new(Markdown { no_redact: false }),
            Format::MarkdownUnredacted => Box::new(Markdown { no_redact: true }),
            Format::GraphHtml => Box::new(GraphHtml),
        }
    }

    /// The files a run's config asks for besides its log (`--json`, `--markdown`), in
    /// the order they are written, each in the format the config and `-z/--redact`
    /// choose.
    pub fn requested(cfg: &RunConfig, redact: bool) -> Vec<(Format, &Path)> {
        let json = if redact {
            Format::JsonRedacted
        } else {
            Format::Json
        };
        let markdown = if cfg.no_redact {
            Format::MarkdownUnredacted
        } else {
            Format::Markdown
        };
        [(json, &cfg.json), (markdown, &cfg.markdown)]
            .into_iter()
            .filter_map(|(f, p)| Some((f, p.as_deref()?)))
            .collect()
    }
}

/// What sbc-bench writes between two runs appended to its log (`echo -e "\n\n\n"` onto a
/// non-empty `/var/log/sbc-bench.log`): four newlines, so the new run's first line
/// `sbc-bench v…` follows the earlier run's last line after four empty lines.
pub const RUN_SEPARATOR: &str = "\n\n\n\n";

/// One file and the exporter that fills it.
struct Target {
    format: Format,
    exporter: Box<dyn Exporter>,
    file: AtomicFile,
    /// What the file held before this run, with [`RUN_SEPARATOR`] after it, for a target
    /// this run is appended to; empty for one it replaces. Read once, when the target is
    /// added, and written back unchanged before this run's document every time.
    earlier: Vec<u8>,
    /// A failed write was reported already (warn once, not after every step).
    warned: Cell<bool>,
    /// The last write failed (why): the run's outcome says so at the end.
    failed: std::cell::RefCell<Option<String>>,
}

/// Owns the run's output files and rewrites them all from the report.
#[derive(Default)]
pub struct ExportSink {
    targets: Vec<Target>,
}

impl ExportSink {
    /// A sink without targets.
    pub fn new() -> Self {
        Self::default()
    }

    /// Check that `path` can be written and add it as a target of `format`. Nothing is
    /// written yet: a run that stops before benchmarking leaves an existing file alone.
    pub fn add(&mut self, format: Format, path: &Path) -> anyhow::Result<()> {
        self.add_target(format, path, false)
    }

    /// [`add`](Self::add) for a file that keeps every run, as sbc-bench's
    /// `/var/log/sbc-bench.log`: what it holds now is read once, here, and this run
    /// follows it after [`RUN_SEPARATOR`]. Each rewrite puts the earlier runs back
    /// byte for byte, so a run killed at any moment loses none of them. A file that
    /// exists but cannot be read is refused (rewriting it would lose them).
    pub fn add_appending(&mut self, format: Format, path: &Path) -> anyhow::Result<()> {
        self.add_target(format, path, true)
    }

    fn add_target(&mut self, format: Format, path: &Path, append: bool) -> anyhow::Result<()> {
        let exporter = format.exporter();
        let what = || format!("cannot write {} {}", exporter.file_kind(), path.display());
        let file = AtomicFile::create(path).with_context(what)?;
        let mut earlier = Vec::new();
        if append {
            let before = file
                .existing()
                .context("cannot read the earlier runs")
                .with_context(what)?;
            if let Some(b) = before.filter(|b| !b.is_empty()) {
                earlier = b;
                earlier.extend_from_slice(RUN_SEPARATOR.as_bytes());
            }
        }
        self.targets.push(Target {
            format,
            exporter,
            file,
            earlier,
            warned: Cell::new(false),
            failed: std::cell::RefCell::new(None),
        });
        Ok(())
    }

    /// The path of the first target of `format`.
    pub fn path(&self, format: Format) -> Option<&Path> {
        self.targets
            .iter()
            .find(|t| t.format == format)
            .map(|t| t.file.path())
    }

    /// The path of the first target of `format` when it is a regular file (rewritten
    /// in place of the old one): not a device, a pipe or standard output. The report
    /// page goes beside such a log only (`/dev/null.html` was written into /dev).
    pub fn regular_file(&self, format: Format) -> Option<&Path> {
        self.targets
            .iter()
            .find(|t| t.format == format && t.file.rewritable())
            .map(|t| t.file.path())
    }

    /// The targets whose last write failed, one sentence each (`--json /dev/full` made a
    /// run exit 0 with a warning: the run fails instead).
    pub fn failures(&self) -> Vec<String> {
        self.targets
            .iter()
            .filter_map(|t| t.failed.borrow().clone())
            .collect()
    }

    /// Rewrite every file target from `report` (devices, pipes and stdout wait for
    /// [`finish`](Self::finish)). A target that cannot be written is reported once and the
    /// run goes on.
    pub fn write(&self, report: &RunReport) {
        self.write_targets(report, false);
    }

    /// The last write: every target, devices, pipes and stdout included.
    pub fn finish(&self, report: &RunReport) {
        self.write_targets(report, true);
    }

    fn write_targets(&self, report: &RunReport, last: bool) {
        self.write_each(last, &|t| t.exporter.render(report));
    }

    fn write_each(&self, last: bool, render: &dyn Fn(&Target) -> Vec<u8>) {
        for t in self.targets.iter().filter(|t| last || t.file.rewritable()) {
            let doc = render(t);
            let res = if t.earlier.is_empty() {
                t.file.write(&doc)
            } else {
                // The bytes on disk before this run: the earlier runs, without the
                // separator (that is this run's to write).
                let on_disk = t.earlier.len() - RUN_SEPARATOR.len();
                t.file
                    .write_keeping(on_disk, &[t.earlier.as_slice(), &doc].concat())
            };
            match res {
                Err(e) => {
                    if !t.warned.replace(true) {
                        crate::output::warn(format!(
                            "cannot write {}: {e:#}",
                            t.file.path().display()
                        ));
                    }
                    *t.failed.borrow_mut() = Some(format!(
                        "cannot write {} {}: {e:#}",
                        t.exporter.file_kind(),
                        t.file.path().display()
                    ));
                }
                Ok(()) => *t.failed.borrow_mut() = None,
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// The files a config asks for, in the order the sink adds them, each in the format
    /// `-z/--redact` and `--no-redact` choose.
    #[test]
    fn requested_files_follow_the_config_and_the_redaction() {
        let mut cfg = RunConfig::default();
        assert!(Format::requested(&cfg, false).is_empty());
        cfg.json = Some("r.json".into());
        cfg.markdown = Some("r.md".into());
        assert_eq!(
            Format::requested(&cfg, false),
            [
                (Format::Json, Path::new("r.json")),
                (Format::Markdown, Path::new("r.md"))
            ]
        );
        cfg.no_redact = true;
        assert_eq!(
            Format::requested(&cfg, true),
            [
                (Format::JsonRedacted, Path::new("r.json")),
                (Format::MarkdownUnredacted, Path::new("r.md"))
            ]
        );
    }

    #[test]
    fn targets_are_checked_when_added_and_named_in_the_error() {
        let mut sink = ExportSink::new();
        let e = sink
            .add(Format::Json, Path::new("/nonexistent-dir/x.json"))
            .unwrap_err();
        assert!(format!("{e:#}").starts_with("cannot write JSON report /nonexistent-dir/x.json: "));
        let e = sink
            .add(Format::Log, Path::new("/nonexistent-dir/x.log"))
            .unwrap_err();
        assert!(format!("{e:#}").starts_with("cannot write the log file /nonexistent-dir/x.log: "));
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("sbc-bench.log");
        sink.add(Format::Log, &log).unwrap();
        assert!(
            !log.exists(),
            "nothing written before the run has something to say"
        );
        assert_eq!(sink.path(Format::Log), Some(log.as_path()));
        assert_eq!(sink.path(Format::Json), None);
    }

    #[test]
    fn an_appended_target_keeps_what_it_held_and_a_replaced_one_does_not() {
        let d = tempfile::tempdir().unwrap();
        let earlier = "sbc-bench v0.9.72 earlier (Mon, 1 Jan 2024)\n| earlier |\n";
        let kept = d.path().join("kept.log");
        let replaced = d.path().join("replaced.log");
        let fresh = d.path().join("fresh.log");
        std::fs::write(&kept, earlier).unwrap();
        std::fs::write(&replaced, earlier).unwrap();
        let mut sink = ExportSink::new();
        sink.add_appending(Format::Log, &kept).unwrap();
        sink.add(Format::Log, &replaced).unwrap();
        sink.add_appending(Format::Log, &fresh).unwrap();
        // Read once, when added: what this run writes itself is not an earlier run.
        std::fs::write(&kept, "changed meanwhile\n").unwrap();
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();
        for step in ["step 1\n", "step 2\n"] {
            sink.write_each(false, &|_| step.as_bytes().to_vec());
            assert_eq!(read(&kept), format!("{earlier}{RUN_SEPARATOR}{step}"));
            assert_eq!(read(&replaced), step);
            assert_eq!(read(&fresh), step, "nothing to separate from");
        }
    }
}
