#!/usr/bin/env bash
# Compile self-checking C programs with polycu and nvcc and run them on the GPU.
#
# Each program's main compares its SCoP's results with a plain loop and returns
# non-zero on a mismatch (tests/data/conditions/, tests/data/structs/).  For each
# FILE.c: polycu FILE.c -o OUT/NAME.cu, nvcc -O3 -arch=sm_90 NAME.cu NAME_host.c,
# run it; one line per program, and a non-zero exit if any step of any failed.
#
# Usage (on the device machine, with carry: [".device"]):
#     bash scripts/run_selfcheck.sh OUTDIR tests/data/conditions/*.c tests/data/structs/*.c
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/run_selfcheck.sh OUTDIR FILE.c...}"
shift
mkdir -p "$out"
failed=0
for file in "$@"; do
  name="$(basename "$(dirname "$file")")_$(basename "$file" .c)"
  if ! bash scripts/device_run.sh "$file" -o "$out/$name.cu" > "$out/$name.log" 2>&1; then
    echo "FAIL polycu  $file"; failed=1; continue
  fi
  if ! nvcc -O3 -arch=sm_90 "$out/$name.cu" "$out/${name}_host.c" -o "$out/$name" \
      >> "$out/$name.log" 2>&1; then
    echo "FAIL nvcc    $file"; failed=1; continue
  fi
  if "$out/$name" >> "$out/$name.log" 2>&1; then
    echo "ok           $file"
  else
    echo "FAIL run     $file (exit $?)"; failed=1
  fi
done
exit "$failed"
