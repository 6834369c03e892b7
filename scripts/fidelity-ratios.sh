#!/usr/bin/env bash
# One ratio per metric, ours / the real tool's, each pair run back to back on the same CPU
# (called by scripts/fidelity.sh; see there for the tools and variables). Tools that are
# not given or not found print "not run". Needs jq; run by hand, not in CI.
set -uo pipefail
cd "$(dirname "$0")/.."
CPU="${1:-0}"
BIN="${SBC_BENCH:-target/release/sbc-bench}"
command -v jq >/dev/null || { echo "missing: jq" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
pin() { taskset -c "$CPU" "$@"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a=="" || b=="" || a=="null" || b=="null" || b==0) print "n/a"; else printf "%.3f", a/b }'; }
num() { awk -v a="$1" 'BEGIN { if (a ~ /^[0-9.eE+-]+$/) printf "%.1f", a; else print (a == "" ? "n/a" : a) }'; }
line() { printf '  %-34s ours %12s  tool %12s  ratio %s\n' "$1" "$(num "$2")" "$(num "$3")" "$(ratio "$2" "$3")"; }

arch="$(uname -m)"; [ "$arch" = armv7l ] && arch=armv7
SEVENZ="${SBC_7ZA:-}"
if [ -z "$SEVENZ" ]; then
  for c in target/7za-16.02/"$arch"-unknown-linux-gnu/7za target/7za-16.02/"$arch"-unknown-linux-gnueabihf/7za; do
    [ -x "$c" ] && SEVENZ="$c" && break
  done
fi
[ -z "$SEVENZ" ] && SEVENZ="$(command -v 7za || command -v 7z || true)"

echo "== ratios ours / real tool, cpu$CPU, $(uname -srm), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%dT%H:%MZ)"

# 7-Zip: `7za b -mmt1` (Avr: compress | decompress, Tot:) vs our native LZMA on the same CPU,
# then `7za b -mmtN` vs our native run on all N CPUs.
if [ -n "$SEVENZ" ] && [ -x "$SEVENZ" ]; then
  pin "$SEVENZ" b -mmt1 >"$TMP/7z.txt" 2>&1
  z_c=$(awk -F'|' '/^Avr:/ {n=split($1,a," "); print a[n]}' "$TMP/7z.txt")
  z_d=$(awk -F'|' '/^Avr:/ {n=split($2,a," "); print a[n]}' "$TMP/7z.txt")
  z_t=$(awk '/^Tot:/ {print $NF}' "$TMP/7z.txt")
  echo "  7-Zip: $SEVENZ ($(grep -m1 -o '7-Zip[^:]*' "$TMP/7z.txt"))"
  PATH="$(cd "$(dirname "$SEVENZ")" && pwd):$PATH" "$BIN" bench compress --cpus "$CPU" --json >"$TMP/c.json" 2>/dev/null
  n='.results.native_single[0].result'
  line "LZMA compress (MIPS, 1 thread)" "$(jq -r "$n.compress_rating_mips" "$TMP/c.json")" "$z_c"
  line "LZMA decompress (MIPS, 1 thread)" "$(jq -r "$n.decompress_rating_mips" "$TMP/c.json")" "$z_d"
  line "LZMA total (MIPS, 1 thread)" "$(jq -r "$n.total_rating_mips" "$TMP/c.json")" "$z_t"
  line "7-Zip total via our run" "$(jq -r '.results.sevenzip.single[0].result.table.total_rating_mips // "null"' "$TMP/c.json")" "$z_t"
  # All CPUs: `7za b -mmtN` once against our native multi-threaded run (not pinned).
  ncpu="$(nproc)"
  "$SEVENZ" b "-mmt$ncpu" >"$TMP/7zm.txt" 2>&1
  m_c=$(awk -F'|' '/^Avr:/ {n=split($1,a," "); print a[n]}' "$TMP/7zm.txt")
  m_d=$(awk -F'|' '/^Avr:/ {n=split($2,a," "); print a[n]}' "$TMP/7zm.txt")
  m_t=$(awk '/^Tot:/ {print $NF}' "$TMP/7zm.txt")
  "$BIN" bench compress --native-only --json >"$TMP/cm.json" 2>/dev/null
  m='.results.native_multi'
  line "LZMA compress (MIPS, $ncpu threads)" "$(jq -r "$m.compress_rating_mips" "$TMP/cm.json")" "$m_c"
  line "LZMA decompress (MIPS, $ncpu threads)" "$(jq -r "$m.decompress_rating_mips" "$TMP/cm.json")" "$m_d"
  line "LZMA total (MIPS, $ncpu threads)" "$(jq -r "$m.total_rating_mips" "$TMP/cm.json")" "$m_t"
