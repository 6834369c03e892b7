#!/usr/bin/env bash
# Fidelity of `sbc-bench storage bench` against fio, side by side on one filesystem.
#
#   scripts/storage-fidelity.sh [DIR]        (default DIR: /var/tmp, disk-backed)
#
# Both tools get equivalent parameters: O_DIRECT, one synchronous request at a time
# (fio: ioengine=psync, iodepth=1), the same file size, fsync inside write timings
# (fio: end_fsync=1, which fio counts in the job's runtime), no preallocation
# (fio: fallocate=none; iozone and we just write), random I/O touching every block once
# (fio's default random map; our shuffled order). Rounds alternate the tools so drift in
# a shared machine's load hits both; medians are compared.
#
# Prints one line per figure with the ratio ours/fio; the target band is 0.8-1.25.
# Environment: SIZE (default 100M), ROUNDS (default 3), RECORDS (default "4k 16m"),
# BIN (default target/release/sbc-bench). The min-max spread of each tool is shown: on a
# busy machine it tells whether a ratio is the tools or the noise.
set -euo pipefail

DIR=${1:-/var/tmp}
SIZE=${SIZE:-100M}
ROUNDS=${ROUNDS:-3}
RECORDS=${RECORDS:-4k 16m}
BIN=${BIN:-target/release/sbc-bench}

command -v fio >/dev/null || { echo "fio is not installed (apt-get install fio)" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq is not installed (apt-get install jq)" >&2; exit 2; }
[ -x "$BIN" ] || cargo build --release
work=$(mktemp -d "$DIR/sbc-bench-fidelity.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "# $(date -u +%FT%TZ) $(uname -r) $(fio --version) vs $("$BIN" --version)"
echo "# dir $DIR ($(df -T "$DIR" | awk 'NR==2 {print $2" on "$1}')), size $SIZE, $ROUNDS rounds, load $(cut -d" " -f1-3 /proc/loadavg) on $(nproc) CPUs"

# fio: one job, bytes/s of its direction.
fio_bw() { # rw bs fsync
  local dir=read
  case $1 in *write) dir=write ;; esac
  fio --name=fidelity --filename="$work/fio.dat" --rw="$1" --bs="$2" --size="$SIZE" \
    --direct=1 --ioengine=psync --iodepth=1 --fallocate=none --end_fsync="$3" \
    --output-format=json 2>/dev/null | jq ".jobs[0].$dir.bw_bytes"
}

# One fio pass set in iozone's order: write (fresh file), rewrite, read, reread,
# random read, random write.
fio_round() { # bs
  rm -f "$work/fio.dat"
  echo "$(fio_bw write "$1" 1) $(fio_bw write "$1" 1) $(fio_bw read "$1" 0) $(fio_bw read "$1" 0) $(fio_bw randread "$1" 0) $(fio_bw randwrite "$1" 1)"
  rm -f "$work/fio.dat"
}

ours_round() { # bs → bytes/s of the six passes
  mkdir -p "$work/ours"
  "$BIN" storage bench "$work/ours" --size "$SIZE" -r "$1" --json --no-monitor |
    jq -r '[.result.records[0].phases[] | (.bytes / .seconds)] | map(floor) | join(" ")'
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
spread() { sort -g | awk 'NR==1 {lo=$1} {hi=$1} END {printf "%.0f-%.0f", lo/1e6, hi/1e6}'; }

names=(write rewrite read reread randread randwrite)
for bs in $RECORDS; do
  : >"$work/fio.$bs"; : >"$work/ours.$bs"
  for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2)); then
      fio_round "$bs" >>"$work/fio.$bs"; ours_round "$bs" >>"$work/ours.$bs"
    else
      ours_round "$bs" >>"$work/ours.$bs"; fio_round "$bs" >>"$work/fio.$bs"
    fi
  done
  for i in 0 1 2 3 4 5; do
    f=$(awk -v c=$((i + 1)) '{print $c}' "$work/fio.$bs" | median)
    o=$(awk -v c=$((i + 1)) '{print $c}' "$work/ours.$bs" | median)
    fs=$(awk -v c=$((i + 1)) '{print $c}' "$work/fio.$bs" | spread)
    os=$(awk -v c=$((i + 1)) '{print $c}' "$work/ours.$bs" | spread)
    awk -v bs="$bs" -v n="${names[$i]}" -v f="$f" -v o="$o" -v fs="$fs" -v os="$os" 'BEGIN {
      r = o / f; ok = (r >= 0.8 && r <= 1.25) ? "ok" : "OUT OF BAND";
      printf "%-4s %-10s fio %8.1f MB/s (%11s)  ours %8.1f MB/s (%11s)  ratio %5.2f  %s\n", bs, n, f/1e6, fs, o/1e6, os, r, ok }'
  done
done
