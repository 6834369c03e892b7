//! [`SystemInfo`]: everything discovery knows about the machine, as one serde document
//! (`sbc-bench info --json`, schema in `docs/INFO-JSON.md`).
//!
//! Read once through a [`SysRoot`], so a fixture tree gives the same picture on any machine.
//! Nothing here fails: what cannot be read is `None`/empty and rendered as `n/a`.

use serde::{Deserialize, Serialize};

use crate::sys::board::{self, BoardDevice, Distro, HostFacts, Kernel, Userland, Virtualization};
use crate::sys::cpu::ident::CpuArch;
use crate::sys::cpu::x86;
use crate::sys::cpu::{self, Topology};
use crate::sys::cpufreq::{self, PState, Policy};
use crate::sys::devfreq::{self, Devfreq};
use crate::sys::memory::{self, Memory};
use crate::sys::policies::{self, PolicyFile};
use crate::sys::power::{self, PowerInfo};
use crate::sys::root::SysRoot;
use crate::sys::soc::{self, SocDevice, SocGuess, SocInputs};
use crate::sys::thermal::{self, Hwmon, ThermalSource, ThermalZone};

/// Name of the JSON document type.
pub const SCHEMA: &str = crate::output::schema::INFO.name;
/// Version of the JSON layout; bumped on any incompatible change (see `docs/INFO-JSON.md`).
pub const SCHEMA_VERSION: u32 = crate::output::schema::INFO.version;

/// Temperatures, sensors and supply.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sensors {
    /// The sensor sbc-bench would pick for its `Temp` column.
    pub thermal_source: Option<ThermalSource>,
    /// Its reading now, °C.
    pub thermal_source_temp_c: Option<f64>,
    /// Every thermal zone.
    #[serde(default)]
    pub thermal_zones: Vec<ThermalZone>,
    /// Every hwmon device with its inputs.
    #[serde(default)]
    pub hwmon: Vec<Hwmon>,
    /// DC-in voltage and under-voltage flags.
    pub power: PowerInfo,
}

/// What discovery knows about the machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemInfo {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Device name (device tree or DMI).
    pub device: BoardDevice,
    /// `/etc/hostname`.
    pub hostname: Option<String>,
    /// SoC guess (`guess` is `null` when unknown).
    pub soc: SocGuess,
    /// `/sys/devices/soc0` (the kernel's SoC bus device: Amlogic, Qualcomm, Tegra, i.MX,
    /// Exynos, Arm SMCCC), `null` without one.
    pub soc0: Option<SocDevice>,
    /// On x86 the processor as sbc-bench names it where other machines show a SoC
    /// (`Ultra 9 185H`, `EPYC`, `Celeron J4125 @ 2.00GHz`); `null` on other architectures.
    pub cpu_name: Option<String>,
    /// Device-tree `compatible`, most specific first.
    #[serde(default)]
    pub dt_compatible: Vec<String>,
    /// Kernel release, architecture, configuration, command line.
    pub kernel: Kernel,
    /// Userland architecture.
    pub userland: Option<Userland>,
    /// Distribution.
    pub distro: Option<Distro>,
    /// Virtual machine / container.
    pub virtualization: Virtualization,
    /// Kernel page size in bytes.
    pub page_size_bytes: Option<u64>,
    /// CPUs and clusters (`cpus`, `clusters` at the top level of the JSON).
    #[serde(flatten)]
    pub topology: Topology,
    /// cpufreq policies.
    #[serde(default)]
    pub cpufreq: Vec<Policy>,
    /// intel_pstate / amd-pstate / boost.
    pub pstate: PState,
    /// devfreq devices (DRAM controller, GPU, NPU).
    #[serde(default)]
    pub devfreq: Vec<Devfreq>,
    /// Other performance related policies (PCIe ASPM, GPU power policy).
    #[serde(default)]
    pub policies: Vec<PolicyFile>,
    /// Device-tree OPP tables (frequency/voltage pairs for CPU clusters, DRAM controller,
    /// GPU, NPU), as sbc-bench's log lists them; empty without a device tree.
    #[serde(default)]
    pub opp_tables: Vec<crate::sys::opp::OppTable>,
    /// Memory, swap, zswap.
    pub memory: Memory,
    /// Thermal source, zones, hwmon, DC-in.
    pub sensors: Sensors,
    /// What the log's DMI, iostat, free, lscpu, cache, RAM and regulator sections show
    /// (log only: not in the JSON schema).
    #[serde(skip)]
    pub log_inventory: crate::sys::logsec::LogInventory,
}

