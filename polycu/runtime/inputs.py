"""The inputs a run starts from: seeded random values of each array's element type.

In:  a ``Scop``, parameter values, a seed and a profile (``INPUT_PROFILES``).
Out: every non-local array (0-d for a scalar) as a numpy array of its element type
     (a struct variable: of a structured type, each field filled like an array),
     the same for the same seed (``random_inputs``); ``fresh_seed`` draws a seed
     that a report prints, so that any run can be repeated.

The values are chosen so that wrong code shows: floating values of both signs and
some large magnitudes, integers across their types' ranges where C defines
overflow (see ``random_inputs``).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
from pycparser import c_ast

from ..diagnostics import error
from ..frontend.affine import int_constant
from ..frontend.syntax import base_name, flatten_ref, walk
from ..model import Scop
from .shapes import MEMORY_LIMIT, array_shapes, check_memory
from .signature import Signature, dtype_of, integer_bounds

#: Input profiles of ``random_inputs``, the default first; the second is what the
#: default falls back to when the original overflows a signed integer on it.
INPUT_PROFILES = ("mixed", "nonnegative-ints", "unit")
DEFAULT_PROFILE, NONNEGATIVE_INTS, UNIT = INPUT_PROFILES
#: In the ``mixed`` profile: one floating value in LARGE_SHARE is large, and wide
#: signed integers (int, long) stay below SIGNED_MAGNITUDE in magnitude.
LARGE_SHARE = 16
SIGNED_MAGNITUDE = 1 << 10


def fresh_seed() -> int:
    """A new seed for ``random_inputs``, from the operating system's entropy."""
    return int(np.random.SeedSequence().entropy % (2 ** 31))


def _floating_values(rng: np.random.Generator, shape: tuple[int, ...],
                     scalar: bool) -> np.ndarray:
    """Both signs, mostly in [-4, 4]; in arrays one value in ``LARGE_SHARE`` of a
    magnitude between 4 and 1000 (scalars are coefficients such as alpha or a decay
    rate, whose large values only overflow an ``exp``)."""
    values = rng.uniform(-4.0, 4.0, shape)
    if scalar:
        return values
    large = rng.random(shape) < 1.0 / LARGE_SHARE
    magnitude = 10.0 ** rng.uniform(np.log10(4.0), 3.0, shape)
    return np.where(large, np.where(rng.random(shape) < 0.5, -magnitude, magnitude), values)


def _integer_values(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...],
                    nonnegative: bool) -> np.ndarray:
    """Half of the values small (0..3, and -3.. for signed types: equality tests such
    as nussinov's take both branches), half across the range where overflow is
    defined: all of it for unsigned types (they wrap), all of it for char and short
    (C computes on int, which holds their products), ``|x| < 2^10`` for wider signed
    types (signed overflow is undefined: products of two stay far inside int).
    ``nonnegative`` keeps signed values >= 0 (negative weights make floyd-warshall's
    path sums fall without bound, into an overflow)."""
    low, high = integer_bounds(dtype)
    if dtype.kind == "i" and dtype.itemsize >= 4:
        low, high = -SIGNED_MAGNITUDE + 1, SIGNED_MAGNITUDE - 1
    if nonnegative:
        low = max(low, 0)
    wide = rng.integers(low, high, size=shape, endpoint=True, dtype=dtype)
    small = rng.integers(max(low, -3), 3, size=shape, endpoint=True, dtype=dtype)
    return np.where(rng.random(shape) < 0.5, small, wide)


def random_inputs(scop: Scop, params: Mapping[str, int], seed: int,
                  profile: str = DEFAULT_PROFILE,
                  memory: int = MEMORY_LIMIT) -> dict[str, np.ndarray]:
    """Every non-local array filled with seeded random values of its element type.

    ``profile`` (one of ``INPUT_PROFILES``): ``mixed``, the default, gives floating
    arrays both signs and some large magnitudes and integer arrays values across
    their types' ranges (``_floating_values``, ``_integer_values``), so that a float
    computed in double, an integer overflow or a sign error shows;
    ``nonnegative-ints`` is the same with signed integers >= 0; ``unit`` gives the
    small non-negative values some programs need (a square root or a logarithm of
    the inputs): floating point in [0, 1), integers in [0, 100), one-byte integers
    in [0, 4).  Arrays over ``memory`` bytes are refused before anything is
    allocated (``check_memory``).  An integer array that indexes another
    (``x[col[k]]``, ``H[idx[i] % 8]``: ``index_ranges``) takes values that keep
    the index within the extent it indexes.
    """
    if profile not in INPUT_PROFILES:
        raise error(f"unknown input profile '{profile}' (one of {', '.join(INPUT_PROFILES)})")
    check_memory(scop, params, memory)
    rng = np.random.default_rng(seed)
    shapes = array_shapes(scop, params)
    data = {}
    for a in Signature.of(scop).arrays:
        dtype, shape = dtype_of(a), shapes[a.name]
        if dtype.fields is None:
            data[a.name] = _values(rng, dtype, shape, a.is_scalar, profile)
            continue
        data[a.name] = np.zeros(shape, dtype)       # a struct variable: field by field
        for name in dtype.names:
            field = dtype.fields[name][0]
            data[a.name][name] = _values(rng, field.base, shape + field.shape, False,
                                         profile)
    for name, (lo, hi) in index_ranges(scop, shapes, params).items():
        if name in data and data[name].dtype.kind in "iu":
            dtype = data[name].dtype
            least, most = integer_bounds(dtype)
            lo, hi = max(lo, least), min(hi, most)
            if lo <= hi:
                drawn = np.abs(data[name].astype(np.int64)) % (hi - lo + 1) + lo
                data[name] = drawn.astype(dtype)
    return data


