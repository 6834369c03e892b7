# shellcheck shell=bash
# Cross builds for the boards we release for; sourced by .ci/run and scripts/release.sh.
#
#   cross RUST_TARGET cargo-args…    cargo for RUST_TARGET, its C built by zig's clang
#   cross_multi T… -- cargo-args…     one cargo run for several targets
#
# C in the dependency tree (the bundled SQLite, ring) is compiled with zig's clang through
# scripts/zigcc/ (PyPI's `ziglang`: one download with musl and glibc headers for every
# target). Every release target is a glibc target linked statically (`-C
# target-feature=+crt-static`) by Debian's gcc (x86_64-linux-gnu-gcc, the cross
# gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf, gcc-riscv64-linux-gnu), whose libc.a is the
# static glibc: the `libc memcpy copy` / `libc memset fill` rows sbc-bench's Results.md
# columns take then time glibc's routines, chosen for the CPU at start as on the board, where
# tinymembench calls the board's glibc (musl's x86_64 memcpy measured 1.2–1.3x glibc's on
# the VM of docs/FIDELITY.md). zig cannot link glibc statically; rustup has no musl std for
# armv7 and riscv64 here. The musl targets still build (`cross x86_64-unknown-linux-musl
# build`; they link with rust-lld) but are not released.
#
# Every per-target setting (linker, `+crt-static`, the qemu runner of `cross T test`) is
# set here, as CARGO_TARGET_<T>_* variables for the cross build alone: none is in
# .cargo/config.toml, which would apply them to a native build on a board of that triple
# too (issue 29; scripts/ci-native.sh checks it).

CROSS_ZIGCC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/zigcc"

# The release targets, in build order.
CROSS_TARGETS=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu
  armv7-unknown-linux-gnueabihf riscv64gc-unknown-linux-gnu)

# cross_zig RUST_TARGET: zig's name of the target.
cross_zig() {
  case "$1" in
    x86_64-unknown-linux-gnu) echo x86_64-linux-gnu ;;
    aarch64-unknown-linux-gnu) echo aarch64-linux-gnu ;;
    x86_64-unknown-linux-musl) echo x86_64-linux-musl ;;
    aarch64-unknown-linux-musl) echo aarch64-linux-musl ;;
    armv7-unknown-linux-musleabihf) echo arm-linux-musleabihf ;;
    riscv64gc-unknown-linux-musl) echo riscv64-linux-musl ;;
    armv7-unknown-linux-gnueabihf) echo arm-linux-gnueabihf ;;
    riscv64gc-unknown-linux-gnu) echo riscv64-linux-gnu ;;
    *) echo "cross: no zig target for $1" >&2; return 1 ;;
  esac
}

# cross_gcc RUST_TARGET: the Debian gcc that links a static glibc target (empty for musl
# targets).
cross_gcc() {
  case "$1" in
    x86_64-unknown-linux-gnu) echo x86_64-linux-gnu-gcc ;;
    aarch64-unknown-linux-gnu) echo aarch64-linux-gnu-gcc ;;
    armv7-unknown-linux-gnueabihf) echo arm-linux-gnueabihf-gcc ;;
    riscv64gc-unknown-linux-gnu) echo riscv64-linux-gnu-gcc ;;
    *) echo "" ;;
  esac
}

# cross_qemu RUST_TARGET: the qemu-user binary that runs it (empty: runs natively).
cross_qemu() {
  case "$1" in
    x86_64-*) echo "" ;;
    aarch64-*) echo qemu-aarch64-static ;;
    armv7-*) echo qemu-arm-static ;;
    riscv64*) echo qemu-riscv64-static ;;
  esac
}

# cross_static_name RUST_TARGET: the release's name of the target, as the tarballs carry it:
# CPU, `linux`, `static` (every release binary is static: no library, no loader; a user
# reading `-gnu` would expect the board's glibc to be needed).
cross_static_name() {
  case "$1" in
    x86_64-*) echo x86_64-linux-static ;;
    aarch64-*) echo aarch64-linux-static ;;
    armv7-*) echo armv7-linux-static ;;
    riscv64*) echo riscv64-linux-static ;;
  esac
}

