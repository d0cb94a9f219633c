"""C expressions to isl affine objects, with C's semantics.

In:  a pycparser expression and an ``AffineEnv`` (loop iterators and their C types,
parameter oracle, the set where the expression is evaluated).
Out: an ``isl.PwAff`` on the set space ``[p] -> { [i_1, ..., i_d] }`` or an ``isl.Set``
for conditions.

Every subexpression has a C type (``ctype.py``): operands are converted by the
usual arithmetic conversions before an operator applies, casts convert, and a
value of an unsigned type is reduced modulo ``2^w`` when it may leave
``[0, 2^w)`` on the evaluation set (so ``(unsigned)(i - 3) < 4u`` is
``(i - 3) mod 2^32 < 4``, i.e. ``3 <= i <= 6``).  Whether a reduction is needed is
decided exactly with isl over the evaluation set, where every variable also lies
in the range of its type; no reduction is printed for values that stay in range.

``e / c`` and ``e % c`` with a constant ``c`` follow C (truncation toward zero):
``trunc(e / c) = floor(e / c)`` where ``e >= 0`` and ``-floor(-e / c)`` elsewhere, which
is isl's ``tdiv_q``; likewise ``e % c = e - c * trunc(e / c)`` is ``tdiv_r``.  Nothing is
assumed about the sign of ``e``: isl keeps both pieces and simplifies with the domain.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

import islpy as isl
from pycparser import c_ast

from ..diagnostics import Location
from .ctype import (INT, Arith, common, literal_type, literal_value, parse_type, promote,
                    resolve_typedefs)

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


def _int_type(_name: str) -> Arith:
    return INT


@dataclass(frozen=True)
class AffineEnv:
    """What names mean inside an affine expression.

    ``iterators`` are the enclosing loop counters (outer first): the set dimensions.
    ``param`` is asked about every other identifier; it returns True when the name
    may be a symbolic constant of the SCoP (it records it) and False otherwise.
    ``type_of`` gives the C type of an iterator or a parameter; ``typedefs`` resolves
    type names in casts.  ``bounds`` (on the iterators' space, with parameters) is
    where the expression is evaluated: conversions are proven exact there.
    ``assume`` takes the parameter values under which a conversion to a signed type
    stays in range (out of range it is implementation-defined); without it such a
    conversion is modelled as gcc computes it.
    """

    iterators: tuple[str, ...]
    param: Callable[[str], bool]
    type_of: Callable[[str], Arith] = _int_type
    typedefs: Mapping[str, str] = field(default_factory=dict)
    bounds: isl.Set | None = None
    assume: Callable[[isl.Set], None] | None = None

    def space(self) -> isl.Space:
        return isl.Space.create_from_names(CTX, set=list(self.iterators))

    def universe(self) -> isl.Set:
        return isl.Set.universe(self.space())

    def constant(self, value: int) -> isl.PwAff:
        ls = isl.LocalSpace.from_space(self.space())
        return isl.PwAff.from_aff(isl.Aff.val_on_domain(ls, isl.Val(str(value), CTX)))

    def variable(self, name: str) -> isl.PwAff:
        ls = isl.LocalSpace.from_space(self.space())
        return isl.PwAff.var_on_domain(ls, isl.dim_type.set, self.iterators.index(name))

    def parameter(self, name: str) -> isl.PwAff:
        space = isl.Space.create_from_names(CTX, set=list(self.iterators), params=[name])
        ls = isl.LocalSpace.from_space(space)
        return isl.PwAff.var_on_domain(ls, isl.dim_type.param, 0)

    # The parameters of bounds too: in ``for (j = 2 * i; ...)`` over 2 <= i <= m, an
    # unsigned j's start 2 * i wraps for no int m; modelled modulo 2^32 instead, its
    # divisions made j's domain one that took isl minutes (fuzz seed 3400180).
    def type_range(self, value: isl.PwAff) -> isl.Set:
        """``bounds`` (or the universe) with every iterator and every parameter of
        ``value`` or ``bounds`` in the range of its C type."""
        result = self.bounds if self.bounds is not None else self.universe()
        names = {value.get_dim_name(isl.dim_type.param, k)
                 for k in range(value.dim(isl.dim_type.param))}
        names |= {result.get_dim_name(isl.dim_type.param, k)
                  for k in range(result.dim(isl.dim_type.param))}
        return self.within_types(result, sorted(names))

    def within_types(self, points: isl.Set, params: list[str] | None = None) -> isl.Set:
        """``points`` (on the iterators' space) with the iterators and ``params`` (all
        parameters of ``points`` when None) in the ranges of their C types."""
        if params is None:
            params = [points.get_dim_name(isl.dim_type.param, k)
                      for k in range(points.dim(isl.dim_type.param))]
        for name in params:
            points = points.intersect(_in_range(self.parameter(name), self.type_of(name), self))
        for name in self.iterators:
            points = points.intersect(_in_range(self.variable(name), self.type_of(name), self))
        return points


def _in_range(value: isl.PwAff, t: Arith, env: AffineEnv) -> isl.Set:
    low, high = env.constant(t.minimum), env.constant(t.maximum)
    return value.ge_set(low).intersect(value.le_set(high))


# (v : from) converted to type t is v where v lies in t's range on the evaluation set
# W, else v - 2^w k with k = floor((v - min_t) / 2^w) (C11 6.3.1.3; gcc's choice for
# signed targets, or an assumption on the parameters when the environment takes one).
# When k takes few values on W, one affine piece per value keeps the result free of
# the floor (isl would not drop it from later constraints).
def convert(value: isl.PwAff, source: Arith | None, target: Arith, env: AffineEnv,
            node: c_ast.Node) -> isl.PwAff:
    """``value`` (of C type ``source``; None: an exact result, e.g. of an unsigned
    operation before its reduction) converted to the integer type ``target``."""
    if target.floating:
        raise NotAffine(node, f"conversion to {target.name} in an affine expression")
    if source is not None and (target == source or (
            not source.floating and target.holds(source.minimum, source.maximum))):
        return value
    if target.bits == 1:
        raise NotAffine(node, "conversion to _Bool in an affine expression")
    where = env.type_range(value)
    outside = value.lt_set(env.constant(target.minimum)).union(
        value.gt_set(env.constant(target.maximum)))
    if outside.intersect(where).is_empty():
        return value
    excluded = outside.intersect(where).params()
    if target.signed and env.assume is not None and _only_unusual(excluded):
        # Out of range only for unusual parameter values (negative, or huge): assume
        # the others (the generated code checks the assumption at run time, like
        # Polly's) rather than model a wrap-around that loosens every bound.
        env.assume(excluded.complement())
        return value
    modulus = 1 << target.bits
    low = target.minimum
    wraps = value.sub(env.constant(low)).div(env.constant(modulus)).floor()
    values = isl.Map.from_pw_aff(wraps).intersect_domain(where).range()
    values = values.project_out(isl.dim_type.param, 0, values.dim(isl.dim_type.param))
    if values.is_bounded() and not values.is_empty():
        first, last = (_coordinate(values.lexmin()), _coordinate(values.lexmax()))
        if last - first < 4:
            result: isl.PwAff | None = None
            for k in range(first, last + 1):
                lo, hi = env.constant(low + k * modulus), env.constant(low + (k + 1) * modulus)
                piece = value.ge_set(lo).intersect(value.lt_set(hi)).intersect(where)
                part = value.sub(env.constant(k * modulus)).intersect_domain(piece)
                result = part if result is None else result.union_add(part)
            assert result is not None
            return result.coalesce()
    return value.sub(env.constant(low)).mod_val(isl.Val(str(modulus), CTX)).add(
        env.constant(low))


#: Parameters from 0 to this value are ordinary (sizes): a conversion that goes out
#: of range for some of them is part of the program's meaning, not an assumption.
ORDINARY = 1 << 20


def ordinary(params: isl.Set) -> isl.Set:
    """The points of ``params`` whose parameters all lie in [0, ORDINARY]."""
    box = isl.Set.universe(params.get_space())
    for k in range(params.dim(isl.dim_type.param)):
        name = params.get_dim_name(isl.dim_type.param, k)
        box = box.intersect(isl.Set(f"[{name}] -> {{ : 0 <= {name} <= {ORDINARY} }}"))
    return params.intersect(box)


def _only_unusual(params: isl.Set) -> bool:
    """Whether every point of ``params`` has a parameter outside [0, ORDINARY]."""
    return ordinary(params).is_empty()


def _coordinate(point_set: isl.Set) -> int:
    return point_set.sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()


def is_int_literal(node: c_ast.Node) -> bool:
    """Whether ``node`` is an integer literal (pycparser types ``12u`` "unsigned int")."""
    return isinstance(node, c_ast.Constant) and ("int" in node.type or "long" in node.type
                                                 or "unsigned" in node.type)


def int_constant(node: c_ast.Node) -> int | None:
    """The value of an integer literal (decimal, octal or hex, any suffix), else None."""
    if is_int_literal(node):
        return literal_value(node.value)
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        inner = int_constant(node.expr)
        return None if inner is None else -inner
    return None


def cast_type(node: c_ast.Cast, typedefs: Mapping[str, str]) -> Arith | None:
    """The arithmetic type a cast converts to (None: not arithmetic, e.g. a pointer)."""
    decl = node.to_type.type
    if not isinstance(decl, c_ast.TypeDecl) or not isinstance(decl.type, c_ast.IdentifierType):
        return None
    return parse_type(resolve_typedefs(decl.type.names, typedefs))


def to_pwaff(node: c_ast.Node, env: AffineEnv) -> isl.PwAff:
    """Translate an integer C expression to a piecewise quasi-affine function."""
    return typed(node, env)[0]


def typed(node: c_ast.Node, env: AffineEnv) -> tuple[isl.PwAff, Arith]:
    """An integer C expression as (its value, its C type)."""
    if is_int_literal(node):
        return env.constant(literal_value(node.value)), literal_type(node.value)
    if isinstance(node, c_ast.ID):
        if node.name in env.iterators:
            return env.variable(node.name), env.type_of(node.name)
        if env.param(node.name):
            return env.parameter(node.name), env.type_of(node.name)
        raise NotAffine(node, f"'{node.name}' is not a loop iterator or a parameter of the SCoP")
    if isinstance(node, c_ast.UnaryOp):
        if node.op in ("-", "+"):
            value, t = typed(node.expr, env)
            result_type = promote(t)
            value = convert(value, t, result_type, env, node)
            if node.op == "+":
                return value, result_type
            negated = value.neg()
            return (negated if result_type.signed
                    else convert(negated, None, result_type, env, node)), result_type
        if node.op in ("++", "--", "p++", "p--"):
            raise NotAffine(node, "increment or decrement inside an expression")
        raise NotAffine(node, f"operator '{node.op}' in an affine expression")
    if isinstance(node, c_ast.Cast):
        target = cast_type(node, env.typedefs)
        if target is None or target.floating:
            raise NotAffine(node, "cast to a non-integer type in an affine expression")
        value, t = typed(node.expr, env)
        return convert(value, t, target, env, node), target
    if isinstance(node, c_ast.BinaryOp):
        return _binary(node, env)
    if isinstance(node, c_ast.TernaryOp):
        cond = to_set(node.cond, env)
        (then, tt), (other, to) = typed(node.iftrue, env), typed(node.iffalse, env)
        t = common(tt, to)
        then = convert(then, tt, t, env, node).intersect_domain(cond)
        other = convert(other, to, t, env, node).intersect_domain(cond.complement())
        return then.union_add(other).coalesce(), t
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
            and node.name.name in ("min", "max", "MIN", "MAX", "floord", "ceild") \
            and node.args is not None and len(node.args.exprs) == 2:
        (a, ta), (b, tb) = (typed(e, env) for e in node.args.exprs)
        t = common(ta, tb)
        a, b = convert(a, ta, t, env, node), convert(b, tb, t, env, node)
        name = node.name.name.lower()
        if name in ("min", "max"):
            return (a.min(b) if name == "min" else a.max(b)), t
        _constant_of(b, node.args.exprs[1])
        return (a.div(b).floor() if name == "floord" else a.div(b).ceil()), t
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


def _operands(node: c_ast.BinaryOp, env: AffineEnv
              ) -> tuple[isl.PwAff, isl.PwAff, Arith]:
    """Both operands converted to their common type (the usual arithmetic conversions)."""
    (left, tl), (right, tr) = typed(node.left, env), typed(node.right, env)
    t = common(tl, tr)
    return convert(left, tl, t, env, node), convert(right, tr, t, env, node), t


def _binary(node: c_ast.BinaryOp, env: AffineEnv) -> tuple[isl.PwAff, Arith]:
    op = node.op
    if op not in ("+", "-", "*", "/", "%"):
        raise NotAffine(node, f"operator '{op}' in an affine expression")
    left, right, t = _operands(node, env)
    if op == "+":
        result = left.add(right)
    elif op == "-":
        result = left.sub(right)
    elif op == "*":
        if not (left.is_cst() or right.is_cst()):
            raise NotAffine(node, "product of two non-constant terms is not affine")
        result = left.mul(right)
    else:
        divisor = _constant_of(right, node.right)
        if divisor == 0:
            raise NotAffine(node, "division by zero")
        den = env.constant(abs(divisor))
        if op == "/":
            quotient = left.tdiv_q(den)
            result = quotient.neg() if divisor < 0 else quotient
        else:
            result = left.tdiv_r(den)  # C: the remainder has the sign of the dividend
    # Signed overflow is undefined (a valid program has none); unsigned wraps.
    if t.signed and t.bits == 64:
        _no_overflow(result, t, env)
    return (result if t.signed else convert(result, None, t, env, node)), t


# A valid program's 64-bit signed arithmetic stays in its type: where some value
# leaves it only for unusual parameter values (m - 4 for m below LLONG_MIN + 4), those
# values are assumed away, as for a conversion (``convert``).  Else the domain keeps
# points beyond 2^63 that C cannot reach, and the code isl writes for them needs
# constants no 64-bit type holds (fuzz seed 5632027: for (long i = m - 4; ...)).
def _no_overflow(result: isl.PwAff, t: Arith, env: AffineEnv) -> None:
    """Assume the parameter values at which ``result``, a value of the parameters
    alone, leaves ``t`` away (one over the iterators too, ``(m - i) + 1``, would bring
    the loops' bounds into the assumption: isl then writes ``m >= p -
    9223372036854775809`` in other conditions, fuzz seed 5634310)."""
    if env.assume is None or result.involves_dims(isl.dim_type.in_, 0,
                                                   result.dim(isl.dim_type.in_)):
        return
    where = env.type_range(result)
    outside = result.lt_set(env.constant(t.minimum)).union(
        result.gt_set(env.constant(t.maximum)))
    excluded = outside.intersect(where).params()
    if not excluded.is_empty() and _only_unusual(excluded):
        env.assume(excluded.complement())


_COMPARE = {"<": "lt_set", "<=": "le_set", ">": "gt_set", ">=": "ge_set",
            "==": "eq_set", "!=": "ne_set"}


def to_set(node: c_ast.Node, env: AffineEnv) -> isl.Set:
    """Translate a C condition (comparisons, ``&&``, ``||``, ``!``) to the set where it holds."""
    if isinstance(node, c_ast.BinaryOp) and node.op in _COMPARE:
        left, right, _ = _operands(node, env)
        return getattr(left, _COMPARE[node.op])(right)
    if isinstance(node, c_ast.BinaryOp) and node.op == "&&":
        return to_set(node.left, env).intersect(to_set(node.right, env))
    if isinstance(node, c_ast.BinaryOp) and node.op == "||":
        return to_set(node.left, env).union(to_set(node.right, env)).coalesce()
    if isinstance(node, c_ast.UnaryOp) and node.op == "!":
        return to_set(node.expr, env).complement()
    value = to_pwaff(node, env)
    return value.ne_set(env.constant(0))
