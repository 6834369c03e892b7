//! No import circles between the files of `src/`: beside the layer order between folders
//! (`layers.rs`), the files inside a folder depend on each other in one direction too, so
//! each can be read (and moved) knowing only what is below it.
//!
//! A file depends on the file defining the module a path names: `crate::a::b::C` (in a
//! `use`, a group `crate::{a::b, c}` or inline) on `src/a/b.rs` or `src/a/b/mod.rs` (or the
//! deepest of `src/a.rs`, `src/a/mod.rs` that exists); `super::` and `self::` likewise,
//! relative to the file's module (a `super::` from an inline `mod tests` names the file
//! itself). `pub mod` declarations are not dependencies. Comments and strings are blanked
//! first (`layers::blank_comments_and_strings`).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::layers::{blank_comments_and_strings, ident_at, is_ident, rust_files, skip_ws};

/// Import circles tolerated while they are being broken, each the sorted files of one
/// strongly connected component. A component listed here exactly does not fail the test;
/// one that grows or is new does, and so does an entry that matches nothing any more
/// (a circle that shrank: write down what is left).
const KNOWN_CYCLES: &[&[&str]] = &[];

/// One dependency: the line of the path in the file, and the file it names.
#[derive(Debug, PartialEq)]
struct Dependency {
    line: usize,
    target: String,
}

/// The module path of a file under `src/` (`a/b.rs`, `a/b/mod.rs` → `a::b`; `lib.rs` →
/// the root); `None` for `main.rs`, the binary's own crate.
fn module_of(rel: &str) -> Option<Vec<String>> {
    let stem = rel.strip_suffix(".rs")?;
    if stem == "main" {
        return None;
    }
    if stem == "lib" {
        return Some(Vec::new());
    }
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts)
}

/// The byte ranges (in chars) of inline `mod name { … }` blocks.
fn inline_mods(c: &[char]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let (word, end) = ident_at(c, i);
        if word.is_empty() {
            i += 1;
            continue;
        }
        if word == "mod" && (i == 0 || !is_ident(c[i - 1])) {
            let (name, after) = ident_at(c, skip_ws(c, end));
            let open = skip_ws(c, after);
            if !name.is_empty() && c.get(open) == Some(&'{') {
                out.push((open, matching_brace(c, open)));
            }
        }
        i = end;
    }
    out
}

/// The index of the `}` closing the `{` at `open` (the end of the text if none).
fn matching_brace(c: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (k, &ch) in c.iter().enumerate().skip(open) {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    c.len()
}

/// Whether `::` starts at `i`.
fn colons_at(c: &[char], i: usize) -> bool {
    c.get(i) == Some(&':') && c.get(i + 1) == Some(&':')
}

/// The full paths of the use tree (or plain path) starting at `i`, each `prefix` plus its
/// segments: `a::{b, c::D}` → `a::b`, `a::c::D`; `*` and `self` stop at their parent;
/// generics (`::<`) end the path.
fn paths_at(c: &[char], i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let i = skip_ws(c, i);
    match c.get(i) {
        Some('{') => {
            let close = matching_brace(c, i);
            let mut depth = 0;
            let mut start = i + 1;
            for k in i..close {
                match c[k] {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => {
                        paths_at(c, start, prefix, out);
                        start = k + 1;
                    }
                    _ => {}
                }
            }
            if skip_ws(c, start) < close {
                paths_at(c, start, prefix, out);
            }
        }
        Some(&ch) if is_ident(ch) => {
            let (seg, end) = ident_at(c, i);
            if seg == "self" {
                out.push(prefix.to_vec());
                return;
            }
            let mut path = prefix.to_vec();
            path.push(seg);
            let next = skip_ws(c, end);
            if colons_at(c, next) && c.get(skip_ws(c, next + 2)) != Some(&'<') {
                paths_at(c, next + 2, &path, out);
            } else {
                out.push(path);
            }
        }
        _ => out.push(prefix.to_vec()),
    }
}

/// Every module path a file names, with its line: after `crate::`, `super::` (as many as
/// written) and `self::`; paths that stay inside the file (a `super::` from an inline
/// module, `self::` in one) are left out, and so are a module's re-exports of its own
/// sub-modules (`pub use self::log::Log` in `export/mod.rs`): like `pub mod`, they
/// declare the module's face, and the sub-module using its parent's trait is no circle.
fn named_paths(module: &[String], src: &str) -> Vec<(usize, Vec<String>)> {
    let clean = blank_comments_and_strings(src);
    let c: Vec<char> = clean.chars().collect();
    let inline = inline_mods(&c);
    let line_of = |pos: usize| c[..pos].iter().filter(|&&ch| ch == '\n').count() + 1;
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let (word, end) = ident_at(&c, i);
        if word.is_empty() {
            i += 1;
            continue;
        }
        let after_colons = i >= 2 && colons_at(&c, i - 2);
        let starts = !(after_colons || (i > 0 && c[i - 1] == '$'));
        if starts && matches!(word.as_str(), "crate" | "super" | "self") {
            let depth = inline.iter().filter(|(a, b)| *a < i && i < *b).count();
            if let Some((base, rest)) = path_base(&c, i, module, depth) {
                let mut paths = Vec::new();
                paths_at(&c, rest, &base, &mut paths);
                let facade = after_pub_use(&c, i);
                paths.retain(|p| !(facade && p.len() > module.len() && p.starts_with(module)));
                out.extend(paths.into_iter().map(|p| (line_of(i), p)));
            }
        }
        i = end;
    }
    out
}

