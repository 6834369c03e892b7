//! The one integration-test binary: the CLI as users run it, over fixture sysroots.

mod cli;
mod net;
