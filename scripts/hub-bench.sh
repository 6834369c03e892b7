#!/usr/bin/env bash
# The hub's load benchmark (docs/HUB.md "Measured"): on this machine, server and load
# generator on loopback, for SQLite and for PostgreSQL:
#   - the import of the published corpus (`sbc-bench-hub import`), seconds;
#   - uploads: wrk with 50 connections POSTing real corpus logs as `share` does (each a new
#     result), uploads/s and latency, and the rows stored counted against the 201 answers;
#   - reads: the results table (`/`) and result pages (`/results/ID.html`) with 200
#     connections, requests/s and latency;
#   - the hub's resident memory at rest and its peak under load;
#   - the same reads again after `sbc-bench-hub synth` added N synthetic results (default
#     100000), and how long adding them took.
# Writes target/hub-bench/figures.md (and the raw wrk output beside it). Needs wrk
# (`apt-get install wrk`) and Debian's postgresql (scripts/hub-pg.sh). Not a test: run it
# by hand, on a quiet machine; it says what else ran beside it.
#
#   scripts/hub-bench.sh [--duration S] [--synthetic N] [--corpus DIR] [--no-postgres]
set -euo pipefail
cd "$(dirname "$0")/.."

duration=20
synthetic=100000
corpus=""
postgres=1
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --synthetic) synthetic="$2"; shift 2 ;;
    --corpus) corpus="$2"; shift 2 ;;
    --no-postgres) postgres=0; shift ;;
    *) echo "usage: $0 [--duration S] [--synthetic N] [--corpus DIR] [--no-postgres]" >&2; exit 2 ;;
  esac
done
for c in "$corpus" ../shared/corpus/sbc-bench ../../shared/corpus/sbc-bench; do
  if [ -n "$c" ] && [ -d "$c/logs" ]; then corpus="$(cd "$c" && pwd)"; break; fi
done
[ -d "$corpus/logs" ] || { echo "no corpus: give --corpus DIR (with logs/ and reviews/)" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 2; }

out="target/hub-bench"
rm -rf "$out"
mkdir -p "$out"
say() { printf '==> %s\n' "$*" >&2; }

say "building sbc-bench-hub (release profile)"
cargo build --release --locked -p sbc-bench-hub 2>&1 | grep -v 'File system loop' | tail -n 2 >&2
hub="$PWD/target/release/sbc-bench-hub"

ls "$corpus"/logs/* > "$out/logs.list"
fig="$out/figures.md"
{
  echo "# sbc-bench-hub benchmark ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB;"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); server and wrk (2 threads) share the cores."
  echo "Other processes over 5 % CPU at the start:"
  echo
  echo '```'
  ps -eo pcpu,comm --sort=-pcpu | awk 'NR>1 && $1>5' | head -n 8
  echo '```'
  echo
  echo "| database | figure | value |"
  echo "|---|---|---|"
} > "$fig"
row() { echo "| $1 | $2 | $3 |" >> "$fig"; }

# The hub's resident set, kB.
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# Sample the peak resident set of PID while wrk runs: its file gets the maximum. The
# sampler must not hold the caller's stdout, or `$(peak_start …)` waits for it to end.
peak_start() { ( m=0; while kill -0 "$1" 2>/dev/null; do r=$(rss "$1"); [ "$r" -gt "$m" ] && m=$r && echo "$m" > "$2"; sleep 0.3; done ) > /dev/null 2>&1 & echo $!; }

# wrk RUN-NAME CONNECTIONS URL LUA LIST: the figures of one run.
bench() {
  local name="$1" conns="$2" url="$3" lua="$4" list="$5"
  wrk -t2 -c"$conns" -d"${duration}s" --timeout 30s -s "scripts/hub-bench/$lua" "$url" -- "$list" > "$out/$name.wrk" 2>&1
  local rps p50 p99
  rps="$(awk '/Requests\/sec/ {print $2}' "$out/$name.wrk")"
  p50="$(sed -n 's/^latency: p50=\([0-9.]*\)ms.*/\1/p' "$out/$name.wrk")"
  p99="$(sed -n 's/.*p99=\([0-9.]*\)ms.*/\1/p' "$out/$name.wrk")"
  echo "$rps $p50 $p99"
}

