//! Before benchmarking: are we root, does the kernel log still hold the boot messages, and
//! is the machine idle? sbc-bench waits until the 1-minute load is below 0.1 or CPU
//! utilisation averaged over 30 s is below 2.5 %, saying `Too busy for benchmarking: …`
//! every 5 s. We judge by the same thresholds over 10 s ([`IDLE_WINDOW`]; sbc-bench's 30 s
//! with `--extensive`): the 1-minute load decays with a one-minute time constant, so right
//! after any work (the previous run, a login) it stays above 0.1 for minutes and the window
//! is what every run waits; background activity during the benchmarks is judged from the
//! monitor's recording afterwards (`diagnose::run_validation`), so the window only has to
//! see that nothing is busy *now* (issue 30: 20 s of every run).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::monitor::stat;
use crate::shutdown::CancellationToken;
use crate::sys::counters::{PROC_LOADAVG, PROC_STAT, PROC_UPTIME};
use crate::sys::procs;
use crate::sys::root::SysRoot;

/// Load below which the machine counts as idle at once.
pub const IDLE_LOAD: f64 = 0.1;
/// Average utilisation (percent of all CPUs) below which it counts as idle.
pub const IDLE_CPU_PCT: f64 = 2.5;
/// How often we look again (and print).
pub const IDLE_POLL: Duration = Duration::from_secs(5);
/// Window the utilisation is averaged over: two polls (10 s), long enough to see a machine
/// that is busy now (a compile, an update, a second benchmark).
pub const IDLE_WINDOW: Duration = Duration::from_secs(2 * IDLE_POLL.as_secs());
/// sbc-bench's window (`--extensive`, its full protocol).
pub const SBC_BENCH_IDLE_WINDOW: Duration = Duration::from_secs(30);

/// Decides idleness from a stream of 5-second observations.
#[derive(Debug)]
pub struct IdleJudge {
    window: VecDeque<(f64, f64)>,
    span_s: f64,
}

impl Default for IdleJudge {
    fn default() -> Self {
        Self::with_window(IDLE_WINDOW)
    }
}

impl IdleJudge {
    /// A judge averaging utilisation over `window` (ours 10 s, sbc-bench's 30 s).
    pub fn with_window(window: Duration) -> Self {
        Self {
            window: VecDeque::new(),
            span_s: window.as_secs_f64(),
        }
    }

    /// Feed one observation: the 1-minute load and the utilisation over the last `secs`.
    /// Returns true when the machine counts as idle.
    pub fn observe(&mut self, load1: f64, cpu_pct: f64, secs: f64) -> bool {
        self.window.push_back((cpu_pct, secs));
        let mut total = 0.0;
        // Keep the newest observations covering the window.
        let mut keep = 0;
        for (_, s) in self.window.iter().rev() {
            if total >= self.span_s {
                break;
            }
            total += s;
            keep += 1;
        }
        while self.window.len() > keep {
            self.window.pop_front();
        }
        if load1 < IDLE_LOAD {
            return true;
        }
        let covered: f64 = self.window.iter().map(|(_, s)| s).sum();
        if covered + 0.5 < self.span_s {
            return false;
        }
        self.average() < IDLE_CPU_PCT
    }

    /// Time-weighted average utilisation over the window.
    pub fn average(&self) -> f64 {
        let secs: f64 = self.window.iter().map(|(_, s)| s).sum();
        if secs <= 0.0 {
            return 0.0;
        }
        self.window.iter().map(|(c, s)| c * s).sum::<f64>() / secs
    }
}

/// `up 3 min`, `up 1:05`, `up 2 days,  3:04` as `uptime` prints it.
pub fn format_uptime(secs: f64) -> String {
    let total_min = (secs / 60.0) as u64;
    let days = total_min / (24 * 60);
    let hours = (total_min / 60) % 24;
    let mins = total_min % 60;
    let mut s = String::from("up ");
    if days > 0 {
        s.push_str(&format!("{days} day{}, ", if days == 1 { "" } else { "s" }));
    }
    if hours > 0 {
        s.push_str(&format!("{hours:2}:{mins:02}"));
    } else {
        s.push_str(&format!("{mins} min"));
    }
    s
}

/// The `uptime`-like line sbc-bench prints: `07:21:06 up 3 min,  load average: 0.41, 0.27, 0.11`.
pub fn uptime_line(root: &SysRoot, now: chrono::DateTime<chrono::Local>) -> String {
    let up = root
        .read_opt(PROC_UPTIME)
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok());
    let load = root
        .read_opt(PROC_LOADAVG)
        .and_then(|s| stat::parse_loadavg(&s));
    let mut s = now.format("%H:%M:%S").to_string();
    if let Some(u) = up {
        s.push(' ');
        s.push_str(&format_uptime(u));
        s.push(',');
    }
    if let Some([a, b, c]) = load {
        s.push_str(&format!("  load average: {a:.2}, {b:.2}, {c:.2}"));
    }
    s
}

