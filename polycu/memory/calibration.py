"""The read bandwidth of each memory kind, measured on Hopper: the cost model's constants.

``BANDWIDTH[(type, working set, pattern)]`` holds, for the columns ``COLUMNS``, the
GB/s the threads of ``scripts/memory_kinds.cu`` requested through that kind (bytes
asked for / kernel time; NVIDIA H100 80GB HBM3, docs/results/memory_kinds.md, the
CSV in docs/results/data/memory_kinds.csv; ``tests/test_memory_kinds.py`` checks
this table against it).  None: the kind cannot hold that working set.

The working sets stand for where the data live: the constant cache (2 KiB of
double), L1 (32 KiB), L2 (8 MiB) and device memory (128 MiB); the patterns for how
a warp reads: 32 consecutive elements (coalesced), one row per thread (strided),
a 5-point neighbourhood (stencil), one address (uniform), and one address for the
whole launch (broadcast: ``BROADCAST``, measured in whole kernels).
"""
from __future__ import annotations

import bisect

#: The columns of ``BANDWIDTH``: global loads, the read-only path (``__ldg``), a
#: texture over linear memory, a texture over a 2-D CUDA array, a surface, and
#: ``__constant__``, then a shared tile (for comparison: shared memory is chosen by
#: the reuse of a block's tiles, memory/shared.py).
COLUMNS = ("global", "ldg", "tex1d", "tex2d", "surf2d", "constant", "shared")
PATTERNS = ("coalesced", "strided", "stencil", "uniform", "broadcast")

BANDWIDTH: dict[tuple[str, int, str], tuple[float | None, ...]] = {
    ("double", 2048, "coalesced"): (20453.4, 20321.2, 12977.4, 7285.2, 7231.6, 993.7, 22090.8),
    ("double", 2048, "strided"): (13151.0, 13173.1, 4123.9, 3278.8, 3532.9, 983.1, 19685.4),
    ("double", 2048, "stencil"): (17379.7, 17554.3, 12394.5, 7088.2, 5696.7, 991.6, 20164.9),
    ("double", 2048, "uniform"): (19587.3, 19018.9, 12512.8, 7101.0, 7123.5, 19370.2, 22533.9),
    ("double", 32768, "coalesced"): (20347.5, 20242.8, 13085.4, 7281.8, 7117.0, 479.2, 13512.6),
    ("double", 32768, "strided"): (6286.4, 6268.9, 4119.6, 3799.2, 6251.4, 78.6, 12966.7),
    ("double", 32768, "stencil"): (17534.7, 17322.3, 13063.7, 7185.3, 5499.5, 581.7, 13408.9),
    ("double", 32768, "uniform"): (19088.2, 19275.3, 13140.0, 7178.7, 7175.5, 2291.1, 14285.8),
    ("double", 8388608, "coalesced"): (16679.4, 17133.6, 12787.5, 4974.3, 4279.9, None, None),
    ("double", 8388608, "strided"): (3138.8, 3158.4, 3746.7, 2578.5, 3174.3, None, None),
    ("double", 8388608, "stencil"): (17418.2, 17189.8, 12956.0, 7040.6, 5431.2, None, None),
    ("double", 8388608, "uniform"): (18881.9, 18881.9, 13063.7, 7024.9, 7205.1, None, None),
    ("double", 134217728, "coalesced"): (4105.6, 4072.7, 4389.8, 1792.4, 2582.7, None, None),
    ("double", 134217728, "strided"): (1721.6, 1711.9, 1857.2, 1397.1, 1415.6, None, None),
    ("double", 134217728, "stencil"): (10641.8, 10527.9, 8308.8, 5755.1, 5295.8, None, None),
    ("double", 134217728, "uniform"): (16418.2, 16333.0, 11331.9, 6462.1, 7195.2, None, None),
    ("float", 1024, "coalesced"): (10714.3, 10817.5, 6553.6, 3619.1, 6306.6, 496.4, 12268.8),
    ("float", 1024, "strided"): (10922.7, 10641.8, 1907.0, 2971.0, 2680.4, 498.2, 12173.9),
    ("float", 1024, "stencil"): (9112.8, 9284.9, 6192.4, 3566.6, 5191.0, 497.8, 11565.2),
    ("float", 1024, "uniform"): (10728.9, 10641.8, 6462.1, 3561.7, 6559.1, 10334.2, 11202.7),
    ("float", 16384, "coalesced"): (10186.9, 10226.7, 6414.6, 3542.5, 6316.7, 402.0, 9263.0),
    ("float", 16384, "strided"): (3261.8, 3307.1, 1820.9, 1898.2, 3521.9, 50.7, 8987.8),
    ("float", 16384, "stencil"): (9060.3, 9144.6, 6148.8, 3610.8, 4836.6, 469.0, 8728.4),
    ("float", 16384, "uniform"): (10832.4, 10485.8, 6373.0, 3563.4, 6332.0, 1468.0, 9060.3),
    ("float", 4194304, "coalesced"): (9567.3, 9733.1, 6276.4, 3584.5, 6266.4, None, None),
    ("float", 4194304, "strided"): (3171.1, 3159.6, 1829.8, 1121.6, 1283.3, None, None),
    ("float", 4194304, "stencil"): (8987.8, 9102.2, 6537.3, 3592.7, 4653.4, None, None),
    ("float", 4194304, "uniform"): (9917.2, 10186.9, 6187.5, 3531.4, 6266.4, None, None),
    ("float", 67108864, "coalesced"): (4483.6, 4450.7, 4180.9, 2192.5, 2804.7, None, None),
    ("float", 67108864, "strided"): (2434.8, 2411.6, 1797.6, 1024.3, 1154.5, None, None),
    ("float", 67108864, "stencil"): (8806.6, 8747.9, 6311.7, 3539.3, 4628.8, None, None),
    ("float", 67108864, "uniform"): (9818.1, 10213.4, 6462.1, 3589.4, 6409.4, None, None),
}


