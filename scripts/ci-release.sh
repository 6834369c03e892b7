#!/usr/bin/env bash
# CI of the release: every artifact of scripts/release.sh in its quick form (the `ci-dist`
# profile) but aarch64's, built in the real release profile (`dist`) and held to the size
# budget (scripts/ci-size.sh); each binary smoke-tested on two fixture sysroots (under
# qemu-user where it is not this machine's); lintian on a .deb; scripts/install.sh tested
# against the artifact directory (the bundled 7-Zip 16.02 found and run, the man page of a
# subcommand rendered, a checksum mismatch refused). Run by .ci/run; installs what it needs
# (`--deps`: only that).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/cross.sh

say() { printf '\n==> [%4ds] %s\n' "$SECONDS" "$*"; }
fail() { echo "ci-release: FAIL: $*" >&2; exit 1; }
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

need=()
for p in qemu-aarch64-static:qemu-user-static x86_64-linux-gnu-gcc:gcc \
  aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf \
  riscv64-linux-gnu-gcc:gcc-riscv64-linux-gnu file:file dpkg-deb:dpkg lintian:lintian \
  man:man-db; do
  command -v "${p%%:*}" >/dev/null 2>&1 || need+=("${p#*:}")
done
# The C libraries the static links need: a cross gcc only recommends them, so a machine
# (or an install with --no-install-recommends) can have the compiler without crt1.o.
for p in libc6-dev libc6-dev-arm64-cross libc6-dev-armhf-cross libc6-dev-riscv64-cross; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  say "installing ${need[*]}"
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
python3 -m ziglang version >/dev/null 2>&1 || {
  say "installing ziglang"
  python3 -m pip install -q --disable-pip-version-check ziglang 2>&1 | grep -v "Running pip as the 'root' user" || true
}
rustup target add "${CROSS_TARGETS[@]}" >/dev/null
# --deps: only install what the cross builds need (.ci/run, before it starts them).
[ "${1:-}" != --deps ] || exit 0

# The targets whose artifacts CI builds and smoke-tests: all four release targets, in one
# cargo run (.ci/run starts it beside the test suite, `release.sh --build-only`, so that
# here it finds them built). `CI_RELEASE_TARGETS="…"` picks fewer; a release target left
# out is still compile-checked (`cargo check`).
read -r -a ci_targets <<< "${CI_RELEASE_TARGETS:-${CROSS_TARGETS[*]}}"
# The target built in the real release profile (the artifact we publish, size-checked).
real="${CI_REAL_TARGET:-aarch64-unknown-linux-gnu}"
profile_of() { if [ "$1" = "$real" ]; then echo dist; else echo ci-dist; fi; }
dist="target/ci-dist-artifacts"
rm -rf "$dist"
say "scripts/release.sh --quick --real $real (${ci_targets[*]}: tarballs, .debs, SHA256SUMS)"
release_args=()
for t in "${ci_targets[@]}"; do release_args+=(--target "$t"); done
scripts/release.sh --quick --real "$real" --out "$dist" "${release_args[@]}"
case " ${ci_targets[*]} " in
  *" $real "*)
    say "size budget of the $real release binary (scripts/ci-size.sh)"
    scripts/ci-size.sh "${CARGO_TARGET_DIR:-target}/$real/dist/sbc-bench" ;;
esac
version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
for t in "${CROSS_TARGETS[@]}"; do
  case " ${ci_targets[*]} " in *" $t "*) continue ;; esac
  case "$t" in x86_64-*) continue ;; esac
  say "compile check $t (library and binary; its artifact is built by scripts/release.sh)"
  cross "$t" check --locked --profile ci-dist
done

