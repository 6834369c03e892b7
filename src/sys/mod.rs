//! Discovery: a read-only picture of the machine, read through one [`root::SysRoot`].
//! Nothing outside `sys/` names `/proc`, `/sys` or `/dev`; parsers take text and are pure;
//! missing nodes become `None`, not errors.

pub mod board;
pub mod cache;
pub mod counters;
pub mod cpu;
pub mod cpu_list;
pub mod cpufreq;
pub mod deadline;
pub mod devfreq;
pub mod discover;
pub mod dmi;
pub mod iostat;
pub mod irq;
pub mod kernel;
pub mod kmsg;
pub mod logsec;
pub mod lscpu;
pub mod membench;
pub mod meminfo;
pub mod memory;
pub mod meter;
pub mod mmc;
pub mod net;
pub mod opp;
pub mod pci;
pub mod policies;
pub mod power;
pub mod procs;
pub mod regulator;
pub mod review_state;
pub mod root;
pub mod soc;
pub mod storage;
pub mod thermal;
pub mod tunables;
pub mod usb;
