"""cuBLAS (through CuPy) doing the job of the gemm-class kernels: the library baseline.

In:  a kernel's name and its parameter values (the dataset's sizes), a repeat count.
Out: the median seconds of cuBLAS doing the same products on random data of those
sizes, timed with CUDA events after two warm-up runs; None where there is no
recipe (only ``GEMM_CLASS`` has one) or CuPy cannot be imported.

Why: the generated kernels' speed next to what a tuned library reaches.
"""
from __future__ import annotations

import statistics
from typing import Any, Callable, Mapping

GEMM_CLASS = ("gemm", "2mm", "3mm")


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
    if name not in GEMM_CLASS:
        return None
    try:
        import cupy as cp
    except ImportError:
        return None
    run = _gemm_class(cp, name, params)
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
