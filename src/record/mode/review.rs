//! Review mode's record (`sbc-bench review`, sbc-bench's `-r`/`-j`/`-R`): what the
//! inventory found, what tuning set, the Markdown review as printed, and the waiting
//! phase — how it ended, what changed meanwhile (swap, throttling, kernel messages, PCIe
//! and storage devices) and the monitor's recording of it. Part of the run's JSON.

use serde::{Deserialize, Serialize};

use crate::bench::clock::ClockCheck;
use crate::monitor::Recording;
use crate::record::throttle::OppResidency;
use crate::record::tuning::Governor;
use crate::sys::kmsg::KmsgRecord;
use crate::sys::policies::PolicyFile;

/// Which of the compared groups changed, as sbc-bench's `ATTENTION:` heading says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Changed {
    /// PCIe (with USB and NIC links) and storage devices.
    PcieAndStorage,
    /// Storage devices only.
    Storage,
    /// PCIe (with USB and NIC links) only.
    Pcie,
}

/// How much the kernel logged during the waiting phase, as sbc-bench grades it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Noise {
    /// 2 to 20 messages.
    Some,
    /// More than 20.
    Lots,
}

/// What ended the waiting phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "signal")]
pub enum Stop {
    /// Ctrl-C, SIGTERM or another terminating signal (its number).
    Signal(i32),
    /// The command given after `--` (or in `ExecuteCommand`) exited.
    CommandExited,
    /// The command could not be started.
    CommandFailed,
}

/// The device lines compared, as rendered (drive temperatures cut off).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceLines {
    /// PCIe links (the review's `### PCIe and storage devices:` lines).
    #[serde(default)]
    pub pcie: Vec<String>,
    /// USB device speeds (compared with the PCIe group).
    #[serde(default)]
    pub usb: Vec<String>,
    /// NIC link states (compared with the PCIe group).
    #[serde(default)]
    pub nics: Vec<String>,
    /// Storage devices (drive temperatures cut off when compared).
    #[serde(default)]
    pub storage: Vec<String>,
}

/// The reviewer's command, run while the review watches.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CommandRun {
    /// The words run (no shell involved, as sbc-bench's word-split `${ExecuteCommand}`).
    #[serde(default)]
    pub argv: Vec<String>,
    /// Exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Seconds from start to exit.
    pub duration_s: f64,
    /// The last lines it printed (stdout and stderr).
    #[serde(default)]
    pub output_tail: Vec<String>,
    /// Why it could not be started.
    pub error: Option<String>,
}

/// The waiting phase: from the kernel-log mark to the stop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Waiting {
    /// Local start time, RFC 3339.
    pub started: String,
    /// Local end time, RFC 3339.
    pub ended: Option<String>,
    /// What ended it.
    pub stopped_by: Option<Stop>,
    /// The command, when one ran.
    pub command: Option<CommandRun>,
    /// Swap in use when it began, KiB.
    pub swap_used_before_kib: u64,
    /// Swap in use when it ended, KiB.
    pub swap_used_after_kib: Option<u64>,
    /// Time at each OPP during the waiting phase, per policy.
    #[serde(default)]
    pub throttling: Vec<OppResidency>,
    /// Did any policy spend time below its highest OPP (under `performance`)?
    pub throttled: bool,
    /// Clocks measured at the stop ("Clockspeeds now"), when benchmarks are on.
    #[serde(default)]
    pub clocks_now: Vec<ClockCheck>,
    /// SoC temperature at the stop, °C.
    pub temp_now_c: Option<f64>,
    /// Kernel messages since the mark, known noise left out.
    #[serde(default)]
    pub kernel_messages: Vec<KmsgRecord>,
    /// sbc-bench's grade of them.
    pub noise: Option<Noise>,
    /// Device lines at the stop (those when it began are [`ReviewRecord::devices`]).
    pub devices_after: Option<DeviceLines>,
    /// `diff` of the PCIe/USB/NIC lines.
    #[serde(default)]
    pub pcie_diff: Vec<String>,
    /// `diff` of the storage lines.
    #[serde(default)]
    pub storage_diff: Vec<String>,
    /// Which heading the change gets.
    pub changed: Option<Changed>,
    /// The monitor's recording of the waiting phase (one sample per interval).
    pub monitor: Option<Recording>,
}

/// Everything review mode adds to the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewRecord {
    /// Baseline benchmarks ran (`-r`, `-j`) or not (`-R`, `--no-benchmarks`).
    pub benchmarks: bool,
    /// Governors right after tuning to performance (empty with `NOTUNING=yes`).
    #[serde(default)]
    pub governors_tuned: Vec<Governor>,
    /// Performance related policies after tuning (PCIe ASPM, GPU `power_policy`).
    #[serde(default)]
    pub policies_tuned: Vec<PolicyFile>,
    /// `clk_summary` diff between everything at powersave and at performance.
    #[serde(default)]
    pub clk_summary_diff: Vec<String>,
    /// SoC temperature before the benchmarks, °C.
    pub temp_before_c: Option<f64>,
    /// SoC temperature after the heat, °C.
    pub temp_after_c: Option<f64>,
    /// Did a policy spend time below its top OPP during the benchmarks?
    pub throttled_in_benchmarks: bool,
    /// PCIe, USB, NIC and storage lines when the review began.
    pub devices: DeviceLines,
    /// CPU vulnerabilities as lscpu names them, with their state.
    #[serde(default)]
    pub vulnerabilities: Vec<(String, String)>,
    /// NTFS and exFAT partitions mounted.
    #[serde(default)]
    pub challenging_mounts: Vec<crate::sys::review_state::ChallengingMount>,
    /// The `### Kernel info:` lines (`report::text::kernel::review_section_lines`: command line,
    /// vulnerabilities, release, then sbc-bench's kernel text).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kernel_info: Vec<String>,
    /// sbc-bench's line per PCIe controller with its name from `pci.ids`
    /// (`report::text::pcie::controller_lines`); empty where the tree has no link state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcie_controllers: Vec<String>,
    /// What the review adds under `### PCIe and storage devices:` beyond sbc-bench's lines:
    /// per-link details, payload sizes and their efficiency, where each NIC/storage/USB
    /// interrupt is served (`report::text::pcie::{check_lines, efficiency_note, irq_lines}`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcie_details: Vec<String>,
    /// The Markdown review as printed and written.
    pub markdown: String,
    /// The waiting phase, once it began.
    pub waiting: Option<Waiting>,
}
