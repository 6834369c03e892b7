#!/bin/sh
# Fidelity of sbc-bench's AES, compression and scrypt benchmarks against the reference tools,
# measured side by side in one run on this machine. Run by hand (minutes, needs a quiet
# machine); its output goes into docs/FIDELITY.md.
#
#   scripts/fidelity-crypto.sh            # AES 3 s per size, full 7-Zip and LZMA runs, scrypt 60 s
#   QUICK=1 scripts/fidelity-crypto.sh    # smoke run: --quick everywhere
#   CPU=2 SCRYPT_SECONDS=300 scripts/fidelity-crypto.sh
#
# AES:      our native AES-CBC vs `openssl speed -elapsed -evp aes-…-cbc`, both pinned to
#           $CPU (our runner starts openssl exactly as sbc-bench does). Target 0.9-1.1 at 16 KiB.
# LZMA:     our native LZMA rating vs the installed 7-Zip's `7z b` Tot: on the same core
#           (single-threaded) and on all cores (multi-threaded, mean of 7-Zip's 3 runs).
# scrypt:   our kH/s on all cores, with the kernel used (cpuminer is not run here).
set -eu

cd "$(dirname "$0")/.."
CPU=${CPU:-$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')}
SCRYPT_SECONDS=${SCRYPT_SECONDS:-60}
QUICKFLAG=""
[ "${QUICK:-0}" = 1 ] && QUICKFLAG="--quick" && SCRYPT_SECONDS=10
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

now() { date +%s.%N; }

echo "== sbc-bench fidelity: AES, compression, scrypt =="
echo "host: $(uname -srm), $(nproc) CPUs online, pinned runs on cpu$CPU, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), nice $NICE"
echo

t0=$(now)
nice -n "$NICE" "$BIN" bench aes --cpus "$CPU" --json $QUICKFLAG >"$TMP/aes.json" || true
t1=$(now)
nice -n "$NICE" "$BIN" bench compress --json $QUICKFLAG >"$TMP/compress.json" || true
t2=$(now)
nice -n "$NICE" "$BIN" bench scrypt --duration "$SCRYPT_SECONDS" --json >"$TMP/scrypt.json" || true
t3=$(now)

python3 - "$TMP" "$t0" "$t1" "$t2" "$t3" <<'PY'
import json, sys
tmp, t0, t1, t2, t3 = sys.argv[1], *map(float, sys.argv[2:])

def load(name):
    try:
        with open(f"{tmp}/{name}.json") as f:
            return json.load(f)
    except Exception as e:
        print(f"{name}: no result ({e})")
        return None

aes = load("aes")
if aes:
    r = aes["results"]
    print(f"AES on cpu{aes['targets'][0]['cpu']}: native backend {r['backend']}")
    ossl = r.get("openssl")
    if not ossl:
        print("  openssl not installed: no comparison")
    else:
        print(f"  {ossl['version_line']}")
        print(f"  {'algorithm':<12} {'size':>6} {'ours k/s':>14} {'openssl k/s':>14} {'ratio':>6}")
        ref = {(x["algorithm"], x["cpu"]): x for x in ossl["rows"]}
        for row in r["native"]:
            o = ref.get((row["algorithm"], row["cpu"]))
            if not o:
                continue
            for a, b in zip(row["sizes"], o["sizes"]):
                if a["buffer_bytes"] in (16, 1024, 16384):
                    print(f"  {row['algorithm']:<12} {a['buffer_bytes']:>6} {a['bytes_per_s']/1e3:>14.2f}"
                          f" {b['bytes_per_s']/1e3:>14.2f} {a['bytes_per_s']/b['bytes_per_s']:>6.2f}")
        ours = sum(x["elapsed_s"] for x in r["native"])
        theirs = sum(x["elapsed_s"] for x in ossl["rows"])
        print(f"  time: native {ours:.0f} s, openssl {theirs:.0f} s (whole command {t1-t0:.0f} s)")
    for e in r["errors"]:
        print(f"  failed: {e}")
    print()

comp = load("compress")
if comp:
    r = comp["results"]
    z = r.get("sevenzip")
    single = r["native_single"][0] if r["native_single"] else None
    multi = r.get("native_multi")
    if z:
        print(f"LZMA vs 7-Zip ({z['version'].get('banner')}, engine {z['version'].get('engine')})")
        if z.get("warning"):
            print(f"  note: {z['warning']}")
    else:
        print("LZMA: 7-Zip not installed: native only")
    if single:
        n = single["result"]
        cpu = single["target"]["cpu"]
        line = f"  single-threaded cpu{cpu}: native Tot {n['total_rating_mips']:.0f} MIPS (compress {n['compress_rating_mips']:.0f}, decompress {n['decompress_rating_mips']:.0f}) in {n['elapsed_s']:.0f} s"
        if z and z["single"]:
            s = z["single"][0]["result"]
            t = s["table"]
            line += (f"; 7-Zip Tot {t['total_rating_mips']} (compress {t['compress_rating_mips']}, "
                     f"decompress {t['decompress_rating_mips']}) in {s['elapsed_s']:.0f} s; "
                     f"ratio {n['total_rating_mips']/t['total_rating_mips']:.2f}")
        print(line)
    if multi:
        line = f"  multi-threaded ({len(multi['cpus'])} threads): native Tot {multi['total_rating_mips']:.0f} MIPS in {multi['elapsed_s']:.0f} s"
        if z and z["multi"]:
            tots = [m["table"]["total_rating_mips"] for m in z["multi"]]
            mean = sum(tots) / len(tots)
            secs = sum(m["elapsed_s"] for m in z["multi"])
            line += (f"; 7-Zip Tot {','.join(map(str, tots))} (mean {mean:.0f}) in {secs:.0f} s; "
                     f"ratio {multi['total_rating_mips']/mean:.2f}")
        print(line)
    if single:
        for d in single["result"]["dicts"]:
            print(f"    native 2^{d['dict_log2']}: packed to {100*d['packed_bytes']/d['input_bytes']:.1f} %, "
                  f"compress {d['compress_kib_per_s']:.0f} KiB/s = {d['compress_rating_mips']:.0f} MIPS, "
                  f"decompress {d['decompress_kib_per_s']:.0f} KiB/s = {d['decompress_rating_mips']:.0f} MIPS")
    for e in r["errors"]:
        print(f"  failed: {e}")
    print(f"  time: whole command {t2-t1:.0f} s")
    print()

sc = load("scrypt")
if sc:
    r = sc["results"]
    iv = ",".join(f"{i['khash_per_s']:.2f}" for i in r["intervals"])
    print(f"scrypt N=1024 r=1 p=1 on {len(sc['cpus'])} threads, kernel {r['kernel']}: "
          f"mean {r['mean_khash_per_s']:.2f} kH/s over {r['elapsed_s']:.0f} s")
    print(f"  intervals: {iv}")
    print(f"  time: whole command {t3-t2:.0f} s")
PY
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
