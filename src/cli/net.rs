//! `sbc-bench net`: iperf3-compatible client and server, and interface listing.

use clap::{Args, Subcommand};

/// `sbc-bench net`.
#[derive(Debug, Clone, Args)]
pub struct NetArgs {
    /// What to do.
    #[command(subcommand)]
    pub which: NetCommand,
}

/// Network subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum NetCommand {
    /// List every network interface: driver, link, IRQs and their affinity, RPS/XPS.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}
