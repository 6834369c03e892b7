//! `sbc-bench wrap`, `-G`, `-P ARGS`, `-s`: the command (or the tool found on the PATH)
//! turned into a `WrapSpec`, run by `run::wrap` on the standard run's seams.

use std::io::Write;
use std::path::Path;

use crate::app::Ctx;
use crate::bench::external::extract::Tool;
use crate::cli::run::RunArgs;
use crate::cli::wrap::{WrapArgs, Wrapped};
use crate::output::{self, Outcome};
use crate::record::plan::Plan;
use crate::record::wrap::{Split, WrapSpec};
use crate::report::export::Format;
use crate::run::runner::{self, RunContext, RunError, Ui};
use crate::shutdown;

/// Lines on stdout; no prompts (a wrapped benchmark is started on purpose).
struct Console;

impl Ui for Console {
    fn line(&mut self, s: &str) {
        println!("{s}");
    }

    fn planned(&mut self, _plan: &Plan) {}

    fn step_started(&mut self, what: &str) -> Box<dyn Fn(f64) + Sync> {
        println!("{what}...");
        let _ = std::io::stdout().flush();
        Box::new(|_| {})
    }

    fn step_done(&mut self, what: &str, note: &str) {
        println!("{what}. Done{note}.");
        let _ = std::io::stdout().flush();
    }

    fn confirm(&mut self, warning: &str) -> bool {
        println!("{warning}");
        true
    }
}

/// Where a tool is not installed: what to do, never a download.
fn missing(what: &str, names: &str, how: &str) -> String {
    format!("{what} is not installed ({names} on the PATH); {how}")
}

/// The spec for what the user asked; `Err` when the tool is not installed.
pub fn spec(args: &WrapArgs, online_cpus: usize) -> Result<WrapSpec, String> {
    let find = crate::bench::external::find;
    let name_of = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string()
    };
    let wrapped = args.wrapped()?;
    let mut s = match wrapped {
        Wrapped::Command(argv) => WrapSpec {
            tool: Tool::of_command(&argv),
            name: name_of(Path::new(&argv[0])),
            command: argv,
            ..Default::default()
        },
        Wrapped::Geekbench => {
            let gb = find(&["geekbench6", "geekbench5"]).ok_or_else(|| {
                missing(
                    "Geekbench",
                    "geekbench6 or geekbench5",
                    "this version never downloads it: get it from https://www.geekbench.com/download/linux/ and put its binary on the PATH",
                )
            })?;
            WrapSpec {
                name: name_of(&gb),
                command: vec![gb.display().to_string()],
                tool: Tool::Geekbench,
                split: Split::PerCoreType,
                offline_others: true,
                all_core_runs: 2,
                ..Default::default()
            }
        }
        Wrapped::Pts(pts_args) => {
            let pts = find(&["phoronix-test-suite"]).ok_or_else(|| {
                missing(
                    "Phoronix Test Suite",
                    "phoronix-test-suite",
                    "install it (apt install phoronix-test-suite) and the tests (phoronix-test-suite install ARGS)",
                )
            })?;
            let mut command = vec![pts.display().to_string(), "batch-run".to_string()];
            command.extend(pts_args);
            WrapSpec {
                name: "Phoronix Test Suite".to_string(),
                command,
                env: vec![("PTS_SILENT_MODE".to_string(), "1".to_string())],
                tool: Tool::Pts,
                split: Split::PerCoreType,
                offline_others: true,
                ..Default::default()
            }
        }
        Wrapped::Stockfish => {
            let sf = find(&["stockfish"]).ok_or_else(|| {
                missing(
                    "Stockfish",
                    "stockfish",
                    "install it (apt install stockfish)",
                )
            })?;
            WrapSpec {
                name: "stockfish".to_string(),
                command: vec![sf.display().to_string()],
                // sbc-bench's bench line: hash 128 MB, every core, depth 24.
                stdin: Some(format!(
                    "bench 128 {} 24 default depth\nquit\n",
                    online_cpus.max(1)
                )),
                tool: Tool::Stockfish,
                all_core_runs: 3,
                ..Default::default()
            }
        }
    };
    if args.per_cluster {
        s.split = Split::PerCluster;
    } else if args.per_core_type {
        s.split = Split::PerCoreType;
    }
    s.offline_others |= args.offline_others;
    s.repeat = args.repeat.max(1);
    s.all_core_runs = s.all_core_runs.max(1);
    Ok(s)
}

/// Run the command.
pub fn run(ctx: &Ctx, args: &WrapArgs) -> anyhow::Result<Outcome> {
    let run_args = RunArgs {
        unattended: args.unattended,
        max_wait: args.max_wait,
        log: args.log.clone(),
        json: args.json.clone(),
        fake_benchmarks: args.fake_benchmarks,
        power: args.power.clone(),
        ..Default::default()
    };
    let mut cfg = match crate::cli::run_config(&run_args, &|k| std::env::var(k).ok()) {
        Ok(cfg) => cfg,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(Outcome::Usage);
        }
    };
    let online = crate::sys::cpu::read(&ctx.root).1.online().len();
    let spec = match spec(args, online) {
        Ok(s) => s,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(Outcome::Usage);
        }
    };
    cfg.wrap = Some(spec.clone());
    let sink = crate::app::run::export_sink(&cfg, args.log.is_some())?;
    let Ok(power) = crate::app::run::open_power(ctx, &cfg) else {
        return Ok(Outcome::Usage);
    };
    println!("sbc-bench {} (Rust) wrap", env!("CARGO_PKG_VERSION"));
    let (_exec, host, monitor_interval) = crate::app::run::seam(&cfg);
    let rctx = RunContext {
        root: &ctx.root,
        cfg: &cfg,
        cancel: shutdown::token(),
        sink: &sink,
        host: host.as_ref(),
        monitor_interval,
    };
    let result = crate::run::wrap::execute(&rctx, &spec, &mut Console);
    let outcome = runner::outcome(&result, shutdown::signal());
    let mut report = match result {
        Ok(r) => r,
        Err(RunError::Stopped) => {
            eprintln!("Stopped before running the command; nothing was changed.");
            return Ok(outcome);
        }
        Err(e) => return Err(e.into()),
    };
    crate::app::run::attach_power(&mut report, power, &sink);
    let log = sink.path(Format::Log).map(|p| p.display().to_string());
    print!(
        "{}",
        crate::report::wrap::console(&report, log.as_deref(), output::color())
    );
    if let Some(j) = sink
        .path(Format::Json)
        .filter(|j| !crate::output::stdout::is_stdout(j))
    {
        println!("JSON report in {}", j.display());
    }
    crate::app::run::store_mode_run(ctx, &args.store, cfg.fake_benchmarks, &report, &sink);
    Ok(outcome)
}
