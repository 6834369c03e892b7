//! Score extractors for commands run under `sbc-bench wrap`: small pure parsers of what a
//! known tool prints (Geekbench 5/6, Phoronix Test Suite, Stockfish, stress-ng, sysbench),
//! so the table of runs shows scores, not only durations. Each takes text and returns
//! what it found; unknown or broken output gives no score, never an error or a panic.

pub mod geekbench;
pub mod pts;
pub mod stockfish;
pub mod stressng;
pub mod sysbench;

use serde::{Deserialize, Serialize};

/// Which parser reads a command's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    /// Any other command: its duration is its result.
    #[default]
    Plain,
    /// Geekbench 5 or 6 (`geekbench5`, `geekbench6`).
    Geekbench,
    /// `phoronix-test-suite batch-run`.
    Pts,
    /// Stockfish's `bench`.
    Stockfish,
    /// stress-ng with `--metrics-brief` (or `--metrics`).
    StressNg,
    /// `sysbench cpu run`.
    Sysbench,
}

impl Tool {
    /// The parser for a command line, from the program's file name.
    pub fn of_command(argv: &[String]) -> Tool {
        let Some(prog) = argv.first() else {
            return Tool::Plain;
        };
        let name = std::path::Path::new(prog)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(prog);
        match name {
            n if n.starts_with("geekbench") => Tool::Geekbench,
            "phoronix-test-suite" => Tool::Pts,
            n if n.starts_with("stockfish") => Tool::Stockfish,
            "stress-ng" => Tool::StressNg,
            "sysbench" => Tool::Sysbench,
            _ => Tool::Plain,
        }
    }
}

/// One measured value with its unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Value {
    /// What it is (`Single-Core Score`, `cpu bogo ops/s (real time)`, `events/s`).
    pub name: String,
    /// The number.
    pub value: f64,
    /// Its unit (`points`, `bogo ops/s`, `nodes/s`), empty when the tool names none.
    pub unit: String,
}

impl Value {
    fn new(name: impl Into<String>, value: f64, unit: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value,
            unit: unit.into(),
        }
    }
}

/// What an extractor found in one run's output.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// The values, in the order the tool printed them.
    #[serde(default)]
    pub values: Vec<Value>,
    /// Where the tool published the result (Geekbench Browser, OpenBenchmarking.org).
    pub url: Option<String>,
}

impl Score {
    /// Nothing found.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.url.is_none()
    }
}

/// Read a run's output with the tool's parser (stdout and stderr: stress-ng prints its
/// metrics on stderr, Stockfish its bench summary too).
pub fn extract(tool: Tool, stdout: &str, stderr: &str) -> Option<Score> {
    let both = format!("{stdout}\n{stderr}");
    let s = match tool {
        Tool::Plain => return None,
        Tool::Geekbench => geekbench::parse(&both),
        Tool::Pts => pts::parse_stdout(&both),
        Tool::Stockfish => stockfish::parse(&both),
        Tool::StressNg => stressng::parse_metrics(&both),
        Tool::Sysbench => sysbench::parse(&both),
    };
    (!s.is_empty()).then_some(s)
}

/// ANSI colour sequences removed (PTS and Geekbench colour their output on a terminal;
/// sbc-bench strips them the same way before parsing).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A number as tools print it: `1,234.5` or `1234`.
pub(crate) fn number(s: &str) -> Option<f64> {
    let t: String = s.trim().chars().filter(|&c| c != ',').collect();
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_from_the_program_name() {
        let t = |s: &str| Tool::of_command(&[s.to_string()]);
        assert_eq!(t("/usr/local/bin/geekbench6"), Tool::Geekbench);
        assert_eq!(t("geekbench5"), Tool::Geekbench);
        assert_eq!(t("phoronix-test-suite"), Tool::Pts);
        assert_eq!(t("stress-ng"), Tool::StressNg);
        assert_eq!(t("sysbench"), Tool::Sysbench);
        assert_eq!(t("./my-bench.sh"), Tool::Plain);
        assert_eq!(Tool::of_command(&[]), Tool::Plain);
    }

    #[test]
    fn ansi_is_stripped_and_numbers_read() {
        assert_eq!(strip_ansi("\u{1b}[1;32mok\u{1b}[0m done"), "ok done");
        assert_eq!(number("1,234.5"), Some(1234.5));
        assert_eq!(number("NaN"), None);
        assert_eq!(number("x"), None);
    }

    #[test]
    fn plain_commands_have_no_score() {
        assert_eq!(extract(Tool::Plain, "42", ""), None);
        assert_eq!(extract(Tool::Sysbench, "garbage", ""), None);
    }
}
