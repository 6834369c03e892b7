//! The test clock, shared by client and server (iperf3 keeps its timers apart from the
//! loop too, `timer.c`): when the next interval ends, when the omit period ends, when the
//! test (or, on the server, the patience with a silent client) runs out. It knows nothing
//! of sockets or streams; [`Measurement`] drives an [`Engine`] by it.

use std::time::{Duration, Instant};

use super::NetEvent;
use super::engine::{Engine, NetInterval};

/// What the clock says is due now, in the order it is acted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// The test's time is up.
    End,
    /// The interval that ends at this instant is over.
    Tick(Instant),
    /// The omit period is over.
    OmitEnd,
}

/// Interval, omit and end deadlines of one test.
#[derive(Debug, Clone)]
pub struct TestClock {
    interval: Option<Duration>,
    next_tick: Option<Instant>,
    omit_end: Option<Instant>,
    /// How long the test runs after the omit period (`None`: until something else ends it).
    run_for: Option<Duration>,
    end: Option<Instant>,
}

impl TestClock {
    /// A clock started at `start`: intervals every `interval_s` seconds (0: none), an omit
    /// period of `omit_s` seconds, then `run_for` (measured again from the omit period's
    /// end, as iperf3's `-t` is).
    pub fn new(start: Instant, interval_s: f64, omit_s: u32, run_for: Option<Duration>) -> Self {
        let interval = (interval_s > 0.0).then(|| Duration::from_secs_f64(interval_s));
        let omit = Duration::from_secs(u64::from(omit_s));
        Self {
            interval,
            next_tick: interval.map(|i| start + i),
            omit_end: (omit_s > 0).then(|| start + omit),
            run_for,
            end: run_for.map(|r| start + omit + r),
        }
    }

    /// Seconds between interval reports, when there are any.
    pub fn interval_s(&self) -> Option<f64> {
        self.interval.map(|i| i.as_secs_f64())
    }

    /// Still in the omit period.
    pub fn omitting(&self) -> bool {
        self.omit_end.is_some()
    }

    /// The test's time is up.
    pub fn ended(&self, now: Instant) -> bool {
        self.end.is_some_and(|t| now >= t)
    }

    /// What is due at `now`, the end first, then a tick, then the omit period's end (the
    /// omitted interval is reported before counting restarts, as iperf3 does).
    pub fn due(&self, now: Instant) -> Option<Due> {
        if self.ended(now) {
            return Some(Due::End);
        }
        if let Some(t) = self.next_tick.filter(|&t| now >= t) {
            return Some(Due::Tick(t));
        }
        if self.omit_end.is_some_and(|t| now >= t) {
            return Some(Due::OmitEnd);
        }
        None
    }

    /// The interval ending at `at` was reported: the next one ends an interval later
    /// (ticks stay aligned however late this one was noticed).
    pub fn ticked(&mut self, at: Instant) {
        self.next_tick = self.interval.map(|i| at + i);
    }

    /// The omit period ended at `restart`: intervals and the test's time count from there.
    pub fn omit_ended(&mut self, restart: Instant) {
        self.omit_end = None;
        self.next_tick = self.interval.map(|i| restart + i);
        self.end = self.run_for.map(|r| restart + r);
    }

    /// When to look again: the next deadline, or `now + step` when that comes sooner.
    pub fn wake(&self, now: Instant, step: Duration) -> Instant {
        [self.next_tick, self.omit_end, self.end]
            .into_iter()
            .flatten()
            .fold(now + step, Instant::min)
    }
}

/// What [`Measurement::step`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockStep {
    /// The test's time is up.
    End,
    /// An interval was reported or the omit period ended: look again at once.
    Again,
    /// Nothing was due: wait (for the peer) until this instant at most.
    Wait(Instant),
}

/// The data phase's bookkeeping, the same on both sides: the clock, the intervals
/// measured so far, and whether the next one is the first (it prints the header).
#[derive(Debug)]
pub struct Measurement {
    clock: TestClock,
    step: Duration,
    intervals: Vec<NetInterval>,
    first: bool,
}

impl Measurement {
    /// Measure by `clock`, looking at least every `step` for the peer.
    pub fn new(clock: TestClock, step: Duration) -> Self {
        Self {
            clock,
            step,
            intervals: Vec::new(),
            first: true,
        }
    }

