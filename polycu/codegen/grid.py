"""Grids past CUDA's limits: kernels whose blocks loop.

In:  a kernel whose mapped members' grids may pass CUDA's limits on their axes
     (``Kernel.looped``: 65535 blocks along y and z, 2^31 - 1 along x, over the
     parameters' C types).
Out: the launch's grid, capped at the limits on those axes, and the kernel's body
     inside one loop per such axis.

Along a looped axis, block ``blockIdx`` runs the tiles b = blockIdx, blockIdx +
gridDim, ... below the member's grid, one after the other.  The blocks of a launch
are independent (the mapping proved the band parallel and the host orders nothing
inside a launch), so running some of them in turn is an order the launch could
have had.  Each turn ends with a barrier where the body uses shared memory: the
next tile's copies must not overwrite a tile another thread still reads.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from ..gpu.kernel import AXES, GRID_LIMITS, GpuProgram, Kernel
from .ast import grid_exprs
from .nodes import Expr
from .cuda import INDENT, atom


def launch_grid(program: GpuProgram, kernel: Kernel) -> tuple[Expr, ...]:
    """The kernel's grid (blocks along x, y, z) capped at CUDA's limit on each looped
    axis."""
    looped = kernel.looped(program.scop)
    return tuple(g if a not in looped else Expr.int_(min(g.value, GRID_LIMITS[a]))
                 if g.op == "int" else Expr("min", (g, Expr.int_(GRID_LIMITS[a])))
                 for a, g in zip(AXES, grid_exprs(program, kernel)))


def block_loops(program: GpuProgram, kernel: Kernel, body: Sequence[str],
                names: Mapping[str, str], itype: str, shared: bool) -> list[str]:
    """``body`` (lines indented once) run for each block index ``names[axis]`` of the
    looped axes (the body unchanged when none is), ended by ``__syncthreads()`` when
    it uses shared memory."""
    looped = [a for a in AXES if a in kernel.looped(program.scop)]
    if not looped:
        return list(body)
    grid = dict(zip(AXES, grid_exprs(program, kernel)))
    wide = itype != "int"
    heads, depth = [], len(looped)
    for level, axis in enumerate(looped):
        b = names[axis]
        heads.append(f"{INDENT * (level + 1)}for ({itype} {b} = blockIdx.{axis}; "
                     f"{b} < {atom(grid[axis], wide=wide)}; {b} += gridDim.{axis}) {{")
    inner = [INDENT * depth + line if line.strip() else line for line in body]
    if shared:
        inner.append(f"{INDENT * (depth + 1)}__syncthreads();")
    return heads + inner + [f"{INDENT * level}}}" for level in range(depth, 0, -1)]
