//! The HTTP side: the routes (pages, raw documents, the JSON API, exports, uploads,
//! moderation), the limits every request meets (rate per client address, body size,
//! request time), and the security headers of every answer. The connection side (head
//! size and time, connection counts) is [`crate::server`].
//!
//! No route maps a request onto the filesystem: every page and document comes out of the
//! database, found by an id or slug that is checked against a strict alphabet first.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, FromRequest, Multipart, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::accept::Status;
use crate::api;
use crate::db::{Db, DbError};
use crate::ingest::{self, DocKind};
use crate::pages::{self, Ctx};
use crate::store::{self, Filter, Moderation, Order, StoreError, Stored};
use crate::views;

/// What the hub is told at start.
#[derive(Debug, Clone)]
pub struct Config {
    /// The URL the hub is reached at, with a trailing `/` (the base of the URLs it answers).
    pub public_url: String,
    /// The largest document accepted, bytes.
    pub max_upload: usize,
    /// The longest a request may take, head to answer (a body that stalls ends here).
    pub request_timeout: Duration,
    /// Uploads per minute per client address (0: no limit).
    pub uploads_per_minute: u32,
    /// Requests per second per client address (0: no limit).
    pub requests_per_second: u32,
    /// Take the client address from the last `X-Forwarded-For` entry (behind a reverse
    /// proxy on this machine).
    pub trust_forwarded_for: bool,
    /// The moderators' token (from a file or the environment).
    pub admin_token: Option<String>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            public_url: "http://127.0.0.1:8080/".into(),
            max_upload: 4 << 20,
            request_timeout: Duration::from_secs(30),
            uploads_per_minute: 30,
            requests_per_second: 50,
            trust_forwarded_for: false,
            admin_token: None,
        }
    }
}

/// How many uploads are read at once.
pub const UPLOAD_SLOTS: usize = 32;

/// What every handler shares.
pub struct App {
    pub db: Db,
    pub cfg: Config,
    /// Uploads read at once: each holds its body in memory (at most `max_upload`), so
    /// [`UPLOAD_SLOTS`] of them bound what uploads can take; the others wait their turn
    /// within their request time.
    pub upload_slots: tokio::sync::Semaphore,
    /// The filter form's choices and when they were counted ([`views::cached_choices`]).
    pub choices: std::sync::Mutex<Option<(std::time::Instant, Arc<crate::pages::Choices>)>>,
    /// Held by the one request that counts the choices again; the others meanwhile show
    /// the last count, or wait for the first ([`views::cached_choices`]).
    pub choices_fill: std::sync::Mutex<()>,
    uploads: Option<DefaultKeyedRateLimiter<IpAddr>>,
    requests: Option<DefaultKeyedRateLimiter<IpAddr>>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("db", &self.db)
            .field("cfg", &self.cfg)
            .finish()
    }
}

impl App {
    pub fn new(db: Db, cfg: Config) -> Arc<Self> {
        let per_minute = |n: u32| {
            NonZeroU32::new(n).map(|nz| {
                // A burst of a tenth of a minute's worth, at least 5 (at most the rate).
                let burst = NonZeroU32::new((n / 10).max(5).min(n)).unwrap_or(nz);
                RateLimiter::keyed(Quota::per_minute(nz).allow_burst(burst))
            })
        };
        let per_second = |n: u32| {
            NonZeroU32::new(n).map(|nz| {
                let burst = NonZeroU32::new(n.saturating_mul(4)).unwrap_or(nz);
                RateLimiter::keyed(Quota::per_second(nz).allow_burst(burst))
            })
        };
        Arc::new(Self {
            upload_slots: tokio::sync::Semaphore::new(UPLOAD_SLOTS),
            choices: std::sync::Mutex::new(None),
            choices_fill: std::sync::Mutex::new(()),
            uploads: per_minute(cfg.uploads_per_minute),
            requests: per_second(cfg.requests_per_second),
            db,
            cfg,
        })
    }

