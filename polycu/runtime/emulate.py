"""CPU execution of the emitted CUDA, checked against the original C.

In:  a ``Scop`` and the generated CUDA of it (kernels plus the contract-1 host
function), or a whole emitted program.
Out: reports that compare, array by array, what the emulated kernels computed with
what gcc's build of the original computes on the same inputs.

Two paths:

* per SCoP (``emulate_scop``): parameter values are chosen with isl so that every
  access stays inside the arrays' extents and the arrays fit in ``MEMORY_LIMIT``
  (``choose_parameters``), arrays are filled with seeded random values of their
  element types (``random_inputs``), and the CPU reference (``reference.py``) and
  the emulated host function run on copies of them; nvcc, when installed, builds
  the same CUDA for the GPU (``nvcc_check``);
* whole program (``emulate_program``): the emitted .cu is built as a program with
  g++ and ``polycu_emu.h`` (the PolyBench harness compiled by gcc and linked), run,
  and its ``POLYBENCH_DUMP_ARRAYS`` dump compared with the original's.

Comparison: an element matches when ``|a - e| <= rtol * max(|e|, s)`` with
``s = f * max |e|`` over the array, so values that cancel to almost nothing are
judged on the array's scale, not their own.  double: ``rtol = 1e-9``, ``f = 1e-3``.
float: ``rtol = 1e-4``, ``f = 1``, i.e. every element within 1e-4 of the array's
largest magnitude: with 24-bit significands, recurrences such as deriche's filters
amplify the last-bit differences of ``expf`` between CUDA and glibc far beyond a
per-element relative bound where results cancel.  NaN matches NaN only, infinities
match themselves, integers must be equal.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import islpy as isl
import numpy as np
from pycparser import c_ast, c_parser

from ..diagnostics import Location, PolycuError, error
from ..model import Array, Scop
from ..options import Options
from .reference import (BuildError, NativeFunction, Outcome, Signature, SignedOverflow,
                        build_cached, build_reference, dtype_of, integer_bounds)

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
EMULATION_HEADER = INCLUDE_DIR / "polycu_emu.h"

#: g++ flags of emulated code; -O1 keeps big generated files quick to build.
#: -fno-ivopts: g++ 12.2 at -O1 drops the call of a function holding a loop over
#: -c0 (induction-variable optimisation, then ipa-pure-const; tests/data/fuzz_repro).
EMULATION_FLAGS = ("-std=c++17", "-O1", "-fno-ivopts", "-fopenmp", "-ffp-contract=off",
                   "-DPOLYCU_EMULATE")

#: Default upper bound of chosen parameter values: past one 32-wide tile and a
#: multiple of no usual tile or block size, so partial tiles are exercised.
DEFAULT_PARAMETER_LIMIT = 37

#: Bytes the SCoP's arrays (one copy of them) may take in an emulation or a check.
MEMORY_LIMIT = 2 << 30

#: Input profiles of ``random_inputs``, the default first; the second is what the
#: default falls back to when the original overflows a signed integer on it.
INPUT_PROFILES = ("mixed", "nonnegative-ints", "unit")
DEFAULT_PROFILE, NONNEGATIVE_INTS, UNIT = INPUT_PROFILES
#: In the ``mixed`` profile: one floating value in LARGE_SHARE is large, and wide
#: signed integers (int, long) stay below SIGNED_MAGNITUDE in magnitude.
LARGE_SHARE = 16
SIGNED_MAGNITUDE = 1 << 10

DEFAULT_RTOL = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4}
#: ``f`` of the module docstring: the fraction of the array's largest magnitude
#: below which an element is judged on that scale instead of its own.
ARRAY_SCALE = {np.dtype(np.float64): 1e-3, np.dtype(np.float32): 1.0}


def emulation_env() -> dict[str, str]:
    """OpenMP settings under which a block of 1024 threads gets its full team.

    Threads sleep while they wait: with up to 1024 emulated threads on a few cores,
    spinning would starve the threads that have work to do.  Their stacks are 1 MiB
    unless the user says otherwise (a GPU thread has 1 KiB by default; 1024 threads
    with the usual 8 MiB would reserve 8 GiB).
    """
    env = {"OMP_DYNAMIC": "false", "OMP_WAIT_POLICY": "passive"}
    if "OMP_STACKSIZE" not in os.environ and "GOMP_STACKSIZE" not in os.environ:
        env["OMP_STACKSIZE"] = "1M"
    limit = os.environ.get("OMP_THREAD_LIMIT")
    if limit is not None and (not limit.isdigit() or int(limit) < 1024):
        env["OMP_THREAD_LIMIT"] = "1024"
    return env


# -- parameters -------------------------------------------------------------------

def _param_space_set(scop: Scop, constraint: str) -> isl.Set:
    names = ", ".join(scop.parameters)
    return isl.Set(f"[{names}] -> {{ : {constraint} }}")


def out_of_bounds_parameters(scop: Scop) -> isl.Set:
    """Parameter values at which some access leaves its array's extents."""
    bad = _param_space_set(scop, "1 = 0")
    for stmt in scop.statements:
        for access in stmt.accesses:
            array = scop.array(access.array)
            if array.extent_set is None or array.is_scalar:
                continue
            touched = access.relation.intersect_domain(stmt.domain).range()
            bad = bad.union(touched.subtract(array.extent_set).params())
    return bad.coalesce()


