"""Memory placement: where each array of each kernel lives, and why.

In:  a ``GpuProgram`` (the mapping's kernels).
Out: a ``Placement``: for every kernel and every array it touches, a ``Choice``
     (the kind of memory and the reason), the thread's order with the copies that
     move data between the kinds, which code generation prints.

An array a block reads across a loop goes to a shared tile (shared.py; copied with
cp.async, and in launches too small to hide latency read by one warp or not:
asynchronous.py), array
elements one thread reuses to its registers (registers.py, one per lane of the
thread's register tile: lanes.py; statements that may run on every lane of it
are padded: padding.py; the strips of a shared tile's loop that are full get code
of their own: strips.py), every scalar the SCoP never writes travels by value as a
kernel parameter, and the rest stays in device memory, read and written through
the path the calibrated model picks (kinds.py, calibration.py): plain loads, the
read-only path, a texture, a surface or ``__constant__`` memory.
"""
from .placement import (GLOBAL, KINDS, MAX_SHARED_MEMORY, PARAMETER, REGISTER,
                        SHARED, Choice, KernelPlacement, Placement,
                        passed_by_value, place, reads_on_chip, too_many_lanes,
                        uneven_lanes)
from .indices import COPY_INDEX, LANE_INDEX, indices
from .carried import Carry
from .explain import format_placement
from .kinds import CONSTANT, READ_ONLY, SURFACE, TEXTURE, TEXTURE_2D
from .lanes import LANES
from .registers import Promotion
from .scaling import product_of
from .shared import BARRIERS, LATENCY_STRIP, SharedTile, serving
from .strips import POINT

__all__ = ["GLOBAL", "READ_ONLY", "TEXTURE", "TEXTURE_2D", "SURFACE", "CONSTANT", "PARAMETER", "REGISTER", "SHARED", "KINDS", "MAX_SHARED_MEMORY",
           "COPY_INDEX", "LANE_INDEX", "LANES", "BARRIERS", "LATENCY_STRIP", "Promotion", "SharedTile", "product_of", "serving", "passed_by_value", "Choice",
           "KernelPlacement", "Placement", "place", "format_placement", "indices", "reads_on_chip",
           "too_many_lanes", "uneven_lanes", "POINT", "Carry"]
