"""Work figures of a SCoP at given sizes: flops, compulsory bytes, roofline.

In:  a ``Scop`` and integer values for its parameters.
Out: ``Work`` (exact flop and element counts) and, with a measured time and the
device's ceilings, ``Figures`` (GFLOP/s, GB/s, minimum time, roofline fraction).

* flops = sum over statements S of ops(S) * |D_S(p)|, where |D_S(p)| is the
  number of integer points of the domain with the parameters fixed, counted
  exactly by isl, and ops(S) counts, on floating-point operands, each binary
  ``+ - * /`` (a compound assignment counts its operator), each comparison
  ``< <= > >=`` and each math call.  Unary minus, conversions, index and integer
  arithmetic are free; in ``c ? a : b`` the branches' sub-expressions already
  computed by ``c`` (a min/max) are not counted again.  These are the
  conventions of ``scripts/polybench_facts.py`` restricted to floating point;
* compulsory traffic = sum over arrays A of size(A) * (|I_A| + |W_A|): I_A are
  the live-in elements (read before any write of the SCoP, from the exact
  dataflow of ``deps``), which must come from memory once, and W_A the elements
  written, which must reach memory once.  The footprint (distinct elements read
  or written, the ``elements`` of ``scripts/polybench_facts.py``) is kept beside;
* minimum time = traffic / measured copy bandwidth; the roofline bound is
  max(flops / peak, traffic / bandwidth) and the roofline fraction bound / time.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import islpy as isl
from pycparser import c_ast, c_generator

from ..deps import Dependences, compute_dependences
from ..model import Scop, Statement

# Size in bytes of the C element types a SCoP may use (scalars are 0-d arrays).
C_TYPE_SIZES: dict[str, int] = {
    "double": 8, "float": 4, "long double": 16,
    "char": 1, "signed char": 1, "unsigned char": 1, "_Bool": 1,
    "short": 2, "unsigned short": 2, "int": 4, "unsigned": 4, "unsigned int": 4,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8,
}
FLOATING_TYPES = frozenset({"double", "float", "long double"})
_ARITHMETIC = frozenset({"+", "-", "*", "/"})


def element_size(c_type: str) -> int:
    """Bytes of one element of ``c_type`` (``'double'`` -> 8)."""
    try:
        return C_TYPE_SIZES[" ".join(c_type.split())]
    except KeyError:
        raise ValueError(f"unknown element type '{c_type}'") from None


# -- flops per statement instance ------------------------------------------------

_COUNTED = frozenset({"+", "-", "*", "/", "<", "<=", ">", ">="})
_GENERATOR = c_generator.CGenerator()


class _FlopCounter:
    """Counts the floating-point operations of one expression tree.

    Types are inferred bottom-up: array elements (and 0-d scalars) have their
    declared type, other identifiers are loop iterators or parameters (int),
    constants carry their literal type, a cast its target, a math call returns
    floating point.  Subscripts are address arithmetic and never visited.
    """

    def __init__(self, types: Mapping[str, str], known: frozenset[str] = frozenset()):
        self.types = types
        self.known = known  # texts of sub-expressions computed already (by a condition)
        self.count = 0

    def visit(self, node: c_ast.Node) -> bool:
        """Count the operations under ``node``; True when its value is floating."""
        if _GENERATOR.visit(node) in self.known:
            return self._floating(node)
        if isinstance(node, c_ast.Assignment):
            target, value = self.visit(node.lvalue), self.visit(node.rvalue)
            if node.op != "=" and node.op[:-1] in _ARITHMETIC and (target or value):
                self.count += 1
            return target
        if isinstance(node, c_ast.BinaryOp):
            floating = self.visit(node.left) | self.visit(node.right)
            if node.op in _COUNTED:
                self.count += floating
            return floating and node.op in _ARITHMETIC
        if isinstance(node, c_ast.UnaryOp):
            floating = self.visit(node.expr)
            return floating and node.op in ("-", "+")
        if isinstance(node, c_ast.TernaryOp):
            self.visit(node.cond)
            known = self.known | _subexpressions(node.cond)
            branches = [_FlopCounter(self.types, known) for _ in range(2)]
            floating = branches[0].visit(node.iftrue) | branches[1].visit(node.iffalse)
            self.count += max(b.count for b in branches)
            return floating
        if isinstance(node, c_ast.Cast):
            self.visit(node.expr)
            return self._floating(node)
        if isinstance(node, c_ast.FuncCall):
            for arg in node.args.exprs if node.args else ():
                self.visit(arg)
            self.count += 1
            return True
        if isinstance(node, c_ast.ExprList):
            return [self.visit(e) for e in node.exprs][-1] if node.exprs else False
        if isinstance(node, (c_ast.ArrayRef, c_ast.ID, c_ast.Constant)):
            return self._floating(node)
        raise ValueError(f"cannot count the operations of a {type(node).__name__}")

    def _floating(self, node: c_ast.Node) -> bool:
        """Type of a leaf (or of an expression counted already) without counting."""
        if isinstance(node, c_ast.ArrayRef):
            return self.types.get(_array_name(node), "int") in FLOATING_TYPES
        if isinstance(node, c_ast.ID):
            return self.types.get(node.name, "int") in FLOATING_TYPES
        if isinstance(node, c_ast.Constant):
            return node.type in FLOATING_TYPES
        if isinstance(node, c_ast.Cast):
            return _type_name(node.to_type) in FLOATING_TYPES
        return _FlopCounter(self.types).visit(node)


def _subexpressions(node: c_ast.Node) -> frozenset[str]:
    """Texts of the operations inside ``node`` (its leaves excluded)."""
    found = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (c_ast.BinaryOp, c_ast.FuncCall, c_ast.UnaryOp, c_ast.Cast)):
            found.add(_GENERATOR.visit(current))
        if not isinstance(current, c_ast.ArrayRef):
            stack.extend(child for _, child in current.children())
    return frozenset(found)


def _array_name(node: c_ast.ArrayRef) -> str:
    while isinstance(node, c_ast.ArrayRef):
        node = node.name
    return node.name if isinstance(node, c_ast.ID) else ""


def _type_name(decl: c_ast.Typename) -> str:
    inner = decl.type
    if isinstance(inner, c_ast.TypeDecl) and isinstance(inner.type, c_ast.IdentifierType):
        return " ".join(inner.type.names)
    return ""


def statement_flops(scop: Scop, statement: Statement) -> int:
    """Floating-point operations of one instance of ``statement``."""
    counter = _FlopCounter({a.name: a.element_type for a in scop.arrays})
    counter.visit(statement.body)
    return counter.count


# -- exact counting with isl ---------------------------------------------------------

def fix_parameters(obj: isl.Set | isl.Map, values: Mapping[str, int]) -> isl.Set | isl.Map:
    """``obj`` with every parameter fixed to its value (all must be given)."""
    for pos in range(obj.dim(isl.dim_type.param)):
        name = obj.get_dim_name(isl.dim_type.param, pos)
        if name not in values:
            raise KeyError(f"no value for parameter '{name}'")
        obj = obj.fix_val(isl.dim_type.param, pos, isl.Val.int_from_si(obj.get_ctx(),
                                                                           int(values[name])))
    return obj


def count_points(points: isl.Set) -> int:
    """Exact number of integer points of a bounded, parameter-free set.

    isl's ``count_val`` scans every row of the set; a set that is the product of
    its first dimension's range and the rest (a time loop around a stencil, the
    outer loop of a rectangular nest) is counted as that product, which keeps the
    scan to the rows of the smallest factor.
    """
    points = points.reset_tuple_id().coalesce()
    if points.is_empty():
        return 0
    n = points.dim(isl.dim_type.set)
    if n >= 2:
        head = points.project_out(isl.dim_type.set, 1, n - 1)
        tail = points.project_out(isl.dim_type.set, 0, 1)
        if head.flat_product(tail).is_equal(points):
            return count_points(head) * count_points(tail)
    value = points.count_val()
    assert value.is_int(), f"unbounded set {points}"
    return int(value.to_python())


@dataclass(frozen=True)
class ArrayTraffic:
    """Distinct elements of one array: live-in, written, and touched at all."""

    array: str
    element_size: int
    live_in: int
    written: int
    touched: int
    scalar: bool


@dataclass(frozen=True)
class Work:
    """Exact work of one SCoP at fixed sizes."""

    parameters: tuple[tuple[str, int], ...]
    points: tuple[tuple[str, int], ...]               # statement -> |D_S|
    flops_per_instance: tuple[tuple[str, int], ...]   # statement -> ops(S)
    arrays: tuple[ArrayTraffic, ...]
    floating_type: str | None                         # 'double' when any array is double

    @property
    def flops(self) -> int:
        ops = dict(self.flops_per_instance)
        return sum(n * ops[s] for s, n in self.points)

    @property
    def bytes(self) -> int:
        """Compulsory traffic: live-in elements loaded once, written elements stored once."""
        return sum((a.live_in + a.written) * a.element_size for a in self.arrays)

    @property
    def footprint_bytes(self) -> int:
        """Bytes of the distinct elements touched."""
        return sum(a.touched * a.element_size for a in self.arrays)


def _images(accesses: isl.UnionMap, values: Mapping[str, int]) -> dict[str, isl.Set]:
    """Per array, the elements ``accesses`` reach, with the parameters fixed."""
    images: dict[str, isl.Set] = {}

    def add(image: isl.Set) -> None:
        name = image.get_tuple_name()
        image = fix_parameters(image, values)
        images[name] = images[name].union(image) if name in images else image

    accesses.range().foreach_set(add)
    return images


def scop_work(scop: Scop, values: Mapping[str, int],
              dependences: Dependences | None = None) -> Work:
    """Flops and compulsory traffic of ``scop`` with its parameters set to ``values``."""
    points, ops = [], []
    for s in scop.statements:
        domain = fix_parameters(s.domain.intersect_params(scop.context), values)
        points.append((s.name, count_points(domain)))
        ops.append((s.name, statement_flops(scop, s)))
    dependences = dependences or compute_dependences(scop)
    live_in = _images(dependences.live_in, values)
    written = _images(scop.may_writes(), values)
    read = _images(scop.reads(), values)
    arrays = []
    for array in scop.arrays:
        touched = [f[array.name] for f in (read, written) if array.name in f]
        if array.local or not touched:
            continue
        arrays.append(ArrayTraffic(
            array.name, element_size(array.element_type),
            live_in=count_points(live_in[array.name]) if array.name in live_in else 0,
            written=count_points(written[array.name]) if array.name in written else 0,
            touched=count_points(touched[0].union(touched[-1])), scalar=array.is_scalar))
    floating = [a.element_type for a in scop.arrays if a.element_type in FLOATING_TYPES]
    return Work(
        parameters=tuple((p, int(values[p])) for p in scop.parameters),
        points=tuple(points),
        flops_per_instance=tuple(ops),
        arrays=tuple(arrays),
        floating_type=("double" if "double" in floating else floating[0]) if floating else None,
    )


# -- figures from a measured time ------------------------------------------------------

@dataclass(frozen=True)
class Ceilings:
    """Measured limits of a device (see ``polycu device``): bytes/s and flop/s."""

    device: str
    copy_bandwidth: float
    fp64_peak: float
    fp32_peak: float

    def peak(self, floating_type: str | None) -> float:
        return self.fp32_peak if floating_type == "float" else self.fp64_peak


@dataclass(frozen=True)
class Figures:
    """Rates of one measured run and how far it is from the device's limits."""

    seconds: float
    gflops: float
    gbytes: float           # GB/s of compulsory traffic
    minimum_seconds: float  # compulsory bytes at the measured copy bandwidth
    ratio_to_minimum: float  # seconds / minimum_seconds (>= 1 unless caches help)
    roofline_fraction: float  # roofline bound / seconds (<= 1 unless caches help)


def figures(work: Work, seconds: float, ceilings: Ceilings) -> Figures:
    """GFLOP/s, GB/s, minimum time and roofline fraction of a run of ``seconds``."""
    if seconds <= 0:
        raise ValueError("a measured time must be positive")
    minimum = work.bytes / ceilings.copy_bandwidth
    bound = max(minimum, work.flops / ceilings.peak(work.floating_type))
    return Figures(
        seconds=seconds,
        gflops=work.flops / seconds / 1e9,
        gbytes=work.bytes / seconds / 1e9,
        minimum_seconds=minimum,
        ratio_to_minimum=seconds / minimum if minimum else float("inf"),
        roofline_fraction=bound / seconds,
    )
