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
#
# Then, from one pass over the real tools side by side with ours (same CPU, same minute),
# one ratio per metric (ours / the tool's), the figures docs/FIDELITY.md quotes:
#   7-Zip   SBC_7ZA=path (default: the bundled 16.02 of scripts/build-7za-16.02.sh,
#           target/7za-16.02/<arch>-unknown-linux-gnu/7za, else 7za/7z on PATH):
#           `7za b -mmt1` compress/decompress/total vs our native LZMA, and vs the 7-Zip
#           score our run takes from the same binary (1.00 unless the wrapper differs)
#   openssl `openssl speed -elapsed -seconds 1 -evp aes-256-cbc` 16 KiB vs our native AES
#   tinymembench  TINYMEMBENCH=path: libc memcpy/memset (`-b 2 -B 3 -l 3 -c 1000000`) vs ours
#   ramlat  RAMLAT=path: `ramlat -n -w 24,27 200` 16M/128M first column vs ours
#   mhz     MHZ=path: `mhz 3 1000000` (median) vs `bench clock`
# ONLY_RATIOS=1 skips the two long scripts and prints just these ratios.
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
if [ "${ONLY_RATIOS:-0}" != 1 ]; then
  echo
  scripts/fidelity-cpu.sh "$CPU"
  echo
  CPU="$CPU" scripts/fidelity-crypto.sh
fi
echo
scripts/fidelity-ratios.sh "$CPU"
echo
echo "== fidelity benchmark total: $(( $(date +%s) - start )) s"
