//! The project's cargo configuration carries no cross-build setting (issue 29, item 1).
//!
//! `.cargo/config.toml` applies to every build in the tree, a native one included: a
//! `[target.aarch64-unknown-linux-gnu]` table with `+crt-static` and a qemu runner made
//! `cargo build --release` fail on every 64-bit Arm board (proc-macros cannot be built
//! static, rust-lang/rust#78210) and `cargo test` start qemu there. Cross settings belong
//! to `scripts/cross.sh`; `scripts/ci-native.sh` (run by .ci/run) builds once with the
//! config's target tables applied to the host.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The settings a `[target.T]` or `[build]` table must not carry in the project's config:
/// each one also applies to a native build on a machine of triple T.
const TARGET_ONLY: &[&str] = &["linker", "runner", "rustflags", "rustdocflags", "ar"];

/// The offending `table.key` pairs of a cargo config.
fn cross_settings(config: &str) -> Vec<String> {
    let doc: toml::Table = toml::from_str(config).expect("the cargo config is TOML");
    let mut found = Vec::new();
    if let Some(targets) = doc.get("target").and_then(toml::Value::as_table) {
        for (triple, table) in targets {
            for key in TARGET_ONLY {
                if table.get(*key).is_some() {
                    found.push(format!("target.{triple}.{key}"));
                }
            }
        }
    }
    if let Some(build) = doc.get("build").and_then(toml::Value::as_table) {
        for key in ["rustflags", "target", "rustdocflags"] {
            if build.get(key).is_some() {
                found.push(format!("build.{key}"));
            }
        }
    }
    found
}

#[test]
fn native_build_on_an_arm_board_gets_no_cross_settings() {
    let path = root().join(".cargo/config.toml");
    let Ok(config) = std::fs::read_to_string(&path) else {
        return; // no config: nothing can leak into a native build
    };
    let found = cross_settings(&config);
    assert!(
        found.is_empty(),
        "{} sets {} — these apply to native builds of that triple too; put them in \
         scripts/cross.sh",
        path.display(),
        found.join(", ")
    );
}

/// The lint itself finds what broke the Arm boards (the old config's table).
#[test]
fn the_config_lint_finds_the_old_aarch64_table() {
    let old = "[target.aarch64-unknown-linux-gnu]\nlinker = \"aarch64-linux-gnu-gcc\"\n\
               rustflags = [\"-C\", \"target-feature=+crt-static\"]\n\
               runner = \"qemu-aarch64-static\"\n[build]\nrustflags = [\"-Cfoo\"]\n";
    assert_eq!(
        cross_settings(old),
        [
            "target.aarch64-unknown-linux-gnu.linker",
            "target.aarch64-unknown-linux-gnu.runner",
            "target.aarch64-unknown-linux-gnu.rustflags",
            "build.rustflags"
        ]
    );
    assert!(cross_settings("[alias]\nxt = \"test\"\n").is_empty());
}

/// The release settings moved, not vanished: scripts/cross.sh links the glibc targets
/// statically with Debian's cross gcc and runs foreign binaries under qemu.
#[test]
fn cross_settings_live_in_the_cross_script() {
    let cross = std::fs::read_to_string(root().join("scripts/cross.sh")).unwrap();
    for needle in [
        "target-feature=+crt-static",
        "_LINKER=$gcc",
        "_RUNNER=$q",
        "aarch64-linux-gnu-gcc",
    ] {
        assert!(cross.contains(needle), "scripts/cross.sh lacks {needle}");
    }
}
