#!/usr/bin/env bash
# CI for the fleet tooling (docs/PROMETHEUS.md, contrib/ansible/): installs ansible-core
# (Debian's package: the playbook needs only ansible.builtin, and the full `ansible`
# package unpacks ~250 MB of collections), checks the playbook's syntax, then runs it for
# real against this machine (local connection) from a local release directory holding a
# tarball of the binary already built and its SHA256SUMS, with canned benchmarks over a
# writable copy of a fixture board — install, checksum, run and fetch are all exercised.
# Usage: scripts/ci-prom.sh [BINARY]   (default target/debug/sbc-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath -m "${1:-target/debug/sbc-bench}")"

say() { printf '\n==> [ci-prom %3ds] %s\n' "$SECONDS" "$*"; }
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

if ! command -v ansible-playbook >/dev/null 2>&1; then
  say "installing ansible-core (Debian)"
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends ansible-core >/dev/null
fi
ansible-playbook --version | sed -n 1p   # sed reads it all: no broken pipe under pipefail

cd contrib/ansible
say "ansible-playbook --syntax-check contrib/ansible/sbc-bench.yml"
ansible-playbook --syntax-check -i inventory.example.ini sbc-bench.yml

[ -x "$bin" ] || { echo "ci-prom: no binary at $bin (build first)" >&2; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
  say "not root: skipping the local playbook run (it becomes root)"
  exit 0
fi

say "playbook run on localhost from a local release directory"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
arch="$(uname -m)"
case "$arch" in
  aarch64) target=aarch64-unknown-linux-gnu ;;
  armv7l) target=armv7-unknown-linux-gnueabihf ;;
  riscv64) target=riscv64gc-unknown-linux-gnu ;;
  x86_64) target=x86_64-unknown-linux-gnu ;;
  *) echo "ci-prom: no target for $arch" >&2; exit 1 ;;
esac
version=0.0.0-ci
name="sbc-bench-$version-$target"
mkdir -p "$work/rel/$name" "$work/install"
# Without debug info: the debug build is ~160 MB, a tenth of that stripped.
strip -o "$work/rel/$name/sbc-bench" "$bin" 2>/dev/null || cp "$bin" "$work/rel/$name/sbc-bench"
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
  -e "sbc_bench_run_args='--fake-benchmarks --sysroot-writable --sysroot $work/board --log $work/run.log'"
json="$(ls "$work"/results/*.json)"
grep -q '"schema": *"sbc-bench-run"' "$json" || { echo "ci-prom: $json is not a run JSON" >&2; exit 1; }
"$work/install/sbc-bench" results import --db "$work/results.db" "$work/results" | tail -2

say "a tarball SHA256SUMS does not list is refused"
echo "0000000000000000000000000000000000000000000000000000000000000000  other.tar.gz" > "$work/rel/SHA256SUMS"
if ansible-playbook -i localhost, -c local sbc-bench.yml -e sbc_bench_hosts=localhost \
     -e "sbc_bench_release=$work/rel" -e "sbc_bench_version=$version" \
     -e "sbc_bench_install_dir=$work/install2" -e "sbc_bench_remote_dir=$work/remote2" \
     -e "sbc_bench_results_dir=$work/results2" >"$work/refused.log" 2>&1; then
  echo "ci-prom: the playbook installed a tarball without its checksum" >&2; exit 1
fi
grep -q "is not in SHA256SUMS" "$work/refused.log" || { cat "$work/refused.log" >&2; exit 1; }
[ ! -e "$work/install2/sbc-bench" ]
say "ok"
