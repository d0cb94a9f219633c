#!/usr/bin/env bash
# Session 50, call 2: adi's program by issue 14's filing tree (418a942) and head, one call; resident programs.
set -u
out="$1"; mkdir -p "$out"
bash scripts/device_run.sh device > "$out/device.txt" 2>&1
s=$SECONDS
bash scripts/device_run.sh script scripts/gpu_programs.py --datasets LARGE --time-only \
  --repeat 5 --kernels adi --out "$out/now" > "$out/now.log" 2>&1
echo "now $((SECONDS - s)) s" >> "$out/times.txt"
(export PYTHONPATH="$PWD/.device/site"; cd .device/full418 && python3 scripts/gpu_programs.py \
  --datasets LARGE --time-only --repeat 5 --kernels adi --out "$out/filing") > "$out/filing.log" 2>&1
echo "filing $((SECONDS - s)) s" >> "$out/times.txt"
bash scripts/device_run.sh script scripts/gpu_programs.py --kernels jacobi-2d fdtd-2d \
  --polycu-flags=--resident-grid --out "$out/resident" > "$out/resident.log" 2>&1
echo "resident $((SECONDS - s)) s" >> "$out/times.txt"
rm -rf "$out/now/build" "$out/filing/build" "$out/resident/build"
cat "$out/times.txt"; tail -5 "$out/now.log" "$out/filing.log" "$out/resident.log"
cat "$out/now/programs.md" "$out/filing/programs.md" "$out/resident/programs.md" 2>/dev/null | grep -v "^$" | head -40
