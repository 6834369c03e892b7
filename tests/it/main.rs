//! The one integration-test binary: the CLI as users run it, over fixture sysroots.

mod bench_cpu;
mod bench_crypto;
mod cli;
mod cpuid;
mod info;
mod monitor;
mod net;
mod storage;
