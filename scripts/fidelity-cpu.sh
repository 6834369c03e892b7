#!/usr/bin/env bash
# Fidelity and speed of `bench clock`, `bench membw` and `bench memlat` against reference
# tools measured in the same run, on the same core. Run by hand (not in CI); paste the output
# into docs/FIDELITY.md.
#
#   scripts/fidelity-cpu.sh [CPU]            # default: cpu0
#   SBC_BENCH=/path/to/sbc-bench scripts/fidelity-cpu.sh   # measure that binary, no build
#
# References:
#   clock   perf stat -e cycles (cycles per second of task time) where the PMU works;
#           the TSC rate on x86 (equal to the core clock only without turbo/boost);
#           a reference loop in C compiled here (dependent one-cycle adds timed on the
#           monotonic clock, long minus short loop: mhz's method, written independently)
#           for the 1 % check without any external tool;
#           Willy Tarreau's mhz when MHZ=/path/to/mhz is set (build it yourself).
#   membw   glibc memcpy/memset timed by a reference loop in C compiled here (best of three
#           runs of >= 0.5 s, the same buffer size as ours, 1 MB = 10^6 bytes).
#   memlat  tinymembench's 16/32/64 MiB rows when TINYMEMBENCH=/path/to/tinymembench is set,
#           ramlat's 16M/128M rows when RAMLAT=/path/to/ramlat is set (both without madvise
#           compare with our `--no-madvise` run).
# Noisy machines: every pair is run interleaved ROUNDS times (default 3); medians are shown.
set -euo pipefail
cd "$(dirname "$0")/.."

CPU="${1:-0}"
ROUNDS="${ROUNDS:-3}"
need() { command -v "$1" >/dev/null 2>&1 || { echo "missing: $1" >&2; exit 1; }; }
need jq; need cc; need taskset

if [ -z "${SBC_BENCH:-}" ]; then
  cargo build --release --quiet
  BIN="$PWD/target/release/sbc-bench"
else
  BIN="$SBC_BENCH"
fi
# As root, run every measurement (ours and the references) at real-time priority pinned to
# the CPU, so other processes on a busy machine cannot preempt them (both are affected alike
# otherwise, but not by the same amount).
RT=()
if [ "$(id -u)" = 0 ] && command -v chrt >/dev/null 2>&1 && chrt -f 10 true 2>/dev/null; then RT=(chrt -f 10); fi
run() { "${RT[@]}" taskset -c "$CPU" "$@"; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "n/a"; else if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a=="n/a" || b=="n/a" || b==0) print "n/a"; else printf "%.3f", a/b }'; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b-a }'; }

