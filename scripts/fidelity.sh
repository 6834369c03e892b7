#!/usr/bin/env bash
# The whole fidelity and speed benchmark in one run: clock, memory bandwidth and latency
# (scripts/fidelity-cpu.sh), then AES, LZMA/7-Zip and scrypt (scripts/fidelity-crypto.sh),
# on the same CPU, each against its reference tool measured in the same run, with the time
# every benchmark took. Run by hand (not in CI); paste the output into docs/FIDELITY.md.
#
#   scripts/fidelity.sh [CPU]                                  # builds the release binary once
#   SBC_BENCH=/path/to/sbc-bench scripts/fidelity.sh [CPU]     # measure that binary, no build
#   QUICK=1 scripts/fidelity.sh                                # smoke run (crypto part --quick)
#
# Other knobs are the two scripts' own (ROUNDS, MHZ, TINYMEMBENCH, RAMLAT, NICE, …).
set -euo pipefail
cd "$(dirname "$0")/.."
CPU="${1:-0}"
if [ -z "${SBC_BENCH:-}" ]; then
  cargo build --release --quiet
  SBC_BENCH="$PWD/target/release/sbc-bench"
fi
export SBC_BENCH
start=$(date +%s)
echo "== sbc-bench fidelity: $("$SBC_BENCH" --version 2>/dev/null || echo "$SBC_BENCH"), $(uname -m), cpu$CPU, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
scripts/fidelity-cpu.sh "$CPU"
echo
CPU="$CPU" scripts/fidelity-crypto.sh
echo
echo "== fidelity benchmark total: $(( $(date +%s) - start )) s"
