#!/usr/bin/env bash
# Session 51, call A: the parallel flag polls (8b21896) against 87063f2, H100 LARGE.
set -u
out="$1"; mkdir -p "$out"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1; head -3 "$out/device.txt"
export KERNELS="jacobi-2d fdtd-2d"
s=$SECONDS
for r in 1 2; do
  BENCH_OPTIONS="--repeat 10" bash scripts/bench_commits.sh run "$out/r${r}" LARGE 87063f2 work > /dev/null 2>&1
  KERNELS=fdtd-2d BENCH_OPTIONS="--repeat 10 --resident-sync neighbours" bash scripts/bench_commits.sh run "$out/r${r}_flags" LARGE 87063f2 work > /dev/null 2>&1
  echo "round $r $((SECONDS - s)) s"
done
for f in "$out"/r*/summary.csv; do echo "== $f"; cat "$f"; done
bash scripts/device_run.sh pytest tests/test_gpu_runtime.py -q > "$out/pytest.log" 2>&1
tail -3 "$out/pytest.log"
echo "pytest $((SECONDS - s)) s"