def _choose(scop: Scop, limit: int, fixed: Mapping[str, int]) -> dict[str, int]:
    """``choose_parameters`` without the memory bound."""
    if not scop.parameters:
        return {}
    sig = Signature.of(scop)
    good = scop.context.subtract(out_of_bounds_parameters(scop))
    for name, value in fixed.items():
        low, high = integer_bounds(sig.parameter_dtype(name, scop.location))
        if not low <= int(value) <= high:
            raise error(f"{name}={int(value)} does not fit the type '{sig.parameter_type(name)}' "
                        f"of parameter '{name}' of {scop.name} ({low}..{high})", scop.location)
        good = good.intersect(_param_space_set(scop, f"{name} = {int(value)}"))
    # Free values stay inside their C type too (an unsigned char is at most 255).
    caps = {p: min(limit, integer_bounds(sig.parameter_dtype(p, scop.location))[1])
            for p in scop.parameters if p not in fixed}

    def at_least(low: int) -> isl.Set:
        bounds = " and ".join(f"{low} <= {p} <= {cap}" for p, cap in caps.items()) or "1 = 1"
        return good.intersect(_param_space_set(scop, bounds))

    if at_least(1).is_empty():
        where = f" with {', '.join(f'{k}={v}' for k, v in fixed.items())}" if fixed else ""
        raise error(f"no values of the parameters of {scop.name} in 1..{limit}{where} keep every "
                    f"access inside its array and satisfy the context {scop.context}",
                    scop.location)
    low, high = 1, limit  # invariant: at_least(low) is not empty
    while low < high:
        mid = (low + high + 1) // 2
        if at_least(mid).is_empty():
            high = mid - 1
        else:
            low = mid
    chosen = at_least(low)
    n = len(scop.parameters)
    names = chosen.get_space().get_var_names(isl.dim_type.param)
    point = chosen.move_dims(isl.dim_type.set, 0, isl.dim_type.param, 0, n).lexmax().sample_point()
    values = {name: point.get_coordinate_val(isl.dim_type.set, k).to_python()
              for k, name in enumerate(names)}
    return {p: int(values[p]) for p in scop.parameters}


def choose_parameters(scop: Scop, limit: int = DEFAULT_PARAMETER_LIMIT,
                      fixed: Mapping[str, int] | None = None,
                      memory: int = MEMORY_LIMIT) -> dict[str, int]:
    """Parameter values for a random test: in the context, every access inside its
    array, every free value in ``1..limit`` (and in its C type's range) and as large
    as possible, with the SCoP's arrays in at most ``memory`` bytes.

    The values are balanced first (the largest ``L`` such that all free parameters
    can be ``>= L``), then each is maximised in order (isl's lexmax), so that a
    constraint like ``n + m <= 30`` gives ``15, 15`` and not ``30, 0``.  When the
    arrays would not fit, ``limit`` shrinks until they do; when no smaller limit
    helps (constant extents, fixed values), a located error names the array.
    """
    fixed = dict(fixed or {})
    unknown = sorted(set(fixed) - set(scop.parameters))
    if unknown:
        verb = "is not a parameter" if len(unknown) == 1 else "are not parameters"
        raise error(f"{', '.join(unknown)} {verb} of {scop.name} "
                    f"(parameters: {', '.join(scop.parameters) or 'none'})", scop.location)
    values = _choose(scop, limit, fixed)
    if sum(array_bytes(scop, values).values()) <= memory:
        return values
    if set(fixed) != set(scop.parameters):
        low, high = 0, limit - 1   # the largest limit whose values fit, 0 for none
        while low < high:
            mid = (low + high + 1) // 2
            try:
                fits = sum(array_bytes(scop, _choose(scop, mid, fixed)).values()) <= memory
            except PolycuError:  # no values at all in 1..mid
                fits = False
            low, high = (mid, high) if fits else (low, mid - 1)
        if low:
            return _choose(scop, low, fixed)
    raise memory_error(scop, values, memory)


# -- array shapes and inputs ------------------------------------------------------

_INT_SUFFIX = re.compile(r"[uUlL]+$")


