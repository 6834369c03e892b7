//! Optional runners of reference tools (`smartctl`, …), recorded with their version. The
//! core run needs none of them.

pub mod smartctl;
