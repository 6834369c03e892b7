//! A recording of samples and the intervals between them, with phases
//! (`mark("tinymembench")`) — what the standard run's "System health while running …"
//! tables, its validation and the JSON report are made from.

use serde::{Deserialize, Serialize};

use crate::monitor::interval::{Busiest, Interval, counter_delta};
use crate::monitor::layout::Layout;
use crate::monitor::render::{self, TableOptions};
use crate::monitor::sample::{Sample, SampleSpec};
use crate::monitor::stat::Usage;

/// Version of the recording's JSON shape.
pub const RECORDING_VERSION: u32 = 1;

/// A labelled stretch of a recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// What ran (`tinymembench`, `7-zip multi core benchmark`).
    pub label: String,
    /// Index of the sample taken when the phase began.
    pub start: usize,
    /// Index of the sample taken when it ended; `None` while it runs.
    pub end: Option<usize>,
    /// Wall-clock start, milliseconds since the Unix epoch.
    pub start_unix_ms: i64,
    /// Wall-clock end.
    pub end_unix_ms: Option<i64>,
}

impl Phase {
    /// Duration in seconds (monotonic), once ended.
    pub fn duration_s(&self, rec: &Recording) -> Option<f64> {
        let a = rec.samples.get(self.start)?;
        let b = rec.samples.get(self.end?)?;
        Some(b.mono_s - a.mono_s)
    }
}

/// Clock range of one policy during a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockRange {
    /// N of `policyN`.
    pub policy: u32,
    /// Lowest clock sampled, kHz.
    pub min_khz: u64,
    /// Highest clock sampled, kHz.
    pub max_khz: u64,
}

/// What a phase looked like, for validation and diagnoses (background activity, swapping,
/// an IRQ-bound core during a network test, clocks kept low by the governor).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseSummary {
    /// The phase's label.
    pub label: String,
    /// Monotonic duration in seconds.
    pub duration_s: f64,
    /// Utilisation over the whole phase (exact: from its first and last sample).
    pub usage: Option<Usage>,
    /// The most utilised core over the whole phase.
    pub busiest: Option<Busiest>,
    /// Highest `%cpu` of any interval.
    pub peak_cpu_pct: Option<f64>,
    /// Highest `%sys` of any interval (sbc-bench's background-activity check).
    pub peak_sys_pct: Option<f64>,
    /// Highest `%io` of any interval.
    pub peak_io_pct: Option<f64>,
    /// Highest `%irq` of any interval.
    pub peak_irq_pct: Option<f64>,
    /// Highest single-core `%cpu` of any interval, with its core.
    pub peak_core: Option<Busiest>,
    /// Temperature at the start, °C.
    pub temp_start_c: Option<f64>,
    /// Temperature at the end, °C.
    pub temp_end_c: Option<f64>,
    /// Highest temperature sampled, °C.
    pub temp_max_c: Option<f64>,
    /// Clock range of every sampled policy.
    pub clocks: Vec<ClockRange>,
    /// Pages swapped in during the phase (with `SampleSpec::swap`).
    pub swapped_in_pages: Option<u64>,
    /// Pages swapped out during the phase.
    pub swapped_out_pages: Option<u64>,
    /// CPUs that went offline during the phase.
    pub cpus_gone: Vec<u32>,
}

/// Samples, the intervals between consecutive ones, and phases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Shape version ([`RECORDING_VERSION`]).
    pub version: u32,
    /// Requested sampling interval in seconds (marks add samples in between).
    pub interval_s: f64,
    /// Clock columns and CPU-to-policy map used while recording.
    pub layout: Layout,
    /// Optional counters sampled.
    pub spec: SampleSpec,
    /// Thermal source label (`/sys/devices/virtual/thermal/thermal_zone0/ (soc-thermal)`).
    pub thermal_source: Option<String>,
    /// DC-in sensor label, when the board has one.
    pub dc_in: Option<String>,
    /// Raw samples in time order.
    pub samples: Vec<Sample>,
    /// `intervals[i]` spans `samples[i]` → `samples[i + 1]`.
    pub intervals: Vec<Interval>,
    /// Phases in time order; they do not overlap (a mark ends the running phase).
    pub phases: Vec<Phase>,
}

