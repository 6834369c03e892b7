//! Terminal concerns only: colours (respecting `NO_COLOR`), progress bars that stay quiet
//! when stdout/stderr is not a terminal, warnings, and exit codes.

mod outcome;
pub mod rows;
pub mod schema;
pub mod stdout;
pub mod usage;
pub use outcome::Outcome;

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// Exit status: everything ran and the results are valid.
pub const EXIT_OK: i32 = 0;
/// Exit status: an error stopped us (bad input, unreadable system).
pub const EXIT_ERROR: i32 = 1;
/// Exit status: bad command line.
pub const EXIT_USAGE: i32 = 2;
/// Exit status: the run finished, but a benchmark failed or validation found the results
/// cannot be trusted.
pub const EXIT_INVALID: i32 = 3;

const COLOR_UNSET: u8 = 0;
const COLOR_ON: u8 = 1;
const COLOR_OFF: u8 = 2;
static COLOR: AtomicU8 = AtomicU8::new(COLOR_UNSET);

/// Decide once whether to colour output: only on a terminal, never with `NO_COLOR` set
/// (to anything non-empty, per no-color.org) or `--no-color`.
pub fn init_color(force_off: bool) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let on = !force_off && !no_color && std::io::stdout().is_terminal();
    COLOR.store(if on { COLOR_ON } else { COLOR_OFF }, Ordering::SeqCst);
}

/// Is colour output enabled?
pub fn color() -> bool {
    COLOR.load(Ordering::SeqCst) == COLOR_ON
}

/// Text colours used in reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    /// Good news (a validation passed).
    Green,
    /// Bad news (results not trustworthy).
    Red,
    /// Worth a look.
    Yellow,
    /// Headings.
    Bold,
}

/// Wrap `s` in ANSI colour codes when colour is enabled; plain text otherwise.
pub fn paint(p: Paint, s: &str) -> String {
    if !color() {
        return s.to_string();
    }
    let code = match p {
        Paint::Green => "32",
        Paint::Red => "31",
        Paint::Yellow => "33",
        Paint::Bold => "1",
    };
    format!("\x1b[{code}m{s}\x1b[0m")
}

/// Print a warning to stderr.
pub fn warn(msg: impl std::fmt::Display) {
    eprintln!("{}", paint(Paint::Yellow, &format!("Warning: {msg}")));
}

/// Is this error a closed pipe (the reader of `sbc-bench … | head` went away)?
pub fn is_closed_pipe(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::BrokenPipe
}

/// Write `text` to `w` and flush. `Ok(false)` when the reader has gone (a closed pipe,
/// `| head`): what it wanted has been read, so the caller stops writing and treats the
/// output as done. Any other write error (a full disk behind `>`) is returned.
pub fn write_or_closed(w: &mut impl Write, text: &str) -> std::io::Result<bool> {
    match w.write_all(text.as_bytes()).and_then(|()| w.flush()) {
        Ok(()) => Ok(true),
        Err(e) if is_closed_pipe(&e) => Ok(false),
        Err(e) => Err(e),
    }
}

/// [`write_or_closed`] to stdout.
pub fn print_or_closed(text: &str) -> std::io::Result<bool> {
    write_or_closed(&mut std::io::stdout().lock(), text)
}

/// A progress bar on stderr when it is a terminal; hidden (and free) otherwise.
pub fn progress_bar(len: u64, message: impl Into<String>) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(len);
    let style = indicatif::ProgressStyle::with_template(
        "{msg} [{bar:30}] {pos}/{len} ({elapsed}, ETA {eta})",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
    .progress_chars("=> ");
    pb.set_style(style);
    pb.set_message(message.into());
    pb.enable_steady_tick(Duration::from_millis(250));
    pb
}

/// The label of step `k` of `n` (`step 2/7: Executing memory bandwidth benchmark`).
pub fn step_label(k: usize, n: usize, what: &str) -> String {
    format!("step {k}/{n}: {what}")
}

/// Positions of a [`step_bar`]: fine enough for a smooth bar and a steady ETA; the bar
/// shows a percentage, not the positions.
pub const STEP_BAR_LEN: u64 = 1000;

/// The template of a [`step_bar`]: the label, the bar, how far, and the time left
/// ([`time_left`]).
const STEP_TEMPLATE: &str = "{msg} [{bar:24}] {percent:>3}% ({elapsed}, {left})";

/// The time left in a step from indicatif's estimate (the rate so far): `about 12s left`;
/// before any progress there is no rate, and indicatif's `0s` would be a lie.
pub fn time_left(pos: u64, eta: Duration) -> String {
    if pos == 0 {
        "time left not known yet".to_string()
    } else if eta < Duration::from_secs(1) {
        "finishing".to_string()
    } else {
        format!("about {:#} left", indicatif::HumanDuration(eta))
    }
}

/// The time left as the bar shows it: the estimate taken when the bar last moved, counted
/// down since. indicatif's own estimate is the rate so far, so while a step stands (a
/// benchmark between two progress reports) it grows with every tick.
#[derive(Debug, Default)]
pub struct Countdown {
    /// The position and the estimate when the bar last moved, and when.
    last: Option<(u64, Duration, Instant)>,
}

impl Countdown {
    /// The time left at `now`, the bar at `pos` with indicatif's estimate `eta`.
    pub fn left(&mut self, pos: u64, eta: Duration, now: Instant) -> Duration {
        match self.last {
            Some((p, _, _)) if p == pos => {}
            _ => self.last = Some((pos, eta, now)),
        }
        self.last.map_or(eta, |(_, e, t)| {
            e.saturating_sub(now.saturating_duration_since(t))
        })
    }
}

