//! Raw counters read at one instant ([`Sample`]) and the reader that takes them
//! ([`Sampler`]) with file handles kept open, so a sample costs a few `pread(2)`s and no
//! `open(2)`: on a slow board the monitor must not disturb the benchmark it watches.
//!
//! What is read is chosen by one mask, [`SampleSpec`] (bottom's `UsedWidgets`): the cheap
//! default (CPU times, load, clocks, temperature, DC-in) always, and on top of it only what a
//! consumer asks for — swap, softirqs, chosen IRQ lines, NICs, disks and tasks.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::monitor::layout::Layout;
use crate::monitor::stat::{ProcStat, USER_HZ, parse_loadavg, parse_proc_stat};
use crate::sys::counters::{self, BlockStat, CounterFile, TaskStat};
use crate::sys::cpufreq::policy_attr;
use crate::sys::irq::{self, IrqLine};
use crate::sys::net::{self, IfStats};
use crate::sys::power::{self, DcIn};
use crate::sys::procs::{self, ProcessTally, ProcessTicks};
use crate::sys::root::NodeKind;
use crate::sys::root::SysRoot;
use crate::sys::thermal::{self, ThermalSource};

pub use crate::sys::counters::{
    PROC_INTERRUPTS, PROC_LOADAVG, PROC_SOFTIRQS, PROC_STAT, PROC_UPTIME, PROC_VMSTAT,
};

/// What to read beyond the cheap default (CPU times, load, clocks, temperature, DC-in):
/// the mask of what a consumer uses. Empty lists read nothing and are left out of JSON, so
/// a recording's `spec` reads as before for consumers that ask for none of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleSpec {
    /// Swap-in/out counters from `/proc/vmstat` (the swapping validation of the run).
    pub swap: bool,
    /// NET_RX/NET_TX/BLOCK per CPU from `/proc/softirqs` (network and storage diagnoses).
    pub softirqs: bool,
    /// IRQ lines of `/proc/interrupts`, per CPU ([`Sample::irq_lines`]).
    #[serde(default, skip_serializing_if = "IrqSelect::is_empty")]
    pub irqs: IrqSelect,
    /// Interfaces whose `/sys/class/net/<if>/statistics` are read ([`Sample::nics`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nics: Vec<String>,
    /// Block devices whose `/sys/block/<dev>/stat` is read ([`Sample::disks`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<String>,
    /// Processes or threads whose CPU time and last CPU are read ([`Sample::tasks`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskId>,
    /// Every other process's CPU time (`/proc/<pid>/stat`), for naming the busiest
    /// processes of a phase with background activity: read every
    /// [`PROCESS_EVERY_S`] and at phase boundaries, where the sample holds what was
    /// counted since ([`Sampler::sample_boundary`]): a process that ran and ended inside
    /// a phase is counted (seen in between, or in its parent's time for the children it
    /// waited for). One file per process: not every sample.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub processes: bool,
}

impl SampleSpec {
    /// What `monitor --json` and the standard run sample: swap and softirqs on top of the
    /// default (their output depends on this staying so).
    pub fn full() -> Self {
        Self {
            swap: true,
            softirqs: true,
            ..Self::default()
        }
    }

    /// Every counter this sampler can read on `root`: [`full`](Self::full), every IRQ
    /// line, every interface of `/sys/class/net`, every device of `/sys/block`, and this
    /// process with up to four of its threads. For measuring the monitor's worst-case cost.
    pub fn all_counters(root: &SysRoot) -> Self {
        let pid = std::process::id();
        let mut tasks = vec![TaskId::process(pid)];
        if root.is_host() {
            tasks.extend(
                counters::list_threads(root, pid)
                    .into_iter()
                    .take(4)
                    .map(|t| TaskId::thread(pid, t)),
            );
        }
        Self {
            irqs: IrqSelect::all(),
            nics: net::list_interfaces(root),
            disks: counters::list_block_devices(root),
            tasks,
            ..Self::full()
        }
    }