impl Recording {
    /// An empty recording.
    pub fn new(interval_s: f64, layout: Layout, spec: SampleSpec) -> Self {
        Self {
            version: RECORDING_VERSION,
            interval_s,
            layout,
            spec,
            thermal_source: None,
            dc_in: None,
            samples: Vec::new(),
            intervals: Vec::new(),
            phases: Vec::new(),
        }
    }

    /// Append a sample; returns the interval it closes (none for the first).
    pub fn push(&mut self, s: Sample) -> Option<&Interval> {
        let iv = self.samples.last().map(|prev| Interval::new(prev, &s));
        self.samples.push(s);
        let iv = iv?;
        self.intervals.push(iv);
        self.intervals.last()
    }

    /// End the running phase (if any) at the last sample and start `label` there.
    /// Call after pushing the boundary sample.
    pub fn begin_phase(&mut self, label: &str) {
        self.end_phase();
        let Some(idx) = self.samples.len().checked_sub(1) else {
            return;
        };
        self.phases.push(Phase {
            label: label.to_string(),
            start: idx,
            end: None,
            start_unix_ms: self.samples[idx].unix_ms,
            end_unix_ms: None,
        });
    }

    /// End the running phase at the last sample.
    pub fn end_phase(&mut self) {
        let Some(idx) = self.samples.len().checked_sub(1) else {
            return;
        };
        let unix_ms = self.samples[idx].unix_ms;
        if let Some(p) = self.phases.last_mut().filter(|p| p.end.is_none()) {
            p.end = Some(idx);
            p.end_unix_ms = Some(unix_ms);
        }
    }

    /// Is a phase running?
    pub fn phase_open(&self) -> bool {
        self.phases.last().is_some_and(|p| p.end.is_none())
    }

    /// The (last) phase called `label`.
    pub fn phase(&self, label: &str) -> Option<&Phase> {
        self.phases.iter().rev().find(|p| p.label == label)
    }

    /// The intervals inside a phase (up to the last sample while it runs). Check
    /// `elapsed_s`: calling `end_phase` and `mark` back to back leaves a stub interval.
    pub fn phase_intervals(&self, phase: &Phase) -> &[Interval] {
        let end = phase.end.unwrap_or(self.samples.len().saturating_sub(1));
        let end = end.min(self.intervals.len());
        let start = phase.start.min(end);
        &self.intervals[start..end]
    }

    /// CPUs online in the first sample that read `/proc/stat` and missing from a later
    /// one (offlined or killed, whether or not they came back). A sample whose read
    /// failed is a gap, not an all-CPUs-gone: the next good sample is compared with the
    /// reference, so one failed read cannot hide a killed core as the intervals would.
    pub fn cpus_seen_gone(&self) -> Vec<u32> {
        let mut stats = self.samples.iter().filter_map(|s| s.stat.as_ref());
        let Some(first) = stats.next() else {
            return Vec::new();
        };
        let mut gone = std::collections::BTreeSet::new();
        for s in stats {
            gone.extend(first.per_cpu.keys().filter(|c| !s.per_cpu.contains_key(c)));
        }
        gone.into_iter().collect()
    }

    /// The interval from sample `i` to sample `j` (any two, `i < j`): counters are
    /// cumulative, so coarser rows are exact, not averages of averages.
    pub fn between(&self, i: usize, j: usize) -> Option<Interval> {
        if i >= j {
            return None;
        }
        Some(Interval::new(self.samples.get(i)?, self.samples.get(j)?))
    }