    /// Forget rate-limit state of quiet addresses (called now and then).
    pub fn tidy(&self) {
        for l in [&self.uploads, &self.requests].into_iter().flatten() {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }
}

/// An answer that is not the page asked for.
#[derive(Debug)]
pub struct Fail {
    pub status: StatusCode,
    pub message: String,
    pub form: Form,
}

/// How a failure is worded: a page for browsers, JSON for the API, one line for clients
/// such as `share` and curl.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Html,
    Json,
    Text,
}

impl Fail {
    pub fn new(status: StatusCode, message: impl Into<String>, form: Form) -> Self {
        Self {
            status,
            message: message.into(),
            form,
        }
    }
    fn not_found(form: Form) -> Self {
        Self::new(StatusCode::NOT_FOUND, "no such page or result", form)
    }
    fn db(e: DbError, form: Form) -> Self {
        eprintln!("sbc-bench-hub: {e}");
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "the database did not answer; try again shortly",
            form,
        )
    }
}

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        match self.form {
            Form::Html => {
                let page = pages::error_page(
                    Ctx {
                        root: "/",
                        static_site: false,
                    },
                    self.status.as_u16(),
                    &self.message,
                );
                (self.status, html_headers(), page.into_string()).into_response()
            }
            Form::Json => {
                let body = serde_json::json!({
                    "schema": "sbc-bench-hub-error",
                    "schema_version": 1,
                    "status": self.status.as_u16(),
                    "error": self.message,
                });
                (
                    self.status,
                    [(header::CONTENT_TYPE, "application/json")],
                    body.to_string(),
                )
                    .into_response()
            }
            Form::Text => (
                self.status,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                format!("error: {}\n", self.message),
            )
                .into_response(),
        }
    }
}

fn html_headers() -> [(header::HeaderName, &'static str); 1] {
    [(header::CONTENT_TYPE, "text/html; charset=utf-8")]
}

/// Run `f` (database work, parsing) on tokio's blocking threads.
pub async fn blocking<R: Send + 'static>(
    form: Form,
    f: impl FnOnce() -> Result<R, DbError> + Send + 'static,
) -> Result<R, Fail> {
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(Fail::db(e, form)),
        Err(e) => {
            eprintln!("sbc-bench-hub: a worker failed: {e}");
            Err(Fail::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error",
                form,
            ))
        }
    }
}

/// The routes.
pub fn router(app: Arc<App>) -> Router {
    let upload_limit = DefaultBodyLimit::max(app.cfg.max_upload + 64 * 1024);
    let uploads = Router::new()
        .route("/", post(upload))
        .route("/upload", post(upload))
        .route("/api/v1/results", post(upload))
        .layer(upload_limit);
    let admin = Router::new()
        .route("/admin/results/{id}/{action}", post(moderate))
        .layer(DefaultBodyLimit::max(16 * 1024));
    Router::new()
        .route("/", get(views::table))
        .route("/index.html", get(views::table))
        .route("/all.html", get(views::table_all))
        .route("/hub.css", get(css))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/Results.md", get(views::results_md))
        .route("/about.html", get(views::about))
        .route("/socs.html", get(views::socs))
        .route("/devices.html", get(views::devices))
        .route("/reviews.html", get(views::reviews))
        .route("/results/{file}", get(views::result))
        .route("/soc/{file}", get(views::soc))
        .route("/device/{file}", get(views::device))
        .route("/reviews/{file}", get(views::review))
        .route("/compare.html", get(views::compare))
        .route("/export/results.csv", get(api::export_csv))
        .route("/export/results.json", get(api::export_json))
        .route("/api/v1/results.json", get(api::list))
        .route("/api/v1/results/{file}", get(api::result))
        .route("/api/v1/compare.json", get(api::compare))
        .route("/api/v1/socs.json", get(api::socs))
        .route("/api/v1/devices.json", get(api::devices))
        .route("/api/v1/soc/{file}", get(api::soc))
        .route("/api/v1/device/{file}", get(api::device))
        .merge(uploads)
        .merge(admin)
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

async fn not_found(method: Method, req: Request) -> Fail {
    let form = form_of(req.uri().path());
    if method != Method::GET && method != Method::HEAD {
        return Fail::new(StatusCode::METHOD_NOT_ALLOWED, "not allowed here", form);
    }
    Fail::not_found(form)
}

/// How a path's failures are worded.
pub fn form_of(path: &str) -> Form {
    if path.starts_with("/api/") || path.starts_with("/export/") {
        Form::Json
    } else if path.ends_with(".txt") || path.ends_with(".md") || path.starts_with("/admin") {
        Form::Text
    } else {
        Form::Html
    }
}

async fn css() -> impl IntoResponse {
    static CSS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        CSS.get_or_init(pages::stylesheet).clone(),
    )
}