cat >"$TMP/refbw.c" <<'EOF'
/* Reference: glibc memcpy/memset bandwidth, best of 3 runs of >= 0.5 s each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], 0, 10) : 32u << 20;
    char *src = aligned_alloc(4096, n), *dst = aligned_alloc(4096, n);
    if (!src || !dst) return 1;
    memset(src, 0x5a, n); memset(dst, 0, n);
    for (int op = 0; op < 2; op++) {
        double best = 0;
        for (int rep = 0; rep < 3; rep++) {
            long calls = 0; double t0 = now(), t;
            if (op == 0) memcpy(dst, src, n); else memset(dst, 0x5a, n);
            do { if (op == 0) memcpy(dst, src, n); else memset(dst, 0x5a, n); calls++; t = now() - t0; } while (t < 0.5);
            double mbs = (double)n * calls / t / 1e6; if (mbs > best) best = mbs;
        }
        printf("%s %.1f\n", op == 0 ? "memcpy" : "memset", best);
    }
    return 0;
}
EOF
cc -O2 -o "$TMP/refbw" "$TMP/refbw.c"

echo "== sbc-bench fidelity (clock, memory) on cpu$CPU, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "host: $(uname -m), $(grep -m1 -E 'model name|Hardware' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "libc: $(ldd --version 2>&1 | head -1); priority: ${RT[*]:-normal (not root)}"
echo

# ---------------------------------------------------------------------------------- clock
CLOCK_ROUNDS="${CLOCK_ROUNDS:-9}"
echo "-- clock (MHz; medians of $CLOCK_ROUNDS rounds, reference run right after ours each round)"
ours=(); perfs=(); mhzs=(); r_perf=(); r_mhz=(); refs=(); r_ref=()
ref_ok=no
case "$(uname -m)" in
  x86_64) ADD='"add $1, %0\\n\\t"' ;;
  aarch64|arm*) ADD='"add %0, %0, #1\\n\\t"' ;;
  riscv64) ADD='"addi %0, %0, 1\\n\\t"' ;;
  *) ADD= ;;
esac
if [ -n "$ADD" ]; then
  cat >"$TMP/refmhz.c" <<'EOF'
#include <stdio.h>
#include <time.h>
#define A1 @ADD@
#define A10 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1
#define A50 A10 A10 A10 A10 A10
#define A200 A50 A50 A50 A50
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static double run(long n, int longer) {
  unsigned long x = 0; double t0 = now();
  for (long i = 0; i < n; i++) { if (longer) __asm__ volatile(A200 : "+r"(x)); else __asm__ volatile(A50 : "+r"(x)); }
  return now() - t0;
}
int main(void) {
  long n = 1000; while (run(n, 1) < 0.02) n *= 2;
  double best = 0;
  for (int k = 0; k < 15; k++) { double s = run(n, 0), l = run(n, 1); double mhz = n * 150.0 / (l - s) / 1e6; if (l > s && mhz > best && k > 0) best = mhz; }
  printf("%.1f\n", best);
  return 0;
}
EOF
  sed -i "s|@ADD@|$ADD|" "$TMP/refmhz.c"
  cc -O2 -o "$TMP/refmhz" "$TMP/refmhz.c" && ref_ok=yes
fi
perf_ok=no
if command -v perf >/dev/null 2>&1 && perf stat -x, -e cycles -- true 2>&1 | grep -q '^[0-9]'; then perf_ok=yes; fi
clock_t0=$(now)
for _ in $(seq "$CLOCK_ROUNDS"); do
  if [ "$perf_ok" = yes ]; then
    perf stat -x, -e cycles,task-clock -o "$TMP/perf.csv" -- "${RT[@]}" taskset -c "$CPU" "$BIN" bench clock --cpus "$CPU" --json >"$TMP/clock.json"
    cyc=$(awk -F, '$3 ~ /^cycles/ {print $1}' "$TMP/perf.csv")
    msec=$(awk -F, '$3 ~ /^task-clock/ {print $1}' "$TMP/perf.csv")
    p=$(awk -v c="$cyc" -v m="$msec" 'BEGIN{printf "%.1f", c/(m*1000)}')
  else
    run "$BIN" bench clock --cpus "$CPU" --json >"$TMP/clock.json"
  fi
  t_clock=$(jq -r '.checks[0] | (.measured // .walk.opps[0].measured).duration_s * 100 | round / 100' "$TMP/clock.json")
  o=$(jq -r '.checks[0] | (.measured // .walk.opps[0].measured).mhz * 10 | round / 10' "$TMP/clock.json")
  ours+=("$o")
  if [ "$perf_ok" = yes ]; then perfs+=("$p"); r_perf+=("$(ratio "$o" "$p")"); fi
  if [ "$ref_ok" = yes ]; then
    rf=$(run "$TMP/refmhz"); refs+=("$rf"); r_ref+=("$(ratio "$o" "$rf")")
  fi
  if [ -n "${MHZ:-}" ]; then
    m=$(run "$MHZ" 3 1000000 | sed -n 's/.*cpu_MHz=\([0-9.]*\).*/\1/p' | median)
    mhzs+=("$m"); r_mhz+=("$(ratio "$o" "$m")")
  fi
done
ours_m=$(printf '%s\n' "${ours[@]}" | median)
echo "ours (bench clock):              $ours_m   (${t_clock}s per measurement; rounds: ${ours[*]})"
if [ "$perf_ok" = yes ]; then
  echo "perf cycles / task-clock:        $(printf '%s\n' "${perfs[@]}" | median)   ratio ours/perf $(printf '%s\n' "${r_perf[@]}" | median) (whole process incl. start-up)"
else
  echo "perf cycles / task-clock:        n/a (perf cycles counter not supported here)"
fi
if [ "$ref_ok" = yes ]; then
  echo "C reference loop (mhz method):   $(printf '%s\n' "${refs[@]}" | median)   ratio ours/ref $(printf '%s\n' "${r_ref[@]}" | median) (target 0.99-1.01; rounds: ${r_ref[*]})"
fi
if [ -n "${MHZ:-}" ]; then
  echo "mhz 3 1000000:                   $(printf '%s\n' "${mhzs[@]}" | median)   ratio ours/mhz $(printf '%s\n' "${r_mhz[@]}" | median) (rounds: ${r_mhz[*]})"
fi
if [ "$(uname -m)" = x86_64 ]; then
  cat >"$TMP/tsc.c" <<'EOF'
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(void) { double t0 = now(); unsigned long long c0 = __rdtsc(); while (now() - t0 < 0.5); printf("%.1f\n", (__rdtsc() - c0) / (now() - t0) / 1e6); return 0; }
EOF
  cc -O2 -o "$TMP/tsc" "$TMP/tsc.c"
  tsc=$(run "$TMP/tsc")
  echo "TSC rate:                        $tsc   ratio ours/TSC $(ratio "$ours_m" "$tsc") (1.000 only without turbo/boost)"
