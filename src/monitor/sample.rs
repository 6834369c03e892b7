//! Raw counters read at one instant ([`Sample`]) and the reader that takes them
//! ([`Sampler`]) with file handles kept open, so a sample costs a few `pread(2)`s and no
//! `open(2)`: on a slow board the monitor must not disturb the benchmark it watches.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::monitor::layout::Layout;
use crate::monitor::stat::{ProcStat, parse_loadavg, parse_proc_stat};
use crate::sys::cpufreq::policy_attr;
use crate::sys::irq;
use crate::sys::power::{self, DcIn};
use crate::sys::root::SysRoot;
use crate::sys::thermal::{self, ThermalSource};

/// `/proc/stat`: CPU time counters.
pub const PROC_STAT: &str = "/proc/stat";
/// `/proc/loadavg`: load averages.
pub const PROC_LOADAVG: &str = "/proc/loadavg";
/// `/proc/vmstat`: swap-in/out page counters (opt-in).
pub const PROC_VMSTAT: &str = "/proc/vmstat";
/// `/proc/softirqs`: per-CPU softirq counts (opt-in).
pub const PROC_SOFTIRQS: &str = irq::SOFTIRQS;
/// `/proc/uptime`: seconds since boot (read for `--sysroot` trees only).
pub const PROC_UPTIME: &str = "/proc/uptime";
/// `USER_HZ`: the unit of `/proc/stat` on every Linux.
const USER_HZ: f64 = 100.0;

/// What to read beyond the cheap default (CPU times, load, clocks, temperature, DC-in).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleSpec {
    /// Swap-in/out counters from `/proc/vmstat` (the swapping validation of the run).
    pub swap: bool,
    /// NET_RX/NET_TX/BLOCK per CPU from `/proc/softirqs` (network and storage diagnoses).
    pub softirqs: bool,
}

impl SampleSpec {
    /// Everything: what scripts (`--json`) and the diagnoses want.
    pub fn full() -> Self {
        Self {
            swap: true,
            softirqs: true,
        }
    }
}

/// Swap page counters (`pswpin`/`pswpout` of `/proc/vmstat`), pages since boot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapCounters {
    /// Pages swapped in.
    pub pswpin: u64,
    /// Pages swapped out.
    pub pswpout: u64,
}

/// Per-CPU softirq counts since boot, keyed by CPU number.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SoftirqCounters {
    /// Network receive (NAPI polling: where a NIC's receive work runs).
    pub net_rx: BTreeMap<u32, u64>,
    /// Network transmit completions.
    pub net_tx: BTreeMap<u32, u64>,
    /// Block-device completions.
    pub block: BTreeMap<u32, u64>,
}

/// Current clock of one cpufreq policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolicyClock {
    /// N of `policyN`.
    pub policy: u32,
    /// Current clock in kHz; `None` when unreadable (all its CPUs offline, driver error).
    pub khz: Option<u64>,
}

/// Raw counters at one instant. Everything the system may not have is an `Option`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// `CLOCK_MONOTONIC` in seconds (comparable between samples of one boot).
    pub mono_s: f64,
    /// Wall-clock time in milliseconds since the Unix epoch (lines logs up with power meters).
    pub unix_ms: i64,
    /// Seconds since boot of the sampled system when that is not this process's clock (a
    /// `--sysroot` tree: its `/proc/uptime`, else the busiest CPU's `/proc/stat` ticks);
    /// `None` on the live system, where [`Sample::mono_s`] is the uptime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uptime_s: Option<f64>,
    /// `/proc/stat` CPU times (total and per online CPU).
    pub stat: Option<ProcStat>,
    /// 1, 5 and 15 minute load averages.
    pub loadavg: Option<[f64; 3]>,
    /// Current clock of each policy the layout shows, ascending by policy.
    pub clocks: Vec<PolicyClock>,
    /// SoC temperature from the thermal source, °C.
    pub temp_c: Option<f64>,
    /// Supply voltage, volts.
    pub dc_in_v: Option<f64>,
    /// Swap counters (only with [`SampleSpec::swap`]).
    pub swap: Option<SwapCounters>,
    /// Softirq counters (only with [`SampleSpec::softirqs`]).
    pub softirqs: Option<SoftirqCounters>,
}

