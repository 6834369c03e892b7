#!/usr/bin/env bash
# Cost of the live monitor per sample: CPU time and process forks, at 0.2 s intervals.
#
# Target (issue 2): <= 1 ms CPU per sample on the 2-core x86 VM. For the ratio, run
# sbc-bench's bash monitor (`sbc-bench.sh -m 0.2`) in the same way in the same run:
#
#   SBC_BENCH_SH=/path/to/sbc-bench.sh scripts/monitor-cost.sh
#
# (get it with `git clone https://github.com/ThomasKaiser/sbc-bench`; it is not shipped here).
#
# Method: each monitor runs twice, a short and a long run (COUNT_SHORT and COUNT samples),
# under `perf stat` (task-clock of the process and all its children; sched_process_fork
# counts every clone, threads included; sched_process_exec counts exec'd programs). The
# cost per sample is the difference between the two runs divided by the difference in
# samples, so start-up (discovery, bash sourcing its functions) is reported separately
# and not smeared over the samples. Samples are counted from the output lines (`HH:MM:SS:`
# rows, or JSON objects).
#
# A third pair of runs samples EVERY counter the monitor can read (`--json --all-counters`:
# every IRQ line of /proc/interrupts, every interface of /sys/class/net, every device of
# /sys/block, this process and its threads at start-up) — the worst case a consumer of the
# sampling layer (network diagnosis, storage benchmark) can ask for. Its JSON lines are
# larger, so this also includes their formatting.
#
# Environment: BIN (default target/release/sbc-bench, built if missing), INTERVAL (0.2),
# COUNT (200), COUNT_SHORT (50), SBC_BENCH_SH (optional), ARGS (extra monitor arguments).
set -euo pipefail

cd "$(dirname "$0")/.."
INTERVAL=${INTERVAL:-0.2}
COUNT=${COUNT:-200}
COUNT_SHORT=${COUNT_SHORT:-50}
BIN=${BIN:-target/release/sbc-bench}
EXTRA=${ARGS:-}

if [ ! -x "$BIN" ]; then
	echo "Building $BIN (release)..." >&2
	cargo build --release --quiet
fi
command -v perf >/dev/null || { echo "perf is needed (apt-get install linux-perf)" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# measure NAME OUTFILE -- command...: prints "task_clock_ms forks execs samples wall_s"
measure() {
	local out=$1; shift
	local perf="$TMP/perf.$$.$RANDOM"
	local t0 t1
	t0=$(date +%s.%N)
	perf stat -x, -o "$perf" \
		-e task-clock,sched:sched_process_fork,sched:sched_process_exec \
		"$@" >"$out" 2>/dev/null || true
	t1=$(date +%s.%N)
	local ms forks execs samples
	ms=$(awk -F, '$3=="task-clock" {print $1}' "$perf")
	forks=$(awk -F, '$3=="sched:sched_process_fork" {print $1}' "$perf")
	execs=$(awk -F, '$3=="sched:sched_process_exec" {print $1}' "$perf")
	samples=$(grep -c -E '^[0-9]{2}:[0-9]{2}:[0-9]{2}:|^\{' "$out" || true)
	echo "$ms $forks $execs $samples $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}')"
}

# report TAG LABEL "short-result" "long-result": prints a line, leaves ms/sample in $TMP/per.TAG
report() {
	local tag=$1 label=$2
	read -r ms1 f1 e1 n1 w1 <<<"$3"
	read -r ms2 f2 e2 n2 w2 <<<"$4"
	awk -v l="$label" -v ms1="$ms1" -v ms2="$ms2" -v f1="$f1" -v f2="$f2" \
		-v e1="$e1" -v e2="$e2" -v n1="$n1" -v n2="$n2" -v w2="$w2" 'BEGIN {
		dn = n2 - n1
		if (dn <= 0) { printf "%-28s no samples counted\n", l; exit }
		per = (ms2 - ms1) / dn; fk = (f2 - f1) / dn; ex = (e2 - e1) / dn
		start = ms1 - per * n1; sf = f1 - fk * n1
		printf "%-28s %7.3f ms CPU/sample  %5.1f forks/sample  %5.1f execs/sample  start-up %6.1f ms CPU, %4.0f forks  (%d samples in %.1f s: %.0f ms CPU)\n",
			l, per, fk, ex, start, sf, n2, w2, ms2
	}'
	awk -v ms1="$ms1" -v ms2="$ms2" -v n1="$n1" -v n2="$n2" \
		'BEGIN { if (n2 > n1) printf "%.6f", (ms2 - ms1) / (n2 - n1); else printf "nan" }' >"$TMP/per.$tag"
}

