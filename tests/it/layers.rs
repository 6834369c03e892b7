//! The layer order of `docs/ARCHITECTURE.md`, enforced: data flows down, so a folder of
//! `src/` may name `crate::X` only for a layer `X` at its own level or below. Every
//! `src/<folder>/**.rs` and `src/<name>.rs` module is scanned for `use crate::X` (also
//! grouped `use crate::{a::…, b::…}` over several lines) and inline `crate::X::` paths,
//! with comments and string literals blanked out first.

use std::fs;
use std::path::{Path, PathBuf};

/// The layers, bottom first; layers in one entry are at the same level. This table is
/// the one written statement of the order (docs/ARCHITECTURE.md points here).
pub const LAYERS: &[&[&str]] = &[
    &["shutdown", "output", "files"],
    &["sys"],
    &["tune"],
    &["monitor"],
    &["bench"],
    &["record"],
    &["diagnose"],
    &["report"],
    &["results"],
    &["metrics"],
    &["run"],
    &["cli"],
    &["app"],
];

/// Upward imports tolerated while they are being removed (file, imported layer). A
/// violation listed here does not fail the test; an entry that no longer matches does.
/// Empty: every folder respects the order.
const KNOWN_UPWARD: &[(&str, &str)] = &[];

/// Level of a layer (0 = bottom), `None` for names that are not layers (`crate::VERSION`).
fn level(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&layer))
}

/// One `crate::X` reference: the line (1-based) and `X`.
#[derive(Debug, PartialEq)]
struct Reference {
    line: usize,
    layer: String,
}

/// A raw string `r"…"`, `r#"…"#` starting at `i` blanked into `out` (an `r` that starts
/// none copied); returns where the scan goes on.
fn blank_raw_string(c: &[char], mut i: usize, out: &mut String) -> usize {
    let mut j = i + 1;
    while c.get(j) == Some(&'#') {
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        out.push(c[i]);
        return i + 1;
    }
    let hashes = j - i - 1;
    for _ in i..=j {
        out.push(' ');
    }
    i = j + 1;
    while i < c.len() {
        if c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')) {
            for _ in 0..=hashes {
                out.push(' ');
            }
            return i + hashes + 1;
        }
        out.push(if c[i] == '\n' { '\n' } else { ' ' });
        i += 1;
    }
    i
}

/// The source with comments and the contents of string and char literals replaced by
/// spaces (newlines kept, so line numbers stay right).
pub(crate) fn blank_comments_and_strings(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    while i < c.len() {
        let next = c.get(i + 1).copied();
        match c[i] {
            '/' if next == Some('/') => {
                while i < c.len() && c[i] != '\n' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        out.push_str("  ");
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        out.push_str("  ");
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        blank(&mut out, c[i]);
                        i += 1;
                    }
                }
            }
            'r' if matches!(next, Some('"') | Some('#'))
                && !c[..i]
                    .last()
                    .is_some_and(|p| p.is_alphanumeric() || *p == '_') =>
            {
                i = blank_raw_string(&c, i, &mut out);
            }
            '"' => {
                out.push(' ');
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        blank(&mut out, c[i]);
                        i += 1;
                    }
                    if i < c.len() {
                        blank(&mut out, c[i]);
                        i += 1;
                    }
                }
                out.push(' ');
                i += 1;
            }
            '\'' => {
                // A char literal ('"', '\'', '\n'); otherwise a lifetime.
                let end = if next == Some('\\') {
                    (i + 2..c.len()).find(|&k| c[k] == '\'' && k > i + 2)
                } else if c.get(i + 2) == Some(&'\'') {
                    Some(i + 2)
                } else {
                    None
                };
                match end {
                    Some(e) => {
                        for _ in i..=e {
                            out.push(' ');
                        }
                        i = e + 1;
                    }
                    None => {
                        out.push('\'');
                        i += 1;
                    }
                }
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

pub(crate) fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// Skip whitespace from `i`.
pub(crate) fn skip_ws(c: &[char], mut i: usize) -> usize {
    while i < c.len() && c[i].is_whitespace() {
        i += 1;
    }
    i
}

/// Read an identifier at `i`: (identifier, index after it).
pub(crate) fn ident_at(c: &[char], i: usize) -> (String, usize) {
    let mut j = i;
    while j < c.len() && is_ident(c[j]) {
        j += 1;
    }
    (c[i..j].iter().collect(), j)
}

/// The first identifier of every top-level item of the group opening at `open` (`{`):
/// `{a::x, b::{y, z}, c}` → a, b, c with their positions.
fn group_heads(c: &[char], open: usize) -> Vec<(usize, String)> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect_head = true;
    let mut i = open;
    while i < c.len() {
        match c[i] {
            '{' => {
                depth += 1;
                i += 1;
                expect_head = depth == 1;
            }
            '}' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => {
                expect_head = true;
                i += 1;
            }
            ch if expect_head && depth == 1 && is_ident(ch) => {
                let (id, j) = ident_at(c, i);
                heads.push((i, id));
                expect_head = false;
                i = j;
            }
            _ => i += 1,
        }
    }
    heads
}

