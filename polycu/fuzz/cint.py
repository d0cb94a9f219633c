"""C's integer types on LP64 and the arithmetic the generated programs do on them.

In:  type names as the programs spell them (``"short"``, ``"unsigned long"``, ...)
and Python integers.
Out: widths, signedness and ranks; ``promote`` (the integer promotions),
``common_type`` (the usual arithmetic conversions), ``convert`` (a value converted
to a type: unsigned types wrap; a narrow or 64-bit signed type takes the value
modulo 2^N in two's complement, which C leaves to the implementation and gcc
defines so), and ``arith`` (``+ - * / % & | ^ << >>`` with ``Invalid`` where C's
behaviour is undefined: signed overflow, division by zero, a shift count out of
range, a left shift of a negative value or one whose result does not fit).

``interpret.Machine`` runs the programs with these rules; they are kept apart from
the interpreter so that every rule on integers is in one place and can be checked
against gcc on its own.  Floating types have no value here (None).
"""
from __future__ import annotations

from .program import FLOAT_TYPES, Invalid

#: width in bits of every integer type (LP64: long is 64 bits)
BITS = {"signed char": 8, "unsigned char": 8, "short": 16, "unsigned short": 16,
        "int": 32, "unsigned": 32, "long": 64, "unsigned long": 64,
        "long long": 64, "unsigned long long": 64}
SIGNED = {t: not t.startswith("unsigned") for t in BITS}
#: integer conversion rank (C99 6.3.1.1): long long outranks long of the same width
RANK = {"signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 3,
        "unsigned": 3, "long": 4, "unsigned long": 4, "long long": 5,
        "unsigned long long": 5}
UNSIGNED_OF = {"int": "unsigned", "long": "unsigned long", "long long": "unsigned long long"}


def limits(t: str) -> tuple[int, int]:
    """The least and greatest value of integer type ``t``."""
    bits = BITS[t]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if SIGNED[t] else (0, (1 << bits) - 1)


def promote(t: str) -> str:
    """The integer promotions: every type of lower rank than int becomes int (int
    holds all their values on this target)."""
    return "int" if t in RANK and RANK[t] < RANK["int"] else t


def common_type(a: str, b: str) -> str:
    """C's usual arithmetic conversions (C99 6.3.1.8) on LP64."""
    if "double" in (a, b):
        return "double"
    if "float" in (a, b):
        return "float"
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if SIGNED[a] == SIGNED[b]:
        return a if RANK[a] > RANK[b] else b
    u, s = (b, a) if SIGNED[a] else (a, b)
    if RANK[u] >= RANK[s]:
        return u
    if BITS[s] > BITS[u]:
        return s                # e.g. long holds every unsigned int
    return UNSIGNED_OF[s]       # e.g. long long with unsigned long


def convert(value: int | None, to: str) -> int | None:
    """``value`` converted to type ``to`` (integers wrap, as gcc does)."""
    if to in FLOAT_TYPES:
        return None
    if value is None:
        raise AssertionError("floating value converted to an integer type")
    bits = BITS[to]
    value %= 1 << bits
    if SIGNED[to] and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def checked(value: int, type_: str, what: str) -> int:
    """``value`` as the result of an operation in ``type_``: ``Invalid`` when a signed
    type cannot hold it, wrapped for an unsigned type."""
    if SIGNED[type_]:
        lo, hi = limits(type_)
        if not lo <= value <= hi:
            raise Invalid(f"signed overflow in {what}: {value} does not fit {type_}")
        return value
    return value % (1 << BITS[type_])


def c_div(a: int, b: int) -> int:
    """C's division, truncating toward zero."""
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def shift(op: str, ta: str, a: int, b: int) -> tuple[str, int]:
    """``a << b`` or ``a >> b``: the type is the promoted left operand's alone (not a
    common type); the count must lie in [0, width); a signed left shift needs a
    non-negative value whose product by 2^b fits.  ``>>`` of a negative value is
    implementation-defined, an arithmetic shift in gcc (Python's ``>>`` too)."""
    t = promote(ta)
    a = convert(a, t)
    if not 0 <= b < BITS[t]:
        raise Invalid(f"shift count {b} out of range for {t}")
    if op == ">>":
        return t, a >> b
    if SIGNED[t] and a < 0:
        raise Invalid(f"left shift of a negative value ({a}) in {t}")
    return t, checked(a << b, t, "<<")


def arith(op: str, ta: str, a: int | None, tb: str, b: int | None) -> tuple[str, int | None]:
    """The binary operation ``op`` on operands of types ``ta`` and ``tb``: its type
    and value (None for a floating result)."""
    if op in ("<<", ">>"):
        if a is None or b is None:
            raise AssertionError("floating operand of a shift")
        return shift(op, ta, a, b)
    t = common_type(ta, tb)
    if t in FLOAT_TYPES:
        return t, None
    a, b = convert(a, t), convert(b, t)
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b
    elif op in ("&", "|", "^"):
        # two's complement bits, as Python's operators on negative integers
        r = a & b if op == "&" else a | b if op == "|" else a ^ b
    elif op in ("/", "%"):
        if b == 0:
            raise Invalid("division by zero")
        q = c_div(a, b)
        if op == "/":
            r = q
        else:
            checked(q, t, "%")
            r = a - q * b
    else:
        raise AssertionError(op)
    return t, checked(r, t, op)


def complement(t: str, a: int) -> tuple[str, int]:
    """``~a``: on the promoted type, never undefined."""
    t = promote(t)
    return t, convert(~convert(a, t), t)


def negate(t: str, a: int) -> tuple[str, int]:
    """``-a``: on the promoted type; overflow of a signed type is undefined."""
    t = promote(t)
    return t, checked(-convert(a, t), t, "unary minus")


def compare(op: str, ta: str, a: int | None, tb: str, b: int | None) -> int:
    """``a op b`` for a relational or equality operator: 1 or 0, compared in the
    common type (so ``-1 < 0u`` is 0)."""
    t = common_type(ta, tb)
    if t in FLOAT_TYPES:
        raise AssertionError("floating comparison in control")
    a, b = convert(a, t), convert(b, t)
    return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b,
                "!=": a != b}[op])