    /// Also read the IRQ lines `sel` selects (added to those already selected).
    pub fn with_irqs(mut self, sel: IrqSelect) -> Self {
        self.irqs.all |= sel.all;
        self.irqs.ids.extend(sel.ids);
        self.irqs.handlers.extend(sel.handlers);
        self
    }

    /// Also read the counters of interface `iface`.
    pub fn with_nic(mut self, iface: impl Into<String>) -> Self {
        self.nics.push(iface.into());
        self
    }

    /// Also read the counters of block device `dev` (`mmcblk0`, `nvme0n1`, `sda`).
    pub fn with_disk(mut self, dev: impl Into<String>) -> Self {
        self.disks.push(dev.into());
        self
    }

    /// Also read the CPU time of `task`.
    pub fn with_task(mut self, task: TaskId) -> Self {
        self.tasks.push(task);
        self
    }
}

/// Which lines of `/proc/interrupts` to sample. A line is taken when any rule matches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IrqSelect {
    /// Every line, IPIs and named lines included (whole-system views, cost measurements).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub all: bool,
    /// Line labels as the file writes them: IRQ numbers (`"224"`) or named lines (`"LOC"`,
    /// `"IPI0"`) — what [`crate::sys::storage::irq_lines`] returns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<String>,
    /// Handler names: a line matches when one of its handlers is the name or
    /// `name-<queue>` (`eth0` takes `eth0-rx-0`, as [`irq::Interrupts::for_names`]); a
    /// trailing `*` takes every handler starting with the rest (`nvme0q*`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handlers: Vec<String>,
}

impl IrqSelect {
    /// Every line.
    pub fn all() -> Self {
        Self {
            all: true,
            ..Self::default()
        }
    }

    /// The lines of these IRQ numbers.
    pub fn numbers(irqs: &[u32]) -> Self {
        Self {
            ids: irqs.iter().map(u32::to_string).collect(),
            ..Self::default()
        }
    }

    /// The lines with these labels (IRQ numbers or names as the file writes them).
    pub fn ids<S: AsRef<str>>(ids: &[S]) -> Self {
        Self {
            ids: ids.iter().map(|s| s.as_ref().to_string()).collect(),
            ..Self::default()
        }
    }

    /// The lines whose handlers match these names or `prefix*` patterns.
    pub fn handlers<S: AsRef<str>>(names: &[S]) -> Self {
        Self {
            handlers: names.iter().map(|s| s.as_ref().to_string()).collect(),
            ..Self::default()
        }
    }

    /// Selects nothing.
    pub fn is_empty(&self) -> bool {
        !self.all && self.ids.is_empty() && self.handlers.is_empty()
    }

    /// Does `line` belong to the selection?
    pub fn matches(&self, line: &IrqLine) -> bool {
        self.all
            || self.ids.contains(&line.id)
            || line
                .actions
                .iter()
                .any(|a| self.handlers.iter().any(|h| handler_matches(h, a)))
    }
}

/// `pattern` is `name` (takes `name` and `name-<queue>`) or `prefix*`.
fn handler_matches(pattern: &str, action: &str) -> bool {
    if let Some(prefix) = pattern.strip_suffix('*') {
        return !prefix.is_empty() && action.starts_with(prefix);
    }
    !pattern.is_empty()
        && (action == pattern
            || action
                .strip_prefix(pattern)
                .is_some_and(|rest| rest.starts_with('-')))
}

/// A process (all its threads) or one of its threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TaskId {
    /// Process id.
    pub pid: u32,
    /// Thread id; `None` for the whole process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tid: Option<u32>,
}

impl TaskId {
    /// The whole process `pid`.
    pub fn process(pid: u32) -> Self {
        Self { pid, tid: None }
    }

    /// Thread `tid` of process `pid`.
    pub fn thread(pid: u32, tid: u32) -> Self {
        Self {
            pid,
            tid: Some(tid),
        }
    }

    /// This process.
    pub fn this_process() -> Self {
        Self::process(std::process::id())
    }