echo "monitor cost at ${INTERVAL} s intervals, $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "our binary: $BIN ($($BIN --version 2>/dev/null || echo '?'))"
echo

short=$(measure "$TMP/ours.short" "$BIN" monitor "$INTERVAL" --count "$COUNT_SHORT" $EXTRA)
long=$(measure "$TMP/ours.long" "$BIN" monitor "$INTERVAL" --count "$COUNT" $EXTRA)
report ours "sbc-bench (Rust) monitor" "$short" "$long"
OURS_PER=$(cat "$TMP/per.ours")

short=$(measure "$TMP/json.short" "$BIN" monitor "$INTERVAL" --count "$COUNT_SHORT" --json)
long=$(measure "$TMP/json.long" "$BIN" monitor "$INTERVAL" --count "$COUNT" --json)
report json "sbc-bench (Rust) --json" "$short" "$long"

short=$(measure "$TMP/all.short" "$BIN" monitor "$INTERVAL" --count "$COUNT_SHORT" --json --all-counters)
long=$(measure "$TMP/all.long" "$BIN" monitor "$INTERVAL" --count "$COUNT" --json --all-counters)
report all "sbc-bench (Rust) all counters" "$short" "$long"
ALL_PER=$(cat "$TMP/per.all")
echo "  (all counters: $(tail -n 1 "$TMP/all.long" | grep -o '"id":' | wc -l) IRQ lines," \
	"$(tail -n 1 "$TMP/all.long" | grep -o '"iface":' | wc -l) interfaces," \
	"$(tail -n 1 "$TMP/all.long" | grep -o '"dev":' | wc -l) block devices," \
	"$(tail -n 1 "$TMP/all.long" | grep -o '"task":' | wc -l) tasks per sample)"

if [ -n "${SBC_BENCH_SH:-}" ] && [ -r "$SBC_BENCH_SH" ]; then
	# sbc-bench -m has no sample count: run it for as long as ours ran.
	dur_short=$(awk -v n="$COUNT_SHORT" -v i="$INTERVAL" 'BEGIN {print n * i}')
	dur_long=$(awk -v n="$COUNT" -v i="$INTERVAL" 'BEGIN {print n * i}')
	short=$(measure "$TMP/sbc.short" timeout -s INT "$dur_short" bash "$SBC_BENCH_SH" -m "$INTERVAL")
	long=$(measure "$TMP/sbc.long" timeout -s INT "$dur_long" bash "$SBC_BENCH_SH" -m "$INTERVAL")
	report bash "sbc-bench.sh -m (bash)" "$short" "$long"
	SBC_PER=$(cat "$TMP/per.bash")
	awk -v a="$SBC_PER" -v b="$OURS_PER" 'BEGIN {
		if (b > 0) printf "\nratio: the bash monitor costs %.0fx the CPU per sample of ours\n", a / b }'
else
	echo
	echo "(set SBC_BENCH_SH=/path/to/sbc-bench.sh to measure sbc-bench's bash monitor for the ratio)"
fi
echo
for pair in "default:$OURS_PER" "all counters:$ALL_PER"; do
	awk -v l="${pair%%:*}" -v p="${pair#*:}" 'BEGIN {
		printf "target <= 1 ms CPU per sample, %s: %s (%.3f ms)\n", l, (p != "nan" && p + 0 <= 1.0 ? "met" : "NOT met"), p }'
done