impl SystemInfo {
    /// Read everything through `root`.
    pub fn read(root: &SysRoot) -> Self {
        let host = HostFacts::read(root);
        let (policies, topology) = cpu::read(root);
        let inputs = soc::read_inputs(root, &topology);
        let soc = soc::guess(&inputs);
        let device = BoardDevice::read(root);
        let kernel = Kernel::read(root, &host);
        let virtualization =
            Virtualization::detect(root, device.dmi.as_ref(), kernel.release.as_deref());
        let memory = memory::read(root, kernel.cmdline.as_deref());
        let thermal_source = thermal::pick_source(root);
        let sensors = Sensors {
            thermal_source_temp_c: thermal_source
                .as_ref()
                .and_then(|s| thermal::read_temp_c(root, s)),
            thermal_source,
            thermal_zones: thermal::read_zones(root),
            hwmon: thermal::read_hwmons(root),
            power: power::read(root),
        };
        let devfreq = devfreq::read(root);
        let log_inventory =
            crate::sys::logsec::LogInventory::read(root, &topology, kernel.machine.clone());
        let names: Vec<String> = devfreq.iter().map(|d| d.name.clone()).collect();
        Self {
            schema: SCHEMA.to_string(),
            policies: policies::read(root, &names),
            devfreq,
            schema_version: SCHEMA_VERSION,
            hostname: root.value("/etc/hostname"),
            dt_compatible: board::read_compatible(root),
            userland: Userland::read(root),
            distro: Distro::read(root),
            page_size_bytes: host.page_size,
            cpufreq: policies,
            pstate: cpufreq::read_pstate(root),
            device,
            soc,
            cpu_name: x86_cpu_name(&inputs),
            soc0: inputs.soc0,
            kernel,
            virtualization,
            topology,
            opp_tables: crate::sys::opp::read(root),
            memory,
            sensors,
            log_inventory,
        }
    }

    /// The DRAM controller's devfreq device, if any.
    pub fn dmc(&self) -> Option<&Devfreq> {
        self.devfreq.iter().find(|d| d.is_memory())
    }
}

/// sbc-bench's `X86CPUName`: the cleaned cpuinfo `model name` (`Intel(R) Core(TM) Ultra 9
/// 185H` → `Ultra 9 185H`, `AMD EPYC` → `EPYC`), which sbc-bench shows on x86 instead of a
/// SoC guess. `None` unless the cpuinfo describes x86 CPUs.
pub fn x86_cpu_name(inputs: &SocInputs) -> Option<String> {
    if inputs.arch != Some(CpuArch::X86) {
        return None;
    }
    x86::clean_model_name(inputs.model_name.as_deref()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_root_is_all_na() {
        let d = tempfile::tempdir().unwrap();
        let i = SystemInfo::read(&SysRoot::new(d.path()));
        assert_eq!(i.device.name, None);
        assert_eq!(i.soc.guess, None);
        assert!(i.cpufreq.is_empty());
        assert!(i.memory.swaps.is_empty());
        assert_eq!(i.sensors.thermal_source, None);
        assert_eq!(i.userland, None);
        let json = serde_json::to_value(&i).unwrap();
        assert_eq!(json["schema_version"], SCHEMA_VERSION);
        assert!(json["soc"]["guess"].is_null());
        assert!(json["cpus"].is_array());
    }

    #[test]
    fn live_system_does_not_panic() {
        let i = SystemInfo::read(&SysRoot::host());
        assert!(!i.topology.cpus.is_empty());
        assert!(i.memory.meminfo.mem_total_kib.is_some());
    }
}