for t in "${ci_targets[@]}"; do
  n="sbc-bench-$version-$(cross_static_name "$t")"
  tar -tzf "$dist/$n.tar.gz" > /tmp/ci-release-list.$$
  for f in sbc-bench 7za 7za-SOURCE README.md LICENSE CHANGELOG.md man/sbc-bench.1 \
    man/sbc-bench-monitor.1 man/sbc-bench-bench-clock.1 doc/POWER.md doc/PRIVACY.md \
    doc/PROMETHEUS.md doc/RESULTS-DB.md doc/COMMANDS.md doc/schema/sbc-bench-run.schema.json \
    systemd/sbc-bench-monitor.service systemd/sbc-bench-textfile.service grafana/sbc-bench.json \
    completions/sbc-bench.bash completions/_sbc-bench completions/sbc-bench.fish; do
    grep -qx "$n/$f" /tmp/ci-release-list.$$ || fail "$n.tar.gz lacks $f"
  done
  a="$(cross_deb_arch "$t")"
  dpkg-deb -c "$dist/sbc-bench_${version}-1_$a.deb" > /tmp/ci-release-list.$$
  for f in ./usr/bin/sbc-bench ./usr/lib/sbc-bench/7za ./usr/share/man/man1/sbc-bench.1.gz \
    ./usr/share/man/man1/sbc-bench-monitor.1.gz ./usr/share/doc/sbc-bench/POWER.md \
    ./usr/share/doc/sbc-bench/PRIVACY.md ./usr/share/doc/sbc-bench/schema/sbc-bench-run.schema.json \
    ./usr/share/doc/sbc-bench/examples/grafana-dashboard.json \
    ./usr/lib/systemd/system/sbc-bench-monitor.service \
    ./usr/lib/systemd/system/sbc-bench-textfile.service \
    ./usr/share/bash-completion/completions/sbc-bench ./usr/share/doc/sbc-bench/copyright \
    ./usr/share/doc/sbc-bench/changelog.Debian.gz; do
    grep -q " $f\$" /tmp/ci-release-list.$$ || fail "$a .deb lacks $f"
  done
done
rm -f /tmp/ci-release-list.$$
(cd "$dist" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match"

# smoke T SYSROOT: the four commands of the release check, with their output checked.
smoke() {
  local t="$1" root="tests/fixtures/sysroots/$2" q bin out
  q="$(cross_qemu "$t")"
  bin="${CARGO_TARGET_DIR:-target}/$t/$(profile_of "$t")/sbc-bench"
  run() { timeout 120 ${q:+"$q"} "$bin" --sysroot "$root" "$@"; }
  out="$(run --version)"
  case "$out" in *"$t)"*) ;; *) fail "$t: --version names another target: $out" ;; esac
  out="$(run info)" || fail "$t $2: info"
  [ "$(printf '%s\n' "$out" | head -1)" = "$3" ] || fail "$t $2: info says $(printf '%s\n' "$out" | head -1)"
  out="$(run monitor 0.2 --count 3)" || fail "$t $2: monitor"
  [ "$(printf '%s\n' "$out" | grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]: ')" = 3 ] || fail "$t $2: monitor printed $out"
  # Under qemu-user the clock loop's timing is the emulator's and now and then no pair of
  # runs is plausible ("could not be timed"): up to three tries there, each one said.
  local try
  for try in 1 2 3; do
    out="$(run bench clock --quick 2>&1)" || fail "$t $2: bench clock: $out"
    printf '%s\n' "$out" | grep -q "Measured: [0-9]" && break
    [ -n "$q" ] && [ "$try" -lt 3 ] || fail "$t $2: bench clock printed $out"
    echo "    $t on $2: bench clock not timed under $q (try $try), again"
  done
  out="$(run bench aes --quick --native-only 2>&1)" || fail "$t $2: bench aes: $out"
  printf '%s\n' "$out" | grep -q "^aes-256-cbc  *[0-9]" || fail "$t $2: bench aes printed $out"
  echo "    $t on $2: info, monitor, bench clock, bench aes OK"
}
for t in "${ci_targets[@]}"; do
  say "smoke test $t $(cross_qemu "$t")"
  smoke "$t" rock-5b "Radxa ROCK 5B"
  smoke "$t" rpi4 "Raspberry Pi 4 Model B Rev 1.1"
done

deb_lint="$dist/sbc-bench_${version}-1_$(cross_deb_arch "${ci_targets[0]}").deb"
say "lintian $(basename "$deb_lint")"
# Errors fail; warnings and the rest are shown. (--no-tag-display-limit: every line.)
lintian --no-tag-display-limit --info "$deb_lint" > /tmp/ci-release-lintian.$$ 2>&1 || true
sed 's/^/    /' /tmp/ci-release-lintian.$$
if grep -q '^E: ' /tmp/ci-release-lintian.$$; then fail "lintian reports errors"; fi
echo "    lintian: $(grep -c '^E: ' /tmp/ci-release-lintian.$$) errors, $(grep -c '^W: ' /tmp/ci-release-lintian.$$) warnings"
rm -f /tmp/ci-release-lintian.$$

