"""Every integer type and the bitwise operators in the differential tester (session 37:
``polycu/fuzz/integers.py``, ``polycu/fuzz/cint.py``): C's integer rules as the
interpreter models them equal gcc's on values at every type's limits, the seeds
from 5,610,000 on use every type and operator in valid C free of undefined
behaviour whose integers the interpreter predicts, and the seeds before keep their
programs."""
from __future__ import annotations

import hashlib
import random
import subprocess
from pathlib import Path

import pytest

from polycu.fuzz import features, generate
from polycu.fuzz.cint import BITS, arith, complement, convert, limits, negate
from polycu.fuzz.emit import emit_num
from polycu.fuzz.integers import INTEGERS_FROM
from polycu.fuzz.interpret import predicted_integers
from polycu.fuzz.program import INTEGER_TYPES, Invalid

#: sha256 (first 20 hex digits) of the text of seeds from before INTEGERS_FROM, as
#: the generator of session 36 (d132aa7) emitted them: CI seeds, a renamed one, a
#: contraction nest, a data subscript, the last seed before the new features
OLD_TEXTS = {7: "6d9f19f4c882779ea8da", 1013: "52737b09492e6c67b601",
             4200003: "c822bff460895a2a9691", 5400004: "365df2253ae00a5a2f48",
             5400038: "20647b9a5d0cc74c46d8", 5609999: "0c46bd124112a3a9516e"}
NEW = ("signed char", "unsigned char", "short", "unsigned short", "long long",
       "unsigned long", "unsigned long long")
OPERATORS = ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>")


def test_old_seeds_keep_their_programs() -> None:
    for seed, digest in OLD_TEXTS.items():
        text = generate(seed).text
        assert hashlib.sha256(text.encode()).hexdigest()[:20] == digest, seed
        assert not any(f"type:{t}" in features(generate(seed)) for t in NEW)


def test_interpreter_rejects_what_c_leaves_undefined() -> None:
    """Signed overflow in the promoted type, shift counts out of range, left shifts
    of negative values or whose result does not fit; not their defined neighbours."""
    undefined = [("<<", "int", 1, "int", 31), ("<<", "int", -1, "int", 1),
                 ("<<", "int", 1, "int", 32), ("<<", "long", 1, "int", -1),
                 (">>", "short", 5, "int", 32), ("+", "long long", 2 ** 63 - 1, "int", 1),
                 ("*", "unsigned short", 65535, "unsigned short", 65535)]     # in int
    for op, ta, a, tb, b in undefined:
        with pytest.raises(Invalid):
            arith(op, ta, a, tb, b)
    assert arith("<<", "unsigned", 1, "int", 31) == ("unsigned", 2 ** 31)
    assert arith("<<", "short", 1, "long", 31 - 1) == ("int", 2 ** 30)     # the left type's
    assert arith(">>", "signed char", -128, "int", 3) == ("int", -16)      # arithmetic
    assert arith("<<", "long", 1, "unsigned", 62) == ("long", 2 ** 62)
    assert arith("+", "short", 32767, "int", 40000) == ("int", 72767)
    assert arith("+", "unsigned long", 2 ** 64 - 1, "int", 1) == ("unsigned long", 0)
    assert arith("-", "long long", 0, "unsigned long", 1) == ("unsigned long long", 2 ** 64 - 1)
    assert arith("+", "long", -1, "unsigned", 0) == ("long", -1)
    assert arith("|", "unsigned char", 200, "signed char", -128) == ("int", -56)
    assert complement("unsigned short", 0) == ("int", -1)
    assert negate("unsigned char", 255) == ("int", -255)
    with pytest.raises(Invalid):
        negate("long long", -2 ** 63)


def _generic(expr: str) -> str:
    names = ", ".join(f'{t}: "{t}"' for t in INTEGER_TYPES)
    return f"_Generic(({expr}), {names})"


def _value(t: str, v: int) -> str:
    return f"({t}) {emit_num(t, v)}" if BITS[t] >= 32 else emit_num(t, v)


