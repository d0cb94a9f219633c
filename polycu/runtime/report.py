"""The report of one SCoP run both ways: by the code under test and by the reference.

In:  the SCoP's name, its parameter values and seed, the comparison of every array
     (``compare.ArrayComparison``), device allocations left, nvcc's verdict.
Out: ``EmulationReport``: ``ok``, the first failure and the text ``polycu emulate``
     and ``polycu check`` print; for a SCoP left to the CPU (``gpu.where``), which
     keeps its original code, no comparison but the reason it runs there.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import Location
from .compare import ArrayComparison
from .inputs import DEFAULT_PROFILE
from .nvcc import NvccCheck
from .shapes import format_params


@dataclass(frozen=True)
class EmulationReport:
    """The outcome of running a SCoP both ways on the same random inputs (and of
    building its CUDA with nvcc, when ``nvcc`` is not None)."""

    scop: str
    params: dict[str, int]
    seed: int
    arrays: tuple[ArrayComparison, ...]
    live_allocations: int | None = None
    output: str = ""
    location: Location | None = None
    nvcc: NvccCheck | None = None
    profile: str = DEFAULT_PROFILE
    note: str = ""      # why the inputs are not of the profile asked for
    on_cpu: str = ""    # why the SCoP runs on the CPU (its original code: nothing to compare)
    caveat: str = ""    # said with a mismatch that the inputs may explain (data subscripts)

    @property
    def ok(self) -> bool:
        return (all(c.ok for c in self.arrays) and not self.live_allocations
                and not (self.nvcc and self.nvcc.failed))

    @property
    def first_failure(self) -> ArrayComparison | None:
        return next((c for c in self.arrays if not c.ok), None)

    def failure(self) -> str:
        """What is wrong first, in a line or a few (empty when ``ok``)."""
        if self.first_failure is not None:
            said = self.first_failure.describe()
            return f"{said} ({self.caveat})" if self.caveat else said
        if self.live_allocations:
            return f"{self.live_allocations} device allocation(s) never freed"
        if self.nvcc and self.nvcc.failed:
            return self.nvcc.describe()
        return ""

    def format(self) -> str:
        if self.on_cpu:
            return (f"{self.scop}: ON THE CPU ({format_params(self.params)})\n  {self.on_cpu}; "
                    "its original code runs there: nothing generated to compare")
        verdict = "OK" if self.ok else "MISMATCH" if self.first_failure else "FAILED"
        inputs = "" if self.profile == DEFAULT_PROFILE else f"; inputs {self.profile}"
        lines = [f"{self.scop}: {verdict} ({format_params(self.params)}; seed {self.seed}"
                 f"{inputs})"]
        if self.note:
            lines.append(f"  inputs {self.profile}: {self.note}")
        lines += [f"  {c.describe()}" for c in self.arrays]
        if self.live_allocations:
            lines.append(f"  {self.live_allocations} device allocation(s) never freed")
        if self.first_failure is not None and self.caveat:
            lines.append(f"  ({self.caveat})")
        if self.nvcc is not None:
            lines.append(f"  {self.nvcc.describe()}")
        return "\n".join(lines)