/// The client's address: the peer, or behind a trusted reverse proxy the last
/// `X-Forwarded-For` entry.
fn client(app: &App, req: &Request) -> IpAddr {
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
    if app.cfg.trust_forwarded_for {
        if let Some(ip) = req
            .headers()
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .and_then(|v| v.trim().parse().ok())
        {
            return ip;
        }
    }
    peer
}

/// The Content-Security-Policy of every page: nothing but our own stylesheet, no script,
/// no frame, forms only to ourselves.
pub const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Every request: the rate limits of its client, the time limit, the security headers.
async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let ip = client(&app, &req);
    let form = form_of(req.uri().path());
    let is_upload = req.method() == Method::POST && !req.uri().path().starts_with("/admin/");
    let limiter = if is_upload {
        &app.uploads
    } else {
        &app.requests
    };
    if let Some(l) = limiter {
        if let Err(not_until) = l.check_key(&ip) {
            let wait = not_until
                .wait_time_from(governor::clock::Clock::now(
                    &governor::clock::DefaultClock::default(),
                ))
                .as_secs()
                .max(1);
            let mut r = Fail::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!("too many requests from {ip}; try again in {wait} s"),
                form,
            )
            .into_response();
            if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
                r.headers_mut().insert(header::RETRY_AFTER, v);
            }
            return secure(r);
        }
    }
    let r = match tokio::time::timeout(app.cfg.request_timeout, next.run(req)).await {
        Ok(r) => r,
        Err(_) => Fail::new(
            StatusCode::REQUEST_TIMEOUT,
            "the request took too long (a body that stalls is cut off)",
            form,
        )
        .into_response(),
    };
    secure(r)
}

fn secure(mut r: Response) -> Response {
    let h = r.headers_mut();
    for (k, v) in [
        ("content-security-policy", CSP),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
        ("cross-origin-resource-policy", "same-origin"),
    ] {
        h.insert(k, HeaderValue::from_static(v));
    }
    r
}

/// The upload's body: the `file` part of a multipart form (what `share` and `curl -F`
/// send), or the body itself (a run JSON, a log).
async fn upload_bytes(app: &App, req: Request, form: Form) -> Result<Bytes, Fail> {
    let ct = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let max = app.cfg.max_upload;
    let too_large = || {
        Fail::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the upload is larger than {} KiB", max / 1024),
            form,
        )
    };
    if ct.starts_with("multipart/form-data") {
        // The whole body first (bounded by the route's limit; a body that ends before its
        // Content-Length, or never, fails here), then its parts: a form cut short is never
        // taken for a complete one.
        let (parts, body) = req.into_parts();
        let bytes = axum::body::to_bytes(body, max + 64 * 1024)
            .await
            .map_err(|e| {
                let limit = std::error::Error::source(&e)
                    .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
                if limit {
                    too_large()
                } else {
                    Fail::new(
                        StatusCode::BAD_REQUEST,
                        format!("the body broke off: {e}"),
                        form,
                    )
                }
            })?;
        let req = Request::from_parts(parts, axum::body::Body::from(bytes));
        let mut mp = Multipart::from_request(req, &())
            .await
            .map_err(|e| Fail::new(StatusCode::BAD_REQUEST, e.body_text(), form))?;
        let broken = |e: axum::extract::multipart::MultipartError| {
            let status = match e.status() {
                StatusCode::PAYLOAD_TOO_LARGE => StatusCode::PAYLOAD_TOO_LARGE,
                _ => StatusCode::BAD_REQUEST,
            };
            Fail::new(
                status,
                format!("the multipart body is broken: {}", e.body_text()),
                form,
            )
        };
        let mut file = None;
        while let Some(mut field) = mp.next_field().await.map_err(broken)? {
            let wanted = field.name() == Some("file") && file.is_none();
            let mut buf = Vec::new();
            while let Some(chunk) = field.chunk().await.map_err(broken)? {
                if wanted {
                    if buf.len() + chunk.len() > max {
                        return Err(too_large());
                    }
                    buf.extend_from_slice(&chunk);
                }
            }
            if wanted {
                file = Some(Bytes::from(buf));
            }
        }
        return file.ok_or_else(|| {
            Fail::new(
                StatusCode::BAD_REQUEST,
                "no `file` part in the multipart form (send it as `curl -F file=@sbc-bench.log URL`)",
                form,
            )
        });
    }
    let allowed = ct.is_empty()
        || ct.starts_with("application/json")
        || ct.starts_with("text/plain")
        || ct.starts_with("application/octet-stream");
    if !allowed {
        return Err(Fail::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send a multipart form with a `file` part, a run JSON (application/json) or a log (text/plain)",
            form,
        ));
    }
    let body = Bytes::from_request(req, &()).await.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large()
        } else {
            Fail::new(
                StatusCode::BAD_REQUEST,
                format!("the body broke off: {}", e.body_text()),
                form,
            )
        }
    })?;
    if body.len() > max {
        return Err(too_large());
    }
    Ok(body)
}

