#!/usr/bin/env bash
# The memory-placement ablation (issue 13): every PolyBench kernel benched under
# fixed placement policies and under the model's choice, side by side in one
# device run (timings compare only within one run).
#
#   on device (carry: [".device"]):
#       bash scripts/memory_ablation.sh OUTDIR DATASET POLICY...
#   here:
#       python3 scripts/memory_ablation_report.py OUTDIR/summary.csv > TABLE.md
#
# Policies (each path applies where it is legal, the default elsewhere):
#   global     plain loads and stores, no registers or shared tiles
#   read-only  + the read-only path for arrays a kernel only reads
#   texture    textures over linear memory for those arrays
#   texture-2d textures over 2-D CUDA arrays
#   surface    surfaces (CUDA arrays copied in and back where a kernel changed them)
#   constant   __constant__ for warp-uniform arrays, up to 64 KB
#   on-chip    registers and shared tiles, plain global memory for the rest
#   texture+on-chip, constant+on-chip
#              registers and shared tiles, that path for the rest where legal
#   model      polycu's defaults: the model's choice
#
# Every bench (one per policy and GPU) runs at the same time: benches that share a
# GPU take turns on it for everything they run there (polycu/runtime/turns.py), so
# the compiles overlap and no timing holds another bench's kernels.  With GPUS="0 1"
# the kernels are split in two fixed halves, one per GPU, every policy of a kernel on
# the same GPU (a kernel's policies compare on one GPU).
#
# Environment: KERNELS="a b" (default: all 30), GPUS (default "0"), BENCH_OPTIONS
# (added to every policy's, e.g. --run-on=gpu), BENCH_TIMEOUT (seconds a bench may
# run; its kernels done by then are kept).
# OUTDIR/summary.csv gets one line per policy and kernel: policy, kernel, status,
# kernel ms, spread, the digest of the program that ran (polycu/bench/result.py).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="${1:?OUTDIR}"; dataset="${2:?DATASET}"; shift 2
off="--no-shared-memory --no-private-memory"
declare -A options=(
  [global]="$off --memory *:*=global"
  [read-only]="$off"
  [texture]="$off --memory *:*=texture"
  [texture-2d]="$off --memory *:*=texture-2d"
  [surface]="$off --memory *:*=surface"
  [constant]="$off --memory *:*=constant"
  [on-chip]="--memory *:*=global"
  [texture+on-chip]="--memory *:*=texture"
  [constant+on-chip]="--memory *:*=constant"
  [model]=""
)
for policy in "$@"; do
  [ -n "${options[$policy]+set}" ] || { echo "memory_ablation: no policy $policy" >&2; exit 2; }
done
if [ -n "${KERNELS:-}" ]; then
  names=($KERNELS)
else
  names=($(find polybench -mindepth 2 -name '*.c' ! -path '*/utilities/*' -exec basename {} .c \; \
           | sort))
fi
gpus=(${GPUS:-0})
bash scripts/device_run.sh device > /dev/null        # installs the wheels once
mkdir -p "$out"
pids=()
for g in "${!gpus[@]}"; do
  files=()
  for i in "${!names[@]}"; do           # kernel i to GPU i mod the number of GPUs
    if [ $((i % ${#gpus[@]})) -eq "$g" ]; then
      files+=("$(find polybench -mindepth 2 -name "${names[$i]}.c" ! -path '*/utilities/*' | head -1)")
    fi
  done
  for policy in "$@"; do
    run="$policy@${gpus[$g]}"
    set -f   # the policies' '*' are not globs
    # shellcheck disable=SC2086
    CUDA_VISIBLE_DEVICES="${gpus[$g]}" timeout "${BENCH_TIMEOUT:-0}" \
      bash scripts/device_run.sh bench "${files[@]}" -I "$root/polybench/utilities" \
      --dataset "$dataset" --no-cpu-baseline --repeat 5 --seed 7 ${options[$policy]} \
      ${BENCH_OPTIONS:-} --out "$out/$run" > "$out/$run.log" 2>&1 &
    set +f
    pids+=($!)
  done
done
for pid in "${pids[@]}"; do wait "$pid" || true; done
for policy in "$@"; do
  for gpu in "${gpus[@]}"; do
    results="$out/$policy@$gpu/results.csv"
    [ -f "$results" ] || { echo "memory_ablation: $policy on GPU $gpu: no results" >&2; continue; }
    python3 - "$results" "$policy" >> "$out/summary.csv" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(",".join([sys.argv[2], row["kernel"], row["status"], row["kernel_ms"],
                    row["kernel_spread"], row.get("program", "")]))
PY
  done
done
cat "$out/summary.csv"
