//! `sbc-bench-hub import PATH…`: logs, run JSON files and reviews loaded as uploads are
//! (the same reader, redaction and checks), each file in its own transaction. A log whose
//! name is linked from the published Results.md (`results/87lq.txt`) keeps that name as its
//! id and the maintainer's device, clock and distro cells; the maintainer's acceptance is
//! recorded as a moderator's tag, beside what the hub's own checks say.

use std::path::{Path, PathBuf};

use crate::accept::Status;
use crate::db::{Db, DbError};
use crate::ingest;
use crate::store::{self, Curation, Review, StoreError, Stored};

/// The published table's cells for one log, as written (bold marks, `<br />` kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedRow {
    /// The log's name in the corpus (`87lq`).
    pub id: String,
    /// The whole first cell (`[AAEON BOXER-8654AI (Orin NX)](results/87lq.txt)`).
    pub label_md: String,
    /// The link's text, readable (`AAEON BOXER-8654AI (Orin NX)`).
    pub label: String,
    pub clock_md: String,
    pub distro_md: String,
    /// The whole line.
    pub line: String,
}

/// The rows of a Results.md table that link a log (`results/ID.txt`).
pub fn published_rows(md: &str) -> Vec<PublishedRow> {
    let mut out = Vec::new();
    for line in md.lines() {
        let t = line.trim();
        let Some(inner) = t.strip_prefix('|').and_then(|x| x.strip_suffix('|')) else {
            continue;
        };
        let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
        if cells.len() < 10 {
            continue;
        }
        let first = cells[0];
        let Some((label, link)) = first.strip_prefix('[').and_then(|x| x.split_once("](")) else {
            continue;
        };
        let target = link.trim_end_matches(')').trim();
        let Some(id) = target
            .strip_prefix("results/")
            .and_then(|x| x.strip_suffix(".txt"))
        else {
            continue;
        };
        if !store::valid_id(id) {
            continue;
        }
        out.push(PublishedRow {
            id: id.to_string(),
            label_md: first.to_string(),
            label: label.replace("<br />", " ").replace("**", ""),
            clock_md: cells[1].to_string(),
            distro_md: cells[3].to_string(),
            line: t.to_string(),
        });
    }
    out
}

/// How an import went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub created: usize,
    pub duplicate: usize,
    pub same_run: usize,
    pub not_results: usize,
    pub conflicts: usize,
    pub unreadable: usize,
    pub reviews: usize,
}

/// The files a path names: itself, or the regular files below a directory (two levels,
/// symbolic links not followed), sorted.
pub fn files(path: &Path) -> Result<Vec<PathBuf>, String> {
    fn walk(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let rd = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_file() {
                out.push(e.path());
            } else if ft.is_dir() && depth < 2 {
                walk(&e.path(), depth + 1, out)?;
            }
        }
        Ok(())
    }
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    if meta.is_dir() {
        walk(path, 0, &mut out)?;
    } else if meta.is_file() {
        out.push(path.to_path_buf());
    } else {
        return Err(format!(
            "{}: not a regular file or directory",
            path.display()
        ));
    }
    out.sort();
    Ok(out)
}

/// The largest file read.
const MAX_FILE: u64 = 16 << 20;

/// A file to import: opened without blocking (a FIFO is refused, not waited on), regular
/// files only, at most [`MAX_FILE`] bytes, through the board tool's one open.
fn read(path: &Path) -> Result<Vec<u8>, String> {
    use sbc_bench::files::read as files;
    files::read_limited(path, MAX_FILE).map_err(|e| {
        if files::not_regular(&e).is_some() {
            format!("{}: not a regular file", path.display())
        } else if files::too_large(&e) {
            format!("{}: larger than {} MiB", path.display(), MAX_FILE >> 20)
        } else {
            format!("{}: {e}", path.display())
        }
    })
}

/// A review made by sbc-bench's review mode: `# Title`, then `Tested with sbc-bench …`.
fn as_review(path: &Path, text: &str) -> Option<Review> {
    let title = text.lines().next()?.strip_prefix("# ")?.trim().to_string();
    if !text.contains("Tested with sbc-bench") {
        return None;
    }
    // `Full info: [https://0x0.st/87lq.txt](../87lq.txt)`: the log it reviews.
    let result_id = text.lines().find_map(|l| {
        let rest = l.split("Full info:").nth(1)?;
        let link = rest.split("](").nth(1)?.split(')').next()?;
        let name = link.rsplit('/').next()?.strip_suffix(".txt")?;
        store::valid_id(name).then(|| name.to_string())
    });
    let stem = path.file_stem()?.to_string_lossy();
    Some(Review {
        slug: store::slug(&stem),
        result_id,
        title,
        body: text.to_string(),
    })
}

