"""C arithmetic types and the conversions C applies to them (C11 6.3).

In:  C type text as the frontend collects it (``unsigned int``, ``long``, ``size_t``
after typedef resolution, qualifiers included).
Out: ``Arith`` values and the rules the affine translator and the statement
printer need: integer promotion, the usual arithmetic conversions, the range of
each integer type, and conversion of a mathematical value to a type.

Integers are modelled as mathematical integers plus their type: a value of an
unsigned type of width ``w`` is reduced modulo ``2^w`` whenever an operation may
leave ``[0, 2^w)`` (C11 6.2.5p9); a value converted to a narrower signed type is
reduced into its range the way gcc does (implementation-defined in C); signed
overflow is undefined in C, so a valid program never has it and nothing is done.
The target is LP64 (x86-64 Linux and CUDA's host and device): ``long`` has 64 bits.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping


@dataclass(frozen=True)
class Arith:
    """An arithmetic type: integer (``bits``, ``signed``, conversion ``rank``) or
    floating (``bits``); ``name`` is its canonical C spelling."""

    name: str
    floating: bool
    bits: int
    signed: bool
    rank: int

    @property
    def minimum(self) -> int:
        assert not self.floating
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def maximum(self) -> int:
        assert not self.floating
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def holds(self, low: int, high: int) -> bool:
        """Whether every integer in ``[low, high]`` is a value of this type."""
        return not self.floating and self.minimum <= low and high <= self.maximum


def _int(name: str, bits: int, signed: bool, rank: int) -> Arith:
    return Arith(name, False, bits, signed, rank)


BOOL = _int("_Bool", 1, False, 0)
CHAR = _int("char", 8, True, 1)           # gcc on x86-64: plain char is signed
SCHAR = _int("signed char", 8, True, 1)
UCHAR = _int("unsigned char", 8, False, 1)
SHORT = _int("short", 16, True, 2)
USHORT = _int("unsigned short", 16, False, 2)
INT = _int("int", 32, True, 3)
UINT = _int("unsigned int", 32, False, 3)
LONG = _int("long", 64, True, 4)
ULONG = _int("unsigned long", 64, False, 4)
LLONG = _int("long long", 64, True, 5)
ULLONG = _int("unsigned long long", 64, False, 5)
FLOAT = Arith("float", True, 32, True, 10)
DOUBLE = Arith("double", True, 64, True, 11)
LDOUBLE = Arith("long double", True, 80, True, 12)

_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__", "register",
               "static", "extern", "auto", "inline"}

#: Names that survive when the frontend could not resolve a typedef (no header).
_NAMED = {"size_t": ULONG, "ptrdiff_t": LONG, "intptr_t": LONG, "uintptr_t": ULONG,
          "ssize_t": LONG, "int8_t": SCHAR, "uint8_t": UCHAR, "int16_t": SHORT,
          "uint16_t": USHORT, "int32_t": INT, "uint32_t": UINT, "int64_t": LONG,
          "uint64_t": ULONG, "bool": BOOL}


#: Generated code computes with parameters as ``long long``: the model assumes that
#: a 64-bit unsigned value stays below 2^63.
LLONG_MAX = (1 << 63) - 1


def model_range(t: Arith) -> tuple[int, int]:
    """The values a parameter of integer type ``t`` can take in the model:
    ``[min_t, min(max_t, 2^63 - 1)]``."""
    return t.minimum, min(t.maximum, LLONG_MAX)


def range_constraint(name: str, t: Arith) -> str:
    """isl text of the values parameter ``name`` of type ``t`` can take in the model
    (``model_range``)."""
    low, high = model_range(t)
    return f"[{name}] -> {{ : {low} <= {name} <= {high} }}"


def resolve_typedefs(names: Iterable[str], typedefs: Mapping[str, str]) -> str:
    """The type text of a declaration's specifier words with each typedef name
    replaced by the text it stands for (``size_t n`` -> ``unsigned long``)."""
    return " ".join(w for n in names for w in typedefs.get(n, n).split())


def parse_type(text: str) -> Arith | None:
    """The arithmetic type spelled by ``text`` (None: not arithmetic, e.g. a struct)."""
    words = [w for w in text.replace("*", " * ").split() if w not in _QUALIFIERS]
    if not words or "*" in words:
        return None
    if len(words) == 1 and words[0] in _NAMED:
        return _NAMED[words[0]]
    unsigned = "unsigned" in words
    longs = words.count("long")
    rest = {w for w in words if w not in ("unsigned", "signed", "long")}
    if rest <= {"double"} and "double" in rest:
        return LDOUBLE if longs else DOUBLE
    if rest == {"float"} and not longs:
        return FLOAT
    if rest == {"_Bool"}:
        return BOOL
    if rest == {"char"}:
        return UCHAR if unsigned else SCHAR if "signed" in words else CHAR
    if rest == {"short"} or rest == {"short", "int"}:
        return USHORT if unsigned else SHORT
    if not rest - {"int"}:
        if longs >= 2:
            return ULLONG if unsigned else LLONG
        if longs == 1:
            return ULONG if unsigned else LONG
        return UINT if unsigned else INT
    return None


def promote(t: Arith) -> Arith:
    """Integer promotion: types of lower rank than ``int`` become ``int``."""
    if not t.floating and t.rank < INT.rank:
        return INT
    return t


def common(a: Arith, b: Arith) -> Arith:
    """The usual arithmetic conversions (C11 6.3.1.8): the type both operands of a
    binary operator are converted to."""
    if a.floating or b.floating:
        return a if a.rank >= b.rank else b
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.rank >= b.rank else b
    unsigned, signed = (a, b) if not a.signed else (b, a)
    if unsigned.rank >= signed.rank:
        return unsigned
    if signed.bits > unsigned.bits:
        return signed
    return _UNSIGNED_OF[signed]


_UNSIGNED_OF = {INT: UINT, LONG: ULONG, LLONG: ULLONG}


def literal_type(text: str) -> Arith:
    """The type of an integer literal (C11 6.4.4.1): the first of the candidate types
    for its suffix and base that can represent its value."""
    digits = text.rstrip("uUlL")
    suffix = text[len(digits):].lower()
    if digits.lower().startswith("0x"):
        value, decimal = int(digits, 16), False
    elif len(digits) > 1 and digits.startswith("0"):
        value, decimal = int(digits, 8), False
    else:
        value, decimal = int(digits), True
    unsigned = "u" in suffix
    longs = suffix.count("l")
    if unsigned:
        candidates = [UINT, ULONG, ULLONG][min(longs, 2):]
    elif decimal:
        candidates = [INT, LONG, LLONG][min(longs, 2):]
    else:
        candidates = [INT, UINT, LONG, ULONG, LLONG, ULLONG][2 * min(longs, 2):]
    for t in candidates:
        if value <= t.maximum:
            return t
    return ULLONG


def literal_value(text: str) -> int:
    """The value of an integer literal (decimal, octal or hex, any suffix)."""
    digits = text.rstrip("uUlL")
    if digits.lower().startswith("0x"):
        return int(digits, 16)
    return int(digits, 8) if len(digits) > 1 and digits.startswith("0") else int(digits)

