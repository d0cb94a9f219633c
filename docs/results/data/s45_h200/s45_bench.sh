#!/usr/bin/env bash
# Session 45, one device call: issue 14's launch-bound kernels compiled by the
# filing (418a942) and by this tree, same call, then the whole suite at LARGE
# (the top-level docs/results/bench_large.md).  Usage (device tool, carry .device):
#   bash docs/results/data/s45_h200/s45_bench.sh "$OUT"
set -u
cd "$(dirname "$0")/../../../.."
out="$1"
root=$PWD
bash scripts/device_run.sh device > "$out/device.txt" 2>&1
K="adi nussinov seidel-2d gramschmidt doitgen jacobi-2d heat-3d fdtd-2d durbin trisolv jacobi-1d"
files=()
for k in $K; do files+=("$root/$(find polybench -mindepth 2 -name "$k.c" ! -path '*/utilities/*' | head -1)"); done
for tree in 418a942 work; do
  # the filing's bench has no --workers-per-gpu (in this call it stopped at that
  # option; run s43 in docs/results/memory.md has the same-call ratios)
  limit=150; workers=""; [ "$tree" = work ] && limit=120 && workers="--workers-per-gpu 11"
  dir="$root/.device/trees/$tree"; [ "$tree" = work ] && dir="$root"
  s=$SECONDS
  (cd "$dir" && PYTHONPATH="$root/.device/site:$dir" timeout "$limit" python3 -m polycu bench "${files[@]}" \
     -I "$root/polybench/utilities" --dataset LARGE --no-cpu-baseline --repeat 5 --seed 7 \
     $workers --out "/tmp/s45/$tree" > "/tmp/s45_$tree.log" 2>&1)
  echo "$tree $((SECONDS - s)) s rc=$?" >> "$out/times.txt"
  python3 - "/tmp/s45/$tree/results.csv" "$tree" >> "$out/launch_bound.csv" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(",".join([sys.argv[2], row["kernel"], row["status"], row["kernel_ms"],
                    row["end_to_end_ms"], row["launches"]]))
PY
done
s=$SECONDS
timeout 310 bash scripts/device_run.sh bench polybench/ --dataset LARGE --repeat 10 \
  --workers-per-gpu 12 --out "$out/large" > "$out/bench.log" 2>&1
echo "bench $((SECONDS - s)) s rc=$?" >> "$out/times.txt"
cat "$out/times.txt" "$out/launch_bound.csv"
