//! The pages, rendered from the database: pure functions (database in, HTML text out) that
//! both the live hub ([`crate::web`]'s routes below) and the static export
//! ([`crate::site`]) call, so a mirror holds the same pages the hub serves.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::accept::Status;
use crate::compare;
use crate::db::{Db, DbError};
use crate::history;
use crate::ingest::DocKind;
use crate::pages::{self, Choices, Ctx};
use crate::report;
use crate::resultsmd;
use crate::store::{self, Facet, Filter, Full, Order, Summary};
use crate::web::{App, Fail, Form, blocking, doc_kind, query_pairs, split_file, table_query};

/// The filter form's choices and the tag counts.
pub fn choices(db: &Db) -> Result<Choices, DbError> {
    let all = Filter {
        statuses: Status::ALL.to_vec(),
        ..Filter::default()
    };
    Ok(Choices {
        socs: store::facet(db, Facet::Soc, &all)?,
        archs: store::facet(db, Facet::Arch, &all)?,
        kernels: store::facet(db, Facet::Kernel, &all)?,
        counts: store::counts(db)?,
    })
}

/// The table page.
pub fn table_html(
    db: &Db,
    ctx: Ctx<'_>,
    f: &Filter,
    o: &Order,
    ch: &Choices,
) -> Result<String, DbError> {
    let (rows, total) = store::list(db, f, o)?;
    Ok(pages::table_page(ctx, &rows, total, f, o, ch).into_string())
}

/// How long the filter form's choices (the SoCs, kernels and tags with their counts) are
/// kept in a process before they are counted again: counting them reads every row's
/// entry (0.2 s at 100,000 results on SQLite), and a count a few seconds old misleads
/// nobody. Indexes made for the count alone were tried and dropped: SQLite then read the
/// table's page through one of them and sorted every row (0.15–0.6 s a page, where the
/// listing index takes 0.1 ms).
pub const CHOICES_TTL: std::time::Duration = std::time::Duration::from_secs(15);

/// The choices, counted at most every [`CHOICES_TTL`] in this process, and by one request
/// at a time: while one counts, the others show the last count (or, before the first,
/// wait for it). Counting them on every request that found them old made 200 readers of
/// a hub with 100,000 results count them 200 times at once, and no page was answered
/// within 20 s (scripts/hub-bench.sh, docs/HUB.md).
pub fn cached_choices(app: &App) -> Result<std::sync::Arc<Choices>, DbError> {
    use std::sync::{PoisonError, TryLockError};
    let cached = || {
        app.choices
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    };
    let fresh = |at: std::time::Instant| at.elapsed() < CHOICES_TTL;
    let last = match cached() {
        Some((at, ch)) if fresh(at) => return Ok(ch),
        other => other.map(|(_, ch)| ch),
    };
    let _counting = match (app.choices_fill.try_lock(), last) {
        (Ok(g), _) => g,
        (Err(TryLockError::Poisoned(p)), _) => p.into_inner(),
        (Err(TryLockError::WouldBlock), Some(ch)) => return Ok(ch),
        (Err(TryLockError::WouldBlock), None) => app
            .choices_fill
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    };
    // Counted by another request while this one waited for its turn.
    if let Some((_, ch)) = cached().filter(|(at, _)| fresh(*at)) {
        return Ok(ch);
    }
    let ch = std::sync::Arc::new(choices(&app.db)?);
    *app.choices.lock().unwrap_or_else(PoisonError::into_inner) =
        Some((std::time::Instant::now(), ch.clone()));
    Ok(ch)
}

/// How many of the hub's results of its SoC a report sets a result beside (the best by
/// 7-Zip multi-threaded).
pub const PEERS: u64 = 40;

/// The results of the same SoC a report sets a result beside.
fn peers(db: &Db, s: &Summary) -> Result<Vec<Summary>, DbError> {
    let Some(slug) = &s.soc_slug else {
        return Ok(Vec::new());
    };
    let f = Filter {
        statuses: vec![Status::Verified, Status::Warnings],
        soc_slug: Some(slug.clone()),
        ..Filter::default()
    };
    let o = Order {
        column: store::column("7zip-multi").unwrap_or(&store::COLUMNS[0]),
        descending: true,
        offset: 0,
        limit: PEERS,
    };
    Ok(store::list(db, &f, &o)?.0)
}

