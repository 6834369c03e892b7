//! The one integration-test binary: the CLI as users run it, over fixture sysroots.

mod bench_crypto;
mod cli;
