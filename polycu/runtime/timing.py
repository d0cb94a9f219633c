"""Timing figures of repeated GPU runs: samples, their median and spread.

In:  times in seconds of repeated runs (CUDA events, ``pycuda_run.DeviceProgram.time``).
Out: ``Samples`` (median, interquartile spread), ``Timing`` (kernel, replay and
     end-to-end samples of one SCoP, how the kernel time was taken), and
     ``copies_for``: how many device copies of the inputs to rotate so that no run
     finds its data in L2.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

# Rotation of input copies: at least this many times L2 between two uses of a copy.
_L2_MULTIPLE = 3
_MAX_COPIES = 32
# A run this many times longer than an L2 refill needs no rotation (copies_for).
_LONG_RUN = 1000


@dataclass(frozen=True)
class Samples:
    """Times in seconds of repeated runs."""

    values: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def spread(self) -> float:
        """Interquartile range relative to the median (0.02 = 2 %)."""
        if len(self.values) < 2:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.values, n=4, method="inclusive")
        return (q3 - q1) / self.median if self.median else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"median_s": self.median, "min_s": min(self.values), "max_s": max(self.values),
                "spread": self.spread, "samples_s": list(self.values)}


@dataclass(frozen=True)
class Timing:
    """Kernel, replay and end-to-end times of one SCoP on the GPU."""

    kernel: Samples
    replay: Samples | None       # None: not taken (``kernel_only``)
    end_to_end: Samples | None
    launches: int
    copies: int     # input copies rotated
    method: str     # 'graph' or 'stream': how the kernel time was taken
    note: str = ""  # why no graph was used, when none was

    def as_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel.as_dict(),
                "replay": self.replay.as_dict() if self.replay else None,
                "end_to_end": self.end_to_end.as_dict() if self.end_to_end else None,
                "launches": self.launches,
                "copies": self.copies, "method": self.method, "note": self.note}


def copies_for(data_bytes: int, l2_bytes: int, free_bytes: int, run_s: float = 0.0,
               refill_s: float = 0.0) -> int:
    """How many copies of the arrays to rotate so that a copy's data left L2 before
    reuse.  None needs rotating when one run (``run_s``) lasts over ``_LONG_RUN``
    times the time L2 takes to fill from memory (``refill_s``): what the run before
    left in L2 could save it less than that share of its time, and each copy costs
    a capture of the launch sequence (25,190 launches for floyd-warshall)."""
    if data_bytes <= 0 or (refill_s > 0 and run_s > _LONG_RUN * refill_s):
        return 1
    span = _L2_MULTIPLE * l2_bytes
    wanted = math.ceil(span / data_bytes) + 1 if data_bytes < span else 1
    affordable = max(1, free_bytes // (2 * data_bytes))
    return max(1, min(wanted, _MAX_COPIES, affordable))
