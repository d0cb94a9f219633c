"""Memory placement: where each array of each kernel lives, and why.

In:  a ``GpuProgram`` (the mapping's kernels).
Out: a ``Placement``: for every kernel and every array it touches, a ``Choice``
     (the kind of memory and the reason), which code generation prints.

Today an array element one thread reuses across a loop goes to a register
(registers.py), every scalar the SCoP never writes travels by value as a kernel
parameter, and the rest stays in global memory; shared memory, the read-only
path, textures, surfaces and ``__constant__`` come with their cost model in this
package (issues 12 and 13).
"""
from .placement import (GLOBAL, KINDS, PARAMETER, REGISTER, Choice, KernelPlacement,
                        Placement, format_placement, passed_by_value, place)
from .registers import Promotion

__all__ = ["GLOBAL", "PARAMETER", "REGISTER", "KINDS", "Promotion", "passed_by_value", "Choice", "KernelPlacement",
           "Placement", "place", "format_placement"]
