#!/bin/sh
# Fidelity of sbc-bench's AES, compression and scrypt benchmarks against the reference tools,
# measured side by side in one run on this machine. Run by hand (about 12 minutes; the
# quieter the machine, the better); its output goes into docs/FIDELITY.md.
#
#   scripts/fidelity-crypto.sh              # full: AES 3 s per size, full 7-Zip/LZMA runs
#   QUICK=1 scripts/fidelity-crypto.sh      # smoke run: --quick everywhere, one round
#   CPU=2 ROUNDS=5 SCRYPT_SECONDS=300 scripts/fidelity-crypto.sh
#
# AES:    our native AES-CBC vs `openssl speed -elapsed -evp aes-…-cbc`, both pinned to $CPU
#         (our runner starts openssl exactly as sbc-bench does). One `bench aes` per algorithm
#         and round runs ours and then OpenSSL's, so the two sides alternate; the best of
#         $ROUNDS rounds per cell is compared (interference only ever slows a run down).
#         Target: 0.9-1.1 at 16 KiB.
# LZMA:   our native LZMA rating vs the installed 7-Zip's `7z b` Tot: single-threaded on $CPU
#         (best of 2 alternating rounds) and multi-threaded on all cores (7-Zip's mean of
#         its 3 runs vs our one run).
# scrypt: our kH/s on all cores with the kernel chosen, then every kernel this CPU runs for
#         $KERNEL_SECONDS s each, as ratios to the scalar one (cpuminer is not run here).
set -eu