def evaluate_c(expr: str, values: Mapping[str, int], location: Location | None = None) -> int:
    """Value of an integer C expression over parameter values, with C's semantics
    (division and remainder truncate toward zero)."""
    try:
        ast = c_parser.CParser().parse(f"int polycu_v = ({expr});")
        node = ast.ext[0].init
    except Exception:  # pycparser raises several types on bad text
        raise error(f"cannot read the extent '{expr}'", location) from None

    def ev(n: c_ast.Node) -> int:
        if isinstance(n, c_ast.Constant) and n.type in ("int", "long int", "unsigned int",
                                                        "long long int", "unsigned long int",
                                                        "unsigned long long int", "char"):
            text = _INT_SUFFIX.sub("", n.value)
            if n.type == "char":
                return ord(text.strip("'"))
            return int(text, 8) if re.fullmatch(r"0[0-7]+", text) else int(text, 0)
        if isinstance(n, c_ast.ID):
            if n.name not in values:
                raise error(f"the extent '{expr}' uses '{n.name}', which is not a parameter",
                            location)
            return int(values[n.name])
        if isinstance(n, c_ast.UnaryOp):
            v = ev(n.expr)
            ops = {"-": -v, "+": v, "~": ~v, "!": int(not v)}
            if n.op in ops:
                return ops[n.op]
        if isinstance(n, c_ast.Cast):
            return ev(n.expr)
        if isinstance(n, c_ast.TernaryOp):
            return ev(n.iftrue) if ev(n.cond) else ev(n.iffalse)
        if isinstance(n, c_ast.BinaryOp):
            a, b = ev(n.left), ev(n.right)
            if n.op in ("/", "%"):
                if b == 0:
                    raise error(f"the extent '{expr}' divides by zero", location)
                q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
                return q if n.op == "/" else a - b * q
            ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                   "<<": lambda: a << b, ">>": lambda: a >> b, "&": lambda: a & b,
                   "|": lambda: a | b, "^": lambda: a ^ b, "<": lambda: int(a < b),
                   ">": lambda: int(a > b), "<=": lambda: int(a <= b),
                   ">=": lambda: int(a >= b), "==": lambda: int(a == b),
                   "!=": lambda: int(a != b), "&&": lambda: int(bool(a and b)),
                   "||": lambda: int(bool(a or b))}
            if n.op in ops:
                return ops[n.op]()
        raise error(f"the extent '{expr}' is not an integer expression of the parameters",
                    location)

    return ev(node)