/// `POST /`, `/upload` (multipart, as `share` sends) and `/api/v1/results` (JSON answer).
async fn upload(State(app): State<Arc<App>>, headers: HeaderMap, req: Request) -> Response {
    let json = req.uri().path().starts_with("/api/")
        || headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("application/json"));
    let form = if json { Form::Json } else { Form::Text };
    match store_upload(&app, req, form).await {
        Ok((stored, status, checks)) => {
            let url = format!("{}results/{}.html", app.cfg.public_url, stored.id());
            let code = match stored {
                Stored::Created(_) => StatusCode::CREATED,
                _ => StatusCode::OK,
            };
            let mut r = if json {
                let body = serde_json::json!({
                    "schema": "sbc-bench-hub-upload",
                    "schema_version": 1,
                    "id": stored.id(),
                    "url": url,
                    "outcome": stored.word(),
                    "status": status.as_str(),
                    "checks": checks,
                });
                (
                    code,
                    [(header::CONTENT_TYPE, "application/json")],
                    body.to_string(),
                )
                    .into_response()
            } else {
                (
                    code,
                    [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                    format!("{url}\n"),
                )
                    .into_response()
            };
            if let Ok(v) = HeaderValue::from_str(&url) {
                r.headers_mut().insert(header::LOCATION, v);
            }
            r
        }
        Err(f) => f.into_response(),
    }
}

type Upload = (Stored, Status, Vec<crate::accept::Check>);

async fn store_upload(app: &Arc<App>, req: Request, form: Form) -> Result<Upload, Fail> {
    let _slot = app
        .upload_slots
        .acquire()
        .await
        .map_err(|_| Fail::new(StatusCode::SERVICE_UNAVAILABLE, "stopping", form))?;
    let bytes = upload_bytes(app, req, form).await?;
    let app2 = app.clone();
    let r = tokio::task::spawn_blocking(move || -> Result<Upload, Fail> {
        let doc = ingest::read_document(&bytes).map_err(|e| {
            let status = match e {
                ingest::Rejection::Empty => StatusCode::BAD_REQUEST,
                _ => StatusCode::UNPROCESSABLE_ENTITY,
            };
            Fail::new(status, e.to_string(), form)
        })?;
        let stored = store::insert(&app2.db, &doc, &store::Curation::default()).map_err(|e| match e {
            StoreError::Conflict { id } => Fail::new(
                StatusCode::CONFLICT,
                format!(
                    "{}results/{id}.html already holds this run (the same device, start time and kernel) with other figures: not stored",
                    app2.cfg.public_url
                ),
                form,
            ),
            StoreError::Db(e) => Fail::db(e, form),
        })?;
        Ok((stored, doc.status, doc.checks))
    })
    .await;
    match r {
        Ok(r) => r,
        Err(e) => {
            eprintln!("sbc-bench-hub: an upload's worker failed: {e}");
            Err(Fail::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal error",
                form,
            ))
        }
    }
}

