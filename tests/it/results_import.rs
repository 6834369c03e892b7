//! Importing the bash sbc-bench's result logs: every figure a log's own Results.md row
//! states must come out of the log's body equal, after sbc-bench's rounding.

use std::fs;
use std::path::{Path, PathBuf};

use sbc_bench::record::results_row::{kernel_major_minor, round_tens};
use sbc_bench::results::sbclog::{self, ParsedLog};

/// Logs whose row disagrees with their own body, and why.
const ROW_DISAGREES: &[(&str, usize, &str)] = &[(
    "4fea.txt",
    6,
    "v0.9.9 on a Kryo/Falkor phone: the row shows the slower cluster's AES-256 (883330), \
     its log's best cluster is 1342242",
)];

fn tens(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| round_tens(v).to_string())
}

/// Compare each stated cell with what the body gave; the mismatches as `file col: row
/// says X, log gives Y`.
fn mismatches(name: &str, p: &ParsedLog) -> Vec<String> {
    let Some(cells) = &p.stated_row else {
        return Vec::new();
    };
    let r = &p.results_row;
    let cell = |i: usize| cells.get(i).map_or("-", String::as_str).to_string();
    // The header and the row squeeze a device name's blanks differently.
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let col6 = if p.row_has_aes128 {
        tens(p.aes128_16b)
    } else {
        r.sevenzip_single.map_or("-".into(), |v| v.to_string())
    };
    let want = [
        (0, squeeze(&r.device)),
        (2, kernel_major_minor(&r.kernel)),
        (4, tens(r.sevenzip_multi.map(|v| v as f64))),
        (5, col6),
        (6, tens(r.aes256_16k)),
        (7, tens(r.memcpy_mb_s)),
        (8, tens(r.memset_mb_s)),
        (9, r.scrypt_khs.map_or("-".into(), |v| format!("{v:.2}"))),
    ];
    let mut bad = Vec::new();
    for (i, got) in want {
        let mut stated = cell(i);
        if i == 0 {
            stated = squeeze(&stated);
        }
        if stated.is_empty() || (i == 6 && stated == "0") {
            // A cut-short row, or sbc-bench's `0` for an openssl without a 16 KiB column.
            stated = "-".into();
        }
        if stated != got && !ROW_DISAGREES.iter().any(|(f, c, _)| *f == name && *c == i) {
            bad.push(format!(
                "{name} col {i}: row says {stated:?}, log gives {got:?}"
            ));
        }
    }
    bad
}

fn check_dir(dir: &Path) -> (usize, Vec<String>) {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut rows = 0;
    let mut bad = Vec::new();
    for f in files {
        let text = String::from_utf8_lossy(&fs::read(&f).unwrap()).into_owned();
        let p = sbclog::parse(&text);
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if p.stated_row.is_some() && p.version.is_some() {
            rows += 1;
            bad.extend(mismatches(&name, &p));
        }
    }
    (rows, bad)
}

#[test]
fn fixture_logs_of_every_rule_change_reproduce_their_rows() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs");
    let (rows, bad) = check_dir(&dir);
    assert_eq!(rows, 12, "every fixture log has a row");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_corpus_log_with_a_row_reproduces_it() {
    let Some(dir) = crate::common::corpus_logs() else {
        eprintln!("skipped: the corpus is not here (the fixture test still runs)");
        return;
    };
    let (rows, bad) = check_dir(&dir);
    assert!(rows >= 140, "{rows} logs with a row");
    assert!(
        bad.is_empty(),
        "{} of {rows}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn a_pasted_crlf_coloured_prefixed_log_reads_like_the_original() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs");
    let text = fs::read_to_string(dir.join("Kojb.txt")).unwrap();
    let pasted: String = text.lines().map(|l| format!("> \x1b[0m{l}\r\n")).collect();
    let a = sbclog::parse(&text);
    let b = sbclog::parse(&pasted);
    assert_eq!(a, b);
    assert!(a.results_row.sevenzip_multi.is_some());
}

#[test]
fn a_log_cut_in_the_middle_yields_what_it_holds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs");
    let text = fs::read_to_string(dir.join("Kojb.txt")).unwrap();
    let cut = &text[..text.find("aes-256-cbc").unwrap()];
    let p = sbclog::parse(cut);
    assert!(p.results_row.memcpy_mb_s.is_some());
    assert_eq!(p.results_row.aes256_16k, None);
    assert_eq!(p.stated_row, None);
    assert!(
        p.unread.iter().any(|u| u.contains("OpenSSL")),
        "{:?}",
        p.unread
    );
}

fn logs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs")
}