/// The page of one result (hidden ones too: the caller decides).
pub fn result_html(db: &Db, ctx: Ctx<'_>, full: &Full) -> Result<String, DbError> {
    let json = if full
        .documents
        .iter()
        .any(|d| d.kind == DocKind::RunJson.as_str())
    {
        store::document(db, &full.summary.id, DocKind::RunJson)?
    } else {
        None
    };
    let peers = peers(db, &full.summary)?;
    let data = report::report_data(full, json.as_deref(), &peers);
    let body = sbc_bench::report::page::html::body(&data);
    Ok(pages::result_page(ctx, full, &body).into_string())
}

/// The most results a history page and its charts are drawn from: the latest runs.
pub const HISTORY: u64 = 2000;

/// The results of a SoC or a device (the latest [`HISTORY`]), every tag, hidden ones left
/// out, oldest first.
pub fn history_rows(
    db: &Db,
    soc: Option<&str>,
    device: Option<&str>,
) -> Result<Vec<Summary>, DbError> {
    let f = Filter {
        statuses: Status::ALL.to_vec(),
        soc_slug: soc.map(str::to_string),
        device_slug: device.map(str::to_string),
        ..Filter::default()
    };
    let o = Order {
        column: store::column("date").unwrap_or(&store::COLUMNS[0]),
        descending: true,
        offset: 0,
        limit: HISTORY,
    };
    let mut rows = store::list(db, &f, &o)?.0;
    rows.sort_by(|a, b| a.run_date.cmp(&b.run_date).then(a.id.cmp(&b.id)));
    Ok(rows)
}

/// A SoC's page (`None`: no such SoC).
pub fn soc_html(db: &Db, ctx: Ctx<'_>, slug: &str) -> Result<Option<String>, DbError> {
    let rows = history_rows(db, Some(slug), None)?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let name = first.soc.clone().unwrap_or_default();
    let figures = history::figures(&rows);
    let regressions = history::regressions(&rows);
    Ok(Some(
        pages::history_page(
            ctx,
            &format!("SoC {name}"),
            &name,
            &rows,
            &figures,
            &regressions,
            &[],
        )
        .into_string(),
    ))
}

/// A device's page (`None`: no such device).
pub fn device_html(db: &Db, ctx: Ctx<'_>, slug: &str) -> Result<Option<String>, DbError> {
    let rows = history_rows(db, None, Some(slug))?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let name = first.device.clone();
    let figures = history::figures(&rows);
    let regressions = history::regressions(&rows);
    let reviews: Vec<store::Review> = store::reviews(db)?
        .into_iter()
        .filter(|r| {
            r.result_id
                .as_ref()
                .is_some_and(|id| rows.iter().any(|s| &s.id == id))
        })
        .collect();
    Ok(Some(
        pages::history_page(ctx, &name, &name, &rows, &figures, &regressions, &reviews)
            .into_string(),
    ))
}

/// The SoCs or devices with results.
pub fn index_html(db: &Db, ctx: Ctx<'_>, facet: Facet) -> Result<String, DbError> {
    let all = Filter {
        statuses: Status::ALL.to_vec(),
        ..Filter::default()
    };
    let items = store::facet(db, facet, &all)?;
    let (title, dir) = match facet {
        Facet::Device => ("Devices", "device"),
        _ => ("SoCs", "soc"),
    };
    Ok(pages::index_page(ctx, title, dir, &items).into_string())
}

/// `/Results.md`: the verified results.
pub fn results_md_text(db: &Db) -> Result<String, DbError> {
    Ok(resultsmd::table(&store::all(db, &Filter::default())?))
}

fn html(s: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], s).into_response()
}

fn ctx(root: &str) -> Ctx<'_> {
    Ctx {
        root,
        static_site: false,
    }
}

