//! What the hub's tests share: the hub as a real process on a real port, each test on
//! its own database — a SQLite directory, and a database of its own in a real PostgreSQL
//! where `SBC_BENCH_HUB_TEST_PG` names one (`scripts/hub-pg.sh start` makes one; `.ci/run`
//! does, and sets `SBC_BENCH_HUB_REQUIRE_PG=1` so that a missing server fails instead of
//! skipping) — an HTTP client, and the board tool's fake runs.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The repository's root (the board tool's package).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("hub/ has a parent")
        .to_path_buf()
}

/// The fixture logs of the board tool's tests (one of every sbc-bench rule change).
pub fn fixture_logs() -> PathBuf {
    repo().join("tests/fixtures/logs")
}

/// The published corpus, where this machine has it: `SBC_BENCH_CORPUS`, else
/// `../shared/corpus/sbc-bench` beside the checkout (or beside a worktree's parent).
pub fn corpus() -> Option<PathBuf> {
    let mut places: Vec<PathBuf> = std::env::var_os("SBC_BENCH_CORPUS")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    places.push(repo().join("../shared/corpus/sbc-bench"));
    places.push(repo().join("../../shared/corpus/sbc-bench"));
    places.into_iter().find(|d| d.join("logs").is_dir())
}

pub fn hub_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_sbc-bench-hub"))
}

/// The board tool's binary: built beside this test binary by `cargo test --workspace`;
/// built here when a narrower `cargo test -p sbc-bench-hub` did not.
pub fn board_bin() -> PathBuf {
    let dir = hub_bin().parent().expect("target dir").to_path_buf();
    let bin = dir.join("sbc-bench");
    if !bin.is_file() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let st = Command::new(cargo)
            .current_dir(repo())
            .args(["build", "-p", "sbc-bench", "--bin", "sbc-bench"])
            .status()
            .expect("cargo runs");
        assert!(st.success(), "building sbc-bench failed");
    }
    assert!(bin.is_file(), "{} is missing", bin.display());
    bin
}

/// The database a test runs on.
pub enum Backend {
    Sqlite(tempfile::TempDir),
    Postgres {
        admin: String,
        url: String,
        name: String,
    },
}

static NEXT_DB: AtomicU32 = AtomicU32::new(0);

impl Backend {
    pub fn sqlite() -> Self {
        Backend::Sqlite(tempfile::tempdir().expect("temp dir"))
    }

    /// A new, empty database in the test PostgreSQL (`None`: none configured).
    pub fn postgres() -> Option<Self> {
        let admin = match std::env::var("SBC_BENCH_HUB_TEST_PG") {
            Ok(u) if !u.is_empty() => u,
            _ => {
                assert!(
                    std::env::var_os("SBC_BENCH_HUB_REQUIRE_PG").is_none(),
                    "SBC_BENCH_HUB_REQUIRE_PG is set but SBC_BENCH_HUB_TEST_PG is not"
                );
                return None;
            }
        };
        let name = format!(
            "hub_test_{}_{}",
            std::process::id(),
            NEXT_DB.fetch_add(1, Ordering::SeqCst)
        );
        let mut c = postgres::Client::connect(&admin, postgres::NoTls)
            .unwrap_or_else(|e| panic!("SBC_BENCH_HUB_TEST_PG={admin}: {e}"));
        c.batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("CREATE DATABASE");
        // The URL with the database replaced: `…/postgres` → `…/NAME`.
        let base = admin.rsplit_once('/').map_or(admin.as_str(), |x| x.0);
        let url = format!("{base}/{name}");
        Some(Backend::Postgres { admin, url, name })
    }

    /// The arguments that name it.
    pub fn args(&self) -> Vec<String> {
        match self {
            Backend::Sqlite(d) => vec!["--data".into(), d.path().display().to_string()],
            Backend::Postgres { url, .. } => vec!["--database".into(), url.clone()],
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite(_) => "SQLite",
            Backend::Postgres { .. } => "PostgreSQL",
        }
    }

    /// The database opened in this process.
    pub fn open(&self) -> sbc_bench_hub::db::Db {
        match self {
            Backend::Sqlite(d) => sbc_bench_hub::db::Db::open_sqlite(d.path(), 2).expect("open"),
            Backend::Postgres { url, .. } => {
                sbc_bench_hub::db::Db::open_postgres(url, 2).expect("open")
            }
        }
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        if let Backend::Postgres { admin, name, .. } = self {
            if let Ok(mut c) = postgres::Client::connect(admin, postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
            }
        }
    }
}

/// Run `test` on SQLite, then on PostgreSQL where configured (saying when it is not).
pub fn on_each_backend(test: impl Fn(&Backend)) {
    let lite = Backend::sqlite();
    test(&lite);
    match Backend::postgres() {
        Some(pg) => test(&pg),
        None => eprintln!(
            "PostgreSQL half skipped: SBC_BENCH_HUB_TEST_PG is not set (scripts/hub-pg.sh start makes a server)"
        ),
    }
}

/// A hub serving on a port of its own.
pub struct Hub {
    child: Option<Child>,
    pub url: String,
    pub addr: String,
    args: Vec<String>,
}

