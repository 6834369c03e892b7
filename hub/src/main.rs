//! `sbc-bench-hub`: serve, import, back up and export the results site (docs/HUB.md).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};

use sbc_bench_hub::accept::Status;
use sbc_bench_hub::db::Db;
use sbc_bench_hub::server::{self, Limits};
use sbc_bench_hub::web::{self, App, Config};
use sbc_bench_hub::{import, site, synth};

#[derive(Parser, Debug)]
#[command(
    name = "sbc-bench-hub",
    version,
    about = "The self-hostable results site of sbc-bench: uploads from `sbc-bench share --to URL`, a permanent page per result, the results table, histories, compare, a JSON API and a static export.",
    after_help = "Examples:\n  sbc-bench-hub serve --data /var/lib/sbc-bench-hub\n  sbc-bench-hub import --data /var/lib/sbc-bench-hub corpus/logs corpus/reviews\n  sbc-bench-hub export-site --data /var/lib/sbc-bench-hub /srv/mirror\n\nThe admin token for moderation is read from the file --admin-token-file names or from\nSBC_BENCH_HUB_ADMIN_TOKEN, never from the command line. docs/HUB.md has the rest."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Serve the site and take uploads.
    Serve(ServeArgs),
    /// Load logs, run JSON files and reviews (files or directories) as uploads are loaded.
    Import(ImportArgs),
    /// Copy the SQLite database into one file, consistently, while the hub runs.
    Backup(BackupArgs),
    /// Write the whole site as static files into a new directory.
    ExportSite(ExportArgs),
    /// Benchmarks only: add synthetic results varied from the stored ones.
    #[command(hide = true)]
    Synth(SynthArgs),
}

#[derive(Args, Debug, Clone)]
struct DbArgs {
    /// The data directory of the embedded SQLite database (one file, hub.sqlite3).
    #[arg(
        long,
        value_name = "DIR",
        required_unless_present = "database",
        conflicts_with = "database"
    )]
    data: Option<PathBuf>,
    /// A PostgreSQL database instead (postgres://user@host/db), for several hub processes.
    #[arg(
        long,
        value_name = "URL",
        env = "SBC_BENCH_HUB_DATABASE",
        hide_env_values = true
    )]
    database: Option<String>,
    /// Database connections per hub process.
    #[arg(long, default_value_t = 16)]
    pool: u32,
}

impl DbArgs {
    fn open(&self) -> anyhow::Result<Db> {
        Ok(match (&self.database, &self.data) {
            (Some(url), _) => Db::open_postgres(url, self.pool)?,
            (None, Some(dir)) => Db::open_sqlite(dir, self.pool)?,
            (None, None) => anyhow::bail!("give --data DIR or --database URL"),
        })
    }
}

#[derive(Args, Debug)]
struct ServeArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Address and port to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// The URL clients reach the hub at (behind a reverse proxy); default http://LISTEN/.
    #[arg(long)]
    public_url: Option<String>,
    /// The largest upload, KiB.
    #[arg(long, default_value_t = 4096)]
    max_upload_kib: usize,
    /// Uploads per minute per client address (0: no limit).
    #[arg(long, default_value_t = 30)]
    upload_rate: u32,
    /// Requests per second per client address (0: no limit).
    #[arg(long, default_value_t = 50)]
    request_rate: u32,
    /// Seconds a client may take to send a request's head.
    #[arg(long, default_value_t = 10.0)]
    header_timeout: f64,
    /// Seconds a request may take from its head to the answer (bodies included).
    #[arg(long, default_value_t = 30.0)]
    request_timeout: f64,
    /// Connections at once.
    #[arg(long, default_value_t = 1024)]
    max_connections: usize,
    /// Connections at once from one address (0: no limit; use 0 behind a reverse proxy).
    #[arg(long, default_value_t = 64)]
    max_connections_per_address: usize,
    /// Take the client address from X-Forwarded-For's last entry (only behind a proxy).
    #[arg(long)]
    trust_forwarded_for: bool,
    /// A file holding the moderators' token (else SBC_BENCH_HUB_ADMIN_TOKEN).
    #[arg(long, value_name = "FILE")]
    admin_token_file: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct ImportArgs {
    #[command(flatten)]
    db: DbArgs,
    /// A Results.md whose rows name the logs (the maintainer's cells and acceptance);
    /// default: the published table shipped with sbc-bench.
    #[arg(long, value_name = "FILE", conflicts_with = "no_published")]
    published: Option<PathBuf>,
    /// Use no published table.
    #[arg(long)]
    no_published: bool,
    /// Files or directories.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

#[derive(Args, Debug)]
struct BackupArgs {
    /// The data directory.
    #[arg(long, value_name = "DIR")]
    data: PathBuf,
    /// The copy to write (must not exist).
    out: PathBuf,
}

#[derive(Args, Debug)]
struct ExportArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The URL the upload instructions name.
    #[arg(long, default_value = "https://hub.example.org/")]
    public_url: String,
    /// A new or empty directory.
    dir: PathBuf,
}

#[derive(Args, Debug)]
struct SynthArgs {
    #[command(flatten)]
    db: DbArgs,
    #[arg(long)]
    count: u64,
    /// The tag the synthetic results get.
    #[arg(long, default_value = "not-comparable")]
    tag: String,
}

