//! `sbc-bench thermal [--cool-to °C | --heat-to °C | --memory-controller] [--duration 5m]`,
//! also sbc-bench's `-t [°C]`, `-T [°C]` and `-M` (see [`super::legacy`]).

use clap::Args;

use crate::record::config::{RunConfig, RunKind};
use crate::record::mode::thermal::{DEFAULT_POLL_S, DEFAULT_TARGET_C, ThermalConfig, ThermalMode};

/// Options of the thermal test.
#[derive(Debug, Clone, Args, Default)]
pub struct ThermalArgs {
    /// Wait for the SoC to cool down to °C before the load (sbc-bench -t; the default, at
    /// 50 °C).
    #[arg(long, value_name = "°C", value_parser = parse_celsius,
          conflicts_with_all = ["heat_to", "memory_controller"])]
    pub cool_to: Option<f64>,

    /// Heat the SoC to °C with scrypt before the load (sbc-bench -T).
    #[arg(long, value_name = "°C", value_parser = parse_celsius,
          conflicts_with = "memory_controller")]
    pub heat_to: Option<f64>,

    /// Memory-controller throttling test (sbc-bench -M): AES-256 per cluster, the load,
    /// AES-256 again, and the ratio per cluster.
    #[arg(long)]
    pub memory_controller: bool,

    /// Length of the scrypt load: 300, 300s, 5m, 1.5s, 500ms.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "5m")]
    pub duration: f64,

    /// Interval between temperature readings while waiting (2s as sbc-bench; tests use
    /// milliseconds).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, hide = true)]
    pub poll_interval: Option<f64>,

    #[command(flatten)]
    pub shared: super::run::SharedArgs,
}

/// A temperature in °C between -40 and 150.
pub fn parse_celsius(s: &str) -> Result<f64, String> {
    match s
        .trim()
        .trim_end_matches("°C")
        .trim_end_matches('C')
        .parse::<f64>()
    {
        Ok(v) if (-40.0..=150.0).contains(&v) => Ok(v),
        _ => Err("not a temperature in °C between -40 and 150".into()),
    }
}

/// A duration in [`super::units`]'s grammar (`300`, `5m`, `1.5s`, `500ms`), in seconds;
/// at least 1 ms, at most a day.
pub fn parse_duration(s: &str) -> Result<f64, String> {
    super::units::parse_duration_in(s, std::time::Duration::from_millis(1), super::units::DAY)
        .map(|d| d.as_secs_f64())
}

/// The run's settings: the standard run's (from the same environment variables), with
/// the thermal test's on top.
pub fn config(a: &ThermalArgs, env: &dyn Fn(&str) -> Option<String>) -> Result<RunConfig, String> {
    let run = super::run::RunArgs {
        shared: a.shared.clone(),
        ..Default::default()
    };
    let mut cfg = super::run_config(&run, env)?;
    let (mode, target_c) = match (a.memory_controller, a.heat_to, a.cool_to) {
        (true, _, _) => (ThermalMode::MemoryController, DEFAULT_TARGET_C),
        (_, Some(c), _) => (ThermalMode::HeatTo, c),
        (_, None, c) => (ThermalMode::CoolTo, c.unwrap_or(DEFAULT_TARGET_C)),
    };
    cfg.kind = RunKind::Thermal(ThermalConfig {
        mode,
        target_c,
        duration_s: a.duration,
        poll_s: a.poll_interval.unwrap_or(DEFAULT_POLL_S),
    });
    Ok(cfg)
}

impl super::run::ModeArgs for ThermalArgs {
    const EXAMPLES: &'static [(&'static str, &'static str)] = &[
        (
            "sudo sbc-bench thermal",
            "Cool to 50°C, then 5 minutes of load (sbc-bench -t)",
        ),
        (
            "sudo sbc-bench thermal --heat-to 60 --duration 10m",
            "Heat to 60°C first, 10 minutes of load",
        ),
        (
            "sudo sbc-bench thermal --memory-controller",
            "The memory-controller test (sbc-bench -M)",
        ),
    ];

    type Command = crate::run::thermal::ThermalCommand;

    fn shared(&self) -> &super::run::SharedArgs {
        &self.shared
    }

    fn launch(
        &self,
        env: &super::run::LaunchEnv<'_>,
    ) -> Result<(RunConfig, ()), super::UsageError> {
        Ok((config(self, env.var)?, ()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::mode::thermal::DEFAULT_DURATION_S;

    #[test]
    fn durations_and_temperatures() {
        assert_eq!(parse_duration("5m"), Ok(300.0));
        assert_eq!(parse_duration("300"), Ok(300.0));
        assert_eq!(parse_duration("1.5s"), Ok(1.5));
        assert_eq!(parse_duration("20ms"), Ok(0.02));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("2d").is_err());
        assert_eq!(parse_celsius("45"), Ok(45.0));
        assert_eq!(parse_celsius("45°C"), Ok(45.0));
        assert!(parse_celsius("hot").is_err());
        assert!(parse_celsius("400").is_err());
    }

    #[test]
    fn modes_and_defaults_as_sbc_bench() {
        let none = |_: &str| None;
        let c = config(
            &ThermalArgs {
                duration: DEFAULT_DURATION_S,
                ..Default::default()
            },
            &none,
        )
        .unwrap();
        let t = *c.kind.thermal().unwrap();
        assert_eq!(
            (t.mode, t.target_c, t.duration_s, t.poll_s),
            (ThermalMode::CoolTo, 50.0, 300.0, 2.0)
        );
        let c = config(
            &ThermalArgs {
                heat_to: Some(60.0),
                duration: 1.0,
                ..Default::default()
            },
            &none,
        )
        .unwrap();
        assert_eq!(
            c.kind.thermal().map(|t| (t.mode, t.target_c)),
            Some((ThermalMode::HeatTo, 60.0))
        );
        let c = config(
            &ThermalArgs {
                memory_controller: true,
                duration: 1.0,
                ..Default::default()
            },
            &|k| (k == "MODE").then(|| "unattended".to_string()),
        )
        .unwrap();
        assert!(c.unattended);
        assert_eq!(
            c.kind.thermal().map(|t| t.mode),
            Some(ThermalMode::MemoryController)
        );
    }
}
