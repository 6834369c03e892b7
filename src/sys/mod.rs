//! Discovery: a read-only picture of the machine, read through one [`root::SysRoot`].
//! Nothing outside `sys/` names `/proc`, `/sys` or `/dev`; parsers take text and are pure;
//! missing nodes become `None`, not errors.

pub mod cpu;
pub mod cpufreq;
pub mod meminfo;
pub mod power;
pub mod root;
pub mod soc;
pub mod thermal;
