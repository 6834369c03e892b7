//! The modes on the run engine (`run`, `thermal`, `graph`, `review`, `wrap`), wired once:
//! each mode's arguments become its config (`cli::run::ModeArgs`), its command is built
//! beside its `Mode` (`run::drive::ModeCommand`), and `run::drive::drive` runs the one
//! lifecycle. A new mode adds no file here.

use crate::app::Ctx;
use crate::cli::ModeVisit;
use crate::cli::run::{LaunchEnv, ModeArgs};
use crate::output::Outcome;
use crate::run::drive::{self, ModeCommand};

/// Run a mode from its arguments to its exit status.
pub fn run<A: ModeArgs>(ctx: &Ctx, args: &A) -> anyhow::Result<Outcome> {
    if let Err(outcome) = A::Command::may_start() {
        return Ok(outcome);
    }
    let online = || crate::sys::cpu::read(&ctx.root).1.online().len();
    let env = LaunchEnv {
        var: &|k| std::env::var(k).ok(),
        online_cpus: &online,
        find_tool: &crate::bench::external::find,
    };
    let (cfg, opts) = args.launch(&env)?;
    let mut cmd = match A::Command::prepare(&ctx.root, &cfg, opts)? {
        Ok(cmd) => cmd,
        Err(outcome) => return Ok(outcome),
    };
    // Fail in the first second, not after 30 minutes: output files first.
    let shared = args.shared();
    let mut sink = crate::report::export::run_sink(&cfg, shared.log.is_some(), ctx.redact)?;
    cmd.files(&cfg, &mut sink)?;
    drive::drive(&ctx.root, &cfg, &sink, &shared.store.choice(), &mut cmd)
}

/// [`run`] as a [`ModeVisit`]: what `app::main` hands whichever mode was chosen.
pub struct Launch<'a>(pub &'a Ctx);

impl ModeVisit for Launch<'_> {
    type Out = anyhow::Result<Outcome>;

    fn visit<A: ModeArgs>(self, args: &A) -> Self::Out {
        run(self.0, args)
    }
}