#: A "broadcast" read: every thread of a launch reads the same address at each step
#: (a vector swept by a sequential loop beside the rows of a matrix, as x[j] in
#: y[i] += A[i][j] * x[j]).  Its GB/s come from whole kernels, not from the
#: microbenchmark, whose broadcast row (beside a strided stream) has textures 1.7x
#: and constant memory 1.0x as fast as the read-only path: atax, bicg, gemver and
#: mvt at LARGE on an H100 (one run; docs/results/memory_paths.md) ran 1.44-1.75x
#: faster with their vectors in constant memory and 0.92-0.96x as fast with
#: textures.  atax's x (4M reads, 32 MB requested) cost its kernel 0.193 ms more
#: through the read-only path than through constant memory: 166 GB/s, the rate
#: used for the read-only path and plain loads; constant memory gets the kernels'
#: geometric-mean gain (1.6x), textures their loss (0.94x).
BROADCAST = {"global": 166.0, "ldg": 166.0, "tex1d": 156.0, "tex2d": 156.0, "surf2d": 156.0,
             "constant": 266.0, "shared": None}


def _sets(element: str) -> list[int]:
    return sorted({ws for t, ws, _ in BANDWIDTH if t == element})


# The calibrated row of a working set of B bytes: the smallest measured set that
# holds B (data that fit a cache are read from it), else the largest.
def bandwidth(element_bytes: int, working_set: float, pattern: str, column: str) -> float | None:
    """GB/s a kernel gets reading ``working_set`` bytes of ``element_bytes``-byte
    elements with ``pattern`` through ``column`` (None: the kind cannot hold it)."""
    element = "double" if element_bytes >= 8 else "float"
    sets = _sets(element)
    k = min(bisect.bisect_left(sets, working_set), len(sets) - 1)
    if pattern == "broadcast":       # the kind must hold the set (constant: 64 KB)
        held = BANDWIDTH[(element, sets[k], "uniform")][COLUMNS.index(column)]
        return None if held is None else BROADCAST[column]
    return BANDWIDTH[(element, sets[k], pattern)][COLUMNS.index(column)]
