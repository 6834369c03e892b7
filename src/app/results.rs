//! `sbc-bench results parse` and `sbc-bench compare`: read a result file (a log of the
//! bash sbc-bench or ours, or our run JSON) and print it, or set it beside the published
//! Results.md rows.

use std::io::Read;
use std::path::Path;

use serde::Serialize;

use crate::cli::results::{CompareArgs, ParseArgs, ResultsArgs, ResultsCommand};
use crate::output::Outcome;
use crate::record::config::DEFAULT_LOG;
use crate::record::results_row::ResultsRow;
use crate::results::compare::{self, Selection};
use crate::results::reference;
use crate::results::sbclog::{self, ParsedLog};

/// The largest result file read (a log is tens of KiB, a run JSON a few MiB).
const MAX_FILE: u64 = 64 << 20;

pub fn run(a: &ResultsArgs) -> anyhow::Result<Outcome> {
    match &a.command {
        ResultsCommand::Parse(p) => parse(p),
    }
}

/// What a result file gave.
#[derive(Debug, Serialize)]
struct Parsed {
    /// `sbc-bench log` or `sbc-bench-run JSON`.
    format: &'static str,
    #[serde(flatten)]
    log: ParsedLog,
}

fn read_file(path: &Path) -> Result<String, String> {
    use std::os::unix::fs::OpenOptionsExt;
    // Never blocks: a FIFO or device given by mistake is refused, not waited on.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let meta = f
        .metadata()
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!(
            "{} is a directory, not a result file",
            path.display()
        ));
    }
    if !meta.is_file() {
        return Err(format!(
            "{} is not a regular file (a FIFO or device is not a result file)",
            path.display()
        ));
    }
    let mut buf = Vec::new();
    f.take(MAX_FILE + 1)
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if buf.len() as u64 > MAX_FILE {
        return Err(format!(
            "{} is larger than {} MiB: not a result file",
            path.display(),
            MAX_FILE >> 20
        ));
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Read a result file: our run JSON, or a log (the last run in it: the default log
/// holds every run appended).
fn read_result(path: &Path) -> Result<Parsed, String> {
    let text = read_file(path)?;
    if text.trim_start().starts_with('{') {
        return from_run_json(&text).map_err(|e| format!("{}: {e}", path.display()));
    }
    let last = text
        .match_indices("\nsbc-bench v")
        .last()
        .map_or(0, |(i, _)| i + 1);
    let log = sbclog::parse(&text[last..]);
    let row = &log.results_row;
    let holds_nothing = log.version.is_none()
        && log.stated_row.is_none()
        && log.core_types.is_empty()
        && row.memcpy_mb_s.is_none()
        && row.sevenzip_multi.is_none()
        && row.aes256_16k.is_none();
    // The oldest sbc-bench logs (v0.4 uploads) begin with lsb_release's `Distributor ID:`,
    // without a header line: they are read for what they hold.
    if holds_nothing {
        return Err(format!(
            "{}: neither an sbc-bench log (no header, no benchmark output) nor a run JSON",
            path.display()
        ));
    }
    Ok(Parsed {
        format: "sbc-bench log",
        log,
    })
}

fn from_run_json(text: &str) -> Result<Parsed, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    if v["schema"] != crate::record::run::SCHEMA {
        return Err(format!(
            "not a run JSON of ours (schema {}, not {:?})",
            v["schema"],
            crate::record::run::SCHEMA
        ));
    }
    let mut log = ParsedLog {
        version: v["sbc_bench_version"].as_str().map(str::to_string),
        date: v["started"].as_str().map(str::to_string),
        soc_guess: v["system_before"]["soc"]["guess"]
            .as_str()
            .map(str::to_string),
        core_types: run_json_core_types(&v),
        ..ParsedLog::default()
    };
    match serde_json::from_value::<ResultsRow>(v["results_row"].clone()) {
        Ok(row) => {
            log.kernel_release = Some(row.kernel.clone()).filter(|k| !k.is_empty());
            log.results_row = row;
        }
        Err(_) => log
            .unread
            .push("no results_row (the run did not finish)".to_string()),
    }
    Ok(Parsed {
        format: "sbc-bench-run JSON",
        log,
    })
}

/// The core types of a run JSON's clusters, in order, once each.
fn run_json_core_types(v: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in v["system_before"]["clusters"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if let Some(t) = c["core_type"].as_str() {
            if !out.iter().any(|x| x == t) {
                out.push(t.to_string());
            }
        }
    }
    out
}

fn parse(a: &ParseArgs) -> anyhow::Result<Outcome> {
    let r = match read_result(&a.file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(Outcome::Usage);
        }
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(Outcome::Ok);
    }
    print!("{}", render_parsed(&r));
    Ok(Outcome::Ok)
}

