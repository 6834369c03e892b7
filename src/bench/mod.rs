//! Native benchmarks, one module each. A benchmark returns typed results and never prints.

pub mod clock;
pub mod external;
pub mod kernels;
pub mod membw;
pub mod memlat;
pub mod net;
pub mod pin;
pub mod storage;
