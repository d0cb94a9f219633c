#!/usr/bin/env bash
# Session 43: issue 12's filing (418a942) against the work tree, LARGE, two GPUs.
set -u
cd "$(dirname "$0")/.."
out="$1"; which="$2"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1
A="gemm gemver gesummv symm syr2k syrk trmm 2mm 3mm atax bicg mvt covariance correlation deriche adi seidel-2d"
B="doitgen cholesky durbin lu ludcmp trisolv jacobi-1d jacobi-2d fdtd-2d heat-3d gramschmidt floyd-warshall nussinov"
half() {
  local gpu="$1" name="$2" kernels="$3"
  export CUDA_VISIBLE_DEVICES="$gpu"
  local s=$SECONDS
  KERNELS="$kernels" bash scripts/bench_commits.sh run "$out/$name" LARGE 418a942 > "$out/$name.filing.log" 2>&1
  echo "$name filing $((SECONDS - s)) s" >> "$out/times.txt"
  s=$SECONDS
  KERNELS="$kernels" BENCH_OPTIONS="--workers-per-gpu 12" bash scripts/bench_commits.sh run "$out/$name" LARGE work > "$out/$name.work.log" 2>&1
  echo "$name work $((SECONDS - s)) s" >> "$out/times.txt"
}
if [ "$which" = a ]; then half 0 a "$A"; else half 0 b "$B"; fi
cp "$out/$which/summary.csv" "$out/${which}_summary.csv"
cat "$out/times.txt"
