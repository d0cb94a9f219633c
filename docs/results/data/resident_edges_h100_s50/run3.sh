#!/usr/bin/env bash
# Session 50, call 3: the new defaults (resident grid on, --resident-sync auto) on an H100 at LARGE.
set -u
out="$1"; mkdir -p "$out"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1
export KERNELS="jacobi-2d fdtd-2d"
s=$SECONDS
for r in 1 2; do
  BENCH_OPTIONS="--repeat 10" bash scripts/bench_commits.sh run "$out/r${r}_default" LARGE work > /dev/null 2>&1
  BENCH_OPTIONS="--repeat 10 --resident-sync grid" bash scripts/bench_commits.sh run "$out/r${r}_grid" LARGE work > /dev/null 2>&1
  BENCH_OPTIONS="--repeat 10 --no-resident-grid" bash scripts/bench_commits.sh run "$out/r${r}_launches" LARGE work > /dev/null 2>&1
  echo "round $r $((SECONDS - s)) s" >> "$out/times.txt"
done
for f in "$out"/r*/summary.csv; do echo "== $f"; cat "$f"; done
bash scripts/device_run.sh script scripts/gpu_programs.py --kernels jacobi-2d fdtd-2d --out "$out/programs" > "$out/programs.log" 2>&1
echo "programs $((SECONDS - s)) s" >> "$out/times.txt"
grep "^| [a-z]" "$out/programs.log" | tail -3
bash scripts/device_run.sh pytest tests/test_gpu_runtime.py -q > "$out/pytest.log" 2>&1
tail -3 "$out/pytest.log"
echo "pytest $((SECONDS - s)) s" >> "$out/times.txt"
cat "$out/times.txt"
rm -rf "$out/programs/build"
