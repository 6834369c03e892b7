//! The one integration-test binary: the CLI as users run it, over fixture sysroots.

// Test helpers may unwrap: a failure there is a failed test, with its location.
#![allow(clippy::unwrap_used)]
// Tests read what the command wrote with std's plain reads (the rule that every read of
// ours goes through `files::read` is for the program, clippy.toml).
#![allow(clippy::disallowed_methods)]

mod bench_cpu;
mod bench_crypto;
mod cargo_config;
mod cli;
mod cli_harden;
mod common;
mod compare_reasons;
mod completion_bash;
mod cpuid;
mod fifo_harden;
mod fleet_files;
mod golden;
mod graph_chromium;
mod graph_run;
mod imports;
mod info;
mod kernel_cli;
mod kernel_rules;
mod layers;
mod log_coverage;
mod logsec_sections;
mod markdown;
mod monitor;
mod names;
mod net;
mod net_harden;
mod pcie_review;
mod power_meters;
mod prom_export;
mod record_read;
mod release_cli;
mod report_chromium;
mod report_run;
mod results_import;
mod results_store;
mod review_mode;
mod run;
mod runout_harden;
mod schema_outputs;
mod sevenzip_bundled;
mod signal_matrix;
mod storage;
mod storage_harden;
mod sys_paths;
mod sysread;
mod thermal_mode;
mod tune_harden;
mod validate_harden;
mod wrap_run;
