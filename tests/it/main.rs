//! The one integration-test binary: the CLI as users run it, over fixture sysroots.

// Test helpers may unwrap: a failure there is a failed test, with its location.
#![allow(clippy::unwrap_used)]

mod bench_cpu;
mod bench_crypto;
mod cli;
mod cli_harden;
mod common;
mod cpuid;
mod info;
mod layers;
mod markdown;
mod monitor;
mod net;
mod net_harden;
mod results_import;
mod run;
mod runout_harden;
mod storage;
mod storage_harden;
mod sysread;
mod validate_harden;
mod wrap_run;
