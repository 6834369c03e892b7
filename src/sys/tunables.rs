//! The system settings the tuning guard may change, by path (`tune::known` checks every
//! write and every journal entry against them): here, since `sys/` holds every path of
//! the system we name.

/// The settings, as patterns of path components: `{n}` is a number, `{name}` a plain
/// name (letters, digits, `-`, `_`, `.`, `:`), anything else literal.
pub const TUNABLES: &[&str] = &[
    // cpufreq: governors, limits (OPP walks), the userspace governor's clock.
    "/sys/devices/system/cpu/cpufreq/policy{n}/scaling_governor",
    "/sys/devices/system/cpu/cpufreq/policy{n}/scaling_max_freq",
    "/sys/devices/system/cpu/cpufreq/policy{n}/scaling_min_freq",
    "/sys/devices/system/cpu/cpufreq/policy{n}/scaling_setspeed",
    "/sys/devices/system/cpu/cpufreq/policy{n}/ondemand/io_is_busy",
    "/sys/devices/system/cpu/cpufreq/ondemand/io_is_busy",
    "/sys/devices/system/cpu/cpu{n}/cpufreq/scaling_governor",
    "/sys/devices/system/cpu/cpu{n}/cpufreq/scaling_max_freq",
    "/sys/devices/system/cpu/cpu{n}/cpufreq/scaling_min_freq",
    // CPUs taken offline (`wrap --offline-others`).
    "/sys/devices/system/cpu/cpu{n}/online",
    // devfreq governors and limits (dmc, GPU, NPU).
    "/sys/class/devfreq/{name}/governor",
    "/sys/class/devfreq/{name}/min_freq",
    "/sys/class/devfreq/{name}/max_freq",
    // PCIe ASPM policy (review mode).
    "/sys/module/pcie_aspm/parameters/policy",
];