/// The progress callback of a [`step_bar`]: the step's fraction done (0 to 1) moves the
/// bar forward only. A step made of parts that each count from 0 (a benchmark per
/// cluster, a second pass) never sends the bar back.
pub fn forward_only(bar: indicatif::ProgressBar) -> impl Fn(f64) + Sync + Send {
    let high = std::sync::atomic::AtomicU64::new(0);
    move |fraction: f64| {
        let pos = (fraction.clamp(0.0, 1.0) * STEP_BAR_LEN as f64).round() as u64;
        let before = high.fetch_max(pos, std::sync::atomic::Ordering::Relaxed);
        if pos > before {
            bar.set_position(pos);
        }
    }
}

/// A bar for one step of several (a run's benchmarks, a bench command's CPUs) on stderr
/// when it is a terminal, hidden otherwise: `message` is [`step_label`]'s, the position is
/// the step's fraction done times [`STEP_BAR_LEN`].
pub fn step_bar(message: impl Into<String>) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(STEP_BAR_LEN);
    let style = indicatif::ProgressStyle::with_template(STEP_TEMPLATE)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .with_key("left", {
            let countdown = std::sync::Arc::new(std::sync::Mutex::new(Countdown::default()));
            move |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let eta = match countdown.lock() {
                    Ok(mut c) => c.left(s.pos(), s.eta(), Instant::now()),
                    Err(_) => s.eta(),
                };
                let _ = w.write_str(&time_left(s.pos(), eta));
            }
        })
        .progress_chars("=> ");
    pb.set_style(style);
    pb.set_message(message.into());
    pb.enable_steady_tick(Duration::from_millis(250));
    pb
}

/// A spinner with a message on stderr when it is a terminal; hidden otherwise.
pub fn spinner(message: impl Into<String>) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new_spinner();
    pb.set_message(message.into());
    pb.enable_steady_tick(Duration::from_millis(150));
    pb
}

/// `text` with every control character but newline and tab written as an escape (`\x1b`,
/// `\r`, `\u{202e}`), bidirectional overrides included; printable text is unchanged. For
/// text that comes from outside (a peer, a file we read, a stored device name) before it
/// reaches a terminal: it cannot move the cursor, clear the screen or retitle the window.
pub fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let bidi = matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if bidi => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails every write with one error kind.
    struct Failing(std::io::ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from(self.0))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_ends_output_and_other_errors_are_errors() {
        let mut v = Vec::new();
        assert!(write_or_closed(&mut v, "a line\n").unwrap());
        assert_eq!(v, b"a line\n");
        let mut pipe = Failing(std::io::ErrorKind::BrokenPipe);
        assert!(!write_or_closed(&mut pipe, "x").unwrap());
        let mut full = Failing(std::io::ErrorKind::StorageFull);
        assert_eq!(
            write_or_closed(&mut full, "x").unwrap_err().kind(),
            std::io::ErrorKind::StorageFull
        );
    }

    /// The run's bar said `454/1000`: it now says which step of how many, how far in per
    /// cent and the time left.
    #[test]
    fn progress_bar_shows_the_step_and_a_time_estimate() {
        assert_eq!(
            step_label(2, 7, "Executing memory bandwidth benchmark"),
            "step 2/7: Executing memory bandwidth benchmark"
        );
        assert!(indicatif::ProgressStyle::with_template(STEP_TEMPLATE).is_ok());
        assert!(STEP_TEMPLATE.contains("{percent"));
        assert!(STEP_TEMPLATE.contains("{left}"));
        assert_eq!(time_left(0, Duration::ZERO), "time left not known yet");
        let t = time_left(500, Duration::from_secs(12));
        assert!(t.starts_with("about 12") && t.ends_with(" left"), "{t}");
        assert!(!STEP_TEMPLATE.contains("{pos}") && !STEP_TEMPLATE.contains("{len}"));
        // In a pipe (as under `cargo test`) the bar stays quiet.
        if !std::io::stderr().is_terminal() {
            assert!(step_bar("x").is_hidden());
        }
    }

    /// Issue 28: the TTY bar went backwards within a step (a step whose parts each count
    /// from 0) and its time left grew while the bar stood (indicatif's estimate is the
    /// rate so far).
    #[test]
    fn progress_bar_never_goes_back_and_its_time_left_counts_down() {
        let bar = indicatif::ProgressBar::hidden();
        bar.set_length(STEP_BAR_LEN);
        let progress = forward_only(bar.clone());
        progress(0.5);
        assert_eq!(bar.position(), 500);
        progress(0.1);
        assert_eq!(bar.position(), 500, "not back");
        progress(0.75);
        assert_eq!(bar.position(), 750);
        progress(7.0);
        assert_eq!(bar.position(), STEP_BAR_LEN);

        let t0 = Instant::now();
        let s = |n: u64| Duration::from_secs(n);
        let mut c = Countdown::default();
        assert_eq!(c.left(100, s(30), t0), s(30));
        // The bar stands; indicatif's estimate grows, the time left counts down.
        assert_eq!(c.left(100, s(40), t0 + s(5)), s(25));
        assert_eq!(c.left(100, s(90), t0 + s(29)), s(1));
        assert_eq!(c.left(100, s(95), t0 + s(40)), Duration::ZERO);
        assert_eq!(time_left(100, Duration::ZERO), "finishing");
        // The bar moves: a fresh estimate.
        assert_eq!(c.left(200, s(20), t0 + s(41)), s(20));
    }

    #[test]
    fn paint_is_plain_without_color() {
        COLOR.store(COLOR_OFF, Ordering::SeqCst);
        assert_eq!(paint(Paint::Red, "x"), "x");
    }
}
