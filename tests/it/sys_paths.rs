//! Nothing outside `sys/` names `/proc`, `/sys` or `/dev` (docs/ARCHITECTURE.md, sys/):
//! every path of the system is a constant or a function of `src/sys/`, so `SOURCES.md`'s
//! list of what we read is the list of `sys/`'s paths. Scanned: every string literal of
//! `src/` outside `src/sys/` and outside test code (`#[cfg(test)]` modules, inline or in
//! their own file: fixtures and tests build sysroot trees and copy real output). A literal
//! names such a path when it is `/proc`, `/sys` or `/dev`, or starts with `/proc/`,
//! `/sys/`, `/dev/` or their root-relative forms (`proc/`, `sys/`, `dev/`).

use std::fs;
use std::path::Path;

use crate::layers::{blank_comments_and_strings, ident_at, rust_files, skip_ws};

/// The string literals of `src` outside comments: (char position of the opening quote,
/// contents as written, escapes not undone). Raw strings (`r#"…"#`) included.
fn string_literals(src: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        let after_ident = i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
        match c[i] {
            '/' if next == Some('/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < c.len() {
                    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            'r' if matches!(next, Some('"' | '#')) && !after_ident => {
                let mut j = i + 1;
                while c.get(j) == Some(&'#') {
                    j += 1;
                }
                if c.get(j) != Some(&'"') {
                    i += 1;
                    continue;
                }
                let hashes = j - i - 1;
                let start = j;
                let mut k = j + 1;
                while k < c.len()
                    && !(c[k] == '"' && (1..=hashes).all(|h| c.get(k + h) == Some(&'#')))
                {
                    k += 1;
                }
                out.push((start, c[start + 1..k.min(c.len())].iter().collect()));
                i = k + hashes + 1;
            }
            '"' => {
                let start = i;
                let mut j = i + 1;
                while j < c.len() && c[j] != '"' {
                    j += if c[j] == '\\' { 2 } else { 1 };
                }
                out.push((start, c[start + 1..j.min(c.len())].iter().collect()));
                i = j + 1;
            }
            '\'' => {
                // A char literal ('"', '\'', '\n'); otherwise a lifetime.
                let end = if next == Some('\\') {
                    (i + 3..c.len()).find(|&k| c[k] == '\'')
                } else if c.get(i + 2) == Some(&'\'') {
                    Some(i + 2)
                } else {
                    None
                };
                i = end.map_or(i + 1, |e| e + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// The char ranges of `#[cfg(test)] mod name { … }` blocks, and the names of
/// `#[cfg(test)] mod name;` files.
fn test_modules(src: &str) -> (Vec<(usize, usize)>, Vec<String>) {
    let clean: Vec<char> = blank_comments_and_strings(src).chars().collect();
    let text: String = clean.iter().collect();
    let mut ranges = Vec::new();
    let mut files = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("#[cfg(test)]") {
        // `text` is a string of the same chars; positions in chars from here on.
        let byte = from + found;
        from = byte + 1;
        let mut j = skip_ws(&clean, text[..byte].chars().count() + "#[cfg(test)]".len());
        // Other attributes between (`#[allow(…)]`).
        while clean.get(j) == Some(&'#') {
            let Some(close) = (j..clean.len()).find(|&k| clean[k] == ']') else {
                break;
            };
            j = skip_ws(&clean, close + 1);
        }
        let (mut word, mut after) = ident_at(&clean, j);
        if word == "pub" {
            (word, after) = ident_at(&clean, skip_ws(&clean, after));
        }
        if word != "mod" {
            continue;
        }
        let (name, after_name) = ident_at(&clean, skip_ws(&clean, after));
        let next = skip_ws(&clean, after_name);
        match clean.get(next) {
            Some(';') => files.push(name),
            Some('{') => {
                let mut depth = 0;
                let mut end = clean.len();
                for (k, ch) in clean.iter().enumerate().skip(next) {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = k;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                ranges.push((next, end));
            }
            _ => {}
        }
    }
    (ranges, files)
}

/// Does this literal name a path of the system?
fn names_system_path(text: &str) -> bool {
    ["proc", "sys", "dev"].iter().any(|top| {
        [format!("/{top}"), top.to_string()]
            .iter()
            .any(|p| text == format!("/{top}") || text.starts_with(&format!("{p}/")))
    })
}

/// `file:line: "literal"` for every system path named outside test code of one file.
fn violations_in(rel: &str, src: &str) -> Vec<String> {
    let (tests, _) = test_modules(src);
    let c: Vec<char> = src.chars().collect();
    string_literals(src)
        .into_iter()
        .filter(|(at, _)| !tests.iter().any(|(a, b)| at > a && at < b))
        .filter(|(_, text)| names_system_path(text))
        .map(|(at, text)| {
            let line = c[..at].iter().filter(|&&ch| ch == '\n').count() + 1;
            format!("{rel}:{line}: \"{text}\"")
        })
        .collect()
}

#[test]
fn nothing_outside_sys_names_a_system_path() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    // Files that are a `#[cfg(test)] mod x;` of their folder's module.
    let mut test_files = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        for name in test_modules(&text).1 {
            test_files.push(f.with_file_name(format!("{name}.rs")));
        }
    }
    let mut bad = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("sys/") || test_files.contains(f) {
            continue;
        }
        bad.extend(violations_in(&rel, &fs::read_to_string(f).unwrap()));
    }
    assert!(
        bad.is_empty(),
        "system paths named outside src/sys/ (make them a sys/ constant or function):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_scanner_finds_paths_in_code_and_skips_comments_and_tests() {
    let src = r#"
// "/proc/stat" in a comment
/* "/sys/class" in a block comment */
const A: &str = "/proc/loadavg";
fn f() -> char { '"' }
fn g(r: &Root) { r.read("sys/class/net"); let _ = "/system/not"; let _ = "/dev"; }
#[cfg(test)]
mod tests {
    const T: &str = "/dev/sda";
}
"#;
    let v = violations_in("x.rs", src);
    assert_eq!(
        v,
        [
            "x.rs:4: \"/proc/loadavg\"",
            "x.rs:6: \"sys/class/net\"",
            "x.rs:6: \"/dev\""
        ]
    );
}
