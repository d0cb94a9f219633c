#!/usr/bin/env bash
# Calibrate the memory kinds on the GPU (issue 13): build scripts/memory_kinds.cu,
# run it, and write OUTDIR/memory_kinds.csv and OUTDIR/memory_kinds.md (one table
# per element type and working set: requested GB/s per access pattern and kind).
#
#   on device:  bash scripts/memory_kinds.sh OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: $0 OUTDIR}"
mkdir -p "$out"
nvcc -O3 -arch=sm_90 -std=c++17 -o "$out/memory_kinds" scripts/memory_kinds.cu
"$out/memory_kinds" > "$out/memory_kinds.csv" 2> "$out/memory_kinds.log"
rm -f "$out/memory_kinds"
python3 - "$out/memory_kinds.csv" "$(cat "$out/memory_kinds.log")" > "$out/memory_kinds.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
kinds = list(dict.fromkeys(r["kind"] for r in rows))
patterns = list(dict.fromkeys(r["pattern"] for r in rows))
print(f"# Read bandwidth per memory kind ({sys.argv[2].split(': ', 1)[-1]})\n")
print("Requested GB/s (bytes the threads asked for / kernel time; 2^20 threads, 60 reads "
      "each; median of 7).  '-' where the kind cannot hold the working set.\n")
for type_ in dict.fromkeys(r["type"] for r in rows):
    for size in dict.fromkeys(r["working_set_bytes"] for r in rows if r["type"] == type_):
        cells = {(r["pattern"], r["kind"]): r for r in rows
                 if r["type"] == type_ and r["working_set_bytes"] == size}
        print(f"## {type_}, working set {int(size) // 1024} KiB\n")
        print("| pattern | " + " | ".join(kinds) + " |")
        print("|---|" + "--:|" * len(kinds))
        for p in patterns:
            line = []
            for k in kinds:
                r = cells.get((p, k))
                line.append("-" if r is None else r["requested_GBps"]
                            + ("" if r["check"] == "ok" else " MISMATCH"))
            print(f"| {p} | " + " | ".join(line) + " |")
        print()
PY
cat "$out/memory_kinds.md"
