//! Sampling: a thread reads raw counters into `Sample`s; `Interval`s are derived from two
//! samples. Recordings feed the "System health while running …" tables and diagnoses.

pub mod stat;
