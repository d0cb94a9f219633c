#!/usr/bin/env bash
# Session 43: issue 14's program targets, the filing's tree (418a942) and this one, LARGE.
set -u
cd "$(dirname "$0")/.."
out="$1"
K="adi nussinov seidel-2d gramschmidt doitgen durbin trisolv jacobi-1d atax bicg mvt gesummv gemver"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1
s=$SECONDS
bash scripts/device_run.sh script scripts/gpu_programs.py --datasets LARGE --time-only \
  --repeat 5 --kernels $K --out "$out/now" > "$out/now.log" 2>&1
echo "now $((SECONDS - s)) s" >> "$out/times.txt"
s=$SECONDS
(export PYTHONPATH="$PWD/.device/site"; cd .device/full418 && python3 scripts/gpu_programs.py \
  --datasets LARGE --time-only --repeat 5 --kernels $K --out "$out/filing") > "$out/filing.log" 2>&1
echo "filing $((SECONDS - s)) s" >> "$out/times.txt"
rm -rf "$out/now/build" "$out/filing/build"
cat "$out/times.txt"