/// Whether the path starting at `i` is the one of a `pub use` or `pub(crate) use`.
fn after_pub_use(c: &[char], i: usize) -> bool {
    let before: String = c[..i].iter().collect();
    let words: Vec<&str> = before
        .split(|ch: char| !is_ident(ch))
        .filter(|w| !w.is_empty())
        .rev()
        .take(3)
        .collect();
    let tail = before.trim_end();
    tail.ends_with("use")
        && (words.get(1) == Some(&"pub")
            || (words.get(1) == Some(&"crate") && words.get(2) == Some(&"pub")))
}

/// The absolute module a path starting at `i` (`crate`, `super`, `self`) is relative to,
/// and where its remaining segments start; `None` when it is no path or stays in the file.
fn path_base(
    c: &[char],
    i: usize,
    module: &[String],
    depth: usize,
) -> Option<(Vec<String>, usize)> {
    let (word, end) = ident_at(c, i);
    let mut next = skip_ws(c, end);
    if !colons_at(c, next) {
        return None;
    }
    match word.as_str() {
        "crate" => Some((Vec::new(), next + 2)),
        "self" => (depth == 0).then(|| (module.to_vec(), next + 2)),
        _ => {
            let mut ups: usize = 1;
            loop {
                let (w, e) = ident_at(c, skip_ws(c, next + 2));
                let n = skip_ws(c, e);
                if w != "super" || !colons_at(c, n) {
                    break;
                }
                ups += 1;
                next = n;
            }
            let ups = ups.checked_sub(depth).filter(|&u| u > 0)?;
            let keep = module.len().checked_sub(ups)?;
            Some((module[..keep].to_vec(), next + 2))
        }
    }
}

/// The file of the deepest module of `path` that has one.
fn file_of(path: &[String], files: &BTreeMap<Vec<String>, String>) -> Option<String> {
    (0..=path.len())
        .rev()
        .find_map(|n| files.get(&path[..n]).cloned())
}

/// Every file of `src/` (relative, `src/…`) with its dependencies on other files.
fn graph() -> BTreeMap<String, Vec<Dependency>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    assert!(paths.len() > 20, "scanned {} files", paths.len());
    let mut files = BTreeMap::new();
    let mut texts = Vec::new();
    for p in &paths {
        let rel = p.strip_prefix(&src).unwrap().display().to_string();
        if let Some(m) = module_of(&rel) {
            files.insert(m.clone(), format!("src/{rel}"));
            texts.push((m, format!("src/{rel}"), fs::read_to_string(p).unwrap()));
        }
    }
    let mut out = BTreeMap::new();
    for (module, rel, text) in texts {
        let deps = named_paths(&module, &text)
            .into_iter()
            .filter_map(|(line, p)| Some((line, file_of(&p, &files)?)))
            .filter(|(_, target)| *target != rel)
            .map(|(line, target)| Dependency { line, target })
            .fold(Vec::new(), |mut v: Vec<Dependency>, d| {
                if !v.contains(&d) {
                    v.push(d);
                }
                v
            });
        out.insert(rel, deps);
    }
    out
}

