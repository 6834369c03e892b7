//! `sbc-bench monitor [SECONDS]` (also `sbc-bench -m`): the hardware summary, then one
//! line per interval until Ctrl-C or `--count` samples; `--json` prints JSON lines.

use std::io::{IsTerminal, stdout};

use anyhow::Context;

use crate::app::Ctx;
use crate::cli::monitor::MonitorOptions;
use crate::cli::{MonitorArgs, UsageError};
use crate::metrics::prometheus::{Export, power_now};
use crate::monitor::render::{self, Table, TableOptions};
use crate::monitor::{Interval, Monitor, Setup};
use crate::output::{self, Outcome};
use crate::report;
use crate::sys::meter::sampler::PowerColumn;

/// Run the command. Ctrl-C and a closed pipe are its normal end ([`Outcome::Ended`], status
/// 0); `--count` samples printed is [`Outcome::Ok`].
pub fn run(ctx: &Ctx, args: &MonitorArgs) -> anyhow::Result<Outcome> {
    let opts = MonitorOptions::new(args, std::env::var("Netio").ok().as_deref())?;
    let power = power(ctx, &opts)?;
    let setup = Setup::discover(&ctx.root, args.cores);
    let cfg = opts.sampling(&ctx.root);
    let online = setup.topology.online();
    let table_opts = TableOptions {
        dc_in: setup.dc_in.is_some(),
        busiest: online.len() > 1,
        cores: if args.cores { online } else { Vec::new() },
        plain_na: true,
    };
    let mut table = Table::new(setup.layout.clone(), table_opts, stdout().is_terminal());
    // A closed pipe (`sbc-bench -m | head`) ends the monitor quietly with 0, like Ctrl-C.
    let mut out = stdout().lock();
    let mut export = match opts.export {
        Some(a) => Some(Export::start(
            &ctx.root,
            &setup,
            args.interval,
            a,
            power.as_ref().and_then(power_now),
        )?),
        None => None,
    };
    if !args.json && !args.quiet {
        let mut header = table.header();
        if let Some(p) = &power {
            header = report::log::power::add_mw_column(&header, None);
            if let Some(b) = p.sampler.banner() {
                header = format!("{b}\n\n{header}");
            }
        }
        let head = format!(
            "{}{}",
            render::banner(&report::text::info::monitor_banner(&ctx.root, &setup)),
            header
        );
        if !output::write_or_closed(&mut out, &head).context("writing to stdout")? {
            return Ok(Outcome::Ended);
        }
    }
    let mut handle = Monitor::start(&ctx.root, &setup, cfg)?;
    let mut closed = false;
    for iv in handle.take_live().into_iter().flatten() {
        if let Some(e) = &mut export {
            e.update(&iv, power.as_ref().and_then(power_now));
        }
        if args.quiet {
            continue;
        }
        let line = line(args, &mut table, &power, &iv)?;
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
    drop(handle.stop());
    if let Some(e) = export {
        e.stop();
    }
    let ended = closed || crate::shutdown::signal().is_some();
    Ok(if ended { Outcome::Ended } else { Outcome::Ok })
}

/// One interval: a JSON line, or the table's row (with the power column).
fn line(
    args: &MonitorArgs,
    table: &mut Table,
    power: &Option<PowerColumn>,
    iv: &Interval,
) -> anyhow::Result<String> {
    if args.json {
        let stamped = output::schema::stamp(output::schema::MONITOR, iv);
        return Ok(serde_json::to_string(&stamped)? + "\n");
    }
    let row = table.row(iv, &render::local_hms(iv.end_unix_ms));
    Ok(match power {
        Some(p) => report::log::power::add_mw_column(&row, p.mw()),
        None => row,
    })
}

/// The `--power` meter (or sbc-bench's `Netio=HOST/SOCKET`); one that cannot be opened
/// is a usage error.
fn power(ctx: &Ctx, opts: &MonitorOptions) -> Result<Option<PowerColumn>, UsageError> {
    let Some(spec) = &opts.power else {
        return Ok(None);
    };
    PowerColumn::open(spec, &ctx.root, opts.args.interval)
        .map(Some)
        .map_err(|e| e.to_string().into())
}
