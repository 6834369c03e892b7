#!/usr/bin/env bash
# Release artifacts: for every board target a static binary, packed as
#   dist/sbc-bench-VERSION-TARGET.tar.gz   binary, README, LICENSE, CHANGELOG, man page,
#                                          completions (and 7-Zip where bundled)
#   dist/sbc-bench_VERSION-1_ARCH.deb      the same, installed as a Debian package
#   dist/SHA256SUMS
#
# Usage: scripts/release.sh [--quick] [--out DIR] [--target T]... [--no-deb] [--build-only]
#   --quick   the `ci-dist` profile (no LTO, opt-level 0): the same artifacts in a fraction
#             of the build time, for CI; not for publishing
#   --target  only these targets (default: all four, see scripts/cross.sh)
#   --build-only  only the binaries (one cargo run for all targets), no packages; a later
#             run with the same options finds them built (.ci/run builds them beside the
#             test suite this way)
#
# Needs: rustup targets, python3 -m ziglang, gcc, gcc-aarch64-linux-gnu,
# gcc-arm-linux-gnueabihf and gcc-riscv64-linux-gnu (linkers of the static glibc targets),
# qemu-user-static (the man page and completions are written by each binary itself, so its
# version line names its own target), file, dpkg-deb. .ci/run installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/cross.sh

profile=dist
out=dist
debs=1
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) profile=ci-dist; export CROSS_QUICK=1 ;;
    --out) out="$2"; shift ;;
    --target) targets+=("$2"); shift ;;
    --no-deb) debs=0 ;;
    --build-only) build_only=1 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ ${#targets[@]} -gt 0 ] || targets=("${CROSS_TARGETS[@]}")

say() { printf '\n--> [%4ds] %s\n' "$SECONDS" "$*"; }
die() { echo "release.sh: $*" >&2; exit 1; }

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
[ -n "$version" ] || die "no version in Cargo.toml"
# The commit for --version, also when building from an unpacked tarball (build.rs).
if [ -z "${SBC_BENCH_GIT_COMMIT:-}" ] && git rev-parse --short=12 HEAD >/dev/null 2>&1; then
  SBC_BENCH_GIT_COMMIT="$(git rev-parse --short=12 HEAD)"
  export SBC_BENCH_GIT_COMMIT
fi
# Reproducible archives: file times are the commit's.
epoch="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"

tdir="${CARGO_TARGET_DIR:-target}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
stage_root="$(mktemp -d)"
trap 'rm -rf "$stage_root"' EXIT

# run_on T BIN ARGS…: BIN (built for T) here, under qemu-user unless T is this machine's.
run_on() {
  local t="$1" q
  shift
  q="$(cross_qemu "$t")"
  if [ -n "$q" ]; then "$q" "$@"; else "$@"; fi
}

# check_static FILE: an ELF executable with no program interpreter (no dynamic loader).
check_static() {
  local f="$1" desc
  desc="$(file -b "$f")"
  echo "    $desc"
  case "$desc" in
    *"dynamically linked"*|*interpreter*) die "$f is not statically linked: $desc" ;;
    *ELF*"statically linked"*|*ELF*"static-pie linked"*) ;;
    *) die "$f: not a static ELF executable: $desc" ;;
  esac
  case "$desc" in
    *"not stripped"*) die "$f is not stripped" ;;
  esac
  # The program headers themselves: no PT_INTERP, no shared library needed.
  if command -v readelf >/dev/null 2>&1; then
    if readelf -lW "$f" | grep -q "program interpreter"; then die "$f has a program interpreter"; fi
    if readelf -dW "$f" 2>/dev/null | grep -q "(NEEDED)"; then die "$f needs shared libraries"; fi
  fi
}

# One cargo run for every target: the build scripts and proc macros are built once, and
# both cores stay busy across the targets.
say "${targets[*]}: cargo build --profile $profile"
cross_multi "${targets[@]}" -- build --locked --profile "$profile" --bin sbc-bench
[ "$build_only" = 0 ] || exit 0

