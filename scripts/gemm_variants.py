"""Time CUDA variants of PolyBench's gemm at LARGE side by side, each checked first.

    python3 scripts/gemm_variants.py DIR        (on the device; needs CuPy and nvcc)

Every ``DIR/*.cu`` is a polycu output for gemm (``polycu gemm.c -DLARGE_DATASET
-o DIR/x.cu``, possibly edited by hand) or a hand-written kernel with the same
parameters (ni, nj, nk, beta, alpha, C, A, B) and a ``/* launch: polycu_grid(..),
polycu_block(..) */`` comment.  The kernel is built with ``nvcc -O3 -arch=sm_90
--fmad=true`` (as ``nvcc -O3`` builds polycu's output), run 12 times on the same
random matrices (median of the last 10, CUDA events) and compared with CuPy's
``alpha * A @ B + beta * C``; cuBLAS DGEMM (``A @ B``) is timed first in the same
run.  Why: to try a kernel structure by hand before teaching polycu to emit it
(docs/results/memory.md, "What decided the design").
"""
from __future__ import annotations

import glob
import os
import re
import sys

import cupy as cp
import numpy as np

NI, NJ, NK = 1000, 1100, 1200
HEAD = """
#define POLYCU_SHARED(T, name, n) __shared__ T name[n]
#define polycu_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
"""


def kernel_text(src: str) -> str:
    """Every ``__global__`` function of ``src`` (with the #defines before it of a
    hand-written one)."""
    out = [line for line in src.splitlines() if line.startswith("#define")
           and "polycu" not in line.lower()] if "/* launch:" in src else []
    pos = 0
    while (start := src.find('extern "C" __global__', pos)) >= 0:
        depth, i = 0, src.index("{", start)
        while True:
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            if depth == 0:
                break
            i += 1
        out.append(src[start:i + 1])
        pos = i + 1
    return "\n".join(out) + "\n"


def launch_shape(src: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(grid, block) of the launch at LARGE."""
    match = re.search(r"polycu_grid\(([^;]*)\), polycu_block\(([^)]*)\)", src)
    sizes = {"ni": NI, "nj": NJ, "nk": NK}
    grid = tuple(eval(x.strip().replace("/", "//"), {}, sizes)  # noqa: S307 - our own files
                 for x in match.group(1).split(","))
    return grid, tuple(int(x) for x in match.group(2).split(","))


def main(directory: str) -> None:
    rng = np.random.default_rng(1)
    a = cp.asarray(rng.standard_normal((NI, NK)))
    b = cp.asarray(rng.standard_normal((NK, NJ)))
    c0 = cp.asarray(rng.standard_normal((NI, NJ)))
    alpha, beta = 1.5, 1.2
    expected = alpha * (a @ b) + beta * c0
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def median_ms(run) -> float:
        times = []
        for _ in range(12):
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end))
        return float(np.median(times[2:]))

    print(f"cublas {median_ms(lambda: a @ b):.4f} ms", flush=True)
    for path in sorted(glob.glob(os.path.join(directory, "*.cu"))):
        src = open(path).read()
        name = os.path.basename(path)[:-3]
        try:
            grid, block = launch_shape(src)
            module = cp.RawModule(code=HEAD + kernel_text(src), backend="nvcc",
                                  options=("-O3", "-arch=sm_90", "--fmad=true"))
            entry = re.findall(r"__global__ void (?:__launch_bounds__\([^)]*\)\s*)?(\w+)", src)[0]
            kernel = module.get_function(entry)
            c = c0.copy()
            kernel(grid, block, (np.int32(NI), np.int32(NJ), np.int32(NK), np.float64(beta),
                                 np.float64(alpha), c, a, b))
            error = float(cp.max(cp.abs(c - expected)) / cp.max(cp.abs(expected)))
            if error >= 1e-12:
                print(f"{name:40s} WRONG (relative error {error:.1e})", flush=True)
                continue
            ms = median_ms(lambda: kernel(grid, block, (   # C accumulates: time only
                np.int32(NI), np.int32(NJ), np.int32(NK), np.float64(beta), np.float64(alpha),
                c, a, b)))
            print(f"{name:40s} {ms:.4f} ms  ok  grid={grid} block={block}", flush=True)
        except Exception as exc:  # noqa: BLE001 - one variant's failure must not stop the rest
            print(f"{name:40s} FAILED {type(exc).__name__}: {str(exc)[:300]}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
