#!/usr/bin/env bash
# Regenerate data/reference-core-types.tsv: for every row of data/sbc-bench-results.md
# whose linked log (`results/ID.txt`) is in the sbc-bench corpus, the core types that log
# names, as `sbc-bench results parse` reads them. `compare --core-type` and compare's
# fallback from SoC to core types use the table.
#
#   scripts/reference-core-types.sh [CORPUS_LOGS_DIR] [path/to/sbc-bench]
set -euo pipefail
cd "$(dirname "$0")/.."
LOGS=${1:-../shared/corpus/sbc-bench/logs}
BIN=${2:-target/debug/sbc-bench}
[ -x "$BIN" ] || { echo "no sbc-bench at $BIN (cargo build first)" >&2; exit 2; }
out=data/reference-core-types.tsv
{
  echo "# log id (as linked from Results.md)	core types the log names (from the sbc-bench corpus, BSD-3)"
  grep -o 'results/[^)]*\.txt' data/sbc-bench-results.md | sed 's|results/||' | sort -u |
  while read -r id; do
    [ -f "$LOGS/$id" ] || continue
    types=$("$BIN" results parse --json "$LOGS/$id" |
      python3 -c 'import json,sys; print(", ".join(json.load(sys.stdin)["core_types"]))')
    [ -n "$types" ] && printf '%s\t%s\n' "${id%.txt}" "$types"
  done
} >"$out"
echo "$(grep -vc '^#' "$out") logs with core types in $out"
