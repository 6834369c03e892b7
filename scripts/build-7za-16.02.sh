#!/usr/bin/env bash
# Builds a static `7za` of 7-Zip/p7zip 16.02 — the one version whose `7za b` scores compare
# with published sbc-bench results — for boards that have no compiler, from Debian
# bullseye's source package p7zip 16.02+dfsg-8 with Debian's patches applied and nothing
# else changed.
#
#   scripts/build-7za-16.02.sh [TARGET…]
#
# TARGETs are Rust-style names (default: all four):
#   aarch64-unknown-linux-gnu  armv7-unknown-linux-gnueabihf
#   riscv64gc-unknown-linux-gnu x86_64-unknown-linux-gnu
# (any name starting with aarch64/armv7/riscv64/x86_64 picks that CPU). Whatever the
# target's libc suffix, the binary is linked statically against glibc (Debian's cross
# toolchains), not musl: it needs no library on the board.
#
# Output, per target, in target/7za-16.02/<target>/: `7za`, the source package's license
# files (DOC/License.txt, DOC/copying.txt, debian/copyright; the +dfsg package ships no
# unRAR code, so no unRarLicense) and `SOURCE` (package, version, .dsc SHA256, compiler,
# flags). Downloads are cached in target/7za-16.02/src/, build trees in
# target/7za-16.02/build/<target>/ (make is incremental: a re-run only links and checks).
#
# Needs: curl, dpkg-dev (dpkg-source), make, g++ and for the other CPUs Debian's
# g++-aarch64-linux-gnu, g++-arm-linux-gnueabihf, g++-riscv64-linux-gnu; `file` and
# qemu-user-static (qemu-<cpu>-static) for the checks. Set INSTALL_DEPS=1 to apt-get
# the missing ones.
#
# Build choices (command-line make variables only; no source or makefile is edited):
#   DEBIAN_P7ZIP_MAKEFILE=makefile.linux_any_cpu_gcc_4.X  the makefile Debian's own
#     makefile.machine picks on every CPU but i386/amd64 (plain C/C++, no yasm assembler);
#     used on x86_64 too so every CPU runs the same C code.
#   OPTFLAGS='-O3 -s'  the -O3 sbc-bench passes when it builds p7zip 16.02 on a board
#     (InstallOldP7zip), stripped.
#   LDFLAGS=-static    static glibc.
set -euo pipefail
cd "$(dirname "$0")/.."

PKG=p7zip
VERSION=16.02+dfsg-8
UPSTREAM=16.02+dfsg
POOL=http://deb.debian.org/debian/pool/main/p/p7zip
DSC="${PKG}_${VERSION}.dsc"
# SHA256 of Debian bullseye's p7zip_16.02+dfsg-8.dsc; the .dsc in turn lists the SHA256 of
# the .orig.tar.xz and .debian.tar.xz, which are checked against it.
DSC_SHA256=b65fe78ab1ed27c26dc5fb0e51ba3df655a9059eb2a7fbd272946af9c4ef7914
MAKEFILE_MACHINE=makefile.linux_any_cpu_gcc_4.X
OPTFLAGS='-O3 -s'

ROOT="$PWD/target/7za-16.02"
SRC="$ROOT/src"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

say() { printf '==> [%4ds] %s\n' "$SECONDS" "$*"; }
die() { printf 'build-7za-16.02: %s\n' "$*" >&2; exit 1; }

[ $# -gt 0 ] || set -- aarch64-unknown-linux-gnu armv7-unknown-linux-gnueabihf \
  riscv64gc-unknown-linux-gnu x86_64-unknown-linux-gnu

# target → GNU triple of Debian's toolchain, qemu CPU name, Debian cross g++ package.
triple_of() {
  case "$1" in
    aarch64*) echo "aarch64-linux-gnu aarch64 g++-aarch64-linux-gnu" ;;
    armv7*) echo "arm-linux-gnueabihf arm g++-arm-linux-gnueabihf" ;;
    riscv64*) echo "riscv64-linux-gnu riscv64 g++-riscv64-linux-gnu" ;;
    x86_64*) echo "x86_64-linux-gnu x86_64 g++-x86-64-linux-gnu" ;;
    *) return 1 ;;
  esac
}

HOST_TRIPLE="$(gcc -dumpmachine 2>/dev/null || true)"
compiler_prefix() { # triple → "" for the host's own gcc, "triple-" otherwise
  if [ "$1" = "$HOST_TRIPLE" ]; then echo ""; else echo "$1-"; fi
}

# --- tools -----------------------------------------------------------------------------
missing=()
command -v curl >/dev/null || missing+=(curl)
command -v dpkg-source >/dev/null || missing+=(dpkg-dev)
command -v make >/dev/null || missing+=(make)
command -v file >/dev/null || missing+=(file)
for t in "$@"; do
  read -r triple cpu gpp < <(triple_of "$t") || die "unknown target $t"
  pre="$(compiler_prefix "$triple")"
  command -v "${pre}g++" >/dev/null || missing+=("$([ -z "$pre" ] && echo g++ || echo "$gpp")")
  [ -n "$pre" ] && { command -v "qemu-$cpu-static" >/dev/null || missing+=(qemu-user-static); }
done
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  if [ "${INSTALL_DEPS:-0}" = 1 ]; then
    say "installing ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null
  else
    die "missing ${missing[*]} (install them, or re-run with INSTALL_DEPS=1)"
  fi