def _accessed_size(scop: Scop, array: Array, params: Mapping[str, int]) -> int:
    """max index + 1 of the outermost dimension over every access (pointer parameters)."""
    fix = _param_space_set(scop, " and ".join(f"{p} = {params[p]}" for p in scop.parameters)
                           or "1 = 1")
    size = 1
    for stmt in scop.statements:
        for access in stmt.accesses:
            if access.array != array.name:
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
                dims.append(evaluate_c(extent, params, a.location))
        if any(d <= 0 for d in dims):
            raise error(f"array '{a.name}' would have shape {tuple(dims)} at "
                        f"{_format_params(params)}", a.location)
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
        array = scop.array(largest)
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
    allocated (``check_memory``).
    """
    if profile not in INPUT_PROFILES:
        raise error(f"unknown input profile '{profile}' (one of {', '.join(INPUT_PROFILES)})")
    check_memory(scop, params, memory)
    rng = np.random.default_rng(seed)
    shapes = array_shapes(scop, params)
    data = {}
    for a in Signature.of(scop).arrays:
        dtype, shape = dtype_of(a), shapes[a.name]
        if profile == UNIT and dtype.kind == "f":
            values = rng.random(shape)
        elif profile == UNIT:
            values = rng.integers(0, 4 if dtype.itemsize == 1 else 100, size=shape)
        elif dtype.kind == "f":
            values = _floating_values(rng, shape, a.is_scalar)
        else:
            values = _integer_values(rng, dtype, shape, profile == NONNEGATIVE_INTS)
        data[a.name] = np.asarray(values).astype(dtype)
    return data


@dataclass(frozen=True)
class ReferenceRun:
    """The inputs a reference ran on and its results (``expected``)."""

    profile: str
    inputs: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]
    note: str = ""


def run_reference(scop: Scop, values: Mapping[str, int],
                  inputs_of: Callable[[str], dict[str, np.ndarray]], profile: str, *,
                  timeout: float) -> ReferenceRun:
    """Run the CPU reference on a copy of ``inputs_of(profile)``.

    When the default profile drives the original into a signed overflow (trapped:
    ``reference.OVERFLOW_TRAP_FLAGS``), its result is undefined and nothing could
    be compared with it: the inputs are drawn again with signed integers >= 0
    (``nonnegative-ints``), and the report says so.
    """
    reference = build_reference(scop)
    inputs = inputs_of(profile)
    expected = {name: array.copy() for name, array in inputs.items()}
    try:
        reference(values, expected, timeout=timeout)
        return ReferenceRun(profile, inputs, expected)
    except SignedOverflow:
        if profile != DEFAULT_PROFILE:
            raise
    inputs = inputs_of(NONNEGATIVE_INTS)
    expected = {name: array.copy() for name, array in inputs.items()}
    reference(values, expected, timeout=timeout)
    return ReferenceRun(NONNEGATIVE_INTS, inputs, expected,
                        "the original overflows a signed integer on inputs of both signs")


# -- comparison -------------------------------------------------------------------

@dataclass(frozen=True)
class ArrayComparison:
    """How one array computed by the code under test compares with the reference."""

    name: str
    size: int
    mismatches: int
    max_rel_error: float
    first_mismatch: tuple[int, ...] | None = None
    expected: float | int | None = None     # at the first mismatch
    actual: float | int | None = None
    nan_expected: int = 0
    nan_actual: int = 0
    nan_mismatch: tuple[int, ...] | None = None   # first index where NaN-ness differs
    norm_error: float = 0.0     # ||a - e||_2 / ||e||_2 over the finite values

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def describe(self) -> str:
        text = (f"{self.name}: {self.size} values, max relative error {self.max_rel_error:.3g}, "
                f"relative error norm {self.norm_error:.3g}, "
                f"{self.mismatches} mismatch{'es' if self.mismatches != 1 else ''}")
        if self.nan_expected or self.nan_actual:
            text += f", NaN: {self.nan_expected} expected, {self.nan_actual} computed"
        if self.first_mismatch is not None:
            text += (f"; first at {self.name}{''.join(f'[{i}]' for i in self.first_mismatch)}: "
                     f"expected {self.expected!r}, got {self.actual!r}")
        if self.nan_mismatch is not None and self.nan_mismatch != self.first_mismatch:
            text += f"; NaN differs first at {list(self.nan_mismatch)}"
        return text


def compare_arrays(name: str, expected: np.ndarray, actual: np.ndarray,
                   rtol: float | None = None) -> ArrayComparison:
    """Compare element by element (see the module docstring for the rule)."""
    if expected.shape != actual.shape:
        raise ValueError(f"{name}: shapes {expected.shape} and {actual.shape} differ")
    if rtol is None:
        rtol = DEFAULT_RTOL.get(expected.dtype, 0.0)
    e = expected.astype(np.float64) if expected.dtype.kind == "f" else expected
    a = actual.astype(np.float64) if actual.dtype.kind == "f" else actual
    if expected.dtype.kind == "f":
        e_nan, a_nan = np.isnan(e), np.isnan(a)
        finite = np.isfinite(e) & np.isfinite(a)
        scale = ARRAY_SCALE.get(expected.dtype, 1e-3) * float(np.max(np.abs(e[finite]),
                                                                      initial=0.0))
        with np.errstate(invalid="ignore", divide="ignore"):
            denominator = np.maximum(np.abs(e), scale)
            rel = np.where(finite, np.abs(a - e) / np.where(denominator > 0, denominator, 1.0),
                           0.0)
        same_special = (e_nan & a_nan) | (~finite & ~e_nan & ~a_nan & (e == a))
        bad = np.where(finite, rel > rtol, ~same_special)
        max_rel = float(np.max(rel, initial=0.0))
        norm = _relative_norm(e[finite], a[finite])
    else:
        e_nan = a_nan = np.zeros(e.shape, dtype=bool)
        diff = np.abs(e.astype(np.float64) - a.astype(np.float64))
        bad = diff > 0
        denominator = np.maximum(np.abs(e.astype(np.float64)), 1.0)
        max_rel = float(np.max(diff / denominator, initial=0.0))
        norm = _relative_norm(e.astype(np.float64), a.astype(np.float64))
    count = int(np.count_nonzero(bad))
    first = expected_value = actual_value = None
    if count:
        flat = int(np.flatnonzero(bad.ravel())[0])
        first = tuple(int(i) for i in np.unravel_index(flat, expected.shape))
        expected_value, actual_value = expected[first].item(), actual[first].item()
    nan_diff = np.flatnonzero((e_nan != a_nan).ravel())
    nan_first = (tuple(int(i) for i in np.unravel_index(int(nan_diff[0]), expected.shape))
                 if nan_diff.size else None)
    return ArrayComparison(name, int(expected.size), count, max_rel, first, expected_value,
                           actual_value, int(np.count_nonzero(e_nan)),
                           int(np.count_nonzero(a_nan)), nan_first, norm)


def _relative_norm(e: np.ndarray, a: np.ndarray) -> float:
    """||a - e||_2 / ||e||_2 (the absolute norm when e is all zeros), computed on
    values scaled by their largest magnitude so that huge entries do not overflow."""
    scale = float(max(np.max(np.abs(e), initial=0.0), np.max(np.abs(a), initial=0.0)))
    if not np.isfinite(scale) or scale == 0.0:
        scale = 1.0
    diff = float(np.linalg.norm(((a - e) / scale).ravel()))
    ref = float(np.linalg.norm((e / scale).ravel()))
    return diff / ref if ref > 0 else diff * scale


def _format_params(params: Mapping[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "no parameters"


# -- per-SCoP emulation -----------------------------------------------------------

ENTRY_PREFIX = "polycu_emulated_"


def emulation_source(scop: Scop, cuda_source: str, host_function: str) -> str:
    """The translation unit of the emulated SCoP: the generated CUDA, then a C-linkage
    entry with the contract-1 signature that calls its host function."""
    sig = Signature.of(scop)
    args = [*sig.parameters, *(f"polycu_arg_{a.name}" for a in sig.arrays)]
    return "\n".join([
        cuda_source.rstrip(),
        "",
        "/* Entry point of polycu's CPU emulation (C linkage, for ctypes). */",
        f'extern "C" {sig.prototype(ENTRY_PREFIX + scop.name)}',
        "{",
        f"  {host_function}({', '.join(args)});",
        "}",
        "",
    ])


def build_emulated(scop: Scop, cuda_source: str, host_function: str, *,
                   compiler: str = "g++") -> NativeFunction:
    """Compile generated CUDA (kernels and host function) for the CPU, cached."""
    command = [compiler, *EMULATION_FLAGS, "-fPIC", "-shared", "-I", str(INCLUDE_DIR)]
    library = build_cached(emulation_source(scop, cuda_source, host_function), command,
                           suffix=".so", language="c++", location=scop.location,
                           extra_key=EMULATION_HEADER.read_text())
    return NativeFunction(library, ENTRY_PREFIX + scop.name, Signature.of(scop),
                          f"the emulated kernels of {scop.name}", scop.location)


#: How ``polycu emulate`` has nvcc build each SCoP's CUDA (object file only).
NVCC_FLAGS = ("-arch=sm_90", "-c")
#: Lines of nvcc's messages that a failed build's report keeps.
NVCC_ERROR_LINES = 8


@dataclass(frozen=True)
class NvccCheck:
    """Whether nvcc builds the CUDA that was emulated: ``status`` is ``ok``,
    ``failed`` (``detail``: nvcc's first error lines) or ``skipped`` (no nvcc)."""

    status: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    def describe(self) -> str:
        command = " ".join(["nvcc", *NVCC_FLAGS])
        if self.status == "ok":
            return f"{command}: builds"
        if self.status == "skipped":
            return "nvcc is not installed: the CUDA was emulated but not compiled for a GPU"
        return f"{command} failed:\n" + "\n".join("    " + line
                                                  for line in self.detail.splitlines())


def first_errors(output: str, count: int = NVCC_ERROR_LINES) -> str:
    """The compiler's messages from the first line that says ``error``, ``count`` lines."""
    lines = output.strip().splitlines()
    start = next((k for k, line in enumerate(lines) if "error" in line), 0)
    return "\n".join(lines[start:start + count])


def nvcc_check(cuda_source: str, location: Location | None = None) -> NvccCheck:
    """Build ``cuda_source`` with ``nvcc -arch=sm_90 -c`` (cached by the source's hash
    like the gcc builds), so that an emulation that passes is of code nvcc accepts."""
    if shutil.which("nvcc") is None:
        return NvccCheck("skipped")
    try:
        build_cached(cuda_source, ["nvcc", *NVCC_FLAGS], suffix=".o", language="cu",
                     location=location)
    except BuildError as exc:
        return NvccCheck("failed", first_errors(exc.output))
    return NvccCheck("ok")


@dataclass(frozen=True)
class EmulationReport:
    """The outcome of running a SCoP both ways on the same random inputs (and of
    building its CUDA with nvcc, when ``nvcc`` is not None)."""

    scop: str
    params: dict[str, int]
    seed: int
    arrays: tuple[ArrayComparison, ...]
    live_allocations: int | None = None
    output: str = ""
    location: Location | None = None
    nvcc: NvccCheck | None = None
    profile: str = DEFAULT_PROFILE
    note: str = ""      # why the inputs are not of the profile asked for

    @property
    def ok(self) -> bool:
        return (all(c.ok for c in self.arrays) and not self.live_allocations
                and not (self.nvcc and self.nvcc.failed))

    @property
    def first_failure(self) -> ArrayComparison | None:
        return next((c for c in self.arrays if not c.ok), None)

    def failure(self) -> str:
        """What is wrong first, in a line or a few (empty when ``ok``)."""
        if self.first_failure is not None:
            return self.first_failure.describe()
        if self.live_allocations:
            return f"{self.live_allocations} device allocation(s) never freed"
        if self.nvcc and self.nvcc.failed:
            return self.nvcc.describe()
        return ""

    def format(self) -> str:
        verdict = "OK" if self.ok else "MISMATCH" if self.first_failure else "FAILED"
        inputs = "" if self.profile == DEFAULT_PROFILE else f"; inputs {self.profile}"
        lines = [f"{self.scop}: {verdict} ({_format_params(self.params)}; seed {self.seed}"
                 f"{inputs})"]
        if self.note:
            lines.append(f"  inputs {self.profile}: {self.note}")
        lines += [f"  {c.describe()}" for c in self.arrays]
        if self.live_allocations:
            lines.append(f"  {self.live_allocations} device allocation(s) never freed")
        if self.nvcc is not None:
            lines.append(f"  {self.nvcc.describe()}")
        return "\n".join(lines)


def emulate_scop(scop: Scop, cuda_source: str, host_function: str, *,
                 params: Mapping[str, int] | None = None,
                 limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
                 rtol: float | None = None, timeout: float = 300.0,
                 profile: str = DEFAULT_PROFILE, nvcc: bool = True) -> EmulationReport:
    """Run the original SCoP (gcc) and the generated CUDA (emulated) on the same
    fresh random inputs and compare every array and scalar they can change (but the
    scalars dead after the SCoP: no code can read them, and privatised ones stay
    unwritten on the host).

    ``params`` fixes some parameter values (the others are chosen); ``seed`` picks
    the inputs (a fresh one, reported, when None), ``profile`` their kind
    (``random_inputs``).  With ``nvcc``, the CUDA is also built by nvcc when it is
    installed (``nvcc_check``): a build it refuses fails the report.
    """
    values = choose_parameters(scop, limit, params)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2 ** 31))
    ran = run_reference(scop, values, lambda kind: random_inputs(scop, values, seed, kind),
                        profile, timeout=timeout)
    actual = {k: v.copy() for k, v in ran.inputs.items()}
    outcome: Outcome = build_emulated(scop, cuda_source, host_function)(
        values, actual, timeout=timeout, env=emulation_env())
    comparisons = tuple(compare_arrays(a.name, ran.expected[a.name], actual[a.name], rtol)
                        for a in Signature.of(scop).arrays if not a.dead_after)
    return EmulationReport(scop.name, values, seed, comparisons, outcome.live_allocations,
                           outcome.output, scop.location,
                           nvcc_check(cuda_source, scop.location) if nvcc else None,
                           ran.profile, ran.note)


