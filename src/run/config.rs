//! The standard run's settings: command-line flags plus sbc-bench's environment variables
//! (`MODE=unattended|extensive`, `NotReadyYet=yes`, `NOTUNING=yes`, `MaxKHz`, `MinKHz`).

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::cli::run::RunArgs;

/// Default log file, as sbc-bench.
pub const DEFAULT_LOG: &str = "/var/log/sbc-bench.log";
/// How long an unattended run waits for the machine to become idle before giving up.
pub const UNATTENDED_MAX_WAIT: Duration = Duration::from_secs(600);

/// Everything a run needs to know about what the user asked for.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunConfig {
    /// Add the scrypt stress test (`-c`).
    pub stress: bool,
    /// Shortened benchmarks.
    pub quick: bool,
    /// sbc-bench's extensive mode.
    pub extensive: bool,
    /// Never prompt; bounded wait for idle.
    pub unattended: bool,
    /// Longest wait for idle (None: wait as long as it takes).
    pub max_wait_s: Option<u64>,
    /// Full log path.
    pub log: PathBuf,
    /// JSON report path.
    pub json: Option<PathBuf>,
    /// Canned results (tests).
    pub fake_benchmarks: bool,
    /// `NotReadyYet=yes`: skip score-producing benchmarks (only clocks and monitoring).
    pub not_ready_yet: bool,
    /// `NOTUNING=yes`: leave governors as they are.
    pub no_tuning: bool,
    /// `MaxKHz`: highest OPP the clock walk checks.
    pub max_khz: Option<u64>,
    /// `MinKHz`: lowest OPP the clock walk checks.
    pub min_khz: Option<u64>,
}

impl RunConfig {
    /// Combine flags with the environment (`env` is passed in so tests do not depend on the
    /// process environment).
    pub fn new(args: &RunArgs, env: &dyn Fn(&str) -> Option<String>) -> Self {
        let mode = env("MODE").unwrap_or_default().to_ascii_lowercase();
        let yes = |k: &str| {
            env(k).is_some_and(|v| {
                matches!(v.trim().to_ascii_lowercase().as_str(), "yes" | "1" | "true")
            })
        };
        let khz = |k: &str| env(k).and_then(|v| v.trim().parse::<u64>().ok());
        let unattended = args.unattended || mode.split(',').any(|m| m.trim() == "unattended");
        Self {
            stress: args.stress,
            quick: args.quick,
            extensive: args.extensive || mode.split(',').any(|m| m.trim() == "extensive"),
            unattended,
            max_wait_s: args
                .max_wait
                .or_else(|| unattended.then_some(UNATTENDED_MAX_WAIT.as_secs())),
            log: args
                .log
                .clone()
                .unwrap_or_else(|| PathBuf::from(DEFAULT_LOG)),
            json: args.json.clone(),
            fake_benchmarks: args.fake_benchmarks,
            not_ready_yet: yes("NotReadyYet"),
            no_tuning: yes("NOTUNING"),
            max_khz: khz("MaxKHz"),
            min_khz: khz("MinKHz"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_like_sbc_bench() {
        let env = |k: &str| match k {
            "MODE" => Some("unattended".to_string()),
            "NotReadyYet" => Some("yes".to_string()),
            "MaxKHz" => Some("1800000".to_string()),
            _ => None,
        };
        let c = RunConfig::new(&RunArgs::default(), &env);
        assert!(c.unattended && c.not_ready_yet && !c.extensive && !c.no_tuning);
        assert_eq!(c.max_wait_s, Some(600));
        assert_eq!(c.max_khz, Some(1_800_000));
        assert_eq!(c.log, PathBuf::from(DEFAULT_LOG));
        let c = RunConfig::new(
            &RunArgs {
                max_wait: Some(5),
                ..Default::default()
            },
            &|k| (k == "MODE").then(|| "extensive".to_string()),
        );
        assert!(c.extensive && !c.unattended);
        assert_eq!(c.max_wait_s, Some(5));
    }
}