cd "$(dirname "$0")/.."
CPU=${CPU:-$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')}
SCRYPT_SECONDS=${SCRYPT_SECONDS:-60}
KERNEL_SECONDS=${KERNEL_SECONDS:-15}
ROUNDS=${ROUNDS:-3}
QUICKFLAG=""
if [ "${QUICK:-0}" = 1 ]; then QUICKFLAG="--quick"; SCRYPT_SECONDS=10; KERNEL_SECONDS=5; ROUNDS=1; fi
BIN=${SBC_BENCH:-target/release/sbc-bench}
# On a shared machine, a higher priority keeps other jobs from skewing one side of a
# comparison more than the other (both sides run with it). NICE=0 to disable.
NICE=${NICE:--5}
[ "$(id -u)" = 0 ] || NICE=0
if [ -z "${SBC_BENCH:-}" ]; then
    cargo build --release --quiet
fi
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON results" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run() { nice -n "$NICE" "$BIN" "$@" || true; }
now() { date +%s.%N; }

echo "== sbc-bench fidelity: AES, compression, scrypt =="
echo "host: $(uname -srm), $(nproc) CPUs online, pinned runs on cpu$CPU, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), nice $NICE, $ROUNDS AES rounds"
echo

t0=$(now)
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for alg in aes-128-cbc aes-256-cbc; do
        run bench aes --cpus "$CPU" --algorithms "$alg" --json $QUICKFLAG >"$TMP/aes-$alg-$r.json"
    done
    r=$((r + 1))
done
t1=$(now)
run bench compress --cpus "$CPU" --json $QUICKFLAG >"$TMP/compress-1.json"
run bench compress --json $QUICKFLAG >"$TMP/compress-2.json"
t2=$(now)
run bench scrypt --duration "$SCRYPT_SECONDS" --json >"$TMP/scrypt.json"
for k in scalar simd avx2; do
    run bench scrypt --duration "$KERNEL_SECONDS" --kernel "$k" --json >"$TMP/kernel-$k.json" 2>/dev/null
done
t3=$(now)

python3 - "$TMP" "$t0" "$t1" "$t2" "$t3" <<'PY'
import glob, json, sys
tmp, t0, t1, t2, t3 = sys.argv[1], *map(float, sys.argv[2:])

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception as e:
        print(f"{path.rsplit('/', 1)[-1]}: no result ({e})")
        return None

# AES: best of the rounds per algorithm, size and side.
best, times, backend, version, errors = {}, {"native": 0.0, "openssl": 0.0}, None, None, []
for path in sorted(glob.glob(f"{tmp}/aes-*.json")):
    doc = load(path)
    if not doc:
        continue
    r = doc["results"]
    backend = r["backend"]
    errors += r["errors"]
    sides = [("native", r["native"])]
    if r.get("openssl"):
        version = r["openssl"]["version_line"]
        sides.append(("openssl", r["openssl"]["rows"]))
    for side, rows in sides:
        for row in rows:
            times[side] += row["elapsed_s"]
            for s in row["sizes"]:
                k = (row["algorithm"], s["buffer_bytes"], side)
                best[k] = max(best.get(k, 0.0), s["bytes_per_s"])
print(f"AES on one core: native backend {backend}")
if not version:
    print("  openssl not installed: no comparison")
else:
    print(f"  {version}")
    print(f"  {'algorithm':<12} {'size':>6} {'ours k/s':>14} {'openssl k/s':>14} {'ratio':>6}   (best of rounds)")
    for alg in ("aes-128-cbc", "aes-256-cbc"):
        for size in (16, 64, 256, 1024, 8192, 16384):
            a, b = best.get((alg, size, "native")), best.get((alg, size, "openssl"))
            if a and b:
                print(f"  {alg:<12} {size:>6} {a/1e3:>14.2f} {b/1e3:>14.2f} {a/b:>6.2f}")
print(f"  time: native {times['native']:.0f} s, openssl {times['openssl']:.0f} s (all rounds {t1-t0:.0f} s)")
for e in errors:
    print(f"  failed: {e}")
print()

# LZMA: single-threaded from both commands (best of; as sbc-bench, the best cluster),
# multi-threaded from the second.
def secs(runs):
    return ", ".join("%.0f" % x["elapsed_s"] for x in runs)

c1, c2 = load(f"{tmp}/compress-1.json"), load(f"{tmp}/compress-2.json")
docs = [d for d in (c1, c2) if d]
z_single, n_single, zver, warn = [], [], None, None
for d in docs:
    r = d["results"]
    z = r.get("sevenzip")
    if z:
        zver, warn = z["version"], z.get("warning")
        z_single += [s["result"] for s in z["single"]]
    n_single += [s["result"] for s in r["native_single"]]
if zver:
    print(f"LZMA vs 7-Zip ({zver.get('banner')}, engine {zver.get('engine')})")
    if warn:
        print(f"  note: {warn}")
else:
    print("LZMA: 7-Zip not installed: native only")
if n_single:
    n = max(n_single, key=lambda x: x["total_rating_mips"])
    line = (f"  single-threaded: native Tot {n['total_rating_mips']:.0f} MIPS (compress {n['compress_rating_mips']:.0f}, "
            f"decompress {n['decompress_rating_mips']:.0f}), runs of {secs(n_single)} s")
    print(line)
if z_single:
    s = max(z_single, key=lambda x: x["table"]["total_rating_mips"])
    t = s["table"]
    print(f"                   7-Zip  Tot {t['total_rating_mips']} MIPS (compress {t['compress_rating_mips']}, "
          f"decompress {t['decompress_rating_mips']}), runs of {secs(z_single)} s")
    if n_single:
        print(f"                   ratio native/7-Zip (best of {len(n_single)} vs best of {len(z_single)}): "
              f"{n['total_rating_mips']/t['total_rating_mips']:.2f}")
if c2:
    r = c2["results"]
    m, z = r.get("native_multi"), r.get("sevenzip")
    if m:
        line = f"  multi-threaded ({len(m['cpus'])} threads): native Tot {m['total_rating_mips']:.0f} MIPS in {m['elapsed_s']:.0f} s"
        if z and z["multi"]:
            tots = [x["table"]["total_rating_mips"] for x in z["multi"]]
            mean = sum(tots) / len(tots)
            secs = sum(x["elapsed_s"] for x in z["multi"])
            line += (f"; 7-Zip Tot {','.join(map(str, tots))} (mean {mean:.0f}) in {secs:.0f} s; "
                     f"ratio {m['total_rating_mips']/mean:.2f}")
        print(line)
if n_single:
    for d in n["dicts"]:
        print(f"    native 2^{d['dict_log2']}: packed to {100*d['packed_bytes']/d['input_bytes']:.1f} %, "
              f"compress {d['compress_kib_per_s']:.0f} KiB/s = {d['compress_rating_mips']:.0f} MIPS, "
              f"decompress {d['decompress_kib_per_s']:.0f} KiB/s = {d['decompress_rating_mips']:.0f} MIPS")
for d in docs:
    for e in d["results"]["errors"]:
        print(f"  failed: {e}")
print(f"  time: both commands {t2-t1:.0f} s")
print()

sc = load(f"{tmp}/scrypt.json")
if sc:
    r = sc["results"]
    iv = ",".join(f"{i['khash_per_s']:.2f}" for i in r["intervals"])
    print(f"scrypt N=1024 r=1 p=1 on {len(sc['cpus'])} threads, kernel {r['kernel']}: "
          f"mean {r['mean_khash_per_s']:.2f} kH/s over {r['elapsed_s']:.0f} s")
    print(f"  intervals: {iv}")
kern = {}
for k in ("scalar", "simd", "avx2"):
    try:
        with open(f"{tmp}/kernel-{k}.json") as f:
            d = json.load(f)["results"]
        kern[d["kernel"]] = d["mean_khash_per_s"]
    except Exception:
        pass
if kern:
    base = kern.get("scalar")
    print("  kernels: " + ", ".join(
        f"{k} {v:.2f} kH/s" + (f" ({v/base:.2f}x scalar)" if base else "") for k, v in kern.items()))
print(f"  time: {t3-t2:.0f} s")
PY
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