# -- whole programs ---------------------------------------------------------------

_DUMP_BEGIN, _DUMP_END = "==BEGIN DUMP_ARRAYS==", "==END   DUMP_ARRAYS=="
# PolyBench prints "begin dump: NAME" without a newline: the values may follow the
# name directly ("begin dump: x0.00 ..."); the end marker names the array again.
_DUMP_ARRAY = re.compile(r"begin dump: (\S+?)(.*?)end   dump: \1\n", re.S)


def parse_dump(text: str) -> dict[str, list[str]]:
    """The arrays of a PolyBench dump (stderr of a ``-DPOLYBENCH_DUMP_ARRAYS`` run), as the
    printed tokens (kept as text: their number of decimals is the precision)."""
    start, end = text.find(_DUMP_BEGIN + "\n"), text.rfind(_DUMP_END)
    if start < 0 or end < start:
        raise ValueError("no ==BEGIN DUMP_ARRAYS== ... ==END DUMP_ARRAYS== section")
    body = text[start + len(_DUMP_BEGIN) + 1:end]
    arrays = {}
    for match in _DUMP_ARRAY.finditer(body):
        arrays[match.group(1)] = match.group(2).split()
    if not arrays:
        raise ValueError("the dump holds no array")
    return arrays


@dataclass(frozen=True)
class DumpComparison:
    """One dumped array: values compared up to ``units`` in the last printed digit."""

    name: str
    size: int
    mismatches: int
    max_abs_error: float
    first_mismatch: int | None = None
    expected: str | None = None
    actual: str | None = None

    @property
    def ok(self) -> bool:
        return self.mismatches == 0

    def describe(self) -> str:
        text = (f"{self.name}: {self.size} values, max abs error {self.max_abs_error:.3g}, "
                f"{self.mismatches} mismatch{'es' if self.mismatches != 1 else ''}")
        if self.first_mismatch is not None:
            text += (f"; first at value #{self.first_mismatch}: expected {self.expected}, "
                     f"got {self.actual}")
        return text


