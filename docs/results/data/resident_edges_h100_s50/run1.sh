#!/usr/bin/env bash
# Session 50, call 1: resident grids, session 48's code (7a92a8a) vs head, H100 LARGE.
set -u
out="$1"; mkdir -p "$out"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1
export KERNELS="jacobi-2d fdtd-2d"
s=$SECONDS
for r in 1 2; do
  BENCH_OPTIONS="--resident-grid --repeat 10" bash scripts/bench_commits.sh run "$out/r$r" LARGE 7a92a8a work > /dev/null 2>&1
  BENCH_OPTIONS="--resident-grid --resident-sync neighbours --repeat 10" bash scripts/bench_commits.sh run "$out/r${r}n" LARGE 7a92a8a work > /dev/null 2>&1
  echo "round $r $((SECONDS - s)) s" >> "$out/times.txt"
done
BENCH_OPTIONS="--repeat 10" bash scripts/bench_commits.sh run "$out/default" LARGE work > /dev/null 2>&1
echo "default $((SECONDS - s)) s" >> "$out/times.txt"
for f in "$out"/r1/summary.csv "$out"/r1n/summary.csv "$out"/r2/summary.csv "$out"/r2n/summary.csv "$out"/default/summary.csv; do echo "== $f"; cat "$f"; done
bash scripts/device_run.sh pytest tests/test_gpu_runtime.py -k resident -q > "$out/pytest.log" 2>&1
tail -3 "$out/pytest.log"
echo "pytest $((SECONDS - s)) s" >> "$out/times.txt"
cat "$out/times.txt"
for d in r1 r1n r2 r2n default; do grep -h "mismatch\|error\|Error" "$out/$d"/*.log | head -5; done
