//! `sbc-bench review [--no-benchmarks] [-- COMMAND …]` (sbc-bench's `-r`, `-j`, and `-R`
//! = `--no-benchmarks`): the review a board reviewer publishes, then watching while the
//! reviewer runs other benchmarks, until Ctrl-C or until COMMAND exits.

use std::path::PathBuf;

use clap::Args;

use crate::record::config::RunConfig;
use crate::run::review::ReviewRequest;

/// Options of review mode.
#[derive(Debug, Clone, Args, Default)]
pub struct ReviewArgs {
    /// Leave out the baseline benchmarks and the 5-minute heat (sbc-bench -R).
    #[arg(long)]
    pub no_benchmarks: bool,

    /// Write the Markdown review to FILE [default: sbc-bench-review.md beside the log].
    #[arg(long, value_name = "FILE")]
    pub review: Option<PathBuf>,

    /// Run COMMAND (no shell) instead of waiting for Ctrl-C, and stop when it exits, as
    /// sbc-bench's ExecuteCommand; its exit status, duration and last lines are recorded.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,

    #[command(flatten)]
    pub shared: super::run::SharedArgs,
}

impl ReviewArgs {
    /// The run's options: the standard run's, with the heat when benchmarking.
    pub fn run_args(&self) -> super::run::RunArgs {
        super::run::RunArgs {
            stress: !self.no_benchmarks,
            shared: self.shared.clone(),
            ..Default::default()
        }
    }

    /// The command to run: after `--`, else sbc-bench's `ExecuteCommand` split into words
    /// as its unquoted `${ExecuteCommand}` is; `None` to wait for Ctrl-C.
    pub fn command(&self, execute_command: Option<&str>) -> Option<Vec<String>> {
        if !self.command.is_empty() {
            return Some(self.command.clone());
        }
        let words: Vec<String> = execute_command?
            .split_whitespace()
            .map(str::to_string)
            .collect();
        (!words.is_empty()).then_some(words)
    }
}

impl super::run::ModeArgs for ReviewArgs {
    const EXAMPLES: &'static [(&'static str, &'static str)] = &[
        (
            "sudo sbc-bench review",
            "The review, then watch until Ctrl-C (sbc-bench -r)",
        ),
        (
            "sudo sbc-bench review --no-benchmarks -- stress-ng -c 4 -t 60",
            "Watch while a command runs (sbc-bench -R)",
        ),
    ];

    type Command = crate::run::review::ReviewCommand;

    fn shared(&self) -> &super::run::SharedArgs {
        &self.shared
    }

    fn launch(
        &self,
        env: &super::run::LaunchEnv<'_>,
    ) -> Result<(RunConfig, ReviewRequest), super::UsageError> {
        let mut cfg = super::run_config(&self.run_args(), env.var)?;
        cfg.kind = crate::record::config::RunKind::Review;
        let command = self.command((env.var)("ExecuteCommand").as_deref());
        let req = ReviewRequest {
            benchmarks: !self.no_benchmarks,
            from_env: self.command.is_empty() && command.is_some(),
            command,
            review_file: self.review.clone(),
        };
        Ok((cfg, req))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_after_dashes_wins_over_execute_command() {
        let a = ReviewArgs {
            command: vec!["sh".into(), "-c".into(), "echo hi there".into()],
            ..Default::default()
        };
        assert_eq!(
            a.command(Some("iperf3 -c x")).unwrap(),
            ["sh", "-c", "echo hi there"]
        );
        let b = ReviewArgs::default();
        assert_eq!(
            b.command(Some("  iperf3  -c server ")).unwrap(),
            ["iperf3", "-c", "server"]
        );
        assert_eq!(b.command(Some("   ")), None);
        assert_eq!(b.command(None), None);
    }

    #[test]
    fn benchmarks_bring_the_heat() {
        assert!(ReviewArgs::default().run_args().stress);
        let r = ReviewArgs {
            no_benchmarks: true,
            ..Default::default()
        };
        assert!(!r.run_args().stress);
    }
}