/// Compare two secrets in time that does not depend on where they differ.
fn same_secret(a: &str, b: &str) -> bool {
    use sha2::{Digest, Sha256};
    let (x, y) = (Sha256::digest(a.as_bytes()), Sha256::digest(b.as_bytes()));
    x.iter()
        .zip(y.iter())
        .fold(0u8, |acc, (p, q)| acc | (p ^ q))
        == 0
}

/// `POST /admin/results/ID/{hide,unhide,retag,delete}` with `Authorization: Bearer TOKEN`;
/// `retag` takes a form body `status=verified|warnings|not-comparable|auto&reason=…`.
async fn moderate(
    State(app): State<Arc<App>>,
    Path((id, action)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, Fail> {
    let form = Form::Text;
    let Some(token) = &app.cfg.admin_token else {
        return Err(Fail::new(
            StatusCode::FORBIDDEN,
            "moderation is off: the hub has no admin token",
            form,
        ));
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if !same_secret(given.trim(), token) {
        return Err(Fail::new(
            StatusCode::UNAUTHORIZED,
            "a valid admin token is needed (Authorization: Bearer …)",
            form,
        ));
    }
    if !store::valid_id(&id) {
        return Err(Fail::not_found(form));
    }
    let m = match action.as_str() {
        "hide" => Moderation::Hide,
        "unhide" => Moderation::Unhide,
        "delete" => Moderation::Delete,
        "retag" => {
            let fields: Vec<(String, String)> = serde_urlencoded::from_bytes(&body)
                .map_err(|e| Fail::new(StatusCode::BAD_REQUEST, format!("retag: {e}"), form))?;
            let get = |k: &str| {
                fields
                    .iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.trim().to_string())
            };
            let reason = get("reason").filter(|r| !r.is_empty()).ok_or_else(|| {
                Fail::new(StatusCode::BAD_REQUEST, "retag needs a reason=…", form)
            })?;
            let status = match get("status").as_deref() {
                Some("auto") => None,
                Some(s) => Some(Status::from_word(s).ok_or_else(|| {
                    Fail::new(
                        StatusCode::BAD_REQUEST,
                        "status is verified, warnings, not-comparable or auto",
                        form,
                    )
                })?),
                None => {
                    return Err(Fail::new(
                        StatusCode::BAD_REQUEST,
                        "retag needs a status=…",
                        form,
                    ));
                }
            };
            Moderation::Retag(status, reason.chars().take(500).collect())
        }
        _ => return Err(Fail::not_found(form)),
    };
    let app2 = app.clone();
    let done = blocking(form, move || store::moderate(&app2.db, &id, &m)).await?;
    if !done {
        return Err(Fail::not_found(form));
    }
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "done\n",
    )
        .into_response())
}

/// `id.ext` of a path segment, the id checked and the extension one of `exts`.
pub fn split_file<'a>(file: &'a str, exts: &[&str]) -> Option<(&'a str, &'a str)> {
    let (id, ext) = file.rsplit_once('.')?;
    (store::valid_id(id) && exts.contains(&ext)).then_some((id, ext))
}