/// Import `paths`, saying each file's outcome through `say`. A database error stops it.
pub fn import(
    db: &Db,
    paths: &[PathBuf],
    published: &[PublishedRow],
    say: &mut dyn FnMut(&str),
) -> Result<Tally, DbError> {
    let mut t = Tally::default();
    let mut reviews = Vec::new();
    for p in paths {
        let list = match files(p) {
            Ok(l) => l,
            Err(e) => {
                say(&format!("unreadable: {e}"));
                t.unreadable += 1;
                continue;
            }
        };
        for f in list {
            let bytes = match read(&f) {
                Ok(b) => b,
                Err(e) => {
                    say(&format!("unreadable: {e}"));
                    t.unreadable += 1;
                    continue;
                }
            };
            let name = f.display().to_string();
            let text = String::from_utf8_lossy(&bytes);
            if let Some(r) = as_review(&f, &text) {
                reviews.push(r);
                continue;
            }
            let doc = match ingest::read_document(&bytes) {
                Ok(d) => d,
                Err(e) => {
                    say(&format!("not a result: {name}: {e}"));
                    t.not_results += 1;
                    continue;
                }
            };
            let stem = f.file_stem().map(|s| s.to_string_lossy().into_owned());
            let cur = curation(stem.as_deref(), published, doc.status);
            match store::insert(db, &doc, &cur) {
                Ok(Stored::Created(id)) => {
                    t.created += 1;
                    say(&format!(
                        "{id}  {name}: {} ({})",
                        doc.facts.device,
                        doc.status.label()
                    ));
                }
                Ok(Stored::Duplicate(id)) => {
                    t.duplicate += 1;
                    say(&format!("{id}  {name}: stored before"));
                }
                Ok(Stored::SameRun(id)) => {
                    t.same_run += 1;
                    say(&format!("{id}  {name}: another document of a stored run"));
                }
                Err(StoreError::Conflict { id }) => {
                    t.conflicts += 1;
                    say(&format!(
                        "conflict: {name}: {id} holds this run's identity with other figures"
                    ));
                }
                Err(StoreError::Db(e)) => return Err(e),
            }
        }
    }
    // Reviews last: they point at results stored above.
    for r in reviews {
        if store::insert_review(db, &r)? {
            t.reviews += 1;
            say(&format!("review {}: {}", r.slug, r.title));
        }
    }
    Ok(t)
}

/// How a corpus file is stored: under its name, with the published cells and the
/// maintainer's acceptance where Results.md links it.
fn curation(stem: Option<&str>, published: &[PublishedRow], auto: Status) -> Curation {
    let mut c = Curation {
        id: stem.filter(|s| store::valid_id(s)).map(str::to_string),
        ..Curation::default()
    };
    if let Some(p) = stem.and_then(|s| published.iter().find(|p| p.id == s)) {
        c.label_md = Some(p.label_md.clone());
        c.label = Some(p.label.clone());
        c.clock_md = Some(p.clock_md.clone());
        c.distro_md = Some(p.distro_md.clone());
        if auto != Status::Verified {
            c.status = Some((
                Status::Verified,
                "published in sbc-bench's Results.md by its maintainer".to_string(),
            ));
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_rows_keep_their_cells() {
        let rows = published_rows(sbc_bench::results::reference::PUBLISHED);
        assert!(rows.len() > 250, "{}", rows.len());
        let a = &rows[0];
        assert_eq!(a.id, "87lq");
        assert_eq!(
            a.label_md,
            "[AAEON BOXER-8654AI (Orin NX)](results/87lq.txt)"
        );
        assert_eq!(a.label, "AAEON BOXER-8654AI (Orin NX)");
        assert_eq!(a.clock_md, "1730 MHz");
        assert_eq!(a.distro_md, "Jammy arm64");
        let c = rows.iter().find(|r| r.id == "4d1U").unwrap();
        assert_eq!(c.label, "Clearfog A1 (Armada 388)");
        // A link with a blank before its `)`.
        assert!(rows.iter().any(|r| r.id == "fml13v03"));
    }

    #[test]
    fn reviews_name_their_log() {
        let r = as_review(
            Path::new("/x/AAEON BOXER.md"),
            "# AAEON BOXER-8654AI RefKit\n \nTested with sbc-bench v0.9.72 on Sun. Full info: [https://0x0.st/87lq.txt](../87lq.txt)\n",
        )
        .unwrap();
        assert_eq!(r.slug, "aaeon-boxer");
        assert_eq!(r.result_id.as_deref(), Some("87lq"));
        assert_eq!(r.title, "AAEON BOXER-8654AI RefKit");
        assert!(as_review(Path::new("x.md"), "# Title\nno\n").is_none());
    }
}
