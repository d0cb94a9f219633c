"""Where the PTX of generated kernels has the shape ptxas (CUDA 12.8 to 13.3 at least)
may miscompile: a ``neg`` whose result feeds an integer ``min``/``max`` that another
``min``/``max`` consumes, which ptxas fuses into one three-way instruction and may drop
the negation of (fuzz seed 5631703, docs/supported-c.md "A known nvcc defect").

    python scripts/ptxas_negation_scan.py OUT.cu...      (nvcc on the PATH)

Prints, per file and kernel, the number of such chains; 0 everywhere means the known
trigger is absent, not that ptxas is right.
"""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ENTRY = re.compile(r"\.entry\s+(\w+)")
NEG = re.compile(r"^\s*neg\.s(?:32|64)\s+(%r[d]?\d+),")
MINMAX = re.compile(r"^\s*(?:min|max)\.s(?:32|64)\s+(%r[d]?\d+),\s*([^;]+);")


def chains(ptx: str) -> dict[str, int]:
    """Kernel name -> negations feeding a min/max whose result feeds another."""
    found: dict[str, int] = {}
    for body in re.split(r"(?=\.visible \.entry|\.entry )", ptx)[1:]:
        name = ENTRY.search(body)
        if name is None:
            continue
        negated = {m.group(1) for m in map(NEG.match, body.splitlines()) if m}
        fed, feeding = set(), set()
        for m in filter(None, map(MINMAX.match, body.splitlines())):
            operands = {o.strip() for o in m.group(2).split(",")}
            if operands & negated:
                fed.add(m.group(1))
            if operands & fed:
                feeding.add(m.group(1))
        found[name.group(1)] = len(feeding)
    return found


def main(paths: list[str]) -> int:
    for path in paths:
        with tempfile.TemporaryDirectory() as tmp:
            ptx = Path(tmp) / "out.ptx"
            build = subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-w", "-ptx", path, "-o",
                                    str(ptx)], capture_output=True, text=True)
            if build.returncode != 0:
                print(f"{path}: nvcc failed: {build.stderr.strip()[:200]}")
                continue
            for kernel, count in chains(ptx.read_text()).items():
                print(f"{path}\t{kernel}\t{count}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
