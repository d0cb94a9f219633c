"""The programs' printed arrays, parsed and compared (the fuzzer's oracle).

A program prints each array as a block: a line ``@ NAME TYPE`` and then one value a
line.  Integers must be equal as printed; floating values within a relative
tolerance (``RTOL``) that absorbs legitimate re-association and the last bits of
another libm (the GPU's), judged on max(|e|, ``ARRAY_SCALE`` * max|e| of the array),
so an element that cancels to nearly zero is not held to a relative bound.
"""
from __future__ import annotations

import math

#: relative tolerance per printed type; elements are judged on max(|e|, f * max|e|)
RTOL = {"double": 1e-9, "float": 1e-4}
ARRAY_SCALE = 1e-3
ABS_FLOOR = 1e-30


def parse_output(text: str) -> list[tuple[str, str, list[str]]]:
    blocks: list[tuple[str, str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("@ "):
            _, name, type_ = line.split(None, 2)      # "@ A unsigned char"
            blocks.append((name, type_, []))
        elif blocks:
            blocks[-1][2].append(line.strip())
        elif line.strip():
            raise ValueError(f"output before the first array: {line!r}")
    return blocks


def _float(token: str) -> float:
    return float(token.replace("-nan", "nan"))


def compare_outputs(expected: str, actual: str) -> str | None:
    """None when ``actual`` prints the same values as ``expected`` (integers exactly,
    floating values within ``RTOL``, NaN equal to NaN, infinities exactly); else a
    description of the first difference and the number of different values."""
    try:
        want, got = parse_output(expected), parse_output(actual)
    except ValueError as exc:
        return f"unreadable output: {exc}"
    if [(n, t, len(v)) for n, t, v in want] != [(n, t, len(v)) for n, t, v in got]:
        return (f"other arrays printed: expected {[(n, len(v)) for n, _, v in want]}, "
                f"got {[(n, len(v)) for n, _, v in got]}")
    problems = []
    for (name, type_, values), (_, _, others) in zip(want, got):
        bad, first = 0, None
        if type_ in RTOL:
            e = [_float(x) for x in values]
            a = [_float(x) for x in others]
            finite = [abs(x) for x in e if math.isfinite(x)]
            scale = ARRAY_SCALE * max(finite, default=0.0)
            for i, (x, y) in enumerate(zip(e, a)):
                if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
                    same = (math.isnan(x) and math.isnan(y)) or x == y
                else:
                    same = abs(x - y) <= RTOL[type_] * max(abs(x), scale, ABS_FLOOR)
                if not same:
                    bad += 1
                    first = first if first is not None else i
        else:
            for i, (x, y) in enumerate(zip(values, others)):
                if x != y:
                    bad += 1
                    first = first if first is not None else i
        if bad:
            problems.append(f"{name} ({type_}): {bad} of {len(values)} values differ; first at "
                            f"element {first}: expected {values[first]}, got {others[first]}")
    return "; ".join(problems) or None
