//! Native benchmarks, one module each. A benchmark returns typed results and never prints.

pub mod net;
pub mod pin;
