#!/usr/bin/env bash
# The same `polycu bench` (and `polycu tune`) on N GPUs of this host for each N given,
# one after the other in one call, each from cold caches, so that their wall times
# compare: the speed-up of several GPUs over one (docs/scale-out.md).
#
# Usage (on the device machine, with carry: [".device"]):
#     GPUS="2 1" STAGES="bench tune" bash scripts/scaleout.sh OUTDIR [DATASET]
# BENCH: the files benched (default: polybench/); BENCH_FLAGS: more bench flags
# (default: --no-cpu-baseline --repeat 5, i.e. the bench's GPU part);
# TUNE: PolyBench kernel names tuned (default: gemm 2mm syrk), TUNE_FLAGS: more tune
# flags (default: --max-configs 12 --jobs 8 --retune); SEED: the inputs' seed, one for
# every run so that the checks compare.
# DEADLINE=S stops the last stage S seconds after the script's start (status 124 in
# walls.csv, its wall a lower bound), so that a device call's limit cuts no
# record.  Each run N writes OUTDIR/gpusN/{bench,tune}/ and its wall time to
# OUTDIR/walls.csv (stage,gpus,seconds,status); then
#     python3 scripts/scaleout_compare.py OUTDIR
# says whether the runs agree and how much faster the many GPUs were.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: GPUS=... scripts/scaleout.sh OUTDIR [DATASET]}"
dataset="${2:-LARGE}"
seed="${SEED:-20261129}"
mkdir -p "$out"
begin=$(date +%s)
limit() {   # (timeout 0 would mean no limit)
  if [ -n "${DEADLINE:-}" ]; then
    left=$(( DEADLINE - ($(date +%s) - begin) )); echo "timeout $(( left > 1 ? left : 1 ))"
  fi
}
[ -f "$out/walls.csv" ] || echo "stage,gpus,seconds,status" > "$out/walls.csv"
tune_files=()
for name in ${TUNE:-gemm 2mm syrk}; do
  tune_files+=("$(find polybench -name "$name.c" -path "*/$name/*" | head -1)")
done
for n in ${GPUS:-2 1}; do
  run="$out/gpus$n"
  mkdir -p "$run/tmp" "$run/cache"
  for stage in ${STAGES:-bench tune}; do
    # Cold caches for every run: polycu's and nvcc's (PyCUDA keeps its builds in
    # the temporary directory), so no run reuses the builds of the one before.
    rm -rf "$run/tmp"/* "$run/cache"/*
    start=$(date +%s%N)
    if [ "$stage" = bench ]; then
      # shellcheck disable=SC2086
      TMPDIR="$run/tmp" XDG_CACHE_HOME="$run/cache" $(limit) bash scripts/device_run.sh bench \
        ${BENCH:-polybench/} --dataset "$dataset" --seed "$seed" --gpus "$n" \
        ${BENCH_FLAGS:---no-cpu-baseline --repeat 5} --out "$run/bench" > "$run/bench.log" 2>&1
    else
      # shellcheck disable=SC2086
      TMPDIR="$run/tmp" XDG_CACHE_HOME="$run/cache" $(limit) bash scripts/device_run.sh tune \
        "${tune_files[@]}" -I polybench/utilities --dataset "$dataset" --seed "$seed" \
        --gpus "$n" ${TUNE_FLAGS:---max-configs 12 --jobs 8 --retune} \
        --tune-cache "$run/tuned.json" --out "$run/tune" > "$run/tune.log" 2>&1
    fi
    status=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "$stage,$n,$((ms / 1000)).$(printf %03d $((ms % 1000))),$status" >> "$out/walls.csv"
  done
  rm -rf "$run/tmp" "$run/cache"
done
cat "$out/walls.csv"
