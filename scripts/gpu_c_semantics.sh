#!/usr/bin/env bash
# The C-semantics reproducers on a GPU: each program of tests/data/c_semantics/ (or
# of the folders given) is built twice, by gcc from the original C and by nvcc from
# polycu's OUT.cu + OUT_host.c; both binaries run and their outputs must be equal.
#   bash scripts/gpu_c_semantics.sh build DIR [SRC_DIR ...]  (here: polycu, gcc, nvcc)
#   bash scripts/gpu_c_semantics.sh run DIR     (on the GPU machine: runs and compares)
# POLYCU_FLAGS adds options to polycu (e.g. --run-on gpu for programs small enough
# that the cost model leaves them on the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=$1 dir=$2
shift 2
sources=("${@:-tests/data/c_semantics}")
mkdir -p "$dir"
case "$mode" in
build)
  for src in ${sources[@]/%//*.c}; do
    name=$(basename "$src" .c)
    gcc -std=c99 -O2 "$src" -lm -o "$dir/$name.ref"
    .venv/bin/polycu "$src" -o "$dir/$name.cu" ${POLYCU_FLAGS:-}
    nvcc -O3 -arch=sm_90 "$dir/$name.cu" "$dir/${name}_host.c" -o "$dir/$name.gpu"
  done ;;
run)
  status=0
  for ref in "$dir"/*.ref; do
    name=$(basename "$ref" .ref)
    "$ref" > "$dir/$name.ref.out"
    if "$dir/$name.gpu" > "$dir/$name.gpu.out" 2> "$dir/$name.gpu.err" \
        && cmp -s "$dir/$name.ref.out" "$dir/$name.gpu.out"; then
      echo "$name: same output ($(wc -l < "$dir/$name.ref.out") lines): $(head -c 60 "$dir/$name.ref.out" | tr '\n' ' ')"
    else
      echo "$name: DIFFERENT"; diff "$dir/$name.ref.out" "$dir/$name.gpu.out" | head -5 || true
      cat "$dir/$name.gpu.err"; status=1
    fi
  done
  exit $status ;;
esac
