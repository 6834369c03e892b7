//! `sbc-bench storage` (sbc-bench -S) and `sbc-bench storage bench PATH`.

use std::path::PathBuf;

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
pub enum StorageCommand {
    /// Measure a filesystem like `iozone -e -I -a -s 100M -r 4k -r 16384k -i 0 -i 1 -i 2`
    /// (O_DIRECT, fsync in write timings) on a new temporary file, removed afterwards.
    Bench(StorageBenchArgs),
}

/// `sbc-bench storage bench [PATH]`.
#[derive(Debug, Clone, Args)]
pub struct StorageBenchArgs {
    /// Directory on the filesystem to test (default: the current directory). Only a new
    /// temporary file is written there.
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,

    /// File size, as iozone's -s: 100M, 512k, 1G (a bare number means KiB).
    #[arg(long, short = 's', value_name = "SIZE", default_value = "100M", value_parser = parse_size)]
    pub size: u64,

    /// Record size, as iozone's -r; repeat for several (default: 4k and 16384k).
    #[arg(long, short = 'r', value_name = "SIZE", value_parser = parse_size)]
    pub record: Vec<u64>,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,

    /// Do not sample CPU load and clocks while the benchmark runs.
    #[arg(long)]
    pub no_monitor: bool,
}

impl StorageBenchArgs {
    /// `--record` sizes in the order given, each once.
    pub fn records(&self) -> Vec<u64> {
        once_each(&self.record)
    }
}

/// `records` in their order, each once.
fn once_each(records: &[u64]) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    for &r in records {
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// Parse an iozone-style size: a number with an optional `k`, `m`, `g` or `t` suffix
/// (binary units, an optional trailing `b`/`iB`), a bare number meaning KiB.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let t = t
        .strip_suffix("ib")
        .or_else(|| t.strip_suffix('b'))
        .unwrap_or(&t);
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1 << 10),
    };
    let n: u64 = num
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a size (examples: 100M, 4k, 16384k, 1G)"))?;
    let bytes = n
        .checked_mul(mult)
        .filter(|&b| b > 0 && b <= 1 << 40)
        .ok_or_else(|| format!("size '{s}' must be between 1 KiB and 1 TiB"))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_record_sizes_run_once() {
        assert_eq!(once_each(&[4096, 16 << 20, 4096, 4096]), [4096, 16 << 20]);
    }

    #[test]
    fn iozone_sizes() {
        assert_eq!(parse_size("100M"), Ok(100 << 20));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("16384k"), Ok(16 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("512KiB"), Ok(512 << 10));
        assert_eq!(parse_size("102400"), Ok(100 << 20));
        assert!(parse_size("0").is_err());
        assert!(parse_size("-4k").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999T").is_err());
        assert!(parse_size("").is_err());
    }
}
