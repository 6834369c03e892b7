//! The JSON contract (docs/RUN-JSON.md): every JSON output of every fixture board,
//! produced by the binary as users run it, validates against its schema file under
//! `docs/schema/`; every schema file is valid draft 2020-12 and every kind of document has
//! one; `--json -` leaves stdout pure JSON.

use std::collections::BTreeMap;
use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{BOARDS, bin, copy_tree, sysroot};
use sbc_bench::output::schema;

fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema")
}

/// Every schema file, compiled once (boon checks each against its metaschema).
struct Validator {
    schemas: boon::Schemas,
    index: BTreeMap<String, boon::SchemaIndex>,
}

impl Validator {
    fn new() -> Self {
        let mut schemas = boon::Schemas::new();
        let mut c = boon::Compiler::new();
        c.set_default_draft(boon::Draft::V2020_12);
        let mut index = BTreeMap::new();
        for e in fs::read_dir(schema_dir()).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let Some(kind) = name.strip_suffix(".schema.json") else {
                panic!("{name}: not a schema file in docs/schema");
            };
            let v: Value = serde_json::from_str(&fs::read_to_string(&p).unwrap())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let url = format!("file:///docs/schema/{name}");
            c.add_resource(&url, v).unwrap();
            let i = c
                .compile(&url, &mut schemas)
                .unwrap_or_else(|e| panic!("{name}: {e:#}"));
            index.insert(kind.to_string(), i);
        }
        Self { schemas, index }
    }

    /// `doc` is valid by the schema its own `schema` key names.
    fn check(&self, what: &str, doc: &Value) {
        let kind = doc["schema"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: no schema key in {doc}"));
        assert!(
            doc["schema_version"].as_u64().is_some(),
            "{what}: no schema_version"
        );
        let i = self
            .index
            .get(kind)
            .unwrap_or_else(|| panic!("{what}: no docs/schema/{kind}.schema.json"));
        if let Err(e) = self.schemas.validate(doc, *i) {
            panic!("{what}: not valid by {kind}: {e:#}");
        }
    }

    fn check_text(&self, what: &str, text: &str) {
        let doc: Value =
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
        self.check(what, &doc);
    }
}

