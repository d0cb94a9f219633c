"""What ``polycu bench`` records about one kernel.

In:  the measurements of ``run.bench_kernel`` and the baselines.
Out: ``BenchResult`` (JSON-ready: the reports read nothing else) and
``failure_reason``, the one-line reason a failed step is recorded with.

Why apart: the batch (``run``), the baselines (``baseline``) and the reports
(``report``, ``plots``) all speak of this one record.
"""
from __future__ import annotations

import hashlib
import json
import traceback
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import PolycuError


#: The status of a kernel whose SCoP the cost model left to the CPU (``gpu.where``):
#: nothing runs on the GPU, its time is the CPU baseline's.
ON_CPU = "cpu"


@dataclass
class BenchResult:
    """Everything measured about one kernel (JSON-ready)."""

    kernel: str
    category: str
    dataset: str
    source: str
    parameters: dict[str, int] = field(default_factory=dict)
    flops: int | None = None
    bytes: int | None = None            # compulsory traffic
    footprint_bytes: int | None = None
    status: str = "failed"              # 'ok', 'mismatch', 'failed' or ON_CPU
    error: str = ""
    max_rel_error: float | None = None      # the check of the timed build
    mismatches: int | None = None
    timing: dict[str, Any] | None = None    # pycuda_run.Timing.as_dict()
    figures: dict[str, float] | None = None  # metrics.Figures of the kernel time
    cpu_s: float | None = None          # gcc -O3, one thread
    omp_s: float | None = None          # gcc -O3 autopar, all cores
    library_s: float | None = None      # cuBLAS via CuPy
    library: str = ""
    notes: list[str] = field(default_factory=list)  # baselines that failed
    seconds: float | None = None        # the worker's wall time on this kernel, cuBLAS
                                        # included (the CPU baselines run beside)
    phases: dict[str, float] = field(default_factory=dict)   # those seconds by STEPS
    program: str = ""                   # program_digest of what ran on the GPU
    gpu: str = ""                       # the PCI bus id of the GPU it ran on

    @property
    def kernel_s(self) -> float | None:
        return self.timing["kernel"]["median_s"] if self.timing else None

    @property
    def end_to_end_s(self) -> float | None:
        return self.timing["end_to_end"]["median_s"] if self.timing else None

    def speedup(self, baseline_s: float | None) -> float | None:
        if baseline_s is None or not self.kernel_s:
            return None
        return baseline_s / self.kernel_s


#: The steps of a worker on one kernel (``phases``): polycu's compile and the work
#: count; the check (gcc's reference beside nvcc, then the GPU run and the
#: comparison); the timed runs; cuBLAS; then the parts of the check, time and
#: library steps spent waiting for the GPU's turn and holding it (``runtime.turns``:
#: workers that share a GPU; ``gpu`` is the kernel's share of the bench's GPU
#: part).  What grows when several workers run at once tells where they contend
#: (docs/results/scaleout.md).
STEPS = ("compile", "check", "time", "library", "wait", "gpu")


def program_digest(description: dict[str, Any]) -> str:
    """A digest of what a SCoP's program runs: its device code, its host code, its
    launch sequence and its texture, surface and constant objects.  Two benches of a
    kernel with the same digest timed one program, whatever options chose it (an
    ablation's policies often agree: scripts/memory_ablation_report.py)."""
    text = json.dumps([description.get(key) for key in PROGRAM_KEYS], sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: The entries of a SCoP's description that say what its program runs.
PROGRAM_KEYS = ("device_source", "host_source", "host", "objects")


def failure_reason(exc: BaseException) -> str:
    """A polycu error's own message; anything else as an internal error."""
    if isinstance(exc, PolycuError):
        return str(exc)
    return "internal error: " + "".join(traceback.format_exception_only(exc)).strip()