impl Sample {
    /// Clock of `policy` in kHz, if read.
    pub fn policy_khz(&self, policy: u32) -> Option<u64> {
        self.clocks
            .iter()
            .find(|c| c.policy == policy)
            .and_then(|c| c.khz)
    }
}

/// Parse `pswpin`/`pswpout` from `/proc/vmstat`; `None` when either is missing (kernels
/// without swap support).
pub fn parse_vmstat_swap(text: &str) -> Option<SwapCounters> {
    let (mut pin, mut pout) = (None, None);
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match (it.next(), it.next()) {
            (Some("pswpin"), Some(v)) => pin = v.parse().ok(),
            (Some("pswpout"), Some(v)) => pout = v.parse().ok(),
            _ => {}
        }
        if pin.is_some() && pout.is_some() {
            break;
        }
    }
    Some(SwapCounters {
        pswpin: pin?,
        pswpout: pout?,
    })
}

/// NET_RX, NET_TX and BLOCK of a `/proc/softirqs` text ([`irq::parse_softirqs`]): the
/// header names the CPU of each column (`CPU0 CPU1 …`, possible CPUs); a row shorter than
/// the header (truncated read) fills what it has. `None` without a header.
pub fn parse_softirqs(text: &str) -> Option<SoftirqCounters> {
    let s = irq::parse_softirqs(text);
    if s.cpus.is_empty() {
        return None;
    }
    Some(SoftirqCounters {
        net_rx: s.per_cpu("NET_RX"),
        net_tx: s.per_cpu("NET_TX"),
        block: s.per_cpu("BLOCK"),
    })
}

/// A counter file kept open and re-read from offset 0. procfs and sysfs regenerate their
/// content on every read from the start, so this sees fresh values without `open(2)`.
/// A failed read drops the handle; the next read tries to open the file again (a policy
/// whose CPUs all went offline comes back when one returns).
#[derive(Debug)]
struct CounterFile {
    path: PathBuf,
    file: Option<File>,
    buf: Vec<u8>,
}

/// Largest counter file we read (`/proc/stat` with the `intr` line of a board with many
/// interrupts is a few tens of KiB; 128-core servers reach ~100 KiB).
const MAX_COUNTER_FILE: usize = 4 * 1024 * 1024;

impl CounterFile {
    fn new(path: PathBuf) -> Self {
        Self {
            path,
            file: None,
            buf: Vec::with_capacity(4096),
        }
    }

    /// The file's current content as text; `None` when unreadable.
    fn read(&mut self) -> Option<&str> {
        if self.file.is_none() {
            self.file = File::open(&self.path).ok();
        }
        let file = self.file.as_ref()?;
        self.buf.clear();
        let mut chunk = [0u8; 4096];
        loop {
            match file.read_at(&mut chunk, self.buf.len() as u64) {
                Ok(0) => break,
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    if self.buf.len() >= MAX_COUNTER_FILE {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.file = None;
                    return None;
                }
            }
        }
        if self.buf.is_empty() {
            return None;
        }
        if std::str::from_utf8(&self.buf).is_err() {
            // Counter files are ASCII; keep what parses, drop the rest.
            let text = String::from_utf8_lossy(&self.buf).into_owned();
            self.buf = text.into_bytes();
        }
        std::str::from_utf8(&self.buf).ok()
    }

    /// A one-number attribute.
    fn read_u64(&mut self) -> Option<u64> {
        self.read()?
            .trim_matches(|c: char| c.is_whitespace() || c == '\0')
            .parse()
            .ok()
    }
}

/// Reads [`Sample`]s. Build once (it opens files and finds sensors), then call
/// [`Sampler::sample`] as often as needed.
#[derive(Debug)]
pub struct Sampler {
    root: SysRoot,
    stat: CounterFile,
    loadavg: CounterFile,
    clocks: Vec<(u32, CounterFile)>,
    temp: Option<CounterFile>,
    dc_in: Option<DcIn>,
    vmstat: Option<CounterFile>,
    softirqs: Option<CounterFile>,
}

