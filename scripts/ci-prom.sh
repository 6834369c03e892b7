#!/usr/bin/env bash
# CI for the fleet tooling (docs/PROMETHEUS.md, contrib/ansible/): installs promtool
# (Debian's `prometheus` package) and checks the exposition the monitor writes (textfile,
# with a run's scores) and serves (/metrics) with `promtool check metrics`; installs
# ansible-core (Debian's package: the playbook needs only ansible.builtin, and the full
# `ansible` package unpacks ~250 MB of collections), checks the playbook's syntax, then runs
# it for real against this machine (local connection) from a local release directory
# holding a tarball of the binary already built (with the bundled 7za when built, and the
# systemd units) and its SHA256SUMS, with canned benchmarks over a writable copy of a
# fixture board — install, checksum, 7za and units placed, run and fetch are exercised.
# Usage: scripts/ci-prom.sh [BINARY]   (default target/debug/sbc-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath -m "${1:-target/debug/sbc-bench}")"

say() { printf '\n==> [ci-prom %3ds] %s\n' "$SECONDS" "$*"; }
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

if ! command -v promtool >/dev/null 2>&1; then
  say "installing prometheus (Debian; for promtool)"
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
promtool --version 2>&1 | sed -n 1p
[ -x "$bin" ] || { echo "ci-prom: no binary at $bin (build first)" >&2; exit 1; }

say "promtool check metrics: the textfile (with a run's scores) and /metrics"
pt="$(mktemp -d)"
cp -a tests/fixtures/sysroots/rock-5b "$pt/board"
"$bin" --sysroot "$pt/board" --sysroot-writable run --fake-benchmarks --unattended --no-store \
  --log "$pt/run.log" --json "$pt/run.json" >/dev/null 2>&1 || [ -s "$pt/run.json" ] \
  || { echo "ci-prom: the fake run wrote no JSON" >&2; exit 1; }
mkdir -p "$pt/textfile"
"$bin" --sysroot "$pt/board" monitor 0.2 --count 2 --quiet --textfile "$pt/textfile" \
  --scores "$pt/run.json"
grep -q '^sbc_bench_run_compression_mips{' "$pt/textfile/sbc-bench.prom" \
  || { echo "ci-prom: no run scores in the textfile" >&2; exit 1; }
promtool check metrics < "$pt/textfile/sbc-bench.prom"
echo "    textfile: $(grep -vc '^#' "$pt/textfile/sbc-bench.prom") samples, promtool: OK"
"$bin" --sysroot "$pt/board" monitor 0.2 --count 40 --quiet --prometheus 127.0.0.1:0 \
  2> "$pt/serve.err" &
mon=$!
url=""
for _ in $(seq 50); do
  url="$(sed -n 's/.*serving metrics on \(http[^ ]*\).*/\1/p' "$pt/serve.err")"
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$pt/serve.err" >&2; kill "$mon"; exit 1; }
sleep 0.5
curl -fsS "$url" > "$pt/served.prom"
curl -fsSI "${url%/metrics}/" | sed -n 1p | grep -q ' 200' || { echo "ci-prom: HEAD / failed" >&2; kill "$mon"; exit 1; }
kill "$mon"; wait "$mon" 2>/dev/null || true
promtool check metrics < "$pt/served.prom"
echo "    /metrics: $(grep -vc '^#' "$pt/served.prom") samples, promtool: OK; HEAD / 200"
rm -rf "$pt"

if ! command -v ansible-playbook >/dev/null 2>&1; then
  say "installing ansible-core (Debian)"
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends ansible-core >/dev/null
fi
ansible-playbook --version | sed -n 1p   # sed reads it all: no broken pipe under pipefail

cd contrib/ansible
say "ansible-playbook --syntax-check contrib/ansible/sbc-bench.yml"
ansible-playbook --syntax-check -i inventory.example.ini sbc-bench.yml

if [ "$(id -u)" -ne 0 ]; then
  say "not root: skipping the local playbook run (it becomes root)"
  exit 0