# cross_deb_arch RUST_TARGET: Debian's name of the architecture.
cross_deb_arch() {
  case "$1" in
    x86_64-*) echo amd64 ;;
    aarch64-*) echo arm64 ;;
    armv7-*) echo armhf ;;
    riscv64*) echo riscv64 ;;
  esac
}

# cross_env RUST_TARGET: the environment (NAME=VALUE lines) cargo needs to build for it:
# its C compiler and archiver (zig, through a wrapper that names the zig target, so that
# several targets can build in one cargo run), the linker (Debian's cross gcc for the
# static glibc targets, with `+crt-static`; rust-lld for the musl ones) and the qemu-user
# runner for `cross T test` / `cross T run` where T is not this machine's CPU.
cross_env() {
  local t="$1" z gcc v w
  z="$(cross_zig "$t")" || return 1
  gcc="$(cross_gcc "$t")"
  v="${t//-/_}"
  w="$(mkdir -p "${CARGO_TARGET_DIR:-target}/zigcc/$t" && cd "${CARGO_TARGET_DIR:-target}/zigcc/$t" && pwd)"
  for tool in cc ar; do
    printf '#!/bin/sh\nZIG_TARGET=%s exec "%s/%s" "$@"\n' "$z" "$CROSS_ZIGCC" "$tool" > "$w/$tool"
    chmod +x "$w/$tool"
  done
  printf '%s\n' "CC_$v=$w/cc" "AR_$v=$w/ar"
  if [ -n "$gcc" ]; then
    local V="${v^^}"
    echo "CARGO_TARGET_${V}_LINKER=$gcc"
    local flags="-C target-feature=+crt-static"
    # The quick (ci-dist, opt-level 0) armv7 binary outgrew 16 MiB of text: a static
    # glibc link then put the IRELATIVE resolvers' code beyond the Thumb-2 branch range of
    # the .iplt at the text's start, and the binary crashed before its first syscall
    # (qemu: SIGSEGV, si_addr 0x53). Optimised, it stays well below; release builds
    # (opt-level 3) are unaffected.
    if [ "${CROSS_QUICK:-0}" = 1 ] && [ "$t" = armv7-unknown-linux-gnueabihf ]; then
      flags="$flags -C opt-level=1"
    fi
    echo "CARGO_TARGET_${V}_RUSTFLAGS=$flags"
  else
    echo "CARGO_TARGET_${v^^}_LINKER=rust-lld"
  fi
  local q host tcpu
  q="$(cross_qemu "$t")"
  host="$(uname -m)"; host="${host%l}"   # armv7l -> armv7
  tcpu="${t%%-*}"; tcpu="${tcpu%gc}"     # riscv64gc -> riscv64
  if [ -n "$q" ] && [ "$host" != "$tcpu" ]; then
    echo "CARGO_TARGET_${v^^}_RUNNER=$q"
  fi
}

# cross_multi RUST_TARGET… -- cargo-args…: one cargo run for all the targets (the build
# scripts and proc macros are built once for this machine, and both cores stay busy
# across the targets' dependency trees).
cross_multi() {
  local -a envs=() targets=() e
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    mapfile -t e < <(cross_env "$1") && [ ${#e[@]} -gt 0 ] || return 1
    envs+=("${e[@]}")
    targets+=(--target "$1")
    shift
  done
  [ "${1:-}" = -- ] || { echo "cross_multi: no -- before the cargo arguments" >&2; return 1; }
  shift
  env "${envs[@]}" cargo "$@" "${targets[@]}"
}

# cross RUST_TARGET cargo-args…: cargo for one target.
cross() {
  local t="$1"
  shift
  cross_multi "$t" -- "$@"
}