/// Every `crate::X` in a file (after blanking): `use crate::X…`, `crate::X::…` inline,
/// and each head of `crate::{X::…, Y::…}`.
fn references(src: &str) -> Vec<Reference> {
    let clean = blank_comments_and_strings(src);
    let c: Vec<char> = clean.chars().collect();
    let line_of = |pos: usize| c[..pos].iter().filter(|&&ch| ch == '\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i + 5 <= c.len() {
        let word = c[i..i + 5].iter().collect::<String>() == "crate";
        let starts = i == 0 || !(is_ident(c[i - 1]) || c[i - 1] == '$');
        if !(word && starts) || c.get(i + 5).is_some_and(|&ch| is_ident(ch)) {
            i += 1;
            continue;
        }
        let j = skip_ws(&c, i + 5);
        if c.get(j) != Some(&':') || c.get(j + 1) != Some(&':') {
            i += 5;
            continue;
        }
        let k = skip_ws(&c, j + 2);
        if c.get(k) == Some(&'{') {
            for (pos, id) in group_heads(&c, k) {
                out.push(Reference {
                    line: line_of(pos),
                    layer: id,
                });
            }
        } else if c.get(k).is_some_and(|&ch| is_ident(ch)) {
            let (id, _) = ident_at(&c, k);
            out.push(Reference {
                line: line_of(k),
                layer: id,
            });
        }
        i = k.max(i + 5);
    }
    out
}

/// The layer a source file belongs to: its folder under `src/`, or its own name for
/// `src/<name>.rs`; `None` for the crate roots (`lib.rs`, `main.rs`).
fn layer_of(rel: &Path) -> Option<String> {
    let mut parts = rel.components().map(|p| p.as_os_str().to_string_lossy());
    let first = parts.next()?.into_owned();
    if parts.next().is_some() {
        return Some(first);
    }
    let name = first.strip_suffix(".rs")?;
    (!matches!(name, "lib" | "main")).then(|| name.to_string())
}

/// Upward references of one file: `file:line: <layer> imports <higher layer>`.
fn violations_in(rel: &str, own: &str, src: &str) -> Vec<(String, String)> {
    let Some(own_level) = level(own) else {
        return vec![(
            format!("{rel}: layer `{own}` is not in LAYERS"),
            String::new(),
        )];
    };
    references(src)
        .into_iter()
        .filter(|r| level(&r.layer).is_some_and(|l| l > own_level))
        .map(|r| {
            (
                format!("{rel}:{}: `{own}` uses `crate::{}`", r.line, r.layer),
                r.layer,
            )
        })
        .collect()
}

pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_layer_imports_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "scanned {} files", files.len());
    let mut bad = Vec::new();
    let mut still_known = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let Some(own) = layer_of(rel) else {
            continue;
        };
        let rel_s = format!("src/{}", rel.display());
        let text = fs::read_to_string(f).unwrap();
        for (msg, layer) in violations_in(&rel_s, &own, &text) {
            if KNOWN_UPWARD.contains(&(rel_s.as_str(), layer.as_str())) {
                still_known.push((rel_s.clone(), layer));
            } else {
                bad.push(msg);
            }
        }
    }
    assert!(
        bad.is_empty(),
        "imports against the layer order (see LAYERS in tests/it/layers.rs):\n{}",
        bad.join("\n")
    );
    // An entry of KNOWN_UPWARD that no longer matches anything is stale: remove it.
    let stale: Vec<_> = KNOWN_UPWARD
        .iter()
        .filter(|(f, l)| !still_known.iter().any(|(kf, kl)| kf == f && kl == l))
        .collect();
    assert!(
        stale.is_empty(),
        "KNOWN_UPWARD entries that are fixed now: {stale:?}"
    );
}

#[test]
fn every_folder_of_src_is_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for e in fs::read_dir(&src).unwrap().flatten() {
        let rel = PathBuf::from(e.file_name());
        if let Some(l) = layer_of(&rel) {
            assert!(level(&l).is_some(), "src/{l} is missing from LAYERS");
        }
    }
}

#[test]
fn the_scanner_catches_upward_imports_and_ignores_comments_and_strings() {
    let src = r##"//! Module docs naming crate::app::main.
use crate::sys::root::SysRoot;
use crate::{
    monitor::Recording,
    report::json::JsonFile,
};
use std::fmt;

/* block comment: crate::cli::Cli */
fn f() -> String {
    let _ = crate::run::runner::execute;
    let s = "crate::app::main in a string";
    let r = r#"crate::cli in a raw string"#;
    let c = '"';
    let _ = crate :: record::run::RunReport::default;
    format!("{s}{r}{c}")
}
macro_rules! m { () => { $crate::app::x } }
"##;
    let refs: Vec<(usize, String)> = references(src)
        .into_iter()
        .map(|r| (r.line, r.layer))
        .collect();
    assert_eq!(
        refs,
        [
            (2, "sys".to_string()),
            (4, "monitor".to_string()),
            (5, "report".to_string()),
            (11, "run".to_string()),
            (15, "record".to_string()),
        ]
    );
    let v: Vec<String> = violations_in("src/diagnose/fake.rs", "diagnose", src)
        .into_iter()
        .map(|(m, _)| m)
        .collect();
    assert_eq!(
        v,
        [
            "src/diagnose/fake.rs:5: `diagnose` uses `crate::report`",
            "src/diagnose/fake.rs:11: `diagnose` uses `crate::run`",
        ]
    );
    assert!(violations_in("src/app/x.rs", "app", src).is_empty());
    assert_eq!(
        layer_of(Path::new("shutdown.rs")).as_deref(),
        Some("shutdown")
    );
    assert_eq!(layer_of(Path::new("lib.rs")), None);
    assert_eq!(
        layer_of(Path::new("bench/net/sampler.rs")).as_deref(),
        Some("bench")
    );
}