/// The binary's stdout, which must be one JSON document.
fn stdout_of(what: &str, c: &mut assert_cmd::Command, ok: &[i32]) -> String {
    let out = c.output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        ok.contains(&code),
        "{what}: exit {code}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_schema_file_is_valid_and_every_kind_has_one() {
    let v = Validator::new();
    let want: Vec<&str> = schema::ALL.iter().map(|s| s.name).collect();
    for name in &want {
        assert!(v.index.contains_key(*name), "{name} has no schema file");
    }
    for name in v.index.keys() {
        assert!(
            want.contains(&name.as_str()),
            "{name}: a schema file of no output"
        );
    }
    // Each file is draft 2020-12, names itself and lets unknown keys through.
    let meta = {
        let mut s = boon::Schemas::new();
        let mut c = boon::Compiler::new();
        let i = c
            .compile("https://json-schema.org/draft/2020-12/schema", &mut s)
            .unwrap();
        (s, i)
    };
    for k in schema::ALL {
        let doc: Value =
            serde_json::from_str(&fs::read_to_string(schema_dir().join(k.file_name())).unwrap())
                .unwrap();
        assert!(meta.0.validate(&doc, meta.1).is_ok(), "{}", k.name);
        assert_eq!(
            doc["$schema"], "https://json-schema.org/draft/2020-12/schema",
            "{}",
            k.name
        );
        assert_eq!(doc["properties"]["schema"]["const"], k.name);
        assert_eq!(doc["properties"]["schema_version"]["const"], k.version);
        assert_eq!(doc["additionalProperties"], true, "{}", k.name);
        let req: Vec<&str> = doc["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(req.starts_with(&["schema", "schema_version"]), "{}", k.name);
    }
    // A schema rejects what it should: the wrong name, a missing required key.
    let mut bad = serde_json::json!({"schema": "sbc-bench-monitor", "schema_version": 1});
    let i = v.index["sbc-bench-monitor"];
    assert!(
        v.schemas.validate(&bad, i).is_err(),
        "required keys missing"
    );
    bad["schema"] = "sbc-bench-info".into();
    assert!(v.schemas.validate(&bad, v.index["sbc-bench-info"]).is_err());
}

#[test]
fn info_kernel_storage_net_info_and_monitor_of_every_board_match_their_schemas() {
    let v = Validator::new();
    for board in BOARDS {
        let root = sysroot(board);
        let run = |what: &str, args: &[&str], ok: &[i32]| {
            let mut c = bin();
            c.arg("--sysroot").arg(&root).args(args);
            stdout_of(&format!("{board}: {what}"), &mut c, ok)
        };
        v.check_text(
            &format!("{board}: info"),
            &run("info", &["info", "--json"], &[0]),
        );
        v.check_text(
            &format!("{board}: kernel"),
            &run("kernel", &["kernel", "--json"], &[0, 3]),
        );
        v.check_text(
            &format!("{board}: storage"),
            &run("storage", &["storage", "--json"], &[0]),
        );
        let ni = run("net info", &["net", "info", "--json"], &[0]);
        v.check_text(&format!("{board}: net info"), &ni);
        let ni: Value = serde_json::from_str(&ni).unwrap();
        assert!(ni["interfaces"].is_array(), "{board}");
        let lines = run(
            "monitor",
            &["monitor", "--json", "0.05", "--count", "3"],
            &[0],
        );
        assert_eq!(lines.lines().count(), 3, "{board}: {lines}");
        for (n, l) in lines.lines().enumerate() {
            v.check_text(&format!("{board}: monitor line {n}"), l);
        }
    }
}

#[test]
fn bench_documents_of_every_board_match_their_schemas() {
    let v = Validator::new();
    for board in BOARDS {
        let root = sysroot(board);
        for args in [
            &["clock", "--quick", "--json"][..],
            &["membw", "--quick", "--json", "--cpus", "0"],
        ] {
            let mut c = bin();
            c.arg("--sysroot").arg(&root).arg("bench").args(args);
            let what = format!("{board}: bench {}", args[0]);
            v.check_text(&what, &stdout_of(&what, &mut c, &[0, 3]));
        }
        // The refusal (no usable CPU) of every benchmark carries its schema too.
        for b in ["clock", "membw", "memlat", "aes", "compress", "scrypt"] {
            let mut c = bin();
            c.arg("--sysroot")
                .arg(&root)
                .args(["bench", b, "--json", "--cpus", "999"]);
            let what = format!("{board}: bench {b} refused");
            let text = stdout_of(&what, &mut c, &[1, 2]);
            v.check_text(&what, &text);
            let doc: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(doc["schema"], format!("sbc-bench-bench-{b}"), "{what}");
            assert!(doc["error"].is_string(), "{what}");
        }
    }
    // The slower ones once, shortened, on one CPU.
    let root = sysroot("x86-vm");
    for args in [
        &["memlat", "--quick"][..],
        &[
            "aes",
            "--quick",
            "--native-only",
            "--algorithms",
            "aes-128-cbc",
        ],
        &["compress", "--quick", "--native-only"],
        &["scrypt", "--duration", "2s"],
    ] {
        let mut c = bin();
        c.arg("--sysroot")
            .arg(&root)
            .arg("bench")
            .args(args)
            .args(["--json", "--cpus", "0"]);
        let what = format!("bench {}", args[0]);
        v.check_text(&what, &stdout_of(&what, &mut c, &[0, 3]));
    }
}

/// `run --json -`: stdout is the run's JSON document alone (the progress lines and the
/// summary go to stderr), and it matches the run schema — on every board.
#[test]
fn run_json_dash_is_pure_json_on_stdout_and_matches_the_run_schema() {
    let v = Validator::new();
    for board in BOARDS {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        copy_tree(&sysroot(board), &root);
        let mut c = bin();
        c.arg("--sysroot")
            .arg(&root)
            .arg("--sysroot-writable")
            .args(["run", "--fake-benchmarks", "--unattended", "--no-store"])
            .arg("--log")
            .arg(tmp.path().join("run.log"))
            .args(["--json", "-"]);
        let out = c.output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 3)),
            "{board}: {:?}",
            out.status
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let doc: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{board}: stdout is not one JSON document: {e}\n{stdout}"));
        assert_eq!(doc["status"], "complete", "{board}");
        assert!(
            stderr.contains("sbc-bench "),
            "{board}: the text went to stderr"
        );
        assert!(!stderr.contains("\"schema\""), "{board}: no JSON on stderr");
        v.check(&format!("{board}: run"), &doc);
        // Its Results.md row reads back through the results store's parser.
        v.check_text(
            &format!("{board}: results parse"),
            &stdout_of(
                "results parse",
                bin().args(["results", "parse", "--json"]).arg({
                    let p = tmp.path().join("run.json");
                    fs::write(&p, &stdout).unwrap();
                    p
                }),
                &[0],
            ),
        );
    }
}

