//! Build facts for `sbc-bench --version`: the git commit and the target triple.
//!
//! The commit comes from `SBC_BENCH_GIT_COMMIT` when set (a release build of an unpacked
//! tarball can pass it on), else from `git` when the source is a checkout, else `unknown`
//! (a `cargo package` or a tarball has no `.git`): the build never fails for want of git.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-env-changed=SBC_BENCH_GIT_COMMIT");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    // Only a checkout of this very crate counts: not a parent repository that happens to
    // hold an unpacked tarball.
    let top = git(&["-C", &manifest, "rev-parse", "--show-toplevel"]);
    let ours =
        top.is_some_and(|t| std::fs::canonicalize(t).ok() == std::fs::canonicalize(&manifest).ok());
    let commit = match std::env::var("SBC_BENCH_GIT_COMMIT") {
        Ok(c) if !c.trim().is_empty() => c.trim().to_string(),
        _ if ours => {
            // Rebuild when HEAD moves (a commit, a checkout). Only files that exist: a
            // missing one would rerun this script on every build.
            let mut watch = vec!["HEAD".to_string(), "packed-refs".to_string()];
            watch.extend(git(&["-C", &manifest, "symbolic-ref", "-q", "HEAD"]));
            for p in &watch {
                if let Some(f) = git(&["-C", &manifest, "rev-parse", "--git-path", p]) {
                    let f = std::path::Path::new(&manifest).join(f);
                    if f.exists() {
                        println!("cargo:rerun-if-changed={}", f.display());
                    }
                }
            }
            git(&["-C", &manifest, "rev-parse", "--short=12", "HEAD"])
                .unwrap_or_else(|| "unknown".to_string())
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=SBC_BENCH_GIT_COMMIT={commit}");
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_string());
    println!("cargo:rustc-env=SBC_BENCH_TARGET={target}");
}
