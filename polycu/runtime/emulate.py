"""CPU execution of the emitted CUDA, checked against the original C.

In:  a ``Scop`` and the generated CUDA of it (kernels plus the contract-1 host
function), or a whole emitted program.
Out: reports that compare, array by array, what the emulated kernels computed with
what gcc's build of the original computes on the same inputs.

Two paths:

* per SCoP (``emulate_scop``): parameter values are chosen with isl so that every
  access stays inside the arrays' extents (``choose_parameters``), arrays are filled
  with seeded random values, and the CPU reference (``reference.py``) and the
  emulated host function run on copies of them;
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
import os
import re
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
from .reference import NativeFunction, Outcome, Signature, build_cached, build_reference, dtype_of

INCLUDE_DIR = Path(__file__).resolve().parent / "include"
EMULATION_HEADER = INCLUDE_DIR / "polycu_emu.h"

#: g++ flags of emulated code; -O1 keeps big generated files quick to build.
EMULATION_FLAGS = ("-std=c++17", "-O1", "-fopenmp", "-ffp-contract=off", "-DPOLYCU_EMULATE")

#: Default upper bound of chosen parameter values: past one 32-wide tile and a
#: multiple of no usual tile or block size, so partial tiles are exercised.
DEFAULT_PARAMETER_LIMIT = 37

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


def choose_parameters(scop: Scop, limit: int = DEFAULT_PARAMETER_LIMIT,
                      fixed: Mapping[str, int] | None = None) -> dict[str, int]:
    """Parameter values for a random test: in the context, every access inside its
    array, every free value in ``1..limit`` and as large as possible.

    The values are balanced first (the largest ``L`` such that all free parameters
    can be ``>= L``), then each is maximised in order (isl's lexmax), so that a
    constraint like ``n + m <= 30`` gives ``15, 15`` and not ``30, 0``.
    """
    fixed = dict(fixed or {})
    unknown = sorted(set(fixed) - set(scop.parameters))
    if unknown:
        verb = "is not a parameter" if len(unknown) == 1 else "are not parameters"
        raise error(f"{', '.join(unknown)} {verb} of {scop.name} "
                    f"(parameters: {', '.join(scop.parameters) or 'none'})", scop.location)
    if not scop.parameters:
        return {}
    good = scop.context.subtract(out_of_bounds_parameters(scop))
    for name, value in fixed.items():
        good = good.intersect(_param_space_set(scop, f"{name} = {int(value)}"))
    free = [p for p in scop.parameters if p not in fixed]

    def at_least(low: int) -> isl.Set:
        bounds = " and ".join(f"{low} <= {p} <= {limit}" for p in free) or "1 = 1"
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


def random_inputs(scop: Scop, params: Mapping[str, int], seed: int) -> dict[str, np.ndarray]:
    """Every non-local array filled with seeded random values.

    Floating point: uniform in [0, 1).  Integers: uniform in [0, 100); one-byte
    integers in [0, 4), so that equality tests on them (as in nussinov) take both
    branches.
    """
    rng = np.random.default_rng(seed)
    shapes = array_shapes(scop, params)
    data = {}
    for a in Signature.of(scop).arrays:
        dtype = dtype_of(a)
        shape = shapes[a.name]
        if dtype.kind == "f":
            data[a.name] = rng.random(shape).astype(dtype)
        else:
            high = 4 if dtype.itemsize == 1 else 100
            data[a.name] = rng.integers(0, high, size=shape).astype(dtype)
    return data


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


@dataclass(frozen=True)
class EmulationReport:
    """The outcome of running a SCoP both ways on the same random inputs."""

    scop: str
    params: dict[str, int]
    seed: int
    arrays: tuple[ArrayComparison, ...]
    live_allocations: int | None = None
    output: str = ""
    location: Location | None = None

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.arrays) and not self.live_allocations

    @property
    def first_failure(self) -> ArrayComparison | None:
        return next((c for c in self.arrays if not c.ok), None)

    def format(self) -> str:
        verdict = "OK" if self.ok else "MISMATCH"
        lines = [f"{self.scop}: {verdict} ({_format_params(self.params)}; seed {self.seed})"]
        lines += [f"  {c.describe()}" for c in self.arrays]
        if self.live_allocations:
            lines.append(f"  {self.live_allocations} device allocation(s) never freed")
        return "\n".join(lines)


def emulate_scop(scop: Scop, cuda_source: str, host_function: str, *,
                 params: Mapping[str, int] | None = None,
                 limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
                 rtol: float | None = None, timeout: float = 300.0) -> EmulationReport:
    """Run the original SCoP (gcc) and the generated CUDA (emulated) on the same
    fresh random inputs and compare every array and scalar they can change (but the
    scalars dead after the SCoP: no code can read them, and privatised ones stay
    unwritten on the host).

    ``params`` fixes some parameter values (the others are chosen); ``seed`` picks
    the inputs (a fresh one, reported, when None).
    """
    values = choose_parameters(scop, limit, params)
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (2 ** 31))
    inputs = random_inputs(scop, values, seed)
    expected = {k: v.copy() for k, v in inputs.items()}
    actual = {k: v.copy() for k, v in inputs.items()}
    build_reference(scop)(values, expected, timeout=timeout)
    outcome: Outcome = build_emulated(scop, cuda_source, host_function)(
        values, actual, timeout=timeout, env=emulation_env())
    comparisons = tuple(compare_arrays(a.name, expected[a.name], actual[a.name], rtol)
                        for a in Signature.of(scop).arrays if not a.dead_after)
    return EmulationReport(scop.name, values, seed, comparisons, outcome.live_allocations,
                           outcome.output, scop.location)


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
    """Build a whole program: the emitted .cu with g++ and the emulation header
    (``emulate``), or the original C with gcc; the extra C sources are linked in."""
    objects = _c_objects(build)
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
                      rtol: float | None = None) -> list[EmulationReport]:
    """Emulate every SCoP of a kernel description (``Generated.description``) against
    its original code; ``params`` may fix parameters of any of them."""
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
                                    params=fixed, limit=limit, seed=seed, rtol=rtol))
    return reports


def emulate_file(path: str, options: Options, *, params: Mapping[str, int] | None = None,
                 limit: int = DEFAULT_PARAMETER_LIMIT, seed: int | None = None,
                 rtol: float | None = None) -> list[EmulationReport]:
    """Compile a C file with polycu and emulate every SCoP against its original code."""
    from ..codegen import compile_file
    from ..frontend.load import load_file
    generated = compile_file(path, options)
    scops = load_file(path, defines=options.define, includes=options.include_dir,
                      undefines=options.undefine, auto=options.auto_scop, ctx=options.ctx)
    return emulate_generated(scops, generated.description, params=params, limit=limit,
                             seed=seed, rtol=rtol)


def report_files(files: Sequence[str], reports_of: Callable[[str], list[EmulationReport]],
                 what: str) -> int:
    """Print every SCoP's comparison; the first mismatch (or device allocation never
    freed) becomes an error naming the wrong index and the seed that reproduces it.
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
        wrong = first.first_failure
        detail = wrong.describe() if wrong else f"{first.live_allocations} device " \
                                                "allocation(s) never freed"
        raise error(f"{first.scop}: {what} differ from the CPU reference: {detail} "
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