    /// The calling thread (call it from the thread to be watched, e.g. a stream or I/O
    /// worker before it starts, and hand the id to the sampler).
    pub fn this_thread() -> Self {
        let tid = nix::unistd::gettid().as_raw();
        Self::thread(std::process::id(), u32::try_from(tid).unwrap_or(0))
    }
}

/// One IRQ line's counts per CPU, since boot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IrqLineCounts {
    /// The label before the colon (`224`, `LOC`).
    pub id: String,
    /// Handler names (`enP4p65s0-0`), empty for IPIs and named lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// Count per online CPU.
    pub per_cpu: BTreeMap<u32, u64>,
}

/// Counters of one interface.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NicCounters {
    /// Interface name.
    pub iface: String,
    /// Its `statistics/*`; `None` when none could be read (interface gone or renamed).
    pub stats: Option<IfStats>,
}

/// Counters of one block device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiskCounters {
    /// Kernel name (`mmcblk0`).
    pub dev: String,
    /// Its `/sys/block/<dev>/stat`; `None` when unreadable.
    pub stat: Option<BlockStat>,
}

/// CPU time of one task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskCounters {
    /// Which task.
    pub task: TaskId,
    /// Its ticks and last CPU; `None` when unreadable (the task ended).
    pub stat: Option<TaskStat>,
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
    /// The IRQ lines [`SampleSpec::irqs`] selects, in file order; `None` when not asked
    /// for or `/proc/interrupts` is unreadable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_lines: Option<Vec<IrqLineCounts>>,
    /// One entry per interface of [`SampleSpec::nics`], in its order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nics: Vec<NicCounters>,
    /// One entry per device of [`SampleSpec::disks`], in its order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disks: Vec<DiskCounters>,
    /// One entry per task of [`SampleSpec::tasks`], in its order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TaskCounters>,
    /// Every other process's CPU time (not ours, nor our children), in boundary samples
    /// of a sampler with [`SampleSpec::processes`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<Vec<ProcessTicks>>,
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

/// Reads [`Sample`]s. Build once (it opens files and finds sensors), then call
/// [`Sampler::sample`] as often as needed: on demand (a benchmark's pass start and end),
/// or from the [`crate::monitor::Monitor`] thread.
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
    irqs: Option<(IrqSelect, CounterFile)>,
    nics: Vec<NicFiles>,
    disks: Vec<(String, Option<CounterFile>)>,
    tasks: Vec<(TaskId, CounterFile)>,
    /// Read every process at boundaries and every [`PROCESS_EVERY_S`], leaving out this
    /// pid (and its children) on the live system.
    processes: Option<Option<u32>>,
    /// The processes followed between boundaries.
    tally: ProcessTally,
    /// When the processes were last read (the sample's monotonic seconds).
    processes_read_s: Option<f64>,
    /// Seconds between those reads ([`PROCESS_EVERY_S`]).
    process_every_s: f64,
}

/// How often the monitor reads every process between phase boundaries: often enough to
/// see a process that lives a few seconds (an `apt-get`, a compiler), seldom enough to
/// cost nothing beside the benchmarks (one `/proc/<pid>/stat` per process).
pub const PROCESS_EVERY_S: f64 = 5.0;

/// The open `statistics/*` files of one interface (empty for an invalid name).
#[derive(Debug)]
struct NicFiles {
    iface: String,
    files: Vec<(&'static str, CounterFile)>,
}

impl NicFiles {
    fn new(root: &SysRoot, iface: &str) -> Self {
        let files = IfStats::FILES
            .iter()
            .filter_map(|&c| {
                Some((
                    c,
                    CounterFile::new(root, counters::nic_counter_path(iface, c)?),
                ))
            })
            .collect();
        Self {
            iface: iface.to_string(),
            files,
        }
    }

