"""Which arrays of a mapped program to store along another basis (schedule/relayout.py).

In:  a ``GpuProgram``.
Out: per array, the direction ``d`` its index moves in from one thread to the next
     along x, where storing it with ``d`` as its last unit vector pays.

An array qualifies when, in every kernel of the program with threads that touches
it, every reference moves by the same constant ``d`` (at the representative
parameter values), ``d`` is primitive and has at least two non-zero entries: a
skew, which no tile fixes.  A plain transpose (``d = e_k``, k not last) is left to
shared-memory tiles, and was measured slower as a layout on adi (its recurrences'
rows, docs/results/async_copies.md).
"""
from __future__ import annotations

import math

import islpy as isl

from ..model import sets_of
from .cost import access_deltas, representative_params, stride_ok
from .kernel import GpuProgram


def _vector(deltas: isl.UnionSet) -> tuple[int, ...] | None:
    """The one integer vector ``deltas`` holds, or None."""
    sets = sets_of(deltas)
    if len(sets) != 1 or not sets[0].is_singleton():
        return None
    point = sets[0].sample_point()
    return tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python()
                 for k in range(sets[0].dim(isl.dim_type.set)))


def skewed_arrays(program: GpuProgram) -> dict[str, tuple[int, ...]]:
    """The arrays worth a layout along their direction (module docstring)."""
    scop = program.scop
    params = representative_params(scop)
    found: dict[str, set[tuple[int, ...] | None]] = {}
    for kernel in program.kernels:
        depth = len(kernel.mapped)
        if not depth or kernel.order is None:
            continue
        position = len(kernel.host_ids) + depth - 1
        for _, access, deltas in access_deltas(scop, kernel, position, params):
            if scop.array(access.array).rank >= 2:
                found.setdefault(access.array, set()).add(
                    None if stride_ok(deltas) else _vector(deltas))
    result = {}
    for name, vectors in found.items():
        if len(vectors) != 1:
            continue
        (d,) = vectors
        if d is not None and sum(1 for x in d if x) >= 2 and math.gcd(*d) == 1:
            result[name] = d
    return result