/// `GET /` and `/index.html`.
pub async fn table(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Result<Response, Fail> {
    let (f, o) = table_query(&query_pairs(q.as_deref(), Form::Html)?, false, Form::Html)?;
    blocking(Form::Html, move || {
        table_html(&app.db, ctx(""), &f, &o, &*cached_choices(&app)?)
    })
    .await
    .map(html)
}

/// `GET /all.html`: every tag.
pub async fn table_all(
    State(app): State<Arc<App>>,
    RawQuery(q): RawQuery,
) -> Result<Response, Fail> {
    let (f, o) = table_query(&query_pairs(q.as_deref(), Form::Html)?, true, Form::Html)?;
    blocking(Form::Html, move || {
        table_html(&app.db, ctx(""), &f, &o, &*cached_choices(&app)?)
    })
    .await
    .map(html)
}

/// `GET /Results.md`.
pub async fn results_md(State(app): State<Arc<App>>) -> Result<Response, Fail> {
    let md = blocking(Form::Text, move || results_md_text(&app.db)).await?;
    Ok(([(header::CONTENT_TYPE, "text/markdown; charset=utf-8")], md).into_response())
}

/// `GET /about.html`.
pub async fn about(State(app): State<Arc<App>>) -> Response {
    html(pages::about_page(ctx(""), &app.cfg.public_url).into_string())
}

/// `GET /socs.html`.
pub async fn socs(State(app): State<Arc<App>>) -> Result<Response, Fail> {
    blocking(Form::Html, move || index_html(&app.db, ctx(""), Facet::Soc))
        .await
        .map(html)
}

/// `GET /devices.html`.
pub async fn devices(State(app): State<Arc<App>>) -> Result<Response, Fail> {
    blocking(Form::Html, move || {
        index_html(&app.db, ctx(""), Facet::Device)
    })
    .await
    .map(html)
}

/// `GET /reviews.html`.
pub async fn reviews(State(app): State<Arc<App>>) -> Result<Response, Fail> {
    blocking(Form::Html, move || {
        Ok(pages::reviews_page(ctx(""), &store::reviews(&app.db)?).into_string())
    })
    .await
    .map(html)
}

fn gone(form: Form) -> Fail {
    Fail::new(
        StatusCode::GONE,
        "this result was hidden by a moderator",
        form,
    )
}

/// `GET /results/ID.html`, `ID.txt` (the log), `ID.json` (the run JSON).
pub async fn result(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
) -> Result<Response, Fail> {
    let form = crate::web::form_of(&format!("/results/{file}"));
    let (id, ext) = split_file(&file, &["html", "txt", "json"])
        .ok_or_else(|| Fail::new(StatusCode::NOT_FOUND, "no such result", form))?;
    let (id, ext) = (id.to_string(), ext.to_string());
    enum Out {
        Page(String),
        Raw(String),
        Missing,
        Hidden,
    }
    let out = blocking(form, move || {
        let Some(full) = store::get(&app.db, &id)? else {
            return Ok(Out::Missing);
        };
        if full.summary.hidden {
            return Ok(Out::Hidden);
        }
        if ext == "html" {
            return Ok(Out::Page(result_html(&app.db, ctx("../"), &full)?));
        }
        let kind = doc_kind(&ext).unwrap_or(DocKind::Log);
        Ok(match store::document(&app.db, &id, kind)? {
            Some(b) => Out::Raw(b),
            None => Out::Missing,
        })
    })
    .await?;
    match out {
        Out::Page(p) => Ok(html(p)),
        Out::Raw(b) => {
            let ct = if file.ends_with(".json") {
                "application/json"
            } else {
                "text/plain; charset=utf-8"
            };
            Ok(([(header::CONTENT_TYPE, ct)], b).into_response())
        }
        Out::Missing => Err(Fail::new(StatusCode::NOT_FOUND, "no such result", form)),
        Out::Hidden => Err(gone(form)),
    }
}

fn slug_of(file: &str) -> Option<String> {
    let (s, ext) = file.rsplit_once('.')?;
    (ext == "html"
        && !s.is_empty()
        && s.len() <= 80
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
    .then(|| s.to_string())
}

/// `GET /soc/SLUG.html`.
pub async fn soc(State(app): State<Arc<App>>, Path(file): Path<String>) -> Result<Response, Fail> {
    let slug = slug_of(&file)
        .ok_or_else(|| Fail::new(StatusCode::NOT_FOUND, "no such SoC", Form::Html))?;
    match blocking(Form::Html, move || soc_html(&app.db, ctx("../"), &slug)).await? {
        Some(p) => Ok(html(p)),
        None => Err(Fail::new(
            StatusCode::NOT_FOUND,
            "no result of such a SoC",
            Form::Html,
        )),
    }
}

/// `GET /device/SLUG.html`.
pub async fn device(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
) -> Result<Response, Fail> {
    let slug = slug_of(&file)
        .ok_or_else(|| Fail::new(StatusCode::NOT_FOUND, "no such device", Form::Html))?;
    match blocking(Form::Html, move || device_html(&app.db, ctx("../"), &slug)).await? {
        Some(p) => Ok(html(p)),
        None => Err(Fail::new(
            StatusCode::NOT_FOUND,
            "no result of such a device",
            Form::Html,
        )),
    }
}

/// `GET /reviews/SLUG.html`.
pub async fn review(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
) -> Result<Response, Fail> {
    let slug = slug_of(&file)
        .ok_or_else(|| Fail::new(StatusCode::NOT_FOUND, "no such review", Form::Html))?;
    let r = blocking(Form::Html, move || store::review(&app.db, &slug)).await?;
    match r {
        Some(r) => Ok(html(pages::review_page(ctx("../"), &r).into_string())),
        None => Err(Fail::new(
            StatusCode::NOT_FOUND,
            "no such review",
            Form::Html,
        )),
    }
}

/// The ids a compare request names (`ids=a,b` and `id=a&id=b`), 2 to 4, each valid.
pub fn compare_ids(q: &[(String, String)], form: Form) -> Result<Vec<String>, Fail> {
    let mut ids: Vec<String> = Vec::new();
    for (k, v) in q {
        if k == "id" || k == "ids" {
            for id in v.split([',', ' ']).map(str::trim).filter(|s| !s.is_empty()) {
                if !store::valid_id(id) {
                    return Err(Fail::new(
                        StatusCode::BAD_REQUEST,
                        format!("not a result id: {id:?}"),
                        form,
                    ));
                }
                if !ids.iter().any(|x| x == id) {
                    ids.push(id.to_string());
                }
            }
        }
    }
    if !(2..=compare::MAX).contains(&ids.len()) {
        return Err(Fail::new(
            StatusCode::BAD_REQUEST,
            format!(
                "compare takes 2 to {} result ids, {} given",
                compare::MAX,
                ids.len()
            ),
            form,
        ));
    }
    Ok(ids)
}

/// The results of a comparison, each found and visible.
pub fn compare_results(db: &Db, ids: &[String]) -> Result<Result<Vec<Full>, String>, DbError> {
    let mut out = Vec::new();
    for id in ids {
        match store::get(db, id)? {
            Some(f) if !f.summary.hidden => out.push(f),
            _ => return Ok(Err(id.clone())),
        }
    }
    Ok(Ok(out))
}

/// `GET /compare.html?ids=a,b`.
pub async fn compare(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Result<Response, Fail> {
    let ids = compare_ids(&query_pairs(q.as_deref(), Form::Html)?, Form::Html)?;
    let r = blocking(Form::Html, move || compare_results(&app.db, &ids)).await?;
    match r {
        Ok(results) => {
            let c = compare::compare(&results);
            Ok(html(
                pages::compare_page(ctx(""), &results, &c).into_string(),
            ))
        }
        Err(id) => Err(Fail::new(
            StatusCode::NOT_FOUND,
            format!("no result {id}"),
            Form::Html,
        )),
    }
}