else
  echo "  7-Zip: not run (no SBC_7ZA, no bundled 7za, none on PATH)"
fi

# OpenSSL: AES-256-CBC at 16 KiB.
if command -v openssl >/dev/null; then
  t=$(pin openssl speed -elapsed -seconds 1 -evp aes-256-cbc 2>/dev/null | awk 'tolower($1)=="aes-256-cbc" {v=$NF; sub(/k$/,"",v); print v}')
  "$BIN" bench aes --cpus "$CPU" --algorithms aes-256-cbc --json >"$TMP/aes.json" 2>/dev/null
  o=$(jq -r '[.. | objects | select(.algorithm? == "aes-256-cbc" and has("sizes") and (.tag != "fully parallel"))][0].sizes[] | select(.buffer_bytes == 16384) | .bytes_per_s / 1000' "$TMP/aes.json" 2>/dev/null | head -n1)
  line "AES-256-CBC 16 KiB (1000 B/s)" "$o" "$t"
else
  echo "  openssl: not installed"
fi

# tinymembench: libc memcpy / memset, sbc-bench's options.
if [ -n "${TINYMEMBENCH:-}" ] && [ -x "$TINYMEMBENCH" ]; then
  pin "$TINYMEMBENCH" -b 2 -B 3 -l 3 -c 1000000 >"$TMP/tmb.txt" 2>&1
  "$BIN" bench membw --cpus "$CPU" --json >"$TMP/bw.json" 2>/dev/null
  for op in "memcpy copy" "memset fill"; do
    t=$(awk -F: -v n="libc $op" 'index($1, " " n) == 1 {split($2,a," "); print a[1]}' "$TMP/tmb.txt")
    o=$(jq -r --arg n "libc $op" '.runs[0].result.rows[] | select(.name == $n) | .mb_per_s' "$TMP/bw.json")
    d=$(jq -r --arg n "DRAM libc $op" '.runs[0].result.dram_rows[]? | select(.name == $n) | .mb_per_s' "$TMP/bw.json")
    line "libc $op (MB/s)" "$o" "$t"
    [ -n "$d" ] && line "  DRAM libc $op, beyond LLC" "$d" "$t"
  done
else
  echo "  tinymembench: not run (TINYMEMBENCH=path)"
fi

# ramlat: 16M and 128M, first column (1x32), no madvise on either side.
if [ -n "${RAMLAT:-}" ] && [ -x "$RAMLAT" ]; then
  pin "$RAMLAT" -n -w 24,27 200 >"$TMP/ramlat.txt" 2>&1
  "$BIN" bench memlat --cpus "$CPU" --no-madvise --json >"$TMP/lat.json" 2>/dev/null
  for kb in 16384 131072; do
    t=$(awk -v k="${kb}k:" '$1 == k {print $2}' "$TMP/ramlat.txt")
    o=$(jq -r --argjson b $((kb * 1024)) '.runs[0].result.ramlat.rows[] | select(.size_bytes == $b) | .ns[0]' "$TMP/lat.json")
    line "ramlat $((kb / 1024))M 1x32 (ns)" "$o" "$t"
  done
else
  echo "  ramlat: not run (RAMLAT=path)"
fi

# mhz: clock of this CPU.
if [ -n "${MHZ:-}" ] && [ -x "$MHZ" ]; then
  t=$(pin "$MHZ" 3 1000000 | sed -n 's/.*cpu_MHz=\([0-9.]*\).*/\1/p' | sort -n | sed -n 2p)
  "$BIN" bench clock --cpus "$CPU" --json >"$TMP/clock.json" 2>/dev/null
  o=$(jq -r '.checks[0] | (.measured // .walk.opps[0].measured).mhz' "$TMP/clock.json")
  line "clock (MHz)" "$o" "$t"
else
  echo "  mhz: not run (MHZ=path)"
fi
