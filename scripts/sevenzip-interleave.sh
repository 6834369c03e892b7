#!/usr/bin/env bash
# 7-Zip's benchmark through four doors, interleaved (issue 30, docs/FIDELITY.md "7-Zip
# through our run"). Not a test: run it by hand on an otherwise idle machine, as root.
#
# Every round runs each arm once, in an order that rotates from round to round, each after
# IDLE seconds of idle time (so every arm has the same predecessor: nothing):
#   D  direct:      `taskset -c 0 7za b -mmt=1`, then `7za b -mmt=N` RUNS times (sbc-bench's
#                   protocol, from this script's bash, output to a file);
#   S  sbc-bench:   sbc-bench's own Run7ZipBenchmark function, taken at run time from the
#                   sbc-bench.sh given in SBC_BENCH (its single run on cpu0, its RUNS
#                   multi-threaded runs, its background monitor `sbc-bench.sh -m N`);
#   B  bench:       `sbc-bench bench compress --json` (our 7-Zip runner, no run around it;
#                   its native LZMA runs come after 7-Zip and are not counted);
#   R  our run:     `sbc-bench run --unattended` (the whole standard run; its 7-Zip step's
#                   runs are read from its JSON).
# It prints, per arm and round, the single-threaded Tot and each multi-threaded Tot with
# the per-thread R/U ratings (compression | decompression), then per arm the means, and
# the ratios against D.
#
#   SEVENZIP=/path/to/7za SBC_BENCH=/path/to/sbc-bench.sh scripts/sevenzip-interleave.sh
#
# Environment: ROUNDS (6), IDLE (30 s), RUNS (3, sbc-bench's multi-threaded repetitions),
# ARMS ("D S B R"; S needs SBC_BENCH), SEVENZIP (default: the 7za 16.02 that
# scripts/build-7za-16.02.sh builds for this host), OURS (default target/release/sbc-bench,
# built if missing). RUNS applies to D and S; B and R run sbc-bench's 3 as they always do.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-6}
IDLE=${IDLE:-30}
RUNS=${RUNS:-3}
ARMS=${ARMS:-D S B R}
SEVENZIP=${SEVENZIP:-target/7za-16.02/$(uname -m)-unknown-linux-gnu/7za}
[ -x "$SEVENZIP" ] || { echo "no 7za at $SEVENZIP: build it (scripts/build-7za-16.02.sh) or give SEVENZIP" >&2; exit 2; }
SEVENZIP="$(cd "$(dirname "$SEVENZIP")" && pwd)/$(basename "$SEVENZIP")"
command -v jq >/dev/null || { echo "missing: jq" >&2; exit 2; }
case " $ARMS " in *" S "*) [ -n "${SBC_BENCH:-}" ] || { echo "arm S needs SBC_BENCH=/path/to/sbc-bench.sh (or ARMS without S)" >&2; exit 2; } ;; esac
if [ -n "${OURS:-}" ]; then BIN="$OURS"; else
  [ -x target/release/sbc-bench ] || cargo build --release --quiet
  BIN="$PWD/target/release/sbc-bench"
fi
CPUS=$(nproc)
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
# Ours finds 7-Zip on PATH when none is bundled beside it: give it the same binary.
PATH="$(dirname "$SEVENZIP"):$PATH"
export PATH

# 7-Zip output (any number of runs) -> one line per run: "Tot R/U-compress R/U-decompress".
tots() {
  sed 's/|//' "$1" | awk '/^Avr:/ {c=$3; d=$6} /^Tot:/ {print $4, c, d}'
}

arm_D() {
  taskset -c 0 "$SEVENZIP" b -mmt=1 >"$1.single" 2>/dev/null
  : >"$1.multi"
  for _ in $(seq "$RUNS"); do "$SEVENZIP" b -mmt="$CPUS" >>"$1.multi" 2>/dev/null; done
}