/// The strongly connected components of more than one file (Tarjan), each sorted.
fn cycles(graph: &BTreeMap<String, Vec<Dependency>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, Vec<Dependency>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for d in self.graph.get(v).into_iter().flatten() {
                let w = d.target.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    scc.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.out.push(scc);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out.sort();
    walk.out
}

/// A circle as a reader fixes it: its files and every dependency between them.
fn describe(scc: &[String], graph: &BTreeMap<String, Vec<Dependency>>) -> String {
    let mut s = format!("circle of {} files: {}\n", scc.len(), scc.join(", "));
    for f in scc {
        for d in graph.get(f).into_iter().flatten() {
            if scc.contains(&d.target) {
                s.push_str(&format!("  {f}:{} uses {}\n", d.line, d.target));
            }
        }
    }
    s
}

#[test]
fn no_file_of_src_imports_itself_through_others() {
    let graph = graph();
    let found = cycles(&graph);
    let known = |scc: &Vec<String>| KNOWN_CYCLES.iter().any(|k| k.iter().eq(scc.iter()));
    let bad: Vec<String> = found
        .iter()
        .filter(|scc| !known(scc))
        .map(|scc| describe(scc, &graph))
        .collect();
    assert!(
        bad.is_empty(),
        "import circles in src/ (move the shared piece down):\n{}",
        bad.join("\n")
    );
    let stale: Vec<_> = KNOWN_CYCLES
        .iter()
        .filter(|k| !found.iter().any(|scc| k.iter().eq(scc.iter())))
        .collect();
    assert!(
        stale.is_empty(),
        "KNOWN_CYCLES entries that no longer match a circle (write down what is left): {stale:?}"
    );
}

#[test]
fn the_import_scanner_resolves_crate_super_and_self_paths() {
    let src = r#"//! crate::in_docs::X
use crate::a::b::{C, d::{E, self}};
use super::sibling::F;
use super::super::top;
use self::child::G;
pub use self::child::Reexported;
pub(crate) use crate::x::y::z::Facade;
pub use crate::elsewhere::Dep;
fn f() { crate::inline::H::<u8>::new(); let _ = $crate::macro_only; }
mod tests {
    use super::*;
    use super::super::up;
}
"#;
    let module: Vec<String> = ["x", "y"].map(str::to_string).to_vec();
    let got: Vec<(usize, String)> = named_paths(&module, src)
        .into_iter()
        .map(|(l, p)| (l, p.join("::")))
        .collect();
    let want = [
        (2, "a::b::C"),
        (2, "a::b::d::E"),
        (2, "a::b::d"),
        (3, "x::sibling::F"),
        (4, "top"),
        (5, "x::y::child::G"),
        (8, "elsewhere::Dep"),
        (9, "inline::H"),
        (12, "x::up"),
    ]
    .map(|(l, p)| (l, p.to_string()));
    assert_eq!(got, want);
    assert_eq!(module_of("a/b/mod.rs"), Some(vec!["a".into(), "b".into()]));
    assert_eq!(module_of("lib.rs"), Some(vec![]));
    assert_eq!(module_of("main.rs"), None);
}

#[test]
fn the_cycle_finder_names_each_circle_once() {
    let dep = |t: &str| Dependency {
        line: 1,
        target: t.to_string(),
    };
    let graph: BTreeMap<String, Vec<Dependency>> = [
        ("a", vec![dep("b")]),
        ("b", vec![dep("c")]),
        ("c", vec![dep("a"), dep("d")]),
        ("d", vec![]),
        ("e", vec![dep("f")]),
        ("f", vec![dep("e")]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(
        cycles(&graph),
        vec![
            vec!["a".to_string(), "b".into(), "c".into()],
            vec!["e".to_string(), "f".into()]
        ]
    );
}
