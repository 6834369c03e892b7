//! `sbc-bench net`: wiring of the iperf3-compatible client and server, the sampler and the
//! diagnosis, and `net info`. What is printed is made in [`crate::report::text::net`] and
//! [`crate::bench::net::report`] (iperf3's own lines).

use std::cell::RefCell;

mod info;

use crate::app::Ctx;
use crate::bench::net::client;
use crate::bench::net::local::{apply_affinity, resolve_bind};
use crate::bench::net::server;
use crate::bench::net::{NetError, Role};
use crate::cli::net::{ClientArgs, NetArgs, NetCommand, NetCommonArgs, ServerArgs};
use crate::output::Outcome;
use crate::run::net::{NetOutput, NetWatch, error, out};

/// Run the command.
pub fn run(ctx: &Ctx, args: &NetArgs) -> anyhow::Result<Outcome> {
    match &args.which {
        NetCommand::Info { json, ifaces } => info::info(&ctx.root, *json, ifaces),
        NetCommand::Client(a) => run_client(ctx, a),
        NetCommand::Server(a) => run_server(ctx, a),
    }
}

/// `-B` and `-A` of either end, and `--iface` checked: the bind address, or the outcome
/// to end with (the error printed).
fn prepare(
    ctx: &Ctx,
    bind: Option<&str>,
    common: &NetCommonArgs,
) -> Result<Option<std::net::IpAddr>, Outcome> {
    let bind = bind.map(resolve_bind).transpose().map_err(|e| {
        error(&e);
        Outcome::Failed
    })?;
    if let Err((e, outcome)) = info::check_ifaces(&ctx.root, common.iface.as_slice()) {
        error(&e);
        return Err(outcome);
    }
    // `-A`: this thread and the stream threads it starts.
    if let Some(list) = &common.affinity
        && let Err(e) = apply_affinity(&list.0)
    {
        error(&e);
        return Err(Outcome::Failed);
    }
    Ok(bind)
}

fn run_client(ctx: &Ctx, a: &ClientArgs) -> anyhow::Result<Outcome> {
    let mut cfg = match a.config() {
        Ok(c) => c,
        Err(e) => {
            error(&e);
            return Ok(Outcome::Usage);
        }
    };
    cfg.bind = match prepare(ctx, a.bind.as_deref(), &a.common) {
        Ok(b) => b,
        Err(outcome) => return Ok(outcome),
    };
    let mut watch = NetWatch::new(&ctx.root, &NetOutput::from(&a.common), Role::Client);
    let result = client::run_client(&cfg, crate::shutdown::token(), &mut |ev| watch.on(ev));
    Ok(if watch.finished(result.as_ref()) {
        Outcome::Ok
    } else if matches!(result, Err(NetError::Interrupted)) {
        // Stopped by a signal: 128 + its number, as the README documents.
        Outcome::Interrupted(crate::shutdown::signal().unwrap_or(libc::SIGINT))
    } else {
        Outcome::Failed
    })
}

fn run_server(ctx: &Ctx, a: &ServerArgs) -> anyhow::Result<Outcome> {
    let bind = match prepare(ctx, a.bind.as_deref(), &a.common) {
        Ok(b) => b,
        Err(outcome) => return Ok(outcome),
    };
    let cfg = a.config(bind);
    let watch = RefCell::new(NetWatch::new(
        &ctx.root,
        &NetOutput::from(&a.common),
        Role::Server,
    ));
    let mut failed = false;
    let served = server::serve(
        &cfg,
        crate::shutdown::token(),
        &mut |ev| watch.borrow_mut().on(ev),
        &mut |r| failed |= !watch.borrow_mut().finished(r),
    );
    Ok(match served {
        Ok(_) if a.one_off && failed => Outcome::Failed,
        Ok(_) => Outcome::Ok,
        Err(e) => {
            error(&e.to_string());
            Outcome::Failed
        }
    })
}
