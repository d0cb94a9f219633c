"""Whether the host's C evaluation of an ``Expr`` is exact: no operation of it
overflows its C type for any value of the parameters within their types.

In:  an ``Expr`` (``nodes.py``) over the SCoP's parameters, the parameters' ranges
     and the type the host declares them in (``cuda.index_type``).
Out: True when every operation's value, bounded by interval arithmetic, fits the
     type C computes it in (``int``, or ``long long`` once an operand is); or the
     condition itself, its comparisons in 128 bits where that is not so.

isl states its conditions over the integers; C computes them in fixed width.  A
condition that isl derives near the ends of a 64-bit parameter's range
(``9223372036854775806 - m + n >= 0``, fuzz seed 5631513) overflows in C for some
values and would then take the wrong branch; in 128 bits it does not.
"""
from __future__ import annotations

from typing import Mapping

from ..frontend.ctype import INT, LLONG, model_range, parse_type
from ..model import Scop
from .cuda import index_type
from .literals import BIG_LITERAL, widened_comparisons
from .nodes import Expr

# (low, high, wide): the values an expression takes and whether C computes it in
# long long (a long long operand, or a literal printed with LL: literals.literal).
_Range = tuple[int, int, bool]


class _Overflow(Exception):
    """An operation whose value may leave its C type."""


def exact_in_c(e: Expr, ranges: Mapping[str, tuple[int, int]], wide_names: bool) -> bool:
    """Whether evaluating ``e`` in C, its names of type ``long long`` (``wide_names``)
    or ``int`` and ranging over ``ranges``, overflows nowhere."""
    try:
        _range(e, ranges, wide_names)
    except _Overflow:
        return False
    return True


def parameter_bounds(scop: Scop) -> dict[str, tuple[int, int]]:
    """The values each integer parameter can take in the model (``ctype.model_range``)."""
    types = {p: parse_type(scop.parameter_type(p)) for p in scop.parameters}
    return {p: model_range(t) for p, t in types.items() if t is not None and not t.floating}


def exactly(e: Expr, scop: Scop) -> Expr:
    """``e``, a condition on the SCoP's parameters that the host computes, or ``e`` with
    its comparisons in 128 bits where its C evaluation could overflow (an assumption
    ``n <= 9223372036854775806 + m`` of a long m, fuzz seed 5631513)."""
    if exact_in_c(e, parameter_bounds(scop), index_type(scop) != "int"):
        return e
    return widened_comparisons(e)


def _checked(low: int, high: int, wide: bool) -> _Range:
    computed = LLONG if wide else INT
    if low < computed.minimum or high > computed.maximum:
        raise _Overflow
    return low, high, wide


# [a, b] op [c, d] by the extremes of op over the four corners (add, sub, mul are
# monotone in each argument); a division or remainder only by a positive constant,
# as isl prints them.
def _range(e: Expr, ranges: Mapping[str, tuple[int, int]], wide_names: bool) -> _Range:
    if e.op == "int":
        value = int(e.value)  # type: ignore[arg-type]
        return _checked(value, value, abs(value) > BIG_LITERAL)
    if e.op == "id":
        if e.value not in ranges:
            raise _Overflow
        return _checked(*ranges[str(e.value)], wide_names)
    args = [_range(a, ranges, wide_names) for a in e.args]
    wide = any(a[2] for a in args)
    if e.op == "minus":
        return _checked(-args[0][1], -args[0][0], wide)
    if e.op in ("add", "sub", "mul"):
        low, high, _ = args[0]
        for a, b, _ in args[1:]:
            corners = [_apply(e.op, x, y) for x in (low, high) for y in (a, b)]
            low, high, _ = _checked(min(corners), max(corners), wide)
        return low, high, wide
    if e.op in ("min", "max"):
        return (min(a[0] for a in args) if e.op == "min" else max(a[0] for a in args),
                min(a[1] for a in args) if e.op == "min" else max(a[1] for a in args), wide)
    if e.op in ("div", "pdiv_q", "fdiv_q", "pdiv_r", "zdiv_r"):
        divisor = args[1]
        if divisor[0] != divisor[1] or divisor[0] <= 0:
            raise _Overflow
        if e.op in ("pdiv_r", "zdiv_r"):
            return -(divisor[0] - 1), divisor[0] - 1, wide
        if e.op == "fdiv_q" and args[0][0] < 0:     # polycu_floord: -(-n + d - 1) / d
            _checked(0, -args[0][0] + divisor[0] - 1, wide)
        return args[0][0] // divisor[0], args[0][1] // divisor[0] + 1, wide
    if e.op == "cond":
        return min(args[1][0], args[2][0]), max(args[1][1], args[2][1]), wide
    if e.op in ("and", "or", "eq", "le", "lt", "ge", "gt"):
        return 0, 1, False
    raise _Overflow


def _apply(op: str, x: int, y: int) -> int:
    return x + y if op == "add" else x - y if op == "sub" else x * y