def _cases(rng: random.Random, count: int) -> list[tuple[str, str, int, str, int]]:
    """Operator, types and values, each value a limit of its type or near one."""
    def pick(t: str) -> int:
        lo, hi = limits(t)
        return convert(rng.choice([lo, lo + 1, -1, 0, 1, 3, 7, 31, 40000, hi - 1, hi,
                                   hi // 3]), t)
    out = []
    for _ in range(count):
        op = rng.choice(OPERATORS + ("=", "~", "neg"))
        ta, tb = rng.choice(INTEGER_TYPES), rng.choice(INTEGER_TYPES)
        a, b = pick(ta), pick(tb)
        if op in ("<<", ">>") or op == "=" and rng.random() < 0.3:
            tb = rng.choice(("int", "unsigned char", "long", "unsigned long"))
            b = convert(rng.choice([0, 1, 3, 7, 8, 15, 16, 31, 32, 63, 64, -1]), tb)
        out.append((op, ta, a, tb, b))
    return out


def test_c_integer_rules_agree_with_gcc(tmp_path: Path) -> None:
    """Each case's type (``_Generic``) and value, as ``cint`` computes them, equal what
    gcc's build prints, run on volatile operands under -fsanitize=undefined; the
    cases ``cint`` rejects are not run.  ``=`` cases are compound assignments to the
    left type (``x op= y``: computed in the promoted type, converted back)."""
    rng = random.Random(37)
    lines, expected, skipped = [], [], 0
    for n, (op, ta, a, tb, b) in enumerate(_cases(rng, 1200)):
        try:
            if op in ("~", "neg"):
                t, v = (complement if op == "~" else negate)(ta, a)
                expr = f"{'~' if op == '~' else '-'}a"
            elif op == "=":
                sub = rng.choice(OPERATORS)
                t, v = ta, convert(arith(sub, ta, a, tb, b)[1], ta)
                expr = f"(x {sub}= b, x)"
            else:
                t, v = arith(op, ta, a, tb, b)
                expr = f"a {op} b"
        except Invalid:
            skipped += 1
            continue
        fmt, cast = ("%lld", "long long") if limits(t)[0] else ("%llu", "unsigned long long")
        lines.append(f"  {{ volatile {ta} a = {_value(ta, a)}; volatile {tb} b = {_value(tb, b)};"
                     f" {ta} x = a; (void) x;"
                     f' printf("{n} %s {fmt}\\n", {_generic(expr)}, ({cast}) ({expr})); }}')
        expected.append(f"{n} {t} {v}")
    assert 700 < len(expected) and skipped > 50, (len(expected), skipped)
    source = tmp_path / "rules.c"
    source.write_text("#include <stdio.h>\nint main(void)\n{\n" + "\n".join(lines)
                      + "\n  return 0;\n}\n")
    exe = tmp_path / "rules"
    build = subprocess.run(["gcc", "-std=c11", "-O0", "-Wall", "-Wno-overflow",
                            "-fsanitize=undefined", "-fno-sanitize-recover=all", str(source),
                            "-o", str(exe)], capture_output=True, text=True, timeout=120)
    assert build.returncode == 0, build.stderr[:3000]
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and "runtime error" not in ran.stderr, ran.stderr[:2000]
    got = ran.stdout.splitlines()
    wrong = [(e, g) for e, g in zip(expected, got) if e != g]
    assert not wrong and len(got) == len(expected), wrong[:10]


def test_new_seeds_cover_every_integer_type_and_operator() -> None:
    seen: set[str] = set()
    for seed in range(INTEGERS_FROM, INTEGERS_FROM + 150):      # all seen by seed + 92
        seen |= features(generate(seed))
    wanted = {f"type:{t}" for t in NEW} | {f"expr:{op}" for op in ("&", "|", "^", "<<", ">>")}
    wanted |= {"expr:~", "op:&=", "op:|=", "op:^=", "op:<<=", "op:>>=", "op:shift",
               "op:bitwise", "int:narrow", "int:64-mixed"}
    assert wanted <= seen, sorted(wanted - seen)


def _covering_seeds(wanted: set[str], limit: int) -> list[int]:
    """New seeds, in order, each adding some wanted feature, until all are covered."""
    seeds, left = [], set(wanted)
    for seed in range(INTEGERS_FROM, INTEGERS_FROM + 400):
        has = features(generate(seed))
        got = has & left
        if got and "dialect:automatic" not in has:
            seeds.append(seed)
            left -= got
        if not left or len(seeds) == limit:
            break
    assert not left, left
    return seeds


def test_new_seeds_are_valid_and_the_interpreter_agrees_with_gcc(printed_by_gcc) -> None:
    """Programs of new seeds that together use every new type and operator build with
    -Wall -pedantic-errors and under -fsanitize=undefined, run clean, and print the
    integers the interpreter computes (arrays and global scalars)."""
    wanted = {f"type:{t}" for t in NEW} | {"op:shift", "op:bitwise", "expr:~", "int:64-mixed"}
    compared = 0
    for seed in _covering_seeds(wanted, 10):
        fin = generate(seed)
        printed = printed_by_gcc(fin.text, f"p{seed}")
        for name, block in predicted_integers(fin).items():
            assert printed[name] == block, (seed, name)
            compared += 1
    assert compared >= 8