# An integer array read as a subscript, X[..][Y[..] + c] or X[..][(Y[..] % m) + c]
# with constants c and m > 0 (or parameters), in a statement whose subscripts are
# data (Statement.loop): its values index X, and random ones would mostly fall
# outside X (a gather's x[col[k]], a histogram's H[idx[i] % 8]), so they are drawn
# where every such use stays within its extent E: v in [-c, E - 1 - c], and with
# % m, v in [max(1 - m, -c), min(m - 1, E - 1 - c)] (|v| < m: v % m = v, as C's %
# truncates), v >= 0 when m is unsigned (C then converts a negative v to unsigned).
def index_ranges(scop: Scop, shapes: Mapping[str, tuple[int, ...]],
                 params: Mapping[str, int] | None = None) -> dict[str, tuple[int, int]]:
    """The values [lo, hi] each such array ``Y`` may take (see above); an array some
    of whose uses leave no value in range is left out."""
    found: dict[str, tuple[int, int]] = {}
    for stmt in scop.statements:
        if not stmt.loop:
            continue
        for ref in walk(stmt.body):
            if not isinstance(ref, c_ast.ArrayRef):
                continue
            form = _offset_form(ref.subscript, params or {}, scop)
            if form is None:
                continue
            inner_ref, modulus, c, unsigned = form
            outer, before = flatten_ref(ref.name)
            inner = base_name(inner_ref)
            shape = shapes.get(outer.name) if isinstance(outer, c_ast.ID) else None
            dim = len(before)
            if shape is None or dim >= len(shape) or inner not in shapes:
                continue
            lo, hi = -c, shape[dim] - 1 - c
            if modulus is not None:
                lo, hi = max(0 if unsigned else 1 - modulus, lo), min(modulus - 1, hi)
            old = found.get(inner, (lo, hi))
            found[inner] = (max(lo, old[0]), min(hi, old[1]))     # only ever narrows
    return {name: (lo, hi) for name, (lo, hi) in found.items() if lo <= hi}


def _offset_form(e: c_ast.Node, params: Mapping[str, int], scop: Scop
                 ) -> tuple[c_ast.ArrayRef, int | None, int, bool] | None:
    """``e`` as (Y[..], m, c, whether m is unsigned) where e = (Y[..] % m) + c, or
    Y[..] + c (m None), its constants literals or parameters; else None."""
    def constant(node: c_ast.Node) -> int | None:
        if isinstance(node, c_ast.ID) and node.name in params:
            return params[node.name]
        return int_constant(node)
    c = 0
    while isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
        right, left = constant(e.right), constant(e.left)
        if right is not None:
            c, e = c + (right if e.op == "+" else -right), e.left
        elif left is not None and e.op == "+":
            c, e = c + left, e.right
        else:
            return None
    modulus, unsigned = None, False
    if isinstance(e, c_ast.BinaryOp) and e.op == "%":
        divisor = e.right
        unsigned = "unsigned" in (divisor.type if isinstance(divisor, c_ast.Constant) else
                                  scop.parameter_type(divisor.name)
                                  if isinstance(divisor, c_ast.ID) else "")
        modulus, e = constant(divisor), e.left
        if modulus is None or modulus <= 0:
            return None
    return (e, modulus, c, unsigned) if isinstance(e, c_ast.ArrayRef) else None


def _values(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...],
            scalar: bool, profile: str) -> np.ndarray:
    """Random values of one arithmetic type in ``profile`` (``random_inputs``)."""
    if dtype.kind == "b":                   # a _Bool holds 0 or 1, nothing else
        values = rng.integers(0, 1, size=shape, endpoint=True)
    elif profile == UNIT and dtype.kind == "f":
        values = rng.random(shape)
    elif profile == UNIT:
        values = rng.integers(0, 4 if dtype.itemsize == 1 else 100, size=shape)
    elif dtype.kind == "f":
        values = _floating_values(rng, shape, scalar)
    else:
        values = _integer_values(rng, dtype, shape, profile == NONNEGATIVE_INTS)
    return np.asarray(values).astype(dtype)