/// What waiting for idle ended with.
#[derive(Debug, Clone, PartialEq)]
pub enum IdleOutcome {
    /// Idle (after this long).
    Idle(Duration),
    /// Still busy when `max_wait` ran out.
    GaveUp {
        /// How long we waited.
        waited: Duration,
        /// Average utilisation over the last window.
        cpu_pct: f64,
        /// Last 1-minute load.
        load1: f64,
        /// The busiest other process over the last poll (`apt-get 87 %`), if any used
        /// the CPU.
        busiest: Option<String>,
    },
    /// Ctrl-C while waiting.
    Cancelled,
}

/// Wait until idle, calling `report` with a `Too busy for benchmarking: …` line every poll.
pub fn wait_for_idle(
    root: &SysRoot,
    max_wait: Option<Duration>,
    window: Duration,
    token: &CancellationToken,
    poll: Duration,
    mut report: impl FnMut(&str),
) -> IdleOutcome {
    let start = Instant::now();
    let read_stat = || {
        root.read_opt(PROC_STAT)
            .map(|s| stat::parse_proc_stat(&s).total)
    };
    let read_load = || {
        root.read_opt(PROC_LOADAVG)
            .and_then(|s| stat::parse_loadavg(&s))
            .map(|l| l[0])
    };
    // No /proc/loadavg (odd containers): nothing to judge, go ahead.
    let Some(first_load) = read_load() else {
        return IdleOutcome::Idle(Duration::ZERO);
    };
    if first_load < IDLE_LOAD {
        return IdleOutcome::Idle(Duration::ZERO);
    }
    report(
        "\nAverage load and/or CPU utilization too high (too much background activity). Waiting...\n",
    );
    let mut judge = IdleJudge::with_window(window);
    let mut prev = read_stat();
    let mut prev_t = Instant::now();
    let mut procs = Busiest::new(root);
    loop {
        // Never sleep past `max_wait`: `--max-wait 3` gives up after 3 s, not one poll.
        let nap = max_wait.map_or(poll, |m| poll.min(m.saturating_sub(start.elapsed())));
        if !token.sleep(nap) {
            return IdleOutcome::Cancelled;
        }
        let cur = read_stat();
        let now = Instant::now();
        let secs = now.duration_since(prev_t).as_secs_f64();
        let cpu = match (&prev, &cur) {
            (Some(a), Some(b)) => stat::usage(a, b).map_or(0.0, |u| u.cpu_pct),
            _ => 0.0,
        };
        prev = cur;
        prev_t = now;
        let load1 = read_load().unwrap_or(0.0);
        let busiest = procs.over(secs);
        if judge.observe(load1, cpu, secs) {
            return IdleOutcome::Idle(start.elapsed());
        }
        report(&format!(
            "Too busy for benchmarking: {},  cpu: {:.0}%{}",
            uptime_line(root, chrono::Local::now()),
            cpu,
            busiest
                .as_deref()
                .map(|b| format!(",  busiest: {b}"))
                .unwrap_or_default()
        ));
        if let Some(max) = max_wait {
            if start.elapsed() >= max {
                return IdleOutcome::GaveUp {
                    waited: start.elapsed(),
                    cpu_pct: judge.average(),
                    load1,
                    busiest,
                };
            }
        }
    }
}

/// The busiest other process between two polls of the idle wait (not this one, nor
/// its children), by [`procs::ProcessTally`]: the time of children a process waited for
/// counts for it, so a shell running short `apt-get`s or a `make` of short compilers is
/// named.
struct Busiest {
    root: SysRoot,
    exclude: Option<u32>,
    tally: procs::ProcessTally,
    last: Vec<procs::ProcessTicks>,
}

impl Busiest {
    fn new(root: &SysRoot) -> Self {
        let exclude = root.is_host().then(std::process::id);
        let mut tally = procs::ProcessTally::default();
        tally.update(&procs::read_all(root, exclude));
        let last = tally.snapshot();
        Self {
            root: root.clone(),
            exclude,
            tally,
            last,
        }
    }

    /// `apt-get 87 %` for the `secs` since the last call; `None` when nothing ran.
    fn over(&mut self, secs: f64) -> Option<String> {
        self.tally
            .update(&procs::read_all(&self.root, self.exclude));
        let now = self.tally.snapshot();
        let top = procs::busiest(&self.last, &now, secs, stat::USER_HZ, 1);
        self.last = now;
        top.first()
            .map(|p| format!("{} {:.0} %", p.comm, p.cpu_pct))
    }
}