    fn read(&mut self) -> NicCounters {
        let mut stats = IfStats::default();
        let mut any = false;
        for (name, f) in &mut self.files {
            let v = f.read_u64();
            any |= v.is_some();
            stats.set(name, v);
        }
        NicCounters {
            iface: self.iface.clone(),
            stats: any.then_some(stats),
        }
    }
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
            .map(|p| (p, CounterFile::new(root, cur_freq_file(root, p))))
            .collect();
        let SampleSpec {
            swap,
            softirqs,
            irqs,
            nics,
            disks,
            tasks,
            processes,
        } = spec;
        let mut s = Self {
            root: root.clone(),
            stat: CounterFile::new(root, PROC_STAT),
            loadavg: CounterFile::new(root, PROC_LOADAVG),
            clocks,
            temp: thermal.map(|t| CounterFile::new(root, &t.temp_file)),
            dc_in,
            vmstat: swap.then(|| CounterFile::new(root, PROC_VMSTAT)),
            softirqs: softirqs.then(|| CounterFile::new(root, PROC_SOFTIRQS)),
            irqs: (!irqs.is_empty()).then(|| (irqs, CounterFile::new(root, PROC_INTERRUPTS))),
            nics: nics.iter().map(|n| NicFiles::new(root, n)).collect(),
            disks: disks
                .into_iter()
                .map(|d| {
                    let f = counters::block_stat_path(&d).map(|p| CounterFile::new(root, p));
                    (d, f)
                })
                .collect(),
            tasks: Vec::new(),
            processes: processes.then(|| root.is_host().then(std::process::id)),
            tally: ProcessTally::default(),
            processes_read_s: None,
            process_every_s: PROCESS_EVERY_S,
        };
        s.set_tasks(&tasks);
        s
    }

    /// A sampler for what the monitor's [`Setup`](crate::monitor::Setup) found (its clock
    /// columns, thermal source and DC-in sensor) plus `spec`.
    pub fn for_setup(root: &SysRoot, setup: &crate::monitor::Setup, spec: SampleSpec) -> Self {
        Self::new(
            root,
            &setup.layout,
            setup.thermal.as_ref(),
            setup.dc_in.clone(),
            spec,
        )
    }

    /// Replace the tasks watched (threads are often born after the sampler: a test's
    /// stream threads, a benchmark's I/O worker). Task files are read through the root
    /// like everything else: on a `--sysroot` tree they are the tree's, so ask for our own
    /// threads only on the live system ([`SysRoot::is_host`]).
    pub fn set_tasks(&mut self, tasks: &[TaskId]) {
        self.tasks = tasks
            .iter()
            .map(|&t| {
                (
                    t,
                    CounterFile::new(&self.root, counters::task_stat_path(t.pid, t.tid)),
                )
            })
            .collect();
    }

    /// The tasks watched.
    pub fn tasks(&self) -> Vec<TaskId> {
        self.tasks.iter().map(|(t, _)| *t).collect()
    }

    /// Read every counter now, and with [`SampleSpec::processes`] every other process's
    /// CPU time as counted so far: a phase's first and last sample.
    pub fn sample_boundary(&mut self) -> Sample {
        let mut s = self.sample_at(true);
        if self.processes.is_some() {
            s.processes = Some(self.tally.snapshot());
        }
        s
    }

    /// Read every counter now (and every process, when [`PROCESS_EVERY_S`] have passed).
    pub fn sample(&mut self) -> Sample {
        self.sample_at(false)
    }

    fn read_processes(&mut self, mono_s: f64, boundary: bool) {
        let Some(exclude) = self.processes else {
            return;
        };
        let due = self
            .processes_read_s
            .is_none_or(|t| mono_s - t >= self.process_every_s);
        if boundary || due {
            self.tally.update(&procs::read_all(&self.root, exclude));
            self.processes_read_s = Some(mono_s);
        }
    }

