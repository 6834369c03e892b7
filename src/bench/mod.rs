//! Native benchmarks, one module each. A benchmark returns typed results and never prints.

pub mod clock;
pub mod kernels;
pub mod membw;
pub mod memlat;
pub mod pin;