def _last_digit(token: str) -> float:
    """The value of one unit in the last printed digit; 0 for an integer (exact)."""
    mantissa, _, exponent = token.lower().partition("e")
    if "." not in mantissa and not exponent:
        return 0.0
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def compare_dumps(expected: str, actual: str, units: float = 1.0) -> list[DumpComparison]:
    """Compare two dumps array by array; a value matches when it differs by at most
    ``units`` in the last digit printed (two values that straddle a rounding boundary
    print one unit apart however close they are); integers must be equal."""
    want, got = parse_dump(expected), parse_dump(actual)
    if list(want) != list(got):
        raise ValueError(f"dumped arrays differ: expected {list(want)}, got {list(got)}")
    result = []
    for name, tokens in want.items():
        other = got[name]
        if len(tokens) != len(other):
            raise ValueError(f"{name}: {len(tokens)} values expected, {len(other)} dumped")
        e = np.array([float(t) for t in tokens])
        a = np.array([float(t) for t in other])
        ulp = np.array([_last_digit(t) for t in tokens])
        with np.errstate(invalid="ignore"):
            diff = np.abs(a - e)
            both_nan = np.isnan(a) & np.isnan(e)
            bad = ~both_nan & ~(diff <= units * ulp * (1 + 1e-9))
        count = int(np.count_nonzero(bad))
        first = int(np.flatnonzero(bad)[0]) if count else None
        finite = np.isfinite(diff)
        result.append(DumpComparison(
            name, len(tokens), count, float(np.max(diff[finite], initial=0.0)), first,
            tokens[first] if first is not None else None,
            other[first] if first is not None else None))
    return result


