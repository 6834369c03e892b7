#!/usr/bin/env bash
# memcpy/memset of our standard run against tinymembench, interleaved (not a test: run by
# hand, as root, on an otherwise idle machine; paste the output into docs/FIDELITY.md).
#
#   TINYMEMBENCH=/path/to/tinymembench scripts/membw-interleave.sh [ROUNDS]   # default 6
#
# Each round runs three arms, in an order that rotates from round to round:
#   T  tinymembench alone, pinned to cpu0, with sbc-bench's options (-b 2 -B 3 -l 3 -c 1000000)
#   S  `sbc-bench bench membw --cpus 0` alone
#   R  our standard run (`sbc-bench run --unattended --no-store`), its libc memcpy/memset rows
# IDLE=SECONDS sleeps that long before T and S, so they start, as R and sbc-bench's own
# tinymembench do, after an idle wait (default 0: right after the previous arm).
# RUN_ARGS (e.g. --quick) is passed to the standard run; OURS=path measures that binary.
#
# Prints every arm's memcpy/memset as it ends, then per arm mean, min, max and spread, the
# ratios of the means (R/T, S/T), and the means by the arm that ran just before, which tell
# a method's difference from the machine's state left behind by the previous program.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-6}"
IDLE="${IDLE:-0}"
TMB="${TINYMEMBENCH:?set TINYMEMBENCH=/path/to/tinymembench (nuumio 0.4.9, as sbc-bench builds it)}"
command -v jq >/dev/null || { echo "missing: jq" >&2; exit 1; }
command -v taskset >/dev/null || { echo "missing: taskset (util-linux)" >&2; exit 1; }
if [ -n "${OURS:-}" ]; then BIN="$OURS"; else
  cargo build --release --quiet
  BIN="$PWD/target/release/sbc-bench"
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
read -r -a run_args <<<"${RUN_ARGS:-}"

row() { # FILE LABEL: the libc row's best MB/s from one of our JSON documents
  jq -r --arg n "$2" '[.. | objects | select(.name? == $n) | .mb_per_s][0] // "nan"' "$1" \
    2>/dev/null || echo nan
}
arm() { # ARM ROUND: run one arm, print "round arm memcpy memset"
  local a=$1 r=$2 c s
  case $a in
    T)
      sleep "$IDLE"
      taskset -c 0 "$TMB" -b 2 -B 3 -l 3 -c 1000000 >"$TMP/T$r.txt" 2>&1 || true
      c=$(awk -F: '/libc memcpy copy/ {split($2, f, " "); print f[1]}' "$TMP/T$r.txt")
      s=$(awk -F: '/libc memset fill/ {split($2, f, " "); print f[1]}' "$TMP/T$r.txt")
      ;;
    S)
      sleep "$IDLE"
      "$BIN" bench membw --cpus 0 --json >"$TMP/S$r.json" 2>/dev/null || true
      c=$(row "$TMP/S$r.json" "libc memcpy copy")
      s=$(row "$TMP/S$r.json" "libc memset fill")
      ;;
    R)
      "$BIN" run --unattended --no-store "${run_args[@]}" --json "$TMP/R$r.json" \
        --log "$TMP/R$r.log" >/dev/null 2>&1 || true
      c=$(jq -r '[.results.membw[]?.result.rows[]? | select(.name == "libc memcpy copy") | .mb_per_s] | max // "nan"' "$TMP/R$r.json" 2>/dev/null || echo nan)
      s=$(jq -r '[.results.membw[]?.result.rows[]? | select(.name == "libc memset fill") | .mb_per_s] | max // "nan"' "$TMP/R$r.json" 2>/dev/null || echo nan)
      ;;
  esac
  printf '%s %s %.0f %.0f\n' "$r" "$a" "${c:-nan}" "${s:-nan}" | tee -a "$TMP/all"
}

echo "== memcpy/memset interleaved: $("$BIN" --version), $ROUNDS rounds, idle before T/S ${IDLE} s, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "round arm memcpy memset (MB/s)"
orders=(TSR SRT RTS TRS RST STR)
for r in $(seq 1 "$ROUNDS"); do
  o=${orders[$(((r - 1) % 6))]}
  for a in $(grep -o . <<<"$o"); do arm "$a" "$r"; done
done

echo
echo "== per arm (MB/s)"
awk '$3 != "nan" {
    k = $2; n[k]++; c[k] += $3; s[k] += $4
    if (!(k in cl) || $3 < cl[k]) cl[k] = $3; if ($3 > ch[k]) ch[k] = $3
    if (!(k in sl) || $4 < sl[k]) sl[k] = $4; if ($4 > sh[k]) sh[k] = $4
  }
  END {
    for (k in n) {
      mc = c[k] / n[k]; ms = s[k] / n[k]
      printf "%s n=%d  memcpy mean %.0f (%d..%d, spread %.1f%%)  memset mean %.0f (%d..%d, spread %.1f%%)\n",
        k, n[k], mc, cl[k], ch[k], (ch[k] - cl[k]) / mc * 100, ms, sl[k], sh[k], (sh[k] - sl[k]) / ms * 100
      mcs[k] = mc; mss[k] = ms
    }
    if ("T" in n) for (k in n) if (k != "T")
      printf "ratio %s/T  memcpy %.3f  memset %.3f\n", k, mcs[k] / mcs["T"], mss[k] / mss["T"]
  }' "$TMP/all" | sort
echo
echo "== by the arm just before (MB/s)"
awk 'NR > 1 && $3 != "nan" { print p " -> " $2, $3, $4 } { p = $2 }' "$TMP/all" |
  awk '{ k = $1 $2 $3; n[k]++; c[k] += $4; s[k] += $5 }
    END { for (k in n) printf "%s n=%d  memcpy mean %.0f  memset mean %.0f\n", k, n[k], c[k] / n[k], s[k] / n[k] }' | sort