total() { curl -s "$1api/v1/results.json?status=all&limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])'; }

one_backend() {
  local label="$1"; shift
  local dbargs=("$@")
  say "$label: import of the corpus"
  local t0 t1
  t0=$(date +%s.%N)
  "$hub" import "${dbargs[@]}" "$corpus/logs" "$corpus/reviews" > "$out/$label-import.log" 2>&1 || true
  t1=$(date +%s.%N)
  row "$label" "import of the corpus ($(tail -n 1 "$out/$label-import.log" | cut -d';' -f1))" "$(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s"

  say "$label: serving"
  "$hub" serve "${dbargs[@]}" --listen 127.0.0.1:0 --upload-rate 0 --request-rate 0 \
    --max-connections 4096 --max-connections-per-address 0 > "$out/$label-serve.log" 2>&1 &
  local pid=$!
  local url=""
  for _ in $(seq 100); do
    url="$(sed -n 's/.*serving \(http[^ ]*\) on.*/\1/p' "$out/$label-serve.log")"
    [ -n "$url" ] && break
    sleep 0.1
  done
  curl -s -o /dev/null "$url"
  sleep 1
  row "$label" "memory at rest (RSS)" "$(( $(rss $pid) / 1024 )) MiB"

  local peakf="$out/$label-peak"; echo 0 > "$peakf"
  local sampler; sampler=$(peak_start "$pid" "$peakf")

  say "$label: uploads, 50 connections"
  local before after r
  before=$(total "$url")
  read -r rps p50 p99 < <(bench "$label-uploads" 50 "$url" upload.lua "$out/logs.list")
  after=$(total "$url")
  local created; created=$(sed -n 's/^uploads: created=\([0-9]*\).*/\1/p' "$out/$label-uploads.wrk")
  local other; other=$(sed -n 's/.*other=\([0-9]*\).*/\1/p' "$out/$label-uploads.wrk")
  row "$label" "uploads/s, 50 uploaders (real corpus logs)" "$rps (p50 $p50 ms, p99 $p99 ms)"
  row "$label" "uploads answered 201 / results stored / other answers" "$created / $((after - before)) / $other"

  # Result pages: the corpus's and the uploads' (the first 1000 the API lists).
  curl -s "${url}api/v1/results.json?status=all&limit=1000" \
    | python3 -c 'import json,sys; [print("/results/%s.html" % r["id"]) for r in json.load(sys.stdin)["results"]]' > "$out/$label-pages.list"
  echo / > "$out/table.list"
  say "$label: reads, 200 connections"
  read -r rps p50 p99 < <(bench "$label-table" 200 "$url" reads.lua "$out/table.list")
  row "$label" "results table (/) reads/s, 200 readers, $(total "$url") results" "$rps (p50 $p50 ms, p99 $p99 ms)"
  read -r rps p50 p99 < <(bench "$label-pages" 200 "$url" reads.lua "$out/$label-pages.list")
  row "$label" "result page reads/s, 200 readers" "$rps (p50 $p50 ms, p99 $p99 ms)"
  row "$label" "memory peak under load (RSS)" "$(( $(cat "$peakf") / 1024 )) MiB"

  if [ "$synthetic" -gt 0 ]; then
    say "$label: $synthetic synthetic results"
    t0=$(date +%s.%N)
    "$hub" synth "${dbargs[@]}" --count "$synthetic" --tag verified > "$out/$label-synth.log" 2>&1
    t1=$(date +%s.%N)
    row "$label" "adding $synthetic synthetic results (bulk, 1000 per transaction)" "$(awk "BEGIN {printf \"%.1f\", $t1 - $t0}") s"
    curl -s "${url}api/v1/results.json?status=all&limit=1000&sort=date&dir=asc" \
      | python3 -c 'import json,sys; [print("/results/%s.html" % r["id"]) for r in json.load(sys.stdin)["results"]]' > "$out/$label-pages2.list"
    local n; n=$(total "$url")
    read -r rps p50 p99 < <(bench "$label-table-big" 200 "$url" reads.lua "$out/table.list")
    row "$label" "results table (/) reads/s, 200 readers, $n results" "$rps (p50 $p50 ms, p99 $p99 ms)"
    read -r rps p50 p99 < <(bench "$label-pages-big" 200 "$url" reads.lua "$out/$label-pages2.list")
    row "$label" "result page reads/s, 200 readers, $n results" "$rps (p50 $p50 ms, p99 $p99 ms)"
    row "$label" "memory peak under load (RSS), $n results" "$(( $(cat "$peakf") / 1024 )) MiB"
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
  kill "$sampler" 2>/dev/null || true
  if [ "$label" = SQLite ]; then
    row "$label" "database size" "$(du -sh "${dbargs[1]}" | cut -f1)"
  else
    row "$label" "database size" "$(psql "${dbargs[1]}" -Atc 'SELECT pg_size_pretty(pg_database_size(current_database()))')"
  fi
}

one_backend SQLite --data "$out/sqlite"

if [ "$postgres" = 1 ]; then
  pgdir="$(mktemp -d /tmp/sbc-bench-hub-bench-pg.XXXXXX)"
  trap 'scripts/hub-pg.sh stop "$pgdir" >/dev/null 2>&1 || true; rm -rf "$pgdir"' EXIT
  # A durable server (fsync on): the figures of a real deployment, not of the test server.
  pg="$(scripts/hub-pg.sh start "$pgdir" --durable)"
  one_backend PostgreSQL --database "$pg" --pool 32
fi

echo >> "$fig"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$fig"
cat "$fig"