impl Hub {
    /// `sbc-bench-hub serve` on `b` with generous rate limits and `extra` arguments.
    pub fn start(b: &Backend, extra: &[&str]) -> Self {
        let mut args: Vec<String> = vec!["serve".into(), "--listen".into(), "127.0.0.1:0".into()];
        args.extend(b.args());
        for (k, v) in [("--upload-rate", "6000"), ("--request-rate", "5000")] {
            if !extra.contains(&k) {
                args.push(k.into());
                args.push(v.into());
            }
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        Self::spawn(args)
    }

    fn spawn(args: Vec<String>) -> Self {
        let mut child = Command::new(hub_bin())
            .args(&args)
            .env_remove("SBC_BENCH_HUB_ADMIN_TOKEN")
            .env_remove("SBC_BENCH_HUB_DATABASE")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("sbc-bench-hub starts");
        let out = child.stdout.take().expect("stdout");
        let mut line = String::new();
        let mut reader = BufReader::new(out);
        reader
            .read_line(&mut line)
            .expect("the hub says where it serves");
        // Keep reading what it says, so its standard output never meets a closed pipe.
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = reader.read_to_end(&mut sink);
        });
        // `sbc-bench-hub: serving http://127.0.0.1:PORT/ on 127.0.0.1:PORT`
        let addr = line
            .trim()
            .rsplit(' ')
            .next()
            .unwrap_or_default()
            .to_string();
        assert!(line.contains("serving"), "the hub said {line:?}");
        Self {
            child: Some(child),
            url: format!("http://{addr}/"),
            addr,
            args,
        }
    }

    /// Start it again on the same database and arguments (a new port).
    pub fn restart(&mut self) {
        self.kill();
        let args = self.args.clone();
        *self = Self::spawn(args);
    }

    /// SIGKILL, as an OOM kill or a crash.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// SIGTERM, and wait for it to stop; its exit status.
    pub fn stop(&mut self) -> Option<i32> {
        let mut c = self.child.take()?;
        let _ = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status();
        let t0 = Instant::now();
        loop {
            if let Ok(Some(st)) = c.try_wait() {
                return st.code();
            }
            if t0.elapsed() > Duration::from_secs(30) {
                let _ = c.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn get(&self, path: &str) -> Answer {
        http(
            "GET",
            &format!("{}{}", self.url, path.trim_start_matches('/')),
            None,
            &[],
        )
    }

    pub fn post(&self, path: &str, content_type: &str, body: &[u8]) -> Answer {
        http(
            "POST",
            &format!("{}{}", self.url, path.trim_start_matches('/')),
            Some(content_type),
            body,
        )
    }

    /// Upload a document as `share` does (a multipart `file` part).
    pub fn upload(&self, name: &str, content: &[u8]) -> Answer {
        let (ct, body) = sbc_bench::results::share::multipart(name, content);
        self.post("/", &ct, &body)
    }

    /// A raw request, bytes in, bytes out (for what no client would send).
    pub fn raw(&self, request: &[u8]) -> String {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(request).expect("send");
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.kill();
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub body: String,
    pub headers: Vec<(String, String)>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// One request with ureq (a real client), statuses not turned into errors.
pub fn http(method: &str, url: &str, content_type: Option<&str>, body: &[u8]) -> Answer {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let res = match method {
        "GET" => agent.get(url).call(),
        _ => {
            let mut r = agent.post(url);
            if let Some(ct) = content_type {
                r = r.header("Content-Type", ct);
            }
            r.send(body)
        }
    };
    let mut res = res.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = res.status().as_u16();
    let headers = res
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
        .collect();
    let body = res
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap_or_default();
    Answer {
        status,
        body,
        headers,
    }
}

/// A POST with headers of our own (moderation).
pub fn post_with(url: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut r = agent.post(url);
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    let mut res = r.send(body).unwrap_or_else(|e| panic!("POST {url}: {e}"));
    Answer {
        status: res.status().as_u16(),
        body: res.body_mut().read_to_string().unwrap_or_default(),
        headers: Vec::new(),
    }
}

/// Copy a tree, keeping symlinks as symlinks.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        let dst = to.join(e.file_name());
        if t.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(e.path()).unwrap(), &dst).unwrap();
        } else if t.is_dir() {
            copy_tree(&e.path(), &dst);
        } else {
            fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// A fake standard run of the board tool over a fixture board: (its log, its run JSON).
pub fn fake_run(board: &str, dir: &Path) -> (PathBuf, PathBuf) {
    let root = dir.join(format!("root-{board}"));
    copy_tree(&repo().join("tests/fixtures/sysroots").join(board), &root);
    let log = dir.join(format!("{board}.log"));
    let json = dir.join(format!("{board}.json"));
    let out = Command::new(board_bin())
        .env_remove("MODE")
        .env_remove("SBC_BENCH_DB")
        .env("SBC_BENCH_LIBDIR", "/nonexistent/sbc-bench-libdir")
        .env("NO_COLOR", "1")
        .arg("--sysroot")
        .arg(&root)
        .arg("--sysroot-writable")
        .args([
            "run",
            "--fake-benchmarks",
            "--unattended",
            "--no-store",
            "--log",
        ])
        .arg(&log)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("sbc-bench runs");
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (log, json)
}

/// `sbc-bench share FILE --to URL`: (exit status, stdout, stderr).
pub fn share(file: &Path, to: &str) -> (Option<i32>, String, String) {
    let out = Command::new(board_bin())
        .env("NO_COLOR", "1")
        .env_remove("SBC_BENCH_DB")
        .args(["share"])
        .arg(file)
        .args(["--to", to])
        .output()
        .expect("sbc-bench share runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The path of a URL the hub answered with, relative to its root.
pub fn path_of<'a>(hub: &Hub, url: &'a str) -> &'a str {
    url.trim()
        .strip_prefix(hub.url.as_str())
        .unwrap_or_else(|| panic!("{url} is not under {}", hub.url))
}
