"""C expressions to isl affine objects, with C's semantics.

In:  a pycparser expression and an ``AffineEnv`` (loop iterators, parameter oracle).
Out: an ``isl.PwAff`` on the set space ``[p] -> { [i_1, ..., i_d] }`` or an ``isl.Set``
for conditions.

``e / c`` and ``e % c`` with a constant ``c`` follow C (truncation toward zero):
``trunc(e / c) = floor(e / c)`` where ``e >= 0`` and ``-floor(-e / c)`` elsewhere, which
is isl's ``tdiv_q``; likewise ``e % c = e - c * trunc(e / c)`` is ``tdiv_r``.  Nothing is
assumed about the sign of ``e``: isl keeps both pieces and simplifies with the domain.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import islpy as isl
from pycparser import c_ast

from ..diagnostics import Location

CTX = isl.DEFAULT_CONTEXT


class NotAffine(Exception):
    """``node`` (a part of the expression) cannot be represented; ``what`` says why."""

    def __init__(self, node: c_ast.Node, what: str):
        super().__init__(what)
        self.node = node
        self.what = what

    @property
    def location(self) -> Location:
        return Location.from_coord(self.node.coord)


@dataclass(frozen=True)
class AffineEnv:
    """What names mean inside an affine expression.

    ``iterators`` are the enclosing loop counters (outer first): the set dimensions.
    ``param`` is asked about every other identifier; it returns True when the name
    may be a symbolic constant of the SCoP (it records it) and False otherwise.
    """

    iterators: tuple[str, ...]
    param: Callable[[str], bool]

    def space(self) -> isl.Space:
        return isl.Space.create_from_names(CTX, set=list(self.iterators))

    def universe(self) -> isl.Set:
        return isl.Set.universe(self.space())

    def constant(self, value: int) -> isl.PwAff:
        ls = isl.LocalSpace.from_space(self.space())
        return isl.PwAff.from_aff(isl.Aff.val_on_domain(ls, isl.Val.int_from_si(CTX, value)))

    def variable(self, name: str) -> isl.PwAff:
        ls = isl.LocalSpace.from_space(self.space())
        return isl.PwAff.var_on_domain(ls, isl.dim_type.set, self.iterators.index(name))

    def parameter(self, name: str) -> isl.PwAff:
        space = isl.Space.create_from_names(CTX, set=list(self.iterators), params=[name])
        ls = isl.LocalSpace.from_space(space)
        return isl.PwAff.var_on_domain(ls, isl.dim_type.param, 0)


def int_constant(node: c_ast.Node) -> int | None:
    """The value of an integer literal (decimal, octal or hex, any suffix), else None."""
    if isinstance(node, c_ast.Constant) and ("int" in node.type or "long" in node.type
                                             or "unsigned" in node.type):
        text = node.value.rstrip("uUlL")
        if text.lower().startswith("0x"):
            return int(text, 16)
        return int(text, 8) if len(text) > 1 and text.startswith("0") else int(text)
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        inner = int_constant(node.expr)
        return None if inner is None else -inner
    return None


_INT_CASTS = {"int", "long", "short", "unsigned", "signed", "char", "size_t", "ptrdiff_t",
              "int32_t", "int64_t", "uint32_t", "uint64_t", "intptr_t"}


def to_pwaff(node: c_ast.Node, env: AffineEnv) -> isl.PwAff:
    """Translate an integer C expression to a piecewise quasi-affine function."""
    value = int_constant(node)
    if value is not None:
        return env.constant(value)
    if isinstance(node, c_ast.ID):
        if node.name in env.iterators:
            return env.variable(node.name)
        if env.param(node.name):
            return env.parameter(node.name)
        raise NotAffine(node, f"'{node.name}' is not a loop iterator or a parameter of the SCoP")
    if isinstance(node, c_ast.UnaryOp):
        if node.op == "-":
            return to_pwaff(node.expr, env).neg()
        if node.op == "+":
            return to_pwaff(node.expr, env)
        if node.op in ("++", "--", "p++", "p--"):
            raise NotAffine(node, "increment or decrement inside an expression")
        raise NotAffine(node, f"operator '{node.op}' in an affine expression")
    if isinstance(node, c_ast.Cast):
        names = set(getattr(getattr(node.to_type.type, "type", None), "names", []) or [])
        if names and names <= _INT_CASTS:
            return to_pwaff(node.expr, env)
        raise NotAffine(node, "cast to a non-integer type in an affine expression")
    if isinstance(node, c_ast.BinaryOp):
        return _binary(node, env)
    if isinstance(node, c_ast.TernaryOp):
        cond = to_set(node.cond, env)
        then = to_pwaff(node.iftrue, env).intersect_domain(cond)
        other = to_pwaff(node.iffalse, env).intersect_domain(cond.complement())
        return then.union_add(other).coalesce()
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name in ("min", "max", "MIN", "MAX", "floord", "ceild") \
            and node.args is not None and len(node.args.exprs) == 2:
        a, b = (to_pwaff(e, env) for e in node.args.exprs)
        name = node.name.name.lower()
        if name in ("min", "max"):
            return a.min(b) if name == "min" else a.max(b)
        _constant_of(b, node.args.exprs[1])
        return a.div(b).floor() if name == "floord" else a.div(b).ceil()
    if isinstance(node, c_ast.ArrayRef):
        raise NotAffine(node, "array element in an affine expression (data-dependent)")
    if isinstance(node, c_ast.FuncCall):
        raise NotAffine(node, "function call in an affine expression")
    if isinstance(node, c_ast.Constant):
        raise NotAffine(node, f"{node.type} constant in an affine expression")
    raise NotAffine(node, f"{type(node).__name__} in an affine expression")


def _constant_of(pa: isl.PwAff, node: c_ast.Node) -> int:
    if not pa.is_cst():
        raise NotAffine(node, "multiplication or division by a non-constant")
    values: list[int] = []
    pa.foreach_piece(lambda _s, aff: values.append(aff.get_constant_val().to_python()))
    if len(set(values)) != 1:
        raise NotAffine(node, "non-constant divisor or factor")
    return int(values[0])


def _binary(node: c_ast.BinaryOp, env: AffineEnv) -> isl.PwAff:
    op = node.op
    if op in ("+", "-", "*", "/", "%"):
        left, right = to_pwaff(node.left, env), to_pwaff(node.right, env)
        if op == "+":
            return left.add(right)
        if op == "-":
            return left.sub(right)
        if op == "*":
            if left.is_cst() or right.is_cst():
                return left.mul(right)
            raise NotAffine(node, "product of two non-constant terms is not affine")
        divisor = _constant_of(right, node.right)
        if divisor == 0:
            raise NotAffine(node, "division by zero")
        sign = -1 if divisor < 0 else 1
        den = env.constant(abs(divisor))
        if op == "/":
            quotient = left.tdiv_q(den)
            return quotient.neg() if sign < 0 else quotient
        return left.tdiv_r(den)  # C: the remainder has the sign of the dividend
    raise NotAffine(node, f"operator '{op}' in an affine expression")


_COMPARE = {"<": "lt_set", "<=": "le_set", ">": "gt_set", ">=": "ge_set",
            "==": "eq_set", "!=": "ne_set"}


def to_set(node: c_ast.Node, env: AffineEnv) -> isl.Set:
    """Translate a C condition (comparisons, ``&&``, ``||``, ``!``) to the set where it holds."""
    if isinstance(node, c_ast.BinaryOp) and node.op in _COMPARE:
        left, right = to_pwaff(node.left, env), to_pwaff(node.right, env)
        return getattr(left, _COMPARE[node.op])(right)
    if isinstance(node, c_ast.BinaryOp) and node.op == "&&":
        return to_set(node.left, env).intersect(to_set(node.right, env))
    if isinstance(node, c_ast.BinaryOp) and node.op == "||":
        return to_set(node.left, env).union(to_set(node.right, env)).coalesce()
    if isinstance(node, c_ast.UnaryOp) and node.op == "!":
        return to_set(node.expr, env).complement()
    value = to_pwaff(node, env)
    return value.ne_set(env.constant(0))
