//! The meter read on its own thread and schedule, never in the monitor's tight loop: the
//! latest reading, sbc-bench's rolling average and a timestamped history that a run turns
//! into mW per phase afterwards.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{PowerMeter, PowerReading};
use crate::shutdown::CancellationToken;

/// Readings the rolling average spans: sbc-bench's `MonitorNetio` keeps the last 30.
pub const ROLLING: usize = 30;
/// sbc-bench polls a Netio every 0.8 s.
pub const DEFAULT_EVERY: Duration = Duration::from_millis(800);
/// Readings kept in the history (a day at 0.8 s): older ones are dropped first.
pub const MAX_HISTORY: usize = 108_000;

/// A reading and when it was taken.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timed {
    /// Wall-clock time of the reading, ms since the epoch (the monitor's phases use it).
    pub unix_ms: i64,
    /// What the meter said.
    pub reading: PowerReading,
}

#[derive(Debug, Default)]
struct State {
    history: VecDeque<Timed>,
    taken: u64,
    failed: u64,
    last_error: Option<String>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    cv: Condvar,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
}

/// Mean mW of `readings`.
pub fn mean_mw<'a>(readings: impl IntoIterator<Item = &'a Timed>) -> Option<f64> {
    let (sum, n) = readings
        .into_iter()
        .fold((0.0, 0usize), |(s, n), t| (s + t.reading.mw, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// A meter read for `monitor`'s mW column: sampled every half interval, the column the
/// mean of the last 3 × interval-in-seconds readings, as sbc-bench's Netio monitor
/// (`NetioInterval=SleepInterval/2`, `NetioSamples=SleepInterval*3`).
pub struct PowerColumn {
    /// The meter's thread.
    pub sampler: PowerSampler,
    /// How many readings the column averages.
    pub window: usize,
}

impl PowerColumn {
    /// Open the meter `spec` names and wait (up to 5 s) for its first reading.
    pub fn open(
        spec: &str,
        root: &crate::sys::root::SysRoot,
        interval_s: f64,
    ) -> Result<Self, super::MeterError> {
        let meter = super::open(spec, root)?;
        let every = Duration::from_secs_f64((interval_s / 2.0).max(0.01));
        let sampler = PowerSampler::start(meter, every);
        sampler.wait_for(1, Duration::from_secs(5));
        Ok(Self {
            sampler,
            window: ((interval_s * 3.0).round() as usize).max(1),
        })
    }

    /// The column's value: the mean of the last `window` readings.
    pub fn mw(&self) -> Option<f64> {
        self.sampler.rolling_mw_of(self.window)
    }
}

/// A meter sampled on its own thread.
pub struct PowerSampler {
    shared: Arc<Shared>,
    stop: Arc<CancellationToken>,
    handle: Option<JoinHandle<Box<dyn PowerMeter>>>,
    describe: String,
    banner: Option<String>,
}

impl PowerSampler {
    /// Read `meter` every `every` on a thread of its own, the first reading at once.
    pub fn start(mut meter: Box<dyn PowerMeter>, every: Duration) -> Self {
        let shared = Arc::new(Shared::default());
        let stop = Arc::new(CancellationToken::new());
        let describe = meter.describe();
        let banner = meter.banner();
        let (sh, st) = (shared.clone(), stop.clone());
        let handle = std::thread::Builder::new()
            .name("power-meter".into())
            .spawn(move || {
                loop {
                    let r = meter.read();
                    {
                        let mut s = lock(&sh.state);
                        match r {
                            Ok(reading) => {
                                s.taken += 1;
                                if s.history.len() >= MAX_HISTORY {
                                    s.history.pop_front();
                                }
                                s.history.push_back(Timed {
                                    unix_ms: now_ms(),
                                    reading,
                                });
                            }
                            Err(e) => {
                                s.failed += 1;
                                s.last_error = Some(e.to_string());
                            }
                        }
                        sh.cv.notify_all();
                    }
                    if !st.sleep(every) {
                        break;
                    }
                }
                meter
            })
            .ok();
        PowerSampler {
            shared,
            stop,
            handle,
            describe,
            banner,
        }
    }

    /// The meter, as the log names it.
    pub fn describe(&self) -> &str {
        &self.describe
    }

    /// The meter's own line for the log (a Netio's `Power monitoring on socket …`).
    pub fn banner(&self) -> Option<&str> {
        self.banner.as_deref()
    }

    /// The newest reading.
    pub fn latest(&self) -> Option<Timed> {
        lock(&self.shared.state).history.back().copied()
    }

    /// The mean of the last [`ROLLING`] readings, as sbc-bench reports a Netio's draw.
    pub fn rolling_mw(&self) -> Option<f64> {
        self.rolling_mw_of(ROLLING)
    }

    /// The mean of the last `n` readings (at least one).
    pub fn rolling_mw_of(&self, n: usize) -> Option<f64> {
        let s = lock(&self.shared.state);
        let skip = s.history.len().saturating_sub(n.max(1));
        mean_mw(s.history.iter().skip(skip))
    }

    /// Every reading kept, oldest first.
    pub fn history(&self) -> Vec<Timed> {
        lock(&self.shared.state).history.iter().copied().collect()
    }

    /// Readings that failed, and the last failure.
    pub fn failures(&self) -> (u64, Option<String>) {
        let s = lock(&self.shared.state);
        (s.failed, s.last_error.clone())
    }

    /// Wait until `n` readings were taken in all (or `timeout` passed): `true` when they
    /// were. For callers that need a reading before going on, and for tests.
    pub fn wait_for(&self, n: u64, timeout: Duration) -> bool {
        let deadline = std::time::Instant::now() + timeout;
        let mut s = lock(&self.shared.state);
        while s.taken < n {
            let now = std::time::Instant::now();
            if now >= deadline {
                return false;
            }
            s = self
                .shared
                .cv
                .wait_timeout(s, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        true
    }

    /// Stop the thread (at once, not after its sleep) and give the meter back.
    pub fn stop(mut self) -> Option<Box<dyn PowerMeter>> {
        self.stop.cancel();
        self.handle.take().and_then(|h| h.join().ok())
    }
}

impl Drop for PowerSampler {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::meter::MeterError;

    /// A meter that counts up 100 mW per reading and fails every third.
    struct Counting(u32);
    impl PowerMeter for Counting {
        fn describe(&self) -> String {
            "counting".into()
        }
        fn read(&mut self) -> Result<PowerReading, MeterError> {
            self.0 += 1;
            if self.0 % 3 == 0 {
                return Err(MeterError::Garbage("third".into()));
            }
            Ok(PowerReading::mw(f64::from(self.0) * 100.0))
        }
    }

    #[test]
    fn sampler_keeps_readings_and_failures_and_stops_at_once() {
        let s = PowerSampler::start(Box::new(Counting(0)), Duration::from_millis(1));
        assert!(s.wait_for(40, Duration::from_secs(30)));
        let h = s.history();
        assert!(h.len() >= 40);
        assert_eq!(h[0].reading.mw, 100.0);
        assert_eq!(h[1].reading.mw, 200.0);
        assert_eq!(
            h[2].reading.mw, 400.0,
            "the third read failed and is not kept"
        );
        assert!(s.failures().0 >= 1);
        assert_eq!(
            s.failures().1.as_deref(),
            Some("unreadable answer from the power meter: third")
        );
        let back = s.stop().unwrap();
        assert_eq!(back.describe(), "counting");
    }

    #[test]
    fn rolling_average_spans_the_last_thirty() {
        // A sampler that sleeps long after its first reading: one reading, its own mean.
        let s = PowerSampler::start(Box::new(Counting(0)), Duration::from_secs(3600));
        assert!(s.wait_for(1, Duration::from_secs(30)));
        assert_eq!(s.rolling_mw(), Some(100.0));
        assert_eq!(s.latest().unwrap().reading.mw, 100.0);
        drop(s.stop());
        let t = |mw: f64| Timed {
            unix_ms: 0,
            reading: PowerReading::mw(mw),
        };
        let v: Vec<Timed> = (1..=40).map(|i| t(f64::from(i))).collect();
        assert_eq!(mean_mw(v.iter().skip(v.len() - ROLLING)), Some(25.5));
        assert_eq!(mean_mw([].iter()), None);
    }
}