fi

say "playbook run on localhost from a local release directory"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
arch="$(uname -m)"
case "$arch" in
  aarch64) target=aarch64-linux-static; rust=aarch64-unknown-linux-gnu ;;
  armv7l) target=armv7-linux-static; rust=armv7-unknown-linux-gnueabihf ;;
  riscv64) target=riscv64-linux-static; rust=riscv64gc-unknown-linux-gnu ;;
  x86_64) target=x86_64-linux-static; rust=x86_64-unknown-linux-gnu ;;
  *) echo "ci-prom: no target for $arch" >&2; exit 1 ;;
esac
version=0.0.0-ci
name="sbc-bench-$version-$target"
mkdir -p "$work/rel/$name/systemd" "$work/install"
# Without debug info: the debug build is ~160 MB, a tenth of that stripped.
strip -o "$work/rel/$name/sbc-bench" "$bin" 2>/dev/null || cp "$bin" "$work/rel/$name/sbc-bench"
cp ../systemd/*.service "$work/rel/$name/systemd/"
seven="../../target/7za-16.02/$rust/7za"
if [ -x "$seven" ]; then cp "$seven" "$work/rel/$name/7za"; fi
tar -C "$work/rel" -cf - "$name" | gzip -1 > "$work/rel/$name.tar.gz"
rm -rf "${work:?}/rel/$name"
(cd "$work/rel" && sha256sum "$name.tar.gz" > SHA256SUMS)
cp -a ../../tests/fixtures/sysroots/rock-5b "$work/board"
ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false \
ansible-playbook -i localhost, -c local sbc-bench.yml \
  -e sbc_bench_hosts=localhost \
  -e "sbc_bench_release=$work/rel" -e "sbc_bench_version=$version" \
  -e "sbc_bench_install_dir=$work/install" -e "sbc_bench_remote_dir=$work/remote" \
  -e "sbc_bench_results_dir=$work/results" -e sbc_bench_poll_s=1 \
  -e "sbc_bench_unit_dir=$work/units" \
  -e "sbc_bench_run_args='--fake-benchmarks --sysroot-writable --sysroot $work/board --log $work/run.log'"
json="$(ls "$work"/results/*.json)"
for u in sbc-bench-monitor sbc-bench-textfile; do
  grep -q "^ExecStart=$work/install/sbc-bench monitor" "$work/units/$u.service" \
    || { echo "ci-prom: the playbook did not install $u.service pointed at the binary" >&2; exit 1; }
done
if [ -x "$seven" ]; then
  [ -x "$work/lib/sbc-bench/7za" ] || { echo "ci-prom: the playbook dropped the bundled 7za" >&2; exit 1; }
  echo "    7za installed as $work/lib/sbc-bench/7za (the binary's <bin>/../lib/sbc-bench)"
fi
grep -q '"schema": *"sbc-bench-run"' "$json" || { echo "ci-prom: $json is not a run JSON" >&2; exit 1; }
"$work/install/sbc-bench" results import --db "$work/results.db" "$work/results" | tail -2

say "a tarball SHA256SUMS does not list is refused"
echo "0000000000000000000000000000000000000000000000000000000000000000  other.tar.gz" > "$work/rel/SHA256SUMS"
if ansible-playbook -i localhost, -c local sbc-bench.yml -e sbc_bench_hosts=localhost \
     -e "sbc_bench_release=$work/rel" -e "sbc_bench_version=$version" \
     -e "sbc_bench_install_dir=$work/install2" -e "sbc_bench_remote_dir=$work/remote2" \
     -e "sbc_bench_results_dir=$work/results2" -e "sbc_bench_unit_dir=$work/units2" \
     >"$work/refused.log" 2>&1; then
  echo "ci-prom: the playbook installed a tarball without its checksum" >&2; exit 1
fi
grep -q "is not in SHA256SUMS" "$work/refused.log" || { cat "$work/refused.log" >&2; exit 1; }
[ ! -e "$work/install2/sbc-bench" ]
say "ok"