/// The modules of the folder `layer` of `src/` a file of it names (`crate::run::X…`,
/// `crate::run::{X…}`, and `super::X` in a file directly in the folder), in its code before
/// `#[cfg(test)]`.
fn modules_named(src: &str, layer: &str, direct_child: bool) -> Vec<String> {
    let code = src.split("#[cfg(test)]").next().unwrap_or_default();
    let clean = blank_comments_and_strings(code);
    let c: Vec<char> = clean.chars().collect();
    let mut needles = vec![format!("crate::{layer}::")];
    if direct_child {
        needles.push("super::".to_string());
    }
    let mut out = Vec::new();
    for needle in needles {
        let needle: Vec<char> = needle.chars().collect();
        let mut i = 0;
        while i + needle.len() <= c.len() {
            let starts_word = i == 0 || !is_ident(c[i - 1]);
            if !starts_word || c[i..i + needle.len()] != needle[..] {
                i += 1;
                continue;
            }
            let k = skip_ws(&c, i + needle.len());
            if c.get(k) == Some(&'{') {
                out.extend(group_heads(&c, k).into_iter().map(|(_, id)| id));
            } else {
                out.push(ident_at(&c, k).0);
            }
            i = k.max(i + 1);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The import graph of one folder of `src/`: each module (a file directly in it, or a
/// folder of it counted as one) with the modules of the same folder it names.
fn folder_edges(layer: &str) -> Vec<(String, Vec<String>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(layer);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let mut edges: Vec<(String, Vec<String>)> = Vec::new();
    for f in &files {
        let Ok(rel) = f.strip_prefix(&dir) else {
            continue;
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let direct = parts.len() == 1;
        let name = if direct {
            parts[0].trim_end_matches(".rs").to_string()
        } else {
            parts[0].clone()
        };
        if name == "mod" {
            continue;
        }
        let Ok(text) = fs::read_to_string(f) else {
            continue;
        };
        let named: Vec<String> = modules_named(&text, layer, direct)
            .into_iter()
            .filter(|m| *m != name)
            .collect();
        match edges.iter_mut().find(|(n, _)| *n == name) {
            Some((_, e)) => e.extend(named),
            None => edges.push((name, named)),
        }
    }
    // Keep only the names that are modules of the folder (`super::Foo` may be a type).
    let names: Vec<String> = edges.iter().map(|(n, _)| n.clone()).collect();
    for (_, e) in &mut edges {
        e.retain(|m| names.contains(m));
        e.sort();
        e.dedup();
    }
    edges
}

/// The circles in an import graph, each as `a -> b -> a`.
fn circles_in(edges: &[(String, Vec<String>)]) -> Vec<String> {
    // Depth-first search from every module; a module met again on the path is a circle.
    fn visit(
        m: &str,
        edges: &[(String, Vec<String>)],
        path: &mut Vec<String>,
        done: &mut Vec<String>,
        circles: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|p| p == m) {
            circles.push(format!("{} -> {m}", path[at..].join(" -> ")));
            return;
        }
        if done.iter().any(|d| d == m) {
            return;
        }
        path.push(m.to_string());
        for (_, next) in edges.iter().filter(|(n, _)| n == m) {
            for n in next {
                visit(n, edges, path, done, circles);
            }
        }
        path.pop();
        done.push(m.to_string());
    }
    let mut circles = Vec::new();
    let mut done = Vec::new();
    for (m, _) in edges {
        visit(m, edges, &mut Vec::new(), &mut done, &mut circles);
    }
    circles
}

/// The modules of a folder imported each other in circles (in `run/` the runner named the
/// thermal test and wrap, which named the runner; the plan named the thermal test and the
/// graph, which named the plan; `report::text::info` named the log's topology table, the
/// log named `info`; `sys::cpufreq` named `sys::cpu`'s list parser, `sys::cpu` named
/// cpufreq's policies; openssl's runner named the AES benchmark's `Algorithm`, which
/// named openssl): data and helpers go down, and no folder of `src/` has a circle.
#[test]
fn no_folder_of_src_has_an_import_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut checked = 0;
    for entry in fs::read_dir(&src).unwrap().flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        let layer = entry.file_name().to_string_lossy().into_owned();
        let edges = folder_edges(&layer);
        if layer == "run" {
            assert!(edges.iter().any(|(n, _)| n == "runner"), "{edges:?}");
        }
        checked += edges.len();
        found.extend(
            circles_in(&edges)
                .into_iter()
                .map(|c| format!("{layer}: {c}")),
        );
    }
    assert!(checked > 100, "only {checked} modules found under src/");
    assert!(
        found.is_empty(),
        "import circles in src/:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_finder_finds_a_circle_and_passes_a_tree() {
    let e = |v: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        v.iter()
            .map(|(n, m)| (n.to_string(), m.iter().map(|s| s.to_string()).collect()))
            .collect()
    };
    let circle = e(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"])]);
    assert_eq!(circles_in(&circle), vec!["a -> b -> c -> a"]);
    let tree = e(&[("a", &["b", "c"]), ("b", &["c"]), ("c", &[])]);
    assert!(circles_in(&tree).is_empty());
    let src = "use crate::report::text::info;\nuse super::{log, export::Exporter};\n\
               // crate::report::graph\n#[cfg(test)]\nuse crate::report::page;";
    assert_eq!(
        modules_named(src, "report", true),
        ["export", "log", "text"]
    );
    assert_eq!(modules_named(src, "report", false), ["text"]);
}