    fn sample_at(&mut self, boundary: bool) -> Sample {
        let (mono_s, unix_ms) = now();
        self.read_processes(mono_s, boundary);
        let stat = self.stat.read().map(parse_proc_stat);
        Sample {
            mono_s,
            unix_ms,
            uptime_s: self.tree_uptime(stat.as_ref()),
            stat,
            loadavg: self.loadavg.read_small().and_then(parse_loadavg),
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
                .and_then(|f| f.read_small().and_then(thermal::parse_temp_c)),
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
            irq_lines: self
                .irqs
                .as_mut()
                .and_then(|(sel, f)| Some(select_irq_lines(f.read()?, sel))),
            nics: self.nics.iter_mut().map(NicFiles::read).collect(),
            disks: self
                .disks
                .iter_mut()
                .map(|(dev, f)| DiskCounters {
                    dev: dev.clone(),
                    stat: f
                        .as_mut()
                        .and_then(|f| f.read_small().and_then(counters::parse_block_stat)),
                })
                .collect(),
            tasks: self
                .tasks
                .iter_mut()
                .map(|(task, f)| TaskCounters {
                    task: *task,
                    stat: f.read_small().and_then(counters::parse_task_stat),
                })
                .collect(),
            processes: None,
        }
    }

    /// The uptime of a `--sysroot` tree (its `/proc/uptime`, else from its ticks); `None`
    /// on the live system.
    fn tree_uptime(&self, stat: Option<&ProcStat>) -> Option<f64> {
        if self.root.is_host() {
            return None;
        }
        self.root
            .read_opt(PROC_UPTIME)
            .and_then(|t| parse_uptime(&t))
            .or_else(|| stat.and_then(uptime_from_stat))
    }
}

