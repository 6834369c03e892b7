//! The text log in sbc-bench's section order and layouts, and the console summary: each
//! mode's log (`run` for the standard run, `review`, `thermal`, `wrap`), the parts they
//! share (`common`), and the sections and benchmark tables they are made of.

pub mod clock;
pub mod common;
pub mod crypto;
pub mod memory;
pub mod power;
pub mod results_row;
pub mod review;
pub mod run;
pub mod thermal;
pub mod throttle;
pub mod tools;
pub mod topology;
pub mod wrap;
