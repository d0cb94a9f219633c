"""nvcc's verdict on generated CUDA: does the code that was emulated build for a GPU?

In:  a CUDA translation unit (what the emulation built with g++).
Out: ``NvccCheck``: ``ok``, ``failed`` with nvcc's first error lines, or ``skipped``
     when nvcc is not installed; the build is cached by the source's hash like the
     gcc builds (``native.build_cached``).  Where it builds, the kernels whose PTX has
     the shape of a known ptxas defect (``ptxas.py``) are named in a warning.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass

from ..diagnostics import Location
from .native import BuildError, build_cached
from .ptxas import ADVICE, suspects

#: How ``polycu emulate`` has nvcc build each SCoP's CUDA (object file only).
NVCC_FLAGS = ("-arch=sm_90", "-c")
#: ... and the PTX its device code goes through (scanned by ``ptxas.suspects``).
PTX_FLAGS = ("-arch=sm_90", "-ptx")
#: Lines of nvcc's messages that a failed build's report keeps.
NVCC_ERROR_LINES = 8


@dataclass(frozen=True)
class NvccCheck:
    """Whether nvcc builds the CUDA that was emulated: ``status`` is ``ok``,
    ``failed`` (``detail``: nvcc's first error lines) or ``skipped`` (no nvcc)."""

    status: str
    detail: str = ""
    suspects: tuple[str, ...] = ()     # kernels with ptxas.py's shape

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    def describe(self) -> str:
        command = " ".join(["nvcc", *NVCC_FLAGS])
        if self.status == "ok":
            warned = "".join(f"\n    warning: kernel {k}: {ADVICE}" for k in self.suspects)
            return f"{command}: builds{warned}"
        if self.status == "skipped":
            return "nvcc is not installed: the CUDA was emulated but not compiled for a GPU"
        return f"{command} failed:\n" + "\n".join("    " + line
                                                  for line in self.detail.splitlines())


def first_errors(output: str, count: int = NVCC_ERROR_LINES) -> str:
    """The compiler's messages from the first line that says ``error``, ``count`` lines."""
    lines = output.strip().splitlines()
    start = next((k for k, line in enumerate(lines) if "error" in line), 0)
    return "\n".join(lines[start:start + count])


def nvcc_check(cuda_source: str, location: Location | None = None) -> NvccCheck:
    """Build ``cuda_source`` with ``nvcc -arch=sm_90 -c`` (cached by the source's hash
    like the gcc builds), so that an emulation that passes is of code nvcc accepts;
    and to PTX, whose kernels of ``ptxas.py``'s shape the check names."""
    if shutil.which("nvcc") is None:
        return NvccCheck("skipped")
    try:
        build_cached(cuda_source, ["nvcc", *NVCC_FLAGS], suffix=".o", language="cu",
                     location=location)
        ptx = build_cached(cuda_source, ["nvcc", *PTX_FLAGS], suffix=".ptx", language="cu",
                           location=location)
    except BuildError as exc:
        return NvccCheck("failed", first_errors(exc.output))
    return NvccCheck("ok", suspects=suspects(ptx.read_text()))
