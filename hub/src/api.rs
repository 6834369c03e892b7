//! The JSON API (version 1) and the exports: everything the pages show, as versioned
//! documents (`schema`, `schema_version`; JSON Schemas in docs/schema/hub-*.schema.json).
//! Pure functions build the documents (the static export writes the same ones); the
//! handlers below serve them.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::accept::Status;
use crate::compare;
use crate::db::{Db, DbError};
use crate::history;
use crate::resultsmd;
use crate::store::{self, Facet, Filter, Full, Order, Summary};
use crate::views::{compare_ids, compare_results, history_rows};
use crate::web::{App, Fail, Form, blocking, query_pairs, split_file, table_query};

/// The version of every document below.
pub const VERSION: u32 = 1;

/// One result as the list and the exports give it: its facts, its Results.md row and
/// its links (relative to the site's root).
pub fn summary_json(s: &Summary) -> Value {
    let mut v = serde_json::to_value(s).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("results_md_row".into(), Value::String(resultsmd::row(s)));
        m.insert(
            "page".into(),
            Value::String(format!("results/{}.html", s.id)),
        );
        m.insert(
            "raw".into(),
            Value::String(format!("results/{}.{}", s.id, s.raw_ext())),
        );
    }
    v
}

/// The table (a page of it).
pub fn list_doc(rows: &[Summary], total: u64, o: &Order) -> Value {
    json!({
        "schema": "sbc-bench-hub-results",
        "schema_version": VERSION,
        "total": total,
        "offset": o.offset,
        "limit": o.limit,
        "sort": o.column.key,
        "descending": o.descending,
        "results": rows.iter().map(summary_json).collect::<Vec<_>>(),
    })
}

/// One result with its checks, documents, reviews and the record read from it.
pub fn result_doc(f: &Full) -> Value {
    let mut r = summary_json(&f.summary);
    if let Value::Object(m) = &mut r {
        m.insert(
            "checks".into(),
            serde_json::to_value(&f.checks).unwrap_or(Value::Null),
        );
        m.insert(
            "documents".into(),
            serde_json::to_value(&f.documents).unwrap_or(Value::Null),
        );
        m.insert(
            "reviews".into(),
            serde_json::to_value(&f.reviews).unwrap_or(Value::Null),
        );
        m.insert(
            "record".into(),
            serde_json::to_value(&f.record).unwrap_or(Value::Null),
        );
    }
    json!({
        "schema": "sbc-bench-hub-result",
        "schema_version": VERSION,
        "result": r,
    })
}

/// A SoC's or a device's history.
pub fn history_doc(kind: &str, name: &str, rows: &[Summary]) -> Value {
    json!({
        "schema": "sbc-bench-hub-history",
        "schema_version": VERSION,
        "kind": kind,
        "name": name,
        "results": rows.iter().map(summary_json).collect::<Vec<_>>(),
        "regressions": history::regressions(rows),
    })
}

/// The SoCs or devices with results.
pub fn facet_doc(db: &Db, facet: Facet) -> Result<Value, DbError> {
    let all = Filter {
        statuses: Status::ALL.to_vec(),
        ..Filter::default()
    };
    let (schema, dir) = match facet {
        Facet::Device => ("sbc-bench-hub-devices", "device"),
        _ => ("sbc-bench-hub-socs", "soc"),
    };
    let items: Vec<Value> = store::facet(db, facet, &all)?
        .into_iter()
        .map(|(name, slug, n)| {
            json!({"name": name, "slug": slug, "results": n, "page": format!("{dir}/{slug}.html"), "api": format!("api/v1/{dir}/{slug}.json")})
        })
        .collect();
    Ok(json!({"schema": schema, "schema_version": VERSION, "items": items}))
}

/// Every visible result of every tag (the exports).
pub fn export_rows(db: &Db) -> Result<Vec<Summary>, DbError> {
    store::all(
        db,
        &Filter {
            statuses: Status::ALL.to_vec(),
            ..Filter::default()
        },
    )
}