@dataclass(frozen=True)
class ProgramReport:
    """The outcome of running an emitted program on the CPU against the original."""

    program: str
    arrays: tuple[DumpComparison, ...]
    output: str = ""
    error: str | None = None   # why no comparison was possible (build, crash, dump)

    @property
    def ok(self) -> bool:
        return self.error is None and all(c.ok for c in self.arrays)

    def format(self) -> str:
        verdict = "FAILED" if self.error else "OK" if self.ok else "MISMATCH"
        lines = [f"{self.program}: {verdict}"]
        if self.error:
            lines.append(f"  {self.error}")
        lines += [f"  {c.describe()}" for c in self.arrays]
        return "\n".join(lines)


@dataclass(frozen=True)
class ProgramBuild:
    """How to build a program: -D and -I as for gcc, plus C sources linked with it
    (compiled by gcc, e.g. the PolyBench harness)."""

    defines: tuple[str, ...] = ()
    includes: tuple[str, ...] = ()
    c_sources: tuple[str, ...] = ()
    cflags: tuple[str, ...] = ("-O2", "-ffp-contract=off")

    def preprocessor_flags(self) -> list[str]:
        return [f"-D{d}" for d in self.defines] + [f"-I{i}" for i in self.includes]


def _c_objects(build: ProgramBuild, compiler: str = "gcc") -> list[str]:
    """The extra C sources as cached objects (keyed by their text and headers')."""
    objects = []
    for path in build.c_sources:
        source = Path(path)
        headers = "".join(p.read_text() for inc in build.includes
                          for p in sorted(Path(inc).glob("*.h")) if p.is_file())
        flags = [compiler, *build.cflags, *build.preprocessor_flags(), "-I", str(source.parent),
                 "-c"]
        objects.append(str(build_cached(source.read_text(), flags, suffix=".o", language="c",
                                        extra_key=headers)))
    return objects


def _run_program(argv: list[str], timeout: float, env: Mapping[str, str] | None,
                 what: str) -> tuple[str, str]:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        raise error(f"{what} did not finish within {timeout:g} s") from None
    if proc.returncode != 0:
        how = (f"was killed by signal {-proc.returncode}" if proc.returncode < 0
               else f"exited with status {proc.returncode}")
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        raise error(f"{what} {how}" + (f"; it printed:\n{tail}" if tail else ""))
    return proc.stdout, proc.stderr


def build_program(source: Path, output: Path, build: ProgramBuild, *, emulate: bool) -> None:
    """Build a whole program: the emitted .cu with g++ and the emulation header and
    its host program OUT_host.c with gcc (``emulate``), or the original C with gcc;
    the extra C sources are linked in."""
    objects = _c_objects(build)
    host = source.with_name(source.stem + "_host.c")
    if emulate and host.exists():
        objects.append(str(output.with_name(output.name + "_host.o")))
        argv = ["gcc", *build.cflags, *build.preprocessor_flags(), "-I", str(source.parent),
                "-c", str(host), "-o", objects[-1]]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise error(f"gcc failed to build {host}:\n{proc.stderr.strip()}\n"
                        f"command: {' '.join(argv)}", Location(str(host)))
    if emulate:
        argv = ["g++", *EMULATION_FLAGS, "-I", str(INCLUDE_DIR), *build.preprocessor_flags(),
                "-I", str(source.parent), "-x", "c++", str(source), "-x", "none", *objects,
                "-lm", "-o", str(output)]
    else:
        argv = ["gcc", *build.cflags, *build.preprocessor_flags(), "-I", str(source.parent),
                str(source), *objects, "-lm", "-o", str(output)]
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise error(f"{argv[0]} failed to build {source}:\n{proc.stderr.strip()}\n"
                    f"command: {' '.join(argv)}", Location(str(source)))