    /// Summarise a phase (a running one up to the last sample); `None` with fewer than
    /// two samples in it.
    pub fn summary(&self, phase: &Phase) -> Option<PhaseSummary> {
        let end = phase
            .end
            .unwrap_or(self.samples.len().saturating_sub(1))
            .min(self.samples.len().saturating_sub(1));
        let whole = self.between(phase.start, end)?;
        let (a, b) = (&self.samples[phase.start], &self.samples[end]);
        // Peaks ignore stubs shorter than a quarter interval (two marks in a row): a
        // few ticks there say nothing about load.
        let min_s = self.interval_s / 4.0;
        let ivs: Vec<&Interval> = self
            .phase_intervals(phase)
            .iter()
            .filter(|i| i.elapsed_s >= min_s)
            .collect();
        let peak = |f: &dyn Fn(&Usage) -> f64| {
            ivs.iter()
                .filter_map(|i| i.usage.as_ref().map(f))
                .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
        };
        let mut peak_core: Option<Busiest> = None;
        for b in ivs.iter().filter_map(|i| i.busiest) {
            if peak_core.is_none_or(|p| b.cpu_pct > p.cpu_pct) {
                peak_core = Some(b);
            }
        }
        let window = &self.samples[phase.start..=end];
        let temp_max_c = window
            .iter()
            .filter_map(|s| s.temp_c)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
        let mut clocks: Vec<ClockRange> = Vec::new();
        for c in window.iter().flat_map(|s| s.clocks.iter()) {
            let Some(k) = c.khz else { continue };
            match clocks.iter_mut().find(|r| r.policy == c.policy) {
                Some(r) => {
                    r.min_khz = r.min_khz.min(k);
                    r.max_khz = r.max_khz.max(k);
                }
                None => clocks.push(ClockRange {
                    policy: c.policy,
                    min_khz: k,
                    max_khz: k,
                }),
            }
        }
        clocks.sort_by_key(|r| r.policy);
        let mut cpus_gone: Vec<u32> = ivs.iter().flat_map(|i| i.cpus_gone.clone()).collect();
        cpus_gone.sort_unstable();
        cpus_gone.dedup();
        let swap = |f: fn(&crate::monitor::sample::SwapCounters) -> u64| {
            counter_delta(f(a.swap.as_ref()?), f(b.swap.as_ref()?))
        };
        Some(PhaseSummary {
            label: phase.label.clone(),
            duration_s: whole.elapsed_s,
            usage: whole.usage,
            busiest: whole.busiest,
            peak_cpu_pct: peak(&|u| u.cpu_pct),
            peak_sys_pct: peak(&|u| u.sys_pct),
            peak_io_pct: peak(&|u| u.io_pct),
            peak_irq_pct: peak(&|u| u.irq_pct),
            peak_core,
            temp_start_c: a.temp_c,
            temp_end_c: b.temp_c,
            temp_max_c,
            clocks,
            swapped_in_pages: swap(|s| s.pswpin),
            swapped_out_pages: swap(|s| s.pswpout),
            cpus_gone,
        })
    }

    /// Sample indices of the rows of a phase table every `every_s` seconds: the phase's
    /// first sample, then the first sample at least `every_s` after the previous row
    /// (half a sampling interval of slack). Like sbc-bench, no partial row at the end.
    pub fn rows_every(&self, phase: &Phase, every_s: f64) -> Vec<usize> {
        let end = phase
            .end
            .unwrap_or(self.samples.len().saturating_sub(1))
            .min(self.samples.len().saturating_sub(1));
        let mut rows = Vec::new();
        if phase.start > end || self.samples.is_empty() {
            return rows;
        }
        rows.push(phase.start);
        let slack = self.interval_s / 2.0;
        let mut last = phase.start;
        for j in phase.start + 1..=end {
            if self.samples[j].mono_s - self.samples[last].mono_s >= every_s - slack {
                rows.push(j);
                last = j;
            }
        }
        rows
    }

