#!/usr/bin/env bash
# Release artifacts: for every board target a static binary, packed as
#   dist/sbc-bench-VERSION-CPU-linux-static.tar.gz   (CPU: aarch64, x86_64, armv7, riscv64)
#       sbc-bench, 7za (7-Zip 16.02, its licence and source as 7za-*), README.md, LICENSE,
#       CHANGELOG.md, doc/ (the user documents of docs/, schema/), man/ (one page per
#       command), completions/, systemd/ (the monitor's units), grafana/ (a dashboard)
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
#   --real T  with --quick: build target T in the real `dist` profile all the same (CI
#             builds the aarch64 artifact we publish this way, and scripts/ci-size.sh holds
#             it to the size budget)
#   --no-7za  package without the bundled 7-Zip 16.02 (a local test only: without it the
#             Results.md 7-Zip columns stay empty on a fresh board, so a release refuses)
#
# Needs: rustup targets, python3 -m ziglang, gcc, gcc-aarch64-linux-gnu,
# gcc-arm-linux-gnueabihf and gcc-riscv64-linux-gnu (linkers of the static glibc targets),
# qemu-user-static (the man pages and completions are written by each binary itself, so
# their version line names its own target), file, dpkg-deb, and target/7za-16.02/<target>/
# (scripts/build-7za-16.02.sh). .ci/run installs them.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/cross.sh

profile=dist
out=dist
debs=1
build_only=0
require_7za=1
real=()
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) profile=ci-dist; export CROSS_QUICK=1 ;;
    --out) out="$2"; shift ;;
    --target) targets+=("$2"); shift ;;
    --no-deb) debs=0 ;;
    --build-only) build_only=1 ;;
    --no-7za) require_7za=0 ;;
    --real) real+=("$2"); shift ;;
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
# The .deb's Maintainer: whoever builds the release, by Debian's convention (DEBFULLNAME,
# DEBEMAIL, as dch takes them); its Homepage: Cargo.toml's `homepage`. A published release
# needs both (a placeholder address is a lintian error, and users need to know where the
# project lives); the CI form (--quick) uses a stand-in that says it is one.
homepage="$(sed -n 's/^homepage = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
if [ -n "${DEBEMAIL:-}" ]; then
  maintainer="${DEBFULLNAME:-sbc-bench maintainers} <$DEBEMAIL>"
elif [ "$profile" = ci-dist ]; then
  maintainer="sbc-bench CI build (not for publishing) <ci@sbc-bench.invalid>"
else
  die "set DEBEMAIL (and DEBFULLNAME) to the address that answers for the .deb (Maintainer:)"
fi
if [ -z "$homepage" ] && [ "$profile" != ci-dist ]; then
  die "set homepage in Cargo.toml: the .deb's Homepage: and where the schemas' docs live"
fi
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
# profile_of T: the profile T is built in (--real: `dist` even under --quick).
profile_of() {
  local r
  for r in "${real[@]}"; do [ "$r" != "$1" ] || { echo dist; return; }; done
  echo "$profile"
}
quick_targets=()
real_targets=()
for t in "${targets[@]}"; do
  if [ "$(profile_of "$t")" = "$profile" ]; then quick_targets+=("$t"); else real_targets+=("$t"); fi
