#!/usr/bin/env bash
# Duration and run-to-run spread of the standard run, measured on this machine (not a test:
# run by hand on an otherwise idle machine, paste the output into docs/FIDELITY.md).
#
#   scripts/run-timing.sh [RUNS]        # default 3 default runs and 3 quick runs
#   MODES=quick scripts/run-timing.sh   # only the quick runs
#
# Reports, per run: wall time of the benchmark phases (first step start to last step end, so
# the idle wait before them is not counted), total wall time, and the headline numbers of the
# Results.md row. Then the spread (max-min in % of the mean) of each headline number.
# With TINYMEMBENCH=/path/to/tinymembench (nuumio's, as sbc-bench builds it) the same number of
# tinymembench runs with sbc-bench's options, pinned to cpu0, give the spread of the tool
# sbc-bench takes memcpy/memset from. AES (openssl speed) and 7-Zip are the same external
# tools in both, so their spread is the tools' own.
#
# Every run also prints its per-step durations (from the JSON report) and the time outside
# 7-Zip's protocol (all steps but `seven_zip`, plus the idle wait), the figure the issue's
# "a third of sbc-bench's" goal is about.
#
# Side by side with the real sbc-bench (SBC_BENCH=/path/to/sbc-bench.sh): each round runs
# ours and then `MODE=unattended sbc-bench.sh` (as root, on an idle machine). sbc-bench
# installs its tools under /usr/local/src and builds missing ones with git/gcc; to time it
# with tools built by hand instead, build them once in a scratch folder (never committed):
#
#   mkdir -p /tmp/sbc-tools && cd /tmp/sbc-tools
#   git clone https://github.com/ThomasKaiser/tinymembench && make -C tinymembench
#   git clone https://github.com/wtarreau/ramspeed && make -C ramspeed
#   git clone https://github.com/wtarreau/mhz && make -C mhz
#   git clone https://github.com/ThomasKaiser/p7zip && make -C p7zip 7za   # 16.02, bin/7za
#
# and pass SBC_TOOLS=/tmp/sbc-tools: the script runs a copy of sbc-bench.sh whose
# InstallLocation (line 4, `/usr/local/src`) points there; the original is not changed.
# sbc-bench's own "Durations:" (appended to /var/log/sbc-bench.log) give its per-phase
# times; its time outside 7-Zip is its wall time minus its 7-zip durations. With
# SBC_7ZA=/path/to/7za (e.g. the bundled 16.02) ours runs that 7-Zip (put first on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-3}"
command -v jq >/dev/null || { echo "missing: jq" >&2; exit 1; }
if [ -n "${OURS:-}" ]; then BIN="$OURS"; else
  cargo build --release --quiet
  BIN="$PWD/target/release/sbc-bench"
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
now() { date +%s.%N; }