/// Are we root (effective uid 0)? Without root we cannot set governors or walk OPPs.
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_load_is_idle_at_once() {
        let mut j = IdleJudge::default();
        assert!(j.observe(0.05, 50.0, 5.0));
    }

    #[test]
    fn utilisation_needs_a_full_window() {
        let mut j = IdleJudge::with_window(SBC_BENCH_IDLE_WINDOW);
        for _ in 0..5 {
            assert!(!j.observe(0.5, 1.0, 5.0), "25 s is not 30 s");
        }
        assert!(j.observe(0.5, 1.0, 5.0));
        let mut busy = IdleJudge::with_window(SBC_BENCH_IDLE_WINDOW);
        for _ in 0..10 {
            assert!(!busy.observe(0.5, 10.0, 5.0));
        }
        // Old busy samples leave the window.
        for _ in 0..5 {
            busy.observe(0.5, 0.0, 5.0);
        }
        assert!(busy.observe(0.5, 0.0, 5.0));
    }

    #[test]
    fn our_window_is_two_polls() {
        let mut j = IdleJudge::default();
        assert!(!j.observe(0.5, 1.0, 5.0), "5 s is not 10 s");
        assert!(j.observe(0.5, 1.0, 5.0), "10 s of idle are enough");
        let mut busy = IdleJudge::default();
        assert!(!busy.observe(0.5, 1.0, 5.0));
        assert!(!busy.observe(0.5, 4.5, 5.0), "2.75 % over 10 s is busy");
        assert!(
            !busy.observe(0.5, 0.6, 5.0),
            "the busy poll is still in the window"
        );
        assert!(busy.observe(0.5, 0.6, 5.0), "the busy poll left the window");
    }

    #[test]
    fn uptime_formats() {
        assert_eq!(format_uptime(200.0), "up 3 min");
        assert_eq!(format_uptime(3900.0), "up  1:05");
        assert_eq!(
            format_uptime(2.0 * 86400.0 + 3.0 * 3600.0 + 240.0),
            "up 2 days,  3:04"
        );
    }

    #[test]
    fn busy_fixture_gives_up_after_max_wait() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("proc")).unwrap();
        std::fs::write(d.path().join("proc/loadavg"), "3.00 2.00 1.00 1/79 1\n").unwrap();
        std::fs::write(d.path().join("proc/stat"), "cpu 100 0 0 100 0 0 0 0\n").unwrap();
        std::fs::write(d.path().join("proc/uptime"), "200.5 100.0\n").unwrap();
        let root = SysRoot::new(d.path());
        let t = CancellationToken::new();
        let mut lines = Vec::new();
        let out = wait_for_idle(
            &root,
            Some(Duration::from_millis(30)),
            IDLE_WINDOW,
            &t,
            Duration::from_millis(10),
            |l| lines.push(l.to_string()),
        );
        assert!(matches!(out, IdleOutcome::GaveUp { load1, .. } if load1 == 3.0));
        assert_eq!(
            lines[0],
            "\nAverage load and/or CPU utilization too high (too much background activity). Waiting...\n"
        );
        assert!(
            lines[1].starts_with("Too busy for benchmarking: "),
            "{}",
            lines[1]
        );
        assert!(lines[1].contains("up 3 min,  load average: 3.00, 2.00, 1.00,  cpu: 0%"));
        // The wait ends at max_wait, not at the next poll.
        let t0 = Instant::now();
        let out = wait_for_idle(
            &root,
            Some(Duration::from_millis(50)),
            IDLE_WINDOW,
            &t,
            Duration::from_secs(5),
            |_| {},
        );
        assert!(matches!(out, IdleOutcome::GaveUp { .. }));
        assert!(
            t0.elapsed() < Duration::from_secs(4),
            "gave up before the 5 s poll"
        );
    }

    /// Issue 28: "Too busy for benchmarking" said the machine was busy, not with what.
    /// The idle wait names the busiest process of each poll (an `apt-get` here, whose
    /// time rises between polls), and the error at `--max-wait` names it too.
    #[test]
    fn too_busy_names_the_busiest_process() {
        let d = tempfile::tempdir().unwrap();
        let proc = d.path().join("proc");
        std::fs::create_dir_all(proc.join("4711")).unwrap();
        std::fs::write(proc.join("loadavg"), "3.00 2.00 1.00 1/79 1\n").unwrap();
        std::fs::write(proc.join("stat"), "cpu 100 0 0 100 0 0 0 0\n").unwrap();
        let apt = |ticks: u64| {
            let line = format!("4711 (apt-get) R 1 4711 4711 0 -1 0 0 0 0 0 {ticks} 0 0 0\n");
            std::fs::write(proc.join("4711/stat"), line).unwrap();
        };
        apt(100);
        let root = SysRoot::new(d.path());
        let mut ticks = 100;
        let mut lines = Vec::new();
        let out = wait_for_idle(
            &root,
            Some(Duration::from_millis(60)),
            IDLE_WINDOW,
            &CancellationToken::new(),
            Duration::from_millis(10),
            |l| {
                lines.push(l.to_string());
                ticks += 87;
                apt(ticks);
            },
        );
        let busy: Vec<&String> = lines.iter().filter(|l| l.starts_with("Too busy")).collect();
        assert!(busy.len() >= 2, "{lines:?}");
        // The first poll saw nothing run; from the second on apt-get used the CPU.
        assert!(!busy[0].contains("busiest"), "{}", busy[0]);
        assert!(
            busy[1].contains("cpu: 0%,  busiest: apt-get "),
            "{}",
            busy[1]
        );
        assert!(busy[1].ends_with(" %"), "{}", busy[1]);
        match out {
            IdleOutcome::GaveUp { busiest, .. } => {
                assert!(busiest.is_some_and(|b| b.starts_with("apt-get ")));
            }
            other => panic!("{other:?}"),
        }
    }
}
