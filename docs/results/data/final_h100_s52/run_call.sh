#!/usr/bin/env bash
# Session 52: issue 14's closing measurements on one H100, LARGE, from the repository root:
#   bash docs/results/data/final_h100_s52/run_call.sh OUT "KERNELS..." [stencils]
# The emitted programs of KERNELS checked against gcc (dumps) and timed with PolyBench's
# timer beside gcc -O3 on one thread; with `stencils`, first the three stencils' kernel
# times by the filing's tree (418a942, `bench_commits.sh prepare 418a942` here) and this one.
set -u
out="$1"; kernels="$2"; mkdir -p "$out"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1; head -3 "$out/device.txt"
s=$SECONDS
if [ "${3:-}" = stencils ]; then
  KERNELS="jacobi-2d fdtd-2d heat-3d" BENCH_OPTIONS="--repeat 10" \
    bash scripts/bench_commits.sh run "$out/stencils" LARGE 418a942 work > /dev/null 2>&1
  cat "$out/stencils/summary.csv"; echo "stencils $((SECONDS - s)) s"
fi
# shellcheck disable=SC2086
bash scripts/device_run.sh script scripts/gpu_programs.py --datasets LARGE --repeat 3 \
  --jobs 8 --kernels $kernels --out "$out/programs" > "$out/programs.log" 2>&1
rm -rf "$out/programs/build"
tail -40 "$out/programs/programs.md"
echo "programs $((SECONDS - s)) s"