fi

# --- source package --------------------------------------------------------------------
mkdir -p "$SRC"
fetch() { # file: download into $SRC unless already there
  [ -s "$SRC/$1" ] && return 0
  say "downloading $POOL/$1"
  curl -fsSL --retry 3 -o "$SRC/$1.part" "$POOL/$1" && mv "$SRC/$1.part" "$SRC/$1"
}
fetch "$DSC"
echo "$DSC_SHA256  $SRC/$DSC" | sha256sum -c --quiet - ||
  die "$DSC does not have the expected SHA256 $DSC_SHA256 (delete $SRC to re-download)"
# The files and SHA256s the .dsc lists.
mapfile -t listed < <(awk '/^Checksums-Sha256:/{on=1;next} on&&/^ /{print $1" "$3;next} {on=0}' "$SRC/$DSC")
[ ${#listed[@]} -ge 2 ] || die "no Checksums-Sha256 in $DSC"
for entry in "${listed[@]}"; do
  read -r sum name <<<"$entry"
  fetch "$name"
  echo "$sum  $SRC/$name" | sha256sum -c --quiet - || die "$name does not match the SHA256 in $DSC"
done
say "source: $PKG $VERSION, .dsc SHA256 $DSC_SHA256, all listed SHA256s match"

# --- per target ------------------------------------------------------------------------
for t in "$@"; do
  read -r triple cpu _ < <(triple_of "$t")
  pre="$(compiler_prefix "$triple")"
  build="$ROOT/build/$t"
  tree="$build/$PKG-16.02"
  out="$ROOT/$t"
  start=$SECONDS
  if [ ! -f "$tree/.unpacked" ]; then
    rm -rf "$build"; mkdir -p "$build"
    # dpkg-source verifies the checksums again and applies debian/patches/ (quilt series).
    dpkg-source -x "$SRC/$DSC" "$tree" >"$build/dpkg-source.log" 2>&1 ||
      { cat "$build/dpkg-source.log" >&2; die "dpkg-source -x failed"; }
    touch "$tree/.unpacked"
  fi
  say "$t: building 7za with ${pre}g++ ($("${pre}g++" -dumpfullversion 2>/dev/null || "${pre}g++" -dumpversion)), -j$JOBS"
  # Only the 7za program (CPP/7zip/Bundles/Alone). Compiler warnings go to the log.
  if ! make -C "$tree" -j"$JOBS" 7za \
    DEBIAN_P7ZIP_MAKEFILE="$MAKEFILE_MACHINE" \
    CC="${pre}gcc" CXX="${pre}g++" OPTFLAGS="$OPTFLAGS" LDFLAGS=-static \
    >"$build/make.log" 2>&1; then
    tail -n 30 "$build/make.log" >&2
    die "$t: make failed (log: $build/make.log)"
  fi
  bin="$tree/bin/7za"
  [ -x "$bin" ] || die "$t: no $bin after make"
  # glibc's static-link warnings (getpwnam & co. needing the shared NSS libraries at run time).
  if grep -i "statically linked applications requires" "$build/make.log" >"$build/static-warnings.log"; then
    say "$t: linker warnings (static glibc):"; sed 's/^/      /' "$build/static-warnings.log"
  fi
  mkdir -p "$out"
  cp "$bin" "$out/7za"
  cp "$tree/DOC/License.txt" "$tree/DOC/copying.txt" "$out/"
  cp "$tree/debian/copyright" "$out/copyright"
  [ -f "$tree/DOC/unRarLicense.txt" ] && cp "$tree/DOC/unRarLicense.txt" "$out/"
  {
    echo "7za: 7-Zip (p7zip) 16.02, statically linked (glibc), for $t"
    echo "Built from: $PKG $VERSION (Debian bullseye source package)"
    echo "  $POOL/$DSC"
    echo "  .dsc SHA256: $DSC_SHA256"
    for entry in "${listed[@]}"; do read -r sum name <<<"$entry"; echo "  $name SHA256: $sum"; done
    echo "Patches: Debian's debian/patches/series applied by dpkg-source -x; nothing else changed."
    echo "Built with: make 7za DEBIAN_P7ZIP_MAKEFILE=$MAKEFILE_MACHINE CC=${pre}gcc CXX=${pre}g++ OPTFLAGS='$OPTFLAGS' LDFLAGS=-static"
    echo "Compiler: $("${pre}g++" --version | head -n1)"
    echo "Licenses: License.txt, copying.txt (GNU LGPL 2.1), copyright (Debian's debian/copyright)."
    echo "Source: the .dsc, .orig.tar.xz and .debian.tar.xz above (also in Debian's snapshot archive)."
  } >"$out/SOURCE"
  say "$t: $(file -b "$out/7za" | sed 's/, BuildID[^,]*//')"
  file -b "$out/7za" | grep -q "statically linked" || die "$t: 7za is not statically linked"
  run=()
  [ -n "$pre" ] && run=("qemu-$cpu-static")
  banner="$("${run[@]}" "$out/7za" i 2>&1 | grep -m1 '^7-Zip' || true)"
  case "$banner" in
    *" 16.02 "*) say "$t: runs: $banner" ;;
    *) die "$t: \`${run[*]} $out/7za i\` printed no 7-Zip 16.02 banner: '$banner'" ;;
  esac
  say "$t: done in $((SECONDS - start)) s, $(stat -c %s "$out/7za") bytes -> $out/"
done
