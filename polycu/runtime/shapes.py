"""The arrays of a SCoP at given parameter values: shapes, bytes, the memory limit.

In:  a ``Scop`` and values of its parameters.
Out: the shape of every non-local array (``array_shapes``: each extent's C text
     evaluated with ``cexpr``, an unknown outer extent from the largest index the
     accesses reach) and its bytes (``array_bytes``); ``check_memory`` refuses arrays
     over ``MEMORY_LIMIT`` with a located error, before anything is allocated,
     instead of a process killed for memory.
"""
from __future__ import annotations

import math
from typing import Mapping

import islpy as isl

from ..diagnostics import Location, PolycuError, error
from ..model import Array, Scop, storage_names
from .cexpr import CExprError, evaluate
from .signature import Signature, dtype_of

#: Bytes the SCoP's arrays (one copy of them) may take in an emulation or a check.
MEMORY_LIMIT = 2 << 30


def parameter_set(scop: Scop, constraint: str) -> isl.Set:
    """The set of parameter values of ``scop`` where ``constraint`` (isl text) holds."""
    names = ", ".join(scop.parameters)
    return isl.Set(f"[{names}] -> {{ : {constraint} }}")


def format_params(params: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "no parameters"


def extent_value(expr: str, values: Mapping[str, int], location: Location | None = None) -> int:
    """Value of an array extent (C text) at parameter values, with C's semantics
    (``cexpr``); a located error when it has none."""
    try:
        return evaluate(expr, values)
    except CExprError as exc:
        if exc.name is not None:
            raise error(f"the extent '{expr}' uses '{exc.name}', which is not a parameter",
                        location) from None
        raise error(f"the extent '{expr}' has no integer value ({exc})", location) from None


def _accessed_size(scop: Scop, array: Array, params: Mapping[str, int]) -> int:
    """max index + 1 of the outermost dimension over every access (pointer parameters)."""
    fix = parameter_set(scop, " and ".join(f"{p} = {params[p]}" for p in scop.parameters)
                           or "1 = 1")
    size = 1
    own = storage_names(scop)
    for stmt in scop.statements:
        for access in stmt.accesses:
            if own[access.array] != array.name:    # any field of a struct variable
                continue
            touched = access.relation.intersect_domain(stmt.domain).range().intersect_params(fix)
            if touched.is_empty():
                continue
            if not touched.dim_max(0).is_cst():
                raise error(f"cannot bound the accesses to '{array.name}'", array.location)
            size = max(size, touched.dim_max_val(0).to_python() + 1)
    return size


def array_shapes(scop: Scop, params: Mapping[str, int]) -> dict[str, tuple[int, ...]]:
    """The shape of every non-local array at these parameter values."""
    shapes = {}
    for a in Signature.of(scop).arrays:
        dims = []
        for extent in a.extents:
            if extent is None:
                dims.append(_accessed_size(scop, a, params))
            else:
                dims.append(extent_value(extent, params, a.location))
        if any(d <= 0 for d in dims):
            raise error(f"array '{a.name}' would have shape {tuple(dims)} at "
                        f"{format_params(params)}", a.location)
        shapes[a.name] = tuple(dims)
    return shapes


def array_bytes(scop: Scop, params: Mapping[str, int]) -> dict[str, int]:
    """Bytes of every non-local array at these parameter values (nothing allocated)."""
    shapes = array_shapes(scop, params)
    return {a.name: math.prod(shapes[a.name]) * dtype_of(a).itemsize
            for a in Signature.of(scop).arrays}


def _size(nbytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{int(nbytes)} bytes"


def _limit(nbytes: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g} {unit}"
    return f"{nbytes} bytes"


def memory_error(scop: Scop, params: Mapping[str, int], memory: int) -> PolycuError:
    """The located error for arrays over ``memory`` bytes: the array that alone is
    over the limit, else the SCoP with its largest arrays."""
    sizes = array_bytes(scop, params)
    largest = max(sizes, key=lambda name: sizes[name])
    if sizes[largest] > memory:
        array = next(a for a in Signature.of(scop).arrays if a.name == largest)
        shape = "".join(f"[{d}]" for d in array_shapes(scop, params)[largest])
        return error(f"array '{largest}' needs {_size(sizes[largest])} "
                     f"({array.element_type}{shape}); emulation is limited to {_limit(memory)}",
                     array.location or scop.location)
    parts = ", ".join(f"{name}: {_size(n)}" for name, n in sorted(
        sizes.items(), key=lambda item: -item[1])[:4])
    return error(f"the arrays of {scop.name} need {_size(sum(sizes.values()))} ({parts}); "
                 f"emulation is limited to {_limit(memory)}", scop.location)


def check_memory(scop: Scop, params: Mapping[str, int], memory: int = MEMORY_LIMIT) -> None:
    """Refuse, before anything is allocated, arrays that need more than ``memory``
    bytes: the emulation holds several copies of them (the inputs, both results, the
    files shared with the child process, the device copies), and a process that
    runs out of memory is killed without a word."""
    if sum(array_bytes(scop, params).values()) > memory:
        raise memory_error(scop, params, memory)
