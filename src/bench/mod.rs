//! Native benchmarks, one module each. A benchmark returns typed results and never prints.

pub mod external;
pub mod net;
pub mod pin;
pub mod storage;
