//! The inventory behind the log sections sbc-bench gets from `dmidecode`, `iostat`,
//! `free`, `swapon`, `lscpu`, `lshw` and the regulator class, read once per
//! [`SystemInfo`](crate::sys::discover::SystemInfo) (before and after the run). Log-only:
//! it is not part of the JSON schema.

use crate::sys::cpu::Topology;
use crate::sys::root::SysRoot;
use crate::sys::{dmi, iostat, lscpu, meminfo, regulator};

/// What the added log sections show.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LogInventory {
    /// `Device Info:` and `BIOS/UEFI:`.
    pub dmi: dmi::DmiInfo,
    /// SMBIOS type 17 memory devices (`RAM configuration:`).
    pub memory_devices: Vec<dmi::MemoryDevice>,
    /// `iostat` since boot.
    pub iostat: iostat::IoStat,
    /// `free -h` and `swapon -s`.
    pub free: meminfo::FreeAndSwaps,
    /// The lscpu summary's facts and the caches per CPU.
    pub lscpu: lscpu::Lscpu,
    /// I2C supply voltages shown above the OPP tables.
    pub regulators: Vec<regulator::Regulator>,
    /// `/proc/device-tree/cpus` exists.
    pub dt_cpus: bool,
    /// `/proc/device-tree/cpus/cpuN/capacity-dmips-mhz` present, per CPU of the topology.
    pub capacity_dmips_mhz: usize,
    /// CPUs whose node has `dynamic-power-coefficient` (the energy model schedutil uses).
    pub dynamic_power_coefficient: usize,
    /// CPUs whose node has `sched-energy-costs` (older kernels' energy model).
    pub sched_energy_costs: usize,
    /// `/sys/devices/virtual/powercap/intel-rapl` exists.
    pub intel_rapl: bool,
}

/// The device-tree node of CPU `n` (`/proc/device-tree/cpus/cpu@N` on most trees,
/// `cpu@N00` on Rockchip and others: both spellings probed, nothing listed).
fn dt_cpu_has(root: &SysRoot, n: u32, prop: &str) -> bool {
    [
        format!("/proc/device-tree/cpus/cpu@{n}/{prop}"),
        format!("/proc/device-tree/cpus/cpu@{n:x}00/{prop}"),
        format!("/proc/device-tree/cpus/cpu@{n}00/{prop}"),
        format!("/proc/device-tree/cpus/cpu{n}/{prop}"),
    ]
    .iter()
    .any(|p| root.exists(p))
}

impl LogInventory {
    /// Read everything through `root`.
    pub fn read(root: &SysRoot, topo: &Topology, arch: Option<String>) -> Self {
        let count = |prop: &str| {
            topo.cpus
                .iter()
                .filter(|c| dt_cpu_has(root, c.cpu, prop))
                .count()
        };
        Self {
            dmi: dmi::read(root),
            memory_devices: dmi::read_memory_devices(root),
            iostat: iostat::read(root),
            free: meminfo::read(root),
            lscpu: lscpu::read(root, topo, arch),
            regulators: regulator::read(root),
            dt_cpus: root.exists("/proc/device-tree/cpus"),
            capacity_dmips_mhz: count("capacity-dmips-mhz"),
            dynamic_power_coefficient: count("dynamic-power-coefficient"),
            sched_energy_costs: count("sched-energy-costs"),
            intel_rapl: root.exists("/sys/devices/virtual/powercap/intel-rapl"),
        }
    }
}
