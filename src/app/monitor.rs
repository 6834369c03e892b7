//! `sbc-bench monitor [SECONDS]` (also `sbc-bench -m`): the hardware summary, then one
//! line per interval until Ctrl-C or `--count` samples; `--json` prints JSON lines.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::Context;

use crate::app::Ctx;
use crate::cli::MonitorArgs;
use crate::monitor::render::{self, Banner, Table, TableOptions};
use crate::monitor::{Monitor, MonitorConfig, SampleSpec, Setup};
use crate::output::{self, Outcome};
use crate::report;
use crate::sys::meter::sampler::PowerSampler;
use crate::sys::root::SysRoot;
use crate::sys::{board, discover, soc};

/// Run the command. Ctrl-C and a closed pipe are its normal end ([`Outcome::Ended`], status
/// 0); `--count` samples printed is [`Outcome::Ok`].
pub fn run(ctx: &Ctx, args: &MonitorArgs) -> anyhow::Result<Outcome> {
    let power = match power(ctx, args) {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(Outcome::Usage);
        }
    };
    let export_args = match crate::app::prometheus::ExportArgs::check(args) {
        Ok(e) => e,
        Err(msg) => {
            eprintln!("error: {msg}");
            return Ok(Outcome::Usage);
        }
    };
    let setup = Setup::discover(&ctx.root, args.cores);
    let mut cfg = MonitorConfig::every(Duration::from_secs_f64(args.interval));
    cfg.count = args.count;
    cfg.live = true;
    cfg.since_boot_first = true;
    if args.json {
        // Scripts get everything; the table stays cheap.
        cfg.spec = SampleSpec::full();
    }
    if args.all_counters {
        cfg.spec = SampleSpec::all_counters(&ctx.root);
    }
    let tty = std::io::stdout().is_terminal();
    let online = setup.topology.online();
    let opts = TableOptions {
        dc_in: setup.dc_in.is_some(),
        busiest: online.len() > 1,
        cores: if args.cores { online } else { Vec::new() },
    };
    let mut table = Table::new(setup.layout.clone(), opts, tty);

    // A closed pipe (`sbc-bench -m | head`) ends the monitor quietly with 0, like Ctrl-C.
    let mut out = std::io::stdout().lock();
    let power_now = |power: &Option<Power>| {
        power.as_ref().and_then(|p| {
            Some(report::prometheus::PowerNow {
                meter: p.sampler.describe().to_string(),
                watts: p.sampler.rolling_mw_of(p.window)? / 1000.0,
            })
        })
    };
    let mut export = match export_args {
        Some(a) => Some(crate::app::prometheus::Export::start(
            &ctx.root,
            &setup,
            args.interval,
            a,
            power_now(&power),
        )?),
        None => None,
    };
    if !args.json && !args.quiet {
        let mut header = table.header();
        if let Some(p) = &power {
            header = report::power::add_mw_column(&header, None);
            if let Some(b) = p.sampler.banner() {
                header = format!("{b}\n\n{header}");
            }
        }
        let head = format!("{}{}", render::banner(&banner(&ctx.root, &setup)), header);
        if !output::write_or_closed(&mut out, &head).context("writing to stdout")? {
            return Ok(Outcome::Ended);
        }
    }

    let mut handle = Monitor::start(&ctx.root, &setup, cfg)?;
    let mut closed = false;
    if let Some(rx) = handle.take_live() {
        for iv in rx {
            if let Some(e) = &mut export {
                e.update(&iv, power_now(&power));
            }
            if args.quiet {
                continue;
            }
            let line = if args.json {
                let mut s =
                    serde_json::to_string(&output::schema::stamp(output::schema::MONITOR, &iv))?;
                s.push('\n');
                s
            } else {
                let row = table.row(&iv, &render::local_hms(iv.end_unix_ms));
                match &power {
                    Some(p) => {
                        report::power::add_mw_column(&row, p.sampler.rolling_mw_of(p.window))
                    }
                    None => row,
                }
            };
            match output::write_or_closed(&mut out, &line) {
                Ok(true) => {}
                Ok(false) => {
                    closed = true;
                    break;
                }
                Err(e) => {
                    drop(handle.stop());
                    return Err(anyhow::Error::new(e).context("writing to stdout"));
                }
            }
        }
    }
    drop(handle.stop());
    if let Some(e) = export {
        e.stop();
    }
    Ok(if closed || crate::shutdown::signal().is_some() {
        Outcome::Ended
    } else {
        Outcome::Ok
    })
}

/// The `--power` meter (or sbc-bench's `Netio=HOST/SOCKET`) and how many readings the
/// column averages.
struct Power {
    sampler: PowerSampler,
    window: usize,
}

/// Open the meter, sampled every half interval with the column the mean of the last
/// 3 × interval-in-seconds readings, as sbc-bench's Netio monitor
/// (`NetioInterval=SleepInterval/2`, `NetioSamples=SleepInterval*3`).
fn power(ctx: &Ctx, args: &MonitorArgs) -> Result<Option<Power>, String> {
    let netio = std::env::var("Netio").ok();
    let Some(spec) = crate::cli::power_spec(args.power.as_deref(), netio.as_deref())? else {
        return Ok(None);
    };
    let meter = crate::sys::meter::open(&spec, &ctx.root).map_err(|e| e.to_string())?;
    let every = Duration::from_secs_f64((args.interval / 2.0).max(0.01));
    let sampler = PowerSampler::start(meter, every);
    sampler.wait_for(1, Duration::from_secs(5));
    Ok(Some(Power {
        sampler,
        window: ((args.interval * 3.0).round() as usize).max(1),
    }))
}

/// The identification line's inputs, the same as `info`'s summary line: the SoC bus
/// device, the SoC guess (on x86 the processor name), virtualisation as
/// `systemd-detect-virt` names it, the userland.
pub fn banner(root: &SysRoot, setup: &Setup) -> Banner {
    let inputs = soc::read_inputs(root, &setup.topology);
    let g = soc::guess(&inputs);
    let cpu_name = discover::x86_cpu_name(&inputs);
    Banner {
        soc0: inputs.soc0.as_ref().and_then(report::info::soc0_label),
        soc: report::info::soc_label(cpu_name.as_deref(), &g),
        kernel_arch: kernel_arch(root),
        virt: board::Virtualization::detect(
            root,
            board::Device::read(root).dmi.as_ref(),
            board::kernel_release(root).as_deref(),
        )
        .systemd_name(),
        userland: board::Userland::read(root).map(|u| u.arch),
        topology: report::topology::render(&setup.topology)
            + &report::topology::notes(&setup.topology),
        thermal_source: setup.thermal.as_ref().map(|t| t.label()),
    }
}

/// The kernel's architecture (`uname -m`), as `info` reads it.
fn kernel_arch(root: &SysRoot) -> Option<String> {
    board::kernel_machine(root, &board::HostFacts::read(root))
}
