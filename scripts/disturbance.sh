#!/usr/bin/env bash
# What our run costs the benchmark beside it (issue 30, docs/FIDELITY.md "Disturbance").
# Not a test: run it by hand, as root, on an otherwise idle machine.
#
# A CPU-bound and a memory-bound kernel (stress-ng's `cpu` and `stream` stressors, one
# worker per CPU, fixed time, bogo ops per second of real time from their YAML) run:
#   A    alone, from this script;
#   W    through `sbc-bench wrap` (the run engine around the command: the monitor at its
#        default interval of 1 s with the process walk, the read watchdog, the console,
#        the child's drain threads);
#   W10  the same with the monitor ten times faster (SBC_BENCH_MONITOR_INTERVAL=0.1).
# Arms interleaved, the order rotating per round, IDLE seconds idle before each (wrap
# also waits for idle itself, as every run does). Prints every figure, then per kernel
# the mean of each arm, its spread, and W/A and W10/A.
#
#   scripts/disturbance.sh
#
# Environment: ROUNDS (4), SECONDS_PER_RUN (20), IDLE (20), OURS (default
# target/release/sbc-bench, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-4}
T=${SECONDS_PER_RUN:-20}
IDLE=${IDLE:-20}
command -v stress-ng >/dev/null || { echo "stress-ng is needed (apt-get install stress-ng)" >&2; exit 2; }
if [ -n "${OURS:-}" ]; then BIN="$OURS"; else
  [ -x target/release/sbc-bench ] || cargo build --release --quiet
  BIN="$PWD/target/release/sbc-bench"
fi
N=$(nproc)
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# kernel NAME -> the stress-ng arguments (with the YAML file appended by the caller).
kernel_args() {
  case "$1" in
    cpu) echo "--cpu $N --cpu-method int64" ;;
    mem) echo "--stream $N" ;;
  esac
}

# The bogo ops per second (real time) stress-ng wrote to its YAML file.
rate() {
  awk '/bogo-ops-per-second-real-time:/ {s+=$2} END {if (NR) printf "%.2f", s}' "$1"
}

one() { # ARM KERNEL FILE
  local yaml="$3" args
  read -r -a args <<<"$(kernel_args "$2")"
  local cmd=(stress-ng "${args[@]}" --timeout "${T}s" --metrics-brief --yaml "$yaml")
  case "$1" in
    A) "${cmd[@]}" >/dev/null 2>&1 ;;
    W) "$BIN" wrap --unattended --max-wait 600 --no-store --log "$yaml.log" -- "${cmd[@]}" >/dev/null 2>&1 ;;
    W10) SBC_BENCH_MONITOR_INTERVAL=0.1 "$BIN" wrap --unattended --max-wait 600 --no-store \
      --log "$yaml.log" -- "${cmd[@]}" >/dev/null 2>&1 ;;
  esac
}

arms=(A W W10)
echo "disturbance: $N CPUs, $ROUNDS rounds of ${T} s per kernel and arm, ${IDLE} s idle before each; $(uname -r)"
echo "ours: $BIN ($("$BIN" --version)); $(stress-ng --version)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$TMP/all.tsv"
for r in $(seq "$ROUNDS"); do
  for kernel in cpu mem; do
    for k in 0 1 2; do
      a=${arms[$(( (k + r - 1) % 3 ))]}
      sleep "$IDLE"
      f="$TMP/$kernel-$a-$r.yaml"
      one "$a" "$kernel" "$f" || true
      v=$(rate "$f" 2>/dev/null || true)
      echo "round $r $kernel $a: ${v:-n/a} bogo ops/s"
      [ -n "$v" ] && echo "$kernel $a $v" >>"$TMP/all.tsv"
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| kernel | arm | mean bogo ops/s | spread (max-min)/mean | / A |"
echo "|---|---|---|---|---|"
awk '
  { k=$1" "$2; n[k]++; s[k]+=$3; if (!(k in mn) || $3<mn[k]) mn[k]=$3; if (!(k in mx) || $3>mx[k]) mx[k]=$3 }
  END {
    split("cpu mem", ks, " "); split("A W W10", as, " ")
    for (i=1; i<=2; i++) for (j=1; j<=3; j++) { k=ks[i]" "as[j]; if (!n[k]) continue
      m=s[k]/n[k]; a=ks[i]" A"; base=(n[a]?s[a]/n[a]:0)
      printf "| %s | %s | %.1f | %.2f %% | %s |\n", ks[i], as[j], m, (m?(mx[k]-mn[k])/m*100:0), (base?sprintf("%.4f", m/base):"n/a") } }' "$TMP/all.tsv"
