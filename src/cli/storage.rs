//! `sbc-bench storage` (sbc-bench -S) and `sbc-bench storage bench PATH`.

use clap::{Args, Subcommand};

/// `sbc-bench storage`.
#[derive(Debug, Clone, Args)]
pub struct StorageArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,

    /// Benchmark instead of listing.
    #[command(subcommand)]
    pub which: Option<StorageCommand>,
}

/// Storage subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum StorageCommand {}
