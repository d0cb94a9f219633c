"""The read bandwidth of each memory kind, measured on Hopper: the cost model's constants.

``BANDWIDTH[(type, working set, pattern)]`` holds, for the columns ``COLUMNS``, the
GB/s the threads of ``scripts/memory_kinds.cu`` requested through that kind (bytes
asked for / kernel time; NVIDIA H200, docs/results/memory_kinds.md, the CSV in
docs/results/data/memory_kinds.csv; ``tests/test_memory_paths.py`` checks this
table against it; the H100's table of issue 13's first calibration, within 25% of
it but in device memory, is ``memory_kinds_h100.md``).  None: the kind cannot
hold that working set.

The working sets stand for where the data live: the constant cache (2 KiB of
double), L1 (32 KiB), L2 (8 MiB) and device memory (128 MiB); the patterns for how
a warp reads: 32 consecutive elements (coalesced), one row per thread (strided),
a 5-point neighbourhood (stencil), one address (uniform), neighbourhoods along a
diagonal, lane to lane a row down and columns aside (diagonal: a skewed
wavefront), and one address for the whole launch (broadcast: ``BROADCAST``,
measured in whole kernels).
"""
from __future__ import annotations

import bisect

#: The columns of ``BANDWIDTH``: global loads, the read-only path (``__ldg``), a
#: texture over linear memory, a texture over a 2-D CUDA array, a surface, and
#: ``__constant__``, then a shared tile (for comparison: shared memory is chosen by
#: the reuse of a block's tiles, memory/shared.py).
COLUMNS = ("global", "ldg", "tex1d", "tex2d", "surf2d", "constant", "shared")

BANDWIDTH: dict[tuple[str, int, str], tuple[float | None, ...]] = {
    ("double", 2048, "coalesced"): (20347.5, 19960.2, 12998.9, 7238.2, 7329.3, 995.5, 21754.7),
    ("double", 2048, "strided"): (13306.8, 13173.1, 4179.8, 3338.7, 3605.8, 989.3, 21754.7),
    ("double", 2048, "stencil"): (18635.8, 18547.9, 13184.1, 7305.5, 5827.6, 994.5, 20943.6),
    ("double", 2048, "uniform"): (20164.9, 20062.0, 13085.4, 7319.1, 7298.7, 19660.8, 24499.4),
    ("double", 2048, "diagonal"): (12934.7, 13020.4, 5023.5, 6352.4, 7288.5, 1932.5, 12881.8),
    ("double", 32768, "coalesced"): (20373.9, 20506.7, 13118.1, 7325.9, 7367.0, 481.6, 13809.2),
    ("double", 32768, "strided"): (6332.0, 6316.7, 4115.3, 3778.2, 6271.4, 78.8, 12892.3),
    ("double", 32768, "stencil"): (18569.8, 17975.6, 12839.7, 7268.3, 5575.6, 585.3, 13559.2),
    ("double", 32768, "uniform"): (20805.1, 20295.0, 13063.7, 7228.2, 7367.0, 2329.1, 15051.3),
    ("double", 32768, "diagonal"): (5948.8, 5994.1, 2593.8, 6347.3, 7201.8, 87.9, 9745.1),
    ("double", 8388608, "coalesced"): (18204.4, 18289.1, 12839.7, 6077.5, 5101.7, None, None),
    ("double", 8388608, "strided"): (3710.5, 3698.2, 4142.4, 2598.9, 3175.6, None, None),
    ("double", 8388608, "stencil"): (18526.1, 18460.8, 13217.3, 7261.6, 5528.5, None, None),
    ("double", 8388608, "uniform"): (19538.7, 19563.0, 12913.5, 7231.6, 7332.7, None, None),
    ("double", 8388608, "diagonal"): (1864.7, 2289.1, 2548.8, 3920.4, 3974.9, None, None),
    ("double", 134217728, "coalesced"): (5390.2, 5450.0, 5333.6, 2250.8, 3132.6, None, None),
    ("double", 134217728, "strided"): (2369.1, 2359.5, 2642.1, 1755.2, 1873.3, None, None),
    ("double", 134217728, "stencil"): (12502.9, 12623.3, 10307.1, 6086.9, 5388.4, None, None),
    ("double", 134217728, "uniform"): (18396.1, 18657.9, 12562.8, 6916.7, 7325.9, None, None),
    ("double", 134217728, "diagonal"): (1782.7, 2135.6, 2548.4, 3318.3, 3372.3, None, None),
    ("float", 1024, "coalesced"): (10983.7, 10817.5, 6414.6, 3625.8, 6647.8, 498.7, 12080.4),
    ("float", 1024, "strided"): (10937.9, 11107.8, 1940.4, 3031.7, 2757.5, 498.1, 12522.8),
    ("float", 1024, "stencil"): (9306.9, 9486.5, 6301.5, 3620.8, 5324.5, 498.5, 11737.8),
    ("float", 1024, "uniform"): (11107.8, 11186.8, 6404.2, 3666.3, 6603.1, 10953.1, 11951.9),
    ("float", 1024, "diagonal"): (8689.9, 9018.7, 4689.5, 3589.4, 4499.0, 981.4, 11123.5),
    ("float", 16384, "coalesced"): (10862.3, 11029.9, 6756.3, 3614.1, 6488.7, 410.5, 9579.0),
    ("float", 16384, "strided"): (3362.3, 3362.3, 1845.7, 1920.9, 3632.5, 50.7, 9721.0),
    ("float", 16384, "stencil"): (9637.6, 9685.1, 6451.5, 3674.9, 4952.3, 470.4, 9081.2),
    ("float", 16384, "uniform"): (11299.3, 10641.8, 6581.0, 3656.1, 6670.3, 1476.0, 9317.9),
    ("float", 16384, "diagonal"): (3123.2, 3118.3, 2111.8, 3615.8, 4540.6, 53.3, 8689.9),
    ("float", 4194304, "coalesced"): (9509.5, 9685.1, 6281.4, 3573.1, 6197.3, None, None),
    ("float", 4194304, "strided"): (3202.1, 3185.2, 1835.7, 1123.2, 1277.1, None, None),
    ("float", 4194304, "stencil"): (9230.4, 9176.6, 6404.2, 3574.7, 4686.7, None, None),
    ("float", 4194304, "uniform"): (9842.7, 9855.0, 6383.4, 3520.3, 6276.4, None, None),
    ("float", 4194304, "diagonal"): (1430.1, 1262.1, 1103.9, 3186.5, 3335.2, None, None),
    ("float", 67108864, "coalesced"): (6570.0, 6664.7, 5292.3, 2727.8, 3332.3, None, None),
    ("float", 67108864, "strided"): (2802.7, 2748.8, 1798.0, 1029.1, 1168.2, None, None),
    ("float", 67108864, "stencil"): (9614.1, 9685.1, 6653.4, 3659.5, 4815.9, None, None),
    ("float", 67108864, "uniform"): (10430.1, 10743.6, 6537.3, 3569.8, 6462.1, None, None),
    ("float", 67108864, "diagonal"): (901.9, 829.1, 1074.8, 2810.7, 2862.9, None, None),
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