say "scripts/install.sh from the artifact directory"
inst="$(mktemp -d)"
trap 'rm -rf "$inst"' EXIT
if [ -e "$dist/sbc-bench-$version-$(uname -m)-linux-static.tar.gz" ]; then
  sh scripts/install.sh --from "$dist" --prefix "$inst/ok" | tee "$inst/log"
  "$inst/ok/bin/sbc-bench" --version | grep -q "$(uname -m)" || fail "install.sh installed another arch"
  [ -f "$inst/ok/share/man/man1/sbc-bench.1" ] || fail "install.sh installed no man page"
  for f in share/doc/sbc-bench/POWER.md share/bash-completion/completions/sbc-bench \
    share/zsh/site-functions/_sbc-bench lib/systemd/system/sbc-bench-monitor.service; do
    [ -f "$inst/ok/$f" ] || fail "install.sh did not install $f"
  done
  grep -q "^ExecStart=$inst/ok/bin/sbc-bench monitor" "$inst/ok/lib/systemd/system/sbc-bench-monitor.service" \
    || fail "install.sh's unit does not run $inst/ok/bin/sbc-bench"
  # `man sbc-bench-monitor` renders (a page per command, issue 29).
  MANPATH="$inst/ok/share/man" MANWIDTH=80 man -P cat sbc-bench-monitor > "$inst/man.txt" 2>/dev/null \
    || fail "man sbc-bench-monitor does not render"
  for s in NAME SYNOPSIS EXAMPLES ENVIRONMENT FILES; do
    grep -q "^$s" "$inst/man.txt" || fail "man sbc-bench-monitor lacks $s"
  done
  echo "    man sbc-bench-monitor: $(wc -l < "$inst/man.txt") lines, $(sed -n 1p "$inst/man.txt" | tr -s ' ')"
  # A fresh install runs the bundled 7-Zip 16.02 from PREFIX/lib/sbc-bench (issue 28, item 9).
  env -u SBC_BENCH_LIBDIR PATH=/usr/bin:/bin "$inst/ok/bin/sbc-bench" bench compress --quick \
    --cpus 0 --json > "$inst/7z.json" || fail "bench compress after install.sh"
  grep -q "\"path\": \"$inst/ok/lib/sbc-bench/7za\"" "$inst/7z.json" \
    || fail "the installed binary did not run $inst/ok/lib/sbc-bench/7za: $(grep -m3 '"path"\|"engine"' "$inst/7z.json")"
  grep -q '"engine": "16.02"' "$inst/7z.json" || fail "the installed 7za is not 16.02"
  echo "    installed binary ran $inst/ok/lib/sbc-bench/7za (7-Zip 16.02)"
else
  # This machine's tarball was not built: install.sh must say so and install nothing.
  if sh scripts/install.sh --from "$dist" --prefix "$inst/none" 2> "$inst/err"; then
    fail "install.sh installed without a tarball for $(uname -m)"
  fi
  [ ! -e "$inst/none/bin/sbc-bench" ] || fail "install.sh left a binary without a tarball"
  echo "    no $(uname -m) tarball: $(head -1 "$inst/err")"
fi
sh scripts/install.sh --from "$dist" --prefix "$inst/arm" --target aarch64 | tee "$inst/log"
file -b "$inst/arm/bin/sbc-bench" | grep -q aarch64 || fail "install.sh --target aarch64 installed $(file -b "$inst/arm/bin/sbc-bench")"
[ -f "$inst/arm/share/man/man1/sbc-bench.1" ] || fail "install.sh installed no man page"

say "scripts/install.sh refuses a checksum mismatch"
bad="$inst/bad"
cp -r "$dist" "$bad"
tb="sbc-bench-$version-aarch64-linux-static.tar.gz"
printf 'x' >> "$bad/$tb"
if sh scripts/install.sh --from "$bad" --prefix "$inst/no" --target aarch64-unknown-linux-gnu 2> "$inst/err"; then
  fail "install.sh installed a tarball whose checksum does not match"
fi
grep -q "checksum mismatch" "$inst/err" || fail "install.sh said $(cat "$inst/err")"
[ ! -e "$inst/no/bin/sbc-bench" ] || fail "install.sh left a binary after a mismatch"
cat "$inst/err"
say "cargo package (the file list; the full verifying build is not repeated here)"
cargo package --locked --no-verify --allow-dirty >/dev/null
list="$(cargo package --locked --list --allow-dirty)"
printf '%s\n' "$list" | grep -qx "src/main.rs" || fail "cargo package lacks src/main.rs"
printf '%s\n' "$list" | grep -qx "LICENSE" || fail "cargo package lacks LICENSE"
if printf '%s\n' "$list" | grep -q "^tests/"; then fail "cargo package ships the fixtures"; fi
printf '%s\n' "$list" | grep -qx "docs/schema/sbc-bench-run.schema.json" || fail "cargo package lacks docs/schema"
printf '%s\n' "$list" | grep -qx "contrib/systemd/sbc-bench-monitor.service" || fail "cargo package lacks the units"
echo "    $(printf '%s\n' "$list" | wc -l) files"
say "release artifacts OK"
