"""Every integer type and the bitwise operators in the random programs (session 37).

In:  the random state of one attempt (``structure.Structure``) and, from seed
``INTEGERS_FROM`` on, a random state of its own.
Out: ``Integers``, a base of ``generate.Generator``: element and scalar types
``signed char``, ``unsigned char``, ``short``, ``unsigned short``, ``long long``,
``unsigned long`` and ``unsigned long long`` in place of some of the first
generator's (``widened``), initial values and literals that reach each type's
extremes (``init_spec``, ``extreme``, ``int_literal``), and the forms ``& | ^ << >>
~`` in integer expressions (``bit_form``) and as compound assignments
(``bit_assignment``).

Every draw of this module comes from ``self.irng``, which exists only from
``INTEGERS_FROM`` on, and the first generator's stream (``self.rng``) draws what it
drew before wherever a seed is older: so the seeds before ``INTEGERS_FROM`` keep
their programs (the campaigns and CI seeds of docs/fuzz.md, the reproducers).
The interpreter (``cint``) rejects the attempts whose shifts or arithmetic are
undefined, as it rejects signed overflow.
"""
from __future__ import annotations

import random
from typing import Callable

from .cint import BITS, SIGNED, limits, promote
from .program import FLOAT_TYPES, INT_TYPES, NEW_INT_TYPES, Expr
from .structure import Structure

#: The first seed whose programs draw the types and operators of this module.
INTEGERS_FROM = 5_610_000
#: weights of the new types where one replaces a drawn type
NEW_TYPE_WEIGHTS = {"signed char": 3, "unsigned char": 3, "short": 3, "unsigned short": 3,
                    "long long": 3, "unsigned long": 3, "unsigned long long": 1}
#: integer expressions that become a bitwise form (per expression node)
BIT_SHARE = 0.35
#: integer statements that become a bitwise compound assignment
BIT_ASSIGN_SHARE = 0.3
MASKS = (1, 7, 15, 255, 1023, 65535, 2147483647)
SHIFTS = (0, 1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 24, 31, 32, 40, 63)


def narrow(t: str) -> bool:
    """Whether ``t`` is promoted to int in arithmetic (its literals are casts)."""
    return t in BITS and BITS[t] < 32