/// The lines of a `/proc/interrupts` text that `sel` selects, in file order.
pub fn select_irq_lines(text: &str, sel: &IrqSelect) -> Vec<IrqLineCounts> {
    let ints = irq::parse_interrupts(text);
    ints.lines
        .into_iter()
        .filter(|l| sel.matches(l))
        .map(|l| IrqLineCounts {
            per_cpu: ints
                .cpus
                .iter()
                .copied()
                .zip(l.per_cpu.iter().copied())
                .collect(),
            id: l.id,
            actions: l.actions,
        })
        .collect()
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
fn cur_freq_file(root: &SysRoot, policy: u32) -> String {
    let scaling = policy_attr(policy, "scaling_cur_freq");
    let cpuinfo = policy_attr(policy, "cpuinfo_cur_freq");
    if readable(root, &scaling) || !readable(root, &cpuinfo) {
        scaling
    } else {
        cpuinfo
    }
}

fn readable(root: &SysRoot, abs: &str) -> bool {
    root.open(abs, NodeKind::File).is_ok()
}

/// Can the current clock of `policy` be read (the test sbc-bench makes before it picks
/// its clock columns)?
pub fn cur_freq_readable(root: &SysRoot, policy: u32) -> bool {
    let mut f = CounterFile::new(root, cur_freq_file(root, policy));
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
    use crate::monitor::Interval;

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

    /// A tree with the counters the net and storage consumers ask for.
    fn counter_tree(d: &std::path::Path) {
        let w = |rel: &str, v: &str| {
            let p = d.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, v).unwrap();
        };
        w(
            "proc/stat",
            "cpu  0 0 0 100 0 0 0 0\ncpu0 0 0 0 50 0 0 0 0\ncpu1 0 0 0 50 0 0 0 0\n",
        );
        // NanoPi R5S style: the r8125 NIC's queue on CPU1, the eMMC host on CPU0.
        w(
            "proc/interrupts",
            "           CPU0       CPU1\n\
             \x2031:        100          0     GICv3  64 Level     fe2e0000.mmc\n\
             \x2045:          0       1000   ITS-MSI 524288 Edge      eth1-0\n\
             \x2046:          7          0   ITS-MSI 524289 Edge      eth1-1\n\
             IPI0:         10         20       Rescheduling interrupts\n",
        );
        for (c, v) in [
            ("rx_bytes", "1000"),
            ("tx_bytes", "50"),
            ("rx_packets", "10"),
            ("rx_dropped", "4294967290"),
        ] {
            w(
                &format!("sys/class/net/eth1/statistics/{c}"),
                &format!("{v}\n"),
            );
        }
        w(
            "sys/block/mmcblk0/stat",
            "100 0 800 50 10 0 80 5 0 100 55 0 0 0 0 0 0\n",
        );
        w(
            "proc/42/stat",
            "42 (sbc-bench) S 1 42 42 0 -1 0 0 0 0 0 10 5 0 0 20 0 3 0 1 1 1 1 1 1 1 1 1 1 0 0 0 0 0 0 -1 0 0 0 0 0 0\n",
        );
        w(
            "proc/42/task/43/stat",
            "43 (io worker) R 1 42 42 0 -1 0 0 0 0 0 1 1 0 0 20 0 3 0 1 1 1 1 1 1 1 1 1 1 0 0 0 0 0 0 -1 1 0 0 0 0 0\n",
        );
    }

    fn empty_layout() -> Layout {
        Layout::new(&crate::sys::cpu::Topology::default(), &[], |_| false)
    }

    /// The architecture's monitor test for the consumer counters: files rewritten in
    /// place between two samples, read through the handles the sampler keeps open.
    #[test]
    fn irq_nic_disk_and_task_counters_between_two_samples() {
        let d = tempfile::tempdir().unwrap();
        counter_tree(d.path());
        let root = SysRoot::new(d.path());
        let spec = SampleSpec::default()
            .with_irqs(IrqSelect::handlers(&["eth1"]))
            .with_irqs(IrqSelect::ids(&["31"]))
            .with_nic("eth1")
            .with_nic("eth9")
            .with_disk("mmcblk0")
            .with_disk("../etc")
            .with_task(TaskId::process(42))
            .with_task(TaskId::thread(42, 43));
        let mut s = Sampler::new(&root, &empty_layout(), None, None, spec);
        let a = s.sample();
        let lines = a.irq_lines.as_ref().unwrap();
        let ids: Vec<&str> = lines.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(
            ids,
            ["31", "45", "46"],
            "IPIs and other lines are not taken"
        );
        assert_eq!(lines[1].per_cpu, BTreeMap::from([(0, 0), (1, 1000)]));
        assert_eq!(a.nics[0].stats.unwrap().rx_bytes, Some(1000));
        assert_eq!(a.nics[0].stats.unwrap().tx_errors, None, "file absent");
        assert_eq!(a.nics[1].stats, None, "no such interface");
        assert_eq!(a.disks[0].stat.unwrap().reads, 100);
        assert_eq!(
            a.disks[1].stat, None,
            "a name that climbs out is never read"
        );
        assert_eq!(a.tasks[0].stat, Some(TaskStat { ticks: 15, cpu: 0 }));
        assert_eq!(a.tasks[1].stat, Some(TaskStat { ticks: 2, cpu: 1 }));

        let w = |rel: &str, v: &str| std::fs::write(d.path().join(rel), v).unwrap();
        w(
            "proc/interrupts",
            "           CPU0       CPU1\n\
             \x2031:        300          0     GICv3  64 Level     fe2e0000.mmc\n\
             \x2045:          0       6000   ITS-MSI 524288 Edge      eth1-0\n\
             IPI0:         10         20       Rescheduling interrupts\n",
        );
        w("sys/class/net/eth1/statistics/rx_bytes", "1001000\n");
        w("sys/class/net/eth1/statistics/rx_packets", "1010\n");
        // 32-bit `unsigned long` on armv7: wrapped.
        w("sys/class/net/eth1/statistics/rx_dropped", "6\n");
        w("sys/class/net/eth1/statistics/tx_bytes", "garbage\n");
        w(
            "sys/block/mmcblk0/stat",
            "200 0 2848 60 10 0 80 5 2 600 70 0 0 0 0 0 0\n",
        );
        w(
            "proc/42/stat",
            "42 (sbc-bench) S 1 42 42 0 -1 0 0 0 0 0 60 55 0 0 20 0 3 0 1 1 1 1 1 1 1 1 1 1 0 0 0 0 0 0 -1 1 0 0 0 0 0\n",
        );
        // The thread ended: its stat reads as nothing.
        w("proc/42/task/43/stat", "");
        let mut b = s.sample();
        // Pin the clock: 1 s between the samples.
        b.mono_s = a.mono_s + 1.0;

        let iv = Interval::new(&a, &b);
        let ids: Vec<&str> = iv.irq_lines.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(ids, ["31", "45"], "a line gone at the end has no delta");
        assert_eq!(iv.irq_lines[1].per_cpu, BTreeMap::from([(0, 0), (1, 5000)]));
        assert_eq!(iv.irq_lines[1].per_s, Some(5000.0));
        assert_eq!(iv.irqs_per_cpu(), BTreeMap::from([(0, 200), (1, 5000)]));
        let nic = iv.nic("eth1").unwrap();
        assert_eq!(nic.rx_bytes_per_s, Some(1e6));
        assert_eq!(nic.rx_packets_per_s, Some(1000.0));
        assert_eq!(nic.tx_bytes_per_s, None, "unreadable at the end");
        assert_eq!(nic.grown.rx_dropped, Some(12));
        assert_eq!(nic.rx_lost(), Some(12));
        assert!(iv.nic("eth9").is_none());
        let disk = iv.disk("mmcblk0").unwrap();
        assert_eq!(disk.read_bytes, Some(2048 * 512));
        assert_eq!(disk.read_bytes_per_s, Some(2048.0 * 512.0));
        assert_eq!(disk.reads_per_s, Some(100.0));
        assert_eq!(disk.write_bytes, Some(0));
        assert_eq!(disk.busy_pct, Some(50.0));
        assert_eq!(disk.in_flight, Some(2));
        let proc = iv.task(TaskId::process(42)).unwrap();
        assert_eq!(proc.ticks, Some(100));
        assert_eq!(proc.cpu_pct, Some(100.0));
        assert_eq!(proc.cpu, Some(1));
        let gone = iv.task(TaskId::thread(42, 43)).unwrap();
        assert_eq!((gone.ticks, gone.cpu_pct, gone.cpu), (None, None, None));

        // Readable again: the sampler reads it again.
        w(
            "proc/42/task/43/stat",
            "43 (io worker) R 1 42 42 0 -1 0 0 0 0 0 1 1 0 0 20 0 3 0 1 1 1 1 1 1 1 1 1 1 0 0 0 0 0 0 -1 1 0 0 0 0 0\n",
        );
        assert!(s.sample().tasks[1].stat.is_some());
    }

    /// Issue 28: the monitor read processes at a phase's first and last sample only, so
    /// one that started and ended inside the phase was invisible. Between the boundaries
    /// it reads them too, and the boundary sample holds what was counted.
    #[test]
    fn a_process_that_lived_inside_a_phase_is_in_its_last_sample() {
        let d = tempfile::tempdir().unwrap();
        let stat = |pid: u32, line: &str| {
            let dir = d.path().join(format!("proc/{pid}"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("stat"), format!("{line}\n")).unwrap();
        };
        stat(100, "100 (sh) S 1 100 100 0 -1 0 0 0 0 0 10 0 0 0");
        let root = SysRoot::new(d.path());
        let spec = SampleSpec {
            processes: true,
            ..SampleSpec::default()
        };
        let mut s = Sampler::new(&root, &empty_layout(), None, None, spec);
        s.process_every_s = 0.0;
        let first = s.sample_boundary();
        stat(200, "200 (apt-get) R 100 100 100 0 -1 0 0 0 0 0 300 50 0 0");
        assert!(
            s.sample().processes.is_none(),
            "only boundaries carry the list"
        );
        std::fs::remove_dir_all(d.path().join("proc/200")).unwrap();
        stat(100, "100 (sh) S 1 100 100 0 -1 0 0 0 0 0 10 0 420 80");
        let last = s.sample_boundary();
        let top = procs::busiest(
            first.processes.as_deref().unwrap_or_default(),
            last.processes.as_deref().unwrap_or_default(),
            5.0,
            100.0,
            2,
        );
        let named: Vec<(&str, f64)> = top.iter().map(|p| (p.comm.as_str(), p.cpu_pct)).collect();
        assert_eq!(named, [("apt-get", 70.0), ("sh", 30.0)]);
    }

    #[test]
    fn default_and_full_read_none_of_the_consumer_counters() {
        let d = tempfile::tempdir().unwrap();
        counter_tree(d.path());
        let root = SysRoot::new(d.path());
        for spec in [SampleSpec::default(), SampleSpec::full()] {
            let s = Sampler::new(&root, &empty_layout(), None, None, spec).sample();
            assert!(s.irq_lines.is_none() && s.nics.is_empty() && s.disks.is_empty());
            assert!(s.tasks.is_empty());
            // … and their JSON has no trace of them (monitor --json stays as it was).
            let j = serde_json::to_string(&s).unwrap();
            for k in ["irq_lines", "nics", "disks", "tasks"] {
                assert!(!j.contains(k), "{k} in {j}");
            }
        }
        let j = serde_json::to_string(&SampleSpec::full()).unwrap();
        assert_eq!(j, r#"{"swap":true,"softirqs":true}"#);
        let back: SampleSpec = serde_json::from_str(&j).unwrap();
        assert_eq!(back, SampleSpec::full());
    }

    #[test]
    fn set_tasks_and_all_counters() {
        let d = tempfile::tempdir().unwrap();
        counter_tree(d.path());
        let root = SysRoot::new(d.path());
        let mut s = Sampler::new(&root, &empty_layout(), None, None, SampleSpec::default());
        assert!(s.sample().tasks.is_empty());
        s.set_tasks(&[TaskId::thread(42, 43)]);
        assert_eq!(s.tasks(), vec![TaskId::thread(42, 43)]);
        assert_eq!(s.sample().tasks[0].stat.map(|t| t.cpu), Some(1));
        // Every counter of the live machine: lines, NICs, disks, this process.
        let all = SampleSpec::all_counters(&SysRoot::host());
        assert!(all.irqs.all && all.swap && all.softirqs);
        assert!(all.nics.iter().any(|n| n == "lo"));
        assert!(all.tasks.contains(&TaskId::this_process()));
        let host = Sampler::new(&SysRoot::host(), &empty_layout(), None, None, all).sample();
        if std::path::Path::new(PROC_INTERRUPTS).exists() {
            // (Some sandboxes have no /proc/interrupts: then `None`, which is the rule.)
            assert!(!host.irq_lines.unwrap().is_empty());
        }
        assert!(host.tasks[0].stat.is_some());
    }

    #[test]
    fn irq_selection_rules() {
        let line = |id: &str, actions: &[&str]| IrqLine {
            id: id.into(),
            irq: id.parse().ok(),
            actions: actions.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let eth = IrqSelect::handlers(&["eth0"]);
        assert!(eth.matches(&line("38", &["eth0"])));
        assert!(eth.matches(&line("39", &["eth0-rx-0"])));
        assert!(!eth.matches(&line("40", &["eth01"])), "another interface");
        let nvme = IrqSelect::handlers(&["nvme0q*"]);
        assert!(nvme.matches(&line("150", &["nvme0q3"])));
        assert!(!nvme.matches(&line("151", &["nvme1q3"])));
        assert!(!IrqSelect::handlers(&["*"]).matches(&line("1", &["x"])));
        assert!(IrqSelect::numbers(&[224]).matches(&line("224", &[])));
        assert!(IrqSelect::ids(&["LOC"]).matches(&line("LOC", &[])));
        assert!(IrqSelect::all().matches(&line("ERR", &[])));
        assert!(IrqSelect::default().is_empty());
        assert!(!IrqSelect::default().matches(&line("1", &["eth0"])));
    }

    #[test]
    fn reads_the_live_proc_stat() {
        // Every Linux has these; the VM has no cpufreq or thermal, which must simply be None.
        let mut f = CounterFile::new(&SysRoot::host(), PROC_STAT);
        let s = parse_proc_stat(f.read().unwrap());
        assert!(!s.per_cpu.is_empty());
        let again = parse_proc_stat(f.read().unwrap());
        assert!(again.total.total() >= s.total.total());
    }
}
