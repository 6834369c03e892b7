//! How a run talks to the user on the terminal: sbc-bench's progress lines and prompts
//! (`RunConsole`), the thermal test's temperature line rewritten in place
//! (`ThermalConsole`), and `wrap`'s plain lines (`WrapConsole`).

use std::io::{BufRead, Write};

use crate::output::{self};
use crate::record::plan::{Plan, format_estimate};
use crate::run::runner::Ui;

/// The terminal: sbc-bench's progress lines on stdout, a bar on stderr when it is a
/// terminal, prompts only when interactive.
pub struct RunConsole {
    interactive: bool,
    bar: Option<indicatif::ProgressBar>,
    /// The run's steps (for `step 2/7` and the time left), once planned.
    plan: Option<Plan>,
    /// Steps started so far.
    started: usize,
}

impl RunConsole {
    /// The console of a run; prompts only when `interactive`.
    pub fn new(interactive: bool) -> Self {
        Self {
            interactive,
            bar: None,
            plan: None,
            started: 0,
        }
    }
}

impl Ui for RunConsole {
    fn line(&mut self, s: &str) {
        println!("{s}");
    }

    fn planned(&mut self, plan: &Plan) {
        self.plan = Some(plan.clone());
    }

    fn step_started(&mut self, what: &str) -> Box<dyn Fn(f64) + Sync> {
        self.started += 1;
        let label = match &self.plan {
            Some(p) => {
                let (lo, hi) = p.remaining_from_s(self.started - 1);
                format!(
                    "{} (run: {} left)",
                    output::step_label(self.started, p.steps.len(), what),
                    format_estimate(lo, hi)
                )
            }
            None => what.to_string(),
        };
        let bar = output::step_bar(label);
        self.bar = Some(bar.clone());
        Box::new(output::forward_only(bar))
    }

    fn step_done(&mut self, what: &str, note: &str) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
        println!("{what}. Done{note}.");
        let _ = std::io::stdout().flush();
    }

    fn confirm(&mut self, warning: &str) -> bool {
        println!("{warning}");
        if !self.interactive {
            return true;
        }
        println!("Press [ctrl]-[c] to stop or [enter] to continue.");
        let mut l = String::new();
        std::io::stdin().lock().read_line(&mut l).is_ok()
    }
}

/// The run's console, with the current temperature rewritten in place on a terminal
/// (sbc-bench moves the cursor up a line after each reading).
pub struct ThermalConsole {
    inner: RunConsole,
    tty: bool,
    /// A status line stands where the next line goes.
    status_shown: bool,
}

impl ThermalConsole {
    /// The console of a thermal test; prompts only when `interactive`, the status line
    /// rewritten in place when stdout is a terminal (`tty`).
    pub fn new(interactive: bool, tty: bool) -> Self {
        Self {
            inner: RunConsole::new(interactive),
            tty,
            status_shown: false,
        }
    }

    fn clear_status(&mut self) {
        if self.status_shown {
            print!("\x1b[2K");
            self.status_shown = false;
        }
    }
}

impl Ui for ThermalConsole {
    fn line(&mut self, s: &str) {
        self.clear_status();
        self.inner.line(s);
    }

    fn planned(&mut self, plan: &Plan) {
        self.inner.planned(plan);
    }

    fn step_started(&mut self, what: &str) -> Box<dyn Fn(f64) + Sync> {
        self.inner.step_started(what)
    }

    fn step_done(&mut self, what: &str, note: &str) {
        self.clear_status();
        self.inner.step_done(what, note);
    }

    fn confirm(&mut self, warning: &str) -> bool {
        self.clear_status();
        self.inner.confirm(warning)
    }

    fn status(&mut self, s: &str) {
        if self.tty {
            print!("\x1b[2K{s}\n\x1b[1A");
            self.status_shown = true;
        } else {
            println!("{s}");
        }
        let _ = std::io::stdout().flush();
    }
}

/// Lines on stdout; no prompts (a wrapped benchmark is started on purpose).
pub struct WrapConsole;

impl Ui for WrapConsole {
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
