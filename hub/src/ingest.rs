//! The one seam between an upload and the hub: bytes in, a parsed, redacted, checked
//! result out ([`read_document`]). Everything it knows about the formats comes from the
//! project's own readers (`sbc_bench::results::document` for logs of every sbc-bench
//! version and our run JSON, `sbc_bench::record::read` for the typed run record), so when
//! they learn more, the hub does too without a change here beyond this file.

use sha2::{Digest, Sha256};

use sbc_bench::record::read::run_report;
use sbc_bench::record::results_row::{ResultsRow, kernel_arch, kernel_major_minor};
use sbc_bench::report::redact::{Known, redact};
use sbc_bench::results::document::{self, Parsed};
use sbc_bench::results::store::soc_of;

use crate::accept::{self, Check, Status};

/// What kind of document a result came as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocKind {
    /// A text log of the bash sbc-bench (any version) or of ours.
    Log,
    /// Our `run --json` document.
    RunJson,
}

impl DocKind {
    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            DocKind::Log => "log",
            DocKind::RunJson => "run-json",
        }
    }

    /// The stored word read back.
    pub fn from_word(w: &str) -> Option<Self> {
        match w {
            "log" => Some(DocKind::Log),
            "run-json" => Some(DocKind::RunJson),
            _ => None,
        }
    }

    /// The file extension of the raw document's URL.
    pub fn extension(self) -> &'static str {
        match self {
            DocKind::Log => "txt",
            DocKind::RunJson => "json",
        }
    }
}

/// Why an upload is not a result. Each is a 4xx answer with its sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("the upload is empty")]
    Empty,
    #[error("the upload holds binary data (NUL bytes), not a text log or a run JSON")]
    Binary,
    #[error("not a result: {0}")]
    NotAResult(String),
    #[error("not a run JSON of sbc-bench: {0}")]
    BadJson(String),
    #[error("no benchmark figures in it (7-Zip, memory, AES or scrypt): {0}")]
    NoFigures(&'static str),
}

/// The indexed facts of a result: what the table shows and filters on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// The device as the document names it (the Results.md row's first column).
    pub device: String,
    /// Short SoC name (`RK3588`), where the document's SoC guess names one.
    pub soc: Option<String>,
    /// Core types, in order, once each.
    pub core_types: Vec<String>,
    /// Kernel architecture as sbc-bench names it (`arm64`, `armhf`, `riscv64`, `x86_64`).
    pub arch: Option<String>,
    /// The full kernel release.
    pub kernel: Option<String>,
    /// The distro as the row words it, without the architecture.
    pub distro: Option<String>,
    /// When the run started, RFC 3339 in UTC.
    pub run_date: Option<String>,
    /// The sbc-bench version that wrote the document.
    pub tool_version: Option<String>,
    /// The mode the header or the run names (`extensive`, `quick`…).
    pub mode: Option<String>,
    /// The Results.md figures as computed from the document.
    pub row: ResultsRow,
}

/// A document read: the redacted text as it is stored, and everything the hub knows of it.
#[derive(Debug, Clone)]
pub struct Ingested {
    pub kind: DocKind,
    /// The document as stored: the upload redacted (the last run of an appended log).
    pub body: String,
    /// SHA-256 of `body`, hex: one document is stored once.
    pub sha256: String,
    /// What the project's readers made of it.
    pub parsed: Parsed,
    pub facts: Facts,
    /// The run's identity (device, start time, kernel), where the document says all
    /// three: a run uploaded as log and as JSON is one result.
    pub identity: Option<String>,
    /// The Results.md figures as the run itself stated them, to tell the same run from
    /// one claiming its identity.
    pub figures: String,
    /// The acceptance checks and the tag they give.
    pub checks: Vec<Check>,
    pub status: Status,
}

/// Read one uploaded document: decode, tell log from run JSON, redact (docs/PRIVACY.md's
/// rules and the machine's hostname), read with the project's readers, check.
pub fn read_document(bytes: &[u8]) -> Result<Ingested, Rejection> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Rejection::Empty);
    }
    if bytes.contains(&0) {
        return Err(Rejection::Binary);
    }
    // Logs pasted from old terminals carry Latin-1 here and there: kept, as U+FFFD.
    let text = String::from_utf8_lossy(bytes);
    if document::is_run_json(&text) {
        read_run_json(&text)
    } else {
        read_log(&text)
    }
}

