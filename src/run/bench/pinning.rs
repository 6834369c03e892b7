//! The `bench …` commands' side of CPU placement (`bench::placement`): `--cpus` checked
//! in `cli::bench`, the skipped CPUs and the refusal said on the terminal.

use super::BenchCommon;
use crate::bench::placement::{NO_CPU, no_cpu_json};
use crate::output;
use crate::output::Outcome;
use crate::sys::root::SysRoot;

pub use crate::bench::placement::Resolved;

/// Read the topology and choose targets (`--cpus` was checked in `cli::bench`).
pub fn resolve(root: &SysRoot, common: &BenchCommon) -> Resolved {
    crate::bench::placement::resolve(root, common.cpus.clone())
}

impl Resolved {
    /// The one behaviour of every bench command when no CPU is left to run on: the skipped
    /// CPUs and an error on stderr (and with `--json` a document with the error on stdout);
    /// `Some(1)`. `None` when there is something to run.
    pub fn refuse_if_empty(&self, benchmark: &str, json: bool) -> Option<Outcome> {
        if !self.targets.is_empty() {
            return None;
        }
        for s in &self.skipped {
            output::warn(format!("skipping cpu{}: {}", s.cpu, s.reason));
        }
        eprintln!("Error: {NO_CPU}");
        if json {
            println!("{}", no_cpu_json(benchmark, &self.skipped));
        }
        Some(Outcome::Failed)
    }

    /// Print [`Resolved::sysroot_note`] (text mode) on stdout.
    pub fn print_sysroot_note(&self) {
        if let Some(n) = &self.sysroot_note {
            println!("Note: {n}");
        }
    }

    /// Warn about skipped CPUs on stderr (for commands whose report does not list them);
    /// returns [`Resolved::explicit_skip`].
    pub fn warn_skipped(&self) -> bool {
        for s in &self.skipped {
            output::warn(format!("skipping cpu{}: {}", s.cpu, s.reason));
        }
        self.explicit_skip()
    }
}
