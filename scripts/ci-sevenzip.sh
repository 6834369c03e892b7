#!/usr/bin/env bash
# CI for the bundled 7-Zip 16.02: builds the static `7za` for every release target
# (x86_64, aarch64, armv7, riscv64: a release carries it for each or fails, issue 28 item 9)
# with scripts/build-7za-16.02.sh (Debian bullseye's p7zip 16.02+dfsg-8, Debian's patches)
# and checks that each runs a short `7za b` (one pass, one thread, 256 KiB dictionary),
# the others under qemu-user. Installs what it needs; fails loudly.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\n==> [ci-sevenzip %4ds] %s\n' "$SECONDS" "$*"; }

say "building 7za 16.02 for the four release targets (installs dpkg-dev, the cross g++, qemu-user-static if missing)"
INSTALL_DEPS=1 scripts/build-7za-16.02.sh x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu \
  armv7-unknown-linux-gnueabihf riscv64gc-unknown-linux-gnu

check() { # target, runner…
  local t="$1"; shift
  local bin="target/7za-16.02/$t/7za"
  say "$t: ${*:+$* }$bin b 1 -mmt1 -md18"
  local out
  out="$("$@" "$bin" b 1 -mmt1 -md18 2>&1)" || { echo "$out" >&2; echo "7za b failed for $t" >&2; exit 1; }
  grep -q '^7-Zip (a) .*16\.02' <<<"$out" || { echo "$out" >&2; echo "$t: not 7-Zip 16.02" >&2; exit 1; }
  grep -E '^Tot:' <<<"$out" || { echo "$out" >&2; echo "$t: no Tot: line" >&2; exit 1; }
  for f in SOURCE License.txt copying.txt copyright; do
    [ -s "target/7za-16.02/$t/$f" ] || { echo "$t: $f missing" >&2; exit 1; }
  done
  grep -q 'p7zip 16.02+dfsg-8 (Debian bullseye source package)' "target/7za-16.02/$t/SOURCE"
}
check x86_64-unknown-linux-gnu
check aarch64-unknown-linux-gnu qemu-aarch64-static
check armv7-unknown-linux-gnueabihf qemu-arm-static
check riscv64gc-unknown-linux-gnu qemu-riscv64-static
say "7za 16.02 ok"
