#!/usr/bin/env bash
# Network fidelity: loopback throughput of sbc-bench's iperf3-compatible client and server
# next to iperf3 itself, same parameters, same run, interleaved so that background load
# hits every pairing alike. Target (issue 5): ours→ours and ours→iperf3 each reach at least
# 0.9× iperf3→iperf3, for 1 and 4 streams, both directions.
#
# Prints a Markdown table: median receiver throughput (end.sum_received of the client's
# -J output) over REPS runs, the ratio to iperf3→iperf3, and both ends' CPU utilisation
# (end.cpu_utilization_percent, % of one core).
#
# Usage: scripts/net-fidelity.sh            (T=5 s per run, REPS=3)
#        T=10 REPS=5 scripts/net-fidelity.sh
set -euo pipefail
cd "$(dirname "$0")/.."

T=${T:-5}
REPS=${REPS:-3}
for tool in iperf3 python3; do
  command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 1; }
done
cargo build --release --locked -q
OURS=$PWD/target/release/sbc-bench
WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

listening() { # port → true when something listens on it
  python3 - "$1" <<'EOF'
import sys
port = ":%04X" % int(sys.argv[1])
for f in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        for l in open(f).read().splitlines()[1:]:
            c = l.split()
            if c[1].endswith(port) and c[3] == "0A":
                sys.exit(0)
    except OSError:
        pass
sys.exit(1)
EOF
}

port=5400
run() { # client server streams reverse rep → appends "bps host_cpu remote_cpu" to a file
  local client=$1 server=$2 streams=$3 rev=$4 out
  port=$((port + 1))
  if [ "$server" = iperf3 ]; then
    iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  else
    "$OURS" net server -1 -p "$port" --no-diagnose >/dev/null 2>&1 &
  fi
  SERVER_PID=$!
  for _ in $(seq 100); do listening "$port" && break; sleep 0.05; done
  local args=(-p "$port" -t "$T" -P "$streams" -J)
  [ "$rev" = R ] && args+=(-R)
  if [ "$client" = iperf3 ]; then
    out=$(iperf3 -c 127.0.0.1 "${args[@]}" 2>/dev/null || true)
  else
    out=$("$OURS" net client 127.0.0.1 "${args[@]}" --no-diagnose 2>/dev/null || true)
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
  printf '%s' "$out" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
    e = d["end"]
    c = e["cpu_utilization_percent"]
    print(e["sum_received"]["bits_per_second"], c["host_total"], c["remote_total"])
except Exception:
    print("nan nan nan")
' >>"$WORK/$client-$server-$streams-$rev"
}

pairs="iperf3:iperf3 sbc-bench:sbc-bench sbc-bench:iperf3 iperf3:sbc-bench"
for rep in $(seq "$REPS"); do
  for streams in 1 4; do
    for rev in N R; do
      for p in $pairs; do
        run "${p%%:*}" "${p##*:}" "$streams" "$rev"
      done
    done
  done
  echo "repetition $rep of $REPS done" >&2
done

echo "Loopback, $T s per run, median of $REPS runs; $(nproc) CPUs, $(uname -r), $(iperf3 --version | head -1)"
echo
echo "| streams | direction | client → server | Gbit/s | × iperf3→iperf3 | client CPU % | server CPU % |"
echo "|---|---|---|---|---|---|---|"
for streams in 1 4; do
  for rev in N R; do
    base=""
    for p in $pairs; do
      f="$WORK/${p%%:*}-${p##*:}-$streams-$rev"
      read -r bps hc rc < <(python3 - "$f" <<'EOF'
import math, statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if not math.isnan(r[0])]
if not rows:
    print("nan nan nan")
else:
    print(*(statistics.median(col) for col in zip(*rows)))
EOF
)
      [ -z "$base" ] && base=$bps
      dir=$([ "$rev" = R ] && echo "reverse (-R)" || echo "client sends")
      python3 -c "
import math
bps, base, hc, rc = float('$bps'), float('$base'), float('$hc'), float('$rc')
ratio = bps / base if base > 0 else float('nan')
print('| $streams | $dir | ${p%%:*} → ${p##*:} | %.2f | %.2f | %.0f | %.0f |' % (bps / 1e9, ratio, hc, rc))
"
    done
  done
done