impl Sampler {
    /// A sampler reading the policies `layout` shows, the thermal source and DC-in sensor
    /// given (discovery finds them: [`thermal::pick_source`], [`power::find_dc_in`]), and
    /// what `spec` asks for.
    pub fn new(
        root: &SysRoot,
        layout: &Layout,
        thermal: Option<&ThermalSource>,
        dc_in: Option<DcIn>,
        spec: SampleSpec,
    ) -> Self {
        let clocks = layout
            .read_policies()
            .into_iter()
            .map(|p| (p, CounterFile::new(cur_freq_file(root, p))))
            .collect();
        Self {
            root: root.clone(),
            stat: CounterFile::new(root.path(PROC_STAT)),
            loadavg: CounterFile::new(root.path(PROC_LOADAVG)),
            clocks,
            temp: thermal.map(|t| CounterFile::new(root.path(&t.temp_file))),
            dc_in,
            vmstat: spec.swap.then(|| CounterFile::new(root.path(PROC_VMSTAT))),
            softirqs: spec
                .softirqs
                .then(|| CounterFile::new(root.path(PROC_SOFTIRQS))),
        }
    }

    /// Read every counter now.
    pub fn sample(&mut self) -> Sample {
        let (mono_s, unix_ms) = now();
        let stat = self.stat.read().map(parse_proc_stat);
        let uptime_s = if self.root.is_host() {
            None
        } else {
            self.root
                .read_opt(PROC_UPTIME)
                .and_then(|t| parse_uptime(&t))
                .or_else(|| stat.as_ref().and_then(uptime_from_stat))
        };
        Sample {
            mono_s,
            unix_ms,
            uptime_s,
            stat,
            loadavg: self.loadavg.read().and_then(parse_loadavg),
            clocks: self
                .clocks
                .iter_mut()
                .map(|(p, f)| PolicyClock {
                    policy: *p,
                    khz: f.read_u64().filter(|&k| k > 0),
                })
                .collect(),
            temp_c: self
                .temp
                .as_mut()
                .and_then(|f| f.read().and_then(thermal::parse_temp_c)),
            dc_in_v: self
                .dc_in
                .as_ref()
                .and_then(|d| power::read_volts(&self.root, d)),
            swap: self
                .vmstat
                .as_mut()
                .and_then(|f| f.read().and_then(parse_vmstat_swap)),
            softirqs: self
                .softirqs
                .as_mut()
                .and_then(|f| f.read().and_then(parse_softirqs)),
        }
    }
}