    /// `System health while running <label>:` as sbc-bench writes it to its log: title,
    /// empty line, header, one row every `every_s` seconds (see [`interval_scaling`]).
    /// The first row shows the interval before the phase began (sbc-bench's shows the
    /// averages since boot there). `time` formats a Unix time in ms as `HH:MM:SS`
    /// ([`render::local_hms`]).
    ///
    /// [`interval_scaling`]: crate::monitor::scaling
    pub fn health_table(
        &self,
        phase: &Phase,
        every_s: f64,
        opts: &TableOptions,
        time: &dyn Fn(i64) -> String,
    ) -> String {
        let mut out = format!(
            "System health while running {}:\n\n{}\n",
            phase.label,
            render::header(&self.layout, opts)
        );
        let rows = self.rows_every(phase, every_s);
        let mut prev: Option<usize> = None;
        for &j in &rows {
            // The first row looks back about one sampling interval (past a stub left by
            // end_phase + mark), or since boot at the very start of the recording.
            let back = prev.or_else(|| {
                let t = self.samples.get(j)?.mono_s;
                (0..j)
                    .rev()
                    .find(|&i| t - self.samples[i].mono_s >= self.interval_s / 2.0)
            });
            let iv = match back {
                Some(i) => self.between(i, j),
                None => self.samples.get(j).map(Interval::since_boot),
            };
            if let Some(iv) = iv {
                out.push_str(&render::row(&self.layout, opts, &iv, &time(iv.end_unix_ms)));
                out.push('\n');
            }
            prev = Some(j);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::layout::{ClockColumn, ClockColumns};
    use crate::monitor::sample::PolicyClock;
    use crate::monitor::stat::{CpuTimes, ProcStat};
    use std::collections::BTreeMap;

    fn layout() -> Layout {
        Layout {
            clocks: ClockColumns::Single {
                column: ClockColumn {
                    first_cpu: 0,
                    policy: 0,
                },
            },
            cpu_policy: BTreeMap::from([(0, 0), (1, 0)]),
            all_policies: false,
        }
    }

    /// A sample at `t` seconds where both CPUs have been busy `busy` ticks in total.
    fn sample(t: f64, busy: u64) -> Sample {
        let ticks = (t * 100.0) as u64;
        let cpu = CpuTimes {
            user: busy,
            idle: ticks - busy,
            ..Default::default()
        };
        Sample {
            mono_s: t,
            unix_ms: 1_700_000_000_000 + (t * 1000.0) as i64,
            stat: Some(ProcStat {
                total: CpuTimes {
                    user: 2 * cpu.user,
                    idle: 2 * cpu.idle,
                    ..Default::default()
                },
                per_cpu: BTreeMap::from([(0, cpu), (1, cpu)]),
            }),
            loadavg: Some([1.0, 0.5, 0.2]),
            clocks: vec![PolicyClock {
                policy: 0,
                khz: Some(1_800_000),
            }],
            temp_c: Some(50.0),
            ..Default::default()
        }
    }

    fn recording() -> Recording {
        let mut r = Recording::new(1.0, layout(), SampleSpec::default());
        // Idle for 2 s, then 100 % busy from t=2 to t=12, then idle again.
        let mut busy = 0;
        for t in 0..=14u64 {
            if (3..=12).contains(&t) {
                busy += 100;
            }
            r.push(sample(100.0 + t as f64, busy));
            if t == 2 {
                r.begin_phase("tinymembench");
            }
            if t == 12 {
                r.end_phase();
            }
        }
        r
    }

    /// A run where cpu1 vanishes from `/proc/stat` right after a sample whose read failed
    /// (CI caught the fake tree half rewritten): the interval next to the gap compares
    /// nothing, but the core is still seen gone.
    #[test]
    fn a_failed_stat_read_does_not_hide_a_killed_core() {
        let mut r = Recording::new(1.0, layout(), SampleSpec::default());
        r.push(sample(100.0, 0));
        let mut failed = sample(101.0, 0);
        failed.stat = None;
        r.push(failed);
        let mut without_cpu1 = sample(102.0, 0);
        if let Some(st) = without_cpu1.stat.as_mut() {
            st.per_cpu.remove(&1);
        }
        r.push(without_cpu1);
        r.push(sample(103.0, 0));
        assert!(r.intervals.iter().all(|i| i.cpus_gone.is_empty()));
        assert_eq!(r.cpus_seen_gone(), vec![1]);
        assert!(recording().cpus_seen_gone().is_empty());
        let mut none = Recording::new(1.0, layout(), SampleSpec::default());
        assert!(none.cpus_seen_gone().is_empty());
        let mut only_failed = sample(1.0, 0);
        only_failed.stat = None;
        none.push(only_failed);
        assert!(none.cpus_seen_gone().is_empty());
    }

    #[test]
    fn phases_and_their_intervals() {
        let r = recording();
        assert_eq!(r.samples.len(), 15);
        assert_eq!(r.intervals.len(), 14);
        let p = r.phase("tinymembench").unwrap();
        assert_eq!((p.start, p.end), (2, Some(12)));
        assert_eq!(p.duration_s(&r), Some(10.0));
        let ivs = r.phase_intervals(p);
        assert_eq!(ivs.len(), 10);
        assert!(ivs.iter().all(|i| i.usage.unwrap().cpu_pct == 100.0));
        assert!(!r.phase_open());
        let whole = r.between(p.start, p.end.unwrap()).unwrap();
        assert_eq!(whole.elapsed_s, 10.0);
        assert_eq!(whole.usage.unwrap().cpu_pct, 100.0);
        assert!(r.between(5, 5).is_none());
        assert!(r.between(5, 99).is_none());
    }

    #[test]
    fn phase_summary() {
        let mut r = recording();
        r.samples[5].temp_c = Some(71.5);
        r.samples[7].clocks[0].khz = Some(1_416_000);
        let p = r.phase("tinymembench").unwrap().clone();
        let s = r.summary(&p).unwrap();
        assert_eq!(s.duration_s, 10.0);
        assert_eq!(s.usage.unwrap().cpu_pct, 100.0);
        assert_eq!(s.peak_sys_pct, Some(0.0));
        assert_eq!(s.peak_cpu_pct, Some(100.0));
        assert_eq!(s.peak_core.map(|b| b.cpu_pct), Some(100.0));
        assert_eq!(s.temp_max_c, Some(71.5));
        assert_eq!((s.temp_start_c, s.temp_end_c), (Some(50.0), Some(50.0)));
        assert_eq!(
            s.clocks,
            vec![ClockRange {
                policy: 0,
                min_khz: 1_416_000,
                max_khz: 1_800_000
            }]
        );
        assert_eq!(s.swapped_in_pages, None, "swap not sampled");
        let tiny = Phase {
            label: "x".into(),
            start: 3,
            end: Some(3),
            start_unix_ms: 0,
            end_unix_ms: None,
        };
        assert!(r.summary(&tiny).is_none());
    }

    #[test]
    fn stubs_from_back_to_back_marks_do_not_make_rows_or_peaks() {
        let mut r = Recording::new(1.0, layout(), SampleSpec::default());
        for t in 0..=5u64 {
            r.push(sample(t as f64, 0));
        }
        r.begin_phase("a");
        r.push(sample(6.0, 100));
        r.end_phase();
        // 2 ms later the next phase starts: a stub interval without a tick.
        r.push(sample(6.002, 100));
        r.begin_phase("b");
        r.push(sample(7.0, 101));
        assert!(r.intervals[6].usage.is_none(), "the stub");
        let b = r.phase("b").unwrap().clone();
        let t = r.health_table(&b, 5.0, &TableOptions::default(), &|_| "t".into());
        let first = t.lines().nth(3).unwrap();
        assert!(
            first.starts_with("t: 1800MHz  1.00 100%"),
            "looks back a whole interval, not at the stub: {first}"
        );
        let s = r.summary(&b).unwrap();
        assert_eq!(s.peak_cpu_pct, Some(1.0));
        // A phase that is nothing but a stub has no peaks.
        let stub = Phase {
            label: "stub".into(),
            start: 6,
            end: Some(7),
            start_unix_ms: 0,
            end_unix_ms: None,
        };
        assert_eq!(r.summary(&stub).unwrap().peak_cpu_pct, None);
    }

    #[test]
    fn health_table_every_four_seconds() {
        let r = recording();
        let p = r.phase("tinymembench").unwrap();
        assert_eq!(r.rows_every(p, 4.0), vec![2, 6, 10]);
        let utc = |ms: i64| render::hms(&chrono::Utc, ms);
        let t = r.health_table(p, 4.0, &TableOptions::sbc_bench(false), &utc);
        assert_eq!(
            t,
            "System health while running tinymembench:\n\n\
Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp\n\
22:15:02: 1800MHz  1.00   0%   0%   0%   0%   0%   0%  50.0°C  \n\
22:15:06: 1800MHz  1.00 100%   0% 100%   0%   0%   0%  50.0°C  \n\
22:15:10: 1800MHz  1.00 100%   0% 100%   0%   0%   0%  50.0°C  \n"
        );
    }

    #[test]
    fn an_open_phase_and_an_empty_recording() {
        let mut r = Recording::new(1.0, layout(), SampleSpec::default());
        r.begin_phase("nothing yet");
        assert!(r.phases.is_empty());
        r.push(sample(1.0, 0));
        r.begin_phase("a");
        r.push(sample(2.0, 50));
        assert!(r.phase_open());
        let p = r.phase("a").unwrap().clone();
        assert_eq!(r.phase_intervals(&p).len(), 1);
        let t = r.health_table(&p, 5.0, &TableOptions::default(), &|_| "t".into());
        // First row at sample 0: averages since boot (the test's sample counts 50 % busy
        // over its first second of "uptime": 0 busy ticks of 100).
        assert_eq!(t.lines().count(), 4);
        r.begin_phase("b");
        assert_eq!(r.phases[0].end, Some(1));
        assert_eq!(r.phases[1].start, 1);
    }
}