fi
echo "clock check total: $(elapsed "$clock_t0" "$(now)")s for $CLOCK_ROUNDS rounds"
echo

# ---------------------------------------------------------------------------------- membw
echo "-- memory bandwidth (MB/s; medians of $ROUNDS interleaved rounds)"
oc=(); os=(); rc=(); rs=()
for _ in $(seq "$ROUNDS"); do
  t0=$(now)
  run "$BIN" bench membw --cpus "$CPU" --json >"$TMP/bw.json"
  t_bw=$(elapsed "$t0" "$(now)")
  bytes=$(jq -r '.runs[0].result.buffers.bytes' "$TMP/bw.json")
  oc+=("$(jq -r '.runs[0].result.rows[] | select(.name=="libc memcpy copy" or .name=="standard memcpy") | .mb_per_s' "$TMP/bw.json")")
  os+=("$(jq -r '.runs[0].result.rows[] | select(.name=="libc memset fill" or .name=="standard memset") | .mb_per_s' "$TMP/bw.json")")
  run "$TMP/refbw" "$bytes" >"$TMP/ref.txt"
  rc+=("$(awk '/memcpy/{print $2}' "$TMP/ref.txt")")
  rs+=("$(awk '/memset/{print $2}' "$TMP/ref.txt")")
done
libc=$(jq -r '.runs[0].result.libc' "$TMP/bw.json")
printf '%-28s %10s %10s %8s\n' "buffer $((bytes >> 20)) MiB, $libc" ours reference ratio
for pair in "memcpy oc rc" "memset os rs"; do
  set -- $pair
  o=$(eval "printf '%s\n' \"\${$2[@]}\"" | median); r=$(eval "printf '%s\n' \"\${$3[@]}\"" | median)
  printf '%-28s %10.1f %10.1f %8s\n' "libc $1" "$o" "$r" "$(ratio "$o" "$r")"
done
echo "best kernels (last round):"
jq -r '.runs[0].result.rows[] | select(.implementation!="libc") | "  \(.name): \(.mb_per_s*10|round/10) MB/s"' "$TMP/bw.json"
echo "bench membw took ${t_bw}s (one cluster; target <= 30 s)"
echo

# --------------------------------------------------------------------------------- memlat
echo "-- memory latency (ns)"
lat_rows() {
  echo "ours$2, tinymembench table (advice $(jq -r '.runs[0].result.tinymembench[0].advice' "$1"), huge pages backed: $(jq -r '(.runs[0].result.tinymembench[0].huge_page_bytes // 0) / 1048576 | floor' "$1") MiB):"
  jq -r '.runs[0].result.tinymembench[0].rows[] | select(.block_bytes >= 16777216) | "  \(.block_bytes): \(.single_ns*10|round/10) / \(.dual_ns*10|round/10)"' "$1"
  echo "ours$2, ramlat 16M and 128M rows (1x32 2x32 1x64 2x64 1xPTR 2xPTR 4xPTR 8xPTR):"
  jq -r '.runs[0].result.ramlat.rows[] | select(.size_bytes == 16777216 or .size_bytes == 134217728) | "  \(.size_bytes/1048576)M: \([.ns[] | .*10|round/10] | join(" "))"' "$1"
}
t0=$(now)
run "$BIN" bench memlat --cpus "$CPU" --json >"$TMP/lat.json"
t_lat=$(elapsed "$t0" "$(now)")
lat_rows "$TMP/lat.json" ""
run "$BIN" bench memlat --cpus "$CPU" --json --no-madvise >"$TMP/lat2.json"
lat_rows "$TMP/lat2.json" " --no-madvise"
if [ -n "${RAMLAT:-}" ]; then
  echo "ramlat -n -w 24,27 100 (no madvise):"
  run "$RAMLAT" -n -w 24,27 100 | sed 's/^/  /'
fi
if [ -n "${TINYMEMBENCH:-}" ]; then
  t1=$(now)
  echo "tinymembench (-b 2 -B 3 -l 3 -c 1000000) on cpu$CPU:"
  run "$TINYMEMBENCH" -b 2 -B 3 -l 3 -c 1000000 2>&1 \
    | grep -E 'libc memcpy|libc memset|standard mem|block size|^ +(16777216|33554432|67108864) ' | sed 's/^/  /'
  echo "  (tinymembench took $(elapsed "$t1" "$(now)")s)"
fi
echo "bench memlat took ${t_lat}s (one cluster; target <= 30 s)"