phase_seconds() { # first step start .. last step end, from the JSON report
  jq -r '[.steps[0].started, .steps[-1].ended] | map(sub("\\+.*$"; "Z") | fromdateiso8601) | .[1]-.[0]' "$1"
}
headline() {
  jq -r '.results_row as $r | [
    ($r.memcpy_mb_s // "null"), ($r.memset_mb_s // "null"), ($r.aes256_16k // "null"),
    ($r.sevenzip_multi // "null"), ($r.sevenzip_single // "null"),
    ([.results.lzma.native_single[]?.result.total_rating_mips] | max // "null"),
    (.results.lzma.native_multi.total_rating_mips // "null")
  ] | map(tostring) | join(" ")' "$1"
}
steps_line() { # per-step durations and the time outside 7-Zip (idle wait included)
  jq -r --argjson wall "$2" '
    ([.steps[] | "\(.kind) \(.duration_s * 10 | round / 10)"] | join(", ")) as $s
    | ([.steps[] | select(.kind != "seven_zip") | .duration_s] | add // 0) as $in
    | ([.steps[] | .duration_s] | add // 0) as $all
    | "  steps: \($s); outside 7-Zip \(($in + ($wall - $all)) | round) s (idle wait and set-up \(($wall - $all) | round) s)"' "$1"
}
spread() { # stdin: one number per line
  awk '{v[NR]=$1; s+=$1; if(NR==1||$1<mn)mn=$1; if(NR==1||$1>mx)mx=$1}
       END{ if(NR==0){print "n/a"; exit} m=s/NR; printf "mean %.1f, min %.1f, max %.1f, spread %.2f%%\n", m, mn, mx, (m>0?(mx-mn)/m*100:0) }'
}

# sbc-bench.sh side by side (SBC_BENCH), one unattended run per round after ours.
sbc_round() {
  local script="$SBC_BENCH" t0 t1 wall zip
  if [ -n "${SBC_TOOLS:-}" ]; then
    script="$TMP/sbc-bench.sh"
    sed "4s|^InstallLocation=.*|InstallLocation=${SBC_TOOLS}|" "$SBC_BENCH" >"$script"
  fi
  local before=0
  [ -f /var/log/sbc-bench.log ] && before=$(wc -l </var/log/sbc-bench.log)
  t0=$(now); MODE=unattended bash "$script" >"$TMP/sbc$1.out" 2>&1 || true; t1=$(now)
  wall=$(echo "$t1 - $t0" | bc)
  tail -n +"$((before + 1))" /var/log/sbc-bench.log 2>/dev/null >"$TMP/sbc$1.log" || true
  zip=$(awk -F': ' '/^7-zip .*seconds/ {split($2,a," "); s+=a[1]} END {printf "%.0f", s}' "$TMP/sbc$1.log")
  printf "sbc-bench run %d: wall %.0f s, 7-Zip %s s, outside 7-Zip %.0f s; memcpy|memset %s; AES-256 %s\n" "$1" "$wall" "$zip" \
    "$(echo "$wall - $zip" | bc)" \
    "$(awk '/^ libc memcpy copy/ {c=$5} /^ libc memset fill/ {m=$5} END {print c" | "m}' "$TMP/sbc$1.log")" \
    "$(awk '/^aes-256-cbc/ {print $7}' "$TMP/sbc$1.log" | tr '\n' ' ')"
  awk '/^Durations:/ {d=1; next} d && NF {print "  " $0}' "$TMP/sbc$1.log"
}

if [ -n "${SBC_7ZA:-}" ]; then
  PATH="$(cd "$(dirname "$SBC_7ZA")" && pwd):$PATH"
  export PATH
fi

# MODES="quick default" by default; MODES="" measures only the tinymembench spread.
for mode in ${MODES-quick default}; do
  echo "== sbc-bench run $([ $mode = quick ] && echo --quick) --unattended: $RUNS runs"
  : >"$TMP/$mode.tsv"
  for i in $(seq 1 "$RUNS"); do
    args=(run --unattended --max-wait 600 --log "$TMP/$mode$i.log" --json "$TMP/$mode$i.json")
    [ $mode = quick ] && args+=(--quick)
    t0=$(now); "$BIN" "${args[@]}" >"$TMP/$mode$i.out" 2>&1 || true; t1=$(now)
    ph=$(phase_seconds "$TMP/$mode$i.json")
    hl=$(headline "$TMP/$mode$i.json")
    printf "run %d: benchmarks %.0f s, wall %.0f s (incl. idle wait); memcpy memset aes256-16k 7z-multi 7z-single lzma-single lzma-multi: %s\n" \
      "$i" "$ph" "$(echo "$t1 - $t0" | bc)" "$hl"
    steps_line "$TMP/$mode$i.json" "$(echo "$t1 - $t0" | bc)"
    echo "$ph $hl" >>"$TMP/$mode.tsv"
    if [ -n "${SBC_BENCH:-}" ] && [ "$mode" = default ]; then
      sbc_round "$i"
    fi
  done
  col=2
  for name in memcpy memset aes256-16k 7z-multi 7z-single lzma-single lzma-multi; do
    printf "  %-12s " "$name"; awk -v c=$col '$c!="null"{print $c}' "$TMP/$mode.tsv" | spread
    col=$((col+1))
  done
  printf "  %-12s " "duration_s"; awk '{print $1}' "$TMP/$mode.tsv" | spread
done

if [ -n "${TINYMEMBENCH:-}" ]; then
  echo "== tinymembench -b 2 -B 3 -l 3 -c 1000000 on cpu0 (sbc-bench's options): $RUNS runs"
  : >"$TMP/tmb.tsv"
  for i in $(seq 1 "$RUNS"); do
    taskset -c 0 "$TINYMEMBENCH" -b 2 -B 3 -l 3 -c 1000000 >"$TMP/tmb$i.txt" 2>&1 || true
    cpy=$(awk -F: '/(standard|libc) memcpy/ {print $2}' "$TMP/tmb$i.txt" | awk '{print $1}')
    set_=$(awk -F: '/(standard|libc) memset/ {print $2}' "$TMP/tmb$i.txt" | awk '{print $1}')
    echo "run $i: memcpy $cpy MB/s, memset $set_ MB/s"
    echo "$cpy $set_" >>"$TMP/tmb.tsv"
  done
  printf "  %-12s " memcpy; awk '{print $1}' "$TMP/tmb.tsv" | spread
  printf "  %-12s " memset; awk '{print $2}' "$TMP/tmb.tsv" | spread
fi
