"""The CPU baselines of ``polycu bench``: the unchanged PolyBench program built with gcc.

In:  the CPU suite module (``cpu``: ``polycu.bench.cpu``), kernels, a dataset, a
build directory.
Out: per kernel the median time its own harness prints (``POLYBENCH_TIME``) for
gcc -O3 on one thread and for gcc's automatic parallelisation over all cores but
two (``-O3 -fopenmp -ftree-parallelize-loops=N``: PolyBench has no OpenMP pragmas,
so this is what gcc's OpenMP runtime gives it); a failed build or run is a note,
not an error.  Or, with ``--cpu-times``, the one-thread times read from the
timings JSON of ``scripts/polybench_cpu.py`` (measured elsewhere).

Why beside the GPU work: ``run`` starts ``cpu_baselines`` in a thread while it
checks and times the kernels; the GPU loop and its CPU reference keep two cores.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import platform
import statistics
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Sequence

from ..diagnostics import error
from .result import failure_reason

AUTOPAR_THREADS = max(1, (os.cpu_count() or 1) - 2)
# Single-thread baselines timed at once: more would share the memory bandwidth and
# the last-level cache (with 7 at a time, times varied by up to 1.8x between runs).
SERIAL_WORKERS = max(1, min(3, (os.cpu_count() or 2) // 2 - 1))


def cpu_seconds(cpu: ModuleType, kernel: Any, dataset: str, build_dir: Path, *,
                parallel: bool, repeat: int) -> float:
    """Median time printed by the PolyBench harness of the unchanged program."""
    cflags = ("-O3", f"-ftree-parallelize-loops={AUTOPAR_THREADS}") if parallel else ("-O3",)
    build = cpu.build_kernel(kernel, dataset, build_dir, defines=["POLYBENCH_TIME"],
                             cflags=cflags, openmp=parallel,
                             tag="_autopar" if parallel else "_serial")
    return statistics.median(cpu.parse_time(cpu.run_kernel(build.binary).stdout)
                             for _ in range(repeat))


# Baselines run beside the GPU work: the one-thread builds on ``workers`` cores at
# once, then the autoparallelised builds one at a time on all cores but two (the
# GPU loop and its CPU reference keep those).
def cpu_baselines(cpu: ModuleType, kernels: Sequence[Any], dataset: str, build_dir: Path,
                  workers: int) -> dict[str, tuple[float | None, float | None, list[str]]]:
    """(serial seconds, autoparallelised seconds, notes) of every kernel."""
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        serial = {k.name: pool.submit(cpu_seconds, cpu, k, dataset, build_dir,
                                      parallel=False, repeat=1) for k in kernels}
    found: dict[str, tuple[float | None, float | None, list[str]]] = {}
    for kernel in kernels:
        notes: list[str] = []

        def attempt(what: str, run: Callable[[], float]) -> float | None:
            try:
                return run()
            except Exception as exc:  # noqa: BLE001 - a baseline's failure is a note
                notes.append(f"CPU baseline ({what}): {failure_reason(exc)}")
                return None

        one = attempt("serial", serial[kernel.name].result)
        autopar = attempt("autopar", lambda: cpu_seconds(cpu, kernel, dataset, build_dir,
                                                         parallel=True, repeat=1))
        found[kernel.name] = (one, autopar, notes)
    return found


def read_cpu_times(path: str, dataset: str) -> dict[str, float]:
    """Median seconds per kernel from scripts/polybench_cpu.py's timings JSON."""
    try:
        rows = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise error(f"cannot read --cpu-times '{path}': {exc}") from None
    return {row["kernel"]: row["median_s"] for row in rows
            if row.get("dataset") == dataset and row.get("median_s") is not None}


def cpu_description() -> str:
    """The baselines' compiler and processor, for the report."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    gcc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True)
    return (f"gcc {gcc.stdout.strip()} -O3 on {model}, 1 thread and "
            f"-ftree-parallelize-loops={AUTOPAR_THREADS}")
