"""cuBLAS (through CuPy) doing the job of the gemm-class and matrix-vector kernels: the
library baseline.

In:  a kernel's name and its parameter values (the dataset's sizes), a repeat count.
Out: the median seconds of cuBLAS doing the same products on random data of those
sizes, timed with CUDA events after two warm-up runs; None where there is no
recipe (only ``GEMM_CLASS`` and ``MATRIX_VECTOR`` have one) or CuPy cannot be
imported.  The recipes are the BLAS calls a programmer would make: DGEMM, and DGEMV
and DGER in place (the vector sum of gemver as one CuPy expression).

Why: the generated kernels' speed next to what a tuned library reaches.
"""
from __future__ import annotations

import statistics
from typing import Any, Callable, Mapping

GEMM_CLASS = ("gemm", "2mm", "3mm")
MATRIX_VECTOR = ("atax", "bicg", "mvt", "gesummv", "gemver")


def _matrix_vector(cp: Any, name: str, p: Mapping[str, int]) -> Callable[[], None]:
    """DGEMV and DGER (cuBLAS through CuPy) doing a matrix-vector kernel's job."""
    from cupy.cublas import gemv, ger

    def rand(*shape: int) -> Any:
        return cp.random.random(shape, dtype=cp.float64)

    if name == "atax":                 # tmp = A x; y = A^T tmp (A: m x n)
        a, x, y, tmp = rand(p["m"], p["n"]), rand(p["n"]), rand(p["n"]), rand(p["m"])
        return lambda: (gemv("N", 1.0, a, x, 0.0, tmp), gemv("T", 1.0, a, tmp, 0.0, y))
    if name == "bicg":                 # s = A^T r; q = A p (A: n x m)
        a, r, pv = rand(p["n"], p["m"]), rand(p["n"]), rand(p["m"])
        s, q = rand(p["m"]), rand(p["n"])
        return lambda: (gemv("T", 1.0, a, r, 0.0, s), gemv("N", 1.0, a, pv, 0.0, q))
    n = p["n"]
    if name == "mvt":                  # x1 += A y1; x2 += A^T y2
        a, x1, x2, y1, y2 = rand(n, n), rand(n), rand(n), rand(n), rand(n)
        return lambda: (gemv("N", 1.0, a, y1, 1.0, x1), gemv("T", 1.0, a, y2, 1.0, x2))
    if name == "gesummv":              # y = alpha A x + beta B x
        a, b, x, y = rand(n, n), rand(n, n), rand(n), rand(n)
        return lambda: (gemv("N", 1.5, a, x, 0.0, y), gemv("N", 1.2, b, x, 1.0, y))
    if name == "gemver":               # A += u1 v1^T + u2 v2^T; x += beta A^T y + z; w += alpha A x
        a, u1, v1, u2, v2, w, x, y, z = rand(n, n), *(rand(n) for _ in range(8))

        def gemver() -> None:
            ger(1.0, u1, v1, a)
            ger(1.0, u2, v2, a)
            gemv("T", 1.2, a, y, 1.0, x)
            cp.add(x, z, out=x)
            gemv("N", 1.5, a, x, 1.0, w)
        return gemver
    raise ValueError(f"no cuBLAS recipe for {name}")


def _gemm_class(cp: Any, name: str, p: Mapping[str, int]) -> Callable[[], None]:
    """cuBLAS (through CuPy) doing a gemm-class kernel's job, on random data."""
    import cupy.cublas
    gemm = cupy.cublas.gemm

    def rand(*shape: int) -> Any:
        return cp.random.random(shape, dtype=cp.float64)

    if name == "gemm":
        a, b, c = rand(p["ni"], p["nk"]), rand(p["nk"], p["nj"]), rand(p["ni"], p["nj"])
        return lambda: gemm("N", "N", a, b, out=c, alpha=1.5, beta=1.2)
    if name == "2mm":
        a, b = rand(p["ni"], p["nk"]), rand(p["nk"], p["nj"])
        c, d, tmp = rand(p["nj"], p["nl"]), rand(p["ni"], p["nl"]), rand(p["ni"], p["nj"])

        def two() -> None:
            gemm("N", "N", a, b, out=tmp, alpha=1.5, beta=0.0)
            gemm("N", "N", tmp, c, out=d, alpha=1.0, beta=1.2)
        return two
    if name == "3mm":
        a, b, c, d = (rand(p["ni"], p["nk"]), rand(p["nk"], p["nj"]), rand(p["nj"], p["nm"]),
                      rand(p["nm"], p["nl"]))
        e, f, g = rand(p["ni"], p["nj"]), rand(p["nj"], p["nl"]), rand(p["ni"], p["nl"])

        def three() -> None:
            gemm("N", "N", a, b, out=e)
            gemm("N", "N", c, d, out=f)
            gemm("N", "N", e, f, out=g)
        return three
    raise ValueError(f"no cuBLAS recipe for {name}")


def library_seconds(name: str, params: Mapping[str, int], repeat: int) -> float | None:
    """Median time of cuBLAS doing the kernel's job; None when CuPy or a recipe is missing."""
    if name not in GEMM_CLASS + MATRIX_VECTOR:
        return None
    try:
        import cupy as cp
    except ImportError:
        return None
    run = _gemm_class(cp, name, params) if name in GEMM_CLASS else \
        _matrix_vector(cp, name, params)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(2):
        run()
    times = []
    for _ in range(repeat):
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
    return statistics.median(times)
