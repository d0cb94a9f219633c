"""Memory placement: where each array of each kernel lives, and why.

In:  a ``GpuProgram`` (the mapping's kernels).
Out: a ``Placement``: for every kernel and every array it touches, a ``Choice``
     (the kind of memory and the reason), which code generation prints.

Today every array stays in global memory, the one kind codegen prints; shared
memory, registers, the read-only path, textures, surfaces and ``__constant__``
come with their cost model in this package (issues 12 and 13).
"""
from .placement import GLOBAL, KINDS, Choice, KernelPlacement, Placement, format_placement, place

__all__ = ["GLOBAL", "KINDS", "Choice", "KernelPlacement", "Placement", "place", "format_placement"]