# sbc-bench's own function and the helpers it calls, read from SBC_BENCH at run time.
arm_S() {
  local fn="$TMP/sbc-fn.sh"
  {
    for f in snore CoresOnline LogDuration BashBench Run7ZipBenchmark; do
      sed -n "/^${f}() *{/,/^} # ${f}/p" "$SBC_BENCH"
    done
  } >"$fn"
  # The variables sbc-bench sets before it calls Run7ZipBenchmark (sbc-bench.sh, its
  # initialisation and RunBenchmarks), for one cluster of CPUS cores.
  ( set +eu
    # shellcheck disable=SC1090
    source "$fn"
    GetCPUInfo() { :; }
    PathToMe="$SBC_BENCH"; SevenZip="$SEVENZIP"; DictSize=""; CPUCores=$CPUS
    ClusterConfig=(0); RunHowManyTimes=$RUNS; TempDir="$TMP/sbc"; mkdir -p "$TempDir"
    TempLog="$TempDir/temp.log"; ResultLog="$1.sbc"; MonitorLog="$TempDir/monitor.log"
    NetioConsumptionFile=""
    QuickAndDirtyPerformance="$(BashBench)"
    SingleThreadedDuration=$(( 20 + $(( QuickAndDirtyPerformance * ${#ClusterConfig[@]} / 5000000 )) ))
    MultiThreadedDuration=$(( RunHowManyTimes * $(( 20 + $(( QuickAndDirtyPerformance / 5000000 )) )) / CPUCores ))
    : >"$ResultLog"
    Run7ZipBenchmark >/dev/null 2>&1
  )
  # Its log holds the single-threaded run, then the multi-threaded ones.
  awk '/^Executing benchmark single-threaded/ {s=1; m=0} /^Executing benchmark .* multi-threaded/ {m=1; s=0}
       s {print > "'"$1.single"'"} m {print > "'"$1.multi"'"}' "$1.sbc"
}

arm_B() {
  "$BIN" bench compress --json >"$1.json" 2>"$1.err" || true
  jq -r '.results.sevenzip.single[0].result.output // empty' "$1.json" >"$1.single"
  jq -r '.results.sevenzip.multi[]?.output' "$1.json" >"$1.multi"
}

arm_R() {
  local args=(run --unattended --max-wait 600 --no-store --log "$1.log" --json "$1.json")
  "$BIN" "${args[@]}" >"$1.out" 2>&1 || true
  jq -r '.results.sevenzip.sevenzip.single[0].result.output // empty' "$1.json" >"$1.single"
  jq -r '.results.sevenzip.sevenzip.multi[]?.output' "$1.json" >"$1.multi"
}

read -r -a arms <<<"$ARMS"
n=${#arms[@]}
echo "7-Zip: $SEVENZIP ($("$SEVENZIP" 2>/dev/null | awk 'NF {print; exit}'))"
echo "ours: $BIN ($("$BIN" --version))"
[ -n "${SBC_BENCH:-}" ] && echo "sbc-bench: $SBC_BENCH ($(awk -F= '/^Version=/ {print $2; exit}' "$SBC_BENCH"))"
echo "$ROUNDS rounds, arms ${ARMS}, order rotating, ${IDLE} s idle before each arm, $RUNS multi-threaded runs each"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$TMP/all.tsv"
for r in $(seq "$ROUNDS"); do
  for k in $(seq 0 $((n - 1))); do
    a=${arms[$(( (k + r - 1) % n ))]}
    sleep "$IDLE"
    t0=$(date +%s.%N)
    "arm_$a" "$TMP/$a$r"
    t1=$(date +%s.%N)
    single=$(tots "$TMP/$a$r.single" | awk 'NR==1 {print $1}')
    multi=$(tots "$TMP/$a$r.multi" | awk '{printf "%s%s (%s|%s)", (NR>1?", ":""), $1, $2, $3}')
    printf "round %d %s (%.0f s): single %s; multi %s\n" "$r" "$a" "$(echo "$t1 - $t0" | bc)" "${single:-n/a}" "${multi:-n/a}"
    tots "$TMP/$a$r.single" | awk -v a="$a" -v r="$r" 'NR==1 {print a, r, "single", $1, $2, $3}' >>"$TMP/all.tsv"
    tots "$TMP/$a$r.multi" | awk -v a="$a" -v r="$r" '{print a, r, "multi", $1, $2, $3}' >>"$TMP/all.tsv"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| arm | single Tot (min–max) | multi Tot (min–max) | multi R/U compress | multi R/U decompress | multi / D | single / D |"
echo "|---|---|---|---|---|---|---|"
awk '
  { k=$1" "$3; n[k]++; s[k]+=$4; c[k]+=$5; d[k]+=$6
    if (!(k in mn) || $4<mn[k]) mn[k]=$4; if (!(k in mx) || $4>mx[k]) mx[k]=$4
    if (!($1 in seen)) { seen[$1]=1; order[++o]=$1 } }
  END {
    for (i=1; i<=o; i++) { a=order[i]; ks=a" single"; km=a" multi"
      ms=(n[ks]?s[ks]/n[ks]:0); mm=(n[km]?s[km]/n[km]:0)
      ds=(n["D single"]?s["D single"]/n["D single"]:0); dm=(n["D multi"]?s["D multi"]/n["D multi"]:0)
      printf "| %s | %.0f (%s–%s) | %.0f (%s–%s) | %.0f | %.0f | %s | %s |\n", a, ms, mn[ks], mx[ks], mm, mn[km], mx[km],
        (n[km]?c[km]/n[km]:0), (n[km]?d[km]/n[km]:0), (dm?sprintf("%.3f", mm/dm):"n/a"), (ds?sprintf("%.3f", ms/ds):"n/a") } }' "$TMP/all.tsv"
