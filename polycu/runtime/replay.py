"""The host program of a kernel description, replayed: launches, values, buffers.

In:  one SCoP's kernel description (``codegen.host.host_program``, the value the
     generated host function is printed from) and parameter values.
Out: what the host function does, step by step: the values it computes with
     (``host_values``: the parameters in the index type, the SCoP's assumption on
     them checked), its device buffers (``buffers``: element counts and copies), and
     every kernel launch with its grid, block and host values (``replay``, which
     calls back for each launch and knows nothing of PyCUDA).

Every expression is the description's C text, evaluated with C's semantics by
``cexpr``; nothing here decides what the host program does, it only reads it.
Kernel arguments are passed as the numpy type of their C type (``by_value``: a
value the type cannot hold is an error, not a wrapped number).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..codegen.host import has_device_buffer
from ..diagnostics import error
from .cexpr import CExprError, convert
from .cexpr import evaluate as evaluate_c
from .signature import integer_bounds, scalar_dtype, struct_dtype


@functools.lru_cache(maxsize=None)
def numpy_type(c_type: str) -> Any:
    """numpy scalar type of a C scalar type, in any spelling (qualifiers and a ``*``
    ignored): ``'const int'`` -> int32, ``'long unsigned int'`` -> uint64.  Cached: a
    replay asks it for every argument of every launch (25,190 for floyd-warshall)."""
    dtype = scalar_dtype(c_type)
    if dtype is None:
        raise error(f"unsupported C type '{c_type}' in a kernel description")
    return dtype.type


def by_value(c_type: str, value: Any, what: str) -> Any:
    """``value`` as the numpy scalar that a kernel argument of type ``c_type`` takes;
    an integer that the type cannot hold is an error, not a silent wrap-around."""
    kind, bounds = _argument_type(c_type)
    if bounds is not None:
        low, high = bounds
        if not low <= int(value) <= high:
            raise error(f"{what} = {int(value)} does not fit its type '{c_type}' "
                        f"({low}..{high})")
        return kind(int(value))
    return kind(value)


@functools.lru_cache(maxsize=None)
def _argument_type(c_type: str) -> tuple[Any, tuple[int, int] | None]:
    """The numpy type of ``c_type`` and, for an integer type, its range."""
    kind = numpy_type(c_type)
    return kind, integer_bounds(np.dtype(kind)) if np.dtype(kind).kind in "iu" else None


def is_pointer(c_type: str) -> bool:
    return "*" in c_type


# -- the host program ---------------------------------------------------------------

#: The type of the host program's values when its description does not say.
INDEX_TYPE = "long long"


def index_type(description: Mapping[str, Any]) -> str:
    """The C type the host function computes its values in."""
    return description.get("index_type", INDEX_TYPE)


def evaluate(expr: Any, env: Mapping[str, int], itype: str = INDEX_TYPE) -> int:
    """Value of a description expression (``{"c": ...}``, C text, or an int), its names
    of type ``itype``."""
    if isinstance(expr, (bool, int)):
        return int(expr)
    # str and dict first: a description is JSON, and isinstance of an ABC is slow
    code = expr if isinstance(expr, str) else \
        expr["c"] if isinstance(expr, (dict, Mapping)) else str(expr)
    try:
        return evaluate_c(code, env, itype)
    except CExprError as exc:  # a malformed description is an internal error of codegen
        raise error(f"cannot evaluate host expression '{code}': {exc}") from None


def host_values(description: Mapping[str, Any], params: Mapping[str, int]) -> dict[str, int]:
    """The parameters as the host function computes with them: converted to the index
    type, and inside the values the kernels assume (else the error the host function
    prints before it stops; the spliced program runs the SCoP as written there,
    ``codegen/splice.py``, which leaves nothing on the GPU to check or time)."""
    itype = index_type(description)
    values = {p: convert(int(params[p]), itype) for p in description["parameters"]}
    assume = description.get("assume")
    if assume is not None and not evaluate(assume, values, itype):
        shown = ", ".join(f"{p} = {v}" for p, v in values.items())
        raise error(f"{description['name']}: the parameters ({shown}) are outside the values "
                    f"the GPU code assumes ({assume['set']})")
    return values


@dataclass(frozen=True)
class Buffer:
    """A device buffer of the description: ``count`` elements, copied in and/or out."""

    name: str
    dtype: Any
    count: int
    copy_in: bool
    copy_out: bool

    @property
    def nbytes(self) -> int:
        return max(self.count * np.dtype(self.dtype).itemsize, 1)


def buffers(description: Mapping[str, Any], values: Mapping[str, int]) -> dict[str, Buffer]:
    """The device buffers of the host program at these values (``host_values``)."""
    return {entry["name"]: Buffer(entry["name"], struct_dtype(entry["struct"]) if "struct" in entry
                                  else numpy_type(entry["element_type"]),
                                  evaluate(entry["count"], values, index_type(description)),
                                  entry["copy_in"] and not (
                                      entry.get("covered") and
                                      evaluate(entry["covered"], values, index_type(description))),
                                  entry["copy_out"])
            for entry in description["arrays"] if has_device_buffer(entry)}


@dataclass(frozen=True)
class Launch:
    """One kernel launch, as the host control tree decides it."""

    kernel: str
    grid: tuple[int, ...]
    block: tuple[int, int, int]
    args: tuple[str, ...]
    env: Mapping[str, int]  # parameters, host iterators and bound host values


def replay(nodes: Sequence[Mapping[str, Any]], env: Mapping[str, int],
           launch: Callable[[Launch], None], itype: str = INDEX_TYPE,
           group: Callable[[list[Launch]], None] | None = None) -> int:
    """Walk the control tree, calling ``launch`` for every launch; returns their number.

    ``for`` bounds are inclusive; a launch first binds its kernel's host values
    (``bind``: ``h0 = c0``), then evaluates its grid; a launch whose grid is empty
    in some dimension has no thread to run and is skipped (CUDA refuses it).  Values
    are of type ``itype`` (the description's ``index_type``).  The launches of a
    ``concurrent`` node (``codegen/concurrent.py``) go to ``group`` together, in
    their order, or to ``launch`` one after the other when there is no ``group``.
    """
    count = 0
    for node in nodes:
        if "for" in node:
            var = node["for"]
            lower, upper = evaluate(node["lb"], env, itype), evaluate(node["ub"], env, itype)
            step = evaluate(node.get("step", 1), env, itype)
            if step <= 0:
                raise error(f"host loop over '{var}' has a non-positive step {step}")
            for value in range(lower, upper + 1, step):
                count += replay(node["body"], {**env, var: value}, launch, itype, group)
        elif "if" in node:
            branch = node["then"] if evaluate(node["if"], env, itype) else node.get("else", ())
            count += replay(branch, env, launch, itype, group)
        elif "concurrent" in node:
            items: list[Launch] = []
            count += replay(node["concurrent"], env, items.append, itype)
            if group is not None:
                group(items)
            else:
                for item in items:
                    launch(item)
        elif "launch" in node:
            bound = {**env, **{h: evaluate(e, env, itype)
                               for h, e in node.get("bind", {}).items()}}
            grid = tuple(evaluate(g, bound, itype) for g in node["grid"])
            if min(grid, default=1) <= 0:
                continue
            block = tuple(int(b) for b in node["block"]) + (1,) * (3 - len(node["block"]))
            launch(Launch(node["launch"], grid, block, tuple(node["args"]), bound))
            count += 1
        else:
            raise error(f"unknown node in the host control tree: {sorted(node)}")
    return count
