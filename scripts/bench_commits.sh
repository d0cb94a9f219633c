#!/usr/bin/env bash
# Kernel times of the same kernels compiled by several commits of polycu, side by
# side in one device run (timings compare only within one run).
#
#   here:       bash scripts/bench_commits.sh prepare REV...
#               (exports each REV's polycu/ into .device/trees/REV, which the
#               device tool carries with carry: [".device"])
#   on device:  KERNELS="gemm syrk" bash scripts/bench_commits.sh run OUTDIR DATASET REV... [work]
#
# `work` is the working tree itself.  Each tree benches the kernels with the same
# seed, without the CPU baseline (extra bench options in BENCH_OPTIONS);
# OUTDIR/summary.csv gets one line per tree and kernel: tree, kernel, status,
# kernel ms, spread, library (cuBLAS) ms where bench has one.  The device returns
# at most 8 files, so only the summary and one log per tree are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
what="${1:-}"
shift || true
if [ "$what" = prepare ]; then
  for rev in "$@"; do
    rm -rf ".device/trees/$rev" && mkdir -p ".device/trees/$rev"
    git archive "$rev" polycu | tar -x -C ".device/trees/$rev"
    echo "bench_commits: .device/trees/$rev ($(git log -1 --format='%h %s' "$rev" | cut -c1-60))"
  done
  exit 0
fi
if [ "$what" != run ] || [ $# -lt 3 ]; then
  echo "usage: $0 prepare REV... | KERNELS=\"k ...\" $0 run OUTDIR DATASET TREE..." >&2
  exit 2
fi
out="$1"; dataset="$2"; shift 2
files=()
for k in ${KERNELS:?KERNELS names the kernels}; do
  found="$(find polybench -mindepth 2 -name "$k.c" ! -path '*/utilities/*' | head -1)"
  [ -n "$found" ] || { echo "bench_commits: no kernel $k in polybench/" >&2; exit 2; }
  files+=("$root/$found")
done
bash scripts/device_run.sh device > /dev/null        # installs the wheels once
mkdir -p "$out"
for tree in "$@"; do
  dir="$root/.device/trees/$tree"
  [ "$tree" = work ] && dir="$root"
  [ -d "$dir/polycu" ] || { echo "bench_commits: no tree $dir (run prepare here)" >&2; exit 2; }
  # The tree's own directory first on the path: python -m puts the current one first.
  # shellcheck disable=SC2086
  (cd "$dir" && PYTHONPATH="$root/.device/site:$dir" python3 -m polycu bench "${files[@]}" \
     -I "$root/polybench/utilities" --dataset "$dataset" --no-cpu-baseline --repeat 5 \
     --seed 7 ${BENCH_OPTIONS:-} --out "$out/$tree" > "$out/$tree.log" 2>&1) \
    || echo "bench_commits: $tree: bench failed (see $tree.log)"
  [ -f "$out/$tree/results.csv" ] && python3 - "$out/$tree/results.csv" "$tree" \
    >> "$out/summary.csv" <<'PY'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(",".join([sys.argv[2], row["kernel"], row["status"], row["kernel_ms"],
                    row["kernel_spread"], row.get("library_ms", "")]))
PY
  rm -rf "${out:?}/$tree"
done
cat "$out/summary.csv"
