//! `sbc-bench graph` (sbc-bench's `-g`): the efficiency graph, wired.

use crate::app::Ctx;
use crate::app::engine::{self, ModeCommand};
use crate::cli::graph::GraphArgs;
use crate::output::{self, Outcome};
use crate::record::config::RunConfig;
use crate::record::run::RunReport;
use crate::report::export::{ExportSink, Format};
use crate::run::graph::Graph;
use crate::run::runner::Mode;
use crate::sys::meter::PowerMeter;
use crate::sys::root::SysRoot;

/// Why the graph cannot run here, before anything is changed: no cpufreq (sbc-bench's
/// words), a CPU list naming CPUs this machine lacks, OPPs nobody may set.
pub fn check(root: &SysRoot, cfg: &RunConfig) -> Result<(), String> {
    let (policies, topo) = crate::sys::cpu::read(root);
    if let Some(why) = crate::run::graph::refusal(&policies) {
        return Err(why);
    }
    if let Some(g) = cfg.graph() {
        crate::run::graph::targets(&topo, &g.variant)?;
    }
    if root.is_read_only() {
        return Err(
            "the efficiency graph sets cpufreq OPPs, and --sysroot trees are only read: \
             pass --sysroot-writable to walk a copy's OPPs"
                .to_string(),
        );
    }
    if root.is_host() && !nix::unistd::geteuid().is_root() {
        return Err("the efficiency graph sets cpufreq OPPs: run it as root".to_string());
    }
    Ok(())
}

/// The graph's part of the lifecycle: its meter's line, its tables and its page.
struct GraphRun {
    mode: Graph,
    /// `Power: …`, with a meter.
    meter: Option<String>,
}

impl ModeCommand for GraphRun {
    fn mode(&mut self) -> &mut dyn Mode {
        &mut self.mode
    }

    fn banner(&self) -> String {
        let banner = format!(
            "sbc-bench {} (Rust): efficiency graph",
            env!("CARGO_PKG_VERSION")
        );
        match &self.meter {
            Some(m) => format!("{banner}\nPower: {m}"),
            None => banner,
        }
    }

    fn summary(&self, report: &RunReport, sink: &ExportSink) {
        if let Some(g) = &report.results.graph {
            print!("\n{}", crate::report::page::graph::log_sections(g));
        }
        print!(
            "{}",
            crate::report::log::run::validation(report, output::color())
        );
        if let Some(l) = sink.path(Format::Log) {
            println!("Full log: {}", l.display());
        }
    }

    fn after_store(&self, sink: &ExportSink) {
        if let Some(h) = sink.path(Format::GraphHtml) {
            println!("Please check {}", h.display());
        }
    }
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &GraphArgs) -> anyhow::Result<Outcome> {
    let cfg = crate::cli::graph::graph_config(args, &|k| std::env::var(k).ok())
        .map_err(crate::cli::UsageError)?;
    let Some(gcfg) = cfg.graph().cloned() else {
        anyhow::bail!("the efficiency graph's settings are missing");
    };
    if let Err(why) = check(&ctx.root, &cfg) {
        eprintln!("{why}");
        return Ok(Outcome::Failed);
    }
    let meter: Option<Box<dyn PowerMeter>> = match &args.shared.power {
        Some(spec) => match crate::sys::meter::open(spec, &ctx.root) {
            Ok(m) => Some(m),
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(Outcome::Failed);
            }
        },
        None => None,
    };
    let mut sink = crate::app::sink::export_sink(&cfg, args.shared.log.is_some(), ctx.redact)?;
    if let Some(h) = &gcfg.html {
        sink.add(Format::GraphHtml, h)?;
    }
    let mut cmd = GraphRun {
        meter: meter.as_ref().map(|m| m.describe()),
        mode: Graph::new(gcfg, meter),
    };
    engine::drive(ctx, &cfg, &sink, &args.shared.store, &mut cmd)
}
