#!/bin/sh
# Install a sbc-bench release on this machine, no compiler needed.
#
#   sh install.sh --from DIR|URL [--prefix /usr/local] [--version V] [--target T]
#
# Picks the tarball for this machine (`uname -m`: sbc-bench-VERSION-CPU-linux-static.tar.gz)
# from DIR or URL (where scripts/release.sh's artifacts and their SHA256SUMS lie), checks
# its SHA-256 against SHA256SUMS and refuses to install anything on a mismatch or when the
# tarball is not listed, then installs
#   PREFIX/bin/sbc-bench
#   PREFIX/lib/sbc-bench/7za                   the bundled 7-Zip 16.02 (found there by the binary)
#   PREFIX/share/man/man1/sbc-bench*.1         a page per command (man sbc-bench-monitor)
#   PREFIX/share/doc/sbc-bench/                the documents --help names, the JSON schemas
#   PREFIX/share/bash-completion/completions/sbc-bench, PREFIX/share/zsh/site-functions/_sbc-bench,
#   PREFIX/share/fish/vendor_completions.d/sbc-bench.fish
#   PREFIX/lib/systemd/system/sbc-bench-{monitor,textfile}.service  (not enabled; ExecStart
#                                              pointed at PREFIX/bin/sbc-bench)
# --target takes a CPU (aarch64, x86_64, armv7, riscv64) or a Rust target triple. POSIX sh
# with sha256sum (coreutils or busybox), tar, gzip, and curl or wget for a URL: works on
# Debian, Alpine and OpenWrt.
set -eu

from="${SBC_BENCH_RELEASES:-}"
prefix=/usr/local
version=""
target=""
die() { echo "install.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --from) from="${2:?--from needs DIR or URL}"; shift ;;
    --prefix) prefix="${2:?--prefix needs a directory}"; shift ;;
    --version) version="${2:?--version needs a version}"; shift ;;
    --target) target="${2:?--target needs a Rust target}"; shift ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$from" ] || { echo "install.sh: say where the release is: --from DIR|URL" >&2; exit 2; }

# The release's name of a CPU (`uname -m`, or a Rust target triple for --target).
m="${target:-$(uname -m)}"
case "$m" in
  aarch64*|arm64|armv8*) target=aarch64-linux-static ;;
  x86_64*|amd64) target=x86_64-linux-static ;;
  armv7*|armhf) target=armv7-linux-static ;;
  riscv64*) target=riscv64-linux-static ;;
  *) die "no release for this machine ($m): aarch64, x86_64, armv7 and riscv64 are built" ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT INT TERM

# fetch NAME: copy or download NAME from the release into $work.
fetch() {
  case "$from" in
    http://*|https://*)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL -o "$work/$1" "${from%/}/$1" || die "cannot download ${from%/}/$1"
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$work/$1" "${from%/}/$1" || die "cannot download ${from%/}/$1"
      else
        die "neither curl nor wget to download with"
      fi ;;
    *)
      [ -f "$from/$1" ] || die "$from/$1: no such file"
      cp "$from/$1" "$work/$1" ;;
  esac
}

fetch SHA256SUMS
# The tarball for this target: the given version, else the highest listed.
pattern="sbc-bench-${version:-*}-$target.tar.gz"
# busybox's sort may lack -V: then a plain sort.
vsort() { if echo 1 | sort -V >/dev/null 2>&1; then sort -t- -k3,3V; else sort; fi; }
tarball="$(awk '{print $2}' "$work/SHA256SUMS" | sed 's/^\*//' | while read -r f; do
  case "$f" in $pattern) echo "$f" ;; esac
done | vsort | tail -n 1)"
[ -n "$tarball" ] || die "SHA256SUMS lists no $pattern"
fetch "$tarball"

want="$(awk -v f="$tarball" '$2 == f || $2 == "*" f {print $1; exit}' "$work/SHA256SUMS")"
have="$(sha256sum "$work/$tarball" | awk '{print $1}')"
if [ "$want" != "$have" ]; then
  die "checksum mismatch for $tarball: SHA256SUMS says $want, the file is $have; nothing installed"
fi
echo "$tarball: checksum OK"

tar -C "$work" -xzf "$work/$tarball"
dir="$work/${tarball%.tar.gz}"
[ -f "$dir/sbc-bench" ] || die "$tarball holds no sbc-bench binary"
mkdir -p "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/doc/sbc-bench"
# Through a temporary name in the same directory, then a rename: a running sbc-bench is
# never overwritten in place.
cp "$dir/sbc-bench" "$prefix/bin/.sbc-bench.new"
chmod 0755 "$prefix/bin/.sbc-bench.new"
mv -f "$prefix/bin/.sbc-bench.new" "$prefix/bin/sbc-bench"
cp "$dir"/man/*.1 "$prefix/share/man/man1/"
if [ -f "$dir/7za" ]; then
  mkdir -p "$prefix/lib/sbc-bench"
  cp "$dir/7za" "$prefix/lib/sbc-bench/.7za.new"
  chmod 0755 "$prefix/lib/sbc-bench/.7za.new"
  mv -f "$prefix/lib/sbc-bench/.7za.new" "$prefix/lib/sbc-bench/7za"
  cp "$dir"/7za-* "$prefix/share/doc/sbc-bench/" 2>/dev/null || true
fi
if [ -d "$dir/doc" ]; then cp -R "$dir"/doc/. "$prefix/share/doc/sbc-bench/"; fi
cp "$dir/README.md" "$dir/LICENSE" "$dir/CHANGELOG.md" "$prefix/share/doc/sbc-bench/"
if [ -d "$dir/completions" ]; then
  mkdir -p "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
  cp "$dir/completions/sbc-bench.bash" "$prefix/share/bash-completion/completions/sbc-bench"
  cp "$dir/completions/_sbc-bench" "$prefix/share/zsh/site-functions/_sbc-bench"
  cp "$dir/completions/sbc-bench.fish" "$prefix/share/fish/vendor_completions.d/sbc-bench.fish"
fi
if [ -d "$dir/systemd" ]; then
  mkdir -p "$prefix/lib/systemd/system"
  for u in "$dir"/systemd/*.service; do
    sed "s|/usr/bin/sbc-bench|$prefix/bin/sbc-bench|g" "$u" > "$prefix/lib/systemd/system/$(basename "$u")"
  done
fi
echo "installed $prefix/bin/sbc-bench ($target)"
"$prefix/bin/sbc-bench" --version 2>/dev/null || echo "note: $prefix/bin/sbc-bench does not run on this machine"