/// The query of a table request, read into a filter and an order.
pub fn table_query(q: &[(String, String)], all: bool, form: Form) -> Result<(Filter, Order), Fail> {
    let bad = |m: String| Fail::new(StatusCode::BAD_REQUEST, m, form);
    let mut f = Filter::default();
    let mut o = Order::default();
    let mut page = 1u64;
    let mut dir: Option<bool> = None;
    let text = |v: &str| -> Option<String> {
        let v = v.trim();
        (!v.is_empty()).then(|| v.chars().take(100).collect())
    };
    for (k, v) in q {
        match k.as_str() {
            "status" => {
                for w in v.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                    if w == "all" {
                        f.statuses = Status::ALL.to_vec();
                        continue;
                    }
                    let s =
                        Status::from_word(w).ok_or_else(|| bad(format!("unknown status {w:?}")))?;
                    if !f.statuses.contains(&s) {
                        f.statuses.push(s);
                    }
                }
            }
            "soc" => f.soc = text(v),
            "core" => f.core_type = text(v),
            "arch" => f.arch = text(v),
            "kernel" => f.kernel = text(v),
            "distro" => f.distro = text(v),
            "since" | "until" => {
                let d = text(v);
                if let Some(d) = &d {
                    if chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").is_err() {
                        return Err(bad(format!("{k} is a day, YYYY-MM-DD: {d:?}")));
                    }
                }
                if k == "since" {
                    f.since = d
                } else {
                    f.until = d
                }
            }
            "sort" => {
                o.column = store::column(v).ok_or_else(|| bad(format!("cannot sort by {v:?}")))?;
            }
            "dir" => {
                dir = Some(match v.as_str() {
                    "asc" => false,
                    "desc" => true,
                    _ => return Err(bad("dir is asc or desc".into())),
                });
            }
            "page" => {
                page = v
                    .parse()
                    .ok()
                    .filter(|p| (1..=1_000_000).contains(p))
                    .ok_or_else(|| bad("page is a number from 1".into()))?;
            }
            "limit" => {
                o.limit = v
                    .parse()
                    .ok()
                    .filter(|l| (1..=1000).contains(l))
                    .ok_or_else(|| bad("limit is 1 to 1000".into()))?;
            }
            _ => {}
        }
    }
    if all && f.statuses.is_empty() {
        f.statuses = Status::ALL.to_vec();
    }
    o.descending = dir.unwrap_or(false);
    o.offset = (page - 1) * o.limit;
    Ok((f, o))
}

/// The query string as pairs (repeated keys kept); a malformed one is a 400.
pub fn query_pairs(q: Option<&str>, form: Form) -> Result<Vec<(String, String)>, Fail> {
    let q = q.unwrap_or("");
    if q.len() > 4096 {
        return Err(Fail::new(
            StatusCode::BAD_REQUEST,
            "the query is too long",
            form,
        ));
    }
    serde_urlencoded::from_str(q)
        .map_err(|e| Fail::new(StatusCode::BAD_REQUEST, format!("bad query: {e}"), form))
}

/// The documents a result is served as.
pub fn doc_kind(ext: &str) -> Option<DocKind> {
    match ext {
        "txt" => Some(DocKind::Log),
        "json" => Some(DocKind::RunJson),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_forms() {
        assert_eq!(
            split_file("87lq.html", &["html", "txt"]),
            Some(("87lq", "html"))
        );
        assert_eq!(split_file("../x.html", &["html"]), None);
        assert_eq!(split_file("87lq.exe", &["html"]), None);
        assert_eq!(split_file("87lq", &["html"]), None);
        assert_eq!(form_of("/api/v1/results.json"), Form::Json);
        assert_eq!(form_of("/results/x.txt"), Form::Text);
        assert_eq!(form_of("/soc/rk3588.html"), Form::Html);
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
    }

    #[test]
    fn table_queries_are_checked() {
        let q = |s: &str| query_pairs(Some(s), Form::Html).unwrap();
        let (f, o) = table_query(
            &q("status=verified,warnings&soc=RK3588&sort=aes&dir=desc&page=2"),
            false,
            Form::Html,
        )
        .unwrap();
        assert_eq!(f.statuses, [Status::Verified, Status::Warnings]);
        assert_eq!(f.soc.as_deref(), Some("RK3588"));
        assert_eq!((o.column.key, o.descending, o.offset), ("aes", true, 100));
        for bad in [
            "sort=nope",
            "dir=up",
            "page=0",
            "page=x",
            "status=gold",
            "since=yesterday",
            "limit=5000",
        ] {
            assert!(table_query(&q(bad), false, Form::Html).is_err(), "{bad}");
        }
        let (f, _) = table_query(&[], true, Form::Html).unwrap();
        assert_eq!(f.statuses.len(), 3);
    }
}