def emulate_program(cu_file: str | Path, build: ProgramBuild, *,
                    original: str | Path | None = None, reference_dump: str | None = None,
                    units: float = 1.0, timeout: float = 300.0) -> ProgramReport:
    """Build the emitted program for the CPU, run it, and compare its array dump with
    ``reference_dump`` or, when None, with a fresh gcc build of ``original``.

    Both builds get ``build``'s defines (add ``POLYBENCH_DUMP_ARRAYS`` and the
    dataset there).  Build and run failures are returned as a failed report.
    """
    cu_file = Path(cu_file)
    if reference_dump is None and original is None:
        raise ValueError("emulate_program needs the original program or a reference dump")
    original_path = Path(original) if original is not None else None
    try:
        with tempfile.TemporaryDirectory(prefix="polycu-emulate-") as tmp:
            emulated = Path(tmp) / "emulated"
            build_program(cu_file, emulated, build, emulate=True)
            if original_path is not None and reference_dump is None:
                reference = Path(tmp) / "reference"
                build_program(original_path, reference, build, emulate=False)
                reference_dump = _run_program([str(reference)], timeout, None,
                                              f"the gcc build of {original}")[1]
            out, err = _run_program([str(emulated)], timeout, emulation_env(),
                                    f"the emulated build of {cu_file}")
    except PolycuError as exc:  # a failed build or run is the report
        return ProgramReport(str(cu_file), (), error="\n".join(d.message for d in exc.diagnostics))
    try:
        arrays = tuple(compare_dumps(reference_dump, err, units))
    except ValueError as exc:
        return ProgramReport(str(cu_file), (), out + err, error=f"bad dump: {exc}")
    return ProgramReport(str(cu_file), arrays, out + err)


# -- generated code ---------------------------------------------------------------

def scop_translation_unit(description: Mapping[str, object]) -> str:
    """The CUDA of one SCoP from its kernel description: the device source (prologue
    and kernels), the host helpers of the .cu, and the host function."""
    from ..codegen.host import HOST_HELPERS
    return "\n".join([str(description["device_source"]), HOST_HELPERS,
                      str(description["host_source"])])


def emulate_generated(scops: Sequence[Scop], description: Mapping[str, Any], *,
                      params: Mapping[str, int] | None = None,
                      limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
                      rtol: float | None = None, profile: str = DEFAULT_PROFILE,
                      nvcc: bool = True) -> list[EmulationReport]:
    """Emulate every SCoP of a kernel description (``Generated.description``) against
    its original code; ``params`` may fix parameters of any of them.  With ``nvcc``
    (and nvcc installed), each SCoP's CUDA, the very translation unit that is
    emulated (``scop_translation_unit``), is also built by nvcc."""
    by_name = {s.name: s for s in scops}
    known = {p for s in scops for p in s.parameters}
    unknown = sorted(set(params or {}) - known)
    if unknown:
        raise error(f"--param names {', '.join(unknown)}, not a parameter of any SCoP of "
                    f"{description['source']} ({', '.join(sorted(known)) or 'none'})",
                    Location(str(description["source"])))
    reports = []
    for entry in description["scops"]:
        scop = by_name[entry["name"]]
        fixed = {k: v for k, v in (params or {}).items() if k in scop.parameters}
        reports.append(emulate_scop(scop, scop_translation_unit(entry), entry["host_function"],
                                    params=fixed, limit=limit, seed=seed, rtol=rtol,
                                    profile=profile, nvcc=nvcc))
    return reports


def emulate_file(path: str, options: Options, *, params: Mapping[str, int] | None = None,
                 limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
                 rtol: float | None = None, profile: str = DEFAULT_PROFILE,
                 nvcc: bool = True) -> list[EmulationReport]:
    """Compile a C file with polycu and emulate every SCoP against its original code
    (and build its CUDA with nvcc: ``emulate_generated``)."""
    from ..driver import compile_file
    from ..frontend.load import load_file
    generated = compile_file(path, options)
    scops = load_file(path, defines=options.define, includes=options.include_dir,
                      undefines=options.undefine, auto=options.auto_scop, ctx=options.ctx)
    return emulate_generated(scops, generated.description, params=params, limit=limit,
                             seed=seed, rtol=rtol, profile=profile, nvcc=nvcc)


def report_files(files: Sequence[str], reports_of: Callable[[str], list[EmulationReport]],
                 what: str) -> int:
    """Print every SCoP's comparison; the first mismatch (or device allocation never
    freed) becomes an error naming the wrong index and the seed that reproduces it,
    a build nvcc refused one quoting nvcc.
    ``what`` names the side compared with the CPU reference."""
    failures = []
    for path in files:
        reports = reports_of(path)
        if not reports:
            print(f"{path}: no SCoP found", file=sys.stderr)
        for report in reports:
            print(report.format())
            if not report.ok:
                failures.append(report)
    if failures:
        first = failures[0]
        if first.first_failure is None and first.nvcc is not None and first.nvcc.failed:
            raise error(f"{first.scop}: nvcc cannot build the generated CUDA: "
                        f"{first.nvcc.detail}", first.location)
        raise error(f"{first.scop}: {what} differ from the CPU reference: {first.failure()} "
                    f"(reproduce with --seed {first.seed})", first.location)
    return 0


def run_command(args: argparse.Namespace) -> int:
    """``polycu emulate FILE.c...``: the emulated kernels of every SCoP against the
    original code on the same random inputs."""
    from .check import fresh_seed, parse_assignments
    options = Options.from_namespace(args)
    fixed = parse_assignments(args.param)
    seed = fresh_seed() if args.seed is None else args.seed
    return report_files(args.files, lambda path: emulate_file(
        path, options, params=fixed, limit=args.max_param, seed=seed),
        "the emulated kernels")