#[test]
fn results_show_and_compare_documents_match_their_schemas() {
    let v = Validator::new();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_tree(&sysroot("rock-5b"), &root);
    let db = tmp.path().join("results.db");
    let json = tmp.path().join("run.json");
    let mut c = bin();
    c.arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args(["run", "--fake-benchmarks", "--unattended", "--db"])
        .arg(&db)
        .arg("--log")
        .arg(tmp.path().join("run.log"))
        .arg("--json")
        .arg(&json);
    stdout_of("run", &mut c, &[0, 3]);
    let show = stdout_of(
        "results show",
        bin()
            .args(["results", "show", "1", "--json", "--db"])
            .arg(&db),
        &[0],
    );
    v.check_text("results show", &show);
    let compare = stdout_of(
        "compare",
        bin()
            .args(["compare", "--json", "--soc", "RK3588", "--db"])
            .arg(&db)
            .arg(&json),
        &[0],
    );
    v.check_text("compare", &compare);
    // A bash sbc-bench log reads into the same record.
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/logs/Kojb.txt");
    let parsed = stdout_of(
        "results parse of a log",
        bin().args(["results", "parse", "--json"]).arg(&log),
        &[0],
    );
    v.check_text("results parse of a log", &parsed);
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `net server --one-off -J` and `net client -J` over loopback: both documents.
#[test]
fn net_client_and_server_documents_match_the_net_schema() {
    let v = Validator::new();
    let port = free_port().to_string();
    let exe = assert_cmd::cargo::cargo_bin("sbc-bench");
    let server = Std::new(&exe)
        .args([
            "net",
            "server",
            "--one-off",
            "-J",
            "-B",
            "127.0.0.1",
            "-p",
            &port,
        ])
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until it listens (an observable event, not a fixed sleep).
    let deadline = Instant::now() + Duration::from_secs(20);
    let client = loop {
        let out = bin()
            .args(["net", "client", "127.0.0.1", "-p", &port, "-t", "1", "-J"])
            .output()
            .unwrap();
        if out.status.success() || Instant::now() > deadline {
            break out;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let server = server.wait_with_output().unwrap();
    assert!(client.status.success(), "{:?}", client.status);
    v.check_text("net client", &String::from_utf8(client.stdout).unwrap());
    v.check_text("net server", &String::from_utf8(server.stdout).unwrap());
    // An error document too (nobody listens on a fresh port).
    let out = bin()
        .args([
            "net",
            "client",
            "127.0.0.1",
            "-p",
            &free_port().to_string(),
            "-t",
            "1",
            "-J",
        ])
        .output()
        .unwrap();
    v.check_text("net client error", &String::from_utf8(out.stdout).unwrap());
}

#[test]
fn storage_bench_document_matches_its_schema() {
    let v = Validator::new();
    let dir = tempfile::tempdir().unwrap();
    let mut c = bin();
    c.args(["storage", "bench"]).arg(dir.path()).args([
        "--size",
        "1M",
        "-r",
        "256k",
        "--json",
        "--no-monitor",
    ]);
    v.check_text(
        "storage bench",
        &stdout_of("storage bench", &mut c, &[0, 3]),
    );
}

/// Two documents cannot share stdout: `--json - --log -` is refused before the run.
#[test]
fn two_documents_on_stdout_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = bin()
        .arg("--sysroot")
        .arg(sysroot("x86-vm"))
        .args(["run", "--fake-benchmarks", "--unattended", "--no-store"])
        .args(["--json", "-", "--log", "-"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "nothing ran");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only one of --json, --markdown and --log"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every schema's `$id` is its own file name, relative (issue 29, item 5): it resolves
/// wherever the schemas are published side by side — docs/schema/ of the source, the crate
/// package, /usr/share/doc/sbc-bench/schema/ of the .deb, doc/schema/ of the tarball. They
/// named a github.com path that never existed.
#[test]
fn schema_ids_are_relative_and_name_their_own_file() {
    for e in fs::read_dir(schema_dir()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let v: Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(v["$id"], Value::String(name.clone()), "{name}: $id");
    }
}
