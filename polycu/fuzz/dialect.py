"""Other spellings of an emitted program: typedef names for its types, enumeration
constants for its integer literals.

In:  the C text ``emit.emit_program`` wrote, and the program's seed.
Out: the same program, for one seed in four each, with ``double``, ``float``,
``unsigned`` and ``long`` spelt through typedefs (``typedef double real;``) in
every declaration and cast, and with the plain ``int`` literals of the SCoP
spelt as enumeration constants (``enum { K_3 = 3 };``, ``A[i + K_3]``); for one
seed in seven or so, without ``#pragma scop``, so that polycu finds the SCoPs of
the whole file itself (``main``'s loops too).

Both are the same program to C: a typedef name is a synonym of its type, and a
decimal literal up to ``INT_MAX`` is an ``int`` as an enumeration constant is, so
the interpreter's verdict and gcc's output are those of the plain text.  They
reach the frontend's rewrites (``frontend/typenames.py``, ``frontend/enums.py``)
and the symbol table's typedefs.  The choice depends on the seed alone, so that a
program read back from its text (``emit.program_of_text``) is emitted the same.
String literals, the first line (polycu's options) and the last (the program as
JSON) are left as they are.
"""
from __future__ import annotations

import random
import re

#: type word -> typedef name (and the lookarounds that keep ``long long``,
#: ``long double`` and ``unsigned long long`` whole)
TYPEDEFS = {"double": "real", "float": "real32", "unsigned": "u32", "long": "i64"}
_TYPE_WORD = re.compile(r"(?<!long )(?<!unsigned )\b(double|float|unsigned|long)\b"
                        r"(?! long| double| int| char| short)")
_INT_LITERAL = re.compile(r"(?<![\w.])(?<![eE][+-])(\d+)(?![\w.])")
_INT_MAX = 2 ** 31 - 1


def dialect(text: str, seed: int) -> str:
    """``text`` in the dialect of ``seed`` (often ``text`` itself)."""
    rng = random.Random(f"polycu-fuzz-dialect:{seed}")
    typedefs, enums = rng.random() < 0.25, rng.random() < 0.25
    automatic = rng.random() < 0.15
    if not typedefs and not enums and not automatic:
        return text
    lines = text.split("\n")
    first_scop = lines.index("#pragma scop") if "#pragma scop" in lines else -1
    last_scop = lines.index("#pragma endscop") if "#pragma endscop" in lines else -1
    constants: set[int] = set()

    def enumerated(segment: str) -> str:
        def constant(m: re.Match) -> str:
            value = int(m.group(1))
            if value > _INT_MAX:
                return m.group(0)
            constants.add(value)
            return f"K_{value}"
        return _INT_LITERAL.sub(constant, segment)

    for k, line in enumerate(lines):
        if line.startswith("/* polycu-fuzz"):
            continue
        parts = line.split('"')
        for p in range(0, len(parts), 2):                # outside string literals
            if typedefs:
                parts[p] = _TYPE_WORD.sub(lambda m: TYPEDEFS[m.group(1)], parts[p])
            if enums and first_scop < k < last_scop:
                parts[p] = enumerated(parts[p])
        lines[k] = '"'.join(parts)
    if automatic:                      # polycu finds the SCoPs itself
        lines = [line for line in lines if line not in ("#pragma scop", "#pragma endscop")]
    definitions = [f"typedef {t} {n};" for t, n in TYPEDEFS.items()] if typedefs else []
    if constants:
        definitions.append("enum { " + ", ".join(f"K_{v} = {v}" for v in sorted(constants))
                           + " };")
    at = next(k for k, line in enumerate(lines) if line.startswith("#define MAX")) + 1
    return "\n".join(lines[:at] + definitions + lines[at:])
