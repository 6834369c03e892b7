#!/usr/bin/env bash
# The whole signal matrix of issue 27 (run by hand; `cargo test` runs a representative
# part): every signal whose default action ends a process (HUP INT QUIT ILL TRAP ABRT BUS
# FPE USR1 SEGV USR2 ALRM TERM STKFLT XCPU VTALRM PROF IO PWR SYS) sent with kill(2) to
# run, graph, review, thermal, wrap and wrap --offline-others on a writable copy of the
# ROCK 5B fixture once it is tuned (at a random delay), plus SIGKILL at random points of
# graph followed by `sbc-bench restore`. Each cell must end with the tree byte for byte as
# it was and, for a catchable signal, exit status 128 + signal.
#
#   scripts/signal-matrix.sh                       # 120 signal cells + 30 SIGKILLs, 4 at once
#   SIGNAL_MATRIX_KILLS=100 SIGNAL_MATRIX_JOBS=2 scripts/signal-matrix.sh
#
# Prints one line per cell and a summary line; exits non-zero naming every failed cell.
set -euo pipefail
cd "$(dirname "$0")/.."
nice -n 10 cargo test --test it signal_matrix::full_signal_matrix -- --ignored --nocapture \
  2>&1 | grep -v 'File system loop'