fn sha256_hex(s: &str) -> String {
    let d = Sha256::digest(s.as_bytes());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

fn read_log(text: &str) -> Result<Ingested, Rejection> {
    let last = document::split_runs(text)
        .pop()
        .ok_or(Rejection::Empty)?
        .to_string();
    // The hostname is in iostat's first line (`Linux 6.1.0 (myhost) 03/14/19 _aarch64_`);
    // the device the header names stays even where a VM's hostname is its name.
    let first = document::parse_log_run(&last).map_err(|e| Rejection::NotAResult(e.to_string()))?;
    let hardware = vec![first.log.results_row.device.clone()];
    // Every hostname the log names, then the pattern rules.
    let mut body = redact(
        &last,
        &Known {
            hostname: None,
            hardware: hardware.clone(),
        },
    );
    for h in log_hostnames(&last) {
        body = redact(
            &body,
            &Known {
                hostname: Some(h),
                hardware: hardware.clone(),
            },
        );
    }
    let parsed =
        document::parse_log_run(&body).map_err(|e| Rejection::NotAResult(e.to_string()))?;
    let machine = log_machine(&body);
    let facts = facts(&parsed, machine.as_deref());
    let figures = match &parsed.log.stated_row {
        Some(cells) => cells.iter().skip(4).cloned().collect::<Vec<_>>().join("|"),
        None => figures_of(&parsed.log.results_row),
    };
    let checks = accept::log_checks(&parsed, &body);
    finish(DocKind::Log, body, parsed, facts, figures, checks)
}

fn read_run_json(text: &str) -> Result<Ingested, Rejection> {
    // Typed first: the schema, its version and every field's type are checked there
    // (and serde_json's depth limit stops a nesting bomb).
    let run = run_report(text).map_err(|e| Rejection::BadJson(e.to_string()))?;
    let mut known = sbc_bench::report::page::known_of_run(&run);
    if let Some(d) = run.results_row.as_ref().map(|r| r.device.clone()) {
        known.hardware.push(d);
    }
    let body = redact_json(text, &known).map_err(Rejection::BadJson)?;
    let run = run_report(&body).map_err(|e| Rejection::BadJson(e.to_string()))?;
    let parsed = document::from_run(&run);
    let facts = facts(&parsed, run.system_before.kernel.machine.as_deref());
    let figures = figures_of(&parsed.log.results_row);
    let checks = accept::run_checks(&run, &parsed);
    finish(DocKind::RunJson, body, parsed, facts, figures, checks)
}

fn finish(
    kind: DocKind,
    body: String,
    parsed: Parsed,
    facts: Facts,
    figures: String,
    checks: Vec<Check>,
) -> Result<Ingested, Rejection> {
    let r = &facts.row;
    if r.sevenzip_multi.is_none()
        && r.sevenzip_single.is_none()
        && r.memcpy_mb_s.is_none()
        && r.aes256_16k.is_none()
        && r.scrypt_khs.is_none()
    {
        return Err(Rejection::NoFigures(match kind {
            DocKind::Log => "a log cut before its benchmarks, or not a benchmark log",
            DocKind::RunJson => {
                "a run without a Results.md row (a thermal, graph or wrap run, or one stopped early)"
            }
        }));
    }
    let identity = identity(&facts);
    let status = accept::status_of(&checks);
    Ok(Ingested {
        kind,
        sha256: sha256_hex(&body),
        body,
        parsed,
        facts,
        identity,
        figures,
        checks,
        status,
    })
}

/// The figure cells of a row (7-Zip multi … kH/s) as the row prints them.
fn figures_of(r: &ResultsRow) -> String {
    r.render()
        .trim_matches('|')
        .split('|')
        .skip(4)
        .map(|c| c.trim().to_string())
        .collect::<Vec<_>>()
        .join("|")
}

/// `Linux 6.1.63-current-rockchip64 (rock64) 12/01/23 _aarch64_ (4 CPU)`: `rock64`, for
/// every such line (iostat's, once per run; a pasted log may hold several).
fn log_hostnames(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for h in text.lines().filter_map(|l| {
        let rest = l.trim_start().strip_prefix("Linux ")?;
        let (release, rest) = rest.split_once(' ')?;
        if !release.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let inner = rest.trim_start().strip_prefix('(')?;
        let (host, _) = inner.split_once(')')?;
        let host = host.trim();
        (!host.is_empty() && !host.contains(char::is_whitespace)).then(|| host.to_string())
    }) {
        if !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

/// iostat's `_aarch64_`, or the environment line's `Kernel: 6.1.0/aarch64`.
fn log_machine(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        if l.starts_with("Linux ") {
            return l
                .split_whitespace()
                .find(|w| w.len() > 2 && w.starts_with('_') && w.ends_with('_'))
                .map(|w| w.trim_matches('_').to_string());
        }
        let (_, arch) = l.trim_start().strip_prefix("Kernel: ")?.split_once('/')?;
        let arch = arch.split_whitespace().next()?;
        (!arch.is_empty()).then(|| arch.to_string())
    })
}

fn facts(p: &Parsed, machine: Option<&str>) -> Facts {
    let row = p.log.results_row.clone();
    let kernel = p
        .log
        .kernel_release
        .clone()
        .or_else(|| Some(row.kernel.clone()))
        .filter(|k| !k.is_empty());
    // `Jammy arm64`, `Ubuntu 22.04.3 LTS x86_64/amd64`: the last word is the architecture.
    let (distro, row_arch) = match row.distro_arch.trim().rsplit_once(' ') {
        Some((d, a)) => (Some(d.trim().to_string()), Some(a.to_string())),
        None if row.distro_arch.trim().is_empty() => (None, None),
        None => (None, Some(row.distro_arch.trim().to_string())),
    };
    let arch = machine
        .map(kernel_arch)
        .or_else(|| row_arch.map(|a| a.split('/').next().unwrap_or_default().to_string()))
        .filter(|a| !a.is_empty());
    Facts {
        device: squeeze(&row.device),
        soc: soc_of(p),
        core_types: p.log.core_types.clone(),
        arch,
        kernel,
        distro: distro.filter(|d| !d.is_empty()),
        run_date: p.log.date.as_deref().and_then(utc_date),
        tool_version: p.log.version.clone(),
        mode: p.log.mode.clone(),
        row,
    }
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A document's date in UTC, RFC 3339: the log header's RFC 2822 (`Sun, 03 Aug 2025
/// 11:57:46 +0200`) or our JSON's RFC 3339.
pub fn utc_date(d: &str) -> Option<String> {
    let d = d.trim();
    let t = chrono::DateTime::parse_from_rfc3339(d)
        .or_else(|_| chrono::DateTime::parse_from_rfc2822(d))
        .ok()?;
    Some(
        t.with_timezone(&chrono::Utc)
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    )
}

/// The run's identity: the device, the start to the second and the kernel release,
/// hashed. `None` where the document lacks one of them (the oldest logs have no date).
fn identity(f: &Facts) -> Option<String> {
    let date = f.run_date.as_deref()?;
    let kernel = f.kernel.as_deref()?;
    if f.device.is_empty() {
        return None;
    }
    let key = format!(
        "sbc-bench run\n{}\n{date}\n{kernel}",
        f.device.to_lowercase()
    );
    Some(sha256_hex(&key)[..32].to_string())
}

/// The row as a short label: `Radxa ROCK 5B (RK3588)`, as the published table names
/// boards (the SoC in parentheses unless the name already says it).
pub fn default_label(f: &Facts) -> String {
    let device = if f.device.is_empty() {
        "n/a"
    } else {
        f.device.as_str()
    };
    match &f.soc {
        Some(s) if !device.to_lowercase().contains(&s.to_lowercase()) => {
            format!("{device} ({s})")
        }
        _ => device.to_string(),
    }
}

/// The kernel series shown in the table (`6.1`).
pub fn kernel_series(f: &Facts) -> Option<String> {
    f.kernel.as_deref().map(kernel_major_minor)
}

/// Keys of a run JSON whose string values identify the machine, and what replaces them.
const JSON_SECRETS: &[(&str, &str)] = &[
    ("serial", "<serial>"),
    ("serial_number", "<serial>"),
    ("serialno", "<serial>"),
    ("uuid", "<serial>"),
    ("machine_id", "<serial>"),
    ("cid", "<serial>"),
    ("mac", "<mac>"),
    ("mac_address", "<mac>"),
];

/// Redact every string value of a JSON text in place, keeping its layout byte for byte:
/// each string is decoded, redacted by docs/PRIVACY.md's rules (with the run's hostname),
/// and encoded again; the values of identifying keys (serials, MACs) are replaced whole.
/// Keys are left as they are.
pub fn redact_json(text: &str, known: &Known) -> Result<String, String> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last_key = String::new();
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < b.len() && b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        if i >= b.len() {
            return Err("a string that never ends".into());
        }
        i += 1;
        let literal = &text[start..i];
        let after = text[i..].trim_start();
        let value: String = serde_json::from_str(literal).map_err(|e| e.to_string())?;
        if after.starts_with(':') {
            last_key = value;
            continue;
        }
        let replaced = match JSON_SECRETS.iter().find(|(k, _)| *k == last_key) {
            Some((_, with)) if !value.is_empty() => (*with).to_string(),
            _ => redact(&value, known),
        };
        if replaced != value {
            out.push_str(&text[copied..start]);
            out.push_str(&serde_json::to_string(&replaced).map_err(|e| e.to_string())?);
            copied = i;
        }
    }
    out.push_str(&text[copied..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostname_and_machine_from_iostat_line() {
        let l = "x\nLinux 6.1.63-current-rockchip64 (rock64) \t12/01/23 \t_aarch64_\t(4 CPU)\n";
        assert_eq!(log_hostnames(l), ["rock64"]);
        assert_eq!(log_machine(l).as_deref(), Some("aarch64"));
        assert!(log_hostnames("Linux is fine (really)\n").is_empty());
    }

    #[test]
    fn dates_become_utc() {
        assert_eq!(
            utc_date("Sun, 03 Aug 2025 11:57:46 +0200").as_deref(),
            Some("2025-08-03T09:57:46Z")
        );
        assert_eq!(
            utc_date("2025-08-03T11:57:46+02:00").as_deref(),
            Some("2025-08-03T09:57:46Z")
        );
        assert_eq!(utc_date("yesterday"), None);
    }

    #[test]
    fn json_strings_are_redacted_in_place() {
        let known = Known {
            hostname: Some("secret-box".into()),
            hardware: vec![],
        };
        let text = "{\n  \"hostname\": \"secret-box\",\n  \"mac\": \"2e:1a:c3:4f:00:9b\",\n  \"note\": \"on secret-box at 10.0.0.7\",\n  \"serial\": \"\",\n  \"n\": 3\n}";
        let out = redact_json(text, &known).unwrap();
        assert_eq!(
            out,
            "{\n  \"hostname\": \"<hostname>\",\n  \"mac\": \"<mac>\",\n  \"note\": \"on <hostname> at <ip>\",\n  \"serial\": \"\",\n  \"n\": 3\n}"
        );
        // Keys stay, even one spelled like the hostname.
        let k2 = Known {
            hostname: Some("results".into()),
            hardware: vec![],
        };
        assert_eq!(
            redact_json("{\"results\": \"results\"}", &k2).unwrap(),
            "{\"results\": \"<hostname>\"}"
        );
        assert!(redact_json("{\"a\": \"never", &known).is_err());
    }

    #[test]
    fn binary_and_empty_uploads_are_refused() {
        assert_eq!(read_document(b"").unwrap_err(), Rejection::Empty);
        assert_eq!(read_document(b" \n").unwrap_err(), Rejection::Empty);
        assert_eq!(read_document(b"a\0b").unwrap_err(), Rejection::Binary);
        assert!(matches!(
            read_document(b"hello world\n").unwrap_err(),
            Rejection::NotAResult(_)
        ));
        assert!(matches!(
            read_document(b"{\"schema\": 1}").unwrap_err(),
            Rejection::BadJson(_)
        ));
    }
}