#[test]
fn results_parse_reads_an_old_log_and_names_what_its_row_states() {
    let out = crate::common::bin()
        .args(["results", "parse"])
        .arg(logs().join("41BH.txt"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("sbc-bench log (version 0.9.8): Radxa ROCK 5B\n"),
        "{text}"
    );
    assert!(text.contains("Mode:       extensive"), "{text}");
    assert!(text.contains("7-zip multi 16447, single 3146"), "{text}");
    assert!(text.contains("AES-128 16 B 683353 k"), "{text}");
    assert!(
        text.contains("Row the log states: | Radxa ROCK 5B | 2400/1800 MHz | 5.10 |"),
        "{text}"
    );
}

#[test]
fn results_parse_json_has_the_run_json_row_keys() {
    let out = crate::common::bin()
        .args(["results", "parse", "--json"])
        .arg(logs().join("Kojb.txt"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["format"], "sbc-bench log");
    assert_eq!(v["version"], "0.9.72");
    let row = v["results_row"].as_object().unwrap();
    let keys: Vec<&str> = row.keys().map(String::as_str).collect();
    let model =
        serde_json::to_value(sbc_bench::record::results_row::ResultsRow::default()).unwrap();
    let want: Vec<&str> = model
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, want);
}

#[test]
fn results_parse_of_a_run_json_and_compare_of_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    crate::common::copy_tree(&crate::common::sysroot("rock-5b"), &root);
    let json = tmp.path().join("run.json");
    crate::common::bin()
        .env_remove("MODE")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended", "--log"])
        .arg(tmp.path().join("run.log"))
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let out = crate::common::bin()
        .args(["results", "parse"])
        .arg(&json)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("sbc-bench-run JSON (version "), "{text}");
    assert!(text.contains("SoC guess:  Rockchip RK3588"), "{text}");
    let out = crate::common::bin()
        .arg("compare")
        .arg(&json)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("Published sbc-bench results for SoC RK3588, sorted by 7zip-multi:"),
        "{text}"
    );
    assert!(text.contains("| **this run: Radxa ROCK 5B** |"), "{text}");
    assert!(text.contains("Why the numbers differ:"), "{text}");
}

#[test]
fn compare_of_a_missing_run_or_a_wrong_metric_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = crate::common::bin()
        .arg("compare")
        .arg(tmp.path().join("nothing.log"))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("error: cannot read"));
    let out = crate::common::bin()
        .args(["compare", "--metric", "speed"])
        .arg(logs().join("41BH.txt"))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(
        String::from_utf8_lossy(&out).contains("not a metric (one of: 7zip-multi"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    let not_a_log = tmp.path().join("x.txt");
    fs::write(&not_a_log, "hello\n").unwrap();
    crate::common::bin()
        .args(["results", "parse"])
        .arg(&not_a_log)
        .assert()
        .code(2);
}

#[test]
fn a_log_holding_several_runs_is_read_at_its_last_run() {
    let tmp = tempfile::tempdir().unwrap();
    let both = tmp.path().join("sbc-bench.log");
    let first = fs::read_to_string(logs().join("41BH.txt")).unwrap();
    let second = fs::read_to_string(logs().join("Kojb.txt")).unwrap();
    fs::write(&both, format!("{first}\n\n\n\n{second}")).unwrap();
    let out = crate::common::bin()
        .args(["results", "parse", "--json"])
        .arg(&both)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["version"], "0.9.72");
    assert_eq!(
        v["results_row"]["sevenzip_multi"],
        sbclog::parse(&second).results_row.sevenzip_multi.unwrap()
    );
}

#[test]
fn compare_falls_back_to_the_runs_core_types_when_no_row_has_its_soc() {
    // Kojb (Allwinner sun55iw3, 8 × Cortex-A55) names no SoC guess: its core types pick.
    let out = crate::common::bin()
        .args(["compare", "--metric", "memcpy"])
        .arg(logs().join("Kojb.txt"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with(
            "Published sbc-bench results for core types Cortex-A55, sorted by memcpy:"
        ),
        "{text}"
    );
    assert!(text.contains("| **this run: sun55iw3** |"), "{text}");
    let out = crate::common::bin()
        .args(["compare", "--core-type", "Cortex-A76", "--json"])
        .arg(logs().join("Kojb.txt"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["selection"]["by"], "core-type");
    assert!(v["rows"].as_array().unwrap().len() > 5);
}

#[test]
fn results_parse_of_a_fifo_is_refused_not_hung_on() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("log.fifo");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let out = crate::common::bin()
        .args(["results", "parse"])
        .arg(&fifo)
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(
        String::from_utf8_lossy(&out).contains("is not a regular file"),
        "{}",
        String::from_utf8_lossy(&out)
    );
}