class Integers(Structure):
    """The types, values and operators of every integer type (see the module doc)."""

    def __init__(self, seed: int, attempt: int):
        super().__init__(seed, attempt)
        self.irng: random.Random | None = None
        if seed >= INTEGERS_FROM:
            self.irng = random.Random(f"polycu-fuzz-integers:{seed}:{attempt}")

    def _ipick(self, weighted: dict) -> object:
        keys = list(weighted)
        return self.irng.choices(keys, [weighted[k] for k in keys])[0]

    # types
    def widened(self, t: str, from_float: float = 0.0) -> str:
        """``t``, or from ``INTEGERS_FROM`` on, for some draws, a new integer type (an
        integer type more often than a floating one)."""
        if self.irng is None:
            return t
        share = from_float if t in FLOAT_TYPES else 0.55
        if self.irng.random() < share:
            return str(self._ipick(NEW_TYPE_WEIGHTS))
        return t

    def element_type(self) -> str:
        return self.widened(super().element_type(), 0.15)

    def int_type(self) -> str:
        """An integer type for an integer context (a cast, an array, an argument)."""
        return self.widened(self.rng.choice(INT_TYPES))

    def literal_type(self, t: str) -> str:
        """The type of an integer constant next to a value of type ``t`` (``t`` itself
        where C has literals of it, else int, as the first generator did for
        ``unsigned``)."""
        return t if t in ("int", "long", "long long") else "int"

    # values
    def new_array(self, type_: str | None = None, ndim: int | None = None) -> dict:
        array = super().new_array(type_, ndim)
        if array["type"] in NEW_INT_TYPES:
            array["init"] = dict(array["init"], **self.init_spec(array["type"],
                                                                 array["init"]["m"]))
        return array

    def init_spec(self, t: str, m: int) -> dict:
        """``scale`` and ``base`` of ``(T) ((unsigned long long) h * scale + base)``,
        ``h`` in (-m, m): small values of both signs, a run up to the maximum or from
        the minimum, one across the wrap from the maximum to the minimum, or values
        spread over the whole range.  Both are stored modulo 2^64 (ULL literals)."""
        lo, hi = limits(t)
        form = self._ipick({"small": 3, "max": 2, "min": 2, "wrap": 1, "spread": 2})
        scale, base = 1, 0
        if form == "small":
            scale = self.irng.choice([1, 3, 1000])
        elif form == "max":
            base = hi - (m - 1)
        elif form == "min":
            base = lo + (m - 1)
        elif form == "wrap":
            base = hi
        else:
            scale = ((1 << BITS[t]) // (2 * m)) | 1
        return {"scale": scale % (1 << 64), "base": base % (1 << 64)}

    def extreme(self, t: str) -> int:
        """A value of ``t``: mostly small, else at or near one of its limits."""
        lo, hi = limits(t)
        form = self._ipick({"small": 5, "max": 1, "min": 1, "near": 2})
        if form == "small":
            return self.irng.randint(0 if lo == 0 else -5, 9)
        if form == "max":
            return hi
        if form == "min":
            return lo
        return self.irng.choice([hi - self.irng.randint(1, 3), lo + self.irng.randint(1, 3)])

    def new_scalar(self, kind: str, type_: str | None = None) -> dict:
        scalar = super().new_scalar(kind, type_)
        if scalar["type"] in NEW_INT_TYPES:
            scalar["init"] = self.extreme(scalar["type"])
        return scalar

    def int_literal(self, t: str) -> Expr:
        """A constant of a new integer type: ``((short) 5)`` for the narrow ones
        (``emit.emit_num``), ``5LL``, ``18446744073709551615UL``, ..."""
        if self.irng.random() < 0.7:
            lo = 0 if not SIGNED[t] else -4
            return ["num", t, self.irng.choice([v for v in (1, 2, 3, 7, lo, 100) if v])]
        return ["num", t, self.extreme(t)]

    # operators
    def bitwise_here(self, is_int: bool) -> bool:
        """Whether this integer expression is a bitwise form (from ``INTEGERS_FROM``)."""
        return is_int and self.irng is not None and self.irng.random() < BIT_SHARE

    def shift_count(self, scope: list[dict]) -> Expr:
        """A shift count: a constant (of int, unsigned or a 64-bit type: the count's
        type does not change the result's), or an iterator's low bits."""
        spatial = [s for s in scope if not s["time"]]
        if spatial and self.irng.random() < 0.25:
            it = ["var", self.irng.choice(spatial)["name"]]
            if self.irng.random() < 0.5:
                return ["bin", "&", it, ["num", "int", 7]]
            return ["bin", "%", it, ["num", "int", 5]]
        count = self.irng.choice(SHIFTS[:12] if self.irng.random() < 0.85 else SHIFTS)
        return ["num", str(self._ipick({"int": 6, "unsigned": 1, "long": 1,
                                        "unsigned long": 1})), count]

    def bit_form(self, t: str, scope: list[dict], sub: Callable[[], Expr]) -> Expr:
        """``a & b``, ``a | b``, ``a ^ b``, ``a & MASK``, ``a << c``, ``a >> c`` or ``~a``
        of integer sub-expressions; a left shift's operand is masked to a small
        non-negative value half the time (a negative one, or one whose shift does not
        fit, is undefined and rejects the attempt)."""
        form = self._ipick({"&": 3, "|": 2, "^": 2, "mask": 3, "<<": 4, ">>": 4, "~": 2})
        mask = ["num", self.literal_type(t), self.irng.choice(MASKS)]
        if form in ("&", "|", "^"):
            return ["bin", form, sub(), sub()]
        if form == "mask":
            return ["bin", "&", sub(), mask]
        if form == "~":
            return ["compl", sub()]
        left = sub()
        if form == "<<" and self.irng.random() < 0.5:
            left = ["bin", "&", left, ["num", self.literal_type(t), self.irng.choice(MASKS[:5])]]
        return ["bin", form, left, self.shift_count(scope)]

    def bit_assignment(self, t: str) -> str | None:
        """From ``INTEGERS_FROM`` on, for some integer statements: ``&=``, ``|=``,
        ``^=``, ``<<=`` or ``>>=`` (fewer left shifts of signed types), else None."""
        if self.irng is None or self.irng.random() >= BIT_ASSIGN_SHARE:
            return None
        return str(self._ipick({"&=": 2, "|=": 2, "^=": 2, ">>=": 2,
                                "<<=": 1 if SIGNED[promote(t)] else 2}))

    def bit_rhs(self, op: str, t: str, scope: list[dict], value: Callable[[], Expr]) -> Expr:
        """The right operand of a bitwise compound assignment."""
        if op in ("<<=", ">>="):
            return self.shift_count(scope)
        if self.irng.random() < 0.5:
            return ["num", self.literal_type(t), self.irng.choice(MASKS)]
        return value()