fn admin_token(file: Option<&PathBuf>) -> anyhow::Result<Option<String>> {
    let t = match file {
        Some(f) => Some(
            sbc_bench::files::read::read_text(f, 64 << 10)
                .map_err(|e| anyhow::anyhow!("--admin-token-file {}: {e}", f.display()))?,
        ),
        None => std::env::var("SBC_BENCH_HUB_ADMIN_TOKEN").ok(),
    };
    let t = t.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
    if let Some(t) = &t {
        if t.len() < 16 {
            anyhow::bail!("the admin token is shorter than 16 characters");
        }
    }
    Ok(t)
}

fn serve(a: &ServeArgs) -> anyhow::Result<ExitCode> {
    let token = admin_token(a.admin_token_file.as_ref())?;
    let db = a.db.open()?;
    let secs = |s: f64, what: &str| -> anyhow::Result<Duration> {
        anyhow::ensure!(
            s.is_finite() && s > 0.0 && s < 86_400.0,
            "{what} is seconds, more than 0"
        );
        Ok(Duration::from_secs_f64(s))
    };
    let request_timeout = secs(a.request_timeout, "--request-timeout")?;
    let limits = Limits {
        header_timeout: secs(a.header_timeout, "--header-timeout")?,
        max_connections: a.max_connections.max(1),
        max_per_address: a.max_connections_per_address,
        ..Limits::default()
    };
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(a.listen)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", a.listen))?;
        let local = listener.local_addr()?;
        let mut public_url = a
            .public_url
            .clone()
            .unwrap_or_else(|| format!("http://{local}/"));
        if !public_url.ends_with('/') {
            public_url.push('/');
        }
        anyhow::ensure!(
            public_url.starts_with("http://") || public_url.starts_with("https://"),
            "--public-url is an http:// or https:// URL"
        );
        let cfg = Config {
            public_url: public_url.clone(),
            max_upload: a.max_upload_kib.max(1) * 1024,
            request_timeout,
            uploads_per_minute: a.upload_rate,
            requests_per_second: a.request_rate,
            trust_forwarded_for: a.trust_forwarded_for,
            admin_token: token,
        };
        let app = App::new(db, cfg);
        let tidy = app.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(60)).await;
                tidy.tidy();
            }
        });
        say(&format!("sbc-bench-hub: serving {public_url} on {local}"));
        server::serve(listener, web::router(app), limits, server::stop_signal()).await?;
        say("sbc-bench-hub: stopped");
        anyhow::Ok(ExitCode::SUCCESS)
    })
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.cmd {
        Cmd::Serve(a) => serve(&a),
        Cmd::Import(a) => {
            let db = a.db.open()?;
            let published = if a.no_published {
                Vec::new()
            } else {
                match &a.published {
                    Some(f) => import::published_rows(
                        &sbc_bench::files::read::read_text(f, 16 << 20)
                            .map_err(|e| anyhow::anyhow!("--published {}: {e}", f.display()))?,
                    ),
                    None => import::published_rows(sbc_bench::results::reference::PUBLISHED),
                }
            };
            let t0 = Instant::now();
            let t = import::import(&db, &a.paths, &published, &mut |l| println!("{l}"))?;
            println!(
                "{} stored, {} stored before, {} another document of a stored run, {} not results, {} conflicts, {} unreadable; {} reviews ({:.1} s)",
                t.created,
                t.duplicate,
                t.same_run,
                t.not_results,
                t.conflicts,
                t.unreadable,
                t.reviews,
                t0.elapsed().as_secs_f64()
            );
            Ok(
                if t.unreadable > 0 || t.conflicts > 0 || t.not_results > 0 {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                },
            )
        }
        Cmd::Backup(a) => {
            anyhow::ensure!(
                !a.out.exists(),
                "{} exists: give a new file (nothing is overwritten)",
                a.out.display()
            );
            let db = Db::open_sqlite(&a.data, 1)?;
            let partial = a.out.with_extension("partial");
            anyhow::ensure!(
                !partial.exists(),
                "{} exists (an unfinished backup?): remove it first",
                partial.display()
            );
            db.backup_sqlite(&partial)?;
            std::fs::rename(&partial, &a.out)?;
            println!("backed up to {}", a.out.display());
            Ok(ExitCode::SUCCESS)
        }
        Cmd::ExportSite(a) => {
            let db = a.db.open()?;
            let t0 = Instant::now();
            let w = site::export(&db, &a.dir, &a.public_url)?;
            println!(
                "{} files, {} KiB in {} ({:.1} s)",
                w.files,
                w.bytes / 1024,
                a.dir.display(),
                t0.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Synth(a) => {
            let tag = Status::from_word(&a.tag)
                .ok_or_else(|| anyhow::anyhow!("--tag: verified, warnings or not-comparable"))?;
            let db = a.db.open()?;
            let t0 = Instant::now();
            let n = synth::synthesize(&db, a.count, tag)?;
            println!(
                "{n} synthetic results ({:.1} s)",
                t0.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// A line on standard output that a closed pipe cannot turn into a panic.
fn say(line: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
