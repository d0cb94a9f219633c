"""Where the PTX of generated kernels has the shape ptxas (CUDA 12.8 to 13.3 at least)
may miscompile (``polycu/runtime/ptxas.py``; fuzz seed 5631703, docs/supported-c.md
"A known nvcc defect").

    python scripts/ptxas_negation_scan.py OUT.cu...      (nvcc on the PATH)

Prints, per file and kernel, the number of such chains; 0 everywhere means the known
trigger is absent, not that ptxas is right.  ``polycu emulate`` warns of the same.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from polycu.runtime.ptxas import chains  # noqa: E402


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