/// The CSV export: one line per result, the summary's fields.
pub fn csv_text(rows: &[Summary]) -> Result<String, DbError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(|e| DbError::Other(e.to_string()))?;
    }
    let bytes = w.into_inner().map_err(|e| DbError::Other(e.to_string()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The JSON export.
pub fn export_doc(rows: &[Summary]) -> Value {
    json!({
        "schema": "sbc-bench-hub-export",
        "schema_version": VERSION,
        "exported_at": store::now(),
        "results": rows.iter().map(summary_json).collect::<Vec<_>>(),
    })
}

fn json_response(v: &Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::to_string_pretty(v).unwrap_or_default(),
    )
        .into_response()
}

/// `GET /api/v1/results.json`.
pub async fn list(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Result<Response, Fail> {
    let (f, o) = table_query(&query_pairs(q.as_deref(), Form::Json)?, false, Form::Json)?;
    let (rows, total) = blocking(Form::Json, move || store::list(&app.db, &f, &o)).await?;
    Ok(json_response(&list_doc(&rows, total, &o)))
}

/// `GET /api/v1/results/ID.json`.
pub async fn result(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
) -> Result<Response, Fail> {
    let (id, _) = split_file(&file, &["json"])
        .ok_or_else(|| Fail::new(StatusCode::NOT_FOUND, "no such result", Form::Json))?;
    let id = id.to_string();
    let full = blocking(Form::Json, move || store::get(&app.db, &id)).await?;
    match full {
        Some(f) if f.summary.hidden => Err(Fail::new(
            StatusCode::GONE,
            "hidden by a moderator",
            Form::Json,
        )),
        Some(f) => Ok(json_response(&result_doc(&f))),
        None => Err(Fail::new(
            StatusCode::NOT_FOUND,
            "no such result",
            Form::Json,
        )),
    }
}

/// `GET /api/v1/compare.json?ids=a,b`.
pub async fn compare(State(app): State<Arc<App>>, RawQuery(q): RawQuery) -> Result<Response, Fail> {
    let ids = compare_ids(&query_pairs(q.as_deref(), Form::Json)?, Form::Json)?;
    match blocking(Form::Json, move || compare_results(&app.db, &ids)).await? {
        Ok(results) => Ok(json_response(&json!({
            "schema": "sbc-bench-hub-compare",
            "schema_version": VERSION,
            "comparison": compare::compare(&results),
        }))),
        Err(id) => Err(Fail::new(
            StatusCode::NOT_FOUND,
            format!("no result {id}"),
            Form::Json,
        )),
    }
}

/// `GET /api/v1/socs.json`.
pub async fn socs(State(app): State<Arc<App>>) -> Result<Response, Fail> {
    Ok(json_response(
        &blocking(Form::Json, move || facet_doc(&app.db, Facet::Soc)).await?,
    ))
}

/// `GET /api/v1/devices.json`.
pub async fn devices(State(app): State<Arc<App>>) -> Result<Response, Fail> {
    Ok(json_response(
        &blocking(Form::Json, move || facet_doc(&app.db, Facet::Device)).await?,
    ))
}

fn slug_json(file: &str) -> Option<String> {
    let s = file.strip_suffix(".json")?;
    (!s.is_empty()
        && s.len() <= 80
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
    .then(|| s.to_string())
}

async fn history(app: Arc<App>, file: String, soc: bool) -> Result<Response, Fail> {
    let slug = slug_json(&file)
        .ok_or_else(|| Fail::new(StatusCode::NOT_FOUND, "no such page", Form::Json))?;
    let rows = blocking(Form::Json, move || {
        if soc {
            history_rows(&app.db, Some(&slug), None)
        } else {
            history_rows(&app.db, None, Some(&slug))
        }
    })
    .await?;
    let Some(first) = rows.first() else {
        return Err(Fail::new(StatusCode::NOT_FOUND, "no results", Form::Json));
    };
    let (kind, name) = if soc {
        ("soc", first.soc.clone().unwrap_or_default())
    } else {
        ("device", first.device.clone())
    };
    Ok(json_response(&history_doc(kind, &name, &rows)))
}

/// `GET /api/v1/soc/SLUG.json`.
pub async fn soc(State(app): State<Arc<App>>, Path(file): Path<String>) -> Result<Response, Fail> {
    history(app, file, true).await
}

/// `GET /api/v1/device/SLUG.json`.
pub async fn device(
    State(app): State<Arc<App>>,
    Path(file): Path<String>,
) -> Result<Response, Fail> {
    history(app, file, false).await
}

/// `GET /export/results.csv`.
pub async fn export_csv(State(app): State<Arc<App>>) -> Result<Response, Fail> {
    let text = blocking(Form::Json, move || csv_text(&export_rows(&app.db)?)).await?;
    Ok(([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], text).into_response())
}

/// `GET /export/results.json`.
pub async fn export_json(State(app): State<Arc<App>>) -> Result<Response, Fail> {
    let rows = blocking(Form::Json, move || export_rows(&app.db)).await?;
    Ok(json_response(&export_doc(&rows)))
}
