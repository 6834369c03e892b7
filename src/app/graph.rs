//! `sbc-bench graph` (sbc-bench's `-g`): the efficiency graph, wired.

use std::io::IsTerminal;
use std::path::Path;

use crate::app::Ctx;
use crate::app::run::{Console, export_sink, seam};
use crate::cli::graph::GraphArgs;
use crate::output::{self, Outcome};
use crate::record::config::RunConfig;
use crate::report::export::{ExportSink, Format};
use crate::run::runner::{self, RunContext, RunError};
use crate::shutdown;
use crate::sys::meter::PowerMeter;
use crate::sys::root::SysRoot;

/// Why the graph cannot run here, before anything is changed: no cpufreq (sbc-bench's
/// words), a CPU list naming CPUs this machine lacks, OPPs nobody may set.
pub fn check(root: &SysRoot, cfg: &RunConfig) -> Result<(), String> {
    let (policies, topo) = crate::sys::cpu::read(root);
    if let Some(why) = crate::run::graph::refusal(&policies) {
        return Err(why);
    }
    if let Some(g) = &cfg.graph {
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

fn sink(cfg: &RunConfig, explicit_log: bool) -> anyhow::Result<ExportSink> {
    let mut sink = export_sink(cfg, explicit_log)?;
    if let Some(h) = cfg.graph.as_ref().and_then(|g| g.html.as_ref()) {
        sink.add(Format::GraphHtml, h)?;
    }
    Ok(sink)
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &GraphArgs) -> anyhow::Result<Outcome> {
    let cfg = match crate::cli::graph::graph_config(args, &|k| std::env::var(k).ok()) {
        Ok(cfg) => cfg,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(Outcome::Usage);
        }
    };
    if let Err(why) = check(&ctx.root, &cfg) {
        eprintln!("{why}");
        return Ok(Outcome::Failed);
    }
    let meter: Option<Box<dyn PowerMeter>> = match &args.power {
        Some(spec) => match crate::sys::meter::open(spec, &ctx.root) {
            Ok(m) => Some(m),
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(Outcome::Failed);
            }
        },
        None => None,
    };
    let sink = sink(&cfg, args.log.is_some())?;
    println!(
        "sbc-bench {} (Rust): efficiency graph",
        env!("CARGO_PKG_VERSION")
    );
    if let Some(m) = &meter {
        println!("Power: {}", m.describe());
    }
    let (mut exec, host, monitor_interval) = seam(&cfg);
    let mut ui = Console {
        interactive: !cfg.unattended && std::io::stdin().is_terminal(),
        bar: None,
        plan: None,
        started: 0,
    };
    let rctx = RunContext {
        root: &ctx.root,
        cfg: &cfg,
        cancel: shutdown::token(),
        sink: &sink,
        host: host.as_ref(),
        monitor_interval,
    };
    let result = crate::run::graph::execute(&rctx, exec.as_mut(), &mut ui, meter);
    let outcome = runner::outcome(&result, shutdown::signal());
    let report = match result {
        Ok(r) => r,
        Err(RunError::Stopped) => {
            eprintln!("Stopped before benchmarking; nothing was changed.");
            return Ok(outcome);
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(g) = &report.results.graph {
        print!("\n{}", crate::report::graph::log_sections(g));
    }
    print!(
        "{}",
        crate::report::run::validation(&report, output::color())
    );
    if let Some(l) = sink.path(Format::Log) {
        println!("Full log: {}", l.display());
    }
    if let Some(j) = sink.path(Format::Json).filter(|j| *j != Path::new("-")) {
        println!("JSON report in {}", j.display());
    }
    crate::app::run::store_mode_run(ctx, &args.store, cfg.fake_benchmarks, &report, &sink);
    if let Some(h) = sink.path(Format::GraphHtml) {
        println!("Please check {}", h.display());
    }
    Ok(outcome)
}
