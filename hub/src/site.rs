//! `sbc-bench-hub export-site DIR`: the whole site as static files — the pages the hub
//! serves (the same renderers), Results.md, the JSON API's documents, the exports and
//! every raw document — so a mirror can live in a git repository or any object store and
//! outlive the hub. Every link is relative and every file name is made from a checked id
//! or slug; the directory must be new or empty (nothing is overwritten).

use std::path::{Path, PathBuf};

use crate::accept::Status;
use crate::api;
use crate::db::{Db, DbError};
use crate::ingest::DocKind;
use crate::pages::{self, Ctx};
use crate::store::{self, COLUMNS, Facet, Filter, Order};
use crate::views;

/// Rows per static table page.
pub const PAGE_ROWS: u64 = 1000;

/// What was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    pub files: usize,
    pub bytes: u64,
}

struct Out {
    dir: PathBuf,
    w: Written,
}

impl Out {
    fn put(&mut self, rel: &str, text: &str) -> Result<(), DbError> {
        // Names are ours (checked ids and slugs); refuse anything else outright.
        if rel
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..")
        {
            return Err(DbError::Other(format!("refusing the file name {rel:?}")));
        }
        let path = self.dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| DbError::Other(format!("{}: {e}", parent.display())))?;
        }
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| DbError::Other(format!("{}: {e}", path.display())))?;
        use std::io::Write;
        f.write_all(text.as_bytes())
            .map_err(|e| DbError::Other(format!("{}: {e}", path.display())))?;
        self.w.files += 1;
        self.w.bytes += text.len() as u64;
        Ok(())
    }
}

fn ctx(root: &str) -> Ctx<'_> {
    Ctx {
        root,
        static_site: true,
    }
}

/// Write the site into `dir` (created; it must not hold anything yet).
pub fn export(db: &Db, dir: &Path, public_url: &str) -> Result<Written, DbError> {
    if dir.exists() {
        let empty = std::fs::read_dir(dir)
            .map_err(|e| DbError::Other(format!("{}: {e}", dir.display())))?
            .next()
            .is_none();
        if !empty {
            return Err(DbError::Other(format!(
                "{} is not empty: export into a new directory (nothing is overwritten)",
                dir.display()
            )));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| DbError::Other(format!("{}: {e}", dir.display())))?;
    let mut o = Out {
        dir: dir.to_path_buf(),
        w: Written::default(),
    };
    o.put("hub.css", &pages::stylesheet())?;
    o.put(
        "about.html",
        &pages::about_page(ctx(""), public_url).into_string(),
    )?;
    o.put("Results.md", &views::results_md_text(db)?)?;
    tables(db, &mut o)?;
    let rows = api::export_rows(db)?;
    o.put("export/results.csv", &api::csv_text(&rows)?)?;
    o.put("export/results.json", &pretty(&api::export_doc(&rows)))?;
    let verified = store::all(db, &Filter::default())?;
    let all_order = Order {
        limit: verified.len() as u64,
        ..Order::default()
    };
    o.put(
        "api/v1/results.json",
        &pretty(&api::list_doc(&verified, verified.len() as u64, &all_order)),
    )?;
    for s in &rows {
        let Some(full) = store::get(db, &s.id)? else {
            continue;
        };
        o.put(
            &format!("results/{}.html", s.id),
            &views::result_html(db, ctx("../"), &full)?,
        )?;
        o.put(
            &format!("api/v1/results/{}.json", s.id),
            &pretty(&api::result_doc(&full)),
        )?;
        for kind in [DocKind::Log, DocKind::RunJson] {
            if let Some(body) = store::document(db, &s.id, kind)? {
                o.put(&format!("results/{}.{}", s.id, kind.extension()), &body)?;
            }
        }
    }
    for (facet, dir, index) in [
        (Facet::Soc, "soc", "socs"),
        (Facet::Device, "device", "devices"),
    ] {
        o.put(
            &format!("{index}.html"),
            &views::index_html(db, ctx(""), facet)?,
        )?;
        o.put(
            &format!("api/v1/{index}.json"),
            &pretty(&api::facet_doc(db, facet)?),
        )?;
        let all = Filter {
            statuses: Status::ALL.to_vec(),
            ..Filter::default()
        };
        for (name, slug, _) in store::facet(db, facet, &all)? {
            let (page, rows) = match facet {
                Facet::Soc => (
                    views::soc_html(db, ctx("../"), &slug)?,
                    views::history_rows(db, Some(&slug), None)?,
                ),
                _ => (
                    views::device_html(db, ctx("../"), &slug)?,
                    views::history_rows(db, None, Some(&slug))?,
                ),
            };
            if let Some(page) = page {
                o.put(&format!("{dir}/{slug}.html"), &page)?;
                o.put(
                    &format!("api/v1/{dir}/{slug}.json"),
                    &pretty(&api::history_doc(dir, &name, &rows)),
                )?;
            }
        }
    }
    let reviews = store::reviews(db)?;
    o.put(
        "reviews.html",
        &pages::reviews_page(ctx(""), &reviews).into_string(),
    )?;
    for r in &reviews {
        o.put(
            &format!("reviews/{}.html", r.slug),
            &pages::review_page(ctx("../"), r).into_string(),
        )?;
    }
    Ok(o.w)
}

/// The table pages: the verified results and every result, in pages of [`PAGE_ROWS`];
/// and for each column and direction the first page sorted by it.
fn tables(db: &Db, o: &mut Out) -> Result<(), DbError> {
    let ch = views::choices(db)?;
    for (name, f) in [
        ("index", Filter::default()),
        (
            "all",
            Filter {
                statuses: Status::ALL.to_vec(),
                ..Filter::default()
            },
        ),
    ] {
        let mut page = 0u64;
        loop {
            let ord = Order {
                offset: page * PAGE_ROWS,
                limit: PAGE_ROWS,
                ..Order::default()
            };
            let (rows, total) = store::list(db, &f, &ord)?;
            let file = if page == 0 {
                format!("{name}.html")
            } else {
                format!("{name}-{}.html", page + 1)
            };
            o.put(
                &file,
                &pages::table_page(ctx(""), &rows, total, &f, &ord, &ch).into_string(),
            )?;
            page += 1;
            if page * PAGE_ROWS >= total {
                break;
            }
        }
    }
    for c in COLUMNS {
        for desc in [false, true] {
            let ord = Order {
                column: c,
                descending: desc,
                offset: 0,
                limit: PAGE_ROWS,
            };
            let (rows, total) = store::list(db, &Filter::default(), &ord)?;
            let file = format!("sort/{}-{}.html", c.key, if desc { "desc" } else { "asc" });
            o.put(
                &file,
                &pages::table_page(ctx("../"), &rows, total, &Filter::default(), &ord, &ch)
                    .into_string(),
            )?;
        }
    }
    Ok(())
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}
