#!/usr/bin/env bash
# The memory-placement ablation (issue 13): every PolyBench kernel benched under
# fixed placement policies and under the model's choice, side by side in one
# device run (timings compare only within one run).
#
#   on device (carry: [".device"]):
#       bash scripts/memory_ablation.sh OUTDIR DATASET POLICY...
#   here:
#       python3 scripts/memory_ablation_report.py SUMMARY.csv... > docs/results/memory_ablation.md
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
# OUTDIR/summary.csv gets one line per policy and kernel: policy, kernel, status,
# kernel ms, spread.  KERNELS="a b" limits the kernels (default: all 30).
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
files=()
if [ -n "${KERNELS:-}" ]; then
  for k in $KERNELS; do
    files+=("$(find polybench -mindepth 2 -name "$k.c" ! -path '*/utilities/*' | head -1)")
  done
else
  files=(polybench)
fi
bash scripts/device_run.sh device > /dev/null        # installs the wheels once
mkdir -p "$out"
for policy in "$@"; do
  [ -n "${options[$policy]+set}" ] || { echo "memory_ablation: no policy $policy" >&2; exit 2; }
  set -f   # the policies' '*' are not globs
  # shellcheck disable=SC2086
  bash scripts/device_run.sh bench "${files[@]}" -I "$root/polybench/utilities" \
    --dataset "$dataset" --no-cpu-baseline --repeat 5 --seed 7 ${options[$policy]} \
    --out "$out/$policy" > "$out/$policy.log" 2>&1 \
    || echo "memory_ablation: $policy: bench failed (see $policy.log)"
  set +f
  [ -f "$out/$policy/results.csv" ] && python3 - "$out/$policy/results.csv" "$policy" \
    >> "$out/summary.csv" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(",".join([sys.argv[2], row["kernel"], row["status"], row["kernel_ms"],
                    row["kernel_spread"]]))
PY
  rm -rf "${out:?}/$policy"
done
cat "$out/summary.csv"
