"""Integer constants of the generated code, and the C type each expression computes in.

In:  integer values and ``Expr`` trees (``nodes.py``).
Out: C literals (``long long`` past ``BIG_LITERAL``, none beyond it), and expressions
     rewritten to compute in ``polycu_i128`` where a constant lies near or beyond the
     ends of long long (``cuda.c_expr`` prints them).
"""
from __future__ import annotations

from .nodes import Expr

#: Literals beyond this magnitude print as ``long long`` (``2147483645LL``): isl's
#: guards and bounds carry C's type limits (``n + 2147483645 >= m``: a counter stops
#: before INT_MAX), and added to a parameter in ``int`` they would overflow (fuzz
#: seed 5602003: a final value never assigned).  In ``long long`` every such sum of
#: ``int`` values and literals below 2^62 is exact.
BIG_LITERAL = 1 << 30


def literal(value: int) -> str:
    """C text of an integer literal: ``long long`` past ``BIG_LITERAL``.  One beyond
    long long's range has no signed type in C++ (nvcc and g++ make 2^63 unsigned, so
    ``p >= 9223372036854775808LL`` holds for a negative p): never printed.  Nor is
    ``-9223372036854775808LL``, the negation of that unsigned literal: LLONG_MIN
    prints as ``(-9223372036854775807LL - 1)`` (fuzz seed 5622249, a guard of an
    unsigned counter whose bound is a ``long`` parameter)."""
    if not -(1 << 63) <= value < 1 << 63:
        raise OverflowError(f"internal error: the literal {value} is beyond long long "
                            "(the model should have left such values out)")
    if value == -(1 << 63):
        return f"({value + 1}LL - 1)"
    return f"{value}LL" if abs(value) > BIG_LITERAL else str(value)


#: The type of an expression with a constant beyond long long (the prologue's
#: typedef of ``__int128``, which nvcc compiles in device code too).
WIDEST = "polycu_i128"


def _beyond(e: Expr, limit: int = 1 << 63) -> bool:
    """Whether ``e`` has a literal of magnitude ``limit`` or more (the default: one
    that no C type below 128 bits holds, but -2^63)."""
    if e.op == "int":
        value = int(e.value)      # type: ignore[arg-type]
        return value >= limit or value < -limit
    return any(_beyond(a, limit) for a in e.args)


def near_the_ends(e: Expr) -> bool:
    """Whether comparison ``e`` computes in 64 bits a sum or product with a literal of
    magnitude 2^62 or more (``m + 9223372036854775806LL >= n``, which a long m > 1
    overflows), or needs a literal beyond 64 bits."""
    return _beyond(e) or (_beyond(e, 1 << 62) and
                          any(a.op not in ("int", "id") for a in e.args))


#: The comparison operators of ``Expr``.
COMPARISONS = ("eq", "le", "lt", "ge", "gt")


# isl derives such constants in conditions near the ends of a 64-bit parameter's range
# (fuzz seed 5631513: n + 18446744073709551612 >= 2 * m); the comparison is then
# computed in 128 bits, where no sum of 64-bit values overflows.  A value with one (a
# subscript, a bound) is left to ``literal``'s error: its schedule coordinates lie
# beyond 2^63 and its grid would be as large (fuzz seed 5632027, before the model
# assumed 64-bit arithmetic of the parameters not to overflow).
def widened(e: Expr) -> Expr:
    """``e`` with each name and literal converted to ``polycu_i128`` (leaves of C
    text) and min/max spelt as conditionals (CUDA's have no 128-bit overloads)."""
    if e.op == "id":
        return Expr.id_(f"(({WIDEST}){e.value})")
    if e.op == "int":
        value = int(e.value)      # type: ignore[arg-type]
        if -(1 << 63) <= value < 1 << 63:
            return Expr.id_(f"(({WIDEST}){literal(value)})")
        # no literal of 2^63 or more (C++ makes it unsigned): 32-bit digits
        high, low = divmod(value, 1 << 32)
        high, middle = divmod(high, 1 << 32)
        return Expr.id_(f"((({WIDEST}){high} * 4294967296 + {middle}) * 4294967296 + {low})")
    args = tuple(widened(a) for a in e.args)
    if e.op in ("min", "max"):
        result = args[0]
        for arg in args[1:]:
            result = Expr("cond", (Expr("lt" if e.op == "min" else "gt", (result, arg)),
                                   result, arg))
        return result
    return Expr(e.op, args, e.value)


def widened_comparisons(e: Expr) -> Expr:
    """``e`` with each comparison computed in ``polycu_i128`` (``overflow.py``: a
    condition whose 64-bit evaluation could overflow)."""
    if e.op in COMPARISONS:
        return widened(e)
    return Expr(e.op, tuple(widened_comparisons(a) for a in e.args), e.value)


def big(e: Expr) -> bool:
    """Whether ``e`` has a literal beyond ``BIG_LITERAL`` (its C type is then long long)."""
    if e.op == "int":
        return abs(int(e.value)) > BIG_LITERAL      # type: ignore[arg-type]
    return any(big(a) for a in e.args)
