//! The run's output files: checked before the run (`--log`, `--json`, `--markdown`, the
//! default log appended), and written once more when the power section joins the report.

use std::path::PathBuf;

use anyhow::Context;

use crate::output;
use crate::record::config::{DEFAULT_LOG, RunConfig};
use crate::record::run::RunReport;
use crate::report::export::{ExportSink, Format};
use crate::sys::meter::sampler::PowerSampler;

/// The output files, checked before the run: `--json FILE` and `--log FILE` must be
/// writable; the default log `/var/log/sbc-bench.log` falls back to the temp directory
/// when we may not write there. `--log FILE` holds this run alone; the default log keeps
/// the earlier runs, this one appended after sbc-bench's separator, as sbc-bench's does.
/// Nothing is created or truncated yet: a run that stops before benchmarking (too busy,
/// Ctrl-C) leaves no empty file behind and old ones intact.
pub(crate) fn export_sink(
    cfg: &RunConfig,
    explicit_log: bool,
    redact: bool,
) -> anyhow::Result<ExportSink> {
    // `--json -` (or `--markdown -`, `--log -`): stdout carries that document alone, the
    // text goes to stderr (docs/RUN-JSON.md).
    let dashes = [cfg.json.as_deref(), cfg.markdown.as_deref()]
        .into_iter()
        .flatten()
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
    if let Some(j) = &cfg.json {
        sink.add(
            if redact {
                Format::JsonRedacted
            } else {
                Format::Json
            },
            j,
        )?;
    }
    if let Some(m) = &cfg.markdown {
        let f = if cfg.no_redact {
            Format::MarkdownUnredacted
        } else {
            Format::Markdown
        };
        sink.add(f, m)?;
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

/// The meter's readings laid over the run's phases (idle mW, mW and energy per phase,
/// MIPS per watt), and the files written once more with them.
pub(crate) fn attach_power(report: &mut RunReport, power: Option<PowerSampler>, sink: &ExportSink) {
    let Some(p) = power else {
        return;
    };
    let (failed, _) = p.failures();
    let history = p.history();
    report.power = Some(crate::run::power::record(
        report,
        p.describe(),
        p.banner(),
        &history,
        failed,
    ));
    drop(p.stop());
    sink.finish(report);
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::report::export::RUN_SEPARATOR;
    use crate::run::exec::Fake;
    use crate::run::host::CannedHost;
    use crate::run::runner::{RunContext, Ui};
    use crate::shutdown;
    use crate::sys::root::SysRoot;
    use std::path::Path;
    use std::time::Duration;

    /// A fake run over the x86 VM's tree into `sink`.
    fn fake_run(cfg: &RunConfig, sink: &ExportSink) -> RunReport {
        struct Quiet;
        impl Ui for Quiet {
            fn line(&mut self, _s: &str) {}
            fn step_started(&mut self, _what: &str) -> Box<dyn Fn(f64) + Sync> {
                Box::new(|_| {})
            }
            fn step_done(&mut self, _what: &str, _note: &str) {}
            fn confirm(&mut self, _warning: &str) -> bool {
                true
            }
        }
        let root = SysRoot::new(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysroots/x86-vm"),
        );
        let token = shutdown::CancellationToken::new();
        let ctx = RunContext {
            root: &root,
            cfg,
            cancel: &token,
            sink,
            host: &CannedHost,
            monitor_interval: Duration::from_millis(50),
        };
        crate::run::standard::execute(&ctx, &mut Fake, &mut Quiet).unwrap()
    }

    #[test]
    fn only_the_default_log_is_appended() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("sbc-bench.log");
        let earlier = "sbc-bench v0.9.72 earlier (Mon, 1 Jan 2024)\n| earlier |\n";
        std::fs::write(&log, earlier).unwrap();
        let cfg = RunConfig {
            fake_benchmarks: true,
            unattended: true,
            log: log.clone(),
            ..Default::default()
        };
        // No --log: the log keeps what it held.
        let r = fake_run(&cfg, &export_sink(&cfg, false, false).unwrap());
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            format!(
                "{earlier}{RUN_SEPARATOR}{}",
                crate::report::log::run::log(&r)
            )
        );
        // --log FILE: this run alone.
        let r = fake_run(&cfg, &export_sink(&cfg, true, false).unwrap());
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            crate::report::log::run::log(&r)
        );
    }
}