/// The first field of `/proc/uptime` (`180.52 3400.07`), when it is a sane number.
pub fn parse_uptime(text: &str) -> Option<f64> {
    let v: f64 = text.split_whitespace().next()?.parse().ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// Uptime estimated from `/proc/stat`: a CPU online since boot has accounted every tick of
/// it to one state or another, so the largest per-CPU total is the uptime in `USER_HZ`.
pub fn uptime_from_stat(stat: &ProcStat) -> Option<f64> {
    let ticks = stat.per_cpu.values().map(|c| c.total()).max()?;
    (ticks > 0).then(|| ticks as f64 / USER_HZ)
}

/// `scaling_cur_freq` of a policy, or `cpuinfo_cur_freq` where only that is readable.
fn cur_freq_file(root: &SysRoot, policy: u32) -> PathBuf {
    let scaling = root.path(policy_attr(policy, "scaling_cur_freq"));
    let cpuinfo = root.path(policy_attr(policy, "cpuinfo_cur_freq"));
    if readable(&scaling) || !readable(&cpuinfo) {
        scaling
    } else {
        cpuinfo
    }
}

fn readable(p: &Path) -> bool {
    File::open(p).is_ok()
}

/// Can the current clock of `policy` be read (the test sbc-bench makes before it picks
/// its clock columns)?
pub fn cur_freq_readable(root: &SysRoot, policy: u32) -> bool {
    let mut f = CounterFile::new(cur_freq_file(root, policy));
    f.read_u64().is_some()
}

/// (`CLOCK_MONOTONIC` seconds, Unix milliseconds).
fn now() -> (f64, i64) {
    use nix::time::{ClockId, clock_gettime};
    let mono = clock_gettime(ClockId::CLOCK_MONOTONIC)
        .map(|t| t.tv_sec() as f64 + t.tv_nsec() as f64 / 1e9)
        .unwrap_or(0.0);
    (mono, chrono::Utc::now().timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uptime_from_proc_or_from_ticks() {
        // `cat /proc/uptime` on this VM.
        assert_eq!(parse_uptime("4633.71 7702.40\n"), Some(4633.71));
        for bad in ["", "garbage", "-1 2", "nan 1", "0.00 0.00"] {
            assert_eq!(parse_uptime(bad), None, "{bad}");
        }
        // ROCK 5B tree (corpus log 41BH, up 23 min): 138000 ticks per CPU.
        let st = parse_proc_stat(
            "cpu  47472 0 3752 1051232 1544 0 0 0 0 0\ncpu0 5934 0 469 131404 193 0 0 0 0 0\ncpu1 5934 0 469 131404 193 0 0 0 0 0\n",
        );
        assert_eq!(uptime_from_stat(&st), Some(1380.0));
        assert_eq!(uptime_from_stat(&ProcStat::default()), None);
    }

    /// This x86 VM (kernel 6.18), `cat /proc/softirqs`.
    const SOFTIRQS_VM: &str = "                    CPU0       CPU1       \n\
          HI:          0          0\n\
       TIMER:      22136      18682\n\
      NET_TX:          4          0\n\
      NET_RX:      38427     304350\n\
       BLOCK:          0      53465\n\
    IRQ_POLL:          0          0\n\
     TASKLET:        266         10\n\
       SCHED:      30479      28809\n\
     HRTIMER:      14155     168317\n\
         RCU:      49359      51549\n";

    #[test]
    fn softirqs_per_cpu() {
        let s = parse_softirqs(SOFTIRQS_VM).unwrap();
        assert_eq!(s.net_rx.get(&1), Some(&304_350));
        assert_eq!(s.net_tx.get(&0), Some(&4));
        assert_eq!(s.block.get(&1), Some(&53_465));
        assert_eq!(parse_softirqs(""), None);
        assert_eq!(parse_softirqs("garbage\nNET_RX: 1 2\n"), None);
        // Truncated: fewer values than CPUs.
        let t = parse_softirqs("  CPU0 CPU1 CPU2\n NET_RX: 5 6\n").unwrap();
        assert_eq!(t.net_rx.len(), 2);
    }

    proptest::proptest! {
        #[test]
        fn parsers_never_panic(text in "\\PC{0,400}") {
            let _ = parse_softirqs(&text);
            let _ = parse_vmstat_swap(&text);
            let _ = parse_proc_stat(&text);
            let _ = parse_loadavg(&text);
        }

        #[test]
        fn softirq_lines_with_garbage_numbers(
            cols in 1usize..6,
            vals in proptest::collection::vec("[0-9a-z-]{0,12}", 0..8),
        ) {
            let hdr: String = (0..cols).map(|c| format!("CPU{c} ")).collect();
            let text = format!("{hdr}\n NET_RX: {}\n", vals.join(" "));
            let s = parse_softirqs(&text).unwrap();
            proptest::prop_assert!(s.net_rx.len() <= cols);
        }
    }

    #[test]
    fn vmstat_swap() {
        let v = "nr_free_pages 12345\npswpin 17\npswpout 4242\npgfault 1\n";
        assert_eq!(
            parse_vmstat_swap(v),
            Some(SwapCounters {
                pswpin: 17,
                pswpout: 4242
            })
        );
        assert_eq!(parse_vmstat_swap("pswpin 1\n"), None);
        assert_eq!(parse_vmstat_swap("pswpin x\npswpout 2\n"), None);
    }

    #[test]
    fn counter_file_rereads_and_recovers() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c");
        let mut f = CounterFile::new(p.clone());
        assert_eq!(f.read_u64(), None, "missing file");
        std::fs::write(&p, "1416000\n").unwrap();
        assert_eq!(f.read_u64(), Some(1_416_000));
        // Rewritten in place (same inode): the open handle sees the new content.
        std::fs::write(&p, "408000\n").unwrap();
        assert_eq!(f.read_u64(), Some(408_000));
        std::fs::write(&p, "garbage\n").unwrap();
        assert_eq!(f.read_u64(), None);
        std::fs::write(&p, [0xff, 0xfe, b'\n']).unwrap();
        assert_eq!(f.read_u64(), None);
    }

    #[test]
    fn reads_the_live_proc_stat() {
        // Every Linux has these; the VM has no cpufreq or thermal, which must simply be None.
        let mut f = CounterFile::new(PathBuf::from(PROC_STAT));
        let s = parse_proc_stat(f.read().unwrap());
        assert!(!s.per_cpu.is_empty());
        let again = parse_proc_stat(f.read().unwrap());
        assert!(again.total.total() >= s.total.total());
    }
}
