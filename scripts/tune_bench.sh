#!/usr/bin/env bash
# Tune PolyBench kernels on the GPU, then time the defaults and the tuned builds
# side by side in the same run (polycu bench, with cuBLAS for the gemm class).
#
# Usage (on the device machine, with carry: [".device"]):
#     KERNELS="gemm 2mm atax" bash scripts/tune_bench.sh OUTDIR [DATASET] [-- TUNE FLAGS...]
# e.g. `-- --gpus all --jobs 8` tunes on every GPU of the host (docs/scale-out.md);
# the benches run on one GPU, so both builds are timed on the same device.
# Writes OUTDIR/tuned.json (the cache), OUTDIR/tune/<kernel>.json (every
# configuration tried), OUTDIR/tune.log, and the bench reports of both builds in
# OUTDIR/default/ and OUTDIR/tuned/ (their summary.md give the ratios).
# STAGES="tune" or STAGES="bench" runs one half (default: both), so that a long
# suite can be tuned over several device calls; CACHE=FILE starts from that cache
# (e.g. the merged tuned.json of the earlier calls, for STAGES=bench); REPEAT=N
# timed runs per kernel in the benches (default 20).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: KERNELS=... scripts/tune_bench.sh OUTDIR [DATASET] [-- TUNE FLAGS]}"
dataset="${2:-LARGE}"
shift $(( $# >= 2 ? 2 : 1 ))
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
export POLYCU_TUNE_CACHE="$out/tuned.json"
[ -n "${CACHE:-}" ] && cp "$CACHE" "$POLYCU_TUNE_CACHE"
stages="${STAGES:-tune bench}"
files=()
for name in ${KERNELS:?set KERNELS to PolyBench kernel names}; do
  files+=("$(find polybench -name "$name.c" -path "*/$name/*" | head -1)")
done
if [[ " $stages " == *" tune "* ]]; then
  start=$(date +%s)
  for file in "${files[@]}"; do
    one=$(date +%s)
    bash scripts/device_run.sh tune "$file" -I polybench/utilities --dataset "$dataset" \
      --out "$out/tune" "$@" 2>> "$out/tune.log" || echo "tune failed: $file" >> "$out/tune.log"
    echo "$file: $(( $(date +%s) - one )) s" >> "$out/tune.log"
  done
  echo "tuning: $(( $(date +%s) - start )) s" | tee -a "$out/tune.log"
fi
[[ " $stages " == *" bench "* ]] || exit 0
bench=(bench "${files[@]}" -I polybench/utilities --dataset "$dataset" --repeat "${REPEAT:-20}"
       --no-cpu-baseline)
bash scripts/device_run.sh "${bench[@]}" --out "$out/default" > "$out/default.log" 2>&1
bash scripts/device_run.sh "${bench[@]}" --tuned --out "$out/tuned" > "$out/tuned.log" 2>&1
python3 - "$out" "${REPEAT:-20}" <<'EOF' | tee "$out/summary.txt"
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
def results(which):
    data = json.loads((out / which / "results.json").read_text())
    return data["meta"].get("device", "?"), {r["kernel"]: r for r in data["results"]}
device, default = results("default")
_, tuned = results("tuned")
print(f"{device}; kernel times (polycu bench, median of {sys.argv[2]}), default and tuned builds")
print(f"{'kernel':14s} {'default ms':>11s} {'tuned ms':>9s} {'speed-up':>8s} {'cuBLAS ms':>9s}")
for name, d in default.items():
    t = tuned.get(name, {})
    dk, tk, lib = d.get("kernel_s"), t.get("kernel_s"), d.get("library_s")
    ms = lambda v: f"{v * 1e3:.3f}" if v else "-"
    ratio = f"{dk / tk:.2f}" if dk and tk else "-"
    print(f"{name:14s} {ms(dk):>11s} {ms(tk):>9s} {ratio:>8s} {ms(lib):>9s}  "
          f"{d['status']}/{t.get('status')}")
EOF
