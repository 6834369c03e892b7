#!/usr/bin/env bash
# CI: a plain native build carries no cross-build setting (issue 29, item 1).
#
# .cargo/config.toml applies to every build in the tree: a `[target.T]` table is also
# used for a native build on a machine whose triple is T. Cross settings there (`+crt-static`,
# a cross linker, a qemu runner) once made `cargo build --release` fail on every 64-bit Arm
# board (`cannot produce proc-macro for thiserror-impl …`, rust-lang/rust#78210) and `cargo
# test` start qemu. This script reproduces "a board whose triple the config names" on this
# machine: it applies the settings of every `[target.T]` table of the config (and of
# `[build]`) to this machine's own triple, then builds the tree as `cargo test` does (every
# proc-macro, the library, the binary and the tests) and runs one test (through the runner a
# native test run would use). With a clean config the extra config is empty and .ci/run's
# test build is reused: seconds.
#
#   scripts/ci-native.sh [--config FILE]   (default .cargo/config.toml)
set -euo pipefail
cd "$(dirname "$0")/.."
config=.cargo/config.toml
[ "${1:-}" != --config ] || config="$2"
say() { printf '\n==> [ci-native %3ds] %s\n' "$SECONDS" "$*"; }

host="$(rustc -vV | sed -n 's/^host: //p')"
out="${CARGO_TARGET_DIR:-target}/ci-native"
mkdir -p "$out"
# The settings of every target table, as if they were this machine's (python3's tomllib).
python3 - "$config" "$host" > "$out/as-host.toml" <<'PY'
import sys, tomllib, json
path, host = sys.argv[1], sys.argv[2]
try:
    cfg = tomllib.load(open(path, "rb"))
except FileNotFoundError:
    cfg = {}
keys = {}
names = []
for triple, table in cfg.get("target", {}).items():
    if not isinstance(table, dict):
        continue
    names.append(triple)
    for k, v in table.items():
        if k in ("linker", "runner", "rustflags", "ar", "rustdocflags"):
            keys.setdefault(k, v)
print(f"# The target tables of {path} ({', '.join(names) or 'none'}) applied to {host}.")
if keys:
    print(f'[target.{host}]')
    for k, v in keys.items():
        print(f"{k} = {json.dumps(v)}")
build = {k: v for k, v in cfg.get("build", {}).items() if k in ("rustflags", "target")}
if build:
    print("[build]")
    for k, v in build.items():
        print(f"{k} = {json.dumps(v)}")
PY
say "settings of $config applied to $host"
sed 's/^/    /' "$out/as-host.toml"
say "cargo test --no-run (plain, native: proc-macros, library, binary, tests)"
cargo --config "$out/as-host.toml" test --locked --no-run
say "cargo test (one test, run as a native test run runs it)"
cargo --config "$out/as-host.toml" test --locked --lib cli::tests::cli_is_consistent
say "a native build and test on a board of any triple the config names work"
