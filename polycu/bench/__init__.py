"""``polycu bench``: check and time many kernels against CPU and library baselines.

In:  C files or directories of PolyBench-style kernels, a dataset.
Out: one ``BenchResult`` per kernel (check, times, figures, baselines) and the
reports: ``results.md``, ``results.csv``, ``results.json`` and, with matplotlib,
``speedup.png`` and ``roofline.png``.

Where each part happens:

* ``run``: the batch (``run_command``, the command's entry; ``bench_kernel``, one
  kernel's check, timing and library baseline);
* ``cpu``: the PolyBench suite built and run with gcc (kernel discovery, builds,
  dumps, timings; ``scripts/polybench_cpu.py`` is its command line);
* ``baseline``: the CPU baselines (gcc -O3 on one thread and autoparallelised);
* ``library``: cuBLAS through CuPy for the gemm-class kernels;
* ``result``: ``BenchResult``, the record every other part reads or fills;
* ``report`` and ``plots``: the tables and the figures.
"""
from .result import BenchResult
from .run import bench_kernel, run_command

__all__ = ["BenchResult", "bench_kernel", "run_command"]