done
if [ ${#quick_targets[@]} -gt 0 ]; then
  say "${quick_targets[*]}: cargo build --profile $profile"
  cross_multi "${quick_targets[@]}" -- build --locked --profile "$profile" --bin sbc-bench
fi
if [ ${#real_targets[@]} -gt 0 ]; then
  say "${real_targets[*]}: cargo build --profile dist"
  CROSS_QUICK=0 cross_multi "${real_targets[@]}" -- build --locked --profile dist --bin sbc-bench
fi
[ "$build_only" = 0 ] || exit 0

# The user documents that travel with the binary (--help and the man pages name them):
# every docs/*.md but the developers' ARCHITECTURE.md, and the JSON schemas.
user_docs=()
for d in docs/*.md; do
  [ "$(basename "$d")" = ARCHITECTURE.md ] || user_docs+=("$d")
done

for t in "${targets[@]}"; do
  say "$t: packaging"
  bin="$tdir/$t/$(profile_of "$t")/sbc-bench"
  check_static "$bin"
  size="$(stat -c %s "$bin")"
  echo "    $(basename "$bin"): $size bytes ($((size / 1024)) KiB) stripped"

  name="sbc-bench-$version-$(cross_static_name "$t")"
  dir="$stage_root/$name"
  mkdir -p "$dir/completions" "$dir/man" "$dir/doc/schema" "$dir/systemd" "$dir/grafana"
  cp "$bin" "$dir/sbc-bench"
  cp README.md LICENSE CHANGELOG.md "$dir/"
  for l in data/LICENSE.*; do cp "$l" "$dir/THIRD-PARTY-$(basename "$l")"; done
  cp "${user_docs[@]}" "$dir/doc/"
  cp docs/schema/*.schema.json "$dir/doc/schema/"
  cp contrib/systemd/*.service "$dir/systemd/"
  cp contrib/grafana/sbc-bench.json "$dir/grafana/"
  # Written by the binary itself (under qemu): it is also its first run.
  run_on "$t" "$bin" manpage --dir "$dir/man" >/dev/null
  run_on "$t" "$bin" completions bash > "$dir/completions/sbc-bench.bash"
  run_on "$t" "$bin" completions zsh > "$dir/completions/_sbc-bench"
  run_on "$t" "$bin" completions fish > "$dir/completions/sbc-bench.fish"
  grep -q '^\.SH "EXIT STATUS"' "$dir/man/sbc-bench.1" || die "$t: man page lacks EXIT STATUS"
  [ -f "$dir/man/sbc-bench-monitor.1" ] || die "$t: no sbc-bench-monitor(1)"
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
  elif [ "$require_7za" = 1 ]; then
    die "$t: no bundled 7-Zip 16.02 ($seven/7za absent; scripts/build-7za-16.02.sh $t writes it): a release without it leaves the Results.md 7-Zip columns empty (--no-7za for a local test)"
  else
    echo "    note: --no-7za: no bundled 7-Zip"
  fi
  find "$dir" -exec touch -h -d "@$epoch" {} +
  tar -C "$stage_root" --sort=name --owner=0 --group=0 --numeric-owner \
    --mtime="@$epoch" -cf - "$name" | gzip -9n > "$out/$name.tar.gz"
  echo "    $out/$name.tar.gz"

  [ "$debs" = 1 ] || continue
  arch="$(cross_deb_arch "$t")"
  deb="$stage_root/deb-$arch"
  doc="$deb/usr/share/doc/sbc-bench"
  mkdir -p "$deb/DEBIAN" "$deb/usr/bin" "$deb/usr/share/man/man1" \
    "$deb/usr/share/bash-completion/completions" "$deb/usr/share/zsh/vendor-completions" \
    "$deb/usr/share/fish/vendor_completions.d" "$doc/schema" "$doc/examples" \
    "$deb/usr/lib/systemd/system" "$deb/usr/share/lintian/overrides"
  install -m 0755 "$dir/sbc-bench" "$deb/usr/bin/sbc-bench"
  for m in "$dir"/man/*.1; do
    gzip -9n < "$m" > "$deb/usr/share/man/man1/$(basename "$m").gz"
  done
  install -m 0644 "$dir/completions/sbc-bench.bash" "$deb/usr/share/bash-completion/completions/sbc-bench"
  install -m 0644 "$dir/completions/_sbc-bench" "$deb/usr/share/zsh/vendor-completions/_sbc-bench"
  install -m 0644 "$dir/completions/sbc-bench.fish" "$deb/usr/share/fish/vendor_completions.d/sbc-bench.fish"
  install -m 0644 README.md "$doc/README.md"
  install -m 0644 "${user_docs[@]}" "$doc/"
  install -m 0644 docs/schema/*.schema.json "$doc/schema/"
  install -m 0644 contrib/grafana/sbc-bench.json "$doc/examples/grafana-dashboard.json"
  install -m 0644 contrib/systemd/*.service "$deb/usr/lib/systemd/system/"
  gzip -9n < CHANGELOG.md > "$doc/changelog.gz"
  # The Debian packaging's own changelog (a non-native package needs one).
  {
    echo "sbc-bench ($version-1) unstable; urgency=medium"
    echo
    echo "  * Release $version (upstream changes: changelog.gz)."
    echo
    echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$epoch")"
  } | gzip -9n > "$doc/changelog.Debian.gz"
  # What lintian would say of any static Rust binary, with the reason (docs/PACKAGING.md).
  cat > "$deb/usr/share/lintian/overrides/sbc-bench" <<'OVERRIDES'
# One static binary for Debian, Alpine and OpenWrt alike (no loader, no shared library):
# the static glibc and the bundled SQLite (rusqlite's `bundled`) are in it on purpose.
sbc-bench: statically-linked-binary [usr/bin/sbc-bench]
sbc-bench: statically-linked-binary [usr/lib/sbc-bench/7za]
sbc-bench: embedded-library sqlite [usr/bin/sbc-bench]
sbc-bench: embedded-library zlib [usr/bin/sbc-bench]
# 7-Zip 16.02 itself, the one version whose scores compare with published results.
sbc-bench: embedded-library *[usr/lib/sbc-bench/7za]
OVERRIDES
  {
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: sbc-bench"
    echo
    echo "Files: *"
    echo "Copyright: the sbc-bench (Rust) authors"
    echo "License: BSD-3-Clause"
    echo
    echo "License: BSD-3-Clause"
    sed 's/^$/./; s/^/ /' LICENSE
    for l in data/LICENSE.*; do
      echo
      echo "Comment: third-party notice $(basename "$l") (data tables built into the binary)"
      sed 's/^$/./; s/^/ /' "$l"
    done
  } > "$doc/copyright"
  recommends="openssl"
  if [ -x "$dir/7za" ]; then
    mkdir -p "$deb/usr/lib/sbc-bench"
    install -m 0755 "$dir/7za" "$deb/usr/lib/sbc-bench/7za"
    for l in "$dir"/7za-*; do
      install -m 0644 "$l" "$doc/$(basename "$l")"
    done
  else
    # No bundled 16.02: the distribution's 7-Zip (its scores are flagged as not comparable).
    recommends="openssl, 7zip | p7zip-full"
  fi
  installed_kb="$(du -sk --exclude=DEBIAN "$deb" | cut -f1)"
  {
    echo "Package: sbc-bench"
    echo "Version: $version-1"
    echo "Architecture: $arch"
    echo "Maintainer: $maintainer"
    echo "Installed-Size: $installed_kb"
    echo "Section: utils"
    echo "Priority: optional"
    echo "Recommends: $recommends"
    echo "Suggests: iperf3, stress-ng, smartmontools, curl | wget, prometheus-node-exporter"
    [ -z "$homepage" ] || echo "Homepage: $homepage"
    cat <<'CONTROL'
Description: benchmark single-board computers and small servers
 Measured (not advertised) clock speeds, memory bandwidth and latency, AES,
 compression, storage and network throughput, monitored while they run, with a
 validated report that says whether the numbers can be trusted and why.
 .
 One static binary (no dependencies); sbc-bench's command line flags work.
CONTROL
  } > "$deb/DEBIAN/control"
  find "$deb" -exec touch -h -d "@$epoch" {} +
  debfile="$out/sbc-bench_${version}-1_${arch}.deb"
  SOURCE_DATE_EPOCH="$epoch" dpkg-deb --root-owner-group -Zxz --build "$deb" "$debfile" >/dev/null
  [ "$(dpkg-deb --field "$debfile" Architecture)" = "$arch" ] || die "$debfile: wrong architecture"
  echo "    $debfile"
done

say "SHA256SUMS"
(
  cd "$out"
  ls sbc-bench-*-linux-static.tar.gz sbc-bench_*.deb 2>/dev/null | sort | xargs sha256sum > SHA256SUMS
  cat SHA256SUMS
)
