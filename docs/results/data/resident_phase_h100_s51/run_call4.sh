#!/usr/bin/env bash
# Session 51, call B: the new defaults (flags polled at once, auto = flags) on an H100.
set -u
out="$1"; mkdir -p "$out"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1; head -1 "$out/device.txt"
s=$SECONDS
export KERNELS="jacobi-2d fdtd-2d"
BENCH_OPTIONS="--repeat 10" bash scripts/bench_commits.sh run "$out/default" LARGE work > /dev/null 2>&1
BENCH_OPTIONS="--repeat 10 --no-resident-grid" bash scripts/bench_commits.sh run "$out/launches" LARGE work > /dev/null 2>&1
for f in "$out"/*/summary.csv; do echo "== $f"; cat "$f"; done
echo "bench $((SECONDS - s)) s"
bash scripts/device_run.sh script scripts/gpu_programs.py --kernels jacobi-2d fdtd-2d --out "$out/programs" > "$out/programs.log" 2>&1
grep "^| [a-z]" "$out/programs.log" | tail -3
echo "programs $((SECONDS - s)) s"
rm -rf "$out/programs/build"
bash scripts/device_run.sh script scripts/resident_stencil_campaign.py 5230 45 auto 4 --gpu > "$out/campaign_auto.log" 2>&1
echo "campaign auto rc=$?: $(grep -c ' match' "$out/campaign_auto.log") match, $(grep -c MISMATCH "$out/campaign_auto.log") mismatch, $(grep -c ERROR "$out/campaign_auto.log") error, $(grep -c ' resident' "$out/campaign_auto.log") resident"
echo "campaign $((SECONDS - s)) s"
bash scripts/device_run.sh script scripts/resident_stencil_campaign.py 5275 30 grid 4 --gpu > "$out/campaign_grid.log" 2>&1
echo "campaign grid rc=$?: $(grep -c ' match' "$out/campaign_grid.log") match, $(grep -c MISMATCH "$out/campaign_grid.log") mismatch, $(grep -c ERROR "$out/campaign_grid.log") error, $(grep -c ' resident' "$out/campaign_grid.log") resident"
echo "campaign $((SECONDS - s)) s"
tail -2 "$out/campaign_auto.log"