for t in "${targets[@]}"; do
  say "$t: packaging"
  bin="$tdir/$t/$profile/sbc-bench"
  check_static "$bin"
  size="$(stat -c %s "$bin")"
  echo "    $(basename "$bin"): $size bytes ($((size / 1024)) KiB) stripped"

  name="sbc-bench-$version-$t"
  dir="$stage_root/$name"
  mkdir -p "$dir/completions" "$dir/man"
  cp "$bin" "$dir/sbc-bench"
  cp README.md LICENSE CHANGELOG.md "$dir/"
  for l in data/LICENSE.*; do cp "$l" "$dir/THIRD-PARTY-$(basename "$l")"; done
  # Written by the binary itself (under qemu): it is also its first run.
  run_on "$t" "$bin" manpage > "$dir/man/sbc-bench.1"
  run_on "$t" "$bin" completions bash > "$dir/completions/sbc-bench.bash"
  run_on "$t" "$bin" completions zsh > "$dir/completions/_sbc-bench"
  run_on "$t" "$bin" completions fish > "$dir/completions/sbc-bench.fish"
  grep -q '^\.SH "EXIT STATUS"' "$dir/man/sbc-bench.1" || die "$t: man page lacks EXIT STATUS"
  seven="target/7za-16.02/$t"
  if [ -x "$seven/7za" ]; then
    cp "$seven/7za" "$dir/7za"
    for l in "$seven"/*; do
      case "$(basename "$l")" in
        7za) ;;
        SOURCE) cp "$l" "$dir/7za-SOURCE" ;;
        *) cp "$l" "$dir/7za-LICENSE-$(basename "$l")" ;;
      esac
    done
    echo "    bundled 7-Zip 16.02 from $seven"
  else
    echo "    note: no bundled 7-Zip ($seven/7za absent; scripts/build-7za-16.02.sh writes it): skipped"
  fi
  find "$dir" -exec touch -h -d "@$epoch" {} +
  tar -C "$stage_root" --sort=name --owner=0 --group=0 --numeric-owner \
    --mtime="@$epoch" -cf - "$name" | gzip -9n > "$out/$name.tar.gz"
  echo "    $out/$name.tar.gz"

  [ "$debs" = 1 ] || continue
  arch="$(cross_deb_arch "$t")"
  deb="$stage_root/deb-$arch"
  mkdir -p "$deb/DEBIAN" "$deb/usr/bin" "$deb/usr/share/man/man1" \
    "$deb/usr/share/bash-completion/completions" "$deb/usr/share/zsh/vendor-completions" \
    "$deb/usr/share/fish/vendor_completions.d" "$deb/usr/share/doc/sbc-bench"
  install -m 0755 "$dir/sbc-bench" "$deb/usr/bin/sbc-bench"
  gzip -9n < "$dir/man/sbc-bench.1" > "$deb/usr/share/man/man1/sbc-bench.1.gz"
  install -m 0644 "$dir/completions/sbc-bench.bash" "$deb/usr/share/bash-completion/completions/sbc-bench"
  install -m 0644 "$dir/completions/_sbc-bench" "$deb/usr/share/zsh/vendor-completions/_sbc-bench"
  install -m 0644 "$dir/completions/sbc-bench.fish" "$deb/usr/share/fish/vendor_completions.d/sbc-bench.fish"
  install -m 0644 README.md "$deb/usr/share/doc/sbc-bench/README.md"
  gzip -9n < CHANGELOG.md > "$deb/usr/share/doc/sbc-bench/changelog.gz"
  {
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: sbc-bench"
    echo
    echo "Files: *"
    echo "License: BSD-3-Clause"
    echo
    sed 's/^$/./; s/^/ /' LICENSE
    for l in data/LICENSE.*; do
      echo
      echo "Comment: third-party notice $(basename "$l") (data tables built into the binary)"
      sed 's/^$/./; s/^/ /' "$l"
    done
  } > "$deb/usr/share/doc/sbc-bench/copyright"
  if [ -x "$dir/7za" ]; then
    mkdir -p "$deb/usr/lib/sbc-bench"
    install -m 0755 "$dir/7za" "$deb/usr/lib/sbc-bench/7za"
    for l in "$dir"/7za-*; do
      install -m 0644 "$l" "$deb/usr/share/doc/sbc-bench/$(basename "$l")"
    done
  fi
  installed_kb="$(du -sk --exclude=DEBIAN "$deb" | cut -f1)"
  cat > "$deb/DEBIAN/control" <<CONTROL
Package: sbc-bench
Version: $version-1
Architecture: $arch
Maintainer: sbc-bench (Rust) maintainers <sbc-bench@localhost>
Installed-Size: $installed_kb
Section: utils
Priority: optional
Recommends: openssl
Suggests: iperf3, stress-ng
Description: benchmark single-board computers and small servers
 Measured (not advertised) clock speeds, memory bandwidth and latency, AES,
 compression, storage and network throughput, monitored while they run, with a
 validated report that says whether the numbers can be trusted and why.
 .
 One static binary (no dependencies); sbc-bench's command line flags work.
CONTROL
  find "$deb" -exec touch -h -d "@$epoch" {} +
  debfile="$out/sbc-bench_${version}-1_${arch}.deb"
  SOURCE_DATE_EPOCH="$epoch" dpkg-deb --root-owner-group -Zxz --build "$deb" "$debfile" >/dev/null
  [ "$(dpkg-deb --field "$debfile" Architecture)" = "$arch" ] || die "$debfile: wrong architecture"
  echo "    $debfile"
done

say "SHA256SUMS"
(
  cd "$out"
  ls sbc-bench-*.tar.gz sbc-bench_*.deb 2>/dev/null | sort | xargs sha256sum > SHA256SUMS
  cat SHA256SUMS
)