fn render_parsed(r: &Parsed) -> String {
    use std::fmt::Write as _;
    let p = &r.log;
    let mut out = String::new();
    let na = |v: &Option<String>| v.clone().unwrap_or_else(|| "n/a".into());
    let _ = writeln!(
        out,
        "{} (version {}): {}",
        r.format,
        na(&p.version),
        if p.results_row.device.is_empty() {
            "device not named"
        } else {
            &p.results_row.device
        }
    );
    if let Some(m) = &p.mode {
        let _ = writeln!(out, "Mode:       {m}");
    }
    let _ = writeln!(out, "Date:       {}", na(&p.date));
    let _ = writeln!(out, "Kernel:     {}", na(&p.kernel_release));
    let _ = writeln!(out, "SoC guess:  {}", na(&p.soc_guess));
    let row = &p.results_row;
    let f = |v: Option<f64>, d: usize| v.map_or_else(|| "-".into(), |v| format!("{v:.d$}"));
    let _ = writeln!(
        out,
        "7-zip multi {}, single {}; AES-256 16 KiB {} k; memcpy {} MB/s, memset {} MB/s; cpuminer {} kH/s",
        f(row.sevenzip_multi.map(|v| v as f64), 0),
        f(row.sevenzip_single.map(|v| v as f64), 0),
        f(row.aes256_16k, 0),
        f(row.memcpy_mb_s, 1),
        f(row.memset_mb_s, 1),
        f(row.scrypt_khs, 2),
    );
    if p.row_has_aes128 {
        let _ = writeln!(
            out,
            "AES-128 16 B {} k (the sixth column of rows before 2022-10-23)",
            f(p.aes128_16b, 0)
        );
    }
    if let Some(cells) = &p.stated_row {
        let _ = writeln!(out, "Row the log states: | {} |", cells.join(" | "));
    }
    if !p.unread.is_empty() {
        let _ = writeln!(out, "Not in the file: {}", p.unread.join("; "));
    }
    out
}

pub fn compare(a: &CompareArgs) -> anyhow::Result<Outcome> {
    let path = a
        .run
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from(DEFAULT_LOG));
    let r = match read_result(&path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            if a.run.is_none() {
                eprintln!("(no run given: run `sbc-bench` first, or name a log or run JSON)");
            }
            return Ok(Outcome::Usage);
        }
    };
    let refs = reference::published();
    let selection = match (&a.soc, &a.device, &a.core_type) {
        (Some(s), _, _) => Selection::Soc(s.clone()),
        (None, Some(d), _) => Selection::Device(d.clone()),
        (None, None, Some(t)) => Selection::CoreType(t.clone()),
        (None, None, None) => {
            let soc = r
                .log
                .soc_guess
                .as_deref()
                .and_then(Selection::from_soc_guess)
                .filter(|s| s.matches_any(&refs));
            let types = Some(Selection::CoreTypes(r.log.core_types.clone()))
                .filter(|s| s.matches_any(&refs));
            match soc.or(types) {
                Some(s) => s,
                None => {
                    eprintln!(
                        "error: no published row has the run's SoC or core types: give --soc SOC, --device TEXT or --core-type TYPE"
                    );
                    return Ok(Outcome::Usage);
                }
            }
        }
    };
    let c = compare::compare(&r.log.results_row, &refs, selection, a.metric);
    if a.json {
        println!("{}", serde_json::to_string_pretty(&c)?);
    } else {
        print!("{}", compare::render(&c));
    }
    Ok(Outcome::Ok)
}
