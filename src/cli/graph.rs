//! `sbc-bench graph [cores|clusters|coreclusters|all|CPULIST]` (sbc-bench's `-g`): the
//! efficiency graph.

use std::path::PathBuf;

use clap::Args;

use crate::record::config::RunConfig;
use crate::record::mode::graph::{DEFAULT_IDLE_S, GraphConfig, GraphVariant, MIN_REPETITIONS};

/// Options of the efficiency graph.
#[derive(Debug, Clone, Args, Default)]
pub struct GraphArgs {
    /// Which CPUs: `cores` (the first core of each cluster), `clusters`, `coreclusters`
    /// (each group of cores of one type), `all` (all of these, then all cores) or a CPU
    /// list (`4-7`, `0,4`); without it, all cores at once.
    #[arg(value_name = "WHAT", value_parser = parse_variant)]
    pub what: Option<GraphVariant>,

    /// The HTML page with the SVG charts and the tables [default: sbc-bench-graph.html in
    /// the temporary directory].
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// Measurements per OPP (at least 3, as sbc-bench).
    #[arg(long, value_name = "N", default_value_t = MIN_REPETITIONS, value_parser = parse_repetitions)]
    pub repetitions: u32,

    /// Seconds of idle before the graph when a power meter is used.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_IDLE_S, value_parser = super::parse_seconds)]
    pub idle_seconds: u64,

    #[command(flatten)]
    pub shared: super::run::SharedArgs,
}

/// `cores`, `clusters`, `coreclusters`, `all` or a CPU list.
pub fn parse_variant(s: &str) -> Result<GraphVariant, String> {
    Ok(match s.trim() {
        "cores" => GraphVariant::Cores,
        "clusters" => GraphVariant::Clusters,
        "coreclusters" => GraphVariant::CoreClusters,
        "all" => GraphVariant::All,
        list => match crate::sys::cpu_list::parse_list(list) {
            Some(cpus) if !cpus.is_empty() => GraphVariant::CpuList(cpus),
            _ => {
                return Err(
                    "not one of cores, clusters, coreclusters, all or a CPU list (e.g. 4-7)"
                        .to_string(),
                );
            }
        },
    })
}

/// At least [`MIN_REPETITIONS`].
pub fn parse_repetitions(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if n >= MIN_REPETITIONS => Ok(n),
        _ => Err(format!("not a whole number of {MIN_REPETITIONS} or more")),
    }
}

/// The run's settings for the graph, sbc-bench's environment (`MinKHz`, `MaxKHz`,
/// `MODE=unattended`) included.
pub fn graph_config(
    args: &GraphArgs,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<RunConfig, String> {
    // `--power` is the graph's own meter (read per OPP), not the run's sampler.
    let run = super::run::RunArgs {
        shared: super::run::SharedArgs {
            power: None,
            ..args.shared.clone()
        },
        ..Default::default()
    };
    let mut cfg = super::run_config(&run, env)?;
    cfg.kind = crate::record::config::RunKind::Graph(GraphConfig {
        variant: args.what.clone().unwrap_or_default(),
        repetitions: args.repetitions,
        html: Some(
            args.html
                .clone()
                .unwrap_or_else(|| std::env::temp_dir().join("sbc-bench-graph.html")),
        ),
        power: args.shared.power.clone(),
        idle_s: args.idle_seconds,
    });
    Ok(cfg)
}

impl super::run::ModeArgs for GraphArgs {
    const EXAMPLES: &'static [(&'static str, &'static str)] = &[
        (
            "sudo sbc-bench graph",
            "MIPS, °C and mW at every OPP on all cores (sbc-bench -g)",
        ),
        (
            "sudo sbc-bench graph coreclusters --power auto",
            "Per group of cores, with a power meter",
        ),
    ];

    type Command = crate::run::graph::GraphCommand;

    fn shared(&self) -> &super::run::SharedArgs {
        &self.shared
    }

    fn launch(
        &self,
        env: &super::run::LaunchEnv<'_>,
    ) -> Result<(RunConfig, ()), super::UsageError> {
        Ok((graph_config(self, env.var)?, ()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_as_sbc_bench_spells_them() {
        assert_eq!(parse_variant("cores"), Ok(GraphVariant::Cores));
        assert_eq!(
            parse_variant("coreclusters"),
            Ok(GraphVariant::CoreClusters)
        );
        assert_eq!(
            parse_variant("4-7"),
            Ok(GraphVariant::CpuList(vec![4, 5, 6, 7]))
        );
        assert_eq!(parse_variant("0,4"), Ok(GraphVariant::CpuList(vec![0, 4])));
        assert!(parse_variant("bigcores").is_err());
        assert!(parse_repetitions("2").is_err());
        assert_eq!(parse_repetitions("5"), Ok(5));
    }

    #[test]
    fn min_khz_comes_from_the_environment() {
        let cfg = graph_config(&GraphArgs::default(), &|k| {
            (k == "MinKHz").then(|| "1000000".to_string())
        })
        .unwrap();
        assert_eq!(cfg.min_khz, Some(1_000_000));
        let g = cfg.kind.graph().cloned().unwrap();
        assert_eq!(g.variant, GraphVariant::AllCores);
        assert!(g.html.is_some());
    }
}
