//! The run's output files, chosen from its config and checked before the run (`--log`,
//! `--json`, `--markdown`, the default log appended): [`run_sink`].

use std::path::PathBuf;

use anyhow::Context;

use crate::output;
use crate::record::config::{DEFAULT_LOG, RunConfig};
use crate::report::export::{ExportSink, Format};

/// The output files, checked before the run: `--json FILE` and `--log FILE` must be
/// writable; the default log `/var/log/sbc-bench.log` falls back to the temp directory
/// when we may not write there. `--log FILE` holds this run alone; the default log keeps
/// the earlier runs, this one appended after sbc-bench's separator, as sbc-bench's does.
/// Nothing is created or truncated yet: a run that stops before benchmarking (too busy,
/// Ctrl-C) leaves no empty file behind and old ones intact.
pub fn run_sink(cfg: &RunConfig, explicit_log: bool, redact: bool) -> anyhow::Result<ExportSink> {
    // `--json -` (or `--markdown -`, `--log -`): stdout carries that document alone, the
    // text goes to stderr (docs/RUN-JSON.md).
    let files = Format::requested(cfg, redact);
    let dashes = files
        .iter()
        .map(|&(_, p)| p)
        .chain(explicit_log.then_some(cfg.log.as_path()))
        .filter(|p| output::stdout::is_stdout(p))
        .count();
    if dashes > 1 {
        anyhow::bail!("only one of --json, --markdown and --log can be - (standard output)");
    }
    if dashes == 1 {
        output::stdout::reserve().context("cannot keep standard output for the document")?;
    }
    let mut sink = ExportSink::new();
    for (format, path) in files {
        sink.add(format, path)?;
    }
    if explicit_log {
        sink.add(Format::Log, &cfg.log)?;
        return Ok(sink);
    }
    if let Err(e) = sink.add_appending(Format::Log, &cfg.log) {
        let alt: PathBuf = std::env::temp_dir().join("sbc-bench.log");
        output::warn(format!(
            "cannot write {DEFAULT_LOG} ({}); the log goes to {}",
            e.root_cause(),
            alt.display()
        ));
        sink.add_appending(Format::Log, &alt)?;
    }
    Ok(sink)
}
