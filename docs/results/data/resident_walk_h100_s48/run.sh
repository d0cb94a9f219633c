#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
F="polybench/stencils/jacobi-2d/jacobi-2d.c polybench/stencils/fdtd-2d/fdtd-2d.c"
B="-I polybench/utilities --dataset LARGE --no-cpu-baseline --seed 7 --repeat 10"
bench() {
  timeout 100 bash scripts/device_run.sh bench $F $B "${@:3}" --out /tmp/b/r$1-$2 > /tmp/b-r$1-$2.log 2>&1
  echo "round $1 $2 rc=$?"; cp /tmp/b/r$1-$2/results.csv $OUT/r$1-$2.csv; python3 -c "import csv,sys; [print(r[\"kernel\"], r[\"status\"], r[\"launches\"], r[\"kernel_ms\"], r[\"kernel_spread\"]) for r in csv.DictReader(open(sys.argv[1]))]" /tmp/b/r$1-$2/results.csv || tail -5 /tmp/b-r$1-$2.log
}
for r in 1 2; do
bench $r default
bench $r grid --resident-grid --resident-sync grid
bench $r flags --resident-grid --resident-sync neighbours
done
timeout 120 bash scripts/device_run.sh pytest -q tests/test_gpu_runtime.py -k resident 2>&1 | tail -1
timeout 150 bash scripts/device_run.sh script scripts/gpu_programs.py --kernels jacobi-2d fdtd-2d --polycu-flags=--resident-grid --out /tmp/gp 2>&1 | tail -3
