//! One name, one meaning (docs/STYLE, "Our own"): every `pub` or `pub(crate)` struct,
//! enum, union, trait and type alias of `src/` has a name no other one has, so a reader who
//! meets `Interval` knows which one it is without looking at the imports. Comments and
//! string literals are blanked first (`layers::blank_comments_and_strings`).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::layers::{blank_comments_and_strings, ident_at, is_ident, rust_files, skip_ws};

/// Names defined more than once today, while they are being renamed. A name listed here
/// does not fail the test; an entry whose name is now defined once (or not at all) does,
/// so the list only shrinks.
const KNOWN_DUPLICATES: &[&str] = &[];

/// One public type definition: its name, kind and where (`src/…:line`).
#[derive(Debug, PartialEq)]
struct Definition {
    name: String,
    kind: String,
    at: String,
}

/// Every `pub`/`pub(crate)` `struct`, `enum`, `union`, `trait` and `type` of one file,
/// `unsafe` traits included; `pub(super)`, `pub(in …)` and private items are not counted.
fn definitions(rel: &str, src: &str) -> Vec<Definition> {
    let clean = blank_comments_and_strings(src);
    let c: Vec<char> = clean.chars().collect();
    let line_of = |pos: usize| c[..pos].iter().filter(|&&ch| ch == '\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let starts = i == 0 || !is_ident(c[i - 1]);
        let (word, end) = ident_at(&c, i);
        if word.is_empty() {
            i += 1;
            continue;
        }
        if starts && word == "pub" {
            if let Some((kind, name, at)) = item_after_pub(&c, end) {
                out.push(Definition {
                    name,
                    kind,
                    at: format!("{rel}:{}", line_of(at)),
                });
            }
        }
        i = end;
    }
    out
}

/// After a `pub` ending at `i`: the item's kind, name and the name's position, when the
/// visibility is `pub` or `pub(crate)` and the item is a type.
fn item_after_pub(c: &[char], i: usize) -> Option<(String, String, usize)> {
    let mut j = skip_ws(c, i);
    if c.get(j) == Some(&'(') {
        let (scope, k) = ident_at(c, skip_ws(c, j + 1));
        let close = skip_ws(c, k);
        if scope != "crate" || c.get(close) != Some(&')') {
            return None;
        }
        j = skip_ws(c, close + 1);
    }
    let (mut kind, mut k) = ident_at(c, j);
    if kind == "unsafe" {
        (kind, k) = ident_at(c, skip_ws(c, k));
    }
    if !matches!(
        kind.as_str(),
        "struct" | "enum" | "union" | "trait" | "type"
    ) {
        return None;
    }
    let at = skip_ws(c, k);
    let (name, _) = ident_at(c, at);
    (!name.is_empty()).then_some((kind, name, at))
}

/// Every definition of `src/`, by name.
fn all_definitions() -> BTreeMap<String, Vec<Definition>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "scanned {} files", files.len());
    let mut by_name: BTreeMap<String, Vec<Definition>> = BTreeMap::new();
    for f in &files {
        let rel = format!("src/{}", f.strip_prefix(&src).unwrap().display());
        for d in definitions(&rel, &fs::read_to_string(f).unwrap()) {
            by_name.entry(d.name.clone()).or_default().push(d);
        }
    }
    by_name
}

#[test]
fn every_public_type_name_is_defined_once() {
    let by_name = all_definitions();
    let duplicated: Vec<(&String, &Vec<Definition>)> =
        by_name.iter().filter(|(_, defs)| defs.len() > 1).collect();
    let bad: Vec<String> = duplicated
        .iter()
        .filter(|(name, _)| !KNOWN_DUPLICATES.contains(&name.as_str()))
        .map(|(name, defs)| {
            let places: Vec<String> = defs
                .iter()
                .map(|d| format!("{} {}", d.kind, d.at))
                .collect();
            format!("`{name}`: {}", places.join(", "))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "public type names defined more than once (rename all but one):\n{}",
        bad.join("\n")
    );
    let stale: Vec<&&str> = KNOWN_DUPLICATES
        .iter()
        .filter(|n| !duplicated.iter().any(|(name, _)| name == *n))
        .collect();
    assert!(
        stale.is_empty(),
        "KNOWN_DUPLICATES entries that are unique now (remove them): {stale:?}"
    );
}

#[test]
fn the_name_scanner_counts_public_types_only() {
    let src = r#"//! pub struct InDocs;
pub struct Plain;
pub(crate) enum Crate { A }
pub(super) struct Super;
pub(in crate::x) struct InPath;
struct Private;
pub unsafe trait Marker {}
pub trait Trait { type Assoc; }
pub type Alias = u32;
pub fn not_a_type() {}
pub(crate) union Both { a: u32 }
const S: &str = "pub struct InString;";
"#;
    let defs: Vec<(String, String, String)> = definitions("src/x.rs", src)
        .into_iter()
        .map(|d| (d.kind, d.name, d.at))
        .collect();
    let want = [
        ("struct", "Plain", "src/x.rs:2"),
        ("enum", "Crate", "src/x.rs:3"),
        ("trait", "Marker", "src/x.rs:7"),
        ("trait", "Trait", "src/x.rs:8"),
        ("type", "Alias", "src/x.rs:9"),
        ("union", "Both", "src/x.rs:11"),
    ]
    .map(|(k, n, a)| (k.to_string(), n.to_string(), a.to_string()));
    assert_eq!(defs, want);
}
