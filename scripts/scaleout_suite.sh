#!/usr/bin/env bash
# Issue 17's measurement of the whole suite at LARGE in one device call (x2 machine):
# a warm-up on MINI, a first run on one GPU whose results.json is the history
# (--history) of the two measured runs, 2 GPUs x 6 workers and 1 GPU x 12 workers,
# the same 12 processes in both (docs/results/scaleout.md).
#
# Usage (on the device machine, with carry: [".device"]):
#     bash scripts/scaleout_suite.sh OUTDIR
#     python3 scripts/scaleout_compare.py OUTDIR/so
set -u
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/scaleout_suite.sh OUTDIR}"
flags="--no-cpu-baseline --repeat 3"
GPUS=1 STAGES=bench BENCH_FLAGS="--no-cpu-baseline --repeat 1 --workers-per-gpu 12" \
  bash scripts/scaleout.sh "$out/warm" MINI > /dev/null 2>&1
GPUS=1 STAGES=bench BENCH_FLAGS="$flags --workers-per-gpu 12" DEADLINE=150 \
  bash scripts/scaleout.sh "$out/h" LARGE
history="$out/h/gpus1/bench/results.json"
GPUS=2 STAGES=bench BENCH_FLAGS="$flags --workers-per-gpu 6 --history $history" DEADLINE=120 \
  bash scripts/scaleout.sh "$out/so" LARGE
GPUS=1 STAGES=bench BENCH_FLAGS="$flags --workers-per-gpu 12 --history $history" DEADLINE=150 \
  bash scripts/scaleout.sh "$out/so" LARGE