    /// The clock.
    pub fn clock(&self) -> &TestClock {
        &self.clock
    }

    /// Act on what the clock says is due at `now`: report an interval, end the omit
    /// period, or say the test's time is up.
    pub fn step(&mut self, engine: &mut Engine, on: &mut dyn FnMut(NetEvent<'_>)) -> ClockStep {
        let now = Instant::now();
        match self.clock.due(now) {
            Some(Due::End) => ClockStep::End,
            Some(Due::Tick(at)) => {
                let iv = engine.tick();
                self.report(engine, on, iv);
                self.clock.ticked(at);
                ClockStep::Again
            }
            Some(Due::OmitEnd) => {
                engine.end_omit();
                self.clock.omit_ended(Instant::now());
                ClockStep::Again
            }
            None => ClockStep::Wait(self.clock.wake(now, self.step)),
        }
    }

    /// Report one interval to `on` (an [`NetEvent::Interval`]) and keep it.
    fn report(&mut self, engine: &Engine, on: &mut dyn FnMut(NetEvent<'_>), iv: NetInterval) {
        on(NetEvent::Interval {
            interval: &iv,
            threads: &engine.threads(),
            sender_has_retransmits: engine.sender_has_retransmits(),
            first: self.first,
        });
        self.first = false;
        self.intervals.push(iv);
    }

    /// The end of the data phase: [`NetEvent::Ending`] (while the stream threads still
    /// run), the last, partial interval, counting stopped. That interval is reported when
    /// intervals are and [`keep_interval`] keeps it. Returns every interval reported.
    pub fn finish(
        mut self,
        engine: &mut Engine,
        on: &mut dyn FnMut(NetEvent<'_>),
    ) -> Vec<NetInterval> {
        on(NetEvent::Ending {
            threads: &engine.threads(),
        });
        let iv = engine.finish_sending();
        engine.stop_counting();
        if self
            .clock
            .interval_s()
            .is_some_and(|s| keep_interval(&iv, s))
        {
            self.report(engine, on, iv);
        }
        self.intervals
    }
}

/// iperf3 drops a final interval shorter than 10 % of the reporting interval that moved
/// no data (control messages queued behind data make such slivers).
pub fn keep_interval(iv: &NetInterval, interval_s: f64) -> bool {
    iv.streams
        .iter()
        .any(|s| s.bytes > 0 || s.seconds >= interval_s * 0.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn ticks_then_end() {
        let t0 = Instant::now();
        let mut c = TestClock::new(t0, 1.0, 0, Some(2 * S));
        assert_eq!(c.due(t0), None);
        assert_eq!(
            c.wake(t0, Duration::from_millis(50)),
            t0 + Duration::from_millis(50)
        );
        assert_eq!(c.wake(t0 + Duration::from_millis(990), S), t0 + S);
        let late = t0 + S + Duration::from_millis(3);
        assert_eq!(c.due(late), Some(Due::Tick(t0 + S)));
        c.ticked(t0 + S);
        assert_eq!(c.due(late), None);
        // The end comes before a tick due at the same time.
        assert_eq!(c.due(t0 + 2 * S), Some(Due::End));
    }

    #[test]
    fn omit_restarts_intervals_and_time() {
        let t0 = Instant::now();
        let mut c = TestClock::new(t0, 1.0, 2, Some(3 * S));
        assert!(c.omitting());
        c.ticked(t0 + S);
        // The omitted interval ending with the omit period is reported first.
        assert_eq!(c.due(t0 + 2 * S), Some(Due::Tick(t0 + 2 * S)));
        c.ticked(t0 + 2 * S);
        assert_eq!(c.due(t0 + 2 * S), Some(Due::OmitEnd));
        let restart = t0 + 2 * S + Duration::from_millis(7);
        c.omit_ended(restart);
        assert!(!c.omitting());
        assert_eq!(c.due(restart + S), Some(Due::Tick(restart + S)));
        assert!(!c.ended(restart + 3 * S - Duration::from_millis(1)));
        assert!(c.ended(restart + 3 * S));
    }

    #[test]
    fn no_intervals_no_end() {
        let t0 = Instant::now();
        let c = TestClock::new(t0, 0.0, 0, None);
        assert_eq!(c.interval_s(), None);
        assert_eq!(c.due(t0 + 1000 * S), None);
        assert_eq!(c.wake(t0, S), t0 + S);
    }
}
